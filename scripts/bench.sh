#!/usr/bin/env bash
# Reproduce the paper's Fig. 2 and Fig. 4, the handler costs and Open MPI's
# ping-pong in modeled time, into build/bench/: fig2.csv, fig4.csv,
# handlers.csv, mpi.csv, provenance.csv (each part's commit, contract and
# mode), fig2.png, fig4.png, report.md. Builds what is missing first. Not a
# test (the full run takes a while); --quick runs a few sizes and node
# counts. A part that fails is run once more; each part's CSV is written
# when it is done, the plots and report from what there is, the failed
# parts named last (exit 1 then). --only PART (fig2, handlers, fig4, mpi,
# coll, collwall; repeatable) reruns that part alone, keeping the other
# parts' CSVs in DIR. --only charges counts the host instructions of every
# path the model charges with callgrind on the current sources and rewrites
# the committed table host-shim/host-charges.tab (bench/measure_charges.py;
# a few minutes), before any other part named: run it, and commit the
# table, when the test paper.host_charges_fresh says the charges are stale.
# --publish: after a run that succeeded, bench/publish.py rewrites the
# generated blocks of README.md and docs/*.md from DIR's CSVs (full runs
# only; --allow-dirty passes on to it: publish figures measured on a tree
# with uncommitted changes, saying so).
#   scripts/bench.sh [--quick] [--out DIR] [--only PART]... [--publish [--allow-dirty]]
#   scripts/bench.sh --only charges
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bench_args=() publish_args=() publish=0 quick=0 out=$top/build/bench charges=0 others=0
while [ $# -gt 0 ]; do
    case "$1" in
        --only) [ "${2:-}" = charges ] && charges=1 || { others=1; bench_args+=("$1" "${2:-}"); }
                shift ;;
        --only=charges) charges=1 ;;
        --only=*) others=1; bench_args+=("$1") ;;
        --publish) publish=1 ;;
        --allow-dirty) publish_args+=(--allow-dirty) ;;
        --quick) quick=1; bench_args+=("$1") ;;
        --out) out=${2:?--out DIR}; bench_args+=("$1" "$2"); shift ;;
        --out=*) out=${1#--out=}; bench_args+=("$1") ;;
        *) bench_args+=("$1") ;;
    esac
    shift
done
if [ ${#publish_args[@]} -gt 0 ] && [ "$publish" = 0 ]; then
    echo "bench.sh: --allow-dirty goes with --publish" >&2; exit 2
fi
if [ "$publish" = 1 ] && [ "$quick" = 1 ]; then
    echo "bench.sh: --publish publishes full runs only, not --quick" >&2; exit 2
fi
"$top/scripts/build.sh" bench-programs
if [ "$charges" = 1 ]; then
    python3 "$top/bench/measure_charges.py"
    [ "$others" = 1 ] || exit 0
fi
python3 "$top/bench/run_bench.py" ${bench_args[@]+"${bench_args[@]}"}
[ "$publish" = 1 ] || exit 0
exec python3 "$top/bench/publish.py" --bench "$out" ${publish_args[@]+"${publish_args[@]}"}
