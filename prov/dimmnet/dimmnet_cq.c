/*
 * Completion queues: a ring of completions in the order they happened,
 * error entries among them (fi_cq_read answers -FI_EAVAIL when the next
 * one is an error; fi_cq_readerr takes it). Reading drives progress, so an
 * application that only polls its CQ makes everything move.
 *
 * Waiting: FI_WAIT_UNSPEC, FI_WAIT_YIELD and FI_WAIT_FD let fi_cq_sread
 * block, which here means driving progress in turns (dn_idle between them)
 * until a completion, the timeout or fi_cq_signal. FI_WAIT_FD also hands
 * out an eventfd (FI_GETWAIT) to sleep on after fi_trywait: the provider's
 * waiter thread polls for the sleeper (dimmnet_wait.c), since the NIC can
 * tell the host nothing through an interrupt. Wait sets, mutex/cond and
 * pollfd objects are refused (-FI_ENOSYS).
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dimmnet.h"

static struct dnf_ep *cq_ep(struct dnf_cq *cq)
{
    return cq->dom->ep;
}

static int cq_close(struct fid *fid)
{
    struct dnf_cq *cq = container_of(fid, struct dnf_cq, cq.fid);

    dnf_enter();
    if (cq->refs) {
        return -FI_EBUSY;        /* an endpoint still completes here (fi_cq(3)) */
    }
    if (cq->wait == FI_WAIT_FD) {
        dnf_waitfd_close(&cq->wfd);
    }
    cq->dom->refs--;
    free(cq->ring);
    free(cq);
    return 0;
}

static int cq_control(struct fid *fid, int command, void *arg)
{
    struct dnf_cq *cq = container_of(fid, struct dnf_cq, cq.fid);

    switch (command) {
    case FI_GETWAIT:
        if (!arg) {
            return -FI_EINVAL;
        }
        if (cq->wait != FI_WAIT_FD) {
            return -FI_ENODATA;  /* no native wait object (above) */
        }
        *(int *)arg = cq->wfd.fd;
        return 0;
    case FI_GETWAITOBJ:
        *(enum fi_wait_obj *)arg = cq->wait;
        return 0;
    default:
        return -FI_ENOSYS;
    }
}

static struct fi_ops cq_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = cq_close,
    .bind = dnf_no_bind,
    .control = cq_control,
    .ops_open = dnf_no_ops_open,
    .tostr = dnf_no_tostr,
    .ops_set = dnf_no_ops_set,
};

int dnf_cq_push(struct dnf_cq *cq, const struct dnf_comp *c)
{
    if (cq->count == cq->size) {
        /* Overrun: FI_RM_ENABLED means we never post past it (see tx/rx sizes). */
        FI_WARN(&dnf_prov, FI_LOG_CQ, "completion queue overrun\n");
        return -FI_EOVERRUN;
    }
    cq->ring[(cq->head + cq->count++) % cq->size] = *c;
    /* A message's completion (an RMA's is charged with its call). */
    if (0 && !(c->e.flags & (FI_RMA | FI_ATOMIC))) {
        dn_host_work(cq->dom->node, DN_HOST_INSNS, cq->dom->charge.completion);
    }
    return 0;
}

static size_t entry_size(enum fi_cq_format f)
{
    switch (f) {
    case FI_CQ_FORMAT_CONTEXT: return sizeof(struct fi_cq_entry);
    case FI_CQ_FORMAT_MSG:     return sizeof(struct fi_cq_msg_entry);
    case FI_CQ_FORMAT_DATA:    return sizeof(struct fi_cq_data_entry);
    default:                   return sizeof(struct fi_cq_tagged_entry);
    }
}

/* Progress, then take what is there (no idle turn). */
static ssize_t cq_take(struct dnf_cq *cq, void *buf, size_t count, fi_addr_t *src)
{
    size_t n = 0, esz = entry_size(cq->format);

    dnf_enter();
    dn_host_work(cq->dom->node, DN_HOST_INSNS, cq->dom->charge.turn);
    if (cq_ep(cq)) {
        dnf_progress(cq_ep(cq));
    }
    while (n < count && cq->count) {
        struct dnf_comp *c = &cq->ring[cq->head];

        if (c->err) {
            break;
        }
        memcpy((uint8_t *)buf + n * esz, &c->e, esz);   /* each format is a prefix */
        if (src) {
            src[n] = c->src;
        }
        cq->head = (cq->head + 1) % cq->size;
        cq->count--;
        n++;
    }
    if (n) {
        return (ssize_t)n;
    }
    return cq->count ? -FI_EAVAIL : -FI_EAGAIN;
}

static ssize_t cq_readfrom(struct fid_cq *fcq, void *buf, size_t count,
                           fi_addr_t *src)
{
    struct dnf_cq *cq = container_of(fcq, struct dnf_cq, cq);
    ssize_t n = cq_take(cq, buf, count, src);

    if (n == -FI_EAGAIN && cq_ep(cq)) {
        /* An empty poll is one turn of a polling loop (dn_idle). Without
         * it a consumer that spins on fi_cq_read (Open MPI, fabtests)
         * keeps the CPU from the processes that are the NIC: on 2 cores a
         * small message then took 4 ms a hop, one scheduler slice. Under
         * host sync the turn is what lets virtual time pass (else the
         * boards would wait for us forever). */
        dnf_poll_idle(cq->dom->node);
    }
    return n;
}

static ssize_t cq_read(struct fid_cq *fcq, void *buf, size_t count)
{
    return cq_readfrom(fcq, buf, count, NULL);
}

static ssize_t cq_readerr(struct fid_cq *fcq, struct fi_cq_err_entry *buf,
                          uint64_t flags)
{
    struct dnf_cq *cq = container_of(fcq, struct dnf_cq, cq);
    struct dnf_comp *c;
    size_t err_data_size = buf->err_data_size;   /* in: room the caller gave (1.5+) */

    (void)flags;
    dnf_enter();
    if (!cq->count || !cq->ring[cq->head].err) {
        return -FI_EAGAIN;
    }
    c = &cq->ring[cq->head];
    memset(buf, 0, sizeof(*buf));
    buf->op_context = c->e.op_context;
    buf->flags = c->e.flags;
    buf->len = c->e.len;
    buf->buf = c->e.buf;
    buf->tag = c->e.tag;
    buf->olen = c->olen;
    buf->err = c->err;
    buf->prov_errno = c->prov_errno;
    (void)err_data_size;
    buf->err_data_size = 0;
    cq->head = (cq->head + 1) % cq->size;
    cq->count--;
    return 1;
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Block (fi_cq(3)): turns of progress until a completion, the timeout
 * (ms of wall clock; negative: none) or fi_cq_signal. The condition is a
 * hint (fi_cq(3)) and is not waited for. */
static ssize_t cq_sreadfrom(struct fid_cq *fcq, void *buf, size_t count,
                            fi_addr_t *src, const void *cond, int timeout)
{
    struct dnf_cq *cq = container_of(fcq, struct dnf_cq, cq);
    int64_t deadline = now_ms() + (timeout > 0 ? timeout : 0);

    (void)cond;
    if (cq->wait == FI_WAIT_NONE) {
        return -FI_EINVAL;       /* fi_cq(3): invalid without a wait object */
    }
    for (;;) {
        ssize_t n = cq_take(cq, buf, count, src);

        if (n != -FI_EAGAIN) {
            return n;
        }
        /* A signal sent while nobody waited wakes the next wait, as it
         * would have woken this one. */
        if (atomic_exchange(&cq->signaled, 0) ||
            (timeout >= 0 && now_ms() >= deadline)) {
            return -FI_EAGAIN;
        }
        if (cq->wait == FI_WAIT_YIELD && !dn_host_sync(cq->dom->node)) {
            sched_yield();
        } else {
            dnf_poll_idle(cq->dom->node);
        }
    }
}

static ssize_t cq_sread(struct fid_cq *fcq, void *buf, size_t count,
                        const void *cond, int timeout)
{
    return cq_sreadfrom(fcq, buf, count, NULL, cond, timeout);
}

/* Any thread may call it while another waits in fi_cq_sread, or in
 * poll(2) on the CQ's FI_WAIT_FD fd. */
static int cq_signal(struct fid_cq *fcq)
{
    struct dnf_cq *cq = container_of(fcq, struct dnf_cq, cq);

    if (cq->wait == FI_WAIT_NONE) {
        return -FI_EINVAL;       /* only with a wait object (fi_cq(3)) */
    }
    atomic_store(&cq->signaled, 1);
    if (cq->wait == FI_WAIT_FD) {
        dnf_waitfd_wake(&cq->wfd);   /* a poll(2) on its fd ends too */
    }
    return 0;
}

static const char *cq_strerror(struct fid_cq *fcq, int prov_errno,
                               const void *err_data, char *buf, size_t len)
{
    (void)fcq;
    (void)err_data;
    return dnf_strerror(prov_errno, buf, len);
}

static struct fi_ops_cq cq_ops = {
    .size = sizeof(struct fi_ops_cq),
    .read = cq_read,
    .readfrom = cq_readfrom,
    .readerr = cq_readerr,
    .sread = cq_sread,
    .sreadfrom = cq_sreadfrom,
    .signal = cq_signal,
    .strerror = cq_strerror,
};

int dnf_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
                struct fid_cq **out, void *context)
{
    struct dnf_domain *d = container_of(domain, struct dnf_domain, dom);
    enum fi_wait_obj wait = attr ? attr->wait_obj : FI_WAIT_NONE;
    struct dnf_cq *cq;

    switch (wait) {
    case FI_WAIT_NONE:
    case FI_WAIT_UNSPEC:
    case FI_WAIT_YIELD:
    case FI_WAIT_FD:
        break;
    case FI_WAIT_SET:
    case FI_WAIT_MUTEX_COND:
    case FI_WAIT_POLLFD:
        FI_INFO(&dnf_prov, FI_LOG_CQ, "wait object %d: only FI_WAIT_NONE, "
                "FI_WAIT_UNSPEC, FI_WAIT_YIELD, FI_WAIT_FD\n", wait);
        return -FI_ENOSYS;
    default:
        return -FI_EINVAL;
    }
    if (attr && attr->format == FI_CQ_FORMAT_UNSPEC) {
        attr->format = FI_CQ_FORMAT_TAGGED;
    }
    cq = calloc(1, sizeof(*cq));
    if (!cq) {
        return -FI_ENOMEM;
    }
    cq->dom = d;
    cq->wait = wait;
    cq->format = attr ? attr->format : FI_CQ_FORMAT_TAGGED;
    cq->size = attr && attr->size ? attr->size : 1024;
    if (cq->size < 1024) {
        cq->size = 1024;    /* tx and rx sizes are 256 each */
    }
    cq->ring = calloc(cq->size, sizeof(*cq->ring));
    if (!cq->ring) {
        free(cq);
        return -FI_ENOMEM;
    }
    cq->wfd.cq = cq;
    if (wait == FI_WAIT_FD) {
        int rc = dnf_waitfd_open(&cq->wfd);

        if (rc) {
            free(cq->ring);
            free(cq);
            return rc;
        }
    }
    cq->cq.fid.fclass = FI_CLASS_CQ;
    cq->cq.fid.context = context;
    cq->cq.fid.ops = &cq_fi_ops;
    cq->cq.ops = &cq_ops;
    dnf_domain_ref(d);     /* other threads may open and close too */
    *out = &cq->cq;
    return 0;
}
