/* Martini chip-level HAL: identity and firmware status (the interrupt
 * enable: hal_rx_irq_enable, hal/mmu.h). */
#ifndef HAL_MARTINI_H
#define HAL_MARTINI_H

#include <stdint.h>

/* Check the chip ID and contract version; 0 if this firmware fits the chip. */
int hal_martini_probe(void);
uint32_t hal_node_id(void);
/* Host ports the board serves (HOST_PORTS, 1..4). */
uint32_t hal_host_ports(void);
/* Tell the host the firmware is up: FW_STATUS = version << 16 | READY. */
void hal_fw_ready(uint16_t version);
/* Leave for a NIC restart the host asked for: READY cleared, after which
 * the Martini restarts the processor. */
void hal_fw_leave(void);
/* Tell the host the firmware stopped on an error (FW_STATUS bit 1). */
void hal_fw_failed(void);

#endif
