#!/usr/bin/env bash
# The demo: two emulated DIMMnet-1 boards joined by a link, each running the
# Martini firmware; node 0's host program indirect-writes a buffer that lands
# at the address node 1 chose. Installs and builds what is missing first.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# Only what the demo runs (not the tests' fuzz build of QEMU, for one).
"$top/scripts/build.sh" qemu dimmnet1-switch firmware-image-4kc indirect_write_demo
exec "$top/tools/dimmnet-cluster" \
    --qemu "$top/build/qemu-system-mips" \
    --firmware "$top/build/firmware-4kc/martini-fw.img" -n 2 \
    -- "$top/build/examples/indirect_write_demo" "$@"
