#!/usr/bin/env bash
# Label `paper`: a short run of every benchmark (scripts/bench.sh --quick):
# each fig2 series it can measure has its sizes, the handler costs are read
# from the TCG plugin (non-zero, one line per path), fig4 covers every
# algorithm, and the plots and the report are written. No timing threshold:
# figures are printed, not judged.
#   test_bench_quick.sh TOP
set -uo pipefail
top=${1:?}
out=$(mktemp -d /tmp/dn1-paper.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 "$top/bench/run_bench.py" --quick --out "$out" || fail "bench run failed"

head -1 "$out/fig2.csv" | grep -qx 'series,bytes,mb_per_s' || fail "fig2.csv header"
for s in botf-direct rdma-direct soft-indirect-fseq soft-indirect rvatlb-miss-continue \
         patlb-miss-continue patlb-miss-continue-nonintr message fastest \
         soft-indirect-batched soft-indirect-fseq-batched rvatlb-miss-continue-batched \
         patlb-miss-continue-batched; do
    for b in 8 464 4096; do
        grep -Eq "^$s,$b,[0-9]+\.[0-9]+$" "$out/fig2.csv" || fail "fig2.csv: no $s at $b bytes"
    done
done
awk -F, 'NR > 1 && $3 + 0 <= 0 { bad = 1 } END { exit bad }' "$out/fig2.csv" \
    || fail "fig2.csv: a bandwidth that is not positive"

# The cost model's RDMA start-up (reading host memory) makes RDMA slower
# than BOTF for a small transfer (the paper), as modeled, not measured.
awk -F, '$2 == 8 { v[$1] = $3 } END { exit !(v["rdma-direct"] < v["botf-direct"]) }' \
    "$out/fig2.csv" || fail "fig2.csv: RDMA is not slower than BOTF at 8 bytes"

head -1 "$out/handlers.csv" | grep -qx 'path,instructions,modeled_ns' || fail "handlers.csv header"
for p in indirect-write-continue rvatlb-miss-continue patlb-miss-continue \
         patlb-miss-continue-nonintr soft-indirect message-continue message-continue-middle \
         message-nack barrier-count \
         barrier-release barrier-release-mcast; do
    # Instructions from the plugin; the modeled time at least 32 ns each.
    awk -F, -v p="$p" '$1 == p && $2 > 10 && $3 >= 32 * $2 { ok = 1 } END { exit !ok }' \
        "$out/handlers.csv" || fail "handlers.csv: no plugin count for $p"
done
# The indirect write's continue and a message's middle packets run on their
# assembly fast paths (exact instruction counts, not times): vector to eret
# in at most 40 and 120 (the C paths take hundreds).
awk -F, '$1 == "indirect-write-continue" && $2 <= 40 { ok = 1 } END { exit !ok }' \
    "$out/handlers.csv" || fail "handlers.csv: indirect-write-continue not on its fast path"
awk -F, '$1 == "message-continue-middle" && $2 <= 120 { ok = 1 } END { exit !ok }' \
    "$out/handlers.csv" || fail "handlers.csv: message-continue-middle not on its fast path"

head -1 "$out/fig4.csv" | grep -qx 'algorithm,nodes,latency_us' || fail "fig4.csv header"
for a in firmware firmware-mcast host host-mcast; do
    for n in 2 4; do
        grep -Eq "^$a,$n,[0-9]+\.[0-9]+$" "$out/fig4.csv" || fail "fig4.csv: no $a on $n nodes"
    done
done

for png in fig2.png fig4.png; do
    [ "$(head -c 4 "$out/$png" | od -An -tx1 | tr -d ' ')" = 89504e47 ] || fail "$png is not a PNG"
done
grep -q '^## Fig. 2' "$out/report.md" && grep -q '^## Fig. 4' "$out/report.md" \
    || fail "report.md incomplete"
echo "paper: quick benchmarks complete"
