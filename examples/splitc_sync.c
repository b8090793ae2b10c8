/*
 * Split-C (seed 004) in today's terms: its split-phase accesses and
 * synchronisation written over libfabric RMA and atomics on the dimmnet
 * provider, run on 2 or more boards (docs/one-sided.md).
 *
 * A Split-C global pointer names a node and an address there; Split-C/PVM
 * carried it as the owner's base plus an offset. Here every node registers
 * a segment in offset mode (no FI_MR_VIRT_ADDR), so a global pointer is
 * (node, offset) and the offset goes on the wire as it is.
 *
 *   put / get     `:=` and bulk_put/bulk_get: fi_write / fi_read, started
 *                 and not waited for (split phase);
 *   store         `:-` and bulk_store: fi_write too; only the target needs
 *                 to know it arrived;
 *   sync()        wait until every put and get of this node completed: the
 *                 completion counter reaches the number posted;
 *   barrier()     a counting barrier: each node adds 1 to a word on node 0
 *                 (fi_atomic FI_SUM, in the target's firmware); node 0
 *                 waits for all, then writes the round's number to everyone;
 *   all_store_sync()  sync(), then barrier(): a write completes only once
 *                 the target's NIC ACKed every packet, so after everybody's
 *                 sync every store is in its target's memory.
 *
 * Checks (exit status 1 if any fails):
 *   1. split phase: to every other node a bulk put (20000 bytes, 3 pieces
 *      on the wire) and a one-word put, and from every other node a bulk
 *      get, all started before one sync(); the gets are checked after the
 *      sync, the puts by their targets after a barrier();
 *   2. stores: rounds of bulk stores of different sizes to every other
 *      node, then all_store_sync(); each node checks what every other node
 *      stored into it.
 *
 *   splitc_sync [--no-sync] [--rounds N]
 *
 * --no-sync makes all_store_sync() a bare barrier, to show what the sync is
 * for: with packets lost on the links (the launcher's --fault), a store
 * still being sent again arrives after the barrier and step 2 fails.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>
#include "pgas.h"

/* The segment, the same on every node: global pointers are offsets. */
#define SLOT      20480u                        /* one per sending node */
#define BULK      20000u
#define INBOX     0u                            /* step 1: puts from node p at slot p */
#define STORES    (INBOX + PGAS_MAX_NODES * SLOT) /* step 2: stores from node p */
#define MINE      (STORES + PGAS_MAX_NODES * SLOT) /* what others get from us */
#define WORDS     (MINE + SLOT)                 /* one-word puts from node p */
#define ARRIVE    (WORDS + PGAS_MAX_NODES * 8u)  /* barrier: counted on node 0 */
#define RELEASE   (ARRIVE + 8u)                 /* barrier: written by node 0 */
#define SEGMENT   (RELEASE + 8u)

static const size_t store_sizes[] = { 8, 8193, BULK, 465 };

static struct pgas g;
static int use_sync = 1;
static int failures;
static uint64_t epoch;              /* barriers passed */

#define FAIL(...)                                          \
    do {                                                   \
        fprintf(stderr, "node %u: ", g.me);                \
        fprintf(stderr, __VA_ARGS__);                      \
        fputc('\n', stderr);                               \
        failures++;                                        \
    } while (0)

/* ---- Split-C's calls ------------------------------------------------------ */

static void bulk_put(unsigned node, size_t off, const void *src, size_t len)
{
    pgas_put(&g, node, off, src, len);              /* fi_writemsg */
}

static void bulk_get(void *dst, unsigned node, size_t off, size_t len)
{
    pgas_get(&g, node, off, dst, len);              /* fi_read */
}

static void bulk_store(unsigned node, size_t off, const void *src, size_t len)
{
    pgas_put(&g, node, off, src, len);              /* fi_writemsg as well */
}

static void sync_all(void)                          /* Split-C's sync() */
{
    if (pgas_sync(&g)) {                            /* fi_cntr_wait */
        FAIL("an operation completed in error");
    }
}

static void barrier(void)
{
    static const uint64_t one = 1;
    ssize_t rc;

    epoch++;
    if (g.me == 0) {
        if (pgas_wait_word(&g, ARRIVE, epoch * (g.nodes - 1))) {
            FAIL("barrier %" PRIu64 ": only %" PRIu64 " arrivals", epoch,
                 pgas_load_word(&g, ARRIVE));
            exit(1);
        }
        for (unsigned p = 1; p < g.nodes; p++) {
            pgas_put_word(&g, p, RELEASE, epoch, 0);
        }
        sync_all();
        return;
    }
    while ((rc = fi_atomic(g.ep, &one, 1, NULL, g.addr[0], pgas_raddr(&g, 0, ARRIVE),
                           g.key[0], FI_UINT64, FI_SUM, NULL)) == -FI_EAGAIN) {
        pgas_progress(&g);
    }
    if (rc) {
        FAIL("fi_atomic: %s", fi_strerror((int)-rc));
        exit(1);
    }
    g.posted++;
    if (pgas_wait_word(&g, RELEASE, epoch)) {
        FAIL("barrier %" PRIu64 ": no release", epoch);
        exit(1);
    }
}

static void all_store_sync(void)
{
    if (use_sync) {
        sync_all();                 /* our stores are in their targets' memory */
    }
    barrier();                      /* and so are everybody's */
}

/* ---- the program --------------------------------------------------------- */

static uint32_t seed_of(unsigned step, unsigned from, unsigned to)
{
    return step * 256u + from * 16u + to + 1u;
}

/* Step 1: split-phase puts and gets to and from everybody, one sync. */
static void split_phase(void)
{
    static uint8_t out[PGAS_MAX_NODES][BULK], got[PGAS_MAX_NODES][BULK];
    static uint64_t word[PGAS_MAX_NODES];

    pgas_fill(g.seg + MINE, BULK, seed_of(0, g.me, 0));    /* for the others' gets */
    barrier();
    for (unsigned p = 0; p < g.nodes; p++) {
        if (p == g.me) {
            continue;
        }
        pgas_fill(out[p], BULK, seed_of(1, g.me, p));
        word[p] = 1000u * g.me + p;
        bulk_put(p, INBOX + g.me * SLOT, out[p], BULK);
        bulk_put(p, WORDS + g.me * 8u, &word[p], 8);          /* a `:=` of one word */
        bulk_get(got[p], p, MINE, BULK);
    }
    sync_all();                     /* every put done, every get here */
    for (unsigned p = 0; p < g.nodes; p++) {
        if (p != g.me && pgas_check(got[p], BULK, seed_of(0, p, 0)) != BULK) {
            FAIL("bulk_get from node %u: wrong bytes after sync()", p);
        }
    }
    barrier();                      /* everybody's puts are done: look */
    for (unsigned p = 0; p < g.nodes; p++) {
        if (p == g.me) {
            continue;
        }
        if (pgas_check(g.seg + INBOX + p * SLOT, BULK, seed_of(1, p, g.me)) != BULK) {
            FAIL("bulk_put from node %u: wrong bytes after its sync() and a barrier", p);
        }
        if (pgas_load_word(&g, WORDS + p * 8u) != 1000u * p + g.me) {
            FAIL("word put from node %u: %" PRIu64, p, pgas_load_word(&g, WORDS + p * 8u));
        }
    }
    printf("node %u: split phase: %u puts, %u word puts, %u gets, one sync: checked\n",
           g.me, g.nodes - 1, g.nodes - 1, g.nodes - 1);
}

/* Step 2: stores to everybody, all_store_sync, check what came in. */
static void store_round(unsigned r)
{
    static uint8_t out[PGAS_MAX_NODES][BULK];
    size_t len = store_sizes[r % (sizeof(store_sizes) / sizeof(store_sizes[0]))];
    unsigned wrong = 0;

    for (unsigned p = 0; p < g.nodes; p++) {
        if (p != g.me) {
            pgas_fill(out[p], len, seed_of(2 + r, g.me, p));
            bulk_store(p, STORES + g.me * SLOT, out[p], len);
        }
    }
    all_store_sync();
    for (unsigned p = 0; p < g.nodes; p++) {
        size_t bad;

        if (p == g.me) {
            continue;
        }
        bad = pgas_check(g.seg + STORES + p * SLOT, len, seed_of(2 + r, p, g.me));
        if (bad != len) {
            FAIL("store round %u: byte %zu of node %u's %zu-byte store not there after "
                 "all_store_sync()", r, bad, p, len);
            wrong++;
        }
    }
    printf("node %u: store round %u: %zu bytes to each of %u nodes, all_store_sync, "
           "%u of %u received stores %s\n", g.me, r, len, g.nodes - 1,
           g.nodes - 1 - wrong, g.nodes - 1, wrong ? "WRONG" : "right");
    sync_all();                     /* our out[] is free again */
    barrier();                      /* everybody has looked: the next round may store */
}

int main(int argc, char **argv)
{
    unsigned rounds = 8;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-sync")) {
            use_sync = 0;
        } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
            rounds = (unsigned)atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: splitc_sync [--no-sync] [--rounds N]\n");
            return 2;
        }
    }
    pgas_init(&g, SEGMENT, 0, 0);   /* offsets, not pointers: base + offset */
    printf("node %u of %u: segment of %u bytes, all_store_sync %s\n", g.me, g.nodes,
           (unsigned)SEGMENT, use_sync ? "with sync" : "WITHOUT sync (a bare barrier)");
    split_phase();
    for (unsigned r = 0; r < rounds; r++) {
        store_round(r);
    }
    pgas_finalize(&g);
    if (failures) {
        fprintf(stderr, "node %u: %d check(s) failed\n", g.me, failures);
        return 1;
    }
    printf("node %u: split-c ok\n", g.me);
    return 0;
}
