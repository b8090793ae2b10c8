/* LLCM completion queue: ACK/NACK records the NIC posts for our packets. */
#include <sched.h>
#include "internal.h"

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

void dn_cq_drain(dn_node *n)
{
    uint32_t produced = __atomic_load_n((uint32_t *)(n->llcm + DN1_LLCM_CQ_PRODUCED),
                                        __ATOMIC_ACQUIRE);

    while (n->cq_consumed != produced) {
        const uint8_t *rec = n->llcm + DN1_LLCM_CQ_RING +
            (n->cq_consumed % DN1_LLCM_CQ_ENTRIES) * sizeof(struct dn1_cq_rec);
        uint32_t tag = le32(rec + offsetof(struct dn1_cq_rec, tag));
        struct dn_slot *s = &n->slots[tag % DN_TAG_SLOTS];

        if (s->tag == tag && s->state == SLOT_PENDING) {
            s->state = rec[offsetof(struct dn1_cq_rec, kind)] == DN1_CQ_KIND_ACK
                       ? SLOT_ACKED : SLOT_NACKED;
            s->reason = rec[offsetof(struct dn1_cq_rec, reason)];
            s->from = (uint16_t)(rec[offsetof(struct dn1_cq_rec, src)] |
                                 rec[offsetof(struct dn1_cq_rec, src) + 1] << 8);
            n->completed++;
        }
        /* A record for a tag we do not wait on (duplicate, or one from
         * before dn_open) is consumed and ignored. */
        n->cq_consumed++;
    }
    __atomic_store_n((uint32_t *)(n->llcm + DN1_LLCM_CQ_CONSUMED), n->cq_consumed,
                     __ATOMIC_RELEASE);
}

int dn_cq_wait_room(dn_node *n, uint32_t limit, int timeout_ms)
{
    int64_t deadline = dn_now_ms() + timeout_ms;

    for (;;) {
        dn_cq_drain(n);
        if (n->next_tag - n->completed < limit) {
            return DN_OK;
        }
        if (dn_now_ms() >= deadline) {
            return DN_ETIMEDOUT;
        }
        sched_yield();
    }
}

int dn_wait(dn_node *n, dn_xfer *x, int timeout_ms)
{
    int64_t deadline;

    if (!n || !x || timeout_ms < 0) {
        return DN_EINVAL;
    }
    if (n->next_tag - x->first_tag > DN_TAG_SLOTS ||
        x->packets > n->next_tag - x->first_tag) {
        return DN_ESTALE;
    }
    deadline = dn_now_ms() + timeout_ms;
    for (;;) {
        dn_cq_drain(n);
        x->acked = x->nacked = 0;
        for (uint32_t i = 0; i < x->packets; i++) {
            const struct dn_slot *s = &n->slots[(x->first_tag + i) % DN_TAG_SLOTS];

            if (s->tag != x->first_tag + i) {
                return DN_ESTALE;
            }
            if (s->state == SLOT_ACKED) {
                x->acked++;
            } else if (s->state == SLOT_NACKED) {
                if (x->nacked++ == 0) {
                    x->nack_reason = s->reason;
                    x->nack_from = s->from;
                }
            }
        }
        if (x->acked + x->nacked == x->packets) {
            return x->nacked ? DN_ENACK : DN_OK;
        }
        if (dn_now_ms() >= deadline) {
            return DN_ETIMEDOUT;
        }
        sched_yield();
    }
}
