/*
 * The implementations of each collective (docs/collectives.md): the
 * schedule of one epoch, a piece [a, b) of the request's elements (of
 * each member's block for allgather, alltoall and reduce-scatter). Cells
 * are numbered so that a member knows where its peers write to it and
 * where it writes to them from the ranks alone.
 *
 * One tree serves every tree-shaped schedule: the binomial tree over
 * ranks rooted at 0 (relative ranks for a rooted broadcast), where rank
 * r's parent is r less its lowest set bit and its children are r + 2^k
 * for 2^k below that bit. A reduction combines children in increasing k:
 * the canonical order of coll_op.c.
 */
#include <stdlib.h>
#include <string.h>
#include "coll.h"

static unsigned log2_ceil(unsigned n)
{
    unsigned l = 0;
    while ((1u << l) < n) {
        l++;
    }
    return l;
}

static unsigned lowbit_k(unsigned r)
{
    return r ? (unsigned)__builtin_ctz(r) : 32u;
}

static unsigned cells_log(unsigned n) { return log2_ceil(n) ? log2_ceil(n) : 1; }
static unsigned cells_log1(unsigned n) { return log2_ceil(n) + 1; }
static unsigned cells_one(unsigned n) { (void)n; return 1; }
static unsigned cells_n(unsigned n) { return n; }
static unsigned cells_nm1(unsigned n) { return n > 1 ? n - 1 : 1; }
static unsigned cells_n1(unsigned n) { return n + 1; }
static unsigned cells_n_log1(unsigned n) { return n > log2_ceil(n) + 1 ? n : log2_ceil(n) + 1; }
static unsigned cells_2nm1(unsigned n) { return n > 1 ? 2 * n - 1 : 1; }

static size_t piece_cap(size_t cap, size_t esize, unsigned n) { (void)n; return cap / esize; }
static size_t piece_packed(size_t cap, size_t esize, unsigned n) { return cap / (esize * n); }
/* n chunks of a piece, each a cell's. */
static size_t piece_chunks(size_t cap, size_t esize, unsigned n) { return cap / esize * n; }

#define ADD(kind_) ({ struct coll_op *o_ = coll_add(ep, (kind_)); if (!o_) return DN_ENOMEM; o_; })

static void send(struct coll_op *o, unsigned peer, unsigned cell, unsigned msg,
                 const void *src, size_t bytes)
{
    o->peer = (uint16_t)peer;
    o->cell = (uint8_t)cell;
    o->msg = (uint8_t)msg;
    o->src = src;
    o->bytes = bytes;
}

static void recv(struct coll_op *o, unsigned peer, unsigned cell, void *dst, size_t bytes)
{
    o->peer = (uint16_t)peer;
    o->cell = (uint8_t)cell;
    o->dst = dst;
    o->bytes = bytes;
}

/* Combine the blocks at @src, @stride bytes apart (one a member), of
 * @count elements each, into @dst in the canonical order. */
static void canon(struct coll_op *o, void *dst, const void *src, size_t stride, size_t count)
{
    o->dst = dst;
    o->src = src;
    o->stride = stride;
    o->count = count;
}

/* Epoch scratch of @bytes (freed with the epoch). */
static void *scratch(struct coll_epoch *ep, size_t bytes)
{
    free(ep->tmp);
    ep->tmp = malloc(bytes ? bytes : 1);
    return ep->tmp;
}

/*
 * The binomial reduction to rank 0 of @acc (bytes @bytes, @count
 * elements), already holding this member's value; children's values
 * arrive in cells 0..L-1 and are combined in increasing k (one round
 * each: the canonical order); then it goes to the parent. @scr: bytes to
 * receive into.
 */
static int tree_reduce(struct dn_coll_comm *c, struct coll_epoch *ep, void *acc, size_t count,
                       size_t bytes, void *scr, unsigned msg)
{
    unsigned r = c->rank, n = c->size, low = lowbit_k(r);

    for (unsigned k = 0; (1u << k) < n && k < low; k++) {
        if (r + (1u << k) >= n) {
            break;
        }
        struct coll_op *o = ADD(OP_RECV_RED);
        recv(o, r + (1u << k), k, acc, bytes);
        o->src = scr;
        o->count = count;
        coll_round_end(ep);
    }
    if (r) {
        send(ADD(OP_SEND), r - (1u << low), low, msg, acc, bytes);
        coll_round_end(ep);
    }
    return DN_OK;
}

/* Binomial broadcast of @buf from relative rank 0 (absolute @root) in cell
 * @cell: receive from the parent, then write to the children, larger
 * subtrees first. */
static int tree_bcast(struct dn_coll_comm *c, struct coll_epoch *ep, unsigned root, void *buf,
                      size_t bytes, unsigned cell, unsigned msg)
{
    unsigned n = c->size, rel = (c->rank + n - root) % n, low = lowbit_k(rel);

    if (rel) {
        recv(ADD(OP_RECV), (rel - (1u << low) + root) % n, cell, buf, bytes);
        coll_round_end(ep);
    }
    for (int k = (int)log2_ceil(n) - 1; k >= 0; k--) {
        if ((unsigned)k < low && rel + (1u << k) < n) {
            send(ADD(OP_SEND), (rel + (1u << k) + root) % n, cell, msg, buf, bytes);
        }
    }
    coll_round_end(ep);
    return DN_OK;
}

static int copy(struct coll_epoch *ep, void *dst, const void *src, size_t bytes)
{
    struct coll_op *o = ADD(OP_COPY);
    o->dst = dst;
    o->src = src;
    o->bytes = bytes;
    return DN_OK;
}

/* ---- barrier ---- */

static int barrier_dissemination(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    (void)a; (void)b;
    unsigned n = c->size, r = c->rank;
    for (unsigned k = 0; (1u << k) < n; k++) {
        send(ADD(OP_SEND), (r + (1u << k)) % n, k, k, NULL, 0);
        recv(ADD(OP_RECV), (r + n - (1u << k) % n) % n, k, NULL, 0);
        coll_round_end(ep);
    }
    return DN_OK;
}

static int barrier_tree(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    (void)a; (void)b;
    unsigned n = c->size, r = c->rank, low = lowbit_k(r), last = log2_ceil(n);
    for (unsigned k = 0; k < low && r + (1u << k) < n; k++) {
        recv(ADD(OP_RECV), r + (1u << k), k, NULL, 0);
    }
    coll_round_end(ep);
    if (r) {
        send(ADD(OP_SEND), r - (1u << low), low, 0, NULL, 0);
        coll_round_end(ep);
    }
    return tree_bcast(c, ep, 0, NULL, 0, last, 1);
}

static int barrier_mcast(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    (void)a; (void)b;
    unsigned n = c->size, r = c->rank;
    if (r) {
        send(ADD(OP_SEND), 0, r, 0, NULL, 0);
        coll_round_end(ep);
        struct coll_op *o = ADD(OP_RECV);
        recv(o, 0, n, NULL, 0);
        o->flags = OPF_MCAST;
        return DN_OK;
    }
    for (unsigned j = 1; j < n; j++) {
        recv(ADD(OP_RECV), j, j, NULL, 0);
    }
    coll_round_end(ep);
    struct coll_op *o = ADD(OP_MCAST);
    send(o, 0, n, 0, NULL, 0);
    return DN_OK;
}

/* ---- broadcast ---- */

static int bcast_binomial(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    struct dn_coll_req *rq = ep->req;
    return tree_bcast(c, ep, rq->root, (uint8_t *)rq->rbuf + a * rq->esize,
                      (b - a) * rq->esize, 0, 0);
}

static int bcast_chain(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    struct dn_coll_req *rq = ep->req;
    unsigned n = c->size, rel = (c->rank + n - rq->root) % n;
    uint8_t *buf = (uint8_t *)rq->rbuf + a * rq->esize;
    size_t bytes = (b - a) * rq->esize;

    if (rel) {
        recv(ADD(OP_RECV), (c->rank + n - 1) % n, 0, buf, bytes);
        coll_round_end(ep);
    }
    if (rel + 1 < n) {
        send(ADD(OP_SEND), (c->rank + 1) % n, 0, 0, buf, bytes);
    }
    return DN_OK;
}

static int bcast_mcast(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    struct dn_coll_req *rq = ep->req;
    uint8_t *buf = (uint8_t *)rq->rbuf + a * rq->esize;
    size_t bytes = (b - a) * rq->esize;

    if (c->rank == rq->root) {
        send(ADD(OP_MCAST), 0, 0, 0, buf, bytes);
    } else {
        struct coll_op *o = ADD(OP_RECV);
        recv(o, rq->root, 0, buf, bytes);
        o->flags = OPF_MCAST;
    }
    return DN_OK;
}

/* ---- reduce ---- */

static int reduce_binomial(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    struct dn_coll_req *rq = ep->req;
    size_t bytes = (b - a) * rq->esize;
    unsigned last = log2_ceil(c->size);
    uint8_t *mem = scratch(ep, 2 * bytes);
    uint8_t *acc = c->rank == rq->root ? (uint8_t *)rq->rbuf + a * rq->esize : mem;
    int rc;

    copy(ep, acc, (const uint8_t *)rq->sbuf + a * rq->esize, bytes);
    coll_round_end(ep);
    if ((rc = tree_reduce(c, ep, acc, b - a, bytes, mem + bytes, 0)) != DN_OK) {
        return rc;
    }
    if (rq->root != 0) {
        if (c->rank == 0) {
            send(ADD(OP_SEND), rq->root, last, 1, acc, bytes);
        } else if (c->rank == rq->root) {
            recv(ADD(OP_RECV), 0, last, acc, bytes);
        }
    }
    return DN_OK;
}

static int reduce_linear(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    struct dn_coll_req *rq = ep->req;
    size_t bytes = (b - a) * rq->esize;
    const uint8_t *mine = (const uint8_t *)rq->sbuf + a * rq->esize;

    if (c->rank != rq->root) {
        send(ADD(OP_SEND), rq->root, c->rank, 0, mine, bytes);
        return DN_OK;
    }
    uint8_t *blocks = scratch(ep, bytes * c->size);
    for (unsigned j = 0; j < c->size; j++) {
        if (j == c->rank) {
            copy(ep, blocks + j * bytes, mine, bytes);
        } else {
            recv(ADD(OP_RECV), j, j, blocks + j * bytes, bytes);
        }
    }
    coll_round_end(ep);
    canon(ADD(OP_CANON), (uint8_t *)rq->rbuf + a * rq->esize, blocks, bytes, b - a);
    return DN_OK;
}

/* ---- allreduce ---- */

static int allreduce_rd(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    struct dn_coll_req *rq = ep->req;
    size_t bytes = (b - a) * rq->esize;
    uint8_t *acc = (uint8_t *)rq->rbuf + a * rq->esize;
    uint8_t *scr = scratch(ep, bytes);

    copy(ep, acc, (const uint8_t *)rq->sbuf + a * rq->esize, bytes);
    coll_round_end(ep);
    for (unsigned k = 0; (1u << k) < c->size; k++) {
        unsigned p = c->rank ^ (1u << k);
        send(ADD(OP_SEND), p, k, k, acc, bytes);
        struct coll_op *o = ADD(OP_RECV_RED);
        recv(o, p, k, acc, bytes);
        o->src = scr;
        o->count = b - a;
        o->flags = p < c->rank ? OPF_LEFT : 0;   /* lower ranks' values on the left */
        coll_round_end(ep);
    }
    return DN_OK;
}

static int allreduce_tree(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b,
                          int mcast)
{
    struct dn_coll_req *rq = ep->req;
    size_t bytes = (b - a) * rq->esize;
    unsigned last = log2_ceil(c->size);
    uint8_t *acc = (uint8_t *)rq->rbuf + a * rq->esize;
    int rc;

    copy(ep, acc, (const uint8_t *)rq->sbuf + a * rq->esize, bytes);
    coll_round_end(ep);
    if ((rc = tree_reduce(c, ep, acc, b - a, bytes, scratch(ep, bytes), 0)) != DN_OK) {
        return rc;
    }
    if (!mcast) {
        return tree_bcast(c, ep, 0, acc, bytes, last, 1);
    }
    if (c->rank == 0) {
        send(ADD(OP_MCAST), 0, last, 1, acc, bytes);
    } else {
        struct coll_op *o = ADD(OP_RECV);
        recv(o, 0, last, acc, bytes);
        o->flags = OPF_MCAST;
    }
    return DN_OK;
}

static int allreduce_reduce_bcast(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    return allreduce_tree(c, ep, a, b, 0);
}

static int allreduce_reduce_mcast(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    return allreduce_tree(c, ep, a, b, 1);
}

/* Chunk @j of @m elements among @n members: the first m % n one larger. */
static size_t chunk_off(size_t m, unsigned n, unsigned j)
{
    return j * (m / n) + (j < m % n ? j : m % n);
}

static size_t chunk_len(size_t m, unsigned n, unsigned j)
{
    return chunk_off(m, n, j + 1) - chunk_off(m, n, j);
}

/*
 * Reduce-scatter, then allgather, in one epoch: member j owns chunk j of
 * the piece; every member writes each other its chunk of the input, the
 * owner combines the n of them canonically (OP_CANON: the tree's bits)
 * and writes the result to every other member. A member so reads 2(n-1)/n
 * of the piece from the card (150 ns an 8-byte load), where recursive
 * doubling reads log2(n) times it and the tree's path about 3 times.
 * Cells at j: the first phase's from s at s less one above j, the
 * second's at n - 1 + s (a staged message has one cell: its stamps name
 * it). A member with no chunk (fewer elements than members) is sent
 * nothing and sends nothing.
 */
static int allreduce_rs_ag(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    struct dn_coll_req *rq = ep->req;
    unsigned n = c->size, r = c->rank;
    size_t es = rq->esize, m = b - a, mine = chunk_len(m, n, r), bytes = mine * es;
    const uint8_t *in = (const uint8_t *)rq->sbuf + a * es;
    uint8_t *out = (uint8_t *)rq->rbuf + a * es, *res = out + chunk_off(m, n, r) * es;
    uint8_t *blocks = scratch(ep, bytes * n);

    if (mine) {
        copy(ep, blocks + r * bytes, in + chunk_off(m, n, r) * es, bytes);
    }
    for (unsigned j = 0; j < n; j++) {
        if (j != r && chunk_len(m, n, j)) {
            send(ADD(OP_SEND), j, r < j ? r : r - 1, j, in + chunk_off(m, n, j) * es,
                 chunk_len(m, n, j) * es);
        }
        if (j != r && mine) {
            recv(ADD(OP_RECV), j, j < r ? j : j - 1, blocks + j * bytes, bytes);
        }
    }
    /* Every input chunk staged before a result lands on it (in place). */
    coll_round_end(ep);
    if (mine) {
        canon(ADD(OP_CANON), res, blocks, bytes, mine);
        coll_round_end(ep);
    }
    for (unsigned j = 0; j < n; j++) {
        if (j != r && mine) {
            send(ADD(OP_SEND), j, n - 1 + r, r, res, bytes);
        }
        if (j != r && chunk_len(m, n, j)) {
            recv(ADD(OP_RECV), j, n - 1 + j, out + chunk_off(m, n, j) * es,
                 chunk_len(m, n, j) * es);
        }
    }
    return DN_OK;
}

/* ---- allgather ---- */

static int allgather_ring(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    struct dn_coll_req *rq = ep->req;
    unsigned n = c->size, r = c->rank;
    size_t bytes = (b - a) * rq->esize, blk = rq->count * rq->esize;
    uint8_t *out = (uint8_t *)rq->rbuf + a * rq->esize;

    copy(ep, out + r * blk, (const uint8_t *)rq->sbuf + a * rq->esize, bytes);
    coll_round_end(ep);
    for (unsigned s = 0; s + 1 < n; s++) {
        unsigned give = (r + n - s) % n, get = (r + 2 * n - s - 1) % n;
        send(ADD(OP_SEND), (r + 1) % n, s, s, out + give * blk, bytes);
        recv(ADD(OP_RECV), (r + n - 1) % n, s, out + get * blk, bytes);
        coll_round_end(ep);
    }
    return DN_OK;
}

static int allgather_direct(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    struct dn_coll_req *rq = ep->req;
    unsigned n = c->size, r = c->rank;
    size_t bytes = (b - a) * rq->esize, blk = rq->count * rq->esize;
    uint8_t *out = (uint8_t *)rq->rbuf + a * rq->esize;
    const uint8_t *mine = (const uint8_t *)rq->sbuf + a * rq->esize;

    copy(ep, out + r * blk, mine, bytes);
    for (unsigned j = 0; j < n; j++) {
        if (j != r) {
            send(ADD(OP_SEND), j, r, 0, mine, bytes);
            recv(ADD(OP_RECV), j, j, out + j * blk, bytes);
        }
    }
    return DN_OK;
}

/* ---- alltoall ---- */

static int alltoall_build(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b,
                          int rounds)
{
    struct dn_coll_req *rq = ep->req;
    unsigned n = c->size, r = c->rank;
    size_t bytes = (b - a) * rq->esize, blk = rq->count * rq->esize;
    const uint8_t *in = (const uint8_t *)rq->sbuf + a * rq->esize;
    uint8_t *out = (uint8_t *)rq->rbuf + a * rq->esize;

    copy(ep, out + r * blk, in + r * blk, bytes);
    for (unsigned s = 1; s < n; s++) {
        unsigned to = (r + s) % n, from = (r + n - s) % n;
        send(ADD(OP_SEND), to, r, to, in + to * blk, bytes);
        recv(ADD(OP_RECV), from, from, out + from * blk, bytes);
        if (rounds) {
            coll_round_end(ep);
        }
    }
    return DN_OK;
}

static int alltoall_direct(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    return alltoall_build(c, ep, a, b, 0);
}

static int alltoall_pairwise(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    return alltoall_build(c, ep, a, b, 1);
}

/* ---- reduce-scatter (block) ---- */

static int reduce_scatter_direct(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    struct dn_coll_req *rq = ep->req;
    unsigned n = c->size, r = c->rank;
    size_t bytes = (b - a) * rq->esize, blk = rq->count * rq->esize;
    const uint8_t *in = (const uint8_t *)rq->sbuf + a * rq->esize;
    uint8_t *blocks = scratch(ep, bytes * n);

    copy(ep, blocks + r * bytes, in + r * blk, bytes);
    for (unsigned j = 0; j < n; j++) {
        if (j != r) {
            send(ADD(OP_SEND), j, r, j, in + j * blk, bytes);
            recv(ADD(OP_RECV), j, j, blocks + j * bytes, bytes);
        }
    }
    coll_round_end(ep);
    canon(ADD(OP_CANON), (uint8_t *)rq->rbuf + a * rq->esize, blocks, bytes, b - a);
    return DN_OK;
}

/* Pack every block's piece, reduce the packed vector to rank 0 on the
 * tree, which writes each member its block. */
static int reduce_scatter_root(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    struct dn_coll_req *rq = ep->req;
    unsigned n = c->size, r = c->rank, last = log2_ceil(n);
    size_t bytes = (b - a) * rq->esize, blk = rq->count * rq->esize;
    const uint8_t *in = (const uint8_t *)rq->sbuf + a * rq->esize;
    uint8_t *mem = scratch(ep, 2 * bytes * n);
    int rc;

    for (unsigned j = 0; j < n; j++) {
        copy(ep, mem + j * bytes, in + j * blk, bytes);
    }
    coll_round_end(ep);
    if ((rc = tree_reduce(c, ep, mem, (b - a) * n, bytes * n, mem + bytes * n, 0)) != DN_OK) {
        return rc;
    }
    uint8_t *out = (uint8_t *)rq->rbuf + a * rq->esize;
    if (r == 0) {
        for (unsigned j = 1; j < n; j++) {
            send(ADD(OP_SEND), j, last, j, mem + j * bytes, bytes);
        }
        copy(ep, out, mem, bytes);
    } else {
        recv(ADD(OP_RECV), 0, last, out, bytes);
    }
    return DN_OK;
}

/* ---- the firmware combine (coll_fw.c): an integer reduction of up to 8
 * bytes, one piece ---- */

static size_t piece_fw(size_t cap, size_t esize, unsigned n)
{
    (void)cap; (void)n;
    return 8 / esize;
}

static int allreduce_fw(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    struct dn_coll_req *rq = ep->req;

    return coll_fw_add(c, ep, (const uint8_t *)rq->sbuf + a * rq->esize,
                       (uint8_t *)rq->rbuf + a * rq->esize, (b - a) * rq->esize);
}

/* The counting barrier itself: the value combined is nothing. */
static int barrier_fw(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    (void)a; (void)b;
    return coll_fw_add(c, ep, NULL, NULL, 0);
}

/* Every member waits for the release (its next combination may not
 * arrive before it); only the root keeps the result. */
static int reduce_fw(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b)
{
    struct dn_coll_req *rq = ep->req;

    return coll_fw_add(c, ep, (const uint8_t *)rq->sbuf + a * rq->esize,
                       c->rank == rq->root ? (uint8_t *)rq->rbuf + a * rq->esize : NULL,
                       (b - a) * rq->esize);
}

#define IMPL(var, nm, mc, p2, cells, pc, fn) \
    static const struct coll_impl var = { nm, mc, p2, cells, pc, fn, NULL }

IMPL(i_bar_dis, "dissemination", 0, 0, cells_log, piece_cap, barrier_dissemination);
IMPL(i_bar_tree, "tree", 0, 0, cells_log1, piece_cap, barrier_tree);
IMPL(i_bar_mcast, "mcast", 1, 0, cells_n1, piece_cap, barrier_mcast);
IMPL(i_bc_bin, "binomial", 0, 0, cells_one, piece_cap, bcast_binomial);
IMPL(i_bc_chain, "chain", 0, 0, cells_one, piece_cap, bcast_chain);
IMPL(i_bc_mcast, "mcast", 1, 0, cells_one, piece_cap, bcast_mcast);
IMPL(i_red_bin, "binomial", 0, 0, cells_log1, piece_cap, reduce_binomial);
IMPL(i_red_lin, "linear", 0, 0, cells_n, piece_cap, reduce_linear);
IMPL(i_ar_tree, "reduce-bcast", 0, 0, cells_log1, piece_cap, allreduce_reduce_bcast);
IMPL(i_ar_rd, "recursive-doubling", 0, 1, cells_log, piece_cap, allreduce_rd);
IMPL(i_ar_mcast, "reduce-mcast", 1, 0, cells_log1, piece_cap, allreduce_reduce_mcast);
IMPL(i_ar_rsag, "rs-ag", 0, 0, cells_2nm1, piece_chunks, allreduce_rs_ag);
IMPL(i_ag_ring, "ring", 0, 0, cells_nm1, piece_cap, allgather_ring);
IMPL(i_ag_direct, "direct", 0, 0, cells_n, piece_cap, allgather_direct);
IMPL(i_a2a_direct, "direct", 0, 0, cells_n, piece_cap, alltoall_direct);
IMPL(i_a2a_pair, "pairwise", 0, 0, cells_n, piece_cap, alltoall_pairwise);
IMPL(i_rs_direct, "direct", 0, 0, cells_n, piece_cap, reduce_scatter_direct);
IMPL(i_rs_root, "reduce-root", 0, 0, cells_n_log1, piece_packed, reduce_scatter_root);
static const struct coll_impl i_bar_fw = { "firmware", 0, 0, cells_one, piece_fw, barrier_fw,
                                          coll_fw_usable_barrier };
static const struct coll_impl i_red_fw = { "firmware", 0, 0, cells_one, piece_fw, reduce_fw,
                                          coll_fw_usable };
static const struct coll_impl i_ar_fw = { "firmware", 0, 0, cells_one, piece_fw, allreduce_fw,
                                         coll_fw_usable };

/* The first of each kind can run on any communicator (the selection's own
 * max-reduction uses allreduce's). */
const struct coll_impl *const coll_impls[DN_COLL_KINDS][COLL_MAX_IMPLS + 1] = {
    [DN_COLL_BARRIER] = { &i_bar_dis, &i_bar_tree, &i_bar_mcast, &i_bar_fw },
    [DN_COLL_BCAST] = { &i_bc_bin, &i_bc_chain, &i_bc_mcast },
    [DN_COLL_REDUCE] = { &i_red_bin, &i_red_lin, &i_red_fw },
    [DN_COLL_ALLREDUCE] = { &i_ar_tree, &i_ar_rd, &i_ar_mcast, &i_ar_rsag, &i_ar_fw },
    [DN_COLL_ALLGATHER] = { &i_ag_ring, &i_ag_direct },
    [DN_COLL_ALLTOALL] = { &i_a2a_direct, &i_a2a_pair },
    [DN_COLL_REDUCE_SCATTER] = { &i_rs_direct, &i_rs_root },
};
