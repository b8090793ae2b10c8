#!/usr/bin/env bash
# Firmware on one board: the boot loader boots it from flash slot 0, it
# prints its banner with the version, says
# ready, and reports READY + version in FW_STATUS.
#   test_banner.sh LAUNCHER QEMU FIRMWARE VERSION FW_STATUS_CHECK
set -euo pipefail
launcher=$1 qemu=$2 firmware=$3 version=$4 check=$5
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
"$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 1 --timeout 60 \
    --log-dir "$logs" -- "$check" "$version"
console="$logs/node0.console"
# The boot loader's banner and what it booted, then the firmware's banner.
expected=("DIMMnet-1 boot loader (4kc)"
          "boot: slot 0 generation 1: firmware $version build "
          "DIMMnet-1 Martini firmware $version (mips32-4kc)")
for i in 0 1 2; do
    line=$(sed -n "$((i + 1))p" "$console" | tr -d '\r')
    case "$line" in
        "${expected[$i]}"*) ;;
        *) echo "console line $((i + 1)): got '$line', expected '${expected[$i]}...'" >&2; exit 1 ;;
    esac
done
first=$(sed -n 3p "$console")
# Every handler the image serves, named as firmware/handlers.def (the
# dispatcher's table) lists it, with its type from fw_types.h.
top=$(cd "$(dirname "$0")/../.." && pwd)
want="node 0: handlers:"
while read -r name macro; do
    type=$(sed -n "s/^#define $macro  *0x\([0-9a-fA-F]*\)u.*/\1/p" "$top/include/dimmnet1/fw_types.h")
    [ -n "$type" ] || { echo "handlers.def: $macro is not in fw_types.h" >&2; exit 1; }
    want="$want $name=0x$(printf '%02x' $((16#$type)))"
done < <(sed -n 's/^DN1_HANDLER("\([^"]*\)", *\([A-Z0-9_]*\),.*/\1 \2/p' "$top/firmware/handlers.def")
[ "$want" != "node 0: handlers:" ] || { echo "no handler in firmware/handlers.def" >&2; exit 1; }
tr -d '\r' <"$console" | grep -qxF "$want" ||
    { echo "no handler line naming every type served: want '$want', got '$(grep handlers: "$console")'" >&2; exit 1; }
grep -q '^ready' "$console" || { echo "no ready line" >&2; exit 1; }
if grep -q 'FATAL' "$console"; then echo "firmware reported FATAL" >&2; exit 1; fi
echo "banner ok: $first; $want"
