# Sourced by the paper tests: mpi_csv_complete FILE [quick] says (on stdout)
# what FILE, a bench mpi.csv, lacks of its header and of its rows (the
# three host profiles, the four modes: plain and with the data read, every
# size: a quick run's stop at 1 MiB, its -read ones at 1 KiB); nothing
# when it is whole.
mpi_csv_complete() {
    local sizes="0 8 1024 65536 1048576 4194304"
    if [ "${2:-}" = quick ]; then sizes="0 8 1024 65536 1048576"; fi
    head -1 "$1" | grep -qx 'profile,mode,bytes,half_rtt_us,mb_per_s' || echo "mpi.csv header"
    for p in paper-host modern hardware-only; do
        for m in blocking preposted blocking-read preposted-read; do
            for b in $sizes; do
                # A quick run reads the data up to 1 KiB only.
                case "$2,$m,$b" in quick,*-read,65536|quick,*-read,1048576) continue ;; esac
                grep -Eq "^$p,$m,$b,[0-9]+\.[0-9]+,[0-9]+\.[0-9]+$" "$1" ||
                    echo "mpi.csv: no $p $m at $b bytes"
            done
        done
    done
}
