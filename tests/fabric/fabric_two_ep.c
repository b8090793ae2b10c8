/*
 * More than one endpoint a node (issue 24 item 4), as Open MPI opens them:
 * its mtl ofi a messaging endpoint (FI_TAGGED), its btl ofi another, for
 * RMA and atomics only (caps FI_RMA | FI_ATOMIC), each in a domain of its
 * own, in one process. Checks, on two boards:
 *   - both endpoints open and enable; a third RMA endpoint too; a second
 *     messaging endpoint is refused (-FI_EBUSY: one conversation a node);
 *   - while the messaging endpoints ping-pong tagged messages, the RMA
 *     endpoint of node 0 writes, reads and fetch-adds node 1's registered
 *     window: every byte and every sum right on both paths;
 *   - the RMA endpoint refuses messages and remote CQ data
 *     (-FI_EOPNOTSUPP), and needs no receive CQ.
 *
 *   fabric_two_ep
 */
#include <inttypes.h>
#include <string.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>
#include "fabric_util.h"

#define WIN (256u << 10)
#define ROUNDS 50

static void rma_wait(struct fab_ep *r, void *ctx)
{
    struct fi_cq_entry e;
    int64_t deadline = now_ms() + TIMEOUT_MS;

    for (;;) {
        ssize_t n = fi_cq_read(r->cq, &e, 1);
        if (n == 1) {
            CHECK(e.op_context == ctx);
            return;
        }
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry err = { 0 };
            fi_cq_readerr(r->cq, &err, 0);
            CHECK_MSG(0, "node %u: RMA error %d", me, err.err);
            return;
        }
        /* The messaging endpoint's CQ too: its ping-pong goes on meanwhile. */
        fi_cq_read(cq, NULL, 0);
        if (now_ms() > deadline) {
            CHECK_MSG(0, "node %u: no RMA completion", me);
            exit(1);
        }
    }
}

int main(void)
{
    struct fab_ep r = { 0 }, r3 = { 0 }, m2 = { 0 };
    char v[128];
    uint64_t rwin = 0, key = 0;
    int ctx;

    fab_setup();                                     /* the messaging endpoint */
    CHECK_EQ(nodes, 2);
    fi_addr_t peer = node_addr[1 - me];
    CHECK_EQ(fab_ep_open(&r, FI_RMA | FI_ATOMIC), 0);
    CHECK_EQ(fab_ep_open(&r3, FI_RMA), 0);               /* a third one: fine */
    CHECK_EQ(fab_ep_open(&m2, FI_TAGGED), -FI_EBUSY);    /* a second conversation: no */
    fab_ep_close(&m2);
    fab_ep_close(&r3);
    /* Its AV takes the peer's messaging name: an address names a node. */
    char name[64];
    size_t len = sizeof(name);
    fi_addr_t rpeer;
    TRY(fi_getname(&ep->fid, name, &len));
    CHECK_EQ(fi_av_insert(r.av, name, 1, &rpeer, 0, NULL), 1);   /* ourselves */
    len = sizeof(name);
    CHECK_EQ(fi_av_lookup(av, peer, name, &len), 0);
    CHECK_EQ(fi_av_insert(r.av, name, 1, &rpeer, 0, NULL), 1);

    uint8_t *win = NULL;
    struct fid_mr *mr = NULL;
    if (me == 1) {
        win = calloc(1, WIN);
        TRY(fi_mr_reg(r.dom, win, WIN, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0, &mr, NULL));
        snprintf(v, sizeof(v), "%" PRIx64 " %" PRIx64, (uint64_t)(uintptr_t)win,
                 fi_mr_key(mr));
        CHECK(dn_publish("two-ep.win", v) == DN_OK);
    }
    CHECK(dn_lookup("two-ep.win", v, sizeof(v), TIMEOUT_MS) == DN_OK);
    CHECK_EQ(sscanf(v, "%" SCNx64 " %" SCNx64, &rwin, &key), 2);

    /* The RMA endpoint sends no messages. */
    uint8_t buf[64] = { 0 };
    CHECK_EQ(fi_tsend(r.ep, buf, 8, NULL, rpeer, 1, &ctx), -FI_EOPNOTSUPP);
    CHECK_EQ(fi_send(r.ep, buf, 8, NULL, rpeer, &ctx), -FI_EOPNOTSUPP);
    CHECK_EQ(fi_writedata(r.ep, buf, 8, NULL, 5, rpeer, rwin, key, &ctx), -FI_EOPNOTSUPP);

    /* Messages on one endpoint, RMA on the other, interleaved. */
    static uint8_t src[WIN], back[WIN];
    int sctx, rctx;
    uint64_t sum_old = 0;
    for (unsigned i = 0; i < ROUNDS; i++) {
        uint8_t msg[256];
        if (me == 0) {
            size_t off = (size_t)i * 4096u % (WIN - 8192u);
            fill(src, 8192, 100 + i);
            CHECK(fi_write(r.ep, src, 8192, NULL, rpeer, rwin + off, key, &ctx) == 0);
            fill(msg, sizeof(msg), i);
            tsend_to(peer, msg, sizeof(msg), 7, &sctx);
            rma_wait(&r, &ctx);
            memset(back, 0, 8192);
            CHECK(fi_read(r.ep, back, 8192, NULL, rpeer, rwin + off, key, &ctx) == 0);
            rma_wait(&r, &ctx);
            CHECK_MSG(same(back, 8192, 100 + i), "node 0: round %u read back differs", i);
            uint64_t one = 1, old = 0;
            CHECK(fi_fetch_atomic(r.ep, &one, 1, NULL, &old, NULL, rpeer, rwin + WIN - 8, key,
                                  FI_UINT64, FI_SUM, &ctx) == 0);
            rma_wait(&r, &ctx);
            CHECK_EQ(old, i);
            sum_old += old;
            expect(&sctx, FI_SEND, NULL);
            CHECK(fi_trecv(ep, msg, sizeof(msg), NULL, peer, 8, 0, &rctx) == 0);
            expect(&rctx, FI_RECV, NULL);
            CHECK_MSG(same(msg, sizeof(msg), 1000 + i), "node 0: round %u message differs", i);
        } else {
            CHECK(fi_trecv(ep, msg, sizeof(msg), NULL, peer, 7, 0, &rctx) == 0);
            expect(&rctx, FI_RECV, NULL);
            CHECK_MSG(same(msg, sizeof(msg), i), "node 1: round %u message differs", i);
            fill(msg, sizeof(msg), 1000 + i);
            tsend_to(peer, msg, sizeof(msg), 8, &sctx);
            expect(&sctx, FI_SEND, NULL);
        }
    }
    CHECK(dn_rendezvous("two-ep-done", TIMEOUT_MS) == DN_OK);
    if (me == 1) {
        uint64_t cell;
        memcpy(&cell, win + WIN - 8, 8);
        CHECK_MSG(cell == ROUNDS, "node 1: the cell ends at %" PRIu64, cell);
        fi_close(&mr->fid);
        free(win);
    } else {
        CHECK_EQ(sum_old, (uint64_t)ROUNDS * (ROUNDS - 1) / 2);
    }
    CHECK(dn_rendezvous("two-ep-end", TIMEOUT_MS) == DN_OK);
    fab_ep_close(&r);
    fab_close();
    check_failures += fab_failures();
    printf("node %u: two endpoints %s\n", me, check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}
