#!/usr/bin/env bash
# coll/dimmnet's engine under an unmodified MPI program (mpi_coll_engine,
# every byte checked) on 4 boards whose links drop, duplicate and reorder
# packets: the engine's resends and the provider's both at work, a rank
# that went on to messages still answering its peers' resend requests
# (the component's idle progress, and the provider's polls: Open MPI's mtl
# ofi waits for a blocking send without opal_progress). The run-time
# choice is on, so a key's trials put Open MPI's own algorithm, messages,
# right after the engine's calls: without the provider's turns 5 runs in 7
# hung there. Passes when every rank is ok and the engine served allreduce
# and iallreduce.
#
#   test_coll_engine_faults.sh LAUNCHER QEMU FIRMWARE MPI_COLL_ENGINE SEED
#
# SEED 0 picks a fresh one; it is printed, so a failure reproduces.
set -uo pipefail
launcher=$1 qemu=$2 firmware=$3 prog=$4 seed=$5
[ "$seed" != 0 ] || seed=$(( ($(od -An -N4 -tu4 /dev/urandom) % 2147483646) + 1 ))
echo "coll engine faults: seed $seed (rerun with this seed to reproduce)"
faults=()
for p in 0 1 2 3; do
    faults+=(--fault "port=$p,drop=0.01,dup=0.01,reorder=0.05")
done
out=$(DIMMNET_COLL_STATS=1 DIMMNET_COLL_CHOICE=auto "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 4 \
      --mpi --seed "$seed" "${faults[@]}" --timeout 800 -- "$prog" 2>&1); rc=$?
grep -E 'mpi_coll_engine|coll/dimmnet: rank 0|FAIL|failed|waited' <<<"$out"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
[ "$rc" = 0 ] || { fail "exit $rc (seed $seed)"; tail -30 <<<"$out" >&2; }
[ "$(grep -cE '^\[mpi\] mpi_coll_engine: rank [0-9]+ of 4: [0-9]+ results checked: ok$' <<<"$out")" = 4 ] ||
    fail "not 4 ranks ok (seed $seed)"
for r in 0 1 2 3; do
    line=$(grep -E "^\[mpi\] coll/dimmnet: rank $r comms " <<<"$out")
    for k in allreduce iallreduce; do
        v=$(sed -n "s/.* served_$k=\([0-9]*\).*/\1/p" <<<"$line")
        [ "${v:-0}" -gt 0 ] || fail "rank $r: the engine served no $k"
    done
done
[ "$fails" = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, $fails failed"
[ "$fails" = 0 ]
