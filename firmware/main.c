/*
 * Martini firmware entry: banner, handler table, then idle; all packet work
 * happens in the Martini interrupt (board_irq -> dispatch_service).
 */
#include <stdio.h>
#include "hal/cpu.h"
#include "hal/martini.h"
#include "hal/mmu.h"
#include "hal/uart.h"
#include "dispatch.h"
#include "fwstats.h"
#include "indirect_write/indirect_write.h"
#include "message/message.h"
#include "barrier/barrier.h"
#include "barrier/barrier_paper.h"
#include "variant/variant.h"
#include "soft_indirect/soft_indirect.h"
#include "mr/mr.h"
#include "atomic/atomic.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/fw_types.h"
#include "fw_version.h"

/* Every handler's function (handlers.def), with the dispatcher's type. */
#define DN1_HANDLER(name, type, fn) enum rx_action fn(struct rx_packet *p);
#include "handlers.def"
#undef DN1_HANDLER

/* Every handler the image serves (handlers.def): registered in this order,
 * named in the banner. */
static const struct {
    const char *name;
    uint8_t type;
    rx_handler_fn fn;
} handlers[] = {
#define DN1_HANDLER(name, type, fn) { name, type, fn },
#include "handlers.def"
#undef DN1_HANDLER
};

int main(void)
{
    uart_init();
    printf("DIMMnet-1 Martini firmware %s (%s)\n", FW_VERSION_STRING,
           cpu_port_name);
    if (hal_martini_probe() != 0) {
        printf("FATAL: no Martini with register contract %u.%u or a later %u.x here\n",
               (unsigned)(DN1_CONTRACT_VERSION >> 16),
               (unsigned)(DN1_CONTRACT_VERSION & 0xffffu),
               (unsigned)(DN1_CONTRACT_VERSION >> 16));
        hal_fw_failed();
        for (;;) {
            cpu_idle();
        }
    }
    printf("node %lu: handlers:", (unsigned long)hal_node_id());
    for (unsigned i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
        printf(" %s=0x%02x", handlers[i].name, handlers[i].type);
    }
    printf("\n");

    fwstats_init();
    /* After a host-asked restart, conversations and barriers carry on. */
    int resumed = message_init();
    barrier_init(resumed);
    barrier_paper_init(resumed);
    if (resumed) {
        printf("resumed: message conversations and barrier counters kept "
               "across the NIC restart\n");
    }
    variant_init();
    soft_indirect_init();
    mr_init();
    atomic_init();
    for (unsigned i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
        dispatch_register(handlers[i].type, handlers[i].fn);
    }
    /* Registration keys (context bit 15) here, the rest to the variants. */
    dispatch_register_miss(mr_miss_handle);
    /* Served at the vector in their common case (handlers/fast_path.S). */
    dispatch_register_fast(DN1_TYPE_INDIRECT_WRITE);
    dispatch_register_fast(DN1_TYPE_MESSAGE);

    /* READY before the first interrupt: a held CONTROL that turns on
     * POLL keeps that interrupt polling for good, so nothing after the
     * unmask is sure to run. */
    hal_rx_irq_enable(1);
    hal_restart_irq_enable();
    hal_fw_ready(FW_VERSION_CODE);
    printf("ready\n");
    cpu_irq_unmask(DN1_IRQ_MARTINI);

    for (;;) {
        cpu_idle();
    }
}
