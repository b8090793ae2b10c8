/*
 * Sender-side matching (MPI-EMX, seed 000): a receive posted before its
 * message is advertised to its sender (RREQ), which matches its sends
 * against the receives it took, in posting order, and sends a match at
 * once as DIRECT under the receive's own shim tag (rid): the receiver has
 * already posted shim receives for it, the first part into a staging
 * buffer (header + up to DNF_EAGER bytes), the rest straight into the
 * user's buffer. No CTS round trip, no bounce, no unexpected copy.
 *
 * Consistency (which of two crossing requests wins): every FIRST carries
 * the sender's count of FIRSTs to that peer before it (seq) and the highest
 * RREQ id it had taken from the peer (seen); an RREQ carries the count of
 * FIRSTs the receiver had taken from the sender (expect). The sender takes
 * an RREQ only if expect equals its own count: no FIRST was in flight that
 * the receive could have matched at the receiver. The receiver learns the
 * sender's answer from the first FIRST with seen >= rid (taken iff its seq
 * == expect) or from the DIRECT itself; until then, FIRSTs sent before the
 * RREQ reached the sender (seen < rid) match the receive at the receiver as
 * usual, and the sender, finding expect behind, ignores the RREQ.
 *
 * Advertisements go by remote write into the sender's mailbox (dimmnet.h),
 * so the sender's firmware never serves them (as a message it would, in
 * the critical path). A receive of at most DNF_ZONE_MAX bytes is offered a
 * landing (a chunk up to DNF_LAND_MAX, else a zone): the sender writes
 * payload and trailer straight into the receiver's memory with one remote
 * write, which no firmware serves either; the receiver polls the
 * trailer's stamp, checks the payload's CRC and copies it out once. The
 * shim's message exchange carries everything else.
 *
 * Ordering (MPI's non-overtaking rule, receives in posting order): a
 * receive is advertised only if no earlier receive still pending here
 * could match that sender's messages (same kind, its source or any) and is
 * not already the sender's. So the sender, matching in posting order, never
 * gives a message to a later receive than the receiver would have.
 * Receives over DNF_ADV_MAX, with any source, or posted while the switch is
 * off (FI_DIMMNET_SENDER_MATCHING=0) are never advertised. An advertised
 * receive cannot be canceled (fi_cancel: -FI_EBUSY).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dimmnet.h"
#include "dimmnet1/packet_codec.h"

/* Resend timers: dimmnet_clock.c (the board's clock in modeled time). */
static uint64_t resend_us(const struct dnf_ep *ep, unsigned tries)
{
    return dnf_resend_us(ep->dom, tries);
}

static uint64_t now_us(const struct dnf_ep *ep)
{
    return dnf_now_us(ep->dom);
}

/* The host port of peer @node: which part of its board's receive memory
 * (mailboxes, landings) is its own (dimmnet.h, "Host ports"). */
static unsigned peer_port(const struct dnf_ep *ep, uint32_t node)
{
    return node % ep->dom->ports;
}

/* Our landing zone @z (of our port's dnf_zones). */
static size_t zone_base(const struct dnf_ep *ep, unsigned z)
{
    return dnf_zone_base(peer_port(ep, ep->dom->self), ep->dom->ports, z);
}

/* The end of our landing chunk (@land: slot + 1) of writer @node, or of
 * our landing zone (@zone: + 1): the stamp is its last 8 bytes. */
static uint8_t *land_end(const struct dnf_ep *ep, uint32_t node, unsigned land, unsigned zone)
{
    return zone ? ep->mem + zone_base(ep, zone - 1) + DNF_ZONE_SIZE
                : ep->land + ((size_t)node * DNF_MBOX_SLOTS + land) * DNF_LAND_CHUNK;
}

/* The key a landing is kept under at its sender (dimmnet.h, REWRITE). */
static unsigned land_key(unsigned land, unsigned zone)
{
    return zone ? DNF_MBOX_SLOTS + zone - 1 : land - 1;
}

int dnf_emx_enable(struct dnf_ep *ep)
{
    size_t size = 0;
    uint8_t *mem = dn_hostmem(ep->dom->node, &size);
    /* Our port's part of the board's mailboxes, landing chunks and zones:
     * a share of 64 / K writers (the whole with one port). */
    unsigned port = peer_port(ep, ep->dom->self), ports = ep->dom->ports;
    size_t writers = dn1_msg_share(ports);
    size_t bytes = writers * DNF_MBOX_SLOTS * sizeof(struct dnf_mbox);

    if (!mem || !writers || size < dnf_mbox_base(port, ports) + bytes) {
        return -FI_ENODEV;
    }
    ep->mbox = mem + dnf_mbox_base(port, ports);
    memset(ep->mbox, 0, bytes);   /* nothing from an earlier process is taken */
    /* A new session: what an earlier endpoint's peers wrote for it and the
     * network still holds fails its check here (dimmnet.h). The process's
     * incarnation (newer than any earlier process's on this node) and the
     * endpoints it enabled before: distinct from the dead job's, and the
     * same from run to run, so deterministic runs stay byte-identical. */
    static unsigned enabled;
    int inc = dn_msg_incarnation(ep->dom->node);

    ep->session = (uint16_t)((inc > 0 ? inc : 0) << 8 | (++enabled & 0xffu));
    ep->session = ep->session ? ep->session : 1;
    memset(ep->peer_sess, 0, sizeof(ep->peer_sess));
    ep->ping = (struct dnf_hdr){ .magic = DNF_MAGIC, .kind = DNF_K_PING, .sess = ep->session };
    bytes = writers * DNF_MBOX_SLOTS * DNF_LAND_CHUNK;
    if (size < dnf_land_base(port, ports) + bytes) {
        return -FI_ENODEV;
    }
    ep->land = mem + dnf_land_base(port, ports);
    memset(ep->land, 0, bytes);   /* no stamp of rid 0 is ever valid */
    if (size < dnf_zone_base(port, ports, dnf_zones(ports))) {
        return -FI_ENODEV;
    }
    ep->mem = mem;
    for (unsigned z = 0; z < dnf_zones(ports); z++) {   /* no earlier process's trailer */
        memset(mem + zone_base(ep, z) + DNF_ZONE_SIZE - sizeof(struct dnf_land), 0,
               sizeof(struct dnf_land));
    }
    if (ep->dom->self >= ep->dom->peers) {
        ep->sender_matching = 0;  /* no peer (dimmnet_domain.c): our writer ring is none */
    }
    return 0;
}

/* Our ring in the reader's port's mailboxes: we are writer ep->dom->self. */
static void mbox_write(struct dnf_ep *ep, struct dnf_mput *m)
{
    uint64_t slot = (uint64_t)ep->dom->self * DNF_MBOX_SLOTS + m->e.k % DNF_MBOX_SLOTS;
    uint64_t base = dnf_mbox_base(peer_port(ep, m->node), ep->dom->ports);

    if (m->tries++) {
        ep->stats.mbox_rewrites++;
    }
    m->sent_us = now_us(ep);
    if (dn_botf_put(ep->dom->node, dnf_peer_addr(ep->dom, m->node), base + slot * sizeof(m->e),
                    &m->e, sizeof(m->e), &m->x) != DN_OK) {
        m->sent_us = 0;           /* refused at once: again next turn */
    }
}

/* Advertise @h to @node: 0, or -1 when its mailbox has no free slot. */
static int mbox_post(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h)
{
    struct dnf_mput *m;

    /* Entries the peer has handled are free again. */
    while (ep->mbox_freed[node] != ep->mbox_k[node] &&
           ep->mbox_rid[node][ep->mbox_freed[node] % DNF_MBOX_SLOTS] <= ep->peer_seen[node]) {
        ep->mbox_freed[node]++;
    }
    if (ep->mbox_k[node] - ep->mbox_freed[node] >= DNF_MBOX_SLOTS) {
        ep->stats.mbox_full++;
        return -1;
    }
    if (!(m = calloc(1, sizeof(*m)))) {
        return -1;
    }
    m->node = node;
    m->e.k = ep->mbox_k[node]++;
    m->e.h = *h;
    m->e.h.magic = DNF_MAGIC;
    m->e.h.sess = ep->session;
    m->e.check = DNF_MBOX_STAMP(m->e.k, ep->peer_sess[node]);
    ep->mbox_rid[node][m->e.k % DNF_MBOX_SLOTS] = h->rid;
    m->next = ep->mput_head;
    ep->mput_head = m;
    mbox_write(ep, m);
    return 0;
}

void dnf_emx_progress(struct dnf_ep *ep)
{
    uint64_t now = 0;

    /* Ours, until ACKed; written again after a loss or a refusal. */
    for (struct dnf_mput **p = &ep->mput_head; *p;) {
        struct dnf_mput *m = *p;
        int rc = m->sent_us ? dn_wait(ep->dom->node, &m->x, 0) : DN_ETIMEDOUT;

        if (rc == DN_OK || (rc != DN_ETIMEDOUT && m->tries >= DNF_MBOX_TRIES)) {
            if (rc != DN_OK) {
                FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "advertisement %u to node %u lost: %s\n",
                        m->e.h.rid, m->node, dn_strerror(rc));
            }
            *p = m->next;
            free(m);
            continue;
        }
        if (!now) {
            now = now_us(ep);
        }
        if (rc != DN_ETIMEDOUT || !m->sent_us || now - m->sent_us >= resend_us(ep, m->tries)) {
            if (m->tries < DNF_MBOX_TRIES) {
                mbox_write(ep, m);
            }
        }
        p = &m->next;
    }
    /* Landings written again on a REWRITE: done with once answered (a lost
     * one is asked for again). */
    for (uint32_t node = 0; ep->keep_busy && node < DNF_NODES; node++) {
        for (unsigned k = 0; ep->keep[node] && k < DNF_KEEP_KEYS; k++) {
            struct dnf_tx *t = ep->keep[node][k];

            if (t && t->rewriting && dn_wait(ep->dom->node, &t->land_x, 0) != DN_ETIMEDOUT) {
                t->rewriting = 0;
                ep->keep_busy--;
            }
        }
    }
    /* Theirs, in each writer's order. */
    for (uint32_t node = 0; node < ep->dom->peers && node < DNF_NODES; node++) {
        for (;;) {
            const uint8_t *slot = ep->mbox + ((size_t)node * DNF_MBOX_SLOTS +
                                              ep->mbox_next[node] % DNF_MBOX_SLOTS) *
                                             sizeof(struct dnf_mbox);
            uint32_t k = ep->mbox_next[node];
            struct dnf_mbox e;

            dn_host_work(ep->dom->node, DN_HOST_LOAD, 1);   /* the check word */
            if (__atomic_load_n((const uint32_t *)(slot + offsetof(struct dnf_mbox, check)),
                                __ATOMIC_ACQUIRE) != DNF_MBOX_STAMP(k, ep->session)) {
                break;
            }
            dnf_copy(ep->dom, &e, slot, sizeof(e));
            if (e.k != k || e.check != DNF_MBOX_STAMP(k, ep->session) ||
                e.h.magic != DNF_MAGIC || e.h.kind != DNF_K_RREQ || e.h.sess == 0) {
                break;            /* still being written: next turn */
            }
            ep->peer_sess[node] = e.h.sess;   /* its landings go to this session */
            ep->mbox_next[node]++;
            dnf_emx_rreq(ep, node, &e.h, k % DNF_MBOX_SLOTS);
        }
    }
}

/* A free landing zone: index, or -1. Free: never taken, withdrawn, or
 * landed and past its writer's lfree. */
static int zone_find(const struct dnf_ep *ep)
{
    for (unsigned z = 0; z < dnf_zones(ep->dom->ports); z++) {
        uint32_t rid = ep->zone_rid[z];

        if (rid == 0 || (ep->zone_taken[z] && ep->peer_lfree[ep->zone_node[z]] > rid)) {
            return (int)z;
        }
    }
    return -1;
}

/* May landing chunk @slot of writer @node be offered again? */
static int land_free(const struct dnf_ep *ep, uint32_t node, unsigned slot)
{
    uint32_t rid = ep->land_rid[node][slot];

    return rid == 0 || (ep->land_taken[node][slot] && ep->peer_lfree[node] > rid);
}

/* Advertise @r to @node with its landing (@flag DNF_F_LAND: the chunk of
 * the RREQ's mailbox slot; DNF_F_ZONE: zone @sid), already set aside. */
static void advertise_landing(struct dnf_ep *ep, struct dnf_rx *r, uint32_t node,
                              uint8_t flag, uint32_t sid)
{
    struct dnf_hdr h = { .kind = DNF_K_RREQ, .flags = r->flags | flag, .tag = r->tag,
                         .ignore = r->ignore, .seq = r->expect, .rid = r->rid,
                         .sid = sid, .len = r->len };

    /* No stamp there but this receive's from now on: any other that comes
     * is a late packet (dimmnet.h). */
    __atomic_store_n((uint64_t *)(land_end(ep, node, r->land, r->zone) - 8), 0,
                     __ATOMIC_RELEASE);
    dn_host_work(ep->dom->node, DN_HOST_STORE, 1);
    r->land_late = 0;
    r->land_asks = 0;
    r->land_ask_us = 0;
    r->adv = DNF_ADV_OPEN;
    if (mbox_post(ep, node, &h)) {
        dnf_emx_withdraw(ep, r);
        return;
    }
    ep->stats.advertised++;
}

void dnf_emx_advertise(struct dnf_ep *ep, struct dnf_rx *r)
{
    uint32_t node;
    unsigned slot;
    size_t part;
    int rc;

    if (!ep->sender_matching || r->src < 0 || r->len > DNF_ADV_MAX) {
        return;
    }
    for (struct dnf_rx *q = ep->rx_head; q; q = q->next) {
        if (q->flags == r->flags && (q->src < 0 || q->src == r->src) &&
            q->adv != DNF_ADV_REMOTE) {
            return;               /* an earlier receive here could take its message */
        }
    }
    node = (uint32_t)r->src;
    if (!ep->peer_sess[node]) {
        return;                   /* its session unknown yet: no mailbox check */
    }
    part = r->len < DNF_EAGER ? r->len : DNF_EAGER;
    r->rid = ++ep->next_rid;
    r->expect = ep->recv_first[node];
    slot = ep->mbox_k[node] % DNF_MBOX_SLOTS;   /* the entry mbox_post writes */
    if (ep->landing && r->len <= DNF_LAND_MAX && land_free(ep, node, slot)) {
        r->land = slot + 1;
        ep->land_rid[node][slot] = r->rid;
        ep->land_taken[node][slot] = 0;
        advertise_landing(ep, r, node, DNF_F_LAND, 0);
        return;
    }
    int z = ep->landing && r->len > DNF_LAND_MAX && r->len <= DNF_ZONE_MAX
            ? zone_find(ep) : -1;
    if (z >= 0) {
        r->zone = (unsigned)z + 1;
        ep->zone_rid[z] = r->rid;
        ep->zone_node[z] = node;
        ep->zone_taken[z] = 0;
        advertise_landing(ep, r, node, DNF_F_ZONE, (uint32_t)z);
        return;
    }
    r->stage = malloc(sizeof(struct dnf_hdr) + part);
    rc = r->stage ? dn_msg_irecv(ep->dom->node, (int)dnf_peer_addr(ep->dom, node), r->rid,
                                 r->stage, sizeof(struct dnf_hdr) + part, &r->first)
                  : DN_ENOMEM;
    if (rc != DN_OK) {
        free(r->stage);
        r->stage = NULL;
        r->first = NULL;
        return;
    }
    r->adv = DNF_ADV_OPEN;
    struct dnf_hdr h = { .kind = DNF_K_RREQ, .flags = r->flags, .tag = r->tag,
                         .ignore = r->ignore, .seq = r->expect, .rid = r->rid,
                         .len = r->len };
    uint64_t zoff;
    if (ep->zcopy && r->len > DNF_ZCOPY_MIN && !r->multi && !r->mparent &&
        !dnf_mr_rndv_take(ep->dom, r->buf, r->len, &zoff, &r->zc)) {
        /* Zero-copy: a message longer than DNF_ZCOPY_MIN is written into
         * the buffer where it lies on the card; its DIRECT says when. */
        r->zc_adv = 1;
        h.flags |= DNF_F_ZCOPY;
        h.seen = (uint32_t)zoff;
    }
    if ((r->len > DNF_EAGER && !r->zc_adv &&
         dnf_chunks_recv(ep, &r->ch, node, r->rid, (uint8_t *)r->buf + DNF_EAGER,
                         r->len - DNF_EAGER)) ||
        mbox_post(ep, node, &h)) {
        dnf_emx_withdraw(ep, r);
        return;
    }
    ep->stats.advertised++;
}

void dnf_emx_withdraw(struct dnf_ep *ep, struct dnf_rx *r)
{
    if (dnf_recv_drop(ep, r->first)) {
        /* A DIRECT for a receive its sender must have ignored. */
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "receive %u of node %lld taken twice\n",
                r->rid, (long long)r->src);
    }
    r->first = NULL;
    dnf_chunks_cancel(ep, &r->ch);
    free(r->stage);
    r->stage = NULL;
    if (r->zc_adv) {
        dnf_mr_rndv_give(ep->dom, r->zc);  /* never written: its sender ignored it */
        r->zc = NULL;
        r->zc_adv = 0;
    }
    if (r->land) {
        ep->land_rid[r->src][r->land - 1] = 0;   /* its sender never writes it */
        r->land = 0;
    }
    if (r->zone) {
        ep->zone_rid[r->zone - 1] = 0;
        r->zone = 0;
    }
    r->adv = DNF_ADV_NONE;
    ep->stats.withdrawn++;
}

/* A FIRST from @node: settle the advertised receives it answers. */
void dnf_emx_decide(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h)
{
    if (h->seen > ep->peer_seen[node]) {
        ep->peer_seen[node] = h->seen;   /* mailbox entries it handled are free */
    }
    if (h->rid > ep->peer_lfree[node]) {
        ep->peer_lfree[node] = h->rid;   /* a FIRST's lfree */
    }
    for (struct dnf_rx *r = ep->rx_head; r; r = r->next) {
        if (r->adv != DNF_ADV_OPEN || r->src != node || r->rid > h->seen) {
            continue;
        }
        if (h->seq == r->expect) {
            r->adv = DNF_ADV_REMOTE;
            ep->stats.taken++;
        } else {
            dnf_emx_withdraw(ep, r);
            ep->stats.ignored++;
        }
    }
}

/* Sender: a peer advertises a receive. */
void dnf_emx_rreq(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h,
                  unsigned slot)
{
    struct dnf_rreq *q, **p;

    ep->seen_rid[node] = h->rid;
    if (h->seq != ep->sent_first[node]) {
        return;                   /* a FIRST of ours was on its way: ignored */
    }
    int bad = (h->flags & DNF_F_ZONE) &&
              (h->sid >= dnf_zones(ep->dom->ports) || h->len > DNF_ZONE_MAX);
    q = bad ? NULL : malloc(sizeof(*q));
    if (!q) {
        /* Not taken: skip a FIRST number, so that our next FIRST's seq is
         * past expect and the receiver withdraws the advertisement. A zone
         * that does not exist or cannot hold the receive is never written. */
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "%s receive %u of node %u not taken\n",
                bad ? "bad landing zone for" : "no memory to take", h->rid, node);
        ep->sent_first[node]++;
        return;
    }
    *q = (struct dnf_rreq){ .flags = h->flags & ~DNF_F_LAND, .rid = h->rid,
                            .tag = h->tag, .ignore = h->ignore, .cap = h->len,
                            .land = h->flags & DNF_F_LAND ? slot + 1 : 0,
                            .zone = h->flags & DNF_F_ZONE ? h->sid + 1 : 0,
                            .zcopy = (h->flags & DNF_F_ZCOPY) != 0, .zc_off = h->seen };
    q->flags &= ~(DNF_F_ZONE | DNF_F_ZCOPY);
    for (p = &ep->rreq[node]; *p; p = &(*p)->next) {
    }
    *p = q;
}

struct dnf_rreq *dnf_emx_take(struct dnf_ep *ep, uint32_t node, uint8_t flags,
                              uint64_t tag)
{
    for (struct dnf_rreq **p = &ep->rreq[node]; *p; p = &(*p)->next) {
        struct dnf_rreq *q = *p;

        if (dnf_tag_matches(q->flags, q->tag, q->ignore, flags, tag)) {
            *p = q->next;
            q->next = NULL;
            return q;
        }
    }
    return NULL;
}

/* The DIRECT's first part is in @r->stage (shim status @rc, @st): fill in
 * the message, drop chunk receives it does not need. 1: complete now. */
int dnf_emx_direct_done(struct dnf_ep *ep, struct dnf_rx *r, int rc,
                        const struct dn_msg_status *st)
{
    struct dnf_hdr h;
    size_t plen, need;

    if (r->adv == DNF_ADV_OPEN) {
        ep->stats.taken++;        /* learnt from the DIRECT itself */
    }
    r->adv = DNF_ADV_NONE;
    r->node = (uint32_t)r->src;
    memcpy(&h, r->stage, sizeof(h));
    if (rc != DN_OK || st->len < sizeof(h) || h.magic != DNF_MAGIC ||
        h.kind != DNF_K_DIRECT || h.rid != r->rid ||
        ((h.flags ^ r->flags) & DNF_F_TAGGED) ||
        ((h.flags & DNF_F_ZCOPY) && (!r->zc_adv || st->len != sizeof(h))) ||
        (!(h.flags & DNF_F_ZCOPY) && r->zc_adv && h.len > DNF_ZCOPY_MIN &&
         r->len > DNF_ZCOPY_MIN)) {  /* no chunk receives posted for that */
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "bad DIRECT for receive %u from node %u\n",
                r->rid, r->node);
        r->err = rc != DN_OK ? (dnf_errno(rc) == FI_ETRUNC ? FI_EIO : dnf_errno(rc)) : FI_EIO;
        dnf_ep_fatal(ep, rc);
        dnf_chunks_cancel(ep, &r->ch);
        return 1;
    }
    r->mflags = h.flags;
    if (h.sess) {
        ep->peer_sess[r->node] = h.sess;
    }
    if (h.seen > ep->peer_seen[r->node]) {
        ep->peer_seen[r->node] = h.seen;
    }
    if (h.sid > ep->peer_lfree[r->node]) {
        ep->peer_lfree[r->node] = h.sid;  /* a DIRECT's lfree */
    }
    r->mtag = h.tag;
    r->mlen = h.len;
    r->mdata = h.data;
    r->taken = h.len < r->len ? (size_t)h.len : r->len;
    plen = st->len - sizeof(h);
    if (plen > r->taken) {
        plen = r->taken;
    }
    if (h.flags & DNF_F_ZCOPY) {
        ep->stats.zcopy_recv++;       /* in the buffer already */
        if (h.seq) {
            r->err = FI_EIO;          /* its sender could not write it all */
        }
    }
    if (plen) {
        dnf_copy(ep->dom, r->buf, r->stage + sizeof(h), plen);
    }
    free(r->stage);
    r->stage = NULL;
    /* Chunk receives were posted for the whole buffer; the sender sends
     * only what this receive takes. */
    need = r->taken > DNF_EAGER ? dnf_chunk_count(r->taken - DNF_EAGER) : 0;
    for (unsigned i = (unsigned)need; i < r->ch.n; i++) {
        dnf_recv_drop(ep, r->ch.req[i]);
        r->ch.req[i] = NULL;
    }
    if (need < r->ch.n) {
        r->ch.n = (unsigned)need;
    }
    return need == 0;
}

/* ---- landing ------------------------------------------------------------ */

/* lfree for @node: every rid of its below it is either landed and ACKed, or
 * will never be landed by this node (not taken, or sent another way): the
 * lowest of a landing not yet ACKed, a taken receive not yet matched, and
 * the next RREQ not yet read. Once said, true for good. */
uint32_t dnf_emx_lfree(struct dnf_ep *ep, uint32_t node)
{
    uint32_t lfree = ep->seen_rid[node] + 1;

    for (const struct dnf_rreq *q = ep->rreq[node]; q; q = q->next) {
        if (q->rid < lfree) {
            lfree = q->rid;
        }
    }
    for (const struct dnf_tx *t = ep->tx_head; t; t = t->next) {
        if (t->land_rid && t->node == node && t->land_rid < lfree) {
            lfree = t->land_rid;
        }
    }
    return lfree;
}

static void land_write(struct dnf_ep *ep, struct dnf_tx *t)
{
    int rc;

    if (t->land_tries++) {
        ep->stats.land_rewrites++;
    }
    rc = dn_botf_put(ep->dom->node, dnf_peer_addr(ep->dom, t->node), t->land_raddr, t->buf,
                     t->land_size, &t->land_x);
    /* The clock starts once the write is out: a long one waits for room. */
    t->land_sent_us = rc == DN_OK ? now_us(ep) : 0;   /* refused at once: next turn */
}

/* CRC-32 of a landing: its payload (@tr->sent bytes at @payload), then its
 * trailer with the crc field 0. The trailer is covered too: a zone's
 * trailer may straddle two packets, and under reorder the stamp can land
 * before the rest of the trailer, whose stale bytes (an older landing's
 * length and CRC) would otherwise vouch for an older payload. */
static uint32_t land_crc(struct dnf_ep *ep, const void *payload, const struct dnf_land *tr)
{
    struct dnf_land t = *tr;

    dn_host_work(ep->dom->node, DN_HOST_CRC, tr->sent + sizeof(t));
    t.crc = 0;
    return dn1_crc32_update(dn1_crc32_update(0, payload, tr->sent), (const uint8_t *)&t,
                            sizeof(t));
}

/* Send @t (header @h, @sent bytes of @buf) as a landing into @q's chunk or
 * zone at its receiver: payload and trailer with one write, ending at the
 * chunk's or zone's end; t->buf holds them (room for a header and the
 * payload, DNF_LAND_PACKET at least). */
void dnf_emx_land(struct dnf_ep *ep, struct dnf_tx *t, const struct dnf_rreq *q,
                  const struct dnf_hdr *h, const void *buf, size_t sent)
{
    uint32_t lfree = dnf_emx_lfree(ep, t->node);
    unsigned port = peer_port(ep, t->node), ports = ep->dom->ports;
    /* In the receiver's port's part: our chunk ring as writer, or its zone. */
    uint64_t end = q->zone ? dnf_zone_base(port, ports, q->zone - 1) + DNF_ZONE_SIZE
                           : dnf_land_base(port, ports) +
                                 ((uint64_t)ep->dom->self * DNF_MBOX_SLOTS + q->land) *
                                     DNF_LAND_CHUNK;
    struct dnf_land tr = { .tag = h->tag, .data = h->data, .mlen = (uint32_t)h->len,
                           .sent = (uint32_t)sent, .flags = h->flags, .seen = h->seen,
                           .lfree = lfree < q->rid ? lfree : q->rid, .rid = q->rid,
                           .check = DNF_LAND_STAMP(q->rid, ep->peer_sess[t->node]) };

    tr.crc = land_crc(ep, buf, &tr);

    if (sent) {
        dnf_copy(ep->dom, t->buf, buf, sent);
    }
    dnf_copy(ep->dom, t->buf + sent, &tr, sizeof(tr));
    t->land_size = (uint16_t)(sent + sizeof(tr));
    t->land_raddr = end - t->land_size;
    t->land_rid = q->rid;
    t->land_tries = 0;
    t->keep_rid = q->rid;
    t->keep_key = land_key(q->land, q->zone) + 1;
    land_write(ep, t);
}

/* A finished send @t: a landing written whole is kept (it replaces the one
 * kept for the same receiver and chunk or zone), so that it can be written
 * again if a late packet hits it before its receiver took it. 1: kept (the
 * caller must not free it). */
int dnf_emx_keep(struct dnf_ep *ep, struct dnf_tx *t)
{
    struct dnf_tx **slot;

    if (!t->keep_key || t->err != DN_OK || t->node >= DNF_NODES) {
        return 0;
    }
    if (!ep->keep[t->node]) {
        ep->keep[t->node] = calloc(DNF_KEEP_KEYS, sizeof(*ep->keep[t->node]));
        if (!ep->keep[t->node]) {
            return 0;
        }
    }
    slot = &ep->keep[t->node][t->keep_key - 1];
    if (*slot) {
        ep->keep_busy -= (*slot)->rewriting ? 1 : 0;   /* its xfer: forgotten */
        free(*slot);
    }
    t->next = NULL;
    t->rewriting = 0;
    *slot = t;
    return 1;
}

/* Node @node asks (REWRITE) for its receive h->rid's landing again: write
 * it once more if it is the one kept there, each time it asks (the
 * receiver paces its asks; a rewrite still unanswered may be the one held
 * up, so it is not waited for). Anything else (not finished yet: our own
 * resends go on; older; never ours) is ignored: the receiver asks again
 * while it still lacks it. */
void dnf_emx_rewrite(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h)
{
    struct dnf_tx *t = node < DNF_NODES && ep->keep[node] && h->sid < DNF_KEEP_KEYS
                       ? ep->keep[node][h->sid] : NULL;

    if (!t || t->keep_rid != h->rid) {
        return;
    }
    if (dn_botf_put(ep->dom->node, dnf_peer_addr(ep->dom, t->node), t->land_raddr, t->buf,
                    t->land_size, &t->land_x) == DN_OK) {
        ep->keep_busy += t->rewriting ? 0 : 1;   /* an older one: forgotten */
        t->rewriting = 1;
        ep->stats.land_rewritten++;
    }
}

/* Receiver: @r's landing is not (or no longer) whole. Ask its sender to
 * write it again: at once if @now (a late stamp), else once the rewrite
 * time has passed since this was first seen; again with its backoff. */
static void land_ask(struct dnf_ep *ep, struct dnf_rx *r, uint32_t node, int now_ok)
{
    uint64_t now = now_us(ep);
    struct dnf_hdr h = { .kind = DNF_K_REWRITE, .rid = r->rid,
                         .sid = land_key(r->land, r->zone) };

    if (!r->land_ask_us) {
        r->land_ask_us = now_ok ? now : now + resend_us(ep, 0);
    }
    if (now < r->land_ask_us) {
        return;
    }
    if (dnf_ctl_send(ep, node, &h) == 0) {
        ep->stats.land_asked++;
    }
    r->land_ask_us = now + resend_us(ep, ++r->land_asks);
}

/* Is @t's landing over? 1: ACKed, or failed for good (t->err set). */
int dnf_emx_land_test(struct dnf_ep *ep, struct dnf_tx *t)
{
    /* A zone's write may still have packets queued when it returns: more
     * time for more bytes. */
    uint64_t more = t->land_size / (ep->dom->modeled ? 100u : 10u);
    int rc = t->land_sent_us ? dn_wait(ep->dom->node, &t->land_x, 0) : DN_ETIMEDOUT;

    if (rc == DN_OK) {
        t->land_rid = 0;
        return 1;
    }
    if (rc == DN_ETIMEDOUT && t->land_sent_us && now_us(ep) - t->land_sent_us < resend_us(ep, t->land_tries) + more) {
        return 0;
    }
    if (t->land_tries >= DNF_LAND_TRIES) {
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "landing for receive %u of node %u lost: %s\n",
                t->land_rid, t->node, dn_strerror(rc));
        if (t->err == DN_OK) {
            t->err = rc == DN_OK ? DN_EIO : rc;
        }
        t->land_rid = 0;
        return 1;
    }
    land_write(ep, t);
    return 0;
}

/* Receiver: has advertised receive @r's landing come? 1: filled in (or
 * failed, r->err), complete it. */
int dnf_emx_landed(struct dnf_ep *ep, struct dnf_rx *r)
{
    uint32_t node = (uint32_t)r->src;
    const uint8_t *end = land_end(ep, node, r->land, r->zone);
    const uint8_t *at = end - sizeof(struct dnf_land);
    size_t max = r->zone ? DNF_ZONE_MAX : DNF_LAND_MAX;
    uint64_t stamp = (uint64_t)DNF_LAND_STAMP(r->rid, ep->session) << 32 | r->rid;
    struct dnf_land tr;

    dn_host_work(ep->dom->node, DN_HOST_LOAD, 1);   /* the stamp */
    uint64_t seen = __atomic_load_n((const uint64_t *)(end - 8), __ATOMIC_ACQUIRE);
    if (seen != stamp) {
        uint32_t rid = (uint32_t)seen;

        if (seen && ((DNF_LAND_STAMP(rid, 0) ^ (uint32_t)(seen >> 32)) & 0xffffu) == 0) {
            /* Another landing's stamp (of any session), since we cleared
             * it: a late packet. Ignored; if it hit ours, ours must come
             * again. */
            if (rid != r->land_late) {
                r->land_late = rid;
                ep->stats.land_late++;
            }
            land_ask(ep, r, node, 1);
        }
        return 0;
    }
    dnf_copy(ep->dom, &tr, at, sizeof(tr));
    /* A zone's packets may land in any order under faults: the whole
     * landing is there once its CRC matches (a lost packet comes again
     * with the next write); a length past the zone is an older trailer's
     * byte not yet overwritten. The card's memory is read once, uncached
     * and slow: the payload is copied into the receive buffer, where its
     * CRC is checked (until the receive completes its buffer holds
     * nothing defined). */
    const uint8_t *payload = at - tr.sent;

    if (tr.sent > max) {
        land_ask(ep, r, node, 0);
        return 0;
    }
    if (tr.sent && tr.sent <= r->len) {   /* more is refused below */
        dnf_copy(ep->dom, r->buf, payload, tr.sent);
        payload = r->buf;
    }
    if (land_crc(ep, payload, &tr) != tr.crc) {
        land_ask(ep, r, node, 0);   /* more packets coming, or a late one inside */
        return 0;
    }
    if (r->adv == DNF_ADV_OPEN) {
        ep->stats.taken++;        /* learnt from the landing itself */
    }
    r->adv = DNF_ADV_NONE;
    if (r->zone) {
        ep->zone_taken[r->zone - 1] = 1;
        ep->stats.zone_landed++;
    } else {
        ep->land_taken[node][r->land - 1] = 1;
    }
    r->land = r->zone = 0;
    r->node = node;
    if (tr.seen > ep->peer_seen[node]) {
        ep->peer_seen[node] = tr.seen;
    }
    if (tr.lfree > ep->peer_lfree[node]) {
        ep->peer_lfree[node] = tr.lfree;
    }
    r->mflags = tr.flags;
    r->mtag = tr.tag;
    r->mlen = tr.mlen;
    r->mdata = tr.data;
    r->taken = tr.mlen < r->len ? (size_t)tr.mlen : r->len;
    if (tr.sent != r->taken || ((tr.flags ^ r->flags) & DNF_F_TAGGED)) {
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "bad landing for receive %u from node %u\n",
                r->rid, node);
        r->err = FI_EIO;
        return 1;
    }
    ep->stats.landed++;           /* its bytes were copied above */
    return 1;
}

void dnf_emx_free(struct dnf_ep *ep)
{
    int stats = 0;

    fi_param_get_bool(&dnf_prov, "stats", &stats);
    if (stats && ep->enabled) {
        fprintf(stderr, "dimmnet: node %u%s: landings late=%llu asked=%llu rewritten=%llu\n",
                dn_node_id(ep->dom->node), ep->dom->port_name,
                (unsigned long long)ep->stats.land_late,
                (unsigned long long)ep->stats.land_asked,
                (unsigned long long)ep->stats.land_rewritten);
    }
    for (unsigned i = 0; i < DNF_NODES; i++) {
        for (unsigned k = 0; ep->keep[i] && k < DNF_KEEP_KEYS; k++) {
            free(ep->keep[i][k]);
        }
        free(ep->keep[i]);
        ep->keep[i] = NULL;
    }
    ep->keep_busy = 0;
    while (ep->mput_head) {
        struct dnf_mput *m = ep->mput_head;

        ep->mput_head = m->next;
        free(m);
    }
    for (unsigned i = 0; i < DNF_NODES; i++) {
        while (ep->rreq[i]) {
            struct dnf_rreq *q = ep->rreq[i];

            ep->rreq[i] = q->next;
            free(q);
        }
    }
}
