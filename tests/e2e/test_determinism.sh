#!/usr/bin/env bash
# Deterministic runs (--deterministic: timing plus host sync). Three boards,
# each sending to the next (AOTF, indirect write, BOTF into LLCM, RDMA, a
# remote read), with seeded faults (dup, reorder, delay) on one port:
# - two runs with the same seed give identical traces (switch and every
#   board, byte for byte) and identical virtual times in every program;
# - a run with another seed gives a different switch trace;
# - no board runs past a switch horizon by more than the slack, and no frame
#   comes after its arrival time (board logs, ERR_SYNC counters);
# - the modeled on-the-fly delays show in the traces: an AOTF packet leaves
#   105 ns after the host store took effect (store cost 60 ns after the
#   previous answer), and its data lands 90 ns after it arrived.
# MODE "delays" does one run and checks only the delays and that every node
# finished; "repeat" does it all; "profiles" runs twice under each other
# host profile (modern, free): byte-identical again, and other virtual times
# than the paper's host's; "topology" runs twice over three switches in a
# chain (board i on switch i, docs/hardware.md section 6b) with faults on a
# cable too: byte-identical, nothing late, and each extra switch adds its
# 190 ns (a switch and a cable) to the AOTF packet's way. "fold" runs the
# same chain in one switch process, then folded over three processes (a
# switch each) and over two (issue 26 item 2): every board's trace and
# every program's virtual times byte-identical to the single process's.
#   test_determinism.sh MODE LAUNCHER QEMU FIRMWARE PROGRAM DISSECTOR
set -euo pipefail
mode=$1 launcher=$2 qemu=$3 firmware=$4 prog=$5 lua=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
topo=(); hop=0; folds=1
if [ "$mode" = topology ] || [ "$mode" = fold ]; then
    printf 'node 0 switch 0\nnode 1 switch 1\nnode 2 switch 2\nlink 0 1\nlink 1 2\n' >"$work/chain.topo"
    topo=(--topology "$work/chain.topo" --fault link=1:2,dup=0.2,delay=100)
    hop=190     # node 0 to node 1 crosses one switch and one cable more
fi
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

run() {   # name seed [host profile]
    mkdir -p "$work/$1"
    "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 3 --deterministic \
        --switch-folds "$folds" \
        --host-profile "${3:-paper-host}" \
        --fault port=2,dup=0.2,reorder=0.2,delay=400 --seed "$2" "${topo[@]}" \
        --pcap-dir "$work/$1" --log-dir "$work/$1/log" --timeout 300 -- "$prog" \
        >"$work/$1/out" || { cat "$work/$1/out" >&2; fail "run $1 (seed $2) failed"; }
    # The lookahead held: no board stopped more than the slack past a
    # horizon, no frame came after its arrival time (each program also
    # checks its board's ERR_SYNC counter).
    if grep -H -e 'past the horizon' -e 'ns late' "$work/$1"/log/node*.qemu.log >&2; then
        fail "run $1: a board ran past its horizon or got a frame late"
    fi
    for i in 0 1 2; do
        grep -F "[node $i] " "$work/$1/out" >"$work/$1/out$i" || true
    done
}
run a 7
if [ "$mode" = fold ]; then
    for folds in 3 2; do
        run "fold$folds" 7
        for f in node0.pcap node1.pcap node2.pcap out0 out1 out2; do
            cmp -s "$work/a/$f" "$work/fold$folds/$f" ||
                fail "$folds processes: $f differs from one process's"
        done
        parts=$(cat "$work/fold$folds"/log/switch.stats.* 2>/dev/null | grep -c '^fold ') || true
        [ "$parts" = "$folds" ] || fail "$folds processes: $parts parts wrote counters"
        grep -h '^link 1:2->2:1 .* duplicated=[1-9]' "$work/fold$folds"/log/switch.stats.* >/dev/null ||
            fail "$folds processes: no frame duplicated on the faulty cable"
        # The launcher's merged counters: one process's (but how far the
        # clock ran until the launcher stopped the switch: wall-clock).
        diff <(grep -v '^sync ' "$work/a/log/switch.stats") \
             <(grep -v '^sync ' "$work/fold$folds/log/switch.stats") >&2 ||
            fail "$folds processes: merged counters differ from one process's"
    done
    grep -q 'ns (modeled): received' "$work/fold2/out" || fail "folded: a node did not finish"
    echo "$fails failures"
    [ "$fails" = 0 ]
    exit
fi
if [ "$mode" = profiles ]; then
    for p in modern free; do
        run "$p-1" 7 "$p"
        run "$p-2" 7 "$p"
        for f in switch.pcap node0.pcap node1.pcap node2.pcap out0 out1 out2; do
            cmp -s "$work/$p-1/$f" "$work/$p-2/$f" ||
                fail "profile $p: $f differs between two runs with the same inputs"
        done
        cmp -s "$work/a/out0" "$work/$p-1/out0" &&
            fail "profile $p: the same virtual times as the paper's host"
        grep -q 'ns (modeled): received' "$work/$p-1/out" || fail "profile $p: a node did not finish"
    done
    echo "$fails failures"
    [ "$fails" = 0 ]
    exit
fi
for f in switch node0 node1 node2; do
    [ "$(stat -c %s "$work/a/$f.pcap")" -gt 1000 ] || fail "$f.pcap is (nearly) empty"
done
for i in 0 1 2; do
    grep -q 'ns (modeled): received' "$work/a/out$i" || fail "node $i did not finish"
done
[ "$mode" = repeat ] && { run b 7; run c 8; }
[ "$mode" = topology ] && run b 7
twice=0
case "$mode" in repeat|topology) twice=1 ;; esac

for f in switch node0 node1 node2; do
    [ "$twice" = 1 ] || break
    if ! cmp -s "$work/a/$f.pcap" "$work/b/$f.pcap"; then
        fail "$f.pcap differs between two runs with the same inputs"
        for r in a b; do
            tshark -X "lua_script:$lua" -r "$work/$r/$f.pcap" -T fields -e frame.time_epoch \
                -e dimmnet1.type -e dimmnet1.src -e dimmnet1.dst -e dimmnet1.tag \
                -e dimmnet1.xoff >"$work/$r/$f.txt" 2>/dev/null || true
        done
        diff "$work/a/$f.txt" "$work/b/$f.txt" | sed -n 1,20p >&2 || true
    fi
done
if [ "$mode" = topology ]; then
    grep -q '^topology file=chain.topo switches=3' "$work/a/log/switch.stats" ||
        fail "the switch did not run the chain"
    grep -q '^link 1:2->2:1 .* duplicated=[1-9]' "$work/a/log/switch.stats" ||
        fail "no frame duplicated on the faulty cable"
    for i in 0 1 2; do
        diff "$work/a/out$i" "$work/b/out$i" >&2 || fail "node $i printed other virtual times in the second run"
    done
fi
if [ "$mode" = repeat ]; then
    for i in 0 1 2; do
        diff "$work/a/out$i" "$work/b/out$i" >&2 || fail "node $i printed other virtual times in the second run"
    done
    cmp -s "$work/a/switch.pcap" "$work/c/switch.pcap" && fail "another seed gave the same switch trace"
fi

# "time_ns" of the first OTF packet from node 0 in a trace.
first_otf() {
    tshark -X "lua_script:$lua" -r "$1" -Y 'dimmnet1.flags.otf == 1 && dimmnet1.src == 0' -T fields \
        -e frame.time_epoch 2>/dev/null |
        awk 'NR == 1 { split($1, t, "."); printf "%d\n", t[1] * 1000000000 + substr(t[2] "000000000", 1, 9) }'
}
store=$(awk '/ns \(modeled\): aotf store/ { print $3; exit }' "$work/a/out0")
left=$(first_otf "$work/a/node0.pcap")      # node 0's own trace: departure
via=$(first_otf "$work/a/switch.pcap")      # the switch's: departure as delivered
landed=$(first_otf "$work/a/node1.pcap")    # node 1's: into its pipeline
if [ -z "$store" ] || [ -z "$left" ] || [ -z "$landed" ]; then
    fail "no AOTF packet from node 0 to node 1 in the traces"
else
    d=$((left - store))
    [ "$d" -ge $((60 + 105)) ] && [ "$d" -lt $((60 + 105 + 32)) ] ||
        fail "AOTF packet left $d ns after the previous answer, want 165 ns (+ one 32 ns instruction)"
    [ "$via" = "$((left + hop))" ] || fail "switch trace has the AOTF packet at $via, node 0 at $left (+ $hop)"
    wire=$((2 * 50 + 140 + (32 + 8) * 2 + hop))
    a=$((landed - left))
    [ "$a" -ge $((wire + 90)) ] && [ "$a" -lt $((wire + 90 + 32)) ] ||
        fail "AOTF data landed $a ns after departure, want $wire + 90 ns (+ one instruction)"
    echo "modeled: AOTF store to packet out $d ns (60 host + 105), out to data in memory $a ns ($wire link + 90 OTF receive)"
fi
echo "$fails failures"
[ "$fails" = 0 ]
