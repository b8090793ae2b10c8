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
    hal_sram_write_le32(off + 32, word0);                 /* epoch, at release */
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

    hal_sram_write_le32(off + 32, epoch);
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

/* What the checks common to both kinds of arrival found. */
struct arrival {
    unsigned src;
    uint32_t bit, gen_word, mode_word;
    uint32_t arrived_off, arrived;
};

/*
 * The checks after step 1's (the packet named group @g): the set-up in
 * force (a new one from the host is taken over now), the sender a member,
 * a combining arrival to a combining group and a plain one to a plain
 * group. 0, or the NACK reason (counted). Inlined in both paths, so the
 * plain barrier's instructions stay its own.
 */
static inline __attribute__((always_inline)) uint8_t admit(const struct dn1_hdr *h, unsigned g,
                                                            int comb, struct arrival *a)
{
    a->mode_word = desc_u32(DESC_MODE_WORD(g));
    uint32_t gen = a->mode_word >> 16;
    a->gen_word = hal_sram_read32(CNT(g, DN1_BAR_CNT_GEN));
    if (gen != (a->gen_word & 0xffffu)) {
        if (gen == 0 || take_setup(g, gen, a->mode_word) != 0) {
            hal_sram_write32(CNT(g, DN1_BAR_CNT_GEN), 0);   /* withdrawn or unusable */
            fwstats_inc(DN1_FWST_NACK_BAR_SETUP);
            return DN1_NACK_BARRIER_SETUP;
        }
        a->gen_word = gen;
    } else if (gen == 0) {
        fwstats_inc(DN1_FWST_NACK_BAR_SETUP);
        return DN1_NACK_BARRIER_SETUP;
    }
    if (comb != !!(a->mode_word & DN1_BAR_MODE_COMBINE)) {
        fwstats_inc(DN1_FWST_NACK_BAR_SETUP);
        return DN1_NACK_BARRIER_SETUP;
    }

    /* Only members count; the bit of this one, for the arrival set. */
    a->src = h->src;
    uint32_t word = a->src < 32 ? DN1_BAR_CNT_MEMBERS_LO : DN1_BAR_CNT_MEMBERS_HI;
    a->bit = 1u << (a->src & 31u);
    if (a->src >= DN1_BAR_MAX_NODE || !(hal_sram_read32(CNT(g, word)) & a->bit)) {
        fwstats_inc(DN1_FWST_NACK_BAR_MEMBER);
        return DN1_NACK_BARRIER_MEMBER;
    }
    a->arrived_off = CNT(g, a->src < 32 ? DN1_BAR_CNT_ARRIVED_LO : DN1_BAR_CNT_ARRIVED_HI);
    return 0;
}

/* Step 6: re-arm group @g for the epoch after @epoch. */
static inline __attribute__((always_inline)) void rearm(unsigned g, uint32_t size,
                                                         uint32_t epoch, uint32_t gen_word)
{
    hal_sram_write32(CNT(g, DN1_BAR_CNT_REMAINING), size);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_ARRIVED_HI), 0);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_ARRIVED_LO), 0);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_EPOCH), epoch + 1);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_GEN), gen_word | DN1_BAR_CNT_RELEASED_ONCE);
    hal_llcm_write32(DESC(g, epoch), epoch + 1);
    hal_llcm_write32(DESC(g, released), desc_u32(DESC(g, released)) + 1);
    fwstats_inc(DN1_FWST_BAR_RELEASED);
}

/*
 * A combining arrival (docs/hardware.md section 11, "Combining"): 8 bytes
 * of value, group, epoch, op and type in the raddr; counted as a plain
 * arrival is, its value combined as it is counted (combine.c), the result
 * sent with the release.
 */
static enum rx_action __attribute__((noinline)) comb_arrival(struct rx_packet *p)
{
    const struct dn1_hdr *h = &p->hdr;
    struct arrival a;
    uint8_t why;

    if ((h->flags & DN1_FLAG_VA) || h->dst >= DN1_MCAST_BASE || h->len < DN1_BAR_COMB_PAYLOAD) {
        return refuse(p, DN1_NACK_BAD_PATH, DN1_FWST_NACK_BAD_PATH);
    }
    if (h->raddr >= DN1_BAR_COMB_RADDR_END || (h->raddr & 7u) ||
        (h->raddr >> DN1_BAR_COMB_GROUP_SHIFT & 0x1fu) >= DN1_BAR_GROUPS) {
        return refuse(p, DN1_NACK_BARRIER_SETUP, DN1_FWST_NACK_BAR_SETUP);
    }
    unsigned g = (unsigned)(h->raddr >> DN1_BAR_COMB_GROUP_SHIFT) & (DN1_BAR_GROUPS - 1u);
    if ((why = admit(h, g, 1, &a)) != 0) {
        p->nack_reason = why;
        return RX_NACK;
    }
    /* Its done words must hold the result too. */
    if (desc_u32(DESC(g, done_off)) > DN1_LLCM_SIZE - DN1_BAR_COMB_DONE_BYTES) {
        return refuse(p, DN1_NACK_BARRIER_SETUP, DN1_FWST_NACK_BAR_SETUP);
    }

    uint32_t epoch = (uint32_t)(h->raddr >> 3);
    uint32_t counting = hal_sram_read32(CNT(g, DN1_BAR_CNT_EPOCH));
    if (epoch != counting) {
        if (epoch != counting - 1 || !(a.gen_word & DN1_BAR_CNT_RELEASED_ONCE)) {
            return refuse(p, DN1_NACK_BARRIER_EPOCH, DN1_FWST_NACK_BAR_EPOCH);
        }
        dispatch_release(p, RX_DONE);
        comb_send(g, (uint16_t)a.src);   /* the last result, which it missed */
        fwstats_inc(DN1_FWST_BAR_RESENT);
        return RX_RELEASED;
    }
    /* The epoch's first arrival fixes its op and type; another op or type
     * belongs to no combination counted here. */
    a.arrived = hal_sram_read32(a.arrived_off);
    unsigned opt = (unsigned)(h->raddr >> DN1_BAR_COMB_OPT_SHIFT) & 0x3fu;
    uint32_t size = hal_sram_read32(CNT(g, DN1_BAR_CNT_SIZE));
    uint32_t remaining = hal_sram_read32(CNT(g, DN1_BAR_CNT_REMAINING));
    int first = remaining == size;
    if (!(a.arrived & a.bit) && !comb_opt_ok(g, first, opt)) {
        return refuse(p, DN1_NACK_BARRIER_EPOCH, DN1_FWST_NACK_BAR_EPOCH);
    }
    uint32_t w0 = hal_rx_payload_le32(0);   /* the value, before the packet is handed back */
    uint32_t w1 = hal_rx_payload_le32(4);

    dispatch_release(p, RX_DONE);
    if (a.arrived & a.bit) {
        fwstats_inc(DN1_FWST_BAR_DUPLICATES);   /* never counts (or combines) twice */
        return RX_RELEASED;
    }
    hal_sram_write32(a.arrived_off, a.arrived | a.bit);
    fwstats_inc(DN1_FWST_BAR_COUNTED);
    comb_count(g, opt, first, w0, w1);
    hal_sram_write32(CNT(g, DN1_BAR_CNT_REMAINING), --remaining);
    if (remaining != 0) {
        return RX_RELEASED;
    }

    /* The release: the result in the image, sent to the switch group taken
     * at the set-up (the plain multicast image's dst) or to each member. */
    comb_release(g, epoch);
    if ((desc_u32(DESC_MODE_WORD(g)) & DN1_BAR_MODE_KIND_MASK) == DN1_BAR_MODE_MCAST) {
        comb_send(g, (uint16_t)hal_sram_read32(DN1_BAR_IMAGE(g, DN1_BAR_MCAST_IMAGE) + 4));
    } else {
        uint32_t w = 0;
        for (uint32_t k = 0; k < size; k++, w <<= 8) {
            if ((k & 3) == 0) {
                w = hal_sram_read32(DN1_BAR_MEMBER_LIST(g) + k);   /* 4 ids a word */
            }
            comb_send(g, (uint16_t)(w >> 24));
        }
    }
    rearm(g, size, epoch, a.gen_word);
    return RX_RELEASED;
}

enum rx_action barrier_handle(struct rx_packet *p)
{
    const struct dn1_hdr *h = &p->hdr;
    struct arrival a;
    uint8_t why;

    if (h->raddr & DN1_BAR_COMB_FLAG) {
        return comb_arrival(p);
    }
    /* Step 1's packet: one host store to the counter (AOTF), or any
     * packet of 4 bytes or more; never to a group, never a VA. */
    if ((h->flags & DN1_FLAG_VA) || h->dst >= DN1_MCAST_BASE ||
        h->len < DN1_BAR_MIN_PAYLOAD) {
        return refuse(p, DN1_NACK_BAD_PATH, DN1_FWST_NACK_BAD_PATH);
    }
    if (h->raddr >= DN1_BAR_RADDR(DN1_BAR_GROUPS) || (h->raddr & 31u)) {
        return refuse(p, DN1_NACK_BARRIER_SETUP, DN1_FWST_NACK_BAR_SETUP);
    }
    unsigned g = (unsigned)(h->raddr >> 5);
    if ((why = admit(h, g, 0, &a)) != 0) {
        p->nack_reason = why;
        return RX_NACK;
    }

    uint32_t epoch = hal_rx_payload_le32(0);
    uint32_t counting = hal_sram_read32(CNT(g, DN1_BAR_CNT_EPOCH));
    if (epoch != counting) {
        if (epoch != counting - 1 || !(a.gen_word & DN1_BAR_CNT_RELEASED_ONCE)) {
            return refuse(p, DN1_NACK_BARRIER_EPOCH, DN1_FWST_NACK_BAR_EPOCH);
        }
        /* Released already: this member missed its completion. */
        dispatch_release(p, RX_DONE);
        send_completion(g, a.src, epoch);
        fwstats_inc(DN1_FWST_BAR_RESENT);
        return RX_RELEASED;
    }
    a.arrived = hal_sram_read32(a.arrived_off);

    /* Step 3: the core IDLE; the pipeline moves on while we count. */
    dispatch_release(p, RX_DONE);
    if (a.arrived & a.bit) {
        fwstats_inc(DN1_FWST_BAR_DUPLICATES);   /* never counts twice */
        return RX_RELEASED;
    }
    hal_sram_write32(a.arrived_off, a.arrived | a.bit);
    fwstats_inc(DN1_FWST_BAR_COUNTED);

    /* Step 4: count down; not zero yet, done. */
    uint32_t remaining = hal_sram_read32(CNT(g, DN1_BAR_CNT_REMAINING)) - 1;
    hal_sram_write32(CNT(g, DN1_BAR_CNT_REMAINING), remaining);
    if (remaining != 0) {
        return RX_RELEASED;
    }

    /* Step 5: the completions, pre-built: one multicast, or one per member
     * in ascending rank order. The mode is read now: the host may change it. */
    uint32_t size = hal_sram_read32(CNT(g, DN1_BAR_CNT_SIZE));
    if ((desc_u32(DESC_MODE_WORD(g)) & DN1_BAR_MODE_KIND_MASK) == DN1_BAR_MODE_MCAST) {
        send_completion(g, DN1_BAR_MCAST_IMAGE, epoch);
    } else {
        uint32_t w = 0;
        for (uint32_t k = 0; k < size; k++, w <<= 8) {
            if ((k & 3) == 0) {
                w = hal_sram_read32(DN1_BAR_MEMBER_LIST(g) + k);   /* 4 ids a word */
            }
            send_completion(g, w >> 24, epoch);
        }
    }

    /* Step 6: re-arm for the next epoch. */
    rearm(g, size, epoch, a.gen_word);
    return RX_RELEASED;
}
