/*
 * The paper's counting barrier as the paper built it (handlers/barrier/
 * barrier_paper.c, type BARRIER_PAPER; docs/hardware.md section 11, "The
 * paper's barrier") on the FAKE HAL: the set-up from the counter node's own
 * host, the paper's step order (packet handed back, count, completions in
 * ascending rank order or one multicast, re-arm), one interrupt a packet,
 * what it does not check (a duplicate or a stranger counts, as in the
 * paper), refusals, the two kinds taking a group id from each other, and a
 * storm of malformed packets that writes nothing but counter words.
 */
#include <stdlib.h>
#include "../common/check.h"
#include "fake_hal.h"
#include "hal/sram.h"
#include "dispatch.h"
#include "fwstats.h"
#include "barrier/barrier.h"
#include "barrier/barrier_paper.h"
#include "dimmnet1/barrier.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/message.h"
#include "dimmnet1/fw_types.h"

#define ME      3
#define DONE    0x8000u           /* members' done word, LLCM user area */

static const struct fake_decision *last(void)
{
    return &fake_decisions[(fake_decision_count - 1) % FAKE_DECISIONS];
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint32_t sram32(uint32_t off)
{
    return hal_sram_read32(off);
}

/* A BARRIER_PAPER packet from @src with @len bytes of @payload. */
static void packet(unsigned src, unsigned dst, uint64_t raddr, uint8_t flags,
                   const void *payload, uint16_t len)
{
    struct dn1_hdr h = { .version = 1, .type = DN1_TYPE_BARRIER_PAPER, .flags = flags,
                         .src = (uint16_t)src, .dst = (uint16_t)dst, .len = len,
                         .raddr = raddr };
    fake_rx_push_payload(&h, payload, len);
}

/* The counter node's host sets group @g up (BOTF, ACK_REQ, to itself). */
static void setup_as(unsigned src, unsigned dst, unsigned g, uint64_t members, uint32_t done,
                     unsigned mode, unsigned mcast, uint16_t len)
{
    uint8_t p[16];
    uint32_t w[4] = { (uint32_t)members, (uint32_t)(members >> 32), done, mode | mcast << 8 };
    for (unsigned i = 0; i < 16; i++) {
        p[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
    }
    packet(src, dst, DN1_BARP_SETUP_RADDR(g), DN1_FLAG_ACK_REQ, p, len);
    fake_interrupts();
}

static void setup_group(unsigned g, uint64_t members, unsigned mode, unsigned mcast)
{
    setup_as(ME, ME, g, members, DONE, mode, mcast, DN1_BARP_SETUP_BYTES);
    CHECK_EQ(last()->action, RX_DONE);
}

/* One arrival as an AOTF store of 4 bytes makes it. */
static void arrive(unsigned src, unsigned g)
{
    uint8_t p[4] = { 1 };
    packet(src, ME, DN1_BARP_RADDR(g), DN1_FLAG_OTF, p, 4);
    CHECK_EQ(fake_interrupts(), 1);      /* one interrupt a packet */
}

static void setup(void)
{
    fake_rx_reset();
    fake_node_id = ME;
    fwstats_init();
    barrier_init(0);
    barrier_paper_init(0);
    dispatch_register(DN1_TYPE_BARRIER, barrier_handle);
    dispatch_register(DN1_TYPE_BARRIER_PAPER, barrier_paper_handle);
}

static void t_per_rank_release(void)
{
    setup_group(3, 1u << 0 | 1u << 3 | 1u << 5, DN1_BAR_MODE_RANKS, 0);
    CHECK_EQ(sram32(DN1_BARP_RADDR(3) + DN1_BARP_CNT_COUNT), 3);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_SETUPS), 1);
    uint32_t stats[DN1_FWST_COUNT];
    for (unsigned i = 0; i < DN1_FWST_COUNT; i++) {
        stats[i] = fwstats_get(i);
    }

    arrive(5, 3);
    CHECK_EQ(last()->action, RX_DONE);
    arrive(0, 3);
    CHECK_EQ(fake_send_count, 0);
    CHECK_EQ(sram32(DN1_BARP_RADDR(3) + DN1_BARP_CNT_COUNT), 1);

    size_t before = fake_decision_count;
    arrive(3, 3);
    /* Step 3 before steps 4-5: the packet was handed back before any send. */
    CHECK_EQ(fake_send_count, 3);
    CHECK_EQ(fake_decision_count, before + 1);
    CHECK_EQ(fake_sends[0].decisions_before, before + 1);
    static const uint16_t order[3] = { 0, 3, 5 };
    for (unsigned i = 0; i < 3; i++) {
        CHECK_EQ(fake_sends[i].dst, order[i]);      /* ascending rank order */
        CHECK_EQ(fake_sends[i].type, DN1_TYPE_PUSH);
        CHECK_EQ(fake_sends[i].len, DN1_BAR_DONE_BYTES);
        CHECK_EQ(fake_sends[i].raddr, DN1_RADDR_LLCM + DONE);
        CHECK_EQ(le32(fake_sends[i].payload), DN1_BARP_DONE_VALUE);
        CHECK_EQ(le32(fake_sends[i].payload + 4), 0);
    }
    /* Step 6: re-armed; the next round needs all three again. */
    CHECK_EQ(sram32(DN1_BARP_RADDR(3) + DN1_BARP_CNT_COUNT), 3);
    arrive(0, 3);
    arrive(5, 3);
    CHECK_EQ(fake_send_count, 3);
    arrive(3, 3);
    CHECK_EQ(fake_send_count, 6);
    CHECK_EQ(fake_sends[5].dst, 5);
    /* The paper's path keeps no statistic but the dispatcher's. */
    for (unsigned i = 0; i < DN1_FWST_COUNT; i++) {
        if (i != DN1_FWST_DISPATCHED) {
            CHECK_EQ(fwstats_get(i), stats[i]);
        }
    }
    CHECK_EQ(fwstats_get(DN1_FWST_DISPATCHED), stats[DN1_FWST_DISPATCHED] + 6);
}

static void t_multicast_release(void)
{
    setup_group(7, 0xf0, DN1_BAR_MODE_MCAST, 9);
    for (unsigned round = 1; round <= 3; round++) {
        for (unsigned s = 4; s < 8; s++) {
            CHECK_EQ(fake_send_count, round - 1);
            arrive(s, 7);
        }
        CHECK_EQ(fake_send_count, round);
        const struct fake_send *f = &fake_sends[round - 1];
        CHECK_EQ(f->dst, DN1_MCAST_BASE + 9);
        CHECK_EQ(f->raddr, DN1_RADDR_LLCM + DONE);
        CHECK_EQ(le32(f->payload), DN1_BARP_DONE_VALUE);
    }
    /* A new set-up switches the kind of release (the mode is fixed
     * between set-ups: nothing is read from LLCM at a release). */
    setup_group(7, 0xf0, DN1_BAR_MODE_RANKS, 0);
    for (unsigned s = 4; s < 8; s++) {
        arrive(s, 7);
    }
    CHECK_EQ(fake_send_count, 7);
    CHECK_EQ(fake_sends[3].dst, 4);
    CHECK_EQ(fake_sends[6].dst, 7);
}

/* What the paper's steps do not check, and so this barrier does not: who
 * arrives (a duplicate or a stranger counts), and the payload. */
static void t_unchecked_as_in_paper(void)
{
    setup_group(1, 0x3, DN1_BAR_MODE_RANKS, 0);
    arrive(1, 1);
    arrive(1, 1);                 /* node 0 never came: released all the same */
    CHECK_EQ(fake_send_count, 2);
    arrive(40, 1);                /* not a member */
    CHECK_EQ(last()->action, RX_DONE);
    CHECK_EQ(sram32(DN1_BARP_RADDR(1) + DN1_BARP_CNT_COUNT), 1);
    /* Any length, a group destination, a VA flag: an arrival all the same. */
    packet(0, DN1_MCAST_BASE + 1, DN1_BARP_RADDR(1), DN1_FLAG_VA, "", 0);
    fake_interrupts();
    CHECK_EQ(last()->action, RX_DONE);
    CHECK_EQ(fake_send_count, 4);
}

/* A counter never set up counts down from 0 and never releases. */
static void t_not_set_up(void)
{
    for (unsigned i = 0; i < 100; i++) {
        arrive(i % 7, 2);
        CHECK_EQ(last()->action, RX_DONE);
    }
    CHECK_EQ(fake_send_count, 0);
    CHECK_EQ(sram32(DN1_BARP_RADDR(2) + DN1_BARP_CNT_COUNT), (uint32_t)-100);
    /* The set-up arms it afresh. */
    setup_group(2, 0x6, DN1_BAR_MODE_RANKS, 0);
    arrive(1, 2);
    arrive(2, 2);
    CHECK_EQ(fake_send_count, 2);
}

static void t_bad_counter_nacked(void)
{
    setup_group(0, 0x3, DN1_BAR_MODE_RANKS, 0);
    static const uint64_t bad[] = {
        DN1_BARP_RADDR(0) + 4, DN1_BARP_RADDR(0) + 8, DN1_BARP_RADDR(0) + 15,
        DN1_BARP_RADDR(DN1_BAR_GROUPS), DN1_BARP_SRAM_COUNTERS - 16, 0,
        DN1_BAR_RADDR(1), 0x100000200ull, DN1_RADDR_LLCM + DONE,
        DN1_BARP_SETUP_RADDR(0) + 4, DN1_BARP_SETUP_RADDR(DN1_BAR_GROUPS),
        DN1_BARP_SETUP_FLAG >> 1 | DN1_BARP_RADDR(0), ~0ull,
    };
    uint8_t before[FAKE_SRAM_SIZE];
    memcpy(before, fake_sram, sizeof(before));
    uint8_t p[4] = { 1 };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        packet(1, ME, bad[i], DN1_FLAG_OTF, p, 4);
        CHECK_EQ(fake_interrupts(), 1);
        CHECK_EQ(last()->action, RX_NACK);
        CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_SETUP);
    }
    CHECK(memcmp(before, fake_sram, sizeof(before)) == 0);
    CHECK_EQ(fake_send_count, 0);
    CHECK_EQ(fwstats_get(DN1_FWST_NACK_BAR_SETUP), sizeof(bad) / sizeof(bad[0]));
}

static void t_setup_refusals(void)
{
    uint8_t before[FAKE_SRAM_SIZE];
    memcpy(before, fake_sram, sizeof(before));
    unsigned refused = 0;
    /* From another node, to another node, short, no member, a done word in
     * the NIC-reserved part, unaligned or past LLCM, a mode above 1. */
    setup_as(1, ME, 4, 0x3, DONE, 0, 0, 16), refused++;
    setup_as(ME, 1, 4, 0x3, DONE, 0, 0, 16), refused++;
    setup_as(ME, ME, 4, 0x3, DONE, 0, 0, 12), refused++;
    setup_as(ME, ME, 4, 0, DONE, 0, 0, 16), refused++;
    setup_as(ME, ME, 4, 0x3, 0x100, 0, 0, 16), refused++;
    setup_as(ME, ME, 4, 0x3, DONE + 4, 0, 0, 16), refused++;
    setup_as(ME, ME, 4, 0x3, DN1_LLCM_SIZE - 4, 0, 0, 16), refused++;
    setup_as(ME, ME, 4, 0x3, DONE, 2, 0, 16), refused++;
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_SETUP);
    CHECK_EQ(fwstats_get(DN1_FWST_NACK_BAR_SETUP), refused);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_SETUPS), 0);
    CHECK(memcmp(before, fake_sram, sizeof(before)) == 0);
    /* A VA-flagged set-up is refused too. */
    uint8_t p[16] = { 3 };
    packet(ME, ME, DN1_BARP_SETUP_RADDR(4), DN1_FLAG_VA | DN1_FLAG_ACK_REQ, p, 16);
    fake_interrupts();
    CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_SETUP);
    /* 64 members, the last node id included. */
    setup_as(ME, ME, 15, ~0ull, DN1_LLCM_SIZE - 8, 0, 0, 16);
    CHECK_EQ(last()->action, RX_DONE);
    for (unsigned s = 0; s < 64; s++) {
        arrive(s, 15);
    }
    CHECK_EQ(fake_send_count, 64);
    CHECK_EQ(fake_sends[63].dst, 63);
    CHECK_EQ(fake_sends[63].raddr, DN1_RADDR_LLCM + DN1_LLCM_SIZE - 8);
}

/* A group id is one kind at a time: the images are in the same place. */
static void t_kinds_take_turns(void)
{
#define DESCW(g, field) (DN1_RADDR_LLCM + DN1_LLCM_BAR_GROUPS + 32u * (g) + \
                         offsetof(struct dn1_bar_group, field))
    /* The hardened barrier's group 5, released once. */
    fake_nic_put_u32(DESCW(5, members_lo), 0x3);
    fake_nic_put_u32(DESCW(5, done_off), DONE + 64);
    fake_nic_put_u32(DESCW(5, mode), 1u << 16);
    uint8_t e1[4] = { 1 };
    struct dn1_hdr h = { .version = 1, .type = DN1_TYPE_BARRIER, .flags = DN1_FLAG_OTF,
                         .src = 0, .dst = ME, .len = 4, .raddr = DN1_BAR_RADDR(5) };
    fake_rx_push_payload(&h, e1, 4);
    h.src = 1;
    fake_rx_push_payload(&h, e1, 4);
    fake_interrupts();
    CHECK_EQ(fake_send_count, 2);
    /* The paper's set-up takes the id: its images, and the hardened set-up
     * withdrawn in SRAM (its next packet takes the descriptor again). */
    setup_group(5, 0x3, DN1_BAR_MODE_RANKS, 0);
    CHECK_EQ(sram32(DN1_BAR_SRAM_COUNTERS + 32u * 5 + DN1_BAR_CNT_GEN), 0);
    arrive(0, 5);
    arrive(1, 5);
    CHECK_EQ(fake_send_count, 4);
    CHECK_EQ(fake_sends[2].raddr, DN1_RADDR_LLCM + DONE);
    /* The hardened one takes it back: the paper's counter is disarmed. */
    fake_rx_push_payload(&h, e1, 4);
    fake_interrupts();
    CHECK_EQ(last()->action, RX_DONE);
    CHECK_EQ(fwstats_get(DN1_FWST_BAR_SETUPS), 3);
    for (unsigned i = 0; i < 10; i++) {
        arrive(i & 1, 5);
    }
    CHECK_EQ(fake_send_count, 4);
    CHECK_EQ(sram32(DN1_BARP_RADDR(5) + DN1_BARP_CNT_SENDS), 0);
#undef DESCW
}

/*
 * Random packets of the type: random raddrs (mostly near the counters),
 * sources, lengths and flags, on 4 groups set up. Nothing in SRAM but the
 * 16 count words may change, every packet is decided in one interrupt,
 * and completions go only when a count reached zero, to the group's own.
 */
static void t_random_storm(void)
{
    enum { ROUNDS = 20000 };
    uint64_t members[4] = { 0xff, 0xf0f0000f0f0ull, 0x8000000000000001ull, 0x2 };
    srand(11);
    for (unsigned g = 0; g < 4; g++) {
        setup_group(g * 4, members[g], g & 1, g);
    }
    uint8_t base[FAKE_SRAM_SIZE];
    memcpy(base, fake_sram, sizeof(base));
    unsigned releases = 0;
    for (unsigned r = 0; r < ROUNDS; r++) {
        uint64_t raddr;
        switch (rand() % 4) {
        case 0:
            raddr = DN1_BARP_RADDR((unsigned)rand() % 4 * 4);
            break;
        case 1:
            raddr = DN1_BARP_SRAM_COUNTERS + (uint64_t)(rand() % 0x200) - 0x40;
            break;
        case 2:
            raddr = (uint64_t)rand() << 33 ^ (uint64_t)rand();
            break;
        default:
            raddr = DN1_BARP_SETUP_RADDR((unsigned)rand() % 20) + (unsigned)rand() % 3;
            break;
        }
        uint8_t p[16] = { 0 };
        for (unsigned i = 0; i < 16; i++) {
            p[i] = (uint8_t)rand();
        }
        unsigned src = rand() % 2 ? ME : (unsigned)rand() % 64;
        size_t sent = fake_send_count, decided = fake_decision_count;
        uint32_t count_before = 0;
        int arrival = (raddr >> 32) == 0 && raddr >= DN1_BARP_SRAM_COUNTERS &&
                      raddr < DN1_BARP_RADDR(DN1_BAR_GROUPS) && (raddr & 15) == 0;
        if (arrival) {
            count_before = sram32((uint32_t)raddr);
        }
        /* Set-ups from this node would rebuild images: keep them out of
         * the storm (t_setup_refusals covers them). */
        if ((raddr >> 63) && src == ME) {
            src = ME + 1;
        }
        packet(src, ME, raddr, (uint8_t)(rand() % 8), p, (uint16_t)(rand() % 17));
        CHECK_EQ(fake_interrupts(), 1);
        CHECK_EQ(fake_decision_count, decided + 1);
        if (!arrival) {
            CHECK_EQ(last()->nack_reason, DN1_NACK_BARRIER_SETUP);
            CHECK_EQ(fake_send_count, sent);
            continue;
        }
        CHECK_EQ(last()->action, RX_DONE);
        unsigned g = (unsigned)(raddr - DN1_BARP_SRAM_COUNTERS) / 16;
        if (count_before == 1) {
            releases++;
            uint32_t rearm = sram32((uint32_t)raddr + DN1_BARP_CNT_REARM);
            CHECK_EQ(sram32((uint32_t)raddr), rearm);
            size_t n = fake_send_count - sent;
            if (g % 4 == 0 && (g / 4) & 1) {
                CHECK_EQ(n, 1);
                CHECK_EQ(fake_sends[sent % FAKE_SENDS].dst, DN1_MCAST_BASE + g / 4);
            } else if (g % 4 == 0) {
                CHECK_EQ(n, (size_t)__builtin_popcountll(members[g / 4]));
                for (size_t i = sent; i < fake_send_count; i++) {
                    CHECK(members[g / 4] >> fake_sends[i % FAKE_SENDS].dst & 1);
                }
            } else {
                CHECK_EQ(n, 0);     /* a group never set up */
            }
        } else {
            CHECK_EQ(fake_send_count, sent);
            CHECK_EQ(sram32((uint32_t)raddr), count_before - 1);
        }
    }
    /* Only count words changed. */
    for (uint32_t off = 0; off < FAKE_SRAM_SIZE; off += 4) {
        int count_word = off >= DN1_BARP_SRAM_COUNTERS && off < DN1_BARP_RADDR(DN1_BAR_GROUPS) &&
                         (off & 15) == DN1_BARP_CNT_COUNT;
        if (!count_word) {
            CHECK_MSG(memcmp(&base[off], &fake_sram[off], 4) == 0, "SRAM 0x%x written", off);
        }
    }
    printf("random_storm: %u releases\n", releases);
    CHECK(releases > 100);
}

static const struct test_case cases[] = {
    { "per_rank_release", t_per_rank_release },
    { "multicast_release", t_multicast_release },
    { "unchecked_as_in_paper", t_unchecked_as_in_paper },
    { "not_set_up", t_not_set_up },
    { "bad_counter_nacked", t_bad_counter_nacked },
    { "setup_refusals", t_setup_refusals },
    { "kinds_take_turns", t_kinds_take_turns },
    { "random_storm", t_random_storm },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, NULL);
}
