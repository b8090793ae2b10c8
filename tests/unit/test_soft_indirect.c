/* "MP by soft indirect" (handlers/soft_indirect/) on the FAKE HAL. */
#include "../common/check.h"
#include "fake_hal.h"
#include "dispatch.h"
#include "fwstats.h"
#include "soft_indirect/soft_indirect.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/soft_indirect.h"

#define SLOT_OFF  (DN1_LLCM_NIC_RESERVED + 0x100u)
#define SLOT      (DN1_RADDR_LLCM + SLOT_OFF)
#define TARGET    0x40000u
#define CAPACITY  4096u
#define ME        1u

static void setup(void)
{
    fake_rx_reset();
    soft_indirect_init();
    fake_nic_put_u32(SLOT, TARGET);
    fake_nic_put_u32(SLOT + 4, 0);
    fake_nic_put_u32(SLOT + 8, CAPACITY);
    fake_nic_put_u32(SLOT + 12, 0);
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

/* Without f_seq the firmware takes the network's order and counts bytes. */
static void t_no_fseq_any_order(void)
{
    CHECK_EQ(serve(pkt(928, 464, 464, 9, 0), NULL), RX_WRITE);
    CHECK_EQ(done(), 0);
    CHECK_EQ(serve(pkt(928, 0, 464, 3, 0), NULL), RX_WRITE);   /* starts over */
    CHECK_EQ(done(), 0);
    CHECK_EQ(serve(pkt(928, 464, 464, 4, 0), NULL), RX_WRITE);
    CHECK_EQ(done(), 1);
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
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t acks;
        CHECK_EQ(serve(cases[i].h, &acks), RX_NACK);
        CHECK_EQ(fake_decisions[(fake_decision_count - 1) % FAKE_DECISIONS].nack_reason,
                 cases[i].reason);
        CHECK_EQ(acks, 0);
    }
    CHECK_EQ(done(), 0);
}

static const struct test_case cases[] = {
    { "transfer", t_transfer },
    { "fseq", t_fseq },
    { "no_fseq_any_order", t_no_fseq_any_order },
    { "refusals", t_refusals },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, NULL);
}
