#!/usr/bin/env bash
# The host-charge table (host-shim/host-charges.tab; docs/hardware.md
# section 9, "Host profile") is what the model charges, and bad ones are
# refused with the reason:
#  - a table whose digest is not the sources' is called stale by
#    bench/measure_charges.py --check, with the command that renews it;
#  - dimmnet-cluster refuses a table it cannot read or a row that is not
#    `NAME INSNS` (exit 2, the reason named);
#  - under host sync a program's dn_open fails, naming the missing row,
#    when the table lacks one of the shim's own rows;
#  - the shim charges its rows as the table says: the same message
#    ping-pong (tests/e2e/e2e_host_profile) with shim.xfer raised by 85034
#    instructions (100.0 us at the paper's host) takes 400 us more a round
#    trip in modeled time: four message calls on its critical path (node
#    0's send, node 1's receive and send, node 0's receive), to within a
#    polling turn each (2 us).
# Modeled time only: no wall-clock threshold.
#   test_host_charges.sh TOP LAUNCHER QEMU FIRMWARE PROGRAM
set -uo pipefail
top=$1 launcher=$2 qemu=$3 firmware=$4 prog=$5
table=$top/host-shim/host-charges.tab
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 failed=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
fail() { echo "FAIL: $1"; failed=$((failed + 1)); }
run() { "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 --deterministic \
        --host-profile paper-host --timeout 120 -- "$prog" "$@"; }

# Stale: any other digest.
sed 's/^# sources-digest .*/# sources-digest 0000/' "$table" >"$work/stale.tab"
out=$(python3 "$top/bench/measure_charges.py" --check "$work/stale.tab" 2>&1)
if [ $? = 1 ] && grep -q "STALE" <<<"$out" && grep -q "scripts/bench.sh --only charges" <<<"$out"; then
    ok "a table measured from other sources is stale, the renewing command named"
else
    fail "stale table not reported: $out"
fi

# The launcher: no table, a malformed row.
out=$(DIMMNET_HOST_CHARGES=$work/none.tab run 1 2>&1); rc=$?
[ $rc = 2 ] && grep -q "no host-charge table" <<<"$out" && ok "a missing table refused" ||
    fail "missing table: rc $rc: $out"
sed 's/^shim.xfer .*/shim.xfer lots/' "$table" >"$work/bad.tab"
out=$(DIMMNET_HOST_CHARGES=$work/bad.tab run 1 2>&1); rc=$?
[ $rc = 2 ] && grep -q "not NAME INSNS" <<<"$out" && ok "a malformed row refused" ||
    fail "malformed row: rc $rc: $out"

# The shim: a row of its own missing.
grep -v '^shim.turn ' "$table" >"$work/short.tab"
out=$(DIMMNET_HOST_CHARGES=$work/short.tab run 1 2>&1); rc=$?
[ $rc != 0 ] && grep -q "no row shim.turn" <<<"$out" && ok "a missing shim row fails dn_open" ||
    fail "missing shim row: rc $rc: $out"

# The shim charges what the table says.
round_ns() {   # TABLE -> node 0's modeled ns a round trip
    DIMMNET_HOST_CHARGES=$1 run 10 2>&1 | tee -a "$work/log" |
        sed -n 's/.*host_profile: node 0 profile .* rounds \([0-9]*\) modeled_ns \([0-9]*\) .*/\2 \1/p' |
        awk '{ printf "%d", $1 / $2 }'
}
base=$(round_ns "$table")
awk '$1 == "shim.xfer" { $2 += 85034 } { print }' "$table" >"$work/more.tab"
more=$(round_ns "$work/more.tab")
if [ -n "$base" ] && [ -n "$more" ] &&
   awk -v a="$base" -v b="$more" 'BEGIN { d = b - a; exit !(d >= 398000 && d <= 402000) }'; then
    ok "shim.xfer + 85034: a round trip $base -> $more ns"
else
    fail "shim.xfer + 85034: a round trip '$base' -> '$more' ns (want +400 us, +-2)"
    cat "$work/log"
fi
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
