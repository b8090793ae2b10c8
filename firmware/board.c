/* Board glue: interrupt routing and the fatal-error path. */
#include <stdio.h>
#include "hal/board_irq.h"
#include "hal/martini.h"
#include "hal/cpu.h"
#include "dispatch.h"
#include "variant/variant.h"
#include "message/message.h"
#include "hal/mmu.h"
#include "dimmnet1/memmap.h"

/* The host asked for a NIC restart (NIC_RESTART), and nothing is held:
 * leave what must survive for the next firmware, then clear READY, on
 * which the Martini restarts the processor. */
static void leave(void)
{
    message_save();
    hal_fw_leave();
    for (;;) {
        cpu_idle();
    }
}

void board_irq(unsigned ip)
{
    if (ip == DN1_IRQ_MARTINI) {
        /* IRQ_STATUS as the loop left it: no read of its own here, so
         * the interrupt's cost stays what bench/plugins count. */
        uint32_t st = dispatch_service();

        /* "non-intr", if a CONTROL just turned it on (the flag tested
         * here: no call on every interrupt) */
        if ((variant_polling && variant_poll()) || (st & DN1_IRQ_RESTART)) {
            leave();
        }
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
