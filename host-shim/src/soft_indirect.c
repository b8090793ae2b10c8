/*
 * The receiving side of "MP by soft indirect" (dn.h; docs/hardware.md
 * section 13): this node's pointer slots in its LLCM user area. The
 * sending side is dn_soft_indirect_write() (send.c).
 */
#include <stddef.h>
#include "internal.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/soft_indirect.h"

int dn_soft_slot_ok(uint32_t slot_off)
{
    return slot_off >= DN1_LLCM_NIC_RESERVED &&
           slot_off <= DN1_LLCM_SIZE - sizeof(struct dn1_soft_slot) &&
           (slot_off & (DN1_SOFT_SLOT_ALIGN - 1)) == 0;
}

int dn_soft_slot_set(dn_node *n, uint32_t slot_off, uint64_t target,
                     uint32_t capacity)
{
    if (!n || !dn_soft_slot_ok(slot_off)) {
        return DN_EINVAL;
    }
    uint8_t *slot = n->llcm + slot_off;
    dn_put_le(slot + offsetof(struct dn1_soft_slot, target), target, 8);
    dn_put_le(slot + offsetof(struct dn1_soft_slot, capacity), capacity, 4);
    *dn_llcm32(n, slot_off + offsetof(struct dn1_soft_slot, done)) = 0;
    dn_host_charge(n, DN_HOST_STORE, 3);       /* target, capacity, done */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);   /* set before what follows */
    return DN_OK;
}

int dn_soft_done(dn_node *n, uint32_t slot_off, uint32_t *done)
{
    if (!n || !done || !dn_soft_slot_ok(slot_off)) {
        return DN_EINVAL;
    }
    *done = dn_ld32(n, slot_off + offsetof(struct dn1_soft_slot, done));
    return DN_OK;
}
