/* Translation control and the RX_HELD interrupt (see hal/mmu.h). */
#include "hal/mmu.h"
#include "hal/mmio.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/regs.h"

void hal_mmu_patlb_enable(int on)
{
    mmio_write32(DN1_REGS_BASE + DN1_REG_MMU_CTRL, on ? DN1_MMU_PATLB_EN : 0);
}

void hal_patlb_fill(unsigned index, uint64_t nic_addr)
{
    uint32_t e = DN1_PATLB_BASE + DN1_PATLB_ENTRY * (index % DN1_PATLB_ENTRIES);

    mmio_write32(e + 4, (uint32_t)(nic_addr >> 12));
    mmio_write32(e, DN1_TLB_V | DN1_TLB_W);
}

void hal_rvatlb_fill(unsigned index, uint32_t word0, uint64_t vpn, uint32_t ppn)
{
    uint32_t e = DN1_RVATLB_BASE + DN1_RVATLB_ENTRY * (index % DN1_RVATLB_ENTRIES);

    mmio_write32(e + 4, (uint32_t)(vpn >> 32));
    mmio_write32(e + 8, (uint32_t)vpn);
    mmio_write32(e + 12, ppn);
    mmio_write32(e, word0);
}

void hal_rvatlb_invalidate(unsigned index)
{
    mmio_write32(DN1_RVATLB_BASE + DN1_RVATLB_ENTRY * (index % DN1_RVATLB_ENTRIES), 0);
}

/* RESTART stays enabled once the firmware has asked for it (main). */
static uint32_t irq_restart;

void hal_rx_irq_enable(int on)
{
    mmio_write32(DN1_REGS_BASE + DN1_REG_IRQ_ENABLE,
                 (on ? DN1_IRQ_RX_HELD : 0) | irq_restart);
}

void hal_restart_irq_enable(void)
{
    irq_restart = DN1_IRQ_RESTART;
    mmio_write32(DN1_REGS_BASE + DN1_REG_IRQ_ENABLE,
                 (mmio_read32(DN1_REGS_BASE + DN1_REG_IRQ_ENABLE) &
                  DN1_IRQ_RX_HELD) | irq_restart);
}

