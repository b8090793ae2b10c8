#!/usr/bin/env bash
# Run one of the board's libFuzzer targets (docs/fuzzing.md).
#
#   run-fuzz.sh QEMU_FUZZ TARGET SEED_CORPUS SECONDS SEED [LIBFUZZER ARGS...]
#
# SECONDS 0 runs every input of SEED_CORPUS once (a regression check).
# Otherwise fuzzes for SECONDS from a copy of SEED_CORPUS (the repository's
# stays as it is) with libFuzzer seed SEED (0: a fresh one), and prints the
# seed so that a failure reproduces. A failing input is kept in
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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$seeds"/. "$work"/
"$qemu" --fuzz-target="$target" "${common[@]}" -seed="$seed" \
    -max_total_time="$seconds" -print_final_stats=1 "$@" "$work"
