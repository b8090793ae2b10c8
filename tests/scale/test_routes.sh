#!/usr/bin/env bash
# Topologies of switches (issue 26, docs/hardware.md section 6b): every
# generator from 1 to 512 boards routes every pair legally with an acyclic
# channel dependency graph, and the hop counts are those of the topology;
# bad topology files are refused with their line named.
#   test_routes.sh SWITCH
set -uo pipefail
sw=$1
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# expect N SPEC RADIX MAX_HOPS SWITCHES
expect() {
    local out
    out=$("$sw" --ports "$1" --topology "$2" --switch-radix "$3" --routes summary 2>&1) ||
        { fail "$2 with $1 boards, radix $3: $out"; return; }
    echo "$out" | head -1
    [[ "$out" == *" switches=$5 "* ]] || fail "$2/$1: want $5 switches: $out"
    [[ "$out" == *" max_hops=$4 "* ]] || fail "$2/$1: want at most $4 switches crossed: $out"
    [[ "$out" == *"cdg=acyclic"* && "$out" != *broken* ]] || fail "$2/$1: $out"
    [[ "$out" == *" pairs=$(($1 * ($1 - 1))) "* ]] || fail "$2/$1: not every pair: $out"
}
expect 8 single 8 1 1
expect 64 single 64 1 1
expect 8 fat-tree 8 1 1            # fits one switch
expect 16 fat-tree 8 3 8           # 4-ary 2-tree: leaf, top, leaf
expect 64 fat-tree 8 5 48          # 4-ary 3-tree
expect 512 fat-tree 8 9 1280       # 4-ary 5-tree, 1 to 512 boards described
expect 8 fat-tree 4 5 12           # 2-ary 3-tree
expect 16 mesh:4x2 8 5 8           # 3 + 1 cables at most: 5 switches
expect 64 torus:4x4 8 5 16
expect 512 torus:16x16 8 29 256    # up*-down* detours on a torus
# A fat-tree's routes are minimal: 16 boards, k = 4: pairs on one leaf cross
# one switch (4 leaves x 4 x 3 = 48), all others three.
out=$("$sw" --ports 16 --switch-radix 8 --routes summary | sed -n 2p)
[ "$out" = "hops 1=48 2=0 3=192" ] || fail "fat-tree 16: hops '$out'"
# --switch-radix alone is a fat-tree.
"$sw" --ports 16 --switch-radix 8 --routes summary | grep -q 'topology=fat-tree radix=8 switches=8 ' ||
    fail "--switch-radix alone is not a fat-tree"
# Every pair listed with "all".
[ "$("$sw" --ports 16 --topology mesh:4x2 --routes all | grep -c '^route ')" = 240 ] ||
    fail "--routes all does not list every pair"

# A file: two switches, boards on both, a cable with explicit ports.
cat >"$work/ok.topo" <<'T'
switch 0 radix 4
switch 1 radix 4
node 0-1 switch 0 port 0
node 2 switch 1
node 3 switch 1
link 0:3 1:3
T
out=$("$sw" --ports 4 --topology "$work/ok.topo" --routes summary) || fail "ok.topo: $out"
[[ "$out" == *"switches=2 links=1 boards=4 pairs=12 max_hops=2"* ]] || fail "ok.topo: $out"

# refused FILE_TEXT N MESSAGE_PART
refused() {
    printf '%b' "$1" >"$work/bad.topo"
    local out
    if out=$("$sw" --ports "$2" --topology "$work/bad.topo" --routes summary 2>&1); then
        fail "accepted: $1"
    elif [[ "$out" != *"$3"* ]]; then
        fail "for '$1' want '$3', got: $out"
    fi
}
refused 'node 0 switch 0\nnode 0 switch 1\nlink 0 1\n' 2 'bad.topo:2: board 0 placed twice'
refused 'node 0-1 switch 0\nnode 2 switch 1\n' 3 'cut off'
refused 'node 0-1 switch 0\n' 3 'board 2 is on no switch'
refused 'node 0-3 switch 0\n' 3 'board 3 placed, but the cluster has 3'
refused 'switch 0 radix 2\nnode 0-2 switch 0\n' 3 'none free'
refused 'node 0 switch 0 port 1\nnode 1 switch 1\nlink 0:1 1\n' 2 'bad.topo:3: switch 0 port 1 is cabled twice'
refused 'node 0 switch 0\nnode 1 switch 0\nlink 0 0\n' 2 'link from switch 0 to itself'
refused 'node 0 switch 0\nrouter 1\n' 1 "bad.topo:2: unknown statement 'router'"
refused 'switch 0 radix 99\n' 1 'radix 99'
out=$("$sw" --ports 65 --routes summary 2>&1) && fail "65 boards on one switch accepted"
[[ "$out" == *"at most 64 ports"* ]] || fail "65 on one switch: $out"
out=$("$sw" --ports 8 --topology mesh:3 --routes summary 2>&1) && fail "mesh:3 accepted"
[[ "$out" == *"WxH"* ]] || fail "mesh:3: $out"
out=$("$sw" --ports 8 --topology "$work/none.topo" --routes summary 2>&1) && fail "missing file accepted"
[[ "$out" == *"cannot read topology file"* ]] || fail "missing file: $out"
# A fault on a cable that is not one is refused when the switch starts.
out=$("$sw" --ports 4 --topology "$work/ok.topo" --socket-dir "$work" --fault link=0:0,drop=0.1 2>&1) &&
    fail "link fault on a board port accepted"
[[ "$out" == *"bad --fault"* ]] || fail "link fault on a board port: $out"

echo "$fails failures"
[ "$fails" = 0 ]
