/*
 * Message exchange (see message.h). Paper, "message exchange on indirect
 * write": step 3 reads the sender's slot, step 4 NACKs when its system
 * buffer is full, step 5 moves from a used user buffer to the system
 * buffer's free space, step 6 rewrites the address and continues, step 7 is
 * the hardware's write and ACK. The receive notice (after the last byte) and
 * f_seq ordering are this model's additions for MPI (issue 8).
 *
 * The firmware keeps each sender's state in local memory and trusts nothing
 * it reads back from LLCM: host-written words are checked on every use.
 */
#include <stddef.h>
#include "message.h"
#include "fast_path.h"
#include "fwstats.h"
#include "hal/martini.h"
#include "hal/nicmem.h"
#include "hal/sram.h"
#include "dimmnet1/packet_codec.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/message.h"
#include "dimmnet1/shared_mem.h"
#include "dimmnet1/fw_types.h"

/* LLCM offsets (hal_llcm_read32/write32: the firmware's fixed places).
 * Receiving port p's control block; the slot of table entry g = p * share
 * + sender, which is port p's slot of that sender (dn1_llcm_msg_slot). */
#define CTRL(p, field)    (dn1_llcm_msg_ctrl(p) + offsetof(struct dn1_msg_ctrl, field))
#define SLOT(g, field)    (DN1_LLCM_MSG_SLOTS + sizeof(struct dn1_msg_slot) * (g) + \
                           offsetof(struct dn1_msg_slot, field))
/* The u16 pairs as the 32-bit words they share (little-endian). */
#define SLOT_GENS(g)      SLOT(g, setup_gen)       /* setup_gen | post_gen << 16 */
#define SLOT_FW(g)        SLOT(g, post_taken)      /* post_taken | next_seq << 16 */
#define NOTICE_WORDS      (sizeof(struct dn1_msg_notice) / 4)

/* The fields up to `base` are shared with the assembly fast path for the
 * packets in the middle of a message (fast_path.S; offsets checked below). */
struct sender {
    uint16_t setup_gen;     /* the host's setup taken over; 0: none */
    uint16_t next_seq;      /* f_seq of the next packet to write */
    uint16_t post_taken;
    uint8_t active, user;   /* the message in progress: ... */
    uint32_t utag;
    uint32_t env;           /* its envelope's low word: incarnation << 24 | length */
    uint32_t got, base, span;
    uint32_t sysbuf_off, sysbuf_size;
    uint32_t alloc;         /* ring bytes handed out (wraps, like the host's freed) */
    uint32_t pos;           /* where the next ring entry starts, < sysbuf_size */
    uint32_t delivered;
    /* The conversation: packets of incarnation inc are taken while open. A
     * new setup closes it; a newer incarnation's f_seq 0 opens the next. */
    uint8_t inc, known, open;   /* known: inc is one seen since boot */
    uint16_t prev_post_taken;   /* before the message in progress took ... */
    uint32_t prev_pos;          /* ... its place: what abandoning it restores */
} __attribute__((aligned(1 << FP_SENDER_SHIFT)));

/* Global for fast_path.S only. Entry g = receiving port * share + sender
 * number (dn1_msg_sender): with one port, the sender's address. */
struct sender message_senders[DN1_MSG_SENDERS];

/* The board's host ports K (read once: it never changes while the board
 * runs) and each port's share of the table. */
static unsigned msg_ports = 1, msg_share = DN1_MSG_SENDERS;

/* For fast_path.S: it takes packets from addresses below this. It indexes
 * the table by src and knows port 0 only, so 0 (none) unless K = 1. */
uint32_t message_fast_senders;

_Static_assert(sizeof(struct sender) == 1u << FP_SENDER_SHIFT &&
               offsetof(struct sender, setup_gen) == FP_S_SETUP_GEN &&
               offsetof(struct sender, next_seq) == FP_S_NEXT_SEQ &&
               offsetof(struct sender, post_taken) == FP_S_POST_TAKEN &&
               offsetof(struct sender, active) == FP_S_ACTIVE &&
               offsetof(struct sender, utag) == FP_S_UTAG &&
               offsetof(struct sender, env) == FP_S_ENV &&
               offsetof(struct sender, got) == FP_S_GOT &&
               offsetof(struct sender, base) == FP_S_BASE, "struct sender");
_Static_assert(DN1_MSG_SENDERS == FP_MSG_SENDERS &&
               DN1_LLCM_MSG_CTRL + offsetof(struct dn1_msg_ctrl, enable) ==
               FP_MSG_CTRL_ENABLE &&
               DN1_MSG_ENABLE == ((uint32_t)FP_MSG_ENABLE_HI << 16 | FP_MSG_ENABLE_LO) &&
               DN1_LLCM_MSG_SLOTS == FP_MSG_SLOTS &&
               sizeof(struct dn1_msg_slot) == 1u << FP_MSG_SLOT_SHIFT &&
               offsetof(struct dn1_msg_slot, setup_gen) == FP_MSG_SLOT_GENS &&
               offsetof(struct dn1_msg_slot, post_gen) == FP_MSG_SLOT_GENS + 2 &&
               offsetof(struct dn1_msg_slot, post_taken) == FP_MSG_SLOT_FW &&
               offsetof(struct dn1_msg_slot, next_seq) == FP_MSG_SLOT_FW + 2,
               "LLCM message layout");
_Static_assert((DN1_PKT_VERSION << 8 | DN1_TYPE_MESSAGE) == FP_MSG_VERSION_TYPE &&
               (DN1_FLAG_OTF | DN1_FLAG_VA | DN1_FLAG_ACK_REQ) << 8 == FP_MSG_FLAGS_MASK &&
               DN1_FLAG_ACK_REQ << 8 == FP_MSG_FLAGS_WANT &&
               DN1_MCAST_BASE == 0xff00u &&
               4 * DN1_FWST_MSG_PACKETS == FP_MSG_PACKETS_STAT &&
               DN1_REG_RX_HDR1 == FP_RX_HDR1 && DN1_REG_RX_HDR2 == FP_RX_HDR2 &&
               DN1_REG_RX_CMD_RESULT == FP_RX_CMD_RESULT &&
               DN1_RX_RESULT_OK == 0, "message packet and registers");
static uint32_t nq_produced[DN1_HOST_PORTS_MAX];     /* per receiving port */

/* What the packet being continued commits once it is written. */
static struct {
    struct sender *s;
    uint16_t src;           /* the sender's address, for the notice */
    uint8_t port, g;        /* the receiving port; the table entry */
    uint8_t first, last, user;
    uint16_t post_gen;
    uint32_t base, span, pos;
    uint32_t notice;        /* LLCM offset of the notice to post, if last */
} pending;

static enum rx_action refuse(struct rx_packet *p, uint8_t reason, unsigned stat)
{
    fwstats_inc(stat);
    p->nack_reason = reason;
    return RX_NACK;
}

static void publish(unsigned g, const struct sender *s)
{
    hal_llcm_write32(SLOT_FW(g), s->post_taken | (uint32_t)s->next_seq << 16);
    hal_llcm_write32(SLOT(g, delivered), s->delivered);
}

/*
 * The handover record in chip SRAM (docs/hardware.md section 10): magic,
 * layout, K, the notice count of each port, the sender table word for word,
 * CRC-32 of all before it. The layout names this struct sender: firmware
 * whose table differs finds no record of its own and starts over; so does
 * one under another K, whose table entries name other senders.
 */
#define HO(off)            (DN1_MSG_SRAM_HANDOVER + (off))
#define HO_LAYOUT          (3u << 24 | (uint32_t)sizeof(struct sender) << 8 | \
                            DN1_MSG_SENDERS)
#define HO_PORTS           8
#define HO_NQ(p)           (12 + 4 * (p))
#define HO_TABLE           HO_NQ(DN1_HOST_PORTS_MAX)
#define HO_WORDS           (sizeof(message_senders) / 4)
#define HO_CRC_OFF         (HO_TABLE + 4 * HO_WORDS)
_Static_assert(HO_CRC_OFF + 4 <= DN1_MSG_SRAM_HANDOVER_SIZE, "handover record");

static uint32_t crc_word(uint32_t crc, uint32_t w)
{
    uint8_t b[4];

    dn1_put_be32(b, w);
    return dn1_crc32_update(crc, b, 4);
}

/* The CRC of the record's words before the sender table. */
static uint32_t crc_head(uint32_t ports, const uint32_t nq[DN1_HOST_PORTS_MAX])
{
    uint32_t crc = crc_word(crc_word(crc_word(0, DN1_MSG_HANDOVER_MAGIC), HO_LAYOUT),
                            ports);

    for (unsigned p = 0; p < DN1_HOST_PORTS_MAX; p++) {
        crc = crc_word(crc, nq[p]);
    }
    return crc;
}

/*
 * A cold start under a host that set up (docs/hardware.md section 10,
 * "Restarts"): the setups in force when it came (cold_gens) lead nowhere,
 * since where the ring stood is lost, so their senders are refused
 * NO_BUFFER until the host sets up again; the host learns of it from a
 * RESTART notice, which waits for room in its queue if need be. Each
 * receiving port has its own host, so all of it is per port.
 */
static uint16_t cold_gens[DN1_MSG_SENDERS];
static uint8_t restart_notice_due[DN1_HOST_PORTS_MAX];
static uint32_t notice_slot_free(unsigned port);

static void post_restart_notice(unsigned port)
{
    uint32_t at = notice_slot_free(port);

    if (!restart_notice_due[port] || !at) {
        return;
    }
    for (unsigned i = 0; i < NOTICE_WORDS; i++) {
        hal_llcm_write32(at + 4 * i, i == 0 ? DN1_NOTICE_NO_SENDER |
                                     (uint32_t)DN1_NOTICE_RESTART << 16
                                   : i == 6 ? nq_produced[port] : 0);
    }
    hal_llcm_write32(CTRL(port, nq_produced), ++nq_produced[port]);
    restart_notice_due[port] = 0;
    fwstats_inc(DN1_FWST_MSG_COLD_STARTS);
}

void message_save(void)
{
    const uint32_t *w = (const uint32_t *)(const void *)message_senders;
    uint32_t crc = crc_head(msg_ports, nq_produced);

    /* A cold start the host has not set up after yet is not handed over:
     * the next firmware starts cold too, and tells the host again. */
    int cold = 0;
    for (unsigned p = 0; p < DN1_HOST_PORTS_MAX; p++) {
        cold |= restart_notice_due[p];
    }
    for (unsigned g = 0; g < DN1_MSG_SENDERS; g++) {
        cold |= cold_gens[g] != 0;
    }
    if (cold) {
        hal_sram_write32(HO(0), 0);
        return;
    }

    hal_sram_write32(HO(4), HO_LAYOUT);
    hal_sram_write32(HO(HO_PORTS), msg_ports);
    for (unsigned p = 0; p < DN1_HOST_PORTS_MAX; p++) {
        hal_sram_write32(HO(HO_NQ(p)), nq_produced[p]);
    }
    for (unsigned i = 0; i < HO_WORDS; i++) {
        hal_sram_write32(HO(HO_TABLE + 4 * i), w[i]);
        crc = crc_word(crc, w[i]);
    }
    hal_sram_write32(HO(HO_CRC_OFF), crc);
    hal_sram_write32(HO(0), DN1_MSG_HANDOVER_MAGIC);     /* valid from here */
}

/* Take the record once (it is invalidated): 1 if there was a good one.
 * The table is read straight into place; a bad record leaves it to
 * message_init's cold start, which writes every sender anew. */
static int resume(void)
{
    uint32_t *w = (uint32_t *)(void *)message_senders;
    uint32_t nq[DN1_HOST_PORTS_MAX], ports, crc;

    if (hal_sram_read32(HO(0)) != DN1_MSG_HANDOVER_MAGIC ||
        hal_sram_read32(HO(4)) != HO_LAYOUT) {
        return 0;
    }
    hal_sram_write32(HO(0), 0);
    ports = hal_sram_read32(HO(HO_PORTS));
    for (unsigned p = 0; p < DN1_HOST_PORTS_MAX; p++) {
        nq[p] = hal_sram_read32(HO(HO_NQ(p)));
    }
    crc = crc_head(ports, nq);
    for (unsigned i = 0; i < HO_WORDS; i++) {
        w[i] = hal_sram_read32(HO(HO_TABLE + 4 * i));
        crc = crc_word(crc, w[i]);
    }
    if (crc != hal_sram_read32(HO(HO_CRC_OFF)) || ports != msg_ports) {
        return 0;
    }
    for (unsigned p = 0; p < DN1_HOST_PORTS_MAX; p++) {
        nq_produced[p] = nq[p];
    }
    for (unsigned g = 0; g < DN1_MSG_SENDERS; g++) {
        publish(g, &message_senders[g]);
    }
    return 1;
}

int message_init(void)
{
    unsigned k = hal_host_ports();
    uint8_t host[DN1_HOST_PORTS_MAX] = { 0 };

    /* HOST_PORTS is 1..4: anything else is taken as the one port of old. */
    msg_ports = k - 1 < DN1_HOST_PORTS_MAX ? k : 1;
    msg_share = dn1_msg_share(msg_ports);
    message_fast_senders = msg_ports == 1 ? FP_MSG_SENDERS : 0;
    for (unsigned p = 0; p < DN1_HOST_PORTS_MAX; p++) {
        restart_notice_due[p] = 0;
        nq_produced[p] = 0;
    }
    for (unsigned g = 0; g < DN1_MSG_SENDERS; g++) {
        cold_gens[g] = 0;
    }
    if (resume()) {
        return 1;
    }
    /* Each port's host's notice count goes on where the firmware before
     * left it (its notices stay the host's to take), if it makes sense. */
    for (unsigned p = 0; p < msg_ports; p++) {
        uint32_t consumed = hal_llcm_read32(CTRL(p, nq_consumed));
        uint32_t produced = hal_llcm_read32(CTRL(p, nq_produced));

        host[p] = hal_llcm_read32(CTRL(p, enable)) == DN1_MSG_ENABLE &&
                  produced - consumed <= hal_llcm_read32(CTRL(p, nq_entries));
        nq_produced[p] = host[p] ? produced : 0;
    }
    for (unsigned g = 0; g < DN1_MSG_SENDERS; g++) {
        uint32_t gens = hal_llcm_read32(SLOT_GENS(g));
        unsigned p = g / msg_share;

        /* A post left from before this boot is not ours to take. */
        message_senders[g] = (struct sender){ .post_taken = (uint16_t)(gens >> 16) };
        cold_gens[g] = p < msg_ports && host[p] ? (uint16_t)gens : 0;
        publish(g, &message_senders[g]);
    }
    for (unsigned p = 0; p < msg_ports; p++) {
        hal_llcm_write32(CTRL(p, nq_produced), nq_produced[p]);
        restart_notice_due[p] = host[p];
        post_restart_notice(p);
    }
    return 0;
}

/* Take over the host's (re)setup of entry @g's system buffer (a sender of
 * @port): an empty ring, a partial message dropped, and the conversation
 * closed: the sender must start a newer incarnation (the new host may not
 * be the one it spoke to). */
static int adopt(struct sender *s, unsigned port, unsigned g, uint16_t gen)
{
    if (gen == cold_gens[g]) {
        post_restart_notice(port);      /* a setup from before a cold start */
        return -1;
    }
    cold_gens[g] = 0;

    uint32_t off = hal_llcm_read32(SLOT(g, sysbuf_off));
    uint32_t size = hal_llcm_read32(SLOT(g, sysbuf_size));
    uint32_t freed = hal_llcm_read32(SLOT(g, freed));

    if (((off | size) & (DN1_MSG_ALIGN - 1)) != 0 ||
        off > DN1_HOSTMEM_SIZE || size > DN1_HOSTMEM_SIZE - off) {
        return -1;
    }
    if (s->active) {
        fwstats_inc(DN1_FWST_MSG_ABANDONED);
    }
    *s = (struct sender){
        .setup_gen = gen, .post_taken = s->post_taken,
        .sysbuf_off = off, .sysbuf_size = size, .alloc = freed,
        .inc = s->inc, .known = s->known,
    };
    fwstats_inc(DN1_FWST_MSG_SETUPS);
    publish(g, s);
    return 0;
}

/* @s's conversation ends, taken over by incarnation @inc. A message it
 * left half-received is dropped and its place handed back (it is the
 * newest ring entry, or the post last taken), so nothing leaks; with no
 * message in progress the fast path takes nothing of an ended one. */
static void end_conversation(struct sender *s, uint8_t inc)
{
    if (s->active) {
        if (s->user) {
            s->post_taken = s->prev_post_taken;
        } else {
            s->alloc -= s->span;
            s->pos = s->prev_pos;
        }
        s->active = 0;
        fwstats_inc(DN1_FWST_MSG_ABANDONED);
    }
    s->inc = inc;
    s->known = 1;
    s->open = 0;
}

/* A newer incarnation of entry @g's sender starts its conversation: f_seq 0. */
static void start_incarnation(struct sender *s, unsigned g, uint8_t inc)
{
    end_conversation(s, inc);
    s->open = 1;
    s->next_seq = 0;
    fwstats_inc(DN1_FWST_MSG_INCARNATIONS);
    publish(g, s);
}

/* @port's notice queue, if its host set it up sanely and it has room: the
 * LLCM offset of the next notice (never 0: above the NIC's reserved part),
 * else 0. */
static uint32_t notice_slot_free(unsigned port)
{
    uint32_t off = hal_llcm_read32(CTRL(port, nq_off));
    uint32_t entries = hal_llcm_read32(CTRL(port, nq_entries));
    uint32_t consumed = hal_llcm_read32(CTRL(port, nq_consumed));

    if (entries == 0 || entries > DN1_MSG_NQ_MAX || (entries & (entries - 1)) ||
        (off & 31u) || off < DN1_LLCM_NIC_RESERVED ||
        off > DN1_LLCM_SIZE - entries * sizeof(struct dn1_msg_notice) ||
        nq_produced[port] - consumed >= entries) {
        return 0;
    }
    return off + (nq_produced[port] & (entries - 1)) * sizeof(struct dn1_msg_notice);
}

/*
 * First packet of a message of @mlen bytes: choose its place (steps 4-5);
 * @post_gen is the slot's, as the handler read it for this packet.
 * A posted user buffer that holds it takes it; one too small is left for a
 * later message. Else the ring: an entry that would run past the end starts
 * at the beginning, the skipped tail counted in its span.
 */
static enum rx_action place(struct rx_packet *p, struct sender *s,
                            unsigned g, uint32_t mlen, uint16_t post_gen)
{
    uint32_t freed, used, need, pad;

    if (post_gen != s->post_taken) {
        uint32_t post_off = hal_llcm_read32(SLOT(g, post_off));
        uint32_t post_len = hal_llcm_read32(SLOT(g, post_len));

        if (post_off > DN1_HOSTMEM_SIZE || post_len > DN1_HOSTMEM_SIZE - post_off) {
            /* A post outside receive memory is refused once and dropped,
             * so it cannot wedge the sender; the retry takes the ring. */
            s->post_taken = post_gen;
            publish(g, s);
            return refuse(p, DN1_NACK_BAD_POINTER, DN1_FWST_NACK_BAD_POINTER);
        }
        if (post_len >= mlen) {
            pending.user = 1;
            pending.post_gen = post_gen;
            pending.base = post_off;
            pending.span = 0;
            pending.pos = s->pos;
            return RX_CONTINUE;
        }
    }
    if (mlen > s->sysbuf_size) {
        return refuse(p, DN1_NACK_TOO_LONG, DN1_FWST_NACK_TOO_LONG);
    }
    freed = hal_llcm_read32(SLOT(g, freed));
    used = s->alloc - freed;
    if (used > s->sysbuf_size) {
        used = s->sysbuf_size;          /* nonsense from the host: full */
    }
    if (used == 0) {
        s->pos = 0;                     /* drained: the whole buffer is one piece */
    }
    need = (mlen + DN1_MSG_ALIGN - 1) & ~(DN1_MSG_ALIGN - 1);
    pad = need > s->sysbuf_size - s->pos ? s->sysbuf_size - s->pos : 0;
    if (pad + need > s->sysbuf_size - used) {
        return refuse(p, DN1_NACK_BUFFER_FULL, DN1_FWST_NACK_BUFFER_FULL);
    }
    pending.user = 0;
    pending.base = s->sysbuf_off + (pad ? 0 : s->pos);
    pending.span = pad + need;
    pending.pos = (pad ? 0 : s->pos) + need;
    if (pending.pos == s->sysbuf_size) {
        pending.pos = 0;
    }
    return RX_CONTINUE;
}

/* In @port's queue; its src is the sender's address, from which the host
 * finds the slot. */
static void post_notice(unsigned port, unsigned src, const struct sender *s)
{
    uint32_t n = pending.notice;

    /* Word by word as struct dn1_msg_notice lays them out (one store
     * each; an array on the stack cost a copy and a loop). */
    _Static_assert(NOTICE_WORDS == 8, "notice layout");
    hal_llcm_write32(n + 0, src | (uint32_t)(s->user ? DN1_NOTICE_USER : 0) << 16);
    hal_llcm_write32(n + 4, s->utag);
    hal_llcm_write32(n + 8, DN1_MSG_LEN(s->env));
    hal_llcm_write32(n + 12, s->base);
    hal_llcm_write32(n + 16, s->span);
    hal_llcm_write32(n + 20, s->delivered);
    hal_llcm_write32(n + 24, nq_produced[port]);
    hal_llcm_write32(n + 28, s->setup_gen);
    /* The notice is whole before the host can see it. */
    hal_llcm_write32(CTRL(port, nq_produced), ++nq_produced[port]);
}

/* The hardware wrote the packet (step 7): commit what the handler chose. */
static void message_written(const struct rx_packet *p)
{
    struct sender *s = pending.s;

    if (pending.first) {
        s->active = 1;
        s->user = pending.user;
        s->utag = DN1_MSG_UTAG(p->hdr.raddr);
        s->env = (uint32_t)p->hdr.raddr;
        s->prev_pos = s->pos;
        s->prev_post_taken = s->post_taken;
        s->got = 0;
        s->base = pending.base;
        s->span = pending.span;
        if (pending.user) {
            s->post_taken = pending.post_gen;
        } else {
            s->alloc += pending.span;
            s->pos = pending.pos;
        }
    }
    s->got += p->hdr.len;
    s->next_seq++;
    fwstats_inc(DN1_FWST_MSG_PACKETS);
    if (pending.last) {
        post_notice(pending.port, pending.src, s);
        s->active = 0;
        s->delivered++;
        fwstats_inc(DN1_FWST_MSG_DELIVERED);
        if (s->user) {
            fwstats_inc(DN1_FWST_MSG_USER);
        }
    }
    publish(pending.g, s);
}

enum rx_action message_handle(struct rx_packet *p)
{
    const struct dn1_hdr *h = &p->hdr;
    uint32_t mlen = DN1_MSG_LEN(h->raddr), gens;
    unsigned port = dn1_addr_port(h->dst), g;
    int sender;
    struct sender *s;
    int16_t ahead;
    uint8_t inc;

    /* Reliable delivery needs the ACK; OTF, VA and groups do not fit. */
    if ((h->flags & (DN1_FLAG_OTF | DN1_FLAG_VA)) || !(h->flags & DN1_FLAG_ACK_REQ) ||
        h->dst >= DN1_MCAST_BASE) {
        return refuse(p, DN1_NACK_BAD_PATH, DN1_FWST_NACK_BAD_PATH);
    }
    /* Step 3: the sender's slot in the receiving port's share, set up by
     * that port's host. The hardware delivers only to ports the board has;
     * the port check keeps g in the table whatever comes. */
    sender = dn1_msg_sender(h->src, msg_ports);
    g = port * msg_share + (unsigned)sender;
    if (sender < 0 || port >= msg_ports ||
        hal_llcm_read32(CTRL(port, enable)) != DN1_MSG_ENABLE ||
        (uint16_t)(gens = hal_llcm_read32(SLOT_GENS(g))) == 0) {
        return refuse(p, DN1_NACK_NO_BUFFER, DN1_FWST_NACK_NO_BUFFER);
    }
    s = &message_senders[g];
    if ((uint16_t)gens != s->setup_gen && adopt(s, port, g, (uint16_t)gens) != 0) {
        return refuse(p, DN1_NACK_NO_BUFFER, DN1_FWST_NACK_NO_BUFFER);
    }

    /* The conversation in force, or a newer incarnation's first packet
     * starting the next: anything else (an old incarnation's late packet, a
     * sender that spoke to a host set up anew) is told to start over. A
     * newer one's packet before its start ends what was: the sender starts
     * yet another, and its late start must not open this one after that. */
    inc = DN1_MSG_INC(h->raddr);
    if (!s->open || inc != s->inc) {
        int newer = !s->known || (int8_t)(inc - s->inc) > 0;
        if (!newer || h->seq != 0 || h->xoff != 0) {
            if (newer) {
                end_conversation(s, inc);
            }
            return refuse(p, DN1_NACK_INCARNATION, DN1_FWST_NACK_INCARNATION);
        }
        start_incarnation(s, g, inc);
    }

    /* f_seq: in order only; what landed already is ACKed again. */
    ahead = (int16_t)(h->seq - s->next_seq);
    if (ahead < 0 && ahead >= -(int16_t)DN1_MSG_WINDOW) {
        fwstats_inc(DN1_FWST_MSG_DUPLICATES);
        return RX_DONE;
    }
    if (ahead != 0) {
        return refuse(p, DN1_NACK_SEQUENCE, DN1_FWST_NACK_SEQUENCE);
    }

    /* The packet must continue its message where it stands. */
    if (s->active ? h->xoff != s->got || (uint32_t)h->raddr != s->env ||
                    DN1_MSG_UTAG(h->raddr) != s->utag
                  : h->xoff != 0) {
        return refuse(p, DN1_NACK_BAD_MESSAGE, DN1_FWST_NACK_BAD_MESSAGE);
    }
    if (h->len > mlen - h->xoff || (h->len == 0 && mlen != 0)) {
        return refuse(p, DN1_NACK_BAD_MESSAGE, DN1_FWST_NACK_BAD_MESSAGE);
    }
    pending.s = s;
    pending.src = h->src;
    pending.port = (uint8_t)port;
    pending.g = (uint8_t)g;
    pending.first = !s->active;
    pending.last = h->xoff + h->len == mlen;
    if (pending.last && !(pending.notice = notice_slot_free(port))) {
        return refuse(p, DN1_NACK_BUFFER_FULL, DN1_FWST_NACK_BUFFER_FULL);
    }
    if (pending.first) {
        enum rx_action a = place(p, s, g, mlen, (uint16_t)(gens >> 16));
        if (a != RX_CONTINUE) {
            return a;
        }
    } else {
        pending.base = s->base;
    }
    /* Step 6: aim at the chosen place and let the hardware write. */
    p->raddr = pending.base + h->xoff;
    p->written = message_written;
    return RX_CONTINUE;
}
