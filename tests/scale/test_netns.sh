#!/usr/bin/env bash
# Boards over several hosts, tested as if on several machines (issue 26,
# item 4): three network namespaces made here are the "hosts" (a veth
# each, on a bridge of this test's own; addresses in 10.213.7.0/24, no
# other), Open MPI's launcher reaches them through its rsh agent
# (tests/scale/netns-agent: ip netns exec), and the switch runs outside
# them, listening on the bridge's address. 8 boards (3 + 3 + 2 on the
# hosts) over two switches (boards 0-3 on one, 4-7 on the other):
#  - all-to-all messages under 1 % drop on the cable between the switches,
#    then again with host processes killed and boards' NICs restarted;
#  - barrier soaks of every algorithm;
#  - Open MPI (mpi_basic) over the provider;
#  - a deterministic run whose traces (switch and every board) are byte for
#    byte those of the same run with every board on this host;
#  - a switch that goes away, and a board that goes away, end the run with
#    the reason, and leave no process, run directory or shared-memory file
#    on any host.
# Exits 77 (skipped) with the reason where namespaces cannot be made.
#   test_netns.sh ROOT QEMU FIRMWARE MPI_BASIC DETERMINISM_PROGRAM
set -uo pipefail
top=$1 qemu=$2 fw=$3 mpi_prog=$4 det_prog=$5
tag=$$
br=dnbr$tag
ns=(dnh$tag-a dnh$tag-b dnh$tag-c)
sub=10.213.7
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
work=$(mktemp -d)

teardown() {
    for n in "${ns[@]}"; do ip netns del "$n" 2>/dev/null; done
    ip link del "$br" 2>/dev/null
    rm -rf "$work" "${TMPDIR:-/tmp}"/ompi-netns-dnh$tag-*
}
trap teardown EXIT

skip() { echo "SKIP: $* (network namespaces cannot be made here)"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root"
command -v ip >/dev/null || skip "no ip (iproute2)"
command -v mpirun >/dev/null || skip "no mpirun"
ip link add "$br" type bridge 2>/dev/null || skip "cannot make a bridge"
ip addr add "$sub.1/24" dev "$br" && ip link set "$br" up || skip "cannot address the bridge"
for i in 0 1 2; do
    n=${ns[$i]}
    ip netns add "$n" 2>/dev/null || skip "cannot make namespace $n"
    ip link add "dnv$tag$i" type veth peer name eth0 netns "$n" || skip "cannot make a veth pair"
    ip link set "dnv$tag$i" master "$br" && ip link set "dnv$tag$i" up || skip "cannot bridge the veth"
    ip netns exec "$n" ip addr add "$sub.$((10 + i))/24" dev eth0
    ip netns exec "$n" ip link set eth0 up
    ip netns exec "$n" ip link set lo up
done
ip netns exec "${ns[2]}" ip route get "$sub.1" >/dev/null 2>&1 || skip "the namespaces have no route to the bridge"

printf '%s slots=3\n%s slots=3\n%s slots=2\n' "${ns[@]}" >"$work/hosts"
printf 'node 0-3 switch 0\nnode 4-7 switch 1\nlink 0 1\n' >"$work/two.topo"
export OMPI_MCA_plm_rsh_agent=$top/tests/scale/netns-agent
export OMPI_MCA_oob_tcp_if_include=$sub.0/24
# The namespaces' hosts are this machine's processes: Open MPI must not
# think it may start more ranks than the hostfile's slots.
export OMPI_MCA_rmaps_base_oversubscribe=0
hostopts=(--hosts "$work/hosts" --switch-addr "$sub.1" --topology "$work/two.topo")
soak=("$top/tools/dimmnet-soak" --qemu "$qemu" --firmware "$fw" --nodes 8 --timeout 300)

# Which namespace each board's QEMU runs in: every host has its boards.
line=$("${soak[@]}" "${hostopts[@]}" --messages 20000 --seed 11 \
       --fault link=0:4,drop=0.01 --fault link=1:4,drop=0.01 2>&1 | tee "$work/msg.log" | grep '^soak:')
echo "messages: $line"
[[ "$line" == *"delivered=20000 lost=0 duplicated=0 reordered=0 corrupted=0 "* ]] ||
    { fail "messages over the hosts"; tail -20 "$work/msg.log" >&2; }

# Host processes killed and started again, and their boards' NICs
# restarted, while the boards are spread over the hosts (--kill-every: the
# schedule is drawn alike on every host, each supervisor kills its own).
"${soak[@]}" "${hostopts[@]}" --messages 20000 --sizes 0:8192 --seed 12 \
    --kill-every 0.3 --restart-boards --fault link=0:4,drop=0.01 >"$work/kill.log" 2>&1
rc=$?
line=$(grep '^soak:' "$work/kill.log")
echo "messages with restarts: $line"
[ $rc = 0 ] && [[ "$line" =~ lost=0\ duplicated=0\ reordered=0\ corrupted=0\ .*\ restarts=[1-9] ]] ||
    { fail "messages with restarts over the hosts"; tail -20 "$work/kill.log" >&2; }

for alg in firmware firmware-mcast host host-mcast auto firmware-paper firmware-paper-mcast; do
    line=$("${soak[@]}" "${hostopts[@]}" --barriers 200 --algorithm "$alg" --seed 3 2>&1 |
           tee "$work/bar.log" | grep '^soak:')
    echo "barrier $alg: $line"
    [[ "$line" == *"completed=200 early_exits=0 hangs=0 "* ]] ||
        { fail "barrier $alg over the hosts"; tail -20 "$work/bar.log" >&2; }
done

# Open MPI, and proof that the ranks ran in the namespaces: each rank
# prints the address its host has.
cat >"$work/where.sh" <<EOF
#!/bin/sh
echo "rank on \$(ip -4 -o addr show dev eth0 2>/dev/null | awk '{ print \$4 }')"
exec "$mpi_prog"
EOF
chmod +x "$work/where.sh"
"$top/tools/dimmnet-cluster" --quiet --qemu "$qemu" --firmware "$fw" -n 8 "${hostopts[@]}" \
    --mpi --log-dir "$work/mpilog" --timeout 300 -- "$work/where.sh" >"$work/mpi.out" 2>&1 ||
    { fail "MPI over the hosts"; tail -30 "$work/mpi.out" >&2; }
[ "$(grep -c 'alltoall: ok' "$work/mpi.out")" = 8 ] || fail "not every MPI rank finished"
for i in 0 1 2; do
    [ "$(grep -c "rank on $sub.$((10 + i))/24" "$work/mpi.out")" = "$([ $i = 2 ] && echo 2 || echo 3)" ] ||
        fail "host ${ns[$i]} did not run its ranks"
done
grep -q '^link 0:4->1:4 tx_frames=[1-9]' "$work/mpilog/switch.stats" || fail "no MPI traffic between the switches"

# Deterministic: the same run on the hosts and on this host alone.
for where in hosts here; do
    mkdir -p "$work/det-$where"
    opts=(--topology "$work/two.topo")
    [ "$where" = hosts ] && opts=("${hostopts[@]}")
    "$top/tools/dimmnet-cluster" --quiet --qemu "$qemu" --firmware "$fw" -n 8 "${opts[@]}" \
        --deterministic --fault link=0:4,dup=0.2,delay=100 --seed 5 \
        --pcap-dir "$work/det-$where" --timeout 300 -- "$det_prog" >"$work/det-$where/out" 2>&1 ||
        { fail "deterministic run ($where)"; tail -20 "$work/det-$where/out" >&2; }
    sort "$work/det-$where/out" | grep 'modeled' >"$work/det-$where/times"
done
for f in switch node0 node1 node2 node3 node4 node5 node6 node7; do
    [ -s "$work/det-here/$f.pcap" ] || fail "no $f.pcap"
    cmp -s "$work/det-hosts/$f.pcap" "$work/det-here/$f.pcap" ||
        fail "$f.pcap differs between the hosts and one host"
done
diff "$work/det-hosts/times" "$work/det-here/times" >&2 || fail "other virtual times on the hosts"
[ -s "$work/det-here/times" ] || fail "the deterministic run printed no modeled time"

# Something goes away: KIND is "switch" or "board".
gone() {
    local kind=$1 tmp=$work/tmp-$1 lp ids=() k
    mkdir -p "$tmp"
    TMPDIR=$tmp "$top/tools/dimmnet-cluster" --quiet --qemu "$qemu" --firmware "$fw" -n 8 \
        "${hostopts[@]}" --timeout 120 -- sleep 100 >"$work/gone-$kind.out" 2>&1 &
    lp=$!
    for _ in $(seq 600); do
        # Every board past its launcher's start (node*.up, not only its
        # console's "ready"): a board lost before the launcher has seen it
        # ready "exited during start", another message.
        [ "$(ls "$tmp"/dimmnet1-run.*/node*.up 2>/dev/null | wc -l)" = 8 ] && break
        sleep 0.1
    done
    for d in "$tmp"/dimmnet1-run.*; do ids+=("${d##*/dimmnet1-run.}"); done
    [ "${#ids[@]}" = 9 ] || fail "$kind: ${#ids[@]} run directories, want 9 (launcher and 8 ranks)"
    if [ "$kind" = switch ]; then
        pkill -f "dimmnet1-switch .*--tcp $sub.1:" || fail "no switch to stop"
        want="the switch exited during the run"
    else
        pkill -f "qemu-system-mips .*node-id=5,.*$tmp/" || fail "no board 5 to stop"
        want="board 5 \(on .*\) exited during the run"
    fi
    k=0
    while kill -0 "$lp" 2>/dev/null && [ $k -lt 300 ]; do sleep 0.1; k=$((k + 1)); done
    if kill -0 "$lp" 2>/dev/null; then
        fail "$kind gone: the run goes on"
        kill "$lp"
    fi
    wait "$lp" && fail "$kind gone: the run succeeded"
    grep -Eq "$want" "$work/gone-$kind.out" || { fail "$kind gone: no '$want'"; tail -5 "$work/gone-$kind.out" >&2; }
    sleep 1
    pgrep -af -- "$tmp/" >&2 && fail "$kind gone: processes left"
    ls -d "$tmp"/dimmnet1-run.* 2>/dev/null >&2 && fail "$kind gone: run directories left"
    for id in "${ids[@]}"; do
        ls /dev/shm/dimmnet1-"$id"-* 2>/dev/null >&2 && fail "$kind gone: shared memory of run $id left"
    done
    echo "$kind gone: $(grep -Eo "$want" "$work/gone-$kind.out" | head -1)"
}
gone switch
gone board

echo "$fails failures"
[ "$fails" = 0 ]
