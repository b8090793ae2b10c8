#!/usr/bin/env bash
# The host profile moves modeled time by the host work it charges: the same
# 4096-byte ping-pong (each message copied from the system buffer) under
# --host-profile free and paper-host. Checks: nothing charged under free;
# under paper-host each node charged, at the profile's documented rates,
# one or two whole 4096-byte copies a message received (3 ns a byte: into
# the stash first, or straight into the receive) and, for each message
# sent, its 9 BOTF packets written into window memory at 2.5 ns a byte
# less the DIMM's 1.25 that the board charges (4384 bytes: 5480 ns); node
# 0's modeled time grows by at least the copies (on the round trip's
# critical path) and at most all the work charged (a window's fill may
# overlap the packet before it leaving), to within one 150 ns poll turn a
# wait (4 a round trip). Modeled time only: no wall-clock threshold.
#   test_host_profile.sh LAUNCHER QEMU FIRMWARE PROGRAM
set -uo pipefail
launcher=$1 qemu=$2 firmware=$3 prog=$4
rounds=8 copy_ns=$((4096 * 3)) pio_ns=$(((4096 + 9 * 32) * 5 / 4))
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

run() {   # profile -> "T0 W0 W1"
    local out
    out=$("$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 --deterministic \
          --host-profile "$1" --timeout 300 -- "$prog" "$rounds" 2>&1) ||
        { echo "$out" >&2; fail "run under $1 failed"; return; }
    echo "$out" | grep 'host_profile:' >&2
    local t0 w0 w1
    t0=$(echo "$out" | sed -n "s/.*node 0 profile $1 rounds $rounds modeled_ns \([0-9]*\) .*/\1/p")
    w0=$(echo "$out" | sed -n "s/.*node 0 profile $1 .* charged_ns \([0-9]*\)$/\1/p")
    w1=$(echo "$out" | sed -n "s/.*node 1 profile $1 .* charged_ns \([0-9]*\)$/\1/p")
    [ -n "$t0" ] && [ -n "$w0" ] && [ -n "$w1" ] || { fail "no figures under $1"; return; }
    echo "$t0 $w0 $w1"
}
read -r tf wf0 wf1 < <(run free)
read -r tp wp0 wp1 < <(run paper-host)
[ -n "${tf:-}" ] && [ -n "${tp:-}" ] || { echo "0 passed, 1 failed"; exit 1; }
[ "$wf0" = 0 ] && [ "$wf1" = 0 ] || fail "free charged $wf0 + $wf1 ns"
copies=0
for w in "$wp0" "$wp1"; do
    c=$((w - rounds * pio_ns))
    [ $((c % copy_ns)) = 0 ] && [ "$c" -ge $((rounds * copy_ns)) ] &&
        [ "$c" -le $((2 * rounds * copy_ns)) ] ||
        fail "paper-host charged $w ns: not $rounds x $pio_ns ns of window writes and whole 4096-byte copies at 3 ns a byte, one or two a message"
    copies=$((copies + c))
done
grow=$((tp - tf)) work=$((wp0 + wp1)) slack=$((rounds * 4 * 150))
echo "modeled: free $tf ns, paper-host $tp ns: grew $grow ns; host work charged $work ns, of it copies $copies ns (slack $slack)"
[ "$grow" -ge $((copies - slack)) ] && [ "$grow" -le $((work + slack)) ] ||
    fail "modeled time grew $grow ns for $copies ns of copies and $work ns of host work in all"
[ "$fails" = 0 ] && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }
