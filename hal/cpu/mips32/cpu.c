/*
 * MIPS32 (4Kc) CPU port: Status register set-up, interrupt unmasking, idle.
 */
#include "hal/cpu.h"
#include "../common/port.h"

#define ST_IE     0x00000001u
#define ST_EXL    0x00000002u
#define ST_ERL    0x00000004u
#define ST_IM(n)  (1u << (8 + (n)))

const char cpu_port_name[] = "mips32-4kc";

static inline uint32_t read_status(void)
{
    uint32_t v;
    __asm__ volatile("mfc0 %0, $12" : "=r"(v));
    return v;
}

static inline void write_status(uint32_t v)
{
    /* Three ssnops cover the 4Kc's CP0 hazard. */
    __asm__ volatile("mtc0 %0, $12\n\tssnop\n\tssnop\n\tssnop" : : "r"(v) : "memory");
}

void cpu_early_init(void)
{
    /* Leave reset's error level; vectors in the image's page at 0x80000000
     * (BEV = 0); all masked. */
    write_status(0);
    __asm__ volatile("mtc0 $0, $13" ::: "memory");   /* Cause: IV=0, no soft irqs */
}

void cpu_irq_unmask(unsigned ip)
{
    write_status(read_status() | ST_IM(ip) | ST_IE);
}

void cpu_idle(void)
{
    __asm__ volatile("wait" ::: "memory");
}

uint32_t cpu_port_read_status(void)
{
    return read_status();
}

uint32_t cpu_port_read_badvaddr(void)
{
    uint32_t v;
    __asm__ volatile("mfc0 %0, $8" : "=r"(v));
    return v;
}
