#!/usr/bin/env bash
# Several MPI ranks a board (issue 36 item 5): dimmnet-cluster --mpi
# --ranks-per-board K runs NODES * K ranks, rank r on board r / K, host
# port r % K, each a node of its own to Open MPI, so ranks of one board
# talk through their NIC like any others:
#  - mpi_basic (ping-pong 0 B..1 MiB between ranks 0 and 1, one board's two
#    ports; any-source, unexpected, probe, collectives) and mpi_all_pairs
#    (every rank to every other at every size, allgather, reduce-scatter);
#  - mpi_rma_coll rma, then each rank's dnctl: rank 2b puts 1 MiB into rank
#    2b + 1 on its own board and serves its 1 MiB get, rank 2b + 1 does the
#    same with rank 2b + 2 on the next board: every board must have sent
#    2 x 2 MiB / 2048 = 2048 packets at least, which it cannot if the pair
#    of one board used another path;
#  - usage errors: K out of 1..4, more boards than messages reach (64 /
#    K^2), K without --mpi.
#   test_ranks_board.sh LAUNCHER QEMU FIRMWARE MPI_BASIC ALL_PAIRS RMA_COLL DNCTL BOARDS K
set -uo pipefail
launcher=$1 qemu=$2 firmware=$3 basic=$4 pairs=$5 rma=$6 dnctl=$7 boards=$8 k=$9
ranks=$((boards * k))
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
run() {
    "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n "$boards" --mpi \
        --ranks-per-board "$k" --timeout 400 -- "$@" 2>&1
}

out=$(run "$basic"); rc=$?
grep -E '^\[mpi\] rank [0-9]+ of' <<<"$out"
[ "$rc" = 0 ] || { fail "mpi_basic: exit $rc"; tail -20 <<<"$out" >&2; }
[ "$(grep -cE "^\[mpi\] rank [0-9]+ of $ranks: .*: ok$" <<<"$out")" = "$ranks" ] ||
    fail "mpi_basic: not $ranks ranks ok"

out=$(run "$pairs"); rc=$?
grep -E 'mpi_all_pairs' <<<"$out"
[ "$rc" = 0 ] || { fail "mpi_all_pairs: exit $rc"; tail -20 <<<"$out" >&2; }
for ((r = 0; r < ranks; r++)); do
    grep -qE "mpi_all_pairs: rank $r of $ranks \(board $((r / k)) port $((r % k))\) ok$" <<<"$out" ||
        fail "mpi_all_pairs: rank $r not ok on board $((r / k)) port $((r % k))"
done

out=$(run sh -c "\"$rma\" rma && \"$dnctl\""); rc=$?
grep -E 'mpi_rma_coll|tx_packets' <<<"$out"
[ "$rc" = 0 ] || { fail "mpi_rma_coll: exit $rc"; tail -20 <<<"$out" >&2; }
[ "$(grep -cE "mpi_rma_coll: rank [0-9]+ of $ranks ok$" <<<"$out")" = "$ranks" ] ||
    fail "mpi_rma_coll: not $ranks ranks ok"
for ((b = 0; b < boards; b++)); do
    # Each of the board's ranks reads its counters after its own program:
    # the larger reading counts.
    c=$(sed -n "s/^\[mpi\] node $b: tx_packets *\([0-9]*\)$/\1/p" <<<"$out" | sort -n | tail -1)
    [ -n "$c" ] && [ "$c" -ge 2048 ] || fail "board $b sent ${c:-no} packets, want >= 2048"
done

"$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 --mpi --ranks-per-board 5 -- true >/dev/null 2>&1
[ $? = 2 ] || fail "--ranks-per-board 5 not refused as a usage error"
msg=$("$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 17 --mpi --ranks-per-board 2 -- true 2>&1)
[ $? = 2 ] && grep -q "reach 16 boards at most" <<<"$msg" || fail "17 boards at 2 ranks a board: '$msg'"
"$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 --ranks-per-board 2 -- true >/dev/null 2>&1
[ $? = 2 ] || fail "--ranks-per-board without --mpi not refused"

[ "$fails" = 0 ] && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }
