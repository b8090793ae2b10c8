/*
 * Data path: sends, receives, matching, rendezvous, probes, progress.
 *
 * Sends: a FIRST (header + the message, if at most DNF_EAGER bytes) by
 * dn_msg_isend to the peer under shim tag 0; a longer message's FIRST is
 * the header alone: it waits for the receiver's CTS and then goes straight
 * into the receive buffer by remote writes (zero-copy, dimmnet.h) or in
 * DNF_EAGER chunks under the CTS's shim tag, from the user's buffer. A
 * send that matches a receive the peer advertised (dimmnet_emx.c) goes as
 * DIRECT under that receive's tag, rest and all at once (a zero-copy one:
 * the bytes first, then the DIRECT). The completion comes when every shim message of it is delivered
 * and ACKed; an error entry when one fails (prov_errno: the shim's status).
 * At most 256 sends in flight (-FI_EAGAIN).
 *
 * Receives: DNF_BOUNCES shim receives for tag 0 from any peer stay posted;
 * they complete in arrival order, so each sender's FIRSTs are taken in
 * order. A FIRST is matched against the posted receives in posting order
 * (kind, source unless FI_ADDR_UNSPEC, tag under ~ignore); unmatched, it
 * waits in the unexpected list (first part only), which a new receive
 * searches first. A receive shorter than its message completes with
 * FI_ETRUNC (olen: the bytes cut); the sender sends only what it takes.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dimmnet.h"

#define DNF_TX_MAX   256u          /* tx_attr->size */
#define DNF_RX_MAX   256u          /* rx_attr->size */
#define DNF_PING_MS  1000          /* probe a peer we wait on for a CTS */

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned count_tx(const struct dnf_tx *t)
{
    unsigned n = 0;

    for (; t; t = t->next) {
        n++;
    }
    return n;
}

static unsigned count_rx(const struct dnf_rx *r)
{
    unsigned n = 0;

    for (; r; r = r->next) {
        n++;
    }
    return n;
}

static uint64_t op_flag(uint8_t flags)
{
    return flags & DNF_F_TAGGED ? FI_TAGGED : FI_MSG;
}

int dnf_tag_matches(uint8_t rflags, uint64_t rtag, uint64_t ignore, uint8_t flags,
                    uint64_t tag)
{
    /* Tagged meets tagged, untagged untagged (DNF_F_DATA plays no part). */
    return !((rflags ^ flags) & DNF_F_TAGGED) &&
           (!(flags & DNF_F_TAGGED) || ((rtag ^ tag) & ~ignore) == 0);
}

static int rx_matches(const struct dnf_rx *r, uint8_t flags, uint32_t node, uint64_t tag)
{
    return (r->src < 0 || r->src == node) &&
           dnf_tag_matches(r->flags, r->tag, r->ignore, flags, tag);
}

static struct dnf_rx *unlink_rx(struct dnf_rx **head, struct dnf_rx ***tail,
                                struct dnf_rx *r)
{
    struct dnf_rx **p = head;

    while (*p != r) {
        p = &(*p)->next;
    }
    *p = r->next;
    if (tail && !*p) {
        *tail = p;
    }
    r->next = NULL;
    return r;
}

/* ---- chunks: a transfer's rest, DNF_EAGER bytes a shim message ---------- */

unsigned dnf_chunk_count(size_t bytes)
{
    return (unsigned)((bytes + DNF_EAGER - 1) / DNF_EAGER);
}

/* A shim receive we no longer want: withdrawn, or, if a message completed
 * it meanwhile, tested (which frees it); 1 in that case. */
int dnf_recv_drop(struct dnf_ep *ep, dn_msg_req *req)
{
    int done = 0;

    if (req && dn_msg_cancel(ep->dom->node, req) != DN_OK) {
        dn_msg_test(ep->dom->node, req, &done, NULL);
    }
    return done;
}

/* dn_msg_test, without the progress it makes on an unfinished request:
 * dnf_progress made it once for all the requests it then polls. */
static int req_test(struct dnf_ep *ep, dn_msg_req *req, int *done,
                    struct dn_msg_status *st)
{
    if (!dn_msg_done(req)) {
        *done = 0;
        return DN_OK;
    }
    return dn_msg_test(ep->dom->node, req, done, st);
}

static int chunks_alloc(struct dnf_chunks *ch, size_t bytes)
{
    ch->n = dnf_chunk_count(bytes);
    ch->done = 0;
    ch->err = DN_OK;
    ch->req = ch->n ? calloc(ch->n, sizeof(*ch->req)) : NULL;
    return ch->n && !ch->req ? -FI_ENOMEM : 0;
}

int dnf_chunks_recv(struct dnf_ep *ep, struct dnf_chunks *ch, uint32_t node,
                    uint32_t rid, uint8_t *base, size_t bytes)
{
    int rc = chunks_alloc(ch, bytes);

    for (unsigned i = 0; !rc && i < ch->n; i++) {
        size_t off = (size_t)i * DNF_EAGER, k = bytes - off < DNF_EAGER ? bytes - off : DNF_EAGER;
        int r = dn_msg_irecv(ep->dom->node, (int)dnf_peer_addr(ep->dom, node), rid,
                             base + off, k, &ch->req[i]);

        if (r != DN_OK) {
            ch->n = i;           /* the ones posted can still be withdrawn */
            rc = -dnf_errno(r);
        }
    }
    return rc;
}

static int chunks_send(struct dnf_ep *ep, struct dnf_chunks *ch, uint32_t node,
                       uint32_t rid, const uint8_t *base, size_t bytes)
{
    int rc = chunks_alloc(ch, bytes);

    for (unsigned i = 0; !rc && i < ch->n; i++) {
        size_t off = (size_t)i * DNF_EAGER, k = bytes - off < DNF_EAGER ? bytes - off : DNF_EAGER;
        int r = dn_msg_isend(ep->dom->node, dnf_peer_addr(ep->dom, node), rid, base + off,
                             k, &ch->req[i]);

        if (r != DN_OK) {
            ch->n = i;
            ch->err = r;
            rc = -dnf_errno(r);
        }
    }
    return rc;
}

/* All done (or failed)? Chunks complete in order: test from the first open. */
static int chunks_test(struct dnf_ep *ep, struct dnf_chunks *ch)
{
    while (ch->done < ch->n) {
        struct dn_msg_status st;
        int done = 0, rc = req_test(ep, ch->req[ch->done], &done, &st);

        if (!done) {
            return 0;
        }
        ch->req[ch->done++] = NULL;
        if (rc != DN_OK && ch->err == DN_OK) {
            ch->err = rc;
        }
    }
    return 1;
}

/* Receives only; what completed meanwhile is tested and freed. */
void dnf_chunks_cancel(struct dnf_ep *ep, struct dnf_chunks *ch)
{
    for (unsigned i = ch->done; i < ch->n; i++) {
        dnf_recv_drop(ep, ch->req[i]);
    }
    free(ch->req);
    *ch = (struct dnf_chunks){ 0 };
}

/* ---- control messages --------------------------------------------------- */

int dnf_ctl_send(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h)
{
    struct dnf_ctl *c = calloc(1, sizeof(*c));
    int rc;

    if (!c) {
        return -FI_ENOMEM;
    }
    c->h = *h;
    c->h.magic = DNF_MAGIC;
    c->h.sess = ep->session;
    rc = dn_msg_isend(ep->dom->node, dnf_peer_addr(ep->dom, node), 0, &c->h, sizeof(c->h),
                      &c->req);
    if (rc != DN_OK) {
        free(c);
        return -dnf_errno(rc);
    }
    c->next = ep->ctl_head;
    ep->ctl_head = c;
    return 0;
}

/* ---- receive side ------------------------------------------------------- */

/* A message of @mlen bytes meets FI_MULTI_RECV buffer @p: a child receive
 * for it from the next free byte on (fi_msg(3): messages packed into the
 * buffer). Fewer than the endpoint's minimum left: @p is retired, taken off
 * the posted list if @posted. NULL: no memory. */
static struct dnf_rx *multi_child(struct dnf_ep *ep, struct dnf_rx *p, uint64_t mlen,
                                  int posted)
{
    struct dnf_rx *k = calloc(1, sizeof(*k));
    size_t left = p->len - p->moff;

    if (!k) {
        return NULL;
    }
    *k = (struct dnf_rx){ .flags = p->flags, .complete = p->complete,
                          .buf = (uint8_t *)p->buf + p->moff, .len = left,
                          .src = p->src, .context = p->context, .mparent = p };
    p->moff += mlen < left ? (size_t)mlen : left;
    p->mkids++;
    left = p->len - p->moff;
    if (!left || left < ep->min_multi_recv) {
        p->mdone = 1;
        if (posted) {
            unlink_rx(&ep->rx_head, &ep->rx_tail, p);
        }
    }
    return k;
}

static void rx_complete(struct dnf_ep *ep, struct dnf_rx *r)
{
    struct dnf_comp c = { 0 };
    struct dnf_rx *parent = r->mparent;
    int last = parent && !--parent->mkids && parent->mdone;

    c.e.op_context = r->context;
    c.e.flags = FI_RECV | op_flag(r->flags);
    c.e.len = r->taken;
    c.e.buf = r->buf;
    c.e.tag = r->flags & DNF_F_TAGGED ? r->mtag : 0;
    if (r->mflags & DNF_F_DATA) {
        c.e.flags |= FI_REMOTE_CQ_DATA;
        c.e.data = r->mdata;
    }
    c.src = dnf_av_addr(ep->av, r->node);
    if (r->ch.err != DN_OK && !r->err) {
        r->err = dnf_errno(r->ch.err) == FI_ETRUNC ? FI_EIO : dnf_errno(r->ch.err);
        c.prov_errno = r->ch.err;
        dnf_ep_fatal(ep, r->ch.err);
    }
    if (r->err) {
        c.err = r->err;
    } else if (r->mlen > r->len) {
        c.err = FI_ETRUNC;
        c.olen = r->mlen - r->len;
    }
    if (last) {
        c.e.flags |= FI_MULTI_RECV;   /* the buffer is the application's again */
    }
    if (c.err || r->complete || last) {
        dnf_cq_push(ep->rx_cq, &c);
    }
    dnf_mr_rndv_give(ep->dom, r->zc);    /* its pages stay on the card */
    r->zc = NULL;
    dnf_cntr_bump(ep->cntr_recv, c.err != 0);
    free(r->ch.req);
    free(r->stage);
    free(r);
    if (last) {
        free(parent);
    }
}

/* Receive @r (already off the posted list) meets the FIRST @h: first part
 * in, then either complete, or a rendezvous: chunks posted, CTS sent. */
static void rx_start(struct dnf_ep *ep, struct dnf_rx *r, uint32_t node,
                     const struct dnf_hdr *h, const uint8_t *part, size_t plen)
{
    uint64_t len = h->len;

    r->node = node;
    r->mflags = h->flags;
    r->mtag = h->tag;
    r->mlen = len;
    r->mdata = h->data;
    r->taken = len < r->len ? (size_t)len : r->len;
    if (plen > r->taken) {
        plen = r->taken;
    }
    if (plen) {
        dnf_copy(ep->dom, r->buf, part, plen);
    }
    if (len <= DNF_EAGER) {
        /* Long enough for zero-copy, but its FIRST crossed the receive's
         * advertisement (or came before the receive): copied once. */
        ep->stats.eager_long += r->taken > DNF_ZCOPY_MIN;
        rx_complete(ep, r);
        return;
    }
    /* Rendezvous: the rest comes under a fresh receive id, straight into
     * the buffer; the CTS says how much of the message this receive takes. */
    struct dnf_hdr cts = { .kind = DNF_K_CTS, .sid = h->sid, .rid = ++ep->next_rid,
                           .len = r->taken };
    int rc = 0;

    r->rid = cts.rid;
    ep->stats.rendezvous++;
    uint64_t zoff;
    if (r->taken > DNF_ZCOPY_MIN && ep->zcopy && !r->mparent &&
        !dnf_mr_rndv_take(ep->dom, r->buf, r->taken, &zoff, &r->zc)) {
        /* Zero-copy: the sender writes the rest there, then says DONE. */
        cts.flags = DNF_F_ZCOPY;
        cts.data = zoff;
        r->zc_wait = 1;
        ep->stats.zcopy_recv++;
    } else if (r->taken) {
        rc = dnf_chunks_recv(ep, &r->ch, node, cts.rid, r->buf, r->taken);
    }
    if (!rc) {
        rc = dnf_ctl_send(ep, node, &cts);
    }
    if (rc) {
        dnf_chunks_cancel(ep, &r->ch);
        r->err = -rc;
        rx_complete(ep, r);
        return;
    }
    r->next = ep->act_head;
    ep->act_head = r;
}

/* A message nobody will read (FI_DISCARD): its sender still waits for a
 * CTS if it was long; take nothing more. */
static void ux_discard(struct dnf_ep *ep, struct dnf_unexp *u)
{
    if (u->h.len > DNF_EAGER) {
        struct dnf_hdr h = { .kind = DNF_K_CTS, .sid = u->h.sid, .rid = ++ep->next_rid,
                             .len = 0 };

        dnf_ctl_send(ep, u->node, &h);
    }
    free(u);
}

static void first_arrived(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h,
                          const uint8_t *part, size_t plen)
{
    struct dnf_unexp *u;

    if (h->seq < ep->recv_first[node]) {   /* gaps are skipped numbers (dimmnet_emx.c) */
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "node %u: FIRST %u after %u\n", node,
                h->seq, ep->recv_first[node] - 1);
    }
    ep->recv_first[node] = h->seq + 1;
    if (plen > h->len || plen > DNF_EAGER || (h->len > DNF_EAGER && plen)) {
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "malformed FIRST from node %u dropped\n", node);
        return;
    }
    dnf_emx_decide(ep, node, h);
    for (struct dnf_rx *r = ep->rx_head; r; r = r->next) {
        if (r->adv != DNF_ADV_REMOTE && rx_matches(r, h->flags, node, h->tag)) {
            if (r->multi) {
                struct dnf_rx *k = multi_child(ep, r, h->len, 1);

                if (!k) {
                    break;                   /* kept as unexpected */
                }
                rx_start(ep, k, node, h, part, plen);
                return;
            }
            unlink_rx(&ep->rx_head, &ep->rx_tail, r);
            if (r->adv == DNF_ADV_OPEN) {
                dnf_emx_withdraw(ep, r);     /* ours now: the sender ignores it */
            }
            rx_start(ep, r, node, h, part, plen);
            return;
        }
    }
    u = malloc(sizeof(*u) + plen);
    if (!u) {
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "no memory for an unexpected message\n");
        return;
    }
    *u = (struct dnf_unexp){ .node = node, .h = *h, .part = plen };
    dnf_copy(ep->dom, u->data, part, plen);
    *ep->ux_tail = u;
    ep->ux_tail = &u->next;
}

static void cts_arrived(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h);

/* A zero-copy rest is in place (or, seq 1, its sender failed to write it). */
static void done_arrived(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h)
{
    for (struct dnf_rx *r = ep->act_head; r; r = r->next) {
        if (r->zc_wait && r->node == node && r->rid == h->rid) {
            r->zc_wait = 0;
            if (h->seq && !r->err) {
                r->err = FI_EIO;
            }
            return;
        }
    }
    FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "DONE from node %u for no receive (%u)\n", node,
            h->rid);
}

static void arrived(struct dnf_ep *ep, uint32_t node, const uint8_t *msg, size_t len)
{
    struct dnf_hdr h;

    if (len < sizeof(h)) {
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "short message from node %u dropped\n", node);
        return;
    }
    memcpy(&h, msg, sizeof(h));
    if (h.magic != DNF_MAGIC || node >= DNF_NODES) {
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "foreign message from node %u dropped\n", node);
        return;
    }
    if (h.sess) {
        ep->peer_sess[node] = h.sess;   /* messages are this process's peer's */
    }
    switch (h.kind) {
    case DNF_K_FIRST:
        first_arrived(ep, node, &h, msg + sizeof(h), len - sizeof(h));
        break;
    case DNF_K_CTS:
        cts_arrived(ep, node, &h);
        break;
    case DNF_K_PING:
        break;
    case DNF_K_WDATA:
        dnf_rma_notice(ep, node, &h);
        break;
    case DNF_K_REWRITE:
        dnf_emx_rewrite(ep, node, &h);
        break;
    case DNF_K_DONE:
        done_arrived(ep, node, &h);
        break;
    case DNF_K_JOIN:
        dnf_coll_msg(ep, node, &h, msg + sizeof(h), len - sizeof(h));
        break;
    default:
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "message kind %u from node %u dropped\n",
                h.kind, node);
    }
}

/* ---- send side ---------------------------------------------------------- */

static void tx_fail(struct dnf_tx *t, int rc)
{
    if (t->err == DN_OK) {
        t->err = rc;
    }
}

static void cts_arrived(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h)
{
    for (struct dnf_tx *t = ep->tx_head; t; t = t->next) {
        if (t->wait_cts && t->node == node && t->sid == h->sid) {
            size_t take = h->len < t->len ? (size_t)h->len : t->len;

            t->wait_cts = 0;
            if (take && (h->flags & DNF_F_ZCOPY)) {
                /* Straight into the receive buffer, then DONE. */
                t->zc = 1;
                t->zc_rid = h->rid;
                ep->stats.zcopy_sent++;
                if (dnf_rma_rndv(ep, t, node, h->data, t->ubuf, take)) {
                    t->zc_err = DN_ENOMEM;     /* DONE says it failed */
                }
            } else if (take) {
                chunks_send(ep, &t->ch, node, h->rid, t->ubuf, take);
                tx_fail(t, t->ch.err);
            }
            return;
        }
    }
    FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "CTS from node %u for no send (%u)\n", node, h->sid);
}

/* A zero-copy send: once the RMA has written it, the message saying so
 * (DIRECT under the receive's tag, or DONE), until delivered. 1: done. */
static int zc_step(struct dnf_ep *ep, struct dnf_tx *t)
{
    int done = 0, rc;

    if (t->zc == 1) {
        if (t->zc_busy) {
            return 0;
        }
        if (!t->zc_direct) {
            t->zh = (struct dnf_hdr){ .magic = DNF_MAGIC, .kind = DNF_K_DONE,
                                      .sess = ep->session, .rid = t->zc_rid,
                                      .len = t->len };
        }
        t->zh.seq = t->zc_err != DN_OK;  /* the receive fails with it */
        rc = dn_msg_isend(ep->dom->node, dnf_peer_addr(ep->dom, t->node),
                          t->zc_direct ? t->zc_rid : 0, &t->zh, sizeof(t->zh), &t->zc_req);
        if (rc == DN_EBUSY) {
            return 0;                    /* the shim's queue is full: later */
        }
        tx_fail(t, t->zc_err);
        if (rc != DN_OK) {
            tx_fail(t, rc);
            t->zc = 3;
            return 1;
        }
        t->zc = 2;
    }
    if (t->zc == 2) {
        rc = req_test(ep, t->zc_req, &done, NULL);
        if (!done) {
            return 0;
        }
        t->zc_req = NULL;
        tx_fail(t, rc);
        t->zc = 3;
    }
    return 1;
}

/* Done with @t? Then its completion (or error entry) and free. */
static int tx_finished(struct dnf_ep *ep, struct dnf_tx *t)
{
    if (t->land_rid && !dnf_emx_land_test(ep, t)) {
        return 0;
    }
    if (t->zc && !zc_step(ep, t)) {
        return 0;
    }
    if (t->req) {
        struct dn_msg_status st;
        int done = 0, rc = req_test(ep, t->req, &done, &st);

        if (!done) {
            return 0;
        }
        t->req = NULL;
        tx_fail(t, rc);
    }
    if (t->ping) {
        int done = 0, rc = req_test(ep, t->ping, &done, NULL);

        if (done) {
            t->ping = NULL;
            if (rc != DN_OK && t->wait_cts) {
                tx_fail(t, rc);  /* the receiver is gone */
                t->wait_cts = 0;
            }
        }
    }
    if (t->err == DN_OK && t->wait_cts) {
        if (!t->ping && now_ms() >= t->ping_at) {
            /* Read by the shim until delivered: the endpoint's own. */
            if (dn_msg_isend(ep->dom->node, dnf_peer_addr(ep->dom, t->node), 0, &ep->ping,
                             sizeof(ep->ping), &t->ping) != DN_OK) {
                t->ping = NULL;
            }
            t->ping_at = now_ms() + DNF_PING_MS;
        }
        return 0;
    }
    if (!chunks_test(ep, &t->ch) || t->ping) {
        return 0;
    }
    tx_fail(t, t->ch.err);
    if (t->err != DN_OK) {
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "send of %zu bytes to node %u failed: %s\n",
                t->len, t->node, dn_strerror(t->err));
        dnf_ep_fatal(ep, t->err);
    }
    if (t->err != DN_OK && !t->complete && !t->context) {
        /* An injected send (fi_inject, fi_tinject): the application gave
         * no context and asked for no completion, so an error entry would
         * name nothing (Open MPI's mtl ofi dereferences it). Logged above
         * and counted; the peer's later sends fail with entries. */
        ep->stats.inject_errors++;
    }
    dnf_cntr_bump(ep->cntr_send, t->err != DN_OK);
    if ((t->complete || t->err != DN_OK) && (t->context || t->complete)) {
        struct dnf_comp c = { 0 };

        c.e.op_context = t->context;
        c.e.flags = FI_SEND | op_flag(t->flags);
        c.e.len = t->len;
        c.e.tag = t->tag;
        c.src = FI_ADDR_NOTAVAIL;
        if (t->err != DN_OK) {
            c.err = dnf_errno(t->err) == FI_ETRUNC ? FI_EIO : dnf_errno(t->err);
            c.prov_errno = t->err;
        }
        dnf_cq_push(ep->tx_cq, &c);
    }
    free(t->ch.req);
    return 1;
}

/* ---- progress ----------------------------------------------------------- */

static int post_bounce(struct dnf_ep *ep, struct dnf_bounce *b)
{
    int rc = dn_msg_irecv(ep->dom->node, DN_ANY_SOURCE, 0, b->buf, sizeof(b->buf),
                          &b->req);

    return rc == DN_OK ? 0 : -dnf_errno(rc);
}

int dnf_post_bounces(struct dnf_ep *ep)
{
    for (unsigned i = 0; i < DNF_BOUNCES; i++) {
        int rc = post_bounce(ep, &ep->bounce[i]);

        if (rc) {
            return rc;
        }
    }
    ep->bounce_next = 0;
    return 0;
}

void dnf_progress(struct dnf_ep *ep)
{
    if (!ep->enabled) {
        return;
    }
    dnf_mr_page_service(ep->dom);
    if (!ep->messaging) {
        dnf_rma_progress(ep);
        dnf_atomic_progress(ep);
        return;
    }
    dnf_ep_fatal(ep, dn_msg_progress(ep->dom->node));   /* our board gone? */
    dnf_emx_progress(ep);
    dnf_rma_progress(ep);
    dnf_atomic_progress(ep);
    /* Arrivals under tag 0, in posting order of the bounces. */
    for (;;) {
        struct dnf_bounce *b = &ep->bounce[ep->bounce_next];
        struct dn_msg_status st;
        int done = 0, rc = req_test(ep, b->req, &done, &st);

        if (!done) {
            break;
        }
        b->req = NULL;
        /* The sender's address back to its peer number: none, a process
         * this run does not know. */
        int peer = dnf_peer_of(ep->dom, st.src);
        if (rc == DN_OK && peer < 0) {
            FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "message from address %#x, no peer, "
                    "dropped\n", st.src);
        } else if (rc == DN_OK) {
            arrived(ep, (uint32_t)peer, b->buf, st.len);
        } else {
            FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "receive from address %#x failed: %s\n",
                    st.src, dn_strerror(rc));
            dnf_ep_fatal(ep, rc);
        }
        if (post_bounce(ep, b)) {
            FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "cannot post a receive again\n");
            break;
        }
        ep->bounce_next = (ep->bounce_next + 1) % DNF_BOUNCES;
    }
    /* Advertised receives: has their DIRECT come? */
    for (struct dnf_rx *r = ep->rx_head, *next; r; r = next) {
        struct dn_msg_status st;
        int done = 0, rc;

        next = r->next;
        if (r->adv == DNF_ADV_NONE) {
            continue;
        }
        if (r->land || r->zone) {
            if (dnf_emx_landed(ep, r)) {
                unlink_rx(&ep->rx_head, &ep->rx_tail, r);
                rx_complete(ep, r);
            }
            continue;
        }
        rc = req_test(ep, r->first, &done, &st);
        if (!done) {
            continue;
        }
        r->first = NULL;
        unlink_rx(&ep->rx_head, &ep->rx_tail, r);
        if (dnf_emx_direct_done(ep, r, rc, &st)) {
            rx_complete(ep, r);
        } else {
            r->next = ep->act_head;
            ep->act_head = r;
        }
    }
    /* Receives waiting for the rest of their message. */
    for (struct dnf_rx **p = &ep->act_head; *p;) {
        struct dnf_rx *r = *p;

        if (!chunks_test(ep, &r->ch) || r->zc_wait) {
            p = &r->next;
            continue;
        }
        *p = r->next;
        rx_complete(ep, r);
    }
    /* Control messages the shim is done with. */
    for (struct dnf_ctl **p = &ep->ctl_head; *p;) {
        struct dnf_ctl *c = *p;
        int done = 0, rc = req_test(ep, c->req, &done, NULL);

        if (!done) {
            p = &c->next;
            continue;
        }
        *p = c->next;
        if (rc != DN_OK) {
            FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "control message %u to a peer failed: %s\n",
                    c->h.kind, dn_strerror(rc));
            /* A CTS that failed: the receive it belongs to fails with it. */
            for (struct dnf_rx *r = ep->act_head; c->h.kind == DNF_K_CTS && r; r = r->next) {
                if (r->rid == c->h.rid && r->ch.err == DN_OK) {
                    dnf_chunks_cancel(ep, &r->ch);   /* nothing more comes */
                    r->ch.err = rc;
                    r->zc_wait = 0;
                }
            }
        }
        free(c);
    }
    /* Sends the shim has finished, in any order. */
    for (struct dnf_tx **p = &ep->tx_head; *p;) {
        struct dnf_tx *t = *p;

        if (!tx_finished(ep, t)) {
            p = &t->next;
            continue;
        }
        *p = t->next;
        if (!*p) {
            ep->tx_tail = p;
        }
        if (!dnf_emx_keep(ep, t)) {
            free(t);
        }
    }
    /* Joins and collectives (FI_COLLECTIVE). */
    dnf_coll_progress(ep);
}

/* Does an operation with @flags complete on success? fi_inject and its kin
 * (FI_INJECT and no context) never do; fi_sendmsg with FI_INJECT does as
 * any send (the flag only gives the buffer back at return). */
static int wants_completion(int selective, uint64_t flags, const void *context)
{
    return !((flags & FI_INJECT) && !context) && (!selective || (flags & FI_COMPLETION));
}

ssize_t dnf_send(struct dnf_ep *ep, uint8_t kflags, const void *buf, size_t len,
                 fi_addr_t dest, uint64_t tag, uint64_t data, void *context,
                 uint64_t flags)
{
    int inject = (flags & FI_INJECT) != 0;
    struct dnf_hdr h = { .magic = DNF_MAGIC, .flags = kflags, .sess = ep->session,
                         .len = len };
    struct dnf_rreq *q;
    struct dnf_tx *t;
    uint32_t node;
    size_t take, part;
    int rc;

    dnf_enter();
    dn_host_work(ep->dom->node, DN_HOST_INSNS, inject ? ep->dom->charge.inject
                                                      : ep->dom->charge.send);
    if (!ep->enabled) {
        return -FI_EOPBADSTATE;
    }
    if (!ep->messaging) {
        return -FI_EOPNOTSUPP;    /* an RMA and atomics endpoint */
    }
    if (len > (inject ? DNF_INJECT_SIZE : DNF_MAX_MSG)) {
        return -FI_EMSGSIZE;
    }
    if (len && !buf) {
        return -FI_EINVAL;
    }
    if (dnf_av_node(ep->av, dest, &node) || node >= DNF_NODES) {
        return -FI_EINVAL;        /* not an address of this AV */
    }
    dnf_progress(ep);
    if (count_tx(ep->tx_head) >= DNF_TX_MAX) {
        return -FI_EAGAIN;
    }
    h.tag = kflags & DNF_F_TAGGED ? tag : 0;
    if (flags & FI_REMOTE_CQ_DATA) {
        h.flags |= DNF_F_DATA;
        h.data = data;
    }
    /* A receive the peer advertised and we took, that this send matches:
     * DIRECT, as much as it takes, at once. */
    q = dnf_emx_take(ep, node, kflags, h.tag);
    take = q && q->cap < len ? (size_t)q->cap : len;
    part = take < DNF_EAGER ? take : DNF_EAGER;
    t = calloc(1, sizeof(*t) + (sizeof(h) + part > DNF_LAND_PACKET ? sizeof(h) + part
                                                                   : DNF_LAND_PACKET));
    if (!t) {
        free(q);
        return -FI_ENOMEM;
    }
    t->flags = kflags;
    t->complete = wants_completion(ep->tx_selective, flags, context);
    t->node = node;
    t->sid = ++ep->next_sid;
    t->ubuf = buf;
    t->len = len;
    t->tag = h.tag;
    t->context = context;
    h.seen = ep->seen_rid[node];
    if (q && (q->zone || (q->land && take <= DNF_LAND_MAX))) {
        /* Its landing chunk or zone at the receiver: one remote write. */
        h.len = len;
        dnf_emx_land(ep, t, q, &h, buf, take);
        ep->stats.direct++;
        free(q);
        *ep->tx_tail = t;
        ep->tx_tail = &t->next;
        return 0;
    }
    if (q && q->zcopy && take > DNF_ZCOPY_MIN) {
        /* Its buffer is on the card: all of it by remote writes, then the
         * DIRECT (no payload) once they are in. */
        h.kind = DNF_K_DIRECT;
        h.flags |= DNF_F_ZCOPY;
        h.rid = q->rid;
        h.sid = dnf_emx_lfree(ep, node);
        t->zh = h;
        t->zc = 1;
        t->zc_direct = 1;
        t->zc_rid = q->rid;
        if (dnf_rma_rndv(ep, t, node, q->zc_off, buf, take)) {
            t->zc_err = DN_ENOMEM;       /* the DIRECT says it failed */
        }
        ep->stats.direct++;
        ep->stats.zcopy_sent++;
        free(q);
        *ep->tx_tail = t;
        ep->tx_tail = &t->next;
        return 0;
    }
    if (q) {
        h.kind = DNF_K_DIRECT;
        h.rid = q->rid;
        h.sid = dnf_emx_lfree(ep, node);
    } else {
        part = len > DNF_EAGER ? 0 : part;   /* a rendezvous: all of it after the CTS */
        h.kind = DNF_K_FIRST;
        h.seq = ep->sent_first[node];
        h.rid = dnf_emx_lfree(ep, node);
        h.sid = t->sid;
        t->wait_cts = len > DNF_EAGER;
        t->ping_at = now_ms() + DNF_PING_MS;
    }
    dnf_copy(ep->dom, t->buf, &h, sizeof(h));
    if (part) {
        dnf_copy(ep->dom, t->buf + sizeof(h), buf, part);
    }
    rc = dn_msg_isend(ep->dom->node, dnf_peer_addr(ep->dom, node), q ? q->rid : 0, t->buf,
                      sizeof(h) + part, &t->req);
    if (rc != DN_OK) {
        /* Nothing left: a taken RREQ stays taken, FIRST numbering unchanged. */
        if (q) {
            q->next = ep->rreq[node];
            ep->rreq[node] = q;
        }
        free(t);
        dnf_ep_fatal(ep, rc);
        return rc == DN_EBUSY ? -FI_EAGAIN : -dnf_errno(rc);
    }
    if (q) {
        ep->stats.direct++;
        if (take > DNF_EAGER) {
            chunks_send(ep, &t->ch, node, q->rid, t->ubuf + DNF_EAGER, take - DNF_EAGER);
            tx_fail(t, t->ch.err);
        }
        free(q);
    } else {
        ep->sent_first[node]++;
    }
    *ep->tx_tail = t;
    ep->tx_tail = &t->next;
    return 0;
}

/* FI_PEEK (with FI_CLAIM or FI_DISCARD), or FI_CLAIM of a claimed message. */
static ssize_t probe(struct dnf_ep *ep, struct dnf_rx *r, uint64_t flags)
{
    struct dnf_comp c = { 0 };

    c.e.op_context = r->context;
    c.e.flags = FI_RECV | op_flag(r->flags);
    for (struct dnf_unexp **p = &ep->ux_head; *p; p = &(*p)->next) {
        struct dnf_unexp *u = *p;

        if (flags & FI_PEEK ? u->claim != NULL ||
                              !rx_matches(r, u->h.flags, u->node, u->h.tag)
                            : u->claim != r->context) {
            continue;
        }
        c.e.len = u->h.len;
        c.e.tag = u->h.flags & DNF_F_TAGGED ? u->h.tag : 0;
        if (u->h.flags & DNF_F_DATA) {
            c.e.flags |= FI_REMOTE_CQ_DATA;
            c.e.data = u->h.data;
        }
        c.src = dnf_av_addr(ep->av, u->node);
        if ((flags & FI_PEEK) && !(flags & FI_DISCARD)) {
            if (flags & FI_CLAIM) {
                u->claim = r->context;
            }
            free(r);
            return dnf_cq_push(ep->rx_cq, &c) ? -FI_EAGAIN : 0;
        }
        *p = u->next;
        if (!*p) {
            ep->ux_tail = p;
        }
        if (flags & FI_DISCARD) {
            ux_discard(ep, u);
            free(r);
            return dnf_cq_push(ep->rx_cq, &c) ? -FI_EAGAIN : 0;
        }
        r->complete = 1;          /* FI_CLAIM: a receive like any other */
        rx_start(ep, r, u->node, &u->h, u->data, u->part);
        free(u);
        return 0;
    }
    free(r);
    if (!(flags & FI_PEEK)) {
        return -FI_EINVAL;        /* FI_CLAIM of nothing claimed by this context */
    }
    c.err = FI_ENOMSG;
    c.src = FI_ADDR_NOTAVAIL;
    return dnf_cq_push(ep->rx_cq, &c) ? -FI_EAGAIN : 0;
}

ssize_t dnf_recv(struct dnf_ep *ep, uint8_t kflags, void *buf, size_t len,
                 fi_addr_t src, uint64_t tag, uint64_t ignore, void *context,
                 uint64_t flags)
{
    struct dnf_rx *r;
    int64_t node = -1;

    dnf_enter();
    dn_host_work(ep->dom->node, DN_HOST_INSNS, ep->dom->charge.recv);
    if (!ep->enabled) {
        return -FI_EOPBADSTATE;
    }
    if (!ep->messaging) {
        return -FI_EOPNOTSUPP;    /* an RMA and atomics endpoint */
    }
    if (len && !buf && !(flags & (FI_PEEK | FI_DISCARD))) {
        return -FI_EINVAL;
    }
    if ((flags & FI_CLAIM) && !context) {
        return -FI_EINVAL;        /* the claim is known by its fi_context */
    }
    if (flags & FI_MULTI_RECV) {
        /* fi_recvmsg only (fi_msg(3)); not tagged, not with probes. */
        if ((kflags & DNF_F_TAGGED) || (flags & (FI_PEEK | FI_CLAIM | FI_DISCARD))) {
            return -FI_EBADFLAGS;
        }
    }
    /* Without FI_DIRECTED_RECV the source is ignored (fi_getinfo(3)), so an
     * address since removed from the AV is no error (fabtests av_xfer). */
    if (src != FI_ADDR_UNSPEC && ep->directed) {
        uint32_t n;

        if (dnf_av_node(ep->av, src, &n) || n >= DNF_NODES) {
            return -FI_EINVAL;
        }
        node = n;
    }
    dnf_progress(ep);
    /* rx_attr->size: with at most 256 sends and 256 receives outstanding,
     * the CQ (1024 at least) cannot overrun (FI_RM_ENABLED). */
    if (count_rx(ep->rx_head) + count_rx(ep->act_head) >= DNF_RX_MAX) {
        return -FI_EAGAIN;
    }
    r = calloc(1, sizeof(*r));
    if (!r) {
        return -FI_ENOMEM;
    }
    *r = (struct dnf_rx){ .flags = kflags,
                          .complete = wants_completion(ep->rx_selective, flags, context),
                          .buf = buf, .len = len, .src = node, .tag = tag,
                          .ignore = ignore, .context = context,
                          .multi = (flags & FI_MULTI_RECV) != 0 };
    if (flags & (FI_PEEK | FI_CLAIM)) {
        return probe(ep, r, flags);
    }
    /* An unexpected message it matches, oldest first; a multi-receive
     * buffer takes as many as it holds. */
    const int multi = r->multi;          /* r itself may be gone after rx_start */

    for (struct dnf_unexp **p = &ep->ux_head; *p;) {
        struct dnf_unexp *u = *p;
        struct dnf_rx *k = r;
        int retired = 0;

        if (u->claim || !rx_matches(r, u->h.flags, u->node, u->h.tag)) {
            p = &u->next;
            continue;
        }
        if (multi) {
            k = multi_child(ep, r, u->h.len, 0);
            if (!k) {
                break;                       /* the rest waits for the buffer */
            }
            retired = r->mdone;
        }
        *p = u->next;
        if (!*p) {
            ep->ux_tail = p;
        }
        rx_start(ep, k, u->node, &u->h, u->data, u->part);
        free(u);
        if (!multi || retired) {
            return 0;
        }
    }
    if (!multi) {
        dnf_emx_advertise(ep, r);        /* a multi-receive buffer is never advertised */
    }
    *ep->rx_tail = r;
    ep->rx_tail = &r->next;
    return 0;
}

/* Closing: what is still queued goes; shim receives into our buffers are
 * withdrawn first, and sends in flight get a little time to finish. */
void dnf_ep_drain(struct dnf_ep *ep)
{
    for (int i = 0; i < 1000 && (ep->tx_head || !dnf_rma_idle(ep)); i++) {
        dnf_progress(ep);
        if (ep->tx_head || !dnf_rma_idle(ep)) {
            dnf_idle(ep->dom->node);
        }
    }
    while (ep->rx_head) {
        struct dnf_rx *r = ep->rx_head;

        ep->rx_head = r->next;
        if (r->adv != DNF_ADV_NONE) {
            dnf_emx_withdraw(ep, r);
        }
        if (r->multi && r->mkids) {
            r->mdone = 1;                    /* its last child frees it */
        } else {
            free(r);
        }
    }
    while (ep->act_head) {
        struct dnf_rx *r = ep->act_head;

        ep->act_head = r->next;
        dnf_chunks_cancel(ep, &r->ch);
        dnf_mr_rndv_give(ep->dom, r->zc);
        if (r->mparent && !--r->mparent->mkids && r->mparent->mdone) {
            free(r->mparent);
        }
        free(r->stage);
        free(r);
    }
    while (ep->ux_head) {
        struct dnf_unexp *u = ep->ux_head;

        ep->ux_head = u->next;
        free(u);
    }
    for (unsigned i = 0; ep->enabled && ep->messaging && i < DNF_BOUNCES; i++) {
        dnf_recv_drop(ep, ep->bounce[i].req);
        ep->bounce[i].req = NULL;
    }
    if (ep->messaging) {
        dnf_emx_free(ep);
    }
}
