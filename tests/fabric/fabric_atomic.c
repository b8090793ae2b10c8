/*
 * Atomics through the provider (issue 24 item 3): each element an ATOMIC
 * packet the target's firmware applies to registered memory. Node 0 is
 * the target (a registration open to remote reads and writes, and a
 * read-only one); the others act on it. Checks:
 *   - node 1: every op of fi_atomic, fi_fetch_atomic and fi_compare_atomic
 *     on every datatype served, from a known value: the old value returned
 *     and the new one (read back with FI_ATOMIC_READ) as a model says;
 *     several elements in one call;
 *   - every node, node 0 too: K fetch-and-adds of 1 on one 64-bit cell, up
 *     to 16 in flight: the old values each node got are distinct, all of
 *     them together are 0 .. N*K-1 (their sum), and the cell ends at N*K:
 *     no addition lost or applied twice (run under drop, duplicates and
 *     reorder too);
 *   - refusals: the read-only registration and an unregistered key give an
 *     error entry FI_EACCES and change nothing; an unaligned target, a
 *     datatype or op not served are refused at the call; the valid
 *     queries answer as served.
 *
 *   fabric_atomic [K]
 */
#include <inttypes.h>
#include <string.h>
#include <rdma/fi_atomic.h>
#include "fabric_util.h"

#define CELLS 64

static fi_addr_t target;
static uint64_t rcell, kcell, rro, kro;

static void wait_ok(void *ctx, uint64_t flags)
{
    expect(ctx, FI_ATOMIC | flags, NULL);
}

static void wait_refused(void *ctx)
{
    struct fi_cq_err_entry err;
    struct fi_cq_tagged_entry e = wait_comp(NULL, &err);

    CHECK_MSG(err.err == FI_EACCES, "node %u: error %d (%s), expected FI_EACCES", me,
              err.err, fi_strerror(err.err));
    CHECK(e.op_context == ctx);
}

/* The model: what @op does to @old with operand @v and compare @c. */
static uint64_t model(enum fi_op op, int sgn, unsigned bits, uint64_t old, uint64_t v,
                      uint64_t c)
{
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    int64_t so = bits == 64 ? (int64_t)old : (int64_t)(int32_t)old;
    int64_t sv = bits == 64 ? (int64_t)v : (int64_t)(int32_t)v;
    int64_t sc = bits == 64 ? (int64_t)c : (int64_t)(int32_t)c;
    int lt = sgn ? sv < so : v < old;           /* v < old */
    int clt = sgn ? sc < so : c < old, ceq = c == old;
    uint64_t r;

    switch (op) {
    case FI_MIN:          r = lt ? v : old; break;
    case FI_MAX:          r = lt ? old : v; break;
    case FI_SUM:          r = old + v; break;
    case FI_LOR:          r = old || v; break;
    case FI_LAND:         r = old && v; break;
    case FI_BOR:          r = old | v; break;
    case FI_BAND:         r = old & v; break;
    case FI_LXOR:         r = !old != !v; break;
    case FI_BXOR:         r = old ^ v; break;
    case FI_ATOMIC_READ:  r = old; break;
    case FI_ATOMIC_WRITE: r = v; break;
    case FI_CSWAP:        r = ceq ? v : old; break;
    case FI_CSWAP_NE:     r = !ceq ? v : old; break;
    case FI_CSWAP_LE:     r = (clt || ceq) ? v : old; break;
    case FI_CSWAP_LT:     r = clt ? v : old; break;
    case FI_CSWAP_GE:     r = !clt ? v : old; break;
    case FI_CSWAP_GT:     r = (!clt && !ceq) ? v : old; break;
    case FI_MSWAP:        r = (v & c) | (old & ~c); break;
    default:              r = old;
    }
    return r & mask;
}

static void put_val(void *p, unsigned bits, uint64_t v)
{
    if (bits == 64) {
        memcpy(p, &v, 8);
    } else {
        uint32_t w = (uint32_t)v;
        memcpy(p, &w, 4);
    }
}

static uint64_t get_val(const void *p, unsigned bits)
{
    if (bits == 64) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

static void every_op(void)
{
    static const enum fi_datatype dts[] = { FI_INT32, FI_UINT32, FI_INT64, FI_UINT64 };
    static const enum fi_op wops[] = { FI_MIN, FI_MAX, FI_SUM, FI_LOR, FI_LAND, FI_BOR,
                                       FI_BAND, FI_LXOR, FI_BXOR, FI_ATOMIC_WRITE };
    static const enum fi_op cops[] = { FI_CSWAP, FI_CSWAP_NE, FI_CSWAP_LE, FI_CSWAP_LT,
                                       FI_CSWAP_GE, FI_CSWAP_GT, FI_MSWAP };
    /* Old values, operands and compares that tell signed from unsigned. */
    static const uint64_t olds[] = { 5, 0xfffffffffffffff0ull };
    static const uint64_t vals[] = { 0xfffffffffffffffaull, 7 };
    int ctx;

    for (unsigned d = 0; d < 4; d++) {
        enum fi_datatype dt = dts[d];
        unsigned bits = dt >= FI_INT64 ? 64 : 32;
        int sgn = dt == FI_INT32 || dt == FI_INT64;
        uint64_t mask = bits == 64 ? ~0ull : 0xffffffffull;
        uint8_t v[8], c[8], res[8], cur[8];
        size_t count = 0;

        CHECK_EQ(fi_atomicvalid(ep, dt, FI_SUM, &count), 0);
        CHECK_EQ(count, 64);
        for (unsigned k = 0; k < 2 * (sizeof(wops) / sizeof(wops[0]) +
                                      sizeof(cops) / sizeof(cops[0]) + 1); k++) {
            unsigned nw = sizeof(wops) / sizeof(wops[0]), nc = sizeof(cops) / sizeof(cops[0]);
            unsigned i = k / 2, which = k % 2;
            uint64_t old = olds[which] & mask, val = vals[which] & mask;
            uint64_t cmp = (i % 3 == 0 ? old : i % 3 == 1 ? val : old ^ 1) & mask;
            enum fi_op op = i < nw ? wops[i] : i < nw + nc ? cops[i - nw] : FI_ATOMIC_READ;
            int compare = i >= nw && i < nw + nc, fetch = k % 4 < 2 || op == FI_ATOMIC_READ;

            /* The cell to its old value, by an atomic write. */
            put_val(v, bits, old);
            CHECK(fi_atomic(ep, v, 1, NULL, target, rcell, kcell, dt, FI_ATOMIC_WRITE,
                            &ctx) == 0);
            wait_ok(&ctx, FI_WRITE);
            put_val(v, bits, val);
            put_val(c, bits, cmp);
            memset(res, 0xee, sizeof(res));
            if (compare) {
                CHECK(fi_compare_atomic(ep, v, 1, NULL, c, NULL, res, NULL, target, rcell,
                                        kcell, dt, op, &ctx) == 0);
                wait_ok(&ctx, FI_READ);
            } else if (fetch) {
                CHECK(fi_fetch_atomic(ep, op == FI_ATOMIC_READ ? NULL : v, 1, NULL, res,
                                      NULL, target, rcell, kcell, dt, op, &ctx) == 0);
                wait_ok(&ctx, FI_READ);
            } else {
                CHECK(fi_atomic(ep, v, 1, NULL, target, rcell, kcell, dt, op, &ctx) == 0);
                wait_ok(&ctx, FI_WRITE);
            }
            if (compare || fetch) {
                CHECK_MSG(get_val(res, bits) == old, "node 1: dt %d op %d: old %#" PRIx64
                          ", expected %#" PRIx64, dt, op, get_val(res, bits), old);
            }
            CHECK(fi_fetch_atomic(ep, NULL, 1, NULL, cur, NULL, target, rcell, kcell, dt,
                                  FI_ATOMIC_READ, &ctx) == 0);
            wait_ok(&ctx, FI_READ);
            uint64_t want = model(op, sgn, bits, old, val, cmp);
            CHECK_MSG(get_val(cur, bits) == want, "node 1: dt %d op %d on %#" PRIx64
                      " with %#" PRIx64 "/%#" PRIx64 ": %#" PRIx64 ", expected %#" PRIx64,
                      dt, op, old, val, cmp, get_val(cur, bits), want);
        }
    }
    /* Several elements in one call: 64 cells, each its own atomic. */
    uint64_t add[CELLS + 1], old[CELLS];
    for (unsigned i = 0; i <= CELLS; i++) {
        add[i] = 1000 + i;
    }
    CHECK(fi_atomic(ep, add, CELLS + 1, NULL, target, rcell, kcell, FI_UINT64,
                    FI_ATOMIC_WRITE, &ctx) == -FI_EINVAL);    /* over the count valid says */
    CHECK(fi_fetch_atomic(ep, add, CELLS - 1, NULL, old, NULL, target, rcell + 8, kcell,
                          FI_UINT64, FI_ATOMIC_WRITE, &ctx) == 0);
    wait_ok(&ctx, FI_READ);
    CHECK(fi_fetch_atomic(ep, add, CELLS - 1, NULL, old, NULL, target, rcell + 8, kcell,
                          FI_UINT64, FI_SUM, &ctx) == 0);
    wait_ok(&ctx, FI_READ);
    for (unsigned i = 0; i < CELLS - 1; i++) {
        CHECK_MSG(old[i] == add[i], "node 1: element %u old %" PRIu64, i, old[i]);
    }
}

static void refusals(void)
{
    uint64_t v = 1, res;
    size_t count;
    int ctx;

    CHECK(fi_fetch_atomic(ep, &v, 1, NULL, &res, NULL, target, rro, kro, FI_UINT64, FI_SUM,
                          &ctx) == 0);
    wait_refused(&ctx);
    CHECK(fi_atomic(ep, &v, 1, NULL, target, rcell, 0xfffe, FI_UINT64, FI_SUM, &ctx) == 0);
    wait_refused(&ctx);
    CHECK(fi_atomic(ep, &v, 1, NULL, target, rcell + 4, kcell, FI_UINT64, FI_SUM, &ctx) ==
          -FI_EINVAL);
    CHECK(fi_atomic(ep, &v, 1, NULL, target, rcell, kcell, FI_FLOAT, FI_SUM, &ctx) ==
          -FI_EOPNOTSUPP);
    CHECK(fi_atomic(ep, &v, 1, NULL, target, rcell, kcell, FI_UINT64, FI_PROD, &ctx) ==
          -FI_EOPNOTSUPP);
    CHECK(fi_atomicvalid(ep, FI_FLOAT, FI_SUM, &count) == -FI_EOPNOTSUPP);
    CHECK(fi_atomicvalid(ep, FI_INT64, FI_ATOMIC_READ, &count) == -FI_EOPNOTSUPP);
    CHECK(fi_fetch_atomicvalid(ep, FI_INT64, FI_ATOMIC_READ, &count) == 0);
    CHECK(fi_compare_atomicvalid(ep, FI_UINT32, FI_CSWAP, &count) == 0);
    CHECK(fi_compare_atomicvalid(ep, FI_UINT32, FI_SUM, &count) == -FI_EOPNOTSUPP);
    CHECK(fi_atomicvalid(ep, FI_UINT32, FI_CSWAP, &count) == -FI_EOPNOTSUPP);
}

/* K fetch-and-adds of 1 on cell 0, up to 16 in flight; sum of the olds. */
static uint64_t adds(unsigned k_total, uint64_t *olds)
{
    enum { WIN = 16 };
    uint64_t one = 1, res[WIN], sum = 0;
    void *ctxs[WIN];
    unsigned posted = 0, done = 0, slot_of[WIN];
    int busy[WIN] = { 0 };

    for (unsigned i = 0; i < WIN; i++) {
        ctxs[i] = &res[i];
    }
    while (done < k_total) {
        for (unsigned s = 0; s < WIN && posted < k_total; s++) {
            if (busy[s]) {
                continue;
            }
            ssize_t rc = fi_fetch_atomic(ep, &one, 1, NULL, &res[s], NULL, target, rcell,
                                         kcell, FI_UINT64, FI_SUM, ctxs[s]);
            if (rc == -FI_EAGAIN) {
                break;
            }
            CHECK_MSG(rc == 0, "fi_fetch_atomic: %zd", rc);
            busy[s] = 1;
            slot_of[s] = posted++;
        }
        struct fi_cq_err_entry err;
        struct fi_cq_tagged_entry e = wait_comp(NULL, &err);
        CHECK_MSG(!err.err, "node %u: fetch-add error %d (%s)", me, err.err,
                  fi_strerror(err.err));
        unsigned s = (unsigned)((uint64_t *)e.op_context - res);
        CHECK(s < WIN && busy[s]);
        if (s < WIN) {
            olds[slot_of[s]] = res[s];
            sum += res[s];
            busy[s] = 0;
        }
        done++;
    }
    return sum;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    unsigned k = argc > 1 ? (unsigned)atoi(argv[1]) : 500;
    char v[128];
    int ctx;

    fab_setup_caps(FI_RMA | FI_ATOMIC, FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY);
    CHECK(nodes >= 2);
    CHECK(info->caps & FI_ATOMIC);
    target = node_addr[0];
    uint64_t *cells = NULL, *ro = NULL;
    struct fid_mr *mcell = NULL, *mro = NULL;
    if (me == 0) {
        cells = calloc(CELLS, 8);
        ro = calloc(8, 8);
        TRY(fi_mr_reg(domain, cells, CELLS * 8, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0,
                      &mcell, NULL));
        TRY(fi_mr_reg(domain, ro, 64, FI_REMOTE_READ, 0, 0, 0, &mro, NULL));
        snprintf(v, sizeof(v), "%" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64,
                 (uint64_t)(uintptr_t)cells, fi_mr_key(mcell), (uint64_t)(uintptr_t)ro,
                 fi_mr_key(mro));
        CHECK(dn_publish("atomic.0", v) == DN_OK);
    }
    CHECK(dn_lookup("atomic.0", v, sizeof(v), TIMEOUT_MS) == DN_OK);
    CHECK_EQ(sscanf(v, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64, &rcell, &kcell, &rro,
                    &kro), 4);
    if (me == 1) {
        every_op();
        refusals();
        uint64_t zero = 0;
        CHECK(fi_atomic(ep, &zero, 1, NULL, target, rcell, kcell, FI_UINT64,
                        FI_ATOMIC_WRITE, &ctx) == 0);
        wait_ok(&ctx, FI_WRITE);
    }
    CHECK(dn_rendezvous("atomic-adds", TIMEOUT_MS) == DN_OK);

    uint64_t *olds = calloc(k, 8);
    uint64_t sum = adds(k, olds);
    qsort(olds, k, 8, cmp_u64);
    for (unsigned i = 1; i < k; i++) {
        CHECK_MSG(olds[i] != olds[i - 1], "node %u: old value %" PRIu64 " twice", me, olds[i]);
    }
    snprintf(v, sizeof(v), "%" PRIu64, sum);
    char key[32];
    snprintf(key, sizeof(key), "atomic-sum.%u", me);
    CHECK(dn_publish(key, v) == DN_OK);
    CHECK(dn_rendezvous("atomic-summed", TIMEOUT_MS) == DN_OK);
    if (me == 0) {
        uint64_t total = 0, n = (uint64_t)nodes * k;
        for (unsigned i = 0; i < nodes; i++) {
            snprintf(key, sizeof(key), "atomic-sum.%u", i);
            CHECK(dn_lookup(key, v, sizeof(v), TIMEOUT_MS) == DN_OK);
            total += strtoull(v, NULL, 10);
        }
        CHECK_MSG(cells[0] == n, "node 0: the cell ends at %" PRIu64 ", expected %" PRIu64,
                  cells[0], n);
        CHECK_MSG(total == n * (n - 1) / 2, "node 0: old values sum to %" PRIu64
                  ", expected %" PRIu64, total, n * (n - 1) / 2);
        CHECK_MSG(ro[0] == 0, "node 0: the read-only registration changed");
        printf("node 0: %" PRIu64 " fetch-adds from %u nodes, cell %" PRIu64 "\n", n, nodes,
               cells[0]);
    }
    CHECK(dn_rendezvous("atomic-end", TIMEOUT_MS) == DN_OK);
    if (me == 0) {
        fi_close(&mcell->fid);
        fi_close(&mro->fid);
    }
    free(olds);
    fab_close();
    check_failures += fab_failures();
    if (check_failures) {
        fprintf(stderr, "node %u: %d check(s) failed\n", me, check_failures);
        return 1;
    }
    printf("node %u: atomics ok\n", me);
    return 0;
}
