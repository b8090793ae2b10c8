/*
 * The Martini's on-chip SRAM (docs/hardware.md section 2): counters and
 * packet images the firmware keeps there, and sending an image (section 3,
 * "Firmware sends"; paper, barrier step 5). Words are the processor's own
 * (big-endian), so an image's header is the wire header as stored.
 */
#ifndef HAL_SRAM_H
#define HAL_SRAM_H

#include <stdint.h>
#include "hal/access.h"

/* @off: a 4-aligned byte offset inside the SRAM (not checked: the caller's
 * layout is fixed, include/dimmnet1/barrier.h). hal_sram_write_le32 stores
 * a word as the receiving host will read it (little-endian: an image's
 * payload) through the host-order view, without a swap (contract 1.33).
 * Send the packet image at @off (8-aligned); the NIC's TX_RESULT. */
#if HAL_ACCESS_INLINE
#include "dimmnet1/memmap.h"
#include "dimmnet1/regs.h"

HAL_ACCESS uint32_t hal_sram_read32(uint32_t off)
{
    return mmio_read32(DN1_CHIP_SRAM_BASE + off);
}

HAL_ACCESS void hal_sram_write32(uint32_t off, uint32_t value)
{
    mmio_write32(DN1_CHIP_SRAM_BASE + off, value);
}

HAL_ACCESS void hal_sram_write_le32(uint32_t off, uint32_t value)
{
    mmio_write32(DN1_CHIP_SRAM_HOST_ORDER_BASE + off, value);
}

HAL_ACCESS uint32_t hal_tx_send(uint32_t off)
{
    mmio_write32(DN1_REGS_BASE + DN1_REG_TX_SRAM_OFF, off);
    mmio_write32(DN1_REGS_BASE + DN1_REG_TX_CMD, DN1_TX_CMD_SEND);
    return mmio_read32(DN1_REGS_BASE + DN1_REG_TX_RESULT);
}
#else
uint32_t hal_sram_read32(uint32_t off);
void hal_sram_write32(uint32_t off, uint32_t value);
void hal_sram_write_le32(uint32_t off, uint32_t value);
uint32_t hal_tx_send(uint32_t off);
#endif

#endif
