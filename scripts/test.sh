#!/usr/bin/env bash
# Run every test: installs and builds what is missing first, then CTest.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/build.sh"
cd "$top/build"
exec ctest --output-on-failure "$@"
