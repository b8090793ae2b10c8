/*
 * Message handler (handlers/message) on the FAKE HAL (host-built): where
 * messages land, the notices, f_seq order, overflow and every refusal, on
 * one host port and on several (contract 1.29: each port receives on its
 * own control block, slots and notice queue).
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
#include "dimmnet1/shared_mem.h"
#include "dimmnet1/fw_types.h"

#define ME      1
#define NQ_OFF  0x8000u           /* port 0's notice queue in the LLCM user area */
#define NQ_N    8u
/* One host port (K = 1): the slot of sender src and the control block at
 * the offsets of old, written out here. */
#define SLOTW(src, field) (DN1_RADDR_LLCM + DN1_LLCM_MSG_SLOTS + 32u * (src) + \
                           offsetof(struct dn1_msg_slot, field))
#define CTRLW(field) (DN1_RADDR_LLCM + DN1_LLCM_MSG_CTRL + \
                      offsetof(struct dn1_msg_ctrl, field))
/* K = fake_host_ports: receiving port p's slot of the sender at address a
 * and port p's control block (message.h). */
#define SLOTPW(p, a, field) (DN1_RADDR_LLCM + offsetof(struct dn1_msg_slot, field) + \
                             dn1_llcm_msg_slot(p, fake_host_ports, \
                                               (unsigned)dn1_msg_sender(a, fake_host_ports)))
#define CTRLPW(p, field) (DN1_RADDR_LLCM + dn1_llcm_msg_ctrl(p) + \
                          offsetof(struct dn1_msg_ctrl, field))
#define ADDR(node, port) ((unsigned)(node) | (unsigned)(port) << DN1_PORT_SHIFT)

/* fast_path.S's limit (message.c): 64 with one port, else 0. */
extern uint32_t message_fast_senders;

/* The sender side of each conversation (receiving port, sender), indexed
 * as the firmware's table (conv()); the last entry for any address that
 * is no sender. */
static uint16_t seq_of[DN1_MSG_SENDERS + 1];
static uint8_t inc_of[DN1_MSG_SENDERS + 1];     /* each sender's incarnation */

static unsigned conv(unsigned p, unsigned a)
{
    int s = dn1_msg_sender(a, fake_host_ports);

    return s < 0 || p >= fake_host_ports ? DN1_MSG_SENDERS
                                         : p * dn1_msg_share(fake_host_ports) + (unsigned)s;
}

/* Port p's notice queue: 1 KiB apart from port 0's. */
static uint32_t nq_off(unsigned p)
{
    return NQ_OFF + 0x400u * p;
}

static void enable_queue_p(unsigned p, uint32_t entries)
{
    fake_nic_put_u32(CTRLPW(p, nq_off), nq_off(p));
    fake_nic_put_u32(CTRLPW(p, nq_entries), entries);
    fake_nic_put_u32(CTRLPW(p, nq_consumed), 0);
    fake_nic_put_u32(CTRLPW(p, enable), DN1_MSG_ENABLE);
}

static void enable_queue(uint32_t entries)
{
    enable_queue_p(0, entries);
}

/* Port @p's host's setup of the sender at address @a: system buffer,
 * generation bumped. */
static void setup_sender_p(unsigned p, unsigned a, uint32_t off, uint32_t size)
{
    uint32_t gens = fake_nic_get_u32(SLOTPW(p, a, setup_gen));
    fake_nic_put_u32(SLOTPW(p, a, sysbuf_off), off);
    fake_nic_put_u32(SLOTPW(p, a, sysbuf_size), size);
    fake_nic_put_u32(SLOTPW(p, a, freed), 0);
    fake_nic_put_u32(SLOTPW(p, a, setup_gen), (gens & 0xffff0000u) | ((gens + 1) & 0xffffu));
    /* The conversation is closed: the sender starts a newer one, as the
     * shim does when told INCARNATION. */
    seq_of[conv(p, a)] = 0;
    inc_of[conv(p, a)]++;
}

static void setup_sender(unsigned src, uint32_t off, uint32_t size)
{
    setup_sender_p(0, src, off, size);
}

static void post_p(unsigned p, unsigned a, uint32_t off, uint32_t len)
{
    uint32_t gens = fake_nic_get_u32(SLOTPW(p, a, setup_gen));
    fake_nic_put_u32(SLOTPW(p, a, post_off), off);
    fake_nic_put_u32(SLOTPW(p, a, post_len), len);
    fake_nic_put_u32(SLOTPW(p, a, setup_gen), gens + 0x10000u);
}

static void post(unsigned src, uint32_t off, uint32_t len)
{
    post_p(0, src, off, len);
}

/* A packet from address @a to this board's port @p. */
static struct dn1_hdr msg_pkt_p(unsigned p, unsigned a, uint16_t seq, uint32_t utag,
                                uint32_t mlen, uint32_t xoff, uint16_t len)
{
    return (struct dn1_hdr){ .version = 1, .type = DN1_TYPE_MESSAGE,
                             .flags = DN1_FLAG_ACK_REQ, .src = (uint16_t)a,
                             .dst = (uint16_t)ADDR(ME, p), .len = len, .seq = seq,
                             .tag = 0x1000 + seq,
                             .raddr = DN1_MSG_RADDR_INC(utag, inc_of[conv(p, a)], mlen),
                             .xoff = xoff };
}

static struct dn1_hdr msg_pkt(unsigned src, uint16_t seq, uint32_t utag, uint32_t mlen,
                              uint32_t xoff, uint16_t len)
{
    return msg_pkt_p(0, src, seq, utag, mlen, xoff, len);
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

/* Send a whole message from address @a to port @p in packets of at most
 * @mtu: the decision of its last packet (or of the first one refused). */
static struct fake_decision send_msg_p(unsigned p, unsigned a, uint32_t utag, uint32_t mlen,
                                       uint16_t mtu, uint64_t *first_at)
{
    uint32_t xoff = 0;
    struct fake_decision d;
    do {
        uint16_t n = (uint16_t)(mlen - xoff < mtu ? mlen - xoff : mtu);
        d = deliver(msg_pkt_p(p, a, seq_of[conv(p, a)], utag, mlen, xoff, n));
        if (d.action != RX_CONTINUE) {
            return d;
        }
        if (xoff == 0 && first_at) {
            *first_at = d.raddr;
        }
        seq_of[conv(p, a)]++;
        xoff += n;
    } while (xoff < mlen);
    return d;
}

static struct fake_decision send_msg(unsigned src, uint32_t utag, uint32_t mlen,
                                     uint16_t mtu, uint64_t *first_at)
{
    return send_msg_p(0, src, utag, mlen, mtu, first_at);
}

/* Notice @k of port @p's queue (NQ_N entries). */
static struct dn1_msg_notice notice_p(unsigned p, unsigned k)
{
    struct dn1_msg_notice n;
    uint64_t a = DN1_RADDR_LLCM + nq_off(p) + 32u * (k % NQ_N);
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

static struct dn1_msg_notice notice(unsigned k)
{
    return notice_p(0, k);
}

static uint32_t produced_p(unsigned p)
{
    return fake_nic_get_u32(CTRLPW(p, nq_produced));
}

static uint32_t produced(void)
{
    return fake_nic_get_u32(CTRLW(nq_produced));
}

/* A board of @k host ports at power-on, each port's host set up with its
 * notice queue. */
static void start(unsigned k)
{
    fake_rx_reset();
    fwstats_init();
    fake_host_ports = k;
    message_init();
    dispatch_register(DN1_TYPE_MESSAGE, message_handle);
    for (unsigned p = 0; p < k; p++) {
        enable_queue_p(p, NQ_N);
    }
    for (unsigned s = 0; s <= DN1_MSG_SENDERS; s++) {
        seq_of[s] = 0;
        inc_of[s] = 0;
    }
}

static void setup(void)
{
    start(1);
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
 *
 * The conversations are (receiving port, sender address) pairs, the first
 * n_set set up, each with a system buffer of its own; with K > 1 a
 * mangled packet may also name another port or sender, and a write must
 * then lie inside the buffers of the pair it names.
 */
struct rconv {
    unsigned port, addr;
};

static unsigned rconv_find(const struct rconv *cv, unsigned n, unsigned port, unsigned addr)
{
    unsigned i = 0;

    while (i < n && (cv[i].port != port || cv[i].addr != addr)) {
        i++;
    }
    return i;
}

static void random_stay_inside(unsigned k, const struct rconv *cv, unsigned n_set,
                               unsigned n)
{
    unsigned seed = (unsigned)strtoul(getenv("SEED") ? getenv("SEED") : "1", NULL, 0);
    struct { uint32_t mlen, xoff, utag; } cur[8] = { { 0, 0, 0 } };
    uint32_t freed[8] = { 0 };
    unsigned areas[8];                    /* posted areas per conversation, a bit each */
    uint32_t consumed[DN1_HOST_PORTS_MAX] = { 0 };
    int failures_before = check_failures;

    if (k > 1) {
        start(k);
    }
    srand(seed);
    printf("random_packets_stay_inside (K %u): SEED=%u\n", k, seed);
    for (unsigned s = 0; s < n_set; s++) {
        setup_sender_p(cv[s].port, cv[s].addr, 0x1000 * (s + 1), 0x800);
        post_p(cv[s].port, cv[s].addr, 0x8000 + 0x1000 * (s % 4), 0x400);
        areas[s] = 1u << (s % 4);
    }
    for (int i = 0; i < 200000; i++) {
        unsigned src = (unsigned)rand() % n;
        unsigned c = conv(cv[src].port, cv[src].addr);
        if (cur[src].xoff == 0 && cur[src].mlen == 0) {
            cur[src].mlen = (uint32_t)rand() % (rand() % 8 ? 600 : 0x800) + 1;
            cur[src].utag = (uint32_t)rand();
        }
        uint32_t rest = cur[src].mlen - cur[src].xoff;
        uint16_t len = (uint16_t)(rand() % 464 + 1);
        struct dn1_hdr h = msg_pkt_p(cv[src].port, cv[src].addr, seq_of[c], cur[src].utag,
                                     cur[src].mlen, cur[src].xoff,
                                     (uint16_t)(len < rest ? len : rest));
        int mangled = 1;
        switch (rand() % 64) {
        case 0: h.seq = (uint16_t)rand(); break;
        case 1: h.xoff = (uint32_t)rand() % 4000; break;
        case 2: h.len = (uint16_t)(rand() % 2049); break;
        case 3: h.raddr = (uint64_t)rand() << 32 | (uint32_t)rand(); break;
        case 4: h.flags = (uint8_t)rand(); break;
        case 5: h.seq = (uint16_t)(seq_of[c] - 1 - rand() % 4); break;
        /* (K 1 draws none of these: its stream stays what it was.) */
        case 6: if (k > 1) { h.dst = (uint16_t)ADDR(ME, rand() % 4); } else { mangled = 0; } break;
        case 7: if (k > 1) { h.src = (uint16_t)ADDR(rand() % 3, rand() % 3); } else { mangled = 0; } break;
        default: mangled = 0; break;
        }
        struct fake_decision d = deliver(h);
        if (d.action == RX_NACK && d.nack_reason == DN1_NACK_INCARNATION) {
            /* Told to start over: a newer incarnation than any sent, the
             * message from its start, as the shim does. */
            uint8_t sent = DN1_MSG_INC(h.raddr);
            inc_of[c] = (uint8_t)(((int8_t)(sent - inc_of[c]) > 0 ? sent : inc_of[c]) + 1);
            seq_of[c] = 0;
            cur[src].xoff = cur[src].mlen = 0;
        }
        if (d.action == RX_CONTINUE) {
            /* The pair the packet names took it. */
            unsigned j = rconv_find(cv, n, dn1_addr_port(h.dst), h.src);
            uint64_t sys = 0x1000u * (j + 1);
            int in_user = 0;
            CHECK(j < n_set);
            for (unsigned a = 0; a < 4 && j < n_set; a++) {
                uint64_t usr = 0x8000u + 0x1000u * a;
                in_user |= (areas[j] >> a & 1) && d.raddr >= usr &&
                           d.raddr + d.len <= usr + 0x400;
            }
            CHECK((d.raddr >= sys && d.raddr + d.len <= sys + 0x800) || in_user);
            if (mangled && j < n_set) {
                /* The firmware took a mangled packet as the truth: start
                 * this conversation over, as a host would (newer than a
                 * mangled incarnation the firmware may have taken). */
                unsigned cj = conv(cv[j].port, cv[j].addr);
                inc_of[cj] = DN1_MSG_INC(h.raddr);
                setup_sender_p(cv[j].port, cv[j].addr, 0x1000 * (j + 1), 0x800);
                freed[j] = 0;     /* notices of the old setup free nothing now */
                cur[j].xoff = cur[j].mlen = 0;
            } else if (!mangled) {
                seq_of[c]++;
                cur[src].xoff += h.len;
                if (cur[src].xoff >= cur[src].mlen) {
                    cur[src].xoff = cur[src].mlen = 0;
                }
            }
        }
        if (rand() % 16 == 0) {           /* each port's host consumes every notice */
            for (unsigned p = 0; p < k; p++) {
                for (; consumed[p] != produced_p(p); consumed[p]++) {
                    struct dn1_msg_notice no = notice_p(p, consumed[p]);
                    unsigned j = rconv_find(cv, n_set, p, no.src);
                    /* A message's notice names a pair of its port. */
                    CHECK(j < n_set || no.src == DN1_NOTICE_NO_SENDER);
                    if (j < n_set && !(no.flags & DN1_NOTICE_USER) &&
                        no.setup_gen == (uint16_t)fake_nic_get_u32(
                                            SLOTPW(p, no.src, setup_gen))) {
                        freed[j] += no.span;
                        fake_nic_put_u32(SLOTPW(p, no.src, freed), freed[j]);
                    }
                }
                fake_nic_put_u32(CTRLPW(p, nq_consumed), consumed[p]);
            }
        }
        if (rand() % 256 == 0) {
            unsigned s = (unsigned)rand() % n_set, a = (unsigned)rand() % 4;
            post_p(cv[s].port, cv[s].addr, 0x8000 + 0x1000 * a, 0x400);
            areas[s] |= 1u << a;
        }
        if (check_failures != failures_before) {
            fprintf(stderr, "packet %d: port %u src 0x%x seq %u xoff %u len %u raddr 0x%llx "
                    "-> 0x%llx\n", i, dn1_addr_port(h.dst), h.src, h.seq, h.xoff, h.len,
                    (unsigned long long)h.raddr, (unsigned long long)d.raddr);
            break;
        }
    }
    printf("random_packets_stay_inside (K %u): %u messages delivered, %u into user buffers\n",
           k, fwstats_get(DN1_FWST_MSG_DELIVERED), fwstats_get(DN1_FWST_MSG_USER));
    CHECK(fwstats_get(DN1_FWST_MSG_DELIVERED) > 1000);
    CHECK(fwstats_get(DN1_FWST_MSG_USER) > 10);
}

static void t_random_packets_stay_inside(void)
{
    static const struct rconv cv[] = { { 0, 0 }, { 0, 1 }, { 0, 2 }, { 0, 3 }, { 0, 4 } };

    random_stay_inside(1, cv, 4, 5);
}

/* Two ports, each receiving from nodes 0 and 1 (ports 0 and 1 of node 0,
 * port 0 of node 1): six pairs set up; a sender never set up, and node 16,
 * which is no sender with K = 2. */
static void t_random_packets_stay_inside_ports(void)
{
    static const struct rconv cv[] = {
        { 0, ADDR(0, 0) }, { 0, ADDR(0, 1) }, { 0, ADDR(1, 0) },
        { 1, ADDR(0, 0) }, { 1, ADDR(0, 1) }, { 1, ADDR(1, 0) },
        { 0, ADDR(2, 0) }, { 1, ADDR(16, 0) },
    };

    random_stay_inside(2, cv, 6, 8);
}

/*
 * Two host ports (contract 1.29): port p has its control block at 0x1200 +
 * 32 p and slots from 0x1300 + 32 (p * 32 + s); sender node n port q is s
 * = 2 n + q. Ports 0 and 1 of node 3 send to both ports of this board:
 * four conversations, each with its own buffer, f_seq and notices, the
 * notice's src the sender's address.
 */
static void t_ports_two(void)
{
    const unsigned a0 = ADDR(3, 0), a1 = ADDR(3, 1);

    start(2);
    CHECK_EQ(message_fast_senders, 0);                  /* every packet to C */
    CHECK_EQ(SLOTPW(1, a1, sysbuf_off), DN1_RADDR_LLCM + 0x1300 + 32 * (32 + 7));
    setup_sender_p(0, a0, 0x1000, 0x1000);
    setup_sender_p(0, a1, 0x2000, 0x1000);
    setup_sender_p(1, a0, 0x3000, 0x1000);
    setup_sender_p(1, a1, 0x4000, 0x1000);
    /* a0 -> port 0: a message half sent, f_seq 0 and 1 taken. */
    struct fake_decision d = deliver(msg_pkt_p(0, a0, 0, 1, 1000, 0, 464));
    CHECK_EQ(d.action, RX_CONTINUE);
    CHECK_EQ(d.raddr, 0x1000);
    CHECK_EQ(deliver(msg_pkt_p(0, a0, 1, 1, 1000, 464, 464)).raddr, 0x1000 + 464);
    seq_of[conv(0, a0)] = 2;
    /* Meanwhile the other three, each from f_seq 0 of its own. */
    uint64_t at = 0;
    CHECK_EQ(send_msg_p(1, a1, 2, 100, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x4000);
    CHECK_EQ(send_msg_p(1, a0, 3, 200, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x3000);
    /* a0's f_seq 2, next to port 0, is a gap to port 1 (which expects 1). */
    CHECK_EQ(deliver(msg_pkt_p(1, a0, 2, 9, 8, 0, 8)).nack_reason, DN1_NACK_SEQUENCE);
    CHECK_EQ(send_msg_p(0, a1, 4, 50, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x2000);
    CHECK_EQ(produced_p(0), 1);
    CHECK_EQ(produced_p(1), 2);
    /* a0's message to port 0 goes on where it stood. */
    d = deliver(msg_pkt_p(0, a0, seq_of[conv(0, a0)]++, 1, 1000, 928, 72));
    CHECK_EQ(d.action, RX_CONTINUE);
    CHECK_EQ(d.raddr, 0x1000 + 928);
    CHECK_EQ(produced_p(0), 2);
    /* Each port's notices in its own queue, numbered from 0. */
    struct dn1_msg_notice no = notice_p(1, 0);
    CHECK_EQ(no.src, a1);
    CHECK_EQ(no.utag, 2);
    CHECK_EQ(no.addr, 0x4000);
    CHECK_EQ(no.index, 0);
    no = notice_p(1, 1);
    CHECK_EQ(no.src, a0);
    CHECK_EQ(no.addr, 0x3000);
    CHECK_EQ(no.index, 1);
    no = notice_p(0, 0);
    CHECK_EQ(no.src, a1);
    CHECK_EQ(no.addr, 0x2000);
    CHECK_EQ(no.index, 0);
    no = notice_p(0, 1);
    CHECK_EQ(no.src, a0);
    CHECK_EQ(no.len, 1000);
    CHECK_EQ(no.addr, 0x1000);
    CHECK_EQ(no.index, 1);
    /* Each slot's f_seq and count its own. */
    CHECK_EQ(fake_nic_get_u32(SLOTPW(0, a0, post_taken)) >> 16, 3);
    CHECK_EQ(fake_nic_get_u32(SLOTPW(0, a1, post_taken)) >> 16, 1);
    CHECK_EQ(fake_nic_get_u32(SLOTPW(1, a0, post_taken)) >> 16, 1);
    CHECK_EQ(fake_nic_get_u32(SLOTPW(1, a1, post_taken)) >> 16, 1);
    CHECK_EQ(fake_nic_get_u32(SLOTPW(1, a1, delivered)), 1);
    /* A post is for its pair only. */
    post_p(1, a1, 0x6000, 64);
    CHECK_EQ(send_msg_p(0, a1, 5, 8, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x2000 + 56);
    CHECK_EQ(send_msg_p(1, a1, 6, 8, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x6000);
    CHECK_EQ(notice_p(1, 2).flags, DN1_NOTICE_USER);
    /* Port 1's host gone: port 1 refuses, port 0 goes on. */
    fake_nic_put_u32(CTRLPW(1, enable), 0);
    CHECK_EQ(send_msg_p(1, a0, 7, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    CHECK_EQ(send_msg_p(0, a0, 7, 8, 464, NULL).action, RX_CONTINUE);
    CHECK_EQ(produced_p(0), 4);
    CHECK_EQ(produced(), 4);
}

/* Who is a sender, with K ports: nodes below 64 / K^2 on ports below K;
 * a packet to a port the board does not have is refused too (the
 * hardware delivers none, the firmware does not count on it). */
static void t_ports_senders(void)
{
    start(2);
    /* Node 8 port 0 is sender 16 (slot 16 of port 0, the slot node 16
     * had with one port): its setup is no door for node 16. */
    setup_sender_p(0, ADDR(8, 0), 0x1000, 0x1000);
    CHECK_EQ(SLOTPW(0, ADDR(8, 0), setup_gen), SLOTW(16, setup_gen));
    CHECK_EQ(send_msg_p(0, ADDR(16, 0), 1, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    CHECK_EQ(send_msg_p(0, ADDR(8, 2), 1, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    CHECK_EQ(send_msg_p(0, ADDR(8, 0), 1, 8, 464, NULL).action, RX_CONTINUE);
    /* The last sender of port 1's share (node 15, port 1: entry 63). */
    setup_sender_p(1, ADDR(15, 1), 0x2000, 0x1000);
    CHECK_EQ(SLOTPW(1, ADDR(15, 1), setup_gen), SLOTW(63, setup_gen));
    CHECK_EQ(send_msg_p(1, ADDR(15, 1), 2, 8, 464, NULL).action, RX_CONTINUE);
    CHECK_EQ(notice_p(1, 0).src, ADDR(15, 1));
    /* Port 2 of this board: none, whatever its block says. */
    enable_queue_p(2, NQ_N);
    struct dn1_hdr h = msg_pkt_p(1, ADDR(15, 1), 0, 3, 8, 0, 8);
    h.dst = (uint16_t)ADDR(ME, 2);
    CHECK_EQ(deliver(h).nack_reason, DN1_NACK_NO_BUFFER);
    h.dst = (uint16_t)ADDR(ME, 15);
    CHECK_EQ(deliver(h).nack_reason, DN1_NACK_NO_BUFFER);
    CHECK_EQ(fwstats_get(DN1_FWST_NACK_NO_BUFFER), 4);
    CHECK_EQ(fwstats_get(DN1_FWST_MSG_DELIVERED), 2);

    /* Four ports: nodes 0..3, 16 senders a port. */
    start(4);
    setup_sender_p(3, ADDR(3, 3), 0x1000, 0x1000);
    setup_sender_p(0, ADDR(0, 0), 0x2000, 0x1000);
    setup_sender_p(2, ADDR(1, 2), 0x3000, 0x1000);
    setup_sender_p(2, ADDR(1, 1), 0x4000, 0x1000);
    CHECK_EQ(SLOTPW(3, ADDR(3, 3), setup_gen), SLOTW(63, setup_gen));
    CHECK_EQ(SLOTPW(2, ADDR(1, 2), setup_gen), SLOTW(38, setup_gen));
    uint64_t at = 0;
    CHECK_EQ(send_msg_p(3, ADDR(3, 3), 1, 8, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x1000);
    CHECK_EQ(send_msg_p(0, ADDR(0, 0), 2, 8, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x2000);
    CHECK_EQ(send_msg_p(2, ADDR(1, 2), 3, 8, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x3000);
    CHECK_EQ(send_msg_p(2, ADDR(1, 1), 4, 8, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x4000);
    CHECK_EQ(produced_p(0), 1);
    CHECK_EQ(produced_p(1), 0);
    CHECK_EQ(produced_p(2), 2);
    CHECK_EQ(produced_p(3), 1);
    CHECK_EQ(notice_p(3, 0).src, ADDR(3, 3));
    CHECK_EQ(notice_p(2, 0).src, ADDR(1, 2));
    CHECK_EQ(notice_p(2, 1).src, ADDR(1, 1));
    CHECK_EQ(notice_p(0, 0).src, ADDR(0, 0));
    CHECK_EQ(send_msg_p(3, ADDR(4, 0), 5, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);

    /* Three ports: 21 slots a port, nodes 0..6; entry 63 is no port's, so
     * a packet to port 3 (none here) must not reach it, set up or not. */
    start(3);
    setup_sender_p(2, ADDR(6, 2), 0x1000, 0x1000);
    CHECK_EQ(SLOTPW(2, ADDR(6, 2), setup_gen), SLOTW(62, setup_gen));
    CHECK_EQ(send_msg_p(2, ADDR(6, 2), 1, 8, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x1000);
    CHECK_EQ(notice_p(2, 0).src, ADDR(6, 2));
    CHECK_EQ(send_msg_p(0, ADDR(7, 0), 2, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    enable_queue_p(3, NQ_N);
    fake_nic_put_u32(SLOTW(63, sysbuf_off), 0x2000);
    fake_nic_put_u32(SLOTW(63, sysbuf_size), 0x1000);
    fake_nic_put_u32(SLOTW(63, setup_gen), 1);
    h = msg_pkt_p(0, ADDR(0, 0), 0, 3, 8, 0, 8);
    h.dst = (uint16_t)ADDR(ME, 3);
    CHECK_EQ(deliver(h).nack_reason, DN1_NACK_NO_BUFFER);
    CHECK_EQ(produced_p(3), 0);
    CHECK_EQ(message_fast_senders, 0);
    /* Back to one port: the fast path serves every sender again. */
    start(1);
    CHECK_EQ(message_fast_senders, DN1_MSG_SENDERS);
}

/* A cold start is per port: a port whose host set up keeps its count and
 * gets its own RESTART notice, its senders refused NO_BUFFER until set up
 * again; a port with no host starts at 0 and posts nothing. */
static void t_ports_cold_start(void)
{
    const unsigned a = ADDR(2, 1);

    start(2);
    setup_sender_p(0, a, 0x1000, 0x1000);
    setup_sender_p(1, a, 0x2000, 0x1000);
    CHECK_EQ(send_msg_p(1, a, 1, 8, 464, NULL).action, RX_CONTINUE);
    CHECK_EQ(send_msg_p(1, a, 2, 8, 464, NULL).action, RX_CONTINUE);
    CHECK_EQ(send_msg_p(0, a, 3, 8, 464, NULL).action, RX_CONTINUE);
    fake_nic_put_u32(CTRLPW(0, enable), 0);            /* port 0's host gone */
    uint32_t cold0 = fwstats_get(DN1_FWST_MSG_COLD_STARTS);
    CHECK_EQ(message_init(), 0);
    CHECK_EQ(produced_p(1), 3);
    struct dn1_msg_notice no = notice_p(1, 2);
    CHECK_EQ(no.flags, DN1_NOTICE_RESTART);
    CHECK_EQ(no.src, DN1_NOTICE_NO_SENDER);
    CHECK_EQ(no.index, 2);
    CHECK_EQ(produced_p(0), 0);                         /* nothing there */
    CHECK_EQ(notice_p(0, 1).flags, 0);
    CHECK_EQ(fwstats_get(DN1_FWST_MSG_COLD_STARTS), cold0 + 1);
    /* Port 1's setup in force leads nowhere until set up again. */
    CHECK_EQ(send_msg_p(1, a, 4, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    setup_sender_p(1, a, 0x2000, 0x1000);
    uint64_t at = 0;
    CHECK_EQ(send_msg_p(1, a, 5, 8, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x2000);                               /* an empty ring */
    CHECK_EQ(notice_p(1, 3).index, 3);
    /* Port 0's host back, its setup as it was: it had no host when the
     * firmware started, so its setup is adopted. */
    enable_queue_p(0, NQ_N);
    seq_of[conv(0, a)] = 0;
    inc_of[conv(0, a)]++;
    CHECK_EQ(send_msg_p(0, a, 6, 8, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(produced_p(0), 1);
    CHECK_EQ(notice_p(0, 0).src, a);

    /* Both ports set up, port 1's queue full: port 0's notice at once,
     * port 1's at the first refusal of a port 1 sender that finds room. */
    start(2);
    enable_queue_p(1, 2);
    setup_sender_p(0, a, 0x1000, 0x1000);
    setup_sender_p(1, a, 0x2000, 0x1000);
    CHECK_EQ(send_msg_p(1, a, 1, 8, 464, NULL).action, RX_CONTINUE);
    CHECK_EQ(send_msg_p(1, a, 2, 8, 464, NULL).action, RX_CONTINUE);
    CHECK_EQ(message_init(), 0);
    CHECK_EQ(produced_p(0), 1);
    CHECK_EQ(notice_p(0, 0).flags, DN1_NOTICE_RESTART);
    CHECK_EQ(produced_p(1), 2);                         /* no room yet */
    fake_nic_put_u32(CTRLPW(1, nq_consumed), 2);
    CHECK_EQ(send_msg_p(0, a, 3, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    CHECK_EQ(produced_p(1), 2);                         /* not port 0's business */
    CHECK_EQ(produced_p(0), 1);
    CHECK_EQ(send_msg_p(1, a, 3, 8, 464, NULL).nack_reason, DN1_NACK_NO_BUFFER);
    CHECK_EQ(produced_p(1), 3);
    CHECK_EQ(fake_nic_get_u32(DN1_RADDR_LLCM + nq_off(1)), /* notice 2 of 2 entries */
             DN1_NOTICE_NO_SENDER | (uint32_t)DN1_NOTICE_RESTART << 16);
    /* Not handed over while port 1's senders wait to be set up again. */
    setup_sender_p(0, a, 0x1000, 0x1000);
    message_save();
    CHECK_EQ(message_init(), 0);
}

/* A handover under K = 2 carries both ports' notice counts and every
 * (port, sender)'s conversation; one made under another K is not taken. */
static void t_ports_handover(void)
{
    const unsigned a = ADDR(5, 0), b = ADDR(5, 1);

    start(2);
    setup_sender_p(0, a, 0x1000, 0x1000);
    setup_sender_p(1, b, 0x2000, 0x1000);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(send_msg_p(0, a, 1, 8, 464, NULL).action, RX_CONTINUE);
    }
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(send_msg_p(1, b, 2, 8, 464, NULL).action, RX_CONTINUE);
        fake_nic_put_u32(CTRLPW(1, nq_consumed), produced_p(1));
    }
    CHECK_EQ(deliver(msg_pkt_p(1, b, seq_of[conv(1, b)]++, 3, 1000, 0, 464)).action,
             RX_CONTINUE);
    message_save();
    /* The count is the record's, not what LLCM says. */
    fake_nic_put_u32(CTRLPW(1, nq_produced), 0x77);
    CHECK_EQ(message_init(), 1);
    for (uint32_t x = 464; x < 1000; x += 464) {
        uint16_t n = (uint16_t)(1000 - x < 464 ? 1000 - x : 464);
        struct fake_decision d = deliver(msg_pkt_p(1, b, seq_of[conv(1, b)]++, 3, 1000, x, n));
        CHECK_EQ(d.action, RX_CONTINUE);
        CHECK_EQ(d.raddr, 0x2000 + 5 * 8 + x);
    }
    CHECK_EQ(produced_p(1), 6);
    CHECK_EQ(notice_p(1, 5).index, 5);
    CHECK_EQ(notice_p(1, 5).len, 1000);
    CHECK_EQ(notice_p(1, 5).src, b);
    uint64_t at = 0;
    CHECK_EQ(send_msg_p(0, a, 4, 8, 464, &at).action, RX_CONTINUE);
    CHECK_EQ(at, 0x1000 + 3 * 8);
    CHECK_EQ(produced_p(0), 4);
    CHECK_EQ(notice_p(0, 3).index, 3);

    /* The record names its K: one made with two ports is no record for
     * a board of one, nor the other way round (a cold start each). */
    message_save();
    fake_host_ports = 1;
    CHECK_EQ(message_init(), 0);
    fake_nic_put_u32(CTRLW(nq_consumed), produced());
    message_save();
    fake_host_ports = 2;
    CHECK_EQ(message_init(), 0);
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
    { "ports_two", t_ports_two },
    { "ports_senders", t_ports_senders },
    { "ports_cold_start", t_ports_cold_start },
    { "ports_handover", t_ports_handover },
    { "random_packets_stay_inside_ports", t_random_packets_stay_inside_ports },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, NULL);
}
