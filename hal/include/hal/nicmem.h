/*
 * The NIC address space as the processor reads and writes it
 * (docs/hardware.md, "NIC address space"): host receive memory and LLCM,
 * through their apertures, in the host's (little-endian) byte order.
 * Addresses are remote addresses as packets carry them. The firmware may
 * also write the NIC-reserved part of LLCM (its statistics, the message
 * notice queue's producer count, slot words it owns); no packet can.
 */
#ifndef HAL_NICMEM_H
#define HAL_NICMEM_H

#include <stdint.h>
#include "hal/access.h"
#if HAL_ACCESS_INLINE
#include "dimmnet1/memmap.h"
#endif

/*
 * Read the little-endian 64-bit word at NIC address @addr (host receive
 * memory or LLCM; the paper keeps indirect-write pointers in LLCM). Returns 0,
 * or -1 (nothing read) when @addr is unaligned or the word lies outside both.
 */
int hal_nic_read_u64(uint64_t addr, uint64_t *value);

/* The same for 32-bit words (4-aligned). */
int hal_nic_read_u32(uint64_t addr, uint32_t *value);

/* Write a little-endian 32-bit word at @addr (4-aligned, inside host receive
 * memory or LLCM); -1 and nothing written otherwise. It writes where the
 * firmware may (the NIC-reserved part of LLCM too), so a handler that
 * writes an address a packet named checks hal_nic_may_write first. */
int hal_nic_write_u32(uint64_t addr, uint32_t value);

/*
 * Would the hardware take a remote write of the @len bytes at NIC address
 * @addr (hal_nic_may_write), or a remote read (hal_nic_may_read)? Exactly
 * its own checks: host receive memory, the LLCM user area but for the
 * completion-queue part of a host port's block above 0 (docs/hardware.md
 * sections 2 and 7); reads anywhere in either memory. A handler that does
 * the work itself, at an address a packet named (or a slot a packet named
 * points at), must not do more than the hardware would: docs/firmware.md,
 * "Handlers that write by themselves". 1 yes, 0 no.
 */
int hal_nic_may_write(uint64_t addr, uint32_t len);
int hal_nic_may_read(uint64_t addr, uint32_t len);

/*
 * The firmware's own fixed places in LLCM (statistics, message control,
 * slots, notices): the 32-bit word at byte offset @off, taken modulo the
 * LLCM and 4-aligned, so never outside it. No checks beyond that: a few
 * instructions where the checked calls above cost forty (they range-check
 * 64-bit addresses that packets carry).
 */
#if HAL_ACCESS_INLINE
#define HAL_LLCM_WORD(off) (DN1_LLCM_HOST_ORDER_BASE + ((off) & (DN1_LLCM_SIZE - 4u)))
HAL_ACCESS uint32_t hal_llcm_read32(uint32_t off)
{
    return mmio_read32(HAL_LLCM_WORD(off));
}

HAL_ACCESS void hal_llcm_write32(uint32_t off, uint32_t value)
{
    mmio_write32(HAL_LLCM_WORD(off), value);
}
#else
uint32_t hal_llcm_read32(uint32_t off);
void hal_llcm_write32(uint32_t off, uint32_t value);
#endif

/*
 * Host receive memory's little-endian 32-bit word at offset @off, taken
 * modulo the memory and 4-aligned: for offsets a handler has checked
 * itself (a remote atomic's target), a few instructions.
 */
#if HAL_ACCESS_INLINE
/* Through receive memory's host-order view (contract 1.33): no swap. */
#define HAL_HOSTMEM_WORD(off) \
    (DN1_HOSTMEM_HOST_ORDER_BASE + ((off) & (DN1_HOSTMEM_SIZE - 4u)))
HAL_ACCESS uint32_t hal_hostmem_read32(uint32_t off)
{
    return mmio_read32(HAL_HOSTMEM_WORD(off));
}

HAL_ACCESS void hal_hostmem_write32(uint32_t off, uint32_t value)
{
    mmio_write32(HAL_HOSTMEM_WORD(off), value);
}
#else
uint32_t hal_hostmem_read32(uint32_t off);
void hal_hostmem_write32(uint32_t off, uint32_t value);
#endif

#endif
