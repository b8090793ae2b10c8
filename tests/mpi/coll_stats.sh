# Sourced by the coll/dimmnet test scripts: fields of a rank's stats line
# (DIMMNET_COLL_STATS=1, ompi-coll/README.md "Statistics").

# keys_decided OUTPUT RANK: how many keys the rank's run-time choice
# decided (chose_engine + chose_ompi; 0 without a stats line).
keys_decided() {
    local line e o
    line=$(grep -E "^\[mpi\] coll/dimmnet: rank $2 comms " <<<"$1")
    e=$(sed -n 's/.* chose_engine=\([0-9]*\).*/\1/p' <<<"$line")
    o=$(sed -n 's/.* chose_ompi=\([0-9]*\).*/\1/p' <<<"$line")
    echo $((${e:-0} + ${o:-0}))
}
