/*
 * The domain: this process's DIMMnet-1 node, opened from the launcher's
 * environment (dn_open_env) with message exchange set up (dn_msg_init).
 * No memory registration is needed (mr_mode 0) nor offered.
 */
#include <stdlib.h>
#include <string.h>
#include "dimmnet.h"
#include "fi_dimmnet.h"
#include "dimmnet1/regs.h"

/* The open domain's node (one a process), for fi_dimmnet_clock. */
static dn_node *clock_node;

__attribute__((visibility("default"))) int fi_dimmnet_clock(uint64_t *now_ns, int *host_sync)
{
    if (!clock_node) {
        return -FI_ENODEV;
    }
    if (host_sync) {
        *host_sync = dn_host_sync(clock_node);
    }
    return dn_clock(clock_node, now_ns) == DN_OK ? 0 : -FI_EIO;
}

static int domain_close(struct fid *fid)
{
    struct dnf_domain *d = container_of(fid, struct dnf_domain, dom.fid);

    if (d->refs) {
        return -FI_EBUSY;
    }
    if (clock_node == d->node) {
        clock_node = NULL;
    }
    dn_close(d->node);
    free(d);
    return 0;
}

static struct fi_ops domain_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = domain_close,
};

static struct fi_ops_domain domain_ops = {
    .size = sizeof(struct fi_ops_domain),
    .av_open = dnf_av_open,
    .cq_open = dnf_cq_open,
    .endpoint = dnf_endpoint,
};

static int mr_reg(struct fid *fid, const void *buf, size_t len, uint64_t access,
                  uint64_t offset, uint64_t requested_key, uint64_t flags,
                  struct fid_mr **mr, void *context)
{
    (void)fid; (void)buf; (void)len; (void)access; (void)offset;
    (void)requested_key; (void)flags; (void)mr; (void)context;
    return -FI_ENOSYS;     /* no FI_RMA: nothing to register */
}

static struct fi_ops_mr domain_mr_ops = {
    .size = sizeof(struct fi_ops_mr),
    .reg = mr_reg,
};

int dnf_domain_open(struct fid_fabric *fabric, struct fi_info *info,
                    struct fid_domain **dom, void *context)
{
    const char *nodes = getenv("DIMMNET_NODES");
    struct dnf_domain *d;
    int rc;

    (void)fabric;
    if (info && info->domain_attr && info->domain_attr->name &&
        strcmp(info->domain_attr->name, DNF_NAME)) {
        return -FI_EINVAL;
    }
    d = calloc(1, sizeof(*d));
    if (!d) {
        return -FI_ENOMEM;
    }
    rc = dn_open_env(&d->node, 30000);
    if (rc == DN_OK) {
        rc = dn_msg_init(d->node, NULL);
    }
    if (rc != DN_OK) {
        FI_WARN(&dnf_prov, FI_LOG_DOMAIN, "no DIMMnet-1 node (run under "
                "dimmnet-cluster): %s\n", dn_strerror(rc));
        if (d->node) {
            dn_close(d->node);
        }
        free(d);
        return -FI_ENODEV;
    }
    /* DNF_SELF_*_INSNS count the shim's instructions with ours. */
    dn_host_self(d->node, 0);
    d->nodes = nodes ? (unsigned)strtoul(nodes, NULL, 10) : 1;
    uint32_t timing = 0;
    d->modeled = dn_reg_read(d->node, DN1_REG_TIMING, &timing) == DN_OK &&
                 (timing & DN1_TIMING_SYNC);
    int caller_call = 0, caller_poll = 0;
    fi_param_get_int(&dnf_prov, "caller_call_insns", &caller_call);
    fi_param_get_int(&dnf_prov, "caller_poll_insns", &caller_poll);
    d->call_insns = DNF_SELF_CALL_INSNS + (uint64_t)(caller_call > 0 ? caller_call : 0);
    d->poll_insns = DNF_SELF_POLL_INSNS + (uint64_t)(caller_poll > 0 ? caller_poll : 0);
    clock_node = d->node;
    d->dom.fid.fclass = FI_CLASS_DOMAIN;
    d->dom.fid.context = context;
    d->dom.fid.ops = &domain_fi_ops;
    d->dom.ops = &domain_ops;
    d->dom.mr = &domain_mr_ops;
    *dom = &d->dom;
    return 0;
}
