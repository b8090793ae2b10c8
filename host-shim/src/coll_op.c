/*
 * Reduction kernels of the collectives and their canonical order: every
 * implementation combines the members' values as the binomial tree over
 * ranks rooted at rank 0 does, C(r, n) = ((x_r op C(r+1, 1)) op C(r+2, 2))
 * op C(r+4, 4) ..., so a floating-point result does not depend on the
 * implementation chosen nor on the order in which packets arrive.
 */
#include <stdlib.h>
#include <string.h>
#include "coll.h"

/* The host's work a combined element costs (a load, the op, a store; an
 * estimate until the charges are measured, docs/collectives.md). */
#define COLL_COMBINE_INSNS 3u

const char *coll_type_name(unsigned type)
{
    static const char *const names[] = { "int32", "int64", "uint64", "float", "double",
                                         "byte" };
    return type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

const char *coll_op_name(unsigned op)
{
    static const char *const names[] = { "sum", "prod", "min", "max", "band", "bor", "bxor" };
    return op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

int coll_op_ok(unsigned type, unsigned op)
{
    if (op > DN_COLL_BXOR || type > DN_COLL_DOUBLE) {
        return 0;
    }
    if (op >= DN_COLL_BAND) {
        return type == DN_COLL_INT32 || type == DN_COLL_INT64 || type == DN_COLL_UINT64;
    }
    return 1;
}

int coll_op_inexact(unsigned type, unsigned op)
{
    return (type == DN_COLL_FLOAT || type == DN_COLL_DOUBLE) &&
           (op == DN_COLL_SUM || op == DN_COLL_PROD);
}

#define KERNEL(T, a, b, op) \
    switch (op) { \
    case DN_COLL_SUM: *(a) = (T)(*(a) + *(b)); break; \
    case DN_COLL_PROD: *(a) = (T)(*(a) * *(b)); break; \
    case DN_COLL_MIN: if (*(b) < *(a)) { *(a) = *(b); } break; \
    case DN_COLL_MAX: if (*(b) > *(a)) { *(a) = *(b); } break; \
    }
#define BITS(T, a, b, op) \
    switch (op) { \
    case DN_COLL_BAND: *(a) &= *(b); break; \
    case DN_COLL_BOR: *(a) |= *(b); break; \
    case DN_COLL_BXOR: *(a) ^= *(b); break; \
    }

/* @acc = @acc op @x for one element, @acc the left operand. */
#define LOOP(T, BODY) do { \
        T *io = inout; const T *x = in; \
        for (size_t i = 0; i < count; i++) { \
            T l = left ? x[i] : io[i], r = left ? io[i] : x[i]; \
            BODY(T, &l, &r, op); \
            io[i] = l; \
        } \
    } while (0)

void coll_combine(dn_node *n, unsigned type, unsigned op, void *inout, const void *in,
                  size_t count, int left)
{
    dn_host_work(n, DN_HOST_INSNS, (uint64_t)count * COLL_COMBINE_INSNS);
    if (op >= DN_COLL_BAND) {
        switch (type) {
        case DN_COLL_INT32: LOOP(uint32_t, BITS); break;
        case DN_COLL_INT64: case DN_COLL_UINT64: LOOP(uint64_t, BITS); break;
        }
        return;
    }
    switch (type) {
    case DN_COLL_INT32: {
        /* Integer sums and products wrap (two's complement), as MPI's do. */
        if (op == DN_COLL_SUM || op == DN_COLL_PROD) {
            LOOP(uint32_t, KERNEL);
        } else {
            LOOP(int32_t, KERNEL);
        }
        break;
    }
    case DN_COLL_INT64:
        if (op == DN_COLL_SUM || op == DN_COLL_PROD) {
            LOOP(uint64_t, KERNEL);
        } else {
            LOOP(int64_t, KERNEL);
        }
        break;
    case DN_COLL_UINT64: LOOP(uint64_t, KERNEL); break;
    case DN_COLL_FLOAT: LOOP(float, KERNEL); break;
    case DN_COLL_DOUBLE: LOOP(double, KERNEL); break;
    }
}

/* @out = C(r, size) over the blocks. */
static void canon(dn_node *n, unsigned type, unsigned op, void *out, const uint8_t *blocks,
                  size_t stride, unsigned r, unsigned size, size_t count, size_t esize)
{
    memcpy(out, blocks + (size_t)r * stride, count * esize);
    dn_host_work(n, DN_HOST_COPY, count * esize);
    void *sub = NULL;
    for (unsigned k = 1; k < size; k <<= 1) {
        unsigned sz = size - k < k ? size - k : k;
        if (sz == 1) {
            coll_combine(n, type, op, out, blocks + (size_t)(r + k) * stride, count, 0);
            continue;
        }
        if (!sub && !(sub = malloc(count * esize))) {
            abort();    /* bounded by the caller's own buffers: see dn_coll_* */
        }
        canon(n, type, op, sub, blocks, stride, r + k, sz, count, esize);
        coll_combine(n, type, op, out, sub, count, 0);
    }
    free(sub);
}

void coll_canon(dn_node *n, unsigned type, unsigned op, void *out, const uint8_t *blocks,
                size_t stride, unsigned nblocks, size_t count)
{
    canon(n, type, op, out, blocks, stride, 0, nblocks, count, dn_coll_type_size(type));
}

size_t dn_coll_type_size(enum dn_coll_type type)
{
    static const size_t size[] = { 4, 8, 8, 4, 8, 1 };
    return (unsigned)type < sizeof(size) / sizeof(size[0]) ? size[type] : 0;
}
