/*
 * Martini register block (docs/hardware.md, "Registers"). Offsets from
 * DN1_REGS_BASE for the processor; the host reads the same offsets through
 * the host bus (DN1_HB_REG_READ). All registers are 32 bits wide.
 */
#ifndef DIMMNET1_REGS_H
#define DIMMNET1_REGS_H

#define DN1_REG_ID            0x000u  /* RO  DN1_ID_VALUE */
#define DN1_REG_VERSION       0x004u  /* RO  contract version, major << 16 | minor */
#define DN1_REG_NODE_ID       0x008u  /* RO  this board's node number */
#define DN1_REG_LINK_STATUS   0x00cu  /* RO  bit 0: link port 0 connected */
#define DN1_REG_FW_STATUS     0x010u  /* RW  written by firmware, read by host */
#define DN1_REG_IRQ_STATUS    0x014u  /* RO  DN1_IRQ_RX_HELD, DN1_IRQ_RESTART */
#define DN1_REG_IRQ_ENABLE    0x018u  /* RW  mask for IRQ_STATUS */

/* The packet held in the receive pipeline (valid while IRQ_STATUS.RX_HELD). */
#define DN1_REG_RX_HDR0       0x020u  /* RO  version<<24 | type<<16 | flags<<8 | reason */
#define DN1_REG_RX_HDR1       0x024u  /* RO  src<<16 | dst */
#define DN1_REG_RX_HDR2       0x028u  /* RO  len<<16 | seq */
#define DN1_REG_RX_TAG        0x02cu  /* RO  */
#define DN1_REG_RX_RADDR_HI   0x030u  /* RW  remote address, firmware may rewrite */
#define DN1_REG_RX_RADDR_LO   0x034u  /* RW  */
#define DN1_REG_RX_XOFF       0x038u  /* RO  offset of this payload in its transfer */
#define DN1_REG_RX_CMD        0x03cu  /* WO  DN1_RX_CMD_* */
#define DN1_REG_RX_NACK_REASON 0x040u /* RW  reason sent by DN1_RX_CMD_NACK */
#define DN1_REG_RX_CMD_RESULT 0x044u  /* RO  DN1_RX_RESULT_* of the last command */

/* Firmware sends: a packet image pre-built in on-chip SRAM. */
#define DN1_REG_TX_SRAM_OFF   0x050u  /* RW  offset of the image in chip SRAM */
#define DN1_REG_TX_CMD        0x054u  /* WO  DN1_TX_CMD_SEND */
#define DN1_REG_TX_RESULT     0x058u  /* RO  DN1_TX_RESULT_* of the last send */

/* Why the held packet is held, and the address a TLB missed on. */
#define DN1_REG_RX_HOLD_REASON 0x060u /* RO  DN1_HOLD_* */
#define DN1_REG_RX_MISS_HI    0x064u  /* RO  missed address (RVA or NIC address) */
#define DN1_REG_RX_MISS_LO    0x068u  /* RO  */
#define DN1_REG_MMU_CTRL      0x06cu  /* RW  DN1_MMU_PATLB_EN */
#define DN1_REG_TIMING        0x070u  /* RO  DN1_TIMING_*: how this board keeps time */
#define DN1_REG_BOTF_STATUS   0x074u  /* RO  bit w: BOTF window w's packet has not left */
/* What the boot loader (or the board, for -bios) started: image version
 * (major << 16 | minor << 8 | patch) and slot | generation << 8. */
#define DN1_REG_BOOT_VERSION  0x078u  /* RW  */
#define DN1_REG_BOOT_SLOT     0x07cu  /* RW  */
/* Host ports (shared_mem.h): how many host-bus streams the board has. */
#define DN1_REG_HOST_PORTS    0x080u  /* RO  1 .. DN1_HOST_PORTS_MAX */
#define DN1_BOOT_SLOT_MASK    0xffu
#define DN1_BOOT_SLOT_BIOS    0xffu   /* loaded by the board from -bios */
#define DN1_BOOT_GEN_SHIFT    8

#define DN1_HOLD_NONE          0u
#define DN1_HOLD_TYPE          1u  /* a type the hardware does not implement */
#define DN1_HOLD_RVATLB_MISS   2u
#define DN1_HOLD_PATLB_MISS    3u

#define DN1_MMU_PATLB_EN       0x1u  /* check every write against the PATLB */

#define DN1_TIMING_SYNC        0x1u  /* modeled virtual time, kept by the switch */
#define DN1_TIMING_HOST_SYNC   0x2u  /* host requests take effect in virtual time */

/* Counters (RO, wrap at 2^32): what was done, and what was refused and why. */
#define DN1_REG_CNT_BASE      0x100u
#define DN1_CNT_RX_FRAMES        0   /* frames taken from the link */
#define DN1_CNT_RX_PUSH          1   /* hardware PUSH writes done */
#define DN1_CNT_RX_HELD          2   /* packets stopped for firmware */
#define DN1_CNT_RX_CONTINUED     3   /* ... continued by firmware */
#define DN1_CNT_RX_DISCARDED     4   /* ... discarded by firmware */
#define DN1_CNT_RX_NACKED        5   /* ... refused by firmware with a NACK */
#define DN1_CNT_RX_ACK           6   /* ACKs received */
#define DN1_CNT_RX_NACK          7   /* NACKs received */
#define DN1_CNT_TX_PACKETS       8   /* packets sent on the link */
#define DN1_CNT_TX_ACK           9   /* ACKs sent */
#define DN1_CNT_TX_NACK          10  /* NACKs sent */
#define DN1_CNT_ERR_FRAMING      11  /* link frames with a bad magic or size */
#define DN1_CNT_ERR_SHORT        12  /* packets shorter than a header */
#define DN1_CNT_ERR_VERSION      13  /* unknown packet version */
#define DN1_CNT_ERR_LENGTH       14  /* length field disagrees with frame */
#define DN1_CNT_ERR_CRC          15  /* integrity check failed */
#define DN1_CNT_ERR_DST          16  /* packet for another node */
#define DN1_CNT_ERR_RANGE        17  /* write outside receive memory: refused */
#define DN1_CNT_ERR_CQ_FULL      18  /* completion lost: host did not consume */
#define DN1_CNT_ERR_HOSTBUS      19  /* malformed host-bus requests */
#define DN1_CNT_ERR_REG          20  /* register accesses the contract forbids */
#define DN1_CNT_ERR_LINK_DOWN    21  /* packets not sent: link not connected */
#define DN1_CNT_ERR_BOTF         22  /* BOTF kicks refused (bad window header) */
#define DN1_CNT_ERR_STRAY_ACK    23  /* ACK/NACK carrying a payload: refused */
#define DN1_CNT_RX_DONE          24  /* held packets consumed by firmware (IDLE) */
#define DN1_CNT_TX_FW            25  /* packets sent by firmware from chip SRAM */
#define DN1_CNT_ERR_TX           26  /* firmware sends refused (bad image, link) */
#define DN1_CNT_TX_AOTF          27  /* AOTF packets sent (one per host store) */
#define DN1_CNT_RX_OTF           28  /* AOTF PUSHes written by the Mini-OTF receiver */
#define DN1_CNT_ERR_AOTF         29  /* host stores refused (channel, size, range) */
#define DN1_CNT_TX_RDMA          30  /* RDMA packets sent */
#define DN1_CNT_ERR_RDMA         31  /* RDMA descriptors refused */
#define DN1_CNT_RVATLB_MISS      32  /* writes held on an RVATLB miss */
#define DN1_CNT_PATLB_MISS       33  /* writes held on a PATLB miss */
#define DN1_CNT_ERR_PROT         34  /* writes a TLB entry forbids: refused */
#define DN1_CNT_RX_RETRY         35  /* held writes retried after a refill */
#define DN1_CNT_RX_READ_REQ      36  /* remote reads served */
#define DN1_CNT_RX_READ_RSP      37  /* remote read data received and written */
#define DN1_CNT_ERR_SYNC         38  /* timing: a frame came after its arrival time */
#define DN1_CNT_ERR_CONTROL      39  /* link control frames not expected in this mode */
#define DN1_CNT_ERR_GROUP        40  /* group packets only one node may answer: dropped */
#define DN1_CNT_DIMM_HOST_WAITS  41  /* timing: host accesses that waited for the NIC's */
#define DN1_CNT_DIMM_NIC_WAITS   42  /* timing: NIC accesses that waited for the DIMM */
#define DN1_CNT_COUNT            43
#define DN1_REG_CNT(i)        (DN1_REG_CNT_BASE + 4u * (i))

/* Payload of the held packet, byte-addressed, read-only. */
#define DN1_REG_RX_PAYLOAD    0x800u  /* .. 0x800 + DN1_PKT_MAX_PAYLOAD - 1 = 0xfff */

#define DN1_ID_VALUE          0x4d415254u  /* "MART" */
#define DN1_CONTRACT_VERSION  0x00010021u  /* 1.33 */

#define DN1_LINK_UP           0x1u
#define DN1_IRQ_RX_HELD       0x1u
/* The host asked for a NIC restart (NIC_RESTART): the firmware saves what
 * must survive and clears FW_STATUS.READY, then the processor restarts. */
#define DN1_IRQ_RESTART       0x2u
#define DN1_RESTART_GRACE_NS  100000000ull   /* then it restarts anyway */

/* FW_STATUS as written by firmware: version in the high half, state below. */
#define DN1_FW_READY          0x1u
#define DN1_FW_FAILED         0x2u
#define DN1_FW_VERSION_SHIFT  16

#define DN1_RX_CMD_CONTINUE   1u  /* do the write at RX_RADDR, ACK if requested */
#define DN1_RX_CMD_DISCARD    2u  /* drop the packet silently (counted) */
#define DN1_RX_CMD_NACK       3u  /* drop it and NACK the source with RX_NACK_REASON */
#define DN1_RX_CMD_DONE       4u  /* firmware consumed it: core IDLE, no write,
                                     ACK if requested */
#define DN1_RX_CMD_RETRY      5u  /* after a TLB miss: translate again */
#define DN1_RX_CMD_WRITE      6u  /* write at RX_RADDR without an ACK (the
                                     firmware answers); out of range: NACK */

#define DN1_TX_CMD_SEND       1u

#define DN1_TX_RESULT_OK         0u
#define DN1_TX_RESULT_BAD_IMAGE  1u  /* unaligned, outside SRAM, len > 464, bad type */
#define DN1_TX_RESULT_LINK_DOWN  2u
#define DN1_TX_RESULT_BAD_CMD    3u

#define DN1_RX_RESULT_OK       0u
#define DN1_RX_RESULT_NO_PACKET 1u  /* command written while nothing was held */
#define DN1_RX_RESULT_BAD_CMD  2u  /* unknown command value */
#define DN1_RX_RESULT_RANGE    3u  /* CONTINUE target outside memory: NACKed */
#define DN1_RX_RESULT_HELD     4u  /* RETRY missed again: still held */
#define DN1_RX_RESULT_PROT     5u  /* RETRY found the write forbidden: NACKed */

#endif
