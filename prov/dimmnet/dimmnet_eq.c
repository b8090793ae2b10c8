/*
 * Event queues (fi_eq(3)): events in the order they were queued, error
 * entries among them (fi_eq_read answers -FI_EAVAIL when the next one is
 * an error; fi_eq_readerr takes it). What reports here: the application
 * itself (fi_eq_write), an FI_EVENT address vector bound to the EQ (one
 * FI_AV_COMPLETE per insertion, after an error entry per address that
 * failed), an endpoint bound to it (or to its domain) whose board went
 * away (FI_EIO, once), and fi_join_collective on such an endpoint
 * (FI_JOIN_COMPLETE, or an error entry). Control progress is manual: while
 * a join reports here, reading the EQ drives the endpoint's progress (and
 * an empty read is an idle turn), and fi_eq_sread polls instead of
 * sleeping. All of them are produced inside calls into the
 * provider, so an EQ's wait object is honest: an eventfd that is readable
 * exactly while an event waits (FI_WAIT_FD, fi_control FI_GETWAIT), also
 * used inside for FI_WAIT_UNSPEC; FI_WAIT_YIELD spins in fi_eq_sread.
 * Any thread may write an EQ while another waits on it: it has a lock.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "dimmnet.h"

#define DNF_EQ_SIZE 1024u        /* entries, when the attributes say 0 */

struct dnf_eq_ev {
    struct dnf_eq_ev *next;
    uint32_t event;
    int err;                     /* data is a struct fi_eq_err_entry */
    size_t len;
    uint8_t data[];
};

#define EQ(feq) container_of(feq, struct dnf_eq, eq)

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The eventfd follows "an event waits" (lock held): set by the first
 * event, cleared with the last; an overrun EQ stays readable. */
static void wake_set(struct dnf_eq *eq, int ready)
{
    uint64_t v = 1;

    if (eq->fd < 0) {
        return;
    }
    if (ready) {
        (void)!write(eq->fd, &v, sizeof(v));
    } else {
        (void)!read(eq->fd, &v, sizeof(v));
    }
}

int dnf_eq_report(struct dnf_eq *eq, uint32_t event, const void *buf, size_t len, int err)
{
    struct dnf_eq_ev *ev = malloc(sizeof(*ev) + len);

    if (!ev) {
        return -FI_ENOMEM;
    }
    ev->next = NULL;
    ev->event = event;
    ev->err = err;
    ev->len = len;
    if (len) {
        memcpy(ev->data, buf, len);
    }
    pthread_mutex_lock(&eq->lock);
    if (eq->overrun || eq->count == eq->size) {
        /* An event lost: the EQ is overrun for good (fi_eq(3) NOTES). */
        eq->overrun = 1;
        pthread_mutex_unlock(&eq->lock);
        free(ev);
        FI_WARN(&dnf_prov, FI_LOG_EQ, "event queue overrun (size %zu)\n", eq->size);
        return -FI_EOVERRUN;
    }
    *eq->tail = ev;
    eq->tail = &ev->next;
    if (eq->count++ == 0) {
        wake_set(eq, 1);
    }
    pthread_mutex_unlock(&eq->lock);
    return 0;
}

/* The first event goes (lock held). */
static void eq_pop(struct dnf_eq *eq)
{
    struct dnf_eq_ev *ev = eq->head;

    eq->head = ev->next;
    if (!eq->head) {
        eq->tail = &eq->head;
    }
    if (--eq->count == 0 && !eq->overrun) {
        wake_set(eq, 0);
    }
    free(ev);
}

static ssize_t eq_read(struct fid_eq *feq, uint32_t *event, void *buf, size_t len,
                       uint64_t flags)
{
    struct dnf_eq *eq = EQ(feq);
    struct dnf_eq_ev *ev;
    ssize_t n;

    if (flags & ~FI_PEEK) {
        return -FI_EBADFLAGS;
    }
    /* A join in flight moves when its EQ is read (fi_domain(3), manual
     * progress); no EQ lock is held meanwhile (progress reports here). */
    int joining = atomic_load(&eq->joins) && dnf_coll_eq_progress(eq);
    pthread_mutex_lock(&eq->lock);
    ev = eq->head;
    if (!ev) {
        n = eq->overrun ? -FI_EAVAIL : -FI_EAGAIN;   /* overrun: readerr says so */
    } else if (ev->err) {
        n = -FI_EAVAIL;
    } else if (len < ev->len || (ev->len && !buf)) {
        n = -FI_ETOOSMALL;       /* the event stays: nothing is cut silently */
    } else {
        if (event) {
            *event = ev->event;
        }
        if (ev->len) {
            memcpy(buf, ev->data, ev->len);
        }
        n = (ssize_t)ev->len;
        if (!(flags & FI_PEEK)) {
            eq_pop(eq);
        }
    }
    pthread_mutex_unlock(&eq->lock);
    if (n == -FI_EAGAIN && joining) {
        dnf_coll_eq_idle();      /* a turn of a polling loop, as an empty CQ read */
    }
    return n;
}

static ssize_t eq_readerr(struct fid_eq *feq, struct fi_eq_err_entry *buf, uint64_t flags)
{
    struct dnf_eq *eq = EQ(feq);
    struct dnf_eq_ev *ev;
    struct fi_eq_err_entry e;
    ssize_t n = sizeof(e);

    if (flags & ~FI_PEEK) {
        return -FI_EBADFLAGS;
    }
    pthread_mutex_lock(&eq->lock);
    ev = eq->head;
    if (ev && ev->err) {
        memcpy(&e, ev->data, sizeof(e));
        if (!(flags & FI_PEEK)) {
            eq_pop(eq);
        }
    } else if (!ev && eq->overrun) {
        /* Every read of an overrun EQ ends here once the events are read. */
        memset(&e, 0, sizeof(e));
        e.fid = &eq->eq.fid;
        e.context = eq->eq.fid.context;
        e.err = FI_EOVERRUN;
    } else {
        n = -FI_EAGAIN;
    }
    pthread_mutex_unlock(&eq->lock);
    if (n > 0) {
        /* No error carries err_data: the caller's buffer (1.5+) stays
         * untouched, and says 0 bytes. */
        void *err_data = buf->err_data_size ? buf->err_data : NULL;

        *buf = e;
        buf->err_data = err_data;
        buf->err_data_size = 0;
    }
    return n;
}

static ssize_t eq_write(struct fid_eq *feq, uint32_t event, const void *buf, size_t len,
                        uint64_t flags)
{
    int rc;

    if (flags) {
        return -FI_EBADFLAGS;
    }
    if (len && !buf) {
        return -FI_EINVAL;
    }
    rc = dnf_eq_report(EQ(feq), event, buf, len, 0);
    return rc ? rc : (ssize_t)len;
}

static ssize_t eq_sread(struct fid_eq *feq, uint32_t *event, void *buf, size_t len,
                        int timeout, uint64_t flags)
{
    struct dnf_eq *eq = EQ(feq);
    int64_t deadline = now_ms() + (timeout > 0 ? timeout : 0);

    if (eq->wait == FI_WAIT_NONE) {
        return -FI_EINVAL;       /* fi_eq(3): invalid without a wait object */
    }
    for (;;) {
        ssize_t n = eq_read(feq, event, buf, len, flags);
        int64_t left = deadline - now_ms();

        if (n != -FI_EAGAIN) {
            return n;
        }
        if (timeout >= 0 && left <= 0) {
            return -FI_EAGAIN;
        }
        if (atomic_load(&eq->joins)) {
            continue;                 /* a join needs our progress: eq_read's turns */
        }
        if (eq->fd >= 0) {
            struct pollfd p = { .fd = eq->fd, .events = POLLIN };

            /* Level-triggered: an event queued since the read is seen. */
            if (poll(&p, 1, timeout < 0 ? -1 : (int)left) < 0 && errno == EINTR) {
                return -FI_EAGAIN;    /* signaled (fi_eq(3)) */
            }
        } else {
            sched_yield();            /* FI_WAIT_YIELD */
        }
    }
}

static const char *eq_strerror(struct fid_eq *feq, int prov_errno, const void *err_data,
                               char *buf, size_t len)
{
    (void)feq;
    (void)err_data;
    return dnf_strerror(prov_errno, buf, len);   /* the shim's status, as on CQs */
}

static struct fi_ops_eq eq_ops = {
    .size = sizeof(struct fi_ops_eq),
    .read = eq_read,
    .readerr = eq_readerr,
    .write = eq_write,
    .sread = eq_sread,
    .strerror = eq_strerror,
};

static int eq_control(struct fid *fid, int command, void *arg)
{
    struct dnf_eq *eq = container_of(fid, struct dnf_eq, eq.fid);

    switch (command) {
    case FI_GETWAIT:
        if (eq->wait != FI_WAIT_FD) {
            return -FI_ENODATA;  /* UNSPEC: ours to choose, not handed out */
        }
        *(int *)arg = eq->fd;
        return 0;
    case FI_GETWAITOBJ:
        *(enum fi_wait_obj *)arg = eq->wait;
        return 0;
    default:
        return -FI_ENOSYS;
    }
}

static int eq_close(struct fid *fid)
{
    struct dnf_eq *eq = container_of(fid, struct dnf_eq, eq.fid);

    if (atomic_load(&eq->refs)) {
        return -FI_EBUSY;        /* still bound (fi_eq(3)) */
    }
    while (eq->head) {
        eq_pop(eq);
    }
    if (eq->fd >= 0) {
        close(eq->fd);
    }
    pthread_mutex_destroy(&eq->lock);
    atomic_fetch_sub(&eq->fab->refs, 1);
    free(eq);
    return 0;
}

static struct fi_ops eq_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = eq_close,
    .bind = dnf_no_bind,
    .control = eq_control,
    .ops_open = dnf_no_ops_open,
    .tostr = dnf_no_tostr,
    .ops_set = dnf_no_ops_set,
};

int dnf_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr, struct fid_eq **out,
                void *context)
{
    struct dnf_fabric *f = container_of(fabric, struct dnf_fabric, fab);
    enum fi_wait_obj wait = attr ? attr->wait_obj : FI_WAIT_NONE;
    struct dnf_eq *eq;

    if (attr && (attr->flags & ~(uint64_t)(FI_WRITE | FI_AFFINITY))) {
        return -FI_EBADFLAGS;
    }
    switch (wait) {
    case FI_WAIT_NONE:
    case FI_WAIT_UNSPEC:
    case FI_WAIT_FD:
    case FI_WAIT_YIELD:
        break;
    case FI_WAIT_SET:
    case FI_WAIT_MUTEX_COND:
    case FI_WAIT_POLLFD:
        FI_INFO(&dnf_prov, FI_LOG_EQ, "wait object %d: only an fd (or none)\n", wait);
        return -FI_ENOSYS;
    default:
        return -FI_EINVAL;
    }
    eq = calloc(1, sizeof(*eq));
    if (!eq) {
        return -FI_ENOMEM;
    }
    eq->fd = -1;
    if (wait == FI_WAIT_FD || wait == FI_WAIT_UNSPEC) {
        eq->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (eq->fd < 0) {
            int rc = -errno;

            free(eq);
            return rc;
        }
    }
    pthread_mutex_init(&eq->lock, NULL);
    eq->fab = f;
    eq->wait = wait;
    eq->size = attr && attr->size ? attr->size : DNF_EQ_SIZE;
    eq->tail = &eq->head;
    eq->eq.fid.fclass = FI_CLASS_EQ;
    eq->eq.fid.context = context;
    eq->eq.fid.ops = &eq_fi_ops;
    eq->eq.ops = &eq_ops;
    atomic_fetch_add(&f->refs, 1);
    *out = &eq->eq;
    return 0;
}

/*
 * fi_trywait (fi_poll(3)): may the caller block on these fds? EQs, CQs and
 * counters opened with FI_WAIT_FD have one; -FI_EAGAIN while something
 * waits to be read. A CQ or counter is armed: the waiter thread makes its
 * fd readable once there is news (dimmnet_wait.c). Any other fid, or one
 * without an fd: -FI_EINVAL.
 */
int dnf_trywait(struct fid_fabric *fabric, struct fid **fids, int count)
{
    (void)fabric;
    if (count < 0 || (count && !fids)) {
        return -FI_EINVAL;
    }
    for (int i = 0; i < count; i++) {
        struct dnf_waitfd *w = NULL;
        struct dnf_eq *eq;
        int busy;

        if (!fids[i]) {
            return -FI_EINVAL;
        }
        if (fids[i]->fclass == FI_CLASS_CQ) {
            struct dnf_cq *cq = container_of(fids[i], struct dnf_cq, cq.fid);

            w = cq->wait == FI_WAIT_FD ? &cq->wfd : NULL;
        } else if (fids[i]->fclass == FI_CLASS_CNTR) {
            struct dnf_cntr *c = container_of(fids[i], struct dnf_cntr, cntr.fid);

            w = c->wait == FI_WAIT_FD ? &c->wfd : NULL;
        } else if (fids[i]->fclass != FI_CLASS_EQ) {
            return -FI_EINVAL;
        }
        if (fids[i]->fclass != FI_CLASS_EQ) {
            int rc = w ? dnf_waitfd_try(w) : -FI_EINVAL;

            if (rc) {
                return rc;
            }
            continue;
        }
        eq = container_of(fids[i], struct dnf_eq, eq.fid);
        if (eq->wait != FI_WAIT_FD) {
            return -FI_EINVAL;
        }
        pthread_mutex_lock(&eq->lock);
        busy = eq->count || eq->overrun || atomic_load(&eq->joins);   /* joins: progress */
        pthread_mutex_unlock(&eq->lock);
        if (busy) {
            return -FI_EAGAIN;
        }
    }
    return 0;
}
