/*
 * Completion counters (fi_cntr(3)): FI_CNTR_EVENTS_COMP only. An endpoint
 * bumps the counters bound to it once per operation of the bound kind that
 * completes (FI_SEND, FI_RECV, FI_WRITE, FI_READ), successful or not (the
 * error count), whether or not it writes a CQ entry; at the target,
 * FI_REMOTE_WRITE counts writes that carried remote CQ data, and
 * FI_REMOTE_WRITE / FI_REMOTE_READ the writes and reads the initiator
 * announced (RMA events, FI_RMA_EVENT: dimmnet.h); the NIC serves the
 * others with no software there, so no one learns of them. A counter bound
 * to a registration (fi_mr_bind) counts that registration's events. Reading a counter drives progress, as reading a CQ does;
 * fi_cntr_wait drives it in turns (dn_idle) until the threshold, an error
 * or the timeout. With FI_WAIT_FD the counter also hands out an eventfd
 * (FI_GETWAIT), readable after fi_trywait once the value or the error
 * count moves past what fi_cntr_read / fi_cntr_readerr last answered
 * (dimmnet_wait.c).
 */
#include <stdlib.h>
#include <time.h>
#include "dimmnet.h"

static struct dnf_cntr *cntr_of(struct fid_cntr *fc)
{
    return container_of(fc, struct dnf_cntr, cntr);
}

static void cntr_progress(struct dnf_cntr *c)
{
    dnf_enter();
    if (c->dom->ep) {
        dnf_progress(c->dom->ep);
    }
}

/* A read that finds the value it found last time is an idle turn of the
 * caller's polling loop (dn_idle), as an empty CQ read is. */
static uint64_t cntr_read(struct fid_cntr *fc)
{
    struct dnf_cntr *c = cntr_of(fc);

    cntr_progress(c);
    uint64_t v = atomic_load(&c->value);
    if (v == c->last_read && c->dom->ep) {
        dnf_poll_idle(c->dom->node);
    }
    c->last_read = v;
    return v;
}

static uint64_t cntr_readerr(struct fid_cntr *fc)
{
    struct dnf_cntr *c = cntr_of(fc);

    cntr_progress(c);
    c->last_err = atomic_load(&c->err);
    return c->last_err;
}

static int cntr_add(struct fid_cntr *fc, uint64_t v)
{
    atomic_fetch_add(&cntr_of(fc)->value, v);
    return 0;
}

static int cntr_set(struct fid_cntr *fc, uint64_t v)
{
    atomic_store(&cntr_of(fc)->value, v);
    return 0;
}

static int cntr_adderr(struct fid_cntr *fc, uint64_t v)
{
    atomic_fetch_add(&cntr_of(fc)->err, v);
    return 0;
}

static int cntr_seterr(struct fid_cntr *fc, uint64_t v)
{
    atomic_store(&cntr_of(fc)->err, v);
    return 0;
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Until the value reaches @threshold (0), an error is counted
 * (-FI_EAVAIL), or @timeout ms pass (-FI_ETIMEDOUT; -1: no limit). */
static int cntr_wait(struct fid_cntr *fc, uint64_t threshold, int timeout)
{
    struct dnf_cntr *c = cntr_of(fc);
    uint64_t err0 = atomic_load(&c->err);
    int64_t deadline = timeout < 0 ? INT64_MAX : now_ms() + timeout;

    if (c->wait == FI_WAIT_NONE) {
        return -FI_EINVAL;       /* fi_cntr(3): no wait object, no waiting */
    }
    for (;;) {
        cntr_progress(c);
        if (atomic_load(&c->value) >= threshold) {
            return 0;
        }
        if (atomic_load(&c->err) != err0) {
            return -FI_EAVAIL;
        }
        if (now_ms() >= deadline) {
            return -FI_ETIMEDOUT;
        }
        dnf_poll_idle(c->dom->node);
    }
}

static struct fi_ops_cntr cntr_ops = {
    .size = sizeof(struct fi_ops_cntr),
    .read = cntr_read,
    .readerr = cntr_readerr,
    .add = cntr_add,
    .set = cntr_set,
    .wait = cntr_wait,
    .adderr = cntr_adderr,
    .seterr = cntr_seterr,
};

static int cntr_close(struct fid *fid)
{
    struct dnf_cntr *c = container_of(fid, struct dnf_cntr, cntr.fid);

    dnf_enter();
    if (c->refs) {
        return -FI_EBUSY;
    }
    if (c->wait == FI_WAIT_FD) {
        dnf_waitfd_close(&c->wfd);
    }
    c->dom->refs--;
    free(c);
    return 0;
}

static int cntr_control(struct fid *fid, int command, void *arg)
{
    struct dnf_cntr *c = container_of(fid, struct dnf_cntr, cntr.fid);

    switch (command) {
    case FI_GETWAIT:
        if (!arg) {
            return -FI_EINVAL;
        }
        if (c->wait != FI_WAIT_FD) {
            return -FI_ENODATA;  /* waiting is progress in turns: no fd to hand out */
        }
        *(int *)arg = c->wfd.fd;
        return 0;
    case FI_GETWAITOBJ:
        *(enum fi_wait_obj *)arg = c->wait;
        return 0;
    default:
        return -FI_ENOSYS;
    }
}

static struct fi_ops cntr_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = cntr_close,
    .bind = dnf_no_bind,
    .control = cntr_control,
    .ops_open = dnf_no_ops_open,
    .tostr = dnf_no_tostr,
    .ops_set = dnf_no_ops_set,
};

int dnf_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
                  struct fid_cntr **out, void *context)
{
    struct dnf_domain *d = container_of(domain, struct dnf_domain, dom);
    enum fi_wait_obj wait = attr ? attr->wait_obj : FI_WAIT_UNSPEC;
    struct dnf_cntr *c;

    if (!out || (attr && (attr->events != FI_CNTR_EVENTS_COMP || attr->flags ||
                          attr->wait_set))) {
        return -FI_EINVAL;
    }
    if (wait != FI_WAIT_NONE && wait != FI_WAIT_UNSPEC && wait != FI_WAIT_YIELD &&
        wait != FI_WAIT_FD) {
        return -FI_ENOSYS;       /* no mutex or set: waiting is progress */
    }
    if (!(c = calloc(1, sizeof(*c)))) {
        return -FI_ENOMEM;
    }
    c->dom = d;
    c->wait = wait;
    c->wfd.cntr = c;
    if (wait == FI_WAIT_FD) {
        int rc = dnf_waitfd_open(&c->wfd);

        if (rc) {
            free(c);
            return rc;
        }
    }
    atomic_init(&c->value, 0);
    atomic_init(&c->err, 0);
    c->cntr.fid.fclass = FI_CLASS_CNTR;
    c->cntr.fid.context = context;
    c->cntr.fid.ops = &cntr_fi_ops;
    c->cntr.ops = &cntr_ops;
    dnf_domain_ref(d);     /* other threads may open and close too */
    *out = &c->cntr;
    return 0;
}

static void bind_one(struct dnf_cntr **slot, struct dnf_cntr *c)
{
    if (*slot) {
        (*slot)->refs--;
    }
    *slot = c;
    c->refs++;
}

#define CNTR_BIND_FLAGS (FI_SEND | FI_RECV | FI_WRITE | FI_READ | FI_REMOTE_WRITE | \
                         FI_REMOTE_READ)

int dnf_cntr_bind(struct dnf_ep *ep, struct dnf_cntr *c, uint64_t flags)
{
    if (!flags || (flags & ~(uint64_t)CNTR_BIND_FLAGS) || c->dom != ep->dom) {
        return flags & ~(uint64_t)CNTR_BIND_FLAGS ? -FI_EBADFLAGS : -FI_EINVAL;
    }
    if (flags & FI_SEND) {
        bind_one(&ep->cntr_send, c);
    }
    if (flags & FI_RECV) {
        bind_one(&ep->cntr_recv, c);
    }
    if (flags & FI_WRITE) {
        bind_one(&ep->cntr_write, c);
    }
    if (flags & FI_READ) {
        bind_one(&ep->cntr_read, c);
    }
    if (flags & FI_REMOTE_WRITE) {
        bind_one(&ep->cntr_rwrite, c);
    }
    if (flags & FI_REMOTE_READ) {
        bind_one(&ep->cntr_rread, c);    /* announced reads only (FI_RMA_EVENT) */
    }
    return 0;
}

void dnf_cntr_unbind(struct dnf_ep *ep)
{
    struct dnf_cntr **all[] = { &ep->cntr_send, &ep->cntr_recv, &ep->cntr_write,
                                &ep->cntr_read, &ep->cntr_rwrite, &ep->cntr_rread };

    for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        if (*all[i]) {
            (*all[i])->refs--;
            *all[i] = NULL;
        }
    }
}
