/*
 * Tagged messages between two boards in the pattern of libfabric's
 * fabtests fi_rdm_tagged_pingpong and fi_rdm_tagged_bw, a benchmark (not a
 * test; fabtests are not in Debian's archive, so what they do is written
 * again here): the suite's default sizes (64 B, 256 B, 1 KiB, 4 KiB,
 * 64 KiB, 1 MiB) and default counts (ping-pong 10,000 round trips below
 * 64 KiB, 1,000 at 64 KiB, 100 at 1 MiB; bandwidth 20,000 / 2,000 / 200
 * messages in windows of 64), each after 10 warm-up rounds, all divided by
 * DIV when given, sizes up to MAX when given; one tag, receives posted ahead as the suite posts them,
 * completions found by spinning on fi_cq_read. Every received length is
 * checked and every size's last message compared byte for byte.
 * Per size: WALL-CLOCK figures (what a user's suite run takes) and, under
 * dimmnet-cluster --deterministic, MODELED ones (the board's clock,
 * fi_dimmnet_clock).
 *   dimmnet-cluster -n 2 [--deterministic] -- tagged_bench [DIV [MAX]]
 */
#include <dlfcn.h>
#include <string.h>
#include <time.h>
#include "fabric_util.h"
#include "bench_stamp.h"

#define TAG      0xfab7e575ull
#define WINDOW   64u
#define WARMUP   10u
#define MAX_SIZE (1u << 20)

static fi_addr_t peer;
static fi_dimmnet_clock_fn clock_fn;
static unsigned tx_done, rx_done;     /* completions seen, by direction */
static size_t rx_want;                /* every receive's length must be this */

static struct bench_stamp stamp_now(void)
{
    return bench_stamp_now(clock_fn);
}

/* One CQ serves both directions: count what comes, by kind. */
static void poll_once(void)
{
    struct fi_cq_tagged_entry e[16];
    ssize_t n = fi_cq_read(cq, e, 16);

    if (n == -FI_EAGAIN) {
        return;
    }
    if (n < 0) {
        struct fi_cq_err_entry err = { 0 };

        fi_cq_readerr(cq, &err, 0);
        fprintf(stderr, "node %u: error completion %d (%s)\n", me, err.err,
                fi_strerror(err.err));
        exit(1);
    }
    for (ssize_t i = 0; i < n; i++) {
        if (e[i].flags & FI_RECV) {
            CHECK_MSG(e[i].len == rx_want, "node %u: received %zu bytes, sent %zu", me,
                      e[i].len, rx_want);
            rx_done++;
        } else {
            tx_done++;
        }
    }
}

static void wait_counts(unsigned tx, unsigned rx)
{
    int64_t deadline = now_ms() + TIMEOUT_MS;

    while (tx_done < tx || rx_done < rx) {
        poll_once();
        if (now_ms() > deadline) {
            fprintf(stderr, "node %u: no completion in %d ms\n", me, TIMEOUT_MS);
            exit(1);
        }
    }
}

static void post_send(const void *buf, size_t len)
{
    ssize_t rc;

    while ((rc = fi_tsend(ep, buf, len, NULL, peer, TAG, NULL)) == -FI_EAGAIN) {
        poll_once();
    }
    CHECK_MSG(rc == 0, "fi_tsend: %s", fi_strerror((int)-rc));
}

static void post_recv(void *buf, size_t len)
{
    ssize_t rc;

    while ((rc = fi_trecv(ep, buf, len, NULL, peer, TAG, 0, NULL)) == -FI_EAGAIN) {
        poll_once();
    }
    CHECK_MSG(rc == 0, "fi_trecv: %s", fi_strerror((int)-rc));
}

static void report(const char *test, size_t len, unsigned n, struct bench_stamp a, struct bench_stamp b,
                   double per_xfer_div)
{
    double w = b.wall - a.wall, m = (double)(b.modeled - a.modeled) * 1e-9;

    printf("tagged_bench (wall clock): %-9s %8zu B %6u xfers %10.2f us/xfer %9.2f MB/s\n",
           test, len, n, w / n / per_xfer_div * 1e6, (double)len * n / w / 1e6);
    if (clock_fn) {
        printf("tagged_bench (modeled):    %-9s %8zu B %6u xfers %10.2f us/xfer %9.2f MB/s\n",
               test, len, n, m / n / per_xfer_div * 1e6, (double)len * n / m / 1e6);
    }
}

/* fi_rdm_tagged_pingpong: node 0 sends and then waits for the answer,
 * node 1 the other way round; one receive always posted ahead. Figures:
 * half a round trip per transfer, as the suite prints. */
static void pingpong(size_t len, unsigned n, uint8_t *sbuf, uint8_t *rbuf)
{
    struct bench_stamp a = { 0, 0 };

    tx_done = rx_done = 0;
    rx_want = len;
    post_recv(rbuf, len);
    for (unsigned i = 0; i < n + WARMUP; i++) {
        if (i == WARMUP) {
            a = stamp_now();
        }
        if (me == 0) {
            post_send(sbuf, len);
            wait_counts(i + 1, i + 1);
        } else {
            wait_counts(i, i + 1);
            post_send(sbuf, len);
        }
        if (i + 1 < n + WARMUP) {
            post_recv(rbuf, len);
        }
    }
    wait_counts(n + WARMUP, n + WARMUP);
    struct bench_stamp b = stamp_now();
    CHECK_MSG(same(rbuf, len, (uint32_t)len + (1 - me)), "node %u: %zu bytes differ", me, len);
    if (me == 0) {
        report("pingpong", len, n, a, b, 2.0);
    }
}

/* fi_rdm_tagged_bw: node 0 sends windows of 64, node 1 receives them into
 * 64 receives posted a window at a time; an acknowledgement at the end.
 * Figures: time per message and bandwidth at the sender. */
static void bandwidth(size_t len, unsigned n, uint8_t *sbuf, uint8_t *rbuf)
{
    unsigned total = n + WARMUP, posted = 0;
    struct bench_stamp a = { 0, 0 };
    int ack = 0;
    int actx;

    tx_done = rx_done = 0;
    rx_want = len;
    while (posted < total) {
        unsigned w = total - posted < WINDOW ? total - posted : WINDOW;

        if (posted <= WARMUP && posted + w > WARMUP && me == 0) {
            a = stamp_now();    /* windows, not single messages: the suite's start */
        }
        for (unsigned j = 0; j < w; j++) {
            if (me == 0) {
                post_send(sbuf, len);
            } else {
                post_recv(rbuf, len);   /* the suite gives each its own buffer */
            }
        }
        posted += w;
        wait_counts(me == 0 ? posted : 0, me == 0 ? 0 : posted);
    }
    rx_want = sizeof(ack);
    if (me == 0) {
        CHECK(fi_trecv(ep, &ack, sizeof(ack), NULL, peer, TAG + 1, 0, &actx) == 0);
        expect(&actx, FI_RECV | FI_TAGGED, NULL);
        report("bw", len, n, a, stamp_now(), 1.0);
    } else {
        CHECK_MSG(same(rbuf, len, (uint32_t)len), "node %u: %zu bytes differ", me, len);
        tsend_to(peer, &ack, sizeof(ack), TAG + 1, &actx);
        expect(&actx, FI_SEND | FI_TAGGED, NULL);
    }
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { 64, 256, 1024, 4096, 65536, MAX_SIZE };
    unsigned div = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
    size_t max = argc > 2 ? (size_t)atol(argv[2]) : MAX_SIZE;
    uint8_t *sbuf = malloc(MAX_SIZE), *rbuf = malloc(MAX_SIZE);

    CHECK(div >= 1 && sbuf && rbuf);
    fab_setup();
    CHECK_EQ(nodes, 2);
    peer = node_addr[1 - me];
    clock_fn = fi_dimmnet_modeled_clock();
    for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]) && sizes[k] <= max; k++) {
        size_t len = sizes[k];
        unsigned pp = len >= MAX_SIZE ? 100 : len >= 65536 ? 1000 : 10000;

        fill(sbuf, len, (uint32_t)len + me);
        pingpong(len, pp / div ? pp / div : 1, sbuf, rbuf);
        fill(sbuf, len, (uint32_t)len);
        bandwidth(len, 2 * pp / div ? 2 * pp / div : 1, sbuf, rbuf);
    }
    if (!clock_fn && me == 0) {
        printf("tagged_bench: no modeled figures (run under dimmnet-cluster --deterministic)\n");
    }
    fab_close();
    return check_failures + fab_failures() != 0;
}
