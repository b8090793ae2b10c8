/*
 * Run-time choice among a collective's implementations, as NBC-SIA makes
 * it and with its lesson applied: for each (collective, op, type, size
 * class) of a communicator, the first calls try every candidate in turn,
 * `trials` calls each; a candidate's figure is the slowest member's total
 * over its trials, which all members learn by one max-reduction of their
 * own totals started at the same point of the call sequence on every
 * member; the fastest is kept. All members so choose the same.
 */
#include <stdlib.h>
#include <string.h>
#include "coll.h"

static int is_pow2(unsigned n)
{
    return n && !(n & (n - 1));
}

int coll_impl_ok(struct dn_coll_comm *c, unsigned kind, unsigned i, unsigned type, unsigned op,
                 size_t bytes)
{
    if (kind >= DN_COLL_KINDS || i >= COLL_MAX_IMPLS || !coll_impls[kind][i]) {
        return 0;
    }
    const struct coll_impl *im = coll_impls[kind][i];
    if (im->usable && !im->usable(c, type, op, bytes)) {
        return 0;
    }
    if (im->mcast && !c->mcast_ok) {
        return 0;
    }
    if (im->pow2 && !is_pow2(c->size)) {
        return 0;
    }
    unsigned cells = im->ncells(c->size);
    if (cells > 255) {
        return 0;
    }
    /* A piece of at least one element of the widest type (8 bytes): a
     * packed piece (a slice for every member in one cell) may have none
     * on many members, and a start that fails after the trial counted it
     * would leave the selection waiting for it for good. */
    size_t cap = coll_cell_cap((uint32_t)(c->lay.region / cells), im->mcast);
    return cap > 0 && im->piece(cap, 8, c->size) > 0;
}

/* Progress until @cond holds (the selection's own waits). */
static int wait_until(struct dn_coll_comm *c, const unsigned *v, unsigned want)
{
    while (*v != want) {
        int rc = coll_progress(c);
        if (rc != DN_OK) {
            return rc;
        }
        if (*v != want && (rc = coll_idle(c->n)) != DN_OK) {
            return rc;
        }
    }
    return DN_OK;
}

struct dn_coll_req *coll_max_req(const uint64_t *in, uint64_t *out, size_t count)
{
    struct dn_coll_req *rq = calloc(1, sizeof(*rq));

    if (rq) {
        rq->kind = DN_COLL_ALLREDUCE;
        rq->type = DN_COLL_UINT64;
        rq->op = DN_COLL_MAX;
        rq->count = count;
        rq->esize = 8;
        rq->sbuf = in;
        rq->rbuf = out;
        rq->impl = 0;
        rq->sel_key = -1;
    }
    return rq;
}

/* A candidate's first trials are warm-ups, not timed: the first takes
 * what the switch costs (credits of members it never wrote to, the
 * skew the calls before it left), the second the skew that leaves. */
unsigned coll_sel_warmup(unsigned trials)
{
    return trials >= 4 ? 2 : trials >= 2 ? 1 : 0;
}

/* Every member's span over candidate @ci's trials, maximized. */
static int reduce_times(struct dn_coll_comm *c, unsigned key, unsigned ci)
{
    struct coll_sel *s = &c->sel[key];
    uint64_t *v = calloc(2, sizeof(uint64_t));
    struct dn_coll_req *rq;
    dn_coll_req *out;

    if (!v || !(rq = coll_max_req(&v[0], &v[1], 1))) {
        free(v);
        return DN_ENOMEM;
    }
    v[0] = s->own_ns[ci];
    rq->tmp = v;
    rq->internal = 1;
    rq->sel_key = (int)key;
    rq->sel_cand = (int)ci;
    s->pending++;
    return coll_start(c, rq, &out);
}

int coll_select(struct dn_coll_comm *c, struct dn_coll_req *rq)
{
    size_t bytes = rq->count * rq->esize;
    if (c->forced[rq->kind] >= 0) {
        /* A forced implementation that cannot serve this call (the
         * firmware combine: a float, more than 8 bytes) leaves it to the
         * first, which serves any. */
        int f = c->forced[rq->kind];
        rq->impl = coll_impl_ok(c, rq->kind, (unsigned)f, rq->type, rq->op, bytes) ? f : 0;
        return DN_OK;
    }
    int reduction = rq->kind == DN_COLL_REDUCE || rq->kind == DN_COLL_ALLREDUCE ||
                    rq->kind == DN_COLL_REDUCE_SCATTER;
    uint8_t op = reduction ? rq->op : 0, type = rq->kind == DN_COLL_BARRIER ? 0 : rq->type;
    uint8_t sc = rq->kind == DN_COLL_BARRIER ? 0 : (uint8_t)DN_COLL_SIZE_CLASS(bytes);
    unsigned key;
    struct coll_sel *s = NULL;

    for (key = 0; key < COLL_SEL_KEYS; key++) {
        s = &c->sel[key];
        if (!s->used || (s->kind == rq->kind && s->op == op && s->type == type &&
                         s->sclass == sc)) {
            break;
        }
    }
    if (key == COLL_SEL_KEYS) {
        rq->impl = 0;       /* table full: the first, untimed */
        return DN_OK;
    }
    if (!s->used) {
        memset(s, 0, sizeof(*s));
        s->used = 1;
        s->kind = rq->kind;
        s->op = op;
        s->type = type;
        s->sclass = sc;
        s->chosen = -1;
        for (unsigned i = 0; i < COLL_MAX_IMPLS; i++) {
            if (coll_impl_ok(c, rq->kind, i, rq->type, rq->op, bytes)) {
                s->cand[s->ncand++] = i;
            }
        }
        if (s->ncand == 1) {
            s->chosen = (int)s->cand[0];
        }
    }
    for (;;) {
        if (s->chosen >= 0) {
            rq->impl = s->chosen;
            return DN_OK;
        }
        unsigned trials = c->cfg.trials, t = s->calls, ci = t / trials;
        int rc;
        if (t > 0 && t % trials == 0 && !s->reduced[ci - 1]) {
            /* Candidate ci - 1's trials are over: once they are done here,
             * every member reduces its total, at this same call. */
            if ((rc = wait_until(c, &s->outstanding, 0)) != DN_OK) {
                return rc;
            }
            s->reduced[ci - 1] = 1;
            /* Done before the next candidate's trials start: running
             * under them, it would be charged to that candidate. */
            if ((rc = reduce_times(c, key, ci - 1)) != DN_OK ||
                (rc = wait_until(c, &s->pending, 0)) != DN_OK) {
                return rc;
            }
        }
        if (ci >= s->ncand) {
            if ((rc = wait_until(c, &s->pending, 0)) != DN_OK) {
                return rc;
            }
            unsigned best = 0;
            for (unsigned i = 1; i < s->ncand; i++) {
                if (s->slowest_ns[i] < s->slowest_ns[best]) {
                    best = i;
                }
            }
            s->chosen = (int)s->cand[best];
            continue;
        }
        rq->impl = (int)s->cand[ci];
        rq->sel_key = (int)key;
        rq->sel_cand = (int)ci;
        rq->sel_trial = t % trials;
        s->calls++;
        s->outstanding++;
        return DN_OK;
    }
}

void coll_selected_done(struct dn_coll_comm *c, struct dn_coll_req *rq)
{
    if (rq->sel_key < 0) {
        return;
    }
    struct coll_sel *s = &c->sel[rq->sel_key];
    if (rq->internal) {
        s->slowest_ns[rq->sel_cand] = ((const uint64_t *)rq->tmp)[1];
        s->pending--;
        return;
    }
    unsigned ci = (unsigned)rq->sel_cand;
    if (rq->sel_trial >= coll_sel_warmup(c->cfg.trials)) {
        if (!s->span_end[ci] || rq->t_start < s->span_start[ci]) {
            s->span_start[ci] = rq->t_start;
        }
        if (rq->t_end > s->span_end[ci]) {
            s->span_end[ci] = rq->t_end;
        }
        s->own_ns[ci] = s->span_end[ci] - s->span_start[ci];
    }
    s->trials_done[ci]++;
    s->outstanding--;
}

int dn_coll_report(dn_coll_comm *c, void *fp)
{
    FILE *f = fp;
    static const char *const classes[DN_COLL_SIZE_CLASSES] = { "<=8B", "<=64B", "<=1KiB", "<=16KiB",
                                                                "<=256KiB", ">256KiB" };

    if (!c || !f) {
        return DN_EINVAL;
    }
    fprintf(f, "coll: rank %u of %u, incarnation %u, times %s ns of the slowest member's span "
            "over %u trials, the first %u warm-ups\n",
            c->rank, c->size, c->gen, c->n->timed ? "modeled" : "wall-clock", c->cfg.trials,
            coll_sel_warmup(c->cfg.trials));
    for (unsigned k = 0; k < COLL_SEL_KEYS; k++) {
        const struct coll_sel *s = &c->sel[k];
        if (!s->used) {
            continue;
        }
        int red = s->kind == DN_COLL_REDUCE || s->kind == DN_COLL_ALLREDUCE ||
                  s->kind == DN_COLL_REDUCE_SCATTER;
        fprintf(f, "coll: %s%s%s type=%s size%s chosen=%s", dn_coll_kind_name(s->kind),
                red ? " op=" : "", red ? coll_op_name(s->op) : "", coll_type_name(s->type), classes[s->sclass],
                s->chosen >= 0 ? coll_impls[s->kind][s->chosen]->name : "(trying)");
        for (unsigned i = 0; i < s->ncand; i++) {
            fprintf(f, " %s=%llu", coll_impls[s->kind][s->cand[i]]->name,
                    s->reduced[i] && !s->pending ? (unsigned long long)s->slowest_ns[i] : 0ull);
        }
        fputc('\n', f);
    }
    for (unsigned k = 0; k < DN_COLL_KINDS; k++) {
        if (!c->st.calls[k]) {
            continue;
        }
        fprintf(f, "coll: %s calls=%llu", dn_coll_kind_name(k), (unsigned long long)c->st.calls[k]);
        for (unsigned i = 0; i < COLL_MAX_IMPLS && coll_impls[k][i]; i++) {
            fprintf(f, " %s=%llu", coll_impls[k][i]->name,
                    (unsigned long long)c->impl_calls[k][i]);
        }
        fputc('\n', f);
    }
    fprintf(f, "coll: frames_sent=%llu frames_taken=%llu resend_asks=%llu resends=%llu "
            "credit_reads=%llu credit_pushes=%llu stale_frames=%llu fw_combines=%llu\n",
            (unsigned long long)c->st.frames_sent, (unsigned long long)c->st.frames_taken,
            (unsigned long long)c->st.resend_asks, (unsigned long long)c->st.resends,
            (unsigned long long)c->st.credit_reads, (unsigned long long)c->st.credit_pushes,
            (unsigned long long)c->st.stale_frames, (unsigned long long)c->st.fw_combines);
    return DN_OK;
}
