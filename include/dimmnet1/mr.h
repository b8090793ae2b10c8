/*
 * Registered memory (docs/hardware.md section 14): the registration table
 * a node's host writes in the NIC-reserved part of its LLCM (no packet can
 * write it), from which the firmware fills the RVATLB on a miss or refuses.
 * Shared by firmware, shim and tests; plain C11.
 *
 * Entry i (16 bytes, little-endian) at DN1_MR_LLCM_OFF + 16 i:
 *   u64 rva_base    key << 48 | VA of the first byte (48 bits); key 0: free
 *   u32 nic_off     host receive memory offset of the first byte
 *   u32 len_access  bits 24..0 length (1 .. 16 MiB), bit 30 W, bit 29 R
 * The host writes nic_off and len_access, then rva_base (one 8-byte store)
 * last; it frees an entry by storing 0 in rva_base, then sends MR_SYNC.
 */
#ifndef DIMMNET1_MR_H
#define DIMMNET1_MR_H

#include <stdint.h>

#define DN1_MR_LLCM_OFF      0x1d40u
#define DN1_MR_ENTRIES       32u
#define DN1_MR_ENTRY         16u
#define DN1_MR_LLCM_END      (DN1_MR_LLCM_OFF + DN1_MR_ENTRIES * DN1_MR_ENTRY)

/* Byte offsets in an entry. */
#define DN1_MR_RVA_BASE      0u
#define DN1_MR_NIC_OFF       8u
#define DN1_MR_LEN_ACCESS    12u

#define DN1_MR_LEN_MASK      0x01ffffffu   /* bits 24..0 */
#define DN1_MR_LEN_MAX       0x01000000u   /* 16 MiB */
#define DN1_MR_ACCESS_W      0x40000000u   /* remote writes and atomics */
#define DN1_MR_ACCESS_R      0x20000000u   /* remote reads and atomics (they return the old value) */

/*
 * Paged registrations (contract 1.28): an entry with NR (bit 28) and
 * length bits 24..0 zero names a registration that is not on the card
 * as a whole: nic_off holds its length in bytes (1 .. 2^32 - 1). The
 * host moves pieces of it onto the card as entries of their own (same
 * key, resident); an access that only the NR entry holds is NACKed
 * NOT_RESIDENT and posted in the fault ring, from which the host learns
 * what to move.
 */
#define DN1_MR_NR            0x10000000u

/* The fault ring (LLCM, NIC-reserved part, written by firmware): a count
 * of faults posted so far (u32; a firmware start goes on from the value
 * it finds), then DN1_MR_FAULT_SLOTS records, fault i in slot i mod
 * slots: u64 key << 48 | VA, u32 bytes, u32 0. Written record first,
 * count last; a record DN1_MR_FAULT_SLOTS behind is overwritten (the
 * refused initiator retries, and its next refusal posts it again). */
#define DN1_MR_FAULTS_OFF    0x1f40u
#define DN1_MR_FAULT_RING    0x1f48u
#define DN1_MR_FAULT_SLOTS   8u
#define DN1_MR_FAULT_SIZE    16u
_Static_assert(DN1_MR_FAULTS_OFF >= DN1_MR_LLCM_OFF + 32u * 16u &&
               DN1_MR_FAULT_RING + DN1_MR_FAULT_SLOTS * DN1_MR_FAULT_SIZE <= 0x2000u,
               "fault ring after the table, in the NIC-reserved part");

/* Registration keys (RVATLB contexts the firmware fills from this table)
 * have bit 15 set; contexts without it keep the variant handler (section 12). */
#define DN1_MR_KEY_BIT       0x8000u
#define DN1_MR_KEY_OK(k)     (((k) & DN1_MR_KEY_BIT) != 0 && (k) <= 0xffffu)

/* RVATLB entries the firmware fills from the table, in turn; 0..31 stay
 * for other uses. */
#define DN1_MR_TLB_FIRST     32u
#define DN1_MR_TLB_COUNT     32u

#endif
