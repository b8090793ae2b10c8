/* Board-level interrupt routing, called by the CPU port. */
#ifndef HAL_BOARD_IRQ_H
#define HAL_BOARD_IRQ_H

#include <stdint.h>

/* Hardware interrupt line @ip (Cause.IP number) is pending. */
void board_irq(unsigned ip);

/* An exception the firmware cannot recover from: report it and stop. */
void board_fatal(uint32_t exccode, uint32_t epc, uint32_t badvaddr)
    __attribute__((noreturn));

#endif
