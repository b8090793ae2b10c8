/*
 * The Martini's on-chip SRAM (docs/hardware.md section 2): counters and
 * packet images the firmware keeps there, and sending an image (section 3,
 * "Firmware sends"; paper, barrier step 5). Words are the processor's own
 * (big-endian), so an image's header is the wire header as stored.
 */
#ifndef HAL_SRAM_H
#define HAL_SRAM_H

#include <stdint.h>

/* @off: a 4-aligned byte offset inside the SRAM (not checked: the caller's
 * layout is fixed, include/dimmnet1/barrier.h). */
uint32_t hal_sram_read32(uint32_t off);
void hal_sram_write32(uint32_t off, uint32_t value);

/* Send the packet image at @off (8-aligned); the NIC's TX_RESULT. */
uint32_t hal_tx_send(uint32_t off);

#endif
