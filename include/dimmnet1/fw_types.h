/*
 * Packet types the firmware serves (docs/hardware.md section 4, "Types"):
 * the hardware implements none of them, so it stops its receive pipeline
 * for each and interrupts the processor, whose dispatcher hands the packet
 * to the handler registered for its type (firmware/main.c). A new
 * handler's type goes here. The board never includes this header (it
 * knows the hardware's types only, packet.h), so a type added here
 * rebuilds the firmware, shim and tests, never QEMU. Plain C11.
 */
#ifndef DIMMNET1_FW_TYPES_H
#define DIMMNET1_FW_TYPES_H

#define DN1_TYPE_INDIRECT_WRITE  0x40u  /* firmware: remote indirect write */
#define DN1_TYPE_MESSAGE         0x41u  /* firmware: message exchange */
#define DN1_TYPE_BARRIER         0x42u  /* firmware: counting barrier (reserved) */
#define DN1_TYPE_CONTROL         0x43u  /* firmware: take the variant block (own node only) */
#define DN1_TYPE_SOFT_INDIRECT   0x44u  /* firmware: a transfer received in software */
#define DN1_TYPE_BARRIER_PAPER   0x45u  /* firmware: the paper's counting barrier, its steps only */
#define DN1_TYPE_ATOMIC          0x46u  /* firmware: remote atomic on registered memory (atomic.h) */
#define DN1_TYPE_MR_SYNC         0x47u  /* firmware: own host only: forget RVATLB fills of a key (mr.h) */

#endif
