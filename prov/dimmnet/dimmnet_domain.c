/*
 * The domain: this process's DIMMnet-1 node, opened from the launcher's
 * environment (dn_open_env: DIMMNET_PORT picks a host port) with message
 * exchange set up (dn_msg_init) on its host port (every port receives
 * messages of its own, contract 1.29).
 * Several domains may be open at once (fi_domain(3) allows it); they share
 * the one node, opened by the first and closed with the last. A domain
 * has one endpoint; a process up to DNF_EPS, of which one may send and
 * receive messages (the shim's tag 0 is one conversation a port), the
 * others RMA and atomics only.
 * Memory registration (dimmnet_mr.c) is what RMA's targets need; mr_mode
 * is what the application allowed of FI_MR_VIRT_ADDR, FI_MR_ALLOCATED and
 * FI_MR_PROV_KEY (FI_MR_BASIC: all three; FI_MR_SCALABLE: none).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dimmnet.h"
#include "fi_dimmnet.h"
#include "dimmnet1/regs.h"

/* The process's node, shared by its open domains; for fi_dimmnet_clock too. */
static pthread_mutex_t node_lock = PTHREAD_MUTEX_INITIALIZER;
static dn_node *clock_node;
static int node_refs;
static struct dnf_ep *node_eps[DNF_EPS];   /* the node's endpoints, in any domain */

int dnf_domain_take_ep(struct dnf_ep *ep)
{
    int rc = -FI_EBUSY;

    pthread_mutex_lock(&node_lock);
    int conversation_taken = 0;
    for (unsigned i = 0; i < DNF_EPS; i++) {
        conversation_taken |= node_eps[i] && node_eps[i]->messaging;
    }
    for (unsigned i = 0; i < DNF_EPS && !(ep->messaging && conversation_taken); i++) {
        if (!node_eps[i]) {
            node_eps[i] = ep;
            ep->slot = i;
            rc = 0;
            break;
        }
    }
    pthread_mutex_unlock(&node_lock);
    return rc;
}

void dnf_domain_give_ep(struct dnf_ep *ep)
{
    pthread_mutex_lock(&node_lock);
    if (ep->slot < DNF_EPS && node_eps[ep->slot] == ep) {
        node_eps[ep->slot] = NULL;
    }
    pthread_mutex_unlock(&node_lock);
}

__attribute__((visibility("default"))) int fi_dimmnet_clock(uint64_t *now_ns, int *host_sync)
{
    dnf_enter();
    if (!clock_node) {
        return -FI_ENODEV;
    }
    if (host_sync) {
        *host_sync = dn_host_sync(clock_node);
    }
    return dn_clock(clock_node, now_ns) == DN_OK ? 0 : -FI_EIO;
}

__attribute__((visibility("default"))) long fi_dimmnet_touch(const void *buf, size_t len,
                                                           int write)
{
    dnf_enter();
    if (!clock_node) {
        return -FI_ENODEV;
    }
    if (!buf && len) {
        return -FI_EINVAL;
    }
    size_t card = dnf_mr_card_bytes(clock_node, buf, len);
    if (card) {
        dn_host_work(clock_node, write ? DN_HOST_CARD_WRITE : DN_HOST_CARD_READ, card);
    }
    return (long)card;
}

/* A turn of every endpoint of the node (the caller holds the provider's
 * lock, under which endpoints close). */
void dnf_node_progress(void)
{
    struct dnf_ep *eps[DNF_EPS];

    pthread_mutex_lock(&node_lock);
    memcpy(eps, node_eps, sizeof(eps));
    pthread_mutex_unlock(&node_lock);
    for (unsigned i = 0; i < DNF_EPS; i++) {
        if (eps[i]) {
            dnf_progress(eps[i]);
        }
    }
}

/* The node fi_dimmnet_coll_ops wraps (dimmnet_coll.c); the caller holds
 * the provider's lock. NULL when no domain is open. */
dn_node *dnf_coll_node(void)
{
    return clock_node;
}

static int domain_close(struct fid *fid)
{
    struct dnf_domain *d = container_of(fid, struct dnf_domain, dom.fid);

    dnf_enter();
    if (d->refs || atomic_load(&d->mr_refs)) {
        return -FI_EBUSY;
    }
    if (d->eq) {
        atomic_fetch_sub(&d->eq->refs, 1);
    }
    atomic_fetch_sub(&d->fab->refs, 1);
    pthread_mutex_lock(&node_lock);
    if (node_refs == 1) {
        dnf_mr_cache_flush(d);     /* receive buffers kept on the card come back */
    }
    if (!--node_refs) {
        dn_close(clock_node);
        clock_node = NULL;
    }
    pthread_mutex_unlock(&node_lock);
    free(d);
    return 0;
}

/* An EQ bound to the domain takes its endpoints' critical errors, unless
 * an endpoint has its own (fi_domain(3)). No memory registration, so no
 * FI_REG_MR events. */
static int domain_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
    struct dnf_domain *d = container_of(fid, struct dnf_domain, dom.fid);

    dnf_enter();
    if (!bfid || bfid->fclass != FI_CLASS_EQ) {
        return -FI_EINVAL;
    }
    if (flags & FI_REG_MR) {
        return -FI_ENOSYS;
    }
    if (flags) {
        return -FI_EBADFLAGS;
    }
    if (d->eq) {
        return -FI_EINVAL;       /* one EQ a domain */
    }
    d->eq = container_of(bfid, struct dnf_eq, eq.fid);
    atomic_fetch_add(&d->eq->refs, 1);
    return 0;
}

static struct fi_ops domain_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = domain_close,
    .bind = domain_bind,
    .control = dnf_no_control,
    .ops_open = dnf_no_ops_open,
    .tostr = dnf_no_tostr,
    .ops_set = dnf_no_ops_set,
};

/* fi_endpoint2 calls this only with flags (FI_PEER), which we do not take. */
static int domain_endpoint2(struct fid_domain *domain, struct fi_info *info,
                            struct fid_ep **ep, uint64_t flags, void *context)
{
    if (flags) {
        return -FI_ENOSYS;
    }
    return dnf_endpoint(domain, info, ep, context);
}

static struct fi_ops_domain domain_ops = {
    .size = sizeof(struct fi_ops_domain),
    .av_open = dnf_av_open,
    .cq_open = dnf_cq_open,
    .endpoint = dnf_endpoint,
    .scalable_ep = dnf_no_scalable_ep,
    .cntr_open = dnf_cntr_open,
    .poll_open = dnf_no_poll_open,
    .stx_ctx = dnf_no_stx_ctx,
    .srx_ctx = dnf_no_srx_ctx,
    .query_atomic = dnf_query_atomic,
    .query_collective = dnf_query_collective,
    .endpoint2 = domain_endpoint2,
};

int dnf_domain_open(struct fid_fabric *fabric, struct fi_info *info,
                    struct fid_domain **dom, void *context)
{
    const char *nodes = getenv("DIMMNET_NODES");
    struct dnf_domain *d;
    int rc;

    if (info && info->domain_attr && (info->domain_attr->threading == FI_THREAD_SAFE ||
                                      info->domain_attr->threading == FI_THREAD_FID)) {
        dnf_thread_safe_on();  /* for the process's life: the node is one */
    }
    dnf_enter();               /* a second domain uses the node too */

    if (info && info->domain_attr && info->domain_attr->name &&
        strcmp(info->domain_attr->name, DNF_NAME)) {
        return -FI_EINVAL;
    }
    d = calloc(1, sizeof(*d));
    if (!d) {
        return -FI_ENOMEM;
    }
    pthread_mutex_lock(&node_lock);
    rc = DN_OK;
    if (!clock_node) {
        rc = dn_open_env(&d->node, 30000);
        if (rc == DN_OK) {
            rc = dn_msg_init(d->node, NULL);    /* the port's own (contract 1.29) */
        }
        if (rc != DN_OK) {
            FI_WARN(&dnf_prov, FI_LOG_DOMAIN, "no DIMMnet-1 node (run under "
                    "dimmnet-cluster): %s\n", dn_strerror(rc));
            if (d->node) {
                dn_close(d->node);
            }
        } else {
            /* The table's prov.* rows count the shim's instructions with ours. */
            dn_host_self(d->node, 0);
            clock_node = d->node;
            dn_coll_set_idle(d->node, dnf_coll_idle, NULL);
            dnf_share_init(d->node);
            /* Registrations a dead process of this node left in the table
             * (it outlives processes) would let its peers' late writes
             * into memory that is ours now: off, and forgotten. */
            int stale = dn_mr_reset(d->node, 5000);
            if (stale < 0) {
                FI_WARN(&dnf_prov, FI_LOG_DOMAIN, "registrations left by an earlier "
                        "process: %s\n", dn_strerror(stale));
            } else if (stale) {
                FI_INFO(&dnf_prov, FI_LOG_DOMAIN, "%d registrations left by an earlier "
                        "process turned off\n", stale);
            }
        }
    }
    if (rc == DN_OK) {
        d->node = clock_node;
        node_refs++;
    }
    pthread_mutex_unlock(&node_lock);
    if (rc != DN_OK) {
        free(d);
        return -FI_ENODEV;
    }
    d->nodes = nodes ? (unsigned)strtoul(nodes, NULL, 10) : 1;
    /* Peers: every port of every board that messages reach (nodes below
     * 64 / K^2); with one port every node, as before ports. */
    unsigned port = dn_port(d->node, &d->ports);
    d->peers = (d->nodes < dn1_msg_nodes(d->ports) ? d->nodes : dn1_msg_nodes(d->ports)) *
               d->ports;
    d->self = dn_node_id(d->node) * d->ports + port;
    if (d->ports > 1) {
        snprintf(d->port_name, sizeof(d->port_name), " port %u", port);
    }
    if (d->self >= d->peers) {
        FI_WARN(&dnf_prov, FI_LOG_DOMAIN, "node %u port %u of %u: no peer of a run of %u "
                "boards (messages reach %u boards with %u ports)\n", dn_node_id(d->node), port,
                d->ports, d->nodes, dn1_msg_nodes(d->ports), d->ports);
    }
    uint32_t timing = 0;
    d->modeled = dn_reg_read(d->node, DN1_REG_TIMING, &timing) == DN_OK &&
                 (timing & DN1_TIMING_SYNC);
    if ((rc = dnf_charges_init(d, (timing & DN1_TIMING_HOST_SYNC) != 0)) != 0) {
        pthread_mutex_lock(&node_lock);
        if (!--node_refs) {
            dn_close(clock_node);
            clock_node = NULL;
        }
        pthread_mutex_unlock(&node_lock);
        free(d);
        return rc;
    }
    d->mr_mode = DNF_MR_MODES;
    if (info && info->domain_attr) {
        int mode = info->domain_attr->mr_mode;
        d->mr_mode = mode == FI_MR_BASIC ? DNF_MR_MODES
                   : mode == FI_MR_SCALABLE ? 0 : (uint64_t)mode & DNF_MR_MODES;
    }
    d->rma_event = info && (info->caps & FI_RMA_EVENT) != 0;
    d->coll = info && (info->caps & FI_COLLECTIVE) != 0;
    atomic_init(&d->mr_refs, 0);
    d->fab = container_of(fabric, struct dnf_fabric, fab);
    atomic_fetch_add(&d->fab->refs, 1);
    d->dom.fid.fclass = FI_CLASS_DOMAIN;
    d->dom.fid.context = context;
    d->dom.fid.ops = &domain_fi_ops;
    d->dom.ops = &domain_ops;
    d->dom.mr = &dnf_mr_ops;
    *dom = &d->dom;
    return 0;
}
