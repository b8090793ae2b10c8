/*
 * The paper's counting barrier as the paper built it (brief, "Counting
 * barrier", steps 1-6; docs/hardware.md section 11, "The paper's barrier"):
 * only its steps, over state pre-built in chip SRAM. The hardened barrier
 * (barrier.h) stays beside it, as ours.
 */
#ifndef HANDLERS_BARRIER_PAPER_H
#define HANDLERS_BARRIER_PAPER_H

#include <stdint.h>
#include "hal/rx.h"

/* Boot: every group's counter block disarmed, unless resuming after a
 * host-asked NIC restart (chip SRAM carries on). */
void barrier_paper_init(int resume);

/* Disarm group @g (its image area is being taken by the hardened barrier):
 * a release then sends nothing. */
void barrier_paper_withdraw(unsigned g);

/*
 * A BARRIER_PAPER packet. An arrival (raddr DN1_BARP_RADDR(g)): handed back
 * at once (RX_DONE: step 3), the counter decremented (step 4); at zero the
 * pre-built completions sent (step 5) and the counter re-armed (step 6).
 * Nothing else is checked: not the sender, not a duplicate, not whether
 * the group is set up (a counter never set up only counts down from 0).
 * The counter node's own set-up (raddr DN1_BARP_SETUP_RADDR(g)) builds the
 * state; any other raddr is NACKed BARRIER_SETUP. Returns RX_RELEASED,
 * RX_DONE (a set-up taken) or RX_NACK.
 */
enum rx_action barrier_paper_handle(struct rx_packet *p);

#endif
