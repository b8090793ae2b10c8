#!/usr/bin/env bash
# Label `paper`: a short run of every benchmark (scripts/bench.sh --quick):
# each fig2 series it can measure has its sizes, the handler costs are read
# from the TCG plugin (non-zero, one line per path), fig4 covers every
# algorithm (the paper's barrier as built, firmware-paper(-mcast), included),
# and the plots and the report are written: the verdict rules before any
# figure, then every finding of the paper with exactly one verdict word.
# No timing threshold: figures are printed, and verdicts may go either way.
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
         barrier-release barrier-release-mcast barrier-paper-count barrier-paper-release \
         barrier-paper-release-mcast atomic-fetch-add; do
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
for a in firmware firmware-mcast host host-mcast firmware-paper firmware-paper-mcast; do
    for n in 2 4; do
        grep -Eq "^$a,$n,[0-9]+\.[0-9]+$" "$out/fig4.csv" || fail "fig4.csv: no $a on $n nodes"
    done
done

# Open MPI's ping-pong, with the paper's host charged and with the hardware alone.
. "$top/tests/paper/mpi_csv.sh"
lacks=$(mpi_csv_complete "$out/mpi.csv" quick); [ -z "$lacks" ] || fail "$lacks"
grep -q '^## MPI ping-pong' "$out/report.md" || fail "report.md: no MPI section"

# The collectives: every collective's run-time choice at 8 bytes on 2 and
# 4 boards, the overlap rows, and the targets judged in the report.
head -1 "$out/coll.csv" | grep -qx 'collective,implementation,nodes,bytes,modeled_us' ||
    fail "coll.csv header"
for n in 2 4; do
    grep -Eq "^barrier,auto,$n,0,[0-9]+\.[0-9]+$" "$out/coll.csv" || fail "coll.csv: no barrier on $n"
    for k in bcast reduce allreduce allgather alltoall reduce_scatter; do
        for b in 8; do
            grep -Eq "^$k,auto,$n,$b,[0-9]+\.[0-9]+$" "$out/coll.csv" ||
                fail "coll.csv: no $k auto $b B on $n boards"
        done
    done
    for i in pure compute overlapped; do
        grep -Eq "^iallreduce,$i,$n,8,[0-9]+\.[0-9]+$" "$out/coll.csv" ||
            fail "coll.csv: no iallreduce $i on $n boards"
    done
done
# The same from an unmodified MPI program, with coll/dimmnet and without,
# modeled (2 boards), and wall-clock (collwall.csv).
for i in openmpi openmpi+dimmnet; do
    r=${i//+/\\+}     # the name as a regular expression
    grep -Eq "^barrier,$r,2,0,[0-9]+\.[0-9]+$" "$out/coll.csv" || fail "coll.csv: no MPI barrier ($i)"
    grep -Eq "^allreduce,$r,2,8,[0-9]+\.[0-9]+$" "$out/coll.csv" || fail "coll.csv: no MPI allreduce ($i)"
    grep -Eq "^allreduce,$r,2,8,[0-9.]+,[0-9.]+$" "$out/collwall.csv" ||
        fail "collwall.csv: no wall-clock allreduce ($i)"
    grep -Eq "^iallreduce,$r:overlapped,2,8,[0-9.]+,[0-9.]+$" "$out/collwall.csv" ||
        fail "collwall.csv: no wall-clock iallreduce ($i)"
done
head -1 "$out/collwall.csv" | grep -qx 'collective,implementation,nodes,bytes,wall_us_avg,wall_us_max' ||
    fail "collwall.csv header"
grep -q '^## Collectives under MPI, wall-clock' "$out/report.md" || fail "report.md: no wall-clock collectives"
grep -q '^## Collectives' "$out/report.md" || fail "report.md: no collectives section"
grep -Eq '^\| non-blocking allreduce overlap .*\| (met|not met) \|$' "$out/report.md" ||
    fail "report.md: the overlap target not judged"

for png in fig2.png fig4.png; do
    [ "$(head -c 4 "$out/$png" | od -An -tx1 | tr -d ' ')" = 89504e47 ] || fail "$png is not a PNG"
done
grep -q '^## Fig. 2' "$out/report.md" && grep -q '^## Fig. 4' "$out/report.md" \
    || fail "report.md incomplete"
# The rules come first, then the findings, then the figures.
line() { grep -n "$1" "$out/report.md" | head -1 | cut -d: -f1; }
rules=$(line '^## Verdict rules') found=$(line "^## The paper's findings") fig=$(line '^## Fig. 2')
[ -n "$rules" ] && [ -n "$found" ] && [ "$rules" -lt "$found" ] && [ "$found" -lt "$fig" ] ||
    fail "report.md: the verdict rules are not stated before the figures"
# Every finding exactly once, with exactly one verdict word; no other row.
for f in soft-indirect-level soft-indirect-flat soft-indirect-interrupt miss-continue-level \
         miss-continue-2x barrier-order barrier-order-mcast; do
    [ "$(grep -c "^| $f | " "$out/report.md")" = 1 ] || fail "report.md: finding $f not once"
    grep -Eq "^\| $f \| [^|]+ \| [^|]+ \| (re-derived|not-re-derived) \|\$" "$out/report.md" ||
        fail "report.md: finding $f has no verdict word"
    grep "^| $f | " "$out/report.md"
done
[ "$(grep -Ec ' \| (re-derived|not-re-derived) \|$' "$out/report.md")" = 7 ] ||
    fail "report.md: verdicts for something other than the seven findings"
echo "paper: quick benchmarks complete"
