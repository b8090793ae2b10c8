/*
 * Blocking on a file descriptor: FI_WAIT_FD on completion queues and
 * counters, fi_control(FI_GETWAIT) and fi_trywait (fi_poll(3)).
 *
 * The card cannot wake its host: it sits in a DIMM slot, raises no
 * interrupt and only writes the host's memory, where the provider finds
 * what happened by polling (a landing, a notice, a completion record);
 * progress is manual. So while the application sleeps on an fd, the
 * provider's waiter thread polls for it: from a successful fi_trywait to
 * the application's next call into the provider, it drives progress in
 * turns (dn_idle between them, as fi_cq_sread does) and makes an armed
 * object's eventfd readable once its CQ holds an entry or its counter
 * moves. Every call into the provider takes the node back first
 * (dnf_enter: the waiter's turn under way ends, no other starts), so the
 * shim's node is never used by two threads at once; a process that never
 * calls fi_trywait pays one load a call and has no thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "dimmnet.h"

atomic_int dnf_waiter_armed;

static pthread_mutex_t wait_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wait_cond = PTHREAD_COND_INITIALIZER;
static struct dnf_waitfd *waitfds;       /* every FD object open */
static pthread_t waiter;
static int waiter_running, waiter_stop;

static struct dnf_domain *waitfd_dom(const struct dnf_waitfd *w)
{
    return w->cq ? w->cq->dom : w->cntr->dom;
}

/* Something the application has not seen yet? */
static int waitfd_ready(const struct dnf_waitfd *w)
{
    if (w->cq) {
        return w->cq->count != 0;
    }
    return atomic_load(&w->cntr->value) != w->value || atomic_load(&w->cntr->err) != w->err;
}

/* The fd readable (any thread: fi_cq_signal too). */
void dnf_waitfd_wake(struct dnf_waitfd *w)
{
    uint64_t one = 1;

    if (write(w->fd, &one, sizeof(one)) != sizeof(one) && errno != EAGAIN) {
        FI_WARN(&dnf_prov, FI_LOG_CQ, "eventfd write: %s\n", strerror(errno));
    }
}

static atomic_int armed_fds;             /* objects armed and not yet signalled */

/* w->armed set or cleared (wait_lock held). */
static void waitfd_set_armed(struct dnf_waitfd *w, int on)
{
    if (w->armed != on) {
        atomic_fetch_add(&armed_fds, on ? 1 : -1);
    }
    w->armed = on;
}

static void waitfd_signal(struct dnf_waitfd *w)
{
    dnf_waitfd_wake(w);
    waitfd_set_armed(w, 0);
}

/* One turn (wait_lock held): progress on each endpoint an FD object
 * completes for, once; armed objects with news signalled; an idle turn. */
static void waiter_turn(void)
{
    dn_node *node = NULL;

    for (struct dnf_waitfd *w = waitfds; w; w = w->next) {
        struct dnf_ep *ep = waitfd_dom(w)->ep;
        int seen = 0;

        for (struct dnf_waitfd *v = waitfds; v != w && !seen; v = v->next) {
            seen = waitfd_dom(v)->ep == ep;
        }
        if (ep && !seen) {
            dnf_progress(ep);
        }
        node = waitfd_dom(w)->node;
    }
    for (struct dnf_waitfd *w = waitfds; w; w = w->next) {
        if (w->armed && waitfd_ready(w)) {
            waitfd_signal(w);
        }
    }
    if (node) {
        dn_idle(node);
    }
}

static void *waiter_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&wait_lock);
    while (!waiter_stop) {
        if (!atomic_load(&dnf_waiter_armed)) {
            pthread_cond_wait(&wait_cond, &wait_lock);
            continue;
        }
        waiter_turn();
        /* Let a disarming caller in: it cleared the flag before it asked
         * for the lock, so it is seen at the top once we have the lock. */
        pthread_mutex_unlock(&wait_lock);
        pthread_mutex_lock(&wait_lock);
    }
    pthread_mutex_unlock(&wait_lock);
    return NULL;
}

void dnf_wait_disarm(void)
{
    atomic_store(&dnf_waiter_armed, 0);
    pthread_mutex_lock(&wait_lock);       /* the waiter's turn, if one runs, ends */
    pthread_mutex_unlock(&wait_lock);
}

/* The last FI_THREAD_SAFE holder leaving (dimmnet_thread.c): the waiter
 * runs again for the objects still armed, which another thread may be
 * sleeping on. */
void dnf_wait_rearm(void)
{
    if (!atomic_load_explicit(&armed_fds, memory_order_acquire) ||
        atomic_load_explicit(&dnf_waiter_armed, memory_order_acquire)) {
        return;
    }
    pthread_mutex_lock(&wait_lock);
    if (atomic_load(&armed_fds) && waiter_running) {
        atomic_store(&dnf_waiter_armed, 1);
        pthread_cond_signal(&wait_cond);
    }
    pthread_mutex_unlock(&wait_lock);
}

int dnf_waitfd_open(struct dnf_waitfd *w)
{
    w->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (w->fd < 0) {
        return -errno;
    }
    w->armed = 0;
    dnf_enter();
    pthread_mutex_lock(&wait_lock);
    w->next = waitfds;
    waitfds = w;
    pthread_mutex_unlock(&wait_lock);
    return 0;
}

/* Called with the node taken back (dnf_enter); the last object stops the
 * thread, so a process that closes everything leaves none behind. */
void dnf_waitfd_close(struct dnf_waitfd *w)
{
    pthread_t th;
    int join = 0;

    pthread_mutex_lock(&wait_lock);
    waitfd_set_armed(w, 0);
    for (struct dnf_waitfd **p = &waitfds; *p; p = &(*p)->next) {
        if (*p == w) {
            *p = w->next;
            break;
        }
    }
    if (!waitfds && waiter_running) {
        waiter_stop = 1;
        waiter_running = 0;
        th = waiter;
        join = 1;
        pthread_cond_signal(&wait_cond);
    }
    pthread_mutex_unlock(&wait_lock);
    if (join) {
        pthread_join(th, NULL);
        pthread_mutex_lock(&wait_lock);
        waiter_stop = 0;
        pthread_mutex_unlock(&wait_lock);
    }
    close(w->fd);
    w->fd = -1;
}

/* fi_trywait for one CQ or counter with FI_WAIT_FD: 0 and armed (the
 * waiter runs once the caller returns), -FI_EAGAIN when there is
 * something to read already (the caller reads instead of blocking). */
int dnf_waitfd_try(struct dnf_waitfd *w)
{
    uint64_t drain;
    int rc = 0;

    dnf_enter();
    while (read(w->fd, &drain, sizeof(drain)) == sizeof(drain)) {
    }
    if (waitfd_dom(w)->ep) {
        dnf_progress(waitfd_dom(w)->ep);
    }
    if (w->cq) {
        if (w->cq->count) {
            return -FI_EAGAIN;
        }
    } else {
        /* A counter: news is a value or error count its reader has not
         * read yet (fi_cntr_read, fi_cntr_readerr). */
        w->value = atomic_load(&w->cntr->value);
        w->err = atomic_load(&w->cntr->err);
        if (w->value != w->cntr->last_read || w->err != w->cntr->last_err) {
            return -FI_EAGAIN;
        }
    }
    pthread_mutex_lock(&wait_lock);
    waitfd_set_armed(w, 1);
    if (!waiter_running) {
        if (pthread_create(&waiter, NULL, waiter_main, NULL)) {
            rc = -FI_ENOMEM;
        } else {
            waiter_running = 1;
        }
    }
    if (!rc) {
        atomic_store(&dnf_waiter_armed, 1);
        pthread_cond_signal(&wait_cond);
    } else {
        waitfd_set_armed(w, 0);
    }
    pthread_mutex_unlock(&wait_lock);
    return rc;
}
