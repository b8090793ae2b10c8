/*
 * Event queues as fi_eq(3) describes them, on the fabric alone (no board):
 *   open         wait objects NONE, UNSPEC, FD, YIELD taken; SET and
 *                MUTEX_COND refused (-FI_ENOSYS); unknown flags refused;
 *                the fabric will not close under an open EQ (-FI_EBUSY)
 *   read_write   fi_eq_write returns the bytes written; fi_eq_read gives
 *                event and bytes back in order; FI_PEEK leaves the event;
 *                an empty EQ answers -FI_EAGAIN (read and readerr); a
 *                buffer too small is refused and the event stays
 *   overrun      an EQ of 4 entries: the fifth write fails -FI_EOVERRUN,
 *                so does every later one; the 4 events are read, then
 *                -FI_EAVAIL and an FI_EOVERRUN error entry (fi_eq(3) NOTES)
 *   sread        a timeout on an empty EQ returns -FI_EAGAIN after about
 *                that long (UNSPEC, FD, YIELD); FI_WAIT_NONE refuses sread
 *                (-FI_EINVAL); a blocked sread (no timeout) returns the
 *                event another thread writes
 *   wait_fd      FI_GETWAIT gives an fd that is readable exactly while an
 *                event waits; fi_trywait says -FI_EAGAIN then, 0 after;
 *                FI_GETWAITOBJ; UNSPEC hands out no fd (-FI_ENODATA)
 *   strerror     a string, also into the caller's buffer
 *
 *   conf_eq [CASE]     (FI_PROVIDER_PATH at the provider; no cluster needed)
 */
#include <poll.h>
#include <pthread.h>
#include <unistd.h>
#include "conf_util.h"

static struct fi_info *info;
static struct fid_fabric *fabric;

static struct fid_eq *eq_open(enum fi_wait_obj wait, size_t size)
{
    struct fi_eq_attr attr = { .size = size, .flags = FI_WRITE, .wait_obj = wait };
    struct fid_eq *eq = NULL;

    MUST(fi_eq_open(fabric, &attr, &eq, &attr));
    return eq;
}

static void setup(void)
{
    info = conf_info();
    MUST(fi_fabric(info->fabric_attr, &fabric, NULL));
}

static void teardown(void)
{
    EXPECT(fi_close(&fabric->fid), 0);
    fi_freeinfo(info);
}

static void test_open(void)
{
    enum fi_wait_obj ok[] = { FI_WAIT_NONE, FI_WAIT_UNSPEC, FI_WAIT_FD, FI_WAIT_YIELD };
    enum fi_wait_obj no[] = { FI_WAIT_SET, FI_WAIT_MUTEX_COND };
    struct fid_eq *eq;

    for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        struct fi_eq_attr attr = { .wait_obj = ok[i] };
        enum fi_wait_obj got = FI_WAIT_SET;

        eq = NULL;
        EXPECT(fi_eq_open(fabric, &attr, &eq, NULL), 0);
        if (eq) {
            EXPECT(fi_control(&eq->fid, FI_GETWAITOBJ, &got), 0);
            CHECK_EQ(got, ok[i]);
            EXPECT(fi_close(&eq->fid), 0);
        }
    }
    for (unsigned i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        struct fi_eq_attr attr = { .wait_obj = no[i] };

        eq = NULL;
        EXPECT(fi_eq_open(fabric, &attr, &eq, NULL), -FI_ENOSYS);
        CHECK(eq == NULL);
    }
    struct fi_eq_attr bad = { .flags = FI_READ };
    EXPECT(fi_eq_open(fabric, &bad, &eq, NULL), -FI_EBADFLAGS);
    /* The fabric stays while an EQ is open on it. */
    eq = eq_open(FI_WAIT_NONE, 0);
    EXPECT(fi_close(&fabric->fid), -FI_EBUSY);
    EXPECT(fi_close(&eq->fid), 0);
}

static void test_read_write(void)
{
    struct fid_eq *eq = eq_open(FI_WAIT_NONE, 0);
    struct fi_eq_entry in[3], out;
    struct fi_eq_err_entry err;
    uint32_t event = 0;
    char small[4];

    EXPECT(fi_eq_read(eq, &event, &out, sizeof(out), 0), -FI_EAGAIN);
    EXPECT(fi_eq_readerr(eq, &err, 0), -FI_EAGAIN);
    for (unsigned i = 0; i < 3; i++) {
        in[i] = (struct fi_eq_entry){ .fid = &eq->fid, .context = &in[i], .data = 100 + i };
        EXPECT(fi_eq_write(eq, FI_NOTIFY + i, &in[i], sizeof(in[i]), 0), sizeof(in[i]));
    }
    /* Peeked: there, and still there. */
    memset(&out, 0, sizeof(out));
    EXPECT(fi_eq_read(eq, &event, &out, sizeof(out), FI_PEEK), sizeof(out));
    CHECK_EQ(event, FI_NOTIFY);
    CHECK_EQ(out.data, 100);
    EXPECT(fi_eq_read(eq, &event, small, sizeof(small), 0), -FI_ETOOSMALL);
    EXPECT(fi_eq_readerr(eq, &err, 0), -FI_EAGAIN);     /* not an error entry */
    for (unsigned i = 0; i < 3; i++) {
        memset(&out, 0, sizeof(out));
        event = 0;
        EXPECT(fi_eq_read(eq, &event, &out, sizeof(out), 0), sizeof(out));
        CHECK_EQ(event, FI_NOTIFY + i);
        CHECK(out.fid == &eq->fid && out.context == &in[i]);
        CHECK_EQ(out.data, 100 + i);
    }
    EXPECT(fi_eq_read(eq, &event, &out, sizeof(out), 0), -FI_EAGAIN);
    /* Events of any length (a CM entry's data follows it). */
    uint8_t blob[100], back[128];
    for (unsigned i = 0; i < sizeof(blob); i++) {
        blob[i] = (uint8_t)(i * 7);
    }
    EXPECT(fi_eq_write(eq, FI_NOTIFY, blob, sizeof(blob), 0), sizeof(blob));
    EXPECT(fi_eq_read(eq, &event, back, sizeof(back), 0), sizeof(blob));
    CHECK(memcmp(back, blob, sizeof(blob)) == 0);
    EXPECT(fi_close(&eq->fid), 0);
}

static void test_overrun(void)
{
    struct fid_eq *eq = eq_open(FI_WAIT_NONE, 4);
    struct fi_eq_entry e = { .data = 7 };
    struct fi_eq_err_entry err;
    uint32_t event;

    for (unsigned i = 0; i < 4; i++) {
        e.data = i;
        EXPECT(fi_eq_write(eq, FI_NOTIFY, &e, sizeof(e), 0), sizeof(e));
    }
    EXPECT(fi_eq_write(eq, FI_NOTIFY, &e, sizeof(e), 0), -FI_EOVERRUN);
    for (unsigned i = 0; i < 4; i++) {
        EXPECT(fi_eq_read(eq, &event, &e, sizeof(e), 0), sizeof(e));
        CHECK_EQ(e.data, i);
    }
    /* Overrun is fatal: writes keep failing, reads end in the error. */
    EXPECT(fi_eq_write(eq, FI_NOTIFY, &e, sizeof(e), 0), -FI_EOVERRUN);
    EXPECT(fi_eq_read(eq, &event, &e, sizeof(e), 0), -FI_EAVAIL);
    memset(&err, 0, sizeof(err));
    EXPECT(fi_eq_readerr(eq, &err, 0), sizeof(err));
    CHECK_EQ(err.err, FI_EOVERRUN);
    CHECK(err.fid == &eq->fid);
    EXPECT(fi_close(&eq->fid), 0);
}

struct writer {
    struct fid_eq *eq;
    int delay_ms;
    ssize_t rc;
};

static void *write_later(void *arg)
{
    struct writer *w = arg;
    struct fi_eq_entry e = { .data = 4242 };

    usleep((useconds_t)w->delay_ms * 1000);
    w->rc = fi_eq_write(w->eq, FI_NOTIFY, &e, sizeof(e), 0);
    return NULL;
}

static void test_sread(void)
{
    enum fi_wait_obj waits[] = { FI_WAIT_UNSPEC, FI_WAIT_FD, FI_WAIT_YIELD };
    struct fi_eq_entry e;
    uint32_t event;

    for (unsigned i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
        struct fid_eq *eq = eq_open(waits[i], 0);
        int64_t t0 = conf_now_ms(), dt;
        pthread_t th;
        struct writer w = { eq, 200, 0 };

        /* A timeout with nothing there. */
        EXPECT(fi_eq_sread(eq, &event, &e, sizeof(e), 150, 0), -FI_EAGAIN);
        dt = conf_now_ms() - t0;
        CHECK_MSG(dt >= 145 && dt < 3000, "wait %d: sread(150 ms) took %lld ms",
                  waits[i], (long long)dt);
        EXPECT(fi_eq_sread(eq, &event, &e, sizeof(e), 0, 0), -FI_EAGAIN);
        /* Blocked with no timeout: another thread's event ends it. */
        t0 = conf_now_ms();
        pthread_create(&th, NULL, write_later, &w);
        memset(&e, 0, sizeof(e));
        EXPECT(fi_eq_sread(eq, &event, &e, sizeof(e), -1, 0), sizeof(e));
        dt = conf_now_ms() - t0;
        pthread_join(th, NULL);
        CHECK_EQ(w.rc, sizeof(e));
        CHECK_EQ(event, FI_NOTIFY);
        CHECK_EQ(e.data, 4242);
        CHECK_MSG(dt >= 150, "wait %d: sread returned after %lld ms, before the write",
                  waits[i], (long long)dt);
        EXPECT(fi_close(&eq->fid), 0);
    }
    struct fid_eq *eq = eq_open(FI_WAIT_NONE, 0);
    EXPECT(fi_eq_sread(eq, &event, &e, sizeof(e), 10, 0), -FI_EINVAL);
    EXPECT(fi_close(&eq->fid), 0);
}

static int readable(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };

    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void test_wait_fd(void)
{
    struct fid_eq *eq = eq_open(FI_WAIT_FD, 0), *eq2 = eq_open(FI_WAIT_UNSPEC, 0);
    struct fid *fids[1] = { &eq->fid };
    struct fi_eq_entry e = { .data = 1 };
    uint32_t event;
    int fd = -1, fd2 = -1;

    EXPECT(fi_control(&eq->fid, FI_GETWAIT, &fd), 0);
    CHECK(fd >= 0);
    EXPECT(fi_control(&eq2->fid, FI_GETWAIT, &fd2), -FI_ENODATA);
    CHECK(!readable(fd));
    EXPECT(fi_trywait(fabric, fids, 1), 0);
    EXPECT(fi_eq_write(eq, FI_NOTIFY, &e, sizeof(e), 0), sizeof(e));
    EXPECT(fi_eq_write(eq, FI_NOTIFY, &e, sizeof(e), 0), sizeof(e));
    CHECK(readable(fd));
    EXPECT(fi_trywait(fabric, fids, 1), -FI_EAGAIN);
    EXPECT(fi_eq_read(eq, &event, &e, sizeof(e), FI_PEEK), sizeof(e));
    CHECK(readable(fd));
    EXPECT(fi_eq_read(eq, &event, &e, sizeof(e), 0), sizeof(e));
    CHECK(readable(fd));                 /* one still waits */
    EXPECT(fi_eq_read(eq, &event, &e, sizeof(e), 0), sizeof(e));
    CHECK(!readable(fd));
    EXPECT(fi_trywait(fabric, fids, 1), 0);
    /* A blocked poll wakes for an event another thread writes. */
    pthread_t th;
    struct writer w = { eq, 100, 0 };
    struct pollfd p = { .fd = fd, .events = POLLIN };
    pthread_create(&th, NULL, write_later, &w);
    EXPECT(poll(&p, 1, 5000), 1);
    pthread_join(th, NULL);
    EXPECT(fi_eq_read(eq, &event, &e, sizeof(e), 0), sizeof(e));
    CHECK_EQ(e.data, 4242);
    /* No fd to wait on: trywait refuses it. */
    fids[0] = &eq2->fid;
    EXPECT(fi_trywait(fabric, fids, 1), -FI_EINVAL);
    EXPECT(fi_close(&eq2->fid), 0);
    EXPECT(fi_close(&eq->fid), 0);
}

static void test_strerror(void)
{
    struct fid_eq *eq = eq_open(FI_WAIT_NONE, 0);
    char buf[64] = "";
    const char *s = fi_eq_strerror(eq, 5, NULL, NULL, 0);

    CHECK(s && *s);
    CHECK(fi_eq_strerror(eq, 5, NULL, buf, sizeof(buf)) == buf);
    CHECK(buf[0] != 0 && strcmp(buf, s) == 0);
    EXPECT(fi_close(&eq->fid), 0);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "open", test_open },
        { "read_write", test_read_write },
        { "overrun", test_overrun },
        { "sread", test_sread },
        { "wait_fd", test_wait_fd },
        { "strerror", test_strerror },
        { NULL, NULL },
    };

    alarm(60);              /* a wait that never ends fails, not hangs */
    return run_cases(cases, argc, argv, 1, setup, teardown);
}
