/*
 * Message handler (handlers/message) on the FAKE HAL (host-built): where
 * messages land, the notices, f_seq order, overflow and every refusal.
 * The fake host memory is 64 KiB; system buffers and posts live there.
 */
#include <stdlib.h>
#include "../common/check.h"
#include "fake_hal.h"
#include "dispatch.h"
#include "fwstats.h"
#include "message/message.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/message.h"

#define ME      1
#define NQ_OFF  0x8000u           /* notice queue in the LLCM user area */
#define NQ_N    8u
#define SLOTW(src, field) (DN1_RADDR_LLCM + DN1_LLCM_MSG_SLOTS + 32u * (src) + \
                           offsetof(struct dn1_msg_slot, field))
#define CTRLW(field) (DN1_RADDR_LLCM + DN1_LLCM_MSG_CTRL + \
                      offsetof(struct dn1_msg_ctrl, field))

static uint16_t seq_of[DN1_MSG_SENDERS];
static uint8_t inc_of[DN1_MSG_SENDERS];     /* each sender's incarnation */

static void enable_queue(uint32_t entries)
{
    fake_nic_put_u32(CTRLW(nq_off), NQ_OFF);
    fake_nic_put_u32(CTRLW(nq_entries), entries);
    fake_nic_put_u32(CTRLW(nq_consumed), 0);
    fake_nic_put_u32(CTRLW(enable), DN1_MSG_ENABLE);
}

/* The host's setup of sender @src: system buffer, generation bumped. */
static void setup_sender(unsigned src, uint32_t off, uint32_t size)
{
    uint32_t gens = fake_nic_get_u32(SLOTW(src, setup_gen));
    fake_nic_put_u32(SLOTW(src, sysbuf_off), off);
    fake_nic_put_u32(SLOTW(src, sysbuf_size), size);
    fake_nic_put_u32(SLOTW(src, freed), 0);
    fake_nic_put_u32(SLOTW(src, setup_gen), (gens & 0xffff0000u) | ((gens + 1) & 0xffffu));
    /* The conversation is closed: the sender starts a newer one, as the
     * shim does when told INCARNATION. */
    seq_of[src] = 0;
    inc_of[src]++;
}

static void post(unsigned src, uint32_t off, uint32_t len)
{
    uint32_t gens = fake_nic_get_u32(SLOTW(src, setup_gen));
    fake_nic_put_u32(SLOTW(src, post_off), off);
    fake_nic_put_u32(SLOTW(src, post_len), len);
    fake_nic_put_u32(SLOTW(src, setup_gen), gens + 0x10000u);
}

static struct dn1_hdr msg_pkt(unsigned src, uint16_t seq, uint32_t utag, uint32_t mlen,
                              uint32_t xoff, uint16_t len)
{
    return (struct dn1_hdr){ .version = 1, .type = DN1_TYPE_MESSAGE,
                             .flags = DN1_FLAG_ACK_REQ, .src = (uint16_t)src,
                             .dst = ME, .len = len, .seq = seq, .tag = 0x1000 + seq,
                             .raddr = DN1_MSG_RADDR_INC(utag, inc_of[src], mlen),
                             .xoff = xoff };
}

/* Serve one packet; its decision. */
static struct fake_decision deliver(struct dn1_hdr h)
{
    size_t before = fake_decision_count;
    fake_rx_push(&h);
    dispatch_service();
    CHECK_EQ(fake_decision_count, before + 1);
    return fake_decisions[before % FAKE_DECISIONS];
}

/* Send a whole message from @src in packets of at most @mtu: the decision
 * of its last packet (or of the first one refused). */
static struct fake_decision send_msg(unsigned src, uint32_t utag, uint32_t mlen,
                                     uint16_t mtu, uint64_t *first_at)
{
    uint32_t xoff = 0;
    struct fake_decision d;
    do {
        uint16_t n = (uint16_t)(mlen - xoff < mtu ? mlen - xoff : mtu);
        d = deliver(msg_pkt(src, seq_of[src], utag, mlen, xoff, n));
        if (d.action != RX_CONTINUE) {
            return d;
        }
        if (xoff == 0 && first_at) {
            *first_at = d.raddr;
        }
        seq_of[src]++;
        xoff += n;
    } while (xoff < mlen);
    return d;
}

static struct dn1_msg_notice notice(unsigned k)
{
    struct dn1_msg_notice n;
    uint64_t a = DN1_RADDR_LLCM + NQ_OFF + 32u * (k % NQ_N);
    uint32_t w0 = fake_nic_get_u32(a);
    n.src = (uint16_t)w0;
    n.flags = (uint8_t)(w0 >> 16);
    n.utag = fake_nic_get_u32(a + 4);
    n.len = fake_nic_get_u32(a + 8);
    n.addr = fake_nic_get_u32(a + 12);
    n.span = fake_nic_get_u32(a + 16);
    n.msg_no = fake_nic_get_u32(a + 20);
    n.index = fake_nic_get_u32(a + 24);
    n.setup_gen = (uint16_t)fake_nic_get_u32(a + 28);
    return n;
}

static uint32_t produced(void)
{
    return fake_nic_get_u32(CTRLW(nq_produced));
}

static void setup(void)
{
    fake_rx_reset();
    fwstats_init();
    message_init();
    dispatch_register(DN1_TYPE_MESSAGE, message_handle);
    enable_queue(NQ_N);
    for (unsigned s = 0; s < DN1_MSG_SENDERS; s++) {
        seq_of[s] = 0;
        inc_of[s] = 0;
    }
}

/* Steps 3-7: a one-packet message lands at the system buffer's free space,
 * and the notice follows the write. */
static void t_single_packet(void)
{
    setup_sender(0, 0x1000, 0x1000);
    struct fake_decision d = send_msg(0, 77, 100, 464, NULL);
    CHECK_EQ(d.action, RX_CONTINUE);
    CHECK_EQ(d.raddr, 0x1000);
    CHECK_EQ(d.len, 100);
    CHECK_EQ(produced(), 1);
    struct dn1_msg_notice n = notice(0);
    CHECK_EQ(n.src, 0);
    CHECK_EQ(n.flags, 0);
    CHECK_EQ(n.utag, 77);
    CHECK_EQ(n.len, 100);
    CHECK_EQ(n.addr, 0x1000);
    CHECK_EQ(n.span, 104);                /* 8-aligned */
    CHECK_EQ(n.msg_no, 0);
    CHECK_EQ(n.index, 0);
    CHECK_EQ(n.setup_gen, 1);
    CHECK_EQ(fake_nic_get_u32(SLOTW(0, post_taken)) >> 16, 1);   /* next_seq */
    CHECK_EQ(fake_nic_get_u32(SLOTW(0, delivered)), 1);
    CHECK_EQ(fwstats_get(DN1_FWST_MSG_DELIVERED), 1);

    d = send_msg(0, 78, 8, 464, NULL);     /* the next one follows it */
    CHECK_EQ(d.raddr, 0x1000 + 104);
    CHECK_EQ(notice(1).msg_no, 1);
}

/* Every packet of a multi-packet message lands after the first, contiguous;
 * one notice, after the last. */
static void t_multi_packet_contiguous(void)
{
    setup_sender(3, 0x2000, 0x4000);
    uint64_t first = 0;
    for (uint32_t x = 0; x < 1000; x += 464) {
        uint16_t n = (uint16_t)(1000 - x < 464 ? 1000 - x : 464);
        struct fake_decision d = deliver(msg_pkt(3, seq_of[3]++, 5, 1000, x, n));
        CHECK_EQ(d.action, RX_CONTINUE);
        CHECK_EQ(d.raddr, 0x2000 + x);
        CHECK_EQ(produced(), x + n == 1000 ? 1u : 0u);
        first = first ? first : d.raddr;
    }
    CHECK_EQ(notice(0).addr, first);
    CHECK_EQ(notice(0).len, 1000);
    /* 2048-byte (RDMA) packets work the same way. */
    uint64_t at;
    struct fake_decision d = send_msg(3, 6, 5000, 2048, &at);
    CHECK_EQ(d.action, RX_CONTINUE);
    CHECK_EQ(at, 0x2000 + 1000);
    CHECK_EQ(d.raddr, at + 4096);
    CHECK_EQ(notice(1).span, 5000);
}

/* A host-asked NIC restart in the middle of a message: the firmware that
 * leaves saves the conversation in chip SRAM, the next one resumes it (once),
 * and the message lands whole; a damaged record means a cold start. */
static void t_restart_handover(void)
{
    setup_sender(3, 0x2000, 0x4000);
    send_msg(3, 4, 100, 464, NULL);                     /* notice 0 */
    struct fake_decision d = deliver(msg_pkt(3, seq_of[3]++, 5, 1000, 0, 464));
    CHECK_EQ(d.action, RX_CONTINUE);
    message_save();
    CHECK_EQ(message_init(), 1);                        /* the new firmware */
    CHECK_EQ(produced(), 1);
    for (uint32_t x = 464; x < 1000; x += 464) {
        uint16_t n = (uint16_t)(1000 - x < 464 ? 1000 - x : 464);
        d = deliver(msg_pkt(3, seq_of[3]++, 5, 1000, x, n));
        CHECK_EQ(d.action, RX_CONTINUE);
        CHECK_EQ(d.raddr, 0x2000 + 104 + x);
    }
    CHECK_EQ(produced(), 2);
    CHECK_EQ(notice(1).len, 1000);
    CHECK_EQ(notice(1).addr, 0x2000 + 104);
    CHECK_EQ(message_init(), 0);                        /* taken once only */
    /* A flipped bit in the record: a cold start (t_cold_start). */
    setup();
    setup_sender(3, 0x2000, 0x4000);
    send_msg(3, 4, 100, 464, NULL);
    message_save();
    fake_sram[DN1_MSG_SRAM_HANDOVER + 200] ^= 4;
    CHECK_EQ(message_init(), 0);
    CHECK_EQ(produced(), 2);                            /* the RESTART notice */
    CHECK_EQ(notice(1).flags, DN1_NOTICE_RESTART);
}

/* A cold start (no handover) under a host that set up: the notice count
 * goes on, a RESTART notice follows the host's last, the setups in force
 * are refused NO_BUFFER (where their rings stood is lost) until the host
 * sets up again; then the ring starts empty and the sender starts a new
 * conversation at f_seq 0 (one caught in the middle is told INCARNATION). */
static void t_cold_start(void)
{
    setup_sender(3, 0x2000, 0x4000);
    setup_sender(4, 0x6000, 0x1000);
    send_msg(3, 4, 100, 464, NULL);                     /* notice 0 */
    send_msg(4, 5, 200, 464, NULL);                     /* notice 1 */
    CHECK_EQ(deliver(msg_pkt(3, seq_of[3]++, 6, 1000, 0, 464)).action, RX_CONTINUE);
    uint32_t cold0 = fwstats_counts[DN1_FWST_MSG_COLD_STARTS];
    CHECK_EQ(message_init(), 0);                        /* no record: cold */
    CHECK_EQ(produced(), 3);
    struct dn1_msg_notice no = notice(2);
    CHECK_EQ(no.src, DN1_NOTICE_NO_SENDER);
    CHECK_EQ(no.flags, DN1_NOTICE_RESTART);
    CHECK_EQ(no.index, 2);
    CHECK_EQ(no.len, 0);
    CHECK_EQ(fwstats_counts[DN1_FWST_MSG_COLD_STARTS], cold0 + 1);
    /* The rest of the half-received message, and a new one: refused. */
    struct fake_decision d = deliver(msg_pkt(3, seq_of[3], 6, 1000, 464, 464));
    CHECK_EQ(d.action, RX_NACK);
    CHECK_EQ(d.nack_reason, DN1_NACK_NO_BUFFER);
    CHECK_EQ(send_msg(4, 7, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    CHECK_EQ(produced(), 3);                            /* one RESTART notice only */
    /* The host sets up again: an empty ring, a new conversation. */
    setup_sender(3, 0x2000, 0x4000);
    uint64_t at;
    d = send_msg(3, 8, 300, 464, &at);
    CHECK_EQ(d.action, RX_CONTINUE);
    CHECK_EQ(at, 0x2000);
    CHECK_EQ(notice(3).msg_no, 0);
    CHECK_EQ(notice(3).src, 3);
    /* Sender 4, not set up again, is still refused. */
    CHECK_EQ(send_msg(4, 9, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
}

/* A NIC restart asked for before the host set up again after a cold
 * start: nothing is handed over (the setups in force lead nowhere still),
 * so the next firmware starts cold too and tells the host again. */
static void t_cold_start_then_restart(void)
{
    setup_sender(3, 0x2000, 0x4000);
    send_msg(3, 1, 8, 464, NULL);                       /* notice 0 */
    CHECK_EQ(message_init(), 0);                        /* cold: RESTART is notice 1 */
    message_save();
    CHECK_EQ(message_init(), 0);                        /* cold again, not resumed */
    CHECK_EQ(produced(), 3);
    CHECK_EQ(notice(2).flags, DN1_NOTICE_RESTART);
    CHECK_EQ(send_msg(3, 2, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    /* Once the host set up again, a restart hands over as before. */
    setup_sender(3, 0x2000, 0x4000);
    CHECK_EQ(send_msg(3, 3, 8, 464, NULL).action, RX_CONTINUE);
    message_save();
    CHECK_EQ(message_init(), 1);
}

/* A cold start whose notice queue is full: the RESTART notice waits for
 * room and goes with the first refusal after the host made some. */
static void t_cold_start_queue_full(void)
{
    enable_queue(2);
    setup_sender(3, 0x2000, 0x4000);
    send_msg(3, 1, 8, 464, NULL);
    send_msg(3, 2, 8, 464, NULL);                       /* the queue is full */
    CHECK_EQ(message_init(), 0);
    CHECK_EQ(produced(), 2);                            /* no room yet */
    CHECK_EQ(send_msg(3, 3, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    CHECK_EQ(produced(), 2);
    fake_nic_put_u32(CTRLW(nq_consumed), 2);            /* the host took both */
    CHECK_EQ(send_msg(3, 3, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    CHECK_EQ(produced(), 3);
    CHECK_EQ(notice(0).flags, DN1_NOTICE_RESTART);     /* notice 2 of a 2-entry queue */
    CHECK_EQ(notice(0).index, 2);
}

/* A cold start with no host set up (power-on, or a host that never
 * enabled messages): nothing to tell, the count starts at 0. */
static void t_cold_start_no_host(void)
{
    setup_sender(3, 0x2000, 0x4000);
    send_msg(3, 1, 8, 464, NULL);
    fake_nic_put_u32(CTRLW(enable), 0);
    CHECK_EQ(message_init(), 0);
    CHECK_EQ(produced(), 0);
    enable_queue(NQ_N);
    /* Caught in the middle of its conversation: told INCARNATION, it
     * starts a newer one, which the setup (adopted) takes. */
    CHECK_EQ(send_msg(3, 2, 8, 464, NULL).nack_reason, DN1_NACK_INCARNATION);
    seq_of[3] = 0;
    inc_of[3]++;
    CHECK_EQ(send_msg(3, 2, 8, 464, NULL).action, RX_CONTINUE);
    CHECK_EQ(produced(), 1);
    CHECK_EQ(notice(0).src, 3);
}

/* Step 5: a posted user buffer takes the next message whole (zero copy);
 * then the system buffer's free space again. */
static void t_user_buffer(void)
{
    setup_sender(2, 0x1000, 0x1000);
    post(2, 0x6000, 3000);
    uint64_t at;
    struct fake_decision d = send_msg(2, 9, 2000, 464, &at);
    CHECK_EQ(d.action, RX_CONTINUE);
    CHECK_EQ(at, 0x6000);
    CHECK_EQ(d.raddr, 0x6000 + 4 * 464);
    struct dn1_msg_notice n = notice(0);
    CHECK_EQ(n.flags, DN1_NOTICE_USER);
    CHECK_EQ(n.addr, 0x6000);
    CHECK_EQ(n.span, 0);
    CHECK_EQ(fake_nic_get_u32(SLOTW(2, post_taken)) & 0xffff, 1);   /* taken */
    d = send_msg(2, 10, 16, 464, &at);
    CHECK_EQ(at, 0x1000);                 /* back to the system buffer */
    CHECK_EQ(fwstats_get(DN1_FWST_MSG_USER), 1);

    post(2, 0x7000, 8);                   /* too small: left for a later one */
    send_msg(2, 11, 100, 464, &at);
    CHECK_EQ(at, 0x1000 + 16);
    send_msg(2, 12, 8, 464, &at);
    CHECK_EQ(at, 0x7000);
}

/* Step 4: no room in the ring: NACK BUFFER_FULL, nothing changes; when the
 * host frees space, reception resumes; an entry that would run past the end
 * starts over at the beginning, the skipped tail in its span. */
static void t_overflow_and_wrap(void)
{
    setup_sender(1, 0x1000, 1024);
    CHECK_EQ(send_msg(1, 1, 400, 464, NULL).action, RX_CONTINUE);   /* 0..400 */
    CHECK_EQ(send_msg(1, 2, 400, 464, NULL).action, RX_CONTINUE);   /* 400..800 */
    struct fake_decision d = send_msg(1, 3, 400, 464, NULL);
    CHECK_EQ(d.action, RX_NACK);
    CHECK_EQ(d.nack_reason, DN1_NACK_BUFFER_FULL);
    CHECK_EQ(produced(), 2);
    CHECK_EQ(fake_nic_get_u32(SLOTW(1, post_taken)) >> 16, 2);      /* f_seq unmoved */
    fake_nic_put_u32(SLOTW(1, freed), 400);   /* the host consumed the first */
    uint64_t at;
    d = send_msg(1, 3, 400, 464, &at);        /* 224 left at the end: wraps */
    CHECK_EQ(d.action, RX_CONTINUE);
    CHECK_EQ(at, 0x1000);
    CHECK_EQ(notice(2).span, 224 + 400);
    d = send_msg(1, 4, 8, 464, &at);          /* ring full again */
    CHECK_EQ(d.nack_reason, DN1_NACK_BUFFER_FULL);
    fake_nic_put_u32(SLOTW(1, freed), 800 + 224 + 400);   /* all consumed */
    d = send_msg(1, 4, 1024, 464, &at);       /* drained: one piece again */
    CHECK_EQ(d.action, RX_CONTINUE);
    CHECK_EQ(at, 0x1000);
    CHECK_EQ(notice(3).span, 1024);
    CHECK(fwstats_get(DN1_FWST_NACK_BUFFER_FULL) == 2);
}

/* Longer than the whole system buffer: TOO_LONG until a user buffer is
 * posted for it. No system buffer at all: only user buffers. */
static void t_too_long(void)
{
    setup_sender(4, 0x1000, 512);
    struct fake_decision d = send_msg(4, 1, 600, 464, NULL);
    CHECK_EQ(d.nack_reason, DN1_NACK_TOO_LONG);
    post(4, 0x4000, 600);
    uint64_t at;
    CHECK_EQ(send_msg(4, 1, 600, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x4000);
    setup_sender(5, 0x1000, 0);
    CHECK_EQ(send_msg(5, 1, 1, 464, NULL).nack_reason, DN1_NACK_TOO_LONG);
    CHECK_EQ(send_msg(5, 1, 0, 464, NULL).action, RX_CONTINUE);     /* empty fits */
}

/* Nothing set up, messages not enabled, a sender out of range, a system
 * buffer outside receive memory: NO_BUFFER, never a write. */
static void t_no_buffer(void)
{
    CHECK_EQ(send_msg(6, 1, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    CHECK_EQ(send_msg(DN1_MSG_SENDERS, 1, 8, 464, NULL).nack_reason,
             DN1_NACK_NO_BUFFER);
    setup_sender(6, DN1_HOSTMEM_SIZE - 8, 16);            /* runs past */
    CHECK_EQ(send_msg(6, 1, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    setup_sender(6, 0x1004, 16);                          /* unaligned */
    CHECK_EQ(send_msg(6, 1, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    setup_sender(6, 0x1000, 16);
    fake_nic_put_u32(CTRLW(enable), 0);
    CHECK_EQ(send_msg(6, 1, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    fake_nic_put_u32(CTRLW(enable), DN1_MSG_ENABLE);
    CHECK_EQ(send_msg(6, 1, 8, 464, NULL).action, RX_CONTINUE);
    CHECK_EQ(fwstats_get(DN1_FWST_NACK_NO_BUFFER), 5);
}

/* f_seq: a packet that landed already is ACKed again without a write
 * (its ACK was lost); one ahead of its turn is NACKed SEQUENCE. */
static void t_sequence(void)
{
    setup_sender(7, 0x1000, 0x1000);
    CHECK_EQ(send_msg(7, 1, 900, 464, NULL).action, RX_CONTINUE);   /* seq 0, 1 */
    struct fake_decision d = deliver(msg_pkt(7, 1, 1, 900, 464, 436));
    CHECK_EQ(d.action, RX_DONE);                       /* duplicate */
    d = deliver(msg_pkt(7, 3, 2, 8, 0, 8));            /* seq 2 missing */
    CHECK_EQ(d.action, RX_NACK);
    CHECK_EQ(d.nack_reason, DN1_NACK_SEQUENCE);
    d = deliver(msg_pkt(7, (uint16_t)(2 - DN1_MSG_WINDOW - 1), 2, 8, 0, 8));
    CHECK_EQ(d.nack_reason, DN1_NACK_SEQUENCE);        /* too far behind */
    CHECK_EQ(produced(), 1);
    CHECK_EQ(fwstats_get(DN1_FWST_MSG_DUPLICATES), 1);
    seq_of[7] = 2;
    CHECK_EQ(send_msg(7, 2, 8, 464, NULL).action, RX_CONTINUE);
    CHECK_EQ(produced(), 2);
}

/* A packet whose offset or length contradicts its message (in an open
 * conversation: before it, a packet that is no start is INCARNATION's). */
static void t_bad_message(void)
{
    setup_sender(8, 0x1000, 0x1000);
    struct fake_decision d = deliver(msg_pkt(8, 0, 1, 100, 8, 50));   /* no start */
    CHECK_EQ(d.nack_reason, DN1_NACK_INCARNATION);
    inc_of[8]++;                                        /* the sender starts anew */
    CHECK_EQ(send_msg(8, 9, 8, 464, NULL).action, RX_CONTINUE);      /* seq 0 opens */
    d = deliver(msg_pkt(8, 1, 1, 100, 8, 50));                       /* no start */
    CHECK_EQ(d.nack_reason, DN1_NACK_BAD_MESSAGE);
    d = deliver(msg_pkt(8, 1, 1, 100, 0, 101));                      /* past end */
    CHECK_EQ(d.nack_reason, DN1_NACK_BAD_MESSAGE);
    d = deliver(msg_pkt(8, 1, 1, 100, 0, 0));                        /* empty piece */
    CHECK_EQ(d.nack_reason, DN1_NACK_BAD_MESSAGE);
    CHECK_EQ(deliver(msg_pkt(8, 1, 1, 1000, 0, 464)).action, RX_CONTINUE);
    d = deliver(msg_pkt(8, 2, 1, 1000, 400, 464));                   /* gap in it */
    CHECK_EQ(d.nack_reason, DN1_NACK_BAD_MESSAGE);
    d = deliver(msg_pkt(8, 2, 1, 2000, 464, 464));                   /* length moved */
    CHECK_EQ(d.nack_reason, DN1_NACK_BAD_MESSAGE);
    d = deliver(msg_pkt(8, 2, 2, 1000, 464, 464));                   /* tag moved */
    CHECK_EQ(d.nack_reason, DN1_NACK_BAD_MESSAGE);
    CHECK_EQ(deliver(msg_pkt(8, 2, 1, 1000, 464, 536)).action, RX_CONTINUE);
    CHECK_EQ(produced(), 2);
    CHECK_EQ(fwstats_get(DN1_FWST_NACK_BAD_MESSAGE), 6);
    CHECK_EQ(fwstats_get(DN1_FWST_NACK_INCARNATION), 1);
}

/* Not sendable as a message: by AOTF (OTF), to a VA, without ACK_REQ, to a group. */
static void t_bad_path(void)
{
    setup_sender(9, 0x1000, 0x1000);
    struct dn1_hdr h = msg_pkt(9, 0, 1, 8, 0, 8);
    h.flags |= DN1_FLAG_OTF;
    CHECK_EQ(deliver(h).nack_reason, DN1_NACK_BAD_PATH);
    h = msg_pkt(9, 0, 1, 8, 0, 8);
    h.flags |= DN1_FLAG_VA;
    CHECK_EQ(deliver(h).nack_reason, DN1_NACK_BAD_PATH);
    h = msg_pkt(9, 0, 1, 8, 0, 8);
    h.flags = 0;
    CHECK_EQ(deliver(h).nack_reason, DN1_NACK_BAD_PATH);
    h = msg_pkt(9, 0, 1, 8, 0, 8);
    h.dst = DN1_MCAST_BASE;
    CHECK_EQ(deliver(h).nack_reason, DN1_NACK_BAD_PATH);
    CHECK_EQ(fwstats_get(DN1_FWST_NACK_BAD_PATH), 4);
    CHECK_EQ(send_msg(9, 1, 8, 464, NULL).action, RX_CONTINUE);
}

/* A full notice queue refuses the last packet (BUFFER_FULL) before it is
 * written, so no notice is ever lost. */
static void t_notice_queue_full(void)
{
    enable_queue(2);
    setup_sender(10, 0x1000, 0x1000);
    CHECK_EQ(send_msg(10, 1, 8, 464, NULL).action, RX_CONTINUE);
    CHECK_EQ(send_msg(10, 2, 8, 464, NULL).action, RX_CONTINUE);
    CHECK_EQ(deliver(msg_pkt(10, 2, 3, 500, 0, 464)).action, RX_CONTINUE);
    struct fake_decision d = deliver(msg_pkt(10, 3, 3, 500, 464, 36));
    CHECK_EQ(d.nack_reason, DN1_NACK_BUFFER_FULL);
    fake_nic_put_u32(CTRLW(nq_consumed), 1);
    CHECK_EQ(deliver(msg_pkt(10, 3, 3, 500, 464, 36)).action, RX_CONTINUE);
    CHECK_EQ(produced(), 3);
    /* A queue set up outside the LLCM user area: NO notice, refused. */
    fake_nic_put_u32(CTRLW(nq_off), 0x1000);
    seq_of[10] = 4;
    CHECK_EQ(send_msg(10, 4, 8, 464, NULL).nack_reason, DN1_NACK_BUFFER_FULL);
}

/* A new setup starts the conversation over: f_seq 0, an empty ring; a
 * partial message is dropped (counted). */
static void t_resetup(void)
{
    setup_sender(11, 0x1000, 0x1000);
    CHECK_EQ(deliver(msg_pkt(11, 0, 1, 1000, 0, 464)).action, RX_CONTINUE);
    setup_sender(11, 0x3000, 0x800);
    uint64_t at;
    CHECK_EQ(send_msg(11, 2, 16, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x3000);
    CHECK_EQ(fwstats_get(DN1_FWST_MSG_ABANDONED), 1);
    CHECK_EQ(fwstats_get(DN1_FWST_MSG_SETUPS), 2);
    CHECK_EQ(notice(0).msg_no, 0);
}

/*
 * A sender that restarts (issue 25): its newer incarnation starts the
 * conversation over at f_seq 0, whatever f_seq the old one stood at. The
 * old one's half-received message is dropped and its ring space handed
 * back (the new message lands where it would have); the old one's late
 * packets, duplicates and starts alike, are refused INCARNATION, counted,
 * and write nothing.
 */
static void t_incarnation_restart(void)
{
    setup_sender(13, 0x1000, 0x1000);
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(send_msg(13, 1, 100, 464, NULL).action, RX_CONTINUE);
    }
    CHECK_EQ(deliver(msg_pkt(13, seq_of[13]++, 2, 1000, 0, 464)).action, RX_CONTINUE);
    uint8_t old = inc_of[13];
    uint16_t old_seq = seq_of[13];
    inc_of[13]++;                                       /* the restarted sender */
    seq_of[13] = 0;
    uint64_t at;
    CHECK_EQ(send_msg(13, 3, 1000, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x1000 + 5 * 104);                     /* the dropped one's place */
    CHECK_EQ(fwstats_get(DN1_FWST_MSG_ABANDONED), 1);
    CHECK_EQ(fwstats_get(DN1_FWST_MSG_INCARNATIONS), 2);
    CHECK_EQ(produced(), 6);
    CHECK_EQ(notice(5).utag, 3);
    CHECK_EQ(notice(5).addr, 0x1000 + 5 * 104);
    /* The old incarnation, late: its next packet, a duplicate, its start. */
    uint8_t now = inc_of[13];
    inc_of[13] = old;
    struct fake_decision d = deliver(msg_pkt(13, old_seq, 2, 1000, 464, 464));
    CHECK_EQ(d.nack_reason, DN1_NACK_INCARNATION);
    d = deliver(msg_pkt(13, 3, 3, 1000, 0, 464));
    CHECK_EQ(d.nack_reason, DN1_NACK_INCARNATION);
    d = deliver(msg_pkt(13, 0, 1, 100, 0, 100));
    CHECK_EQ(d.nack_reason, DN1_NACK_INCARNATION);
    CHECK_EQ(fwstats_get(DN1_FWST_NACK_INCARNATION), 3);
    CHECK_EQ(produced(), 6);
    /* The new one goes on where it stands; an older start (serially:
     * 128 behind) is refused too. */
    inc_of[13] = now;
    CHECK_EQ(send_msg(13, 4, 8, 464, NULL).action, RX_CONTINUE);
    CHECK_EQ(produced(), 7);
    inc_of[13] = (uint8_t)(now + 128);
    seq_of[13] = 0;
    CHECK_EQ(deliver(msg_pkt(13, 0, 5, 8, 0, 8)).nack_reason, DN1_NACK_INCARNATION);
}

/* Reordered at a conversation's start: its f_seq 1 first. Refused, and
 * its late f_seq 0 may then not open it either (it was renumbered under a
 * newer incarnation, which would deliver the same message twice). */
static void t_incarnation_reordered_start(void)
{
    setup_sender(15, 0x1000, 0x1000);
    CHECK_EQ(deliver(msg_pkt(15, 1, 1, 8, 0, 8)).nack_reason, DN1_NACK_INCARNATION);
    CHECK_EQ(deliver(msg_pkt(15, 0, 1, 8, 0, 8)).nack_reason, DN1_NACK_INCARNATION);
    inc_of[15]++;
    CHECK_EQ(send_msg(15, 1, 8, 464, NULL).action, RX_CONTINUE);
    CHECK_EQ(produced(), 1);
    /* In an open conversation a newer incarnation's packet before its
     * start ends it, a message half-received included. */
    CHECK_EQ(deliver(msg_pkt(15, seq_of[15], 2, 1000, 0, 464)).action, RX_CONTINUE);
    inc_of[15]++;
    CHECK_EQ(deliver(msg_pkt(15, 3, 3, 8, 0, 8)).nack_reason, DN1_NACK_INCARNATION);
    inc_of[15]--;
    CHECK_EQ(deliver(msg_pkt(15, 2, 2, 1000, 464, 464)).nack_reason, DN1_NACK_INCARNATION);
    CHECK_EQ(fwstats_get(DN1_FWST_MSG_ABANDONED), 1);
    inc_of[15] += 2;
    seq_of[15] = 0;
    uint64_t at;
    CHECK_EQ(send_msg(15, 4, 8, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x1000 + 8);
    CHECK_EQ(produced(), 2);
}

/* A receiver set up anew closes the conversation: the sender's packets,
 * at any f_seq, are told INCARNATION (not taken as duplicates or refused
 * SEQUENCE forever) until a newer incarnation starts at f_seq 0. The
 * incarnation seen is kept across a handover (a NIC restart). */
static void t_incarnation_resetup(void)
{
    setup_sender(14, 0x1000, 0x1000);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(send_msg(14, 1, 8, 464, NULL).action, RX_CONTINUE);
    }
    uint8_t inc = inc_of[14];
    setup_sender(14, 0x1000, 0x1000);                   /* a new receiver process */
    inc_of[14] = inc;
    CHECK_EQ(deliver(msg_pkt(14, 3, 2, 8, 0, 8)).nack_reason, DN1_NACK_INCARNATION);
    CHECK_EQ(deliver(msg_pkt(14, 2, 1, 8, 0, 8)).nack_reason, DN1_NACK_INCARNATION);
    CHECK_EQ(deliver(msg_pkt(14, 0, 1, 8, 0, 8)).nack_reason, DN1_NACK_INCARNATION);
    message_save();
    CHECK_EQ(message_init(), 1);
    CHECK_EQ(deliver(msg_pkt(14, 0, 1, 8, 0, 8)).nack_reason, DN1_NACK_INCARNATION);
    inc_of[14]++;
    seq_of[14] = 0;
    uint64_t at;
    CHECK_EQ(send_msg(14, 2, 8, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x1000);
    CHECK_EQ(fwstats_get(DN1_FWST_MSG_DUPLICATES), 0);
    CHECK_EQ(fwstats_get(DN1_FWST_NACK_SEQUENCE), 0);
}

/* A post outside receive memory is refused once (BAD_POINTER) and dropped;
 * the retry takes the system buffer. */
static void t_bad_post(void)
{
    setup_sender(12, 0x1000, 0x1000);
    post(12, DN1_HOSTMEM_SIZE - 4, 64);
    CHECK_EQ(send_msg(12, 1, 8, 464, NULL).nack_reason, DN1_NACK_BAD_POINTER);
    uint64_t at;
    CHECK_EQ(send_msg(12, 1, 8, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x1000);
}

/*
 * Whatever arrives, every write lies inside what the host registered for
 * its sender: its system buffer or the user buffer it posted. Well-formed
 * message streams from five senders (one never set up), one packet in
 * eight with a field mangled, the host consuming and posting at random.
 * Seeded (SEED=, printed) so that a failure reproduces.
 */
static void t_random_packets_stay_inside(void)
{
    unsigned seed = (unsigned)strtoul(getenv("SEED") ? getenv("SEED") : "1", NULL, 0);
    struct { uint32_t mlen, xoff, utag; } cur[5] = { { 0, 0, 0 } };
    uint32_t freed[4] = { 0 };
    unsigned areas[4];                    /* posted areas per sender, a bit each */
    uint32_t consumed = 0;
    int failures_before = check_failures;

    srand(seed);
    printf("random_packets_stay_inside: SEED=%u\n", seed);
    for (unsigned s = 0; s < 4; s++) {
        setup_sender(s, 0x1000 * (s + 1), 0x800);
        post(s, 0x8000 + 0x1000 * s, 0x400);
        areas[s] = 1u << s;
    }
    for (int i = 0; i < 200000; i++) {
        unsigned src = (unsigned)rand() % 5;
        if (cur[src].xoff == 0 && cur[src].mlen == 0) {
            cur[src].mlen = (uint32_t)rand() % (rand() % 8 ? 600 : 0x800) + 1;
            cur[src].utag = (uint32_t)rand();
        }
        uint32_t rest = cur[src].mlen - cur[src].xoff;
        uint16_t n = (uint16_t)(rand() % 464 + 1);
        struct dn1_hdr h = msg_pkt(src, seq_of[src], cur[src].utag, cur[src].mlen,
                                   cur[src].xoff, (uint16_t)(n < rest ? n : rest));
        int mangled = 1;
        switch (rand() % 64) {
        case 0: h.seq = (uint16_t)rand(); break;
        case 1: h.xoff = (uint32_t)rand() % 4000; break;
        case 2: h.len = (uint16_t)(rand() % 2049); break;
        case 3: h.raddr = (uint64_t)rand() << 32 | (uint32_t)rand(); break;
        case 4: h.flags = (uint8_t)rand(); break;
        case 5: h.seq = (uint16_t)(seq_of[src] - 1 - rand() % 4); break;
        default: mangled = 0; break;
        }
        struct fake_decision d = deliver(h);
        if (d.action == RX_NACK && d.nack_reason == DN1_NACK_INCARNATION) {
            /* Told to start over: a newer incarnation than any sent, the
             * message from its start, as the shim does. */
            uint8_t sent = DN1_MSG_INC(h.raddr);
            inc_of[src] = (uint8_t)(((int8_t)(sent - inc_of[src]) > 0 ? sent : inc_of[src]) + 1);
            seq_of[src] = 0;
            cur[src].xoff = cur[src].mlen = 0;
        }
        if (d.action == RX_CONTINUE) {
            uint64_t sys = 0x1000u * (src + 1);
            int in_user = 0;
            CHECK(src < 4);
            for (unsigned a = 0; a < 4; a++) {
                uint64_t usr = 0x8000u + 0x1000u * a;
                in_user |= (areas[src % 4] >> a & 1) && d.raddr >= usr &&
                           d.raddr + d.len <= usr + 0x400;
            }
            CHECK((d.raddr >= sys && d.raddr + d.len <= sys + 0x800) || in_user);
            if (mangled) {
                /* The firmware took a mangled packet as the truth: start
                 * this conversation over, as a host would (newer than a
                 * mangled incarnation the firmware may have taken). */
                inc_of[src] = DN1_MSG_INC(h.raddr);
                setup_sender(src, 0x1000 * (src + 1), 0x800);
                freed[src] = 0;   /* notices of the old setup free nothing now */
                cur[src].xoff = cur[src].mlen = 0;
            } else {
                seq_of[src]++;
                cur[src].xoff += h.len;
                if (cur[src].xoff >= cur[src].mlen) {
                    cur[src].xoff = cur[src].mlen = 0;
                }
            }
        }
        if (rand() % 16 == 0) {           /* the host consumes every notice */
            for (; consumed != produced(); consumed++) {
                struct dn1_msg_notice n = notice(consumed);
                if (n.src < 4 && !(n.flags & DN1_NOTICE_USER) &&
                    n.setup_gen == (uint16_t)fake_nic_get_u32(SLOTW(n.src, setup_gen))) {
                    freed[n.src] += n.span;
                    fake_nic_put_u32(SLOTW(n.src, freed), freed[n.src]);
                }
            }
            fake_nic_put_u32(CTRLW(nq_consumed), consumed);
        }
        if (rand() % 256 == 0) {
            unsigned s = (unsigned)rand() % 4, a = (unsigned)rand() % 4;
            post(s, 0x8000 + 0x1000 * a, 0x400);
            areas[s] |= 1u << a;
        }
        if (check_failures != failures_before) {
            fprintf(stderr, "packet %d: src %u seq %u xoff %u len %u raddr 0x%llx "
                    "-> 0x%llx\n", i, src, h.seq, h.xoff, h.len,
                    (unsigned long long)h.raddr, (unsigned long long)d.raddr);
            break;
        }
    }
    printf("random_packets_stay_inside: %u messages delivered, %u into user buffers\n",
           fwstats_get(DN1_FWST_MSG_DELIVERED), fwstats_get(DN1_FWST_MSG_USER));
    CHECK(fwstats_get(DN1_FWST_MSG_DELIVERED) > 1000);
    CHECK(fwstats_get(DN1_FWST_MSG_USER) > 10);
}

static const struct test_case cases[] = {
    { "single_packet", t_single_packet },
    { "multi_packet_contiguous", t_multi_packet_contiguous },
    { "restart_handover", t_restart_handover },
    { "cold_start", t_cold_start },
    { "cold_start_queue_full", t_cold_start_queue_full },
    { "cold_start_then_restart", t_cold_start_then_restart },
    { "cold_start_no_host", t_cold_start_no_host },
    { "user_buffer", t_user_buffer },
    { "overflow_and_wrap", t_overflow_and_wrap },
    { "too_long", t_too_long },
    { "no_buffer", t_no_buffer },
    { "sequence", t_sequence },
    { "bad_message", t_bad_message },
    { "bad_path", t_bad_path },
    { "notice_queue_full", t_notice_queue_full },
    { "resetup", t_resetup },
    { "bad_post", t_bad_post },
    { "incarnation_restart", t_incarnation_restart },
    { "incarnation_resetup", t_incarnation_resetup },
    { "incarnation_reordered_start", t_incarnation_reordered_start },
    { "random_packets_stay_inside", t_random_packets_stay_inside },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, NULL);
}
