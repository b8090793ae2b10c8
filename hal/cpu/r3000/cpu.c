/*
 * R3000 (MIPS I) CPU port: Status set-up, interrupt unmasking, idle. The
 * R3000 keeps a three-deep interrupt-enable/kernel-mode stack in Status
 * bits 0..5 (popped by rfe) and has no wait instruction.
 */
#include "hal/cpu.h"
#include "../common/port.h"

#define ST_IEC    0x00000001u   /* current interrupt enable */
#define ST_IM(n)  (1u << (8 + (n)))

const char cpu_port_name[] = "r3000";

static inline uint32_t read_status(void)
{
    uint32_t v;
    __asm__ volatile("mfc0 %0, $12\n\tnop" : "=r"(v));
    return v;
}

static inline void write_status(uint32_t v)
{
    __asm__ volatile("mtc0 %0, $12\n\tnop\n\tnop" : : "r"(v) : "memory");
}

void cpu_early_init(void)
{
    write_status(0);    /* kernel mode, vectors at 0x80000000 (BEV = 0), all masked */
    __asm__ volatile("mtc0 $0, $13\n\tnop" ::: "memory");   /* no soft irqs */
}

void cpu_irq_unmask(unsigned ip)
{
    write_status(read_status() | ST_IM(ip) | ST_IEC);
}

void cpu_idle(void)
{
    /* No wait instruction on MIPS I: the caller's loop spins. */
}

uint32_t cpu_port_read_status(void)
{
    return read_status();
}

uint32_t cpu_port_read_badvaddr(void)
{
    uint32_t v;
    __asm__ volatile("mfc0 %0, $8\n\tnop" : "=r"(v));
    return v;
}
