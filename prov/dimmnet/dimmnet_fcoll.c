/*
 * FI_COLLECTIVE (issue 37 item 4): libfabric's collective interface
 * (fi_collective(3), fi_av_set(3)) over the shim's collectives (dn_coll_*,
 * docs/collectives.md), as MPICH's ch4/ofi uses it: an AV set per
 * communicator, fi_join_collective on the endpoint, then fi_barrier,
 * fi_broadcast, fi_allreduce, ... on the group's address
 * (docs/libfabric.md, "Collectives").
 *
 * Only an endpoint (and a domain, for its AVs and fi_query_collective)
 * opened with FI_COLLECTIVE in its caps has any of it; the others keep the
 * refusals of dimmnet_nosys.c.
 *
 * AV sets are ordered lists of the AV's fi_addr_t; a member's rank in the
 * group is its place in the set, so every member must build the same list
 * (fi_av_set(3): "each peer is responsible for creating matching AV sets").
 *
 * The join (fi_join_collective) agrees on what dn_coll_comm_create_joined
 * needs: each member's area slot and rank 0's nonce. Each member reserves a
 * slot (dn_coll_join_prepare) and sends its record to rank 0 in a JOIN
 * message (a provider message kind, dimmnet.h: handled before any matching,
 * so it never meets an application receive); rank 0, once it holds every
 * record, sends the table to every member; each then creates the
 * communicator. It is non-blocking: fi_join_collective returns at once and
 * the exchange moves with the endpoint's progress (CQ and counter reads, the
 * data calls, and reads of the EQ the join reports to); FI_JOIN_COMPLETE
 * (or an error entry) comes on the endpoint's EQ, or its domain's. Joins of
 * one member list are told apart by a count every member keeps alike (the
 * n-th join of a list is the same join everywhere), so several may be in
 * flight, and records that come before this process joined are kept until
 * it does. A member without a free slot still takes part: its record says
 * so, and every member then fails the join with FI_ENOSPC, giving its slot
 * back.
 *
 * Collectives start the shim's non-blocking form at once; the endpoint's
 * progress tests them and writes the completion (flags FI_COLLECTIVE) on
 * its transmit CQ and bumps its FI_SEND counter. A group with nothing in
 * flight still gives the engine a turn every DNF_COLL_IDLE_EVERY progress
 * calls: a peer that lost a frame asks this process to write it again.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dimmnet.h"

#define DNF_COLL_OPS_MAX    256u   /* collectives in flight an endpoint (tx_attr->size) */
#define DNF_COLL_IDLE_EVERY 64u    /* progress calls between idle engine turns */
#define DNF_COLL_STASH_MAX  1024u  /* JOIN messages kept for joins not made here yet */

enum { MC_JOINING, MC_READY, MC_FAILED };
enum { JOIN_REC = 0, JOIN_TABLE = 1 };

struct dnf_av_set {
    struct fid_av_set set;
    struct dnf_av *av;
    fi_addr_t *addr;
    size_t count, cap;
};

/* One JOIN message until the shim is done with it. */
struct jsend {
    struct jsend *next;
    uint32_t node;               /* the peer it goes to */
    int posted;                  /* 0: the shim's queue was full, post again */
    dn_msg_req *req;
    size_t len;
    struct {
        struct dnf_hdr h;
        struct dn_coll_join recs[DN_COLL_MAX_MEMBERS];
    } m;
};

/* A collective group (fid_mc): the join, then the engine's communicator. */
struct dnf_mc {
    struct fid_mc mc;            /* fi_addr: the group's coll_addr (this struct) */
    struct dnf_mc *next;
    struct dnf_ep *ep;
    struct dnf_eq *eq;           /* where the join reports */
    int state;
    unsigned n, rank;
    uint32_t peer[DN_COLL_MAX_MEMBERS];    /* peer numbers by rank */
    uint16_t addr[DN_COLL_MAX_MEMBERS];    /* their addresses (node | port << 12) */
    uint64_t key;                /* the member list's */
    uint32_t seq;                /* this join's number for that list */
    struct dn_coll_join mine, recs[DN_COLL_MAX_MEMBERS];
    uint64_t have;               /* records in, by rank */
    int reserved;                /* mine.slot is ours until created or given back */
    int table;                   /* rank 0: the table is sent; others: it came */
    struct jsend *sends;
    int64_t deadline_ms;
    dn_coll_comm *comm;
    unsigned ops;                /* collectives in flight on it */
};

/* A collective in flight. */
struct cop {
    struct cop *next;
    struct dnf_mc *mc;
    dn_coll_req *req;
    void *context;
    int complete;                /* a completion on success (errors always) */
    void *tmp;                   /* the input, copied: it overlapped the result */
};

/* A JOIN message for a join this process has not made yet. */
struct stash {
    struct stash *next;
    uint32_t node;
    struct dnf_hdr h;
    size_t plen;
    uint8_t data[];
};

struct keyseq {
    uint64_t key;
    uint32_t next;               /* joins of this member list made here */
};

struct dnf_ep_coll {
    struct dnf_mc *mcs;
    struct cop *ops;
    unsigned nops;
    unsigned joining;            /* joins in flight */
    unsigned idle;
    struct stash *stash;
    unsigned nstash;
    struct jsend *orphans;       /* sends of joins given up, until the shim is done */
    struct keyseq *keys;
    size_t nkeys, capkeys;
};

/* Endpoints with collective state: an EQ read progresses those with joins. */
static struct dnf_ep *coll_eps[DNF_EPS];

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t all_ranks(unsigned n)
{
    return n >= 64 ? ~0ull : (1ull << n) - 1;
}

static struct dnf_ep_coll *coll_state(struct dnf_ep *ep)
{
    if (!ep->cl) {
        ep->cl = calloc(1, sizeof(*ep->cl));
        for (unsigned i = 0; ep->cl && i < DNF_EPS; i++) {
            if (!coll_eps[i]) {
                coll_eps[i] = ep;
                break;
            }
        }
    }
    return ep->cl;
}

/* ---- types and operations ---------------------------------------------- */

/* Bytes of an element of @dt; 0 for FI_VOID and what we do not know. */
static size_t fi_type_size(enum fi_datatype dt)
{
    switch ((int)dt) {
    case FI_INT8: case FI_UINT8: return 1;
    case FI_INT16: case FI_UINT16: return 2;
    case FI_INT32: case FI_UINT32: case FI_FLOAT: return 4;
    case FI_INT64: case FI_UINT64: case FI_DOUBLE: case FI_FLOAT_COMPLEX: return 8;
    case FI_DOUBLE_COMPLEX: return 16;
    case FI_LONG_DOUBLE: return sizeof(long double);
    case FI_LONG_DOUBLE_COMPLEX: return 2 * sizeof(long double);
    case FI_INT128: case FI_UINT128: return 16;
    default: return 0;
    }
}

/* The engine's type for a reduction, or -1. */
static int red_type(enum fi_datatype dt)
{
    switch ((int)dt) {
    case FI_INT32: return DN_COLL_INT32;
    case FI_INT64: return DN_COLL_INT64;
    case FI_UINT64: return DN_COLL_UINT64;
    case FI_FLOAT: return DN_COLL_FLOAT;
    case FI_DOUBLE: return DN_COLL_DOUBLE;
    default: return -1;
    }
}

/* The engine's op for @op on @type (red_type's), or -1: the bitwise ones
 * on integers only, as the shim has them. */
static int red_op(int type, enum fi_op op)
{
    int integer = type == DN_COLL_INT32 || type == DN_COLL_INT64 || type == DN_COLL_UINT64;

    switch ((int)op) {
    case FI_SUM: return DN_COLL_SUM;
    case FI_PROD: return DN_COLL_PROD;
    case FI_MIN: return DN_COLL_MIN;
    case FI_MAX: return DN_COLL_MAX;
    case FI_BAND: return integer ? DN_COLL_BAND : -1;
    case FI_BOR: return integer ? DN_COLL_BOR : -1;
    case FI_BXOR: return integer ? DN_COLL_BXOR : -1;
    default: return -1;
    }
}

int dnf_query_collective(struct fid_domain *domain, enum fi_collective_op coll,
                         struct fi_collective_attr *attr, uint64_t flags)
{
    struct dnf_domain *d = container_of(domain, struct dnf_domain, dom);
    size_t size = 0;

    (void)flags;
    if (!d->coll) {
        /* The domain was not opened with FI_COLLECTIVE. */
        return dnf_no_query_collective(domain, coll, attr, flags);
    }
    if (!attr || attr->mode) {
        return -FI_EINVAL;
    }
    switch ((int)coll) {
    case FI_BARRIER:
        break;                   /* no data: op and datatype say nothing */
    case FI_BROADCAST:
    case FI_ALLGATHER:
    case FI_ALLTOALL:
        /* Data movement: any datatype with a size, no operation. */
        size = fi_type_size(attr->datatype);
        if (attr->op != FI_NOOP || !size) {
            return -FI_EOPNOTSUPP;
        }
        break;
    case FI_ALLREDUCE:
    case FI_REDUCE:
    case FI_REDUCE_SCATTER: {
        int t = red_type(attr->datatype);

        if (t < 0 || red_op(t, attr->op) < 0) {
            return -FI_EOPNOTSUPP;
        }
        size = dn_coll_type_size((enum dn_coll_type)t);
        break;
    }
    default:
        return -FI_EOPNOTSUPP;   /* scatter, gather: not in the engine */
    }
    attr->max_members = DN_COLL_MAX_MEMBERS;
    attr->datatype_attr.size = size;
    /* The engine cuts a collective into pieces: the bound is its range check. */
    attr->datatype_attr.count = size ? (SIZE_MAX / 2) / (size * DN_COLL_MAX_MEMBERS) : 0;
    return 0;
}

/* ---- AV sets ----------------------------------------------------------- */

#define SET(s) container_of(s, struct dnf_av_set, set)

static int set_find(const struct dnf_av_set *s, fi_addr_t a)
{
    for (size_t i = 0; i < s->count; i++) {
        if (s->addr[i] == a) {
            return (int)i;
        }
    }
    return -1;
}

static int set_append(struct dnf_av_set *s, fi_addr_t a)
{
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        fi_addr_t *p = realloc(s->addr, cap * sizeof(*p));

        if (!p) {
            return -FI_ENOMEM;
        }
        s->addr = p;
        s->cap = cap;
    }
    s->addr[s->count++] = a;
    return 0;
}

static int set_close(struct fid *fid)
{
    struct dnf_av_set *s = container_of(fid, struct dnf_av_set, set.fid);

    dnf_enter();
    s->av->refs--;
    free(s->addr);
    free(s);
    return 0;
}

static struct fi_ops set_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = set_close,
    .bind = dnf_no_bind,
    .control = dnf_no_control,
    .ops_open = dnf_no_ops_open,
    .tostr = dnf_no_tostr,
    .ops_set = dnf_no_ops_set,
};

/* Added at the end (fi_av_set(3)): one of the AV's addresses, once. */
static int set_insert(struct fid_av_set *fset, fi_addr_t a)
{
    struct dnf_av_set *s = SET(fset);
    uint32_t peer;

    dnf_enter();
    if (dnf_av_node(s->av, a, &peer) || set_find(s, a) >= 0) {
        return -FI_EINVAL;
    }
    return set_append(s, a);
}

/* The others keep their order. */
static int set_remove(struct fid_av_set *fset, fi_addr_t a)
{
    struct dnf_av_set *s = SET(fset);
    int i;

    dnf_enter();
    if ((i = set_find(s, a)) < 0) {
        return -FI_EINVAL;
    }
    memmove(&s->addr[i], &s->addr[i + 1], (s->count - (size_t)i - 1) * sizeof(*s->addr));
    s->count--;
    return 0;
}

static int set_union(struct fid_av_set *dst, const struct fid_av_set *src)
{
    struct dnf_av_set *d = SET(dst);
    const struct dnf_av_set *s = container_of(src, const struct dnf_av_set, set);

    dnf_enter();
    if (d->av != s->av) {
        return -FI_EINVAL;
    }
    for (size_t i = 0, n = s->count; i < n; i++) {
        if (set_find(d, s->addr[i]) < 0) {
            int rc = set_append(d, s->addr[i]);

            if (rc) {
                return rc;
            }
        }
    }
    return 0;
}

/* Keep (@keep) or drop the addresses of @dst that are in @src; order kept. */
static int set_filter(struct fid_av_set *dst, const struct fid_av_set *src, int keep)
{
    struct dnf_av_set *d = SET(dst);
    const struct dnf_av_set *s = container_of(src, const struct dnf_av_set, set);
    size_t k = 0;

    dnf_enter();
    if (d->av != s->av) {
        return -FI_EINVAL;
    }
    for (size_t i = 0; i < d->count; i++) {
        if ((set_find(s, d->addr[i]) >= 0) == keep) {
            d->addr[k++] = d->addr[i];
        }
    }
    d->count = k;
    return 0;
}

static int set_intersect(struct fid_av_set *dst, const struct fid_av_set *src)
{
    return set_filter(dst, src, 1);
}

static int set_diff(struct fid_av_set *dst, const struct fid_av_set *src)
{
    return set_filter(dst, src, 0);
}

/* A local address for the set, to join it with (fi_join_collective). */
static int set_addr(struct fid_av_set *fset, fi_addr_t *coll_addr)
{
    if (!coll_addr) {
        return -FI_EINVAL;
    }
    *coll_addr = (fi_addr_t)(uintptr_t)SET(fset);
    return 0;
}

static struct fi_ops_av_set set_ops = {
    .size = sizeof(struct fi_ops_av_set),
    .set_union = set_union,
    .intersect = set_intersect,
    .diff = set_diff,
    .insert = set_insert,
    .remove = set_remove,
    .addr = set_addr,
};

#define DNF_SET_FLAGS (FI_UNIVERSE | FI_BARRIER_SET | FI_BROADCAST_SET | FI_ALLTOALL_SET | \
                       FI_ALLREDUCE_SET | FI_ALLGATHER_SET | FI_REDUCE_SCATTER_SET | \
                       FI_REDUCE_SET | FI_SCATTER_SET | FI_GATHER_SET)

int dnf_av_set(struct fid_av *fav, struct fi_av_set_attr *attr, struct fid_av_set **out,
               void *context)
{
    struct dnf_av *av = container_of(fav, struct dnf_av, av);
    struct dnf_av_set *s;
    int range, rc = 0;
    uint32_t peer;

    dnf_enter();
    if (!av->dom->coll) {
        return dnf_no_av_set(fav, attr, out, context);   /* no FI_COLLECTIVE asked */
    }
    if (!attr || !out) {
        return -FI_EINVAL;
    }
    if (attr->flags & ~(uint64_t)DNF_SET_FLAGS) {
        return -FI_EBADFLAGS;
    }
    if (attr->flags & (FI_SCATTER_SET | FI_GATHER_SET)) {
        return -FI_EOPNOTSUPP;   /* collectives the engine has not */
    }
    if (attr->comm_key_size || attr->comm_key) {
        return -FI_EOPNOTSUPP;   /* no fabric manager hands out keys */
    }
    range = attr->start_addr != FI_ADDR_NOTAVAIL || attr->end_addr != FI_ADDR_NOTAVAIL;
    if (range && (av->type != FI_AV_TABLE || attr->start_addr == FI_ADDR_NOTAVAIL ||
                  attr->end_addr == FI_ADDR_NOTAVAIL || attr->end_addr < attr->start_addr ||
                  !attr->stride)) {
        return -FI_EINVAL;       /* a range needs FI_AV_TABLE, both ends and a stride */
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        return -FI_ENOMEM;
    }
    s->av = av;
    if (attr->flags & FI_UNIVERSE) {
        size_t n = av->type == FI_AV_TABLE ? av->count : av->dom->peers;

        for (size_t a = 0; !rc && a < n; a++) {
            if (!dnf_av_node(av, a, &peer)) {
                rc = set_append(s, a);
            }
        }
    }
    if (range) {
        fi_addr_t end = attr->end_addr < av->count ? attr->end_addr : av->count - 1;

        /* Valid addresses of the range, every stride-th (fi_av_set(3)). */
        for (fi_addr_t a = attr->start_addr; !rc && av->count && a <= end; a += attr->stride) {
            if (!dnf_av_node(av, a, &peer) && set_find(s, a) < 0) {
                rc = set_append(s, a);
            }
            if (end - a < attr->stride) {
                break;
            }
        }
        if (!rc && attr->count && s->count > attr->count) {
            rc = -FI_EINVAL;     /* more than the count the caller said */
        }
    }
    if (rc) {
        free(s->addr);
        free(s);
        return rc;
    }
    s->set.fid.fclass = FI_CLASS_AV_SET;
    s->set.fid.context = context;
    s->set.fid.ops = &set_fi_ops;
    s->set.ops = &set_ops;
    av->refs++;                  /* the AV cannot close under it */
    *out = &s->set;
    return 0;
}

/* ---- joins ------------------------------------------------------------- */

static uint64_t list_key(const uint16_t *addr, unsigned n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ n;

    for (unsigned i = 0; i < n; i++) {
        h = (h ^ addr[i]) * 0x100000001b3ull;
        h = (h ^ (addr[i] >> 8)) * 0x100000001b3ull;
    }
    return h;
}

static struct keyseq *key_find(struct dnf_ep_coll *cl, uint64_t key)
{
    for (size_t i = 0; i < cl->nkeys; i++) {
        if (cl->keys[i].key == key) {
            return &cl->keys[i];
        }
    }
    return NULL;
}

/* The next join number of @key, taken (-1: no memory). */
static int64_t key_take(struct dnf_ep_coll *cl, uint64_t key)
{
    struct keyseq *k = key_find(cl, key);

    if (!k) {
        if (cl->nkeys == cl->capkeys) {
            size_t cap = cl->capkeys ? 2 * cl->capkeys : 8;
            struct keyseq *p = realloc(cl->keys, cap * sizeof(*p));

            if (!p) {
                return -1;
            }
            cl->keys = p;
            cl->capkeys = cap;
        }
        k = &cl->keys[cl->nkeys++];
        *k = (struct keyseq){ .key = key };
    }
    return k->next++;
}

static void orphan_sends(struct dnf_ep_coll *cl, struct dnf_mc *mc)
{
    while (mc->sends) {
        struct jsend *s = mc->sends;

        mc->sends = s->next;
        if (s->posted) {
            s->next = cl->orphans;         /* the shim reads it until done */
            cl->orphans = s;
        } else {
            free(s);
        }
    }
}

/* The join ends: the event (an error entry if @err), its slot back if it
 * failed. */
static void join_end(struct dnf_ep *ep, struct dnf_mc *mc, int err, int prov_errno)
{
    struct dnf_ep_coll *cl = ep->cl;

    orphan_sends(cl, mc);
    if (err) {
        struct fi_eq_err_entry e = { .fid = &mc->mc.fid, .context = mc->mc.fid.context,
                                     .err = err, .prov_errno = prov_errno };

        if (mc->reserved) {
            dn_coll_join_cancel(ep->dom->node, &mc->mine);
            mc->reserved = 0;
        }
        mc->state = MC_FAILED;
        FI_INFO(&dnf_prov, FI_LOG_EP_CTRL, "join of %u members (rank %u) failed: %s\n",
                mc->n, mc->rank, fi_strerror(err));
        dnf_eq_report(mc->eq, FI_JOIN_COMPLETE, &e, sizeof(e), 1);
    } else {
        struct fi_eq_entry e = { .fid = &mc->mc.fid, .context = mc->mc.fid.context };

        mc->state = MC_READY;
        dnf_eq_report(mc->eq, FI_JOIN_COMPLETE, &e, sizeof(e), 0);
    }
    atomic_fetch_sub(&mc->eq->joins, 1);
    cl->joining--;
}

/* Every record is here: the communicator, or FI_ENOSPC on every member if
 * one had no free slot. */
static void join_create(struct dnf_ep *ep, struct dnf_mc *mc)
{
    dn_node *n = ep->dom->node;
    struct dn_coll_config cfg;
    int rc;

    for (unsigned i = 0; i < mc->n; i++) {
        if (mc->recs[i].slot >= DN_COLL_COMMS) {
            join_end(ep, mc, FI_ENOSPC, DN_ENOMEM);
            return;
        }
    }
    dn_coll_config_default(n, &cfg);
    /* Multicast (the switch's group) only when the members are every
     * node's only port; the engine also wants every area in one slot. */
    cfg.mcast_group = cfg.mcast_group >= 0 && mc->n == cfg.nmembers ? cfg.mcast_group : -1;
    cfg.nmembers = mc->n;
    for (unsigned i = 0; i < mc->n; i++) {
        cfg.members[i] = mc->addr[i];
    }
    rc = dn_coll_comm_create_joined(n, &cfg, mc->recs, &mc->comm);
    if (rc != DN_OK) {
        mc->comm = NULL;
        /* Given back by the shim, or (a refused configuration) not yet. */
        dn_coll_join_cancel(n, &mc->mine);
        mc->reserved = 0;
        join_end(ep, mc, dnf_errno(rc), rc);
        return;
    }
    mc->reserved = 0;            /* the communicator's now */
    join_end(ep, mc, 0, 0);
}

static struct jsend *jsend_new(struct dnf_ep *ep, struct dnf_mc *mc, uint32_t node,
                               unsigned kind)
{
    struct jsend *s = calloc(1, sizeof(*s));

    if (!s) {
        return NULL;
    }
    s->node = node;
    s->m.h = (struct dnf_hdr){ .magic = DNF_MAGIC, .kind = DNF_K_JOIN, .sess = ep->session,
                               .tag = mc->key, .seq = mc->seq, .sid = mc->rank,
                               .rid = kind, .len = mc->n };
    s->len = sizeof(s->m.h);
    if (kind == JOIN_REC) {
        memcpy(&s->m.h.data, &mc->mine, sizeof(mc->mine));
    } else {
        memcpy(s->m.recs, mc->recs, mc->n * sizeof(mc->recs[0]));
        s->len += mc->n * sizeof(mc->recs[0]);
    }
    s->next = mc->sends;
    mc->sends = s;
    return s;
}

/* Post what is not posted, take what the shim finished: a DN_* failure, or
 * DN_OK. */
static int join_sends(struct dnf_ep *ep, struct dnf_mc *mc)
{
    dn_node *n = ep->dom->node;

    for (struct jsend **p = &mc->sends; *p;) {
        struct jsend *s = *p;
        int rc, done = 0;

        if (!s->posted) {
            rc = dn_msg_isend(n, dnf_peer_addr(ep->dom, s->node), 0, &s->m, s->len, &s->req);
            if (rc == DN_EBUSY) {
                p = &s->next;        /* the shim's queue is full: later */
                continue;
            }
            if (rc != DN_OK) {
                return rc;
            }
            s->posted = 1;
        }
        if (!dn_msg_done(s->req)) {
            p = &s->next;
            continue;
        }
        rc = dn_msg_test(n, s->req, &done, NULL);
        *p = s->next;
        free(s);
        if (rc != DN_OK) {
            return rc;
        }
    }
    return DN_OK;
}

static void join_step(struct dnf_ep *ep, struct dnf_mc *mc)
{
    int rc;

    if (mc->rank == 0 && !mc->table && mc->have == all_ranks(mc->n)) {
        /* Every record in: the table to every member. */
        for (unsigned r = 1; r < mc->n; r++) {
            if (!jsend_new(ep, mc, mc->peer[r], JOIN_TABLE)) {
                join_end(ep, mc, FI_ENOMEM, DN_ENOMEM);
                return;
            }
        }
        mc->table = 1;
    }
    rc = join_sends(ep, mc);
    if (rc != DN_OK) {
        dnf_ep_fatal(ep, rc);
        join_end(ep, mc, dnf_errno(rc) == FI_ETRUNC ? FI_EIO : dnf_errno(rc), rc);
        return;
    }
    if (mc->table && !mc->sends) {
        join_create(ep, mc);
    } else if (now_ms() >= mc->deadline_ms) {
        join_end(ep, mc, FI_ETIMEDOUT, DN_ETIMEDOUT);
    }
}

/* A JOIN message for @mc. */
static void join_take(struct dnf_mc *mc, uint32_t node, const struct dnf_hdr *h,
                      const uint8_t *part, size_t plen)
{
    if (h->rid == JOIN_REC) {
        struct dn_coll_join rec;
        unsigned r = h->sid;

        memcpy(&rec, &h->data, sizeof(rec));
        if (mc->rank != 0 || r == 0 || r >= mc->n || mc->peer[r] != node ||
            rec.addr != mc->addr[r] || h->len != mc->n) {
            FI_WARN(&dnf_prov, FI_LOG_EP_CTRL, "JOIN record from peer %u does not fit "
                    "the group (rank %u of %u): dropped\n", node, r, mc->n);
            return;
        }
        mc->recs[r] = rec;
        mc->have |= 1ull << r;
        return;
    }
    if (h->rid != JOIN_TABLE || mc->rank == 0 || node != mc->peer[0] || h->len != mc->n ||
        plen != mc->n * sizeof(mc->recs[0]) || mc->table) {
        FI_WARN(&dnf_prov, FI_LOG_EP_CTRL, "JOIN message from peer %u does not fit the "
                "group: dropped\n", node);
        return;
    }
    struct dn_coll_join t[DN_COLL_MAX_MEMBERS];
    memcpy(t, part, plen);
    for (unsigned i = 0; i < mc->n; i++) {
        if (t[i].addr != mc->addr[i] ||
            (i == mc->rank && (t[i].nonce != mc->mine.nonce || t[i].slot != mc->mine.slot))) {
            FI_WARN(&dnf_prov, FI_LOG_EP_CTRL, "JOIN table from peer %u does not fit "
                    "(member %u): dropped\n", node, i);
            return;
        }
    }
    memcpy(mc->recs, t, plen);
    mc->have = all_ranks(mc->n);
    mc->table = 1;
}

void dnf_coll_msg(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h,
                  const uint8_t *part, size_t plen)
{
    struct dnf_ep_coll *cl = ep->coll ? coll_state(ep) : NULL;
    struct keyseq *k;
    struct stash *s;

    if (!cl) {
        FI_WARN(&dnf_prov, FI_LOG_EP_CTRL, "JOIN message from peer %u: no collectives "
                "here, dropped\n", node);
        return;
    }
    for (struct dnf_mc *mc = cl->mcs; mc; mc = mc->next) {
        if (mc->state == MC_JOINING && mc->key == h->tag && mc->seq == h->seq) {
            join_take(mc, node, h, part, plen);
            return;
        }
    }
    k = key_find(cl, h->tag);
    if (k && h->seq < k->next) {
        /* A join this process made and ended (failed, closed): too late. */
        FI_INFO(&dnf_prov, FI_LOG_EP_CTRL, "JOIN message from peer %u for an ended join "
                "dropped\n", node);
        return;
    }
    if (cl->nstash >= DNF_COLL_STASH_MAX || plen > sizeof(struct dn_coll_join) *
                                                  DN_COLL_MAX_MEMBERS ||
        !(s = malloc(sizeof(*s) + plen))) {
        FI_WARN(&dnf_prov, FI_LOG_EP_CTRL, "JOIN message from peer %u not kept\n", node);
        return;
    }
    /* Before this process joined: kept for its join. */
    s->node = node;
    s->h = *h;
    s->plen = plen;
    memcpy(s->data, part, plen);
    s->next = cl->stash;
    cl->stash = s;
    cl->nstash++;
}

static struct dnf_mc *mc_of(struct dnf_ep *ep, fi_addr_t a)
{
    for (struct dnf_mc *mc = ep->cl ? ep->cl->mcs : NULL; mc; mc = mc->next) {
        if ((fi_addr_t)(uintptr_t)mc == a) {
            return mc;
        }
    }
    return NULL;
}

static int mc_close(struct fid *fid);

static struct fi_ops mc_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = mc_close,
    .bind = dnf_no_bind,
    .control = dnf_no_control,
    .ops_open = dnf_no_ops_open,
    .tostr = dnf_no_tostr,
    .ops_set = dnf_no_ops_set,
};

static void mc_unlink(struct dnf_ep_coll *cl, struct dnf_mc *mc)
{
    for (struct dnf_mc **p = &cl->mcs; *p; p = &(*p)->next) {
        if (*p == mc) {
            *p = mc->next;
            return;
        }
    }
}

/* fi_close: a join in flight is abandoned (its slot given back, no event;
 * the peers' later messages for it are dropped); a joined group waits for
 * what every member still needs of this process (dn_coll_comm_free:
 * bounded by the engine's time-out). Not while collectives are in flight. */
static int mc_close(struct fid *fid)
{
    struct dnf_mc *mc = container_of(fid, struct dnf_mc, mc.fid);
    struct dnf_ep *ep = mc->ep;
    dn_node *n = ep->dom->node;

    dnf_enter();
    if (mc->ops) {
        return -FI_EBUSY;
    }
    if (mc->state == MC_JOINING) {
        orphan_sends(ep->cl, mc);
        if (mc->reserved) {
            dn_coll_join_cancel(n, &mc->mine);
        }
        atomic_fetch_sub(&mc->eq->joins, 1);
        ep->cl->joining--;
    }
    if (mc->comm) {
        dn_host_self(n, 1);
        dn_coll_comm_free(mc->comm);
        dn_host_self(n, 0);
    }
    mc_unlink(ep->cl, mc);
    free(mc);
    return 0;
}

int dnf_coll_join(struct dnf_ep *ep, const void *addr, uint64_t flags, struct fid_mc **out,
                  void *context)
{
    const struct fi_collective_addr *ca = addr;
    const struct dnf_av_set *set;
    struct dnf_ep_coll *cl;
    struct dnf_eq *eq;
    struct dnf_mc *mc;
    struct dn_coll_config cfg;
    unsigned n, rank = DN_COLL_MAX_MEMBERS;
    int64_t seq;

    dnf_enter();
    if (!ep->coll) {
        return -FI_EOPNOTSUPP;   /* the endpoint was not opened with FI_COLLECTIVE */
    }
    if (!ca || !ca->set || !out) {
        return -FI_EINVAL;
    }
    if (flags & ~(uint64_t)(FI_COLLECTIVE | FI_SEND | FI_RECV)) {
        return -FI_EBADFLAGS;
    }
    if (!ep->enabled) {
        return -FI_EOPBADSTATE;
    }
    eq = ep->eq ? ep->eq : ep->dom->eq;
    if (!eq) {
        return -FI_ENOEQ;        /* the join reports there (fi_collective(3)) */
    }
    set = container_of(ca->set, const struct dnf_av_set, set);
    if (set->set.fid.fclass != FI_CLASS_AV_SET || set->av->dom != ep->dom) {
        return -FI_EINVAL;
    }
    /* coll_addr: the set's own (fi_av_set_addr), an existing group of this
     * endpoint (a subgroup), or FI_ADDR_NOTAVAIL (membership managed by the
     * application): the set's members join in every case. */
    if (ca->coll_addr != FI_ADDR_NOTAVAIL && ca->coll_addr != (fi_addr_t)(uintptr_t)set &&
        !mc_of(ep, ca->coll_addr)) {
        return -FI_EINVAL;
    }
    n = (unsigned)(set->count < UINT32_MAX ? set->count : UINT32_MAX);
    if (!n) {
        return -FI_EINVAL;
    }
    if (set->count > DN_COLL_MAX_MEMBERS) {
        FI_INFO(&dnf_prov, FI_LOG_EP_CTRL, "a set of %zu: the engine takes at most %u\n",
                set->count, DN_COLL_MAX_MEMBERS);
        return -FI_E2BIG;
    }
    mc = calloc(1, sizeof(*mc));
    if (!mc) {
        return -FI_ENOMEM;
    }
    mc->n = n;
    for (unsigned i = 0; i < n; i++) {
        uint32_t peer;

        if (dnf_av_node(set->av, set->addr[i], &peer) || peer >= DNF_NODES) {
            free(mc);
            return -FI_EINVAL;   /* removed from the AV since */
        }
        for (unsigned j = 0; j < i; j++) {
            if (mc->peer[j] == peer) {
                free(mc);
                return -FI_EINVAL;   /* a process twice (two AV entries of one) */
            }
        }
        mc->peer[i] = peer;
        mc->addr[i] = (uint16_t)dnf_peer_addr(ep->dom, peer);
        if (peer == ep->dom->self) {
            rank = i;
        }
    }
    if (rank == DN_COLL_MAX_MEMBERS) {
        free(mc);
        FI_INFO(&dnf_prov, FI_LOG_EP_CTRL, "this process is not in the set\n");
        return -FI_EINVAL;
    }
    cl = coll_state(ep);
    mc->key = list_key(mc->addr, n);
    if (!cl || (seq = key_take(cl, mc->key)) < 0) {
        free(mc);
        return -FI_ENOMEM;
    }
    mc->seq = (uint32_t)seq;
    mc->rank = rank;
    mc->ep = ep;
    mc->eq = eq;
    mc->state = MC_JOINING;
    dn_coll_config_default(ep->dom->node, &cfg);
    mc->deadline_ms = now_ms() + cfg.timeout_ms;
    /* A slot and a nonce; no slot: the record says so and every member
     * fails the join alike. */
    mc->reserved = dn_coll_join_prepare(ep->dom->node, &mc->mine) == DN_OK;
    if (!mc->reserved) {
        mc->mine.slot = DN_COLL_NO_SLOT;
    }
    mc->recs[rank] = mc->mine;
    mc->have = 1ull << rank;
    if (rank != 0 && !jsend_new(ep, mc, mc->peer[0], JOIN_REC)) {
        if (mc->reserved) {
            dn_coll_join_cancel(ep->dom->node, &mc->mine);
        }
        free(mc);
        return -FI_ENOMEM;
    }
    mc->mc.fid.fclass = FI_CLASS_MC;
    mc->mc.fid.context = context;
    mc->mc.fid.ops = &mc_fi_ops;
    mc->mc.fi_addr = (fi_addr_t)(uintptr_t)mc;
    mc->next = cl->mcs;
    cl->mcs = mc;
    cl->joining++;
    atomic_fetch_add(&eq->joins, 1);
    /* Messages of this join that came before it. */
    for (struct stash **p = &cl->stash; *p;) {
        struct stash *s = *p;

        if (s->h.tag != mc->key || s->h.seq != mc->seq) {
            p = &s->next;
            continue;
        }
        *p = s->next;
        cl->nstash--;
        join_take(mc, s->node, &s->h, s->data, s->plen);
        free(s);
    }
    *out = &mc->mc;
    return 0;
}

/* ---- collectives ------------------------------------------------------- */

enum { K_BARRIER, K_BCAST, K_ALLREDUCE, K_ALLGATHER, K_ALLTOALL, K_REDUCE_SCATTER,
       K_REDUCE };

struct cargs {
    int kind;
    const void *sbuf;
    void *rbuf;
    size_t count;
    enum fi_datatype dt;
    enum fi_op op;
    fi_addr_t root;
};

static int overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

    return a && b && na && nb && x < y + nb && y < x + na;
}

static ssize_t coll_start(struct fid_ep *fep, fi_addr_t coll_addr, uint64_t flags,
                          void *context, struct cargs *a)
{
    struct dnf_ep *ep = container_of(fep, struct dnf_ep, ep);
    dn_node *n = ep->dom->node;
    struct dnf_ep_coll *cl = ep->cl;
    struct dnf_mc *mc;
    struct cop *o;
    int type = DN_COLL_BYTE, op = 0, rc;
    size_t count = a->count, in = 0, outb = 0;

    dnf_enter();
    dn_host_work(n, DN_HOST_INSNS, ep->dom->charge.send);  /* not measured apart: a send's */
    if (!ep->enabled) {
        return -FI_EOPBADSTATE;
    }
    if (!(mc = mc_of(ep, coll_addr))) {
        return -FI_EINVAL;       /* no group of this endpoint */
    }
    if (mc->state != MC_READY) {
        return -FI_EOPBADSTATE;  /* not joined (yet, or the join failed) */
    }
    if (a->kind != K_BARRIER && a->kind != K_BCAST && a->kind != K_ALLGATHER &&
        a->kind != K_ALLTOALL) {
        type = red_type(a->dt);
        if (type < 0 || (op = red_op(type, a->op)) < 0) {
            return -FI_EOPNOTSUPP;
        }
        size_t es = dn_coll_type_size((enum dn_coll_type)type);
        if (count > SIZE_MAX / es / DN_COLL_MAX_MEMBERS) {
            return -FI_EINVAL;
        }
        in = count * es * (a->kind == K_REDUCE_SCATTER ? mc->n : 1);
        outb = count * es;
    } else if (a->kind != K_BARRIER) {
        /* Data movement: bytes of any datatype with a size. */
        size_t es = fi_type_size(a->dt);

        if (!es) {
            return -FI_EOPNOTSUPP;
        }
        if (count > SIZE_MAX / es / DN_COLL_MAX_MEMBERS) {
            return -FI_EINVAL;
        }
        count *= es;
        in = count * (a->kind == K_ALLTOALL ? mc->n : 1);
        outb = count * (a->kind == K_BCAST ? 1 : mc->n);
    }
    if ((a->kind == K_BCAST || a->kind == K_REDUCE) && a->root >= mc->n) {
        return -FI_EINVAL;       /* root_addr: the root's rank in the set */
    }
    if (cl->nops >= DNF_COLL_OPS_MAX) {
        dnf_progress(ep);
        if (cl->nops >= DNF_COLL_OPS_MAX) {
            return -FI_EAGAIN;
        }
    }
    o = calloc(1, sizeof(*o));
    if (!o) {
        return -FI_ENOMEM;
    }
    if (a->kind != K_BCAST && overlap(a->sbuf, in, a->rbuf, outb)) {
        /* The engine is never given an input that its result overlaps. */
        if (!(o->tmp = malloc(in))) {
            free(o);
            return -FI_ENOMEM;
        }
        dnf_copy(ep->dom, o->tmp, a->sbuf, in);
        a->sbuf = o->tmp;
    }
    o->mc = mc;
    o->context = context;
    o->complete = !ep->tx_selective || (flags & FI_COMPLETION);
    dn_host_self(n, 1);
    switch (a->kind) {
    case K_BARRIER:
        rc = dn_coll_ibarrier(mc->comm, &o->req);
        break;
    case K_BCAST:
        rc = dn_coll_ibcast(mc->comm, a->rbuf, count, DN_COLL_BYTE, (unsigned)a->root,
                            &o->req);
        break;
    case K_ALLREDUCE:
        rc = dn_coll_iallreduce(mc->comm, a->sbuf, a->rbuf, count, (enum dn_coll_type)type,
                                (enum dn_coll_op)op, &o->req);
        break;
    case K_REDUCE:
        rc = dn_coll_ireduce(mc->comm, a->sbuf, a->rbuf, count, (enum dn_coll_type)type,
                             (enum dn_coll_op)op, (unsigned)a->root, &o->req);
        break;
    case K_REDUCE_SCATTER:
        rc = dn_coll_ireduce_scatter(mc->comm, a->sbuf, a->rbuf, count,
                                     (enum dn_coll_type)type, (enum dn_coll_op)op, &o->req);
        break;
    case K_ALLGATHER:
        rc = dn_coll_iallgather(mc->comm, a->sbuf, a->rbuf, count, DN_COLL_BYTE, &o->req);
        break;
    default:
        rc = dn_coll_ialltoall(mc->comm, a->sbuf, a->rbuf, count, DN_COLL_BYTE, &o->req);
        break;
    }
    dn_host_self(n, 0);
    if (rc != DN_OK) {
        free(o->tmp);
        free(o);
        return rc == DN_EBUSY ? -FI_EAGAIN : -dnf_errno(rc);
    }
    /* In posting order: completions come as the engine finishes them. */
    struct cop **p = &cl->ops;
    while (*p) {
        p = &(*p)->next;
    }
    *p = o;
    cl->nops++;
    mc->ops++;
    return 0;
}

static uint64_t op_flags(struct fid_ep *fep, uint64_t flags)
{
    return flags | container_of(fep, struct dnf_ep, ep)->tx_op_flags;
}

static ssize_t c_barrier(struct fid_ep *ep, fi_addr_t coll_addr, void *context)
{
    struct cargs a = { .kind = K_BARRIER };

    return coll_start(ep, coll_addr, op_flags(ep, 0), context, &a);
}

static ssize_t c_barrier2(struct fid_ep *ep, fi_addr_t coll_addr, uint64_t flags,
                          void *context)
{
    struct cargs a = { .kind = K_BARRIER };

    return coll_start(ep, coll_addr, op_flags(ep, flags), context, &a);
}

static ssize_t c_broadcast(struct fid_ep *ep, void *buf, size_t count, void *desc,
                           fi_addr_t coll_addr, fi_addr_t root_addr,
                           enum fi_datatype datatype, uint64_t flags, void *context)
{
    struct cargs a = { .kind = K_BCAST, .sbuf = buf, .rbuf = buf, .count = count,
                       .dt = datatype, .root = root_addr };

    (void)desc;
    return coll_start(ep, coll_addr, op_flags(ep, flags), context, &a);
}

static ssize_t c_alltoall(struct fid_ep *ep, const void *buf, size_t count, void *desc,
                          void *result, void *result_desc, fi_addr_t coll_addr,
                          enum fi_datatype datatype, uint64_t flags, void *context)
{
    struct cargs a = { .kind = K_ALLTOALL, .sbuf = buf, .rbuf = result, .count = count,
                       .dt = datatype };

    (void)desc; (void)result_desc;
    return coll_start(ep, coll_addr, op_flags(ep, flags), context, &a);
}

static ssize_t c_allreduce(struct fid_ep *ep, const void *buf, size_t count, void *desc,
                           void *result, void *result_desc, fi_addr_t coll_addr,
                           enum fi_datatype datatype, enum fi_op op, uint64_t flags,
                           void *context)
{
    struct cargs a = { .kind = K_ALLREDUCE, .sbuf = buf, .rbuf = result, .count = count,
                       .dt = datatype, .op = op };

    (void)desc; (void)result_desc;
    return coll_start(ep, coll_addr, op_flags(ep, flags), context, &a);
}

static ssize_t c_allgather(struct fid_ep *ep, const void *buf, size_t count, void *desc,
                           void *result, void *result_desc, fi_addr_t coll_addr,
                           enum fi_datatype datatype, uint64_t flags, void *context)
{
    struct cargs a = { .kind = K_ALLGATHER, .sbuf = buf, .rbuf = result, .count = count,
                       .dt = datatype };

    (void)desc; (void)result_desc;
    return coll_start(ep, coll_addr, op_flags(ep, flags), context, &a);
}

static ssize_t c_reduce_scatter(struct fid_ep *ep, const void *buf, size_t count, void *desc,
                                void *result, void *result_desc, fi_addr_t coll_addr,
                                enum fi_datatype datatype, enum fi_op op, uint64_t flags,
                                void *context)
{
    struct cargs a = { .kind = K_REDUCE_SCATTER, .sbuf = buf, .rbuf = result, .count = count,
                       .dt = datatype, .op = op };

    (void)desc; (void)result_desc;
    return coll_start(ep, coll_addr, op_flags(ep, flags), context, &a);
}

static ssize_t c_reduce(struct fid_ep *ep, const void *buf, size_t count, void *desc,
                        void *result, void *result_desc, fi_addr_t coll_addr,
                        fi_addr_t root_addr, enum fi_datatype datatype, enum fi_op op,
                        uint64_t flags, void *context)
{
    struct cargs a = { .kind = K_REDUCE, .sbuf = buf, .rbuf = result, .count = count,
                       .dt = datatype, .op = op, .root = root_addr };

    (void)desc; (void)result_desc;
    return coll_start(ep, coll_addr, op_flags(ep, flags), context, &a);
}

/* Scatter and gather are not in the engine. */
static ssize_t c_rooted(struct fid_ep *ep, const void *buf, size_t count, void *desc,
                        void *result, void *result_desc, fi_addr_t coll_addr,
                        fi_addr_t root_addr, enum fi_datatype datatype, uint64_t flags,
                        void *context)
{
    (void)ep; (void)buf; (void)count; (void)desc; (void)result; (void)result_desc;
    (void)coll_addr; (void)root_addr; (void)datatype; (void)flags; (void)context;
    return -FI_EOPNOTSUPP;
}

/* fi_msg_collective form: one ioc each way (iov_limit 1). */
static ssize_t c_msg(struct fid_ep *ep, const struct fi_msg_collective *msg,
                     struct fi_ioc *resultv, void **result_desc, size_t result_count,
                     uint64_t flags)
{
    struct cargs a = { 0 };

    (void)result_desc;
    if (!msg || msg->iov_count > 1 || result_count > 1 || (msg->iov_count && !msg->msg_iov) ||
        (result_count && !resultv)) {
        return -FI_EINVAL;
    }
    a.sbuf = msg->iov_count ? msg->msg_iov[0].addr : NULL;
    a.count = msg->iov_count ? msg->msg_iov[0].count : 0;
    a.rbuf = result_count ? resultv[0].addr : NULL;
    a.dt = msg->datatype;
    a.op = msg->op;
    a.root = msg->root_addr;
    switch ((int)msg->coll) {
    case FI_BARRIER:        a.kind = K_BARRIER; break;
    case FI_BROADCAST:      a.kind = K_BCAST; a.rbuf = (void *)(uintptr_t)a.sbuf; break;
    case FI_ALLREDUCE:      a.kind = K_ALLREDUCE; break;
    case FI_ALLGATHER:      a.kind = K_ALLGATHER; break;
    case FI_ALLTOALL:       a.kind = K_ALLTOALL; break;
    case FI_REDUCE_SCATTER: a.kind = K_REDUCE_SCATTER; break;
    case FI_REDUCE:         a.kind = K_REDUCE; break;
    default:                return -FI_EOPNOTSUPP;
    }
    return coll_start(ep, msg->coll_addr, op_flags(ep, flags), msg->context, &a);
}

struct fi_ops_collective dnf_coll_ops = {
    .size = sizeof(struct fi_ops_collective),
    .barrier = c_barrier,
    .broadcast = c_broadcast,
    .alltoall = c_alltoall,
    .allreduce = c_allreduce,
    .allgather = c_allgather,
    .reduce_scatter = c_reduce_scatter,
    .reduce = c_reduce,
    .scatter = c_rooted,
    .gather = c_rooted,
    .msg = c_msg,
    .barrier2 = c_barrier2,
};

/* ---- progress ---------------------------------------------------------- */

static void cop_done(struct dnf_ep *ep, struct cop *o, int rc)
{
    struct dnf_comp c = { 0 };

    c.e.op_context = o->context;
    c.e.flags = FI_COLLECTIVE;
    c.src = FI_ADDR_NOTAVAIL;
    if (rc != DN_OK) {
        c.err = dnf_errno(rc);
        c.prov_errno = rc;
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "collective on a group of %u failed: %s\n",
                o->mc->n, dn_strerror(rc));
    }
    if (c.err || o->complete) {
        dnf_cq_push(ep->tx_cq, &c);
    }
    dnf_cntr_bump(ep->cntr_send, c.err != 0);
    o->mc->ops--;
    free(o->tmp);
    free(o);
}

void dnf_coll_progress(struct dnf_ep *ep)
{
    struct dnf_ep_coll *cl = ep->cl;
    dn_node *n = ep->dom->node;

    if (!cl) {
        return;
    }
    for (struct dnf_mc *mc = cl->mcs, *next; mc; mc = next) {
        next = mc->next;
        if (mc->state == MC_JOINING) {
            join_step(ep, mc);
        }
    }
    for (struct jsend **p = &cl->orphans; *p;) {
        struct jsend *s = *p;
        int done = 0;

        if (!dn_msg_done(s->req)) {
            p = &s->next;
            continue;
        }
        dn_msg_test(n, s->req, &done, NULL);
        *p = s->next;
        free(s);
    }
    if (cl->ops) {
        dn_host_self(n, 1);
        for (struct cop **p = &cl->ops; *p;) {
            struct cop *o = *p;
            int done = 0, rc = dn_coll_test(o->req, &done);

            if (!done) {
                p = &o->next;
                continue;
            }
            *p = o->next;
            cl->nops--;
            cop_done(ep, o, rc);
        }
        dn_host_self(n, 0);
        return;
    }
    /* Nothing in flight: now and then a turn for what peers may still ask
     * of this process (a frame written again). */
    if (++cl->idle % DNF_COLL_IDLE_EVERY) {
        return;
    }
    for (struct dnf_mc *mc = cl->mcs; mc; mc = mc->next) {
        if (mc->comm) {
            dn_host_self(n, 1);
            dn_coll_progress(mc->comm);     /* one turn moves every communicator */
            dn_host_self(n, 0);
            return;
        }
    }
}

int dnf_coll_ep_busy(struct dnf_ep *ep)
{
    return ep->cl && ep->cl->mcs ? -FI_EBUSY : 0;
}

/* Before the endpoint drains (its receives still posted): no group is
 * open. Later JOIN messages are dropped. */
void dnf_coll_ep_free(struct dnf_ep *ep)
{
    struct dnf_ep_coll *cl = ep->cl;

    if (!cl) {
        ep->coll = 0;
        return;
    }
    /* Sends of abandoned joins: a little time for the shim to finish them
     * (it reads their buffers until then; one still unfinished is left). */
    for (int i = 0; i < 1000 && cl->orphans; i++) {
        dnf_progress(ep);
        if (cl->orphans) {
            dnf_idle(ep->dom->node);
        }
    }
    ep->coll = 0;
    for (unsigned i = 0; i < DNF_EPS; i++) {
        if (coll_eps[i] == ep) {
            coll_eps[i] = NULL;
        }
    }
    while (cl->stash) {
        struct stash *s = cl->stash;

        cl->stash = s->next;
        free(s);
    }
    free(cl->keys);
    free(cl);
    ep->cl = NULL;
}

int dnf_coll_eq_progress(struct dnf_eq *eq)
{
    struct dnf_ep *eps[DNF_EPS];
    unsigned k = 0;

    dnf_enter();
    for (unsigned i = 0; i < DNF_EPS; i++) {
        struct dnf_ep *ep = coll_eps[i];

        if (!ep || !ep->cl || !ep->cl->joining) {
            continue;
        }
        for (struct dnf_mc *mc = ep->cl->mcs; mc; mc = mc->next) {
            if (mc->state == MC_JOINING && mc->eq == eq) {
                eps[k++] = ep;
                break;
            }
        }
    }
    for (unsigned i = 0; i < k; i++) {
        dnf_progress(eps[i]);
    }
    return k != 0;
}

void dnf_coll_eq_idle(void)
{
    dnf_enter();
    dn_node *n = dnf_coll_node();

    if (n) {
        dn_idle(n);
    }
}
