/* LLCM completion queue: ACK/NACK records the NIC posts for our packets. */
#include <stdbool.h>
#include "internal.h"

/*
 * Packet @tag of transfer @r answered now: false if it was already (the
 * bitmap is authoritative for a transfer's first 64 packets, the table
 * being overwritten by later tags: a resent packet's first answer counts
 * once, whichever copy it answers).
 */
static bool first_answer(dn_node *n, struct dn_xfer_rec *r, uint32_t tag)
{
    if (n->answered[tag % DN_ANSWERED] == tag) {
        return false;
    }
    if (tag - r->first_tag < DN_REDO_PACKETS) {
        uint64_t bit = 1ull << (tag - r->first_tag);

        if (r->answered & bit) {
            return false;
        }
        r->answered |= bit;
    }
    n->answered[tag % DN_ANSWERED] = tag;
    return true;
}

/*
 * Credit a completion to the open transfer whose tag range holds @tag.
 * Returns false for anything else: an answer to a transfer already waited
 * for or forgotten, a second answer to the same packet (a duplicate the
 * network made, or a firmware answering a duplicate again), or one more
 * answer than a transfer has packets. Those change nothing.
 */
static bool credit(dn_node *n, uint32_t tag, uint8_t kind, uint8_t reason,
                   uint16_t from)
{
    for (unsigned i = 0; i < DN_XFER_SLOTS; i++) {
        struct dn_xfer_rec *r = &n->xfers[i];

        if (!r->in_use || tag - r->first_tag >= r->packets) {
            continue;
        }
        if (r->acked + r->nacked + r->failed >= r->packets || !first_answer(n, r, tag)) {
            return false;       /* this packet was answered already */
        }
        if (kind == DN1_CQ_KIND_ACK) {
            r->acked++;
        } else if (r->nacked++ == 0) {
            r->reason = reason;
            r->from = from;
        }
        return true;
    }
    return false;
}

/*
 * A posted packet of a transfer was refused by the NIC (nothing sent): it
 * counts as answered, and dn_wait() returns the first such error. A
 * transfer already forgotten counted it as done when it was forgotten.
 */
void dn_xfer_post_error(dn_node *n, uint32_t tag, int err)
{
    for (unsigned i = 0; i < DN_XFER_SLOTS; i++) {
        struct dn_xfer_rec *r = &n->xfers[i];

        if (!r->in_use || tag - r->first_tag >= r->packets ||
            r->acked + r->nacked + r->failed >= r->packets || !first_answer(n, r, tag)) {
            continue;
        }
        if (r->failed++ == 0) {
            r->error = err;
        }
        n->completed++;
        return;
    }
}

void dn_cq_drain(dn_node *n)
{
    dn_hb_reap(n);      /* posted requests' failures, before completions */
    uint32_t produced = dn_ld32(n, n->llcm_port + DN1_LLCM_CQ_PRODUCED);

    if (n->cq_consumed == produced) {
        return;
    }
    while (n->cq_consumed != produced) {
        uint8_t rec[sizeof(struct dn1_cq_rec)];

        dn_nic_read(n, rec, n->llcm + n->llcm_port + DN1_LLCM_CQ_RING +
                    (n->cq_consumed % DN1_LLCM_CQ_ENTRIES) * sizeof(struct dn1_cq_rec),
                    sizeof(rec));
        uint32_t tag = (uint32_t)dn_get_le(rec + offsetof(struct dn1_cq_rec, tag), 4);
        uint8_t kind = rec[offsetof(struct dn1_cq_rec, kind)];
        uint8_t reason = rec[offsetof(struct dn1_cq_rec, reason)];
        uint16_t from = (uint16_t)dn_get_le(rec + offsetof(struct dn1_cq_rec, src), 2);

        if (tag & DN_MSG_TAG_BIT) {
            dn_msg_on_record(n, tag, kind, reason, from);
        } else if ((tag & DN_ATOMIC_TAG_MASK) == DN_ATOMIC_TAG) {
            dn_atomic_on_record(n, tag, kind, reason);
        } else if (tag & DN_BAR_TAG_BIT) {
            dn_barrier_on_record(n, tag, kind, reason, from);
        } else if (credit(n, tag, kind, reason, from)) {
            n->completed++;
        }
        n->cq_consumed++;
    }
    dn_st32(n, n->llcm_port + DN1_LLCM_CQ_CONSUMED, n->cq_consumed);
}

static uint32_t in_flight(dn_node *n)
{
    return n->next_tag - n->first_tag - n->completed + dn_msg_inflight(n) +
           dn_atomic_inflight(n);
}

int dn_cq_wait_room(dn_node *n, uint32_t limit, int timeout_ms)
{
    int64_t deadline = dn_now_ms() + timeout_ms;

    limit = limit > DN_CQ_SPARE ? limit - DN_CQ_SPARE : 1;
    /* Completions are read (uncached loads) only when there is no room
     * without them. */
    if (in_flight(n) < limit) {
        return DN_OK;
    }
    for (;;) {
        dn_cq_drain(n);
        if (in_flight(n) < limit) {
            return DN_OK;
        }
        if (dn_now_ms() >= deadline) {
            return DN_ETIMEDOUT;
        }
        int rc = dn_idle(n);
        if (rc != DN_OK) {
            return rc;
        }
    }
}

int dn_wait(dn_node *n, dn_xfer *x, int timeout_ms)
{
    struct dn_xfer_rec *r;
    int64_t deadline;

    if (!n || !x || timeout_ms < 0) {
        return DN_EINVAL;
    }
    r = &n->xfers[x->id % DN_XFER_SLOTS];
    if (!r->in_use || r->id != x->id) {
        return DN_ESTALE;
    }
    deadline = dn_now_ms() + timeout_ms;
    for (;;) {
        dn_cq_drain(n);
        x->packets = r->packets;
        x->acked = r->acked;
        x->nacked = r->nacked;
        x->nack_reason = r->reason;
        x->nack_from = r->from;
        if (r->acked + r->nacked + r->failed >= r->packets) {
            r->in_use = 0;   /* done: its record may be reused */
            return r->failed ? r->error : r->nacked ? DN_ENACK : DN_OK;
        }
        if (dn_now_ms() >= deadline) {
            return DN_ETIMEDOUT;
        }
        int rc = dn_idle(n);
        if (rc != DN_OK) {
            return rc;
        }
    }
}
