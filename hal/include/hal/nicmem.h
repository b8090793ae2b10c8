/*
 * The NIC address space as the processor reads it (docs/hardware.md, "NIC
 * address space"): host receive memory and LLCM, through their apertures, in
 * the host's (little-endian) byte order. Addresses are remote addresses as
 * packets carry them.
 */
#ifndef HAL_NICMEM_H
#define HAL_NICMEM_H

#include <stdint.h>

/*
 * Read the little-endian 64-bit word at NIC address @addr (host receive
 * memory or LLCM; the paper keeps indirect-write pointers in LLCM). Returns 0,
 * or -1 (nothing read) when @addr is unaligned or the word lies outside both.
 */
int hal_nic_read_u64(uint64_t addr, uint64_t *value);

#endif
