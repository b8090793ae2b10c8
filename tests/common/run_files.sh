# Sourced by tests that run the launcher under TMPDIR=$work: the cluster's
# shared-memory files, and removing those of every run made under $work
# (the run directories name them; removing $work alone would leave the
# files where no later launcher's sweep finds them).
shm_list() { ls /dev/shm 2>/dev/null | grep '^dimmnet1-' | sort; }
remove_run_files() {   # $1: the work directory
    local dir
    for dir in "$1"/dimmnet1-run.*; do
        [ -d "$dir" ] && rm -f "/dev/shm/dimmnet1-${dir##*/dimmnet1-run.}-"*
    done
    rm -rf "$1"
}
