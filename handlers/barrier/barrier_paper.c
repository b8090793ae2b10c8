/*
 * The paper's counting barrier as the paper built it (see barrier_paper.h;
 * contract: docs/hardware.md section 11, "The paper's barrier"; layouts:
 * include/dimmnet1/barrier.h). The arrival path does the paper's steps and
 * nothing else, so that its instructions can be counted against the
 * paper's firmware (bench: handlers.csv, barrier-paper-*): no set-up
 * generation, member set, epoch, duplicate check or statistic. What keeps
 * malformed input harmless costs one test of raddr: the counter written is
 * always one of the 16 blocks, and the images sent are only those the
 * set-up built (the NIC refuses any other image without sending).
 */
#include "barrier_paper.h"
#include "barrier.h"
#include "dispatch.h"
#include "fwstats.h"
#include "hal/martini.h"
#include "hal/sram.h"
#include "dimmnet1/barrier.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/message.h"
#include "dimmnet1/packet.h"

#define BLOCK(g) ((uint32_t)DN1_BARP_RADDR(g))

static void disarm(uint32_t cnt)
{
    hal_sram_write32(cnt + DN1_BARP_CNT_SENDS, 0);
    hal_sram_write32(cnt + DN1_BARP_CNT_REARM, 0);
    hal_sram_write32(cnt + DN1_BARP_CNT_COUNT, 0);
}

void barrier_paper_init(int resume)
{
    for (unsigned g = 0; g < DN1_BAR_GROUPS && !resume; g++) {
        disarm(BLOCK(g));
    }
}

void barrier_paper_withdraw(unsigned g)
{
    disarm(BLOCK(g));
}

/*
 * The counter node's set-up of group @g (counter block @cnt) from the
 * packet's payload (struct dn1_barp_setup): the completion images, then
 * the counter armed. -1 if unusable: nothing changed.
 */
static int take_setup(unsigned g, uint32_t cnt)
{
    uint32_t lo = hal_rx_payload_le32(0), hi = hal_rx_payload_le32(4);
    uint32_t done = hal_rx_payload_le32(8), w = hal_rx_payload_le32(12);
    unsigned mode = w & 0xffu;

    if ((lo | hi) == 0 || (done & (DN1_BAR_DONE_BYTES - 1)) || mode > DN1_BAR_MODE_MCAST ||
        done < DN1_LLCM_NIC_RESERVED || done > DN1_LLCM_SIZE - DN1_BAR_DONE_BYTES) {
        return -1;
    }
    /* The image area is this kind's now: the hardened set-up of g goes
     * (its next packet takes its descriptor again, or is refused). */
    hal_sram_write32(DN1_BAR_SRAM_COUNTERS + 32u * g + DN1_BAR_CNT_GEN, 0);
    uint32_t members = 0;
    for (unsigned i = 0; i < DN1_BAR_MAX_NODE; i++) {
        if ((i < 32 ? lo >> i : hi >> (i - 32)) & 1u) {
            if (mode == DN1_BAR_MODE_RANKS) {
                barrier_image(DN1_BAR_IMAGE(g, members), (uint16_t)i, done,
                              DN1_BARP_DONE_VALUE);
            }
            members++;
        }
    }
    if (mode == DN1_BAR_MODE_MCAST) {
        barrier_image(DN1_BAR_IMAGE(g, 0), (uint16_t)(DN1_MCAST_BASE + (w >> 8 & 0xffu)),
                      done, DN1_BARP_DONE_VALUE);
    }
    hal_sram_write32(cnt + DN1_BARP_CNT_IMAGES, DN1_BAR_IMAGE(g, 0));
    hal_sram_write32(cnt + DN1_BARP_CNT_SENDS, mode == DN1_BAR_MODE_MCAST ? 1 : members);
    hal_sram_write32(cnt + DN1_BARP_CNT_REARM, members);
    hal_sram_write32(cnt + DN1_BARP_CNT_COUNT, members);
    return 0;
}

/* Not an arrival: a set-up from this node's own host, or refused. Off the
 * paper's path, so counted (statistics 21, 22); never inlined, so that the
 * arrival path saves no registers for it. */
static __attribute__((noinline)) enum rx_action other(struct rx_packet *p)
{
    const struct dn1_hdr *h = &p->hdr;
    uint32_t cnt = (uint32_t)h->raddr;

    if ((h->raddr >> 32) == (DN1_BARP_SETUP_FLAG >> 32) &&
        ((cnt - DN1_BARP_SRAM_COUNTERS) & ~DN1_BARP_RADDR_MASK) == 0 &&
        h->src == hal_node_id() && h->dst == h->src && !(h->flags & DN1_FLAG_VA) &&
        h->len >= DN1_BARP_SETUP_BYTES &&
        take_setup((cnt - DN1_BARP_SRAM_COUNTERS) / 16u, cnt) == 0) {
        fwstats_inc(DN1_FWST_BAR_SETUPS);
        return RX_DONE;
    }
    fwstats_inc(DN1_FWST_NACK_BAR_SETUP);
    p->nack_reason = DN1_NACK_BARRIER_SETUP;
    return RX_NACK;
}

enum rx_action barrier_paper_handle(struct rx_packet *p)
{
    /* Step 2 was the dispatcher's jump on the type. The counter named by
     * raddr: one of the 16 blocks (raddr's high word 0), else not an
     * arrival. */
    uint32_t cnt = (uint32_t)p->hdr.raddr;
    if (((uint32_t)(p->hdr.raddr >> 32) |
         ((cnt - DN1_BARP_SRAM_COUNTERS) & ~DN1_BARP_RADDR_MASK)) != 0) {
        return other(p);
    }

    /* Step 3: the core IDLE. */
    dispatch_release(p, RX_DONE);

    /* Step 4: count down; not zero, return. */
    uint32_t left = hal_sram_read32(cnt + DN1_BARP_CNT_COUNT) - 1;
    if (left != 0) {
        hal_sram_write32(cnt + DN1_BARP_CNT_COUNT, left);
        return RX_RELEASED;
    }

    /* Step 5: the completions, pre-built: one multicast, or one per member
     * in ascending rank order. */
    uint32_t img = hal_sram_read32(cnt + DN1_BARP_CNT_IMAGES);
    for (uint32_t n = hal_sram_read32(cnt + DN1_BARP_CNT_SENDS); n != 0; n--) {
        hal_tx_send(img);
        img += DN1_BAR_IMAGE_SIZE;
    }

    /* Step 6: re-arm. */
    hal_sram_write32(cnt + DN1_BARP_CNT_COUNT, hal_sram_read32(cnt + DN1_BARP_CNT_REARM));
    return RX_RELEASED;
}
