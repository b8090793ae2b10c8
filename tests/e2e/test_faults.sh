#!/usr/bin/env bash
# Seeded fault injection on a switch port: drop, corrupt, duplicate and
# reorder. The same seed loses the same packets; every lost packet is one the
# switch dropped or corrupted; every corrupted one is caught by the NIC's CRC
# check; nothing lands damaged; a different seed loses others.
#   test_faults.sh LAUNCHER QEMU FIRMWARE E2E_FAULTS
set -euo pipefail
launcher=$1 qemu=$2 firmware=$3 prog=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

run() {   # seed name
    "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 --timeout 300 \
        --fault "port=1,drop=0.04,corrupt=0.04,dup=0.04,reorder=0.04" --seed "$1" \
        --log-dir "$work/$2" -- "$prog" --packets 200 >"$work/$2.out"
}
run 7 a
run 7 b
run 8 c

lost() { grep '^\[node 0\] lost:' "$work/$1.out" | sed 's/^\[node 0\] lost://'; }
stat() { sed -n "s/^port 1 .*$2=\([0-9]*\).*/\1/p" "$work/$1/switch.stats"; }
nlost=$(lost a | wc -w)
[ "$(lost a)" = "$(lost b)" ] || fail "same seed, different losses: '$(lost a)' vs '$(lost b)'"
[ "$(lost a)" != "$(lost c)" ] || fail "another seed lost the very same packets"
[ "$nlost" -gt 0 ] || fail "no packet was lost at 4% drop + 4% corrupt"
dropped=$(stat a dropped) corrupted=$(stat a corrupted)
[ "$nlost" = $((dropped + corrupted)) ] ||
    fail "lost $nlost, but the switch dropped $dropped and corrupted $corrupted"
line=$(grep '^\[node 1\] landed' "$work/a.out")
landed=$(awk '{print $4}' <<<"$line") crc=$(awk '{print $6}' <<<"$line")
# A corrupted frame that is also duplicated reaches the NIC twice.
[ "$crc" -ge "$corrupted" ] && [ "$crc" -le $((corrupted + $(stat a duplicated))) ] ||
    fail "NIC caught $crc CRC errors, switch corrupted $corrupted"
[ "$landed" = $((200 - nlost)) ] || fail "$landed landed, $nlost lost, of 200"
[ "$(stat a duplicated)" -gt 0 ] && [ "$(stat a reordered)" -gt 0 ] ||
    fail "no duplicate or no reorder happened"
echo "lost $nlost of 200 (dropped $dropped, corrupted $corrupted), landed $landed," \
     "duplicated $(stat a duplicated), reordered $(stat a reordered); $fails failures"
[ "$fails" = 0 ]
