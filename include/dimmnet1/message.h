/*
 * Message exchange on the indirect write (docs/hardware.md section 10; paper,
 * "message exchange", steps 1-7): what the MESSAGE packet's fields mean, and
 * the layout of the firmware's part of LLCM that the receiving host sets up
 * and reads. Shared by firmware, shim and tests; plain C11.
 *
 * Every multi-byte field in LLCM is little-endian (host order).
 */
#ifndef DIMMNET1_MESSAGE_H
#define DIMMNET1_MESSAGE_H

#include <stdint.h>

/*
 * A MESSAGE packet (type DN1_TYPE_MESSAGE, flag ACK_REQ, sent by BOTF or
 * RDMA): seq is the per-(sender, receiver) packet number f_seq, xoff the
 * payload's offset in its message, tag the sender's cookie (echoed by the
 * ACK/NACK), and raddr the message's envelope: the user tag in bits 63..32,
 * the sender's incarnation in bits 31..24, the message length (below 2^24)
 * in bits 23..0. The receive slot is the sender's own (chosen by src), so a
 * sender cannot aim at another sender's buffers.
 *
 * The incarnation names the sender's conversation: a restarted sender (or
 * one told INCARNATION) starts a newer one at f_seq 0, and the receiving
 * firmware refuses packets of any older one (docs/hardware.md section 10).
 * Newer is serial: (int8_t)(new - old) > 0.
 */
#define DN1_MSG_LEN_MAX           0x00ffffffu
#define DN1_MSG_RADDR_INC(utag, inc, len) \
    ((uint64_t)(uint32_t)(utag) << 32 | (uint32_t)(uint8_t)(inc) << 24 | \
     ((uint32_t)(len) & DN1_MSG_LEN_MAX))
#define DN1_MSG_RADDR(utag, len)  DN1_MSG_RADDR_INC(utag, 0, len)
#define DN1_MSG_UTAG(raddr)       ((uint32_t)((raddr) >> 32))
#define DN1_MSG_INC(raddr)        ((uint8_t)((raddr) >> 24))
#define DN1_MSG_LEN(raddr)        ((uint32_t)(raddr) & DN1_MSG_LEN_MAX)

/* Senders a receiver can set up: node ids 0 .. DN1_MSG_SENDERS - 1. */
#define DN1_MSG_SENDERS          64u

/*
 * Host ports (contract 1.29, docs/hardware.md section 10, "Host ports"): on
 * a board of K host ports every port receives messages on its own: control
 * block at dn1_llcm_msg_ctrl(p), a share of DN1_MSG_SENDERS / K slots (port
 * p's from slot p * share). Every board of a cluster has the same K; the
 * sender at address node | port << 12 (packet.h) is sender node * K + port
 * of every share, so nodes below DN1_MSG_SENDERS / K^2 can send (K 1: every
 * node below 64, as before ports; K 2: 16 nodes, 4: 4 nodes).
 */
#define DN1_MSG_PORT_SHIFT       12u      /* DN1_PORT_SHIFT (packet.h) */
/* 64 / K and 64 / K^2 for K = 1..4, a byte each (0 for any other K):
 * the firmware's message handler asks on every packet, and a division
 * costs the core some 35 cycles. */
static inline unsigned dn1_msg_share(unsigned ports)
{
    return ports - 1u < 4u ? (0x10152040u >> 8 * (ports - 1u)) & 0xffu : 0u;
}

static inline unsigned dn1_msg_nodes(unsigned ports)
{
    return ports - 1u < 4u ? (0x04071040u >> 8 * (ports - 1u)) & 0xffu : 0u;
}

/* The sender number of address @addr on boards of @ports, or -1 if that
 * address cannot send messages. */
static inline int dn1_msg_sender(unsigned addr, unsigned ports)
{
    unsigned node = addr & ((1u << DN1_MSG_PORT_SHIFT) - 1), port = addr >> DN1_MSG_PORT_SHIFT;

    return port < ports && node < dn1_msg_nodes(ports) ? (int)(node * ports + port) : -1;
}

/* ... and back: the address of sender @s. */
static inline unsigned dn1_msg_sender_addr(unsigned s, unsigned ports)
{
    return s / ports | (s % ports) << DN1_MSG_PORT_SHIFT;
}

/* Chip SRAM (the firmware's): what the message handler leaves for the next
 * firmware across a host-asked NIC restart (docs/hardware.md section 10). */
#define DN1_MSG_SRAM_HANDOVER      0xc000u
#define DN1_MSG_SRAM_HANDOVER_SIZE 0x2000u
#define DN1_MSG_HANDOVER_MAGIC     0x444e4d48u   /* "DNMH" */

/* A sender has at most this many packets unanswered towards one receiver;
 * an f_seq at most this far behind the expected one is a duplicate. */
#define DN1_MSG_WINDOW           1024u

/*
 * Firmware statistics (LLCM, NIC-reserved part, written by firmware only):
 * u32 magic, u32 count, then count u32 counters (DN1_FWST_*), wrapping.
 */
#define DN1_LLCM_FWSTATS         0x1100u
#define DN1_FWSTATS_MAGIC        0x54535746u   /* "FWST" */
#define DN1_FWST_DISPATCHED       0  /* packets given to a handler */
#define DN1_FWST_NO_HANDLER       1  /* types without a handler: NACKed */
#define DN1_FWST_TLB_MISSES       2  /* writes held on a TLB miss */
#define DN1_FWST_NO_TRANSLATION   3  /* ... without a miss handler: NACKed */
#define DN1_FWST_MSG_PACKETS      4  /* message packets written, in order */
#define DN1_FWST_MSG_DELIVERED    5  /* messages complete: notices posted */
#define DN1_FWST_MSG_USER         6  /* ... of which into a posted user buffer */
#define DN1_FWST_MSG_DUPLICATES   7  /* packets that had landed already: ACKed, not written */
#define DN1_FWST_NACK_BUFFER_FULL 8
#define DN1_FWST_NACK_TOO_LONG    9
#define DN1_FWST_NACK_NO_BUFFER   10
#define DN1_FWST_NACK_SEQUENCE    11
#define DN1_FWST_NACK_BAD_MESSAGE 12
#define DN1_FWST_NACK_BAD_PATH    13
#define DN1_FWST_NACK_BAD_POINTER 14
#define DN1_FWST_MSG_SETUPS       15 /* sender setups taken over */
#define DN1_FWST_MSG_ABANDONED    16 /* partial messages dropped by a new setup */
/* Counting barrier (section 11). */
#define DN1_FWST_BAR_COUNTED      17 /* barrier packets counted */
#define DN1_FWST_BAR_DUPLICATES   18 /* ... from a member counted already: not again */
#define DN1_FWST_BAR_RELEASED     19 /* barriers released (completions sent) */
#define DN1_FWST_BAR_RESENT       20 /* completions sent again to a member that asked */
#define DN1_FWST_BAR_SETUPS       21 /* group set-ups taken over */
#define DN1_FWST_NACK_BAR_SETUP   22
#define DN1_FWST_NACK_BAR_MEMBER  23
#define DN1_FWST_NACK_BAR_EPOCH   24
#define DN1_FWST_BAR_TX_ERRORS    25 /* completion sends the NIC refused (link down) */
/* Soft indirect (section 13). */
#define DN1_FWST_SOFT_PACKETS     26 /* packets written (RX_WRITE) and ACKed */
#define DN1_FWST_SOFT_DONE        27 /* transfers complete: slot notices posted */
#define DN1_FWST_SOFT_DUPLICATES  28 /* f_seq behind: ACKed again, not written */
#define DN1_FWST_SOFT_REFUSED     29 /* NACKed (any reason) */
#define DN1_FWST_SOFT_TX_ERRORS   30 /* ACK sends the NIC refused (link down) */
#define DN1_FWST_SOFT_ENDED       31 /* transfers in progress ended for a new one
                                        (no free entry): their next packet is refused */
/* Registered memory (section 14). */
#define DN1_FWST_MR_FILLS         32 /* RVATLB entries filled from the table (RETRY) */
#define DN1_FWST_MR_CONTINUES     33 /* edge pages: continued at the NIC address, checked to the byte */
#define DN1_FWST_MR_REFUSED       34 /* misses NACKed PROTECTION: no registration, or no access */
#define DN1_FWST_MR_SYNCS         35 /* MR_SYNC served */
/* Remote atomics (section 15). */
#define DN1_FWST_ATOMIC_APPLIED   36 /* atomics performed (the old value sent) */
#define DN1_FWST_ATOMIC_DUPLICATES 37 /* seqs answered already: answered again, not applied */
#define DN1_FWST_ATOMIC_SEQUENCE  38 /* NACKed SEQUENCE: ahead of the next, or an unknown session */
#define DN1_FWST_ATOMIC_STALE     39 /* older than the window: discarded */
#define DN1_FWST_ATOMIC_REFUSED   40 /* NACKed PROTECTION or BAD_ATOMIC */
#define DN1_FWST_ATOMIC_TX_ERRORS 41 /* READ_RSP sends the NIC refused (link down) */
/* Restart-safe conversations (section 10). */
#define DN1_FWST_MSG_INCARNATIONS 42 /* conversations started by a newer incarnation */
#define DN1_FWST_NACK_INCARNATION 43 /* packets of no conversation in force: NACKed */
#define DN1_FWST_MSG_COLD_STARTS  44 /* RESTART notices: cold starts under a host's setup */
/* Paged registrations (section 14). */
#define DN1_FWST_MR_NOT_RESIDENT  45 /* misses and atomics NACKed NOT_RESIDENT (a fault posted) */
#define DN1_FWST_COUNT            46

/*
 * Message control block (LLCM, NIC-reserved part): the receiving host sets
 * up the notice queue, then writes DN1_MSG_ENABLE. Host-written but for
 * nq_produced.
 */
#define DN1_LLCM_MSG_CTRL        0x1200u
#define DN1_MSG_ENABLE           0x3147534du   /* "MSG1" */
struct dn1_msg_ctrl {
    uint32_t enable;        /* DN1_MSG_ENABLE: messages may be received */
    uint32_t nq_off;        /* LLCM offset of the notice queue (user area, 32-aligned) */
    uint32_t nq_entries;    /* a power of two, 1 .. DN1_MSG_NQ_MAX */
    uint32_t nq_consumed;   /* host: notices consumed */
    uint32_t nq_produced;   /* firmware: notices posted */
    uint32_t incarnation;   /* the sending host's: the last incarnation its
                               conversations took; kept here, in the NIC, across
                               host restarts (the firmware never reads it) */
    uint32_t reserved[2];
};
#define DN1_MSG_NQ_MAX           1024u
/* Receiving port @p's control block (32 bytes each, port 0's the one above). */
static inline uint32_t dn1_llcm_msg_ctrl(unsigned p)
{
    return DN1_LLCM_MSG_CTRL + 32u * p;
}

/*
 * Receive slot of sender s at DN1_LLCM_MSG_SLOTS + 32 s (LLCM, NIC-reserved
 * part: no packet can write it). The paper's pointer is derived from it:
 * the posted user buffer if one waits (step 5's "not a system buffer
 * address"), else the start of free space in the system buffer, else the
 * overflow value (step 4). The firmware writes only its last word and a half.
 */
#define DN1_LLCM_MSG_SLOTS       0x1300u
struct dn1_msg_slot {
    /* host-written */
    uint32_t sysbuf_off;    /* system buffer: offset in host receive memory, 8-aligned */
    uint32_t sysbuf_size;   /* bytes, a multiple of 8; 0: user buffers only */
    uint32_t freed;         /* ring bytes the host has released so far (wraps) */
    uint32_t post_off;      /* user buffer for the next message: offset in receive memory */
    uint32_t post_len;      /* its size */
    uint16_t setup_gen;     /* host bumps it after (re)writing the system buffer; 0: none */
    uint16_t post_gen;      /* host bumps it after writing post_off/post_len */
    /* firmware-written */
    uint16_t post_taken;    /* the post_gen the firmware has used */
    uint16_t next_seq;      /* f_seq of the next packet it will accept */
    uint32_t delivered;     /* messages delivered since the setup */
};
#define DN1_LLCM_MSG_SLOTS_END   (DN1_LLCM_MSG_SLOTS + DN1_MSG_SENDERS * 32u)
/* Receiving port @p's slot of sender @s (< dn1_msg_share(@ports)). */
static inline uint32_t dn1_llcm_msg_slot(unsigned p, unsigned ports, unsigned s)
{
    return DN1_LLCM_MSG_SLOTS + 32u * (p * dn1_msg_share(ports) + s);
}

/* Ring entries are 8-aligned; one that would run past the end starts over
 * at the buffer's start, the skipped tail counted in its span. */
#define DN1_MSG_ALIGN            8u

/*
 * Receive notice (32 bytes) in the notice queue, posted by the firmware once
 * a message's last byte is in memory; notice k at nq_off + 32 (k mod nq_entries).
 */
struct dn1_msg_notice {
    uint16_t src;
    uint8_t flags;          /* DN1_NOTICE_USER: it landed in the posted user buffer */
    uint8_t reserved0;
    uint32_t utag;          /* user tag from the envelope */
    uint32_t len;           /* message bytes */
    uint32_t addr;          /* where it is: offset in host receive memory */
    uint32_t span;          /* system-buffer bytes it took, padding included; 0 for USER */
    uint32_t msg_no;        /* this sender's message number since its setup, from 0 */
    uint32_t index;         /* k */
    uint16_t setup_gen;     /* the sender's setup it belongs to: the host frees
                               ring space only for notices of the current one */
    uint16_t reserved1;
};
#define DN1_NOTICE_USER          0x01u
/* A cold firmware start under the host's setup: every sender's system
 * buffer and posted user buffer are forgotten, and refused NO_BUFFER until
 * the host sets them up again (src DN1_NOTICE_NO_SENDER, nothing else but
 * index set; docs/hardware.md section 10, "Restarts"). */
#define DN1_NOTICE_RESTART       0x02u
#define DN1_NOTICE_NO_SENDER     0xffffu

#endif
