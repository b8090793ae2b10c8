/*
 * The processor's side of translation and of its own interrupt: what the
 * run-time variants (handlers/variant/) switch. Handlers depend only on
 * this header for it, so unit tests can fake it.
 */
#ifndef HAL_MMU_H
#define HAL_MMU_H

#include <stdint.h>

/* MMU_CTRL.PATLB_EN: check every hardware write against the PATLB. */
void hal_mmu_patlb_enable(int on);

/* PATLB entry @index (0..63): valid and writable for the 4 KiB page of
 * NIC address @nic_addr (the word with V is stored last). */
void hal_patlb_fill(unsigned index, uint64_t nic_addr);

/* RVATLB entry @index (0..63): @word0 (V, W, R, context), VA page @vpn
 * (36 bits), NIC page @ppn; word 0 is stored last. */
void hal_rvatlb_fill(unsigned index, uint32_t word0, uint64_t vpn, uint32_t ppn);
/* RVATLB entry @index invalid (word 0 cleared). */
void hal_rvatlb_invalidate(unsigned index);

/* IRQ_ENABLE.RX_HELD: interrupt on a held packet (off: the firmware polls). */
void hal_rx_irq_enable(int on);
/* Take part in host-asked NIC restarts: the RESTART interrupt comes once
 * nothing is held (IRQ_STATUS.RESTART, hal_irq_status()). */
void hal_restart_irq_enable(void);

#endif
