#!/usr/bin/env bash
# Firmware on one board: it boots, prints its banner with the version, says
# ready, and reports READY + version in FW_STATUS.
#   test_banner.sh LAUNCHER QEMU FIRMWARE VERSION FW_STATUS_CHECK
set -euo pipefail
launcher=$1 qemu=$2 firmware=$3 version=$4 check=$5
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
"$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 1 --timeout 60 \
    --log-dir "$logs" -- "$check" "$version"
console="$logs/node0.console"
expected="DIMMnet-1 Martini firmware $version (mips32-4kc)"
first=$(head -n 1 "$console" | tr -d '\r')
if [ "$first" != "$expected" ]; then
    echo "banner: got '$first', expected '$expected'" >&2
    exit 1
fi
grep -q '^node 0: handlers: indirect-write=0x40' "$console" || { echo "no handler line" >&2; exit 1; }
grep -q '^ready' "$console" || { echo "no ready line" >&2; exit 1; }
if grep -q 'FATAL' "$console"; then echo "firmware reported FATAL" >&2; exit 1; fi
echo "banner ok: $first"
