/* Board glue: interrupt routing and the fatal-error path. */
#include <stdio.h>
#include "hal/board_irq.h"
#include "hal/martini.h"
#include "hal/cpu.h"
#include "dispatch.h"
#include "variant/variant.h"
#include "dimmnet1/memmap.h"

void board_irq(unsigned ip)
{
    if (ip == DN1_IRQ_MARTINI) {
        dispatch_service();
        variant_poll();     /* "non-intr", if a CONTROL just turned it on */
    }
}

void board_fatal(uint32_t exccode, uint32_t epc, uint32_t badvaddr)
{
    hal_fw_failed();
    printf("FATAL: exception %lu at epc 0x%08lx badvaddr 0x%08lx\n",
           (unsigned long)exccode, (unsigned long)epc, (unsigned long)badvaddr);
    for (;;) {
        cpu_idle();
    }
}
