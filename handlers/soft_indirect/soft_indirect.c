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
 * bytes, so a duplicate would be counted twice: what f_seq is for.
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
#define SENDERS 64u

struct transfer {
    uint32_t slot;          /* LLCM offset of its slot; 0: none yet */
    uint32_t total, got;    /* bytes of the transfer, bytes written */
    uint16_t first_seq, next_seq;
    uint8_t active, fseq;
};

static struct transfer transfers[SENDERS];

/* What the packet being written commits once it is in memory (a refused
 * packet changes nothing). */
static struct {
    struct transfer *t;
    struct transfer start;  /* the transfer it starts, if start.active */
} pending;

void soft_indirect_init(void)
{
    for (unsigned i = 0; i < SENDERS; i++) {
        transfers[i] = (struct transfer){ 0 };
    }
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

    if (pending.start.active) {
        *t = pending.start;     /* one in progress from this sender is dropped */
    }
    t->got += p->hdr.len;
    t->next_seq++;
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
    struct transfer *t;
    int fseq = (h->flags & DN1_FLAG_FSEQ) != 0;

    if ((h->flags & (DN1_FLAG_OTF | DN1_FLAG_VA)) || !(h->flags & DN1_FLAG_ACK_REQ) ||
        h->dst >= DN1_MCAST_BASE || h->src >= SENDERS) {
        return refuse(p, DN1_NACK_BAD_PATH);
    }
    if (off < DN1_LLCM_NIC_RESERVED || (off & (DN1_SOFT_SLOT_ALIGN - 1)) ||
        off > DN1_LLCM_SIZE - sizeof(struct dn1_soft_slot) ||
        hal_nic_read_u64(SLOT(off, target), &target) ||
        hal_nic_read_u32(SLOT(off, capacity), &capacity)) {
        return refuse(p, DN1_NACK_BAD_POINTER);
    }
    t = &transfers[h->src];
    if (fseq) {
        if (t->fseq && t->slot == off) {
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
        } else if (h->xoff != 0) {
            return refuse(p, DN1_NACK_SEQUENCE);   /* its first packet is missing */
        }
    }
    pending.start.active = 0;
    if (h->xoff == 0 || !t->active || t->slot != off) {
        if (fseq && h->xoff != 0) {
            return refuse(p, DN1_NACK_SEQUENCE);   /* a transfer's first is lost */
        }
        pending.start = (struct transfer){ .slot = off, .total = total,
                                           .first_seq = h->seq, .next_seq = h->seq,
                                           .active = 1, .fseq = (uint8_t)fseq };
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
    pending.t = t;
    p->raddr = target + h->xoff;
    p->written = soft_indirect_written;
    return RX_WRITE;
}
