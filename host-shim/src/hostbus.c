/*
 * Host-bus client (docs/hardware.md, "Host bus"): one request, one response;
 * or a posted request, answered only by an error notice if it fails.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "internal.h"

/*
 * The NIC answers at once; this bounds a wedged or vanished board. With
 * host sync an answer waits for virtual time, i.e. for the whole cluster to
 * get there: allow for a slow, loaded machine.
 */
#define HB_TIMEOUT_MS      10000
#define HB_SYNC_TIMEOUT_MS 120000

/*
 * The socket does not block (node.c): a write is tried first and waited
 * for only if the socket is full, which saves a poll per posted request;
 * a read waits first, as its answer is seldom there yet.
 */
static int io_full(int fd, void *buf, size_t len, int writing, int timeout_ms)
{
    uint8_t *p = buf;
    int64_t deadline = dn_now_ms() + timeout_ms;

    while (writing && len > 0) {
        /* send(): a board gone is DN_EIO, not a SIGPIPE for the program. */
        ssize_t k = send(fd, p, len, MSG_NOSIGNAL);
        if (k <= 0) {
            if (k < 0 && errno == EINTR) {
                continue;
            }
            if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                break;          /* full: wait below */
            }
            return DN_EIO;      /* board gone */
        }
        p += k;
        len -= (size_t)k;
    }
    while (len > 0) {
        struct pollfd pfd = { .fd = fd, .events = writing ? POLLOUT : POLLIN };
        int left = (int)(deadline - dn_now_ms());

        if (left <= 0) {
            return DN_ETIMEDOUT;
        }
        int r = poll(&pfd, 1, left);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return r == 0 ? DN_ETIMEDOUT : DN_EIO;
        }
        /* send(): a board gone must be DN_EIO, not a SIGPIPE for the application. */
        ssize_t k = writing ? send(fd, p, len, MSG_NOSIGNAL) : read(fd, p, len);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        }
        if (k <= 0) {
            return DN_EIO;   /* board gone */
        }
        p += k;
        len -= (size_t)k;
    }
    return DN_OK;
}

static int status_error(int32_t status)
{
    switch (status) {
    case 0:                 return DN_OK;
    case DN1_HB_ELINKDOWN:  return DN_ELINKDOWN;
    case DN1_HB_EINVAL:     return DN_EINVAL;
    case DN1_HB_EBUSY:      return DN_EBUSY;
    case DN1_HB_ENOFLASH:   return DN_ENOFLASH;
    default:                return DN_EIO;
    }
}

static void put_request(uint8_t *req, uint32_t op, uint64_t arg0,
                        uint64_t arg1, uint64_t arg2)
{
    memset(req, 0, sizeof(struct dn1_hb_req));
    dn_put_le(req + offsetof(struct dn1_hb_req, magic), DN1_HB_MAGIC, 4);
    dn_put_le(req + offsetof(struct dn1_hb_req, op), op, 4);
    dn_put_le(req + offsetof(struct dn1_hb_req, arg0), arg0, 8);
    dn_put_le(req + offsetof(struct dn1_hb_req, arg1), arg1, 8);
    dn_put_le(req + offsetof(struct dn1_hb_req, arg2), arg2, 8);
}

static void owner_error(dn_node *n, uint32_t num, int err);

/*
 * A write that fails (the board is gone) posted none of them, as a post
 * whose write fails: they are taken back (no window waits for them) and
 * their packets' owners hear of the error at once.
 */
int dn_hb_flush(dn_node *n)
{
    unsigned count = n->hb_wcount;
    uint32_t first = n->hb_posted - count;

    if (!count) {
        return DN_OK;
    }
    n->hb_wcount = 0;
    int rc = io_full(n->hb_fd, n->hb_wbuf, count * sizeof(struct dn1_hb_req), 1,
                     n->host_sync ? HB_SYNC_TIMEOUT_MS : HB_TIMEOUT_MS);
    if (rc != DN_OK) {
        n->hb_posted = first;
        for (unsigned w = 0; w < DN1_BOTF_WINDOWS; w++) {
            if (n->win_kick_posted[w] && n->win_kick[w] - first < count) {
                n->win_kick_posted[w] = 0;
            }
        }
        for (unsigned i = 0; i < count; i++) {
            owner_error(n, first + i, rc);
        }
    }
    return rc;
}

/* Every request goes after those waiting to be combined (bus order). */
static int send_request(dn_node *n, uint32_t op, uint64_t arg0, uint64_t arg1,
                        uint64_t arg2)
{
    uint8_t req[sizeof(struct dn1_hb_req)];
    int rc = dn_hb_flush(n);

    if (rc != DN_OK) {
        return rc;
    }
    /* The host's work since its last request goes with this one. */
    op |= dn_host_take(n, &arg2);
    put_request(req, op, arg0, arg1, arg2);
    return io_full(n->hb_fd, req, sizeof(req), 1,
                   n->host_sync ? HB_SYNC_TIMEOUT_MS : HB_TIMEOUT_MS);
}

/*
 * An error notice: posted request @num failed. Its packet's owner hears of
 * it: the message layer (it sends again, or fails the conversation), or
 * the transfer, whose dn_wait() returns the error.
 */
static void notice(dn_node *n, uint32_t num, int32_t status)
{
    n->hb_failed++;
    if (n->hb_posted - num - 1 >= DN_HB_POSTED_MAX) {
        return;                 /* not one of ours (cannot happen) */
    }
    int err = status_error(status);

    owner_error(n, num, err == DN_OK ? DN_EIO : err);
}

/* Posted request @num failed with @err: its packet's owner hears of it. */
static void owner_error(dn_node *n, uint32_t num, int err)
{
    uint32_t tag = n->hb_owner[num % DN_HB_POSTED_MAX].tag;
    unsigned dst = n->hb_owner[num % DN_HB_POSTED_MAX].dst;

    if (tag & DN_MSG_TAG_BIT) {
        dn_msg_on_post_error(n, dst, tag, err);
    } else {
        dn_xfer_post_error(n, tag, err);
    }
}

/* The next response; error notices before it go to their owners. */
static int read_response(dn_node *n, int want_notice, int32_t *status,
                         uint64_t *value)
{
    int timeout_ms = n->host_sync ? HB_SYNC_TIMEOUT_MS : HB_TIMEOUT_MS;

    for (;;) {
        uint8_t rsp[sizeof(struct dn1_hb_rsp)];
        int rc = io_full(n->hb_fd, rsp, sizeof(rsp), 0, timeout_ms);

        if (rc != DN_OK) {
            return rc;
        }
        uint32_t magic = (uint32_t)dn_get_le(rsp + offsetof(struct dn1_hb_rsp, magic), 4);
        int32_t st = (int32_t)dn_get_le(rsp + offsetof(struct dn1_hb_rsp, status), 4);
        uint64_t v = dn_get_le(rsp + offsetof(struct dn1_hb_rsp, value), 8);

        if (magic == DN1_HB_MAGIC_NOTICE) {
            notice(n, (uint32_t)v, st);
            if (want_notice) {
                return DN_OK;
            }
            continue;
        }
        if (magic != DN1_HB_MAGIC || want_notice) {
            return DN_EIO;
        }
        *status = st;
        *value = v;
        return DN_OK;
    }
}

int dn_hb_call(dn_node *n, uint32_t op, uint64_t arg0, uint64_t arg1,
               uint64_t arg2, uint64_t *value)
{
    int32_t status = 0;
    uint64_t v = 0;
    int rc = DN_OK;

    /* Host work longer than one request carries (DN1_HB_HOST_NS_MAX, 8.4
     * ms: a megabyte read from the card) goes first, in CLOCKs of nothing
     * else: the request takes effect after all of it, as on the machine. */
    while (rc == DN_OK && n->host_ps / 1000 > DN1_HB_HOST_NS_MAX) {
        rc = send_request(n, DN1_HB_CLOCK, 0, 0, 0);
        if (rc == DN_OK) {
            rc = read_response(n, 0, &status, &v);
        }
    }
    if (rc == DN_OK) {
        rc = send_request(n, op, arg0, arg1, arg2);
    }

    if (rc == DN_OK) {
        rc = read_response(n, 0, &status, &v);
    }
    if (rc != DN_OK) {
        return rc;
    }
    if (value) {
        *value = v;
    }
    return status_error(status);
}

static volatile uint32_t *llcm_word(dn_node *n, uint32_t off)
{
    return (volatile uint32_t *)(n->llcm + off);
}

void dn_hb_posted_init(dn_node *n)
{
    const char *env = getenv("DIMMNET_HB_POSTED");
    const char *comb = getenv("DIMMNET_HB_COMBINE");

    /* Only without timing: with it, every request stays a round trip, as
     * the modeled figures were taken (and host sync needs the answers). */
    n->hb_post = !n->timed && !(env && env[0] == '0');
    n->hb_combine = n->hb_post && !(comb && comb[0] == '0');
    n->hb_wcount = 0;
    n->hb_taken = n->hb_posted = __atomic_load_n(llcm_word(n, n->llcm_port + DN1_LLCM_HB_POSTED),
                                                 __ATOMIC_ACQUIRE);
    n->hb_failed = __atomic_load_n(llcm_word(n, n->llcm_port + DN1_LLCM_HB_FAILED),
                                   __ATOMIC_ACQUIRE);
}

int dn_hb_reap(dn_node *n)
{
    if (n->hb_taken == n->hb_posted) {
        return DN_OK;
    }
    /* HB_FAILED counts a failure before HB_POSTED counts its request:
     * read in the other order, every failure up to `taken` is seen. */
    uint32_t taken = __atomic_load_n(llcm_word(n, n->llcm_port + DN1_LLCM_HB_POSTED),
                                     __ATOMIC_ACQUIRE);
    uint32_t failed = __atomic_load_n(llcm_word(n, n->llcm_port + DN1_LLCM_HB_FAILED),
                                      __ATOMIC_ACQUIRE);

    while (n->hb_failed != failed) {
        int32_t st;
        uint64_t v;
        int rc = read_response(n, 1, &st, &v);   /* its notice is sent */
        if (rc != DN_OK) {
            return rc;
        }
    }
    /* Only forward: never past what we posted. */
    if (taken - n->hb_taken <= n->hb_posted - n->hb_taken) {
        n->hb_taken = taken;
    }
    return DN_OK;
}

int dn_hb_wait_taken(dn_node *n, uint32_t num)
{
    int64_t deadline = 0;

    for (;;) {
        int rc = dn_hb_reap(n);
        if (rc != DN_OK) {
            return rc;
        }
        if (n->hb_taken - num - 1 < 0x80000000u) {
            return DN_OK;       /* taken passed num */
        }
        /* It may be among those not written yet. */
        if (n->hb_wcount && (rc = dn_hb_flush(n)) != DN_OK) {
            return rc;
        }
        if (!deadline) {
            deadline = dn_now_ms() + HB_TIMEOUT_MS;
        } else if (dn_now_ms() >= deadline) {
            return DN_ETIMEDOUT;
        }
        sched_yield();
    }
}

int dn_hb_post(dn_node *n, uint32_t op, uint64_t arg0, uint64_t arg1,
               uint64_t arg2, unsigned dst, uint32_t tag, uint32_t *num)
{
    if (n->hb_posted - n->hb_taken >= DN_HB_POSTED_MAX) {
        int rc = dn_hb_wait_taken(n, n->hb_posted - DN_HB_POSTED_MAX);
        if (rc != DN_OK) {
            return rc;
        }
    }
    uint32_t k = n->hb_posted;
    n->hb_owner[k % DN_HB_POSTED_MAX].tag = tag;
    n->hb_owner[k % DN_HB_POSTED_MAX].dst = (uint16_t)dst;
    int rc;
    if (n->hb_combining && n->hb_combine) {
        /* Held for one write with the others the message layer sends now
         * (it flushes once it has sent them, or the buffer is full). */
        if (n->hb_wcount == DN_HB_COMBINE_MAX && (rc = dn_hb_flush(n)) != DN_OK) {
            return rc;
        }
        put_request(n->hb_wbuf + n->hb_wcount++ * sizeof(struct dn1_hb_req),
                    op | DN1_HB_POSTED, arg0, arg1, arg2);
        rc = DN_OK;
    } else {
        rc = send_request(n, op | DN1_HB_POSTED, arg0, arg1, arg2);
    }
    if (rc != DN_OK) {
        return rc;              /* the board is gone */
    }
    n->hb_posted = k + 1;
    if (num) {
        *num = k;
    }
    return DN_OK;
}

void dn_hb_settle(dn_node *n)
{
    if (n->hb_fd >= 0 && n->llcm && n->hb_posted != n->hb_taken) {
        dn_hb_wait_taken(n, n->hb_posted - 1);
    }
}

int dn_reg_read(dn_node *n, uint32_t reg, uint32_t *value)
{
    uint64_t v = 0;
    int rc;

    if (!n || !value || (reg & 3) != 0) {
        return DN_EINVAL;
    }
    rc = dn_hb_call(n, DN1_HB_REG_READ, reg, 0, 0, &v);
    *value = (uint32_t)v;
    return rc;
}
