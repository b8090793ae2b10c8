/*
 * Host words on the big-endian processor: what the host stores in shared
 * memories, and what a host store carries in a payload, is little-endian
 * (docs/hardware.md section 2); a processor word load sees it swapped.
 */
#ifndef HAL_BYTEORDER_H
#define HAL_BYTEORDER_H

#include <stdint.h>

static inline __attribute__((always_inline)) uint32_t hal_swap32(uint32_t v)
{
    return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

#endif
