/*
 * Remote atomics (docs/hardware.md section 15): an ATOMIC packet per
 * request, by BOTF without ACK_REQ; the target's firmware answers with a
 * READ_RSP of the old value, which its NIC writes at the reply address and
 * posts as an ACK-kind completion record with the request's tag. Per
 * destination the requests are numbered (seq) in this node's session, at
 * most DN_ATOMIC_WINDOW unanswered; an unanswered one is sent again, same
 * seq and tag, and the firmware applies each seq once.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"
#include "dimmnet1/atomic.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/fw_types.h"

_Static_assert(DN_ATOMIC_WINDOW == DN1_ATOMIC_WINDOW, "the firmware's window");
_Static_assert(DN_ATOMIC_MAX <= DN1_LLCM_CQ_ENTRIES / 4, "answers fit the completion queue");

#define RTO_MAX_SHIFT 6         /* the backoff doubles up to 64 times */

struct dn_atomic_state {
    uint32_t session;
    uint32_t next_tag;          /* low 29 bits */
    uint32_t pending;
    uint32_t seq_nacked;        /* pending ones refused for a gap */
    uint64_t next_due_ns;       /* no pending one is due before (a turn's test is cheap) */
    uint64_t rto0_ns;
    unsigned reply_next;        /* dn_atomic's reply slots, in turn */
    struct atomic_peer {
        uint16_t next_seq;
        uint8_t mask;           /* bit k: seq next_seq - 1 - k unanswered */
        uint8_t broken;
    } *peers;
    unsigned npeers;
    dn_atomic_req *slot[DN_ATOMIC_MAX];     /* by tag mod DN_ATOMIC_MAX */
};

static uint32_t random_session(void)
{
    struct timespec ts;
    uint32_t s;

    clock_gettime(CLOCK_REALTIME, &ts);
    s = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec * 2654435761u ^
        (uint32_t)getpid() << 16;
    s ^= s >> 15;
    s *= 0x2c1b3c6du;
    s ^= s >> 12;
    return s ? s : 1;
}

/* One seq stream a target node, whichever of its host ports a request
 * names: the target's firmware keeps one source state per initiator
 * address (node | port), not per target port (docs/hardware.md section 15). */
#define PEER_OF(dst)  dn1_addr_node((uint16_t)(dst))

static struct dn_atomic_state *state(dn_node *n, unsigned dst)
{
    struct dn_atomic_state *a = n->atomic;

    if (!a) {
        a = calloc(1, sizeof(*a));
        if (!a) {
            return NULL;
        }
        const char *env = getenv("DIMMNET_ATOMIC_TIMEOUT_US");
        uint64_t us = env ? strtoull(env, NULL, 10) : 0;
        a->rto0_ns = us ? us * 1000u : n->timed ? 200000u : 20000000u;
        a->session = random_session();
        n->atomic = a;
    }
    if (dst >= a->npeers) {
        struct atomic_peer *p = realloc(a->peers, (dst + 1) * sizeof(*p));
        if (!p) {
            return NULL;
        }
        memset(p + a->npeers, 0, (dst + 1 - a->npeers) * sizeof(*p));
        a->peers = p;
        a->npeers = dst + 1;
    }
    return a;
}

void dn_atomic_fini(dn_node *n)
{
    if (n->atomic) {
        free(n->atomic->peers);
        free(n->atomic);
        n->atomic = NULL;
    }
}

uint32_t dn_atomic_inflight(const dn_node *n)
{
    return n->atomic ? n->atomic->pending : 0;
}

static int send(dn_node *n, dn_atomic_req *r)
{
    r->due_ns = dn_msg_now_ns(n) + r->rto_ns;
    if (r->due_ns < n->atomic->next_due_ns) {
        n->atomic->next_due_ns = r->due_ns;
    }
    return dn_botf_packet_posted(n, DN1_TYPE_ATOMIC, DN_BOTF_NO_ACK, r->dst,
                                 r->rva, 0, r->payload, DN1_ATOMIC_LEN, r->tag,
                                 r->seq);
}

/* @r is answered (or given up): out of the window and the table. */
static void finish(dn_node *n, dn_atomic_req *r, int error, uint8_t reason)
{
    struct dn_atomic_state *a = n->atomic;
    struct atomic_peer *p = &a->peers[PEER_OF(r->dst)];
    unsigned k = (uint16_t)(p->next_seq - 1 - r->seq);

    if (k < DN_ATOMIC_WINDOW) {
        p->mask &= (uint8_t)~(1u << k);
    }
    a->slot[r->tag % DN_ATOMIC_MAX] = NULL;
    a->pending--;
    if (r->seq_nacked) {
        r->seq_nacked = 0;
        a->seq_nacked--;
    }
    r->error = error;
    r->nack_reason = reason;
    r->state = 2;
}

int dn_atomic_post(dn_node *n, dn_atomic_req *r, unsigned dst, uint64_t rva,
                   unsigned op, unsigned datatype, const void *operand,
                   const void *compare, uint64_t reply_raddr)
{
    if (!n || !r || !operand || dst >= DN1_MCAST_BASE || !dn1_aop_ok(op) ||
        !dn1_adt_ok(datatype)) {
        return DN_EINVAL;
    }
    unsigned size = dn1_adt_size(datatype);
    if ((rva & (size - 1)) || (reply_raddr & (size - 1)) ||
        (!compare && (op >= DN1_AOP_CSWAP))) {
        return DN_EINVAL;
    }
    if (!dn1_raddr_writable(reply_raddr, size)) {
        return DN_ERANGE;
    }
    dn_self(n, DN_SELF_XFER);
    struct dn_atomic_state *a = state(n, PEER_OF(dst));
    if (!a) {
        return DN_ENOMEM;
    }
    struct atomic_peer *p = &a->peers[PEER_OF(dst)];
    if (p->broken) {
        return DN_ERETRY;
    }
    if ((p->mask & 0x80u) || a->pending >= DN_ATOMIC_MAX) {
        return DN_EBUSY;
    }
    uint32_t tag;
    do {                        /* a tag whose table slot is free */
        tag = 0x60000000u | (a->next_tag++ & 0x1fffffffu);
    } while (a->slot[tag % DN_ATOMIC_MAX]);

    *r = (dn_atomic_req){ .state = 1, .tag = tag, .dst = (uint16_t)dst,
                          .seq = p->next_seq, .rva = rva, .rto_ns = a->rto0_ns };
    uint64_t v = 0, c = 0;
    memcpy(&v, operand, size);              /* little-endian host */
    if (compare) {
        memcpy(&c, compare, size);
    }
    r->payload[DN1_ATOMIC_OFF_OP] = (uint8_t)op;
    r->payload[DN1_ATOMIC_OFF_DT] = (uint8_t)datatype;
    dn_put_le(r->payload + DN1_ATOMIC_OFF_SESSION, a->session, 4);
    dn_put_le(r->payload + DN1_ATOMIC_OFF_REPLY, reply_raddr, 8);
    dn_put_le(r->payload + DN1_ATOMIC_OFF_OPERAND, v, 8);
    dn_put_le(r->payload + DN1_ATOMIC_OFF_COMPARE, c, 8);

    int rc = send(n, r);
    if (rc != DN_OK) {
        r->state = 0;
        return rc;
    }
    p->next_seq++;
    p->mask = (uint8_t)(p->mask << 1 | 1u);
    a->slot[tag % DN_ATOMIC_MAX] = r;
    a->pending++;
    return DN_OK;
}

int dn_atomic_on_record(dn_node *n, uint32_t tag, uint8_t kind, uint8_t reason)
{
    struct dn_atomic_state *a = n->atomic;
    dn_atomic_req *r = a ? a->slot[tag % DN_ATOMIC_MAX] : NULL;

    if (!r || r->tag != tag) {
        return 0;       /* answered already, or not ours any more */
    }
    if (kind == DN1_CQ_KIND_ACK) {
        finish(n, r, DN_OK, 0);
        /* The gap that refused later ones is closed: resend them now. */
        for (unsigned i = 0; a->seq_nacked && i < DN_ATOMIC_MAX; i++) {
            dn_atomic_req *q = a->slot[i];
            if (q && PEER_OF(q->dst) == PEER_OF(r->dst) && q->seq_nacked) {
                q->seq_nacked = 0;
                a->seq_nacked--;
                q->due_ns = 0;
                a->next_due_ns = 0;
            }
        }
    } else if (reason == DN1_NACK_SEQUENCE) {
        if (!r->seq_nacked) {   /* an earlier one is missing there */
            r->seq_nacked = 1;
            a->seq_nacked++;
        }
    } else if (reason == DN1_NACK_NOT_RESIDENT) {
        /* Its target is being moved onto the card by the target's host:
         * sent again at its backoff, as an unanswered one is. */
    } else {
        finish(n, r, DN_ENACK, reason);
    }
    return 1;
}

/* Resend what is due: no answer within its backoff, or a closed gap. */
static int resend_due(dn_node *n)
{
    struct dn_atomic_state *a = n->atomic;
    uint64_t now = dn_msg_now_ns(n), next = UINT64_MAX;

    if (!a || !a->pending || now < a->next_due_ns) {
        return DN_OK;           /* a turn with nothing due: no walk of the table */
    }
    a->next_due_ns = UINT64_MAX;
    for (unsigned i = 0; a->pending && i < DN_ATOMIC_MAX; i++) {
        dn_atomic_req *r = a->slot[i];
        if (!r) {
            continue;
        }
        if (r->due_ns > now) {
            next = r->due_ns < next ? r->due_ns : next;
            continue;
        }
        if (r->due_ns) {        /* a timeout, not a closed gap */
            if (++r->timeouts > DN_ATOMIC_RETRIES) {
                a->peers[PEER_OF(r->dst)].broken = 1;
                finish(n, r, DN_ERETRY, 0);
                continue;
            }
            if (r->rto_ns < a->rto0_ns << RTO_MAX_SHIFT) {
                r->rto_ns *= 2;
            }
        }
        r->resends++;
        int rc = send(n, r);
        if (rc != DN_OK && rc != DN_ELINKDOWN) {
            a->next_due_ns = 0;         /* the rest not looked at: next turn */
            return rc;
        }
    }
    if (next < a->next_due_ns) {        /* send() lowered it for the resent ones */
        a->next_due_ns = next;
    }
    return DN_OK;
}

int dn_atomic_test(dn_node *n, dn_atomic_req *r, int *done)
{
    if (!n || !r || !done || r->state == 0) {
        return DN_EINVAL;
    }
    if (r->state == 1) {
        dn_cq_drain(n);
        int rc = resend_due(n);
        if (rc != DN_OK) {
            return rc;
        }
    }
    *done = r->state == 2;
    return *done ? r->error : DN_OK;
}

int dn_atomic(dn_node *n, unsigned dst, uint64_t rva, unsigned op,
              unsigned datatype, const void *operand, const void *compare,
              void *old, int timeout_ms)
{
    dn_atomic_req r;
    int done = 0, rc;

    if (!n || !old || timeout_ms < 0) {
        return DN_EINVAL;
    }
    struct dn_atomic_state *a = state(n, dst < DN1_MCAST_BASE ? PEER_OF(dst) : 0);
    if (!a) {
        return DN_ENOMEM;
    }
    /* 32 reply slots of 8 bytes in turn: a late duplicate answer of one
     * call lands where the next 31 do not look. */
    /* Host ports above 0 have their own 256 bytes in their LLCM block. */
    uint32_t off = (n->port ? n->llcm_port + DN1_LLCM_PORT_ATOMIC : DN_ATOMIC_LLCM_OFF) +
                   8u * (a->reply_next++ % 32u);
    int64_t deadline = dn_now_ms() + timeout_ms;

    rc = dn_atomic_post(n, &r, dst, rva, op, datatype, operand, compare,
                        DN1_RADDR_LLCM + off);
    while (rc == DN_EBUSY) {    /* the window is full of posted ones */
        if (dn_now_ms() >= deadline) {
            return DN_ETIMEDOUT;
        }
        dn_cq_drain(n);
        resend_due(n);
        dn_idle(n);
        rc = dn_atomic_post(n, &r, dst, rva, op, datatype, operand, compare,
                            DN1_RADDR_LLCM + off);
    }
    while (rc == DN_OK && !done) {
        rc = dn_atomic_test(n, &r, &done);
        if (rc == DN_OK && !done) {
            if (dn_now_ms() >= deadline) {
                /* Forgotten: its answer, if it comes, changes nothing. */
                finish(n, &r, DN_ETIMEDOUT, 0);
                return DN_ETIMEDOUT;
            }
            rc = dn_idle(n);
        }
    }
    if (rc == DN_OK) {
        dn_copy(n, old, n->llcm + off, dn1_adt_size(datatype));
    }
    return rc;
}
