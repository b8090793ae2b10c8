/*
 * Host receive memory as the processor sees it: through an aperture, in the
 * host's (little-endian) byte order. Addresses are receive-memory offsets,
 * as carried in a packet's remote address field.
 */
#ifndef HAL_HOSTMEM_H
#define HAL_HOSTMEM_H

#include <stdint.h>

/*
 * Read the little-endian 64-bit word at @addr. Returns 0, or -1 (nothing
 * read) when @addr is unaligned or the word lies outside receive memory.
 */
int hal_hostmem_read_u64(uint64_t addr, uint64_t *value);

#endif
