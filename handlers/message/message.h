/* Message exchange on the indirect write (paper, steps 1-7). */
#ifndef HANDLERS_MESSAGE_H
#define HANDLERS_MESSAGE_H

#include "hal/rx.h"

/* Boot: resume every sender's conversation from what the firmware before
 * left in chip SRAM (message_save) and return 1; else forget them all (no
 * setup taken over, no post pending, no notice posted) and return 0. */
int message_init(void);

/* Leaving for a NIC restart (between packets): save every sender's
 * conversation and each port's notice count for the next firmware. */
void message_save(void);

/*
 * A MESSAGE packet (docs/hardware.md section 10), for the host port its
 * dst names: each port has its own control block, slots and notice queue
 * ("Host ports"). The first packet of a message picks its place: a user
 * buffer the host posted for this sender (zero copy), else free space in
 * the sender's system buffer, else NACK BUFFER_FULL (the paper's overflow
 * value) or TOO_LONG. Every packet lands at that place + its offset; once
 * the last is written, a notice goes to the port's queue. Packets are
 * taken in f_seq order: one that landed already is ACKed again without a
 * write (RX_DONE), one ahead of its turn is NACKed SEQUENCE. Nothing is
 * ever written outside the buffers the host registered for the sender.
 */
enum rx_action message_handle(struct rx_packet *p);

#endif
