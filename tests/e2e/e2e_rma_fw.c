/*
 * Registered memory and remote atomics on real boards (docs/hardware.md
 * sections 14 and 15), through tools/dimmnet-cluster:
 *
 *   e2e_rma_fw refusals   2 boards: node 1 registers; node 0 writes inside
 *                         (lands) and outside every way (no entry, wrong key,
 *                         out of range, no W, an entry cleared by
 *                         dn_mr_clear after it was used): each refused
 *                         PROTECTION, nothing lands, each counted; atomics
 *                         on write-only and unregistered memory refused too
 *   e2e_rma_fw ops        2 boards: every op on every datatype at node 1,
 *                         old and new values checked against a model; the
 *                         window of 8 (a ninth post is DN_EBUSY)
 *   e2e_rma_fw sum K      every board: K fetch-adds of 1 on node 0's
 *                         counter, 8 in flight; the counter ends at
 *                         nodes x K and the old values returned are
 *                         0 .. nodes x K - 1 (their sum and sum of squares),
 *                         whatever the switch drops, duplicates or reorders
 *   e2e_rma_fw fetch-add K  2 boards: node 1 does K fetch-adds on node 0's
 *                         counter one at a time (bench/run_bench.py counts
 *                         node 0's handler, path atomic-fetch-add); node 0
 *                         waits with dn_idle (host sync: never outside the
 *                         shim while the other needs its board)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/atomic.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/message.h"
#include "dimmnet1/packet.h"

#define TIMEOUT_MS 120000
#define KEY_RW   0x8001u
#define KEY_R    0x8002u
#define KEY_W    0x8003u
#define VA_RW    0x7f0000100000ull
#define VA_R     0x7f0000200000ull
#define VA_W     0x7f0000300000ull
#define OFF_RW   0x200000u          /* receive memory of node 1 */
#define OFF_R    0x210000u
#define OFF_W    0x220000u
#define LEN      0x1800u          /* the second page half inside */
#define CANARY   0x5au
#define REPLY    0x300000u          /* node 0's receive memory: old values */

static uint32_t fwstat(dn_node *n, unsigned i)
{
    uint32_t v = 0;
    CHECK_EQ(dn_fw_stat_read(n, i, &v), DN_OK);
    return v;
}

static void wait_key(const char *key)
{
    char v[32];
    CHECK_EQ(dn_lookup(key, v, sizeof(v), TIMEOUT_MS), DN_OK);
}

/* Node 1's side of refusals and ops: register, let node 0 work, check. */
static void target(dn_node *n, int refusals)
{
    size_t size;
    uint8_t *mem = dn_hostmem(n, &size);

    memset(mem + OFF_RW - 0x1000, CANARY, 0x40000);
    CHECK_EQ(dn_mr_set(n, 0, KEY_RW, VA_RW, OFF_RW, LEN, DN_MR_REMOTE_WRITE | DN_MR_REMOTE_READ), DN_OK);
    CHECK_EQ(dn_mr_set(n, 1, KEY_R, VA_R, OFF_R, LEN, DN_MR_REMOTE_READ), DN_OK);
    CHECK_EQ(dn_mr_set(n, 2, KEY_W, VA_W, OFF_W, LEN, DN_MR_REMOTE_WRITE), DN_OK);
    /* The shim's own checks. */
    CHECK_EQ(dn_mr_set(n, 0, KEY_RW, VA_RW, OFF_RW, LEN, DN_MR_REMOTE_WRITE), DN_EBUSY);
    CHECK_EQ(dn_mr_set(n, 3, 0x7fff, VA_RW, OFF_RW, LEN, DN_MR_REMOTE_WRITE), DN_EINVAL);
    CHECK_EQ(dn_mr_set(n, DN_MR_ENTRIES, KEY_RW, VA_RW, OFF_RW, LEN, DN_MR_REMOTE_WRITE), DN_EINVAL);
    CHECK_EQ(dn_mr_set(n, 3, KEY_RW, VA_RW, OFF_RW, LEN, 4), DN_EINVAL);
    CHECK_EQ(dn_mr_set(n, 3, KEY_RW, VA_RW, OFF_RW, 0, DN_MR_REMOTE_WRITE), DN_ERANGE);
    CHECK_EQ(dn_mr_set(n, 3, KEY_RW, VA_RW, (uint32_t)size - 16, 32, DN_MR_REMOTE_WRITE), DN_ERANGE);
    CHECK_EQ(dn_publish("registered", "1"), DN_OK);
    if (refusals) {
        wait_key("used");
        CHECK_EQ(dn_mr_clear(n, 0, TIMEOUT_MS), DN_OK);
        CHECK_EQ(dn_publish("cleared", "1"), DN_OK);
    }
    wait_key("finished");
    if (refusals) {
        /* Only the two writes inside landed: 64 bytes at the start and 8
         * at the end; everything else is as it was. */
        for (uint32_t i = 0; i < 0x40000; i++) {
            uint32_t off = OFF_RW - 0x1000 + i;
            int in_a = off >= OFF_RW && off < OFF_RW + 0x40;
            int in_b = off >= OFF_RW + LEN - 8 && off < OFF_RW + LEN;
            uint8_t want = in_a ? (uint8_t)(off - OFF_RW) : in_b ? 0xb0 : CANARY;
            if (mem[off] != want) {
                CHECK_MSG(0, "offset 0x%x: 0x%02x, expected 0x%02x", off, mem[off], want);
                break;
            }
        }
        uint32_t refused = fwstat(n, DN1_FWST_MR_REFUSED);
        printf("mr_fills %u mr_continues %u mr_refused %u mr_syncs %u atomic_refused %u\n",
               fwstat(n, DN1_FWST_MR_FILLS), fwstat(n, DN1_FWST_MR_CONTINUES), refused,
               fwstat(n, DN1_FWST_MR_SYNCS), fwstat(n, DN1_FWST_ATOMIC_REFUSED));
        CHECK_EQ(refused, 5);
        CHECK(fwstat(n, DN1_FWST_MR_FILLS) >= 1);
        CHECK(fwstat(n, DN1_FWST_MR_CONTINUES) >= 1);
        CHECK_EQ(fwstat(n, DN1_FWST_MR_SYNCS), 1);
        CHECK_EQ(fwstat(n, DN1_FWST_ATOMIC_REFUSED), 3);
    }
}

/* A write by node 0 that node 1 must refuse PROTECTION. */
static void put_refused(dn_node *n, uint16_t key, uint64_t va, size_t len, const char *what)
{
    uint8_t buf[64];
    dn_xfer x;

    memset(buf, 0xee, sizeof(buf));
    CHECK_EQ(dn_botf_put_rva(n, 1, DN_RVA(key, va), buf, len, &x), DN_OK);
    int rc = dn_wait(n, &x, TIMEOUT_MS);
    CHECK_MSG(rc == DN_ENACK && x.nack_reason == DN1_NACK_PROTECTION,
              "%s: rc %d reason %u", what, rc, x.nack_reason);
}

static void refusals(dn_node *n)
{
    uint8_t buf[64];
    dn_xfer x;
    uint64_t v = 1, old;

    wait_key("registered");
    for (unsigned i = 0; i < 64; i++) {
        buf[i] = (uint8_t)i;
    }
    /* Inside: the first page, wholly registered (an RVATLB fill), then
     * the last bytes (the registration ends mid-page: continued). */
    CHECK_EQ(dn_botf_put_rva(n, 1, DN_RVA(KEY_RW, VA_RW), buf, 64, &x), DN_OK);
    CHECK_EQ(dn_wait(n, &x, TIMEOUT_MS), DN_OK);
    memset(buf, 0xb0, 8);
    CHECK_EQ(dn_botf_put_rva(n, 1, DN_RVA(KEY_RW, VA_RW + LEN - 8), buf, 8, &x), DN_OK);
    CHECK_EQ(dn_wait(n, &x, TIMEOUT_MS), DN_OK);
    put_refused(n, 0x8005, VA_RW, 8, "no entry with the key");
    put_refused(n, KEY_R, VA_RW, 8, "another registration's key");
    put_refused(n, KEY_RW, VA_RW + LEN - 8, 16, "runs out of the registration");
    put_refused(n, KEY_R, VA_R, 8, "no W");
    /* Atomics: write-only (every atomic returns the old value: R too),
     * read-only (SUM writes), no registration at all. */
    CHECK_EQ(dn_atomic(n, 1, DN_RVA(KEY_W, VA_W), DN1_AOP_SUM, DN1_ADT_UINT64, &v, NULL,
                       &old, TIMEOUT_MS), DN_ENACK);
    CHECK_EQ(dn_atomic(n, 1, DN_RVA(KEY_R, VA_R), DN1_AOP_SUM, DN1_ADT_UINT64, &v, NULL,
                       &old, TIMEOUT_MS), DN_ENACK);
    CHECK_EQ(dn_atomic(n, 1, DN_RVA(0x8009, VA_R), DN1_AOP_READ, DN1_ADT_UINT64, &v, NULL,
                       &old, TIMEOUT_MS), DN_ENACK);
    /* READ on read-only memory is allowed: the canary comes back. */
    CHECK_EQ(dn_atomic(n, 1, DN_RVA(KEY_R, VA_R), DN1_AOP_READ, DN1_ADT_UINT64, &v, NULL,
                       &old, TIMEOUT_MS), DN_OK);
    CHECK_EQ(old, 0x5a5a5a5a5a5a5a5aull);
    /* The page written first now has an RVATLB entry; the owner clears
     * the registration: the same write is refused. */
    CHECK_EQ(dn_publish("used", "1"), DN_OK);
    wait_key("cleared");
    put_refused(n, KEY_RW, VA_RW, 64, "cleared entry");
    CHECK_EQ(dn_publish("finished", "1"), DN_OK);
}

/* The model, per type as C does it. */
static uint64_t model(unsigned op, unsigned dt, uint64_t old, uint64_t v, uint64_t c)
{
#define OPS(T)                                                              \
    do {                                                                    \
        T o = (T)old, x = (T)v, y = (T)c, r;                                \
        switch (op) {                                                       \
        case DN1_AOP_MIN: r = x < o ? x : o; break;                         \
        case DN1_AOP_MAX: r = x > o ? x : o; break;                         \
        case DN1_AOP_SUM: r = (T)((uint64_t)o + (uint64_t)x); break;        \
        case DN1_AOP_LOR: r = o || x; break;                                \
        case DN1_AOP_LAND: r = o && x; break;                               \
        case DN1_AOP_BOR: r = o | x; break;                                 \
        case DN1_AOP_BAND: r = o & x; break;                                \
        case DN1_AOP_LXOR: r = (o && !x) || (!o && x); break;               \
        case DN1_AOP_BXOR: r = o ^ x; break;                                \
        case DN1_AOP_READ: r = o; break;                                    \
        case DN1_AOP_SWAP: r = x; break;                                    \
        case DN1_AOP_CSWAP: r = y == o ? x : o; break;                      \
        case DN1_AOP_CSWAP_NE: r = y != o ? x : o; break;                   \
        case DN1_AOP_CSWAP_LE: r = y <= o ? x : o; break;                   \
        case DN1_AOP_CSWAP_LT: r = y < o ? x : o; break;                    \
        case DN1_AOP_CSWAP_GE: r = y >= o ? x : o; break;                   \
        case DN1_AOP_CSWAP_GT: r = y > o ? x : o; break;                    \
        default: r = (T)((x & y) | (o & ~y)); break;                        \
        }                                                                   \
        return (uint64_t)r & (sizeof(T) == 4 ? 0xffffffffull : ~0ull);      \
    } while (0)
    switch (dt) {
    case DN1_ADT_INT32: OPS(int32_t);
    case DN1_ADT_UINT32: OPS(uint32_t);
    case DN1_ADT_INT64: OPS(int64_t);
    default: OPS(uint64_t);
    }
#undef OPS
}

static void ops(dn_node *n)
{
    static const uint64_t vals[] = { 0, 3, 0x7fffffffull, 0x80000000ull,
                                     0xfffffffffffffffeull, 0x8000000000000001ull };
    const unsigned nv = sizeof(vals) / sizeof(vals[0]);
    unsigned checked = 0;

    wait_key("registered");
    for (unsigned op = 0; op < DN1_AOP_COUNT; op++) {
        if (!dn1_aop_ok(op)) {
            continue;
        }
        for (unsigned dt = DN1_ADT_INT32; dt <= DN1_ADT_UINT64; dt++) {
            unsigned size = dn1_adt_size(dt);
            uint64_t mask = size == 4 ? 0xffffffffull : ~0ull;
            for (unsigned i = 0; i < 4; i++) {
                uint64_t start = vals[(op + i) % nv], v = vals[(op * 3 + i + dt) % nv];
                uint64_t c = i & 1 ? start : vals[(i + dt) % nv];
                uint64_t rva = DN_RVA(KEY_RW, VA_RW + 64 * i + 8 * (dt - DN1_ADT_INT32));
                uint64_t old = 0, now = 0;
                /* Set, apply, read back: all by atomics. */
                CHECK_EQ(dn_atomic(n, 1, rva, DN1_AOP_SWAP, dt, &start, NULL, &old,
                                   TIMEOUT_MS), DN_OK);
                old = 0;
                CHECK_EQ(dn_atomic(n, 1, rva, op, dt, &v, &c, &old, TIMEOUT_MS), DN_OK);
                CHECK_MSG(old == (start & mask), "op %u dt %u: old 0x%llx, set 0x%llx",
                          op, dt, (unsigned long long)old, (unsigned long long)start);
                CHECK_EQ(dn_atomic(n, 1, rva, DN1_AOP_READ, dt, &v, NULL, &now,
                                   TIMEOUT_MS), DN_OK);
                uint64_t want = model(op, dt, start & mask, v, c);
                CHECK_MSG(now == want, "op %u dt %u old 0x%llx v 0x%llx c 0x%llx: "
                          "0x%llx, model 0x%llx", op, dt, (unsigned long long)start,
                          (unsigned long long)v, (unsigned long long)c,
                          (unsigned long long)now, (unsigned long long)want);
                checked++;
            }
        }
    }
    /* The window: 8 posted, the ninth refused until one is answered. */
    dn_atomic_req r[9];
    uint64_t one = 1;
    int done;
    for (unsigned i = 0; i < 8; i++) {
        CHECK_EQ(dn_atomic_post(n, &r[i], 1, DN_RVA(KEY_RW, VA_RW + 0x800), DN1_AOP_SUM,
                                DN1_ADT_UINT64, &one, NULL, REPLY + 8 * i), DN_OK);
    }
    CHECK_EQ(dn_atomic_post(n, &r[8], 1, DN_RVA(KEY_RW, VA_RW + 0x800), DN1_AOP_SUM,
                            DN1_ADT_UINT64, &one, NULL, REPLY + 64), DN_EBUSY);
    size_t size;
    uint8_t *mem = dn_hostmem(n, &size);
    uint64_t seen = 0;
    for (unsigned i = 0; i < 8; i++) {
        do {
            CHECK_EQ(dn_atomic_test(n, &r[i], &done), DN_OK);
            if (!done) {
                dn_idle(n);
            }
        } while (!done);
        uint64_t o;
        memcpy(&o, mem + REPLY + 8 * i, 8);
        o -= 0x5a5a5a5a5a5a5a5aull;             /* node 1's canary, counted up */
        CHECK_MSG(o < 8 && !(seen & 1ull << o), "reply %u: 0x%llx", i, (unsigned long long)o);
        seen |= o < 64 ? 1ull << o : 0;
    }
    CHECK_EQ(seen, 0xff);
    /* Bad arguments. */
    CHECK_EQ(dn_atomic_post(n, &r[8], 1, DN_RVA(KEY_RW, VA_RW + 4), DN1_AOP_SUM,
                            DN1_ADT_UINT64, &one, NULL, REPLY), DN_EINVAL);
    CHECK_EQ(dn_atomic_post(n, &r[8], 1, DN_RVA(KEY_RW, VA_RW), 3, DN1_ADT_UINT64,
                            &one, NULL, REPLY), DN_EINVAL);
    CHECK_EQ(dn_atomic_post(n, &r[8], 1, DN_RVA(KEY_RW, VA_RW), DN1_AOP_CSWAP,
                            DN1_ADT_UINT64, &one, NULL, REPLY), DN_EINVAL);
    CHECK_EQ(dn_atomic_post(n, &r[8], 1, DN_RVA(KEY_RW, VA_RW), DN1_AOP_SUM,
                            DN1_ADT_UINT64, &one, NULL, DN1_HOSTMEM_SIZE), DN_ERANGE);
    printf("ops checked %u\n", checked);
    CHECK_EQ(dn_publish("finished", "1"), DN_OK);
}

/* Every node: K fetch-adds of 1 on node 0's counter, 8 in flight. */
static void sum(dn_node *n, unsigned k)
{
    unsigned me = dn_node_id(n), nodes = (unsigned)strtoul(getenv("DIMMNET_NODES"), NULL, 10);
    size_t size;
    uint8_t *mem = dn_hostmem(n, &size);
    char key[32], v[64];

    if (me == 0) {
        memset(mem + OFF_RW, 0, 8);
        CHECK_EQ(dn_mr_set(n, 0, KEY_RW, VA_RW, OFF_RW, 8,
                           DN_MR_REMOTE_WRITE | DN_MR_REMOTE_READ), DN_OK);
        CHECK_EQ(dn_publish("registered", "1"), DN_OK);
    } else {
        wait_key("registered");
    }
    /* Reply slots a ring taken in turn, not one a window entry: a late
     * second answer (a duplicate, or the answer to a resend whose first
     * answer came too) must not land in a slot being read (the provider's
     * DNF_ATOMIC_REPLIES; reusing slot w at once gave a wrong old value in
     * one CI run). */
    enum { RING = 512 };
    dn_atomic_req r[DN_ATOMIC_WINDOW];
    int busy[DN_ATOMIC_WINDOW] = { 0 };
    unsigned slot[DN_ATOMIC_WINDOW] = { 0 };
    uint64_t one = 1, s1 = 0, s2 = 0, resends = 0;
    unsigned posted = 0, done_n = 0;
    while (done_n < k) {
        for (unsigned w = 0; w < DN_ATOMIC_WINDOW; w++) {
            int done;
            if (busy[w]) {
                int rc = dn_atomic_test(n, &r[w], &done);
                CHECK_EQ(rc, DN_OK);
                if (rc != DN_OK) {
                    return;
                }
                if (!done) {
                    continue;
                }
                uint64_t o;
                memcpy(&o, mem + REPLY + 8 * slot[w], 8);
                s1 += o;
                s2 += o * o;
                resends += r[w].resends;
                busy[w] = 0;
                done_n++;
            }
            if (posted < k) {
                slot[w] = posted % RING;
                int rc = dn_atomic_post(n, &r[w], 0, DN_RVA(KEY_RW, VA_RW), DN1_AOP_SUM,
                                        DN1_ADT_UINT64, &one, NULL, REPLY + 8 * slot[w]);
                if (rc == DN_OK) {
                    busy[w] = 1;
                    posted++;
                } else {
                    CHECK_EQ(rc, DN_EBUSY);
                }
            }
        }
        dn_idle(n);
    }
    snprintf(key, sizeof(key), "sum%u", me);
    snprintf(v, sizeof(v), "%llu %llu", (unsigned long long)s1, (unsigned long long)s2);
    CHECK_EQ(dn_publish(key, v), DN_OK);
    printf("node %u: %u fetch-adds, %llu resent\n", me, k, (unsigned long long)resends);
    if (me != 0) {
        return;
    }
    uint64_t t1 = 0, t2 = 0, total = (uint64_t)nodes * k;
    for (unsigned i = 0; i < nodes; i++) {
        unsigned long long a, b;
        snprintf(key, sizeof(key), "sum%u", i);
        CHECK_EQ(dn_lookup(key, v, sizeof(v), 10 * TIMEOUT_MS), DN_OK);
        CHECK_EQ(sscanf(v, "%llu %llu", &a, &b), 2);
        t1 += a;
        t2 += b;
    }
    uint64_t counter;
    memcpy(&counter, mem + OFF_RW, 8);
    uint64_t w1 = total * (total - 1) / 2, w2 = 0;
    for (uint64_t i = 0; i < total; i++) {
        w2 += i * i;
    }
    CHECK_EQ(counter, total);
    CHECK_EQ(t1, w1);
    CHECK_EQ(t2, w2);
    printf("counter %llu of %llu; old values sum %s; atomic_applied %u duplicates %u "
           "sequence %u stale %u\n", (unsigned long long)counter, (unsigned long long)total,
           t1 == w1 && t2 == w2 ? "exact" : "WRONG", fwstat(n, DN1_FWST_ATOMIC_APPLIED),
           fwstat(n, DN1_FWST_ATOMIC_DUPLICATES), fwstat(n, DN1_FWST_ATOMIC_SEQUENCE),
           fwstat(n, DN1_FWST_ATOMIC_STALE));
    CHECK_EQ(fwstat(n, DN1_FWST_ATOMIC_APPLIED), total);
}

static void fetch_add(dn_node *n, unsigned k)
{
    size_t size;
    uint8_t *mem = dn_hostmem(n, &size);
    volatile uint64_t *counter = (volatile uint64_t *)(mem + OFF_RW);
    uint64_t one = 1, old;

    if (dn_node_id(n) == 0) {
        *counter = 0;
        CHECK_EQ(dn_mr_set(n, 0, KEY_RW, VA_RW, OFF_RW, 8,
                           DN_MR_REMOTE_WRITE | DN_MR_REMOTE_READ), DN_OK);
        CHECK_EQ(dn_publish("registered", "1"), DN_OK);
        while (*counter < k) {
            dn_idle(n);
        }
        CHECK_EQ(*counter, k);
        printf("fetch-adds %u applied %u\n", k, fwstat(n, DN1_FWST_ATOMIC_APPLIED));
    } else if (dn_node_id(n) == 1) {
        wait_key("registered");
        for (unsigned i = 0; i < k; i++) {
            CHECK_EQ(dn_atomic(n, 0, DN_RVA(KEY_RW, VA_RW), DN1_AOP_SUM, DN1_ADT_UINT64,
                               &one, NULL, &old, TIMEOUT_MS), DN_OK);
            CHECK_EQ(old, i);
        }
    }
}

int main(int argc, char **argv)
{
    dn_node *n;

    if (argc < 2 || dn_open_env(&n, TIMEOUT_MS) != DN_OK) {
        fprintf(stderr, "usage: e2e_rma_fw refusals|ops|sum K|fetch-add K (under dimmnet-cluster)\n");
        return 2;
    }
    if (!strcmp(argv[1], "fetch-add")) {
        fetch_add(n, argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 12);
    } else if (!strcmp(argv[1], "sum")) {
        sum(n, argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 1000);
    } else if (dn_node_id(n) == 1) {
        target(n, !strcmp(argv[1], "refusals"));
    } else if (dn_node_id(n) == 0) {
        if (!strcmp(argv[1], "refusals")) {
            refusals(n);
        } else {
            ops(n);
        }
    }
    dn_close(n);
    return check_failures ? 1 : 0;
}
