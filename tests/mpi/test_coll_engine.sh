#!/usr/bin/env bash
# coll/dimmnet's engine backend (ompi-coll/coll_dimmnet_engine.c) under
# dimmnet-cluster --mpi, the MPI program unchanged (mpi_coll_engine: every
# byte checked):
#  - on 4 boards with DIMMNET_COLL_STATS=1 it passes, and every rank's
#    stats line says the engine served each kind the program uses, blocking
#    and non-blocking (served_<kind> > 0), every non-blocking call of
#    every communicator (also before its first blocking collective: the
#    non-blocking join), and the run-time choice between the engine and
#    Open MPI's own decided keys on the way;
#  - with --exhaust (more communicators than the engine's slots, each
#    joined by a non-blocking call) it passes, the engine serving some and
#    Open MPI's own the rest (joins that failed: their kept calls go below);
#  - with OMPI_MCA_coll=^dimmnet it passes again;
#  - on 2 boards with --ranks-per-board 2 (no multicast: two ports a
#    board) it passes and the engine served allreduce and iallreduce.
#   test_coll_engine.sh LAUNCHER QEMU FIRMWARE MPI_COLL_ENGINE
set -uo pipefail
launcher=$1 qemu=$2 firmware=$3 prog=$4
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
. "$(dirname "$0")/coll_stats.sh"
run() {  # BOARDS [launcher args...]
    local n=$1; shift
    "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n "$n" --mpi "$@" \
        --timeout 600 -- "$prog" 2>&1
}
ok_ranks() {  # OUTPUT RANKS
    [ "$(grep -cE "^\[mpi\] mpi_coll_engine: rank [0-9]+ of $2: [0-9]+ results checked: ok$" <<<"$1")" = "$2" ]
}
served() {  # OUTPUT RANKS KIND...
    local out=$1 ranks=$2; shift 2
    for ((r = 0; r < ranks; r++)); do
        line=$(grep -E "^\[mpi\] coll/dimmnet: rank $r comms " <<<"$out")
        [ -n "$line" ] || { fail "rank $r printed no stats line"; continue; }
        for k in "$@"; do
            v=$(sed -n "s/.* served_$k=\([0-9]*\).*/\1/p" <<<"$line")
            [ "${v:-0}" -gt 0 ] || fail "rank $r: the engine served no $k ('$line')"
        done
    done
}

out=$(DIMMNET_COLL_STATS=1 run 4); rc=$?     # the run-time choice on (the default)
grep -E 'mpi_coll_engine|coll/dimmnet|FAIL|failed' <<<"$out"
[ "$rc" = 0 ] || { fail "4 boards: exit $rc"; tail -30 <<<"$out" >&2; }
ok_ranks "$out" 4 || fail "4 boards: not 4 ranks ok"
served "$out" 4 barrier bcast reduce allreduce allgather alltoall reduce_scatter_block \
    ibarrier ibcast ireduce iallreduce iallgather ialltoall ireduce_scatter_block
# Every non-blocking call was the engine's, also those made before their
# communicator's first blocking collective (the non-blocking join).
for ((r = 0; r < 4; r++)); do
    line=$(grep -E "^\[mpi\] coll/dimmnet: rank $r comms " <<<"$out")
    for k in ibarrier ibcast ireduce iallreduce iallgather ialltoall ireduce_scatter; do
        calls=$(sed -n "s/.* $k=\([0-9]*\).*/\1/p" <<<"$line")
        sk=$k; [ "$k" = ireduce_scatter ] && sk=ireduce_scatter_block
        got=$(sed -n "s/.* served_$sk=\([0-9]*\).*/\1/p" <<<"$line")
        [ -n "$calls" ] && [ "$calls" = "${got:-x}" ] ||
            fail "rank $r: $k: ${calls:-?} calls, the engine served ${got:-?}"
    done
done
# A key called 48 times (allreduce of one MPI_INT, SUM) was decided by the
# run-time choice between the engine and Open MPI's own while every result
# was checked: the switch mid-stream changes no byte.
for ((r = 0; r < 4; r++)); do
    [ "$(keys_decided "$out" $r)" -ge 1 ] || fail "rank $r: the run-time choice decided no key"
done

echo "more communicators than slots, each joined by a non-blocking call:"
out=$(DIMMNET_COLL_STATS=1 "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 4 --mpi \
      --timeout 300 -- "$prog" --exhaust 2>&1); rc=$?
grep -E 'mpi_coll_engine|coll/dimmnet: rank 0|FAIL|failed' <<<"$out"
[ "$rc" = 0 ] || { fail "exhaust: exit $rc"; tail -30 <<<"$out" >&2; }
ok_ranks "$out" 4 || fail "exhaust: not 4 ranks ok"
# Some kept calls the engine served, the rest (joins past the slots) went
# to Open MPI's own, and the stats say which.
for ((r = 0; r < 4; r++)); do
    line=$(grep -E "^\[mpi\] coll/dimmnet: rank $r comms " <<<"$out")
    calls=$(sed -n "s/.* iallreduce=\([0-9]*\).*/\1/p" <<<"$line")
    got=$(sed -n "s/.* served_iallreduce=\([0-9]*\).*/\1/p" <<<"$line")
    [ -n "$calls" ] && [ -n "$got" ] && [ "$got" -ge 1 ] && [ "$got" -lt "$calls" ] ||
        fail "exhaust: rank $r: iallreduce ${calls:-?} calls, served ${got:-?} (want some, not all)"
done

echo "with OMPI_MCA_coll=^dimmnet:"
out=$(OMPI_MCA_coll='^sm,dimmnet' run 4); rc=$?
grep -E 'mpi_coll_engine' <<<"$out"
[ "$rc" = 0 ] || { fail "^dimmnet: exit $rc"; tail -30 <<<"$out" >&2; }
ok_ranks "$out" 4 || fail "^dimmnet: not 4 ranks ok"

echo "2 boards, 2 ranks a board:"
out=$(DIMMNET_COLL_STATS=1 run 2 --ranks-per-board 2); rc=$?
grep -E 'mpi_coll_engine|coll/dimmnet' <<<"$out"
[ "$rc" = 0 ] || { fail "2x2: exit $rc"; tail -30 <<<"$out" >&2; }
ok_ranks "$out" 4 || fail "2x2: not 4 ranks ok"
served "$out" 4 allreduce iallreduce

[ "$fails" = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, $fails failed"
[ "$fails" = 0 ]
