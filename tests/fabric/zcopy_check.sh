#!/bin/sh
# zcopy_check.sh LOG: the protocol counts of a fabric_zcopy run (its
# FI_DIMMNET_STATS lines in LOG) say every long message went zero-copy.
#   node 1 receives 28 long messages in steps 1-6 and 4 in steps 8-9;
#   node 0 receives the 4 of steps 8-9; a receive that fell back to the
#   chunks counts in neither zcopy-received nor eager-long.
#   Step 6's two unexpected 9 KiB messages come whole in their FIRST
#   (eager-long); so may a pre-posted 9 KiB one whose sender sent before
#   the receive's advertisement landed (the test's ready mark is out of
#   band, and under load it wins): node 1's zcopy-received and eager-long
#   add up to 34 whichever way that went, with at least those two eager.
#   node 1's sends whose source the NIC read (zcopy-rdma): the first
#   1 MiB and step 9's, 2.
log=$1
stat() {   # stat NODE FIELD
    sed -n "s/.*node $1: sender-matching.* $2=\([0-9]*\)\( .*\)*$/\1/p" "$log"
}
r0=$(stat 0 zcopy-received) e0=$(stat 0 eager-long)
r1=$(stat 1 zcopy-received) e1=$(stat 1 eager-long) d1=$(stat 1 zcopy-rdma)
echo "zcopy_check: node 0 zcopy-received=$r0 eager-long=$e0;" \
     "node 1 zcopy-received=$r1 eager-long=$e1 zcopy-rdma=$d1"
[ "$r0 $e0 $d1" = "4 0 2" ] && [ -n "$r1" ] && [ -n "$e1" ] &&
    [ $((r1 + e1)) -eq 34 ] && [ "$e1" -ge 2 ] && exit 0
echo "zcopy_check: FAILED (want node 0: 4 and 0; node 1: 34 in all, eager-long >= 2, rdma 2)"
exit 1
