/*
 * Counting barrier (docs/hardware.md section 11; paper, "counting barrier",
 * steps 1-6): what a BARRIER packet carries, the group descriptors the
 * counter node's host writes in LLCM, and where the firmware keeps counters
 * and completion images in on-chip SRAM. Shared by firmware, shim and tests;
 * plain C11. LLCM fields are little-endian (host order).
 */
#ifndef DIMMNET1_BARRIER_H
#define DIMMNET1_BARRIER_H

#include <stdint.h>

/* Barrier groups one node's firmware counts for at once; members are node
 * ids 0 .. DN1_BAR_MAX_NODE - 1 (a 64-bit set). */
#define DN1_BAR_GROUPS           16u
#define DN1_BAR_MAX_NODE         64u

/*
 * A BARRIER packet (type DN1_TYPE_BARRIER, normally one AOTF store of 4 or
 * 8 bytes): raddr names the group's counter in the counter node's on-chip
 * SRAM (DN1_BAR_RADDR), the payload's first 4 bytes are the sender's epoch
 * (little-endian: the host's store), the rest is ignored.
 */
#define DN1_BAR_SRAM_COUNTERS    0x0000u          /* 32 bytes a group */
#define DN1_BAR_RADDR(g)         ((uint64_t)DN1_BAR_SRAM_COUNTERS + 32u * (g))
#define DN1_BAR_MIN_PAYLOAD      4u

/* Counter block of group g in chip SRAM (firmware's own, big-endian words). */
#define DN1_BAR_CNT_REMAINING    0u   /* members still to arrive this epoch */
#define DN1_BAR_CNT_EPOCH        4u   /* the epoch being counted */
#define DN1_BAR_CNT_ARRIVED_HI   8u   /* members counted this epoch: nodes 63..32 */
#define DN1_BAR_CNT_ARRIVED_LO   12u  /* nodes 31..0 */
#define DN1_BAR_CNT_MEMBERS_HI   16u
#define DN1_BAR_CNT_MEMBERS_LO   20u
#define DN1_BAR_CNT_GEN          24u  /* setup_gen taken over (0: not set up), bit 16:
                                         released once since (a previous epoch exists) */
#define DN1_BAR_CNT_RELEASED_ONCE 0x10000u
#define DN1_BAR_CNT_SIZE         28u  /* member count */

/*
 * Completion images, pre-built in chip SRAM at set-up (step 5): per group,
 * one per possible member (node id i at + 40 i) and the multicast one at
 * + 40 * 64. Each is a 32-byte header and 8 bytes of payload: a PUSH of
 * the released epoch (u32, little-endian) and 4 zero bytes to every
 * member's done word.
 */
#define DN1_BAR_SRAM_IMAGES      0x0400u
#define DN1_BAR_IMAGE_SIZE       40u
#define DN1_BAR_GROUP_IMAGES     0x0a40u          /* 65 images, rounded up */
#define DN1_BAR_IMAGE(g, i)      (DN1_BAR_SRAM_IMAGES + DN1_BAR_GROUP_IMAGES * (g) + \
                                  DN1_BAR_IMAGE_SIZE * (i))
#define DN1_BAR_MCAST_IMAGE      64u              /* image index of the multicast one */
#define DN1_BAR_DONE_BYTES       8u

/* Per group, its members' node ids in ascending order, one byte each, at
 * DN1_BAR_MEMBER_LIST(g): the per-rank release walks only the members. */
#define DN1_BAR_SRAM_LISTS       0xa800u
#define DN1_BAR_MEMBER_LIST(g)   (DN1_BAR_SRAM_LISTS + 64u * (g))

/* Release modes (step 5). */
#define DN1_BAR_MODE_RANKS       0u   /* one completion per member, ascending node id */
#define DN1_BAR_MODE_MCAST       1u   /* one multicast to the switch group */

/*
 * Group descriptor g at DN1_LLCM_BAR_GROUPS + 32 g (LLCM, NIC-reserved
 * part: only the counter node's own host can write it, no packet can). The
 * host writes everything, then bumps setup_gen; the firmware takes a new
 * setup_gen over at the group's next packet (counter re-armed, epoch
 * first_epoch, images built). The mode may change at any time (read at
 * each release); the rest is read at the take-over only.
 */
#define DN1_LLCM_BAR_GROUPS      0x1b00u
struct dn1_bar_group {
    /* host-written */
    uint32_t members_lo;    /* node ids 0..31 that take part */
    uint32_t members_hi;    /* node ids 32..63 */
    uint32_t done_off;      /* LLCM offset of every member's done word (user area, 8-aligned) */
    uint8_t mode;           /* DN1_BAR_MODE_* */
    uint8_t mcast_group;    /* switch group for MODE_MCAST: its members must be the group's */
    uint16_t setup_gen;     /* bumped after writing the rest; 0: not set up */
    /* firmware-written */
    uint16_t taken_gen;     /* the setup_gen in force (0: none yet, or refused) */
    uint16_t reserved;
    uint32_t epoch;         /* the epoch being counted (after each release) */
    uint32_t released;      /* barriers released since the set-up */
    /* host-written */
    uint32_t first_epoch;   /* the first epoch counted after the set-up (0 means 1) */
};
#define DN1_LLCM_BAR_GROUPS_END  (DN1_LLCM_BAR_GROUPS + DN1_BAR_GROUPS * 32u)

/*
 * Combining (docs/hardware.md section 11, "Combining"): the counting
 * barrier carrying one 8-byte value a member, which the firmware combines
 * as the members arrive and sends back with the release, so an integer
 * allreduce of up to 8 bytes costs each member's host one AOTF store and
 * the polling of one word. A combining arrival is an AOTF store of 8 bytes
 * whose raddr says group, epoch, op and type (DN1_BAR_COMB_RADDR: a
 * channel based at the group's first epoch carries the epoch in the
 * store's offset, so the payload is all value); the epoch's first arrival
 * fixes its op and type. A group combines when its mode byte has
 * DN1_BAR_MODE_COMBINE.
 */
#define DN1_BAR_COMB_FLAG        (1ull << 40)
#define DN1_BAR_COMB_GROUP_SHIFT 35u
#define DN1_BAR_COMB_OPT_SHIFT   41u      /* op | type << 3 */
#define DN1_BAR_COMB_RADDR(g, e, op, t) \
    (DN1_BAR_COMB_FLAG | (uint64_t)((op) | (t) << 3) << DN1_BAR_COMB_OPT_SHIFT | \
     (uint64_t)(g) << DN1_BAR_COMB_GROUP_SHIFT | (uint64_t)(uint32_t)(e) << 3)
#define DN1_BAR_COMB_RADDR_END   (1ull << 47)
#define DN1_BAR_COMB_PAYLOAD     8u
/* Mode byte: bit 0 the release kind, as for any group. */
#define DN1_BAR_MODE_KIND_MASK   0x01u
#define DN1_BAR_MODE_COMBINE     0x80u
/* Ops and types (the shim's dn_coll_op and dn_coll_type numbering). The
 * NIC processor has no floating point: integer types only. */
#define DN1_COMB_OP_SUM          0u
#define DN1_COMB_OP_PROD         1u
#define DN1_COMB_OP_MIN          2u
#define DN1_COMB_OP_MAX          3u
#define DN1_COMB_OP_BAND         4u
#define DN1_COMB_OP_BOR          5u
#define DN1_COMB_OP_BXOR         6u
#define DN1_COMB_T_INT32         0u       /* two elements: bytes 0-3, 4-7 */
#define DN1_COMB_T_INT64         1u
#define DN1_COMB_T_UINT64        2u
/* Chip SRAM: group g's running combination of this epoch at
 * DN1_BAR_COMB_ACC(g) (the processor's words: the value's low half, its
 * high half, the epoch's op | type << 3); its completion image (a PUSH of
 * DN1_BAR_COMB_DONE_BYTES to done_off: the result as the host reads it,
 * the released epoch u32, its check u32, dn1_comb_check) at
 * DN1_BAR_COMB_IMAGE(g), sent to each member or to the switch group, dst
 * set at each send. */
#define DN1_BAR_SRAM_COMB_IMAGES 0xb000u
#define DN1_BAR_COMB_IMAGE_SIZE  48u
#define DN1_BAR_COMB_IMAGE(g)    (DN1_BAR_SRAM_COMB_IMAGES + DN1_BAR_COMB_IMAGE_SIZE * (g))
#define DN1_BAR_SRAM_COMB_ACC    0xb300u
#define DN1_BAR_COMB_ACC(g)      (DN1_BAR_SRAM_COMB_ACC + 16u * (g))
#define DN1_BAR_COMB_DONE_BYTES  16u

/* A release's check (bytes 12-15; contract 1.32): the released epoch and
 * the result's two words (lo = bytes 0-3, hi = bytes 4-7, little-endian
 * as the host reads them) mixed, so that a host which loads the epoch
 * word and then the value tells a value a late duplicate of an older
 * release wrote in between (it lands value first). Each step is a
 * bijection of what it mixes in, so a change of one word always changes
 * the check; of both, one time in 2^32. */
static inline uint32_t dn1_comb_check(uint32_t epoch, uint32_t lo, uint32_t hi)
{
    uint32_t h = (epoch * 0x9e3779b1u ^ lo) * 0x85ebca6bu;

    h ^= h >> 13;
    h = (h ^ hi) * 0xc2b2ae35u;
    return h ^ (h >> 16);
}

/*
 * The paper's counting barrier as the paper built it (type
 * DN1_TYPE_BARRIER_PAPER, docs/hardware.md section 11, "The paper's
 * barrier"): only its steps, over state pre-built in chip SRAM. Group g's
 * counter block, 4 big-endian words at DN1_BARP_RADDR(g), is what an
 * arrival's raddr names (any payload, ignored): the count of arrivals
 * still to come, the value it is re-armed with, the SRAM offset of the
 * first completion image and how many images a release sends (1: one
 * multicast; else one per member in ascending node id, consecutive
 * DN1_BAR_IMAGE_SIZE apart). The images lie in group g's image area of
 * the hardened barrier (DN1_BAR_IMAGE(g, k)): a group id is one kind at a
 * time, and setting up either kind withdraws the other's.
 */
#define DN1_BARP_SRAM_COUNTERS   0x0200u          /* 16 bytes a group */
#define DN1_BARP_RADDR(g)        ((uint64_t)DN1_BARP_SRAM_COUNTERS + 16u * (g))
#define DN1_BARP_RADDR_MASK      (16u * (DN1_BAR_GROUPS - 1u))   /* offsets of the 16 */
#define DN1_BARP_CNT_COUNT       0u   /* arrivals still to come */
#define DN1_BARP_CNT_REARM       4u   /* the member count: the count after a release */
#define DN1_BARP_CNT_IMAGES      8u   /* SRAM offset of the first completion image */
#define DN1_BARP_CNT_SENDS       12u  /* images a release sends */

/*
 * Set-up (the counter node's own host only): a DN1_TYPE_BARRIER_PAPER
 * packet from the node to itself (src = dst = its id; BOTF with ACK_REQ)
 * to DN1_BARP_SETUP_RADDR(g), whose payload (little-endian, the host's) is
 * struct dn1_barp_setup. The firmware builds the completion images (a PUSH
 * of DN1_BAR_DONE_BYTES to LLCM done_off on every member, payload
 * DN1_BARP_DONE_VALUE and 4 zero bytes: the same every release) and arms
 * the counter with the member count; it answers DONE (ACK). Refused, NACK
 * BARRIER_SETUP: not from this node to itself, under 16 bytes, no member,
 * a done word outside the LLCM user area or unaligned, a mode above 1.
 */
#define DN1_BARP_SETUP_FLAG      (1ull << 63)
#define DN1_BARP_SETUP_RADDR(g)  (DN1_BARP_SETUP_FLAG | DN1_BARP_RADDR(g))
struct dn1_barp_setup {
    uint32_t members_lo;    /* node ids 0..31 that take part */
    uint32_t members_hi;    /* node ids 32..63 */
    uint32_t done_off;      /* LLCM offset of every member's done word (user area, 8-aligned) */
    uint8_t mode;           /* DN1_BAR_MODE_*: fixed until the next set-up */
    uint8_t mcast_group;    /* switch group for MODE_MCAST */
    uint16_t reserved;
};
#define DN1_BARP_SETUP_BYTES     16u
#define DN1_BARP_DONE_VALUE      1u   /* what a completion writes: the host clears its
                                         done word before it arrives */

#endif
