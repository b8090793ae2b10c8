/*
 * Link framing between boards (docs/hardware.md, "Link"): each packet travels
 * in a frame on a stream socket. Big-endian.
 */
#ifndef DIMMNET1_LINK_H
#define DIMMNET1_LINK_H

#define DN1_LINK_MAGIC        0x444e4c31u  /* "DNL1" */
#define DN1_LINK_FRAME_HDR    16u          /* magic u32, size u32, vtime_ns u64 */

/*
 * Timing (docs/hardware.md, "Timing"): control frames of just a header.
 * The switch grants each board virtual time up to vtime_ns; a board that
 * got there says so and pauses until the next grant.
 */
#define DN1_LINK_MAGIC_GRANT   0x444e4731u  /* "DNG1": switch -> board */
#define DN1_LINK_MAGIC_REACHED 0x444e5231u  /* "DNR1": board -> switch */
/*
 * "DNB1": board -> switch, a DNR1 from a board still booting (its firmware
 * never READY since power-on), with no frame in flight to it. While every
 * board says so and the switch holds no frame, the switch grants a boot
 * quantum; a board sends nothing that leaves before the end of a grant it
 * got after a DNB1 (docs/hardware.md, "Timing", "Boot quanta").
 */
#define DN1_LINK_MAGIC_BOOTING 0x444e4231u

/* Modeled link: 500 MB/s (2 ns a byte), fixed latencies (docs, "Timing"). */
#define DN1_LINK_NS_PER_BYTE   2u
#define DN1_WIRE_NS            50u   /* cable and SerDes, each way */
#define DN1_SWITCH_NS          140u  /* RHiNET-3/SW's reported latency */
/* On-the-fly paths (paper's estimates): an AOTF store to its packet leaving,
 * and an OTF packet's arrival to its data in memory. */
#define DN1_AOTF_TX_NS         105u
#define DN1_OTF_RX_NS          90u
/*
 * The conservative paths (paper, seed 002: every packet but AOTF's goes
 * to the receive circuit made for RHiNET, which is why the prototype
 * missed low latency). The send circuit: a packet built in on-chip memory
 * (a BOTF window, the firmware's SRAM image, a remote read's answer, RDMA
 * after its start-up) leaves this long after its kick; the receive
 * circuit: a packet without OTF (ACKs and NACKs too) enters the receive
 * pipeline this long after it arrived. Assumptions, from RHiNET-2/NI's
 * 1.74 us host to host (Martini on 64-bit/66 MHz PCI, RDMA in hardwired
 * logic): less what this model charges on the same path (750 ns) and two
 * PCI crossings the DIMM avoids (240 ns), split evenly
 * (docs/hardware.md section 9).
 */
#define DN1_BOTF_TX_NS         375u
#define DN1_RHINET_RX_NS       375u
/*
 * The DIMM (paper, Table 1: 100 MHz, 64 bits wide): 8 bytes every 10 ns,
 * so bytes cost 1.25 ns each. At that rate the host fills a BOTF window or
 * an RDMA descriptor through the slot, the NIC reads what RDMA sends from
 * host receive memory after a start-up (descriptor fetch and first access;
 * an assumption), and writes what it receives before the packet's ACK can
 * leave.
 */
#define DN1_DIMM_NS(bytes)     (((uint64_t)(bytes) * 10u + 7u) / 8u)
#define DN1_RDMA_START_NS      200u
/* A board stops at a horizon within one instruction (32 ns) and one
 * wide-access charge (20 ns); further past it, frames could land late. */
#define DN1_SYNC_QUANTUM_SLACK_NS 64
/* Shortest modeled link delay: a header-only (32-byte) packet. */
#define DN1_LINK_MIN_DELAY_NS  (2 * DN1_WIRE_NS + DN1_SWITCH_NS + 32 * DN1_LINK_NS_PER_BYTE)
/* Virtual time the switch grants at a time. Frames routed at horizon H left
 * at or after H - quantum, so they arrive at or after H + slack: a board
 * that stopped within the slack past H gets every frame before it is due. */
#define DN1_SYNC_QUANTUM_NS    (DN1_LINK_MIN_DELAY_NS - DN1_SYNC_QUANTUM_SLACK_NS)
/* Virtual time granted at a time while every board boots (DNB1): no frame
 * can leave before its end, so no lookahead limits it. At most the host's
 * epoch (DN1_HOST_EPOCH_NS, hostbus.h): a host in step never acts inside a
 * boot quantum, so its first request is not deferred. */
#define DN1_SYNC_BOOT_QUANTUM_NS 96000

#endif
