/*
 * Probe image, not firmware: measures on the board, in CP0 Count ticks, what
 * the processor's accesses cost in each part of its address space. Every
 * measurement runs the same loop (four instructions an access) over
 * PROBE_N accesses of one kind to one address, so the instruction count is
 * the same everywhere and any difference between two places is the charge
 * the board adds per access (docs/hardware.md, "Timing": accesses to the
 * 64-bit-wide memories cost the 32-bit processor an extra core cycle).
 * Run under -icount (tests/board/test_wide_access.sh); prints
 *
 *   probe n=N
 *   <kind> <place> <ticks>       one line a measurement
 *   wide=<ticks> local=<ticks>   LLCM and local-memory word loads
 *   done
 */
#include <stdint.h>
#include <stdio.h>
#include "hal/board_irq.h"
#include "hal/mmio.h"
#include "hal/uart.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/regs.h"

#ifndef PROBE_N                 /* -DPROBE_N=... for longer runs by hand */
#define PROBE_N 1000u
#endif

/* The loop: Count, then n times (access, decrement, branch, nop), Count. */
#define TIMED_LOOP(insn)                                                  \
    static uint32_t timed_##insn(uint32_t addr, uint32_t n)               \
    {                                                                     \
        uint32_t t0, t1, tmp = 0;                                         \
        __asm__ volatile(".set push\n\t.set noreorder\n\t"                \
                         "mfc0  %0, $9\n"                                 \
                         "1:\t" #insn " %2, 0(%3)\n\t"                    \
                         "addiu %4, %4, -1\n\t"                           \
                         "bnez  %4, 1b\n\t"                               \
                         " nop\n\t"                                       \
                         "mfc0  %1, $9\n\t"                               \
                         ".set pop"                                       \
                         : "=&r"(t0), "=&r"(t1), "+r"(tmp), "+r"(addr),   \
                           "+r"(n)                                        \
                         :                                                \
                         : "memory");                                     \
        return t1 - t0;                                                   \
    }

TIMED_LOOP(lw)
TIMED_LOOP(lb)
TIMED_LOOP(sw)

static volatile uint32_t local_word;            /* processor local memory */
static const uint32_t flash_word = 0x12345678u; /* boot flash (.rodata) */

/*
 * Spin, not `wait`: a CPU halted with interrupts off under -icount
 * sleep=off has its clock warped from one CP0 timer deadline to the next
 * without end, holding the BQL, and QEMU no longer answers SIGTERM.
 */
static void __attribute__((noreturn)) probe_stop(void)
{
    for (;;) {
        __asm__ volatile("" ::: "memory");
    }
}

struct place {
    const char *name;
    uint32_t addr;
};

int main(void)
{
    const struct place loads[] = {
        { "local", (uint32_t)(uintptr_t)&local_word },
        { "flash", (uint32_t)(uintptr_t)&flash_word },
        { "regs", KSEG1(DN1_REGS_BASE + DN1_REG_VERSION) },
        { "hostmem", KSEG1(DN1_HOSTMEM_BASE + 0x100) },
        { "llcm", KSEG1(DN1_LLCM_BASE + DN1_LLCM_NIC_RESERVED) },
        { "window", KSEG1(DN1_WINDOW_BASE) },
        { "sram", KSEG1(DN1_CHIP_SRAM_BASE + 0x100) },
        { "rvatlb", KSEG1(DN1_RVATLB_BASE) },
        { "patlb", KSEG1(DN1_PATLB_BASE) },
    };
    /* Stores only where they change nothing the board acts on. */
    const struct place stores[] = {
        { "local", (uint32_t)(uintptr_t)&local_word },
        { "llcm", KSEG1(DN1_LLCM_BASE + DN1_LLCM_NIC_RESERVED) },
        { "sram", KSEG1(DN1_CHIP_SRAM_BASE + 0x100) },
    };
    uint32_t ticks[sizeof(loads) / sizeof(loads[0])];
    uint32_t st[sizeof(stores) / sizeof(stores[0])];
    uint32_t lb_local, lb_llcm;

    uart_init();
    /* Measure first, print afterwards: the UART costs nothing in between. */
    for (unsigned i = 0; i < sizeof(loads) / sizeof(loads[0]); i++) {
        ticks[i] = timed_lw(loads[i].addr, PROBE_N);
    }
    for (unsigned i = 0; i < sizeof(stores) / sizeof(stores[0]); i++) {
        st[i] = timed_sw(stores[i].addr, PROBE_N);
    }
    lb_local = timed_lb(loads[0].addr, PROBE_N);
    lb_llcm = timed_lb(loads[4].addr, PROBE_N);

    printf("probe n=%u\n", PROBE_N);
    for (unsigned i = 0; i < sizeof(loads) / sizeof(loads[0]); i++) {
        printf("lw %s %lu\n", loads[i].name, (unsigned long)ticks[i]);
    }
    for (unsigned i = 0; i < sizeof(stores) / sizeof(stores[0]); i++) {
        printf("sw %s %lu\n", stores[i].name, (unsigned long)st[i]);
    }
    printf("lb local %lu\n", (unsigned long)lb_local);
    printf("lb llcm %lu\n", (unsigned long)lb_llcm);
    printf("wide=%lu local=%lu\n", (unsigned long)ticks[4],
           (unsigned long)ticks[0]);
    printf("done\n");
    probe_stop();
}

void board_irq(unsigned ip)
{
    (void)ip;
}

void board_fatal(uint32_t exccode, uint32_t epc, uint32_t badvaddr)
{
    printf("FATAL: exception %lu at epc 0x%08lx badvaddr 0x%08lx\n",
           (unsigned long)exccode, (unsigned long)epc, (unsigned long)badvaddr);
    probe_stop();
}
