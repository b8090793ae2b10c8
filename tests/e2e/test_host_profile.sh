#!/usr/bin/env bash
# The host profile moves modeled time by the host work it charges: the same
# 4096-byte ping-pong (each message copied out of the system buffer in the
# card's memory) under --host-profile free and paper-host. Checks, at the
# profiles' documented rates (docs/hardware.md section 9):
#  - bulk reads of the card's memory, as uncached loads of 150 ns (a line
#    a load under free, 8 bytes for the paper's host): each message
#    received read out of the system buffer exactly once (4096 bytes: 64
#    loads, 512) with its 32-byte notice (1 load, 4), and for each message
#    sent the 16-byte completion records of its 9 packets (9 loads, 18):
#    11100 ns a round for a node under free, 80100 for the paper's host;
#  - host-memory copies (3 ns a byte for the paper's host, none under free):
#    none or one whole 4096-byte copy a message (from the stash into the
#    receive, when it arrived first);
#  - each message sent, its 9 BOTF packets written into window memory at
#    2.5 ns a byte less the DIMM's 1.25 the board charges (4384 bytes:
#    5480 ns), none under free;
#  - host and NIC share the DIMM side: on each node, under each profile,
#    some host requests waited for a NIC access to it (the receiver polls
#    while a message's packets are written) and some NIC accesses waited
#    for the host's (counters 41 DIMM_HOST_WAITS, 42 DIMM_NIC_WAITS);
#  - node 0's modeled time grows by at least the extra reads and copies (on
#    the round trip's critical path) and at most all the extra work (a
#    window's fill may overlap the packet before it leaving), to within a
#    polling turn a wait (at most 3 loads: 450 ns; 4 waits a round trip).
# Modeled time only: no wall-clock threshold.
#   test_host_profile.sh LAUNCHER QEMU FIRMWARE PROGRAM
set -uo pipefail
launcher=$1 qemu=$2 firmware=$3 prog=$4
rounds=8 len=4096
copy_ns=$((len * 3)) pio_ns=$(((len + 9 * 32) * 5 / 4))
read_free=$(((len / 64 + 1 + 9) * 150)) read_paper=$(((len / 8 + 4 + 18) * 150))
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

field() {   # output node name
    echo "$1" | sed -n "s/.*host_profile: node $2 .* $3 \([0-9]*\)\( .*\)*$/\1/p"
}
run() {   # profile -> "T0 copy0 read0 window0 copy1 read1 window1"
    local out
    out=$("$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 --deterministic \
          --host-profile "$1" --timeout 300 -- "$prog" "$rounds" 2>&1) ||
        { echo "$out" >&2; fail "run under $1 failed"; return; }
    echo "$out" | grep 'host_profile:' >&2
    for i in 0 1; do
        # (A subshell: a failure here reports no figures, which fails the test.)
        echo "$out" | grep -Eq "host_profile: node $i dimm_host_waits [1-9][0-9]* dimm_nic_waits [1-9]" ||
            { fail "$1: node $i: no host or NIC access waited for the DIMM side"; return; }
    done
    local v=() f
    v+=("$(field "$out" 0 modeled_ns)")
    for i in 0 1; do
        for f in copy_ns card_read_ns window_ns; do
            v+=("$(field "$out" "$i" "$f")")
        done
    done
    for f in "${v[@]}"; do
        [ -n "$f" ] || { fail "no figures under $1"; return; }
    done
    echo "${v[*]}"
}
read -r tf cf0 rf0 wf0 cf1 rf1 wf1 < <(run free)
read -r tp cp0 rp0 wp0 cp1 rp1 wp1 < <(run paper-host)
[ -n "${tf:-}" ] && [ -n "${tp:-}" ] || { echo "0 passed, 1 failed"; exit 1; }
[ "$cf0$cf1$wf0$wf1" = 0000 ] || fail "free charged copies $cf0 + $cf1 ns, window fills $wf0 + $wf1 ns"
[ "$rf0" = $((rounds * read_free)) ] && [ "$rf1" = $((rounds * read_free)) ] ||
    fail "free: card reads $rf0 + $rf1 ns, want $rounds x $read_free each"
[ "$rp0" = $((rounds * read_paper)) ] && [ "$rp1" = $((rounds * read_paper)) ] ||
    fail "paper-host: card reads $rp0 + $rp1 ns, want $rounds x $read_paper each"
for w in "$wp0" "$wp1"; do
    [ "$w" = $((rounds * pio_ns)) ] || fail "paper-host: window fills $w ns, want $rounds x $pio_ns"
done
for c in "$cp0" "$cp1"; do
    [ $((c % copy_ns)) = 0 ] && [ "$c" -le $((rounds * copy_ns)) ] ||
        fail "paper-host: copies $c ns, not whole 4096-byte copies at 3 ns a byte, at most one a message"
done
reads=$((2 * rounds * (read_paper - read_free))) copies=$((cp0 + cp1))
work=$((reads + copies + wp0 + wp1)) grow=$((tp - tf)) slack=$((rounds * 4 * 450))
echo "modeled: free $tf ns, paper-host $tp ns: grew $grow ns; extra card reads $reads ns, copies $copies ns, all extra work $work ns (slack $slack)"
[ "$grow" -ge $((reads + copies - slack)) ] && [ "$grow" -le $((work + slack)) ] ||
    fail "modeled time grew $grow ns for $reads ns of reads, $copies ns of copies and $work ns of extra work in all"
[ "$fails" = 0 ] && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }
