/*
 * Layout of the memories the host shares with the NIC (docs/hardware.md,
 * "Shared memories"). Multi-byte values in them are little-endian (host order);
 * the big-endian processor byte-swaps when it reads them.
 */
#ifndef DIMMNET1_SHARED_MEM_H
#define DIMMNET1_SHARED_MEM_H

#include <stdint.h>
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet.h"

/* ---- BOTF window memory: 16 windows; the shim uses two alternately (the
 * paper's), all of them on a board without timing (contract 1.18) ---- */
#define DN1_BOTF_WINDOWS        16u
#define DN1_BOTF_WINDOWS_PAPER  2u
#define DN1_BOTF_WINDOW_STRIDE  512u
#define DN1_BOTF_PAYLOAD_OFF    32u
#define DN1_BOTF_HIGH_OFF       0x1000u   /* windows 4..15, after the tables */

/* Offset of window @w in window memory: 0-3 before the AOTF table, the
 * rest after the RDMA descriptors. */
static inline uint32_t dn1_botf_window_off(unsigned w)
{
    return w < 4 ? w * DN1_BOTF_WINDOW_STRIDE
                 : DN1_BOTF_HIGH_OFF + (w - 4) * DN1_BOTF_WINDOW_STRIDE;
}

struct dn1_botf_hdr {          /* at the start of each window */
    uint8_t  type;
    uint8_t  flags;
    uint16_t dst;
    uint16_t len;              /* payload bytes at DN1_BOTF_PAYLOAD_OFF */
    uint16_t seq;
    uint32_t tag;
    uint32_t xoff;
    uint64_t raddr;
    uint64_t reserved;         /* must be 0 */
};

/* ---- AOTF channel table, in window memory after the two BOTF windows ----
 * The host sets a channel up once; then every store to it is one packet
 * (the reuse of communication control information, paper Sec. 1). */
#define DN1_AOTF_TABLE_OFF      0x800u
#define DN1_AOTF_CHANNELS       32u

struct dn1_aotf_channel {
    uint8_t  type;             /* 0: channel closed */
    uint8_t  flags;            /* only ACK_REQ; the NIC adds OTF */
    uint16_t dst;
    uint32_t size;             /* bytes of remote range; stores must fit */
    uint64_t raddr;            /* remote base address */
    uint64_t reserved[2];      /* must be 0 */
};

/* ---- RDMA descriptors, in window memory after the AOTF table ----
 * The host writes a descriptor and rings the doorbell (host-bus RDMA_POST);
 * the NIC reads the data from this node's host receive memory itself. */
#define DN1_RDMA_DESC_OFF       0xc00u
#define DN1_RDMA_DESCS          16u

struct dn1_rdma_desc {
    uint8_t  type;             /* PUSH or a firmware type */
    uint8_t  flags;            /* only ACK_REQ */
    uint16_t dst;
    uint32_t len;              /* bytes to send, any size the memories allow */
    uint64_t local;            /* source: offset in this node's receive memory */
    uint64_t raddr;            /* PUSH: advances per packet; else fixed (+xoff) */
    uint32_t first_tag;        /* packet i carries tag first_tag + i */
    uint32_t xoff;             /* offset of this descriptor's data in its
                                  transfer: packets carry xoff + their offset */
    uint16_t seq;              /* packet i carries seq + i */
    uint16_t reserved0;        /* must be 0 */
    uint32_t reserved1;        /* must be 0 */
    uint64_t reserved[3];      /* must be 0 */
};

/* ---- LLCM: completion queue written by the NIC, consumed by the host ---- */
#define DN1_LLCM_CQ_PRODUCED    0x0000u  /* u32, NIC: records written so far */
#define DN1_LLCM_CQ_CONSUMED    0x0004u  /* u32, host: records consumed so far */
/* Posted host-bus requests (hostbus.h, DN1_HB_POSTED), counted since the
 * board started (wrapping): HB_FAILED is counted (with the notice sent)
 * before HB_POSTED counts the request. */
#define DN1_LLCM_HB_POSTED      0x0008u  /* u32, NIC: posted requests taken */
#define DN1_LLCM_HB_FAILED      0x000cu  /* u32, NIC: error notices sent */
#define DN1_LLCM_CQ_RING        0x0100u
#define DN1_LLCM_CQ_ENTRIES     256u
#define DN1_LLCM_USER_BASE      0x2000u  /* free for host use; remote writes
                                            may land here (DN1_RADDR_LLCM) */

/* ---- Host ports (contract 1.27): up to DN1_HOST_PORTS_MAX host processes
 * on one board, each on its own host-bus stream, addressed as node | port
 * << DN1_PORT_SHIFT (packet.h); the answers to a port's packets (ACK,
 * NACK, READ_RSP) come back to that port. Port 0's completion queue and posted
 * counters are those above; port p > 0 has the same layout in a block at
 * DN1_LLCM_PORT_BLOCK(p) of the user area (its first DN1_LLCM_PORT_CQ_SIZE
 * bytes refuse remote writes while the board has more than one port),
 * then 256 bytes for its atomics' replies. A port owns a share of the
 * BOTF windows, RDMA descriptors and registration-table entries
 * (dn1_port_share); AOTF channels are port 0's. ---- */
#define DN1_HOST_PORTS_MAX      4u
#define DN1_LLCM_PORT_BASE      0xc000u
#define DN1_LLCM_PORT_STRIDE    0x1200u
#define DN1_LLCM_PORT_CQ_SIZE   0x1100u  /* counters, then the ring at 0x100 */
#define DN1_LLCM_PORT_ATOMIC    0x1100u  /* 256 bytes: the port's atomic replies */
#define DN1_LLCM_PORT_INC       0x0010u  /* u32, host: its processes' incarnation count */

/* LLCM offset of port @p's block: the completion queue's counters are at
 * the same offsets in it as port 0's at LLCM 0. */
static inline uint32_t dn1_llcm_port_block(unsigned p)
{
    return p == 0 ? 0 : DN1_LLCM_PORT_BASE + (p - 1) * DN1_LLCM_PORT_STRIDE;
}

/* Do the @len bytes at LLCM offset @off touch the completion-queue part of
 * a host port's block above 0 on a board of @ports? Remote writes there are
 * refused (the board), and so is a handler's own write a packet asks for
 * (hal_nic_may_write). */
static inline int dn1_llcm_port_cq_hit(unsigned long long off, unsigned long len,
                                       unsigned ports)
{
    for (unsigned p = 1; p < ports; p++) {
        unsigned long long q = dn1_llcm_port_block(p);

        if (off < q + DN1_LLCM_PORT_CQ_SIZE && off + len > q) {
            return 1;
        }
    }
    return 0;
}

/* Would a board of @ports take a remote write of the @len bytes at NIC
 * address @raddr? One writable memory, not a port's completion queue: the
 * HAL's hal_nic_may_write, and its fake's. */
static inline int dn1_raddr_remote_writable(unsigned long long raddr, unsigned long len,
                                            unsigned ports)
{
    return dn1_raddr_writable(raddr, len) &&
           !(raddr >= DN1_RADDR_LLCM &&
             dn1_llcm_port_cq_hit(raddr - DN1_RADDR_LLCM, len, ports));
}

/* Port @p's share [*first, *end) of @count things (windows, descriptors,
 * registration entries) on a board with @ports ports. */
static inline void dn1_port_share(unsigned count, unsigned ports, unsigned p,
                                  unsigned *first, unsigned *end)
{
    *first = count * p / ports;
    *end = count * (p + 1) / ports;
}

#define DN1_CQ_KIND_ACK   1u
#define DN1_CQ_KIND_NACK  2u

struct dn1_cq_rec {
    uint32_t tag;       /* tag of the packet ACKed/NACKed */
    uint8_t  kind;      /* DN1_CQ_KIND_* */
    uint8_t  reason;    /* NACK reason */
    uint16_t src;       /* node that answered */
    uint32_t index;     /* producer index of this record (for checking) */
    uint32_t reserved;
};

#endif
