/*
 * One-sided communication through the provider (issue 24): memory
 * registration enforced by the target's NIC, RMA writes and reads, remote
 * CQ data, injects, fences and counters, on two boards. Node 1 registers
 * (its buffers come from malloc, so their pages are moved onto its card);
 * node 0 writes and reads them. Checks:
 *   - writes of 1 byte to a whole 1 MiB window, by BOTF (a source in
 *     ordinary memory) and by RDMA (a registered source, in receive
 *     memory), at odd offsets; read back through staging (a destination
 *     in ordinary memory) and straight (a registered destination); node 1
 *     sees the same bytes in its own memory, and the guard bytes around
 *     the window (on the same pages) untouched;
 *   - fi_writedata: node 1's entry has FI_REMOTE_CQ_DATA, the data, the
 *     length, and the bytes are in place when it comes; its FI_REMOTE_WRITE
 *     counter counts it;
 *   - fi_inject_write, then a read with FI_FENCE sees what it wrote;
 *   - refusals, each an error completion FI_EACCES on node 0 and nothing
 *     landed on node 1 (its window and guards compared with a copy): a key
 *     nobody registered, a write running past the window's end and one
 *     starting before it, a write to a read-only registration, a read past
 *     a registration, a write to a registration closed since;
 *   - a read of the read-only registration works;
 *   - node 0's counter (FI_WRITE | FI_READ): successes and errors;
 *   - after fi_close the window keeps its bytes (the pages moved back).
 *
 *   fabric_rma
 */
#include <inttypes.h>
#include <string.h>
#include <rdma/fi_rma.h>
#include "fabric_util.h"

#define WIN   ((1u << 20) + 24u)
#define GUARD 100u
#define RO    65536u
#define GONE  4096u
#define NOKEY 0xfffeu

static fi_addr_t peer;

struct remote {
    uint64_t win, kwin, ro, kro, gone, kgone;
};

static void publish_remote(const struct remote *r)
{
    char v[200];

    snprintf(v, sizeof(v), "%" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64
             " %" PRIx64, r->win, r->kwin, r->ro, r->kro, r->gone, r->kgone);
    CHECK(dn_publish("rma.1", v) == DN_OK);
}

static void lookup_remote(struct remote *r)
{
    char v[200];

    CHECK(dn_lookup("rma.1", v, sizeof(v), TIMEOUT_MS) == DN_OK);
    CHECK_EQ(sscanf(v, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64
                    " %" SCNx64, &r->win, &r->kwin, &r->ro, &r->kro, &r->gone, &r->kgone), 6);
}

static void post_write(const void *buf, size_t len, void *desc, uint64_t addr,
                       uint64_t key, void *ctx)
{
    ssize_t rc;

    while ((rc = fi_write(ep, buf, len, desc, peer, addr, key, ctx)) == -FI_EAGAIN) {
        fi_cq_read(cq, NULL, 0);
    }
    CHECK_MSG(rc == 0, "fi_write: %s", fi_strerror((int)-rc));
}

static void post_read(void *buf, size_t len, void *desc, uint64_t addr, uint64_t key,
                      void *ctx)
{
    ssize_t rc;

    while ((rc = fi_read(ep, buf, len, desc, peer, addr, key, ctx)) == -FI_EAGAIN) {
        fi_cq_read(cq, NULL, 0);
    }
    CHECK_MSG(rc == 0, "fi_read: %s", fi_strerror((int)-rc));
}

/* An operation the target's NIC must refuse: an error entry, FI_EACCES. */
static void expect_refused(void *ctx, const char *what)
{
    struct fi_cq_err_entry err;
    struct fi_cq_tagged_entry e = wait_comp(NULL, &err);

    CHECK_MSG(err.err == FI_EACCES, "node 0: %s: error %d (%s), expected FI_EACCES", what,
              err.err, fi_strerror(err.err));
    CHECK_MSG(e.op_context == ctx, "node 0: %s: completion of %p, expected %p", what,
              e.op_context, ctx);
    CHECK(err.flags & FI_RMA);
}

static void initiator(uint8_t *sbuf, uint8_t *rbuf)
{
    static const struct { size_t off, len; } cases[] = {
        { 0, 1 }, { 8, 8 }, { 100, 464 }, { 1000, 465 }, { 5000, 8192 },
        { 20001, 8193 }, { 70001, 65536 + 13 }, { WIN - 3000, 3000 }, { 0, WIN },
    };
    struct fid_mr *smr, *dmr;
    uint8_t *rsrc = malloc(WIN), *rdst = malloc(WIN);
    struct remote r;
    int ctx[4];

    CHECK(rsrc && rdst);
    lookup_remote(&r);
    /* Registered for remote reads, so moved onto our card: the NIC reads
     * an RDMA source there itself, and a read lands there directly. */
    TRY(fi_mr_reg(domain, rsrc, WIN, FI_WRITE | FI_REMOTE_READ, 0, 0, 0, &smr, NULL));
    TRY(fi_mr_reg(domain, rdst, WIN, FI_READ | FI_REMOTE_READ, 0, 0, 0, &dmr, NULL));

    for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        size_t off = cases[k].off, len = cases[k].len;
        uint8_t *src = k % 2 ? rsrc : sbuf;           /* RDMA, BOTF by turns */
        uint8_t *dst = k % 2 ? rbuf : rdst;

        fill(src, len, 10 + k);
        post_write(src, len, k % 2 ? fi_mr_desc(smr) : NULL, r.win + off, r.kwin, &ctx[0]);
        expect(&ctx[0], FI_RMA | FI_WRITE, NULL);
        memset(dst, 0, len);
        post_read(dst, len, k % 2 ? NULL : fi_mr_desc(dmr), r.win + off, r.kwin, &ctx[1]);
        expect(&ctx[1], FI_RMA | FI_READ, NULL);
        CHECK_MSG(same(dst, len, 10 + k), "node 0: case %u (%zu bytes at %zu) read back "
                  "differs", k, len, off);
    }
    /* The window's final contents, for node 1 to check: pattern 3. */
    fill(rsrc, WIN, 3);
    post_write(rsrc, WIN, NULL, r.win, r.kwin, &ctx[0]);
    expect(&ctx[0], FI_RMA | FI_WRITE, NULL);
    CHECK(dn_rendezvous("rma-window", TIMEOUT_MS) == DN_OK);
    CHECK(dn_rendezvous("rma-window-checked", TIMEOUT_MS) == DN_OK);

    /* Remote CQ data: node 1 gets an entry once the bytes are there. */
    fill(sbuf, 64, 5);
    CHECK(fi_writedata(ep, sbuf, 64, NULL, 0xfeedface12345678ull, peer, r.win + 128,
                       r.kwin, &ctx[0]) == 0);
    expect(&ctx[0], FI_RMA | FI_WRITE, NULL);
    CHECK(dn_rendezvous("rma-data", TIMEOUT_MS) == DN_OK);

    /* An inject (no completion), then a fenced read sees it. */
    fill(sbuf, 16, 6);
    CHECK(fi_inject_write(ep, sbuf, 16, peer, r.win + 4096 - 8, r.kwin) == 0);
    fill(sbuf, 16, 0);                              /* the buffer is ours again */
    memset(rbuf, 0, 16);
    struct iovec iov = { rbuf, 16 };
    struct fi_rma_iov riov = { r.win + 4096 - 8, 16, r.kwin };
    struct fi_msg_rma msg = { .msg_iov = &iov, .iov_count = 1, .addr = peer,
                              .rma_iov = &riov, .rma_iov_count = 1, .context = &ctx[1] };
    CHECK(fi_readmsg(ep, &msg, FI_FENCE | FI_COMPLETION) == 0);
    expect(&ctx[1], FI_RMA | FI_READ, NULL);
    CHECK_MSG(same(rbuf, 16, 6), "node 0: the fenced read did not see the inject");
    CHECK(dn_rendezvous("rma-inject", TIMEOUT_MS) == DN_OK);

    /* The read-only registration reads. */
    post_read(rbuf, RO, NULL, r.ro, r.kro, &ctx[2]);
    expect(&ctx[2], FI_RMA | FI_READ, NULL);
    CHECK_MSG(same(rbuf, RO, 7), "node 0: read-only registration read differs");

    uint64_t ok0 = fi_cntr_read(cntr), err0 = fi_cntr_readerr(cntr);
    CHECK(dn_rendezvous("rma-refusals", TIMEOUT_MS) == DN_OK);   /* node 1 copied */
    fill(sbuf, 64, 9);
    post_write(sbuf, 8, NULL, r.win, NOKEY, &ctx[0]);
    expect_refused(&ctx[0], "unregistered key");
    post_write(sbuf, 8, NULL, r.win + WIN - 4, r.kwin, &ctx[0]);
    expect_refused(&ctx[0], "past the window's end");
    post_write(sbuf, 8, NULL, r.win - 8, r.kwin, &ctx[0]);
    expect_refused(&ctx[0], "before the window");
    post_write(sbuf, 64, NULL, r.win + 64, r.kro, &ctx[0]);
    expect_refused(&ctx[0], "read-only registration");
    post_write(sbuf, 8, NULL, r.gone, r.kgone, &ctx[0]);
    expect_refused(&ctx[0], "closed registration");
    post_read(rbuf, 16, NULL, r.ro + RO - 8, r.kro, &ctx[1]);
    expect_refused(&ctx[1], "read past the registration");
    post_read(rbuf, 16, NULL, r.win, NOKEY, &ctx[1]);
    expect_refused(&ctx[1], "read with an unregistered key");
    CHECK_EQ(fi_cntr_readerr(cntr) - err0, 7);
    CHECK_EQ(fi_cntr_read(cntr), ok0);
    CHECK(dn_rendezvous("rma-refused", TIMEOUT_MS) == DN_OK);

    /* Counting: every successful write and read above. */
    CHECK_EQ(ok0, 2 * (sizeof(cases) / sizeof(cases[0])) + 1 + 1 + 1 + 1 + 1);
    CHECK(fi_cntr_wait(cntr, ok0, 1000) == 0);
    fi_close(&smr->fid);
    fi_close(&dmr->fid);
    free(rsrc);
    free(rdst);
}

static void target(void)
{
    uint8_t *arena = malloc(WIN + 2 * GUARD), *win = arena + GUARD;
    uint8_t *ro = malloc(RO), *gone = malloc(GONE), *copy = malloc(WIN + 2 * GUARD);
    struct fid_mr *mwin, *mro, *mgone;
    struct remote r;

    CHECK(arena && ro && gone && copy);
    memset(arena, 0xa5, WIN + 2 * GUARD);
    memset(win, 0, WIN);
    fill(ro, RO, 7);
    TRY(fi_mr_reg(domain, win, WIN, FI_REMOTE_WRITE | FI_REMOTE_READ, 0, 0, 0, &mwin, NULL));
    TRY(fi_mr_reg(domain, ro, RO, FI_REMOTE_READ, 0, 0, 0, &mro, NULL));
    TRY(fi_mr_reg(domain, gone, GONE, FI_REMOTE_WRITE, 0, 0, 0, &mgone, NULL));
    r = (struct remote){ (uintptr_t)win, fi_mr_key(mwin), (uintptr_t)ro, fi_mr_key(mro),
                         (uintptr_t)gone, fi_mr_key(mgone) };
    CHECK(r.kwin != r.kro && r.kro != r.kgone && r.kwin != NOKEY);
    TRY(fi_close(&mgone->fid));          /* its key published, the registration gone */
    publish_remote(&r);

    CHECK(dn_rendezvous("rma-window", TIMEOUT_MS) == DN_OK);
    if (!same(win, WIN, 3)) {
        uint8_t *want = malloc(WIN);
        size_t i = 0, bad = 0;
        fill(want, WIN, 3);
        while (i < WIN && win[i] == want[i]) {
            i++;
        }
        for (size_t j = 0; j < WIN; j++) {
            bad += win[j] != want[j];
        }
        CHECK_MSG(0, "node 1: the window holds other bytes than written: %zu differ, "
                  "the first at %zu", bad, i);
        free(want);
    }
    for (unsigned i = 0; i < GUARD; i++) {
        CHECK_MSG(arena[i] == 0xa5 && win[WIN + i] == 0xa5, "node 1: guard byte %u hit", i);
    }
    CHECK(dn_rendezvous("rma-window-checked", TIMEOUT_MS) == DN_OK);

    /* Remote CQ data: the entry, and the bytes already there. */
    struct fi_cq_err_entry err;
    fi_addr_t src = FI_ADDR_NOTAVAIL;
    struct fi_cq_tagged_entry e = wait_comp(&src, &err);
    CHECK_MSG(!err.err, "node 1: error entry %d", err.err);
    CHECK_EQ(e.flags & (FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA),
             FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA);
    CHECK_EQ(e.data, 0xfeedface12345678ull);
    CHECK_EQ(e.len, 64);
    CHECK_EQ(src, peer);
    CHECK_MSG(same(win + 128, 64, 5), "node 1: written data not there at its entry");
    CHECK_EQ(fi_cntr_read(cntr), 1);                /* FI_REMOTE_WRITE */
    CHECK(dn_rendezvous("rma-data", TIMEOUT_MS) == DN_OK);
    CHECK(dn_rendezvous("rma-inject", TIMEOUT_MS) == DN_OK);

    memcpy(copy, arena, WIN + 2 * GUARD);
    CHECK(dn_rendezvous("rma-refusals", TIMEOUT_MS) == DN_OK);
    CHECK(dn_rendezvous("rma-refused", TIMEOUT_MS) == DN_OK);
    CHECK_MSG(!memcmp(copy, arena, WIN + 2 * GUARD), "node 1: a refused write landed");
    CHECK_MSG(same(ro, RO, 7), "node 1: the read-only registration changed");

    TRY(fi_close(&mwin->fid));
    TRY(fi_close(&mro->fid));
    CHECK_MSG(!memcmp(copy, arena, WIN + 2 * GUARD), "node 1: bytes lost moving back");
    free(arena);
    free(ro);
    free(gone);
    free(copy);
}

int main(void)
{
    static uint8_t sbuf[WIN], rbuf[WIN];

    fab_setup_caps(FI_RMA, FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY);
    CHECK_EQ(nodes, 2);
    peer = node_addr[1 - me];
    CHECK(info->caps & FI_RMA);
    CHECK_EQ(info->domain_attr->mr_mode, FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY);
    if (me == 0) {
        initiator(sbuf, rbuf);
    } else {
        target();
    }
    CHECK(dn_rendezvous("rma-end", TIMEOUT_MS) == DN_OK);
    fab_close();
    check_failures += fab_failures();
    if (check_failures) {
        fprintf(stderr, "node %u: %d check(s) failed\n", me, check_failures);
        return 1;
    }
    printf("node %u: rma ok\n", me);
    return 0;
}
