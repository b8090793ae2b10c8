#!/usr/bin/env bash
# The 32-bit processor pays one extra core cycle (DN1_WIDE_ACCESS_NS) per
# access to a 64-bit-wide memory: host receive memory, LLCM, window memory,
# on-chip SRAM, RVATLB, PATLB; nothing for local memory, boot flash or the
# Martini registers (docs/hardware.md, "Timing").
#
# Runs the probe image (tests/board/probe/wide_access.c) on one board under
# -icount shift=5,sleep=off. The probe times the same loop of PROBE_N
# accesses everywhere, in CP0 Count ticks; each place's ticks minus local
# memory's must be PROBE_N * DN1_WIDE_ACCESS_NS / COUNT_NS for the wide
# memories and 0 for the rest, give or take a tick at each end of a loop.
# COUNT_NS: QEMU's MIPS Count advances once every CCRes = 2 cycles of the
# CPU clock (target/mips/cpu.c, mips_cp0_period_set), the board's 50 MHz:
# 40 ns.
#   test_wide_access.sh QEMU PROBE_IMAGE
set -euo pipefail
qemu=$1 probe=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

define() {   # define NAME FILE: the number a #define gives NAME in FILE
    local v
    v=$(awk -v n="$2" '$1 == "#define" && $2 == n { sub(/u$/, "", $3); print $3; exit }' "$1")
    [ -n "$v" ] || { echo "no #define $2 in $1" >&2; exit 1; }
    echo "$v"
}
wide_ns=$(define "$top/board/include/hw/net/martini-bridge.h" DN1_WIDE_ACCESS_NS)
core_hz=$(define "$top/include/dimmnet1/memmap.h" DN1_CORE_HZ)
count_ns=$((2 * 1000000000 / core_hz))
shift_ns=32     # -icount shift=5: one instruction = 2^5 ns
slack=2         # Count ticks: one at each end of a loop

dir=$(mktemp -d)
qpid=""
cleanup() {
    if [ -n "$qpid" ]; then
        kill "$qpid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$qpid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$qpid" 2>/dev/null || true
        wait "$qpid" 2>/dev/null || true
    fi
    rm -rf "$dir"
}
trap cleanup EXIT

truncate -s 16M "$dir/hostmem" && truncate -s 64K "$dir/llcm" && truncate -s 16K "$dir/window"
"$qemu" -nodefaults -display none -monitor none \
    -M "dimmnet1,node-id=0,hostmem=hm,llcm=ll,window=win,hostbus=hb" \
    -bios "$probe" \
    -object "memory-backend-file,id=hm,mem-path=$dir/hostmem,size=16M,share=on" \
    -object "memory-backend-file,id=ll,mem-path=$dir/llcm,size=64K,share=on" \
    -object "memory-backend-file,id=win,mem-path=$dir/window,size=16K,share=on" \
    -chardev "socket,id=hb,path=$dir/hostbus,server=on,wait=off" \
    -serial "file:$dir/console" \
    -icount shift=5,sleep=off \
    >"$dir/stdout" 2>"$dir/stderr" &
qpid=$!

deadline=$((SECONDS + 60))
until grep -q '^done' "$dir/console" 2>/dev/null; do
    if ! kill -0 "$qpid" 2>/dev/null; then
        echo "the board exited:" >&2; cat "$dir/stderr" >&2; exit 1
    fi
    if grep -q 'FATAL' "$dir/console" 2>/dev/null; then
        echo "the probe stopped:" >&2; cat "$dir/console" >&2; exit 1
    fi
    [ "$SECONDS" -lt "$deadline" ] || { echo "no result after 60 s" >&2; cat "$dir/console" >&2; exit 1; }
    sleep 0.1
done
tr -d '\r' <"$dir/console" >"$dir/out"
cat "$dir/out"

n=$(awk '$1 == "probe" { sub(/^n=/, "", $2); print $2 }' "$dir/out")
[ -n "$n" ] || { echo "no 'probe n=' line" >&2; exit 1; }
charge=$((n * wide_ns / count_ns))
fail=0

ticks() {   # ticks KIND PLACE
    local v
    v=$(awk -v k="$1" -v p="$2" '$1 == k && $2 == p { print $3 }' "$dir/out")
    [ -n "$v" ] || { echo "no '$1 $2' line" >&2; exit 1; }
    echo "$v"
}
expect() {  # expect KIND PLACE EXTRA_TICKS: PLACE costs EXTRA_TICKS over local
    local t l d
    t=$(ticks "$1" "$2"); l=$(ticks "$1" local); d=$((t - l))
    if [ "$d" -lt $(($3 - slack)) ] || [ "$d" -gt $(($3 + slack)) ]; then
        echo "FAIL: $1 $2: $t ticks, local $l: extra $d, expected $3 +- $slack" >&2
        fail=1
    else
        echo "ok: $1 $2: extra $d ticks (expected $3)"
    fi
}

# The loop itself: 4 instructions an access at 32 ns, in 40 ns ticks.
loop=$((n * 4 * shift_ns / count_ns))
l=$(ticks lw local)
if [ "$l" -lt "$loop" ] || [ "$l" -gt $((loop + 4)) ]; then
    echo "FAIL: local loads took $l ticks; $loop expected from icount alone" >&2
    fail=1
fi
for p in hostmem llcm window sram rvatlb patlb; do expect lw "$p" "$charge"; done
for p in flash regs; do expect lw "$p" 0; done
for p in llcm sram; do expect sw "$p" "$charge"; done
expect lb llcm "$charge"

wide=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^wide=/) { sub(/^wide=/, "", $i); print $i } }' "$dir/out")
[ -n "$wide" ] || { echo "no 'wide=' line" >&2; exit 1; }
[ "$fail" = 0 ] || exit 1
echo "wide access cost: $n accesses, $charge ticks = $((charge * count_ns)) ns over local memory" \
     "($wide_ns ns each)"
