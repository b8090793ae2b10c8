/*
 * Barriers (see dn.h and docs/barriers.md): objects, the algorithm AUTO
 * chooses at run time, the report, and the one waiting loop every
 * algorithm uses, with its resends.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "barrier.h"
#include "dimmnet1/fw_types.h"

/* AOTF channels 16..31 belong to barriers 0..15. */
#define BAR_CHANNEL_BASE 16u

static const char *const names[DN_BARRIER_ALGORITHMS] = {
    "auto", "firmware", "firmware-mcast", "host", "host-mcast", "firmware-paper",
    "firmware-paper-mcast",
};

const char *dn_barrier_algorithm_name(enum dn_barrier_algorithm a)
{
    return (unsigned)a < DN_BARRIER_ALGORITHMS ? names[a] : "?";
}

int dn_barrier_algorithm_parse(const char *name)
{
    for (unsigned i = 0; name && i < DN_BARRIER_ALGORITHMS; i++) {
        if (!strcmp(name, names[i])) {
            return (int)i;
        }
    }
    return -1;
}

void dn_barrier_config_default(dn_node *n, struct dn_barrier_config *cfg)
{
    const char *env = getenv("DIMMNET_NODES");
    unsigned nodes = env ? (unsigned)strtoul(env, NULL, 10) : 0;

    memset(cfg, 0, sizeof(*cfg));
    if (nodes == 0 || nodes > DN1_BAR_MAX_NODE) {
        nodes = n ? dn_node_id(n) + 1 : 1;
    }
    cfg->nmembers = nodes;
    for (unsigned i = 0; i < nodes; i++) {
        cfg->members[i] = (uint16_t)i;
    }
    cfg->root = 0;
    cfg->mcast_group = 0;
    cfg->algorithm = DN_BARRIER_AUTO;
    cfg->auto_trials = 4;
    cfg->resend_us = 0;          /* chosen by clock: see dn_barrier_create */
    cfg->timeout_ms = 60000;
}

static int check_config(dn_node *n, const struct dn_barrier_config *c,
                        unsigned *rank, unsigned *root_rank)
{
    int have_me = 0, have_root = 0;

    if (c->id >= DN_BARRIER_MAX || c->nmembers < 1 || c->nmembers > DN1_BAR_MAX_NODE ||
        (unsigned)c->algorithm >= DN_BARRIER_ALGORITHMS || c->timeout_ms <= 0 ||
        c->mcast_group >= (int)DN1_MCAST_GROUPS ||
        (c->algorithm == DN_BARRIER_AUTO && (c->auto_trials < 1 || c->auto_trials > 1000))) {
        return DN_EINVAL;
    }
    if (c->mcast_group < 0 && (c->algorithm == DN_BARRIER_FIRMWARE_MCAST ||
                               c->algorithm == DN_BARRIER_HOST_MCAST ||
                               c->algorithm == DN_BARRIER_FIRMWARE_PAPER_MCAST)) {
        return DN_EINVAL;   /* no switch group to release through */
    }
    for (unsigned i = 0; i < c->nmembers; i++) {
        if (c->members[i] >= DN1_BAR_MAX_NODE || (i && c->members[i] <= c->members[i - 1])) {
            return DN_EINVAL;   /* node ids < 64, ascending, each once */
        }
        if (c->members[i] == dn_node_id(n)) {
            *rank = i;
            have_me = 1;
        }
        if (c->members[i] == c->root) {
            *root_rank = i;
            have_root = 1;
        }
    }
    return have_me && have_root ? DN_OK : DN_EINVAL;
}

int dn_barrier_create(dn_node *n, const struct dn_barrier_config *cfg, dn_barrier **out)
{
    unsigned rank = 0, root_rank = 0;

    if (!n || !cfg || !out || n->port) {
        return DN_EINVAL;       /* host ports above 0: one-sided only */
    }
    int rc = check_config(n, cfg, &rank, &root_rank);
    if (rc != DN_OK) {
        return rc;
    }
    if (n->barriers[cfg->id]) {
        return DN_EBUSY;
    }
    struct dn_barrier *b = calloc(1, sizeof(*b));
    if (!b) {
        return DN_ENOMEM;
    }
    b->n = n;
    b->cfg = *cfg;
    b->rank = rank;
    b->root_rank = root_rank;
    b->llcm = DN_BARRIER_LLCM_OFF + BAR_BLOCK_SIZE * cfg->id;
    b->channel = BAR_CHANNEL_BASE + cfg->id;
    b->fw_mode = -1;
    n->barrier_created[cfg->id]++;
    /* Resend after a wait well above the slowest normal barrier: spurious
     * resends cost traffic, never correctness. */
    uint64_t us = cfg->resend_us ? cfg->resend_us : (n->timed ? 2000 : 5000);
    b->resend_ns = us * 1000u;
    b->resend_cap_ns = b->resend_ns * 64u;
    if (cfg->algorithm == DN_BARRIER_AUTO) {
        b->cand[b->ncand++] = DN_BARRIER_FIRMWARE;
        if (cfg->mcast_group >= 0) {
            b->cand[b->ncand++] = DN_BARRIER_FIRMWARE_MCAST;
        }
        b->cand[b->ncand++] = DN_BARRIER_HOST;
        if (cfg->mcast_group >= 0) {
            b->cand[b->ncand++] = DN_BARRIER_HOST_MCAST;
        }
    }
    b->current = cfg->algorithm;
    /* The object's incarnation: the root takes it, the others ask. The
     * paper's barrier is set up at the root's first wait: a set-up
     * packet needs the network, and with host sync no board moves while
     * the members are still on their way (a rendezvous after create). */
    if ((rc = bar_join_start(b)) != DN_OK ||
        (rank == root_rank && !bar_is_paper(cfg->algorithm) && (rc = bar_fw_setup(b)) != DN_OK)) {
        free(b);
        return rc;
    }
    n->barriers[cfg->id] = b;
    *out = b;
    return DN_OK;
}

static void publish_report(struct dn_barrier *b);

void dn_barrier_destroy(dn_barrier *b)
{
    if (!b) {
        return;
    }
    if (b->ch_open) {
        dn_aotf_close(b->n, b->channel);
    }
    publish_report(b);          /* its last state, for dnctl */
    b->n->barriers[b->cfg.id] = NULL;
    free(b);
}

void dn_barrier_fini(dn_node *n)
{
    for (unsigned i = 0; i < DN_BARRIER_MAX; i++) {
        dn_barrier_destroy(n->barriers[i]);
    }
}

uint32_t bar_tag(const struct dn_barrier *b, uint32_t epoch)
{
    return DN_BAR_TAG_BIT | b->cfg.id << 24 | (epoch & 0xffffffu);
}

/* Point the barrier's AOTF channel at (type, dst, raddr) if it is not. */
static int channel(struct dn_barrier *b, uint8_t type, unsigned dst, uint64_t raddr)
{
    if (b->ch_open && b->ch_type == type && b->ch_dst == dst && b->ch_raddr == raddr) {
        return DN_OK;
    }
    int rc = dn_aotf_open(b->n, b->channel, type, 0, dst, raddr, 8);
    if (rc == DN_OK) {
        b->ch_open = 1;
        b->ch_type = type;
        b->ch_dst = (uint16_t)dst;
        b->ch_raddr = raddr;
    }
    return rc;
}

static int store(struct dn_barrier *b, unsigned size, uint64_t value, uint32_t epoch)
{
    return dn_hb_call(b->n, DN1_HB_AOTF_STORE, DN1_AOTF_ARG0(b->channel, size, 0),
                      value, bar_tag(b, epoch), NULL);
}

int bar_store_word(struct dn_barrier *b, unsigned dst, uint32_t off, uint32_t epoch,
                   uint32_t value)
{
    int rc = channel(b, DN1_TYPE_PUSH, dst, DN1_RADDR_LLCM + b->llcm + off);
    return rc != DN_OK ? rc : store(b, 8, (uint64_t)value << 32 | epoch, epoch);
}

int bar_store_counter(struct dn_barrier *b, uint32_t epoch)
{
    int rc = channel(b, DN1_TYPE_BARRIER, b->cfg.members[b->root_rank],
                     DN1_BAR_RADDR(b->cfg.id));
    return rc != DN_OK ? rc : store(b, 4, epoch, epoch);
}

int bar_store_join(struct dn_barrier *b, uint32_t off, uint32_t join)
{
    int rc = channel(b, DN1_TYPE_PUSH, b->cfg.members[b->root_rank],
                     DN1_RADDR_LLCM + b->llcm + off);
    return rc != DN_OK ? rc : store(b, 4, join, 0);
}

/* The paper's step 1: one AOTF store of type BARRIER_PAPER to the root's
 * counter (the payload is not read; the epoch only tags the packet). */
int bar_store_paper(struct dn_barrier *b, uint32_t epoch)
{
    int rc = channel(b, DN1_TYPE_BARRIER_PAPER, b->cfg.members[b->root_rank],
                     DN1_BARP_RADDR(b->cfg.id));
    return rc != DN_OK ? rc : store(b, 4, epoch, epoch);
}

uint64_t bar_word(struct dn_barrier *b, uint32_t off)
{
    dn_host_charge(b->n, DN_HOST_LOAD, 1);   /* one uncached load */
    return __atomic_load_n((uint64_t *)(b->n->llcm + b->llcm + off), __ATOMIC_ACQUIRE);
}

/*
 * Everything this member may owe another one that is still waiting: the
 * latest word of every dissemination round (a newer epoch serves an older
 * wait too), the root's last multicast release, and, inside a call, this
 * member's arrival. Packets are idempotent (epochs), so resending is safe.
 */
static void resend_rounds(struct dn_barrier *b, uint32_t base, const uint64_t *last,
                          unsigned sent)
{
    for (unsigned k = 0; k < sent; k++) {
        bar_store_word(b, b->cfg.members[(b->rank + (1u << k)) % b->cfg.nmembers],
                       base + 8 * k, (uint32_t)last[k], (uint32_t)(last[k] >> 32));
    }
}

void bar_resend(struct dn_barrier *b)
{
    bar_join_resend(b);
    if (bar_is_paper(b->cfg.algorithm)) {
        return;   /* the paper's barrier has nothing to resend: no epochs */
    }
    resend_rounds(b, BAR_ROUNDS, b->dis_last, b->dis_sent);
    resend_rounds(b, BAR_REDUCE, b->red_last, b->red_sent);
    if (b->cen_released) {
        bar_store_word(b, DN1_MCAST_BASE + (unsigned)b->cfg.mcast_group, BAR_RELEASE,
                       b->cen_released, 0);
    }
    if (b->in_cen && b->rank != b->root_rank) {
        bar_store_word(b, b->cfg.members[b->root_rank], BAR_ARRIVE + 8 * b->rank,
                       b->cen_epoch, 0);
    }
    if (b->in_fw) {
        bar_store_counter(b, b->fw_epoch);
    }
    b->resends++;
}

/* A member waiting in one barrier may be what another member stuck in a
 * different barrier of this node waits for: resend them all. */
static void resend_all(dn_node *n)
{
    for (unsigned i = 0; i < DN_BARRIER_MAX; i++) {
        if (n->barriers[i]) {
            bar_resend(n->barriers[i]);
        }
    }
}

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Now, in the clock the barrier's times and resends use: the board's in
 * modeled time (--timing, --deterministic), so that a board running slower
 * than the wall clock never makes a member resend early. */
static uint64_t now_ns(struct dn_barrier *b)
{
    return b->n->timed ? dn_msg_now_ns(b->n) : wall_ns();
}

/* One turn of a polling loop; returns now. */
static int poll_turn(struct dn_barrier *b, uint64_t *now)
{
    if (b->n->host_sync) {
        return dn_sync_turn(b->n, now);   /* the words it polled: bar_word */
    }
    sched_yield();
    *now = now_ns(b);
    return DN_OK;
}

/* Start @t at its first turn; once it is due, resend and double it. */
static void timer_turn(struct dn_barrier *b, struct bar_timer *t, uint64_t now)
{
    if (t->next == 0) {
        t->step = b->resend_ns;
    } else if (now >= t->next) {
        resend_all(b->n);
        t->step = t->step * 2 > b->resend_cap_ns ? b->resend_cap_ns : t->step * 2;
    } else {
        return;
    }
    t->next = now + t->step;
}

int dn_barrier_progress(dn_barrier *b)
{
    uint64_t now;

    if (!b) {
        return DN_EINVAL;
    }
    dn_cq_drain(b->n);
    int rc = poll_turn(b, &now);
    if (rc == DN_OK) {
        timer_turn(b, &b->idle, now);
    }
    return rc;
}

int bar_wait(struct dn_barrier *b, int (*done)(struct dn_barrier *, void *), void *arg)
{
    dn_node *n = b->n;
    int64_t give_up = dn_now_ms() + b->cfg.timeout_ms;
    struct bar_timer t = { 0, 0 };

    for (;;) {
        if (b->answering) {
            bar_join_poll(b);
        }
        if (done(b, arg)) {
            return DN_OK;
        }
        dn_cq_drain(n);   /* NACKs for our packets (dn_barrier_on_record) */
        if (b->fatal) {
            return DN_ENACK;
        }
        uint64_t now;
        int rc = poll_turn(b, &now);
        if (rc != DN_OK) {
            return rc;
        }
        timer_turn(b, &t, now);
        if (dn_now_ms() >= give_up) {
            snprintf(b->text, sizeof(b->text),
                     "barrier %u (%s): no completion after %d ms, %llu resends, "
                     "last NACK reason %u", b->cfg.id, dn_barrier_algorithm_name(b->current),
                     b->cfg.timeout_ms, (unsigned long long)b->resends, b->last_nack);
            return DN_ETIMEDOUT;
        }
    }
}

void dn_barrier_on_record(dn_node *n, uint32_t tag, uint8_t kind, uint8_t reason,
                          uint16_t from)
{
    struct dn_barrier *b = n->barriers[(tag >> 24) & 0xfu];

    if (!b || kind != DN1_CQ_KIND_NACK) {
        return;
    }
    b->nacks++;
    b->last_nack = reason;
    if (bar_is_paper(b->cfg.algorithm)) {
        /* The paper's barrier refuses only what will never change (a
         * counter address it does not know, an old firmware). */
        if ((tag & 0xffffffu) == (b->paper_epoch & 0xffffffu)) {
            b->fatal = 1;
            snprintf(b->text, sizeof(b->text),
                     "barrier %u (%s): node %u refused this node's arrival (NACK reason %u)",
                     b->cfg.id, dn_barrier_algorithm_name(b->cfg.algorithm), from, reason);
        }
        return;
    }
    /* Not set up yet, or an epoch of an earlier set-up: the root's host
     * may still be on its way; the resend will find it ready. A member it
     * does not know, or a malformed packet, will never change. */
    if ((reason == DN1_NACK_BARRIER_MEMBER || reason == DN1_NACK_BAD_PATH ||
         reason == DN1_NACK_NO_HANDLER) && (tag & 0xffffffu) == (b->fw_epoch & 0xffffffu)) {
        b->fatal = 1;
        snprintf(b->text, sizeof(b->text),
                 "barrier %u: node %u refused this node's arrival (NACK reason %u)",
                 b->cfg.id, from, reason);
    }
}

/* One call of algorithm @a. */
static int run(struct dn_barrier *b, enum dn_barrier_algorithm a)
{
    switch (a) {
    case DN_BARRIER_FIRMWARE:
        return bar_fw_wait(b, 0);
    case DN_BARRIER_FIRMWARE_MCAST:
        return bar_fw_wait(b, 1);
    case DN_BARRIER_HOST:
        return bar_dissemination(b, 0, NULL, 0);
    case DN_BARRIER_HOST_MCAST:
        return bar_central_wait(b);
    case DN_BARRIER_FIRMWARE_PAPER:
    case DN_BARRIER_FIRMWARE_PAPER_MCAST:
        return bar_paper_wait(b);
    default:
        return DN_EINVAL;
    }
}

int dn_barrier_wait(dn_barrier *b)
{
    if (!b) {
        return DN_EINVAL;
    }
    if (b->fatal) {
        return DN_ENACK;
    }
    dn_self(b->n, DN_SELF_BARRIER);
    enum dn_barrier_algorithm a = b->current;
    uint64_t trial = 0;
    if (a == DN_BARRIER_AUTO) {
        trial = b->calls - (b->calls % b->cfg.auto_trials);
        a = b->cand[b->calls / b->cfg.auto_trials];
    }
    /* The first call: the object's incarnation from the root (a member),
     * the paper's set-up (its root); not counted in the call's time. */
    int rc = bar_join_wait(b);
    if (rc == DN_OK && !b->paper_ready && bar_is_paper(b->cfg.algorithm)) {
        rc = b->rank == b->root_rank ? bar_paper_setup(b) : DN_OK;
        b->paper_ready = rc == DN_OK;
        b->answering = b->paper_ready && b->rank == b->root_rank;
    }
    if (rc != DN_OK) {
        publish_report(b);
        return rc;
    }
    uint64_t t0 = now_ns(b);
    rc = run(b, a);
    uint64_t t = now_ns(b) - t0;
    b->idle.next = 0;   /* the idle resend timer starts over */
    if (rc != DN_OK) {
        publish_report(b);
        return rc;
    }
    /* Every member entered this call, so each had its answer. */
    b->answering = 0;
    b->last_ns = t;
    b->calls++;
    if (b->current == DN_BARRIER_AUTO) {
        b->stat[a].trials++;
        b->stat[a].own_ns += t;
        if (b->calls - trial == b->cfg.auto_trials) {
            /* The candidate's verdict: the slowest member's total (NBC-SIA:
             * not a majority vote), the same on every member. */
            uint32_t mine = b->stat[a].own_ns / 16 > 0xffffffffu ? 0xffffffffu
                                                                 : (uint32_t)(b->stat[a].own_ns / 16);
            uint32_t slowest = mine;
            rc = bar_dissemination(b, mine, &slowest, 1);
            if (rc != DN_OK) {
                publish_report(b);
                return rc;
            }
            b->stat[a].slowest_ns = (uint64_t)slowest * 16;
            if (b->calls == (uint64_t)b->ncand * b->cfg.auto_trials) {
                enum dn_barrier_algorithm best = b->cand[0];
                for (unsigned i = 1; i < b->ncand; i++) {
                    if (b->stat[b->cand[i]].slowest_ns < b->stat[best].slowest_ns) {
                        best = b->cand[i];
                    }
                }
                b->current = best;
            }
            publish_report(b);      /* a candidate's verdict */
        }
    }
    /* The report costs the host uncached stores: now and then, not at
     * every call (and on errors, verdicts and destroy). */
    if ((b->calls & (b->calls - 1)) == 0 || b->calls % 256 == 0) {
        publish_report(b);
    }
    return DN_OK;
}

static void fill_report(const struct dn_barrier *b, struct dn_barrier_report *r)
{
    memset(r, 0, sizeof(*r));
    r->id = b->cfg.id;
    r->algorithm = b->current;
    r->modeled = b->n->timed;    /* the board's clock */
    r->calls = b->calls;
    r->resends = b->resends;
    r->nacks = b->nacks;
    r->last_ns = b->last_ns;
    for (unsigned i = 0; i < DN_BARRIER_ALGORITHMS; i++) {
        r->candidate[i].trials = b->stat[i].trials;
        r->candidate[i].own_ns = b->stat[i].own_ns;
        r->candidate[i].slowest_ns = b->stat[i].slowest_ns;
    }
    snprintf(r->text, sizeof(r->text), "%s", b->text);
}

int dn_barrier_report(dn_barrier *b, struct dn_barrier_report *r)
{
    if (!b || !r) {
        return DN_EINVAL;
    }
    fill_report(b, r);
    return DN_OK;
}

/* The report in LLCM (BAR_REPORT), little-endian words, for other
 * processes (dnctl): magic, id, algorithm, modeled, calls, resends, nacks,
 * last_ns, then per algorithm trials, own_ns, slowest_ns. */
static void publish_report(struct dn_barrier *b)
{
    struct dn_barrier_report r;
    uint8_t *p = b->n->llcm + b->llcm + BAR_REPORT;

    fill_report(b, &r);
    dn_put_le(p + 4, r.id, 4);
    dn_put_le(p + 8, r.algorithm, 4);
    dn_put_le(p + 12, (uint64_t)r.modeled, 4);
    dn_put_le(p + 16, r.calls, 8);
    dn_put_le(p + 24, r.resends, 8);
    dn_put_le(p + 32, r.nacks, 8);
    dn_put_le(p + 40, r.last_ns, 8);
    for (unsigned i = 0; i < DN_BARRIER_ALGORITHMS; i++) {
        uint8_t *c = p + 48 + 24 * i;
        dn_put_le(c, r.candidate[i].trials, 8);
        dn_put_le(c + 8, r.candidate[i].own_ns, 8);
        dn_put_le(c + 16, r.candidate[i].slowest_ns, 8);
    }
    dn_put_le(p, BAR_REPORT_MAGIC, 4);
    dn_host_charge(b->n, DN_HOST_STORE, (48 + 24 * DN_BARRIER_ALGORITHMS) / 8);
}

int dn_barrier_report_read(dn_node *n, unsigned id, struct dn_barrier_report *r)
{
    if (!n || !r || id >= DN_BARRIER_MAX) {
        return DN_EINVAL;
    }
    const uint8_t *p = n->llcm + DN_BARRIER_LLCM_OFF + BAR_BLOCK_SIZE * id + BAR_REPORT;
    if (dn_get_le(p, 4) != BAR_REPORT_MAGIC) {
        return DN_EINVAL;
    }
    memset(r, 0, sizeof(*r));
    r->id = (unsigned)dn_get_le(p + 4, 4);
    r->algorithm = (enum dn_barrier_algorithm)dn_get_le(p + 8, 4);
    r->modeled = (int)dn_get_le(p + 12, 4);
    r->calls = dn_get_le(p + 16, 8);
    r->resends = dn_get_le(p + 24, 8);
    r->nacks = dn_get_le(p + 32, 8);
    r->last_ns = dn_get_le(p + 40, 8);
    for (unsigned i = 0; i < DN_BARRIER_ALGORITHMS; i++) {
        const uint8_t *c = p + 48 + 24 * i;
        r->candidate[i].trials = (uint32_t)dn_get_le(c, 8);
        r->candidate[i].own_ns = dn_get_le(c + 8, 8);
        r->candidate[i].slowest_ns = dn_get_le(c + 16, 8);
    }
    return DN_OK;
}
