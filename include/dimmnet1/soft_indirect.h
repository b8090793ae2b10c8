/*
 * "MP by soft indirect" (paper, section 4.2, Fig. 2): a transfer received
 * entirely in firmware (docs/hardware.md section 13). Each packet of type
 * SOFT_INDIRECT names a pointer slot in the receiver's LLCM user area and
 * the transfer's length; the firmware reads the pointer, checks the packet
 * against the slot's capacity (flow control), has the NIC write the payload
 * without a hardware ACK (RX_CMD WRITE: the DMA the firmware starts), counts
 * the transfer's bytes, posts a notice in the slot once all have arrived,
 * and sends the ACK packet itself. With flag FSEQ the packets of a transfer
 * carry consecutive f_seq numbers from its first packet's, and the firmware
 * takes them in that order only (duplicates ACKed again, gaps NACKed);
 * without it the firmware trusts the network's order.
 */
#ifndef DIMMNET1_SOFT_INDIRECT_H
#define DIMMNET1_SOFT_INDIRECT_H

#include <stdint.h>

/* raddr of a SOFT_INDIRECT packet: the transfer's length and the slot. */
#define DN1_SOFT_RADDR(total_len, slot_off) \
    ((uint64_t)(uint32_t)(total_len) << 32 | (uint32_t)(slot_off))
#define DN1_SOFT_TOTAL(raddr)     ((uint32_t)((raddr) >> 32))
#define DN1_SOFT_SLOT(raddr)      ((uint32_t)(raddr))

/*
 * Pointer slot: 16 bytes, 16-aligned, in the receiver's LLCM user area
 * (slot_off is its LLCM offset). Little-endian, host-written but `done`.
 */
struct dn1_soft_slot {
    uint64_t target;        /* NIC address where offset 0 of a transfer lands */
    uint32_t capacity;      /* bytes from target a transfer may fill */
    uint32_t done;          /* firmware: transfers complete (all bytes written) */
};
#define DN1_SOFT_SLOT_ALIGN      16u

/* Chip SRAM: the firmware builds each ACK here (after the barrier's part). */
#define DN1_SOFT_SRAM_ACK        0xac00u

#endif
