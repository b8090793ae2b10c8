/*
 * Counting barrier handler (handlers/barrier) on the FAKE HAL (host-built):
 * the paper's step order (packet handed back before the count), counting
 * once per member and epoch, completions per rank in ascending order or
 * one multicast, re-arming, resending a lost completion, every refusal,
 * and a random storm of arrivals, duplicates and stale packets checked
 * against a model: a completion never goes out before every member came.
 * Combining groups: every op and integer type against the host's
 * reference, duplicates counted once, a lost result sent again unchanged
 * by the next epoch's arrivals, and their refusals.
 */
#include <stdlib.h>
#include "../common/check.h"
#include "fake_hal.h"
#include "dispatch.h"
#include "fwstats.h"
#include "barrier/barrier.h"
#include "dimmnet1/barrier.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/fw_types.h"

#define ME      0
#define DONE    0x8000u           /* members' done word, LLCM user area */
#define DESCW(g, field) (DN1_RADDR_LLCM + DN1_LLCM_BAR_GROUPS + 32u * (g) + \
                         offsetof(struct dn1_bar_group, field))

/* The counter node's host: describe group @g and bump its generation. */
static void setup_group(unsigned g, uint64_t members, uint32_t done, unsigned mode,
                        unsigned mcast)
{
    uint32_t gen = fake_nic_get_u32(DESCW(g, mode)) >> 16;
    fake_nic_put_u32(DESCW(g, members_lo), (uint32_t)members);
    fake_nic_put_u32(DESCW(g, members_hi), (uint32_t)(members >> 32));
    fake_nic_put_u32(DESCW(g, done_off), done);
    fake_nic_put_u32(DESCW(g, mode), mode | mcast << 8 | ((gen + 1) & 0xffffu) << 16);
}

static void set_mode(unsigned g, unsigned mode)
{
    uint32_t w = fake_nic_get_u32(DESCW(g, mode));
    fake_nic_put_u32(DESCW(g, mode), (w & ~0xffu) | mode);
}

/* One barrier packet as an AOTF store of 4 bytes would make it. */
static void arrive_as(unsigned src, unsigned g, uint32_t epoch, uint8_t flags,
                      uint16_t dst, uint16_t len)
{
    struct dn1_hdr h = { .version = 1, .type = DN1_TYPE_BARRIER,
                         .flags = (uint8_t)(DN1_FLAG_OTF | flags), .src = (uint16_t)src,
                         .dst = dst, .len = len, .raddr = DN1_BAR_RADDR(g) };
    uint8_t le[8] = { (uint8_t)epoch, (uint8_t)(epoch >> 8), (uint8_t)(epoch >> 16),
                      (uint8_t)(epoch >> 24) };
    fake_rx_push_payload(&h, le, sizeof(le));
    fake_interrupts();
}

static void arrive(unsigned src, unsigned g, uint32_t epoch)
{
    arrive_as(src, g, epoch, 0, ME, 4);
}

static const struct fake_decision *last(void)
{
    return &fake_decisions[(fake_decision_count - 1) % FAKE_DECISIONS];
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void setup(void)
{
    fake_rx_reset();
    fwstats_init();
    barrier_init(0);
    dispatch_register(DN1_TYPE_BARRIER, barrier_handle);
}

static void t_per_rank_release(void)
{
    setup_group(3, 1u << 0 | 1u << 2 | 1u << 5, DONE, DN1_BAR_MODE_RANKS, 0);
    arrive(5, 3, 1);
    CHECK_EQ(last()->action, RX_DONE);
    arrive(0, 3, 1);
    CHECK_EQ(fake_send_count, 0);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_COUNTED), 2);
    CHECK_EQ(fake_nic_get_u32(DESCW(3, taken_gen)), 1);

    size_t before = fake_decision_count;
    arrive(2, 3, 1);
    /* Step 3 before steps 4-5: the packet was handed back before any send. */
    CHECK_EQ(fake_send_count, 3);
    CHECK_EQ(fake_decision_count, before + 1);
    CHECK_EQ(fake_sends[0].decisions_before, before + 1);
    static const uint16_t order[3] = { 0, 2, 5 };
    for (unsigned i = 0; i < 3; i++) {
        CHECK_EQ(fake_sends[i].dst, order[i]);      /* ascending rank order */
        CHECK_EQ(fake_sends[i].type, DN1_TYPE_PUSH);
        CHECK_EQ(fake_sends[i].len, DN1_BAR_DONE_BYTES);
        CHECK_EQ(fake_sends[i].raddr, DN1_RADDR_LLCM + DONE);
        CHECK_EQ(le32(fake_sends[i].payload), 1);
    }
    CHECK_EQ(fake_nic_get_u32(DESCW(3, epoch)), 2);
    CHECK_EQ(fake_nic_get_u32(DESCW(3, released)), 1);

    /* Re-armed: epoch 2 needs all three again. */
    arrive(0, 3, 2);
    arrive(2, 3, 2);
    CHECK_EQ(fake_send_count, 3);
    arrive(5, 3, 2);
    CHECK_EQ(fake_send_count, 6);
    CHECK_EQ(le32(fake_sends[5].payload), 2);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_RELEASED), 2);
}

static void t_duplicate_counts_once(void)
{
    setup_group(0, 0x3, DONE, DN1_BAR_MODE_RANKS, 0);
    arrive(1, 0, 1);
    arrive(1, 0, 1);
    arrive(1, 0, 1);
    CHECK_EQ(fake_send_count, 0);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_DUPLICATES), 2);
    CHECK_EQ(last()->action, RX_DONE);
    arrive(0, 0, 1);
    CHECK_EQ(fake_send_count, 2);
}

static void t_multicast_release(void)
{
    setup_group(7, 0xf0, DONE + 8, DN1_BAR_MODE_MCAST, 9);
    for (unsigned s = 4; s < 8; s++) {
        arrive(s, 7, 1);
    }
    CHECK_EQ(fake_send_count, 1);
    CHECK_EQ(fake_sends[0].dst, DN1_MCAST_BASE + 9);
    CHECK_EQ(fake_sends[0].raddr, DN1_RADDR_LLCM + DONE + 8);
    CHECK_EQ(le32(fake_sends[0].payload), 1);
    /* The mode is read at each release: switch to per-rank, no new set-up. */
    set_mode(7, DN1_BAR_MODE_RANKS);
    for (unsigned s = 4; s < 8; s++) {
        arrive(s, 7, 2);
    }
    CHECK_EQ(fake_send_count, 5);
    CHECK_EQ(fake_sends[1].dst, 4);
    CHECK_EQ(le32(fake_sends[4].payload), 2);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_SETUPS), 1);
}

static void t_lost_completion_resent(void)
{
    setup_group(1, 0x6, DONE, DN1_BAR_MODE_MCAST, 0);
    arrive(1, 1, 1);
    arrive(2, 1, 1);
    CHECK_EQ(fake_send_count, 1);
    /* Node 2 never saw it and asks again with epoch 1: only it is answered. */
    arrive(2, 1, 1);
    CHECK_EQ(fake_send_count, 2);
    CHECK_EQ(fake_sends[1].dst, 2);
    CHECK_EQ(le32(fake_sends[1].payload), 1);
    CHECK_EQ(last()->action, RX_DONE);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_RESENT), 1);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_COUNTED), 2);   /* not counted for epoch 2 */
    arrive(1, 1, 2);
    CHECK_EQ(fake_send_count, 2);
}

static void t_refusals(void)
{
    /* Nothing set up. */
    arrive(1, 0, 1);
    CHECK_EQ(last()->action, RX_NACK);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_SETUP);
    /* raddr naming no counter: past the last group, or inside a block. */
    setup_group(2, 0x3, DONE, DN1_BAR_MODE_RANKS, 0);
    struct dn1_hdr h = { .version = 1, .type = DN1_TYPE_BARRIER, .flags = DN1_FLAG_OTF,
                         .src = 1, .dst = ME, .len = 4,
                         .raddr = DN1_BAR_RADDR(DN1_BAR_GROUPS) };
    uint8_t one[4] = { 1 };
    fake_rx_push_payload(&h, one, 4);
    h.raddr = DN1_BAR_RADDR(2) + 4;
    fake_rx_push_payload(&h, one, 4);
    fake_interrupts();
    CHECK_EQ(fake_decisions[fake_decision_count - 2].nack_reason, DN1_NACK_BARRIER_SETUP);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_SETUP);
    /* Not a member. */
    arrive(4, 2, 1);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_MEMBER);
    arrive(200, 2, 1);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_MEMBER);
    /* Wrong epochs: ahead, far behind, and "previous" before any release. */
    arrive(1, 2, 2);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_EPOCH);
    arrive(1, 2, 0);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_EPOCH);
    /* Malformed: a VA, to a group, shorter than an epoch. */
    arrive_as(1, 2, 1, DN1_FLAG_VA, ME, 4);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BAD_PATH);
    arrive_as(1, 2, 1, 0, DN1_MCAST_BASE, 4);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BAD_PATH);
    arrive_as(1, 2, 1, 0, ME, 3);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BAD_PATH);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_COUNTED), 0);
    CHECK_EQ(fwstats_get(DN1_FWST_NACK_BAR_SETUP), 3);
    CHECK_EQ(fwstats_get(DN1_FWST_NACK_BAR_MEMBER), 2);
    CHECK_EQ(fwstats_get(DN1_FWST_NACK_BAR_EPOCH), 2);
    /* Unusable set-ups: no member, a done word in the NIC-reserved part,
     * unaligned, past LLCM; then withdrawn (generation 0). */
    static const uint32_t bad_done[3] = { 0x100, DONE + 4, DN1_LLCM_SIZE - 4 };
    setup_group(5, 0, DONE, DN1_BAR_MODE_RANKS, 0);
    arrive(1, 5, 1);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_SETUP);
    for (unsigned i = 0; i < 3; i++) {
        setup_group(5, 0x3, bad_done[i], DN1_BAR_MODE_RANKS, 0);
        arrive(1, 5, 1);
        CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_SETUP);
    }
    CHECK_EQ(fake_nic_get_u32(DESCW(5, taken_gen)), 0);
    arrive(1, 2, 1);
    CHECK_EQ(last()->action, RX_DONE);
    fake_nic_put_u32(DESCW(2, mode), 0);
    arrive(0, 2, 1);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_SETUP);
    CHECK_EQ(fake_send_count, 0);
}

static void t_resetup_restarts(void)
{
    setup_group(4, 0x3, DONE, DN1_BAR_MODE_RANKS, 0);
    arrive(0, 4, 1);
    arrive(1, 4, 1);
    arrive(0, 4, 2);
    /* A new set-up starting at a later epoch (the shim's next incarnation
     * of the barrier): old epochs are refused, none counts as "previous". */
    fake_nic_put_u32(DESCW(4, first_epoch), 0x100001);
    setup_group(4, 0x7, DONE, DN1_BAR_MODE_RANKS, 0);
    arrive(0, 4, 2);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_EPOCH);
    arrive(0, 4, 0x100000);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_EPOCH);
    CHECK_EQ(fake_nic_get_u32(DESCW(4, epoch)), 0x100001);
    arrive(0, 4, 0x100001);
    arrive(1, 4, 0x100001);
    CHECK_EQ(fake_send_count, 2);
    arrive(2, 4, 0x100001);
    CHECK_EQ(fake_send_count, 5);
    CHECK_EQ(le32(fake_sends[4].payload), 0x100001);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_SETUPS), 2);
}

static void t_link_down_counted(void)
{
    setup_group(0, 0x1, DONE, DN1_BAR_MODE_RANKS, 0);
    fake_tx_result = DN1_TX_RESULT_LINK_DOWN;
    arrive(0, 0, 1);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_TX_ERRORS), 1);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_RELEASED), 1);
}

/*
 * Interleaved groups and a storm of arrivals: members arriving in random
 * order, duplicated, late (the previous epoch) and wrong, over 4 groups.
 * Model: a group's epoch e is released exactly when all its members have
 * sent e, once, to exactly its members.
 */
static void t_random_storm(void)
{
    enum { GROUPS = 4, ROUNDS = 2000 };
    uint64_t members[GROUPS] = { 0xff, 0x0f0f0000f0f0ull, 0x8000000300000001ull, 0x2 };
    uint32_t epoch[GROUPS];
    uint64_t came[GROUPS];
    unsigned released[GROUPS] = { 0 };
    srand(9);
    for (unsigned g = 0; g < GROUPS; g++) {
        setup_group(g, members[g], DONE + 8 * g, g & 1, g);
        epoch[g] = 1;
        came[g] = 0;
    }
    for (unsigned r = 0; r < ROUNDS * 8; r++) {
        unsigned g = (unsigned)rand() % GROUPS;
        unsigned src = (unsigned)rand() % 64;
        while (rand() % 8 && !(members[g] >> src & 1)) {
            src = (unsigned)rand() % 64;   /* mostly members */
        }
        uint32_t e = epoch[g];
        int kind = rand() % 16;
        if (kind == 0) {
            e = epoch[g] - 1;        /* a member that missed its completion */
        } else if (kind == 1) {
            e = epoch[g] + 1;        /* never sent by a correct member */
        }
        size_t sent_before = fake_send_count;
        arrive(src, g, e);
        size_t sent = fake_send_count - sent_before;

        int member = members[g] >> src & 1;
        if (!member) {
            CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_MEMBER);
            CHECK_EQ(sent, 0);
        } else if (e == epoch[g]) {
            came[g] |= 1ull << src;
            if (came[g] == members[g]) {
                unsigned expect = (g & 1) ? 1 : (unsigned)__builtin_popcountll(members[g]);
                CHECK_EQ(sent, expect);
                uint64_t to = 0;
                int prev = -1;
                for (size_t i = sent_before; i < fake_send_count; i++) {
                    const struct fake_send *s = &fake_sends[i % FAKE_SENDS];
                    CHECK_EQ(le32(s->payload), epoch[g]);
                    if (!(g & 1)) {
                        CHECK((int)s->dst > prev);   /* ascending rank order */
                        prev = s->dst;
                        to |= 1ull << (s->dst & 63);
                    }
                }
                if (!(g & 1)) {
                    CHECK_EQ(to, members[g]);        /* exactly the members */
                }
                epoch[g]++;
                came[g] = 0;
                released[g]++;
            } else {
                CHECK_EQ(sent, 0);   /* never before every member came */
            }
        } else if (e == epoch[g] - 1 && epoch[g] > 1) {
            CHECK_EQ(sent, 1);
            CHECK_EQ(fake_sends[(fake_send_count - 1) % FAKE_SENDS].dst, src);
        } else {
            CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_EPOCH);
            CHECK_EQ(sent, 0);
        }
    }
    unsigned total = 0;
    for (unsigned g = 0; g < GROUPS; g++) {
        CHECK_EQ(fake_nic_get_u32(DESCW(g, epoch)), epoch[g]);
        total += released[g];
    }
    printf("random_storm: %u releases over %u groups\n", total, GROUPS);
    CHECK(released[0] > 50 && released[3] > 50);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_RELEASED), total);
}

/* ---- combining ---- */

#define COMB(kind) (DN1_BAR_MODE_COMBINE | (kind))

static unsigned comb_op = DN1_COMB_OP_SUM, comb_type = DN1_COMB_T_INT64;

static void comb_arrive_len(unsigned src, unsigned g, uint32_t epoch, uint64_t v, uint16_t len)
{
    struct dn1_hdr h = { .version = 1, .type = DN1_TYPE_BARRIER, .flags = DN1_FLAG_OTF,
                         .src = (uint16_t)src, .dst = ME, .len = len,
                         .raddr = DN1_BAR_COMB_RADDR(g, epoch, comb_op, comb_type) };
    uint8_t le[8];
    for (unsigned i = 0; i < 8; i++) {
        le[i] = (uint8_t)(v >> 8 * i);
    }
    fake_rx_push_payload(&h, le, sizeof(le));
    fake_interrupts();
}

static void comb_arrive(unsigned src, unsigned g, uint32_t epoch, uint64_t v)
{
    comb_arrive_len(src, g, epoch, v, 8);
}

static void comb_use(unsigned op, unsigned type)
{
    comb_op = op;
    comb_type = type;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p + 4) << 32 | le32(p);
}

/* The host's reference (host-shim/src/coll_op.c's kernels, in rank order). */
static uint32_t ref32(unsigned op, uint32_t a, uint32_t b)
{
    switch (op) {
    case DN1_COMB_OP_SUM: return a + b;
    case DN1_COMB_OP_PROD: return a * b;
    case DN1_COMB_OP_MIN: return (int32_t)b < (int32_t)a ? b : a;
    case DN1_COMB_OP_MAX: return (int32_t)b > (int32_t)a ? b : a;
    case DN1_COMB_OP_BAND: return a & b;
    case DN1_COMB_OP_BOR: return a | b;
    default: return a ^ b;
    }
}

static uint64_t ref(unsigned op, unsigned type, uint64_t a, uint64_t b)
{
    if (type == DN1_COMB_T_INT32) {
        return (uint64_t)ref32(op, (uint32_t)(a >> 32), (uint32_t)(b >> 32)) << 32 |
               ref32(op, (uint32_t)a, (uint32_t)b);
    }
    int s = type == DN1_COMB_T_INT64;
    switch (op) {
    case DN1_COMB_OP_SUM: return a + b;
    case DN1_COMB_OP_PROD: return a * b;
    case DN1_COMB_OP_MIN: return (s ? (int64_t)b < (int64_t)a : b < a) ? b : a;
    case DN1_COMB_OP_MAX: return (s ? (int64_t)b > (int64_t)a : b > a) ? b : a;
    case DN1_COMB_OP_BAND: return a & b;
    case DN1_COMB_OP_BOR: return a | b;
    default: return a ^ b;
    }
}

static void t_combine_release(void)
{
    setup_group(2, 0x25, DONE, COMB(DN1_BAR_MODE_RANKS), 0);
    comb_use(DN1_COMB_OP_SUM, DN1_COMB_T_INT64);
    comb_arrive(5, 2, 1, (uint64_t)-7);
    comb_arrive(0, 2, 1, 1000);
    CHECK_EQ(last()->action, RX_DONE);
    CHECK_EQ(fake_send_count, 0);
    comb_arrive(2, 2, 1, 3);
    CHECK_EQ(fake_send_count, 3);
    static const uint16_t order[3] = { 0, 2, 5 };
    for (unsigned i = 0; i < 3; i++) {
        CHECK_EQ(fake_sends[i].dst, order[i]);
        CHECK_EQ(fake_sends[i].type, DN1_TYPE_PUSH);
        CHECK_EQ(fake_sends[i].len, DN1_BAR_COMB_DONE_BYTES);
        CHECK_EQ(fake_sends[i].raddr, DN1_RADDR_LLCM + DONE);
        CHECK_EQ(le64(fake_sends[i].payload), 996);
        CHECK_EQ(le32(fake_sends[i].payload + 8), 1);     /* the epoch after the value */
        CHECK_EQ(le32(fake_sends[i].payload + 12), dn1_comb_check(1, 996, 0));
    }
    /* Each epoch its own op and type: a MAX of unsigned values, released
     * as one multicast (the release kind is read at each release). */
    set_mode(2, COMB(DN1_BAR_MODE_MCAST));
    comb_use(DN1_COMB_OP_MAX, DN1_COMB_T_UINT64);
    comb_arrive(0, 2, 2, 5);
    comb_arrive(2, 2, 2, 1ull << 63);
    comb_arrive(5, 2, 2, 9);
    CHECK_EQ(fake_send_count, 4);
    CHECK_EQ(fake_sends[3].dst, DN1_MCAST_BASE);
    CHECK_EQ(le64(fake_sends[3].payload), 1ull << 63);
    CHECK_EQ(le32(fake_sends[3].payload + 8), 2);
    CHECK_EQ(le32(fake_sends[3].payload + 12), dn1_comb_check(2, 0, 1u << 31));
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_RELEASED), 2);
}

static void t_combine_int32_halves(void)
{
    setup_group(0, 0x3, DONE, COMB(DN1_BAR_MODE_RANKS), 0);
    comb_use(DN1_COMB_OP_MIN, DN1_COMB_T_INT32);
    comb_arrive(0, 0, 1, (uint64_t)(uint32_t)-5 << 32 | 7);
    comb_arrive(1, 0, 1, (uint64_t)3 << 32 | 2);
    CHECK_EQ(fake_send_count, 2);
    CHECK_EQ(le32(fake_sends[0].payload), 2);                /* element 0 */
    CHECK_EQ(le32(fake_sends[0].payload + 4), (uint32_t)-5); /* element 1, signed */
    /* Products wrap, each half on its own. */
    comb_use(DN1_COMB_OP_PROD, DN1_COMB_T_INT32);
    comb_arrive(1, 0, 2, (uint64_t)0x10000u << 32 | 0x10000u);
    comb_arrive(0, 0, 2, (uint64_t)3 << 32 | 0x10000u);
    CHECK_EQ(le32(fake_sends[2].payload), 0);
    CHECK_EQ(le32(fake_sends[2].payload + 4), 0x30000u);
}

static void t_combine_duplicate_resend(void)
{
    setup_group(4, 0x6, DONE, COMB(DN1_BAR_MODE_RANKS), 0);
    comb_use(DN1_COMB_OP_SUM, DN1_COMB_T_UINT64);
    comb_arrive(1, 4, 1, 10);
    comb_arrive(1, 4, 1, 10);                     /* a duplicate adds nothing */
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_DUPLICATES), 1);
    comb_arrive(2, 4, 1, 5);
    CHECK_EQ(fake_send_count, 2);
    CHECK_EQ(le64(fake_sends[0].payload), 15);
    /* Epoch 2 begins; node 2 missed epoch 1's result and asks again: the
     * same result, not what epoch 2 has counted so far. */
    comb_arrive(1, 4, 2, 100);
    comb_arrive(2, 4, 1, 5);
    CHECK_EQ(fake_send_count, 3);
    CHECK_EQ(fake_sends[2].dst, 2);
    CHECK_EQ(le64(fake_sends[2].payload), 15);
    CHECK_EQ(le32(fake_sends[2].payload + 8), 1);
    CHECK_EQ(le32(fake_sends[2].payload + 12), dn1_comb_check(1, 15, 0));
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_RESENT), 1);
    comb_arrive(2, 4, 2, 1);
    CHECK_EQ(le64(fake_sends[4].payload), 101);
}

static void t_combine_refusals(void)
{
    setup_group(3, 0x3, DONE, COMB(DN1_BAR_MODE_RANKS), 0);
    setup_group(5, 0x3, DONE + 16, DN1_BAR_MODE_RANKS, 0);
    comb_use(DN1_COMB_OP_BOR, DN1_COMB_T_INT64);
    arrive(0, 3, 1);                              /* plain arrival, combining group */
    CHECK_EQ(last()->action, RX_NACK);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_SETUP);
    comb_arrive(0, 5, 1, 1);                      /* combining arrival, plain group */
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_SETUP);
    comb_arrive_len(0, 3, 1, 1, 4);               /* not all of a value */
    CHECK_EQ(last()->nack_reason, DN1_NACK_BAD_PATH);
    comb_arrive(0, 3, 7, 1);                      /* an epoch not counted */
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_EPOCH);
    comb_arrive(9, 3, 1, 1);                      /* not a member */
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_MEMBER);
    comb_arrive(0, 16, 1, 1);                     /* no such group */
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_SETUP);
    comb_use(7, DN1_COMB_T_INT64);                /* no such op */
    comb_arrive(0, 3, 1, 1);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_EPOCH);
    comb_use(DN1_COMB_OP_SUM, 3);                 /* no such type: floating point */
    comb_arrive(0, 3, 1, 1);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_EPOCH);
    /* A done area whose 16 bytes run past LLCM. */
    setup_group(6, 0x3, DN1_LLCM_SIZE - 8, COMB(DN1_BAR_MODE_RANKS), 0);
    comb_use(DN1_COMB_OP_BOR, DN1_COMB_T_INT64);
    comb_arrive(0, 6, 1, 1);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_SETUP);
    CHECK_EQ(fake_send_count, 0);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_COUNTED), 0);
    /* Refusals change nothing: the group still combines; a member with
     * another op than the epoch's first is refused, not counted. */
    comb_arrive(1, 3, 1, 4);
    comb_use(DN1_COMB_OP_SUM, DN1_COMB_T_INT64);
    comb_arrive(0, 3, 1, 1);
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_EPOCH);
    CHECK_EQ(fake_send_count, 0);
    comb_use(DN1_COMB_OP_BOR, DN1_COMB_T_INT64);
    comb_arrive(0, 3, 1, 1);
    CHECK_EQ(fake_send_count, 2);
    CHECK_EQ(le64(fake_sends[0].payload), 5);
}

/* Every op and type, random member sets and values, arrivals in random
 * order with duplicates, against the reference in rank order. */
static void t_combine_storm(void)
{
    srand(7);
    uint32_t epoch = 0;
    uint64_t members = 0;
    for (unsigned round = 0; round < 300; round++) {
        if (round % 50 == 0) {
            members = ((uint64_t)rand() << 32 ^ (uint64_t)rand()) | 1;
            setup_group(9, members, DONE, COMB(0), 0);
            epoch = 0;
        }
        unsigned op = (unsigned)rand() % 7, type = (unsigned)rand() % 3;
        comb_use(op, type);
        set_mode(9, COMB(round & 1));
        epoch++;
        uint64_t val[64], want = 0;
        unsigned ids[64], k = 0;
        for (unsigned i = 0; i < 64; i++) {
            if ((members >> i) & 1) {
                val[i] = (uint64_t)rand() << 40 ^ (uint64_t)rand() << 16 ^ (uint64_t)rand();
                if (rand() % 4 == 0) {
                    val[i] = (uint64_t)-(int64_t)val[i];
                }
                want = k ? ref(op, type, want, val[i]) : val[i];
                ids[k++] = i;
            }
        }
        for (unsigned i = k; i > 1; i--) {       /* a random arrival order */
            unsigned j = (unsigned)rand() % i, t = ids[i - 1];
            ids[i - 1] = ids[j];
            ids[j] = t;
        }
        size_t before = fake_send_count;
        for (unsigned i = 0; i < k; i++) {
            comb_arrive(ids[i], 9, epoch, val[ids[i]]);
            if (i + 1 < k && rand() % 5 == 0) {   /* after the last: a resend */
                comb_arrive(ids[i], 9, epoch, val[ids[i]] + 1);   /* a duplicate */
            }
            if (i + 1 < k) {
                CHECK_EQ(fake_send_count, before);
            }
        }
        CHECK_EQ(fake_send_count, before + ((round & 1) ? 1 : k));
        const struct fake_send *sent = &fake_sends[before % FAKE_SENDS];
        CHECK_EQ(le64(sent->payload), want);
        CHECK_EQ(le32(sent->payload + 8), epoch);
        CHECK_EQ(le32(sent->payload + 12), dn1_comb_check(epoch, (uint32_t)want,
                                                          (uint32_t)(want >> 32)));
        fake_send_count = 0;
    }
}

static const struct test_case cases[] = {
    { "per_rank_release", t_per_rank_release },
    { "duplicate_counts_once", t_duplicate_counts_once },
    { "multicast_release", t_multicast_release },
    { "lost_completion_resent", t_lost_completion_resent },
    { "refusals", t_refusals },
    { "resetup_restarts", t_resetup_restarts },
    { "link_down_counted", t_link_down_counted },
    { "random_storm", t_random_storm },
    { "combine_release", t_combine_release },
    { "combine_int32_halves", t_combine_int32_halves },
    { "combine_duplicate_resend", t_combine_duplicate_resend },
    { "combine_refusals", t_combine_refusals },
    { "combine_storm", t_combine_storm },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, NULL);
}
