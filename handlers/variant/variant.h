/*
 * The paper's miss-continue variants, chosen at run time (docs/hardware.md
 * section 12; seed 002, section 4.2): a TLB miss inside the host's window
 * continues the write at the pointer the host keeps in LLCM; the PATLB and
 * polling ("non-intr") are switched by the same CONTROL packet.
 */
#ifndef HANDLERS_VARIANT_H
#define HANDLERS_VARIANT_H

#include "hal/rx.h"

/* Nonzero while the firmware polls for held packets ("non-intr"). */
extern volatile int variant_polling;

/*
 * Called by the Martini interrupt after it served the held packets: while
 * a CONTROL has polling on, stay here with the interrupt off and find
 * packets by reading IRQ_STATUS; when a CONTROL turns it off, turn the
 * interrupt back on and return. Switching here, between packets and never
 * near the idle loop's `wait`, no interrupt can serve a packet twice or be
 * lost.
 */
/* Returns 1 if it stopped polling for a NIC restart the host asked for. */
int variant_poll(void);

void variant_init(void);

/* CONTROL packets: take the LLCM variant block over (own node only). */
enum rx_action variant_control_handle(struct rx_packet *p);

/* RVATLB and PATLB misses (dispatch_register_miss). */
enum rx_action variant_miss_handle(struct rx_packet *p);

#endif
