#!/usr/bin/env bash
# Configure and build everything (QEMU once per machine, newlib, firmware,
# host shim, tests) into build/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
cmake -S "$top" -B "$top/build" -G Ninja >/dev/null
cmake --build "$top/build"
