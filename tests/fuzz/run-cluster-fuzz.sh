#!/usr/bin/env bash
# Several boards with the firmware, through the switch with fault injection,
# each node's host program cluster_fuzz playing a hostile host (docs/fuzzing.md).
#
#   run-cluster-fuzz.sh LAUNCHER QEMU FIRMWARE CLUSTER_FUZZ SEED OPS [LAUNCHER ARGS...]
#
# SEED 0 picks a fresh one; it is printed, and seeds both the switch's faults
# and every node's program, so a failure reproduces with the same SEED.
set -euo pipefail
launcher=${1:?}; qemu=${2:?}; firmware=${3:?}; prog=${4:?}; seed=${5:?}; ops=${6:?}
shift 6
[ "$seed" != 0 ] || seed=$(( ($(od -An -N4 -tu4 /dev/urandom) % 2147483646) + 1 ))
echo "run-cluster-fuzz: seed $seed, $ops ops per node, $* (rerun: DN1_FUZZ_SEED=$seed)"
faults=()
for p in 0 1 2; do
    faults+=(--fault "port=$p,drop=0.01,dup=0.02,corrupt=0.03,reorder=0.02")
done
exec "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 3 \
    --timeout 600 --seed "$seed" "${faults[@]}" "$@" -- "$prog" "$seed" "$ops"
