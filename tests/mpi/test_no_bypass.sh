#!/usr/bin/env bash
# No MPI byte bypasses the NIC (issue 24, item 0): under dimmnet-cluster
# --mpi, MPI-3 one-sided communication and collectives between ranks that
# all run on this machine cross the emulated NIC. The boards' own counters
# (dnctl, read by each rank after its MPI program ended) must account for
# the traffic:
#  - rma on 4 boards: each rank puts 1 MiB into its right neighbour and
#    serves a 1 MiB get of its left one: each board sent at least
#    2 MiB / 2048 (the largest payload a packet carries) = 1024 packets;
#  - coll on 4 boards: a 256 KiB broadcast reaches 3 ranks: the boards sent
#    at least 3 x 256 KiB / 2048 = 384 packets in all;
#  - the same rma run with osc sm allowed on purpose (OMPI_MCA_osc=sm:
#    shared memory between the ranks) must fail that check, or the check
#    proves nothing.
#   test_no_bypass.sh LAUNCHER QEMU FIRMWARE PROGRAM DNCTL
set -uo pipefail
launcher=$1 qemu=$2 firmware=$3 prog=$4 dnctl=$5
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

run() {   # mode -> output (ranks' lines and each board's counters)
    "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 4 --mpi --timeout 300 -- \
        sh -c "\"$prog\" $1 && \"$dnctl\"" 2>&1
}
# Every rank ok; each board's tx_packets >= $2 ($3 = each|sum).
accounted() {
    local out=$1 want=$2 how=$3
    [ "$(grep -c 'mpi_rma_coll: rank [0-3] of 4 ok$' <<<"$out")" = 4 ] || return 1
    local counts
    counts=$(sed -n 's/^\[mpi\] node [0-3]: tx_packets *\([0-9]*\)$/\1/p' <<<"$out")
    [ "$(wc -l <<<"$counts")" = 4 ] || return 1
    if [ "$how" = each ]; then
        for c in $counts; do [ "$c" -ge "$want" ] || return 1; done
    else
        [ "$(awk '{ s += $1 } END { print s }' <<<"$counts")" -ge "$want" ] || return 1
    fi
}

out=$(run rma)
grep -E 'mpi_rma_coll|tx_packets' <<<"$out"
accounted "$out" 1024 each || fail "rma: the boards do not account for the one-sided traffic"
out=$(run coll)
grep -E 'mpi_rma_coll|tx_packets' <<<"$out"
accounted "$out" 384 sum || fail "coll: the boards do not account for the collectives' traffic"
out=$(OMPI_MCA_osc=sm run rma)
echo "with OMPI_MCA_osc=sm (a bypass allowed on purpose):"
grep -E 'mpi_rma_coll|tx_packets' <<<"$out"
accounted "$out" 1024 each && fail "rma with osc sm: the check did not see the bypass"
[ "$fails" = 0 ] && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }
