/*
 * The firmware combine (NBC-SIA's "on the NIC"; docs/collectives.md "The
 * firmware combine"; contract: docs/hardware.md section 11, "Combining"):
 * an integer reduction of up to 8 bytes, or a barrier, as one combining
 * barrier at rank 0's board. Each member makes one AOTF store of its value to the counter,
 * the NIC processor combines the values as they arrive and sends the
 * result with the release into every member's LLCM, where the member's
 * host polls one word. No member's host combines or forwards anything:
 * a non-blocking form needs no progress from it until it wants the result.
 */
#include <stdlib.h>
#include <string.h>
#include "coll.h"
#include "dimmnet1/barrier.h"
#include "dimmnet1/fw_types.h"

_Static_assert(COLL_FW_GROUP(DN_COLL_COMMS - 1) < DN1_BAR_GROUPS, "a firmware group a slot");
_Static_assert(COLL_FW_LLCM(DN_COLL_COMMS) <= 0xc000u, "below the ports' LLCM blocks");
_Static_assert(COLL_FW_CH(DN_COLL_COMMS - 1) < 32u, "an AOTF channel a slot");
_Static_assert(DN_COLL_INT32 == DN1_COMB_T_INT32 && DN_COLL_INT64 == DN1_COMB_T_INT64 &&
               DN_COLL_UINT64 == DN1_COMB_T_UINT64, "types numbered as the firmware's");
_Static_assert(DN_COLL_SUM == DN1_COMB_OP_SUM && DN_COLL_PROD == DN1_COMB_OP_PROD &&
               DN_COLL_MIN == DN1_COMB_OP_MIN && DN_COLL_MAX == DN1_COMB_OP_MAX &&
               DN_COLL_BAND == DN1_COMB_OP_BAND && DN_COLL_BOR == DN1_COMB_OP_BOR &&
               DN_COLL_BXOR == DN1_COMB_OP_BXOR, "ops numbered as the firmware's");

#define OPF_ARRIVED 4u   /* OP_FW: its value stored at the counter */
/* The host's instructions of dn1_comb_check and the compare: three
 * multiplies, two shifts and xors, the compare. */
#define COLL_FW_CHECK_INSNS 12u

/* Rank 0: describe the combining group to its own firmware (the
 * descriptor in the NIC-reserved LLCM, generation bumped last). */
static void setup_group(struct dn_coll_comm *c)
{
    dn_node *n = c->n;
    uint8_t *d = n->llcm + DN1_LLCM_BAR_GROUPS + 32u * COLL_FW_GROUP(c->slot);
    uint64_t members = 0;

    for (unsigned r = 0; r < c->size; r++) {
        members |= 1ull << c->peer[r].addr;
    }
    uint16_t gen = (uint16_t)(dn_get_le(d + offsetof(struct dn1_bar_group, setup_gen), 2) + 1);
    dn_put_le(d + offsetof(struct dn1_bar_group, members_lo), (uint32_t)members, 4);
    dn_put_le(d + offsetof(struct dn1_bar_group, members_hi), (uint32_t)(members >> 32), 4);
    dn_put_le(d + offsetof(struct dn1_bar_group, done_off), COLL_FW_LLCM(c->slot), 4);
    d[offsetof(struct dn1_bar_group, mode)] =
        (uint8_t)(DN1_BAR_MODE_COMBINE | (c->mcast_ok ? DN1_BAR_MODE_MCAST : DN1_BAR_MODE_RANKS));
    d[offsetof(struct dn1_bar_group, mcast_group)] =
        (uint8_t)(c->mcast_ok ? c->cfg.mcast_group : 0);
    dn_put_le(d + offsetof(struct dn1_bar_group, first_epoch), c->fw_base, 4);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    dn_put_le(d + offsetof(struct dn1_bar_group, setup_gen), gen ? gen : 1, 2);
    dn_host_charge(n, DN_HOST_STORE, 6);
}

void coll_fw_open(struct dn_coll_comm *c)
{
    int ok = c->aotf_ok && c->size <= DN1_BAR_MAX_NODE;

    for (unsigned r = 0; ok && r < c->size; r++) {
        /* One port a node (aotf_ok): an address is a node id, one a
         * member. The release writes one place on every member: the same
         * slot everywhere. Integer ops commute, so the rank order needs
         * no agreement with the firmware's node order. */
        ok = c->peer[r].addr < DN1_BAR_MAX_NODE && c->peer[r].slot == c->peer[0].slot;
    }
    c->fw_ok = ok;
    if (!ok) {
        return;
    }
    /* Epochs of this incarnation: an arrival an earlier communicator on
     * this slot left in the network is refused (BARRIER_EPOCH), not
     * counted. Never 0. */
    c->fw_base = (c->gen & 0xfffu) << 20 | 1u;
    c->fw_next = c->fw_base;
    c->fw_seen = c->fw_base - 1;
    c->fw_ch_raddr = 0;
    memset(c->n->llcm + COLL_FW_LLCM(c->slot), 0, DN1_BAR_COMB_DONE_BYTES);
    dn_host_charge(c->n, DN_HOST_STORE, 2);
    if (c->rank == 0) {
        setup_group(c);
    }
}

int coll_fw_usable(const struct dn_coll_comm *c, unsigned type, unsigned op, size_t bytes)
{
    return c->fw_ok && type <= DN_COLL_UINT64 && op <= DN_COLL_BXOR && bytes <= 8;
}

int coll_fw_usable_barrier(const struct dn_coll_comm *c, unsigned type, unsigned op,
                           size_t bytes)
{
    (void)type; (void)op; (void)bytes;
    return c->fw_ok;
}

int coll_fw_add(struct dn_coll_comm *c, struct coll_epoch *ep, const void *src, void *dst,
                size_t bytes)
{
    struct coll_op *o = coll_add(ep, OP_FW);

    if (!o) {
        return DN_ENOMEM;
    }
    o->src = src;
    o->dst = dst;
    o->bytes = bytes;
    o->fw_epoch = c->fw_next++;    /* every member builds its epochs in the same order */
    return DN_OK;
}

/* Store @o's value at the counter: one AOTF store through the slot's
 * channel, pointed at (group, first epoch, op, type) once. A barrier
 * combines nothing: a zero value, as int64 BOR. */
static int arrive(struct dn_coll_comm *c, const struct dn_coll_req *rq, const struct coll_op *o)
{
    int bar = rq->kind == DN_COLL_BARRIER;
    uint64_t base = DN1_BAR_COMB_RADDR(COLL_FW_GROUP(c->peer[0].slot), c->fw_base,
                                       bar ? DN_COLL_BOR : rq->op,
                                       bar ? DN_COLL_INT64 : rq->type);
    unsigned ch = COLL_FW_CH(c->slot);

    if (c->fw_ch_raddr != base) {
        int rc = dn_aotf_open(c->n, ch, DN1_TYPE_BARRIER, 0, c->peer[0].addr, base,
                              0xfffffff8u);
        if (rc != DN_OK) {
            return rc;
        }
        c->fw_ch_raddr = base;
    }
    return dn_aotf_store(c->n, ch, 8u * (o->fw_epoch - c->fw_base), o->word, 8, NULL);
}

int coll_fw_try(struct dn_coll_comm *c, struct coll_epoch *ep, struct coll_op *o, uint64_t now)
{
    dn_node *n = c->n;
    const uint8_t *done = n->llcm + COLL_FW_LLCM(c->slot);
    int rc;

    if (!(o->flags & OPF_ARRIVED)) {
        /* One combination at a time: the counter counts one epoch. */
        if (c->fw_seen + 1 != o->fw_epoch) {
            return 0;
        }
        uint8_t w[8] = { 0 };
        if (o->bytes) {
            memcpy(w, o->src, o->bytes);
        }
        o->word = dn_get_le(w, 8);          /* kept: the source may change once done */
        dn_self_count(n, COLL_SEND_INSNS);
        if ((rc = arrive(c, ep->req, o)) != DN_OK) {
            return rc;
        }
        o->flags |= OPF_ARRIVED;
        o->wait_since = now;
        o->ask_at = now + c->resend_ns;
        c->st.fw_combines++;
    }
    /* The release writes the result, then the epoch and its check after
     * it (contract section 5: a payload lands in address order; section
     * 11: dn1_comb_check). The epoch word and check in one load, then the
     * value: a late duplicate of an older release that wrote its value in
     * between fails the check, and the member looks again next turn (the
     * duplicate's epoch word lands next; a result lost so is sent again
     * at the resend). */
    dn_host_charge(n, DN_HOST_LOAD, 1);
    uint64_t tag = dn_get_le(done + 8, 8);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if ((uint32_t)tag == o->fw_epoch) {
        uint8_t v[8];
        memcpy(v, done, sizeof(v));
        dn_host_charge(n, DN_HOST_LOAD, 1);
        uint64_t val = dn_get_le(v, 8);
        dn_self_count(n, COLL_FW_CHECK_INSNS);
        if (dn1_comb_check(o->fw_epoch, (uint32_t)val, (uint32_t)(val >> 32)) !=
            (uint32_t)(tag >> 32)) {
            c->st.stale_frames++;
            return 0;
        }
        if (o->dst && o->bytes) {
            memcpy(o->dst, v, o->bytes);
        }
        c->fw_seen = o->fw_epoch;
        return 1;
    }
    if (now >= o->ask_at) {
        /* Lost on the way there or back: arrive again (the firmware counts
         * a member once an epoch and sends a result it missed again). */
        if ((rc = arrive(c, ep->req, o)) != DN_OK) {
            return rc;
        }
        uint64_t wait = c->resend_ns << (o->asks < 6 ? o->asks : 6);
        o->asks++;
        o->ask_at = now + (wait < c->resend_cap_ns ? wait : c->resend_cap_ns);
        c->st.resends++;
    }
    return 0;
}
