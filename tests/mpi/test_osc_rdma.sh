#!/usr/bin/env bash
# MPI-3 one-sided communication by osc rdma over btl ofi over the dimmnet
# provider (issue 24 item 5), not a fallback: tests/mpi/mpi_rma_sync
# (every synchronization, every one-sided call, every result checked) on
# NODES boards under dimmnet-cluster --mpi, then each board's counters
# (dnctl) must show the NIC's one-sided paths at work:
#  - every board served remote reads in hardware (rx_read_req: MPI_Get);
#  - every board's firmware filled its RVATLB from a registration
#    (fw.mr_fills: MPI_Put and MPI_Get by key into a registered window);
#  - rank 0's board applied atomics in firmware (fw.atomic_applied:
#    MPI_Fetch_and_op, MPI_Accumulate, MPI_Compare_and_swap, osc rdma's
#    locks).
# The same program with osc pt2pt chosen on purpose (one-sided over
# messages) must pass its own checks and fail these, or they prove nothing.
#   test_osc_rdma.sh LAUNCHER QEMU FIRMWARE PROGRAM DNCTL NODES
set -uo pipefail
launcher=$1 qemu=$2 firmware=$3 prog=$4 dnctl=$5 nodes=$6
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

run() {
    "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n "$nodes" --mpi \
        --timeout 400 -- sh -c "\"$prog\" && \"$dnctl\"" 2>&1
}
# Every rank ok, and $1 = yes if the NIC's one-sided paths were used.
check() {
    local out=$1 want=$2 ok=yes
    [ "$(grep -c "mpi_rma_sync: rank [0-9]* of $nodes ok\$" <<<"$out")" = "$nodes" ] ||
        { echo "not every rank ok"; return 1; }
    for c in rx_read_req fw.mr_fills; do
        local vals
        vals=$(sed -n "s/^\[mpi\] node [0-9]*: $c *\([0-9]*\)\$/\1/p" <<<"$out")
        [ "$(wc -l <<<"$vals")" = "$nodes" ] || { echo "no $c for every board"; return 1; }
        for v in $vals; do [ "$v" -gt 0 ] || ok=no; done
    done
    local atomics
    atomics=$(sed -n 's/^\[mpi\] node 0: fw.atomic_applied *\([0-9]*\)$/\1/p' <<<"$out")
    [ "${atomics:-0}" -gt 0 ] || ok=no
    echo "one-sided paths of the NIC used: $ok (node 0 atomics: ${atomics:-0})"
    [ "$ok" = "$want" ]
}

out=$(run)
grep -E 'mpi_rma_sync|node [0-9]*: (rx_read_req|fw.mr_fills|fw.atomic_applied) ' <<<"$out"
check "$out" yes || fail "osc rdma over the provider: see above"
out=$(OMPI_MCA_osc=pt2pt run)
echo "with OMPI_MCA_osc=pt2pt (one-sided over messages, on purpose):"
grep -E 'mpi_rma_sync' <<<"$out"
check "$out" no || fail "osc pt2pt: the check did not tell it from osc rdma"
[ "$fails" = 0 ] && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }
