#!/usr/bin/env bash
# Run one of the board's libFuzzer targets (docs/fuzzing.md).
#
#   run-fuzz.sh QEMU_FUZZ TARGET SEED_CORPUS SECONDS SEED [LIBFUZZER ARGS...]
#
# SECONDS 0 runs every input of SEED_CORPUS once, each from a fresh board
# (fork mode: a regression check). Otherwise fuzzes for SECONDS from a copy
# of SEED_CORPUS (the repository's stays as it is) with libFuzzer seed SEED
# (0: a fresh one), printed so that a failure reproduces; boards without
# timing run in persistent mode there (DN1_FUZZ_PERSISTENT, ~30 times more
# inputs a second; board/fuzz/dimmnet1_fuzz.c). A failing input is kept in
# $DN1_FUZZ_ARTIFACTS (default: ./fuzz-artifacts); rerun it with
#   QEMU_FUZZ --fuzz-target=TARGET ARTIFACT
set -euo pipefail
qemu=${1:?usage: run-fuzz.sh QEMU_FUZZ TARGET SEED_CORPUS SECONDS SEED [ARGS...]}
target=${2:?}; seeds=${3:?}; seconds=${4:?}; seed=${5:?}
shift 5
artifacts=${DN1_FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}
mkdir -p "$artifacts"
# QEMU leaks by design at start-up; a child's failure is what counts.
common=(-detect_leaks=0 -timeout=60 -artifact_prefix="$artifacts/$target-")
if [ "$seconds" = 0 ]; then
    exec "$qemu" --fuzz-target="$target" "${common[@]}" -runs=0 "$@" "$seeds"
fi
[ "$seed" != 0 ] || seed=$(( ($(od -An -N4 -tu4 /dev/urandom) % 2147483646) + 1 ))
echo "run-fuzz: $target for ${seconds}s, seed $seed (rerun: DN1_FUZZ_SEED=$seed)"
export DN1_FUZZ_PERSISTENT=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$seeds"/. "$work"/
"$qemu" --fuzz-target="$target" "${common[@]}" -seed="$seed" \
    -max_total_time="$seconds" -print_final_stats=1 "$@" "$work"
