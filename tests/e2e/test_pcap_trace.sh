#!/usr/bin/env bash
# Each board's link trace (--pcap-dir) is a pcap that tshark reads with the
# project's Lua dissector: the demo's packets in order, with their fields,
# good CRCs and non-decreasing virtual-time stamps; a corrupted copy is
# flagged as a bad CRC.
#   test_pcap_trace.sh LAUNCHER QEMU FIRMWARE DEMO DISSECTOR
set -euo pipefail
launcher=$1 qemu=$2 firmware=$3 demo=$4 lua=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

"$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 \
    --pcap-dir "$work" -- "$demo" --bytes 1000 >/dev/null

fields() {   # file -> "type src dst xoff crc_ok" per packet
    tshark -X "lua_script:$lua" -r "$1" -T fields -E separator=' ' \
        -e dimmnet1.type -e dimmnet1.src -e dimmnet1.dst -e dimmnet1.xoff \
        -e dimmnet1.crc_ok 2>/dev/null
}
expected='0x40 0 1 0 1
0x40 0 1 464 1
0x40 0 1 928 1
0x02 1 0 0 1
0x02 1 0 464 1
0x02 1 0 928 1'
for n in 0 1; do
    got=$(fields "$work/node$n.pcap")
    [ "$got" = "$expected" ] || fail "node$n.pcap: got
$got"
    times=$(tshark -r "$work/node$n.pcap" -T fields -e frame.time_epoch 2>/dev/null)
    [ "$times" = "$(sort -n <<<"$times")" ] || fail "node$n.pcap: time goes backwards"
done
# (Each board has its own virtual clock until the timing model joins them,
# so only the order within one file is checked.)

# Flip one payload byte of the first packet (24-byte file header, 16-byte
# record header, 32-byte packet header): the dissector must say bad CRC.
cp "$work/node0.pcap" "$work/bad.pcap"
printf '\xff' | dd of="$work/bad.pcap" bs=1 seek=$((24 + 16 + 32 + 5)) conv=notrunc status=none
first=$(fields "$work/bad.pcap" | head -n 1)
[ "$first" = "0x40 0 1 0 0" ] || fail "corrupted packet not flagged: $first"

echo "$fails failures"
[ "$fails" = 0 ]
