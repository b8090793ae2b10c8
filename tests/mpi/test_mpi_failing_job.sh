#!/usr/bin/env bash
# An MPI job that fails on 4 boards: a rank that aborts (mpi_abort.c), or a
# board that goes away mid-run (mpi_board_loss.c). The launcher fails with
# the job, at once (not by its own timeout), the job printed EXPECT (how
# far it got), no rank received a message nobody sent, and nothing is left
# behind: no process (boards, switch, mpirun, ranks), no shared-memory
# file, no run directory.
#   test_mpi_failing_job.sh LAUNCHER QEMU FIRMWARE PROGRAM EXPECT
set -uo pipefail
launcher=$(realpath "$1") qemu=$(realpath -s "$2") firmware=$(realpath "$3")
prog=$(realpath "$4") expect=$5
work=$(mktemp -d /tmp/dn-mpi-fail.XXXXXX)
export TMPDIR=$work          # the run dir, hence every QEMU argv, lives here
. "$(dirname "$0")/../common/run_files.sh"
# Processes of this run: the boards and switch (argv under $work), mpirun,
# the rank wrappers and ranks (argv naming $prog); never this script.
ours() { pgrep -af -- "$work/|$prog" | grep -v test_mpi_failing_job.sh | cut -d' ' -f1; }
leave() {
    ours | xargs -r kill -KILL 2>/dev/null
    remove_run_files "$work"
}
trap leave EXIT
before=$(shm_list)
fails=0

start=$(date +%s)
"$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 4 --mpi --timeout 200 \
    -- "$prog" >"$work/out" 2>&1
status=$?
took=$(( $(date +%s) - start ))
cat "$work/out"
if [ "$status" = 0 ]; then
    echo "FAIL: the launcher succeeded although the job failed" >&2; fails=$((fails + 1))
fi
if [ "$took" -ge 150 ]; then
    echo "FAIL: the job ended only by the launcher's timeout (${took} s)" >&2; fails=$((fails + 1))
fi
grep -qF -- "$expect" "$work/out" ||
    { echo "FAIL: the job never printed '$expect'" >&2; fails=$((fails + 1)); }
if grep -q "a message from a failed rank" "$work/out"; then
    echo "FAIL: a rank received a message nobody sent" >&2; fails=$((fails + 1))
fi
for _ in $(seq 50); do
    [ -z "$(ours)" ] && break
    sleep 0.1
done
left=$(ours | xargs -r ps -o pid=,args= -p)
if [ -n "$left" ]; then echo "FAIL: processes left: $left" >&2; fails=$((fails + 1)); fi
left=$(shm_left "$before" "$work")
if [ -n "$left" ]; then
    echo "FAIL: shared-memory files left: $left" >&2
    fails=$((fails + 1))
fi
if ls -d "$work"/dimmnet1-run.* >/dev/null 2>&1; then
    echo "FAIL: run directory left" >&2; fails=$((fails + 1))
fi
echo "mpi failing job ($(basename "$prog")): launcher status $status after ${took} s, $fails failures"
[ "$fails" = 0 ]
