#!/usr/bin/env bash
# A breakpoint in a handler, as docs/firmware.md walks through it (issue 39
# item 3): dimmnet-cluster --gdb 1 starts board 1 halted with QEMU's gdb
# stub and prints the gdb-multiarch command line; gdb, from that line alone,
# breaks in the message handler of the image that is flashed (its ELF has
# the symbols and lines: -g changes no instruction), stops there when node
# 0's first message arrives, and detaches; the run then ends as it would
# without gdb.
#   test_gdb.sh LAUNCHER QEMU FIRMWARE E2E_MESSAGE
set -uo pipefail
launcher=$1 qemu=$2 firmware=$3 prog=$4
work=$(mktemp -d)
trap 'kill $lp 2>/dev/null; rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
command -v gdb-multiarch >/dev/null || { echo "FAIL: no gdb-multiarch (scripts/setup.sh installs it)"; exit 1; }

# A port no one else uses on a shared machine.
port=$((20000 + RANDOM % 20000))
DIMMNET_GDB_PORT=$port "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 --gdb 1 \
    --timeout 120 -- "$prog" zerocopy >"$work/run.out" 2>"$work/run.err" &
lp=$!
line=""
for _ in $(seq 600); do
    line=$(grep -o 'gdb-multiarch -x [^ ]*' "$work/run.err") && break
    kill -0 "$lp" 2>/dev/null || break
    sleep 0.1
done
[ -n "$line" ] || { cat "$work/run.err" >&2; fail "the launcher printed no gdb command line"; exit 1; }
echo "launcher: $line"
# The board must be halted: nothing on its console before gdb says go.
console=$(dirname "${line#gdb-multiarch -x }")/node1.console
sleep 1
[ -s "$console" ] && fail "board 1 ran before gdb let it: $(head -1 "$console")"

timeout 120 $line -batch -ex 'break message_handle' -ex continue -ex 'bt 1' \
    -ex 'info symbol $pc' -ex delete -ex detach >"$work/gdb.out" 2>&1
cat "$work/gdb.out"
grep -Eq '^Breakpoint 1, (0x[0-9a-f]+ in )?message_handle \(.*\) at .*handlers/message/message\.c:[0-9]+' "$work/gdb.out" ||
    fail "gdb did not stop in message_handle with its source line"
grep -q '^message_handle in section .text' "$work/gdb.out" ||
    fail "the pc is not message_handle's"

wait "$lp"; rc=$?
[ "$rc" = 0 ] || { fail "the run under gdb exited $rc"; tail -5 "$work/run.out" "$work/run.err" >&2; }
grep -q 'zerocopy' "$work/run.out" || fail "the program's output is missing"
if [ "$fails" = 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; exit 1; fi
