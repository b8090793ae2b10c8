#!/usr/bin/env bash
# Configure and build into build/ (QEMU once per machine, newlib, firmware,
# host shim, tests): everything, or only the CMake targets given, with as
# many jobs as the machine has cores.
#   scripts/build.sh [TARGET...]
#   scripts/build.sh firmware    the firmware images only (both CPU ports,
#                                and dimmnet-flash to pack them): never
#                                builds QEMU
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
cmake -S "$top" -B "$top/build" -G Ninja >/dev/null
jobs=(--parallel "$(nproc)")
if [ "${1:-}" = firmware ] && [ $# -eq 1 ]; then
    set -- firmware-image-4kc firmware-image-r3000
fi
if [ $# -gt 0 ]; then
    cmake --build "$top/build" "${jobs[@]}" --target "$@"
else
    cmake --build "$top/build" "${jobs[@]}"
fi
