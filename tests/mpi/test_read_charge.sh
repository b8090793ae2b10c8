#!/usr/bin/env bash
# An application that reads its data pays for it (issue 38 item 3): the
# same 256 KiB ping-pong (zero-copy) in deterministic modeled time on the paper's host,
# as mpi_pingpong runs it plain (nobody reads the bytes that zero-copy put
# on the card) and with `read` (each byte received read once, each byte
# sent written, charged by the provider where they lie on the card:
# fi_dimmnet_touch). Reading the card is 8 bytes a 150 ns load there, so
# with the data read no mode may pass 53.3 MB/s (the physical bound), and
# without it zero-copy does (the bytes are moved by the NIC's remote
# writes, not read). Modeled figures, deterministic: no wall-clock
# threshold.
#   test_read_charge.sh LAUNCHER QEMU FIRMWARE MPI_PINGPONG
set -uo pipefail
launcher=$1 qemu=$2 firmware=$3 prog=$4
failed=0
mbps() {   # [read] -> "MODE MB/s" lines at 256 KiB
    "$launcher" --quiet --qemu "$qemu" --firmware "$firmware" -n 2 --mpi --deterministic \
        --host-profile paper-host --timeout 600 -- "$prog" 2 262144 "$@" 2>&1 |
        tee /dev/stderr |
        sed -n 's/.*mpi_pingpong (modeled): *\([a-z-]*\) *262144 B .* \([0-9.]*\) MB\/s.*/\1 \2/p'
}
check() {   # LINES WANT_MODES OP BOUND
    local n=0 mode v
    while read -r mode v; do
        [ -n "$mode" ] || continue
        n=$((n + 1))
        if awk -v v="$v" -v b="$4" -v op="$3" 'BEGIN { exit !(op == "<" ? v < b : v > b) }'; then
            echo "ok: $mode at 256 KiB: $v MB/s $3 $4"
        else
            echo "FAIL: $mode at 256 KiB: $v MB/s, want $3 $4"; failed=$((failed + 1))
        fi
    done <<<"$1"
    [ "$n" = "$2" ] || { echo "FAIL: $n modes at 256 KiB, want $2"; failed=$((failed + 1)); }
}
check "$(mbps read)" 2 "<" 53.34
check "$(mbps)" 2 ">" 53.34
echo "$((4 - failed)) passed, $failed failed"
[ "$failed" = 0 ]
