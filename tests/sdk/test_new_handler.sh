#!/usr/bin/env bash
# What a new firmware developer does (issue 39 item 7), in a copy of the
# tree: scripts/new-handler memset 0x48; build the firmware, the handler's
# unit test and its demo, and refresh QEMU, which must compile nothing (the
# new type lives in fw_types.h, which the board never reads: no
# "build-qemu: the board's sources changed" and the shared QEMU binary
# untouched); run unit.memset; count its instructions (scripts/handler-cost,
# by its symbol); run the demo on two boards of stock
# firmware, where the type is NACKed NO_HANDLER (the demo fails); flash the
# new image into board 1 while it runs (dimmnet-flash write, a NIC
# restart) and see the type served: banner naming memset=0x48, demo ok,
# its statistic memset_served counted (dnctl).
#   test_new_handler.sh SOURCE_DIR STOCK_FIRMWARE CACHE_DIR
set -uo pipefail
src=$1 stock=$2 cache=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# The tree as a developer has it: the files git knows (a clean clone).
copy=$work/tree
mkdir -p "$copy"
(cd "$src" && git ls-files -z | xargs -0 cp --parents -t "$copy") ||
    { echo "FAIL: cannot copy the tree"; exit 1; }
"$copy/scripts/new-handler" memset 0x48 || { echo "FAIL: new-handler"; exit 1; }
grep -q '^DN1_HANDLER("memset", DN1_TYPE_MEMSET, memset_handle)$' "$copy/firmware/handlers.def" ||
    fail "handlers.def has no memset line"
grep -q '^| `0x48` | `MEMSET` | firmware |' "$copy/docs/hardware.md" || fail "no docs row for 0x48"
"$copy/scripts/new-handler" other 0x48 >/dev/null 2>&1 && fail "a taken type was accepted"
"$copy/scripts/new-handler" Bad-Name 0x49 >/dev/null 2>&1 && fail "a bad name was accepted"

qemu_bin=$(readlink -f "$cache/qemu/qemu-system-mips")
before=$(stat -c %Y "$qemu_bin" 2>/dev/null || echo none)
cmake -S "$copy" -B "$copy/build" -G Ninja -DDN1_CACHE_DIR="$cache" >/dev/null || { echo "FAIL: configure"; exit 1; }
cmake --build "$copy/build" --parallel "$(nproc)" --target qemu firmware-image-4kc \
    handler_test_memset memset_demo dimmnet-flash dimmnet1-switch handler_cost dnctl >"$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log"; echo "FAIL: build"; exit 1; }
grep "build-qemu: the board's sources changed" "$work/build.log" && fail "QEMU was rebuilt for a new handler"
[ "$(stat -c %Y "$qemu_bin")" = "$before" ] || fail "the shared QEMU binary changed"
echo "build: firmware, unit test and demo; QEMU compiled nothing"

(cd "$copy/build" && ctest -R '^unit\.memset$' --output-on-failure) >"$work/unit.log" 2>&1 ||
    { cat "$work/unit.log"; fail "unit.memset"; }
grep -q "100% tests passed" "$work/unit.log" && echo "unit.memset: passed"

# Its instructions, by its symbol, with no edit to the bench.
cost=$("$copy/scripts/handler-cost" memset 2>&1)
echo "$cost"
grep -Eq '^memset: [1-9][0-9]* instructions, [0-9.]+ us modeled a packet' <<<"$cost" ||
    fail "scripts/handler-cost memset: '$cost'"

b=$copy/build
cluster() { "$copy/tools/dimmnet-cluster" --quiet --qemu "$b/qemu-system-mips" "$@"; }
# Stock firmware serves no 0x48.
out=$(cluster --firmware "$stock" -n 2 --timeout 15 -- "$b/memset_demo" 2>&1)
[ $? != 0 ] || fail "the stock firmware served memset"
grep -q "memset_demo: node 0: 3 packets, 0 ACKed" <<<"$out" || fail "stock: no refusal seen: $(grep node <<<"$out" | head -3)"
# Flashed into board 1 while it runs, then served.
out=$(cluster --firmware "$stock" -n 2 --log-dir "$work/log" --timeout 120 -- sh -c '
    if [ "$DIMMNET_NODE_ID" = 1 ]; then
        "$0/dimmnet-flash" write "$0/firmware-4kc/martini-fw.img" || exit 1
        : >"$DIMMNET_RUN_DIR/flashed"
    else
        while [ ! -e "$DIMMNET_RUN_DIR/flashed" ]; do sleep 0.1; done
    fi
    "$0/memset_demo" && "$0/dnctl"' "$b" 2>&1); rc=$?
grep memset_demo <<<"$out"
[ "$rc" = 0 ] || { fail "after flashing: exit $rc"; tail -20 <<<"$out" >&2; }
tr -d '\r' <"$work/log/node1.console" | grep -q ' memset=0x48$' ||
    fail "board 1's banner after the flash does not name memset"
grep -q "memset_demo: node 1: ok" <<<"$out" || fail "board 1 did not get the bytes"
# Its statistic, by name (dnctl): the 3 packets written and the refused one.
grep -E "^\[node 1\] .*memset_served +4$" <<<"$out" ||
    fail "board 1's dnctl: no 'memset_served 4' ($(grep -c served <<<"$out") served lines)"

[ "$fails" = 0 ] && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }
