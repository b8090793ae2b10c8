/*
 * The collectives checked against a host reference (issue 37, item 5):
 * every collective x implementation (each forced by name, then the
 * run-time choice) x op x type x size on every member of the run, and the
 * same on a split into two halves. Every member's input is a function of
 * (rank, element, seed), so each member computes the whole reference
 * itself: reductions in the canonical order of docs/collectives.md (the
 * binomial tree over ranks), written here independently of the library,
 * so floating-point results must match bit for bit.
 *
 *   coll_check [--max-bytes B] [--nonblocking K] [--split] [--joined] [--impl auto|all]
 *              [--rounds R] [--report]
 *
 * --nonblocking K: also K collectives of mixed kinds in flight at once,
 * waited for in reverse order. Prints "coll_check: rank R ok C checks".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"

static dn_node *n;
static unsigned seed = 1;

static const unsigned types[] = { DN_COLL_INT32, DN_COLL_INT64, DN_COLL_UINT64,
                                  DN_COLL_FLOAT, DN_COLL_DOUBLE };
static const char *const tnames[] = { "int32", "int64", "uint64", "float", "double", "byte" };
static const char *const onames[] = { "sum", "prod", "min", "max", "band", "bor", "bxor" };

/* Member @r's element @i (of a buffer of a given role @salt). */
static void gen(unsigned type, unsigned r, size_t i, unsigned salt, void *out)
{
    uint64_t h = (uint64_t)(r + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(i + 1) * 0xc2b2ae3d27d4eb4full ^
                 (uint64_t)salt * 0x165667b19e3779f9ull;
    h ^= h >> 29;
    switch (type) {
    case DN_COLL_INT32: *(int32_t *)out = (int32_t)(h % 2001) - 1000; break;
    case DN_COLL_INT64: *(int64_t *)out = (int64_t)(h >> 8) - (int64_t)(1ll << 54); break;
    case DN_COLL_UINT64: *(uint64_t *)out = h; break;
    /* Values whose sums round differently in different orders. */
    case DN_COLL_FLOAT: *(float *)out = (float)((double)(h % 100000) / 7.0 - 5000.0); break;
    case DN_COLL_DOUBLE: *(double *)out = (double)(h % 10000000) / 3.0 - 1.0e6 +
                                          (double)(h >> 40) * 1e-9; break;
    default: *(uint8_t *)out = (uint8_t)h; break;
    }
}

static int op_ok(unsigned type, unsigned op)
{
    return op < 4 || type == DN_COLL_INT32 || type == DN_COLL_INT64 || type == DN_COLL_UINT64;
}

/* a = a op b (one element), a the left operand. */
static void combine1(unsigned type, unsigned op, void *a, const void *b)
{
#define C(T) do { T x = *(T *)a, y = *(const T *)b; \
        switch (op) { case 0: x = (T)(x + y); break; case 1: x = (T)(x * y); break; \
        case 2: x = y < x ? y : x; break; case 3: x = y > x ? y : x; break; } \
        *(T *)a = x; } while (0)
#define B(T) do { T x = *(T *)a, y = *(const T *)b; \
        switch (op) { case 4: x &= y; break; case 5: x |= y; break; case 6: x ^= y; break; } \
        *(T *)a = x; } while (0)
    if (op >= 4) {
        if (type == DN_COLL_INT32) B(uint32_t); else B(uint64_t);
        return;
    }
    switch (type) {
    case DN_COLL_INT32: if (op < 2) C(uint32_t); else C(int32_t); break;
    case DN_COLL_INT64: if (op < 2) C(uint64_t); else C(int64_t); break;
    case DN_COLL_UINT64: C(uint64_t); break;
    case DN_COLL_FLOAT: C(float); break;
    case DN_COLL_DOUBLE: C(double); break;
    }
}

/* The canonical reduction of ranks r .. r+size-1's element i: the
 * binomial tree rooted at r, children r + 2^k combined in increasing k. */
static void canon(unsigned type, unsigned op, unsigned r, unsigned size, size_t i,
                  unsigned salt, void *out)
{
    gen(type, r, i, salt, out);
    for (unsigned k = 1; k < size; k <<= 1) {
        uint8_t sub[8];
        canon(type, op, r + k, size - k < k ? size - k : k, i, salt, sub);
        combine1(type, op, out, sub);
    }
}

static size_t esize(unsigned type)
{
    return dn_coll_type_size(type);
}

struct run {
    dn_coll_comm *c;
    unsigned rank, size;
    unsigned kind, type, op, root;
    size_t count;
    void *sbuf, *rbuf;
    dn_coll_req *rq;
    unsigned salt;
};

static int start(struct run *x)
{
    size_t es = esize(x->type), n_el = x->count;
    size_t sn = x->kind == DN_COLL_ALLTOALL || x->kind == DN_COLL_REDUCE_SCATTER
                ? n_el * x->size : n_el;
    size_t rn = x->kind == DN_COLL_ALLGATHER || x->kind == DN_COLL_ALLTOALL ? n_el * x->size
                : n_el;
    x->sbuf = malloc(sn * es + 1);
    x->rbuf = malloc(rn * es + 1);
    for (size_t i = 0; i < sn; i++) {
        gen(x->type, x->rank, i, x->salt, (uint8_t *)x->sbuf + i * es);
    }
    memset(x->rbuf, 0xa5, rn * es + 1);
    switch (x->kind) {
    case DN_COLL_BARRIER: return dn_coll_ibarrier(x->c, &x->rq);
    case DN_COLL_BCAST:
        if (x->rank == x->root) {
            memcpy(x->rbuf, x->sbuf, n_el * es);
        }
        return dn_coll_ibcast(x->c, x->rbuf, n_el, x->type, x->root, &x->rq);
    case DN_COLL_REDUCE:
        return dn_coll_ireduce(x->c, x->sbuf, x->rbuf, n_el, x->type, x->op, x->root, &x->rq);
    case DN_COLL_ALLREDUCE:
        return dn_coll_iallreduce(x->c, x->sbuf, x->rbuf, n_el, x->type, x->op, &x->rq);
    case DN_COLL_ALLGATHER:
        return dn_coll_iallgather(x->c, x->sbuf, x->rbuf, n_el, x->type, &x->rq);
    case DN_COLL_ALLTOALL:
        return dn_coll_ialltoall(x->c, x->sbuf, x->rbuf, n_el, x->type, &x->rq);
    case DN_COLL_REDUCE_SCATTER:
        return dn_coll_ireduce_scatter(x->c, x->sbuf, x->rbuf, n_el, x->type, x->op, &x->rq);
    }
    return DN_EINVAL;
}

/* Compare with the reference; the report names the first wrong element. */
static void verify(struct run *x, const char *impl)
{
    size_t es = esize(x->type), n_el = x->count;
    uint8_t want[8];
    size_t bad = 0, first = 0;

    for (size_t i = 0; x->kind != DN_COLL_BARRIER && i < (x->kind == DN_COLL_ALLGATHER ||
                       x->kind == DN_COLL_ALLTOALL ? n_el * x->size : n_el); i++) {
        unsigned blk = (unsigned)(i / (n_el ? n_el : 1));
        size_t j = i % (n_el ? n_el : 1);
        switch (x->kind) {
        case DN_COLL_BCAST: gen(x->type, x->root, i, x->salt, want); break;
        case DN_COLL_REDUCE:
            if (x->rank != x->root) {
                continue;
            }
            canon(x->type, x->op, 0, x->size, i, x->salt, want);
            break;
        case DN_COLL_ALLREDUCE: canon(x->type, x->op, 0, x->size, i, x->salt, want); break;
        case DN_COLL_ALLGATHER: gen(x->type, blk, j, x->salt, want); break;
        case DN_COLL_ALLTOALL: gen(x->type, blk, x->rank * n_el + j, x->salt, want); break;
        case DN_COLL_REDUCE_SCATTER:
            canon(x->type, x->op, 0, x->size, x->rank * n_el + i, x->salt, want);
            break;
        }
        if (memcmp((uint8_t *)x->rbuf + i * es, want, es)) {
            if (!bad++) {
                first = i;
            }
        }
    }
    CHECK_MSG(bad == 0, "rank %u: %s %s %s %s count %zu root %u: %zu wrong elements, the first %zu",
              x->rank, dn_coll_kind_name(x->kind), impl, tnames[x->type],
              onames[x->op], n_el, x->root, bad, first);
    free(x->sbuf);
    free(x->rbuf);
}

static unsigned checks;

static void one(dn_coll_comm *c, unsigned kind, const char *impl, unsigned type, unsigned op,
                size_t count, unsigned root)
{
    struct run x = { c, dn_coll_rank(c), dn_coll_size(c), kind, type, op, root, count,
                     NULL, NULL, NULL, ++seed };
    struct dn_coll_stats before, after;
    dn_coll_stats(c, &before);
    int rc = start(&x);
    if (rc == DN_OK) {
        rc = dn_coll_wait(x.rq);
    }
    CHECK_MSG(rc == DN_OK, "%s %s: %s", dn_coll_kind_name(kind), impl, dn_strerror(rc));
    verify(&x, impl);
    /* The firmware combine, forced (so this communicator has it), serves
     * every barrier and exactly the integer calls of 1 to 8 bytes, one
     * combination each; the others go to the first implementation. */
    dn_coll_stats(c, &after);
    int fw = !strcmp(impl, "firmware") &&
             (kind == DN_COLL_BARRIER || (type <= DN_COLL_UINT64 && count &&
                                          count * esize(type) <= 8));   /* (0 elements: nothing) */
    CHECK_MSG(after.fw_combines - before.fw_combines == (uint64_t)fw,
              "%s %s %s x%zu: %llu firmware combinations", dn_coll_kind_name(kind), impl,
              tnames[type], count, (unsigned long long)(after.fw_combines - before.fw_combines));
    checks++;
}

static int reduction(unsigned k)
{
    return k == DN_COLL_REDUCE || k == DN_COLL_ALLREDUCE || k == DN_COLL_REDUCE_SCATTER;
}

/* Every kind x implementation x type x op x size on @c. */
static void sweep(dn_coll_comm *c, size_t max_bytes, int all_impls, unsigned rounds)
{
    static const size_t sizes[] = { 0, 1, 2, 3, 8, 57, 300, 1000, 5000, 20000, 100000, 600000 };
    for (unsigned k = 0; k < DN_COLL_KINDS; k++) {
        const char *const *impls = dn_coll_impls(k);
        for (unsigned i = 0; all_impls ? impls[i] != NULL : i < 1; i++) {
            const char *impl = all_impls ? impls[i] : "auto";
            if (dn_coll_force(c, k, impl) != DN_OK) {
                continue;       /* e.g. multicast without a group: not a candidate */
            }
            if (k == DN_COLL_BARRIER) {
                for (unsigned r = 0; r < rounds * 4; r++) {
                    one(c, k, impl, DN_COLL_INT32, 0, 0, 0);
                }
                continue;
            }
            for (unsigned t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
                for (unsigned op = 0; op < (reduction(k) ? 7u : 1u); op++) {
                    if (!op_ok(types[t], op)) {
                        continue;
                    }
                    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                        size_t bytes = sizes[s] * esize(types[t]);
                        if (bytes > max_bytes ||
                            ((s % 3) != (t + op) % 3 && s > 5 && sizes[s] != 1000)) {
                            continue;   /* a spread of sizes a combination, all of them small */
                        }
                        unsigned root = (unsigned)(s + t) % dn_coll_size(c);
                        for (unsigned r = 0; r < rounds; r++) {
                            one(c, k, impl, types[t], op, sizes[s], root);
                        }
                    }
                }
            }
        }
        dn_coll_force(c, k, "auto");
    }
}

/* @k collectives of mixed kinds in flight at once, waited for last first. */
static void in_flight(dn_coll_comm *c, unsigned k)
{
    struct run *x = calloc(k, sizeof(*x));
    for (unsigned i = 0; i < k; i++) {
        unsigned kind = 1 + i % (DN_COLL_KINDS - 1);
        x[i] = (struct run){ c, dn_coll_rank(c), dn_coll_size(c), kind,
                             types[i % 5], reduction(kind) ? (i / 5) % 4 : 0, i % dn_coll_size(c),
                             1 + (i * 37) % 700, NULL, NULL, NULL, ++seed };
        int rc = start(&x[i]);
        CHECK_MSG(rc == DN_OK, "in flight %u: %s", i, dn_strerror(rc));
    }
    for (unsigned i = k; i-- > 0;) {
        int rc = dn_coll_wait(x[i].rq);
        CHECK_MSG(rc == DN_OK, "in flight %u: %s", i, dn_strerror(rc));
        verify(&x[i], "in-flight");
        checks++;
    }
    free(x);
}

/* Bad arguments: clear errors, nothing started. */
static void bad_args(dn_coll_comm *c)
{
    dn_coll_req *rq;
    int x = 1, y;
    CHECK_EQ(dn_coll_iallreduce(c, &x, &y, 1, DN_COLL_FLOAT, DN_COLL_BXOR, &rq), DN_EINVAL);
    CHECK_EQ(dn_coll_iallreduce(c, &x, &y, 1, (enum dn_coll_type)17, DN_COLL_SUM, &rq),
             DN_EINVAL);
    CHECK_EQ(dn_coll_iallreduce(c, &x, &y, 1, DN_COLL_INT32, (enum dn_coll_op)9, &rq),
             DN_EINVAL);
    CHECK_EQ(dn_coll_ibcast(c, &x, 1, DN_COLL_INT32, dn_coll_size(c), &rq), DN_EINVAL);
    CHECK_EQ(dn_coll_iallgather(c, NULL, &y, 1, DN_COLL_INT32, &rq), DN_EINVAL);
    CHECK_EQ(dn_coll_iallreduce(c, &x, &y, 1, DN_COLL_BYTE, DN_COLL_SUM, &rq), DN_EINVAL);
    CHECK_EQ(dn_coll_force(c, DN_COLL_ALLREDUCE, "no-such"), DN_EINVAL);
    CHECK_EQ(dn_coll_iallreduce(NULL, &x, &y, 1, DN_COLL_INT32, DN_COLL_SUM, &rq),
             DN_EINVAL);
    CHECK_EQ(dn_coll_progress_node(NULL), DN_EINVAL);
}

/* DIMMNET_COLL_CHECK (read when a communicator is made): calls that differ
 * among the members (count, root, op) are DN_EINVAL on every member,
 * started nowhere, and the communicator goes on. */
/* A wait whose idle turn fails (as when the board is gone) fails the
 * communicator's collectives with that error and frees the request, and
 * the communicator stays broken: rank 0 waits in a barrier the others
 * never enter, on a copy of the world. */
static int failing_idle(void *arg)
{
    (void)arg;
    return DN_EIO;
}

static void idle_fails(dn_coll_comm *world)
{
    unsigned me = dn_coll_rank(world);
    dn_coll_comm *c = NULL;
    int rc = dn_coll_comm_split(world, 0, (int)me, &c);

    CHECK_MSG(rc == DN_OK && c, "split for the failing idle: %s", dn_strerror(rc));
    if (!c) {
        return;
    }
    if (me == 0) {
        dn_coll_set_idle(n, failing_idle, NULL);
        CHECK_EQ(dn_coll_barrier(c), DN_EIO);
        dn_coll_set_idle(n, NULL, NULL);
        CHECK_EQ(dn_coll_barrier(c), DN_EIO);
        checks += 2;
    }
    CHECK_EQ(dn_coll_barrier(world), DN_OK);
    dn_coll_comm_free(c);
}

static void mismatch(dn_coll_comm *world)
{
    unsigned me = dn_coll_rank(world), size = dn_coll_size(world);
    int64_t in[5], out[5];
    dn_coll_comm *c = NULL;

    setenv("DIMMNET_COLL_CHECK", "1", 1);
    int rc = dn_coll_comm_split(world, 0, (int)me, &c);
    unsetenv("DIMMNET_COLL_CHECK");
    CHECK_MSG(rc == DN_OK && c, "checked split: %s", dn_strerror(rc));
    if (!c) {
        return;
    }
    for (unsigned i = 0; i < 5; i++) {
        in[i] = (int64_t)(me + i);
    }
    CHECK_EQ(dn_coll_allreduce(c, in, out, me == size - 1 ? 5 : 4, DN_COLL_INT64, DN_COLL_SUM),
             DN_EINVAL);
    CHECK_EQ(dn_coll_bcast(c, in, 2, DN_COLL_INT64, me == 0 ? 1 % size : 0), DN_EINVAL);
    CHECK_EQ(dn_coll_allreduce(c, in, out, 4, DN_COLL_INT64, me ? DN_COLL_SUM : DN_COLL_MAX),
             DN_EINVAL);
    CHECK_EQ(dn_coll_allreduce(c, in, out, 4, DN_COLL_INT64, DN_COLL_SUM), DN_OK);
    for (unsigned i = 0; i < 4; i++) {
        CHECK_EQ(out[i], (int64_t)(size * (size - 1) / 2 + size * i));
    }
    checks += 5;
    dn_coll_comm_free(c);
}

/* A communicator made from join records exchanged by another layer (here
 * the launcher's key-value store stands for an MPI library's allgather):
 * the world's members in reverse order, made twice on the same slots so
 * that the second must ignore what the first left in its cells. */
/* dn_lookup that keeps the collectives moving meanwhile: a peer may still
 * need this process to write an epoch of @world again (the progress an MPI
 * library's own allgather gives the component, from opal_progress). */
static int lookup_progressing(dn_coll_comm *world, const char *key, char *val, size_t size)
{
    for (unsigned waited = 0; waited < 60000; waited += 5) {
        if (dn_lookup(key, val, size, 5) == DN_OK) {
            return DN_OK;
        }
        dn_coll_progress(world);
    }
    return DN_ETIMEDOUT;
}

static void joined(dn_coll_comm *world, size_t max_bytes, int all_impls)
{
    unsigned size = dn_coll_size(world), me = dn_coll_rank(world);

    for (unsigned round = 0; round < 2; round++) {
        struct dn_coll_config cfg;
        struct dn_coll_join mine, all[DN_COLL_MAX_MEMBERS];
        char key[64], val[64];
        dn_coll_comm *c = NULL;

        dn_coll_config_default(n, &cfg);
        int rc = dn_coll_join_prepare(n, &mine);
        CHECK_MSG(rc == DN_OK, "join_prepare: %s", dn_strerror(rc));
        snprintf(key, sizeof(key), "coll_join.%u.%u", round, me);
        snprintf(val, sizeof(val), "%u %u %u", mine.addr, mine.slot, mine.nonce);
        CHECK_EQ(dn_publish(key, val), DN_OK);
        for (unsigned i = 0; i < size; i++) {
            unsigned r = size - 1 - i, a, sl, no;   /* reversed ranks */
            snprintf(key, sizeof(key), "coll_join.%u.%u", round, r);
            CHECK_EQ(lookup_progressing(world, key, val, sizeof(val)), DN_OK);
            CHECK_EQ(sscanf(val, "%u %u %u", &a, &sl, &no), 3);
            all[i] = (struct dn_coll_join){ .addr = (uint16_t)a, .slot = (uint8_t)sl,
                                            .nonce = no };
            cfg.members[i] = (uint16_t)a;
        }
        cfg.nmembers = size;
        cfg.mcast_group = -1;
        rc = dn_coll_comm_create_joined(n, &cfg, all, &c);
        CHECK_MSG(rc == DN_OK && c, "create_joined: %s", dn_strerror(rc));
        if (!c) {
            return;
        }
        CHECK_EQ(dn_coll_rank(c), size - 1 - me);
        sweep(c, max_bytes < 4096 ? max_bytes : 4096, all_impls, 1);
        dn_coll_comm_free(c);
    }
    /* Records out of rank order are the layer's bug: refused. */
    if (size >= 2) {
        struct dn_coll_config cfg;
        struct dn_coll_join mine, all[2];
        dn_coll_comm *c = NULL;
        dn_coll_config_default(n, &cfg);
        CHECK_EQ(dn_coll_join_prepare(n, &mine), DN_OK);
        all[0] = mine;
        all[1] = mine;
        all[1].addr ^= 1;
        cfg.nmembers = 2;
        cfg.members[0] = mine.addr;
        cfg.members[1] = mine.addr ^ 2;
        CHECK_EQ(dn_coll_comm_create_joined(n, &cfg, all, &c), DN_EINVAL);
        dn_coll_join_cancel(n, &mine);
    }
}

int main(int argc, char **argv)
{
    size_t max_bytes = 65536;
    unsigned nonblocking = 0, rounds = 1;
    int split = 0, all_impls = 1, report = 0, join = 0;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--max-bytes") && i + 1 < argc) {
            max_bytes = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--nonblocking") && i + 1 < argc) {
            nonblocking = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
            rounds = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--split")) {
            split = 1;
        } else if (!strcmp(argv[i], "--impl") && i + 1 < argc) {
            all_impls = strcmp(argv[++i], "auto") != 0;
        } else if (!strcmp(argv[i], "--joined")) {
            join = 1;
        } else if (!strcmp(argv[i], "--report")) {
            report = 1;
        } else {
            fprintf(stderr, "usage: coll_check [--max-bytes B] [--nonblocking K] [--split] "
                    "[--joined] [--impl auto|all] [--rounds R] [--report]\n");
            return 2;
        }
    }
    int rc = dn_open_env(&n, 60000);
    if (rc != DN_OK) {
        fprintf(stderr, "coll_check: dn_open_env: %s\n", dn_strerror(rc));
        return 1;
    }
    struct dn_coll_config cfg;
    dn_coll_config_default(n, &cfg);
    dn_coll_comm *world;
    rc = dn_coll_comm_create(n, &cfg, &world);
    if (rc != DN_OK) {
        fprintf(stderr, "coll_check: dn_coll_comm_create: %s\n", dn_strerror(rc));
        return 1;
    }
    bad_args(world);
    sweep(world, max_bytes, all_impls, rounds);
    if (nonblocking) {
        in_flight(world, nonblocking);
    }
    if (split && dn_coll_size(world) >= 2) {
        /* Two halves, ranked backwards within each. */
        unsigned r = dn_coll_rank(world);
        dn_coll_comm *half;
        rc = dn_coll_comm_split(world, (int)(r % 2), -(int)r, &half);
        CHECK_MSG(rc == DN_OK && half, "split: %s", dn_strerror(rc));
        if (half) {
            CHECK_EQ(dn_coll_size(half), (dn_coll_size(world) + 1 - r % 2) / 2);
            sweep(half, max_bytes < 8192 ? max_bytes : 8192, all_impls, 1);
            if (nonblocking) {
                /* In flight on the half, then on the whole. */
                in_flight(half, nonblocking / 2 + 1);
                in_flight(world, nonblocking / 2 + 1);
            }
            dn_coll_comm_free(half);
        }
    }
    if (join) {
        joined(world, max_bytes, all_impls);
    }
    if (dn_coll_size(world) >= 2) {
        mismatch(world);
        idle_fails(world);
    }
    struct dn_coll_stats st;
    unsigned me = dn_coll_rank(world), members = dn_coll_size(world);
    dn_coll_stats(world, &st);
    if (report) {
        dn_coll_report(world, stderr);
    }
    dn_coll_comm_free(world);
    /* Small messages go as AOTF stores unless DIMMNET_COLL_AOTF=0 (one
     * host port a board here): the world's barriers sent some. */
    const char *aotf = getenv("DIMMNET_COLL_AOTF");
    int want_small = !(aotf && strcmp(aotf, "0") == 0);
    if (members >= 2 && want_small != (st.small_sent > 0)) {
        fprintf(stderr, "coll_check: rank %u: %llu small messages by AOTF, expected %s\n", me,
                (unsigned long long)st.small_sent, want_small ? "some" : "none");
        check_failures++;
    }
    /* Where small messages go by AOTF, readers push their credits: some
     * pushes; elsewhere none (writers read them). */
    if (members >= 2 && want_small != (st.credit_pushes > 0)) {
        fprintf(stderr, "coll_check: rank %u: %llu credit pushes, expected %s\n", me,
                (unsigned long long)st.credit_pushes, want_small ? "some" : "none");
        check_failures++;
    }
    printf("coll_check: rank %u ok %u checks (frames %llu sent, %llu taken, %llu asked again, "
           "%llu written again, %llu stale, %llu small by AOTF, credits %llu read, "
           "%llu pushed)\n",
           me, checks,
           (unsigned long long)st.frames_sent, (unsigned long long)st.frames_taken,
           (unsigned long long)st.resend_asks, (unsigned long long)st.resends,
           (unsigned long long)st.stale_frames, (unsigned long long)st.small_sent,
           (unsigned long long)st.credit_reads, (unsigned long long)st.credit_pushes);
    dn_close(n);
    return check_failures ? 1 : 0;
}
