#!/usr/bin/env bash
# Reproduce the paper's Fig. 2 and Fig. 4, the handler costs and Open MPI's
# ping-pong in modeled time, into build/bench/: fig2.csv, fig4.csv,
# handlers.csv, mpi.csv, fig2.png, fig4.png, report.md. Builds what is missing first. Not a test (the full
# run takes a while); --quick runs a few sizes and node counts. A part that
# fails is run once more; each part's CSV is written when it is done, the
# plots and report from what there is, the failed parts named last (exit 1
# then). --only PART (fig2, handlers, fig4, mpi; repeatable) reruns that part
# alone, keeping the other parts' CSVs in DIR.
#   scripts/bench.sh [--quick] [--out DIR] [--only PART]...
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/build.sh" bench-programs
exec python3 "$top/bench/run_bench.py" "$@"
