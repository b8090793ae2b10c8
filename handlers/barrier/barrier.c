/*
 * Counting barrier (see barrier.h; contract: docs/hardware.md section 11,
 * layouts: include/dimmnet1/barrier.h). The counter, the epoch and the set
 * of members counted live in on-chip SRAM, as the paper keeps them; the
 * group's set-up comes from its descriptor in LLCM, which only this node's
 * host can write.
 */
#include <stddef.h>
#include "barrier.h"
#include "barrier_paper.h"
#include "combine.h"
#include "dispatch.h"
#include "fwstats.h"
#include "hal/byteorder.h"
#include "hal/nicmem.h"
#include "hal/sram.h"
#include "dimmnet1/barrier.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet.h"

/* LLCM offsets of a group's descriptor words (hal_llcm_read32/write32). */
#define DESC(g, field) (DN1_LLCM_BAR_GROUPS + 32u * (g) + \
                        offsetof(struct dn1_bar_group, field))
/* The descriptor's word holding mode, mcast_group and setup_gen. */
#define DESC_MODE_WORD(g) DESC(g, mode)
#define CNT(g, w) (DN1_BAR_SRAM_COUNTERS + 32u * (g) + (w))

static unsigned popcount32(uint32_t v)
{
    unsigned n = 0;

    for (; v; v &= v - 1) {
        n++;
    }
    return n;
}

static uint32_t desc_u32(uint32_t off)
{
    return hal_llcm_read32(off);
}

/* Boot: forget every group's set-up, unless resuming after a host-asked
 * NIC restart (the counters in chip SRAM carry on where they were). */
void barrier_init(int resume)
{
    for (unsigned g = 0; g < DN1_BAR_GROUPS && !resume; g++) {
        hal_sram_write32(CNT(g, DN1_BAR_CNT_GEN), 0);
    }
}

void barrier_image_header(uint32_t off, uint16_t dst, uint16_t len, uint32_t done_off)
{
    hal_sram_write32(off + 0, 1u << 24 | (uint32_t)DN1_TYPE_PUSH << 16);
    hal_sram_write32(off + 4, dst);
    hal_sram_write32(off + 8, (uint32_t)len << 16);
    hal_sram_write32(off + 12, 0);                        /* tag */
    hal_sram_write32(off + 16, (uint32_t)(DN1_RADDR_LLCM >> 32));
    hal_sram_write32(off + 20, done_off);
    hal_sram_write32(off + 24, 0);                        /* xoff */
    hal_sram_write32(off + 28, 0);                        /* crc: the NIC's */
}

/* A completion image: a PUSH of 8 bytes to @dst's done word, the payload's
 * first word @word0, little-endian as the host reads it (this barrier
 * writes its epoch there at each release). */
void barrier_image(uint32_t off, uint16_t dst, uint32_t done_off, uint32_t word0)
{
    barrier_image_header(off, dst, DN1_BAR_DONE_BYTES, done_off);
    hal_sram_write32(off + 32, hal_swap32(word0));        /* epoch, at release; LE */
    hal_sram_write32(off + 36, 0);
}

/*
 * Take set-up @gen of group @g over: check the descriptor, build the
 * completion images, arm the counter for epoch 1. -1 if it is unusable (no
 * member, a done word outside the LLCM user area): nothing taken.
 */
static int take_setup(unsigned g, uint32_t gen, uint32_t mode_word)
{
    uint32_t lo = desc_u32(DESC(g, members_lo));
    uint32_t hi = desc_u32(DESC(g, members_hi));
    uint32_t done = desc_u32(DESC(g, done_off));
    uint32_t first = desc_u32(DESC(g, first_epoch));

    if ((lo | hi) == 0 || (done & (DN1_BAR_DONE_BYTES - 1)) ||
        done < DN1_LLCM_NIC_RESERVED || done > DN1_LLCM_SIZE - DN1_BAR_DONE_BYTES) {
        return -1;
    }
    barrier_paper_withdraw(g);   /* the images are this kind's now */
    uint32_t list = 0, k = 0;
    for (unsigned i = 0; i < DN1_BAR_MAX_NODE; i++) {
        if ((i < 32 ? lo >> i : hi >> (i - 32)) & 1u) {
            barrier_image(DN1_BAR_IMAGE(g, i), (uint16_t)i, done, 0);
            list = list << 8 | i;
            if ((++k & 3) == 0) {
                hal_sram_write32(DN1_BAR_MEMBER_LIST(g) + k - 4, list);
            }
        }
    }
    if (k & 3) {
        hal_sram_write32(DN1_BAR_MEMBER_LIST(g) + (k & ~3u), list << (8 * (4 - (k & 3))));
    }
    barrier_image(DN1_BAR_IMAGE(g, DN1_BAR_MCAST_IMAGE),
                  (uint16_t)(DN1_MCAST_BASE + (mode_word >> 8 & 0xffu)), done, 0);
    if (done <= DN1_LLCM_SIZE - DN1_BAR_COMB_DONE_BYTES) {
        comb_image_init(g, done);    /* a combining release's 16 bytes fit */
    }
    hal_sram_write32(CNT(g, DN1_BAR_CNT_MEMBERS_HI), hi);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_MEMBERS_LO), lo);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_SIZE), popcount32(lo) + popcount32(hi));
    hal_sram_write32(CNT(g, DN1_BAR_CNT_REMAINING), popcount32(lo) + popcount32(hi));
    first = first ? first : 1;
    hal_sram_write32(CNT(g, DN1_BAR_CNT_EPOCH), first);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_ARRIVED_HI), 0);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_ARRIVED_LO), 0);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_GEN), gen);
    hal_llcm_write32(DESC(g, taken_gen), gen);
    hal_llcm_write32(DESC(g, epoch), first);
    hal_llcm_write32(DESC(g, released), 0);
    fwstats_inc(DN1_FWST_BAR_SETUPS);
    return 0;
}

/* Send image @idx of group @g carrying @epoch. */
static void send_completion(unsigned g, unsigned idx, uint32_t epoch)
{
    uint32_t off = DN1_BAR_IMAGE(g, idx);

    hal_sram_write32(off + 32, hal_swap32(epoch));   /* the host reads it little-endian */
    if (hal_tx_send(off) != DN1_TX_RESULT_OK) {
        fwstats_inc(DN1_FWST_BAR_TX_ERRORS);
    }
}

static enum rx_action refuse(struct rx_packet *p, uint8_t reason, unsigned stat)
{
    fwstats_inc(stat);
    p->nack_reason = reason;
    return RX_NACK;
}

enum rx_action barrier_handle(struct rx_packet *p)
{
    const struct dn1_hdr *h = &p->hdr;

    /* Step 1's packet: one host store to the counter (AOTF), or any
     * packet of 4 bytes or more; never to a group, never a VA. A
     * combining arrival (raddr DN1_BAR_COMB_RADDR) is 8 bytes of value,
     * its epoch in the raddr. */
    int comb = (h->raddr & DN1_BAR_COMB_FLAG) != 0;
    if ((h->flags & DN1_FLAG_VA) || h->dst >= DN1_MCAST_BASE ||
        h->len < (comb ? DN1_BAR_COMB_PAYLOAD : DN1_BAR_MIN_PAYLOAD)) {
        return refuse(p, DN1_NACK_BAD_PATH, DN1_FWST_NACK_BAD_PATH);
    }
    unsigned g;
    if (comb) {
        if (h->raddr >= DN1_BAR_COMB_RADDR_END || (h->raddr & 7u) ||
            (h->raddr >> DN1_BAR_COMB_GROUP_SHIFT & 0x1fu) >= DN1_BAR_GROUPS) {
            return refuse(p, DN1_NACK_BARRIER_SETUP, DN1_FWST_NACK_BAR_SETUP);
        }
        g = (unsigned)(h->raddr >> DN1_BAR_COMB_GROUP_SHIFT) & (DN1_BAR_GROUPS - 1u);
    } else {
        if (h->raddr >= DN1_BAR_RADDR(DN1_BAR_GROUPS) || (h->raddr & 31u)) {
            return refuse(p, DN1_NACK_BARRIER_SETUP, DN1_FWST_NACK_BAR_SETUP);
        }
        g = (unsigned)(h->raddr >> 5);
    }

    /* The set-up in force: a new one from the host is taken over now. */
    uint32_t mode_word = desc_u32(DESC_MODE_WORD(g));
    uint32_t gen = mode_word >> 16;
    uint32_t gen_word = hal_sram_read32(CNT(g, DN1_BAR_CNT_GEN));
    if (gen != (gen_word & 0xffffu)) {
        if (gen == 0 || take_setup(g, gen, mode_word) != 0) {
            hal_sram_write32(CNT(g, DN1_BAR_CNT_GEN), 0);   /* withdrawn or unusable */
            return refuse(p, DN1_NACK_BARRIER_SETUP, DN1_FWST_NACK_BAR_SETUP);
        }
        gen_word = gen;
    } else if (gen == 0) {
        return refuse(p, DN1_NACK_BARRIER_SETUP, DN1_FWST_NACK_BAR_SETUP);
    }
    /* A combining group takes combining arrivals only, whose done words
     * have room for the result; a plain one plain arrivals. */
    unsigned mode = mode_word & 0xffu;
    if (comb != !!(mode & DN1_BAR_MODE_COMBINE) ||
        (comb && desc_u32(DESC(g, done_off)) > DN1_LLCM_SIZE - DN1_BAR_COMB_DONE_BYTES)) {
        return refuse(p, DN1_NACK_BARRIER_SETUP, DN1_FWST_NACK_BAR_SETUP);
    }

    /* Only members count; the bit of this one, for the arrival set. */
    unsigned src = h->src;
    uint32_t word = src < 32 ? DN1_BAR_CNT_MEMBERS_LO : DN1_BAR_CNT_MEMBERS_HI;
    uint32_t bit = 1u << (src & 31u);
    if (src >= DN1_BAR_MAX_NODE || !(hal_sram_read32(CNT(g, word)) & bit)) {
        return refuse(p, DN1_NACK_BARRIER_MEMBER, DN1_FWST_NACK_BAR_MEMBER);
    }

    uint32_t epoch = comb ? (uint32_t)(h->raddr >> 3) : hal_swap32(hal_rx_payload32(0));
    uint32_t counting = hal_sram_read32(CNT(g, DN1_BAR_CNT_EPOCH));
    if (epoch != counting) {
        if (epoch != counting - 1 || !(gen_word & DN1_BAR_CNT_RELEASED_ONCE)) {
            return refuse(p, DN1_NACK_BARRIER_EPOCH, DN1_FWST_NACK_BAR_EPOCH);
        }
        /* Released already: this member missed its completion. */
        dispatch_release(p, RX_DONE);
        if (comb) {
            comb_send(g, (uint16_t)src);
        } else {
            send_completion(g, src, epoch);
        }
        fwstats_inc(DN1_FWST_BAR_RESENT);
        return RX_RELEASED;
    }
    uint32_t arrived_off = CNT(g, src < 32 ? DN1_BAR_CNT_ARRIVED_LO : DN1_BAR_CNT_ARRIVED_HI);
    uint32_t arrived = hal_sram_read32(arrived_off);
    uint32_t w0 = 0, w1 = 0, remaining = 0, first = 0;
    unsigned opt = 0;
    if (comb) {
        /* The epoch's first arrival fixes its op and type; another op or
         * type belongs to no combination counted here. */
        opt = (unsigned)(h->raddr >> DN1_BAR_COMB_OPT_SHIFT) & 0x3fu;
        remaining = hal_sram_read32(CNT(g, DN1_BAR_CNT_REMAINING));
        first = remaining == hal_sram_read32(CNT(g, DN1_BAR_CNT_SIZE));
        if (!(arrived & bit) && !comb_opt_ok(g, (int)first, opt)) {
            return refuse(p, DN1_NACK_BARRIER_EPOCH, DN1_FWST_NACK_BAR_EPOCH);
        }
        w0 = hal_rx_payload32(0);    /* the value, before the packet is handed back */
        w1 = hal_rx_payload32(4);
    }

    /* Step 3: the core IDLE; the pipeline moves on while we count. */
    dispatch_release(p, RX_DONE);
    if (arrived & bit) {
        fwstats_inc(DN1_FWST_BAR_DUPLICATES);   /* never counts twice */
        return RX_RELEASED;
    }
    hal_sram_write32(arrived_off, arrived | bit);
    fwstats_inc(DN1_FWST_BAR_COUNTED);

    /* Step 4: count down (a combining group's value counted in); not
     * zero yet, done. */
    if (comb) {
        comb_count(g, opt, (int)first, w0, w1);
    } else {
        remaining = hal_sram_read32(CNT(g, DN1_BAR_CNT_REMAINING));
    }
    hal_sram_write32(CNT(g, DN1_BAR_CNT_REMAINING), --remaining);
    if (remaining != 0) {
        return RX_RELEASED;
    }

    /* Step 5: the completions, pre-built: one multicast, or one per member
     * in ascending rank order. The mode is read now: the host may change it. */
    uint32_t size = hal_sram_read32(CNT(g, DN1_BAR_CNT_SIZE));
    mode = desc_u32(DESC_MODE_WORD(g)) & 0xffu;
    if (comb) {
        comb_release(g, epoch);
    }
    if ((mode & DN1_BAR_MODE_KIND_MASK) == DN1_BAR_MODE_MCAST) {
        if (comb) {   /* the switch group taken at the set-up, as the plain image's */
            comb_send(g, (uint16_t)hal_sram_read32(DN1_BAR_IMAGE(g, DN1_BAR_MCAST_IMAGE) + 4));
        } else {
            send_completion(g, DN1_BAR_MCAST_IMAGE, epoch);
        }
    } else {
        uint32_t w = 0;
        for (uint32_t k = 0; k < size; k++, w <<= 8) {
            if ((k & 3) == 0) {
                w = hal_sram_read32(DN1_BAR_MEMBER_LIST(g) + k);   /* 4 ids a word */
            }
            if (comb) {
                comb_send(g, (uint16_t)(w >> 24));
            } else {
                send_completion(g, w >> 24, epoch);
            }
        }
    }

    /* Step 6: re-arm for the next epoch. */
    hal_sram_write32(CNT(g, DN1_BAR_CNT_REMAINING), size);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_ARRIVED_HI), 0);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_ARRIVED_LO), 0);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_EPOCH), epoch + 1);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_GEN), gen_word | DN1_BAR_CNT_RELEASED_ONCE);
    hal_llcm_write32(DESC(g, epoch), epoch + 1);
    hal_llcm_write32(DESC(g, released), desc_u32(DESC(g, released)) + 1);
    fwstats_inc(DN1_FWST_BAR_RELEASED);
    return RX_RELEASED;
}
