/*
 * libFuzzer harness for the message handler on the FAKE HAL (host-built):
 * the input is a script of packets from five senders (one never set up)
 * and of host actions (consume notices and free ring space, post a user
 * buffer, set a sender up again, rewrite a host word with garbage). After
 * every packet: a CONTINUE must lie inside the sender's system buffer or a
 * user buffer posted for it, and every firmware write to the NIC address
 * space must hit the firmware's own LLCM words or the notice queue.
 * Anything else aborts (a finding).
 *
 *   fuzz_message [libFuzzer options] [CORPUS_DIR]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fake_hal.h"
#include "dispatch.h"
#include "fwstats.h"
#include "message/message.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/message.h"
#include "dimmnet1/fw_types.h"

#define SENDERS   4
#define SYS(s)    (0x1000u * ((s) + 1))
#define SYS_SIZE  0x800u
#define USR(a)    (0x8000u + 0x1000u * (a))
#define USR_SIZE  0x400u
#define NQ_OFF    0x8000u
#define NQ_N      8u
#define LLCM(o)   (DN1_RADDR_LLCM + (o))
#define SLOTW(s, f) LLCM(DN1_LLCM_MSG_SLOTS + 32u * (s) + offsetof(struct dn1_msg_slot, f))
#define CTRLW(f)  LLCM(DN1_LLCM_MSG_CTRL + offsetof(struct dn1_msg_ctrl, f))

/* What the host ever offered each sender as a user buffer: the fixed
 * areas it posts, and whatever a scribbled post_off/post_len pair says
 * (the host wrote it, so the firmware may use it). */
#define MAX_RANGES 1024   /* an input has at most max_len / 16 steps */
static struct { uint32_t off, len; } ranges[SENDERS][MAX_RANGES];
static unsigned nranges[SENDERS];

static void offer(unsigned s)
{
    uint32_t off = fake_nic_get_u32(SLOTW(s, post_off));
    uint32_t len = fake_nic_get_u32(SLOTW(s, post_len));
    if (nranges[s] < MAX_RANGES) {
        ranges[s][nranges[s]].off = off;
        ranges[s][nranges[s]++].len = len;
    }
    /* (the fuzzer runs with -max_len=16384: never more steps than this) */
}

static void fw_write(uint64_t a)
{
    int ok = (a >= LLCM(DN1_LLCM_FWSTATS) && a < LLCM(DN1_LLCM_FWSTATS + 8 + 4 * DN1_FWST_COUNT)) ||
             a == CTRLW(nq_produced) ||
             (a >= LLCM(NQ_OFF) && a < LLCM(NQ_OFF + 32 * NQ_N));
    for (unsigned s = 0; s < DN1_MSG_SENDERS && !ok; s++) {
        ok = a == SLOTW(s, post_taken) || a == SLOTW(s, delivered);
    }
    if (!ok) {
        abort();
    }
}

static void setup_sender(unsigned s)
{
    uint32_t g = fake_nic_get_u32(SLOTW(s, setup_gen));
    fake_nic_put_u32(SLOTW(s, sysbuf_off), SYS(s));
    fake_nic_put_u32(SLOTW(s, sysbuf_size), SYS_SIZE);
    fake_nic_put_u32(SLOTW(s, freed), 0);
    fake_nic_put_u32(SLOTW(s, setup_gen), (g & 0xffff0000u) | (((g + 1) & 0xffffu) ?: 1));
}

static void post(unsigned s, unsigned a)
{
    fake_nic_put_u32(SLOTW(s, post_off), USR(a));
    fake_nic_put_u32(SLOTW(s, post_len), USR_SIZE);
    fake_nic_put_u32(SLOTW(s, setup_gen), fake_nic_get_u32(SLOTW(s, setup_gen)) + 0x10000u);
    offer(s);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fake_rx_reset();
    fake_nic_write_check = NULL;
    fwstats_init();
    message_init();
    dispatch_register(DN1_TYPE_MESSAGE, message_handle);
    fake_nic_put_u32(CTRLW(nq_off), NQ_OFF);
    fake_nic_put_u32(CTRLW(nq_entries), NQ_N);
    fake_nic_put_u32(CTRLW(enable), DN1_MSG_ENABLE);
    for (unsigned s = 0; s < SENDERS; s++) {
        setup_sender(s);
        nranges[s] = 0;
    }
    fake_nic_write_check = fw_write;

    /* 16-byte steps: op, src, then fields. */
    for (; size >= 16; data += 16, size -= 16) {
        unsigned op = data[0] % 16, s = data[1] % (SENDERS + 1);
        if (op < 12) {                                  /* a packet */
            struct dn1_hdr h = {
                .version = 1, .type = DN1_TYPE_MESSAGE,
                .flags = op == 11 ? data[2] : DN1_FLAG_ACK_REQ,
                .src = (uint16_t)s, .dst = 1,
                .len = (uint16_t)((data[2] | data[3] << 8) % 2049),
                .seq = (uint16_t)(data[4] | data[5] << 8),
                .raddr = DN1_MSG_RADDR(data[6], get32(data + 7) % 0x1000),
                .xoff = get32(data + 11) % 0x1000,
            };
            size_t before = fake_decision_count;
            fake_rx_push(&h);
            dispatch_service();
            struct fake_decision d = fake_decisions[before % FAKE_DECISIONS];
            if (d.action == RX_CONTINUE && d.len) {
                int ok = s < SENDERS && d.raddr >= SYS(s) &&
                         d.raddr + d.len <= SYS(s) + SYS_SIZE;
                for (unsigned k = 0; s < SENDERS && k < nranges[s] && !ok; k++) {
                    ok = d.raddr >= ranges[s][k].off &&
                         d.raddr + d.len <= (uint64_t)ranges[s][k].off + ranges[s][k].len;
                }
                if (!ok) {
                    fprintf(stderr, "fuzz_message: sender %u wrote %u bytes at 0x%llx "
                            "(seq %u xoff %u mlen %u); %u areas offered\n", s, d.len,
                            (unsigned long long)d.raddr, h.seq, h.xoff,
                            DN1_MSG_LEN(h.raddr), s < SENDERS ? nranges[s] : 0);
                    abort();
                }
            }
        } else if (op == 12 && s < SENDERS) {           /* host consumes */
            fake_nic_put_u32(CTRLW(nq_consumed), fake_nic_get_u32(CTRLW(nq_produced)));
            fake_nic_put_u32(SLOTW(s, freed), get32(data + 2));
        } else if (op == 13 && s < SENDERS) {
            post(s, data[2] % 4);
        } else if (op == 14 && s < SENDERS) {
            fake_nic_write_check = NULL;
            setup_sender(s);
            fake_nic_write_check = fw_write;
        } else if (op == 15 && s < SENDERS) {           /* a host word scribbled */
            static const unsigned words[] = { 8, 12, 16 };   /* freed, post_off, post_len */
            fake_nic_put_u32(LLCM(DN1_LLCM_MSG_SLOTS + 32u * s + words[data[2] % 3]),
                             get32(data + 3));
            offer(s);
        }
    }
    return 0;
}
