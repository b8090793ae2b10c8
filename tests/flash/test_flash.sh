#!/usr/bin/env bash
# Firmware images, the boot flash and flashing (issue 12): images checked
# wherever they enter, a good image flashed while traffic runs, every kind
# of bad image refused with the old firmware still serving, an interrupted
# flash that boots the old slot, a flipped bit that makes the loader fall
# back.
#   test_flash.sh LAUNCHER QEMU FLASH_TOOL FW_DIR_4KC R3000_IMAGE FLASH_TRAFFIC
set -uo pipefail
launcher=$1 qemu=$2 tool=$3 fwdir=$4 r3000=$5 traffic=$6
good=$fwdir/martini-fw.img loader=$fwdir/dimmnet1-boot.bin
work=$(mktemp -d "${TMPDIR:-/tmp}/dn-flash-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0 scenarios=0
fail() { echo "FAIL $*" >&2; fails=$((fails + 1)); }
scenario() { scenarios=$((scenarios + 1)); echo "---- $*"; }
# expect_in FILE PATTERN WHAT
expect_in() { grep -Eq -- "$2" "$1" || { fail "$3: no '$2' in:"; cat "$1" >&2; }; }
byte_at() { od -An -tx1 -j "$2" -N1 "$1" | tr -d ' \n'; }
flip_bit() {   # FILE OFFSET
    local b; b=$(byte_at "$1" "$2")
    printf "\\x$(printf %02x $((0x$b ^ 0x08)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
word_at() { od -An -tx1 -j "$2" -N4 "$1" | tr -d ' \n'; }
cluster() { "$launcher" --quiet --qemu "$qemu" --firmware "$good" --timeout 300 "$@"; }

# The new firmware: the same code, another version and build id.
"$tool" pack --cpu 4kc --version 0.2.0 --build flash-test "$fwdir/martini-fw.elf" "$work/new.img" ||
    { echo "cannot pack the test image" >&2; exit 1; }

scenario "pack refuses what the loader would: not an ELF, an ELF linked for flash"
"$tool" pack --cpu 4kc "$work/new.img" "$work/x.img" >"$work/out" 2>&1 && fail "pack of a non-ELF: exit 0"
expect_in "$work/out" "not an ELF file" pack-not-elf
"$tool" pack --cpu 4kc "$fwdir/dimmnet1-boot.elf" "$work/x.img" >"$work/out" 2>&1 && fail "pack of the loader: exit 0"
expect_in "$work/out" "not packed: .*outside local memory" pack-flash-elf
[ ! -e "$work/x.img" ] || fail "pack left an image behind"

scenario "check: a good image, and refusals with their reasons"
"$tool" check "$good" >"$work/out" 2>&1 || fail "check good image: $(cat "$work/out")"
expect_in "$work/out" "valid: firmware [0-9.]+ build .* \(4kc\)" check-good
head -c 30000 /dev/urandom >"$work/random.img"
head -c 1000 "$good" >"$work/truncated.img"
cat "$good" "$good" >"$work/trailing.img"
cp "$good" "$work/flipped.img"; flip_bit "$work/flipped.img" 5000
for bad in random:'.*bad magic' truncated:'truncated' trailing:'trailing bytes' \
           flipped:'code CRC mismatch'; do
    "$tool" check "$work/${bad%%:*}.img" >"$work/out" 2>&1
    [ $? = 1 ] || fail "check ${bad%%:*}: not refused"
    expect_in "$work/out" "refused: ${bad#*:}" "check-${bad%%:*}"
done
"$tool" check "$r3000" >"$work/out" 2>&1 && fail "check r3000 image: accepted for the 4Kc board"
expect_in "$work/out" "refused: built for another CPU port \(r3000, this board runs 4kc\)" check-r3000
"$tool" check --cpu r3000 "$r3000" >"$work/out" 2>&1 || fail "check --cpu r3000: $(cat "$work/out")"
# write refuses a bad image before it looks for a board at all.
"$tool" write "$work/random.img" >"$work/out" 2>&1
[ $? = 1 ] || fail "write of a bad image did not exit 1"
expect_in "$work/out" "refused: not a DIMMnet-1 firmware image" write-bad

scenario "build ids say what an image is: commit, a mark for changes, the code's CRC-32"
"$tool" check "$good" >"$work/out" 2>&1 || fail "check good image: $(cat "$work/out")"
expect_in "$work/out" "build [0-9a-z]{7}[-+][0-9a-f]{8} \[commit [0-9a-z]{7}, (clean|modified) tree, contents [0-9a-f]{8}\] \(4kc\)" build-id
good_digest=$(sed -n 's/.* build [0-9a-z]\{7\}[-+]\([0-9a-f]\{8\}\) .*/\1/p' "$work/out")
# The same code under another stem: the same digest; other code: another.
"$tool" pack --cpu 4kc --build abc1234+ --digest "$fwdir/martini-fw.elf" "$work/d1.img" ||
    fail "pack --digest"
"$tool" check "$work/d1.img" >"$work/out" 2>&1 || fail "check d1: $(cat "$work/out")"
expect_in "$work/out" "build abc1234\+$good_digest \[commit abc1234, modified tree, contents $good_digest\]" digest-same-code
"$tool" pack --cpu 4kc --build abc1234- --digest "$fwdir/martini-probe.elf" "$work/d2.img" ||
    fail "pack --digest probe"
"$tool" check "$work/d2.img" >"$work/out" 2>&1 || fail "check d2: $(cat "$work/out")"
expect_in "$work/out" "build abc1234-[0-9a-f]{8} \[commit abc1234, clean tree" digest-other-code
grep -q "abc1234-$good_digest" "$work/out" && fail "two codes, one digest"
# An id that names other contents than the image's: said so.
"$tool" pack --cpu 4kc --build abc1234-00000000 "$fwdir/martini-fw.elf" "$work/d3.img" ||
    fail "pack with a 16-character id"
"$tool" check "$work/d3.img" >"$work/out" 2>&1
expect_in "$work/out" "contents 00000000: the code differs from them" digest-mismatch
"$tool" pack --cpu 4kc --build 123456789 --digest "$fwdir/martini-fw.elf" "$work/d4.img" \
    >"$work/out" 2>&1
[ $? = 2 ] || fail "pack --digest with a 9-character stem: not a usage error"
expect_in "$work/out" "--digest: build id longer than 8 characters" digest-too-long

scenario "-bios refuses a bad image at once, with the reason"
timeout 60 "$qemu" -M dimmnet1 -bios "$work/flipped.img" -nodefaults -display none \
    -monitor none >"$work/out" 2>&1
[ $? = 1 ] || fail "-bios flipped image: QEMU did not exit 1"
expect_in "$work/out" "firmware image '.*' refused: code CRC mismatch" bios-refused
timeout 60 "$qemu" -M dimmnet1 -bios "$good" -drive "if=pflash,format=raw,file=$work/random.img" \
    -nodefaults -display none -monitor none >"$work/out" 2>&1
[ $? = 1 ] || fail "-bios and a flash drive: QEMU did not exit 1"
expect_in "$work/out" "either -bios or a flash drive" bios-and-flash

scenario "a board booted with -bios has no flash: said so, nothing written"
cluster -n 1 --bios -- "$tool" info >"$work/out" 2>&1 || { fail "info with -bios"; cat "$work/out" >&2; }
expect_in "$work/out" "node 0: running firmware [0-9.]+ loaded by the board \(-bios, no flash\)" bios-info
expect_in "$work/out" "node 0: no flash device" bios-info
cluster -n 1 --bios -- "$tool" write "$work/new.img" >"$work/out" 2>&1 && fail "write with -bios: exit 0"
expect_in "$work/out" "flashing failed: .*flash" bios-write
# NIC_RESTART on a -bios board: the board loads the image again.
cluster -n 1 --bios -- "$tool" restart >"$work/out" 2>&1 || { fail "restart with -bios"; cat "$work/out" >&2; }
[ "$(grep -c 'loaded by the board (-bios, no flash)' "$work/out")" = 2 ] ||
    { fail "bios-restart: not running the -bios image before and after:"; cat "$work/out" >&2; }
# restart --hard: a hard reset (nothing handed over), and the firmware comes up.
cluster -n 1 --bios -- "$tool" restart --hard >"$work/out" 2>&1 || { fail "restart --hard"; cat "$work/out" >&2; }
expect_in "$work/out" "node 0: resetting \(hard, nothing handed over\) the NIC processor" hard-restart
[ "$(grep -c 'loaded by the board (-bios, no flash)' "$work/out")" = 2 ] ||
    { fail "hard-restart: not running the -bios image before and after:"; cat "$work/out" >&2; }

scenario "flash node 1 while node 0 sends it messages; bad images refused first"
cluster -n 2 --flash-dir "$work/fd1" --log-dir "$work/log1" -- "$traffic" "$good" "$work/new.img" \
    >"$work/out" 2>&1 || { fail "flash under traffic"; cat "$work/out" >&2; }
expect_in "$work/out" "node 1: flashed slot 1 and restarted: firmware 0.2.0, generation 2" flash-traffic
expect_in "$work/out" "all [0-9]+ messages received intact and in order" flash-traffic
[ "$(grep -c 'refused:' "$work/out")" -ge 8 ] || fail "flash-traffic: not every bad kind refused"
# The flash files persist: the next run boots what was written.
cluster -n 2 --flash-dir "$work/fd1" -- "$(dirname "$tool")/dnctl" >"$work/out" 2>&1 ||
    { fail "reboot from the flashed files"; cat "$work/out" >&2; }
expect_in "$work/out" "node 1: booted firmware 0.2.0 from slot 1 generation 2" persist
expect_in "$work/out" "node 0: booted firmware [0-9.]+ from slot 0 generation 1" persist

scenario "flash through the tool: write, restart, info"
cluster -n 1 --flash-dir "$work/fd2" -- "$tool" write "$work/new.img" >"$work/out" 2>&1 ||
    { fail "dimmnet-flash write"; cat "$work/out" >&2; }
expect_in "$work/out" "node 0: running firmware 0.2.0 from slot 1 \(generation 2\)" tool-write
cluster -n 1 --flash-dir "$work/fd2" -- "$tool" info >"$work/out" 2>&1 ||
    { fail "dimmnet-flash info"; cat "$work/out" >&2; }
expect_in "$work/out" "node 0: slot 1: generation 2, firmware 0.2.0 build flash-test, valid" tool-info
expect_in "$work/out" "node 0: slot 0: generation 1, firmware [0-9.]+ build .*, valid" tool-info
# Flashing again replaces the slot not running (0), as generation 3.
cluster -n 1 --flash-dir "$work/fd2" -- "$tool" write "$good" >"$work/out" 2>&1 ||
    { fail "second write"; cat "$work/out" >&2; }
expect_in "$work/out" "running firmware [0-9.]+ from slot 0 \(generation 3\)" tool-rewrite
# write --no-restart leaves the old firmware running; restart boots the new.
cluster -n 1 --flash-dir "$work/fd2" -- sh -c "'$tool' write --no-restart '$work/new.img' && '$tool' restart" \
    >"$work/out" 2>&1 || { fail "write --no-restart, restart"; cat "$work/out" >&2; }
expect_in "$work/out" "slot 1 written, read back and committed" no-restart
[ "$(grep -c 'running firmware [0-9.]* from slot 0 (generation 3)' "$work/out")" = 2 ] ||
    fail "no-restart: the old firmware did not keep running until the restart"
expect_in "$work/out" "running firmware 0.2.0 from slot 1 \(generation 4\)" no-restart

scenario "power lost mid-write: the board boots its old slot"
cat >"$work/cut.sh" <<EOF
#!/usr/bin/env bash
# Node 0: start a write, cut the board's power once the image is partly in.
[ "\$DIMMNET_NODE_ID" = 0 ] || exit 0
flash=$work/fd3/node0.flash
"$tool" write "$work/new.img" >"$work/cut.out" 2>&1 & w=\$!
for _ in \$(seq 3000); do
    [ "\$(od -An -tx1 -j $((0x200100)) -N4 "\$flash" | tr -d ' \n')" = 444e4631 ] && break
    sleep 0.01
done
pkill -KILL -f -- "\$DIMMNET_RUN_DIR/node0.hostbus"
wait \$w && { echo "the write finished before the cut" >&2; exit 1; }
exit 0
EOF
chmod +x "$work/cut.sh"
cluster -n 1 --flash-dir "$work/fd3" -- "$work/cut.sh" >"$work/out" 2>&1 ||
    { fail "cut: $(cat "$work/out" "$work/cut.out" 2>/dev/null)"; }
f=$work/fd3/node0.flash
[ "$(word_at "$f" $((0x200100)))" = 444e4631 ] || fail "cut: slot 1 was never written (test is void)"
[ "$(word_at "$f" $((0x200000)))" = ffffffff ] || fail "cut: slot 1 has a record although cut midway"
size=$(stat -c %s "$work/new.img")
[ "$(word_at "$f" $((0x200100 + size - 4)))" = ffffffff ] || fail "cut: slot 1 complete (test is void)"
cluster -n 1 --flash-dir "$work/fd3" --log-dir "$work/log3" -- "$tool" info >"$work/out" 2>&1 ||
    { fail "boot after the cut"; cat "$work/out" >&2; }
expect_in "$work/out" "node 0: running firmware [0-9.]+ from slot 0 \(generation 1\)" cut-boot
expect_in "$work/log3/node0.console" "^boot: slot 0 generation 1: firmware" cut-boot
expect_in "$work/out" "node 0: slot 1: empty \(no committed image\)" cut-boot

scenario "a flipped bit in the newer slot: the loader falls back"
mkdir -p "$work/fd4"; f=$work/fd4/node0.flash
"$tool" create --loader "$loader" "$f" "$good" "$work/new.img" || fail "create"
cluster -n 1 --flash-dir "$work/fd4" -- "$tool" info >"$work/out" 2>&1
expect_in "$work/out" "running firmware 0.2.0 from slot 1 \(generation 2\)" newer-first
flip_bit "$f" $((0x200100 + 64 + 777))
cluster -n 1 --flash-dir "$work/fd4" --log-dir "$work/log4" -- "$tool" info >"$work/out" 2>&1 ||
    { fail "boot with a flipped bit"; cat "$work/out" >&2; }
expect_in "$work/out" "running firmware [0-9.]+ from slot 0 \(generation 1\)" fallback
expect_in "$work/log4/node0.console" "boot: slot 1 skipped: code CRC mismatch" fallback
expect_in "$work/out" "slot 1: generation 2, firmware 0.2.0 build flash-test, code CRC mismatch" fallback-info
# And the older slot's record too: nothing to boot, said at once.
flip_bit "$f" $((0x100000 + 5))
cluster -n 1 --flash-dir "$work/fd4" -- true >"$work/out" 2>&1 && fail "nothing bootable: launcher exit 0"
expect_in "$work/out" "firmware on board 0 stopped" none-bootable
expect_in "$work/out" "boot: slot 0 skipped: slot record CRC mismatch" none-bootable
expect_in "$work/out" "boot: FATAL: no bootable firmware in either slot" none-bootable

echo "$scenarios scenarios run, $fails failures"
[ "$fails" = 0 ]
