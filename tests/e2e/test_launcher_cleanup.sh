#!/usr/bin/env bash
# The launcher removes every process and shared-memory file it made: after
# success, after a failing program, after its own timeout, when it is
# terminated, and when a board cannot start; what a launcher killed outright
# left behind, the next launcher removes.
#   test_launcher_cleanup.sh LAUNCHER QEMU FIRMWARE
set -uo pipefail
launcher=$(realpath "$1") qemu=$(realpath -s "$2") firmware=$(realpath "$3")
work=$(mktemp -d /tmp/dn-cleanup-test.XXXXXX)
export TMPDIR=$work          # the launcher's run dir, hence every QEMU argv, lives here
fails=0
. "$(dirname "$0")/../common/run_files.sh"
# On the way out, whatever a failing scenario left: processes and files.
leave() {
    pkill -KILL -f "$work/" 2>/dev/null
    remove_run_files "$work"
}
trap leave EXIT

before=$(shm_list)

check_clean() {   # $1: what just happened
    local left
    for _ in $(seq 50); do pgrep -f "$work/" >/dev/null || break; sleep 0.1; done
    left=$(pgrep -af "$work/")
    if [ -n "$left" ]; then echo "FAIL $1: processes left: $left" >&2; fails=$((fails + 1)); fi
    left=$(shm_left "$before" "$work")
    if [ -n "$left" ]; then
        echo "FAIL $1: shared-memory files left: $left" >&2
        fails=$((fails + 1))
    fi
    if ls -d "$work"/dimmnet1-run.* >/dev/null 2>&1; then
        echo "FAIL $1: run directory left" >&2; fails=$((fails + 1))
    fi
}

expect_status() {   # $1 what, $2 expected, $3 got
    if [ "$2" != "$3" ]; then echo "FAIL $1: exit status $3, expected $2" >&2; fails=$((fails + 1)); fi
}

run() { "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" "$@" 2>"$work/stderr.txt"; }

run -n 2 -- true; expect_status success 0 $?; check_clean success
run -n 2 -- false; expect_status failing-program 1 $?; check_clean failing-program

printf '#!/bin/sh\nexec sleep 300\n' >"$work/sleeper.sh"; chmod +x "$work/sleeper.sh"
start=$SECONDS
run -n 2 --timeout 2 -- "$work/sleeper.sh"; expect_status timeout 1 $?
[ $((SECONDS - start)) -lt 30 ] || { echo "FAIL timeout: took $((SECONDS - start)) s" >&2; fails=$((fails + 1)); }
check_clean timeout

"$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 -- "$work/sleeper.sh" 2>/dev/null & lpid=$!
for _ in $(seq 200); do [ "$(pgrep -fc "$work/sleeper.sh")" -ge 2 ] && break; sleep 0.05; done
kill -TERM "$lpid"; wait "$lpid"; expect_status terminated 143 $?
check_clean terminated

# Killed outright, the launcher cannot clean up; the next one removes what
# the dead run left (its run directory and shared-memory files).
# (Programs still running hold the run: the test stops them itself; this
# sleeper keeps its name in the process list so that it can.)
printf '#!/bin/sh\nwhile :; do sleep 0.2; done\n' >"$work/looper.sh"; chmod +x "$work/looper.sh"
"$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 -- "$work/looper.sh" 2>/dev/null & lpid=$!
# Both nodes' programs running (the launcher's own argv names looper.sh
# too, so count only the shells running it).
for _ in $(seq 200); do [ "$(pgrep -fc "^/bin/sh $work/looper.sh")" -ge 2 ] && break; sleep 0.05; done
kill -KILL "$lpid"; wait "$lpid" 2>/dev/null
# Programs have no parent-death signal; a node's subshell may still be
# starting its program: kill until none is left.
for _ in $(seq 50); do
    pkill -KILL -f "^/bin/sh $work/looper.sh" || break
    sleep 0.1
done
for _ in $(seq 50); do pgrep -f "$work/" >/dev/null || break; sleep 0.1; done
sleep 0.5                              # their last `sleep 0.2` and output filters
if [ -z "$(shm_left "$before" "$work")" ]; then
    echo "FAIL killed: nothing left behind to sweep (test is void)" >&2; fails=$((fails + 1))
fi
run -n 1 -- true; expect_status after-killed 0 $?; check_clean after-killed

# Files that are not images for this board are refused before any board
# starts, with the reason (issue 12): empty, random bytes, the raw binary.
: >"$work/empty.bin"
head -c 40000 /dev/urandom >"$work/random.bin"
for bad in empty:truncated random:'bad magic'; do
    "$launcher" --quiet --qemu "$qemu" --firmware "$work/${bad%%:*}.bin" -n 2 -- true 2>"$work/stderr.txt"
    expect_status "bad-firmware-${bad%%:*}" 2 $?
    grep -q "refused: .*${bad#*:}" "$work/stderr.txt" ||
        { echo "FAIL bad-firmware-${bad%%:*}: no clear error" >&2; cat "$work/stderr.txt" >&2; fails=$((fails + 1)); }
    check_clean "bad-firmware-${bad%%:*}"
done

# --qemu-arg reaches every board, {node} becoming its node id: the program
# finds each board by its name.
marker="dn-test-marker-$$"
run -n 2 --qemu-arg -name --qemu-arg "$marker-{node}" -- sh -c \
    "[ \$(pgrep -fc -- '^[^ ]*qemu-system-mips .*-name $marker-0') = 1 ] &&
     [ \$(pgrep -fc -- '^[^ ]*qemu-system-mips .*-name $marker-1') = 1 ]"
expect_status qemu-arg 0 $?; check_clean qemu-arg

# Boards in modeled time (waiting at their horizons) still stop on SIGTERM.
run -n 2 --timing -- true; expect_status timing 0 $?; check_clean timing
if grep -q 'did not stop on SIGTERM' "$work/stderr.txt"; then
    echo "FAIL timing: $(cat "$work/stderr.txt")" >&2; fails=$((fails + 1))
fi

# A bare QEMU name, relative to the current directory, is that file.
(cd "$(dirname "$qemu")" && "$launcher" --quiet --qemu "$(basename "$qemu")" \
     --firmware "$firmware" -n 2 -- true 2>"$work/stderr.txt")
expect_status relative-qemu 0 $?; check_clean relative-qemu

"$launcher" --qemu "$qemu" --firmware "$work/missing.bin" -- true 2>/dev/null
expect_status missing-firmware 2 $?
"$launcher" --qemu "$qemu" --firmware "$firmware" -n 65 -- true 2>/dev/null
expect_status too-many-nodes 2 $?
"$launcher" --qemu "$qemu" --firmware "$firmware" --switch /nonexistent -n 2 -- true 2>/dev/null
expect_status missing-switch 2 $?

echo "13 scenarios run, $fails failures"
[ "$fails" = 0 ]
