/*
 * The paper's miss-continue variants, chosen at run time (docs/hardware.md
 * section 12; seed 002, section 4.2): a TLB miss inside the host's window
 * continues the write at the pointer the host keeps in LLCM; the PATLB and
 * polling ("non-intr") are switched by the same CONTROL packet.
 */
#ifndef HANDLERS_VARIANT_H
#define HANDLERS_VARIANT_H

#include "hal/rx.h"

/* Nonzero while the firmware polls for held packets: the idle loop then
 * turns the interrupt off itself and polls (CONTROL only turns it on). */
extern volatile int variant_polling;

void variant_init(void);

/* CONTROL packets: take the LLCM variant block over (own node only). */
enum rx_action variant_control_handle(struct rx_packet *p);

/* RVATLB and PATLB misses (dispatch_register_miss). */
enum rx_action variant_miss_handle(struct rx_packet *p);

#endif
