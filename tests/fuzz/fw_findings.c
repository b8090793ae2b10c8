/*
 * The deviations an independent fuzzer found against docs/hardware.md
 * (1.19, issue 28; 1.27, issue 36), replayed frame for frame on a fresh board that runs the
 * firmware: this program is the board's link peer and its host. The frames
 * are the fuzzer's own (whole link frames, CRCs included); each case says
 * what the contract promises for them.
 *
 *   fw_findings QEMU FIRMWARE_IMAGE CASE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../common/check.h"
#include "../device/qtest_board.h"
#include "dimmnet1/hostbus.h"
#include "dimmnet1/atomic.h"
#include "dimmnet1/link.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/message.h"
#include "dimmnet1/mr.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/fw_types.h"
#include "dimmnet1/packet_codec.h"
#include "dimmnet1/regs.h"
#include "dimmnet1/soft_indirect.h"
#include "dimmnet1/variant.h"

#define NODE        7u          /* the fuzzer's board */
#define SLOT_A      0x3130u     /* the slots its frames name */
#define SLOT_B      0x3110u
#define TARGET_A    0x10000u    /* where this test points them */
#define TARGET_B    0x20000u
#define CAPACITY    0x1000u
#define ANSWER_MS   10000
#define READY_MS    30000

static const char *qemu, *image;
static struct qtest_board b;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A frame from its hex, then @pad bytes of value @fill (the issue's
 * "+ N x BB"); its size field must say the whole length. */
static void send_frame(const char *hex, unsigned pad, uint8_t fill)
{
    uint8_t f[DN1_LINK_FRAME_HDR + DN1_PKT_MAX_SIZE];
    size_t n = strlen(hex) / 2;

    if (n + pad > sizeof(f)) {
        fprintf(stderr, "frame too long\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
            fprintf(stderr, "bad hex at %zu\n", i);
            exit(1);
        }
        f[i] = (uint8_t)v;
    }
    memset(f + n, fill, pad);
    CHECK_EQ(dn1_get_be32(f), DN1_LINK_MAGIC);
    CHECK_EQ(dn1_get_be32(f + 4), n + pad);
    qb_link_send_raw(&b, f, n + pad);
}

/* The board's answer to the packet with @tag: ACK, or NACK with @reason. */
static void expect_answer(uint32_t tag, uint8_t type, uint8_t reason)
{
    struct dn1_hdr h;

    if (qb_link_recv(&b, &h, NULL, ANSWER_MS) != 0) {
        fprintf(stderr, "no answer to tag 0x%08x within %d ms\n", (unsigned)tag, ANSWER_MS);
        CHECK(0);
        return;
    }
    CHECK_EQ(h.tag, tag);
    CHECK_EQ(h.type, type);
    CHECK_EQ(h.reason, reason);
}

/* LLCM words are little-endian (host order, section 7). */
static uint32_t llcm_le32(uint32_t off)
{
    const uint8_t *p = b.llcm + off;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void llcm_put_le(uint32_t off, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++) {
        b.llcm[off + i] = (uint8_t)(v >> 8 * i);
    }
}

static void slot_set(uint32_t off, uint64_t target)
{
    llcm_put_le(off, target, 8);
    llcm_put_le(off + 8, CAPACITY, 4);
    llcm_put_le(off + 12, 0, 4);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static int bytes_are(uint32_t addr, size_t len, uint8_t v)
{
    for (size_t i = 0; i < len; i++) {
        if (b.hostmem[addr + i] != v) {
            return 0;
        }
    }
    return 1;
}

/* "ready" lines on the console so far. */
static unsigned console_ready(void)
{
    char path[96], line[256];
    unsigned n = 0;

    snprintf(path, sizeof(path), "%s/console", b.dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        return 0;
    }
    while (fgets(line, sizeof(line), f)) {
        n += strcmp(line, "ready\n") == 0 || strcmp(line, "ready\r\n") == 0;
    }
    fclose(f);
    return n;
}

/* The @nth firmware start has said ready and set FW_STATUS.READY. */
static int wait_ready(unsigned nth)
{
    int64_t deadline = now_ms() + READY_MS;

    while (console_ready() < nth || !(qb_hb_reg(&b, DN1_REG_FW_STATUS) & DN1_FW_READY)) {
        if (now_ms() > deadline) {
            fprintf(stderr, "firmware start %u never READY (FW_STATUS 0x%x, IRQ_ENABLE 0x%x)\n",
                    nth, (unsigned)qb_hb_reg(&b, DN1_REG_FW_STATUS),
                    (unsigned)qb_hb_reg(&b, DN1_REG_IRQ_ENABLE));
            return -1;
        }
        usleep(20000);
    }
    return 0;
}

static void boot(void)
{
    qb_start_firmware(&b, qemu, NODE, image);
    CHECK_EQ(wait_ready(1), 0);
    slot_set(SLOT_A, TARGET_A);
    slot_set(SLOT_B, TARGET_B);
}

/* Sender 64, FSEQ, 16 bytes on slot 0x3130. */
#define F1_SENDER_64 "444e4c31000000400000000000000000014409000040000700100007a00000700000" \
                     "00100000313000000000a51a8fc3000102030405060708090a0b0c0d0e0f"

/* Finding 1: section 13 step 1 names no limit on the sender: a sender id
 * of 64 is served, and its bad slot is BAD_POINTER, not BAD_PATH. */
static void t_sender_64(void)
{
    boot();
    send_frame(F1_SENDER_64, 0, 0);
    expect_answer(0xa0000070, DN1_TYPE_ACK, 0);
    CHECK_EQ(llcm_le32(SLOT_A + 12), 1);
    for (unsigned i = 0; i < 16; i++) {
        CHECK_EQ(b.hostmem[TARGET_A + i], i);
    }
    send_frame("444e4c310000004000000000000000000144010000400007001000"
               "00a0000071000000100000000000000000c5d78219000102030405"
               "060708090a0b0c0d0e0f", 0, 0);
    expect_answer(0xa0000071, DN1_TYPE_NACK, DN1_NACK_BAD_POINTER);
    qb_stop(&b);
}

/* Finding 2: a transfer is keyed by sender and slot (step 2), so one on
 * slot 0x3110 does not end the same sender's on 0x3130, whose next packet
 * in order is taken. */
static void t_two_slots(void)
{
    boot();
    send_frame("444e4c310000009400000000000000000144090000140007006401f4"
               "a00000710000012c0000313000000000b788dc74", 100, 0x61);
    expect_answer(0xa0000071, DN1_TYPE_ACK, 0);
    send_frame("444e4c31000000440000000000000000014409000014000700142328"
               "a0000072000000320000311000000000dfadf851626262626262626262"
               "6262626262626262626262", 0, 0);
    expect_answer(0xa0000072, DN1_TYPE_ACK, 0);
    send_frame("444e4c310000009400000000000000000144090000140007006401f5"
               "a00000730000012c000031300000006440872b47", 100, 0x63);
    expect_answer(0xa0000073, DN1_TYPE_ACK, 0);
    CHECK(bytes_are(TARGET_A, 100, 0x61));
    CHECK(bytes_are(TARGET_A + 100, 100, 0x63));
    CHECK(bytes_are(TARGET_B, 20, 0x62));
    CHECK_EQ(llcm_le32(SLOT_A + 12), 0);    /* 200 of 300 bytes */
    qb_stop(&b);
}

/* Finding 3: soft-indirect transfers are not carried over a NIC restart
 * (section 10): without FSEQ too, the next packet is refused and lands
 * nothing. */
static void t_restart_ends_transfer(void)
{
    boot();
    send_frame("444e4c31000000940000000000000000014401000015000700640001"
               "a00000c30000012c000031300000000036fe2000", 100, 0x66);
    expect_answer(0xa00000c3, DN1_TYPE_ACK, 0);
    CHECK_EQ(qb_hostbus(&b, DN1_HB_NIC_RESTART, 0, NULL), 0);
    CHECK_EQ(wait_ready(2), 0);
    send_frame("444e4c31000000940000000000000000014401000015000700640002"
               "a00000c50000012c00003130000000649fc4f22e", 100, 0x67);
    expect_answer(0xa00000c5, DN1_TYPE_NACK, DN1_NACK_SEQUENCE);
    CHECK(bytes_are(TARGET_A, 100, 0x66));
    CHECK(bytes_are(TARGET_A + 100, 100, 0));
    CHECK_EQ(llcm_le32(SLOT_A + 12), 0);
    qb_stop(&b);
}

/* Finding 4: a CONTROL that turns POLL on, arriving while the NIC restarts,
 * is served by the new firmware, which still becomes READY (sections 7, 8)
 * and then serves packets by polling. Several restarts: the CONTROL may
 * land before or after the new firmware's interrupt is on. */
static void t_poll_control_across_restart(void)
{
    static const uint8_t block[28] = { 0, 0, 0, 0, 2, 0, 0, 0, [24] = 1 };

    boot();
    memcpy(b.llcm + DN1_VAR_LLCM_OFF, block, sizeof(block));
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (unsigned round = 0; round < 5; round++) {
        struct dn1_hb_rsp rsp;

        qb_hostbus_send(&b, DN1_HB_NIC_RESTART, 0, 0, 0);
        send_frame("444e4c31000000300000000000000000014301000007000700000001"
                   "a00000c4000000000000000000000000ae1012fa", 0, 0);
        CHECK_EQ(qb_hostbus_read(&b, &rsp, ANSWER_MS), 0);
        CHECK_EQ(rsp.status, 0);
        expect_answer(0xa00000c4, DN1_TYPE_ACK, 0);
        if (wait_ready(2 + round) != 0) {
            CHECK(0);
            break;
        }
        CHECK_EQ(llcm_le32(DN1_VAR_LLCM_OFF + DN1_VAR_TAKEN), 1);
        /* Served after it (polling, if the new firmware took the CONTROL;
         * the old one may have, before it left). */
        send_frame(F1_SENDER_64, 0, 0);
        expect_answer(0xa0000070, DN1_TYPE_ACK, 0);
    }
    qb_stop(&b);
}

/* N1 (contract 1.27, issue 36): SUM 5 on UINT64 at key 0x8001, VA
 * 0x10002010, seq 0, session 0, from node 80, which this board has never
 * heard from. Section 15 step 2: session 0 is NACKed SEQUENCE. */
#define N1_ATOMIC_SESSION_0 "444e4c31000000500000000000000000014600000050000700200000a000009380010000" \
                            "1000201000000000efd2f2550207000000000000002000000000000005000000000000" \
                            "000000000000000000"
#define N1_NIC_OFF  0x30000u

static uint64_t hostmem_le64(uint32_t off)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++) {
        v |= (uint64_t)b.hostmem[off + i] << 8 * i;
    }
    return v;
}

static uint32_t fwstat(unsigned counter)
{
    return llcm_le32(DN1_LLCM_FWSTATS + 4u * (2 + counter));
}

static void t_atomic_session_zero(void)
{
    boot();
    /* The key the frame names, registered over its target with R and W,
     * so only the session can refuse it. */
    llcm_put_le(DN1_MR_LLCM_OFF + DN1_MR_NIC_OFF, N1_NIC_OFF, 4);
    llcm_put_le(DN1_MR_LLCM_OFF + DN1_MR_LEN_ACCESS,
                0x1000u | DN1_MR_ACCESS_W | DN1_MR_ACCESS_R, 4);
    llcm_put_le(DN1_MR_LLCM_OFF + DN1_MR_RVA_BASE, 0x8001ull << 48 | 0x10002000u, 8);
    for (unsigned i = 0; i < 8; i++) {
        b.hostmem[N1_NIC_OFF + 0x10 + i] = (uint8_t)(0x11 * (i + 1));
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uint64_t before = hostmem_le64(N1_NIC_OFF + 0x10);

    send_frame(N1_ATOMIC_SESSION_0, 0, 0);
    expect_answer(0xa0000093, DN1_TYPE_NACK, DN1_NACK_SEQUENCE);
    CHECK_EQ(hostmem_le64(N1_NIC_OFF + 0x10), before);
    CHECK_EQ(fwstat(DN1_FWST_ATOMIC_APPLIED), 0);
    CHECK_EQ(fwstat(DN1_FWST_ATOMIC_SEQUENCE), 1);

    /* The same request with a session is taken: the old value comes back
     * and the sum lands (the refusal above was the session's alone). */
    uint8_t pl[DN1_ATOMIC_LEN] = { 2, 7 };
    pl[DN1_ATOMIC_OFF_SESSION] = 1;
    pl[DN1_ATOMIC_OFF_REPLY + 2] = 0x20;
    pl[16] = 5;
    struct dn1_hdr h = {
        .version = DN1_PKT_VERSION, .type = DN1_TYPE_ATOMIC, .src = 80, .dst = NODE,
        .len = DN1_ATOMIC_LEN, .tag = 0xa0000094, .raddr = 0x8001000010002010ull,
    };
    qb_link_send(&b, &h, pl);
    struct dn1_hdr r;
    uint8_t old[16];
    CHECK_EQ(qb_link_recv(&b, &r, old, ANSWER_MS), 0);
    CHECK_EQ(r.type, DN1_TYPE_READ_RSP);
    CHECK_EQ(r.tag, 0xa0000094);
    CHECK_EQ(r.len, 8);
    uint64_t got = 0;
    for (unsigned i = 0; i < 8; i++) {
        got |= (uint64_t)old[i] << 8 * i;
    }
    CHECK_EQ(got, before);
    CHECK_EQ(hostmem_le64(N1_NIC_OFF + 0x10), before + 5);
    CHECK_EQ(fwstat(DN1_FWST_ATOMIC_APPLIED), 1);
    qb_stop(&b);
}

static const struct test_case cases[] = {
    { "sender_64", t_sender_64 },
    { "two_slots", t_two_slots },
    { "restart_ends_transfer", t_restart_ends_transfer },
    { "poll_control_across_restart", t_poll_control_across_restart },
    { "atomic_session_zero", t_atomic_session_zero },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s QEMU FIRMWARE_IMAGE [CASE]\n", argv[0]);
        return 2;
    }
    qemu = argv[1];
    image = argv[2];
    return run_cases(cases, argc - 2, argv + 2, 1, NULL, NULL);
}
