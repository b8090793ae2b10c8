/*
 * Zero-copy rendezvous (issue 24 item 6): long messages written by the
 * NIC straight into the receive buffer, whose pages the provider moves
 * onto the card and keeps there (docs/libfabric.md). Node 0 sends, node 1
 * receives, both with buffers of their own mapping, and checks:
 *   1. a pre-posted directed receive (advertised): every byte, and nothing
 *      written before or after the buffer (canaries, the buffer not page
 *      aligned);
 *   2. an unexpected message (FIRST, CTS, the rest, DONE) into the same
 *      buffer, kept on the card from step 1;
 *   3. the receiver's buffer unmapped and a new one mapped at the same
 *      address: the message must land in the new memory (a receive cache
 *      that trusted the old pages would write them instead);
 *   4. the same at the sender: its buffer unmapped and mapped again with
 *      new bytes; the receiver must get the new ones (RDMA from the old
 *      pages would send the old);
 *   5. truncation, pre-posted and unexpected: FI_ETRUNC, the bytes taken
 *      right, nothing written past the receive buffer;
 *   6. 24 messages of 9 KiB to 1 MiB cycling through three buffers, posted
 *      and unexpected mixed; the sender's buffers unchanged by sending;
 *   7. registrations over what the receive cache holds (fi_mr_reg takes
 *      pages the way the rendezvous does): a buffer the cache kept, then
 *      unmapped and mapped again, registered and written by node 0 (fi_write
 *      must land in the new memory, not in the cache's old pages), and 3 MiB
 *      registered while the cache holds most of the pool (cached runs
 *      moved back for room, not -FI_ENOSPC), written at its end; then 2 MiB
 *      more registered paged (no room beside it) with its memory left as it
 *      was, and taken onto the card once the 3 MiB are closed;
 *   8. both ways at once, 1 MiB and then twice 4 MiB from the same buffers'
 *      starts, each receive pre-posted (advertised): the receive buffer's
 *      cached run grows from 257 to 1,025 pages (old and new do not fit in
 *      the pool together: it is moved back for room); each node's
 *      4 MiB send then finds no room (the receive's run is busy and a send
 *      moves back no receive's) and goes by BOTF, so under the _faults run
 *      lost packets of 18-packet pieces are sent again by themselves
 *      (dn_resend). zcopy_check.sh checks that all three went zero-copy;
 *   9. then 1 MiB both ways again, pre-posted: the receive takes only its
 *      pages of the 4 MiB run (split, nothing copied), so the send's
 *      buffer finds room (the rest moved back) and the NIC reads it (RDMA;
 *      zcopy_check.sh checks node 1's count of such sends).
 * zcopy_check.sh checks the protocol counts (zcopy-received, eager-long) from
 * FI_DIMMNET_STATS, so that a fallback to chunks is not taken for a pass;
 * under FI_DIMMNET_ZCOPY=0 the same checks hold over chunks.
 *
 *   fabric_zcopy
 */
#include <string.h>
#include <sys/mman.h>
#include <rdma/fi_rma.h>
#include "fabric_util.h"

#define LEN     (200u * 1024u + 123u)
#define OFF     100u                   /* the buffer's start in its mapping */
#define MAPLEN  (((OFF + (1u << 20) + 64) + 4095u) & ~4095u)
#define CANARY  0xeeu
#define REGLEN  (64u * 1024u)
#define BIGLEN  (3u << 20)

#define BIGMAP  ((OFF + (4u << 20) + 64 + 4095u) & ~4095u)

static fi_addr_t peer;

static uint8_t *map_at(void *want)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (want ? MAP_FIXED_NOREPLACE : 0);
    uint8_t *p = mmap(want, MAPLEN, PROT_READ | PROT_WRITE, flags, -1, 0);

    if (p == MAP_FAILED || (want && p != want)) {
        fprintf(stderr, "node %u: cannot map %u bytes at %p\n", me, MAPLEN, want);
        exit(1);
    }
    memset(p, CANARY, MAPLEN);
    return p;
}

/* The mapping outside [OFF, OFF + len) untouched? */
static int canaries_ok(const uint8_t *map, size_t len)
{
    for (size_t i = 0; i < MAPLEN; i++) {
        if ((i < OFF || i >= OFF + len) && map[i] != CANARY) {
            fprintf(stderr, "node %u: byte %zu outside the buffer written\n", me, i);
            return 0;
        }
    }
    return 1;
}

static void post_recv(uint8_t *buf, size_t len, uint64_t tag, void *ctx)
{
    CHECK(fi_trecv(ep, buf, len, NULL, peer, tag, 0, ctx) == 0);
}

/* Receive @len (buffer of @cap) as @tag, pre-posted or after the sender
 * says it sent; check bytes (seed @seed) and canaries. */
static void recv_check(uint8_t *map, size_t cap, size_t len, uint64_t tag, uint32_t seed,
                       int posted, const char *step)
{
    char name[64];
    int ctx;

    memset(map, CANARY, MAPLEN);
    if (posted) {
        post_recv(map + OFF, cap, tag, &ctx);
    }
    snprintf(name, sizeof(name), "zc-%s-ready", step);
    CHECK(dn_rendezvous(name, TIMEOUT_MS) == DN_OK);
    snprintf(name, sizeof(name), "zc-%s-sent", step);
    CHECK(dn_rendezvous(name, TIMEOUT_MS) == DN_OK);
    if (!posted) {
        post_recv(map + OFF, cap, tag, &ctx);
    }
    struct fi_cq_err_entry err = { 0 };
    struct fi_cq_tagged_entry e = wait_comp(NULL, &err);
    size_t took = len < cap ? len : cap;

    if (len > cap) {
        CHECK_EQ(err.err, FI_ETRUNC);
        CHECK_EQ(err.op_context, &ctx);
        CHECK_EQ(err.olen, len - cap);
    } else {
        CHECK_EQ(err.err, 0);
        CHECK_EQ(e.op_context, &ctx);
        CHECK_EQ(e.len, len);
        CHECK_EQ(e.tag, tag);
    }
    if (!same(map + OFF, took, seed)) {
        fprintf(stderr, "node %u: step %s: wrong bytes\n", me, step);
        CHECK(0);
    }
    CHECK(canaries_ok(map, took));
}

/* Node 0's side of recv_check. */
static void send_one(uint8_t *buf, size_t len, uint64_t tag, uint32_t seed, const char *step)
{
    char name[64];
    int ctx;

    fill(buf, len, seed);
    snprintf(name, sizeof(name), "zc-%s-ready", step);
    CHECK(dn_rendezvous(name, TIMEOUT_MS) == DN_OK);
    tsend_to(peer, buf, len, tag, &ctx);
    snprintf(name, sizeof(name), "zc-%s-sent", step);
    CHECK(dn_rendezvous(name, TIMEOUT_MS) == DN_OK);
    expect(&ctx, FI_SEND | FI_TAGGED, NULL);
    CHECK(same(buf, len, seed));          /* sending changed nothing */
}

/* Node 0's part of step 7: @len bytes of pattern @seed by fi_write at
 * offset @off of the registration with key @key (offsets: mr_mode 0). */
static void write_remote(size_t len, uint64_t off, uint64_t key, uint32_t seed)
{
    uint8_t *src = malloc(len);
    ssize_t rc;
    int ctx;

    CHECK(src != NULL);
    fill(src, len, seed);
    while ((rc = fi_write(ep, src, len, NULL, peer, off, key, &ctx)) == -FI_EAGAIN) {
        fi_cq_read(cq, NULL, 0);
    }
    CHECK_MSG(rc == 0, "node 0: fi_write: %s", fi_strerror((int)-rc));
    expect(&ctx, FI_RMA | FI_WRITE, NULL);
    free(src);
}

/* Step 7 (see the top). */
static void registrations(uint8_t **map)
{
    struct fid_mr *mr;

    if (me == 0) {
        CHECK(dn_rendezvous("zc-reg", TIMEOUT_MS) == DN_OK);
        write_remote(REGLEN, 0, 7, 200);
        CHECK(dn_rendezvous("zc-reg-written", TIMEOUT_MS) == DN_OK);
        CHECK(dn_rendezvous("zc-big", TIMEOUT_MS) == DN_OK);
        write_remote(REGLEN, BIGLEN - REGLEN, 8, 201);
        CHECK(dn_rendezvous("zc-big-written", TIMEOUT_MS) == DN_OK);
        return;
    }
    /* A cached buffer mapped anew: the registration must use the new pages. */
    CHECK(munmap(map[1], MAPLEN) == 0);
    CHECK(map_at(map[1]) == map[1]);
    TRY(fi_mr_reg(domain, map[1] + OFF, REGLEN, FI_REMOTE_WRITE, 0, 7, 0, &mr, NULL));
    CHECK(dn_rendezvous("zc-reg", TIMEOUT_MS) == DN_OK);
    CHECK(dn_rendezvous("zc-reg-written", TIMEOUT_MS) == DN_OK);
    CHECK_MSG(same(map[1] + OFF, REGLEN, 200), "node 1: a write to a registration over "
              "a remapped cached buffer did not land in its new memory");
    CHECK_MSG(canaries_ok(map[1], REGLEN), "node 1: bytes around the registration hit");
    TRY(fi_close(&mr->fid));
    /* The pool mostly held by cached runs: room is made for a registration. */
    uint8_t *big = mmap(NULL, BIGLEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
    CHECK(big != MAP_FAILED);
    memset(big, 0, BIGLEN);
    int rc = fi_mr_reg(domain, big, BIGLEN, FI_REMOTE_WRITE, 0, 8, 0, &mr, NULL);
    CHECK_MSG(rc == 0, "node 1: 3 MiB registered while the receive cache holds the pool: "
              "%s", fi_strerror(-rc));
    CHECK(dn_rendezvous("zc-big", TIMEOUT_MS) == DN_OK);
    CHECK(dn_rendezvous("zc-big-written", TIMEOUT_MS) == DN_OK);
    if (rc == 0) {
        CHECK_MSG(same(big + BIGLEN - REGLEN, REGLEN, 201), "node 1: the write at the "
                  "3 MiB registration's end did not land");
        /* More than the pool has left beside it: registered paged (its
         * pages stay where they are, moved onto the card only as the NIC
         * asks, docs/hardware.md section 14), so its memory stays the
         * application's, as it was (readable, writable). */
        uint8_t *more = mmap(NULL, 2u << 20, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        struct fid_mr *mr2 = NULL;

        CHECK(more != MAP_FAILED);
        fill(more, 2u << 20, 202);
        rc = fi_mr_reg(domain, more, 2u << 20, FI_REMOTE_WRITE, 0, 9, 0, &mr2, NULL);
        CHECK_MSG(rc == 0, "node 1: 2 MiB beside a 3 MiB registration (paged): %s",
                  fi_strerror(-rc));
        CHECK_MSG(same(more, 2u << 20, 202), "node 1: a paged registration changed "
                  "its memory");
        fill(more, 2u << 20, 203);
        CHECK(same(more, 2u << 20, 203));
        if (mr2) {
            TRY(fi_close(&mr2->fid));
        }
        CHECK(same(more, 2u << 20, 203));
        TRY(fi_close(&mr->fid));
        /* With the pool free again it goes onto the card whole. */
        TRY(fi_mr_reg(domain, more, 2u << 20, FI_REMOTE_WRITE, 0, 9, 0, &mr2, NULL));
        CHECK(same(more, 2u << 20, 203));
        TRY(fi_close(&mr2->fid));
        CHECK(same(more, 2u << 20, 203));
        munmap(more, 2u << 20);
    }
    munmap(big, BIGLEN);
}

/* Step 8 (see the top). */
static void both_ways_4m(void)
{
    uint8_t *rmap = mmap(NULL, BIGMAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
    uint8_t *smap = mmap(NULL, BIGMAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
    char name[32];

    CHECK(rmap != MAP_FAILED && smap != MAP_FAILED);
    for (unsigned k = 0; k < 4; k++) {
        const size_t len = k == 1 || k == 2 ? 4u << 20 : 1u << 20;
        uint32_t mine = 300 + 10 * me + k, theirs = 300 + 10 * (1 - me) + k;
        int rctx, sctx;
        void *ctx[2] = { &rctx, &sctx };
        struct fi_cq_tagged_entry got[2];

        memset(rmap, CANARY, BIGMAP);
        CHECK(fi_trecv(ep, rmap + OFF, len, NULL, peer, theirs, 0, &rctx) == 0);
        snprintf(name, sizeof(name), "zc-4m-posted%u", k);
        CHECK(dn_rendezvous(name, TIMEOUT_MS) == DN_OK);
        fill(smap + OFF, len, mine);
        tsend_to(peer, smap + OFF, len, mine, &sctx);
        expect_all(ctx, got, NULL, 2);
        CHECK_EQ(got[0].len, len);
        CHECK_EQ(got[0].tag, theirs);
        CHECK_MSG(same(rmap + OFF, len, theirs), "node %u: round %u of step 8: wrong bytes",
                  me, k);
        for (size_t i = 0; i < BIGMAP; i++) {
            if ((i < OFF || i >= OFF + len) && rmap[i] != CANARY) {
                CHECK_MSG(0, "node %u: round %u of step 8: byte %zu outside written", me, k,
                          i);
                break;
            }
        }
        CHECK(same(smap + OFF, len, mine));        /* sending changed nothing */
    }
    munmap(rmap, BIGMAP);
    munmap(smap, BIGMAP);
}

int main(void)
{
    static const size_t sizes[] = { 9 * 1024, 64 * 1024 + 1, 300 * 1024, 1u << 20 };
    uint8_t *map[3];
    char step[16];

    fab_setup_caps(FI_RMA, 0);              /* fi_write for step 7 */
    CHECK_EQ(nodes, 2);
    peer = node_addr[1 - me];
    for (int i = 0; i < 3; i++) {
        map[i] = map_at(NULL);
    }
    uint8_t *a = map[0];

    /* 1, 2: pre-posted, then unexpected, into the same buffer. */
    if (me == 1) {
        recv_check(a, LEN, LEN, 1, 1, 1, "posted");
        recv_check(a, LEN, LEN, 2, 2, 0, "unexpected");
    } else {
        send_one(a + OFF, LEN, 1, 1, "posted");
        send_one(a + OFF, LEN, 2, 2, "unexpected");
    }
    /* 3, 4: the buffer unmapped and mapped again at the same address,
     * at the receiver, then at the sender. */
    CHECK(munmap(a, MAPLEN) == 0);
    CHECK(map_at(a) == a);
    if (me == 1) {
        recv_check(a, LEN, LEN, 3, 3, 1, "remapped-rx");
        recv_check(a, LEN, LEN, 4, 4, 1, "remapped-tx");
    } else {
        send_one(a + OFF, LEN, 3, 3, "remapped-rx");
        CHECK(munmap(a, MAPLEN) == 0);
        CHECK(map_at(a) == a);
        send_one(a + OFF, LEN, 4, 4, "remapped-tx");
    }
    /* 5: truncated, pre-posted and unexpected. */
    if (me == 1) {
        recv_check(a, LEN / 2, LEN, 5, 5, 1, "trunc-posted");
        recv_check(a, LEN / 3, LEN, 6, 6, 0, "trunc-unexpected");
    } else {
        send_one(a + OFF, LEN, 5, 5, "trunc-posted");
        send_one(a + OFF, LEN, 6, 6, "trunc-unexpected");
    }
    /* 6: sizes and buffers mixed. */
    for (unsigned k = 0; k < 24; k++) {
        size_t len = sizes[k % 4];
        uint8_t *m = map[k % 3];

        snprintf(step, sizeof(step), "mix%u", k);
        if (me == 1) {
            recv_check(m, 1u << 20, len, 100 + k, 100 + k, (k / 3) % 2 == 0, step);
        } else {
            send_one(m + OFF, len, 100 + k, 100 + k, step);
        }
    }
    registrations(map);
    both_ways_4m();
    CHECK(dn_rendezvous("zc-done", TIMEOUT_MS) == DN_OK);
    fab_close();
    for (int i = 0; i < 3; i++) {
        munmap(map[i], MAPLEN);
    }
    int failures = check_failures + fab_failures();
    printf("fabric_zcopy: node %u: %s\n", me, failures ? "FAILED" : "ok");
    return failures != 0;
}
