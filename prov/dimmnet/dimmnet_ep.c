/*
 * The endpoint: FI_EP_RDM, one per domain. Bound to an AV and to one or
 * two CQs (FI_TRANSMIT, FI_RECV), optionally to an EQ (else its domain's)
 * for critical errors; fi_enable posts its receives in the shim. Its name
 * is the process's address, node | port << 12 (struct dnf_addr). RMA (dimmnet_rma.c), atomics
 * (dimmnet_atomic.c) and counters (dimmnet_cntr.c); collectives
 * (dimmnet_fcoll.c) with FI_COLLECTIVE in its caps, else that table answers
 * with errors (dimmnet_nosys.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dimmnet.h"

static int ep_close(struct fid *fid)
{
    struct dnf_ep *ep = container_of(fid, struct dnf_ep, ep.fid);
    int stats = 0;

    dnf_enter();
    if (dnf_coll_ep_busy(ep)) {
        return -FI_EBUSY;         /* a collective group (fid_mc) is open on it */
    }
    dnf_coll_ep_free(ep);         /* before the drain: its receives still posted */
    dnf_ep_drain(ep);
    fi_param_get_bool(&dnf_prov, "stats", &stats);
    if (stats) {
        const struct dnf_ep_stats *s = &ep->stats;

        fprintf(stderr, "dimmnet: node %u%s: sender-matching=%s advertised=%llu taken=%llu "
                "ignored=%llu withdrawn=%llu direct=%llu rendezvous=%llu "
                "mailbox-rewrites=%llu mailbox-full=%llu landed=%llu zones=%llu "
                "landing-rewrites=%llu inject-errors=%llu rma=%llu rma-resends=%llu "
                "rma-refused=%llu zcopy-sent=%llu zcopy-received=%llu "
                "rma-packets-resent=%llu zcopy-rdma=%llu eager-long=%llu "
                "rma-not-resident=%llu paged-in=%llu paged-out=%llu\n",
                dn_node_id(ep->dom->node), ep->dom->port_name,
                ep->sender_matching ? "on" : "off",
                (unsigned long long)s->advertised, (unsigned long long)s->taken,
                (unsigned long long)s->ignored, (unsigned long long)s->withdrawn,
                (unsigned long long)s->direct, (unsigned long long)s->rendezvous,
                (unsigned long long)s->mbox_rewrites, (unsigned long long)s->mbox_full,
                (unsigned long long)s->landed, (unsigned long long)s->zone_landed,
                (unsigned long long)s->land_rewrites,
                (unsigned long long)s->inject_errors, (unsigned long long)s->rma_ops,
                (unsigned long long)s->rma_resends, (unsigned long long)s->rma_refused,
                (unsigned long long)s->zcopy_sent, (unsigned long long)s->zcopy_recv,
                (unsigned long long)s->rma_packets_resent,
                (unsigned long long)s->zcopy_rdma, (unsigned long long)s->eager_long,
                (unsigned long long)s->rma_not_resident, (unsigned long long)dnf_mr_paged_in,
                (unsigned long long)dnf_mr_paged_out);
    }
    dnf_cntr_unbind(ep);
    if (ep->av) {
        ep->av->refs--;
    }
    if (ep->tx_cq) {
        ep->tx_cq->refs--;
    }
    if (ep->rx_cq) {
        ep->rx_cq->refs--;
    }
    if (ep->eq) {
        atomic_fetch_sub(&ep->eq->refs, 1);
    }
    ep->dom->ep = NULL;
    dnf_domain_give_ep(ep);
    ep->dom->refs--;
    free(ep->bounce);
    free(ep);
    return 0;
}

/* A CQ for one direction; binding it again replaces the old one. */
static void bind_cq(struct dnf_cq **slot, struct dnf_cq *cq)
{
    if (*slot) {
        (*slot)->refs--;
    }
    *slot = cq;
    cq->refs++;
}

static int ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
    struct dnf_ep *ep = container_of(fid, struct dnf_ep, ep.fid);

    dnf_enter();
    if (ep->enabled) {
        return -FI_EINVAL;
    }
    switch (bfid->fclass) {
    case FI_CLASS_AV:
        if (ep->av) {
            return -FI_EINVAL;
        }
        ep->av = container_of(bfid, struct dnf_av, av.fid);
        ep->av->refs++;
        return 0;
    case FI_CLASS_CQ:
        if (flags & ~(FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)) {
            return -FI_EBADFLAGS;
        }
        if (flags & FI_TRANSMIT) {
            bind_cq(&ep->tx_cq, container_of(bfid, struct dnf_cq, cq.fid));
            ep->tx_selective = (flags & FI_SELECTIVE_COMPLETION) != 0;
        }
        if (flags & FI_RECV) {
            bind_cq(&ep->rx_cq, container_of(bfid, struct dnf_cq, cq.fid));
            ep->rx_selective = (flags & FI_SELECTIVE_COMPLETION) != 0;
        }
        return 0;
    case FI_CLASS_EQ:
        if (flags) {
            return -FI_EBADFLAGS;
        }
        if (ep->eq) {
            return -FI_EINVAL;
        }
        ep->eq = container_of(bfid, struct dnf_eq, eq.fid);
        atomic_fetch_add(&ep->eq->refs, 1);
        return 0;
    case FI_CLASS_CNTR:
        return dnf_cntr_bind(ep, container_of(bfid, struct dnf_cntr, cntr.fid), flags);
    case FI_CLASS_STX_CTX:
    case FI_CLASS_SRX_CTX:
        return -FI_ENOSYS;        /* never handed out */
    default:
        return -FI_EINVAL;
    }
}

/*
 * A critical error (fi_endpoint(3)): the node's own board went away (its
 * host bus closed, DN_EIO), which an operation learns when it next uses
 * the host bus (the NIC's memory is read without it). Called with the
 * status of every operation that failed; DN_EIO is reported once, as an
 * error entry on the endpoint's EQ or else its domain's (fid: the
 * endpoint); the operations complete with FI_EIO from then on. Without an
 * EQ only the log says it.
 */
void dnf_ep_fatal(struct dnf_ep *ep, int dn_status)
{
    struct dnf_eq *eq = ep->eq ? ep->eq : ep->dom->eq;
    struct fi_eq_err_entry e = {
        .fid = &ep->ep.fid, .context = ep->ep.fid.context,
        .err = dnf_errno(dn_status), .prov_errno = dn_status,
    };

    if (dn_status != DN_EIO || ep->fatal) {
        return;
    }
    ep->fatal = 1;
    FI_WARN(&dnf_prov, FI_LOG_EP_CTRL, "node %u: %s\n", dn_node_id(ep->dom->node),
            dn_strerror(dn_status));
    if (eq) {
        dnf_eq_report(eq, FI_NOTIFY, &e, sizeof(e), 1);
    }
}

static int ep_control(struct fid *fid, int command, void *arg)
{
    struct dnf_ep *ep = container_of(fid, struct dnf_ep, ep.fid);
    int rc;

    dnf_enter();
    (void)arg;
    if (command != FI_ENABLE) {
        return -FI_ENOSYS;
    }
    if (!ep->av) {
        return -FI_ENOAV;
    }
    if (!ep->tx_cq || (ep->messaging && !ep->rx_cq)) {
        return -FI_ENOCQ;
    }
    if (ep->enabled) {
        return 0;
    }
    if (!ep->messaging) {
        ep->enabled = 1;          /* RMA and atomics: nothing to post */
        return 0;
    }
    rc = dnf_emx_enable(ep);
    if (!rc) {
        rc = dnf_post_bounces(ep);
    }
    if (rc) {
        return rc;
    }
    ep->enabled = 1;
    return 0;
}

static struct fi_ops ep_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = ep_close,
    .bind = ep_bind,
    .control = ep_control,
    .ops_open = dnf_no_ops_open,
    .tostr = dnf_no_tostr,
    .ops_set = dnf_no_ops_set,
};

static ssize_t ep_cancel(fid_t fid, void *context)
{
    struct dnf_ep *ep = container_of(fid, struct dnf_ep, ep.fid);

    dnf_enter();
    /* A posted receive that has not matched yet can go. */
    for (struct dnf_rx **p = &ep->rx_head; *p; p = &(*p)->next) {
        struct dnf_rx *r = *p;

        if (r->context == context) {
            struct dnf_comp c = { .err = FI_ECANCELED };

            if (r->adv != DNF_ADV_NONE) {
                return -FI_EBUSY;  /* its sender may be writing it (dimmnet_emx.c) */
            }
            c.e.op_context = context;
            c.e.flags = FI_RECV | (r->flags & DNF_F_TAGGED ? FI_TAGGED : FI_MSG);
            c.e.buf = r->buf;
            c.e.tag = r->tag;
            c.src = FI_ADDR_NOTAVAIL;
            *p = r->next;
            if (!*p) {
                ep->rx_tail = p;
            }
            if (r->multi && r->mkids) {
                r->mdone = 1;      /* its last message's completion releases it */
            } else {
                c.e.flags |= r->multi ? FI_MULTI_RECV : 0;
                free(r);
            }
            dnf_cq_push(ep->rx_cq, &c);
            return 0;
        }
    }
    return -FI_ENOENT;
}

/* FI_OPT_MIN_MULTI_RECV: a multi-receive buffer with fewer bytes left is
 * released. The other options are not offered. */
static int ep_getopt(fid_t fid, int level, int optname, void *optval, size_t *optlen)
{
    struct dnf_ep *ep = container_of(fid, struct dnf_ep, ep.fid);

    dnf_enter();
    if (level != FI_OPT_ENDPOINT || optname != FI_OPT_MIN_MULTI_RECV) {
        return -FI_ENOPROTOOPT;
    }
    if (!optval || !optlen || *optlen < sizeof(size_t)) {
        return -FI_ETOOSMALL;
    }
    memcpy(optval, &ep->min_multi_recv, sizeof(size_t));
    *optlen = sizeof(size_t);
    return 0;
}

static int ep_setopt(fid_t fid, int level, int optname, const void *optval, size_t optlen)
{
    struct dnf_ep *ep = container_of(fid, struct dnf_ep, ep.fid);

    dnf_enter();
    if (level != FI_OPT_ENDPOINT || optname != FI_OPT_MIN_MULTI_RECV) {
        return -FI_ENOPROTOOPT;
    }
    if (!optval || optlen != sizeof(size_t)) {
        return -FI_EINVAL;
    }
    memcpy(&ep->min_multi_recv, optval, sizeof(size_t));
    return 0;
}

static int ep_no_ctx(struct fid_ep *sep, int index, void *attr, struct fid_ep **ep,
                     void *context)
{
    (void)sep; (void)index; (void)attr; (void)ep; (void)context;
    return -FI_ENOSYS;            /* not a scalable endpoint */
}

static int ep_tx_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
                     struct fid_ep **ep, void *context)
{
    return ep_no_ctx(sep, index, attr, ep, context);
}

static int ep_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
                     struct fid_ep **ep, void *context)
{
    return ep_no_ctx(sep, index, attr, ep, context);
}

static ssize_t ep_rx_size_left(struct fid_ep *fep)
{
    (void)fep;
    return -FI_ENOSYS;            /* deprecated in 1.17 */
}

static struct fi_ops_ep ep_ops = {
    .size = sizeof(struct fi_ops_ep),
    .cancel = ep_cancel,
    .getopt = ep_getopt,
    .setopt = ep_setopt,
    .tx_ctx = ep_tx_ctx,
    .rx_ctx = ep_rx_ctx,
    .rx_size_left = ep_rx_size_left,
    .tx_size_left = ep_rx_size_left,
};

static int ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
    struct dnf_ep *ep = container_of(fid, struct dnf_ep, ep.fid);
    struct dnf_addr a = { DNF_ADDR_MAGIC, dnf_peer_addr(ep->dom, ep->dom->self) };
    size_t room = *addrlen;

    *addrlen = sizeof(a);
    if (room < sizeof(a)) {
        return -FI_ETOOSMALL;
    }
    memcpy(addr, &a, sizeof(a));
    return 0;
}

/* Connection management has no meaning on FI_EP_RDM: all -FI_ENOSYS. */
static int cm_setname(fid_t fid, void *addr, size_t addrlen)
{
    (void)fid; (void)addr; (void)addrlen;
    return -FI_ENOSYS;
}

static int cm_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
    (void)ep; (void)addr; (void)addrlen;
    return -FI_ENOSYS;
}

static int cm_connect(struct fid_ep *ep, const void *addr, const void *param,
                      size_t paramlen)
{
    (void)ep; (void)addr; (void)param; (void)paramlen;
    return -FI_ENOSYS;
}

static int cm_listen(struct fid_pep *pep)
{
    (void)pep;
    return -FI_ENOSYS;
}

static int cm_accept(struct fid_ep *ep, const void *param, size_t paramlen)
{
    (void)ep; (void)param; (void)paramlen;
    return -FI_ENOSYS;
}

static int cm_reject(struct fid_pep *pep, fid_t handle, const void *param,
                     size_t paramlen)
{
    (void)pep; (void)handle; (void)param; (void)paramlen;
    return -FI_ENOSYS;
}

static int cm_shutdown(struct fid_ep *ep, uint64_t flags)
{
    (void)ep; (void)flags;
    return -FI_ENOSYS;
}

/* fi_join_collective (FI_COLLECTIVE in the flags); no multicast groups. */
static int cm_join(struct fid_ep *ep, const void *addr, uint64_t flags,
                   struct fid_mc **mc, void *context)
{
    if (flags & FI_COLLECTIVE) {
        return dnf_coll_join(container_of(ep, struct dnf_ep, ep), addr, flags, mc, context);
    }
    return -FI_ENOSYS;
}

static struct fi_ops_cm ep_cm_ops = {
    .size = sizeof(struct fi_ops_cm),
    .setname = cm_setname,
    .getname = ep_getname,
    .getpeer = cm_getpeer,
    .connect = cm_connect,
    .listen = cm_listen,
    .accept = cm_accept,
    .reject = cm_reject,
    .shutdown = cm_shutdown,
    .join = cm_join,
};

int dnf_endpoint(struct fid_domain *domain, struct fi_info *info,
                 struct fid_ep **out, void *context)
{
    struct dnf_domain *d = container_of(domain, struct dnf_domain, dom);
    struct dnf_ep *ep;

    dnf_enter();
    if (info && info->ep_attr && info->ep_attr->type != FI_EP_RDM &&
        info->ep_attr->type != FI_EP_UNSPEC) {
        return -FI_EINVAL;
    }
    ep = calloc(1, sizeof(*ep));
    if (!ep) {
        return -FI_ENOMEM;
    }
    ep->bounce = calloc(DNF_BOUNCES, sizeof(*ep->bounce));
    if (!ep->bounce) {
        free(ep);
        return -FI_ENOMEM;
    }
    /* Messages (the port's conversation) if its caps name them, or none
     * are named; else RMA and atomics only. */
    uint64_t caps = info ? info->caps | (info->tx_attr ? info->tx_attr->caps : 0) |
                               (info->rx_attr ? info->rx_attr->caps : 0) : 0;
    ep->coll = (caps & FI_COLLECTIVE) != 0;
    /* A collective endpoint's joins are messages of the port's conversation. */
    ep->messaging = !info || !info->caps || (info->caps & (FI_MSG | FI_TAGGED)) || ep->coll;
    if (d->ep || dnf_domain_take_ep(ep)) {
        free(ep->bounce);
        free(ep);
        return -FI_EBUSY;         /* one a domain; one message endpoint a process */
    }
    ep->dom = d;
    ep->sender_matching = 1;
    fi_param_get_bool(&dnf_prov, "sender_matching", &ep->sender_matching);
    ep->landing = 1;
    fi_param_get_bool(&dnf_prov, "landing", &ep->landing);
    ep->zcopy = 1;
    fi_param_get_bool(&dnf_prov, "zcopy", &ep->zcopy);
    ep->tx_op_flags = info && info->tx_attr ? info->tx_attr->op_flags : 0;
    ep->rx_op_flags = info && info->rx_attr ? info->rx_attr->op_flags : 0;
    ep->directed = !info || !info->caps || (info->caps & FI_DIRECTED_RECV);
    ep->min_multi_recv = DNF_MIN_MULTI_RECV;
    ep->rx_tail = &ep->rx_head;
    ep->ux_tail = &ep->ux_head;
    ep->tx_tail = &ep->tx_head;
    ep->rma_tail = &ep->rma_head;
    ep->atomic_tail = &ep->atomic_head;
    ep->ep.fid.fclass = FI_CLASS_EP;
    ep->ep.fid.context = context;
    ep->ep.fid.ops = &ep_fi_ops;
    ep->ep.ops = &ep_ops;
    ep->ep.cm = &ep_cm_ops;
    ep->ep.msg = &dnf_msg_ops;
    ep->ep.tagged = &dnf_tagged_ops;
    ep->ep.rma = &dnf_rma_ops;
    ep->ep.atomic = &dnf_atomic_ops;
    ep->ep.collective = ep->coll ? &dnf_coll_ops : &dnf_no_collective_ops;
    d->ep = ep;
    d->refs++;
    *out = &ep->ep;
    return 0;
}
