# Sourced by tests that run the launcher under TMPDIR=$work: the cluster's
# shared-memory files, and removing those of every run made under $work
# (the run directories name them; removing $work alone would leave the
# files where no later launcher's sweep finds them).
shm_list() { ls /dev/shm 2>/dev/null | grep '^dimmnet1-' | sort; }
# Files new since $1 (an earlier shm_list) that are this test's: those of a
# cluster running beside it (its run directory, dimmnet1-run.ID, exists
# outside $2, the work directory) are not; files that went away are not
# leftovers either.
shm_left() {   # $1: the list before, $2: the work directory
    local f id
    comm -13 <(echo "$1") <(shm_list) | while read -r f; do
        [ -n "$f" ] || continue
        id=${f#dimmnet1-}; id=${id%%-*}
        if [ -d "$2/dimmnet1-run.$id" ]; then
            echo "$f"                   # its run is ours
        elif ! compgen -G "/tmp/dimmnet1-run.$id" >/dev/null &&
             ! compgen -G "/tmp/*/dimmnet1-run.$id" >/dev/null; then
            echo "$f"                   # its run directory is gone: left behind
        fi                              # else a cluster running beside the test
    done
}
remove_run_files() {   # $1: the work directory
    local dir
    for dir in "$1"/dimmnet1-run.*; do
        [ -d "$dir" ] && rm -f "/dev/shm/dimmnet1-${dir##*/dimmnet1-run.}-"*
    done
    rm -rf "$1"
}
