#!/usr/bin/env bash
# The Open MPI coll component coll/dimmnet (ompi-coll/) under
# dimmnet-cluster --mpi on 4 boards, the MPI program unchanged:
#  - the launcher finds mca_coll_dimmnet.so in ompi-coll/ beside QEMU (a
#    clear failure here when it is not there: nothing else would say so);
#  - mpi_coll_basic (every collective the component takes, blocking and
#    non-blocking, on MPI_COMM_WORLD, a dup and an even/odd split, every
#    result checked) passes with DIMMNET_COLL_STATS=1, and every rank
#    prints the component's one stats line, with comms >= 3 and
#    allreduce >= the MPI_Allreduce calls the program made;
#  - with OMPI_MCA_coll=^dimmnet it passes again and no stats line appears.
#   test_coll_component.sh LAUNCHER QEMU FIRMWARE MPI_COLL_BASIC
set -uo pipefail
launcher=$1 qemu=$2 firmware=$3 prog=$4
ranks=4
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
run() {
    "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n "$ranks" --mpi \
        --timeout 300 -- "$prog" 2>&1
}

so=$(dirname "$qemu")/ompi-coll/mca_coll_dimmnet.so
if [ ! -f "$so" ]; then
    echo "FAIL: the component $so is missing (build target coll-dimmnet; it is built only" \
         "when Open MPI's internal headers are found: apt-get install libopenmpi-dev)" >&2
    echo "0 passed, 1 failed"
    exit 1
fi

out=$(DIMMNET_COLL_STATS=1 run); rc=$?
grep -E 'mpi_coll_basic|coll/dimmnet' <<<"$out"
[ "$rc" = 0 ] || { fail "with coll/dimmnet: exit $rc"; tail -30 <<<"$out" >&2; }
[ "$(grep -cE "^\[mpi\] mpi_coll_basic: rank [0-9]+ of $ranks: .*: ok$" <<<"$out")" = "$ranks" ] ||
    fail "with coll/dimmnet: not $ranks ranks ok"
for ((r = 0; r < ranks; r++)); do
    calls=$(sed -n "s/^\[mpi\] mpi_coll_basic: rank $r of $ranks: .* \([0-9]*\) allreduce calls.*/\1/p" <<<"$out")
    line=$(grep -E "^\[mpi\] coll/dimmnet: rank $r comms " <<<"$out")
    if [ -z "$line" ]; then
        fail "rank $r printed no coll/dimmnet stats line (component not loaded or not selected?)"
        continue
    fi
    [ "$(wc -l <<<"$line")" = 1 ] || fail "rank $r printed $(wc -l <<<"$line") stats lines"
    grep -qE 'comms [0-9]+ barrier=[0-9]+ bcast=[0-9]+ reduce=[0-9]+ allreduce=[0-9]+ allgather=[0-9]+ alltoall=[0-9]+ reduce_scatter=[0-9]+ ibarrier=[0-9]+ ibcast=[0-9]+ ireduce=[0-9]+ iallreduce=[0-9]+ iallgather=[0-9]+ ialltoall=[0-9]+ ireduce_scatter=[0-9]+( [a-z_]+=[0-9]+)*$' <<<"$line" ||
        fail "rank $r: malformed stats line '$line'"
    comms=$(sed -n 's/.* comms \([0-9]*\) .*/\1/p' <<<"$line" | head -1)
    ar=$(sed -n 's/.* allreduce=\([0-9]*\) .*/\1/p' <<<"$line" | head -1)
    [ -n "$comms" ] && [ "$comms" -ge 3 ] || fail "rank $r: comms ${comms:-?}, want >= 3"
    [ -n "$calls" ] && [ -n "$ar" ] && [ "$ar" -ge "$calls" ] ||
        fail "rank $r: allreduce=${ar:-?}, the program made ${calls:-?} calls"
done

out=$(DIMMNET_COLL_STATS=1 OMPI_MCA_coll=^dimmnet run); rc=$?
echo "with OMPI_MCA_coll=^dimmnet:"
grep -E 'mpi_coll_basic|coll/dimmnet' <<<"$out"
[ "$rc" = 0 ] || { fail "with OMPI_MCA_coll=^dimmnet: exit $rc"; tail -30 <<<"$out" >&2; }
[ "$(grep -cE "^\[mpi\] mpi_coll_basic: rank [0-9]+ of $ranks: .*: ok$" <<<"$out")" = "$ranks" ] ||
    fail "with OMPI_MCA_coll=^dimmnet: not $ranks ranks ok"
! grep -q 'coll/dimmnet: rank' <<<"$out" || fail "with OMPI_MCA_coll=^dimmnet: a stats line appeared"

[ "$fails" = 0 ] && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }
