/*
 * Atomics (fi_atomic(3)) as the NIC adds what its hardware lacks: each
 * element is one ATOMIC packet to the target's firmware (docs/hardware.md
 * section 15), which checks the registration (both remote read and write:
 * every atomic returns the old value), applies the operation to receive
 * memory and answers with the old value by a remote-read response into
 * one of this endpoint's reply slots. The shim resends an unanswered
 * request with the same sequence number, so lost, duplicated or reordered
 * packets never apply an operation twice (dn_atomic_post / _test).
 *
 * Served: 32- and 64-bit integers (FI_INT32, FI_UINT32, FI_INT64,
 * FI_UINT64); fi_atomic: FI_MIN, FI_MAX, FI_SUM, FI_LOR, FI_LAND, FI_BOR,
 * FI_BAND, FI_LXOR, FI_BXOR, FI_ATOMIC_WRITE; fi_fetch_atomic: those and
 * FI_ATOMIC_READ; fi_compare_atomic: FI_CSWAP and its relations, FI_MSWAP.
 * Up to DNF_ATOMIC_COUNT elements an operation, each atomic on its own.
 * Atomic with respect to every other atomic through the target's NIC, not
 * to the target host's own loads and stores.
 */
#include <stdlib.h>
#include <string.h>
#include "dimmnet.h"
#include "dimmnet1/atomic.h"
#include "dimmnet1/packet.h"

enum { AK_WRITE, AK_FETCH, AK_COMPARE };

/* Where peer @e's atomics go: its own address. The registration table
 * and the atomic handler are its board's, and the shim keeps one request
 * sequence a target board, as the firmware keeps one a source address,
 * whichever port a request names. */
static unsigned atomic_dst(const struct dnf_domain *d, uint32_t e)
{
    return dnf_peer_addr(d, e);
}

/* Is @op on @dt served by a call of kind @kind? */
static int op_served(int kind, enum fi_datatype dt, enum fi_op op)
{
    if (!dn1_adt_ok(dt)) {
        return 0;
    }
    switch (kind) {
    case AK_WRITE:
        return op <= FI_BXOR ? op != FI_PROD : op == FI_ATOMIC_WRITE;
    case AK_FETCH:
        return op <= FI_ATOMIC_WRITE && op != FI_PROD;
    default:
        return op >= FI_CSWAP && op <= FI_MSWAP;
    }
}

static int valid(int kind, enum fi_datatype dt, enum fi_op op, size_t *count)
{
    if (!op_served(kind, dt, op)) {
        return -FI_EOPNOTSUPP;
    }
    if (count) {
        *count = DNF_ATOMIC_COUNT;
    }
    return 0;
}

int dnf_query_atomic(struct fid_domain *domain, enum fi_datatype dt, enum fi_op op,
                     struct fi_atomic_attr *attr, uint64_t flags)
{
    int kind = flags & FI_COMPARE_ATOMIC ? AK_COMPARE
             : flags & FI_FETCH_ATOMIC   ? AK_FETCH : AK_WRITE;

    (void)domain;
    if (flags & ~(uint64_t)(FI_COMPARE_ATOMIC | FI_FETCH_ATOMIC | FI_TAGGED)) {
        return -FI_EBADFLAGS;
    }
    if ((flags & FI_COMPARE_ATOMIC) && (flags & FI_FETCH_ATOMIC)) {
        return -FI_EINVAL;
    }
    if (!attr) {
        return -FI_EINVAL;
    }
    int rc = valid(kind, dt, op, &attr->count);
    if (!rc) {
        attr->size = dn1_adt_size(dt);
    }
    return rc;
}

/* ---- progress ------------------------------------------------------------- */

/* The ring's next free slot (in turn, see DNF_ATOMIC_REPLIES), or -1. */
static int slot_take(struct dnf_ep *ep)
{
    for (unsigned k = 0; k < DNF_ATOMIC_REPLIES; k++) {
        unsigned i = ep->atomic_next++ % DNF_ATOMIC_REPLIES;

        if (!ep->atomic_busy[i]) {
            ep->atomic_busy[i] = 1;
            return (int)i;
        }
    }
    return -1;
}

static int nack_errno(uint8_t reason)
{
    switch (reason) {
    case DN1_NACK_PROTECTION:
    case DN1_NACK_NO_TRANSLATION:
        return FI_EACCES;
    case DN1_NACK_BAD_ATOMIC:
        return FI_EOPNOTSUPP;
    default:
        return FI_EIO;
    }
}

static void el_done(struct dnf_ep *ep, struct dnf_atomic *a, struct dnf_atomic_el *e)
{
    size_t size = dn1_adt_size(a->dt);

    if (e->r.error == DN_OK && a->res) {
        size_t msize;
        uint8_t *mem = dn_hostmem(ep->dom->node, &msize);

        dnf_copy(ep->dom, a->res + (size_t)(e - a->el) * size,
                 mem + DNF_ATOMIC_REPLY_OFF(ep->slot) + (size_t)e->slot * 8u, size);
    }
    if (e->r.error != DN_OK && a->err == DN_OK) {
        a->err = e->r.error;
        a->nack = e->r.nack_reason;
    }
    ep->atomic_busy[e->slot] = 0;
    e->slot = -1;
    a->done++;
}

/* Post what room allows; take what is answered. 1: the operation is done. */
static int atomic_step(struct dnf_ep *ep, struct dnf_atomic *a)
{
    dn_node *n = ep->dom->node;
    size_t size = dn1_adt_size(a->dt);

    for (size_t i = 0; i < a->posted; i++) {
        struct dnf_atomic_el *e = &a->el[i];
        int done = 0;

        if (e->slot < 0) {
            continue;
        }
        if (dn_atomic_test(n, &e->r, &done) != DN_OK && !done) {
            e->r.error = DN_EIO;
            done = 1;
        }
        if (done) {
            el_done(ep, a, e);
        }
    }
    while (a->posted < a->count && a->err == DN_OK) {
        struct dnf_atomic_el *e = &a->el[a->posted];
        int slot = slot_take(ep);

        if (slot < 0) {
            break;
        }
        e->slot = slot;
        int rc = dn_atomic_post(n, &e->r, atomic_dst(ep->dom, a->node),
                                DN_RVA(a->wire, a->addr + a->posted * size),
                                a->op, a->dt, a->buf + a->posted * size,
                                a->cmp ? a->cmp + a->posted * size : NULL,
                                DNF_ATOMIC_REPLY_OFF(ep->slot) + (uint64_t)slot * 8u);
        if (rc == DN_EBUSY) {
            ep->atomic_busy[slot] = 0;
            ep->atomic_next--;          /* the same slot next time */
            e->slot = -1;
            break;                  /* the window to that node is full: later */
        }
        a->posted++;
        if (rc != DN_OK) {
            e->r.error = rc;
            el_done(ep, a, e);
        }
    }
    if (a->err != DN_OK && a->posted < a->count) {
        a->done += a->count - a->posted;        /* never sent */
        a->posted = a->count;
    }
    return a->done == a->count;
}

static void atomic_complete(struct dnf_ep *ep, struct dnf_atomic *a)
{
    struct dnf_comp c = { 0 };
    int fetch = a->kind != AK_WRITE;

    dnf_rma_done_charge(ep);
    dnf_cntr_bump(fetch ? ep->cntr_read : ep->cntr_write, a->err != DN_OK);
    if (a->err != DN_OK) {
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "atomic op %d on node %u failed: %s "
                "(NACK %u)\n", (int)a->op, a->node, dn_strerror(a->err), a->nack);
    }
    if ((a->err == DN_OK && !a->complete) || (!a->complete && !a->context)) {
        if (a->err != DN_OK) {
            ep->stats.inject_errors++;
        }
        free(a);
        return;
    }
    c.e.op_context = a->context;
    c.e.flags = FI_ATOMIC | (fetch ? FI_READ : FI_WRITE);
    c.src = FI_ADDR_NOTAVAIL;
    if (a->err != DN_OK) {
        c.err = a->err == DN_ENACK ? nack_errno(a->nack) : dnf_errno(a->err);
        c.prov_errno = a->err;
    }
    dnf_cq_push(ep->tx_cq, &c);
    free(a);
}

void dnf_atomic_progress(struct dnf_ep *ep)
{
    for (struct dnf_atomic **p = &ep->atomic_head; *p;) {
        struct dnf_atomic *a = *p;

        if (!atomic_step(ep, a)) {
            p = &a->next;
            continue;
        }
        *p = a->next;
        if (!*p) {
            ep->atomic_tail = p;
        }
        ep->stats.atomics++;
        atomic_complete(ep, a);
    }
}

/* ---- the calls ------------------------------------------------------------ */

static ssize_t atomic_post(struct dnf_ep *ep, int kind, const void *buf, size_t count,
                           const void *compare, void *result, fi_addr_t dest, uint64_t addr,
                           uint64_t key, enum fi_datatype dt, enum fi_op op, void *context,
                           uint64_t flags)
{
    struct dnf_atomic *a;
    uint32_t node;
    uint16_t wire;
    int rc;

    dnf_enter();
    if (!ep->enabled) {
        return -FI_EOPBADSTATE;
    }
    if (!op_served(kind, dt, op)) {
        return -FI_EOPNOTSUPP;
    }
    size_t size = dn1_adt_size(dt);
    if (!count || count > DNF_ATOMIC_COUNT || (!buf && op != FI_ATOMIC_READ) ||
        (kind == AK_COMPARE && !compare) || (kind != AK_WRITE && !result) ||
        (addr & (size - 1))) {
        return -FI_EINVAL;
    }
    if (dnf_av_node(ep->av, dest, &node)) {
        return -FI_EINVAL;
    }
    if ((rc = dnf_mr_wire(ep->dom, key, &wire, NULL))) {
        return rc;
    }
    if (addr > DN1_RVA_VA(~0ull) || count * size > DN1_RVA_VA(~0ull) - addr + 1) {
        return -FI_EINVAL;
    }
    dn_host_work(ep->dom->node, DN_HOST_INSNS, ep->dom->charge.atomic);
    /* The operands (and compare values) are copied: the request keeps them. */
    a = calloc(1, sizeof(*a) + count * sizeof(a->el[0]) + 2 * count * size);
    if (!a) {
        return -FI_ENOMEM;
    }
    uint8_t *ops = (uint8_t *)&a->el[count];
    if (buf) {
        memcpy(ops, buf, count * size);
    }
    a->buf = ops;
    if (compare) {
        memcpy(ops + count * size, compare, count * size);
        a->cmp = ops + count * size;
    }
    a->kind = (uint8_t)kind;
    a->complete = !((flags & FI_INJECT) && !context) &&
                  (!ep->tx_selective || (flags & FI_COMPLETION));
    a->node = node;
    a->wire = wire;
    a->addr = addr;
    a->dt = dt;
    a->op = op;
    a->count = count;
    a->res = result;
    a->context = context;
    for (size_t i = 0; i < count; i++) {
        a->el[i].slot = -1;
    }
    *ep->atomic_tail = a;
    ep->atomic_tail = &a->next;
    dnf_atomic_progress(ep);
    return 0;
}

static struct dnf_ep *ep_of(struct fid_ep *fep)
{
    return container_of(fep, struct dnf_ep, ep);
}

/* One local piece and one remote piece (iov limits 1). */
static int ioc1(const struct fi_ioc *iov, size_t count)
{
    return count == 1 && iov;
}

static ssize_t at_write(struct fid_ep *fep, const void *buf, size_t count, void *desc,
                        fi_addr_t dest, uint64_t addr, uint64_t key, enum fi_datatype dt,
                        enum fi_op op, void *context)
{
    (void)desc;
    return atomic_post(ep_of(fep), AK_WRITE, buf, count, NULL, NULL, dest, addr, key, dt,
                       op, context, ep_of(fep)->tx_op_flags & ~(uint64_t)FI_INJECT);
}

static ssize_t at_writev(struct fid_ep *fep, const struct fi_ioc *iov, void **desc,
                         size_t count, fi_addr_t dest, uint64_t addr, uint64_t key,
                         enum fi_datatype dt, enum fi_op op, void *context)
{
    if (!ioc1(iov, count)) {
        return -FI_EINVAL;
    }
    return at_write(fep, iov[0].addr, iov[0].count, desc ? desc[0] : NULL, dest, addr, key,
                    dt, op, context);
}

#define AT_MSG_FLAGS (FI_COMPLETION | FI_INJECT | FI_DELIVERY_COMPLETE | \
                      FI_TRANSMIT_COMPLETE | FI_INJECT_COMPLETE | FI_MORE)

static int msg_ok(const struct fi_msg_atomic *m, uint64_t flags)
{
    return m && ioc1(m->msg_iov, m->iov_count) && m->rma_iov_count == 1 && m->rma_iov &&
           m->rma_iov[0].count == m->msg_iov[0].count && !(flags & ~(uint64_t)AT_MSG_FLAGS);
}

static ssize_t at_writemsg(struct fid_ep *fep, const struct fi_msg_atomic *m, uint64_t flags)
{
    if (!msg_ok(m, flags)) {
        return -FI_EINVAL;
    }
    return atomic_post(ep_of(fep), AK_WRITE, m->msg_iov[0].addr, m->msg_iov[0].count, NULL,
                       NULL, m->addr, m->rma_iov[0].addr, m->rma_iov[0].key, m->datatype,
                       m->op, m->context, flags);
}

static ssize_t at_inject(struct fid_ep *fep, const void *buf, size_t count, fi_addr_t dest,
                         uint64_t addr, uint64_t key, enum fi_datatype dt, enum fi_op op)
{
    return atomic_post(ep_of(fep), AK_WRITE, buf, count, NULL, NULL, dest, addr, key, dt,
                       op, NULL, FI_INJECT);
}

static ssize_t at_fetch(struct fid_ep *fep, const void *buf, size_t count, void *desc,
                        void *result, void *result_desc, fi_addr_t dest, uint64_t addr,
                        uint64_t key, enum fi_datatype dt, enum fi_op op, void *context)
{
    (void)desc;
    (void)result_desc;
    return atomic_post(ep_of(fep), AK_FETCH, buf, count, NULL, result, dest, addr, key, dt,
                       op, context, ep_of(fep)->tx_op_flags & ~(uint64_t)FI_INJECT);
}

static ssize_t at_fetchv(struct fid_ep *fep, const struct fi_ioc *iov, void **desc,
                         size_t count, struct fi_ioc *resultv, void **result_desc,
                         size_t result_count, fi_addr_t dest, uint64_t addr, uint64_t key,
                         enum fi_datatype dt, enum fi_op op, void *context)
{
    if (!ioc1(iov, count) || !ioc1(resultv, result_count) ||
        resultv[0].count != iov[0].count) {
        return -FI_EINVAL;
    }
    return at_fetch(fep, iov[0].addr, iov[0].count, desc ? desc[0] : NULL, resultv[0].addr,
                    result_desc ? result_desc[0] : NULL, dest, addr, key, dt, op, context);
}

static ssize_t at_fetchmsg(struct fid_ep *fep, const struct fi_msg_atomic *m,
                           struct fi_ioc *resultv, void **result_desc, size_t result_count,
                           uint64_t flags)
{
    (void)result_desc;
    if (!msg_ok(m, flags) || (flags & FI_INJECT) || !ioc1(resultv, result_count) ||
        resultv[0].count != m->msg_iov[0].count) {
        return -FI_EINVAL;
    }
    return atomic_post(ep_of(fep), AK_FETCH, m->msg_iov[0].addr, m->msg_iov[0].count, NULL,
                       resultv[0].addr, m->addr, m->rma_iov[0].addr, m->rma_iov[0].key,
                       m->datatype, m->op, m->context, flags);
}

static ssize_t at_compare(struct fid_ep *fep, const void *buf, size_t count, void *desc,
                          const void *compare, void *compare_desc, void *result,
                          void *result_desc, fi_addr_t dest, uint64_t addr, uint64_t key,
                          enum fi_datatype dt, enum fi_op op, void *context)
{
    (void)desc;
    (void)compare_desc;
    (void)result_desc;
    return atomic_post(ep_of(fep), AK_COMPARE, buf, count, compare, result, dest, addr, key,
                       dt, op, context, ep_of(fep)->tx_op_flags & ~(uint64_t)FI_INJECT);
}

static ssize_t at_comparev(struct fid_ep *fep, const struct fi_ioc *iov, void **desc,
                           size_t count, const struct fi_ioc *comparev, void **compare_desc,
                           size_t compare_count, struct fi_ioc *resultv, void **result_desc,
                           size_t result_count, fi_addr_t dest, uint64_t addr, uint64_t key,
                           enum fi_datatype dt, enum fi_op op, void *context)
{
    if (!ioc1(iov, count) || !ioc1(comparev, compare_count) ||
        !ioc1(resultv, result_count) || comparev[0].count != iov[0].count ||
        resultv[0].count != iov[0].count) {
        return -FI_EINVAL;
    }
    return at_compare(fep, iov[0].addr, iov[0].count, desc ? desc[0] : NULL,
                      comparev[0].addr, compare_desc ? compare_desc[0] : NULL,
                      resultv[0].addr, result_desc ? result_desc[0] : NULL, dest, addr, key,
                      dt, op, context);
}

static ssize_t at_comparemsg(struct fid_ep *fep, const struct fi_msg_atomic *m,
                             const struct fi_ioc *comparev, void **compare_desc,
                             size_t compare_count, struct fi_ioc *resultv,
                             void **result_desc, size_t result_count, uint64_t flags)
{
    (void)compare_desc;
    (void)result_desc;
    if (!msg_ok(m, flags) || (flags & FI_INJECT) || !ioc1(comparev, compare_count) ||
        !ioc1(resultv, result_count) || comparev[0].count != m->msg_iov[0].count ||
        resultv[0].count != m->msg_iov[0].count) {
        return -FI_EINVAL;
    }
    return atomic_post(ep_of(fep), AK_COMPARE, m->msg_iov[0].addr, m->msg_iov[0].count,
                       comparev[0].addr, resultv[0].addr, m->addr, m->rma_iov[0].addr,
                       m->rma_iov[0].key, m->datatype, m->op, m->context, flags);
}

static int at_writevalid(struct fid_ep *fep, enum fi_datatype dt, enum fi_op op,
                         size_t *count)
{
    (void)fep;
    return valid(AK_WRITE, dt, op, count);
}

static int at_fetchvalid(struct fid_ep *fep, enum fi_datatype dt, enum fi_op op,
                         size_t *count)
{
    (void)fep;
    return valid(AK_FETCH, dt, op, count);
}

static int at_comparevalid(struct fid_ep *fep, enum fi_datatype dt, enum fi_op op,
                           size_t *count)
{
    (void)fep;
    return valid(AK_COMPARE, dt, op, count);
}

struct fi_ops_atomic dnf_atomic_ops = {
    .size = sizeof(struct fi_ops_atomic),
    .write = at_write,
    .writev = at_writev,
    .writemsg = at_writemsg,
    .inject = at_inject,
    .readwrite = at_fetch,
    .readwritev = at_fetchv,
    .readwritemsg = at_fetchmsg,
    .compwrite = at_compare,
    .compwritev = at_comparev,
    .compwritemsg = at_comparemsg,
    .writevalid = at_writevalid,
    .readwritevalid = at_fetchvalid,
    .compwritevalid = at_comparevalid,
};
