#!/usr/bin/env bash
# Run every test: installs and builds what is missing first, then CTest,
# two tests at a time on a machine with two cores or more (tests that must
# run alone say RUN_SERIAL; DN1_TEST_JOBS overrides).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/build.sh"
cd "$top/build"
jobs=${DN1_TEST_JOBS:-$(nproc)}
if [ "$jobs" -gt 2 ] && [ -z "${DN1_TEST_JOBS:-}" ]; then
    jobs=2
fi
exec ctest --output-on-failure -j "$jobs" "$@"
