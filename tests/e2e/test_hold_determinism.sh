#!/usr/bin/env bash
# The switch's hold fault in modeled time (issue 25 item 2): held frames go
# out in the quantum their moved stamp falls in, drawn from the port's
# seeded generator, so two --deterministic runs with the same seed give
# byte-identical traces (switch and every board), frames were held in both
# (the switch's held counter), and no frame reached a board after its
# arrival time (board logs).
#   test_hold_determinism.sh LAUNCHER QEMU FIRMWARE PROGRAM
set -euo pipefail
launcher=$1 qemu=$2 firmware=$3 prog=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

for r in a b; do
    mkdir -p "$work/$r"
    "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 3 --deterministic \
        --fault port=2,dup=0.2,reorder=0.2,hold=0.2,hold-ns=5000 --seed 7 \
        --pcap-dir "$work/$r" --log-dir "$work/$r/log" --timeout 300 -- "$prog" \
        >"$work/$r/out" 2>&1 || { cat "$work/$r/out" >&2; fail "run $r failed"; }
    held=$(sed -n 's/^port 2 .* held=\([0-9]*\).*/\1/p' "$work/$r/log/switch.stats")
    echo "run $r: port 2 held=${held:-none}"
    [ "${held:-0}" -gt 0 ] || fail "run $r: no frame was held"
    if grep -H -e 'past the horizon' -e 'ns late' "$work/$r"/log/node*.qemu.log >&2; then
        fail "run $r: a board ran past its horizon or got a frame late"
    fi
done
for f in switch.pcap node0.pcap node1.pcap node2.pcap; do
    cmp -s "$work/a/$f" "$work/b/$f" || fail "$f differs between the two runs"
done
[ "$fails" = 0 ] && echo "hold determinism: ok"
exit "$fails"
