/*
 * Message exchange internals, shared by msg.c (set-up, requests, progress),
 * msg_send.c (the sender's window, NACKs and resends) and msg_recv.c
 * (notices, matching, the stash, freeing system-buffer space).
 */
#ifndef DN_MSG_H
#define DN_MSG_H

#include <stdint.h>
#include "internal.h"
#include "dimmnet1/message.h"

/* At most this many message packets unanswered node-wide: the completion
 * queue holds 256, atomics' answers take up to DN_ATOMIC_MAX, and records
 * nobody counts (late answers from abandoned rounds, duplicates) need room
 * too (DN_CQ_SPARE). */
#define MSG_INFLIGHT_MAX (DN1_LLCM_CQ_ENTRIES - DN_ATOMIC_MAX - DN_CQ_SPARE)

struct dn_msg_req {
    int done;
    struct dn_msg_req *next;    /* in its peer's send queue or the posted list */
    struct dn_msg_status st;
    /* send */
    const uint8_t *buf;
    size_t len;
    uint64_t end_seq;           /* one past its last packet, once all assigned */
    size_t assigned;            /* bytes given packets so far */
    int rdma;                   /* buf is in receive memory: the NIC reads it (RDMA) */
    /* receive */
    int src;
    int64_t tag;
    uint8_t *rbuf;
    size_t cap;
};

/* A packet in a sender's window: which message and which bytes. */
struct msg_pkt {
    struct dn_msg_req *m;
    uint32_t xoff;
    uint16_t len;
};

/* Towards one receiver. f_seq values are kept extended to 64 bits; the low
 * 16 go on the wire. [una, hi) are sent and unACKed, nxt is the next to
 * (re)transmit, [hi, assigned) wait for their first transmission. */
struct msg_peer {
    uint64_t una, nxt, hi, assigned;
    uint8_t inc;                /* the conversation's incarnation (the envelope's bits 31..24) */
    struct msg_pkt *win;        /* cfg.window entries, by seq % window */
    struct dn_msg_req *queue, *queue_tail;   /* sends not wholly assigned or not done */
    uint16_t round;             /* 7 bits: answers to older rounds' NACKs are stale */
    uint32_t inflight;          /* this round's transmissions unanswered */
    int backoff;                /* waiting out an RNR timer */
    int probe;                  /* after it: one packet at a time until one is taken */
    int refused;                /* the NIC refused the next packet (link down): the
                                 * timeout runs from the first refusal */
    uint64_t resend_at;         /* ns */
    uint64_t last_progress;     /* ns: an ACK moved una, or the round began */
    /* Answer time, measured on one packet at a time, never on a resent
     * one (Karn), smoothed as RFC 6298 does. */
    uint64_t rtt_seq, rtt_sent; /* the packet being timed; when it left */
    int rtt_timing;
    uint64_t srtt, rttvar;      /* ns; srtt 0: no sample yet */
    unsigned rto_shift;         /* timeouts double the wait until a sample comes */
    unsigned retries, rnr_retries;   /* for the packet at una */
    uint8_t last_reason;
    int failed;                 /* retries ran out or a fatal NACK: peer broken */
    char fail_text[160];
    int fail_error;
};

/* What a receiver keeps per sender. */
struct msg_alloc {              /* a system-buffer entry, in ring order */
    uint32_t span;
    int released;
};
struct msg_sender {
    uint16_t setup_gen;
    uint32_t expect_no;         /* msg_no of the next notice */
    uint32_t freed;
    struct msg_alloc *allocs;   /* FIFO of entries not yet freed */
    size_t nallocs, allocs_head, allocs_cap;
    uint16_t post_gen;          /* posts made (the slot's post_gen) */
};

/* An arrival waiting for its receive (the stash). */
struct msg_arrival {
    struct msg_arrival *next;
    unsigned src;
    uint32_t tag, len;
    const uint8_t *data;        /* in the ring, a user buffer, or @heap */
    uint8_t *heap;
    uint64_t alloc_id;          /* ring entry to release, or UINT64_MAX */
};

struct dn_msg_state {
    struct dn_msg_config cfg;
    uint8_t inc;                /* the newest incarnation this node's conversations took */
    struct msg_peer *peers;     /* by destination node id, grown on demand */
    unsigned npeers;
    uint32_t inflight;          /* all peers */
    struct msg_sender senders[DN1_MSG_SENDERS];
    uint32_t nq_consumed;
    struct dn_msg_req *posted, *posted_tail;
    struct msg_arrival *stash, *stash_tail;
    uint64_t stash_heap_bytes;
    struct dn_msg_stats stats;
};

void dn_msg_send_progress(dn_node *n);
void dn_msg_recv_progress(dn_node *n);
int dn_msg_send_queue(dn_node *n, struct dn_msg_req *r, unsigned dst);
int dn_msg_recv_post(dn_node *n, struct dn_msg_req *r);
/* Take @r off the posted list and free it; 0 if it was not posted. */
int dn_msg_recv_withdraw(dn_node *n, struct dn_msg_req *r);
void dn_msg_peer_free(struct msg_peer *p);
void dn_msg_recv_free(dn_node *n);

/* A message packet's tag (the sender's cookie, echoed by the ACK/NACK):
 * DN_MSG_TAG_BIT | incarnation << 23 | round << 16 | f_seq's low 16 bits. */
#define MSG_TAG(inc, round, seq) \
    (DN_MSG_TAG_BIT | (uint32_t)(uint8_t)(inc) << 23 | ((uint32_t)(round) & 0x7fu) << 16 | \
     (uint16_t)(seq))
#define MSG_TAG_INC(tag)    ((uint8_t)((tag) >> 23))
#define MSG_TAG_ROUND(tag)  ((uint16_t)(((tag) >> 16) & 0x7fu))

void dn_msg_inc_taken(dn_node *n, uint8_t inc);
/* Every sender's system buffer anew (dn_msg_init, and after a cold start). */
void dn_msg_setup_senders(dn_node *n);

/* Host ports (contract 1.29): each port receives on its own control block
 * and share of slots. Inside the message layer a peer is its sender number
 * (dn1_msg_sender: node * ports + port; the node id with one port), on
 * the wire and in the API its address (node | port << 12). */
#define MSG_CTRL(n)      dn1_llcm_msg_ctrl((n)->port)
#define MSG_SLOT(n, s)   dn1_llcm_msg_slot((n)->port, (n)->ports, (s))
static inline unsigned msg_addr(const dn_node *n, unsigned s)
{
    return dn1_msg_sender_addr(s, n->ports);
}

static inline int msg_sender_no(const dn_node *n, unsigned addr)
{
    return dn1_msg_sender(addr, n->ports);
}

#endif
