/*
 * Address vectors of both kinds. An address is a struct dnf_addr (magic,
 * the process's address node | port << 12); what is kept is its peer
 * number (dimmnet.h, "Host ports"): node * K + port, the node id with one
 * port. FI_AV_MAP: the fi_addr_t is the peer number itself; FI_AV_TABLE:
 * the index of the insertion. Opened with FI_EVENT, an AV inserts
 * asynchronously as fi_av(3) says: the call returns 0 and the EQ bound to
 * the AV gets an error entry per address that failed (data: its index),
 * then one FI_AV_COMPLETE (data: how many went in). Resolving a name takes
 * nothing here, so the events are queued before the call returns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dimmnet.h"

static int av_close(struct fid *fid)
{
    struct dnf_av *av = container_of(fid, struct dnf_av, av.fid);

    dnf_enter();
    if (av->refs) {
        return -FI_EBUSY;        /* an endpoint still uses it (fi_av(3)) */
    }
    if (av->eq) {
        atomic_fetch_sub(&av->eq->refs, 1);
    }
    av->dom->refs--;
    free(av->node);
    free(av->in);
    free(av);
    return 0;
}

static int av_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
    struct dnf_av *av = container_of(fid, struct dnf_av, av.fid);

    dnf_enter();
    if (!bfid || bfid->fclass != FI_CLASS_EQ) {
        return -FI_EINVAL;
    }
    if (flags) {
        return -FI_EBADFLAGS;    /* reserved, must be 0 */
    }
    if (av->eq) {
        return -FI_EINVAL;
    }
    av->eq = container_of(bfid, struct dnf_eq, eq.fid);
    atomic_fetch_add(&av->eq->refs, 1);
    return 0;
}

static struct fi_ops av_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = av_close,
    .bind = av_bind,
    .control = dnf_no_control,
    .ops_open = dnf_no_ops_open,
    .tostr = dnf_no_tostr,
    .ops_set = dnf_no_ops_set,
};

int dnf_av_node(struct dnf_av *av, fi_addr_t addr, uint32_t *node)
{
    if (av->type == FI_AV_MAP) {
        if (addr >= av->dom->peers || !av->in[addr]) {
            return -FI_EINVAL;
        }
        *node = (uint32_t)addr;
        return 0;
    }
    if (addr >= av->count || av->node[addr] == UINT32_MAX) {
        return -FI_EINVAL;
    }
    *node = av->node[addr];
    return 0;
}

fi_addr_t dnf_av_addr(struct dnf_av *av, uint32_t node)
{
    if (av->type == FI_AV_MAP) {
        return node < av->dom->peers && av->in[node] ? node : FI_ADDR_NOTAVAIL;
    }
    for (size_t i = 0; i < av->count; i++) {
        if (av->node[i] == node) {
            return i;
        }
    }
    return FI_ADDR_NOTAVAIL;
}

/* One address in: its fi_addr_t, or an FI_E* status. An address that is
 * no peer of the run (a port the boards lack, a node messages cannot
 * reach or beyond DIMMNET_NODES) is refused. */
static int av_insert_one(struct dnf_av *av, const struct dnf_addr *a, fi_addr_t *out)
{
    int e = a->magic == DNF_ADDR_MAGIC ? dnf_peer_of(av->dom, a->node) : -1;

    if (e < 0) {
        return FI_EINVAL;
    }
    if (av->type == FI_AV_MAP) {
        av->in[e] = 1;
        *out = (fi_addr_t)e;
        return 0;
    }
    if (av->count == av->cap) {
        size_t cap = av->cap ? 2 * av->cap : 64;
        uint32_t *n = realloc(av->node, cap * sizeof(*n));

        if (!n) {
            return FI_ENOMEM;
        }
        av->node = n;
        av->cap = cap;
    }
    av->node[av->count] = (uint32_t)e;
    *out = av->count++;
    return 0;
}

static int av_insert(struct fid_av *fav, const void *addr, size_t count,
                     fi_addr_t *fi_addr, uint64_t flags, void *context)
{
    struct dnf_av *av = container_of(fav, struct dnf_av, av);
    const struct dnf_addr *a = addr;
    int done = 0;

    dnf_enter();
    /* FI_MORE is a hint (ignored); FI_SYNC_ERR: context is an int per
     * address, for synchronous insertions only; FI_AV_USER_ID not offered. */
    if (flags & ~(uint64_t)(FI_MORE | FI_SYNC_ERR)) {
        return -FI_EBADFLAGS;
    }
    if ((!addr && count) || ((flags & FI_SYNC_ERR) && (av->async || (count && !context)))) {
        return -FI_EINVAL;
    }
    if (av->async && !av->eq) {
        return -FI_ENOEQ;
    }
    for (size_t i = 0; i < count; i++) {
        fi_addr_t out = FI_ADDR_NOTAVAIL;
        int err = av_insert_one(av, &a[i], &out);

        if (fi_addr) {
            fi_addr[i] = out;
        }
        if (flags & FI_SYNC_ERR) {
            ((int *)context)[i] = err;
        }
        if (!err) {
            done++;
        } else if (av->async) {
            struct fi_eq_err_entry e = {
                .fid = &av->av.fid, .context = context, .data = i,
                .err = err, .prov_errno = err == FI_ENOMEM ? DN_ENOMEM : DN_EINVAL,
            };

            dnf_eq_report(av->eq, FI_AV_COMPLETE, &e, sizeof(e), 1);
        }
    }
    if (av->async) {
        struct fi_eq_entry e = { .fid = &av->av.fid, .context = context, .data = done };

        /* A full EQ is overrun by this, and says so to its reader. */
        dnf_eq_report(av->eq, FI_AV_COMPLETE, &e, sizeof(e), 0);
        return 0;
    }
    return done;
}

static int av_remove(struct fid_av *fav, fi_addr_t *fi_addr, size_t count,
                     uint64_t flags)
{
    struct dnf_av *av = container_of(fav, struct dnf_av, av);
    uint32_t node;

    dnf_enter();
    if (flags) {
        return -FI_EINVAL;
    }
    for (size_t i = 0; i < count; i++) {
        if (dnf_av_node(av, fi_addr[i], &node)) {
            return -FI_EINVAL;
        }
        if (av->type == FI_AV_MAP) {
            av->in[node] = 0;
        } else {
            av->node[fi_addr[i]] = UINT32_MAX;
        }
    }
    return 0;
}

static int av_lookup(struct fid_av *fav, fi_addr_t fi_addr, void *addr,
                     size_t *addrlen)
{
    struct dnf_av *av = container_of(fav, struct dnf_av, av);
    struct dnf_addr a = { DNF_ADDR_MAGIC, 0 };
    size_t len = *addrlen;
    uint32_t e;

    dnf_enter();
    if (dnf_av_node(av, fi_addr, &e)) {
        return -FI_EINVAL;
    }
    a.node = dnf_peer_addr(av->dom, e);
    memcpy(addr, &a, len < sizeof(a) ? len : sizeof(a));
    *addrlen = sizeof(a);
    return 0;
}

static const char *av_straddr(struct fid_av *fav, const void *addr, char *buf,
                              size_t *len)
{
    const struct dnf_addr *a = addr;
    char s[32];

    /* A port above 0 as N.P (what fi_getinfo's node takes). */
    (void)fav;
    if (a->magic == DNF_ADDR_MAGIC && a->node >> DN1_MSG_PORT_SHIFT) {
        snprintf(s, sizeof(s), "dimmnet://%u.%u", a->node & ((1u << DN1_MSG_PORT_SHIFT) - 1),
                 a->node >> DN1_MSG_PORT_SHIFT);
    } else {
        snprintf(s, sizeof(s), "dimmnet://%u", a->magic == DNF_ADDR_MAGIC ? a->node : ~0u);
    }
    if (*len) {
        snprintf(buf, *len, "%s", s);
    }
    *len = strlen(s) + 1;
    return buf;
}

static struct fi_ops_av av_ops = {
    .size = sizeof(struct fi_ops_av),
    .insert = av_insert,
    .insertsvc = dnf_no_av_insertsvc,
    .insertsym = dnf_no_av_insertsym,
    .remove = av_remove,
    .lookup = av_lookup,
    .straddr = av_straddr,
    .av_set = dnf_av_set,          /* with FI_COLLECTIVE (dimmnet_fcoll.c) */
};

int dnf_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
                struct fid_av **out, void *context)
{
    struct dnf_domain *d = container_of(domain, struct dnf_domain, dom);
    struct dnf_av *av;

    /* FI_SYMMETRIC is a hint; FI_READ needs a named AV. */
    if (!attr || (attr->flags & ~(uint64_t)(FI_EVENT | FI_SYMMETRIC)) ||
        attr->rx_ctx_bits || attr->name) {
        return -FI_ENOSYS;    /* no named or shared AVs, no scalable EPs */
    }
    av = calloc(1, sizeof(*av));
    if (!av) {
        return -FI_ENOMEM;
    }
    av->dom = d;
    av->async = (attr->flags & FI_EVENT) != 0;
    av->type = attr->type == FI_AV_UNSPEC ? FI_AV_MAP : attr->type;
    if (av->type != FI_AV_MAP && av->type != FI_AV_TABLE) {
        free(av);
        return -FI_EINVAL;
    }
    av->in = calloc(d->peers ? d->peers : 1, 1);
    if (!av->in) {
        free(av);
        return -FI_ENOMEM;
    }
    av->av.fid.fclass = FI_CLASS_AV;
    av->av.fid.context = context;
    av->av.fid.ops = &av_fi_ops;
    av->av.ops = &av_ops;
    dnf_domain_ref(d);     /* other threads may open and close too */
    *out = &av->av;
    return 0;
}
