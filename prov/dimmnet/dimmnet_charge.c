/*
 * The host's instructions the provider charges under host sync, per code
 * path (docs/hardware.md section 9, "Host profile"): the host-charge
 * table's rows (host-shim/host-charges.tab, read by the shim at dn_open:
 * dn_host_insns), measured with callgrind on the current sources by
 * bench/measure_charges.py. prov.* are the provider's with the shim's;
 * openmpi.* the caller's, Open MPI 4.1.4's (pml cm over mtl ofi, osc rdma
 * over btl ofi) above each of the provider's calls, added when the caller
 * is named (FI_DIMMNET_CALLER=openmpi, which dimmnet-cluster --mpi sets).
 * FI_DIMMNET_CALLER_CALL_INSNS / _POLL_INSNS, when set, replace the
 * caller's figures of every data call / every turn (an experiment's).
 */
#include <string.h>
#include "dimmnet.h"

#define AT(f) offsetof(struct dnf_charges, f)
static const struct row {
    const char *name;
    size_t at;
} own_rows[] = {
    { "prov.send", AT(send) }, { "prov.inject", AT(inject) }, { "prov.recv", AT(recv) },
    { "prov.write", AT(write) }, { "prov.read", AT(read) }, { "prov.atomic", AT(atomic) },
    { "prov.turn-empty", AT(turn) },
    { "prov.turn-busy", AT(completion) },   /* less turn-empty, below */
}, openmpi_rows[] = {
    { "openmpi.send", AT(send) }, { "openmpi.send", AT(inject) },
    { "openmpi.recv", AT(recv) }, { "openmpi.put", AT(write) }, { "openmpi.get", AT(read) },
    { "openmpi.atomic", AT(atomic) }, { "openmpi.turn", AT(turn) },
    { "openmpi.completion", AT(completion) }, { "openmpi.flush", AT(flush) },
};

static int load(struct dnf_domain *d, const struct row *r, size_t n, struct dnf_charges *c,
                int host_sync)
{
    memset(c, 0, sizeof(*c));
    for (size_t i = 0; i < n; i++) {
        if (dn_host_insns(d->node, r[i].name, (uint64_t *)((char *)c + r[i].at)) != DN_OK &&
            host_sync) {
            FI_WARN(&dnf_prov, FI_LOG_DOMAIN, "the host-charge table has no row %s "
                    "(DIMMNET_HOST_CHARGES; renew it: scripts/bench.sh --only charges)\n",
                    r[i].name);
            return -FI_EINVAL;
        }
    }
    return 0;
}

int dnf_charges_init(struct dnf_domain *d, int host_sync)
{
    struct dnf_charges own, caller;
    char *name = NULL;
    int call = -1, poll = -1, rc;

    fi_param_get_str(&dnf_prov, "caller", &name);
    fi_param_get_int(&dnf_prov, "caller_call_insns", &call);
    fi_param_get_int(&dnf_prov, "caller_poll_insns", &poll);
    if ((rc = load(d, own_rows, sizeof(own_rows) / sizeof(*own_rows), &own, host_sync))) {
        return rc;
    }
    /* A message completion: what a turn taking one does beyond an empty one. */
    own.completion = own.completion > own.turn ? own.completion - own.turn : 0;
    memset(&caller, 0, sizeof(caller));
    if (name && !strcmp(name, "openmpi")) {
        rc = load(d, openmpi_rows, sizeof(openmpi_rows) / sizeof(*openmpi_rows), &caller,
                  host_sync);
        if (rc) {
            return rc;
        }
    } else if (name && *name) {
        FI_WARN(&dnf_prov, FI_LOG_DOMAIN, "FI_DIMMNET_CALLER=%s: no such caller in the "
                "host-charge table (openmpi, or unset for none)\n", name);
        return -FI_EINVAL;
    }
    if (call >= 0) {
        caller.send = caller.inject = caller.recv = (uint64_t)call;
        caller.write = caller.read = caller.atomic = (uint64_t)call;
    }
    if (poll >= 0) {
        caller.turn = (uint64_t)poll;
    }
    d->charge = (struct dnf_charges){
        .send = own.send + caller.send, .inject = own.inject + caller.inject,
        .recv = own.recv + caller.recv, .write = own.write + caller.write,
        .read = own.read + caller.read, .atomic = own.atomic + caller.atomic,
        .turn = own.turn + caller.turn, .completion = own.completion + caller.completion,
        .flush = caller.flush,
    };
    return 0;
}
