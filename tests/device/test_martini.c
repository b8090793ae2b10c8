/*
 * Martini device tests, without firmware: the test is the processor (qtest
 * register accesses), the host (host-bus socket, shared memories) and the
 * peer board (link socket). The board under test is node 1; the peer is 0.
 *
 *   test_martini QEMU [CASE]
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../common/check.h"
#include "qtest_board.h"
#include "dimmnet1/hostbus.h"
#include "dimmnet1/link.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet_codec.h"
#include "dimmnet1/regs.h"
#include "dimmnet1/shared_mem.h"
#include "dimmnet1/fw_types.h"

#define ME    1
#define PEER  0
#define QUIET_MS 300     /* how long "nothing arrives" is watched for */
#define MARTINI_RXQ_MAX_TEST 64   /* docs/hardware.md: in-order queue of 64 */
#define DN_RADDR_LLCM_USER_TEST (DN1_RADDR_LLCM + DN1_LLCM_USER_BASE + 0x40)

static const char *qemu;
static struct qtest_board b;

static struct dn1_hdr pkt(uint8_t type, uint8_t flags, uint64_t raddr,
                          uint16_t len, uint32_t tag)
{
    struct dn1_hdr h = {
        .version = DN1_PKT_VERSION, .type = type, .flags = flags,
        .src = PEER, .dst = ME, .len = len, .seq = 1, .tag = tag,
        .raddr = raddr,
    };
    return h;
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(seed + i * 7);
    }
}

/* Count bytes of receive memory that are not zero outside [from, to). */
static size_t dirty_outside(size_t from, size_t to)
{
    size_t n = 0;
    for (size_t i = 0; i < DN1_HOSTMEM_SIZE; i++) {
        if ((i < from || i >= to) && b.hostmem[i]) {
            n++;
        }
    }
    return n;
}

static void expect_reply(uint8_t type, uint32_t tag, uint8_t reason)
{
    struct dn1_hdr r;
    CHECK(qb_link_recv(&b, &r, NULL, 5000) == 0);
    CHECK_EQ(r.type, type);
    CHECK_EQ(r.src, ME);
    CHECK_EQ(r.dst, PEER);
    CHECK_EQ(r.tag, tag);
    CHECK_EQ(r.reason, reason);
    CHECK_EQ(r.len, 0);
}

static void expect_no_packet(void)
{
    struct dn1_hdr r;
    CHECK(qb_link_recv(&b, &r, NULL, QUIET_MS) != 0);
}

static void hold_one(uint8_t type, uint64_t raddr, const uint8_t *data,
                     uint16_t len, uint32_t tag)
{
    struct dn1_hdr h = pkt(type, DN1_FLAG_ACK_REQ, raddr, len, tag);
    uint32_t before = qb_counter(&b, DN1_CNT_RX_HELD);

    qb_link_send(&b, &h, data);
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_HELD, before + 1, 5000) == 0);
}

static void t_identity(void)
{
    CHECK_EQ(qb_reg(&b, DN1_REG_ID), DN1_ID_VALUE);
    CHECK_EQ(qb_reg(&b, DN1_REG_VERSION), DN1_CONTRACT_VERSION);
    CHECK_EQ(qb_reg(&b, DN1_REG_NODE_ID), ME);
    CHECK_EQ(qb_reg(&b, DN1_REG_LINK_STATUS), DN1_LINK_UP);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_FW_STATUS), 0);
    for (unsigned i = 0; i < DN1_CNT_COUNT; i++) {
        CHECK_EQ(qb_counter(&b, i), 0);
    }
}

/* Hardware PUSH: written in place, ACKed, and no interrupt. */
static void t_push_ack(void)
{
    uint8_t data[100];
    fill(data, sizeof(data), 3);
    struct dn1_hdr h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, 0x3000, sizeof(data), 0x1234);

    qb_link_send(&b, &h, data);
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_PUSH, 1, 5000) == 0);
    CHECK(memcmp(b.hostmem + 0x3000, data, sizeof(data)) == 0);
    CHECK_EQ(dirty_outside(0x3000, 0x3000 + sizeof(data)), 0);
    expect_reply(DN1_TYPE_ACK, 0x1234, 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_HELD), 0);
    CHECK_EQ(b.irq_level, 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_ACK), 1);
}

static void t_push_no_ack(void)
{
    uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    struct dn1_hdr h = pkt(DN1_TYPE_PUSH, 0, 0x10, sizeof(data), 1);

    qb_link_send(&b, &h, data);
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_PUSH, 1, 5000) == 0);
    CHECK(memcmp(b.hostmem + 0x10, data, 8) == 0);
    expect_no_packet();
}

/* The paper's indirect-write procedure, done by hand: hold, IRQ, rewrite, continue. */
static void t_hold_irq_continue(void)
{
    uint8_t data[64];
    fill(data, sizeof(data), 9);
    qb_set_reg(&b, DN1_REG_IRQ_ENABLE, DN1_IRQ_RX_HELD);

    struct dn1_hdr h = pkt(DN1_TYPE_INDIRECT_WRITE, DN1_FLAG_ACK_REQ, 0x100, sizeof(data), 7);
    h.xoff = 0x40;
    qb_link_send(&b, &h, data);
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_HELD, 1, 5000) == 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), DN1_IRQ_RX_HELD);
    CHECK_EQ(b.irq_level, 1);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_HDR0),
             DN1_PKT_VERSION << 24 | DN1_TYPE_INDIRECT_WRITE << 16 | DN1_FLAG_ACK_REQ << 8);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_HDR1), PEER << 16 | ME);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_HDR2), sizeof(data) << 16 | 1);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_TAG), 7);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_RADDR_HI), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_RADDR_LO), 0x100);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_XOFF), 0x40);
    for (unsigned i = 0; i < sizeof(data); i++) {
        CHECK_EQ(qb_readb(&b, DN1_REGS_BASE + DN1_REG_RX_PAYLOAD + i), data[i]);
    }
    /* Word reads of the payload are in address order (big-endian). */
    CHECK_EQ(qb_readl(&b, DN1_REGS_BASE + DN1_REG_RX_PAYLOAD),
             (uint32_t)data[0] << 24 | data[1] << 16 | data[2] << 8 | data[3]);
    /* Nothing written before firmware decides. */
    CHECK_EQ(dirty_outside(0, 0), 0);

    qb_set_reg(&b, DN1_REG_RX_RADDR_LO, 0x5000);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_CONTINUE);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_OK);
    CHECK(memcmp(b.hostmem + 0x5000, data, sizeof(data)) == 0);
    CHECK_EQ(dirty_outside(0x5000, 0x5000 + sizeof(data)), 0);
    expect_reply(DN1_TYPE_ACK, 7, 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), 0);
    CHECK_EQ(b.irq_level, 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_CONTINUED), 1);
}

static void t_irq_masked(void)
{
    uint8_t d = 0x5a;
    hold_one(DN1_TYPE_INDIRECT_WRITE, 0, &d, 1, 1);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), DN1_IRQ_RX_HELD);
    CHECK_EQ(b.irq_level, 0);               /* masked */
    qb_set_reg(&b, DN1_REG_IRQ_ENABLE, DN1_IRQ_RX_HELD);
    qb_reg(&b, DN1_REG_ID);                 /* sync: collect async IRQ lines */
    CHECK_EQ(b.irq_level, 1);
    qb_set_reg(&b, DN1_REG_IRQ_ENABLE, 0);
    qb_reg(&b, DN1_REG_ID);
    CHECK_EQ(b.irq_level, 0);
}

static void t_discard(void)
{
    uint8_t data[16];
    fill(data, sizeof(data), 1);
    hold_one(DN1_TYPE_MESSAGE, 0x200, data, sizeof(data), 3);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_DISCARD);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_OK);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_DISCARDED), 1);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), 0);
    CHECK_EQ(dirty_outside(0, 0), 0);
    expect_no_packet();
}

static void t_nack_cmd(void)
{
    uint8_t d = 1;
    hold_one(DN1_TYPE_MESSAGE, 0x200, &d, 1, 0xabcd);
    qb_set_reg(&b, DN1_REG_RX_NACK_REASON, DN1_NACK_BAD_POINTER);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_NACK);
    expect_reply(DN1_TYPE_NACK, 0xabcd, DN1_NACK_BAD_POINTER);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_NACKED), 1);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_NACK), 1);
    CHECK_EQ(dirty_outside(0, 0), 0);
}

/* Firmware aims a write outside receive memory: refused whole, NACKed. */
static void t_continue_out_of_range(void)
{
    uint8_t data[32];
    fill(data, sizeof(data), 2);
    hold_one(DN1_TYPE_INDIRECT_WRITE, 0, data, sizeof(data), 11);
    qb_set_reg(&b, DN1_REG_RX_RADDR_LO, DN1_HOSTMEM_SIZE - 16);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_CONTINUE);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_RANGE);
    expect_reply(DN1_TYPE_NACK, 11, DN1_NACK_RANGE);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_RANGE), 1);
    CHECK_EQ(dirty_outside(0, 0), 0);

    hold_one(DN1_TYPE_INDIRECT_WRITE, 0, data, sizeof(data), 12);
    qb_set_reg(&b, DN1_REG_RX_RADDR_HI, 1);           /* 4 GiB up */
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_CONTINUE);
    expect_reply(DN1_TYPE_NACK, 12, DN1_NACK_RANGE);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_RANGE), 2);
    CHECK_EQ(dirty_outside(0, 0), 0);
}

static void t_push_out_of_range(void)
{
    uint8_t data[20];
    fill(data, sizeof(data), 4);
    struct dn1_hdr h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, DN1_HOSTMEM_SIZE - 10,
                           sizeof(data), 21);
    qb_link_send(&b, &h, data);
    expect_reply(DN1_TYPE_NACK, 21, DN1_NACK_RANGE);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_RANGE), 1);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_PUSH), 0);
    CHECK_EQ(dirty_outside(0, 0), 0);
}

/* PUSH into the LLCM user area; the NIC's own completion queue is off limits. */
static void t_push_llcm(void)
{
    uint8_t data[24];
    fill(data, sizeof(data), 6);
    uint8_t before[DN1_LLCM_NIC_RESERVED];
    memcpy(before, b.llcm, sizeof(before));

    struct dn1_hdr h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ,
                           DN1_RADDR_LLCM + DN1_LLCM_USER_BASE + 0x10, sizeof(data), 31);
    qb_link_send(&b, &h, data);
    expect_reply(DN1_TYPE_ACK, 31, 0);
    CHECK(memcmp(b.llcm + DN1_LLCM_USER_BASE + 0x10, data, sizeof(data)) == 0);
    CHECK_EQ(dirty_outside(0, 0), 0);                  /* receive memory untouched */

    /* Refused whole: the completion queue area, past the end, the gap. */
    const uint64_t refused[] = {
        DN1_RADDR_LLCM,                                /* CQ counters */
        DN1_RADDR_LLCM + DN1_LLCM_NIC_RESERVED - 8,    /* straddles into user area */
        DN1_RADDR_LLCM + DN1_LLCM_SIZE - 8,            /* runs past the end */
        DN1_HOSTMEM_SIZE + 0x1000,                     /* between the memories */
    };
    for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, refused[i], sizeof(data), 40 + i);
        qb_link_send(&b, &h, data);
        expect_reply(DN1_TYPE_NACK, 40 + i, DN1_NACK_RANGE);
    }
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_RANGE), 4);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_PUSH), 1);
    /* The CQ area holds exactly what it held (no ACK/NACK arrived here). */
    CHECK(memcmp(before, b.llcm, sizeof(before)) == 0);
    for (size_t i = DN1_LLCM_USER_BASE; i < DN1_LLCM_SIZE; i++) {
        if (i < DN1_LLCM_USER_BASE + 0x10 || i >= DN1_LLCM_USER_BASE + 0x10 + sizeof(data)) {
            if (b.llcm[i]) {
                CHECK(!"LLCM written outside the target");
                break;
            }
        }
    }
}

/* The pipeline is in order: a PUSH behind a held packet waits for it. */
static void t_in_order(void)
{
    uint8_t a = 0xa1, push[4] = { 0xb1, 0xb2, 0xb3, 0xb4 }, c = 0xc1;
    struct dn1_hdr ha = pkt(DN1_TYPE_INDIRECT_WRITE, DN1_FLAG_ACK_REQ, 0, 1, 1);
    struct dn1_hdr hb = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, 0x800, 4, 2);
    struct dn1_hdr hc = pkt(DN1_TYPE_INDIRECT_WRITE, DN1_FLAG_ACK_REQ, 0, 1, 3);

    qb_link_send(&b, &ha, &a);
    qb_link_send(&b, &hb, push);
    qb_link_send(&b, &hc, &c);
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_FRAMES, 3, 5000) == 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_TAG), 1);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_PUSH), 0);      /* stopped behind A */
    qb_set_reg(&b, DN1_REG_RX_RADDR_LO, 0x900);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_CONTINUE);
    expect_reply(DN1_TYPE_ACK, 1, 0);
    expect_reply(DN1_TYPE_ACK, 2, 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_PUSH), 1);
    CHECK(memcmp(b.hostmem + 0x800, push, 4) == 0);
    CHECK_EQ(b.hostmem[0x900], a);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_TAG), 3);           /* C now held */
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_HELD), 2);
}

/* More packets behind a held one than the queue holds: back-pressure on the
 * link, nothing dropped, all written in order once firmware continues. */
static void t_backpressure(void)
{
    enum { N = 100 };
    uint8_t a = 0xaa;
    hold_one(DN1_TYPE_INDIRECT_WRITE, 0, &a, 1, 1);
    for (unsigned i = 0; i < N; i++) {
        uint8_t d[4] = { (uint8_t)i, (uint8_t)(i >> 8), 0x5c, 0x5d };
        struct dn1_hdr h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, 0x1000 + 4 * i, 4, 100 + i);
        qb_link_send(&b, &h, d);
    }
    /* The board took what its queue holds and left the rest in the socket. */
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_FRAMES, 1 + MARTINI_RXQ_MAX_TEST, 5000) == 0);
    struct timespec ts = { 0, 100 * 1000000L };
    nanosleep(&ts, NULL);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_FRAMES), 1 + MARTINI_RXQ_MAX_TEST);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_PUSH), 0);

    qb_set_reg(&b, DN1_REG_RX_RADDR_LO, 0x900);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_CONTINUE);
    expect_reply(DN1_TYPE_ACK, 1, 0);
    for (unsigned i = 0; i < N; i++) {
        expect_reply(DN1_TYPE_ACK, 100 + i, 0);                  /* in order */
    }
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_PUSH), N);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_FRAMES), 1 + N);
    for (unsigned i = 0; i < N; i++) {
        CHECK_EQ(b.hostmem[0x1000 + 4 * i], (uint8_t)i);
    }
}

/* Malformed packets are dropped and counted; the link keeps working. */
static void t_malformed(void)
{
    uint8_t frame[DN1_LINK_FRAME_HDR + DN1_PKT_HDR_SIZE + 8];
    uint8_t *p = frame + DN1_LINK_FRAME_HDR;
    uint8_t data[8] = { 0 };
    struct dn1_hdr h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, 0x40, 8, 1);

    dn1_put_be32(frame, DN1_LINK_MAGIC);
    dn1_put_be32(frame + 4, sizeof(frame));
    dn1_put_be64(frame + 8, 0);
    memset(p + DN1_PKT_HDR_SIZE, 0x77, 8);

    dn1_packet_seal(p, &h);
    p[DN1_PKT_HDR_SIZE + 3] ^= 0x10;                 /* corrupt payload */
    qb_link_send_raw(&b, frame, sizeof(frame));
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_CRC, 1, 5000) == 0);

    dn1_packet_seal(p, &h);
    p[DN1_OFF_VERSION] = 9;                          /* unknown version */
    qb_link_send_raw(&b, frame, sizeof(frame));
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_VERSION, 1, 5000) == 0);

    h.len = 4;                                       /* len disagrees with frame */
    dn1_packet_seal(p, &h);
    qb_link_send_raw(&b, frame, sizeof(frame));
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_LENGTH, 1, 5000) == 0);

    h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, 0x40, 8, 1);
    h.dst = 5;                                       /* someone else's */
    qb_link_send(&b, &h, data);
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_DST, 1, 5000) == 0);

    h = pkt(DN1_TYPE_ACK, 0, 0, 8, 1);               /* ACK with a payload */
    qb_link_send(&b, &h, data);
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_STRAY_ACK, 1, 5000) == 0);

    uint8_t junk[DN1_LINK_FRAME_HDR] = { 'j', 'u', 'n', 'k' };
    qb_link_send_raw(&b, junk, sizeof(junk));        /* bad frame magic */
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_FRAMING, 1, 5000) == 0);

    CHECK_EQ(dirty_outside(0, 0), 0);
    expect_no_packet();

    uint8_t good[8] = { 1, 1, 2, 3, 5, 8, 13, 21 };
    h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, 0x40, 8, 2);
    qb_link_send(&b, &h, good);
    expect_reply(DN1_TYPE_ACK, 2, 0);
    CHECK(memcmp(b.hostmem + 0x40, good, 8) == 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_FRAMES), 6);  /* junk was no frame */
}

static void t_completion_queue(void)
{
    struct dn1_hdr h = pkt(DN1_TYPE_ACK, 0, 0, 0, 99);
    qb_link_send(&b, &h, NULL);
    h = pkt(DN1_TYPE_NACK, 0, 0, 0, 100);
    h.reason = DN1_NACK_NO_HANDLER;
    qb_link_send(&b, &h, NULL);
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_NACK, 1, 5000) == 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_ACK), 1);

    struct dn1_cq_rec r[2];
    memcpy(r, b.llcm + DN1_LLCM_CQ_RING, sizeof(r));
    CHECK_EQ(*(uint32_t *)(b.llcm + DN1_LLCM_CQ_PRODUCED), 2);
    CHECK_EQ(r[0].tag, 99);
    CHECK_EQ(r[0].kind, DN1_CQ_KIND_ACK);
    CHECK_EQ(r[0].src, PEER);
    CHECK_EQ(r[0].index, 0);
    CHECK_EQ(r[1].tag, 100);
    CHECK_EQ(r[1].kind, DN1_CQ_KIND_NACK);
    CHECK_EQ(r[1].reason, DN1_NACK_NO_HANDLER);
    CHECK_EQ(r[1].index, 1);

    /* The host consumed nothing: the queue fills, the rest are counted lost. */
    for (unsigned i = 0; i < DN1_LLCM_CQ_ENTRIES; i++) {
        h = pkt(DN1_TYPE_ACK, 0, 0, 0, 1000 + i);
        qb_link_send(&b, &h, NULL);
    }
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_ACK, 1 + DN1_LLCM_CQ_ENTRIES, 5000) == 0);
    CHECK_EQ(*(uint32_t *)(b.llcm + DN1_LLCM_CQ_PRODUCED), DN1_LLCM_CQ_ENTRIES);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_CQ_FULL), 2);
}

static void t_botf_kick(void)
{
    uint8_t *w = b.window + DN1_BOTF_WINDOW_STRIDE;      /* window 1 */
    struct dn1_botf_hdr hdr = {
        .type = DN1_TYPE_PUSH, .flags = DN1_FLAG_ACK_REQ, .dst = PEER,
        .len = 10, .seq = 77, .tag = 5, .xoff = 0x20, .raddr = 0x1234567890ull,
    };
    uint8_t payload[10], got[DN1_PKT_MAX_PAYLOAD];
    fill(payload, sizeof(payload), 8);
    memcpy(w, &hdr, sizeof(hdr));                        /* host is little-endian */
    memcpy(w + DN1_BOTF_PAYLOAD_OFF, payload, sizeof(payload));
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 1, NULL), 0);

    struct dn1_hdr r;
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.type, DN1_TYPE_PUSH);
    CHECK_EQ(r.flags, DN1_FLAG_ACK_REQ);
    CHECK_EQ(r.src, ME);
    CHECK_EQ(r.dst, PEER);
    CHECK_EQ(r.len, 10);
    CHECK_EQ(r.seq, 77);
    CHECK_EQ(r.tag, 5);
    CHECK_EQ(r.xoff, 0x20);
    CHECK_EQ(r.raddr, 0x1234567890ull);
    CHECK(memcmp(got, payload, sizeof(payload)) == 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_PACKETS), 1);

    /* A full 464-byte packet from window 0. */
    hdr.len = DN1_BOTF_MAX_PAYLOAD;
    memcpy(b.window, &hdr, sizeof(hdr));
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 0, NULL), 0);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.len, DN1_BOTF_MAX_PAYLOAD);

    /* Window 5 (contract 1.18): after the RDMA descriptors, at 0x1200. */
    hdr.len = 10;
    hdr.tag = 55;
    memcpy(b.window + 0x1200, &hdr, sizeof(hdr));
    memcpy(b.window + 0x1200 + DN1_BOTF_PAYLOAD_OFF, payload, sizeof(payload));
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 5, NULL), 0);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.tag, 55);
    CHECK_EQ(r.len, 10);
    CHECK(memcmp(got, payload, sizeof(payload)) == 0);
    hdr.tag = 5;

    /* Refused: no such window, too long, a forged ACK, stray flags, reserved set. */
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, DN1_BOTF_WINDOWS, NULL), DN1_HB_EINVAL);
    hdr.len = DN1_BOTF_MAX_PAYLOAD + 1;
    memcpy(b.window, &hdr, sizeof(hdr));
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 0, NULL), DN1_HB_EINVAL);
    hdr.len = 1;
    hdr.type = DN1_TYPE_ACK;
    memcpy(b.window, &hdr, sizeof(hdr));
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 0, NULL), DN1_HB_EINVAL);
    hdr.type = DN1_TYPE_PUSH;
    hdr.flags = 0x80;
    memcpy(b.window, &hdr, sizeof(hdr));
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 0, NULL), DN1_HB_EINVAL);
    hdr.flags = 0;
    hdr.reserved = 1;
    memcpy(b.window, &hdr, sizeof(hdr));
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 0, NULL), DN1_HB_EINVAL);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_BOTF), 5);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_PACKETS), 3);
    expect_no_packet();
}

static void t_hostbus_errors(void)
{
    uint64_t v = 0;
    CHECK_EQ(qb_hostbus(&b, DN1_HB_NOP, 0, NULL), 0);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ, DN1_REG_ID, &v), 0);
    CHECK_EQ(v, DN1_ID_VALUE);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ, 2, NULL), DN1_HB_EINVAL);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ, DN1_REGS_SIZE, NULL), DN1_HB_EINVAL);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ, DN1_REG_RX_CMD, NULL), DN1_HB_EINVAL);
    CHECK_EQ(qb_hostbus(&b, 99, 0, NULL), DN1_HB_EBADOP);
    /* Op bits 8-30 are the host's work (host sync): the op acts as itself. */
    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ | 1234u << DN1_HB_HOST_NS_SHIFT, DN1_REG_ID, &v), 0);
    CHECK_EQ(v, DN1_ID_VALUE);
    CHECK_EQ(qb_hostbus(&b, 99 | DN1_HB_HOST_NS_MAX << DN1_HB_HOST_NS_SHIFT, 0, NULL),
             DN1_HB_EBADOP);
    struct dn1_hb_req bad = { .magic = 0x12345678, .op = DN1_HB_NOP };
    CHECK_EQ(qb_hostbus_raw(&b, &bad, sizeof(bad)), DN1_HB_EINVAL);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_HOSTBUS), 6);
    /* Still in step after the errors. */
    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ, DN1_REG_NODE_ID, &v), 0);
    CHECK_EQ(v, ME);
}

/*
 * Posted requests (contract 1.17): no response when they act, LLCM
 * HB_POSTED counts each; a failure is answered by an error notice naming
 * the request (its number), HB_FAILED counting it. Responses and notices
 * keep the requests' order.
 */
/*
 * Timing off: the frames that requests of one read make leave in one write
 * (merged); on the link they are the same frames, in order, each whole.
 */
static void t_link_merge(void)
{
    struct dn1_hb_req req[8];
    struct dn1_hdr r;
    uint8_t got[DN1_PKT_MAX_PAYLOAD];

    for (unsigned i = 0; i < 8; i++) {
        struct dn1_botf_hdr hdr = {
            .type = DN1_TYPE_PUSH, .dst = PEER, .len = 8 + i, .seq = i,
            .tag = 60 + i, .raddr = 0x100 + 64 * i,
        };
        uint8_t payload[16];
        memset(payload, 0xa0 + i, sizeof(payload));
        memcpy(b.window + dn1_botf_window_off(i), &hdr, sizeof(hdr));
        memcpy(b.window + dn1_botf_window_off(i) + DN1_BOTF_PAYLOAD_OFF, payload,
               sizeof(payload));
        req[i] = (struct dn1_hb_req){ .magic = DN1_HB_MAGIC, .arg0 = i,
                                      .op = DN1_HB_BOTF_KICK | DN1_HB_POSTED };
    }
    CHECK_EQ(write(b.hostbus_fd, req, sizeof(req)), sizeof(req));
    for (unsigned i = 0; i < 8; i++) {
        CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
        CHECK_EQ(r.tag, 60 + i);
        CHECK_EQ(r.seq, i);
        CHECK_EQ(r.len, 8 + i);
        CHECK_EQ(r.raddr, 0x100 + 64 * i);
        CHECK_EQ(got[0], 0xa0 + i);
        CHECK_EQ(got[7 + i], 0xa0 + i);
    }
    expect_no_packet();
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_PACKETS), 8);
    CHECK_EQ(*(volatile uint32_t *)(b.llcm + DN1_LLCM_HB_POSTED), 8);
}

static void t_hostbus_posted(void)
{
    volatile uint32_t *taken = (volatile uint32_t *)(b.llcm + DN1_LLCM_HB_POSTED);
    volatile uint32_t *failed = (volatile uint32_t *)(b.llcm + DN1_LLCM_HB_FAILED);
    struct dn1_botf_hdr hdr = {
        .type = DN1_TYPE_PUSH, .flags = DN1_FLAG_ACK_REQ, .dst = PEER,
        .len = 8, .seq = 3, .tag = 41, .raddr = 0x100,
    };
    struct dn1_hb_rsp rsp;
    struct dn1_hdr r;
    uint8_t got[DN1_PKT_MAX_PAYLOAD];

    CHECK_EQ(*taken, 0);
    CHECK_EQ(*failed, 0);
    memcpy(b.window, &hdr, sizeof(hdr));
    qb_hostbus_send(&b, DN1_HB_BOTF_KICK | DN1_HB_POSTED, 0, 0, 0);   /* #0 */
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.tag, 41);
    CHECK_EQ(*taken, 1);                       /* counted once it acted */
    CHECK(qb_hostbus_read(&b, &rsp, 200) != 0);   /* and nothing answered */

    qb_hostbus_send(&b, DN1_HB_BOTF_KICK | DN1_HB_POSTED, 2, 0, 0);   /* #1: window 2 empty */
    qb_hostbus_send(&b, DN1_HB_AOTF_STORE | DN1_HB_POSTED,            /* #2: channel closed */
                    DN1_AOTF_ARG0(5, 4, 0), 0x1234, 42);
    hdr.tag = 43;
    memcpy(b.window + DN1_BOTF_WINDOW_STRIDE, &hdr, sizeof(hdr));
    qb_hostbus_send(&b, DN1_HB_BOTF_KICK | DN1_HB_POSTED, 1, 0, 0);   /* #3 */
    qb_hostbus_send(&b, DN1_HB_REG_READ | DN1_HB_POSTED, DN1_REG_ID, 0, 0); /* #4: value dropped */
    qb_hostbus_send(&b, DN1_HB_NOP, 0, 0, 0);                         /* answered */
    CHECK(qb_hostbus_read(&b, &rsp, 5000) == 0);
    CHECK_EQ(rsp.magic, DN1_HB_MAGIC_NOTICE);
    CHECK_EQ(rsp.status, DN1_HB_EINVAL);
    CHECK_EQ(rsp.value, 1);
    CHECK(qb_hostbus_read(&b, &rsp, 5000) == 0);
    CHECK_EQ(rsp.magic, DN1_HB_MAGIC_NOTICE);
    CHECK_EQ(rsp.status, DN1_HB_EINVAL);
    CHECK_EQ(rsp.value, 2);
    CHECK(qb_hostbus_read(&b, &rsp, 5000) == 0);   /* the NOP's, after them */
    CHECK_EQ(rsp.magic, DN1_HB_MAGIC);
    CHECK_EQ(rsp.status, 0);
    CHECK_EQ(*taken, 5);
    CHECK_EQ(*failed, 2);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.tag, 43);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_PACKETS), 2);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_BOTF), 1);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_AOTF), 1);

    /* A bad magic is answered as always, posted flag or not: its op cannot
     * be trusted. The count of posted requests does not move. */
    struct dn1_hb_req bad = { .magic = 0x12345678,
                              .op = DN1_HB_NOP | DN1_HB_POSTED };
    CHECK_EQ(qb_hostbus_raw(&b, &bad, sizeof(bad)), DN1_HB_EINVAL);
    CHECK_EQ(*taken, 5);
}

static void t_register_errors(void)
{
    qb_set_reg(&b, DN1_REG_ID, 1);                          /* read-only */
    CHECK_EQ(qb_reg(&b, DN1_REG_ID), DN1_ID_VALUE);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_REG), 1);
    qb_set_reg(&b, DN1_REG_RX_RADDR_LO, 5);                 /* nothing held */
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_REG), 2);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_CONTINUE);    /* nothing held */
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_NO_PACKET);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_REG), 3);
    CHECK_EQ(qb_reg(&b, 0x01c), 0);                         /* hole */
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_REG), 4);
    CHECK_EQ(qb_readb(&b, DN1_REGS_BASE + DN1_REG_ID), 0);  /* byte read */
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_REG), 5);

    uint8_t d = 1;
    hold_one(DN1_TYPE_INDIRECT_WRITE, 0, &d, 1, 4);
    qb_set_reg(&b, DN1_REG_RX_CMD, 42);                     /* unknown command */
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_BAD_CMD);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), DN1_IRQ_RX_HELD); /* still held */
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_DISCARD);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), 0);
}

static void t_link_down(void)
{
    close(b.link_fd);
    b.link_fd = -1;
    for (int i = 0; i < 1000 && (qb_reg(&b, DN1_REG_LINK_STATUS) & DN1_LINK_UP); i++) {
        struct timespec ts = { 0, 2000000 };
        nanosleep(&ts, NULL);
    }
    CHECK_EQ(qb_reg(&b, DN1_REG_LINK_STATUS), 0);
    struct dn1_botf_hdr hdr = { .type = DN1_TYPE_PUSH, .dst = PEER, .len = 1 };
    memcpy(b.window, &hdr, sizeof(hdr));
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 0, NULL), DN1_HB_ELINKDOWN);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_LINK_DOWN), 1);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_PACKETS), 0);
}

/* Paper, barrier step 3: the firmware consumed the packet; nothing written. */
static void t_rx_done(void)
{
    uint8_t d[4] = { 9, 9, 9, 9 };
    hold_one(DN1_TYPE_BARRIER, 0x40, d, sizeof(d), 51);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_DONE);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_OK);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), 0);
    expect_reply(DN1_TYPE_ACK, 51, 0);                 /* asked for one */
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_DONE), 1);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_CONTINUED), 0);
    CHECK_EQ(dirty_outside(0, 0), 0);

    struct dn1_hdr h = pkt(DN1_TYPE_BARRIER, 0, 0x40, 0, 52);   /* no ACK asked */
    qb_link_send(&b, &h, NULL);
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_HELD, 2, 5000) == 0);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_DONE);
    expect_no_packet();
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_DONE), 2);
}

/* Paper, barrier step 5: send a completion packet pre-built in chip SRAM. */
static void t_tx_from_sram(void)
{
    uint8_t image[DN1_PKT_HDR_SIZE + 8], got[DN1_PKT_MAX_PAYLOAD];
    struct dn1_hdr h = {
        .version = 0, .type = DN1_TYPE_PUSH, .flags = DN1_FLAG_ACK_REQ,
        .src = 0x7777 /* the NIC puts its own */, .dst = PEER, .len = 8,
        .seq = 3, .tag = 0xbeef, .raddr = DN_RADDR_LLCM_USER_TEST, .xoff = 0,
    };
    memcpy(image + DN1_PKT_HDR_SIZE, "complete", 8);
    dn1_packet_seal(image, &h);                        /* wire format */
    qb_write(&b, DN1_CHIP_SRAM_BASE + 0x100, image, sizeof(image));
    qb_set_reg(&b, DN1_REG_TX_SRAM_OFF, 0x100);
    CHECK_EQ(qb_reg(&b, DN1_REG_TX_SRAM_OFF), 0x100);
    qb_set_reg(&b, DN1_REG_TX_CMD, DN1_TX_CMD_SEND);
    CHECK_EQ(qb_reg(&b, DN1_REG_TX_RESULT), DN1_TX_RESULT_OK);

    struct dn1_hdr r;
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.version, DN1_PKT_VERSION);
    CHECK_EQ(r.type, DN1_TYPE_PUSH);
    CHECK_EQ(r.flags, DN1_FLAG_ACK_REQ);
    CHECK_EQ(r.src, ME);
    CHECK_EQ(r.dst, PEER);
    CHECK_EQ(r.tag, 0xbeef);
    CHECK_EQ(r.raddr, DN_RADDR_LLCM_USER_TEST);
    CHECK(memcmp(got, "complete", 8) == 0);
    /* The same image again: pre-built packets are reused (re-armed barrier). */
    qb_set_reg(&b, DN1_REG_TX_CMD, DN1_TX_CMD_SEND);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_FW), 2);

    /* Refused images and commands. */
    qb_set_reg(&b, DN1_REG_TX_SRAM_OFF, 0x104);                    /* unaligned */
    qb_set_reg(&b, DN1_REG_TX_CMD, DN1_TX_CMD_SEND);
    CHECK_EQ(qb_reg(&b, DN1_REG_TX_RESULT), DN1_TX_RESULT_BAD_IMAGE);
    qb_set_reg(&b, DN1_REG_TX_SRAM_OFF, DN1_CHIP_SRAM_SIZE - 16);  /* past the end */
    qb_set_reg(&b, DN1_REG_TX_CMD, DN1_TX_CMD_SEND);
    CHECK_EQ(qb_reg(&b, DN1_REG_TX_RESULT), DN1_TX_RESULT_BAD_IMAGE);
    h.len = DN1_PKT_MAX_PAYLOAD + 1;                               /* too long */
    dn1_put_be16(image + DN1_OFF_LEN, h.len);
    qb_write(&b, DN1_CHIP_SRAM_BASE + 0x200, image, DN1_PKT_HDR_SIZE);
    qb_set_reg(&b, DN1_REG_TX_SRAM_OFF, 0x200);
    qb_set_reg(&b, DN1_REG_TX_CMD, DN1_TX_CMD_SEND);
    CHECK_EQ(qb_reg(&b, DN1_REG_TX_RESULT), DN1_TX_RESULT_BAD_IMAGE);
    image[DN1_OFF_TYPE] = DN1_TYPE_ACK;                            /* forged ACK */
    dn1_put_be16(image + DN1_OFF_LEN, 0);
    qb_write(&b, DN1_CHIP_SRAM_BASE + 0x200, image, DN1_PKT_HDR_SIZE);
    qb_set_reg(&b, DN1_REG_TX_CMD, DN1_TX_CMD_SEND);
    CHECK_EQ(qb_reg(&b, DN1_REG_TX_RESULT), DN1_TX_RESULT_BAD_IMAGE);
    qb_set_reg(&b, DN1_REG_TX_CMD, 7);                             /* unknown */
    CHECK_EQ(qb_reg(&b, DN1_REG_TX_RESULT), DN1_TX_RESULT_BAD_CMD);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_TX), 4);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_REG), 1);
    CHECK_EQ(qb_reg(&b, DN1_REG_TX_CMD), 0);                       /* write-only */
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_FW), 2);
    expect_no_packet();

    close(b.link_fd);                                              /* link down */
    b.link_fd = -1;
    for (int i = 0; i < 1000 && (qb_reg(&b, DN1_REG_LINK_STATUS) & DN1_LINK_UP); i++) {
        struct timespec ts = { 0, 2000000 };
        nanosleep(&ts, NULL);
    }
    qb_set_reg(&b, DN1_REG_TX_SRAM_OFF, 0x100);
    qb_set_reg(&b, DN1_REG_TX_CMD, DN1_TX_CMD_SEND);
    CHECK_EQ(qb_reg(&b, DN1_REG_TX_RESULT), DN1_TX_RESULT_LINK_DOWN);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_TX), 5);
}

static void set_channel(unsigned ch, uint8_t type, uint8_t flags, uint16_t dst,
                        uint32_t size, uint64_t raddr)
{
    struct dn1_aotf_channel c = { .type = type, .flags = flags, .dst = dst,
                                  .size = size, .raddr = raddr };
    memcpy(b.window + DN1_AOTF_TABLE_OFF + ch * sizeof(c), &c, sizeof(c));
}

/* One host store to an AOTF channel is one packet, with no other action. */
static void t_aotf_store(void)
{
    struct dn1_hdr r;
    uint8_t got[DN1_PKT_MAX_PAYLOAD];

    set_channel(3, DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, PEER, 64, 0x700);
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_AOTF_STORE, DN1_AOTF_ARG0(3, 4, 8),
                         0x11223344, 77, NULL), 0);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.type, DN1_TYPE_PUSH);
    CHECK_EQ(r.flags, DN1_FLAG_ACK_REQ | DN1_FLAG_OTF);
    CHECK_EQ(r.src, ME);
    CHECK_EQ(r.dst, PEER);
    CHECK_EQ(r.len, 4);
    CHECK_EQ(r.raddr, 0x708);
    CHECK_EQ(r.tag, 77);
    CHECK(memcmp(got, "\x44\x33\x22\x11", 4) == 0);   /* a little-endian store */

    CHECK_EQ(qb_hostbus3(&b, DN1_HB_AOTF_STORE, DN1_AOTF_ARG0(3, 8, 56),
                         0x0807060504030201ull, 78, NULL), 0);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.len, 8);
    CHECK_EQ(r.raddr, 0x700 + 56);
    CHECK(memcmp(got, "\x01\x02\x03\x04\x05\x06\x07\x08", 8) == 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_AOTF), 2);

    /* Refused: past the channel's range, sizes 0 and 9, no such channel, a
     * closed channel, a channel with stray flags. */
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_AOTF_STORE, DN1_AOTF_ARG0(3, 8, 60), 0, 0, NULL),
             DN1_HB_EINVAL);
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_AOTF_STORE, DN1_AOTF_ARG0(3, 0, 0), 0, 0, NULL),
             DN1_HB_EINVAL);
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_AOTF_STORE, DN1_AOTF_ARG0(3, 9, 0), 0, 0, NULL),
             DN1_HB_EINVAL);
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_AOTF_STORE, DN1_AOTF_ARG0(32, 1, 0), 0, 0, NULL),
             DN1_HB_EINVAL);
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_AOTF_STORE, DN1_AOTF_ARG0(4, 1, 0), 0, 0, NULL),
             DN1_HB_EINVAL);
    set_channel(5, DN1_TYPE_PUSH, DN1_FLAG_OTF, PEER, 64, 0);
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_AOTF_STORE, DN1_AOTF_ARG0(5, 1, 0), 0, 0, NULL),
             DN1_HB_EINVAL);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_AOTF), 6);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_AOTF), 2);
    expect_no_packet();
}

/* AOTF PUSHes arriving: the Mini-OTF receiver writes them, in order. */
static void t_rx_otf(void)
{
    uint8_t d[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, big[9] = { 0 };
    struct dn1_hdr h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ | DN1_FLAG_OTF, 0x90, 8, 61);
    qb_link_send(&b, &h, d);
    expect_reply(DN1_TYPE_ACK, 61, 0);
    CHECK(memcmp(b.hostmem + 0x90, d, 8) == 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_OTF), 1);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_PUSH), 0);

    h = pkt(DN1_TYPE_PUSH, DN1_FLAG_OTF, 0x100, 9, 62);   /* no AOTF is 9 bytes */
    qb_link_send(&b, &h, big);
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_LENGTH, 1, 5000) == 0);

    /* A firmware type sent by AOTF is held like any other (barrier step 1). */
    h = pkt(DN1_TYPE_BARRIER, DN1_FLAG_OTF, 0x40, 1, 63);
    qb_link_send(&b, &h, d);
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_HELD, 1, 5000) == 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_HDR0) >> 8 & 0xff, DN1_FLAG_OTF);
    CHECK_EQ(dirty_outside(0x90, 0x98), 0);
}

static void set_desc(unsigned d, const struct dn1_rdma_desc *desc)
{
    memcpy(b.window + DN1_RDMA_DESC_OFF + d * sizeof(*desc), desc, sizeof(*desc));
}

/* RDMA: descriptor plus doorbell; the NIC reads host memory, 2048-byte packets. */
static void t_rdma_post(void)
{
    static uint8_t got[DN1_PKT_MAX_PAYLOAD];
    struct dn1_hdr r;
    uint64_t sent = 0;
    fill(b.hostmem + 0x10000, 5000, 12);
    struct dn1_rdma_desc d = {
        .type = DN1_TYPE_PUSH, .flags = DN1_FLAG_ACK_REQ, .dst = PEER, .len = 5000,
        .local = 0x10000, .raddr = 0x300000, .first_tag = 900, .xoff = 0, .seq = 40,
    };
    set_desc(15, &d);
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_RDMA_POST, 15, 0, 0, &sent), 0);
    CHECK_EQ(sent, 3);
    for (unsigned i = 0; i < 3; i++) {
        uint32_t len = i < 2 ? 2048 : 5000 - 4096;
        CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
        CHECK_EQ(r.type, DN1_TYPE_PUSH);
        CHECK_EQ(r.src, ME);
        CHECK_EQ(r.len, len);
        CHECK_EQ(r.raddr, 0x300000 + 2048 * i);
        CHECK_EQ(r.xoff, 2048 * i);
        CHECK_EQ(r.tag, 900 + i);
        CHECK_EQ(r.seq, 40 + i);
        CHECK(memcmp(got, b.hostmem + 0x10000 + 2048 * i, len) == 0);
    }
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_RDMA), 3);

    /* A firmware type: the address stays, offsets count from xoff. */
    d.type = DN1_TYPE_INDIRECT_WRITE;
    d.len = 3000;
    d.xoff = 131072;
    set_desc(0, &d);
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_RDMA_POST, 0, 0, 0, &sent), 0);
    CHECK_EQ(sent, 2);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.raddr, 0x300000);
    CHECK_EQ(r.xoff, 131072);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.raddr, 0x300000);
    CHECK_EQ(r.xoff, 131072 + 2048);
    CHECK_EQ(r.len, 3000 - 2048);

    /* Refused: no such descriptor, source past memory, OTF flag, reserved set. */
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_RDMA_POST, 16, 0, 0, &sent), DN1_HB_EINVAL);
    d.type = DN1_TYPE_PUSH;
    d.local = DN1_HOSTMEM_SIZE - 100;
    set_desc(1, &d);
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_RDMA_POST, 1, 0, 0, &sent), DN1_HB_EINVAL);
    d.local = 0;
    d.flags = DN1_FLAG_OTF;
    set_desc(1, &d);
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_RDMA_POST, 1, 0, 0, &sent), DN1_HB_EINVAL);
    d.flags = 0;
    d.reserved1 = 1;
    set_desc(1, &d);
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_RDMA_POST, 1, 0, 0, &sent), DN1_HB_EINVAL);
    CHECK_EQ(sent, 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_RDMA), 4);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_RDMA), 5);
    expect_no_packet();
}

/* A 2048-byte packet held for firmware: the payload window shows all of it. */
static void t_hold_large(void)
{
    static uint8_t data[DN1_PKT_MAX_PAYLOAD];
    fill(data, sizeof(data), 13);
    hold_one(DN1_TYPE_INDIRECT_WRITE, 0, data, sizeof(data), 70);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_HDR2) >> 16, DN1_PKT_MAX_PAYLOAD);
    CHECK_EQ(qb_readb(&b, DN1_REGS_BASE + DN1_REG_RX_PAYLOAD), data[0]);
    CHECK_EQ(qb_readb(&b, DN1_REGS_BASE + DN1_REG_RX_PAYLOAD + DN1_PKT_MAX_PAYLOAD - 1),
             data[DN1_PKT_MAX_PAYLOAD - 1]);
    qb_set_reg(&b, DN1_REG_RX_RADDR_LO, 0x8000);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_CONTINUE);
    expect_reply(DN1_TYPE_ACK, 70, 0);
    CHECK(memcmp(b.hostmem + 0x8000, data, sizeof(data)) == 0);
}

/* @w: DN1_TLB_W and/or DN1_TLB_R (1 stands for W, as before reads). */
static void set_rvatlb(unsigned i, uint16_t ctx, uint64_t vpn, uint32_t ppn, uint32_t w)
{
    uint32_t pa = DN1_RVATLB_BASE + i * DN1_RVATLB_ENTRY;
    qb_writel(&b, pa, DN1_TLB_V | (w == 1 ? DN1_TLB_W : w) | ctx);
    qb_writel(&b, pa + 4, (uint32_t)(vpn >> 32));
    qb_writel(&b, pa + 8, (uint32_t)vpn);
    qb_writel(&b, pa + 12, ppn);
}

static void set_patlb(unsigned i, uint32_t ppn, int w)
{
    uint32_t pa = DN1_PATLB_BASE + i * DN1_PATLB_ENTRY;
    qb_writel(&b, pa, DN1_TLB_V | (w ? DN1_TLB_W : 0));
    qb_writel(&b, pa + 4, ppn);
}

#define CTX 7
#define VA  0x7f0000001000ull

/* RVATLB hit: virtual pages land on the physical pages the entries name,
 * a write across a page boundary in two pieces. */
static void t_rvatlb_hit(void)
{
    static uint8_t data[2048];
    fill(data, sizeof(data), 21);
    set_rvatlb(3, CTX, VA >> 12, 0x100, 1);            /* -> 0x100000 */
    set_rvatlb(9, CTX, (VA >> 12) + 1, 0x345, 1);      /* -> 0x345000 */
    struct dn1_hdr h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ | DN1_FLAG_VA,
                           DN1_RVA(CTX, VA + 0xc00), sizeof(data), 81);
    qb_link_send(&b, &h, data);
    expect_reply(DN1_TYPE_ACK, 81, 0);
    CHECK(memcmp(b.hostmem + 0x100c00, data, 0x400) == 0);
    CHECK(memcmp(b.hostmem + 0x345000, data + 0x400, sizeof(data) - 0x400) == 0);
    size_t stray = 0;
    for (size_t i = 0; i < DN1_HOSTMEM_SIZE; i++) {
        int in1 = i >= 0x100c00 && i < 0x101000, in2 = i >= 0x345000 && i < 0x345400;
        stray += !in1 && !in2 && b.hostmem[i];
    }
    CHECK_EQ(stray, 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RVATLB_MISS), 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_PUSH), 1);
}

/* A miss stops the pipeline and interrupts; firmware refills and retries. */
static void t_rvatlb_miss_refill(void)
{
    uint8_t data[16];
    fill(data, sizeof(data), 22);
    qb_set_reg(&b, DN1_REG_IRQ_ENABLE, DN1_IRQ_RX_HELD);
    struct dn1_hdr h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ | DN1_FLAG_VA,
                           DN1_RVA(CTX, VA + 0x10), sizeof(data), 82);
    qb_link_send(&b, &h, data);
    CHECK(qb_wait_counter(&b, DN1_CNT_RVATLB_MISS, 1, 5000) == 0);
    CHECK_EQ(b.irq_level, 1);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_HOLD_REASON), DN1_HOLD_RVATLB_MISS);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_MISS_HI), (uint32_t)(DN1_RVA(CTX, VA + 0x10) >> 32));
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_MISS_LO), (uint32_t)DN1_RVA(CTX, VA + 0x10));
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_HELD), 1);

    set_rvatlb(0, CTX + 1, VA >> 12, 0x200, 1);      /* other context: still a miss */
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_RETRY);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_HELD);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), DN1_IRQ_RX_HELD);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RVATLB_MISS), 2);

    set_rvatlb(1, CTX, VA >> 12, 0x200, 1);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_RETRY);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_OK);
    expect_reply(DN1_TYPE_ACK, 82, 0);
    CHECK(memcmp(b.hostmem + 0x200010, data, sizeof(data)) == 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_HOLD_REASON), DN1_HOLD_NONE);
    CHECK_EQ(b.irq_level, 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_RETRY), 2);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_PUSH), 1);
}

/* The paper's miss-continue: the handler writes the translated address and
 * lets the hardware continue the remote write. */
static void t_rvatlb_miss_continue(void)
{
    uint8_t data[32];
    fill(data, sizeof(data), 23);
    struct dn1_hdr h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ | DN1_FLAG_VA,
                           DN1_RVA(CTX, VA), sizeof(data), 83);
    qb_link_send(&b, &h, data);
    CHECK(qb_wait_counter(&b, DN1_CNT_RVATLB_MISS, 1, 5000) == 0);
    qb_set_reg(&b, DN1_REG_RX_RADDR_HI, 0);
    qb_set_reg(&b, DN1_REG_RX_RADDR_LO, 0x9000);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_CONTINUE);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_OK);
    expect_reply(DN1_TYPE_ACK, 83, 0);
    CHECK(memcmp(b.hostmem + 0x9000, data, sizeof(data)) == 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_CONTINUED), 1);
    CHECK_EQ(dirty_outside(0x9000, 0x9000 + sizeof(data)), 0);
}

/* Protection: a read-only page refuses the write whole. */
static void t_rvatlb_protection(void)
{
    uint8_t data[8] = { 1 };
    set_rvatlb(5, CTX, VA >> 12, 0x300, 0);
    struct dn1_hdr h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ | DN1_FLAG_VA,
                           DN1_RVA(CTX, VA), sizeof(data), 84);
    qb_link_send(&b, &h, data);
    expect_reply(DN1_TYPE_NACK, 84, DN1_NACK_PROTECTION);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_PROT), 1);
    CHECK_EQ(dirty_outside(0, 0), 0);
    /* A translation into nowhere is a range error, not a write. */
    set_rvatlb(6, CTX, (VA >> 12) + 8, 0x5000, 1);   /* page past receive memory */
    h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ | DN1_FLAG_VA,
            DN1_RVA(CTX, VA + 0x8000), sizeof(data), 85);
    qb_link_send(&b, &h, data);
    expect_reply(DN1_TYPE_NACK, 85, DN1_NACK_RANGE);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_RANGE), 1);
    CHECK_EQ(dirty_outside(0, 0), 0);
}

/* Remote reads of an RVA (contract 1.22): translated page by page, R
 * required; a miss holds the request for the firmware, which RETRYs,
 * CONTINUEs at a NIC address it vouches for, or NACKs. */
static void t_rvatlb_read(void)
{
    uint8_t req[8], got[DN1_PKT_MAX_PAYLOAD];
    struct dn1_hdr h, r;

    fill(b.hostmem + 0x110c00, 0x400, 41);
    fill(b.hostmem + 0x356000, 0x400, 42);
    dn1_put_be64(req, 0x4000);                            /* reply address */
    set_rvatlb(10, CTX, VA >> 12, 0x110, DN1_TLB_R);
    set_rvatlb(11, CTX, (VA >> 12) + 1, 0x356, DN1_TLB_R | DN1_TLB_W);
    h = pkt(DN1_TYPE_READ_REQ, DN1_FLAG_VA, DN1_RVA(CTX, VA + 0xc00), 8, 101);
    h.xoff = 0x800;                                       /* across the pages */
    qb_link_send(&b, &h, req);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.type, DN1_TYPE_READ_RSP);
    CHECK_EQ(r.tag, 101);
    CHECK_EQ(r.len, 0x800);
    CHECK(memcmp(got, b.hostmem + 0x110c00, 0x400) == 0);
    CHECK(memcmp(got + 0x400, b.hostmem + 0x356000, 0x400) == 0);

    /* A page without R refuses the read whole: NACK, nothing sent. */
    set_rvatlb(12, CTX, (VA >> 12) + 2, 0x357, DN1_TLB_W);
    h = pkt(DN1_TYPE_READ_REQ, DN1_FLAG_VA, DN1_RVA(CTX, VA + 0x2000), 8, 102);
    h.xoff = 8;
    qb_link_send(&b, &h, req);
    expect_reply(DN1_TYPE_NACK, 102, DN1_NACK_PROTECTION);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_PROT), 1);

    /* ... and an R page takes no write. */
    uint8_t data[8] = { 7 };
    h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ | DN1_FLAG_VA, DN1_RVA(CTX, VA), 8, 103);
    qb_link_send(&b, &h, data);
    expect_reply(DN1_TYPE_NACK, 103, DN1_NACK_PROTECTION);
    CHECK_EQ(b.hostmem[0x110000], 0);

    /* A miss holds the read; RETRY after a refill serves it. */
    h = pkt(DN1_TYPE_READ_REQ, DN1_FLAG_VA, DN1_RVA(CTX, VA + 0x3010), 8, 104);
    h.xoff = 16;
    qb_link_send(&b, &h, req);
    CHECK(qb_wait_counter(&b, DN1_CNT_RVATLB_MISS, 1, 5000) == 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_HOLD_REASON), DN1_HOLD_RVATLB_MISS);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_MISS_LO), (uint32_t)DN1_RVA(CTX, VA + 0x3010));
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_XOFF), 16);
    set_rvatlb(13, CTX, (VA >> 12) + 3, 0x356, DN1_TLB_R);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_RETRY);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_OK);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.tag, 104);
    CHECK(memcmp(got, b.hostmem + 0x356010, 16) == 0);

    /* CONTINUE: read at the NIC address the firmware wrote, as given. */
    h = pkt(DN1_TYPE_READ_REQ, DN1_FLAG_VA, DN1_RVA(CTX + 1, VA), 8, 105);
    h.xoff = 32;
    qb_link_send(&b, &h, req);
    CHECK(qb_wait_counter(&b, DN1_CNT_RVATLB_MISS, 2, 5000) == 0);
    qb_set_reg(&b, DN1_REG_RX_RADDR_HI, 0);
    qb_set_reg(&b, DN1_REG_RX_RADDR_LO, 0x110c00);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_CONTINUE);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_OK);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.tag, 105);
    CHECK(memcmp(got, b.hostmem + 0x110c00, 32) == 0);

    /* WRITE is no answer to a held read; NACK refuses it. */
    h = pkt(DN1_TYPE_READ_REQ, DN1_FLAG_VA, DN1_RVA(CTX + 1, VA), 8, 106);
    h.xoff = 8;
    qb_link_send(&b, &h, req);
    CHECK(qb_wait_counter(&b, DN1_CNT_RVATLB_MISS, 3, 5000) == 0);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_WRITE);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_BAD_CMD);
    qb_set_reg(&b, DN1_REG_RX_NACK_REASON, DN1_NACK_PROTECTION);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_NACK);
    expect_reply(DN1_TYPE_NACK, 106, DN1_NACK_PROTECTION);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_READ_REQ), 3);
    CHECK_EQ(dirty_outside(0x110c00, 0x357000), 0);       /* reads write nothing */
}

/* PATLB: once enabled, every page written must be allowed; polled here. */
static void t_patlb(void)
{
    uint8_t data[8] = { 9, 8, 7, 6, 5, 4, 3, 2 };
    qb_set_reg(&b, DN1_REG_MMU_CTRL, DN1_MMU_PATLB_EN);
    CHECK_EQ(qb_reg(&b, DN1_REG_MMU_CTRL), DN1_MMU_PATLB_EN);
    struct dn1_hdr h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, 0x41ff8, 16, 86);
    static uint8_t two_pages[16];
    fill(two_pages, sizeof(two_pages), 24);
    set_patlb(0, 0x41, 1);                           /* first page only */
    qb_link_send(&b, &h, two_pages);
    CHECK(qb_wait_counter(&b, DN1_CNT_PATLB_MISS, 1, 5000) == 0);
    CHECK_EQ(b.irq_level, 0);                         /* not enabled: polling */
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), DN1_IRQ_RX_HELD);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_HOLD_REASON), DN1_HOLD_PATLB_MISS);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_MISS_LO), 0x42000);
    CHECK_EQ(dirty_outside(0, 0), 0);                 /* nothing written yet */
    set_patlb(1, 0x42, 1);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_RETRY);
    expect_reply(DN1_TYPE_ACK, 86, 0);
    CHECK(memcmp(b.hostmem + 0x41ff8, two_pages, 16) == 0);

    set_patlb(2, 0x50, 0);                           /* read-only page */
    h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, 0x50000, sizeof(data), 87);
    qb_link_send(&b, &h, data);
    expect_reply(DN1_TYPE_NACK, 87, DN1_NACK_PROTECTION);
    CHECK_EQ(b.hostmem[0x50000], 0);

    /* RETRY is for TLB misses only. */
    hold_one(DN1_TYPE_INDIRECT_WRITE, 0, data, 1, 88);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_RETRY);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_BAD_CMD);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_HOLD_REASON), DN1_HOLD_TYPE);
}

/* Remote read served in hardware: the data goes back to the reply address. */
static void t_read_serve(void)
{
    uint8_t req[8], got[DN1_PKT_MAX_PAYLOAD];
    fill(b.hostmem + 0x6000, 2048, 31);
    fill(b.llcm + DN1_LLCM_USER_BASE, 16, 32);
    dn1_put_be64(req, 0x123456789aull);                  /* reply address */
    struct dn1_hdr h = pkt(DN1_TYPE_READ_REQ, 0, 0x6000, 8, 91);
    h.xoff = 2048;                                        /* length */
    qb_link_send(&b, &h, req);
    struct dn1_hdr r;
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.type, DN1_TYPE_READ_RSP);
    CHECK_EQ(r.src, ME);
    CHECK_EQ(r.dst, PEER);
    CHECK_EQ(r.tag, 91);
    CHECK_EQ(r.len, 2048);
    CHECK_EQ(r.raddr, 0x123456789aull);
    CHECK(memcmp(got, b.hostmem + 0x6000, 2048) == 0);

    h = pkt(DN1_TYPE_READ_REQ, 0, DN1_RADDR_LLCM + DN1_LLCM_USER_BASE, 8, 92);
    h.xoff = 16;                                          /* from LLCM */
    qb_link_send(&b, &h, req);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK(memcmp(got, b.llcm + DN1_LLCM_USER_BASE, 16) == 0);

    h = pkt(DN1_TYPE_READ_REQ, 0, DN1_HOSTMEM_SIZE - 8, 8, 93);
    h.xoff = 16;                                          /* runs past memory */
    qb_link_send(&b, &h, req);
    expect_reply(DN1_TYPE_NACK, 93, DN1_NACK_RANGE);
    h = pkt(DN1_TYPE_READ_REQ, 0, 0, 8, 94);
    h.xoff = DN1_PKT_MAX_PAYLOAD + 1;                     /* too much for a packet */
    qb_link_send(&b, &h, req);
    expect_reply(DN1_TYPE_NACK, 94, DN1_NACK_RANGE);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_READ_REQ), 2);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_RANGE), 2);
    CHECK_EQ(dirty_outside(0x6000, 0x6000 + 2048), 0);    /* reads write nothing */
}

/* The data of our read arrives: written, then a completion for its tag. */
static void t_read_done(void)
{
    uint8_t data[100];
    fill(data, sizeof(data), 33);
    struct dn1_hdr h = pkt(DN1_TYPE_READ_RSP, 0, 0x7000, sizeof(data), 95);
    qb_link_send(&b, &h, data);
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_READ_RSP, 1, 5000) == 0);
    CHECK(memcmp(b.hostmem + 0x7000, data, sizeof(data)) == 0);
    struct dn1_cq_rec rec;
    memcpy(&rec, b.llcm + DN1_LLCM_CQ_RING, sizeof(rec));
    CHECK_EQ(*(uint32_t *)(b.llcm + DN1_LLCM_CQ_PRODUCED), 1);
    CHECK_EQ(rec.tag, 95);
    CHECK_EQ(rec.kind, DN1_CQ_KIND_ACK);
    expect_no_packet();                                   /* no ACK for data */

    h = pkt(DN1_TYPE_READ_RSP, 0, DN1_HOSTMEM_SIZE - 4, sizeof(data), 96);
    qb_link_send(&b, &h, data);                           /* reply address bad */
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_RANGE, 1, 5000) == 0);
    memcpy(&rec, b.llcm + DN1_LLCM_CQ_RING + sizeof(rec), sizeof(rec));
    CHECK_EQ(rec.tag, 96);
    CHECK_EQ(rec.kind, DN1_CQ_KIND_NACK);
    CHECK_EQ(rec.reason, DN1_NACK_RANGE);
}

/* Bytes of a hex string (the reproducers, verbatim). */
static size_t unhex(const char *hex, uint8_t *out, size_t size)
{
    size_t n = 0;
    while (hex[0] && hex[1] && n < size) {
        char two[3] = { hex[0], hex[1], 0 };
        out[n++] = (uint8_t)strtoul(two, NULL, 16);
        hex += 2;
    }
    return n;
}

static void send_control(uint32_t magic, uint64_t vtime)
{
    uint8_t f[DN1_LINK_FRAME_HDR];
    dn1_put_be32(f, magic);
    dn1_put_be32(f + 4, DN1_LINK_FRAME_HDR);
    dn1_put_be64(f + 8, vtime);
    qb_link_send_raw(&b, f, sizeof(f));
}

/*
 * Issue 13.1: a grant on a board without timing used to arm a timer that
 * exists only with timing (SIGSEGV). Control frames a board does not expect
 * are dropped and counted (ERR_CONTROL); the link stays in step.
 */
static void t_control_frames(void)
{
    uint8_t grant[64];
    size_t n = unhex("444e47310000001000000000000003e8", grant, sizeof(grant));

    qb_link_send_raw(&b, grant, n);
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_CONTROL, 1, 5000) == 0);
    CHECK(qb_alive(&b));
    send_control(DN1_LINK_MAGIC_REACHED, 5);      /* only the switch takes it */
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_CONTROL, 2, 5000) == 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_FRAMING), 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_FRAMES), 0);
    expect_no_packet();                           /* nothing answers them */

    uint8_t data[16];
    fill(data, sizeof(data), 5);
    struct dn1_hdr h = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, 0x100, sizeof(data), 77);
    qb_link_send(&b, &h, data);                   /* the link is still in step */
    expect_reply(DN1_TYPE_ACK, 77, 0);
    CHECK(memcmp(b.hostmem + 0x100, data, sizeof(data)) == 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_TIMING), 0);
}

/* With timing: grants that are no step forward change nothing; they are
 * counted and answered once the board stands past them (a switch that
 * restarted catches up); DNR1 from the link is refused here too. */
static void t_control_frames_sync(void)
{
    uint32_t magic;
    uint64_t t;

    qb_stop(&b);
    qb_start_opts(&b, qemu, ME, ",sync=on");
    CHECK_EQ(qb_reg(&b, DN1_REG_TIMING), DN1_TIMING_SYNC);

    qb_set_reg(&b, DN1_REG_FW_STATUS, DN1_FW_READY);   /* booted: DNR1 */
    send_control(DN1_LINK_MAGIC_GRANT, 1000);
    qb_clock_step(&b, 1000);
    CHECK(qb_link_recv_control(&b, &magic, &t, 5000) == 0);
    CHECK_EQ(magic, DN1_LINK_MAGIC_REACHED);
    CHECK_EQ(t, 1000);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_CONTROL), 0);

    send_control(DN1_LINK_MAGIC_GRANT, 500);       /* behind: answered now */
    CHECK(qb_link_recv_control(&b, &magic, &t, 5000) == 0);
    CHECK_EQ(magic, DN1_LINK_MAGIC_REACHED);
    CHECK_EQ(t, 500);
    send_control(DN1_LINK_MAGIC_GRANT, 1000);      /* a duplicate */
    CHECK(qb_link_recv_control(&b, &magic, &t, 5000) == 0);
    CHECK_EQ(t, 1000);
    send_control(DN1_LINK_MAGIC_GRANT, (uint64_t)-1);   /* negative time */
    send_control(DN1_LINK_MAGIC_REACHED, 1000);
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_CONTROL, 4, 5000) == 0);
    CHECK(qb_link_recv_control(&b, &magic, &t, QUIET_MS) != 0);
    CHECK(qb_alive(&b));

    send_control(DN1_LINK_MAGIC_GRANT, 2000);      /* and time goes on */
    qb_clock_step(&b, 1000);
    CHECK(qb_link_recv_control(&b, &magic, &t, 5000) == 0);
    CHECK_EQ(magic, DN1_LINK_MAGIC_REACHED);
    CHECK_EQ(t, 2000);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_CONTROL), 4);
}

/*
 * Boot quanta (contract 1.23): a board whose firmware was never READY
 * reports DNB1, not DNR1; nothing it sends after a grant that followed a
 * DNB1 leaves before that grant's end (the switch may have let every board
 * run through it without a stop). Once READY: DNR1, and frames leave when
 * they are due again.
 */
static void t_boot_quantum(void)
{
    struct dn1_botf_hdr hdr = {
        .type = DN1_TYPE_PUSH, .flags = DN1_FLAG_ACK_REQ, .dst = PEER,
        .len = 8, .raddr = 0x1000,
    };
    uint8_t got[DN1_PKT_MAX_PAYLOAD];
    struct dn1_hdr r;
    uint32_t magic;
    uint64_t t;

    qb_stop(&b);
    qb_start_opts(&b, qemu, ME, ",sync=on");
    memcpy(b.window, &hdr, sizeof(hdr));
    memcpy(b.window + DN1_BOTF_WINDOW_STRIDE, &hdr, sizeof(hdr));

    send_control(DN1_LINK_MAGIC_GRANT, 1000);
    qb_clock_step(&b, 1000);
    CHECK(qb_link_recv_control(&b, &magic, &t, 5000) == 0);
    CHECK_EQ(magic, DN1_LINK_MAGIC_BOOTING);
    CHECK_EQ(t, 1000);

    send_control(DN1_LINK_MAGIC_GRANT, 50000);      /* a boot quantum */
    qb_clock_step(&b, 1000);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 0, NULL), 0);
    qb_clock_step(&b, 48000);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.type, DN1_TYPE_PUSH);
    CHECK(b.link_vtime >= 50000);                   /* not at 2000 + 375 */
    CHECK(qb_link_recv_control(&b, &magic, &t, 5000) == 0);
    CHECK_EQ(magic, DN1_LINK_MAGIC_BOOTING);        /* still never READY */
    CHECK_EQ(t, 50000);

    qb_set_reg(&b, DN1_REG_FW_STATUS, DN1_FW_READY);
    send_control(DN1_LINK_MAGIC_GRANT, 50240);
    qb_clock_step(&b, 240);
    CHECK(qb_link_recv_control(&b, &magic, &t, 5000) == 0);
    CHECK_EQ(magic, DN1_LINK_MAGIC_REACHED);
    CHECK_EQ(t, 50240);
    qb_set_reg(&b, DN1_REG_FW_STATUS, 0);           /* a restart: booted */
    send_control(DN1_LINK_MAGIC_GRANT, 60000);
    qb_clock_step(&b, 1000);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 1, NULL), 0);
    qb_clock_step(&b, 8760);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK(b.link_vtime >= 51240 + DN1_BOTF_TX_NS && b.link_vtime < 52000);
    CHECK(qb_link_recv_control(&b, &magic, &t, 5000) == 0);
    CHECK_EQ(magic, DN1_LINK_MAGIC_REACHED);
    CHECK_EQ(t, 60000);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_CONTROL), 0);
}

/*
 * Issue 13.2: a NIC never answers a group packet by hardware (section 6a),
 * so a remote read to a group is served by no member, refused or not: no
 * READ_RSP, no NACK; dropped and counted in ERR_GROUP.
 */
static void t_group_read(void)
{
    uint8_t f[128], req[8];
    size_t n = unhex("444e4c31000000380000000000000000010400000001ff0000080000"
                     "a000000100000000010000000000000886e82795000000000080000"
                     "0", f, sizeof(f));

    CHECK_EQ(n, 0x38);
    qb_link_send_raw(&b, f, n);                   /* unreadable, as found */
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_GROUP, 1, 5000) == 0);

    dn1_put_be64(req, 0x5000);
    struct dn1_hdr h = pkt(DN1_TYPE_READ_REQ, 0, 0x6000, 8, 61);
    h.dst = DN1_MCAST_BASE + 3;
    h.xoff = 64;                                  /* readable: still no answer */
    qb_link_send(&b, &h, req);
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_GROUP, 2, 5000) == 0);
    expect_no_packet();
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_NACK), 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_READ_REQ), 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_RANGE), 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_PACKETS), 0);

    /* A group packet the firmware NACKs is dropped without a NACK too. */
    uint8_t d = 1;
    h = pkt(DN1_TYPE_INDIRECT_WRITE, DN1_FLAG_ACK_REQ, 0, 1, 62);
    h.dst = DN1_MCAST_BASE + 3;
    qb_link_send(&b, &h, &d);
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_HELD, 1, 5000) == 0);
    qb_set_reg(&b, DN1_REG_RX_NACK_REASON, DN1_NACK_NO_HANDLER);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_NACK);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_NACKED), 1);
    expect_no_packet();
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_NACK), 0);

    /* The same read to this node is served. */
    h = pkt(DN1_TYPE_READ_REQ, 0, 0x6000, 8, 63);
    h.xoff = 64;
    qb_link_send(&b, &h, req);
    struct dn1_hdr r;
    CHECK(qb_link_recv(&b, &r, NULL, 5000) == 0);
    CHECK_EQ(r.type, DN1_TYPE_READ_RSP);
    CHECK_EQ(r.tag, 63);
}

/*
 * Issue 13.3: the payload window is readable from the host bus as well, in
 * aligned 32-bit words, as the processor's word loads see it (bytes in
 * address order; 0 past len or with nothing held). Unaligned: EINVAL.
 */
static void t_hostbus_payload(void)
{
    uint8_t data[10];
    uint64_t v = 1;

    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ, DN1_REG_RX_PAYLOAD, &v), 0);
    CHECK_EQ(v, 0);                               /* nothing held */
    fill(data, sizeof(data), 21);
    hold_one(DN1_TYPE_INDIRECT_WRITE, 0x100, data, sizeof(data), 64);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ, DN1_REG_RX_PAYLOAD, &v), 0);
    CHECK_EQ(v, (uint32_t)data[0] << 24 | data[1] << 16 | data[2] << 8 | data[3]);
    CHECK_EQ(v, qb_readl(&b, DN1_REGS_BASE + DN1_REG_RX_PAYLOAD));
    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ, DN1_REG_RX_PAYLOAD + 8, &v), 0);
    CHECK_EQ(v, (uint32_t)data[8] << 24 | data[9] << 16);   /* 0 past len */
    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ, DN1_REGS_SIZE - 4, &v), 0);
    CHECK_EQ(v, 0);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ, DN1_REG_RX_PAYLOAD + 2, NULL),
             DN1_HB_EINVAL);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_HOSTBUS), 1);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), DN1_IRQ_RX_HELD);   /* no side effect */
}

/*
 * LLCM's host-order view (contract 1.14): the processor's 32- and 16-bit
 * loads there return the host's little-endian values, its stores leave
 * them; the plain view keeps memory order; bytes are the same in both.
 */
static void check_host_order_view(uint8_t *mem, uint32_t plain, uint32_t host_order,
                                  uint32_t off, uint32_t size)
{
    const uint8_t host[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };

    memcpy(mem + off, host, sizeof(host));
    CHECK_EQ(qb_readl(&b, host_order + off), 0x44332211u);
    CHECK_EQ(qb_readl(&b, host_order + off + 4), 0x88776655u);
    CHECK_EQ(qb_readl(&b, plain + off), 0x11223344u);
    CHECK_EQ(qb_readb(&b, host_order + off + 1), 0x22);
    CHECK_EQ(qb_readw(&b, host_order + off + 2), 0x4433);

    qb_writel(&b, host_order + off, 0xa1b2c3d4u);
    CHECK_EQ(mem[off], 0xd4);
    CHECK_EQ(mem[off + 3], 0xa1);
    CHECK_EQ(qb_readl(&b, plain + off), 0xd4c3b2a1u);
    /* Its last word is the memory's last word; nothing lies past it. */
    mem[size - 4] = 0x5a;
    CHECK_EQ(qb_readl(&b, host_order + size - 4), 0x5au);
}

static void t_llcm_host_order(void)
{
    check_host_order_view(b.llcm, DN1_LLCM_BASE, DN1_LLCM_HOST_ORDER_BASE,
                          DN1_LLCM_USER_BASE + 0x20, DN1_LLCM_SIZE);
}

/*
 * Contract 1.33: host receive memory, the on-chip SRAM and the held payload
 * have host-order views as LLCM has: loads there return the host's
 * little-endian values, stores (not to the payload's, read-only) leave them.
 */
static void t_host_order_views(void)
{
    check_host_order_view(b.hostmem, DN1_HOSTMEM_BASE, DN1_HOSTMEM_HOST_ORDER_BASE,
                          0x3000, DN1_HOSTMEM_SIZE);

    /* SRAM: a payload word written in host order reads swapped plainly. */
    qb_writel(&b, DN1_CHIP_SRAM_HOST_ORDER_BASE + 0x40, 0x01020304u);
    CHECK_EQ(qb_readl(&b, DN1_CHIP_SRAM_BASE + 0x40), 0x04030201u);
    CHECK_EQ(qb_readb(&b, DN1_CHIP_SRAM_BASE + 0x40), 0x04);
    qb_writel(&b, DN1_CHIP_SRAM_BASE + 0x44, 0x0a0b0c0du);
    CHECK_EQ(qb_readl(&b, DN1_CHIP_SRAM_HOST_ORDER_BASE + 0x44), 0x0d0c0b0au);

    /* The held payload: nothing held reads 0; then the host's words. */
    CHECK_EQ(qb_readl(&b, DN1_RX_PAYLOAD_HOST_ORDER_BASE), 0);
    uint8_t data[12];
    fill(data, sizeof(data), 3);
    qb_set_reg(&b, DN1_REG_IRQ_ENABLE, DN1_IRQ_RX_HELD);
    struct dn1_hdr h = pkt(DN1_TYPE_INDIRECT_WRITE, DN1_FLAG_ACK_REQ, 0x100, sizeof(data), 7);
    qb_link_send(&b, &h, data);
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_HELD, 1, 5000) == 0);
    for (unsigned o = 0; o < sizeof(data); o += 4) {
        CHECK_EQ(qb_readl(&b, DN1_RX_PAYLOAD_HOST_ORDER_BASE + o),
                 (uint32_t)data[o + 3] << 24 | data[o + 2] << 16 | data[o + 1] << 8 | data[o]);
    }
    CHECK_EQ(qb_readw(&b, DN1_RX_PAYLOAD_HOST_ORDER_BASE + 2),
             (uint32_t)data[3] << 8 | data[2]);
    CHECK_EQ(qb_readb(&b, DN1_RX_PAYLOAD_HOST_ORDER_BASE + 5), data[5]);
    /* 0 past len, as the plain window. */
    CHECK_EQ(qb_readl(&b, DN1_RX_PAYLOAD_HOST_ORDER_BASE + sizeof(data)), 0);
    /* Read-only: a write changes nothing and is counted. */
    uint32_t errs = qb_counter(&b, DN1_CNT_ERR_REG);
    qb_writel(&b, DN1_RX_PAYLOAD_HOST_ORDER_BASE, 0xdeadbeefu);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_REG), errs + 1);
    CHECK_EQ(qb_readl(&b, DN1_REGS_BASE + DN1_REG_RX_PAYLOAD),
             (uint32_t)data[0] << 24 | data[1] << 16 | data[2] << 8 | data[3]);
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_DISCARD);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_CMD_RESULT), DN1_RX_RESULT_OK);
}

/*
 * Contract 1.15, timing on: a BOTF window is the NIC's until its packet's
 * last byte has left the link (BOTF_STATUS); kicking it before that sends
 * nothing (EBUSY, ERR_BOTF); the other window is free meanwhile; once the
 * clock is past the departure, both are free again. Timing off: never busy.
 */
static void t_botf_busy(void)
{
    struct dn1_botf_hdr hdr = {
        .type = DN1_TYPE_PUSH, .flags = DN1_FLAG_ACK_REQ, .dst = PEER,
        .len = DN1_BOTF_MAX_PAYLOAD, .raddr = 0x1000,
    };
    struct dn1_hdr r;
    uint8_t got[DN1_PKT_MAX_PAYLOAD];

    memcpy(b.window, &hdr, sizeof(hdr));
    memcpy(b.window + DN1_BOTF_WINDOW_STRIDE, &hdr, sizeof(hdr));
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 0, NULL), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_BOTF_STATUS), 0);           /* timing off */
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 0, NULL), 0);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);

    qb_stop(&b);
    qb_start_opts(&b, qemu, ME, ",sync=on");
    memcpy(b.window, &hdr, sizeof(hdr));
    memcpy(b.window + DN1_BOTF_WINDOW_STRIDE, &hdr, sizeof(hdr));
    CHECK_EQ(qb_reg(&b, DN1_REG_BOTF_STATUS), 0);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 0, NULL), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_BOTF_STATUS), 1);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 0, NULL), DN1_HB_EBUSY);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_BOTF), 1);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_PACKETS), 1);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 1, NULL), 0);  /* the other one */
    CHECK_EQ(qb_reg(&b, DN1_REG_BOTF_STATUS), 3);
    /* The send circuit's start, then two 496-byte packets at 2 ns a byte,
     * the second after the first. */
    qb_clock_step(&b, DN1_BOTF_TX_NS - 1);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_PACKETS), 2);
    CHECK_EQ(qb_reg(&b, DN1_REG_BOTF_STATUS), 3);        /* not left yet */
    qb_clock_step(&b, 1 + 2 * (DN1_PKT_HDR_SIZE + DN1_BOTF_MAX_PAYLOAD + DN1_LINK_FRAME_HDR) *
                          DN1_LINK_NS_PER_BYTE + 100);
    CHECK_EQ(qb_reg(&b, DN1_REG_BOTF_STATUS), 0);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 0, NULL), 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_TX_PACKETS), 3);
    CHECK(qb_alive(&b));
}

/*
 * Host-bus NIC_RESTART (contract 1.16). Firmware that enabled RESTART and
 * says READY is asked first: IRQ_STATUS.RESTART, the interrupt only once
 * nothing is held, arrivals wait unheld; clearing READY restarts it (the
 * waiting packet is then held for the new firmware, interrupts off).
 * Without RESTART enabled the restart is at once.
 */
static void t_nic_restart(void)
{
    uint8_t data[16];
    fill(data, sizeof(data), 4);
    qb_set_reg(&b, DN1_REG_IRQ_ENABLE, DN1_IRQ_RX_HELD | DN1_IRQ_RESTART);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_ENABLE), DN1_IRQ_RX_HELD | DN1_IRQ_RESTART);
    qb_set_reg(&b, DN1_REG_FW_STATUS, 1u << 16 | DN1_FW_READY);
    qb_set_reg(&b, DN1_REG_BOOT_VERSION, 0x000102);
    qb_set_reg(&b, DN1_REG_BOOT_SLOT, 3u << DN1_BOOT_GEN_SHIFT | 1);
    hold_one(DN1_TYPE_MESSAGE, 0x100, data, sizeof(data), 7);
    CHECK_EQ(b.irq_level, 1);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_NIC_RESTART, 0, NULL), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), DN1_IRQ_RX_HELD | DN1_IRQ_RESTART);
    CHECK_EQ(qb_reg(&b, DN1_REG_FW_STATUS), 1u << 16 | DN1_FW_READY);
    /* The held packet first; the next arrival waits, not held. */
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_DISCARD);
    struct dn1_hdr h = pkt(DN1_TYPE_MESSAGE, DN1_FLAG_ACK_REQ, 0x200, sizeof(data), 8);
    qb_link_send(&b, &h, data);
    usleep(QUIET_MS * 1000);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_HELD), 1);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), DN1_IRQ_RESTART);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_HDR0), 0);
    CHECK_EQ(b.irq_level, 1);                    /* now for RESTART */
    /* A second request changes nothing. */
    CHECK_EQ(qb_hostbus(&b, DN1_HB_NIC_RESTART, 0, NULL), 0);
    /* The firmware leaves: the processor restarts, what is its own resets. */
    qb_set_reg(&b, DN1_REG_FW_STATUS, 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), DN1_IRQ_RX_HELD);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_HELD), 2);
    CHECK_EQ(qb_reg(&b, DN1_REG_RX_TAG), 8);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_ENABLE), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_BOOT_VERSION), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_BOOT_SLOT), 0);
    CHECK_EQ(b.irq_level, 0);
    /* Not asked (RESTART not enabled): at once. */
    qb_set_reg(&b, DN1_REG_FW_STATUS, DN1_FW_READY);
    qb_set_reg(&b, DN1_REG_IRQ_ENABLE, DN1_IRQ_RX_HELD);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_NIC_RESTART, 0, NULL), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_FW_STATUS), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), DN1_IRQ_RX_HELD);
    /* Asked, but the firmware never leaves: restarted after the grace. */
    qb_set_reg(&b, DN1_REG_RX_CMD, DN1_RX_CMD_DISCARD);
    qb_set_reg(&b, DN1_REG_FW_STATUS, DN1_FW_READY);
    qb_set_reg(&b, DN1_REG_IRQ_ENABLE, DN1_IRQ_RESTART);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_NIC_RESTART, 0, NULL), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), DN1_IRQ_RESTART);
    qb_clock_step(&b, DN1_RESTART_GRACE_NS - 1000);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), DN1_IRQ_RESTART);
    qb_clock_step(&b, 2000);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_FW_STATUS), 0);
}

/* NIC_RESTART HARD (contract 1.26): at once, the firmware not asked even
 * though it enabled RESTART and says READY, and over a restart already
 * asked for; another arg0 is refused EINVAL, counted, and restarts nothing. */
static void t_nic_restart_hard(void)
{
    qb_set_reg(&b, DN1_REG_IRQ_ENABLE, DN1_IRQ_RESTART);
    qb_set_reg(&b, DN1_REG_FW_STATUS, DN1_FW_READY);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_NIC_RESTART, DN1_NIC_RESTART_HARD, NULL), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_FW_STATUS), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_ENABLE), 0);
    CHECK_EQ(b.irq_level, 0);
    /* Asked first, then hard: the hard one does not wait for the grace. */
    qb_set_reg(&b, DN1_REG_IRQ_ENABLE, DN1_IRQ_RESTART);
    qb_set_reg(&b, DN1_REG_FW_STATUS, DN1_FW_READY);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_NIC_RESTART, DN1_NIC_RESTART_ASK, NULL), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), DN1_IRQ_RESTART);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_NIC_RESTART, DN1_NIC_RESTART_HARD, NULL), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_IRQ_STATUS), 0);
    CHECK_EQ(qb_reg(&b, DN1_REG_FW_STATUS), 0);
    /* Nothing else is a way to restart. */
    qb_set_reg(&b, DN1_REG_FW_STATUS, DN1_FW_READY);
    uint64_t errs = qb_counter(&b, DN1_CNT_ERR_HOSTBUS);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_NIC_RESTART, 2, NULL), DN1_HB_EINVAL);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_HOSTBUS), errs + 1);
    CHECK_EQ(qb_reg(&b, DN1_REG_FW_STATUS), DN1_FW_READY);
}

/* FLASH_READ / FLASH_WRITE on a board without a flash device (qtest runs
 * one without): ENOFLASH, counted; BOOT_* are plain registers. */
static void t_flash_ops_without_flash(void)
{
    uint64_t v = 0;
    CHECK_EQ(qb_hostbus(&b, DN1_HB_FLASH_READ, 0, &v), DN1_HB_ENOFLASH);
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_FLASH_WRITE, 0, 0x20, 0, NULL), DN1_HB_ENOFLASH);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_HOSTBUS), 2);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ, DN1_REG_BOOT_SLOT, &v), 0);
    CHECK_EQ(v, 0);
    qb_set_reg(&b, DN1_REG_BOOT_VERSION, 0x10203);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ, DN1_REG_BOOT_VERSION, &v), 0);
    CHECK_EQ(v, 0x10203);
}

/* A board that must not start: QEMU's exit status and what it said. */
static int start_refused(const char *machine, const char *why)
{
    char cmd[1024], out[1024] = "";
    snprintf(cmd, sizeof(cmd), "%s -accel qtest -nodefaults -display none -monitor none "
             "-M dimmnet1,node-id=1,%s 2>&1", qemu, machine);
    FILE *f = popen(cmd, "r");
    size_t n = f ? fread(out, 1, sizeof(out) - 1, f) : 0;
    int st = f ? pclose(f) : -1;
    out[n] = 0;
    CHECK_MSG(strstr(out, why) != NULL, "'%s' said: %s", machine, out);
    return st != 0;
}

/*
 * Host ports (contract 1.27): a board of two, the test both hosts. Port 1's
 * packets leave with its port in src, their answers come back to its own
 * completion queue; each port keeps to its share of windows and
 * descriptors; AOTF, NIC restarts and the flash are port 0's; a port the
 * board lacks, or an address past 0x3fff, is no destination; port 1's
 * queue refuses remote writes, its atomic reply area takes them.
 */
static void t_host_ports(void)
{
    uint64_t v = 0;
    uint8_t payload[10], got[DN1_PKT_MAX_PAYLOAD];
    const uint16_t me1 = ME | 1u << DN1_PORT_SHIFT;
    const uint32_t blk1 = dn1_llcm_port_block(1);

    qb_stop(&b);
    qb_start_opts(&b, qemu, ME, ",host-ports=2");
    int port0 = b.hostbus_fd;
    CHECK_EQ(qb_hostbus(&b, DN1_HB_REG_READ, DN1_REG_HOST_PORTS, &v), 0);
    CHECK_EQ(v, 2);

    /* Port 1 sends from its window 8 (windows 8..15 are its). */
    struct dn1_botf_hdr hdr = {
        .type = DN1_TYPE_PUSH, .flags = DN1_FLAG_ACK_REQ, .dst = PEER, .len = 10, .tag = 7,
        .raddr = 0x1000,
    };
    fill(payload, sizeof(payload), 3);
    memcpy(b.window + dn1_botf_window_off(8), &hdr, sizeof(hdr));
    memcpy(b.window + dn1_botf_window_off(8) + DN1_BOTF_PAYLOAD_OFF, payload, 10);
    b.hostbus_fd = b.hostbus1_fd;
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 8, NULL), 0);
    struct dn1_hdr r;
    CHECK(qb_link_recv(&b, &r, got, 5000) == 0);
    CHECK_EQ(r.src, me1);
    CHECK_EQ(r.tag, 7);
    CHECK(memcmp(got, payload, 10) == 0);
    /* What port 1 may not do. */
    memcpy(b.window + dn1_botf_window_off(0), &hdr, sizeof(hdr));
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 0, NULL), DN1_HB_EINVAL);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_RDMA_POST, 0, NULL), DN1_HB_EINVAL);
    CHECK_EQ(qb_hostbus3(&b, DN1_HB_AOTF_STORE, 1ull << 32, 0, 0, NULL), DN1_HB_EINVAL);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_NIC_RESTART, 0, NULL), DN1_HB_EINVAL);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_FLASH_READ, 0, NULL), DN1_HB_EINVAL);
    /* ... nor port 0 port 1's window. */
    b.hostbus_fd = port0;
    CHECK_EQ(qb_hostbus(&b, DN1_HB_BOTF_KICK, 8, NULL), DN1_HB_EINVAL);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_BOTF), 2);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_RDMA), 1);
    CHECK_EQ(qb_counter(&b, DN1_CNT_ERR_AOTF), 1);
    expect_no_packet();

    /* The ACK comes back to port 1's queue; port 0's stays empty. */
    struct dn1_hdr ack = pkt(DN1_TYPE_ACK, 0, 0, 0, 7);
    ack.dst = me1;
    qb_link_send(&b, &ack, NULL);
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_ACK, 1, 5000) == 0);
    CHECK_EQ(*(uint32_t *)(b.llcm + DN1_LLCM_CQ_PRODUCED), 0);
    CHECK_EQ(*(uint32_t *)(b.llcm + blk1 + DN1_LLCM_CQ_PRODUCED), 1);
    struct dn1_cq_rec rec;
    memcpy(&rec, b.llcm + blk1 + DN1_LLCM_CQ_RING, sizeof(rec));
    CHECK_EQ(rec.tag, 7);
    CHECK_EQ(rec.kind, DN1_CQ_KIND_ACK);
    CHECK_EQ(rec.src, PEER);
    /* No port 2 on this board, and no address past 0x3fff. */
    ack.dst = ME | 2u << DN1_PORT_SHIFT;
    qb_link_send(&b, &ack, NULL);
    ack.dst = DN1_ADDR_UNICAST_END | ME;
    qb_link_send(&b, &ack, NULL);
    CHECK(qb_wait_counter(&b, DN1_CNT_ERR_DST, 2, 5000) == 0);
    CHECK_EQ(qb_counter(&b, DN1_CNT_RX_ACK), 1);
    /* A forged ACK to a group (its port bits are no port): port 0's queue,
     * as before host ports (the fuzzer's finding: it had indexed past LLCM). */
    ack.dst = DN1_MCAST_BASE + 0x3f;
    qb_link_send(&b, &ack, NULL);
    CHECK(qb_wait_counter(&b, DN1_CNT_RX_ACK, 2, 5000) == 0);
    CHECK_EQ(*(uint32_t *)(b.llcm + DN1_LLCM_CQ_PRODUCED), 1);
    CHECK(qb_alive(&b));

    /* A write to port 1's address lands as any (memory is the node's), and
     * its ACK goes back to the writer. */
    uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    struct dn1_hdr push = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, 0x2000, 8, 11);
    push.dst = me1;
    qb_link_send(&b, &push, data);
    CHECK(qb_link_recv(&b, &r, NULL, 5000) == 0);
    CHECK_EQ(r.type, DN1_TYPE_ACK);
    CHECK_EQ(r.dst, PEER);
    CHECK(memcmp(b.hostmem + 0x2000, data, 8) == 0);
    /* Port 1's queue refuses remote writes; its atomic replies take them. */
    push = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, DN1_RADDR_LLCM + blk1 + DN1_LLCM_CQ_RING, 8, 12);
    qb_link_send(&b, &push, data);
    expect_reply(DN1_TYPE_NACK, 12, DN1_NACK_RANGE);
    push = pkt(DN1_TYPE_PUSH, DN1_FLAG_ACK_REQ, DN1_RADDR_LLCM + blk1 + DN1_LLCM_PORT_ATOMIC,
               8, 13);
    qb_link_send(&b, &push, data);
    expect_reply(DN1_TYPE_ACK, 13, 0);
    CHECK(memcmp(b.llcm + blk1 + DN1_LLCM_PORT_ATOMIC, data, 8) == 0);
    CHECK_EQ(*(uint32_t *)(b.llcm + blk1 + DN1_LLCM_CQ_PRODUCED), 1);
    CHECK_EQ(*(uint32_t *)(b.llcm + DN1_LLCM_CQ_PRODUCED), 1);

    /* A posted request of port 1 counts in port 1's block. */
    b.hostbus_fd = b.hostbus1_fd;
    qb_hostbus_send(&b, DN1_HB_POSTED | DN1_HB_NOP, 0, 0, 0);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_NOP, 0, NULL), 0);
    CHECK_EQ(*(uint32_t *)(b.llcm + blk1 + DN1_LLCM_HB_POSTED), 1);
    CHECK_EQ(*(uint32_t *)(b.llcm + DN1_LLCM_HB_POSTED), 0);
    b.hostbus_fd = port0;

    /* Boards that do not start, with the reason. */
    CHECK(start_refused("host-ports=2", "host-ports=2 needs hostbus1"));
    CHECK(start_refused("host-ports=5", "host-ports must be 1..4"));
    CHECK(start_refused("host-ports=2,sync=on,host-sync=on",
                        "host-sync takes one host port"));
}

#define CASE(n) { #n, t_##n }
static const struct test_case cases[] = {
    CASE(identity), CASE(push_ack), CASE(push_no_ack), CASE(hold_irq_continue),
    CASE(irq_masked), CASE(discard), CASE(nack_cmd), CASE(continue_out_of_range),
    CASE(push_out_of_range), CASE(push_llcm), CASE(in_order), CASE(backpressure), CASE(malformed),
    CASE(completion_queue), CASE(botf_kick), CASE(hostbus_errors),
    CASE(register_errors), CASE(link_down), CASE(rx_done), CASE(tx_from_sram),
    CASE(aotf_store), CASE(rx_otf), CASE(rdma_post), CASE(hold_large),
    CASE(rvatlb_hit), CASE(rvatlb_miss_refill), CASE(rvatlb_miss_continue),
    CASE(rvatlb_protection), CASE(rvatlb_read), CASE(patlb), CASE(read_serve), CASE(read_done),
    CASE(control_frames), CASE(control_frames_sync), CASE(boot_quantum), CASE(group_read),
    CASE(hostbus_payload), CASE(llcm_host_order), CASE(host_order_views), CASE(botf_busy),
    CASE(nic_restart), CASE(nic_restart_hard), CASE(flash_ops_without_flash), CASE(hostbus_posted),
    CASE(link_merge), CASE(host_ports),
    { NULL, NULL },
};

/* Each case gets a fresh board. */
static void setup(void)
{
    qb_start(&b, qemu, ME);
}

static void teardown(void)
{
    qb_stop(&b);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s QEMU [CASE]\n", argv[0]);
        return 2;
    }
    qemu = argv[1];
    return run_cases(cases, argc, argv, 2, setup, teardown);
}
