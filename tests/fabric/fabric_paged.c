/*
 * Registrations larger than the card (issue 36 item 1; docs/hardware.md
 * section 14, "Paged registrations"), on two boards. Node 1 registers for
 * remote access a 40 MiB buffer (the card's receive memory is 16 MiB, the
 * provider's pool for registrations about 4 MiB), an 8 MiB read-only one
 * (neither fits: both paged) and a 64 KiB one (fits: resident); node 0
 * writes, reads and fetch-adds them at scattered offsets, across 1 MiB
 * piece boundaries, and sweeps 20 MiB of the large one in 1 MiB writes,
 * then reads all of it back (the pool holds about four pieces, so pieces
 * are moved back and in again on the way). Node 1 drives its progress
 * (fi_cq_read) meanwhile: its host moves what its NIC was refused onto
 * the card. Checks:
 *   - node 0: every byte read back is what was written (or node 1's
 *     pattern where nothing was), every fetch-add's old value;
 *   - node 1: every byte of its buffers in its own memory, before and
 *     after fi_close (pieces moved back keep their bytes), and its
 *     counters: pieces moved in and out, node 0's pieces refused
 *     NOT_RESIDENT (the wrapper checks the FI_DIMMNET_STATS lines);
 *   - a write to the read-only paged registration is refused (FI_EACCES),
 *     not retried for ever.
 *
 *   fabric_paged
 */
#include <inttypes.h>
#include <string.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>
#include "fabric_util.h"

#define BIG    (40u << 20)
#define RO     (8u << 20)
#define SMALL  65536u
#define SWEEP  (20u << 20)
#define CELLS  4u
#define ADDS   10u

static fi_addr_t peer;

struct remote {
    uint64_t big, kbig, ro, kro, small, ksmall;
};

/* Writes node 0 makes into BIG (before the sweep), at disjoint offsets:
 * across piece boundaries, at both ends, and a 2 MiB one. */
static const struct { size_t off, len; } writes[] = {
    { 0, 1 }, { 100, 464 }, { (1u << 20) - 3000, 8192 }, { (3u << 20) + 5, 70000 },
    { (7u << 20) - 1, 2 }, { (9u << 20) + 4096, 2u << 20 }, { (23u << 20) + 77, 100000 },
    { (31u << 20) - 4096, 8192 + 4096 }, { BIG - 4000, 4000 }, { (15u << 20) + 1, 1 },
};
/* The fetch-add cells: 8-byte aligned, where no write above lands (the
 * sweep overwrites the first two later). */
static size_t cell_off(unsigned c)
{
    static const unsigned mib[CELLS] = { 12, 17, 27, 35 };
    return ((size_t)mib[c] << 20) + 256;
}

static void post_write(const void *buf, size_t len, uint64_t addr, uint64_t key, void *ctx)
{
    ssize_t rc;

    while ((rc = fi_write(ep, buf, len, NULL, peer, addr, key, ctx)) == -FI_EAGAIN) {
        fi_cq_read(cq, NULL, 0);
    }
    CHECK_MSG(rc == 0, "fi_write: %s", fi_strerror((int)-rc));
}

static void post_read(void *buf, size_t len, uint64_t addr, uint64_t key, void *ctx)
{
    ssize_t rc;

    while ((rc = fi_read(ep, buf, len, NULL, peer, addr, key, ctx)) == -FI_EAGAIN) {
        fi_cq_read(cq, NULL, 0);
    }
    CHECK_MSG(rc == 0, "fi_read: %s", fi_strerror((int)-rc));
}

/* What node 1's BIG holds once node 0 is done (the sweep last). */
static void expected_big(uint8_t *want)
{
    fill(want, BIG, 1);
    for (unsigned k = 0; k < sizeof(writes) / sizeof(writes[0]); k++) {
        fill(want + writes[k].off, writes[k].len, 100 + k);
    }
    for (unsigned c = 0; c < CELLS; c++) {
        uint64_t v;
        memcpy(&v, want + cell_off(c), 8);
        v += (uint64_t)ADDS * (c + 1);
        memcpy(want + cell_off(c), &v, 8);
    }
    for (size_t off = 0; off < SWEEP; off += 1u << 20) {
        fill(want + off + 8, (1u << 20) - 16, 200 + (uint32_t)(off >> 20));
    }
}

static void initiator(void)
{
    uint8_t *buf = malloc(2u << 20), *back = malloc(2u << 20);
    uint8_t *want = malloc(BIG);
    struct remote r;
    char v[200];
    int ctx[2];

    CHECK(buf && back && want);
    CHECK(dn_lookup("paged.1", v, sizeof(v), TIMEOUT_MS) == DN_OK);
    CHECK_EQ(sscanf(v, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64
                    " %" SCNx64, &r.big, &r.kbig, &r.ro, &r.kro, &r.small, &r.ksmall), 6);
    fill(want, BIG, 1);
    /* Scattered writes, each read back at once. */
    for (unsigned k = 0; k < sizeof(writes) / sizeof(writes[0]); k++) {
        size_t off = writes[k].off, len = writes[k].len;

        fill(buf, len, 100 + k);
        post_write(buf, len, r.big + off, r.kbig, &ctx[0]);
        expect(&ctx[0], FI_RMA | FI_WRITE, NULL);
        memset(back, 0, len);
        post_read(back, len, r.big + off, r.kbig, &ctx[1]);
        expect(&ctx[1], FI_RMA | FI_READ, NULL);
        CHECK_MSG(same(back, len, 100 + k), "node 0: write %u (%zu bytes at %zu) read back "
                  "differs", k, len, off);
        /* And node 1's own bytes just before it, untouched. */
        if (off >= 64) {
            post_read(back, 64, r.big + off - 64, r.kbig, &ctx[1]);
            expect(&ctx[1], FI_RMA | FI_READ, NULL);
            CHECK_MSG(!memcmp(back, want + off - 64, 64), "node 0: bytes before write %u "
                      "differ", k);
        }
    }
    /* Reads of the read-only one, and of the resident small one. */
    for (unsigned k = 0; k < 6; k++) {
        size_t off = (size_t)k * (RO / 6) + 999, len = 5000u + 3000u * k;

        post_read(back, len, r.ro + off, r.kro, &ctx[1]);
        expect(&ctx[1], FI_RMA | FI_READ, NULL);
        fill(want, RO, 2);
        CHECK_MSG(!memcmp(back, want + off, len), "node 0: read-only read %u differs", k);
    }
    fill(buf, SMALL, 3);
    post_write(buf, SMALL, r.small, r.ksmall, &ctx[0]);
    expect(&ctx[0], FI_RMA | FI_WRITE, NULL);
    /* A write to the read-only paged registration: refused, not retried. */
    post_write(buf, 100, r.ro + 100, r.kro, &ctx[0]);
    {
        struct fi_cq_err_entry err;
        struct fi_cq_tagged_entry e = wait_comp(NULL, &err);
        CHECK_MSG(err.err == FI_EACCES, "node 0: write to a read-only paged registration: "
                  "error %d, expected FI_EACCES", err.err);
        CHECK(e.op_context == &ctx[0]);
    }
    /* Fetch-adds (the firmware's atomics on a paged target). */
    fill(want, BIG, 1);
    for (unsigned c = 0; c < CELLS; c++) {
        uint64_t start, add = c + 1, old = 0;

        memcpy(&start, want + cell_off(c), 8);
        for (unsigned i = 0; i < ADDS; i++) {
            ssize_t rc;
            while ((rc = fi_fetch_atomic(ep, &add, 1, NULL, &old, NULL, peer,
                                         r.big + cell_off(c), r.kbig, FI_UINT64, FI_SUM,
                                         &ctx[0])) == -FI_EAGAIN) {
                fi_cq_read(cq, NULL, 0);
            }
            CHECK_MSG(rc == 0, "fi_fetch_atomic: %s", fi_strerror((int)-rc));
            expect(&ctx[0], FI_ATOMIC | FI_READ, NULL);
            CHECK_MSG(old == start + (uint64_t)i * add, "node 0: cell %u add %u: old %" PRIu64
                      ", expected %" PRIu64, c, i, old, start + (uint64_t)i * add);
        }
    }
    /* The sweep: 20 MiB in 1 MiB writes (the pool holds about four MiB),
     * then all of it read back. */
    for (size_t off = 0; off < SWEEP; off += 1u << 20) {
        fill(buf, (1u << 20) - 16, 200 + (uint32_t)(off >> 20));
        post_write(buf, (1u << 20) - 16, r.big + off + 8, r.kbig, &ctx[0]);
        expect(&ctx[0], FI_RMA | FI_WRITE, NULL);
    }
    expected_big(want);
    for (size_t off = 0; off < SWEEP + (2u << 20); off += 1u << 20) {
        post_read(back, 1u << 20, r.big + off, r.kbig, &ctx[1]);
        expect(&ctx[1], FI_RMA | FI_READ, NULL);
        CHECK_MSG(!memcmp(back, want + off, 1u << 20), "node 0: MiB %zu read back differs",
                  off >> 20);
    }
    CHECK(dn_publish("paged.done", "1") == DN_OK);
    free(buf);
    free(back);
    free(want);
}

/* Node 1: its progress runs while node 0 works (the pieces node 0's
 * accesses need are moved onto the card by it). */
static void serve(void)
{
    char v[8];

    while (dn_lookup("paged.done", v, sizeof(v), 0) != DN_OK) {
        fi_cq_read(cq, NULL, 0);
    }
}

static void target(void)
{
    uint8_t *big = malloc(BIG), *ro = malloc(RO), *small = malloc(SMALL);
    uint8_t *want = malloc(BIG);
    struct fid_mr *mbig, *mro, *msmall;
    char v[200];

    CHECK(big && ro && small && want);
    fill(big, BIG, 1);
    fill(ro, RO, 2);
    memset(small, 0, SMALL);
    TRY(fi_mr_reg(domain, small, SMALL, FI_REMOTE_WRITE | FI_REMOTE_READ, 0, 0, 0, &msmall,
                  NULL));
    TRY(fi_mr_reg(domain, big, BIG, FI_REMOTE_WRITE | FI_REMOTE_READ, 0, 0, 0, &mbig, NULL));
    TRY(fi_mr_reg(domain, ro, RO, FI_REMOTE_READ, 0, 0, 0, &mro, NULL));
    snprintf(v, sizeof(v), "%" PRIxPTR " %" PRIx64 " %" PRIxPTR " %" PRIx64 " %" PRIxPTR
             " %" PRIx64, (uintptr_t)big, fi_mr_key(mbig), (uintptr_t)ro, fi_mr_key(mro),
             (uintptr_t)small, fi_mr_key(msmall));
    CHECK(dn_publish("paged.1", v) == DN_OK);
    serve();
    expected_big(want);
    for (size_t off = 0; off < BIG; off += 1u << 20) {
        CHECK_MSG(!memcmp(big + off, want + off, 1u << 20), "node 1: MiB %zu of the large "
                  "registration differs", off >> 20);
    }
    CHECK_MSG(same(ro, RO, 2), "node 1: the read-only registration changed");
    CHECK_MSG(same(small, SMALL, 3), "node 1: the resident registration differs");
    TRY(fi_close(&mbig->fid));
    TRY(fi_close(&mro->fid));
    TRY(fi_close(&msmall->fid));
    for (size_t off = 0; off < BIG; off += 1u << 20) {
        CHECK_MSG(!memcmp(big + off, want + off, 1u << 20), "node 1: MiB %zu differs after "
                  "fi_close", off >> 20);
    }
    free(big);
    free(ro);
    free(small);
    free(want);
}

int main(void)
{
    fab_setup_caps(FI_RMA | FI_ATOMIC, FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY);
    CHECK_EQ(nodes, 2);
    peer = node_addr[1 - me];
    if (me == 0) {
        initiator();
    } else {
        target();
    }
    CHECK(dn_rendezvous("paged-end", TIMEOUT_MS) == DN_OK);
    fab_close();
    check_failures += fab_failures();
    if (check_failures) {
        fprintf(stderr, "node %u: %d check(s) failed\n", me, check_failures);
        return 1;
    }
    printf("node %u: paged ok\n", me);
    return 0;
}
