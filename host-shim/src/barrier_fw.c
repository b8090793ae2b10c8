/*
 * The firmware counting barriers from the host's side (paper, steps 1 and
 * 6's "the host polls LLCM"): the root's host describes the group to its
 * firmware (docs/hardware.md section 11); every member's host makes one
 * AOTF store to the root's counter and polls its own done word. Ours
 * (FIRMWARE, FIRMWARE_MCAST) first, then the paper's as the paper built it
 * (FIRMWARE_PAPER*).
 */
#include <stdio.h>
#include "barrier.h"
#include "dimmnet1/fw_types.h"

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
    return bar_epoch_reached(b, bar_word(b, BAR_DONE), b->fw_epoch);
}

int bar_fw_wait(struct dn_barrier *b, int mcast)
{
    /* The root chooses the release mode before its own arrival: the
     * release cannot happen before that arrival is counted. */
    if (b->rank == b->root_rank && b->fw_mode != mode_of(mcast)) {
        *DESC(b, mode) = mode_of(mcast);
        dn_host_charge(b->n, DN_HOST_STORE, 1);
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

/*
 * The paper's counting barrier as the paper built it (docs/hardware.md
 * section 11, "The paper's barrier"). The root, at its first wait:
 * withdraw our barrier's group (its descriptor: its images are about to be
 * replaced), send its own firmware the set-up (members, done word, release
 * kind) and wait for the ACK; only then does it answer the other members'
 * joins (barrier_join.c), which their first wait waits for: an arrival
 * that came before the set-up would be lost (the firmware counts whatever
 * comes, and the set-up arms the counter afresh).
 */
int bar_paper_setup(struct dn_barrier *b)
{
    uint64_t members = 0;
    uint8_t p[DN1_BARP_SETUP_BYTES] = { 0 };
    dn_xfer x;

    for (unsigned i = 0; i < b->cfg.nmembers; i++) {
        members |= 1ull << b->cfg.members[i];
    }
    int mcast = b->cfg.algorithm == DN_BARRIER_FIRMWARE_PAPER_MCAST;
    uint16_t gen = (uint16_t)dn_get_le(DESC(b, setup_gen), 2);
    dn_put_le(DESC(b, setup_gen), 0, 2);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    dn_put_le(p + offsetof(struct dn1_barp_setup, members_lo), (uint32_t)members, 4);
    dn_put_le(p + offsetof(struct dn1_barp_setup, members_hi), (uint32_t)(members >> 32), 4);
    dn_put_le(p + offsetof(struct dn1_barp_setup, done_off), b->llcm + BAR_PAPER_DONE, 4);
    p[offsetof(struct dn1_barp_setup, mode)] = mode_of(mcast);
    p[offsetof(struct dn1_barp_setup, mcast_group)] =
        (uint8_t)(b->cfg.mcast_group >= 0 ? b->cfg.mcast_group : 0);
    int rc = dn_send_typed(b->n, DN1_TYPE_BARRIER_PAPER, dn_node_id(b->n),
                           DN1_BARP_SETUP_RADDR(b->cfg.id), p, sizeof(p), &x);
    if (rc == DN_OK) {
        rc = dn_wait(b->n, &x, b->cfg.timeout_ms);
    }
    if (rc != DN_OK) {
        dn_put_le(DESC(b, setup_gen), gen, 2);   /* not taken: ours stays as it was */
        snprintf(b->text, sizeof(b->text), "barrier %u (%s): set-up refused by the firmware: %s",
                 b->cfg.id, dn_barrier_algorithm_name(b->cfg.algorithm),
                 rc == DN_ENACK ? "NACK" : dn_strerror(rc));
        return rc;
    }
    return rc;
}

static int paper_done(struct dn_barrier *b, void *arg)
{
    (void)arg;
    return (uint32_t)bar_word(b, BAR_PAPER_DONE) == DN1_BARP_DONE_VALUE;
}

/* A member: clear the done word, one store to the root's counter (step 1),
 * poll the done word (the paper's "the host polls LLCM"). */
int bar_paper_wait(struct dn_barrier *b)
{
    /* The completion of the previous call has landed (it ended that
     * call), and this one's cannot come before this member's arrival. */
    __atomic_store_n((uint64_t *)(b->n->llcm + b->llcm + BAR_PAPER_DONE), 0, __ATOMIC_SEQ_CST);
    dn_host_charge(b->n, DN_HOST_STORE, 1);
    b->paper_epoch++;
    int rc = bar_store_paper(b, b->paper_epoch);
    return rc == DN_OK ? bar_wait(b, paper_done, NULL) : rc;
}
