/*
 * Communicators of the collectives: the first one of a job (members join
 * rank 0, which gives out the incarnation), splits of a communicator
 * (agreed by an allgather over it), freeing; and the calls that start
 * collectives, checking their arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll.h"

void dn_coll_config_default(dn_node *n, struct dn_coll_config *cfg)
{
    const char *env = getenv("DIMMNET_NODES");
    unsigned nodes = env ? (unsigned)strtoul(env, NULL, 10) : 1, ports = n ? n->ports : 1;

    memset(cfg, 0, sizeof(*cfg));
    if (nodes < 1) {
        nodes = 1;
    }
    for (unsigned node = 0; node < nodes; node++) {
        for (unsigned p = 0; p < ports && cfg->nmembers < DN_COLL_MAX_MEMBERS; p++) {
            cfg->members[cfg->nmembers++] = (uint16_t)(node | p << 12);
        }
    }
    cfg->mcast_group = ports == 1 ? 0 : -1;
    cfg->trials = 6;
    cfg->timeout_ms = 60000;
}

static const char *const kind_names[DN_COLL_KINDS] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "reduce_scatter",
};

const char *dn_coll_kind_name(enum dn_coll_kind k)
{
    return (unsigned)k < DN_COLL_KINDS ? kind_names[k] : NULL;
}

const char *const *dn_coll_impls(enum dn_coll_kind k)
{
    static const char *names[DN_COLL_KINDS][COLL_MAX_IMPLS + 1];

    if ((unsigned)k >= DN_COLL_KINDS) {
        return NULL;
    }
    for (unsigned i = 0; i < COLL_MAX_IMPLS && coll_impls[k][i]; i++) {
        names[k][i] = coll_impls[k][i]->name;
    }
    return names[k];
}

int dn_coll_force(dn_coll_comm *c, enum dn_coll_kind k, const char *impl)
{
    if (!c || (unsigned)k >= DN_COLL_KINDS || !impl) {
        return DN_EINVAL;
    }
    if (!strcmp(impl, "auto")) {
        c->forced[k] = -1;
        return DN_OK;
    }
    for (unsigned i = 0; i < COLL_MAX_IMPLS && coll_impls[k][i]; i++) {
        if (!strcmp(coll_impls[k][i]->name, impl)) {
            /* Can it run here at all (some calls it may still leave to
             * the first: coll_select)? */
            if (!coll_impl_ok(c, k, i, DN_COLL_INT64, DN_COLL_SUM, 8)) {
                return DN_EINVAL;
            }
            c->forced[k] = (int)i;
            return DN_OK;
        }
    }
    return DN_EINVAL;
}

/* DIMMNET_COLL=kind:impl,...: forced choices (an unknown one is an error). */
static int force_from_env(struct dn_coll_comm *c)
{
    const char *env = getenv("DIMMNET_COLL");
    char buf[256];

    if (!env || !*env) {
        return DN_OK;
    }
    snprintf(buf, sizeof(buf), "%s", env);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        unsigned k;
        if (!colon) {
            return DN_EINVAL;
        }
        *colon = 0;
        for (k = 0; k < DN_COLL_KINDS && strcmp(kind_names[k], tok); k++) {
        }
        if (k == DN_COLL_KINDS || dn_coll_force(c, k, colon + 1) != DN_OK) {
            fprintf(stderr, "dimmnet1: DIMMNET_COLL: '%s:%s' is no implementation this "
                    "communicator can run\n", tok, colon + 1);
            return DN_EINVAL;
        }
    }
    return DN_OK;
}

void dn_coll_set_idle(dn_node *n, int (*idle)(void *arg), void *arg)
{
    if (n) {
        n->coll_idle = idle;
        n->coll_idle_arg = arg;
    }
}

int coll_idle(dn_node *n)
{
    return n->coll_idle ? n->coll_idle(n->coll_idle_arg) : dn_idle(n);
}

/* Small messages by AOTF (coll.h): AOTF is host port 0's, so only where
 * every member is a port 0 (one port a node); DIMMNET_COLL_AOTF=0 sends
 * them as every other message (a comparison, or a fallback). */
static int aotf_ok(const struct dn_coll_comm *c)
{
    const char *env = getenv("DIMMNET_COLL_AOTF");

    return c->ports == 1 && !(env && strcmp(env, "0") == 0);
}

static struct dn_coll_comm *comm_new(dn_node *n, const struct dn_coll_config *cfg)
{
    struct dn_coll_comm *c = calloc(1, sizeof(*c));
    if (!c) {
        return NULL;
    }
    c->n = n;
    c->cfg = *cfg;
    c->size = cfg->nmembers;
    c->ports = n->ports ? n->ports : 1;
    coll_layout(c->ports, &c->lay);
    uint64_t us = cfg->resend_us ? cfg->resend_us : (n->timed ? 2000 : 5000);
    c->resend_ns = us * 1000u;
    c->resend_cap_ns = c->resend_ns * 64u;
    for (unsigned k = 0; k < DN_COLL_KINDS; k++) {
        c->forced[k] = -1;
    }
    for (unsigned r = 0; r < c->size; r++) {
        c->peer[r].addr = cfg->members[r];
    }
    const char *chk = getenv("DIMMNET_COLL_CHECK");
    c->check = chk && *chk && strcmp(chk, "0");
    return c;
}

static int config_ok(dn_node *n, const struct dn_coll_config *cfg, unsigned *rank)
{
    uint16_t me = (uint16_t)(n->node_id | n->port << 12);
    unsigned found = 0;

    if (cfg->nmembers < 1 || cfg->nmembers > DN_COLL_MAX_MEMBERS || cfg->trials < 1 ||
        cfg->trials > 1000 || cfg->timeout_ms <= 0) {
        return DN_EINVAL;
    }
    for (unsigned i = 0; i < cfg->nmembers; i++) {
        if ((cfg->members[i] >> 12) >= (n->ports ? n->ports : 1) ||
            (cfg->members[i] & 0xfffu) >= 64u) {
            return DN_EINVAL;
        }
        for (unsigned j = 0; j < i; j++) {
            if (cfg->members[j] == cfg->members[i]) {
                return DN_EINVAL;
            }
        }
        if (cfg->members[i] == me) {
            *rank = i;
            found++;
        }
    }
    return found == 1 ? DN_OK : DN_EINVAL;
}

/* A number this port's processes never gave before: one a communicator
 * made or joined, counted in the port's share of receive memory (the
 * board keeps it across processes). */
static uint32_t take_nonce(dn_node *n, unsigned ports)
{
    uint64_t base = coll_share_off(n->port, ports);
    uint32_t nonce = (uint32_t)coll_ld64(n, base + COLL_NONCE) + 1u;

    if (!nonce) {
        nonce = 1;
    }
    coll_st64(n, base + COLL_NONCE, nonce);
    return nonce;
}

/* The join: every member tells rank 0 its nonce (a number this port's
 * processes never gave before) until rank 0 answers it with the
 * incarnation, its own nonce. */
static int join(struct dn_coll_comm *c)
{
    dn_node *n = c->n;
    uint64_t base = coll_share_off(n->port, c->ports);
    uint32_t nonce = take_nonce(n, c->ports);
    int64_t deadline = dn_now_ms() + c->cfg.timeout_ms;

    if (c->rank == 0) {
        unsigned left = c->size - 1;
        c->gen = nonce;
        for (unsigned r = 1; r < c->size; r++) {
            coll_st64(n, base + COLL_JOIN + 8u * r, 0);
        }
        while (left) {
            for (unsigned r = 1; r < c->size; r++) {
                uint64_t j = coll_ld64(n, base + COLL_JOIN + 8u * r);
                /* Every ask (a new attempt number) is answered: the answer
                 * may be what was lost. */
                if (j && j != c->joined[r]) {
                    left -= c->joined[r] == 0;
                    c->joined[r] = j;
                    coll_word_put(c, c->peer[r].addr,
                                  coll_share_off(c->peer[r].addr >> 12, c->ports) + COLL_WELCOME,
                                  (uint64_t)(uint32_t)j << 32 | c->gen);
                }
            }
            if (left && dn_now_ms() > deadline) {
                return DN_ETIMEDOUT;
            }
            if (left) {
                coll_idle(n);
            }
        }
        return DN_OK;
    }
    coll_st64(n, base + COLL_WELCOME, 0);
    uint64_t root_join = coll_share_off(c->peer[0].addr >> 12, c->ports) + COLL_JOIN + 8u * c->rank;
    uint64_t next = 0, attempt = 0;
    for (;;) {
        uint64_t now = coll_now(c);
        if (now >= next) {
            coll_word_put(c, c->peer[0].addr, root_join, ++attempt << 32 | nonce);
            next = now + c->resend_ns;
        }
        uint64_t w = coll_ld64(n, base + COLL_WELCOME);
        if ((uint32_t)(w >> 32) == nonce) {
            c->gen = (uint32_t)w;
            return DN_OK;
        }
        if (dn_now_ms() > deadline) {
            return DN_ETIMEDOUT;
        }
        coll_idle(n);
    }
}

static void comm_open(struct dn_coll_comm *c)
{
    c->n->coll_slots |= (uint8_t)(1u << c->slot);
    c->n->coll_comm[c->slot] = c;
    coll_fw_open(c);
    c->freed = 0;
    c->pushed = 0;
    c->push_to = 0;
    coll_publish_freed(c);
}

int dn_coll_comm_create(dn_node *n, const struct dn_coll_config *cfg, dn_coll_comm **out)
{
    unsigned rank = 0;
    int rc;

    if (!n || !cfg || !out) {
        return DN_EINVAL;
    }
    *out = NULL;
    if ((rc = config_ok(n, cfg, &rank)) != DN_OK) {
        return rc;
    }
    if (n->coll_slots & 1u) {
        return DN_EBUSY;        /* a first communicator is open in this process */
    }
    struct dn_coll_comm *c = comm_new(n, cfg);
    if (!c) {
        return DN_ENOMEM;
    }
    c->rank = rank;
    c->slot = 0;
    c->first = 1;
    c->mcast_ok = cfg->mcast_group >= 0 && c->ports == 1;
    c->aotf_ok = aotf_ok(c);
    if ((rc = force_from_env(c)) != DN_OK || (c->size > 1 && (rc = join(c)) != DN_OK)) {
        free(c);
        return rc;
    }
    if (c->size == 1) {
        c->gen = 1;
    }
    comm_open(c);
    *out = c;
    return DN_OK;
}

int dn_coll_join_prepare(dn_node *n, struct dn_coll_join *mine)
{
    if (!n || !mine) {
        return DN_EINVAL;
    }
    memset(mine, 0, sizeof(*mine));
    mine->addr = (uint16_t)(n->node_id | n->port << 12);
    mine->slot = DN_COLL_NO_SLOT;
    mine->nonce = take_nonce(n, n->ports ? n->ports : 1);
    /* Slot 0 last: dn_coll_comm_create wants it. */
    for (unsigned s = 1; s <= DN_COLL_COMMS; s++) {
        unsigned slot = s % DN_COLL_COMMS;
        if (!(n->coll_slots & (1u << slot))) {
            n->coll_slots |= (uint8_t)(1u << slot);
            mine->slot = (uint8_t)slot;
            return DN_OK;
        }
    }
    return DN_ENOMEM;
}

void dn_coll_join_cancel(dn_node *n, const struct dn_coll_join *mine)
{
    if (n && mine && mine->slot < DN_COLL_COMMS) {
        n->coll_slots &= (uint8_t)~(1u << mine->slot);
    }
}

int dn_coll_comm_create_joined(dn_node *n, const struct dn_coll_config *cfg,
                               const struct dn_coll_join *all, dn_coll_comm **out)
{
    unsigned rank = 0;
    int rc;

    if (!n || !cfg || !all || !out) {
        return DN_EINVAL;
    }
    *out = NULL;
    if ((rc = config_ok(n, cfg, &rank)) != DN_OK) {
        /* Our record's slot back: this process is found by its address. */
        for (unsigned i = 0; i < cfg->nmembers && i < DN_COLL_MAX_MEMBERS; i++) {
            if (all[i].addr == (uint16_t)(n->node_id | n->port << 12)) {
                dn_coll_join_cancel(n, &all[i]);
                break;
            }
        }
        return rc;
    }
    unsigned full = 0;
    for (unsigned i = 0; i < cfg->nmembers; i++) {
        if (all[i].addr != cfg->members[i]) {
            return DN_EINVAL;   /* records not in rank order: the layer's bug */
        }
        full |= all[i].slot >= DN_COLL_COMMS;
    }
    if (full) {
        dn_coll_join_cancel(n, &all[rank]);
        return DN_ENOMEM;       /* a member has no free area: every member says so */
    }
    struct dn_coll_comm *c = comm_new(n, cfg);
    if (!c) {
        dn_coll_join_cancel(n, &all[rank]);
        return DN_ENOMEM;
    }
    c->rank = rank;
    c->slot = all[rank].slot;
    /* A multicast write lands at one offset on every member: only when
     * every member's area is in the same slot (the records are the same
     * on every member, so is this). */
    c->mcast_ok = cfg->mcast_group >= 0 && c->ports == 1;
    for (unsigned i = 0; i < c->size; i++) {
        c->peer[i].slot = all[i].slot;
        c->mcast_ok &= all[i].slot == all[0].slot;
    }
    c->aotf_ok = aotf_ok(c);
    /* Rank 0's nonce is new for its port; with the port mixed in, new
     * for every slot a member may have used before (its stale frames
     * carry another incarnation). */
    uint32_t g = all[0].nonce * 0x9e3779b1u ^ (uint32_t)all[0].addr * 0x85ebca6bu;
    c->gen = g ? g : 1;
    if ((rc = force_from_env(c)) != DN_OK) {
        dn_coll_join_cancel(n, &all[rank]);
        free(c);
        return rc;
    }
    comm_open(c);
    *out = c;
    return DN_OK;
}

int dn_coll_comm_split(dn_coll_comm *parent, int color, int key, dn_coll_comm **out)
{
    if (!parent || !out) {
        return DN_EINVAL;
    }
    *out = NULL;
    dn_node *n = parent->n;
    int slot = -1;
    if (color >= 0) {
        for (unsigned s = 1; s < DN_COLL_COMMS; s++) {
            if (!(n->coll_slots & (1u << s))) {
                slot = (int)s;
                break;
            }
        }
    }
    int32_t mine[3] = { color < 0 ? -1 : color, key, slot };
    int32_t *all = malloc(sizeof(mine) * parent->size);
    if (!all) {
        return DN_ENOMEM;
    }
    int rc = dn_coll_allgather(parent, mine, all, 3, DN_COLL_INT32);
    if (rc != DN_OK || color < 0) {
        free(all);
        return rc;
    }
    /* Members of my color, by (key, parent rank). */
    struct dn_coll_config cfg = parent->cfg;
    unsigned order[DN_COLL_MAX_MEMBERS], m = 0;
    int full = 0;
    for (unsigned r = 0; r < parent->size; r++) {
        if (all[3 * r] != color) {
            continue;
        }
        full |= all[3 * r + 2] < 0;
        unsigned i = m++;
        while (i > 0 && all[3 * order[i - 1] + 1] > all[3 * r + 1]) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = r;
    }
    if (full) {
        free(all);
        return DN_ENOMEM;       /* a member has no free area: every member of the color says so */
    }
    cfg.nmembers = m;
    cfg.mcast_group = -1;
    struct dn_coll_comm *c = NULL;
    for (unsigned i = 0; i < m; i++) {
        cfg.members[i] = parent->peer[order[i]].addr;
    }
    c = comm_new(n, &cfg);
    if (!c) {
        free(all);
        return DN_ENOMEM;
    }
    for (unsigned i = 0; i < m; i++) {
        c->peer[i].slot = (uint8_t)all[3 * order[i] + 2];
        if (order[i] == parent->rank) {
            c->rank = i;
        }
    }
    free(all);
    c->slot = (unsigned)slot;
    memcpy(c->forced, parent->forced, sizeof(c->forced));
    /* The same on every member, and unlike any other split's. */
    uint32_t g = parent->gen * 0x9e3779b1u ^ parent->next_epoch * 0x85ebca6bu ^
                 (uint32_t)color * 0xc2b2ae35u;
    c->gen = g ? g : 1;
    comm_open(c);
    *out = c;
    return DN_OK;
}

void dn_coll_comm_free(dn_coll_comm *c)
{
    if (!c) {
        return;
    }
    int64_t deadline = dn_now_ms() + c->cfg.timeout_ms;
    /* What is in flight ends first; then every member must have freed
     * every epoch (so nobody can still ask this process to write again). */
    while (!c->broken && (c->in_flight || c->queue) && dn_now_ms() < deadline) {
        coll_progress(c);
        coll_idle(c->n);
    }
    for (unsigned r = 0; !c->broken && r < c->size && dn_now_ms() < deadline;) {
        if (coll_credit(c, r, c->next_epoch + DN_COLL_INFLIGHT - 1)) {
            r++;
            continue;
        }
        coll_serve(c, coll_now(c));
        coll_idle(c->n);
    }
    const char *rep = getenv("DIMMNET_COLL_REPORT");
    if (rep && *rep && strcmp(rep, "0")) {
        dn_coll_report(c, stderr);
    }
    for (unsigned i = 0; i < DN_COLL_INFLIGHT; i++) {
        coll_epoch_free(c->ep[i]);
    }
    c->n->coll_slots &= (uint8_t)~(1u << c->slot);
    c->n->coll_comm[c->slot] = NULL;
    free(c);
}

unsigned dn_coll_rank(const dn_coll_comm *c)
{
    return c ? c->rank : 0;
}

unsigned dn_coll_size(const dn_coll_comm *c)
{
    return c ? c->size : 0;
}

int dn_coll_stats(const dn_coll_comm *c, struct dn_coll_stats *st)
{
    if (!c || !st) {
        return DN_EINVAL;
    }
    *st = c->st;
    return DN_OK;
}

/* ---- starting collectives ---- */

/*
 * DIMMNET_COLL_CHECK=1: before a call starts, every member learns whether
 * all made the same call (kind, type, op, root, count), as MPI libraries'
 * collective checkers do: one allreduce (MAX) of the call's signature and
 * of its complement, waited for here, so max == min. A mismatch is
 * DN_EINVAL on every member with a line on stderr; the collective starts
 * nowhere and the communicator goes on. Without it, members that disagree
 * wait for frames that never come: DN_ETIMEDOUT after timeout_ms.
 */
static int check_call(struct dn_coll_comm *c, unsigned kind, unsigned type, unsigned op,
                      unsigned root, size_t count)
{
    uint64_t sig = (uint64_t)kind << 60 | (uint64_t)type << 56 | (uint64_t)op << 52 |
                   (uint64_t)root << 44 | ((uint64_t)count & ((1ull << 44) - 1));
    uint64_t v[4] = { sig, ~sig, 0, 0 };
    struct dn_coll_req *rq = coll_max_req(&v[0], &v[2], 2);
    dn_coll_req *out;
    int rc;

    if (!rq) {
        return DN_ENOMEM;
    }
    rq->checking = 1;
    if ((rc = coll_start(c, rq, &out)) != DN_OK || (rc = dn_coll_wait(out)) != DN_OK) {
        return rc;
    }
    if (v[2] != ~v[3]) {
        fprintf(stderr, "dn_coll: rank %u of %u: the members' calls differ (this one: %s, "
                "type %s, op %s, root %u, count %zu): DN_EINVAL on every member\n",
                c->rank, c->size, dn_coll_kind_name((enum dn_coll_kind)kind),
                coll_type_name(type), op || kind == DN_COLL_REDUCE ||
                kind == DN_COLL_ALLREDUCE || kind == DN_COLL_REDUCE_SCATTER ?
                coll_op_name(op) : "-", root, count);
        return DN_EINVAL;
    }
    return DN_OK;
}

static int begin(dn_coll_comm *c, dn_coll_req **req, unsigned kind, const void *sbuf,
                 void *rbuf, size_t count, unsigned type, unsigned op, unsigned root)
{
    if (!c || !req) {
        return DN_EINVAL;
    }
    *req = NULL;
    int reduction = kind == DN_COLL_REDUCE || kind == DN_COLL_ALLREDUCE ||
                    kind == DN_COLL_REDUCE_SCATTER;
    if (kind != DN_COLL_BARRIER) {
        if (dn_coll_type_size(type) == 0 || (reduction && !coll_op_ok(type, op)) ||
            root >= c->size || (count && (!rbuf || !sbuf))) {
            return DN_EINVAL;
        }
        if (count > (SIZE_MAX / 2) / (dn_coll_type_size(type) * c->size)) {
            return DN_ERANGE;
        }
    }
    int rc;
    if (c->check && (rc = check_call(c, kind, type, reduction ? op : 0, root,
                                     kind == DN_COLL_BARRIER ? 0 : count)) != DN_OK) {
        return rc;
    }
    struct dn_coll_req *rq = calloc(1, sizeof(*rq));
    if (!rq) {
        return DN_ENOMEM;
    }
    rq->kind = (uint8_t)kind;
    rq->type = (uint8_t)type;
    rq->op = (uint8_t)(reduction ? op : 0);
    rq->root = root;
    rq->sbuf = sbuf;
    rq->rbuf = rbuf;
    rq->count = kind == DN_COLL_BARRIER ? 0 : count;
    rq->esize = dn_coll_type_size(type);
    return coll_start(c, rq, req);
}

int dn_coll_ibarrier(dn_coll_comm *c, dn_coll_req **req)
{
    return begin(c, req, DN_COLL_BARRIER, NULL, NULL, 0, DN_COLL_BYTE, 0, 0);
}

int dn_coll_ibcast(dn_coll_comm *c, void *buf, size_t count, enum dn_coll_type type,
                   unsigned root, dn_coll_req **req)
{
    return begin(c, req, DN_COLL_BCAST, buf, buf, count, type, 0, root);
}

int dn_coll_ireduce(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                    enum dn_coll_type type, enum dn_coll_op op, unsigned root,
                    dn_coll_req **req)
{
    /* Only the root's receive buffer is written: others may pass NULL. */
    static uint8_t none;
    if (c && c->rank != root && !rbuf) {
        rbuf = &none;
    }
    return begin(c, req, DN_COLL_REDUCE, sbuf, rbuf, count, type, op, root);
}

int dn_coll_iallreduce(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                       enum dn_coll_type type, enum dn_coll_op op, dn_coll_req **req)
{
    return begin(c, req, DN_COLL_ALLREDUCE, sbuf, rbuf, count, type, op, 0);
}

int dn_coll_iallgather(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                       enum dn_coll_type type, dn_coll_req **req)
{
    return begin(c, req, DN_COLL_ALLGATHER, sbuf, rbuf, count, type, 0, 0);
}

int dn_coll_ialltoall(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                      enum dn_coll_type type, dn_coll_req **req)
{
    return begin(c, req, DN_COLL_ALLTOALL, sbuf, rbuf, count, type, 0, 0);
}

int dn_coll_ireduce_scatter(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                            enum dn_coll_type type, enum dn_coll_op op, dn_coll_req **req)
{
    return begin(c, req, DN_COLL_REDUCE_SCATTER, sbuf, rbuf, count, type, op, 0);
}

#define BLOCKING(call) do { dn_coll_req *rq_; int rc_ = (call); \
        return rc_ != DN_OK ? rc_ : dn_coll_wait(rq_); } while (0)

int dn_coll_barrier(dn_coll_comm *c)
{
    BLOCKING(dn_coll_ibarrier(c, &rq_));
}

int dn_coll_bcast(dn_coll_comm *c, void *buf, size_t count, enum dn_coll_type type,
                  unsigned root)
{
    BLOCKING(dn_coll_ibcast(c, buf, count, type, root, &rq_));
}

int dn_coll_reduce(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                   enum dn_coll_type type, enum dn_coll_op op, unsigned root)
{
    BLOCKING(dn_coll_ireduce(c, sbuf, rbuf, count, type, op, root, &rq_));
}

int dn_coll_allreduce(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                      enum dn_coll_type type, enum dn_coll_op op)
{
    BLOCKING(dn_coll_iallreduce(c, sbuf, rbuf, count, type, op, &rq_));
}

int dn_coll_allgather(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                      enum dn_coll_type type)
{
    BLOCKING(dn_coll_iallgather(c, sbuf, rbuf, count, type, &rq_));
}

int dn_coll_alltoall(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                     enum dn_coll_type type)
{
    BLOCKING(dn_coll_ialltoall(c, sbuf, rbuf, count, type, &rq_));
}

int dn_coll_reduce_scatter(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                           enum dn_coll_type type, enum dn_coll_op op)
{
    BLOCKING(dn_coll_ireduce_scatter(c, sbuf, rbuf, count, type, op, &rq_));
}
