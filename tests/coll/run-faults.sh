#!/usr/bin/env bash
# coll_check on boards whose links all drop, duplicate, corrupt, reorder
# and hold packets (30 ms): every result still exact, nothing hangs.
#
#   run-faults.sh LAUNCHER QEMU FIRMWARE COLL_CHECK NODES SEED [LAUNCHER ARGS...]
#
# SEED 0 picks a fresh one; it is printed, so a failure reproduces.
set -euo pipefail
launcher=${1:?}; qemu=${2:?}; firmware=${3:?}; prog=${4:?}; nodes=${5:?}; seed=${6:?}
shift 6
[ "$seed" != 0 ] || seed=$(( ($(od -An -N4 -tu4 /dev/urandom) % 2147483646) + 1 ))
echo "coll faults: seed $seed, $nodes boards, $* (rerun with this seed to reproduce)"
faults=()
for ((p = 0; p < nodes; p++)); do
    faults+=(--fault "port=$p,drop=0.02,dup=0.02,corrupt=0.01,reorder=0.02,hold=0.02,hold-ns=30000000")
done
exec "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n "$nodes" --timeout 500 \
    --seed "$seed" "${faults[@]}" "$@" -- "$prog" --max-bytes 16384 --nonblocking 24 --split --joined
