/*
 * FI_COLLECTIVE (issue 37 item 4): libfabric's collective interface on the
 * provider, as MPICH's ch4/ofi uses it (fi_collective(3), fi_av_set(3)).
 * On 4 boards (any number from 2), every node:
 *   - without FI_COLLECTIVE in the hints: no FI_COLLECTIVE in the answer
 *     (caps, tx, rx), and an endpoint and domain opened so have no
 *     collective calls: fi_query_collective -FI_EOPNOTSUPP, fi_av_set
 *     -FI_ENOSYS, fi_barrier and fi_join_collective -FI_EOPNOTSUPP;
 *   - with it: FI_COLLECTIVE on caps, tx_attr and rx_attr; an EQ bound to
 *     the endpoint; an AV of every node (FI_AV_TABLE on node 0, whose sets
 *     are made from a range, FI_AV_MAP elsewhere, whose sets are made by
 *     fi_av_set_insert and _remove); fi_query_collective for supported and
 *     unsupported (collective, datatype, op);
 *   - an AV set of all and one of the even nodes, joined (the odd nodes'
 *     join of the even set: -FI_EINVAL, not a member); the join completes
 *     by reading the EQ alone (FI_JOIN_COMPLETE, fid and context); a
 *     collective before it: -FI_EOPBADSTATE;
 *   - fi_barrier, fi_barrier2, fi_broadcast from rank 1 (bytes and
 *     doubles), fi_allreduce FI_DOUBLE FI_SUM of exactly representable
 *     values and FI_INT64 FI_MAX (bit for bit against the exact result on
 *     every member), in place, on the even group, fi_allgather,
 *     fi_alltoall, fi_reduce_scatter, fi_reduce, fi_collective's msg form;
 *     six collectives in flight on both groups at once; every completion
 *     on the transmit CQ with FI_COLLECTIVE, the FI_SEND counter counting
 *     each; fi_close of a group with a collective in flight: -FI_EBUSY;
 *   - refusals: a set of more than 64 members (-FI_E2BIG), one naming a
 *     process twice or none (-FI_EINVAL), unsupported pairs at the call
 *     (-FI_EOPNOTSUPP), an AV with a set open cannot close (-FI_EBUSY);
 *   - no free slot: 6 more groups of all fill the even nodes' 8 areas; the
 *     next join fails on every member with an FI_ENOSPC error entry; the
 *     odd nodes, which had a slot, got it back (a group of the odd nodes
 *     then joins), and after a group is closed a join of all succeeds;
 *   - the endpoint cannot close while a group is open (-FI_EBUSY).
 *
 *   fabric_coll
 */
#include <math.h>
#include <string.h>
#include <rdma/fi_collective.h>
#include <rdma/fi_eq.h>
#include "fabric_util.h"

#define EXTRA 6                 /* groups more, to fill the 8 areas of the even nodes */

static struct fid_eq *eq;
static uint64_t coll_done;      /* collectives completed here: the FI_SEND counter */

/* ---- without FI_COLLECTIVE --------------------------------------------- */

static struct fi_info *getinfo_caps(uint64_t caps)
{
    struct fi_info *hints = fi_allocinfo(), *fi = NULL;

    hints->caps = caps;
    hints->ep_attr->type = FI_EP_RDM;
    hints->fabric_attr->prov_name = strdup("dimmnet");
    TRY(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &fi));
    fi_freeinfo(hints);
    return fi;
}

static void no_collective(void)
{
    struct fi_info *fi = getinfo_caps(0);
    struct fid_fabric *f;
    struct fid_domain *d;
    struct fid_av *a;
    struct fid_cq *q;
    struct fid_ep *e;
    struct fid_mc *mc = NULL;
    struct fid_av_set *set = NULL;
    struct fi_av_attr aa = { .type = FI_AV_MAP };
    struct fi_cq_attr qa = { .format = FI_CQ_FORMAT_TAGGED };
    struct fi_av_set_attr sa = { .start_addr = FI_ADDR_NOTAVAIL, .end_addr = FI_ADDR_NOTAVAIL };
    struct fi_collective_attr ca = { .op = FI_NOOP, .datatype = FI_VOID };
    uint64_t x = 1, y = 0;

    /* No caps in the hints: ours, but FI_COLLECTIVE only when asked. */
    CHECK(!(fi->caps & FI_COLLECTIVE) && !(fi->tx_attr->caps & FI_COLLECTIVE) &&
          !(fi->rx_attr->caps & FI_COLLECTIVE));
    fi_freeinfo(fi);
    fi = getinfo_caps(FI_MSG | FI_TAGGED);
    CHECK(!(fi->caps & FI_COLLECTIVE) && !(fi->tx_attr->caps & FI_COLLECTIVE) &&
          !(fi->rx_attr->caps & FI_COLLECTIVE));
    TRY(fi_fabric(fi->fabric_attr, &f, NULL));
    TRY(fi_domain(f, fi, &d, NULL));
    TRY(fi_av_open(d, &aa, &a, NULL));
    TRY(fi_cq_open(d, &qa, &q, NULL));
    TRY(fi_endpoint(d, fi, &e, NULL));
    TRY(fi_ep_bind(e, &a->fid, 0));
    TRY(fi_ep_bind(e, &q->fid, FI_TRANSMIT | FI_RECV));
    TRY(fi_enable(e));
    CHECK_EQ(fi_query_collective(d, FI_BARRIER, &ca, 0), -FI_EOPNOTSUPP);
    ca.op = FI_SUM;
    ca.datatype = FI_DOUBLE;
    CHECK_EQ(fi_query_collective(d, FI_ALLREDUCE, &ca, 0), -FI_EOPNOTSUPP);
    CHECK_EQ(fi_av_set(a, &sa, &set, NULL), -FI_ENOSYS);
    CHECK(set == NULL);
    CHECK_EQ(fi_barrier(e, 0, NULL), -FI_EOPNOTSUPP);
    CHECK_EQ(fi_allreduce(e, &x, 1, NULL, &y, NULL, 0, FI_UINT64, FI_SUM, 0, NULL),
             -FI_EOPNOTSUPP);
    CHECK_EQ(fi_join_collective(e, FI_ADDR_NOTAVAIL, NULL, 0, &mc, NULL), -FI_EOPNOTSUPP);
    CHECK(mc == NULL);
    TRY(fi_close(&e->fid));
    TRY(fi_close(&q->fid));
    TRY(fi_close(&a->fid));
    TRY(fi_close(&d->fid));
    TRY(fi_close(&f->fid));
    fi_freeinfo(fi);
}

/* ---- set-up with FI_COLLECTIVE ------------------------------------------ */

static void setup(void)
{
    struct fi_av_attr av_attr = { 0 };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
    struct fi_eq_attr eq_attr = { .wait_obj = FI_WAIT_UNSPEC };
    struct fi_cntr_attr cntr_attr = { .events = FI_CNTR_EVENTS_COMP };

    info = getinfo_caps(FI_MSG | FI_TAGGED | FI_COLLECTIVE);
    CHECK(info->caps & FI_COLLECTIVE);
    CHECK(info->tx_attr->caps & FI_COLLECTIVE);
    CHECK(info->rx_attr->caps & FI_COLLECTIVE);
    TRY(fi_fabric(info->fabric_attr, &fabric, NULL));
    TRY(fi_domain(fabric, info, &domain, NULL));
    TRY(fi_eq_open(fabric, &eq_attr, &eq, NULL));
    av_attr.type = me == 0 ? FI_AV_TABLE : FI_AV_MAP;
    TRY(fi_av_open(domain, &av_attr, &av, NULL));
    TRY(fi_cq_open(domain, &cq_attr, &cq, NULL));
    TRY(fi_cntr_open(domain, &cntr_attr, &cntr, NULL));
    TRY(fi_endpoint(domain, info, &ep, NULL));
    TRY(fi_ep_bind(ep, &av->fid, 0));
    TRY(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    TRY(fi_ep_bind(ep, &eq->fid, 0));               /* the joins report here */
    TRY(fi_ep_bind(ep, &cntr->fid, FI_SEND));
    TRY(fi_enable(ep));
    fab_exchange_names("coll");
}

static void query(void)
{
    struct fi_collective_attr a;
    static const struct { enum fi_collective_op c; enum fi_datatype dt; enum fi_op op;
                          int rc; size_t size; } q[] = {
        { FI_ALLREDUCE, FI_DOUBLE, FI_SUM, 0, 8 },
        { FI_ALLREDUCE, FI_INT64, FI_MAX, 0, 8 },
        { FI_ALLREDUCE, FI_INT32, FI_BXOR, 0, 4 },
        { FI_ALLREDUCE, FI_FLOAT, FI_PROD, 0, 4 },
        { FI_REDUCE_SCATTER, FI_UINT64, FI_BAND, 0, 8 },
        { FI_REDUCE, FI_DOUBLE, FI_MIN, 0, 8 },
        { FI_BROADCAST, FI_INT32, FI_NOOP, 0, 4 },
        { FI_ALLGATHER, FI_DOUBLE_COMPLEX, FI_NOOP, 0, 16 },
        { FI_ALLTOALL, FI_UINT8, FI_NOOP, 0, 1 },
        { FI_BARRIER, FI_VOID, FI_NOOP, 0, 0 },
        { FI_ALLREDUCE, FI_FLOAT, FI_BXOR, -FI_EOPNOTSUPP, 0 },   /* bitwise: integers */
        { FI_ALLREDUCE, FI_INT8, FI_SUM, -FI_EOPNOTSUPP, 0 },     /* no such type */
        { FI_ALLREDUCE, FI_UINT32, FI_MIN, -FI_EOPNOTSUPP, 0 },
        { FI_ALLREDUCE, FI_INT64, FI_LOR, -FI_EOPNOTSUPP, 0 },    /* no such op */
        { FI_ALLREDUCE, FI_DOUBLE, FI_CSWAP, -FI_EOPNOTSUPP, 0 },
        { FI_BROADCAST, FI_INT32, FI_SUM, -FI_EOPNOTSUPP, 0 },    /* movement: no op */
        { FI_BROADCAST, FI_VOID, FI_NOOP, -FI_EOPNOTSUPP, 0 },
        { FI_SCATTER, FI_INT32, FI_NOOP, -FI_EOPNOTSUPP, 0 },     /* not in the engine */
        { FI_GATHER, FI_INT32, FI_NOOP, -FI_EOPNOTSUPP, 0 },
    };

    for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
        memset(&a, 0, sizeof(a));
        a.op = q[i].op;
        a.datatype = q[i].dt;
        int rc = fi_query_collective(domain, q[i].c, &a, 0);
        CHECK_MSG(rc == q[i].rc, "query %zu: %d, expected %d", i, rc, q[i].rc);
        if (!rc && !q[i].rc) {
            CHECK_MSG(a.max_members == 64 && a.datatype_attr.size == q[i].size &&
                      (q[i].c == FI_BARRIER || a.datatype_attr.count >= 1u << 20),
                      "query %zu: max_members %zu size %zu count %zu", i, a.max_members,
                      a.datatype_attr.size, a.datatype_attr.count);
        }
    }
    a.mode = 1;
    CHECK_EQ(fi_query_collective(domain, FI_BARRIER, &a, 0), -FI_EINVAL);
}

/* Every slot of every table the provider hands out for collectives. */
static void tables(struct fid_av_set *set, struct fid_mc *mc)
{
    void *const *p;

    CHECK_EQ(ep->collective->size, sizeof(struct fi_ops_collective));
    p = (void *const *)((const char *)ep->collective + sizeof(size_t));
    for (size_t i = 0; i < (sizeof(struct fi_ops_collective) - sizeof(size_t)) / sizeof(p); i++) {
        CHECK_MSG(p[i] != NULL, "fi_ops_collective slot %zu", i);
    }
    CHECK_EQ(set->ops->size, sizeof(struct fi_ops_av_set));
    CHECK(set->ops->set_union && set->ops->intersect && set->ops->diff && set->ops->insert &&
          set->ops->remove && set->ops->addr);
    CHECK(set->fid.fclass == FI_CLASS_AV_SET && mc->fid.fclass == FI_CLASS_MC);
    const struct fi_ops *o[2] = { set->fid.ops, mc->fid.ops };
    for (int i = 0; i < 2; i++) {
        CHECK(o[i]->size == sizeof(struct fi_ops) && o[i]->close && o[i]->bind &&
              o[i]->control && o[i]->ops_open && o[i]->tostr && o[i]->ops_set);
    }
}

/* The next @n join events (read from the EQ alone: its reads drive the
 * joins), each matched to mcs[i] and its context; errs[i] says what each
 * must end with (0: FI_JOIN_COMPLETE). */
static void join_wait(struct fid_mc **mcs, void **ctx, const int *errs, unsigned n)
{
    int64_t deadline = now_ms() + TIMEOUT_MS;
    unsigned got = 0;
    int seen[16] = { 0 };

    while (got < n) {
        struct fi_eq_entry e;
        struct fi_eq_err_entry err = { 0 };
        uint32_t event = 0;
        ssize_t rc = fi_eq_read(eq, &event, &e, sizeof(e), 0);
        const struct fid *fid;
        void *context;
        int code = 0;

        if (rc == -FI_EAGAIN) {
            if (now_ms() > deadline) {
                fprintf(stderr, "node %u: %u of %u joins not complete\n", me, n - got, n);
                exit(1);
            }
            continue;
        }
        if (rc == -FI_EAVAIL) {
            CHECK_EQ(fi_eq_readerr(eq, &err, 0), sizeof(err));
            fid = err.fid;
            context = err.context;
            code = err.err;
        } else {
            CHECK_MSG(rc == sizeof(e) && event == FI_JOIN_COMPLETE, "node %u: event %u, %zd",
                      me, event, rc);
            fid = e.fid;
            context = e.context;
        }
        unsigned i = 0;
        while (i < n && (seen[i] || fid != &mcs[i]->fid)) {
            i++;
        }
        CHECK_MSG(i < n, "node %u: join event for an unknown group", me);
        if (i < n) {
            seen[i] = 1;
            CHECK_MSG(context == ctx[i], "node %u: join %u context %p, expected %p", me, i,
                      context, ctx[i]);
            CHECK_MSG(code == errs[i], "node %u: join %u ended %d (%s), expected %d", me, i,
                      code, fi_strerror(code), errs[i]);
        }
        got++;
    }
}

static struct fid_mc *join1(struct fid_av_set *set, int want_err, void *ctx)
{
    fi_addr_t sa;
    struct fid_mc *mc = NULL;

    TRY(fi_av_set_addr(set, &sa));
    TRY(fi_join_collective(ep, sa, set, 0, &mc, ctx));
    join_wait(&mc, &ctx, &want_err, 1);
    return mc;
}

/* A collective's completion (via the transmit CQ). */
static void done(void *ctx)
{
    expect(ctx, FI_COLLECTIVE, NULL);
    coll_done++;
}

static void wait_all(void **ctx, unsigned n)
{
    struct fi_cq_tagged_entry out[16];

    expect_all(ctx, out, NULL, n);
    for (unsigned i = 0; i < n; i++) {
        CHECK_MSG(out[i].flags & FI_COLLECTIVE, "node %u: flags 0x%llx", me,
                  (unsigned long long)out[i].flags);
    }
    coll_done += n;
}

/* Member r's doubles: multiples of 2^-(i % 30) by integers far below 2^53,
 * so any order of addition gives the exact sum. */
static double dval(unsigned r, size_t i)
{
    double v = (double)(r * 1000u + i) * ((i & 1) ? -1.0 : 1.0);

    return ldexp(v, -(int)(i % 30));
}

static int64_t ival(unsigned r, size_t i)
{
    uint64_t x = (r + 1) * 0x9e3779b97f4a7c15ull ^ i * 0xbf58476d1ce4e5b9ull;

    return (int64_t)(x ^ (x >> 29));
}

int main(void)
{
    const char *id = getenv("DIMMNET_NODE_ID"), *nn = getenv("DIMMNET_NODES");
    struct fid_av_set *all, *even, *tmp;
    struct fi_av_set_attr sa = { .start_addr = FI_ADDR_NOTAVAIL, .end_addr = FI_ADDR_NOTAVAIL };
    struct fid_mc *mc_all = NULL, *mc_even = NULL, *extra[EXTRA], *mc;
    fi_addr_t all_sa, even_sa, ga, ge = 0;
    int c[16], cj[4];
    int in_even;

    me = id ? (unsigned)atoi(id) : 0;
    nodes = nn ? (unsigned)atoi(nn) : 2;
    in_even = me % 2 == 0;
    if (nodes < 2 || nodes > 16) {
        fprintf(stderr, "node %u: 2 to 16 nodes, not %u\n", me, nodes);
        return 1;
    }
    no_collective();
    setup();
    query();

    /* ---- AV sets ---- */
    if (me == 0) {               /* FI_AV_TABLE: ranges */
        struct fi_av_set_attr r = { .count = nodes, .start_addr = 0, .end_addr = nodes - 1,
                                    .stride = 1, .flags = FI_BROADCAST_SET |
                                                          FI_ALLREDUCE_SET };
        TRY(fi_av_set(av, &r, &all, NULL));
        r.count = (nodes + 1) / 2;
        r.stride = 2;
        TRY(fi_av_set(av, &r, &even, NULL));
        r.count = 1;             /* more addresses than the count said */
        CHECK_EQ(fi_av_set(av, &r, &tmp, NULL), -FI_EINVAL);
    } else {                     /* FI_AV_MAP: inserted, in node order */
        struct fi_av_set_attr r = { .count = nodes, .start_addr = 0, .end_addr = nodes - 1,
                                    .stride = 1 };
        CHECK_EQ(fi_av_set(av, &r, &tmp, NULL), -FI_EINVAL);   /* ranges: FI_AV_TABLE only */
        sa.count = nodes;
        TRY(fi_av_set(av, &sa, &all, NULL));
        TRY(fi_av_set(av, &sa, &even, NULL));
        for (unsigned k = 0; k < nodes; k++) {
            TRY(fi_av_set_insert(all, node_addr[k]));
            TRY(fi_av_set_insert(even, node_addr[k]));
        }
        CHECK_EQ(fi_av_set_insert(all, node_addr[0]), -FI_EINVAL);    /* twice */
        for (unsigned k = 1; k < nodes; k += 2) {
            TRY(fi_av_set_remove(even, node_addr[k]));            /* the rest keep order */
        }
        CHECK_EQ(fi_av_set_remove(even, node_addr[1]), -FI_EINVAL);  /* not in it */
    }
    sa.count = 0;
    CHECK_EQ(fi_av_set(av, &(struct fi_av_set_attr){ .start_addr = FI_ADDR_NOTAVAIL,
                                                     .end_addr = FI_ADDR_NOTAVAIL,
                                                     .flags = FI_SCATTER_SET }, &tmp, NULL),
             -FI_EOPNOTSUPP);
    /* Set algebra: all, then only the even ones, then none of them: empty. */
    TRY(fi_av_set(av, &sa, &tmp, NULL));
    TRY(fi_av_set_union(tmp, all));
    TRY(fi_av_set_intersect(tmp, even));
    TRY(fi_av_set_diff(tmp, even));
    {
        fi_addr_t t;
        TRY(fi_av_set_addr(tmp, &t));
        CHECK_EQ(fi_join_collective(ep, t, tmp, 0, &mc, NULL), -FI_EINVAL);   /* empty */
    }
    TRY(fi_close(&tmp->fid));

    /* ---- joins: all, and the even nodes ---- */
    TRY(fi_av_set_addr(all, &all_sa));
    TRY(fi_av_set_addr(even, &even_sa));
    TRY(fi_join_collective(ep, all_sa, all, 0, &mc_all, &cj[0]));
    /* Not joined yet: nothing may start on it (the join moves only with
     * progress, which no call has made since). */
    CHECK_EQ(fi_barrier(ep, fi_mc_addr(mc_all), &c[0]), -FI_EOPBADSTATE);
    if (in_even) {
        TRY(fi_join_collective(ep, even_sa, even, 0, &mc_even, &cj[1]));
    } else {
        CHECK_EQ(fi_join_collective(ep, even_sa, even, 0, &mc_even, &cj[1]), -FI_EINVAL);
        CHECK(mc_even == NULL);
    }
    {
        struct fid_mc *m[2] = { mc_all, mc_even };
        void *x[2] = { &cj[0], &cj[1] };
        int e[2] = { 0, 0 };
        join_wait(m, x, e, in_even ? 2 : 1);
    }
    tables(all, mc_all);
    ga = fi_mc_addr(mc_all);
    if (in_even) {
        ge = fi_mc_addr(mc_even);
    }
    CHECK_EQ(fi_barrier(ep, (fi_addr_t)(uintptr_t)&c[0], &c[0]), -FI_EINVAL);   /* no group */

    /* ---- one at a time ---- */
    TRY(fi_barrier(ep, ga, &c[0]));
    done(&c[0]);
    TRY(fi_barrier2(ep, ga, FI_COMPLETION, &c[1]));
    done(&c[1]);
    {
        size_t nb = 50000;
        uint8_t *b = malloc(nb);
        double d[100];
        if (me == 1) {
            fill(b, nb, 77);
        } else {
            memset(b, 0xee, nb);
        }
        for (int i = 0; i < 100; i++) {
            d[i] = me == 1 ? dval(1, i) : -1.0;
        }
        TRY(fi_broadcast(ep, b, nb, NULL, ga, 1, FI_UINT8, 0, &c[0]));
        done(&c[0]);
        CHECK_MSG(same(b, nb, 77), "node %u: broadcast bytes differ", me);
        TRY(fi_broadcast(ep, d, 100, NULL, ga, 1, FI_DOUBLE, 0, &c[1]));
        done(&c[1]);
        for (int i = 0; i < 100; i++) {
            CHECK_MSG(d[i] == dval(1, i), "node %u: broadcast double %d", me, i);
        }
        CHECK_EQ(fi_broadcast(ep, d, 1, NULL, ga, nodes, FI_DOUBLE, 0, &c[1]), -FI_EINVAL);
        free(b);
    }
    {
        enum { N = 3000 };
        double *s = malloc(N * sizeof(double)), *r = malloc(N * sizeof(double));
        double *x = malloc(N * sizeof(double));
        int64_t *si = malloc(N * 8), *ri = malloc(N * 8), *xi = malloc(N * 8);
        for (size_t i = 0; i < N; i++) {
            s[i] = dval(me, i);
            si[i] = ival(me, i);
            x[i] = 0;
            xi[i] = INT64_MIN;
            for (unsigned k = 0; k < nodes; k++) {
                x[i] += dval(k, i);
                xi[i] = ival(k, i) > xi[i] ? ival(k, i) : xi[i];
            }
        }
        memset(r, 0xa5, N * sizeof(double));
        TRY(fi_allreduce(ep, s, N, NULL, r, NULL, ga, FI_DOUBLE, FI_SUM, 0, &c[0]));
        done(&c[0]);
        CHECK_MSG(!memcmp(r, x, N * sizeof(double)), "node %u: double sum not exact", me);
        TRY(fi_allreduce(ep, si, N, NULL, ri, NULL, ga, FI_INT64, FI_MAX, 0, &c[0]));
        done(&c[0]);
        CHECK_MSG(!memcmp(ri, xi, N * 8), "node %u: int64 max differs", me);
        /* In place: the result over its input. */
        TRY(fi_allreduce(ep, si, N, NULL, si, NULL, ga, FI_INT64, FI_MAX, 0, &c[0]));
        done(&c[0]);
        CHECK_MSG(!memcmp(si, xi, N * 8), "node %u: in-place max differs", me);
        /* The msg form: a sum of doubles again. */
        struct fi_ioc in = { s, N }, out = { r, N };
        struct fi_msg_collective m = { .msg_iov = &in, .iov_count = 1, .coll_addr = ga,
                                       .coll = FI_ALLREDUCE, .datatype = FI_DOUBLE,
                                       .op = FI_SUM, .context = &c[1] };
        memset(r, 0, N * sizeof(double));
        TRY(ep->collective->msg(ep, &m, &out, NULL, 1, 0));
        done(&c[1]);
        CHECK_MSG(!memcmp(r, x, N * sizeof(double)), "node %u: msg-form sum not exact", me);
        /* Unsupported pairs at the call. */
        CHECK_EQ(fi_allreduce(ep, s, 1, NULL, r, NULL, ga, FI_DOUBLE, FI_BXOR, 0, &c[0]),
                 -FI_EOPNOTSUPP);
        CHECK_EQ(fi_allreduce(ep, s, 1, NULL, r, NULL, ga, FI_INT16, FI_SUM, 0, &c[0]),
                 -FI_EOPNOTSUPP);
        CHECK_EQ(fi_scatter(ep, s, 1, NULL, r, NULL, ga, 0, FI_DOUBLE, 0, &c[0]),
                 -FI_EOPNOTSUPP);
        /* The even group: its own ranks. */
        if (in_even) {
            int64_t e[4] = { me, -(int64_t)me, 1000 + me, 7 }, er[4], ex[4] = { 0 };
            for (unsigned k = 0; k < nodes; k += 2) {
                ex[0] += k;
                ex[1] -= k;
                ex[2] += 1000 + k;
                ex[3] += 7;
            }
            TRY(fi_allreduce(ep, e, 4, NULL, er, NULL, ge, FI_INT64, FI_SUM, 0, &c[0]));
            done(&c[0]);
            CHECK_MSG(!memcmp(er, ex, sizeof(er)), "node %u: even-group sum differs", me);
        }
        free(s); free(r); free(x); free(si); free(ri); free(xi);
    }
    {
        /* allgather, alltoall, reduce-scatter, reduce (rank = node id in "all"). */
        int32_t g[3] = { (int32_t)me, (int32_t)(me * 10), -(int32_t)me }, gr[3 * 16];
        int64_t t[2 * 16], tr[2 * 16], rs[2 * 16], rr[2];
        double dm[5], dr[5];
        for (unsigned j = 0; j < nodes; j++) {
            for (unsigned k = 0; k < 2; k++) {
                t[j * 2 + k] = me * 100 + j * 10 + k;
                rs[j * 2 + k] = me + j * 10 + k;
            }
        }
        for (int i = 0; i < 5; i++) {
            dm[i] = dval(me, i);
            dr[i] = 0;
        }
        TRY(fi_allgather(ep, g, 3, NULL, gr, NULL, ga, FI_INT32, 0, &c[0]));
        done(&c[0]);
        for (unsigned r = 0; r < nodes; r++) {
            CHECK_MSG(gr[3 * r] == (int32_t)r && gr[3 * r + 1] == (int32_t)(r * 10) &&
                      gr[3 * r + 2] == -(int32_t)r, "node %u: allgather block %u", me, r);
        }
        TRY(fi_alltoall(ep, t, 2, NULL, tr, NULL, ga, FI_INT64, 0, &c[0]));
        done(&c[0]);
        for (unsigned r = 0; r < nodes; r++) {
            for (unsigned k = 0; k < 2; k++) {
                CHECK_MSG(tr[r * 2 + k] == (int64_t)(r * 100 + me * 10 + k),
                          "node %u: alltoall from %u", me, r);
            }
        }
        TRY(fi_reduce_scatter(ep, rs, 2, NULL, rr, NULL, ga, FI_INT64, FI_SUM, 0, &c[0]));
        done(&c[0]);
        for (unsigned k = 0; k < 2; k++) {
            int64_t want = 0;
            for (unsigned r = 0; r < nodes; r++) {
                want += r + me * 10 + k;
            }
            CHECK_MSG(rr[k] == want, "node %u: reduce-scatter %u: %lld, want %lld", me, k,
                      (long long)rr[k], (long long)want);
        }
        unsigned root = nodes - 1;
        TRY(fi_reduce(ep, dm, 5, NULL, me == root ? dr : NULL, NULL, ga, root, FI_DOUBLE,
                      FI_MAX, 0, &c[0]));
        done(&c[0]);
        if (me == root) {
            for (int i = 0; i < 5; i++) {
                double want = dval(0, i);
                for (unsigned r = 1; r < nodes; r++) {
                    want = dval(r, i) > want ? dval(r, i) : want;
                }
                CHECK_MSG(dr[i] == want, "node %u: reduce max %d", me, i);
            }
        }
    }

    /* ---- several in flight, on both groups ---- */
    {
        enum { M = 2000, NB = 20000 };
        double *s = malloc(M * sizeof(double)), *r = malloc(M * sizeof(double));
        int64_t si[64], r1[64], r2[64], x1[64], x2[64];
        uint8_t *b = malloc(NB);
        void *ctx[6];
        unsigned n = 0;
        for (size_t i = 0; i < M; i++) {
            s[i] = dval(me + 7, i);
        }
        for (int i = 0; i < 64; i++) {
            si[i] = ival(me, (size_t)i + 5000);
            x1[i] = x2[i] = INT64_MIN;
            for (unsigned k = 0; k < nodes; k++) {
                x1[i] = ival(k, (size_t)i + 5000) > x1[i] ? ival(k, (size_t)i + 5000) : x1[i];
                if (k % 2 == 0) {
                    x2[i] = ival(k, (size_t)i + 5000) > x2[i] ? ival(k, (size_t)i + 5000)
                                                               : x2[i];
                }
            }
        }
        if (me == nodes - 1) {
            fill(b, NB, 99);
        } else {
            memset(b, 0, NB);
        }
        TRY(fi_barrier(ep, ga, &c[0]));
        ctx[n++] = &c[0];
        TRY(fi_allreduce(ep, s, M, NULL, r, NULL, ga, FI_DOUBLE, FI_SUM, 0, &c[1]));
        ctx[n++] = &c[1];
        TRY(fi_broadcast(ep, b, NB, NULL, ga, nodes - 1, FI_UINT8, 0, &c[2]));
        ctx[n++] = &c[2];
        if (in_even) {
            TRY(fi_allreduce(ep, si, 64, NULL, r2, NULL, ge, FI_INT64, FI_MAX, 0, &c[3]));
            ctx[n++] = &c[3];
        }
        TRY(fi_barrier(ep, ga, &c[4]));
        ctx[n++] = &c[4];
        TRY(fi_allreduce(ep, si, 64, NULL, r1, NULL, ga, FI_INT64, FI_MAX, 0, &c[5]));
        ctx[n++] = &c[5];
        /* Not while something is in flight on it. */
        CHECK_EQ(fi_close(&mc_all->fid), -FI_EBUSY);
        wait_all(ctx, n);
        for (size_t i = 0; i < M; i++) {
            double want = 0;
            for (unsigned k = 0; k < nodes; k++) {
                want += dval(k + 7, i);
            }
            if (memcmp(&r[i], &want, sizeof(want))) {
                CHECK_MSG(0, "node %u: in flight: sum %zu", me, i);
                break;
            }
        }
        CHECK_MSG(same(b, NB, 99), "node %u: in flight: broadcast", me);
        CHECK_MSG(!memcmp(r1, x1, sizeof(r1)), "node %u: in flight: max", me);
        if (in_even) {
            CHECK_MSG(!memcmp(r2, x2, sizeof(r2)), "node %u: in flight: even max", me);
        }
        free(s); free(r); free(b);
    }
    CHECK_EQ(fi_cntr_read(cntr), coll_done);
    CHECK_EQ(fi_cntr_readerr(cntr), 0);

    /* ---- refusals ---- */
    {
        struct fid_av *av2;
        struct fi_av_attr a2 = { .type = FI_AV_TABLE };
        struct fid_av_set *big, *dup;
        struct fi_av_set_attr u = { .start_addr = FI_ADDR_NOTAVAIL,
                                    .end_addr = FI_ADDR_NOTAVAIL, .flags = FI_UNIVERSE };
        char name[64];
        size_t len = sizeof(name);
        fi_addr_t a, s2;
        TRY(fi_av_open(domain, &a2, &av2, NULL));
        TRY(fi_getname(&ep->fid, name, &len));
        for (int i = 0; i < 65; i++) {            /* this process 65 times */
            CHECK_EQ(fi_av_insert(av2, name, 1, &a, 0, NULL), 1);
        }
        TRY(fi_av_set(av2, &u, &big, NULL));
        TRY(fi_av_set_addr(big, &s2));
        mc = NULL;
        CHECK_EQ(fi_join_collective(ep, s2, big, 0, &mc, NULL), -FI_E2BIG);
        CHECK(mc == NULL);
        TRY(fi_av_set(av2, &sa, &dup, NULL));
        TRY(fi_av_set_insert(dup, 0));
        TRY(fi_av_set_insert(dup, 1));            /* the same process again */
        TRY(fi_av_set_addr(dup, &s2));
        CHECK_EQ(fi_join_collective(ep, s2, dup, 0, &mc, NULL), -FI_EINVAL);
        CHECK_EQ(fi_join_collective(ep, 12345, all, 0, &mc, NULL), -FI_EINVAL);  /* coll_addr */
        CHECK_EQ(fi_close(&av2->fid), -FI_EBUSY);  /* its sets first */
        TRY(fi_close(&big->fid));
        TRY(fi_close(&dup->fid));
        TRY(fi_close(&av2->fid));
    }

    /* ---- no free slot ---- */
    {
        void *x[EXTRA];
        int e[EXTRA] = { 0 }, c9, c10, codd;
        for (int i = 0; i < EXTRA; i++) {
            TRY(fi_join_collective(ep, all_sa, all, 0, &extra[i], &c[i]));
            x[i] = &c[i];
        }
        join_wait(extra, x, e, EXTRA);           /* several joins of one set in flight */
        /* The even nodes' 8 areas are taken: the next join fails everywhere. */
        mc = join1(all, FI_ENOSPC, &c9);
        CHECK_EQ(fi_barrier(ep, fi_mc_addr(mc), &c9), -FI_EOPBADSTATE);
        TRY(fi_close(&mc->fid));
        /* The odd nodes gave their slot back: a group of them joins. */
        if (!in_even && nodes >= 2) {
            struct fid_av_set *odd;
            struct fid_mc *mo;
            TRY(fi_av_set(av, &sa, &odd, NULL));
            TRY(fi_av_set_union(odd, all));
            TRY(fi_av_set_diff(odd, even));
            mo = join1(odd, 0, &codd);
            TRY(fi_barrier(ep, fi_mc_addr(mo), &codd));
            done(&codd);
            TRY(fi_close(&mo->fid));
            TRY(fi_close(&odd->fid));
        }
        /* One closed on every node: a join of all succeeds. */
        TRY(fi_close(&extra[EXTRA - 1]->fid));
        mc = join1(all, 0, &c10);
        TRY(fi_barrier(ep, fi_mc_addr(mc), &c10));
        done(&c10);
        CHECK_EQ(fi_close(&ep->fid), -FI_EBUSY);  /* groups open on it */
        TRY(fi_close(&mc->fid));
        for (int i = 0; i < EXTRA - 1; i++) {
            TRY(fi_close(&extra[i]->fid));
        }
    }
    CHECK_EQ(fi_cntr_read(cntr), coll_done);

    CHECK(dn_rendezvous("coll-end", TIMEOUT_MS) == DN_OK);
    TRY(fi_close(&mc_all->fid));
    if (mc_even) {
        TRY(fi_close(&mc_even->fid));
    }
    CHECK_EQ(fi_close(&av->fid), -FI_EBUSY);     /* the endpoint and its sets */
    TRY(fi_close(&all->fid));
    TRY(fi_close(&even->fid));
    TRY(fi_close(&ep->fid));
    TRY(fi_close(&cntr->fid));
    cntr = NULL;
    TRY(fi_close(&cq->fid));
    TRY(fi_close(&av->fid));
    TRY(fi_close(&eq->fid));
    TRY(fi_close(&domain->fid));
    TRY(fi_close(&fabric->fid));
    fi_freeinfo(info);
    check_failures += fab_failures();
    printf("node %u: collectives %llu %s\n", me, (unsigned long long)coll_done,
           check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}
