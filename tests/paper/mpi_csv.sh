# Sourced by the paper tests: mpi_csv_complete FILE says (on stdout) what
# FILE, a bench mpi.csv, lacks of its header and of its rows (both host
# profiles, both modes, every size); nothing when it is whole.
mpi_csv_complete() {
    head -1 "$1" | grep -qx 'profile,mode,bytes,half_rtt_us,mb_per_s' || echo "mpi.csv header"
    for p in paper-host hardware-only; do
        for m in blocking preposted; do
            for b in 0 8 1024 65536 1048576; do
                grep -Eq "^$p,$m,$b,[0-9]+\.[0-9]+,[0-9]+\.[0-9]+$" "$1" ||
                    echo "mpi.csv: no $p $m at $b bytes"
            done
        done
    done
}
