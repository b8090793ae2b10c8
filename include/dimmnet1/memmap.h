/*
 * DIMMnet-1 board: physical memory map of the Martini on-chip processor.
 * Contract: docs/hardware.md, "Memory map". Shared by firmware, board model and
 * host shim; plain C11, no dependencies.
 */
#ifndef DIMMNET1_MEMMAP_H
#define DIMMNET1_MEMMAP_H

/* Processor local memory: firmware .data, .bss, heap and stack. */
#define DN1_LOCAL_BASE        0x00000000u
#define DN1_LOCAL_SIZE        0x00100000u   /* 1 MiB */

/* Host receive memory (DIMM side), seen by the processor through an aperture. */
#define DN1_HOSTMEM_BASE     0x04000000u
#define DN1_HOSTMEM_SIZE     0x01000000u   /* 16 MiB */
/* The same memory in host order (since 1.33; as DN1_LLCM_HOST_ORDER_BASE). */
#define DN1_HOSTMEM_HOST_ORDER_BASE 0x05000000u

/* Martini register block (32-bit accesses only). */
#define DN1_REGS_BASE        0x10000000u
#define DN1_REGS_SIZE        0x00001000u
/*
 * The held packet's payload (RX_PAYLOAD) again, read-only, in host order
 * (since 1.33): a 32-bit load at offset o returns the little-endian word
 * the sender's host stored at payload byte o, without the processor's swap.
 */
#define DN1_RX_PAYLOAD_HOST_ORDER_BASE 0x10001000u

/* Low-latency common memory (LLCM), shared with the host. */
#define DN1_LLCM_BASE        0x11000000u
#define DN1_LLCM_SIZE        0x00010000u   /* 64 KiB */

/*
 * LLCM again, through the bridge's byte-lane swap: a load here returns the
 * little-endian value the host stored at the same offset (and a store
 * leaves one the host reads as stored), so the big-endian processor reads
 * host-written pointers and counters without swapping bytes itself.
 */
#define DN1_LLCM_HOST_ORDER_BASE 0x11100000u

/* BOTF window memory, shared with the host: 16 BOTF windows, the AOTF
 * channel table and the RDMA descriptors (shared_mem.h). */
#define DN1_WINDOW_BASE      0x12000000u
#define DN1_WINDOW_SIZE      0x00004000u   /* 16 KiB */

/*
 * On-chip SRAM of the Martini chip, reached over its internal bus: barrier
 * counters, packets the firmware pre-builds and sends (TX_SRAM_OFF).
 */
#define DN1_CHIP_SRAM_BASE   0x13000000u
#define DN1_CHIP_SRAM_SIZE   0x00010000u   /* 64 KiB */
/* The same SRAM in host order (since 1.33): a packet image's payload words
 * written here are the little-endian values the receiving host reads. */
#define DN1_CHIP_SRAM_HOST_ORDER_BASE 0x13100000u

/*
 * The TLBs, on-chip memories the processor maintains directly (big-endian
 * 32-bit words, docs/hardware.md "Translation and protection"):
 * RVATLB 64 entries of 16 bytes, PATLB 64 entries of 8 bytes.
 */
#define DN1_RVATLB_BASE      0x13800000u
#define DN1_RVATLB_ENTRIES   64u
#define DN1_RVATLB_ENTRY     16u
#define DN1_PATLB_BASE       0x13801000u
#define DN1_PATLB_ENTRIES    64u
#define DN1_PATLB_ENTRY      8u
#define DN1_TLB_V            0x80000000u  /* word 0: entry valid */
#define DN1_TLB_W            0x40000000u  /* word 0: writes allowed */
#define DN1_TLB_R            0x20000000u  /* word 0: remote reads allowed (contract 1.22) */

/* Console UART: 16550-compatible, byte registers at stride 1. */
#define DN1_UART_BASE        0x1f100000u
#define DN1_UART_SIZE        0x00000008u

/* Boot flash: the firmware image (-bios) is loaded here; reset vector at its start. */
#define DN1_FLASH_BASE       0x1fc00000u
#define DN1_FLASH_SIZE       0x00400000u   /* 4 MiB */

/*
 * NIC address space: what a packet's remote address names at the receiver.
 * Host receive memory at 0; LLCM at 4 GiB, whose first DN1_LLCM_NIC_RESERVED
 * bytes (the NIC's own completion queue) no packet may write.
 */
#define DN1_RADDR_HOSTMEM        0x000000000ull
#define DN1_RADDR_LLCM           0x100000000ull
#define DN1_LLCM_NIC_RESERVED    0x2000u

/* Does [raddr, raddr + len) lie wholly in one writable memory? */
static inline int dn1_raddr_writable(unsigned long long raddr, unsigned long len)
{
    if (raddr <= DN1_HOSTMEM_SIZE) {
        return len <= DN1_HOSTMEM_SIZE - raddr;
    }
    if (raddr >= DN1_RADDR_LLCM + DN1_LLCM_NIC_RESERVED &&
        raddr <= DN1_RADDR_LLCM + DN1_LLCM_SIZE) {
        return len <= DN1_RADDR_LLCM + DN1_LLCM_SIZE - raddr;
    }
    return 0;
}

/* Does [raddr, raddr + len) lie wholly in one memory the NIC's processor can
 * read (host receive memory, or all of LLCM)? Indirect-write pointers do. */
static inline int dn1_raddr_readable(unsigned long long raddr, unsigned long len)
{
    if (raddr <= DN1_HOSTMEM_SIZE) {
        return len <= DN1_HOSTMEM_SIZE - raddr;
    }
    if (raddr >= DN1_RADDR_LLCM && raddr <= DN1_RADDR_LLCM + DN1_LLCM_SIZE) {
        return len <= DN1_RADDR_LLCM + DN1_LLCM_SIZE - raddr;
    }
    return 0;
}

/* CPU interrupt lines (MIPS Cause.IP bit numbers). */
#define DN1_IRQ_MARTINI      2             /* IP2: packet held for firmware */
#define DN1_IRQ_UART         3             /* IP3: console UART */

/* Core clock of the Martini chip (and of its processor). */
#define DN1_CORE_HZ          50000000u

#endif
