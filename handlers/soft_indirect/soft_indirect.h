/*
 * "MP by soft indirect" (paper, section 4.2): a transfer received wholly in
 * firmware (docs/hardware.md section 13, include/dimmnet1/soft_indirect.h).
 */
#ifndef HANDLERS_SOFT_INDIRECT_H
#define HANDLERS_SOFT_INDIRECT_H

#include "hal/rx.h"

/* Forget every transfer in progress. */
void soft_indirect_init(void);

/*
 * A SOFT_INDIRECT packet: read the slot's pointer and capacity (refused:
 * BAD_POINTER), check f_seq if the packet asks (duplicate: ACKed again,
 * not written; gap: SEQUENCE) and the room (BAD_MESSAGE), have the NIC
 * write the payload without an ACK (RX_WRITE), count the transfer's bytes,
 * post the slot's notice once all have arrived, and send the ACK.
 */
enum rx_action soft_indirect_handle(struct rx_packet *p);

#endif
