#!/usr/bin/env bash
# The MPI library's own work is charged as the host-charge table says
# (docs/hardware.md, "Host profile"; host-shim/host-charges.tab): the same
# 8-byte blocking ping-pong in deterministic modeled time with the table's
# openmpi.send and openmpi.recv (and openmpi.turn) at 0, then at 85034
# (100.0 us a data call at the paper's host, 1.176 ns an instruction), and
# with them at 0 but FI_DIMMNET_CALLER_CALL_INSNS=85034 (an experiment's
# figure, replacing the table's). A half round trip has one send on its
# critical path and one receive posted while waiting, so it grows by at
# least 100 us and at most 200 (plus a microsecond of polling). Modeled
# time only: no wall-clock threshold.
#   test_caller_charge.sh LAUNCHER QEMU FIRMWARE MPI_PINGPONG
set -uo pipefail
launcher=$1 qemu=$2 firmware=$3 prog=$4
table=$(cd "$(dirname "$0")/../.." && pwd)/host-shim/host-charges.tab
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

with_caller() {   # INSNS -> a table whose openmpi send/recv are INSNS, turn 0
    awk -v v="$1" '$1 == "openmpi.send" || $1 == "openmpi.recv" { $2 = v }
                   $1 == "openmpi.turn" { $2 = 0 } { print }' "$table" >"$work/t$1.tab"
    echo "$work/t$1.tab"
}
half_rtt() {   # TABLE [ENV...] -> modeled us of the blocking 8-byte half round trip
    local t=$1; shift
    env DIMMNET_HOST_CHARGES="$t" "$@" \
        "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 --mpi \
        --deterministic --host-profile paper-host --timeout 300 -- "$prog" 10 8 2>&1 |
        tee /dev/stderr |
        sed -n 's/.*mpi_pingpong (modeled): *blocking *8 B .* \([0-9.]*\) us half round trip.*/\1/p'
}
grew() {   # WHAT BASE CHARGED
    if [ -n "$2" ] && [ -n "$3" ] &&
       awk -v a="$2" -v b="$3" 'BEGIN { d = b - a; exit !(d >= 100 && d <= 201) }'; then
        echo "ok: $1: modeled 8-byte half round trip $2 -> $3 us"; return 0
    fi
    echo "FAIL: $1: modeled 8-byte half round trip '$2' -> '$3' us, want +100..201"; return 1
}
base=$(half_rtt "$(with_caller 0)")
table_charged=$(half_rtt "$(with_caller 85034)")
env_charged=$(half_rtt "$(with_caller 0)" FI_DIMMNET_CALLER_CALL_INSNS=85034)
failed=0
grew "the table's openmpi rows at 100 us" "$base" "$table_charged" || failed=$((failed + 1))
grew "FI_DIMMNET_CALLER_CALL_INSNS at 100 us" "$base" "$env_charged" || failed=$((failed + 1))
echo "$((2 - failed)) passed, $failed failed"
[ "$failed" = 0 ]
