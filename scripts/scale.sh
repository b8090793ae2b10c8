#!/usr/bin/env bash
# Scaling on one machine (issue 26, item 5), wall-clock: for 8, 16, 32 and
# 64 boards on one switch and on a fat-tree of 8-port switches (RHiNET-2/SW
# sized), the boot time, the memory each board takes, the barrier soak of
# every algorithm (rounds a second) and the message soak (messages a
# second), into build/bench/scale.csv:
#   boards,topology,switches,max_hops,boot_s,pss_mib_per_board,test,count,seconds,per_second
# boot_s: the launcher from start to every board ready (programs that do
# nothing); pss_mib_per_board: the boards' QEMU processes' proportional set
# size (shared pages split among them), summed and divided by the boards;
# seconds: the soak's own traffic time (boot excluded). Wall-clock figures
# of this machine at the time of the run: not modeled, not comparable
# between machines. Not a test.
# --modeled R: instead, Fig. 4 at these sizes in modeled time
# (--deterministic, the paper's host), R barriers per algorithm, on one
# switch and on the 8-port fat-tree, into build/bench/scale_fig4.csv:
#   boards,topology,switches,max_hops,algorithm,barriers,mean_us_modeled,auto_pick
# (mean_us_modeled: the highest rank's mean time in a barrier, after one
# untimed warm-up barrier; auto_pick: what AUTO chose, on its row).
#   scripts/scale.sh [--boards "8 16 32 64"] [--topologies "single fat-tree"] [--out DIR]
#                    [--barriers R] [--messages M] [--modeled R [--algorithms "A B ..."]]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
boards="8 16 32 64" topologies="single fat-tree" out=$top/build/bench barriers=300 messages=20000 modeled=""
algorithms="firmware firmware-mcast host host-mcast auto firmware-paper firmware-paper-mcast"
while [ $# -gt 0 ]; do
    case "$1" in
        --boards) boards=${2:?}; shift 2 ;;
        --topologies) topologies=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        --barriers) barriers=${2:?}; shift 2 ;;
        --messages) messages=${2:?}; shift 2 ;;
        --modeled) modeled=${2:?}; shift 2 ;;
        --algorithms) algorithms=${2:?}; shift 2 ;;
        *) echo "scale.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
qemu=$top/build/qemu-system-mips fw=$top/build/firmware-4kc/martini-fw.img
sw=$top/build/dimmnet1-switch
for f in "$qemu" "$fw" "$sw" "$top/build/dimmnet-soak-node"; do
    [ -e "$f" ] || { echo "scale.sh: $f missing (cmake --build build)" >&2; exit 2; }
done
mkdir -p "$out"

# Boards $1 on topology $2 (single, fat-tree of 8-port switches): its
# launcher arguments in targs, its switches and most switches crossed in
# nsw and hops. Fails for a run not worth making: one switch past 64
# boards, or a fat-tree that is one switch (the single run already).
topology_of() {
    local routes
    targs=()
    [ "$2" = fat-tree ] && targs=(--switch-radix 8)
    [ "$2" = single ] && [ "$1" -gt 64 ] && return 1
    routes=$("$sw" --ports "$1" "${targs[@]}" --routes summary | head -1)
    nsw=$(sed -n 's/.* switches=\([0-9]*\) .*/\1/p' <<<"$routes")
    hops=$(sed -n 's/.* max_hops=\([0-9]*\) .*/\1/p' <<<"$routes")
    ! { [ "$2" = fat-tree ] && [ "$nsw" = 1 ]; }
}
if [ -n "$modeled" ]; then
    csv=$out/scale_fig4.csv
    echo "boards,topology,switches,max_hops,algorithm,barriers,mean_us_modeled,auto_pick" >"$csv"
    for n in $boards; do
        for topo in $topologies; do
            topology_of "$n" "$topo" || continue
            for alg in $algorithms; do
                res=$("$top/tools/dimmnet-soak" --nodes "$n" --barriers "$modeled" --algorithm "$alg" \
                      --warmup 1 --deterministic "${targs[@]}" --timeout 3000 2>&1)
                mean=$(sed -n 's/.*mean barrier time \([0-9.]*\) us (modeled).*/\1/p' <<<"$res")
                pick=$(sed -n 's/.*auto: \([a-z-]*\):.*<- chosen.*/\1/p' <<<"$res" | head -1)
                grep -q "completed=$modeled " <<<"$res" || mean=""
                echo "$n,$topo,$nsw,$hops,$alg,$modeled,$mean,$pick" >>"$csv"
                echo "scale: $n boards, $topo: $alg ${mean:-failed} us modeled${pick:+ (auto: $pick)}" >&2
            done
        done
    done
    echo "scale.sh: wrote $csv" >&2
    exit 0
fi
csv=$out/scale.csv
echo "boards,topology,switches,max_hops,boot_s,pss_mib_per_board,test,count,seconds,per_second" >"$csv"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Node 0's program: the boards' PSS in KiB, summed (every board is up).
cat >"$work/pss.sh" <<'EOF'
#!/usr/bin/env bash
[ "$DIMMNET_NODE_ID" = 0 ] || exit 0
total=0
for p in $(pgrep -f "qemu-system-mips.*$DIMMNET_RUN_DIR/"); do
    kb=$(awk '/^Pss:/ { print $2 }' "/proc/$p/smaps_rollup" 2>/dev/null)
    total=$((total + ${kb:-0}))
done
echo "pss_kib=$total"
EOF
chmod +x "$work/pss.sh"

for n in $boards; do
    for topo in $topologies; do
        topology_of "$n" "$topo" || continue
        t0=$(date +%s.%N)
        pss=$("$top/tools/dimmnet-cluster" --quiet --qemu "$qemu" --firmware "$fw" -n "$n" \
              "${targs[@]}" --timeout 600 -- "$work/pss.sh" | sed -n 's/.*pss_kib=//p')
        t1=$(date +%s.%N)
        boot=$(echo "$t1 - $t0" | bc)
        per=$(echo "scale=1; ${pss:-0} / 1024 / $n" | bc)
        echo "scale: $n boards, $topo ($nsw switches, up to $hops crossed): boot ${boot%???????} s, ${per} MiB a board" >&2
        row() {   # test count seconds
            local rate=""
            [ -n "$3" ] && rate=$(echo "scale=1; $2 / $3" | bc 2>/dev/null)
            echo "$n,$topo,$nsw,$hops,${boot%??????},$per,$1,$2,$3,$rate" >>"$csv"
            echo "scale:   $1: $2 in $3 s (${rate:-?} a second, wall-clock)" >&2
        }
        for alg in firmware firmware-mcast host host-mcast auto firmware-paper firmware-paper-mcast; do
            line=$("$top/tools/dimmnet-soak" --nodes "$n" --barriers "$barriers" --algorithm "$alg" \
                   "${targs[@]}" --timeout 600 2>/dev/null | grep '^soak:')
            secs=$(sed -n 's/.* seconds=\([0-9.]*\).*/\1/p' <<<"$line")
            [[ "$line" == *"completed=$barriers "* ]] || secs=""
            row "barrier-$alg" "$barriers" "$secs"
        done
        line=$("$top/tools/dimmnet-soak" --nodes "$n" --messages "$messages" "${targs[@]}" \
               --timeout 600 2>/dev/null | grep '^soak:')
        secs=$(sed -n 's/.* seconds=\([0-9.]*\).*/\1/p' <<<"$line")
        [[ "$line" == *"delivered=$messages lost=0 "* ]] || secs=""
        row messages "$messages" "$secs"
    done
done
echo "scale.sh: wrote $csv" >&2
