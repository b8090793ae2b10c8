#!/usr/bin/env bash
# The MPI library's own work is charged (docs/hardware.md, "Host profile"):
# the same 8-byte blocking ping-pong in deterministic modeled time with no
# caller charge and with FI_DIMMNET_CALLER_CALL_INSNS=85034 (100.0 us a
# data call at the paper's host, 1.176 ns an instruction). A half round trip
# has one send on its critical path and one receive posted while waiting,
# so it grows by at least 100 us and at most 200 (plus a microsecond of
# polling). Modeled time only: no wall-clock threshold.
#   test_caller_charge.sh LAUNCHER QEMU FIRMWARE MPI_PINGPONG
set -uo pipefail
launcher=$1 qemu=$2 firmware=$3 prog=$4

half_rtt() {   # CALL_INSNS -> modeled us of the blocking 8-byte half round trip
    FI_DIMMNET_CALLER_CALL_INSNS=$1 FI_DIMMNET_CALLER_POLL_INSNS=0 \
        "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 --mpi \
        --deterministic --host-profile paper-host --timeout 300 -- "$prog" 10 8 2>&1 |
        tee /dev/stderr |
        sed -n 's/.*mpi_pingpong (modeled): *blocking *8 B .* \([0-9.]*\) us half round trip.*/\1/p'
}
base=$(half_rtt 0)
charged=$(half_rtt 85034)
[ -n "$base" ] && [ -n "$charged" ] || { echo "FAIL: no modeled figures"; echo "0 passed, 1 failed"; exit 1; }
echo "modeled 8-byte half round trip: $base us uncharged, $charged us at 100 us a call"
if awk -v a="$base" -v b="$charged" 'BEGIN { d = b - a; exit !(d >= 100 && d <= 201) }'; then
    echo "1 passed, 0 failed"
else
    echo "FAIL: grew $(awk -v a="$base" -v b="$charged" 'BEGIN { print b - a }') us, want 100..201"
    echo "0 passed, 1 failed"; exit 1
fi
