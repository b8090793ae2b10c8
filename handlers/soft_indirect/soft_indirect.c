/*
 * "MP by soft indirect" (see soft_indirect.h). The paper's list, in order:
 * the DMA to the place the pointer names (RX_WRITE: the NIC writes the held
 * payload there and does not answer), flow control (the slot's capacity),
 * the LLCM write that tells the receiver a whole transfer has arrived (the
 * slot's `done`), and the ACK packet to the sender, all in software.
 *
 * f_seq (flag FSEQ) numbers a transfer's packets from its first packet's:
 * the first (offset 0) starts the count, a later packet must carry the
 * next number, an older one is a duplicate (ACKed again, not written) and
 * a newer one means one was lost (NACK SEQUENCE; the sender goes back).
 * Without FSEQ the firmware trusts the network's order and only counts
 * bytes, so a duplicate would be counted twice: what f_seq is for. Either
 * way a packet past offset 0 continues only a transfer in progress of the
 * same sender, slot and kind; one that continues nothing is refused.
 */
#include <stddef.h>
#include "soft_indirect.h"
#include "fwstats.h"
#include "hal/nicmem.h"
#include "hal/sram.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/soft_indirect.h"
#include "dimmnet1/barrier.h"

/* The ACK image lies past the barrier's part of chip SRAM. */
_Static_assert(DN1_SOFT_SRAM_ACK >= DN1_BAR_SRAM_LISTS + 64u * DN1_BAR_GROUPS &&
               DN1_SOFT_SRAM_ACK % 8 == 0, "chip SRAM layout");

#define SLOT(off, field) (DN1_RADDR_LLCM + (uint64_t)(off) + \
                          offsetof(struct dn1_soft_slot, field))

/*
 * Transfers, keyed by sender and slot (any node id, any slot): a set of
 * WAYS per hash of the key. A transfer's entry stays after it completes
 * (f_seq duplicates of its packets are still recognised) until its way is
 * needed; a new key takes a free way, else the one idle longest, ending a
 * transfer in progress only when all its set's are (counted; its next
 * packet is refused). 256 keys: 7 KiB of the firmware's data.
 */
#define SETS 64u
#define WAYS 4u

struct transfer {
    uint32_t slot;          /* LLCM offset of its slot */
    uint32_t total, got;    /* bytes of the transfer, bytes written */
    uint32_t stamp;         /* n_written when a packet of it was last written */
    uint16_t src;
    uint16_t first_seq, next_seq;
    uint8_t used;           /* the entry holds a key */
    uint8_t active, fseq;
};

static struct transfer transfers[SETS][WAYS];
static uint32_t n_written;  /* packets written: the idle order's clock */

/* What the packet being written commits once it is in memory (a refused
 * packet changes nothing). */
static struct {
    struct transfer *t;
    struct transfer start;  /* the transfer it starts, if start.used */
} pending;

void soft_indirect_init(void)
{
    for (unsigned i = 0; i < SETS; i++) {
        for (unsigned w = 0; w < WAYS; w++) {
            transfers[i][w] = (struct transfer){ 0 };
        }
    }
    n_written = 0;
}

static struct transfer *set_of(uint16_t src, uint32_t slot)
{
    /* Slots are 16-aligned; node ids and slots both mostly differ low. */
    return transfers[(src ^ src >> 6 ^ slot >> 4 ^ slot >> 10) & (SETS - 1)];
}

/* The key's entry, or NULL; *victim: where a new one of this key goes. */
static struct transfer *lookup(uint16_t src, uint32_t slot, struct transfer **victim)
{
    struct transfer *set = set_of(src, slot), *v = &set[0];

    for (unsigned w = 0; w < WAYS; w++) {
        struct transfer *t = &set[w];
        if (t->used && t->src == src && t->slot == slot) {
            *victim = t;
            return t;
        }
        /* Free before finished before in progress; then idle longest. */
        if (!t->used || (v->used && (t->active < v->active ||
            (t->active == v->active && n_written - t->stamp > n_written - v->stamp)))) {
            v = t;
        }
    }
    *victim = v;
    return NULL;
}

static enum rx_action refuse(struct rx_packet *p, uint8_t reason)
{
    fwstats_inc(DN1_FWST_SOFT_REFUSED);
    p->nack_reason = reason;
    return RX_NACK;
}

/* The ACK, from its image in chip SRAM (the hardware sends none). */
static void send_ack(const struct dn1_hdr *h)
{
    const uint32_t img = DN1_SOFT_SRAM_ACK;

    hal_sram_write32(img + 0, (uint32_t)DN1_PKT_VERSION << 24 |
                              (uint32_t)DN1_TYPE_ACK << 16);
    hal_sram_write32(img + 4, h->src);                     /* dst; the NIC sets src */
    hal_sram_write32(img + 8, h->seq);                     /* len 0 */
    hal_sram_write32(img + 12, h->tag);
    hal_sram_write32(img + 16, (uint32_t)(h->raddr >> 32));
    hal_sram_write32(img + 20, (uint32_t)h->raddr);
    hal_sram_write32(img + 24, h->xoff);
    if (hal_tx_send(img) != DN1_TX_RESULT_OK) {
        fwstats_inc(DN1_FWST_SOFT_TX_ERRORS);
    }
}

/* The NIC wrote the packet: count it, post the notice, answer. */
static void soft_indirect_written(const struct rx_packet *p)
{
    struct transfer *t = pending.t;
    uint32_t done;

    if (pending.start.used) {
        if (t->active && (t->src != pending.start.src || t->slot != pending.start.slot)) {
            fwstats_inc(DN1_FWST_SOFT_ENDED);      /* its way was the last free */
        }
        *t = pending.start;
    }
    t->got += p->hdr.len;
    t->next_seq++;
    t->stamp = ++n_written;
    fwstats_inc(DN1_FWST_SOFT_PACKETS);
    if (t->active && t->got >= t->total) {
        t->active = 0;
        if (hal_nic_read_u32(SLOT(t->slot, done), &done) == 0) {
            hal_nic_write_u32(SLOT(t->slot, done), done + 1);
        }
        fwstats_inc(DN1_FWST_SOFT_DONE);
    }
    send_ack(&p->hdr);
}

enum rx_action soft_indirect_handle(struct rx_packet *p)
{
    const struct dn1_hdr *h = &p->hdr;
    uint32_t off = DN1_SOFT_SLOT(h->raddr), total = DN1_SOFT_TOTAL(h->raddr);
    uint32_t capacity;
    uint64_t target;
    struct transfer *t, *way;
    int fseq = (h->flags & DN1_FLAG_FSEQ) != 0;

    if ((h->flags & (DN1_FLAG_OTF | DN1_FLAG_VA)) || !(h->flags & DN1_FLAG_ACK_REQ) ||
        h->dst >= DN1_MCAST_BASE) {
        return refuse(p, DN1_NACK_BAD_PATH);
    }
    /* The slot's words are the firmware's to write (its done count): only
     * where the hardware would take a remote write (not the NIC-reserved
     * part, not a host port's completion queue). */
    if (off < DN1_LLCM_NIC_RESERVED || (off & (DN1_SOFT_SLOT_ALIGN - 1)) ||
        off > DN1_LLCM_SIZE - sizeof(struct dn1_soft_slot) ||
        !hal_nic_may_write(DN1_RADDR_LLCM + off, sizeof(struct dn1_soft_slot)) ||
        hal_nic_read_u64(SLOT(off, target), &target) ||
        hal_nic_read_u32(SLOT(off, capacity), &capacity)) {
        return refuse(p, DN1_NACK_BAD_POINTER);
    }
    t = lookup(h->src, off, &way);
    if (fseq && t && t->fseq) {
        int16_t ahead = (int16_t)(h->seq - t->next_seq);

        if (ahead < 0 && (int16_t)(h->seq - t->first_seq) >= 0) {
            /* Landed already: answer again, write nothing (the
             * hardware's DONE would answer too; DISCARD does not). */
            fwstats_inc(DN1_FWST_SOFT_DUPLICATES);
            send_ack(h);
            return RX_DISCARD;
        }
        if (ahead != 0 && h->xoff != 0) {
            return refuse(p, DN1_NACK_SEQUENCE);
        }
    }
    pending.start.used = 0;
    if (h->xoff == 0) {
        pending.start = (struct transfer){ .slot = off, .total = total, .src = h->src,
                                           .first_seq = h->seq, .next_seq = h->seq,
                                           .used = 1, .active = 1, .fseq = (uint8_t)fseq };
    } else if (!t || !t->active || t->fseq != fseq) {
        /* Its first packet never came, or a NIC restart or a new
         * transfer ended it: it continues nothing. */
        return refuse(p, DN1_NACK_SEQUENCE);
    } else if (total != t->total || (fseq && h->xoff != t->got)) {
        return refuse(p, DN1_NACK_BAD_MESSAGE);
    }
    /* Flow control: inside the transfer and inside the slot's room. */
    if (h->len > total || h->xoff > total - h->len) {
        return refuse(p, DN1_NACK_BAD_MESSAGE);
    }
    if (h->len > capacity || h->xoff > capacity - h->len) {
        return refuse(p, DN1_NACK_TOO_LONG);
    }
    pending.t = way;
    p->raddr = target + h->xoff;
    p->written = soft_indirect_written;
    return RX_WRITE;
}
