/*
 * The libfabric provider "dimmnet" as any libfabric application sees it
 * (FI_PROVIDER_PATH set by the test): two nodes under the launcher, names
 * exchanged through the launcher's rendezvous, every byte of traffic over
 * the emulated NIC. Checks, with the data of every message:
 *   - tagged ping-pong from 0 B to 64 KiB (FI_AV_TABLE on node 0, FI_AV_MAP
 *     on node 1), completions with the right flags, length, tag, source;
 *   - unexpected messages (sent before their receive), taken in order;
 *   - tag matching under an ignore mask, with a directed receive;
 *   - untagged messages beside tagged ones, each matched only by its kind;
 *   - a message longer than its receive: FI_ETRUNC through fi_cq_readerr;
 *   - messages over the eager size (64 KiB) up to 1 MiB, to directed
 *     receives (advertised to the sender: sender-side matching) and to
 *     any-source ones (rendezvous), a long one unexpected, long truncation;
 *   - probes: FI_PEEK (found, and FI_ENOMSG), FI_PEEK|FI_CLAIM then the
 *     FI_CLAIM receive, FI_PEEK|FI_DISCARD of a short and a long message;
 *   - remote CQ data (fi_tsenddata, fi_tinjectdata, fi_senddata,
 *     fi_tsendmsg with FI_REMOTE_CQ_DATA), short and long, unexpected,
 *     peeked and to advertised receives: FI_REMOTE_CQ_DATA and all 64 bits
 *     in the receiver's entry, never in one of a send without data;
 *   - landings (sender-side matching's one remote write into the
 *     receiver's memory): a ping-pong of 40 rounds, each side posting its
 *     directed receive before it sends, chunks (up to 416 bytes) and zones
 *     (8000), tagged and untagged, remote CQ data, an inject, truncation
 *     in both; more rounds than landing chunks, so chunks are taken again;
 *   - 300 messages of one tag, short and long mixed, sent as fast as
 *     possible while the receiver posts directed and any-source receives a
 *     few at a time: message k lands in receive k (MPI's non-overtaking
 *     rule, across crossing advertisements);
 *   - refusals: an address not in the AV (-FI_EINVAL), a message larger
 *     than max_msg_size (-FI_EMSGSIZE), an inject over inject_size.
 *
 *   fabric_rdm
 */
#include <string.h>
#include "fabric_util.h"

#define MAX 65536u
#define BIG (1u << 20)

static fi_addr_t peer;

static void tsend(const void *buf, size_t len, uint64_t tag, void *ctx)
{
    tsend_to(peer, buf, len, tag, ctx);
}

static uint64_t cq_data(unsigned k)
{
    return 0xd0d0000000000000ull | ((uint64_t)k << 32) | (0x9abcdef0u + k);
}

/* Landings: a ping-pong where each side posts its next directed receive
 * before it sends, so its peer has the advertisement when it sends and
 * writes the message straight into the receiver's memory: a landing chunk
 * (receives up to 416 bytes, DNF_LAND_MAX) or, every fifth round, a
 * landing zone (8000 bytes). Round 5 truncates in a chunk (300 bytes into
 * 100), round 14 in a zone (12000 into 8000), round 10 is an inject, every
 * third round carries remote CQ data, every fourth is untagged. The
 * test's CTest entry checks that landings happened. */
enum { LAND_ROUNDS = 40, LAND_CAP = 416, ZONE_CAP = 8000, LAND_BUF = 12000 };

static size_t land_len(unsigned k, unsigned side)
{
    if (k == 5 && side == 0) {
        return 300;
    }
    if (k == 14) {
        return LAND_BUF;
    }
    return k % 5 == 4 ? (k * 1237 + side * 331) % (ZONE_CAP + 1)
                      : (k * 97 + side * 41) % (LAND_CAP + 1);
}

static size_t land_cap(unsigned k, unsigned side)
{
    return k == 5 && side == 1 ? 100 : k % 5 == 4 ? ZONE_CAP : LAND_CAP;
}

static void land_post(uint8_t *b, unsigned k, void *ctx)
{
    unsigned side = me;           /* this side receives from the other */

    memset(b, 0, LAND_BUF + 16);
    if (k % 4 == 3) {
        CHECK(fi_recv(ep, b, land_cap(k, side), NULL, peer, ctx) == 0);
    } else {
        CHECK(fi_trecv(ep, b, land_cap(k, side), NULL, peer, 0x6600 + k, 0, ctx) == 0);
    }
}

/* This side's message of round @k (inject: node 0's round 10). */
static void land_send(uint8_t *b, unsigned k, void *ctx)
{
    unsigned side = me == 0 ? 0 : 2;
    size_t len = land_len(k, side);
    ssize_t rc;

    fill(b, len, 700 + 4 * k + side);
    do {
        if (k == 10 && me == 0) {
            rc = fi_tinject(ep, b, len, peer, 0x6600 + k);
        } else if (k % 4 == 3) {
            rc = fi_send(ep, b, len, NULL, peer, ctx);
        } else if (k % 3 == 0) {
            rc = fi_tsenddata(ep, b, len, NULL, cq_data(200 + k), peer, 0x6600 + k, ctx);
        } else {
            rc = fi_tsend(ep, b, len, NULL, peer, 0x6600 + k, ctx);
        }
        if (rc == -FI_EAGAIN) {
            struct fi_cq_tagged_entry e;
            fi_cq_read(cq, &e, 0);
        }
    } while (rc == -FI_EAGAIN);
    CHECK_MSG(rc == 0, "node %u: landing send %u: %zd", me, k, rc);
}

/* Receive @k completed (entry @e, error @err) into @b: check it. */
static void land_check(const uint8_t *b, unsigned k, const struct fi_cq_tagged_entry *e,
                       const struct fi_cq_err_entry *err)
{
    unsigned from = me == 0 ? 2 : 0;
    size_t len = land_len(k, from), cap = land_cap(k, me);
    size_t got = len < cap ? len : cap;
    int data = k % 3 == 0 && k % 4 != 3;

    if (len > cap) {
        CHECK_MSG(err->err == FI_ETRUNC && err->olen == len - cap,
                  "node %u: landing %u: err %d olen %zu", me, k, err->err, err->olen);
    } else {
        CHECK_MSG(!err->err && e->len == len, "node %u: landing %u: err %d, %zu bytes", me,
                  k, err->err, (size_t)e->len);
        CHECK(e->flags & (k % 4 == 3 ? FI_MSG : FI_TAGGED));
        if (k % 4 != 3) {
            CHECK_EQ(e->tag, 0x6600 + k);
        }
        CHECK_MSG(!!(e->flags & FI_REMOTE_CQ_DATA) == data &&
                  (!data || e->data == cq_data(200 + k)),
                  "node %u: landing %u: CQ data wrong", me, k);
    }
    CHECK_MSG(same(b, got, 700 + 4 * k + from), "node %u: landing %u: data differ", me, k);
    CHECK_EQ(b[got], 0);          /* nothing past what it takes */
}

static void landings(void)
{
    static uint8_t rb[2][LAND_BUF + 16], sb[LAND_ROUNDS][LAND_BUF + 16];
    static struct fi_context rc[2], sc[LAND_ROUNDS];
    unsigned next = 0, sends_done = 0, sends_want = 0;

    land_post(rb[0], 0, &rc[0]);
    CHECK(dn_rendezvous("fi-land-posted", TIMEOUT_MS) == DN_OK);
    if (me == 0) {
        land_send(sb[0], 0, &sc[0]);
        sends_want++;
    }
    while (next < LAND_ROUNDS || sends_done < sends_want) {
        struct fi_cq_err_entry err;
        struct fi_cq_tagged_entry e = wait_comp(NULL, &err);
        void *ctx = err.err ? err.op_context : e.op_context;

        if (ctx >= (void *)sc && ctx < (void *)(sc + LAND_ROUNDS)) {
            CHECK_MSG(!err.err, "node %u: landing send: err %d", me, err.err);
            sends_done++;
            continue;
        }
        CHECK_MSG(next < LAND_ROUNDS && ctx == &rc[next & 1],
                  "node %u: landing %u: completion of %p", me, next, ctx);
        if (next >= LAND_ROUNDS || ctx != &rc[next & 1]) {
            break;
        }
        land_check(rb[next & 1], next, &e, &err);
        next++;
        /* The next receive before the next send: its advertisement goes first. */
        if (next < LAND_ROUNDS) {
            land_post(rb[next & 1], next, &rc[next & 1]);
        }
        unsigned k = me == 0 ? next : next - 1;   /* node 1 answers, node 0 goes on */
        if (k < LAND_ROUNDS) {
            land_send(sb[k], k, &sc[k]);
            sends_want += !(k == 10 && me == 0);
        }
    }
    CHECK(dn_rendezvous("fi-landings", TIMEOUT_MS) == DN_OK);
}

/* Remote CQ data on every send path. Node 0 sends, node 1 checks. */
static void remote_cq_data(uint8_t *bs, uint8_t *br, uint8_t *sbuf, uint8_t *rbuf)
{
    static const size_t lens[] = { 200, 200000, 8, 300, 100, 250000 };
    struct fi_context sc[6], rc[6];
    struct fi_cq_tagged_entry e;
    struct fi_cq_err_entry err;
    fi_addr_t src;

    /* Unexpected: four sent before their receives (kinds 0-3). */
    if (me == 0) {
        struct iovec iov = { bs, lens[1] };
        struct fi_msg_tagged m = { .msg_iov = &iov, .iov_count = 1, .addr = peer,
                                   .tag = 0x4401, .context = &sc[1], .data = cq_data(1) };
        void *c2[2] = { &sc[0], &sc[3] };
        ssize_t n;

        for (unsigned k = 0; k < 4; k++) {          /* message k in sbuf + 1024 k */
            fill(k == 1 ? bs : sbuf + 1024 * k, lens[k], 40 + k);
        }
        CHECK(fi_tsenddata(ep, sbuf, lens[0], NULL, cq_data(0), peer, 0x4400, &sc[0]) == 0);
        CHECK(fi_tsendmsg(ep, &m, FI_REMOTE_CQ_DATA | FI_COMPLETION) == 0);
        while ((n = fi_tinjectdata(ep, sbuf + 2048, lens[2], cq_data(2), peer, 0x4402)) ==
               -FI_EAGAIN) {
            fi_cq_read(cq, &e, 0);
        }
        CHECK(n == 0);
        CHECK(fi_senddata(ep, sbuf + 3072, lens[3], NULL, cq_data(3), peer, &sc[3]) == 0);
        expect_all(c2, NULL, NULL, 2);
        CHECK(dn_rendezvous("fi-data-sent", TIMEOUT_MS) == DN_OK);
        expect(&sc[1], FI_SEND | FI_TAGGED, NULL); /* the long one needs the receiver */
    } else {
        struct fi_msg_tagged m = { .addr = FI_ADDR_UNSPEC, .tag = 0x4400, .context = &rc[0] };
        int found = 0;

        CHECK(dn_rendezvous("fi-data-sent", TIMEOUT_MS) == DN_OK);
        /* A peek shows the data too. */
        for (int64_t end = now_ms() + TIMEOUT_MS; !found && now_ms() < end;) {
            CHECK(fi_trecvmsg(ep, &m, FI_PEEK) == 0);
            e = wait_comp(NULL, &err);
            found = !err.err;
        }
        CHECK(found && (e.flags & FI_REMOTE_CQ_DATA) && e.data == cq_data(0));
        for (unsigned k = 0; k < 4; k++) {
            uint8_t *b = k == 1 ? br : rbuf;

            if (k == 3) {
                CHECK(fi_recv(ep, b, MAX, NULL, FI_ADDR_UNSPEC, &rc[k]) == 0);
            } else {
                CHECK(fi_trecv(ep, b, BIG, NULL, peer, 0x4400 + k, 0, &rc[k]) == 0);
            }
            e = expect(&rc[k], FI_RECV | FI_REMOTE_CQ_DATA, &src);
            CHECK_EQ(e.len, lens[k]);
            CHECK_MSG(e.data == cq_data(k), "node 1: data of %u: 0x%llx", k,
                      (unsigned long long)e.data);
            CHECK(src == peer && same(b, lens[k], 40 + k));
        }
    }
    CHECK(dn_rendezvous("fi-data-unexpected", TIMEOUT_MS) == DN_OK);
    /* Receives posted first (directed: advertised to node 0, which may
     * answer with DIRECT) and one any-source long (rendezvous). */
    if (me == 1) {
        void *c3[3] = { &rc[0], &rc[1], &rc[2] };
        struct fi_cq_tagged_entry es[3];

        memset(br, 0, lens[5]);
        CHECK(fi_trecv(ep, rbuf, MAX, NULL, peer, 0x4404, 0, &rc[0]) == 0);
        CHECK(fi_trecv(ep, bs, BIG, NULL, peer, 0x4405, 0, &rc[1]) == 0);
        CHECK(fi_trecv(ep, br, BIG, NULL, FI_ADDR_UNSPEC, 0x4406, 0, &rc[2]) == 0);
        CHECK(dn_rendezvous("fi-data-posted", TIMEOUT_MS) == DN_OK);
        expect_all(c3, es, NULL, 3);
        for (unsigned k = 0; k < 3; k++) {
            uint8_t *b = k == 0 ? rbuf : k == 1 ? bs : br;
            size_t len = lens[4 + (k > 0)];

            CHECK_MSG((es[k].flags & FI_REMOTE_CQ_DATA) && es[k].data == cq_data(4 + k),
                      "node 1: posted receive %u: flags 0x%llx data 0x%llx", k,
                      (unsigned long long)es[k].flags, (unsigned long long)es[k].data);
            CHECK_EQ(es[k].len, len);
            CHECK(same(b, len, 44 + k));
        }
    } else {
        CHECK(dn_rendezvous("fi-data-posted", TIMEOUT_MS) == DN_OK);
        for (unsigned k = 0; k < 3; k++) {
            size_t len = lens[4 + (k > 0)];
            ssize_t n;

            fill(bs, len, 44 + k);
            while ((n = fi_tsenddata(ep, bs, len, NULL, cq_data(4 + k), peer, 0x4404 + k,
                                     &sc[k])) == -FI_EAGAIN) {
                fi_cq_read(cq, &e, 0);
            }
            CHECK(n == 0);
            expect(&sc[k], FI_SEND | FI_TAGGED, NULL);
        }
    }
    CHECK(dn_rendezvous("fi-data", TIMEOUT_MS) == DN_OK);
}

int main(void)
{
    static uint8_t sbuf[MAX + 16], rbuf[MAX + 16];
    struct fi_cq_err_entry err;
    fi_addr_t src;
    int ctx[8];

    fab_setup();
    CHECK_EQ(nodes, 2);
    peer = node_addr[1 - me];
    CHECK(info->ep_attr->max_msg_size >= BIG);
    CHECK(info->domain_attr->cq_data_size >= 4);   /* what Open MPI asks for */

    /* Ping-pong, every size up to 64 KiB, node 0 first. */
    for (size_t len = 0, round = 0; len <= MAX; len = len ? len * 4 : 1, round++) {
        uint64_t tag = 0x1234000000000000ull | round;

        if (me == 0) {
            fill(sbuf, len, (uint32_t)round);
            tsend(sbuf, len, tag, &ctx[0]);
            expect(&ctx[0], FI_SEND | FI_TAGGED, NULL);
        }
        memset(rbuf, 0, len + 16);
        CHECK(fi_trecv(ep, rbuf, MAX, NULL, FI_ADDR_UNSPEC, tag, 0, &ctx[1]) == 0);
        struct fi_cq_tagged_entry e = expect(&ctx[1], FI_RECV | FI_TAGGED, &src);
        CHECK_EQ(e.len, len);
        CHECK_EQ(e.tag, tag);
        CHECK_EQ(src, peer);
        CHECK(!(e.flags & FI_REMOTE_CQ_DATA));     /* sent without data */
        CHECK_MSG(same(rbuf, len, (uint32_t)round), "node %u: %zu bytes differ", me, len);
        if (me == 1) {
            tsend(rbuf, len, tag, &ctx[0]);
            expect(&ctx[0], FI_SEND | FI_TAGGED, NULL);
        }
    }
    CHECK(dn_rendezvous("fi-pingpong", TIMEOUT_MS) == DN_OK);

    /* Unexpected: three sent before any receive; taken in order under a mask. */
    if (me == 0) {
        for (uint32_t k = 0; k < 3; k++) {
            fill(sbuf, 100 + k, 50 + k);
            tsend(sbuf, 100 + k, 0x7700 + k, &ctx[k]);
            expect(&ctx[k], FI_SEND | FI_TAGGED, NULL);
        }
        fill(sbuf, 77, 9);
        CHECK(fi_send(ep, sbuf, 77, NULL, peer, &ctx[3]) == 0);     /* untagged */
        expect(&ctx[3], FI_SEND | FI_MSG, NULL);
        /* fi_sendmsg with FI_INJECT: the buffer is ours again at return
         * (scribbled at once), and the send still completes (only the
         * fi_inject calls never do). */
        struct iovec iov = { sbuf, 60 };
        struct fi_msg m = { .msg_iov = &iov, .iov_count = 1, .addr = peer,
                            .context = &ctx[5] };
        fill(sbuf, 60, 19);
        CHECK(fi_sendmsg(ep, &m, FI_INJECT | FI_COMPLETION) == 0);
        memset(sbuf, 0xee, 60);
        expect(&ctx[5], FI_SEND | FI_MSG, NULL);
    }
    CHECK(dn_rendezvous("fi-unexpected-sent", TIMEOUT_MS) == DN_OK);
    if (me == 1) {
        /* The untagged one first: tagged messages may not match it. */
        CHECK(fi_recv(ep, rbuf, MAX, NULL, FI_ADDR_UNSPEC, &ctx[4]) == 0);
        struct fi_cq_tagged_entry e = expect(&ctx[4], FI_RECV | FI_MSG, NULL);
        CHECK_EQ(e.len, 77);
        CHECK(same(rbuf, 77, 9));
        CHECK(fi_recv(ep, rbuf, MAX, NULL, FI_ADDR_UNSPEC, &ctx[5]) == 0);
        e = expect(&ctx[5], FI_RECV | FI_MSG, NULL);
        CHECK_EQ(e.len, 60);
        CHECK(same(rbuf, 60, 19));
        for (uint32_t k = 0; k < 3; k++) {
            /* Any tag 0x77xx: the oldest first. */
            CHECK(fi_trecv(ep, rbuf, MAX, NULL, peer, 0x7700, 0xff, &ctx[k]) == 0);
            e = expect(&ctx[k], FI_RECV | FI_TAGGED, NULL);
            CHECK_EQ(e.tag, 0x7700 + k);
            CHECK_EQ(e.len, 100 + k);
            CHECK(same(rbuf, 100 + k, 50 + k));
        }
        /* Truncation: 5000 bytes into 1000. */
    }
    if (me == 0) {
        fill(sbuf, 5000, 3);
        tsend(sbuf, 5000, 0x99, &ctx[5]);
        expect(&ctx[5], FI_SEND | FI_TAGGED, NULL);
    } else {
        CHECK(fi_trecv(ep, rbuf, 1000, NULL, FI_ADDR_UNSPEC, 0x99, 0, &ctx[5]) == 0);
        struct fi_cq_tagged_entry e = wait_comp(NULL, &err);
        CHECK_MSG(err.err == FI_ETRUNC, "truncation: err %d", err.err);
        CHECK(e.op_context == &ctx[5]);
        CHECK_EQ(err.olen, 4000);
        CHECK(same(rbuf, 1000, 3));
    }

    /* Long messages: rendezvous (any-source receive) and sender-side
     * matching (directed receive, advertised), 64 KiB + 1 to 1 MiB. */
    static uint8_t bs[BIG + 16], br[BIG + 16];
    static const size_t longs[] = { MAX + 1, 200000, 3 * MAX, BIG };
    for (unsigned directed = 0, round = 0; directed < 2; directed++) {
        for (unsigned k = 0; k < sizeof(longs) / sizeof(longs[0]); k++, round++) {
            size_t len = longs[k];
            uint64_t tag = 0x5500 + round;
            fi_addr_t from = directed ? peer : FI_ADDR_UNSPEC;
            struct fi_cq_tagged_entry e[2];
            fi_addr_t srcs[2];
            void *c2[2] = { &ctx[0], &ctx[1] };

            memset(br, 0, len + 16);
            if (me == 0) {
                fill(bs, len, 100 + round);
                tsend(bs, len, tag, &ctx[0]);
                CHECK(fi_trecv(ep, br, BIG, NULL, from, tag, 0, &ctx[1]) == 0);
                expect_all(c2, e, srcs, 2);
            } else {
                CHECK(fi_trecv(ep, br, BIG, NULL, from, tag, 0, &ctx[1]) == 0);
                expect_all(c2 + 1, e + 1, srcs + 1, 1);
                CHECK(same(br, len, 100 + round));
                memcpy(bs, br, len);
                tsend(bs, len, tag, &ctx[0]);
                expect_all(c2, e, NULL, 1);
            }
            CHECK_EQ(e[1].len, len);
            CHECK_EQ(e[1].tag, tag);
            CHECK_EQ(srcs[1], peer);
            CHECK_MSG(same(br, len, 100 + round), "node %u: %zu bytes differ (%s)", me, len,
                      directed ? "directed" : "any source");
            CHECK_EQ(br[len], 0);                  /* nothing past the message */
        }
    }
    CHECK(dn_rendezvous("fi-long", TIMEOUT_MS) == DN_OK);

    /* A long message unexpected; probes; claim; discard. */
    if (me == 0) {
        void *c3[3] = { &ctx[0], &ctx[1], &ctx[2] };

        fill(bs, 300000, 7);
        tsend(bs, 300000, 0x6600, &ctx[0]);
        fill(sbuf, 500, 8);
        tsend(sbuf, 500, 0x6602, &ctx[1]);
        tsend(bs, 200000, 0x6603, &ctx[2]);
        CHECK(dn_rendezvous("fi-probe-sent", TIMEOUT_MS) == DN_OK);
        expect_all(c3, NULL, NULL, 3);             /* the long ones need the receiver */
    } else {
        struct fi_context pctx[4];
        struct fi_msg_tagged m = { .addr = FI_ADDR_UNSPEC, .ignore = 0 };
        struct iovec iov = { br, BIG };
        struct fi_cq_err_entry err;
        struct fi_cq_tagged_entry e;
        int found = 0;

        CHECK(dn_rendezvous("fi-probe-sent", TIMEOUT_MS) == DN_OK);
        /* FI_PEEK until the first part is here: length and tag of the whole. */
        for (int64_t end = now_ms() + TIMEOUT_MS; !found && now_ms() < end;) {
            m.tag = 0x6600;
            m.context = &pctx[0];
            CHECK(fi_trecvmsg(ep, &m, FI_PEEK) == 0);
            e = wait_comp(&src, &err);
            CHECK(e.op_context == &pctx[0]);
            found = !err.err;
            CHECK_MSG(found || err.err == FI_ENOMSG, "peek: err %d", err.err);
        }
        CHECK(found);
        CHECK_EQ(e.len, 300000);
        CHECK_EQ(e.tag, 0x6600);
        CHECK_EQ(src, peer);
        /* Claim it, then take it with FI_CLAIM and the same context. */
        m.context = &pctx[1];
        CHECK(fi_trecvmsg(ep, &m, FI_PEEK | FI_CLAIM) == 0);
        e = wait_comp(NULL, &err);
        CHECK(!err.err && e.op_context == &pctx[1]);
        m.context = &pctx[2];
        CHECK(fi_trecvmsg(ep, &m, FI_PEEK) == 0);  /* claimed: no longer visible */
        e = wait_comp(NULL, &err);
        CHECK_MSG(err.err == FI_ENOMSG, "peek of a claimed message: err %d", err.err);
        m.msg_iov = &iov;
        m.iov_count = 1;
        m.context = &pctx[1];
        CHECK(fi_trecvmsg(ep, &m, FI_CLAIM) == 0);
        e = expect(&pctx[1], FI_RECV | FI_TAGGED, NULL);
        CHECK_EQ(e.len, 300000);
        CHECK(same(br, 300000, 7));
        /* Discard a short and a long one (found by peeking first). */
        for (uint64_t tag = 0x6602; tag <= 0x6603; tag++) {
            found = 0;
            for (int64_t end = now_ms() + TIMEOUT_MS; !found && now_ms() < end;) {
                m.tag = tag;
                m.context = &pctx[3];
                CHECK(fi_trecvmsg(ep, &m, FI_PEEK | FI_DISCARD) == 0);
                e = wait_comp(NULL, &err);
                found = !err.err;
            }
            CHECK_MSG(found, "discard of tag 0x%llx", (unsigned long long)tag);
            CHECK_EQ(e.len, tag == 0x6602 ? 500 : 200000);
            m.context = &pctx[3];
            CHECK(fi_trecvmsg(ep, &m, FI_PEEK) == 0);
            e = wait_comp(NULL, &err);
            CHECK_MSG(err.err == FI_ENOMSG, "peek after discard: err %d", err.err);
        }
        /* FI_CLAIM with no claimed message for this context. */
        m.context = &pctx[0];
        CHECK(fi_trecvmsg(ep, &m, FI_CLAIM) == -FI_EINVAL);
    }
    CHECK(dn_rendezvous("fi-probe", TIMEOUT_MS) == DN_OK);

    /* Long truncation: 1 MiB into 100000 bytes, directed and any source. */
    for (unsigned directed = 0; directed < 2; directed++) {
        if (me == 0) {
            fill(bs, BIG, 11 + directed);
            tsend(bs, BIG, 0x6700 + directed, &ctx[0]);
            expect(&ctx[0], FI_SEND | FI_TAGGED, NULL);
        } else {
            struct fi_cq_err_entry err;

            memset(br, 0, BIG);
            CHECK(fi_trecv(ep, br, 100000, NULL, directed ? peer : FI_ADDR_UNSPEC,
                           0x6700 + directed, 0, &ctx[0]) == 0);
            struct fi_cq_tagged_entry e = wait_comp(NULL, &err);
            CHECK_MSG(err.err == FI_ETRUNC, "long truncation: err %d", err.err);
            CHECK(e.op_context == &ctx[0]);
            CHECK_EQ(err.olen, BIG - 100000);
            CHECK(same(br, 100000, 11 + directed));
            CHECK_EQ(br[100000], 0);
        }
    }
    CHECK(dn_rendezvous("fi-long-trunc", TIMEOUT_MS) == DN_OK);
    remote_cq_data(bs, br, sbuf, rbuf);
    landings();

    /* Non-overtaking under crossing advertisements: 300 messages of one
     * tag, short and long, while the receiver keeps a few receives posted,
     * directed (advertised) and any-source (never advertised) mixed. */
    enum { STRESS = 300, DEPTH = 4, SCAP = 80000 };
    static uint8_t rbufs[DEPTH][SCAP];
    if (me == 0) {
        static uint8_t *msgs[STRESS];
        static struct fi_context sctx[STRESS];
        unsigned done = 0;

        for (unsigned i = 0; i < STRESS; i++) {
            size_t len = i % 7 == 3 ? MAX + 1000 + i : (i * 37) % 3000;
            ssize_t rc;

            msgs[i] = malloc(len + 1);
            fill(msgs[i], len, 1000 + i);
            while ((rc = fi_tsend(ep, msgs[i], len, NULL, peer, 0x8800, &sctx[i])) ==
                   -FI_EAGAIN) {
                struct fi_cq_tagged_entry e;
                if (fi_cq_read(cq, &e, 1) == 1) {
                    done++;
                }
            }
            CHECK_MSG(rc == 0, "stress send %u: %zd", i, rc);
            struct fi_cq_tagged_entry e;
            if (fi_cq_read(cq, &e, 1) == 1) {
                done++;
            }
        }
        while (done < STRESS) {
            struct fi_cq_err_entry err;
            wait_comp(NULL, &err);
            CHECK_MSG(!err.err, "stress send: err %d", err.err);
            done++;
        }
        for (unsigned i = 0; i < STRESS; i++) {
            free(msgs[i]);
        }
    } else {
        struct fi_context rctx[DEPTH];
        unsigned posted = 0, next = 0;
        int busy[DEPTH] = { 0 };

        while (next < STRESS) {
            /* Post into free slots, in order. */
            for (unsigned s = 0; s < DEPTH && posted < STRESS; s++) {
                if (busy[s]) {
                    continue;
                }
                fi_addr_t from = posted % 3 == 1 ? FI_ADDR_UNSPEC : peer;
                memset(rbufs[s], 0, SCAP);
                CHECK(fi_trecv(ep, rbufs[s], SCAP, NULL, from, 0x8800, 0, &rctx[s]) == 0);
                busy[s] = 1 + (int)posted++;
            }
            struct fi_cq_err_entry err;
            struct fi_cq_tagged_entry e = wait_comp(NULL, &err);
            unsigned s = (unsigned)((struct fi_context *)e.op_context - rctx);

            CHECK_MSG(!err.err && s < DEPTH && busy[s], "stress receive: err %d", err.err);
            if (err.err || s >= DEPTH || !busy[s]) {
                break;
            }
            unsigned i = (unsigned)busy[s] - 1;
            size_t len = i % 7 == 3 ? MAX + 1000 + i : (i * 37) % 3000;
            CHECK_MSG(e.len == len && same(rbufs[s], len, 1000 + i),
                      "stress: receive %u got %zu bytes, not message %u's %zu", i,
                      (size_t)e.len, i, len);
            busy[s] = 0;
            next++;
        }
    }
    CHECK(dn_rendezvous("fi-stress", TIMEOUT_MS) == DN_OK);

    /* Refusals, on both nodes. */
    CHECK(fi_tsend(ep, sbuf, 10, NULL, (fi_addr_t)40, 1, NULL) == -FI_EINVAL);
    CHECK(fi_tsend(ep, sbuf, info->ep_attr->max_msg_size + 1, NULL, peer, 1, NULL) ==
          -FI_EMSGSIZE);
    CHECK(fi_tinject(ep, sbuf, info->tx_attr->inject_size + 1, peer, 1) == -FI_EMSGSIZE);
    CHECK(fi_trecv(ep, rbuf, 10, NULL, (fi_addr_t)40, 1, 0, NULL) == -FI_EINVAL);
    CHECK(dn_rendezvous("fi-done", TIMEOUT_MS) == DN_OK);

    fab_close();
    check_failures += fab_failures();
    printf("node %u: libfabric dimmnet provider: ping-pong 0 B..1 MiB, unexpected, "
           "masks, kinds, truncation, probes, remote CQ data, landings, non-overtaking, "
           "refusals: %s\n",
           me,
           check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}
