/* Run-time variants: CONTROL and the miss-continue handler (variant.h). */
#include "variant.h"
#include "dispatch.h"
#include "fwstats.h"
#include "hal/martini.h"
#include "hal/mmu.h"
#include "hal/nicmem.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/variant.h"

#define BLOCK (DN1_RADDR_LLCM + DN1_VAR_LLCM_OFF)

/* The block as taken over (the LLCM copy may change under us). */
static struct {
    uint32_t mode, flags, size;
    uint64_t base, pointer;
} v;
static unsigned patlb_next;
volatile int variant_polling;

void variant_init(void)
{
    v.mode = DN1_VAR_MISS_NACK;
    v.flags = 0;
    v.size = 0;
    patlb_next = 0;
    variant_polling = 0;
    dispatch_batch = 0;
}

static enum rx_action refuse(struct rx_packet *p)
{
    p->nack_reason = DN1_NACK_BAD_CONTROL;
    return RX_NACK;
}

enum rx_action variant_control_handle(struct rx_packet *p)
{
    uint32_t w[8];

    /* Only this node's own host may switch its firmware. */
    if (p->hdr.src != hal_node_id() || p->hdr.dst != p->hdr.src) {
        return refuse(p);
    }
    for (unsigned i = 0; i < 8; i++) {
        if (hal_nic_read_u32(BLOCK + 4 * i, &w[i]) != 0) {
            return refuse(p);
        }
    }
    uint64_t base = (uint64_t)w[3] << 32 | w[2];
    uint32_t ptr = w[5];
    if (w[0] > DN1_VAR_MISS_CONTINUE || (w[1] & ~DN1_VAR_F_ALL) ||
        base + w[4] < base || (ptr & 7) || ptr > DN1_LLCM_SIZE - 8) {
        return refuse(p);
    }
    v.mode = w[0];
    v.flags = w[1];
    v.base = base;
    v.size = w[4];
    v.pointer = DN1_RADDR_LLCM + ptr;
    hal_mmu_patlb_enable(v.flags & DN1_VAR_F_PATLB);
    dispatch_batch = (v.flags & DN1_VAR_F_BATCH) != 0;
    /* variant_poll() switches the interrupt, once this packet is done. */
    variant_polling = (v.flags & DN1_VAR_F_POLL) != 0;
    hal_nic_write_u32(BLOCK + DN1_VAR_TAKEN, w[6]);
    return RX_DONE;
}

enum rx_action variant_miss_handle(struct rx_packet *p)
{
    uint64_t off = p->hdr.raddr - v.base;

    /* The paper's miss-continue: the pointer from LLCM, the rest in hardware. */
    if (v.mode == DN1_VAR_MISS_CONTINUE && off < v.size) {
        uint64_t pointer;
        if (hal_nic_read_u64(v.pointer, &pointer) != 0 || pointer + off < pointer) {
            p->nack_reason = DN1_NACK_BAD_POINTER;
            return RX_NACK;
        }
        p->raddr = pointer + off;
        return RX_CONTINUE;
    }
    /* Outside the window the PATLB is kept as a TLB: enter the page, retry. */
    if (p->hold_reason == DN1_HOLD_PATLB_MISS && (v.flags & DN1_VAR_F_PATLB)) {
        hal_patlb_fill(patlb_next++, p->miss_addr);
        return RX_RETRY;
    }
    fwstats_inc(DN1_FWST_NO_TRANSLATION);
    p->nack_reason = DN1_NACK_NO_TRANSLATION;
    return RX_NACK;
}

int variant_poll(void)
{
    uint32_t st = 0;

    if (!variant_polling) {
        return 0;
    }
    hal_rx_irq_enable(0);
    while (variant_polling) {
        st = hal_irq_status();      /* the one read a round, as ever */
        if (st & DN1_IRQ_RESTART) {
            break;
        }
        if (st & DN1_IRQ_RX_HELD) {
            dispatch_service();
        }
    }
    hal_rx_irq_enable(1);
    return (st & DN1_IRQ_RESTART) != 0;
}
