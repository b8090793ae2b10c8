/*
 * Remote atomics (docs/hardware.md section 15): packet type ATOMIC, served
 * by the target's firmware on registered memory (mr.h), the old value sent
 * back as a READ_RSP. Op and datatype numbers equal libfabric's enum fi_op
 * and enum fi_datatype for the ones served. Shared by firmware, shim and
 * tests; plain C11.
 */
#ifndef DIMMNET1_ATOMIC_H
#define DIMMNET1_ATOMIC_H

#include <stdint.h>
#include "dimmnet1/packet.h"

/* Ops: "old" is the target's value before, "v" the operand, "c" compare. */
#define DN1_AOP_MIN        0u   /* min(old, v) */
#define DN1_AOP_MAX        1u   /* max(old, v) */
#define DN1_AOP_SUM        2u   /* old + v (wraps) */
                                /* 3 (FI_PROD): not served */
#define DN1_AOP_LOR        4u   /* old || v */
#define DN1_AOP_LAND       5u   /* old && v */
#define DN1_AOP_BOR        6u   /* old | v */
#define DN1_AOP_BAND       7u   /* old & v */
#define DN1_AOP_LXOR       8u   /* !old != !v */
#define DN1_AOP_BXOR       9u   /* old ^ v */
#define DN1_AOP_READ       10u  /* old (nothing written) */
#define DN1_AOP_SWAP       11u  /* v: atomic write, old returned (FI_ATOMIC_WRITE) */
#define DN1_AOP_CSWAP      12u  /* v if c == old */
#define DN1_AOP_CSWAP_NE   13u  /* v if c != old */
#define DN1_AOP_CSWAP_LE   14u  /* v if c <= old */
#define DN1_AOP_CSWAP_LT   15u  /* v if c <  old */
#define DN1_AOP_CSWAP_GE   16u  /* v if c >= old */
#define DN1_AOP_CSWAP_GT   17u  /* v if c >  old */
#define DN1_AOP_MSWAP      18u  /* (v & c) | (old & ~c) */
#define DN1_AOP_COUNT      19u
static inline int dn1_aop_ok(unsigned op)
{
    return op < DN1_AOP_COUNT && op != 3u;
}

/* Datatypes: integers of 4 and 8 bytes, naturally aligned. */
#define DN1_ADT_INT32      4u
#define DN1_ADT_UINT32     5u
#define DN1_ADT_INT64      6u
#define DN1_ADT_UINT64     7u
static inline int dn1_adt_ok(unsigned dt)
{
    return dt >= DN1_ADT_INT32 && dt <= DN1_ADT_UINT64;
}
static inline unsigned dn1_adt_size(unsigned dt)
{
    return dt >= DN1_ADT_INT64 ? 8u : 4u;
}
static inline int dn1_adt_signed(unsigned dt)
{
    return dt == DN1_ADT_INT32 || dt == DN1_ADT_INT64;
}

/*
 * The ATOMIC packet: raddr = key << 48 | VA of the target (flag VA not
 * set), sent without ACK_REQ, seq = the initiator's atomic number towards
 * this target in its session; payload (little-endian, 32 bytes):
 */
#define DN1_ATOMIC_LEN         32u
#define DN1_ATOMIC_OFF_OP      0u   /* u8 op */
#define DN1_ATOMIC_OFF_DT      1u   /* u8 datatype */
                                    /* u16 reserved, 0 */
#define DN1_ATOMIC_OFF_SESSION 4u   /* u32 the initiator's incarnation (random, not 0) */
#define DN1_ATOMIC_OFF_REPLY   8u   /* u64 the requester's NIC address for the old value */
#define DN1_ATOMIC_OFF_OPERAND 16u  /* u64 v (low 4 bytes for 32-bit types) */
#define DN1_ATOMIC_OFF_COMPARE 24u  /* u64 c */

/*
 * Exactly once: the target keeps, per source (port 0 of a node below
 * DN1_ATOMIC_SOURCES, or host port 1..3 of a node below
 * DN1_ATOMIC_PORT_NODES, contract 1.27), the session, the next seq and the
 * answers of the last DN1_ATOMIC_WINDOW seqs; an initiator has at most
 * DN1_ATOMIC_WINDOW atomics unanswered towards one target.
 */
#define DN1_ATOMIC_SOURCES     256u
#define DN1_ATOMIC_PORT_NODES  64u
#define DN1_ATOMIC_SLOTS       (DN1_ATOMIC_SOURCES + 3u * DN1_ATOMIC_PORT_NODES)

/* The target's slot for source address @src; -1: none (refused). */
static inline int dn1_atomic_slot(uint16_t src)
{
    unsigned node = dn1_addr_node(src), port = dn1_addr_port(src);

    if (port == 0) {
        return node < DN1_ATOMIC_SOURCES ? (int)node : -1;
    }
    return port < 4 && node < DN1_ATOMIC_PORT_NODES
           ? (int)(DN1_ATOMIC_SOURCES + (port - 1) * DN1_ATOMIC_PORT_NODES + node) : -1;
}
#define DN1_ATOMIC_WINDOW      8u

/* Chip SRAM: the READ_RSP image the firmware answers with (40 bytes). */
#define DN1_ATOMIC_SRAM_RSP    0xac40u

#endif
