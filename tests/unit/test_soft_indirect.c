/* "MP by soft indirect" (handlers/soft_indirect/) on the FAKE HAL. */
#include "../common/check.h"
#include "fake_hal.h"
#include "dispatch.h"
#include "fwstats.h"
#include "soft_indirect/soft_indirect.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/shared_mem.h"
#include "dimmnet1/soft_indirect.h"
#include "hal/nicmem.h"
#include "dimmnet1/fw_types.h"

#define SLOT_OFF  (DN1_LLCM_NIC_RESERVED + 0x100u)
#define SLOT      (DN1_RADDR_LLCM + SLOT_OFF)
#define TARGET    0x40000u
#define CAPACITY  4096u
#define ME        1u
/* A second slot a little after the first. */
#define SLOT2_OFF  (SLOT_OFF + 0x40u)
#define SLOT2      (DN1_RADDR_LLCM + SLOT2_OFF)

static void setup(void)
{
    fake_rx_reset();
    soft_indirect_init();
    fake_nic_put_u32(SLOT, TARGET);
    fake_nic_put_u32(SLOT + 4, 0);
    fake_nic_put_u32(SLOT + 8, CAPACITY);
    fake_nic_put_u32(SLOT + 12, 0);
    fake_nic_put_u32(SLOT2, TARGET + 0x1000);
    fake_nic_put_u32(SLOT2 + 4, 0);
    fake_nic_put_u32(SLOT2 + 8, CAPACITY);
    fake_nic_put_u32(SLOT2 + 12, 0);
    dispatch_register(DN1_TYPE_SOFT_INDIRECT, soft_indirect_handle);
}

static struct dn1_hdr pkt(uint32_t total, uint32_t xoff, uint16_t len,
                          uint16_t seq, uint8_t flags)
{
    return (struct dn1_hdr){ .version = 1, .type = DN1_TYPE_SOFT_INDIRECT,
                             .flags = DN1_FLAG_ACK_REQ | flags, .src = 2,
                             .dst = ME, .len = len, .seq = seq, .tag = 0x700 + seq,
                             .raddr = DN1_SOFT_RADDR(total, SLOT_OFF), .xoff = xoff };
}

/* Serve one packet; its decision (and how many ACKs the firmware sent). */
static enum rx_action serve(struct dn1_hdr h, size_t *acks)
{
    size_t k = fake_decision_count, s = fake_send_count;
    fake_rx_push(&h);
    dispatch_service();
    if (acks) {
        *acks = fake_send_count - s;
    }
    return fake_decisions[k % FAKE_DECISIONS].action;
}

static uint32_t done(void)
{
    return fake_nic_get_u32(SLOT + 12);
}

/* A transfer of three packets: written at the pointer + offset with no
 * hardware ACK, each ACKed by the firmware (tag, seq, to the source), the
 * slot's notice posted once, after the last. */
static void t_transfer(void)
{
    size_t acks;
    uint32_t written = fwstats_get(DN1_FWST_SOFT_PACKETS);

    for (unsigned i = 0; i < 3; i++) {
        size_t k = fake_decision_count;
        CHECK_EQ(serve(pkt(1000, 464 * i, i < 2 ? 464 : 72, (uint16_t)(5 + i), 0), &acks),
                 RX_WRITE);
        CHECK_EQ(fake_decisions[k % FAKE_DECISIONS].raddr, TARGET + 464 * i);
        CHECK_EQ(acks, 1);
        struct fake_send *a = &fake_sends[(fake_send_count - 1) % FAKE_SENDS];
        CHECK_EQ(a->type, DN1_TYPE_ACK);
        CHECK_EQ(a->dst, 2);
        CHECK_EQ(a->len, 0);
        CHECK_EQ(a->seq, 5 + i);
        CHECK_EQ(a->tag, 0x705 + i);
        CHECK_EQ(a->xoff, 464 * i);
        CHECK_EQ(a->off, DN1_SOFT_SRAM_ACK);
        CHECK_EQ(done(), i == 2 ? 1 : 0);
    }
    CHECK_EQ(fwstats_get(DN1_FWST_SOFT_PACKETS), written + 3);
}

/* f_seq: a duplicate is ACKed again and not written; a gap is NACKed; the
 * transfer goes on in order; a packet whose first never came is NACKed. */
static void t_fseq(void)
{
    size_t acks;
    uint32_t dups = fwstats_get(DN1_FWST_SOFT_DUPLICATES);

    CHECK_EQ(serve(pkt(928, 0, 464, 40, DN1_FLAG_FSEQ), &acks), RX_WRITE);
    CHECK_EQ(serve(pkt(928, 0, 464, 40, DN1_FLAG_FSEQ), &acks), RX_DISCARD);
    CHECK_EQ(acks, 1);
    CHECK_EQ(fwstats_get(DN1_FWST_SOFT_DUPLICATES), dups + 1);
    CHECK_EQ(serve(pkt(928, 464, 464, 42, DN1_FLAG_FSEQ), &acks), RX_NACK);
    CHECK_EQ(fake_decisions[(fake_decision_count - 1) % FAKE_DECISIONS].nack_reason,
             DN1_NACK_SEQUENCE);
    CHECK_EQ(acks, 0);
    CHECK_EQ(done(), 0);
    CHECK_EQ(serve(pkt(928, 464, 464, 41, DN1_FLAG_FSEQ), &acks), RX_WRITE);
    CHECK_EQ(done(), 1);
    /* After it: its last again is a duplicate. */
    CHECK_EQ(serve(pkt(928, 464, 464, 41, DN1_FLAG_FSEQ), &acks), RX_DISCARD);
    CHECK_EQ(done(), 1);
    /* A packet of a transfer whose first packet is missing. */
    CHECK_EQ(serve(pkt(928, 464, 464, 43, DN1_FLAG_FSEQ), &acks), RX_NACK);
    CHECK_EQ(fake_decisions[(fake_decision_count - 1) % FAKE_DECISIONS].nack_reason,
             DN1_NACK_SEQUENCE);
}

/* Without f_seq the firmware takes the network's order and counts bytes;
 * a packet past offset 0 that continues no transfer is refused. */
static void t_no_fseq_any_order(void)
{
    CHECK_EQ(serve(pkt(928, 464, 464, 9, 0), NULL), RX_NACK);
    CHECK_EQ(fake_decisions[(fake_decision_count - 1) % FAKE_DECISIONS].nack_reason,
             DN1_NACK_SEQUENCE);
    CHECK_EQ(serve(pkt(1392, 0, 464, 3, 0), NULL), RX_WRITE);
    CHECK_EQ(serve(pkt(1392, 928, 464, 5, 0), NULL), RX_WRITE);   /* ahead of 464 */
    CHECK_EQ(done(), 0);
    CHECK_EQ(serve(pkt(1392, 464, 464, 4, 0), NULL), RX_WRITE);
    CHECK_EQ(done(), 1);
    /* Done: a late packet of it continues nothing. */
    CHECK_EQ(serve(pkt(1392, 464, 464, 4, 0), NULL), RX_NACK);
    /* A transfer ends with the firmware (NIC restart: init). */
    CHECK_EQ(serve(pkt(928, 0, 464, 6, 0), NULL), RX_WRITE);
    soft_indirect_init();
    CHECK_EQ(serve(pkt(928, 464, 464, 7, 0), NULL), RX_NACK);
    CHECK_EQ(fake_decisions[(fake_decision_count - 1) % FAKE_DECISIONS].nack_reason,
             DN1_NACK_SEQUENCE);
    CHECK_EQ(done(), 1);
    /* With FSEQ a transfer begun without it is not continued. */
    CHECK_EQ(serve(pkt(928, 0, 464, 8, 0), NULL), RX_WRITE);
    CHECK_EQ(serve(pkt(928, 464, 464, 9, DN1_FLAG_FSEQ), NULL), RX_NACK);
    CHECK_EQ(done(), 1);
}

static struct dn1_hdr pkt_from(uint16_t src, uint32_t slot_off, uint32_t total,
                               uint32_t xoff, uint16_t len, uint16_t seq)
{
    struct dn1_hdr h = pkt(total, xoff, len, seq, DN1_FLAG_FSEQ);
    h.src = src;
    h.raddr = DN1_SOFT_RADDR(total, slot_off);
    return h;
}

/* Any node id may send (the fuzzer's finding 1: 64 and up were NACKed
 * BAD_PATH); a bad slot from such a sender is BAD_POINTER. */
static void t_any_sender(void)
{
    static const uint16_t senders[] = { 63, 64, 1000, DN1_MCAST_BASE - 1 };
    size_t acks;

    for (unsigned i = 0; i < 4; i++) {
        CHECK_EQ(serve(pkt_from(senders[i], SLOT_OFF, 16, 0, 16, 7), &acks), RX_WRITE);
        CHECK_EQ(acks, 1);
        CHECK_EQ(fake_sends[(fake_send_count - 1) % FAKE_SENDS].dst, senders[i]);
        CHECK_EQ(done(), i + 1);
    }
    CHECK_EQ(serve(pkt_from(64, 0, 16, 0, 16, 8), &acks), RX_NACK);
    CHECK_EQ(fake_decisions[(fake_decision_count - 1) % FAKE_DECISIONS].nack_reason,
             DN1_NACK_BAD_POINTER);
}

/* A transfer is keyed by sender and slot: one on a second slot does not
 * end the same sender's on the first (the fuzzer's finding 2). */
static void t_two_slots_one_sender(void)
{
    CHECK_EQ(serve(pkt_from(20, SLOT_OFF, 300, 0, 100, 0x1f4), NULL), RX_WRITE);
    CHECK_EQ(serve(pkt_from(20, SLOT2_OFF, 50, 0, 20, 0x2328), NULL), RX_WRITE);
    CHECK_EQ(serve(pkt_from(20, SLOT2_OFF, 50, 20, 30, 0x2329), NULL), RX_WRITE);
    CHECK_EQ(fake_nic_get_u32(SLOT2 + 12), 1);
    CHECK_EQ(serve(pkt_from(20, SLOT_OFF, 300, 100, 100, 0x1f5), NULL), RX_WRITE);
    CHECK_EQ(serve(pkt_from(20, SLOT_OFF, 300, 200, 100, 0x1f6), NULL), RX_WRITE);
    CHECK_EQ(done(), 1);
}

/* More transfers than entries: finished ones give way first; an entry in
 * progress is taken only when its set has nothing else, counted, and that
 * transfer's next packet is refused; every other completes. */
static void t_many_transfers(void)
{
    enum { N = 600 };
    uint32_t ended = fwstats_get(DN1_FWST_SOFT_ENDED);
    unsigned refused = 0;

    /* One in progress survives hundreds of finished ones. */
    CHECK_EQ(serve(pkt_from(5, SLOT_OFF, 32, 0, 16, 1), NULL), RX_WRITE);
    for (unsigned s = 100; s < 100 + N; s++) {
        CHECK_EQ(serve(pkt_from((uint16_t)s, SLOT2_OFF, 16, 0, 16, 1), NULL), RX_WRITE);
    }
    CHECK_EQ(fwstats_get(DN1_FWST_SOFT_ENDED), ended);
    CHECK_EQ(serve(pkt_from(5, SLOT_OFF, 32, 16, 16, 2), NULL), RX_WRITE);
    CHECK_EQ(done(), 1);
    /* N in progress at once: some must end. */
    for (unsigned s = 100; s < 100 + N; s++) {
        CHECK_EQ(serve(pkt_from((uint16_t)s, SLOT_OFF, 32, 0, 16, 3), NULL), RX_WRITE);
    }
    for (unsigned s = 100; s < 100 + N; s++) {
        enum rx_action a = serve(pkt_from((uint16_t)s, SLOT_OFF, 32, 16, 16, 4), NULL);
        if (a == RX_NACK) {
            CHECK_EQ(fake_decisions[(fake_decision_count - 1) % FAKE_DECISIONS].nack_reason,
                     DN1_NACK_SEQUENCE);
            refused++;
        } else {
            CHECK_EQ(a, RX_WRITE);
        }
    }
    CHECK(refused > 0);
    CHECK(refused >= N - 256);      /* 256 entries */
    CHECK_EQ(fwstats_get(DN1_FWST_SOFT_ENDED), ended + refused);
    CHECK_EQ(done(), 1 + N - refused);
}

/* Refusals: slot outside the user area or unaligned, past the transfer,
 * past the slot's room, wrong path; nothing written, no firmware ACK. */
static void t_refusals(void)
{
    struct {
        struct dn1_hdr h;
        uint8_t reason;
    } cases[] = {
        { pkt(464, 0, 464, 0, 0), DN1_NACK_BAD_POINTER },
        { pkt(464, 0, 464, 0, 0), DN1_NACK_BAD_POINTER },
        { pkt(464, 0, 464, 0, 0), DN1_NACK_BAD_POINTER },
        { pkt(100, 0, 464, 0, 0), DN1_NACK_BAD_MESSAGE },
        { pkt(8192, 4096 - 200, 464, 0, 0), DN1_NACK_TOO_LONG },
        { pkt(464, 0, 464, 0, DN1_FLAG_VA), DN1_NACK_BAD_PATH },
    };
    cases[0].h.raddr = DN1_SOFT_RADDR(464, 0x1100);                  /* NIC's part */
    cases[1].h.raddr = DN1_SOFT_RADDR(464, SLOT_OFF + 8);            /* unaligned */
    cases[2].h.raddr = DN1_SOFT_RADDR(464, DN1_LLCM_SIZE - 8);       /* runs past */
    cases[4].h.xoff = 4096 - 200;
    /* The transfer that case continues. */
    CHECK_EQ(serve(pkt(8192, 0, 464, 0, 0), NULL), RX_WRITE);
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t acks;
        CHECK_EQ(serve(cases[i].h, &acks), RX_NACK);
        CHECK_EQ(fake_decisions[(fake_decision_count - 1) % FAKE_DECISIONS].nack_reason,
                 cases[i].reason);
        CHECK_EQ(acks, 0);
    }
    CHECK_EQ(done(), 0);
}

/* A slot in host port 1's completion-queue block (LLCM 0xc000): on a board
 * of one port that is user memory and served; on a board of two the
 * hardware refuses remote writes there, so the firmware must not write its
 * done count there either (hal_nic_may_write): BAD_POINTER, nothing
 * written (issue 39 item 4). The port's atomic area after it is served. */
static void t_port_blocks(void)
{
    const uint32_t cq = DN1_LLCM_PORT_BASE, atomic_area = cq + DN1_LLCM_PORT_CQ_SIZE;
    size_t acks;

    for (unsigned k = 0; k < 2; k++) {
        uint64_t slot = DN1_RADDR_LLCM + (k ? atomic_area : cq);
        fake_nic_put_u32(slot, TARGET);
        fake_nic_put_u32(slot + 4, 0);
        fake_nic_put_u32(slot + 8, CAPACITY);
        fake_nic_put_u32(slot + 12, 5);
    }
    CHECK_EQ(serve(pkt_from(2, cq, 16, 0, 16, 1), &acks), RX_WRITE);
    CHECK_EQ(fake_nic_get_u32(DN1_RADDR_LLCM + cq + 12), 6);
    fake_host_ports = 2;
    CHECK_EQ(serve(pkt_from(3, cq, 16, 0, 16, 1), &acks), RX_NACK);
    CHECK_EQ(fake_decisions[(fake_decision_count - 1) % FAKE_DECISIONS].nack_reason,
             DN1_NACK_BAD_POINTER);
    CHECK_EQ(acks, 0);
    CHECK_EQ(fake_nic_get_u32(DN1_RADDR_LLCM + cq + 12), 6);
    CHECK_EQ(serve(pkt_from(3, atomic_area, 16, 0, 16, 2), &acks), RX_WRITE);
    CHECK_EQ(fake_nic_get_u32(DN1_RADDR_LLCM + atomic_area + 12), 6);
    CHECK(!hal_nic_may_write(DN1_RADDR_LLCM + cq + DN1_LLCM_PORT_CQ_SIZE - 4, 8));
    CHECK(hal_nic_may_read(DN1_RADDR_LLCM + cq, 8));
    CHECK(!hal_nic_may_write(DN1_RADDR_LLCM + 0x1100, 4));      /* NIC-reserved */
    CHECK(hal_nic_may_write(0, 8));                             /* receive memory */
    fake_host_ports = 1;
}

static const struct test_case cases[] = {
    { "transfer", t_transfer },
    { "port_blocks", t_port_blocks },
    { "fseq", t_fseq },
    { "no_fseq_any_order", t_no_fseq_any_order },
    { "any_sender", t_any_sender },
    { "two_slots_one_sender", t_two_slots_one_sender },
    { "many_transfers", t_many_transfers },
    { "refusals", t_refusals },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, NULL);
}
