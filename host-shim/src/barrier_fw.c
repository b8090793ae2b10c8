/*
 * The firmware counting barrier from the host's side (paper, steps 1 and
 * 6's "the host polls LLCM"): the root's host describes the group to its
 * firmware (docs/hardware.md section 11); every member's host makes one
 * AOTF store to the root's counter and polls its own done word.
 */
#include "barrier.h"

#define DESC(b, field) ((b)->n->llcm + DN1_LLCM_BAR_GROUPS + 32u * (b)->cfg.id + \
                        offsetof(struct dn1_bar_group, field))

static uint8_t mode_of(int mcast)
{
    return mcast ? DN1_BAR_MODE_MCAST : DN1_BAR_MODE_RANKS;
}

/* The root: write the group's descriptor, bump its generation last. */
int bar_fw_setup(struct dn_barrier *b)
{
    uint64_t members = 0;

    for (unsigned i = 0; i < b->cfg.nmembers; i++) {
        members |= 1ull << b->cfg.members[i];
    }
    int mcast = b->cfg.algorithm == DN_BARRIER_FIRMWARE_MCAST;
    uint16_t gen = (uint16_t)dn_get_le(DESC(b, setup_gen), 2);
    gen = (uint16_t)(gen + 1 ? gen + 1 : 1);
    dn_put_le(DESC(b, members_lo), (uint32_t)members, 4);
    dn_put_le(DESC(b, members_hi), (uint32_t)(members >> 32), 4);
    dn_put_le(DESC(b, done_off), b->llcm + BAR_DONE, 4);
    *DESC(b, mode) = mode_of(mcast);
    *DESC(b, mcast_group) = (uint8_t)(b->cfg.mcast_group >= 0 ? b->cfg.mcast_group : 0);
    dn_put_le(DESC(b, first_epoch), b->fw_epoch + 1, 4);
    b->fw_mode = mode_of(mcast);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    dn_put_le(DESC(b, setup_gen), gen ? gen : 1, 2);
    return DN_OK;
}

static int fw_done(struct dn_barrier *b, void *arg)
{
    (void)arg;
    return bar_epoch_reached(bar_word(b, BAR_DONE), b->fw_epoch);
}

int bar_fw_wait(struct dn_barrier *b, int mcast)
{
    /* The root chooses the release mode before its own arrival: the
     * release cannot happen before that arrival is counted. */
    if (b->rank == b->root_rank && b->fw_mode != mode_of(mcast)) {
        *DESC(b, mode) = mode_of(mcast);
        b->fw_mode = mode_of(mcast);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    b->fw_epoch++;
    b->in_fw = 1;
    int rc = bar_store_counter(b, b->fw_epoch);   /* step 1: one host store */
    if (rc == DN_OK) {
        rc = bar_wait(b, fw_done, NULL);
    }
    b->in_fw = 0;
    return rc;
}
