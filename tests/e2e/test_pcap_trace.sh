#!/usr/bin/env bash
# Each board's link trace and the switch's (--pcap-dir) are pcaps that tshark
# reads with the project's Lua dissector: the demo's packets, each direction
# in order, with their fields and good CRCs, a board's stamps non-decreasing
# in its virtual time; a corrupted copy is flagged as a bad CRC.
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
# Each direction in order; how a board interleaves what it sends with what
# it receives depends on timing, so the directions are compared apart.
expected_data='0x40 0 1 0 1
0x40 0 1 464 1
0x40 0 1 928 1'
expected_acks='0x02 1 0 0 1
0x02 1 0 464 1
0x02 1 0 928 1'
for n in 0 1 switch; do
    f=$work/node$n.pcap
    [ "$n" = switch ] && f=$work/switch.pcap
    got=$(fields "$f")
    [ "$(grep '^0x40' <<<"$got")" = "$expected_data" ] || fail "$f: data packets:
$got"
    [ "$(grep '^0x02' <<<"$got")" = "$expected_acks" ] || fail "$f: ACKs:
$got"
    [ "$(wc -l <<<"$got")" = 6 ] || fail "$f: $(wc -l <<<"$got") packets, want 6"
    [ "$n" = switch ] && continue   # the switch's stamps are the senders' clocks
    times=$(tshark -r "$f" -T fields -e frame.time_epoch 2>/dev/null)
    [ "$times" = "$(sort -n <<<"$times")" ] || fail "$f: time goes backwards"
done
# (Each board has its own virtual clock until the timing model joins them,
# so only the order within one file is checked.)

# Flip one payload byte of the first packet (24-byte file header, 16-byte
# record header, 32-byte packet header): the dissector must say bad CRC.
cp "$work/node0.pcap" "$work/bad.pcap"
printf '\xff' | dd of="$work/bad.pcap" bs=1 seek=$((24 + 16 + 32 + 5)) conv=notrunc status=none
first=$(fields "$work/bad.pcap")   # whole output: no "| head" under pipefail
first=${first%%$'\n'*}
[ "$first" = "0x40 0 1 0 0" ] || fail "corrupted packet not flagged: $first"

# A host port's address (contract 1.27: node | port << 12): the first
# packet's src made node 0's port 1 (its high byte 0x10) reads so.
cp "$work/node0.pcap" "$work/port.pcap"
printf '\x10' | dd of="$work/port.pcap" bs=1 seek=$((24 + 16 + 4)) conv=notrunc status=none
port=$(tshark -X "lua_script:$lua" -r "$work/port.pcap" -T fields -E separator=' ' \
    -e dimmnet1.src -e dimmnet1.src.node -e dimmnet1.src.port -e _ws.col.Info 2>/dev/null)
port=${port%%$'\n'*}
[[ "$port" == "4096 0 1 0.1 -> 1 "* ]] || fail "host port address not read: $port"

# The dissector names every NACK reason and packet type the contract has.
header=$(dirname "$lua")/../../include/dimmnet1/packet.h
while read -r name value; do
    grep -q "\[$value\] = \"$name\"" "$lua" || fail "dissector lacks NACK reason $value $name"
done < <(sed -n 's/^#define DN1_NACK_\([A-Z_]*\) *\([0-9]*\)u.*/\1 \2/p' "$header" | grep -v '^NONE ')
while read -r name value; do
    grep -q "\[$value\] = \"$name\"" "$lua" || fail "dissector lacks type $value $name"
done < <(sed -n 's/^#define DN1_TYPE_\([A-Z_]*\) *\(0x[0-9a-f]*\)u.*/\1 \2/p' "$header")

echo "$fails failures"
[ "$fails" = 0 ]
