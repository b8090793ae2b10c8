/*
 * Message sender: per receiver, a window of packets numbered by f_seq, each
 * kept until ACKed. The receiving firmware takes packets in f_seq order
 * only, so an ACK for f_seq s means every packet before s has landed too.
 * A NACK for lack of room waits the RNR timer, then the window goes back to
 * the oldest unACKed packet; so does a SEQUENCE NACK (a packet was lost)
 * and a timeout. Every go-back starts a new round; NACKs of older rounds
 * are answers to packets already resent and change nothing.
 *
 * A timeout may only mean that the answers are late: a NIC's receive
 * pipeline is in order, so an ACK waits behind every packet that arrived
 * before it and needs the firmware (some 29 us of modeled time each for
 * a one-packet message). Resending the whole window would add to that
 * queue at both ends. So, as TCP: the wait is timeout_us or, if longer,
 * the measured answer time plus four times its variation (RFC 6298); a
 * timeout resends one packet (probe) until an answer comes and doubles
 * the wait (up to 8 times), which stays doubled until an answer to a
 * packet sent once has been timed (Karn).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "msg.h"
#include "dimmnet1/fw_types.h"

/* BOTF pieces (the paper's 464-byte packets); a message whose buffer lies
 * in this node's receive memory goes by RDMA in 2048-byte pieces instead. */
#define MSG_PKT_MAX DN_BOTF_MAX_PAYLOAD
#define MSG_RTO_SHIFT_MAX 3     /* the timeout grows to 8 x timeout_us */

static const char *reason_name(uint8_t r)
{
    static const char *const names[] = {
        [DN1_NACK_RANGE] = "RANGE", [DN1_NACK_BAD_POINTER] = "BAD_POINTER",
        [DN1_NACK_NO_HANDLER] = "NO_HANDLER", [DN1_NACK_NO_FIRMWARE] = "NO_FIRMWARE",
        [DN1_NACK_PROTECTION] = "PROTECTION", [DN1_NACK_NO_TRANSLATION] = "NO_TRANSLATION",
        [DN1_NACK_BUFFER_FULL] = "BUFFER_FULL", [DN1_NACK_TOO_LONG] = "TOO_LONG",
        [DN1_NACK_NO_BUFFER] = "NO_BUFFER", [DN1_NACK_SEQUENCE] = "SEQUENCE",
        [DN1_NACK_BAD_MESSAGE] = "BAD_MESSAGE", [DN1_NACK_BAD_PATH] = "BAD_PATH",
        [DN1_NACK_INCARNATION] = "INCARNATION",
        [DN1_NACK_NOT_RESIDENT] = "NOT_RESIDENT",
    };
    return r < sizeof(names) / sizeof(names[0]) && names[r] ? names[r] : "none";
}

/* NACKs that mean "no room now": retried after the RNR timer. */
static int reason_is_rnr(uint8_t r)
{
    return r == DN1_NACK_BUFFER_FULL || r == DN1_NACK_TOO_LONG ||
           r == DN1_NACK_NO_BUFFER || r == DN1_NACK_BAD_POINTER;
}

static struct msg_peer *peer_get(dn_node *n, unsigned dst)
{
    struct dn_msg_state *m = n->msg;

    if (dst >= m->npeers) {
        struct msg_peer *p = realloc(m->peers, (dst + 1) * sizeof(*p));
        if (!p) {
            return NULL;
        }
        memset(p + m->npeers, 0, (dst + 1 - m->npeers) * sizeof(*p));
        m->peers = p;
        m->npeers = dst + 1;
    }
    struct msg_peer *p = &m->peers[dst];
    if (!p->win) {
        p->win = calloc(m->cfg.window, sizeof(*p->win));
        if (!p->win) {
            return NULL;
        }
        p->inc = m->inc;
    }
    return p;
}

void dn_msg_peer_free(struct msg_peer *p)
{
    struct dn_msg_req *r = p->queue;

    /* Requests still queued belong to the caller, who can no longer wait
     * for them after dn_close; free them with the peer. */
    while (r) {
        struct dn_msg_req *next = r->next;
        if (!r->done) {
            free(r);
        }
        r = next;
    }
    free(p->win);
}

static void finish(dn_node *n, struct dn_msg_req *r, int err, const char *text)
{
    r->done = 1;
    r->st.error = err;
    if (text) {
        snprintf(r->st.text, sizeof(r->st.text), "%s", text);
    }
    if (err == DN_OK) {
        n->msg->stats.sent++;
    }
}

/* Pop finished sends off the front of @p's queue. */
static void pop_done(struct msg_peer *p)
{
    while (p->queue && p->queue->done) {
        p->queue = p->queue->next;
        if (!p->queue) {
            p->queue_tail = NULL;
        }
    }
}

/* Sender number @s as a person reads it: "node 3", or "node 3 port 1"
 * on boards of several host ports. */
static const char *peer_text(const dn_node *n, unsigned s, char buf[32])
{
    unsigned a = msg_addr(n, s);

    if (n->ports > 1) {
        snprintf(buf, 32, "node %u port %u", dn1_addr_node((uint16_t)a),
                 dn1_addr_port((uint16_t)a));
    } else {
        snprintf(buf, 32, "node %u", a);
    }
    return buf;
}

/* The peer is broken: this send and everything queued after it fail. */
static void peer_fail(dn_node *n, struct msg_peer *p, unsigned dst, int err,
                      unsigned count)
{
    struct dn_msg_req *head = p->queue;
    char who[32];

    peer_text(n, dst, who);

    p->failed = 1;
    p->fail_error = err;
    if (head && err != DN_ENACK && err != DN_ERETRY) {
        snprintf(p->fail_text, sizeof(p->fail_text),
                 "message to %s (tag %u, %zu bytes): the NIC refused a "
                 "packet's send: %s", who, head->st.tag, head->len,
                 dn_strerror(err));
    } else if (head && err == DN_ENACK) {
        snprintf(p->fail_text, sizeof(p->fail_text),
                 "message to %s (tag %u, %zu bytes) refused: NACK %s",
                 who, head->st.tag, head->len, reason_name(p->last_reason));
    } else if (head) {
        snprintf(p->fail_text, sizeof(p->fail_text),
                 "message to %s (tag %u, %zu bytes) not accepted after %u "
                 "retries; last NACK %s", who, head->st.tag, head->len, count,
                 reason_name(p->last_reason));
    }
    for (struct dn_msg_req *r = head; r; r = r->next) {
        r->st.nack_reason = p->last_reason;
        if (!r->done) {
            finish(n, r, err, r == head ? p->fail_text : NULL);
            if (r != head) {
                snprintf(r->st.text, sizeof(r->st.text),
                         "message to %s (tag %u) not sent: an earlier one "
                         "failed (%.70s)", who, r->st.tag, p->fail_text);
            }
        }
    }
    n->msg->inflight -= p->inflight;
    p->inflight = 0;
    p->queue = p->queue_tail = NULL;
}

int dn_msg_send_queue(dn_node *n, struct dn_msg_req *r, unsigned dst)
{
    struct msg_peer *p = peer_get(n, dst);
    char who[32];

    if (!p) {
        return DN_ENOMEM;
    }
    if (p->failed) {
        finish(n, r, p->fail_error, NULL);
        snprintf(r->st.text, sizeof(r->st.text), "message to %s (tag %u) "
                 "not sent: the connection failed earlier (%.70s)",
                 peer_text(n, dst, who), r->st.tag,
                 p->fail_text);
        return DN_OK;
    }
    r->next = NULL;
    if (p->queue_tail) {
        p->queue_tail->next = r;
    } else {
        p->queue = r;
    }
    p->queue_tail = r;
    return DN_OK;
}

/* Give queued messages f_seq numbers, as far as the window allows. */
static void assign(dn_node *n, struct msg_peer *p)
{
    unsigned w = n->msg->cfg.window;

    /* Requests are assigned in queue order: once the last one is wholly
     * assigned, so is every one (the common case: nothing to walk). */
    if (!p->queue_tail || p->queue_tail->end_seq) {
        return;
    }
    for (struct dn_msg_req *r = p->queue; r && p->assigned - p->una < w; r = r->next) {
        if (r->end_seq) {
            continue;           /* wholly assigned */
        }
        while (p->assigned - p->una < w) {
            size_t mtu = r->rdma ? DN1_RDMA_MAX_PAYLOAD : MSG_PKT_MAX;
            uint16_t chunk = (uint16_t)(r->len - r->assigned < mtu ? r->len - r->assigned : mtu);
            p->win[p->assigned % w] = (struct msg_pkt){
                .m = r, .xoff = (uint32_t)r->assigned, .len = chunk,
            };
            p->assigned++;
            r->assigned += chunk;
            if (r->assigned == r->len) {
                r->end_seq = p->assigned;
                break;
            }
        }
    }
}

/* Start a new round from the oldest unACKed packet. */
static void go_back(dn_node *n, struct msg_peer *p, uint64_t now)
{
    p->round = (p->round + 1) & 0x7fu;
    p->nxt = p->una;
    p->rtt_timing = 0;          /* an answer may now be to either copy */
    n->msg->inflight -= p->inflight;
    p->inflight = 0;
    p->last_progress = now;
}

static void transmit(dn_node *n, struct msg_peer *p, unsigned dst, uint64_t *now)
{
    struct dn_msg_state *m = n->msg;
    unsigned w = m->cfg.window;

    /* After a NACK for room, one packet probes until it is taken: the
     * rest of the window would only be NACKed SEQUENCE behind it. */
    unsigned limit = p->probe ? 1 : w;

    /* Puts and gets in flight share the completion queue. */
    uint32_t xfers = n->next_tag - n->first_tag - n->completed;

    while (!p->failed && !p->backoff && p->nxt < p->assigned &&
           p->nxt - p->una < limit && m->inflight + xfers < MSG_INFLIGHT_MAX) {
        const struct msg_pkt *k = &p->win[p->nxt % w];
        uint32_t tag = MSG_TAG(p->inc, p->round, p->nxt);

        if (p->nxt == p->una && !p->refused) {
            *now = dn_msg_now_ns(n);
            p->last_progress = *now;     /* the timeout runs from here */
        }
        if (p->nxt == p->hi && !p->rtt_timing) {
            /* A first transmission: time its answer. *now is this turn's
             * (read whenever something is in flight, or just above). */
            p->rtt_timing = 1;
            p->rtt_seq = p->nxt;
            p->rtt_sent = *now;
        }
        uint64_t env = DN1_MSG_RADDR_INC(k->m->st.tag, p->inc, k->m->len);
        int rc = k->m->rdma
            ? dn_rdma_packet(n, DN1_TYPE_MESSAGE, msg_addr(n, dst), env,
                             (uint64_t)(k->m->buf - n->hostmem) + k->xoff, k->xoff,
                             k->len, tag, (uint16_t)p->nxt)
            : dn_botf_packet_posted(n, DN1_TYPE_MESSAGE, 0, msg_addr(n, dst), env, k->xoff,
                                    k->m->buf + k->xoff, k->len, tag,
                                    (uint16_t)p->nxt);
        if (rc == DN_ELINKDOWN || rc == DN_EBUSY || rc == DN_ETIMEDOUT) {
            p->refused = 1;     /* the timeout resends, and bounds a link that stays down */
            break;
        }
        if (rc != DN_OK) {
            /* The host bus is broken (the board went away) or the NIC refused
             * the packet for good: no resend can cure it. */
            peer_fail(n, p, dst, rc, p->retries);
            break;
        }
        if (p->refused) {
            p->refused = 0;     /* sent at last: the timeout runs from here */
            *now = dn_msg_now_ns(n);
            p->last_progress = *now;
        }
        m->stats.packets++;
        if (p->nxt < p->hi) {
            m->stats.retransmits++;
            k->m->st.retries++;
        } else {
            p->hi = p->nxt + 1;
        }
        p->nxt++;
        p->inflight++;
        m->inflight++;
    }
}

/* Every packet before @upto has landed. */
static void acked_upto(dn_node *n, struct msg_peer *p, uint64_t upto, uint64_t now)
{
    if (p->rtt_timing && upto > p->rtt_seq) {
        uint64_t r = now - p->rtt_sent;

        if (!p->srtt) {
            p->srtt = r;
            p->rttvar = r / 2;
        } else {
            p->rttvar = (3 * p->rttvar + (p->srtt > r ? p->srtt - r : r - p->srtt)) / 4;
            p->srtt = (7 * p->srtt + r) / 8;
        }
        p->rtt_timing = 0;
        p->rto_shift = 0;       /* Karn: the backed-off wait holds until now */
    }
    p->una = upto;
    if (p->nxt < upto) {
        p->nxt = upto;          /* answers to packets we were about to resend */
    }
    p->retries = p->rnr_retries = 0;
    p->probe = 0;
    p->last_progress = now;
    for (struct dn_msg_req *r = p->queue; r && r->end_seq && r->end_seq <= upto;
         r = r->next) {
        if (!r->done) {
            finish(n, r, DN_OK, NULL);
        }
    }
    pop_done(p);
}

/*
 * The receiver knows no conversation for this packet (it was set up anew,
 * or its firmware started cold): start a newer incarnation and give every
 * unfinished message f_seq numbers again from 0, from its first byte. A
 * start the receiver refused as not newer than what it saw last (this
 * node's count began again) jumps a quarter of the circle.
 */
static void restart_conversation(dn_node *n, struct msg_peer *p, uint64_t seq,
                                 uint64_t now)
{
    p->inc += seq == 0 ? 64 : 1;
    if (p->inc == 0) {
        p->inc = 1;
    }
    dn_msg_inc_taken(n, p->inc);
    n->msg->stats.incarnations++;
    go_back(n, p, now);
    p->una = p->nxt = p->hi = p->assigned = 0;
    for (struct dn_msg_req *r = p->queue; r; r = r->next) {
        r->assigned = 0;
        r->end_seq = 0;
    }
    p->probe = 1;               /* the start alone, until it is taken */
}

void dn_msg_on_record(dn_node *n, uint32_t tag, uint8_t kind, uint8_t reason,
                      uint16_t from_addr)
{
    struct dn_msg_state *m = n->msg;
    struct msg_peer *p;
    uint64_t seq, now;
    uint16_t round = MSG_TAG_ROUND(tag);
    /* The answer comes from the port the packet went to (contract 1.29). */
    unsigned from = (unsigned)msg_sender_no(n, from_addr);

    if (!m || from >= m->npeers || !(p = &m->peers[from])->win || p->failed ||
        MSG_TAG_INC(tag) != p->inc) {
        return;                 /* not ours (an earlier process's or conversation's),
                                   or too late */
    }
    if (round == p->round && p->inflight) {
        p->inflight--;
        m->inflight--;
    }
    seq = p->una + (uint16_t)((uint16_t)tag - (uint16_t)p->una);
    if (seq >= p->hi) {
        return;                 /* behind una (already ACKed) or never sent */
    }
    now = dn_msg_now_ns(n);
    if (kind == DN1_CQ_KIND_ACK) {
        acked_upto(n, p, seq + 1, now);
        return;
    }
    m->stats.nacks++;
    p->last_reason = reason;
    if (round != p->round) {
        return;                 /* its round was resent already */
    }
    if (reason == DN1_NACK_INCARNATION) {
        if (++p->retries > m->cfg.retry && m->cfg.retry != 7) {
            peer_fail(n, p, from, DN_ERETRY, p->retries - 1);
            return;
        }
        restart_conversation(n, p, seq, now);
    } else if (reason == DN1_NACK_SEQUENCE) {
        m->stats.gaps++;
        if (++p->retries > m->cfg.retry && m->cfg.retry != 7) {
            peer_fail(n, p, from, DN_ERETRY, p->retries - 1);
            return;
        }
        go_back(n, p, now);
    } else if (reason_is_rnr(reason)) {
        if (++p->rnr_retries > m->cfg.rnr_retry && m->cfg.rnr_retry != 7) {
            peer_fail(n, p, from, DN_ERETRY, p->rnr_retries - 1);
            return;
        }
        go_back(n, p, now);
        p->backoff = 1;
        p->probe = 1;
        p->resend_at = now + dn_msg_rnr_ns(m->cfg.min_rnr_timer);
    } else {
        peer_fail(n, p, from, DN_ENACK, p->retries);   /* a retry cannot help */
    }
}

/*
 * A posted kick of a packet to @dst failed: that packet was not sent. The
 * link being down is what a kick that waited for its answer met too: the
 * window goes back and sends again (the timeout bounds a link that stays
 * down). Any other refusal cannot be cured by sending again: the
 * conversation fails with that error, as a NACK that no retry helps.
 */
void dn_msg_on_post_error(dn_node *n, unsigned dst_addr, uint32_t tag, int err)
{
    struct dn_msg_state *m = n->msg;
    struct msg_peer *p;
    uint16_t round = MSG_TAG_ROUND(tag);
    unsigned dst = (unsigned)msg_sender_no(n, dst_addr);

    if (!m || dst >= m->npeers || !(p = &m->peers[dst])->win || p->failed ||
        round != p->round || MSG_TAG_INC(tag) != p->inc) {
        return;                 /* gone, or its round was resent already */
    }
    uint64_t seq = p->una + (uint16_t)((uint16_t)tag - (uint16_t)p->una);
    if (seq >= p->nxt) {
        return;
    }
    if (err == DN_ELINKDOWN) {
        go_back(n, p, dn_msg_now_ns(n));
    } else {
        peer_fail(n, p, dst, err, p->retries);
    }
}

void dn_msg_send_progress(dn_node *n)
{
    struct dn_msg_state *m = n->msg;

    for (unsigned dst = 0; dst < m->npeers; dst++) {
        struct msg_peer *p = &m->peers[dst];
        uint64_t now = 0;

        if (!p->win || p->failed || (!p->queue && p->una == p->hi)) {
            continue;
        }
        if (p->backoff || p->nxt > p->una || p->refused) {
            now = dn_msg_now_ns(n);
        }
        if (p->backoff && now >= p->resend_at) {
            p->backoff = 0;
            p->last_progress = now;
        }
        uint64_t rto = (uint64_t)m->cfg.timeout_us * 1000u;
        if (p->srtt + 4 * p->rttvar > rto) {
            rto = p->srtt + 4 * p->rttvar;
        }
        if (!p->backoff && (p->nxt > p->una || p->refused) &&
            now - p->last_progress > rto << p->rto_shift) {
            /* No answer: a packet or its ACK was lost, or answers are late. */
            m->stats.timeouts++;
            if (++p->retries > m->cfg.retry && m->cfg.retry != 7) {
                peer_fail(n, p, dst, DN_ERETRY, p->retries - 1);
                continue;
            }
            go_back(n, p, now);
            p->probe = 1;       /* one packet until an answer comes */
            if (p->rto_shift < MSG_RTO_SHIFT_MAX) {
                p->rto_shift++;
            }
        }
        assign(n, p);
        transmit(n, p, dst, &now);
    }
}
