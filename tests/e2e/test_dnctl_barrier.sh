#!/usr/bin/env bash
# dnctl shows a barrier's report: after 2 nodes ran AUTO for 40 rounds, each
# node's dnctl lists every candidate tried with the slowest member's time
# and marks the one chosen (docs/barriers.md).
#   test_dnctl_barrier.sh LAUNCHER QEMU FIRMWARE SOAK_BARRIER_NODE DNCTL
set -euo pipefail
out=$("$1" --quiet --qemu "$2" --firmware "$3" -n 2 -- \
      sh -c "\"$4\" --rounds 40 --algorithm auto && \"$5\" --nonzero")
echo "$out"
for node in 0 1; do
    grep -q "^\[node $node\] node $node: barrier 0: [a-z-]*, 40 calls, last " <<<"$out"
    [ "$(grep -c "^\[node $node\] node $node: barrier 0: auto tried " <<<"$out")" = 4 ]
    [ "$(grep -c "^\[node $node\] node $node: barrier 0: auto tried .*(chosen)$" <<<"$out")" = 1 ]
    grep -q "^\[node $node\] node $node: fw\.bar_" <<<"$out" || [ "$node" != 0 ]
done
# The root's firmware released the firmware candidates' 8 trials, and the
# 24 calls after them if AUTO chose one of the firmware algorithms.
released=8
grep -q '^\[node 0\] node 0: barrier 0: firmware' <<<"$out" && released=32
grep -q "^\[node 0\] node 0: fw\.bar_released *$released\$" <<<"$out"
