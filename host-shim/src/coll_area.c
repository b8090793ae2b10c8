/*
 * The collectives' area in receive memory and how messages cross it
 * (docs/collectives.md, "Moving data"): frames stamped first and last,
 * written by RDMA from the sender's staging cells (or one multicast),
 * taken by the reader only whole and of the epoch it waits for; a reader
 * that waits too long asks the writer to write again; a writer writes an
 * epoch's cells only once their reader has freed their previous epoch.
 */
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include "coll.h"
#include "dimmnet1/memmap.h"

/* The host's instructions a frame checked costs the library: an estimate
 * until measured. */
#define COLL_FRAME_INSNS 40u
/* Credits pushed (AOTF comms): a reader stores its freed word into its
 * writers' COLL_PUSHED cells once it freed COLL_PUSH_EVERY more epochs
 * (the look at each freed epoch's sources: COLL_PUSH_INSNS); a writer
 * that finds no room there for COLL_PUSH_WAIT_NS reads the word instead. */
#define COLL_PUSH_EVERY   2u
#define COLL_PUSH_INSNS   20u
#define COLL_PUSH_WAIT_NS 20000u

/* A port's share of the area: a Kth, whole frames (a third of 1 MiB is
 * not 8-byte aligned, and frames rely on whole aligned 8-byte words). */
static uint64_t share_size(unsigned ports)
{
    return (DN_COLL_AREA_SIZE / (ports ? ports : 1)) & ~(uint64_t)(COLL_FRAME - 1);
}

void coll_layout(unsigned ports, struct coll_layout *l)
{
    l->share = share_size(ports);
    l->slot = ((l->share - COLL_HDR) / DN_COLL_COMMS) & ~(uint64_t)(COLL_FRAME - 1);
    l->region = ((l->slot / 2) / DN_COLL_INFLIGHT) & ~(uint64_t)7;
    if (l->region >= COLL_FRAME) {
        l->region &= ~(uint64_t)(COLL_FRAME - 1);
    }
}

uint64_t coll_share_off(unsigned port, unsigned ports)
{
    return (uint64_t)port * share_size(ports);
}

uint64_t coll_region_off(unsigned port, unsigned ports, unsigned s, int staging, unsigned r)
{
    struct coll_layout l;

    coll_layout(ports, &l);
    return coll_share_off(port, ports) + COLL_HDR + s * l.slot +
           (staging ? l.slot / 2 : 0) + r * l.region;
}

void coll_geom(uint32_t cell_size, int mcast, size_t bytes, struct coll_geom *g)
{
    uint32_t f = mcast ? COLL_MFRAME : COLL_FRAME;

    g->fs = cell_size < f ? cell_size & ~7u : f;
    size_t per = g->fs - COLL_OVER;
    g->frames = bytes ? (uint32_t)((bytes + per - 1) / per) : 1;
    size_t last = bytes - (size_t)(g->frames - 1) * per;
    g->span = (g->frames - 1) * g->fs + COLL_OVER + (uint32_t)((last + 7) & ~(size_t)7);
}

size_t coll_cell_cap(uint32_t cell_size, int mcast)
{
    uint32_t f = mcast ? COLL_MFRAME : COLL_FRAME;

    if (cell_size < COLL_OVER + 8) {
        return 0;
    }
    if (cell_size < f) {
        return (cell_size & ~7u) - COLL_OVER;
    }
    /* Whole frames, as many as a reader's bitmap of them holds. */
    uint32_t frames = cell_size / f;
    return (size_t)(frames > 64 ? 64 : frames) * (f - COLL_OVER);
}

void coll_frames_write(dn_node *n, uint8_t *dst, const void *src, size_t bytes,
                       const struct coll_geom *g, uint32_t gen, uint32_t epoch,
                       unsigned cell)
{
    size_t per = g->fs - COLL_OVER;
    const uint8_t *s = src;

    for (uint32_t f = 0; f < g->frames; f++) {
        uint8_t *fr = dst + (size_t)f * g->fs;
        size_t len = bytes - (size_t)f * per < per ? bytes - (size_t)f * per : per;
        size_t padded = (len + 7) & ~(size_t)7;
        uint64_t stamp = coll_stamp(gen, epoch, cell, f);
        uint8_t head[2 * COLL_STAMP];

        dn_put_le(head, stamp, 8);
        dn_put_le(head + 8, coll_check(stamp, s + (size_t)f * per, len), 8);
        dn_host_work(n, DN_HOST_INSNS, COLL_CHECK_INSNS(padded / 8));
        dn_copy(n, fr, head, 2 * COLL_STAMP);
        if (len) {
            dn_copy(n, fr + 2 * COLL_STAMP, s + (size_t)f * per, len);
        }
        if (padded > len) {
            static const uint8_t zero[8];
            dn_copy(n, fr + 2 * COLL_STAMP + len, zero, padded - len);
        }
        dn_copy(n, fr + 2 * COLL_STAMP + padded, head, COLL_STAMP);
    }
}

uint64_t coll_now(struct dn_coll_comm *c)
{
    return c->n->timed ? dn_msg_now_ns(c->n) : (uint64_t)dn_now_ms() * 1000000u;
}

uint64_t coll_ld64(dn_node *n, uint64_t off)
{
    dn_host_charge(n, DN_HOST_LOAD, 1);
    return __atomic_load_n((uint64_t *)(n->hostmem + off), __ATOMIC_ACQUIRE);
}

void coll_st64(dn_node *n, uint64_t off, uint64_t v)
{
    dn_host_charge(n, DN_HOST_STORE, 1);
    __atomic_store_n((uint64_t *)(n->hostmem + off), v, __ATOMIC_RELEASE);
}

uint64_t coll_my_block(struct dn_coll_comm *c)
{
    return coll_share_off(c->n->port, c->ports) + COLL_SLOT_BLOCK(c->slot);
}

uint64_t coll_peer_block(struct dn_coll_comm *c, unsigned r)
{
    return coll_share_off(c->peer[r].addr >> 12, c->ports) + COLL_SLOT_BLOCK(c->peer[r].slot);
}

uint64_t coll_peer_region(struct dn_coll_comm *c, unsigned r, unsigned region)
{
    return coll_region_off(c->peer[r].addr >> 12, c->ports, c->peer[r].slot, 0, region);
}

/* One 8-byte word into @addr's receive memory: one BOTF packet, no ACK
 * (whoever waits for it asks again). */
int coll_word_put(struct dn_coll_comm *c, uint16_t addr, uint64_t raddr, uint64_t v)
{
    uint8_t w[8];

    dn_put_le(w, v, 8);
    return dn_botf_packet(c->n, DN1_TYPE_PUSH, DN_BOTF_NO_ACK, addr, raddr, 0, w, 8, 0,
                          c->n->next_seq++);
}

void coll_publish_freed(struct dn_coll_comm *c)
{
    coll_st64(c->n, coll_my_block(c) + COLL_FREED, (uint64_t)c->gen << 32 | c->freed);
}

/* Ask member @r's NIC for its freed word: a remote read, answered into
 * this process's credit slot for @r. */
static void credit_read(struct dn_coll_comm *c, unsigned r)
{
    struct coll_peer *p = &c->peer[r];
    uint64_t local = coll_my_block(c) + COLL_CREDIT + 8u * r;

    if (dn_get(c->n, p->addr, coll_peer_block(c, r) + COLL_FREED, local, 8,
               &p->credit_x) == DN_OK) {
        p->credit_busy = 1;
        p->credit_at = coll_now(c);
        c->st.credit_reads++;
    }
}

/* Epoch @ep wrote to the members in @readers: their cells are in use
 * until they free it, and they owe this writer a push (coll_push_freed). */
static void sent_to(struct dn_coll_comm *c, struct coll_epoch *ep, uint64_t readers)
{
    ep->dsts |= readers;
    for (unsigned r = 0; r < c->size; r++) {
        if ((readers >> r) & 1) {
            c->peer[r].wrote = ep->epoch;
            c->peer[r].wrote_any = 1;
        }
    }
}

/* A freed word member @r pushed (coll_push_freed): one load of this
 * process's own cell. Of another incarnation it says nothing (a late
 * store of an earlier one); only a read of r's own word tells it left. */
static void pushed_credit(struct dn_coll_comm *c, unsigned r)
{
    struct coll_peer *p = &c->peer[r];
    uint64_t v = coll_ld64(c->n, coll_my_block(c) + COLL_PUSHED + 8u * r);

    if ((uint32_t)(v >> 32) == c->gen) {
        p->in_comm = 1;
        if ((int32_t)((uint32_t)v - p->freed) > 0) {
            p->freed = (uint32_t)v;
        }
    }
}

/* Epoch @epoch may go into member @r's region once it freed epoch - INFLIGHT. */
int coll_credit(struct dn_coll_comm *c, unsigned r, uint32_t epoch)
{
    struct coll_peer *p = &c->peer[r];
    int32_t ahead = (int32_t)(epoch - p->freed);

    if (r == c->rank) {
        return 1;
    }
    if (ahead >= (int32_t)DN_COLL_INFLIGHT && c->aotf_ok) {
        pushed_credit(c, r);
        ahead = (int32_t)(epoch - p->freed);
    }
    if (ahead < (int32_t)DN_COLL_INFLIGHT) {
        /* Room now, and for one epoch more at most: read ahead, so that
         * the answer (a round trip) is in before a write has to wait for
         * it rather than after. Where readers push, nothing to read. */
        if (!c->aotf_ok && ahead == (int32_t)DN_COLL_INFLIGHT - 1 && !p->credit_busy) {
            credit_read(c, r);
        }
        p->blocked_at = 0;
        return 1;
    }
    /* A member that left (freed this communicator and took the slot for
     * another, whose word replaced its last one) owes and asks nothing:
     * what dn_coll_comm_free waits for, asked beyond the last epoch given
     * out. Writes still wait: its region may be another communicator's. */
    if (p->left && (int32_t)(epoch - c->next_epoch) >= 0) {
        return 1;
    }
    if (!p->credit_busy) {
        /* Where readers push, a reader that owes this writer the push it
         * needs gets COLL_PUSH_WAIT_NS for it (it may be lost, or wait for
         * a second epoch freed); one that owes none is read at once. */
        int32_t since = (int32_t)(epoch - p->wrote);
        uint64_t now = 0;
        if (c->aotf_ok && p->wrote_any && since > 0 && since <= (int32_t)DN_COLL_INFLIGHT) {
            /* It owes a push of at least wrote + 1, epoch - INFLIGHT + 1
             * or more: enough. */
            now = dn_msg_now_ns(c->n);      /* coll_now's wall clock is in ms */
            if (!p->blocked_at) {
                p->blocked_at = now ? now : 1;
            }
        }
        if (!now || now - p->blocked_at >= COLL_PUSH_WAIT_NS) {
            credit_read(c, r);
        }
    }
    return 0;
}

/* Credit replies that came in. */
static void credit_replies(struct dn_coll_comm *c, uint64_t now)
{
    for (unsigned r = 0; r < c->size; r++) {
        struct coll_peer *p = &c->peer[r];

        if (!p->credit_busy) {
            continue;
        }
        int rc = dn_wait(c->n, &p->credit_x, 0);
        if (rc == DN_OK) {
            uint64_t v = coll_ld64(c->n, coll_my_block(c) + COLL_CREDIT + 8u * r);
            if ((uint32_t)(v >> 32) == c->gen) {
                p->in_comm = 1;
                if ((int32_t)((uint32_t)v - p->freed) > 0) {
                    p->freed = (uint32_t)v;
                }
            } else if (p->in_comm) {
                p->left = 1;
            }
            p->credit_busy = 0;
        } else if (rc != DN_ETIMEDOUT || now - p->credit_at > c->resend_ns) {
            p->credit_busy = 0;     /* lost, refused or forgotten: read again */
        }
    }
}

/* One word at @addr of @dst's collectives' area (a member, or the group),
 * by the channel pointed at that destination's whole area (one port a
 * node: every area at 0), else the least recently used one re-pointed
 * (four uncached stores, charged by dn_aotf_open). */
static int aotf_word(struct dn_coll_comm *c, unsigned dst, uint64_t addr, uint64_t v)
{
    dn_node *n = c->n;
    unsigned ch = 0, lru = 0;

    _Static_assert(COLL_AOTF_CHS <= sizeof(n->coll_ch_used) / sizeof(n->coll_ch_used[0]),
                   "LRU stamps for every channel");
    for (ch = 0; ch < COLL_AOTF_CHS; ch++) {
        const unsigned k = COLL_AOTF_CH0 + ch;
        if (n->aotf[k].open && n->aotf[k].dst == dst && n->aotf[k].raddr == 0 &&
            n->aotf[k].size == DN_COLL_AREA_SIZE) {
            break;
        }
        if (n->coll_ch_used[ch] < n->coll_ch_used[lru]) {
            lru = ch;
        }
    }
    if (ch == COLL_AOTF_CHS) {
        ch = lru;
        int rc = dn_aotf_open(n, COLL_AOTF_CH0 + ch, DN1_TYPE_PUSH, 0, dst, 0, DN_COLL_AREA_SIZE);
        if (rc != DN_OK) {
            return rc;
        }
    }
    n->coll_ch_used[ch] = ++n->coll_ch_tick;
    return dn_aotf_store(n, COLL_AOTF_CH0 + ch, (uint32_t)addr, v, 8, NULL);
}

void coll_push_freed(struct dn_coll_comm *c, uint32_t from)
{
    if (!c->aotf_ok) {
        return;
    }
    for (uint32_t e = from; e != c->freed; e++) {
        const struct coll_epoch *ep = c->ep[e % DN_COLL_INFLIGHT];
        if (!ep || ep->epoch != e) {
            continue;       /* its region taken again: the next push, or a read */
        }
        for (unsigned i = 0; i < ep->nops; i++) {
            const struct coll_op *o = &ep->ops[i];
            if (o->kind == OP_RECV || o->kind == OP_RECV_RED) {
                c->push_to |= 1ull << o->peer;
            }
        }
    }
    c->push_to &= ~(1ull << c->rank);
    if (!c->push_to || c->freed - c->pushed < COLL_PUSH_EVERY) {
        return;
    }
    uint64_t v = (uint64_t)c->gen << 32 | c->freed, off = COLL_PUSHED + 8u * c->rank;
    dn_self_count(c->n, COLL_PUSH_INSNS);
    if (c->mcast_ok && __builtin_popcountll(c->push_to) > 2) {
        /* Every member's block at the same place (mcast_ok): one store. */
        aotf_word(c, DN1_MCAST_BASE + (unsigned)c->cfg.mcast_group, coll_my_block(c) + off, v);
    } else {
        for (unsigned r = 0; r < c->size; r++) {
            if ((c->push_to >> r) & 1) {
                aotf_word(c, c->peer[r].addr, coll_peer_block(c, r) + off, v);
            }
        }
    }
    /* A store that failed is a push lost: the writer reads instead. */
    c->st.credit_pushes++;
    c->pushed = c->freed;
    c->push_to = 0;
}

/* Store small message @o into the cell at @raddr of @dst: its payload
 * word, then its check. The first time, take the word from its source
 * (kept for resends: the source may change once the call is done). */
static int small_put(struct dn_coll_comm *c, struct coll_epoch *ep, struct coll_op *o,
                     unsigned dst, uint64_t raddr)
{
    if (!o->check) {
        uint8_t w[8] = { 0 };
        memcpy(w, o->src, o->bytes);
        o->word = dn_get_le(w, 8);
        uint64_t stamp = coll_stamp(c->gen, ep->epoch, o->cell, 0);
        o->check = coll_small_check(stamp, coll_small_tag(stamp), o->word, o->bytes);
        dn_host_work(c->n, DN_HOST_INSNS, COLL_CHECK_INSNS(1) + COLL_CHECK_INSNS(0));
    }
    int rc = o->bytes ? aotf_word(c, dst, raddr + 2 * COLL_STAMP, o->word) : DN_OK;
    return rc != DN_OK ? rc : aotf_word(c, dst, raddr + COLL_STAMP, o->check);
}

/* Send small message @o (not a resend) to @dst, whose readers are the
 * members in @readers: 1 once sent. */
static int small_send(struct dn_coll_comm *c, struct coll_epoch *ep, struct coll_op *o,
                      unsigned dst, uint64_t raddr, uint64_t readers)
{
    int rc = small_put(c, ep, o, dst, raddr);

    if (rc != DN_OK) {
        return rc;
    }
    sent_to(c, ep, readers);
    c->st.frames_sent++;
    c->st.small_sent++;
    return 1;
}

/* @len bytes of frames into @addr's receive memory at @raddr as BOTF
 * packets that ask for no ACK (a multicast message written again to one). */
static int botf_untracked(struct dn_coll_comm *c, uint16_t addr, uint64_t raddr,
                          const uint8_t *buf, size_t len)
{
    for (size_t done = 0; done < len;) {
        uint16_t chunk = (uint16_t)(len - done < COLL_MFRAME ? len - done : COLL_MFRAME);
        int rc = dn_botf_packet(c->n, DN1_TYPE_PUSH, DN_BOTF_NO_ACK, addr, raddr + done,
                                (uint32_t)done, buf + done, chunk, 0, c->n->next_seq++);
        if (rc != DN_OK) {
            return rc;
        }
        done += chunk;
    }
    return DN_OK;
}

/* Member @r asked for epoch @epoch: write again what I wrote it then, if
 * the epoch's staging still holds it (an epoch keeps its region until a
 * later one needs it, and that waits until every reader freed it: a
 * reader that asks has not). */
static void resend_to(struct dn_coll_comm *c, unsigned r, uint32_t epoch)
{
    unsigned reg = epoch % DN_COLL_INFLIGHT;
    struct coll_epoch *ep = c->ep[reg];

    if (!ep || ep->epoch != epoch) {
        return;         /* not begun here yet: its writes are still to come */
    }
    for (unsigned i = 0; i < ep->nops; i++) {
        struct coll_op *o = &ep->ops[i];
        if (!o->done || (o->kind != OP_SEND && o->kind != OP_MCAST) ||
            (o->kind == OP_SEND && o->peer != r)) {
            continue;
        }
        uint64_t raddr = coll_peer_region(c, r, reg) + (uint64_t)o->cell * ep->cell_size;
        if (coll_small(c, o->bytes)) {
            if (small_put(c, ep, o, c->peer[r].addr, raddr) == DN_OK) {
                c->st.resends++;
            }
            continue;
        }
        if (o->kind == OP_MCAST) {
            if (ep->mcast_copy &&
                botf_untracked(c, c->peer[r].addr, raddr, ep->mcast_copy, ep->mcast_len) == DN_OK) {
                c->st.resends++;
            }
            continue;
        }
        struct coll_geom g;
        coll_geom(ep->cell_size, 0, o->bytes, &g);
        uint64_t local = coll_region_off(c->n->port, c->ports, c->slot, 1, reg) +
                         (uint64_t)o->msg * ep->cell_size;
        if (dn_rdma_untracked(c->n, c->peer[r].addr, raddr, local, g.span) == DN_OK) {
            c->st.resends += g.frames;
        }
    }
}

void coll_serve(struct dn_coll_comm *c, uint64_t now)
{
    credit_replies(c, now);
    if (now < c->scan_at) {
        return;
    }
    c->scan_at = now + c->resend_ns / 2;
    uint64_t blk = coll_my_block(c);
    for (unsigned r = 0; r < c->size; r++) {
        if (r == c->rank) {
            continue;
        }
        uint64_t v = coll_ld64(c->n, blk + COLL_NEED + 8u * r);
        if (!v || v == c->peer[r].need_seen || (uint32_t)(v >> 40) != (c->gen & 0xffffffu)) {
            continue;
        }
        c->peer[r].need_seen = v;
        /* The request names an epoch's low 24 bits (the latest epoch given
         * out here with them; one not begun here maps far back: nothing)
         * and which of it and the next three it waits for. */
        uint32_t base = c->next_epoch - ((c->next_epoch - (uint32_t)v) & 0xffffffu);
        for (unsigned k = 0; k < DN_COLL_INFLIGHT; k++) {
            if ((v >> (24 + k)) & 1) {
                resend_to(c, r, base + k);
            }
        }
    }
    if (c->first && c->rank == 0) {
        /* Late joins (a member that asked again): answer them again, but
         * only the process that joined (its nonce): another nonce is a new
         * process on that member's port (a restarted one), whose own
         * communicator this is not; welcomed into it at epoch 0 it would
         * take this one's frames for its own and give it its data. */
        uint64_t base = coll_share_off(c->n->port, c->ports);
        for (unsigned r = 1; r < c->size; r++) {
            uint64_t j = coll_ld64(c->n, base + COLL_JOIN + 8u * r);
            if (j && j != c->joined[r] && (uint32_t)j == (uint32_t)c->joined[r]) {
                c->joined[r] = j;
                coll_word_put(c, c->peer[r].addr,
                              coll_share_off(c->peer[r].addr >> 12, c->ports) + COLL_WELCOME,
                              (uint64_t)(uint32_t)j << 32 | c->gen);
            }
        }
    }
}

/* Does epoch @ep wait for a message from member @r (for a while)? */
static int waits_for(struct dn_coll_comm *c, const struct coll_epoch *ep, unsigned r,
                     uint64_t now)
{
    if (!ep || ep->done || !ep->req) {
        return 0;
    }
    for (unsigned i = 0; i < ep->nops; i++) {
        const struct coll_op *o = &ep->ops[i];
        if ((o->kind == OP_RECV || o->kind == OP_RECV_RED) && !o->done && o->peer == r &&
            o->wait_since && now - o->wait_since >= c->resend_ns) {
            return 1;
        }
    }
    return 0;
}

/*
 * Ask member @o->peer to write again what it wrote me in epoch @ep, and in
 * every other epoch in flight that waits for it too: one word a peer
 * holds the request (the oldest such epoch's low 24 bits and a mask of it
 * and the three after: the epochs in flight are at most DN_COLL_INFLIGHT
 * consecutive ones), so a later request must not drop an earlier one.
 */
static void ask(struct dn_coll_comm *c, struct coll_epoch *ep, struct coll_op *o, uint64_t now)
{
    uint32_t base = ep->epoch;
    unsigned mask = 0;

    for (unsigned i = 0; i < DN_COLL_INFLIGHT; i++) {
        const struct coll_epoch *e = c->ep[i];
        if (e && (int32_t)(e->epoch - base) < 0 && waits_for(c, e, o->peer, now)) {
            base = e->epoch;
        }
    }
    for (unsigned i = 0; i < DN_COLL_INFLIGHT; i++) {
        const struct coll_epoch *e = c->ep[i];
        uint32_t k = e ? e->epoch - base : 0;
        if (e && k < DN_COLL_INFLIGHT && (e == ep || waits_for(c, e, o->peer, now))) {
            mask |= 1u << k;
        }
    }
    o->asks++;
    c->ask_seq++;
    uint64_t v = (uint64_t)(c->gen & 0xffffffu) << 40 | (uint64_t)(c->ask_seq & 0xfffu) << 28 |
                 (uint64_t)mask << 24 | (base & 0xffffffu);
    coll_word_put(c, c->peer[o->peer].addr, coll_peer_block(c, o->peer) + COLL_NEED +
                  8u * c->rank, v);
    c->st.resend_asks++;
    uint64_t wait = c->resend_ns << (o->asks < 6 ? o->asks : 6);
    o->ask_at = now + (wait < c->resend_cap_ns ? wait : c->resend_cap_ns);
}

/* Take what has landed of a RECV's frames. */
static int take(struct dn_coll_comm *c, struct coll_epoch *ep, struct coll_op *o, void *into)
{
    dn_node *n = c->n;
    struct coll_geom g;
    int mcast = !!(o->flags & OPF_MCAST);

    coll_geom(ep->cell_size, mcast, o->bytes, &g);
    uint64_t cell = coll_region_off(n->port, c->ports, c->slot, 0, ep->epoch % DN_COLL_INFLIGHT) +
                    (uint64_t)o->cell * ep->cell_size;
    if (coll_small(c, o->bytes)) {
        uint64_t want = coll_stamp(c->gen, ep->epoch, o->cell, 0);
        uint64_t check = coll_ld64(n, cell + COLL_STAMP), word = 0, tag = coll_small_tag(want);

        dn_self_count(n, COLL_FRAME_INSNS);
        if ((check ^ tag) >> 32) {
            return 0;       /* not this epoch's yet */
        }
        if (o->bytes) {
            word = coll_ld64(n, cell + 2 * COLL_STAMP);
        }
        dn_host_work(n, DN_HOST_INSNS, COLL_CHECK_INSNS(1) + COLL_CHECK_INSNS(0));
        if (coll_small_check(want, tag, word, o->bytes) != check) {
            c->st.stale_frames++;
            return 0;
        }
        uint8_t w[8];
        dn_put_le(w, word, 8);
        memcpy(into, w, o->bytes);
        o->frames_done = 1;
        c->st.frames_taken++;
        c->peer[o->peer].in_comm = 1;
        return 1;
    }
    size_t per = g.fs - COLL_OVER;
    for (uint32_t f = 0; f < g.frames; f++) {
        if (o->frames_done & (1ull << f)) {
            continue;
        }
        uint64_t fr = cell + (uint64_t)f * g.fs;
        size_t len = o->bytes - (size_t)f * per < per ? o->bytes - (size_t)f * per : per;
        size_t padded = (len + 7) & ~(size_t)7;
        uint64_t want = coll_stamp(c->gen, ep->epoch, o->cell, f);

        dn_self_count(n, COLL_FRAME_INSNS);
        /* The NIC writes a packet's last 8 bytes last and its first 8
         * first: the tail, then the bytes, then the head, all of this
         * epoch, mean every byte read came from this epoch's writes. */
        if (coll_ld64(n, fr + 2 * COLL_STAMP + padded) != want) {
            continue;
        }
        uint8_t *to = (uint8_t *)into + (size_t)f * per;
        uint64_t check = coll_ld64(n, fr + COLL_STAMP);
        if (len) {
            dn_copy(n, to, n->hostmem + fr + 2 * COLL_STAMP, len);
        }
        if (coll_ld64(n, fr) != want) {
            c->st.stale_frames++;
            continue;
        }
        /* Whole stamps, a payload some late packet wrote into: not taken
         * (the writer's own write, or its resend, comes again). */
        dn_host_work(n, DN_HOST_INSNS, COLL_CHECK_INSNS(padded / 8));
        if (coll_check(want, to, len) != check) {
            c->st.stale_frames++;
            continue;
        }
        o->frames_done |= 1ull << f;
        c->st.frames_taken++;
        c->peer[o->peer].in_comm = 1;
    }
    return o->frames_done == (g.frames >= 64 ? ~0ull : (1ull << g.frames) - 1);
}

/* Write a SEND's message into its staging cell once per epoch. */
static uint64_t staged(struct dn_coll_comm *c, struct coll_epoch *ep, struct coll_op *o,
                       struct coll_geom *g)
{
    uint64_t local = coll_region_off(c->n->port, c->ports, c->slot, 1,
                                     ep->epoch % DN_COLL_INFLIGHT) +
                     (uint64_t)o->msg * ep->cell_size;
    if (!(ep->staged & (1ull << o->msg))) {
        coll_frames_write(c->n, c->n->hostmem + local, o->src, o->bytes, g, c->gen,
                          ep->epoch, o->cell);
        ep->staged |= 1ull << o->msg;
    }
    return local;
}

int coll_try_op(struct dn_coll_comm *c, struct coll_epoch *ep, struct coll_op *o, uint64_t now)
{
    dn_node *n = c->n;
    unsigned reg = ep->epoch % DN_COLL_INFLIGHT;

    switch (o->kind) {
    case OP_SEND: {
        if (!coll_credit(c, o->peer, ep->epoch)) {
            return 0;
        }
        uint64_t raddr = coll_peer_region(c, o->peer, reg) + (uint64_t)o->cell * ep->cell_size;
        dn_self_count(n, COLL_SEND_INSNS);
        if (coll_small(c, o->bytes)) {
            return small_send(c, ep, o, c->peer[o->peer].addr, raddr, 1ull << o->peer);
        }
        struct coll_geom g;
        coll_geom(ep->cell_size, 0, o->bytes, &g);
        uint64_t local = staged(c, ep, o, &g);
        int rc = dn_rdma_untracked(n, c->peer[o->peer].addr, raddr, local, g.span);
        if (rc != DN_OK) {
            return rc;
        }
        sent_to(c, ep, 1ull << o->peer);
        c->st.frames_sent += g.frames;
        return 1;
    }
    case OP_MCAST: {
        for (unsigned r = 0; r < c->size; r++) {
            if (!coll_credit(c, r, ep->epoch)) {
                return 0;
            }
        }
        uint64_t raddr = coll_region_off(c->n->port, c->ports, c->slot, 0, reg) +
                         (uint64_t)o->cell * ep->cell_size;
        uint64_t all = c->size >= 64 ? ~0ull : (1ull << c->size) - 1;
        if (coll_small(c, o->bytes)) {
            dn_self_count(n, COLL_SEND_INSNS);
            return small_send(c, ep, o, DN1_MCAST_BASE + (unsigned)c->cfg.mcast_group, raddr,
                              all);
        }
        struct coll_geom g;
        coll_geom(ep->cell_size, 1, o->bytes, &g);
        ep->mcast_copy = malloc(g.span);
        if (!ep->mcast_copy) {
            return DN_ENOMEM;
        }
        coll_frames_write(n, ep->mcast_copy, o->src, o->bytes, &g, c->gen, ep->epoch, o->cell);
        ep->mcast_len = g.span;
        ep->mcast_cell = o->cell;
        int rc = dn_botf_put_group(n, (unsigned)c->cfg.mcast_group, raddr, ep->mcast_copy,
                                   g.span);
        if (rc != DN_OK) {
            return rc;
        }
        sent_to(c, ep, all);
        c->st.frames_sent += g.frames;
        return 1;
    }
    case OP_RECV:
    case OP_RECV_RED: {
        if (!o->wait_since) {
            o->wait_since = now;
            o->ask_at = now + c->resend_ns;
        }
        void *into = o->kind == OP_RECV ? o->dst : (uint8_t *)ep->tmp + 0;
        if (o->kind == OP_RECV_RED) {
            into = (void *)o->src;      /* the op's own scratch */
        }
        if (!take(c, ep, o, into)) {
            if (now >= o->ask_at) {
                ask(c, ep, o, now);
            }
            return 0;
        }
        if (o->kind == OP_RECV_RED) {
            coll_combine(n, ep->req->type, ep->req->op, o->dst, into, o->count,
                         !!(o->flags & OPF_LEFT));
        }
        return 1;
    }
    case OP_COPY:
        if (o->bytes && o->dst != o->src) {
            memmove(o->dst, o->src, o->bytes);
            dn_host_work(n, DN_HOST_COPY, o->bytes);
        }
        return 1;
    case OP_CANON:
        coll_canon(n, ep->req->type, ep->req->op, o->dst, o->src, o->stride, c->size,
                   o->count);
        return 1;
    case OP_FW:
        return coll_fw_try(c, ep, o, now);
    }
    return DN_EINVAL;
}
