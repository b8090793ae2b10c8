/*
 * One-sided figures over the provider, a benchmark (not a test): node 0
 * against node 1's registered window of 4 MiB (its pages moved onto node
 * 1's card). Latencies of one operation waited for (the completion: every
 * packet ACKed, or the data here): 8-byte put (fi_write), 8-byte get
 * (fi_read into ordinary memory, through staging, and into registered
 * memory, straight), 8-byte fetch-and-add (fi_fetch_atomic, the target's
 * firmware); then put bandwidth from 8 bytes to 4 MiB, from ordinary
 * memory (BOTF: the host stores into the window) and from registered
 * memory (RDMA: the NIC reads it), as many writes in flight as the
 * provider takes. Each figure in WALL-CLOCK time and, under
 * dimmnet-cluster --deterministic, in MODELED time (the board's clock,
 * fi_dimmnet_clock).
 *   dimmnet-cluster -n 2 [--deterministic] -- rma_bench [ROUNDS]
 */
#include <dlfcn.h>
#include <string.h>
#include <time.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>
#include "fabric_util.h"
#include "bench_stamp.h"

#define WIN (4u << 20)

static fi_addr_t peer;
static fi_dimmnet_clock_fn clock_fn;

static struct bench_stamp stamp_now(void)
{
    return bench_stamp_now(clock_fn);
}

/* One line a figure: per-operation us, or MB/s when @bytes. */
static void report(const char *what, size_t len, unsigned n, struct bench_stamp a,
                   struct bench_stamp b, int bandwidth)
{
    double w = b.wall - a.wall, m = (double)(b.modeled - a.modeled) * 1e-9;

    if (bandwidth) {
        printf("rma_bench (wall clock): %-22s %8zu B %5u ops %10.2f MB/s\n", what, len, n,
               (double)len * n / w / 1e6);
        if (clock_fn) {
            printf("rma_bench (modeled):    %-22s %8zu B %5u ops %10.2f MB/s\n", what, len, n,
                   (double)len * n / m / 1e6);
        }
    } else {
        printf("rma_bench (wall clock): %-22s %8zu B %5u ops %10.2f us\n", what, len, n,
               w / n * 1e6);
        if (clock_fn) {
            printf("rma_bench (modeled):    %-22s %8zu B %5u ops %10.2f us\n", what, len, n,
                   m / n * 1e6);
        }
    }
}

static void reap(unsigned n)
{
    struct fi_cq_err_entry err;

    for (unsigned i = 0; i < n; i++) {
        wait_comp(NULL, &err);
        CHECK_MSG(err.err == 0, "completion error %d", err.err);
    }
}

static void write_n(const uint8_t *src, void *desc, size_t len, unsigned n, uint64_t base,
                    uint64_t key)
{
    unsigned posted = 0, done = 0;

    while (done < n) {
        if (posted < n) {
            uint64_t off = ((uint64_t)posted * len) % (WIN - len + 1);
            ssize_t rc = fi_write(ep, src, len, desc, peer, base + off, key, NULL);

            if (rc == 0) {
                posted++;
                continue;
            }
            CHECK_MSG(rc == -FI_EAGAIN, "fi_write: %s", fi_strerror((int)-rc));
        }
        struct fi_cq_tagged_entry e;
        ssize_t got = fi_cq_read(cq, &e, 1);
        if (got == 1) {
            done++;
        } else if (got != -FI_EAGAIN) {
            reap(1);
            done++;
        }
    }
}

int main(int argc, char **argv)
{
    unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 50;
    uint8_t *win = NULL, *reg = NULL, *plain = malloc(WIN);
    struct fid_mr *mr = NULL, *lmr = NULL;
    uint64_t base, key;

    fab_setup_caps(FI_TAGGED | FI_RMA | FI_ATOMIC,
                   FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY);
    CHECK_EQ(nodes, 2);
    peer = node_addr[1 - me];
    clock_fn = fi_dimmnet_modeled_clock();
    CHECK(posix_memalign((void **)&win, 4096, WIN) == 0 && plain);
    memset(win, 0, WIN);
    memset(plain, 0x5a, WIN);
    if (me == 1) {
        TRY(fi_mr_reg(domain, win, WIN, FI_REMOTE_WRITE | FI_REMOTE_READ, 0, 0, 0, &mr,
                      NULL));
        /* The window's address and key go to node 0 in a message: in
         * modeled time node 0 then writes only once this host has moved
         * the window onto the card (5.24 ms of DIMM time for 4 MiB; a
         * key passed out of band let its writes arrive while the copy
         * still held the DIMM, and wait for it). */
        uint64_t wk[2] = { (uint64_t)(uintptr_t)win, fi_mr_key(mr) };
        int sctx;

        tsend_to(peer, wk, sizeof(wk), 0xe4c, &sctx);
        expect(&sctx, FI_SEND | FI_TAGGED, NULL);
        /* Until node 0's last message, poll (in deterministic modeled time
         * a host blocked outside the provider would stop the clocks). */
        int end;
        struct fi_cq_err_entry err;
        CHECK(fi_trecv(ep, &end, sizeof(end), NULL, peer, 0xe4d, 0, &end) == 0);
        wait_comp_for(NULL, &err, 30 * 60 * 1000);
        CHECK_EQ(err.err, 0);
        fi_close(&mr->fid);
        fab_close();
        return check_failures + fab_failures() != 0;
    }
    uint64_t wk[2];
    int rctx;

    CHECK(fi_trecv(ep, wk, sizeof(wk), NULL, peer, 0xe4c, 0, &rctx) == 0);
    expect(&rctx, FI_RECV | FI_TAGGED, NULL);
    base = wk[0];
    key = wk[1];
    /* A local source and destination the NIC reaches (moved onto node 0's
     * card): RDMA writes and straight reads. 1 MiB: the pool holds it. */
    CHECK(posix_memalign((void **)&reg, 4096, 1u << 20) == 0);
    memset(reg, 0x33, 1u << 20);
    TRY(fi_mr_reg(domain, reg, 1u << 20, FI_WRITE | FI_READ | FI_REMOTE_WRITE, 0, 0, 0, &lmr,
                  NULL));

    uint64_t one = 1, old = 0;
    struct bench_stamp a, b;

    /* Warm-up: the target's RVATLB holds the window's first pages. */
    write_n(plain, NULL, 8, 4, base, key);

    a = stamp_now();
    for (unsigned i = 0; i < rounds; i++) {
        write_n(plain, NULL, 8, 1, base, key);
    }
    b = stamp_now();
    report("put latency", 8, rounds, a, b, 0);

    a = stamp_now();
    for (unsigned i = 0; i < rounds; i++) {
        while (fi_read(ep, plain, 8, NULL, peer, base, key, NULL) == -FI_EAGAIN) {
        }
        reap(1);
    }
    b = stamp_now();
    report("get latency (staged)", 8, rounds, a, b, 0);

    a = stamp_now();
    for (unsigned i = 0; i < rounds; i++) {
        while (fi_read(ep, reg, 8, fi_mr_desc(lmr), peer, base, key, NULL) == -FI_EAGAIN) {
        }
        reap(1);
    }
    b = stamp_now();
    report("get latency (straight)", 8, rounds, a, b, 0);

    a = stamp_now();
    for (unsigned i = 0; i < rounds; i++) {
        while (fi_fetch_atomic(ep, &one, 1, NULL, &old, NULL, peer, base + 64, key,
                               FI_UINT64, FI_SUM, NULL) == -FI_EAGAIN) {
        }
        reap(1);
    }
    b = stamp_now();
    report("fetch-add latency", 8, rounds, a, b, 0);
    CHECK_EQ(old, rounds - 1);          /* every addition once */

    static const size_t sizes[] = { 8, 64, 512, 4096, 32768, 262144, 1u << 20, WIN };
    for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t len = sizes[k];
        unsigned n = len <= 65536 ? rounds : len <= (1u << 20) ? 8 : 3;

        a = stamp_now();
        write_n(plain, NULL, len, n, base, key);
        b = stamp_now();
        report("put bandwidth (BOTF)", len, n, a, b, 1);
        if (len <= (1u << 20)) {        /* the registered source's size */
            a = stamp_now();
            write_n(reg, fi_mr_desc(lmr), len, n, base, key);
            b = stamp_now();
            report("put bandwidth (RDMA)", len, n, a, b, 1);
        }
    }
    if (!clock_fn) {
        printf("rma_bench: no modeled figures (run under dimmnet-cluster --deterministic)\n");
    }
    int end = 1;
    tsend_to(peer, &end, sizeof(end), 0xe4d, &end);
    expect(&end, FI_SEND | FI_TAGGED, NULL);
    fi_close(&lmr->fid);
    fab_close();
    return check_failures + fab_failures() != 0;
}
