#!/usr/bin/env bash
# Configure and build into build/ (QEMU once per machine, newlib, firmware,
# host shim, tests): everything, or only the CMake targets given.
#   scripts/build.sh [TARGET...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
cmake -S "$top" -B "$top/build" -G Ninja >/dev/null
if [ $# -gt 0 ]; then
    cmake --build "$top/build" --target "$@"
else
    cmake --build "$top/build"
fi
