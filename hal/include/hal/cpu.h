/*
 * CPU port interface: what differs between the 4Kc (QEMU) and the R3000
 * (Martini) lives behind these calls, in hal/cpu/<port>/.
 */
#ifndef HAL_CPU_H
#define HAL_CPU_H

#include <stdint.h>

/* Put the CPU in a known state: interrupts off, vectors in boot flash. */
void cpu_early_init(void);

/* Unmask hardware interrupt line @ip (Cause.IP number) and enable interrupts. */
void cpu_irq_unmask(unsigned ip);

/* Wait for an interrupt (or spin where the CPU has no wait instruction). */
void cpu_idle(void);

/* Called by the exception entry with Cause and the saved registers. */
struct cpu_frame;
void cpu_exception(uint32_t cause, struct cpu_frame *frame);

/* Name of the port, for the banner. */
extern const char cpu_port_name[];

#endif
