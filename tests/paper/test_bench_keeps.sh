#!/usr/bin/env bash
# Label `paper`: the bench keeps what it measured (issue 23, item 8), on a
# fake launcher (tests/paper/fake_cluster.py: no boards, made-up figures,
# failures on demand), so it takes seconds:
#  - a part that fails is tried twice; the other parts' CSVs, plots and the
#    report are written, the failed part is named (stderr, report), exit 1;
#  - a part that fails once and then succeeds makes no failure;
#  - --only PART writes only PART's CSV and remakes the report from the
#    CSVs in OUT; a failed --only part leaves its earlier CSV as it was and
#    the report does not use it; --only mpi writes mpi.csv (the three host
#    profiles, each run plain and with the data read: every mode and size)
#    and the report's MPI table;
#  - the launcher's boot wait names the board and what it still lacked
#    (a fake QEMU that never gets ready).
#   test_bench_keeps.sh TOP FLASH_TOOL FIRMWARE
set -uo pipefail
top=${1:?} flash_tool=${2:?} firmware=${3:?}
work=$(mktemp -d /tmp/dn1-keeps.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$work/log" ] && sed 's/^/  | /' "$work/log" >&2; exit 1; }

export DIMMNET_BENCH_CLUSTER=$top/tests/paper/fake_cluster.py FAKE_CLUSTER_LOG=$work/calls
out=$work/out
bench() { python3 "$top/bench/run_bench.py" --quick --out "$out" "$@" >"$work/log" 2>&1; }
calls() { grep -c "^$1 " "$work/calls"; }      # calls of part $1 so far
fails() { grep -c "^fail $1 " "$work/calls"; }

# 1. fig4 fails every time: fig2 and handlers kept, fig4 named, exit 1.
FAKE_CLUSTER_FAIL=fig4 bench; rc=$?
[ "$rc" = 1 ] || fail "a failed part: exit $rc, want 1"
[ "$(fails fig4)" = 2 ] || fail "fig4 tried $(fails fig4) times, want 2"
head -1 "$out/fig2.csv" | grep -qx 'series,bytes,mb_per_s' || fail "fig2.csv not written"
grep -Eq '^botf-direct,464,[0-9]+\.[0-9]+$' "$out/fig2.csv" || fail "fig2.csv has no rows"
head -1 "$out/handlers.csv" | grep -qx 'path,instructions,modeled_ns' || fail "handlers.csv not written"
grep -q '^barrier-release-mcast,' "$out/handlers.csv" || fail "handlers.csv has no rows"
[ ! -e "$out/fig4.csv" ] || fail "fig4.csv written for a failed part"
[ -s "$out/fig2.png" ] || fail "fig2.png not made"
[ ! -e "$out/fig4.png" ] || fail "fig4.png made without figures"
grep -q '^bench: FAILED: fig4 ' "$work/log" || fail "the failed part not named on stderr"
grep -q '^- fig4: failed in this run' "$out/report.md" || fail "report does not name fig4 failed"
grep -q '^| bytes | botf-direct' "$out/report.md" || fail "report lost fig2"
grep -q '^| indirect-write-continue | ' "$out/report.md" || fail "report lost handlers"
grep -q '^| firmware |' "$out/report.md" && fail "report has fig4 rows for a failed part"

# 2. --only fig4: only fig4.csv written; the others kept byte for byte and
#    not rewritten; the report reads them back.
cp -p "$out/fig2.csv" "$out/handlers.csv" "$work/"
stamp=$(stat -c '%y' "$out/fig2.csv" "$out/handlers.csv")
before2=$(calls fig2) beforeh=$(calls handlers)
bench --only fig4 || fail "--only fig4: exit $?"
[ "$(calls fig2)" = "$before2" ] && [ "$(calls handlers)" = "$beforeh" ] ||
    fail "--only fig4 ran other parts"
cmp -s "$out/fig2.csv" "$work/fig2.csv" && cmp -s "$out/handlers.csv" "$work/handlers.csv" &&
    [ "$(stat -c '%y' "$out/fig2.csv" "$out/handlers.csv")" = "$stamp" ] ||
    fail "--only fig4 touched another part's CSV"
for a in firmware firmware-mcast host host-mcast; do
    for n in 2 4; do
        grep -Eq "^$a,$n,[0-9]+\.[0-9]+$" "$out/fig4.csv" || fail "fig4.csv: no $a on $n nodes"
    done
done
[ -s "$out/fig4.png" ] && [ -s "$out/fig2.png" ] || fail "--only fig4: plots not made"
grep -q '^- fig2: from fig2.csv in OUT' "$out/report.md" &&
    grep -q '^- fig4: measured in this run' "$out/report.md" || fail "--only fig4: report sources"
grep -q '^| 464 | ' "$out/report.md" && grep -q '^| firmware | ' "$out/report.md" &&
    grep -q '^| soft-indirect | ' "$out/report.md" || fail "--only fig4: report lacks rows read back"
grep -q FAILED "$work/log" && fail "--only fig4 says FAILED"

# 3. A failed --only part leaves its earlier CSV as it was, unused by the report.
cp -p "$out/fig2.csv" "$work/fig2.csv"
FAKE_CLUSTER_FAIL=fig2 bench --only fig2; rc=$?
[ "$rc" = 1 ] || fail "--only fig2 failing: exit $rc, want 1"
cmp -s "$out/fig2.csv" "$work/fig2.csv" || fail "a failed part changed its earlier CSV"
grep -q '^- fig2: failed in this run.*earlier fig2.csv in OUT is left' "$out/report.md" ||
    fail "report does not say fig2 failed and its earlier CSV is not used"
grep -q '^| bytes | ' "$out/report.md" && fail "report used the earlier fig2.csv of a failed part"
grep -q '^bench: FAILED: fig2 ' "$work/log" || fail "--only fig2: failure not named"

# 4. handlers fails once, then succeeds: all written, exit 0.
rm -rf "$out"
FAKE_CLUSTER_FAIL=handlers:1 bench || fail "a part that failed once: exit $?"
[ "$(fails handlers)" = 1 ] || fail "handlers failed $(fails handlers) times, want 1"
grep -q '^bench: handlers: once more' "$work/log" || fail "the retry not said"
for f in fig2.csv handlers.csv fig4.csv fig2.png fig4.png report.md; do
    [ -s "$out/$f" ] || fail "$f missing after a retried part"
done

# 5. --only mpi: one run a host profile, mpi.csv whole, the others kept.
cp -p "$out/fig2.csv" "$work/fig2.csv"
beforem=$(calls mpi)
bench --only mpi || fail "--only mpi: exit $?"
[ "$(calls mpi)" = $((beforem + 6)) ] ||
    fail "--only mpi ran $(($(calls mpi) - beforem)) MPI jobs, want 6 (two a profile)"
. "$top/tests/paper/mpi_csv.sh"
lacks=$(mpi_csv_complete "$out/mpi.csv" quick); [ -z "$lacks" ] || fail "$lacks"
grep -q ',262144,' "$out/mpi.csv" && fail "mpi.csv has a size it does not list"
cmp -s "$out/fig2.csv" "$work/fig2.csv" || fail "--only mpi touched fig2.csv"
grep -q '^| 8 B | 3.00 us' "$out/report.md" || fail "report has no MPI table"
# An unknown part is a usage error, nothing run.
n=$(wc -l <"$work/calls")
bench --only fig9; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$work/calls")" = "$n" ] || fail "--only fig9: exit $rc, want 2"
rm -f "$work/log"

# 6. The launcher's boot wait: a fake QEMU that prints `ready` on request
#    but never makes its host-bus socket.
cat >"$work/qemu" <<'EOF'
#!/bin/sh
# The console file from -serial file:PATH; then wait to be stopped.
for a; do case "$a" in file:*) console=${a#file:} ;; esac; done
[ "${FAKE_QEMU_READY:-0}" = 1 ] && printf 'fake board\nready\n' >"$console"
exec sleep 600
EOF
chmod +x "$work/qemu"
launch() {
    DIMMNET_FLASH_TOOL=$flash_tool "$top/tools/dimmnet-cluster" --qemu "$work/qemu" \
        --firmware "$firmware" --bios -n 1 --quiet "$@" -- true \
        >"$work/launch" 2>&1
}
launch --boot-wait 1; rc=$?
[ "$rc" = 1 ] || fail "launcher: a board never ready: exit $rc, want 1"
grep -qx "dimmnet-cluster: board 0 not ready after 1 s (--boot-wait): waited for its console's 'ready' line (console empty) and its host-bus socket node0.hostbus" \
    "$work/launch" || { cat "$work/launch" >&2; fail "launcher: the timeout does not say what it waited for"; }
FAKE_QEMU_READY=1 DIMMNET_BOOT_WAIT=1 launch; rc=$?
[ "$rc" = 1 ] || fail "launcher: no host-bus socket: exit $rc, want 1"
grep -qx "dimmnet-cluster: board 0 not ready after 1 s (--boot-wait): waited for its host-bus socket node0.hostbus" \
    "$work/launch" || { cat "$work/launch" >&2; fail "launcher: DIMMNET_BOOT_WAIT, socket missing"; }
launch --boot-wait 0; rc=$?
[ "$rc" = 2 ] && grep -q 'boot-wait.*whole seconds' "$work/launch" || fail "launcher: --boot-wait 0 taken"
echo "paper: the bench keeps what it measured"
