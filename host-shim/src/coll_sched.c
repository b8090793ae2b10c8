/*
 * Requests and epochs of the collectives: the progress engine. A request
 * is split into pieces, one an epoch; an epoch runs its schedule (rounds
 * of ops, a round once the one before it is done) in its region. Epochs
 * start in order, at most DN_COLL_INFLIGHT at once a communicator, an
 * epoch's region once the epoch before it in that region is done here and
 * freed by everyone it wrote to. Progress is made from the calls
 * (dn_coll_test, dn_coll_wait, dn_coll_progress, any start).
 */
#include <stdlib.h>
#include <string.h>
#include "coll.h"

/* The host's instructions a progress turn costs (an estimate until measured). */
#define COLL_TURN_INSNS 60u

struct coll_op *coll_add(struct coll_epoch *ep, int kind)
{
    if (ep->nops >= COLL_MAX_OPS) {
        return NULL;
    }
    if (ep->nrounds == 0) {
        ep->rounds[0] = (struct coll_round){ 0, 0 };
        ep->nrounds = 1;
    }
    struct coll_op *o = &ep->ops[ep->nops++];
    memset(o, 0, sizeof(*o));
    o->kind = (uint8_t)kind;
    ep->rounds[ep->nrounds - 1].count++;
    return o;
}

void coll_round_end(struct coll_epoch *ep)
{
    if (ep->nrounds == 0 || ep->rounds[ep->nrounds - 1].count == 0 ||
        ep->nrounds >= COLL_MAX_ROUNDS) {
        return;
    }
    ep->rounds[ep->nrounds] = (struct coll_round){ (uint16_t)ep->nops, 0 };
    ep->nrounds++;
}

void coll_epoch_free(struct coll_epoch *ep)
{
    if (ep) {
        free(ep->tmp);
        free(ep->mcast_copy);
        free(ep);
    }
}

/* Cells of an epoch's implementation: the region split evenly, whole
 * frames when a cell holds one. */
static uint32_t cell_size(struct dn_coll_comm *c, const struct coll_impl *im)
{
    uint64_t cs = c->lay.region / im->ncells(c->size);

    cs &= ~(uint64_t)7;
    if (cs >= COLL_FRAME) {
        cs &= ~(uint64_t)(COLL_FRAME - 1);
    }
    return (uint32_t)cs;
}

static size_t piece_elems(struct dn_coll_comm *c, struct dn_coll_req *rq)
{
    const struct coll_impl *im = coll_impls[rq->kind][rq->impl];
    uint32_t cs = cell_size(c, im);
    size_t cap = coll_cell_cap(cs, 0);

    if (im->mcast) {
        size_t m = coll_cell_cap(cs, 1);
        cap = m < cap ? m : cap;
    }
    return im->piece(cap, rq->esize ? rq->esize : 1, c->size);
}

/* Start the next epoch of the queue's head, if its region is free. */
static int start_epoch(struct dn_coll_comm *c)
{
    struct dn_coll_req *rq = c->queue;
    if (!rq) {
        return 0;
    }
    uint32_t k = rq->epochs_started;
    uint32_t e = rq->first_epoch + k;
    unsigned reg = e % DN_COLL_INFLIGHT;
    struct coll_epoch *old = c->ep[reg];

    if (old) {
        if (!old->done) {
            return 0;
        }
        /* Its readers must have freed it before this epoch writes their
         * cells again or overwrites what they may still ask for. */
        int ok = 1;
        for (unsigned r = 0; r < c->size; r++) {
            if ((old->dsts >> r) & 1) {
                ok &= coll_credit(c, r, e);
            }
        }
        if (!ok) {
            return 0;
        }
    }
    struct coll_epoch *ep = calloc(1, sizeof(*ep));
    if (!ep) {
        return DN_ENOMEM;
    }
    const struct coll_impl *im = coll_impls[rq->kind][rq->impl];
    ep->epoch = e;
    ep->req = rq;
    ep->cell_size = cell_size(c, im);
    size_t per = piece_elems(c, rq);
    size_t a = (size_t)k * per, b = a + per < rq->count ? a + per : rq->count;
    int rc = im->build(c, ep, a, b);
    if (rc != DN_OK) {
        coll_epoch_free(ep);
        return rc;
    }
    coll_epoch_free(old);
    c->ep[reg] = ep;
    if (++rq->epochs_started == rq->epochs) {
        c->queue = rq->next;
        if (!c->queue) {
            c->queue_tail = NULL;
        }
    }
    return 1;
}

static void request_done(struct dn_coll_comm *c, struct dn_coll_req *rq, int status, uint64_t now)
{
    if (rq->complete) {
        return;
    }
    rq->complete = 1;
    rq->status = status;
    /* A selected call's end as the clock has it now: @now is the turn's
     * start, and one turn may send and take a whole collective. */
    rq->t_end = rq->sel_key >= 0 ? coll_now(c) : now;
    c->in_flight--;
    coll_selected_done(c, rq);
    if (rq->internal) {
        free(rq->tmp);
        free(rq);
    }
}

/* What a timed-out communicator waited for, to stderr: the one place a
 * user sees why (which peer, which epoch, which frames). */
static void tell_stuck(struct dn_coll_comm *c, uint64_t now)
{
    fprintf(stderr, "dn_coll: rank %u of %u (address 0x%x): timed out after %d ms; "
            "epochs freed %u, next %u\n", c->rank, c->size, c->peer[c->rank].addr,
            c->cfg.timeout_ms, c->freed, c->next_epoch);
    for (unsigned i = 0; i < DN_COLL_INFLIGHT; i++) {
        const struct coll_epoch *ep = c->ep[i];
        if (!ep || ep->done || !ep->req) {
            continue;
        }
        fprintf(stderr, "dn_coll:   epoch %u: %s/%s round %u of %u\n", ep->epoch,
                dn_coll_kind_name((enum dn_coll_kind)ep->req->kind),
                coll_impls[ep->req->kind][ep->req->impl]->name, ep->round, ep->nrounds);
        if (ep->round >= ep->nrounds) {
            continue;
        }
        const struct coll_round *rd = &ep->rounds[ep->round];
        for (unsigned k = rd->first; k < rd->first + rd->count; k++) {
            const struct coll_op *o = &ep->ops[k];
            if (o->done) {
                continue;
            }
            if (o->kind == OP_SEND || o->kind == OP_MCAST) {
                fprintf(stderr, "dn_coll:     %s to rank %u not written: its reader has "
                        "freed %u epochs\n", o->kind == OP_SEND ? "send" : "multicast",
                        o->peer, c->peer[o->peer].freed);
            } else if (o->kind == OP_RECV || o->kind == OP_RECV_RED) {
                fprintf(stderr, "dn_coll:     receive from rank %u: %zu bytes, frames taken "
                        "0x%llx, asked %u times, waiting %.3f ms\n", o->peer, o->bytes,
                        (unsigned long long)o->frames_done, o->asks,
                        (double)(now - o->wait_since) / 1e6);
            } else if (o->kind == OP_FW) {
                fprintf(stderr, "dn_coll:     firmware combine at rank 0's board: epoch %u "
                        "(this member took %u last), arrived %u times\n", o->fw_epoch,
                        c->fw_seen, o->wait_since ? o->asks + 1u : 0u);
            }
        }
    }
}

/* Fail everything: the members no longer agree on what comes next. */
static void broken(struct dn_coll_comm *c, int status, uint64_t now)
{
    c->broken = status;
    for (unsigned i = 0; i < DN_COLL_INFLIGHT; i++) {
        struct coll_epoch *ep = c->ep[i];
        if (ep && !ep->done && ep->req) {
            struct dn_coll_req *rq = ep->req;
            ep->done = 1;
            ep->req = NULL;
            request_done(c, rq, status, now);
        }
    }
    while (c->queue) {
        struct dn_coll_req *rq = c->queue;
        c->queue = rq->next;
        request_done(c, rq, status, now);
    }
    c->queue_tail = NULL;
}

/* Run epoch @ep's rounds as far as they go. */
static int run_epoch(struct dn_coll_comm *c, struct coll_epoch *ep, uint64_t now)
{
    while (ep->round < ep->nrounds) {
        struct coll_round *rd = &ep->rounds[ep->round];
        int all = 1, sends_done = 1;

        /* Sends first: a receive of the same round may change what a
         * send of it writes (recursive doubling's accumulator). */
        for (int pass = 0; pass < 2; pass++) {
            for (unsigned i = rd->first; i < rd->first + rd->count; i++) {
                struct coll_op *o = &ep->ops[i];
                int send = o->kind == OP_SEND || o->kind == OP_MCAST;
                if (o->done || send != (pass == 0) || (pass == 1 && !sends_done)) {
                    continue;
                }
                int rc = coll_try_op(c, ep, o, now);
                if (rc < 0) {
                    return rc;
                }
                o->done = (uint8_t)rc;
                if (!rc) {
                    all = 0;
                    if (send) {
                        sends_done = 0;
                    }
                }
            }
        }
        if (!all) {
            return DN_OK;
        }
        ep->round++;
    }
    ep->done = 1;
    return DN_OK;
}

static int progress_one(struct dn_coll_comm *c);

/*
 * A turn of progress on @c, and on every other communicator of this
 * process first (MPI's progress rule): a member that waits on one may owe
 * another's peers a resend, a credit or a send of a collective it started
 * there, and they may be what it waits for.
 */
int coll_progress(struct dn_coll_comm *c)
{
    for (unsigned s = 0; s < DN_COLL_COMMS; s++) {
        struct dn_coll_comm *o = c->n->coll_comm[s];
        if (o && o != c && !o->broken && !o->progressing) {
            o->progressing = 1;
            progress_one(o);
            o->progressing = 0;
        }
    }
    int was = c->progressing, rc;
    c->progressing = 1;
    rc = progress_one(c);
    c->progressing = was;
    return rc;
}

static int progress_one(struct dn_coll_comm *c)
{
    if (c->broken) {
        return c->broken;
    }
    uint64_t now = coll_now(c);
    dn_self_count(c->n, COLL_TURN_INSNS);
    coll_serve(c, now);
    for (;;) {
        int rc = start_epoch(c);
        if (rc < 0) {
            broken(c, rc, now);
            return rc;
        }
        if (rc == 0) {
            break;
        }
    }
    /* Epochs in order of their numbers, oldest first. */
    for (uint32_t e = c->freed; e != c->next_epoch; e++) {
        struct coll_epoch *ep = c->ep[e % DN_COLL_INFLIGHT];
        if (!ep || ep->epoch != e || ep->done) {
            if (!ep || (int32_t)(ep->epoch - e) < 0) {
                break;      /* not started yet: nor are the later ones */
            }
            continue;
        }
        int rc = run_epoch(c, ep, now);
        if (rc < 0) {
            broken(c, rc, now);
            return rc;
        }
        if (ep->done) {
            struct dn_coll_req *rq = ep->req;
            ep->req = NULL;
            if (++rq->epochs_done == rq->epochs) {
                request_done(c, rq, DN_OK, now);
            }
        }
    }
    /* Epochs freed: every one below is done here (a region taken by a
     * later epoch was done before). */
    uint32_t f = c->freed;
    while (f != c->next_epoch) {
        struct coll_epoch *ep = c->ep[f % DN_COLL_INFLIGHT];
        if (!ep || (ep->epoch == f && !ep->done) || (int32_t)(ep->epoch - f) < 0) {
            break;
        }
        f++;
    }
    if (f != c->freed) {
        uint32_t from = c->freed;
        c->freed = f;
        coll_publish_freed(c);
        coll_push_freed(c, from);
    }
    /* Give up on what waited too long (wall clock). */
    if (c->in_flight) {
        int64_t ms = dn_now_ms();
        for (unsigned i = 0; i < DN_COLL_INFLIGHT; i++) {
            struct coll_epoch *ep = c->ep[i];
            if (ep && !ep->done && ep->req && ms > ep->req->deadline_ms) {
                tell_stuck(c, now);
                broken(c, DN_ETIMEDOUT, now);
                return DN_ETIMEDOUT;
            }
        }
        for (struct dn_coll_req *rq = c->queue; rq; rq = rq->next) {
            if (ms > rq->deadline_ms) {
                tell_stuck(c, now);
                broken(c, DN_ETIMEDOUT, now);
                return DN_ETIMEDOUT;
            }
        }
    }
    return DN_OK;
}

int coll_start(struct dn_coll_comm *c, struct dn_coll_req *rq, dn_coll_req **out)
{
    if (c->broken) {
        free(rq);
        return c->broken;
    }
    rq->c = c;
    if (!rq->internal && !rq->checking) {
        rq->sel_key = -1;
        int rc = coll_select(c, rq);
        if (rc != DN_OK) {
            free(rq);
            return rc;
        }
        c->st.calls[rq->kind]++;
        c->impl_calls[rq->kind][rq->impl]++;
    }
    if (rq->kind == DN_COLL_BARRIER) {
        rq->epochs = 1;
    } else if (c->size == 1 || rq->count == 0) {
        rq->epochs = 0;
    } else {
        size_t per = piece_elems(c, rq);
        if (per == 0) {
            free(rq);
            return DN_ENOMEM;   /* the comm's cells cannot hold one element */
        }
        rq->epochs = (uint32_t)((rq->count + per - 1) / per);
    }
    rq->t_start = coll_now(c);
    rq->deadline_ms = dn_now_ms() + c->cfg.timeout_ms;
    rq->first_epoch = c->next_epoch;
    c->in_flight++;
    if (c->size == 1 && rq->kind != DN_COLL_BARRIER) {
        /* Alone: the result is the contribution. */
        size_t bytes = rq->count * rq->esize;
        if (rq->kind != DN_COLL_BCAST && rq->sbuf != rq->rbuf && bytes) {
            memmove(rq->rbuf, rq->sbuf, bytes);
            dn_host_work(c->n, DN_HOST_COPY, bytes);
        }
        rq->epochs = 0;
    }
    if (rq->epochs == 0 || (c->size == 1)) {
        rq->epochs = 0;
        *out = rq;
        request_done(c, rq, DN_OK, rq->t_start);
        return DN_OK;
    }
    c->next_epoch += rq->epochs;
    if (c->queue_tail) {
        c->queue_tail->next = rq;
    } else {
        c->queue = rq;
    }
    c->queue_tail = rq;
    *out = rq;
    int rc = coll_progress(c);
    return rc == DN_OK || rq->complete ? DN_OK : rc;
}

int dn_coll_progress(dn_coll_comm *c)
{
    return c ? coll_progress(c) : DN_EINVAL;
}

int dn_coll_progress_node(dn_node *n)
{
    if (!n) {
        return DN_EINVAL;
    }
    for (unsigned s = 0; s < DN_COLL_COMMS; s++) {
        if (n->coll_comm[s] && n->coll_comm[s]->progressing) {
            return DN_OK;       /* inside a turn already: it moves them */
        }
    }
    for (unsigned s = 0; s < DN_COLL_COMMS; s++) {
        struct dn_coll_comm *c = n->coll_comm[s];
        if (c && !c->broken) {
            /* One turn moves every communicator (coll_progress); one
             * that breaks says so at its own calls. */
            (void)coll_progress(c);
            return DN_OK;
        }
    }
    return DN_OK;
}

int dn_coll_test(dn_coll_req *rq, int *done)
{
    if (!rq || !done) {
        return DN_EINVAL;
    }
    *done = 0;
    if (!rq->complete) {
        coll_progress(rq->c);
    }
    if (!rq->complete) {
        return DN_OK;
    }
    *done = 1;
    int st = rq->status;
    free(rq->tmp);
    free(rq);
    return st;
}

int dn_coll_wait(dn_coll_req *rq)
{
    if (!rq) {
        return DN_EINVAL;
    }
    for (;;) {
        int done, rc = dn_coll_test(rq, &done);
        if (done || rc != DN_OK) {
            return rc;
        }
        rc = coll_idle(rq->c->n);
        if (rc != DN_OK) {
            /* The node cannot wait (its board gone, or the caller's idle
             * failed): nothing here would complete. Fail what is in flight
             * on the communicator, so that no buffer of a call that
             * returns is touched again, and free this request. */
            broken(rq->c, rc, coll_now(rq->c));
            return dn_coll_test(rq, &done);
        }
    }
}
