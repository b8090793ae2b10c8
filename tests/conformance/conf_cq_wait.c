/*
 * Waiting on a completion queue, as fi_cq(3) describes it:
 *   open_wait        FI_WAIT_NONE, FI_WAIT_UNSPEC, FI_WAIT_YIELD, FI_WAIT_FD
 *                    taken; FI_WAIT_SET, FI_WAIT_MUTEX_COND, FI_WAIT_POLLFD
 *                    refused (-FI_ENOSYS), the CQ pointer untouched;
 *                    FI_GETWAITOBJ says which; FI_GETWAIT hands out an fd
 *                    for FI_WAIT_FD only (else -FI_ENODATA), and fi_trywait
 *                    refuses a CQ without one (-FI_EINVAL); the same for
 *                    counters
 *   sread_timeout    an empty CQ: fi_cq_sread and fi_cq_sreadfrom return
 *                    -FI_EAGAIN after their timeout (not much before, not
 *                    much after), 0 at once; FI_WAIT_NONE refuses both and
 *                    fi_cq_signal (-FI_EINVAL)
 *   sread_completion a receive and a send to the endpoint itself: sread
 *                    (no timeout worth reaching) returns their completions,
 *                    sreadfrom the source; the data arrived
 *   signal_wakes     fi_cq_signal from another thread ends a blocked sread
 *                    (-FI_EAGAIN) long before its timeout
 *   signal_pending   a signal with nobody waiting ends the next sread at
 *                    once, and only that one
 *   poll_idles       4,000 empty fi_cq_read calls, and 4,000 fi_cntr_read
 *                    calls that find the value they found before, give the
 *                    CPU away (the thread's voluntary context switches rise
 *                    by 1,000 or more each; the first 128 idle turns after
 *                    any NIC activity only yield, so not every call
 *                    sleeps, and 2,000 once gave 988): a consumer spinning on them
 *                    (Open MPI, fabtests) must not starve the processes
 *                    that are the NIC (it took 4 ms a hop on 2 cores)
 *   fd_idle          FI_WAIT_FD, nothing coming: after fi_trywait (0) the
 *                    fd stays unreadable for poll's whole 300 ms; sread
 *                    still times out; fi_cq_signal from another thread
 *                    ends a poll on the fd; a canceled receive (an error
 *                    entry) makes fi_trywait answer -FI_EAGAIN
 *   fd_wakes         FI_WAIT_FD: 1 MiB from the endpoint to itself (FIRST,
 *                    CTS, the rest, DONE: progress on both sides) while the
 *                    caller sleeps in poll(2) between fi_trywait calls:
 *                    every poll ends readable (none times out), few reads
 *                    (the caller slept; the provider's waiter thread drove
 *                    progress), every byte; then fi_trywait with an entry
 *                    unread: -FI_EAGAIN
 *   fd_cntr          a counter with FI_WAIT_FD counting sends and receives:
 *                    its fd stays unreadable while nothing moves, and
 *                    wakes a poll(2) sleeper for each step of 1 MiB to
 *                    itself until the count is 2
 *
 *   conf_cq_wait [CASE]   (under dimmnet-cluster -n 2: each node on its own;
 *                          a message to itself needs the switch)
 */
#define _GNU_SOURCE     /* RUSAGE_THREAD */
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>
#include "conf_util.h"

static struct conf_ep c;

static void setup(void)
{
    struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_UNSPEC };

    conf_ep_open(&c, &attr);
}

static void teardown(void)
{
    conf_ep_close(&c);
}

static void test_open_wait(void)
{
    enum fi_wait_obj no[] = { FI_WAIT_SET, FI_WAIT_MUTEX_COND, FI_WAIT_POLLFD };
    enum fi_wait_obj ok[] = { FI_WAIT_NONE, FI_WAIT_UNSPEC, FI_WAIT_YIELD, FI_WAIT_FD };
    struct fid *fids[1] = { &c.cq->fid };
    enum fi_wait_obj got = FI_WAIT_SET;
    int fd = -1;

    for (unsigned i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_TAGGED, .wait_obj = no[i] };
        struct fid_cq *cq = NULL;

        EXPECT(fi_cq_open(c.domain, &attr, &cq, NULL), -FI_ENOSYS);
        CHECK(cq == NULL);
    }
    for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_TAGGED, .wait_obj = ok[i] };
        struct fid_cq *cq = NULL;

        EXPECT(fi_cq_open(c.domain, &attr, &cq, NULL), 0);
        if (cq) {
            EXPECT(fi_control(&cq->fid, FI_GETWAITOBJ, &got), 0);
            CHECK_EQ(got, ok[i]);
            fd = -1;
            EXPECT(fi_control(&cq->fid, FI_GETWAIT, &fd), ok[i] == FI_WAIT_FD ? 0 : -FI_ENODATA);
            CHECK(ok[i] == FI_WAIT_FD ? fd >= 0 : fd == -1);
            EXPECT(fi_close(&cq->fid), 0);
        }
        struct fi_cntr_attr cattr = { .events = FI_CNTR_EVENTS_COMP, .wait_obj = ok[i] };
        struct fid_cntr *cntr = NULL;

        EXPECT(fi_cntr_open(c.domain, &cattr, &cntr, NULL), 0);
        if (cntr) {
            struct fid *cfids[1] = { &cntr->fid };

            EXPECT(fi_control(&cntr->fid, FI_GETWAITOBJ, &got), 0);
            CHECK_EQ(got, ok[i]);
            fd = -1;
            EXPECT(fi_control(&cntr->fid, FI_GETWAIT, &fd), ok[i] == FI_WAIT_FD ? 0 : -FI_ENODATA);
            CHECK(ok[i] == FI_WAIT_FD ? fd >= 0 : fd == -1);
            if (ok[i] != FI_WAIT_FD) {
                EXPECT(fi_trywait(c.fabric, cfids, 1), -FI_EINVAL);
            }
            EXPECT(fi_close(&cntr->fid), 0);
        }
    }
    for (unsigned i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        struct fi_cntr_attr cattr = { .events = FI_CNTR_EVENTS_COMP, .wait_obj = no[i] };
        struct fid_cntr *cntr = NULL;

        EXPECT(fi_cntr_open(c.domain, &cattr, &cntr, NULL), -FI_ENOSYS);
        CHECK(cntr == NULL);
    }
    fd = -1;
    struct fi_cq_attr bad = { .format = FI_CQ_FORMAT_TAGGED, .wait_obj = (enum fi_wait_obj)99 };
    struct fid_cq *cq = NULL;
    EXPECT(fi_cq_open(c.domain, &bad, &cq, NULL), -FI_EINVAL);
    EXPECT(fi_control(&c.cq->fid, FI_GETWAIT, &fd), -FI_ENODATA);
    EXPECT(fi_trywait(c.fabric, fids, 1), -FI_EINVAL);
}

static void test_sread_timeout(void)
{
    struct fi_cq_tagged_entry e;
    fi_addr_t src;
    int64_t t0, dt;
    uint64_t rbuf;
    struct fi_context rctx;

    /* A receive nothing will match keeps progress busy meanwhile (from any
     * source: a directed one would be advertised, and could not be
     * canceled). */
    EXPECT(fi_trecv(c.ep, &rbuf, sizeof(rbuf), NULL, FI_ADDR_UNSPEC, 0xdead, 0, &rctx), 0);
    t0 = conf_now_ms();
    EXPECT(fi_cq_sread(c.cq, &e, 1, NULL, 300), -FI_EAGAIN);
    dt = conf_now_ms() - t0;
    CHECK_MSG(dt >= 295 && dt < 5000, "sread(300 ms) took %lld ms", (long long)dt);
    t0 = conf_now_ms();
    EXPECT(fi_cq_sreadfrom(c.cq, &e, 1, &src, NULL, 200), -FI_EAGAIN);
    dt = conf_now_ms() - t0;
    CHECK_MSG(dt >= 195 && dt < 5000, "sreadfrom(200 ms) took %lld ms", (long long)dt);
    t0 = conf_now_ms();
    EXPECT(fi_cq_sread(c.cq, &e, 1, NULL, 0), -FI_EAGAIN);
    CHECK(conf_now_ms() - t0 < 1000);
    /* The receive goes (canceled: an error entry), sread says so. */
    EXPECT(fi_cancel(&c.ep->fid, &rctx), 0);
    EXPECT(fi_cq_sread(c.cq, &e, 1, NULL, 1000), -FI_EAVAIL);
    struct fi_cq_err_entry err = { 0 };
    EXPECT(fi_cq_readerr(c.cq, &err, 0), 1);
    CHECK_EQ(err.err, FI_ECANCELED);

    /* FI_WAIT_YIELD waits the same way. */
    struct fi_cq_attr yattr = { .format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_YIELD };
    struct fid_cq *ycq;
    MUST(fi_cq_open(c.domain, &yattr, &ycq, NULL));
    t0 = conf_now_ms();
    EXPECT(fi_cq_sread(ycq, &e, 1, NULL, 150), -FI_EAGAIN);
    dt = conf_now_ms() - t0;
    CHECK_MSG(dt >= 145 && dt < 5000, "yield: sread(150 ms) took %lld ms", (long long)dt);
    EXPECT(fi_close(&ycq->fid), 0);

    /* No wait object: no blocking read, nothing to signal. */
    struct fi_cq_attr nattr = { .format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_NONE };
    struct fid_cq *ncq;
    MUST(fi_cq_open(c.domain, &nattr, &ncq, NULL));
    EXPECT(fi_cq_sread(ncq, &e, 1, NULL, 100), -FI_EINVAL);
    EXPECT(fi_cq_sreadfrom(ncq, &e, 1, &src, NULL, 100), -FI_EINVAL);
    EXPECT(fi_cq_signal(ncq), -FI_EINVAL);
    EXPECT(fi_close(&ncq->fid), 0);
}

static void test_sread_completion(void)
{
    uint8_t out[1000], in[1000];
    struct fi_context rctx, sctx;
    struct fi_cq_tagged_entry e[2];
    fi_addr_t src[2] = { FI_ADDR_NOTAVAIL, FI_ADDR_NOTAVAIL };
    int got = 0, recv_seen = 0, send_seen = 0;
    int64_t deadline = conf_now_ms() + 20000;

    for (unsigned i = 0; i < sizeof(out); i++) {
        out[i] = (uint8_t)(i * 13 + 1);
    }
    memset(in, 0, sizeof(in));
    EXPECT(fi_trecv(c.ep, in, sizeof(in), NULL, c.self, 0x51, 0, &rctx), 0);
    EXPECT(fi_tsend(c.ep, out, sizeof(out), NULL, c.self, 0x51, &sctx), 0);
    while (got < 2 && conf_now_ms() < deadline) {
        ssize_t n = fi_cq_sreadfrom(c.cq, e, 2, src, NULL, 20000);

        CHECK_MSG(n > 0, "fi_cq_sreadfrom: %zd (%s)", n, n < 0 ? fi_strerror((int)-n) : "");
        if (n <= 0) {
            break;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (e[i].op_context == &rctx) {
                recv_seen++;
                CHECK((e[i].flags & (FI_RECV | FI_TAGGED)) == (FI_RECV | FI_TAGGED));
                CHECK_EQ(e[i].len, sizeof(in));
                CHECK_EQ(e[i].tag, 0x51);
                CHECK_EQ(src[i], c.self);
            } else if (e[i].op_context == &sctx) {
                send_seen++;
                CHECK(e[i].flags & FI_SEND);
            } else {
                CHECK_MSG(0, "completion of an unknown context %p", e[i].op_context);
            }
        }
        got += (int)n;
    }
    CHECK_EQ(recv_seen, 1);
    CHECK_EQ(send_seen, 1);
    CHECK(memcmp(in, out, sizeof(in)) == 0);
}

struct signaller {
    struct fid_cq *cq;
    int delay_ms;
    int rc;
};

static void *signal_later(void *arg)
{
    struct signaller *s = arg;

    usleep((useconds_t)s->delay_ms * 1000);
    s->rc = fi_cq_signal(s->cq);
    return NULL;
}

static void test_signal_wakes(void)
{
    struct signaller s = { c.cq, 300, -1 };
    struct fi_cq_tagged_entry e;
    pthread_t th;
    int64_t t0 = conf_now_ms(), dt;

    pthread_create(&th, NULL, signal_later, &s);
    EXPECT(fi_cq_sread(c.cq, &e, 1, NULL, 20000), -FI_EAGAIN);
    dt = conf_now_ms() - t0;
    pthread_join(th, NULL);
    CHECK_EQ(s.rc, 0);
    CHECK_MSG(dt >= 250 && dt < 5000, "sread woken by fi_cq_signal after %lld ms",
              (long long)dt);
    /* Consumed: the next sread waits its own timeout. */
    t0 = conf_now_ms();
    EXPECT(fi_cq_sread(c.cq, &e, 1, NULL, 200), -FI_EAGAIN);
    CHECK(conf_now_ms() - t0 >= 195);
}

static void test_signal_pending(void)
{
    struct fi_cq_tagged_entry e;
    int64_t t0;

    EXPECT(fi_cq_signal(c.cq), 0);
    t0 = conf_now_ms();
    EXPECT(fi_cq_sread(c.cq, &e, 1, NULL, 10000), -FI_EAGAIN);
    CHECK_MSG(conf_now_ms() - t0 < 1000, "a pending signal took %lld ms",
              (long long)(conf_now_ms() - t0));
    t0 = conf_now_ms();
    EXPECT(fi_cq_sread(c.cq, &e, 1, NULL, 200), -FI_EAGAIN);
    CHECK(conf_now_ms() - t0 >= 195);
}

static long voluntary_switches(void)
{
    struct rusage ru;

    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nvcsw;
}

static void test_poll_idles(void)
{
    struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE };
    struct fi_cq_tagged_entry e;
    struct fid_cntr *cntr = NULL;
    long v0 = voluntary_switches();

    for (int i = 0; i < 4000; i++) {
        EXPECT(fi_cq_read(c.cq, &e, 1), -FI_EAGAIN);
    }
    long cq_sw = voluntary_switches() - v0;
    CHECK_MSG(cq_sw >= 1000, "4,000 empty CQ reads gave the CPU away %ld times", cq_sw);

    MUST(fi_cntr_open(c.domain, &attr, &cntr, NULL));
    v0 = voluntary_switches();
    for (int i = 0; i < 4000; i++) {
        EXPECT(fi_cntr_read(cntr), 0);
    }
    long cntr_sw = voluntary_switches() - v0;
    CHECK_MSG(cntr_sw >= 1000, "4,000 unchanged counter reads gave the CPU away %ld times",
              cntr_sw);
    EXPECT(fi_close(&cntr->fid), 0);
}

/* The endpoint again, its CQ waiting with @wait and, with @cntr_wait, a
 * counter of its sends and receives waiting so. */
static void reopen(enum fi_wait_obj wait, const enum fi_wait_obj *cntr_wait)
{
    struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_TAGGED, .wait_obj = wait };
    struct fi_cntr_attr cattr = { .events = FI_CNTR_EVENTS_COMP,
                                  .wait_obj = cntr_wait ? *cntr_wait : FI_WAIT_NONE };

    conf_ep_close(&c);
    conf_ep_open_cntr(&c, &attr, cntr_wait ? &cattr : NULL);
}

static int wait_fd(struct fid *fid)
{
    int fd = -1;

    EXPECT(fi_control(fid, FI_GETWAIT, &fd), 0);
    CHECK(fd >= 0);
    return fd;
}

/* As fi_poll(3) says to block: fi_trywait, then poll(2) on the fd for at
 * most @ms. 1: something to read (readable, or fi_trywait said so), 0: the
 * poll timed out. *@sleeps counts the polls. */
static int sleep_on(struct fid *fid, int fd, int ms, int *sleeps)
{
    struct fid *fids[1] = { fid };
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int rc = fi_trywait(c.fabric, fids, 1);

    if (rc == -FI_EAGAIN) {
        return 1;
    }
    CHECK_MSG(rc == 0, "fi_trywait: %d", rc);
    (*sleeps)++;
    rc = poll(&p, 1, ms);
    CHECK_MSG(rc >= 0, "poll: %d", rc);
    return rc > 0;
}

static void test_fd_idle(void)
{
    struct fi_cq_tagged_entry e;
    struct fi_context rctx;
    uint64_t rbuf;
    int sleeps = 0;

    reopen(FI_WAIT_FD, NULL);
    int fd = wait_fd(&c.cq->fid);
    /* A receive nothing matches keeps progress busy (as in sread_timeout). */
    EXPECT(fi_trecv(c.ep, &rbuf, sizeof(rbuf), NULL, FI_ADDR_UNSPEC, 0xdead, 0, &rctx), 0);
    int64_t t0 = conf_now_ms();
    CHECK_EQ(sleep_on(&c.cq->fid, fd, 300, &sleeps), 0);
    int64_t dt = conf_now_ms() - t0;
    CHECK_EQ(sleeps, 1);
    CHECK_MSG(dt >= 295 && dt < 5000, "an idle fd: poll(300 ms) took %lld ms", (long long)dt);
    EXPECT(fi_cq_read(c.cq, &e, 1), -FI_EAGAIN);
    EXPECT(fi_cq_sread(c.cq, &e, 1, NULL, 100), -FI_EAGAIN);
    /* fi_cq_signal from another thread ends a poll(2) on the fd too. */
    struct signaller s = { c.cq, 200, -1 };
    pthread_t th;
    pthread_create(&th, NULL, signal_later, &s);
    t0 = conf_now_ms();
    CHECK_EQ(sleep_on(&c.cq->fid, fd, 10000, &sleeps), 1);
    dt = conf_now_ms() - t0;
    pthread_join(th, NULL);
    CHECK_EQ(s.rc, 0);
    CHECK_MSG(dt >= 150 && dt < 5000, "a poll woken by fi_cq_signal after %lld ms",
              (long long)dt);
    EXPECT(fi_cq_read(c.cq, &e, 1), -FI_EAGAIN);   /* woken, nothing to read */
    EXPECT(fi_cancel(&c.ep->fid, &rctx), 0);
    struct fid *fids[1] = { &c.cq->fid };
    EXPECT(fi_trywait(c.fabric, fids, 1), -FI_EAGAIN);
    struct fi_cq_err_entry err = { 0 };
    EXPECT(fi_cq_read(c.cq, &e, 1), -FI_EAVAIL);
    EXPECT(fi_cq_readerr(c.cq, &err, 0), 1);
    CHECK_EQ(err.err, FI_ECANCELED);
}

#define FD_LEN (1u << 20)

static void test_fd_wakes(void)
{
    uint8_t *out = malloc(FD_LEN), *in = calloc(1, FD_LEN);
    struct fi_context rctx, sctx, s2ctx;
    struct fi_cq_tagged_entry e[2];
    int got = 0, reads = 0, sleeps = 0, timeouts = 0;
    int64_t deadline = conf_now_ms() + 30000;

    MUST(!out || !in);
    reopen(FI_WAIT_FD, NULL);
    int fd = wait_fd(&c.cq->fid);
    for (unsigned i = 0; i < FD_LEN; i++) {
        out[i] = (uint8_t)(i * 7 + i / 4096);
    }
    EXPECT(fi_trecv(c.ep, in, FD_LEN, NULL, c.self, 0x61, 0, &rctx), 0);
    EXPECT(fi_tsend(c.ep, out, FD_LEN, NULL, c.self, 0x61, &sctx), 0);
    while (got < 2 && conf_now_ms() < deadline) {
        ssize_t n = fi_cq_read(c.cq, e, 2);

        reads++;
        if (n > 0) {
            for (ssize_t i = 0; i < n; i++) {
                CHECK(e[i].op_context == &rctx || e[i].op_context == &sctx);
            }
            got += (int)n;
            continue;
        }
        CHECK_MSG(n == -FI_EAGAIN, "fi_cq_read: %zd", n);
        if (n != -FI_EAGAIN) {
            break;
        }
        timeouts += !sleep_on(&c.cq->fid, fd, 10000, &sleeps);
    }
    CHECK_EQ(got, 2);
    CHECK_MSG(timeouts == 0, "%d polls of 10 s timed out: nothing drove progress", timeouts);
    CHECK_MSG(sleeps >= 1 && reads <= 20, "%d reads, %d sleeps: the caller did not sleep",
              reads, sleeps);
    CHECK(memcmp(in, out, FD_LEN) == 0);
    printf("fd_wakes: 1 MiB to itself in %d CQ reads and %d sleeps\n", reads, sleeps);

    /* An entry unread: fi_trywait says so, and the caller reads instead. */
    EXPECT(fi_tsend(c.ep, out, 64, NULL, c.self, 0x62, &s2ctx), 0);
    while (fi_cq_read(c.cq, e, 0) == -FI_EAGAIN && conf_now_ms() < deadline) {
        if (!sleep_on(&c.cq->fid, fd, 10000, &sleeps)) {
            break;
        }
    }
    struct fid *fids[1] = { &c.cq->fid };
    EXPECT(fi_trywait(c.fabric, fids, 1), -FI_EAGAIN);
    EXPECT(fi_cq_read(c.cq, e, 1), 1);
    CHECK(e[0].op_context == &s2ctx);   /* nobody receives tag 0x62: it waits unexpected */
    free(out);
    free(in);
}

static void test_fd_cntr(void)
{
    const enum fi_wait_obj fdw = FI_WAIT_FD;
    uint8_t *out = malloc(FD_LEN), *in = calloc(1, FD_LEN);
    struct fi_context rctx, sctx;
    struct fi_cq_tagged_entry e[2];
    int sleeps = 0, timeouts = 0, got = 0;
    int64_t deadline = conf_now_ms() + 30000;

    MUST(!out || !in);
    reopen(FI_WAIT_UNSPEC, &fdw);
    int fd = wait_fd(&c.cntr->fid);
    memset(out, 0x5a, FD_LEN);
    CHECK_EQ(sleep_on(&c.cntr->fid, fd, 200, &sleeps), 0);   /* nothing moves */
    EXPECT(fi_trecv(c.ep, in, FD_LEN, NULL, c.self, 0x63, 0, &rctx), 0);
    EXPECT(fi_tsend(c.ep, out, FD_LEN, NULL, c.self, 0x63, &sctx), 0);
    while (fi_cntr_read(c.cntr) < 2 && conf_now_ms() < deadline) {
        timeouts += !sleep_on(&c.cntr->fid, fd, 10000, &sleeps);
    }
    CHECK_EQ(fi_cntr_read(c.cntr), 2);
    CHECK_EQ(fi_cntr_readerr(c.cntr), 0);
    CHECK_MSG(timeouts == 0, "%d polls of 10 s timed out", timeouts);
    CHECK(sleeps >= 2);
    while (got < 2 && conf_now_ms() < deadline) {
        ssize_t n = fi_cq_read(c.cq, e, 2);

        got += n > 0 ? (int)n : 0;
    }
    CHECK_EQ(got, 2);
    CHECK(memcmp(in, out, FD_LEN) == 0);
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "open_wait", test_open_wait },
        { "sread_timeout", test_sread_timeout },
        { "sread_completion", test_sread_completion },
        { "signal_wakes", test_signal_wakes },
        { "signal_pending", test_signal_pending },
        { "poll_idles", test_poll_idles },
        { "fd_idle", test_fd_idle },
        { "fd_wakes", test_fd_wakes },
        { "fd_cntr", test_fd_cntr },
        { NULL, NULL },
    };

    alarm(50);              /* a wait that never ends fails, not hangs */
    return run_cases(cases, argc, argv, 1, setup, teardown);
}
