#!/usr/bin/env bash
# Modeled time (--timing): boards in separate processes share one virtual
# timeline. From the traces: every packet enters its receiver's pipeline
# exactly its modeled delay after it left (2 x 50 ns wire + 140 ns switch +
# 2 ns a byte + 375 ns of the RHiNET receive circuit, DN1_RHINET_RX_NS; one
# 32 ns instruction of slack at the receiver), never before; a board's link
# sends one packet after another (500 MB/s); the run's virtual duration is
# printed (modeled; not asserted).
#   test_timing.sh LAUNCHER QEMU FIRMWARE DEMO DISSECTOR
set -euo pipefail
launcher=$1 qemu=$2 firmware=$3 demo=$4 lua=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

"$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 --timing \
    --pcap-dir "$work" --timeout 120 -- "$demo" --bytes 2000 >"$work/out"

# "type xoff len time_ns" per packet. The switch's stamps are departures;
# a board's own trace has the times it received (and sent) packets.
ns() {
    tshark -X "lua_script:$lua" -r "$1" -T fields -E separator=' ' \
        -e dimmnet1.type -e dimmnet1.xoff -e dimmnet1.len -e frame.time_epoch 2>/dev/null |
        awk '{ split($4, t, "."); printf "%s %s %s %d\n", $1, $2, $3, t[1] * 1000000000 + substr(t[2] "000000000", 1, 9) }'
}
ns "$work/switch.pcap" >"$work/dep"
ns "$work/node1.pcap" | grep '^0x40' >"$work/arr1"    # data, received by node 1
ns "$work/node0.pcap" | grep '^0x02' >"$work/arr0"    # ACKs, received by node 0
[ "$(wc -l <"$work/dep")" = 10 ] || fail "switch saw $(wc -l <"$work/dep") packets, want 10"

check_arrivals() {   # arrivals file, type
    while read -r type xoff len at; do
        dep=$(awk -v t="$type" -v x="$xoff" '$1 == t && $2 == x { print $4; exit }' "$work/dep")
        [ -n "$dep" ] || { fail "$type/$xoff arrived but never left"; continue; }
        delay=$((2 * 50 + 140 + (32 + len) * 2 + 375))
        [ "$at" -ge $((dep + delay)) ] || fail "$type/$xoff arrived at $at, before $dep + $delay"
        [ "$at" -le $((dep + delay + 32)) ] || fail "$type/$xoff arrived at $at, late for $dep + $delay"
    done <"$1"
}
check_arrivals "$work/arr1"
check_arrivals "$work/arr0"
[ "$(wc -l <"$work/arr1")" = 5 ] && [ "$(wc -l <"$work/arr0")" = 5 ] || fail "not all packets arrived"

# Node 0's link: one 496-byte packet every 992 ns at most (no overlap).
prev=""
while read -r type xoff len t; do
    [ -z "$prev" ] || [ "$t" -ge $((prev + (32 + 464) * 2)) ] || fail "sends overlap at $t"
    prev=$t
done < <(grep '^0x40' "$work/dep" | head -n 4)

first=$(awk 'NR == 1 { print $4 }' "$work/dep")
last=$(tail -n 1 "$work/arr0" | awk '{ print $4 }')
echo "modeled: 2000 bytes, first packet out to last ACK in $(( (last - first) )) ns" \
     "($(( 2000 * 1000 / (last - first) )) MB/s, modeled); $fails failures"
[ "$fails" = 0 ]
