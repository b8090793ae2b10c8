/* Uncached (kseg1) access to the board's physical addresses. */
#ifndef HAL_MMIO_H
#define HAL_MMIO_H

#include <stdint.h>

/* An add, not an or: the same for every physical address (all below
 * 512 MiB), and the compiler folds base + offset + 0xa0000000 into one
 * lui and the load's offset, where an or cost two more instructions an
 * access. */
#define KSEG1(pa)  (0xa0000000u + (uint32_t)(pa))

static inline uint32_t mmio_read32(uint32_t pa)
{
    return *(volatile uint32_t *)KSEG1(pa);
}

static inline void mmio_write32(uint32_t pa, uint32_t v)
{
    *(volatile uint32_t *)KSEG1(pa) = v;
}

static inline uint8_t mmio_read8(uint32_t pa)
{
    return *(volatile uint8_t *)KSEG1(pa);
}

static inline void mmio_write8(uint32_t pa, uint8_t v)
{
    *(volatile uint8_t *)KSEG1(pa) = v;
}

#endif
