#!/usr/bin/env bash
# An MPI rank that aborts (tests/mpi/mpi_abort.c, 4 boards): the launcher
# fails with the job, at once (not by its own timeout), and leaves no
# process (boards, switch, mpirun, ranks) and no shared-memory file behind.
#   test_mpi_abort.sh LAUNCHER QEMU FIRMWARE PROGRAM
set -uo pipefail
launcher=$(realpath "$1") qemu=$(realpath -s "$2") firmware=$(realpath "$3")
prog=$(realpath "$4")
work=$(mktemp -d /tmp/dn-mpi-abort.XXXXXX)
export TMPDIR=$work          # the run dir, hence every QEMU argv, lives here
. "$(dirname "$0")/../common/run_files.sh"
# Processes of this run: the boards and switch (argv under $work), mpirun,
# the rank wrappers and ranks (argv naming $prog); never this script.
ours() { pgrep -af -- "$work/|$prog" | grep -v test_mpi_abort.sh | cut -d' ' -f1; }
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
    echo "FAIL: the launcher succeeded although rank 1 aborted" >&2; fails=$((fails + 1))
fi
if [ "$took" -ge 150 ]; then
    echo "FAIL: the job ended only by the launcher's timeout (${took} s)" >&2; fails=$((fails + 1))
fi
grep -q "rank 1: got 0, aborting the job" "$work/out" ||
    { echo "FAIL: rank 1 never got to MPI_Abort (traffic before it failed)" >&2; fails=$((fails + 1)); }
if grep -q "a message from an aborted rank" "$work/out"; then
    echo "FAIL: a rank received a message nobody sent" >&2; fails=$((fails + 1))
fi
for _ in $(seq 50); do
    [ -z "$(ours)" ] && break
    sleep 0.1
done
left=$(ours | xargs -r ps -o pid=,args= -p)
if [ -n "$left" ]; then echo "FAIL: processes left: $left" >&2; fails=$((fails + 1)); fi
if [ "$(shm_list)" != "$before" ]; then
    echo "FAIL: shared-memory files left: $(comm -13 <(echo "$before") <(shm_list))" >&2
    fails=$((fails + 1))
fi
if ls -d "$work"/dimmnet1-run.* >/dev/null 2>&1; then
    echo "FAIL: run directory left" >&2; fails=$((fails + 1))
fi
echo "mpi abort: launcher status $status after ${took} s, $fails failures"
[ "$fails" = 0 ]
