/*
 * DIMMnet-1 packet format on the link (docs/hardware.md, "Packet format").
 * All multi-byte fields on the wire are big-endian (network order).
 */
#ifndef DIMMNET1_PACKET_H
#define DIMMNET1_PACKET_H

#include <stdint.h>

#define DN1_PKT_VERSION        1u
#define DN1_PKT_HDR_SIZE       32u
#define DN1_BOTF_MAX_PAYLOAD   464u     /* bound set by window memory (paper, Sec. 5) */
#define DN1_RDMA_MAX_PAYLOAD   2048u    /* RDMA has no window bound; this is ours */
#define DN1_PKT_MAX_PAYLOAD    DN1_RDMA_MAX_PAYLOAD
#define DN1_PKT_MAX_SIZE       (DN1_PKT_HDR_SIZE + DN1_PKT_MAX_PAYLOAD)

/* Byte offsets of header fields on the wire. */
#define DN1_OFF_VERSION   0   /* u8  */
#define DN1_OFF_TYPE      1   /* u8  */
#define DN1_OFF_FLAGS     2   /* u8  */
#define DN1_OFF_REASON    3   /* u8: NACK reason, 0 otherwise */
#define DN1_OFF_SRC       4   /* u16 source node */
#define DN1_OFF_DST       6   /* u16 destination node */
#define DN1_OFF_LEN       8   /* u16 payload length, at most DN1_PKT_MAX_PAYLOAD */
#define DN1_OFF_SEQ       10  /* u16 sender's sequence number */
#define DN1_OFF_TAG       12  /* u32 sender's cookie, echoed by ACK/NACK */
#define DN1_OFF_RADDR     16  /* u64 remote address */
#define DN1_OFF_XOFF      24  /* u32 byte offset of this payload in its transfer */
#define DN1_OFF_CRC       28  /* u32 CRC-32 of header (this field as 0) + payload */

/*
 * Packet types. The hardware implements PUSH, ACK and NACK; every other value
 * stops the receive pipeline and interrupts the processor (paper, step 2).
 */
#define DN1_TYPE_PUSH            0x01u  /* remote direct write */
#define DN1_TYPE_ACK             0x02u  /* write done at the receiver */
#define DN1_TYPE_NACK            0x03u  /* refused; reason in DN1_OFF_REASON */
#define DN1_TYPE_READ_REQ        0x04u  /* remote read: raddr, length in xoff,
                                           payload = u64 (BE) reply address */
#define DN1_TYPE_READ_RSP        0x05u  /* its data, to the reply address */
/* The firmware's types (0x40 up) are in fw_types.h: the board never reads
 * them, so a new handler's type rebuilds no QEMU. */

/* Destinations from DN1_MCAST_BASE up name multicast groups of the switch:
 * group g is dst DN1_MCAST_BASE + g. Multicast packets are never ACKed. */
#define DN1_MCAST_BASE     0xff00u

/* A unicast address (contract 1.27) names a node and one of its host ports
 * (shared_mem.h): node | port << DN1_PORT_SHIFT, below DN1_ADDR_UNICAST_END.
 * Switches route on the node; port 0 is the address of old. */
#define DN1_PORT_SHIFT       12
#define DN1_ADDR_NODE_MASK   0x0fffu
#define DN1_ADDR_UNICAST_END 0x4000u

static inline unsigned dn1_addr_node(uint16_t addr)
{
    return addr & DN1_ADDR_NODE_MASK;
}

static inline unsigned dn1_addr_port(uint16_t addr)
{
    return addr >> DN1_PORT_SHIFT;
}
#define DN1_MCAST_GROUPS   256u

/* Flags. */
#define DN1_FLAG_ACK_REQ   0x01u  /* receiver answers ACK after the write */
#define DN1_FLAG_OTF       0x02u  /* made by AOTF from one host store (1-8 bytes);
                                     a PUSH with it goes to the Mini-OTF receiver */
#define DN1_FLAG_VA        0x04u  /* raddr is a remote virtual address:
                                     context << 48 | 48-bit VA, via RVATLB */
#define DN1_FLAG_FSEQ      0x08u  /* soft indirect: the firmware takes the
                                     transfer's packets in f_seq order */
#define DN1_AOTF_MAX_PAYLOAD 8u

/* Remote virtual addresses (flag VA): a context (protection domain) and a VA. */
#define DN1_RVA(ctx, va)   ((uint64_t)(ctx) << 48 | ((uint64_t)(va) & 0xffffffffffffull))
#define DN1_RVA_CTX(rva)   ((uint16_t)((rva) >> 48))
#define DN1_RVA_VA(rva)    ((rva) & 0xffffffffffffull)
#define DN1_PAGE_SHIFT     12u

/* NACK reasons. */
#define DN1_NACK_NONE          0u
#define DN1_NACK_RANGE         1u  /* write outside the receiver's memory */
#define DN1_NACK_BAD_POINTER   2u  /* indirect write: pointer slot unreadable */
#define DN1_NACK_NO_HANDLER    3u  /* no firmware handler for this type */
#define DN1_NACK_NO_FIRMWARE   4u  /* reserved: firmware not running */
#define DN1_NACK_PROTECTION    5u  /* a TLB entry forbids the write */
#define DN1_NACK_NO_TRANSLATION 6u /* TLB miss the firmware could not serve */
/* Message exchange (firmware, docs/hardware.md section 10). */
#define DN1_NACK_BUFFER_FULL   7u  /* sender's system buffer (or the notice queue)
                                      has no room now: retry after a backoff */
#define DN1_NACK_TOO_LONG      8u  /* longer than the whole system buffer and no
                                      user buffer posted for it: retry */
#define DN1_NACK_NO_BUFFER     9u  /* receiver set up nothing for this sender */
#define DN1_NACK_SEQUENCE      10u /* f_seq ahead of the expected one: a packet
                                      before it is missing; resend from there */
#define DN1_NACK_BAD_MESSAGE   11u /* offset or length contradicts its message */
#define DN1_NACK_BAD_PATH      12u /* not sendable as a message: OTF, VA, no ACK_REQ;
                                      a barrier packet: VA, to a group, under 4 bytes */
/* Counting barrier (firmware, docs/hardware.md section 11). */
#define DN1_NACK_BARRIER_SETUP  13u /* raddr names no barrier group set up here (the paper's
                                       barrier: no counter, or a set-up refused) */
#define DN1_NACK_BARRIER_MEMBER 14u /* the sender is not a member of the group */
#define DN1_NACK_BARRIER_EPOCH  15u /* epoch neither the one counted nor the last released */
#define DN1_NACK_BAD_CONTROL    16u /* control: not from this node, or an unusable variant block */
#define DN1_NACK_BAD_ATOMIC     17u /* atomic: unknown op or datatype, unaligned target,
                                       malformed packet (firmware, docs/hardware.md section 15) */
#define DN1_NACK_INCARNATION    18u /* message: the packet's incarnation is not the conversation
                                       in force: the sender starts a new one (section 10) */
#define DN1_NACK_NOT_RESIDENT   19u /* registered, but that part is not on the card now: the
                                       host was told (fault ring) and moves it there; retry
                                       after a backoff (section 14, "Paged registrations") */

/*
 * May a host or the firmware originate a packet of @type? Not type 0, and not
 * ACK, NACK or READ_RSP: those are the hardware's own answers.
 */
static inline int dn1_type_sendable(uint8_t type)
{
    return type != 0 && type != DN1_TYPE_ACK && type != DN1_TYPE_NACK &&
           type != DN1_TYPE_READ_RSP;
}

/* Flags a host or the firmware may set (the NIC sets OTF itself). */
#define DN1_FLAGS_SENDABLE (DN1_FLAG_ACK_REQ | DN1_FLAG_VA | DN1_FLAG_FSEQ)

/*
 * What the firmware may send from a chip-SRAM image (TX_CMD): what a host
 * may, an ACK without payload or flags (soft indirect answers in
 * software), and a READ_RSP without flags (a remote atomic's old value,
 * section 15). Hosts still cannot forge answers.
 */
static inline int dn1_fw_sendable(uint8_t type, uint8_t flags, uint16_t len)
{
    if (type == DN1_TYPE_ACK) {
        return len == 0 && flags == 0;
    }
    if (type == DN1_TYPE_READ_RSP) {
        return flags == 0;
    }
    return dn1_type_sendable(type) && !(flags & ~DN1_FLAGS_SENDABLE);
}

/* Unpacked header: the form every component works with. */
struct dn1_hdr {
    uint8_t  version;
    uint8_t  type;
    uint8_t  flags;
    uint8_t  reason;
    uint16_t src;
    uint16_t dst;
    uint16_t len;
    uint16_t seq;
    uint32_t tag;
    uint64_t raddr;
    uint32_t xoff;
    uint32_t crc;
};

#endif
