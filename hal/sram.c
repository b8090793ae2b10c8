/* On-chip SRAM and firmware sends (see hal/sram.h). */
#include "hal/sram.h"
#include "hal/mmio.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/regs.h"

uint32_t hal_sram_read32(uint32_t off)
{
    return mmio_read32(DN1_CHIP_SRAM_BASE + off);
}

void hal_sram_write32(uint32_t off, uint32_t value)
{
    mmio_write32(DN1_CHIP_SRAM_BASE + off, value);
}

uint32_t hal_tx_send(uint32_t off)
{
    mmio_write32(DN1_REGS_BASE + DN1_REG_TX_SRAM_OFF, off);
    mmio_write32(DN1_REGS_BASE + DN1_REG_TX_CMD, DN1_TX_CMD_SEND);
    return mmio_read32(DN1_REGS_BASE + DN1_REG_TX_RESULT);
}
