/* NIC address space reads for handlers (see hal/nicmem.h). */
#include "hal/nicmem.h"
#include "hal/mmio.h"
#include "dimmnet1/memmap.h"

static inline uint32_t swap32(uint32_t v)
{
    return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

int hal_nic_read_u64(uint64_t addr, uint64_t *value)
{
    uint32_t pa;

    if ((addr & 7u) != 0 || !dn1_raddr_readable(addr, 8)) {
        return -1;
    }
    pa = addr < DN1_RADDR_LLCM ? DN1_HOSTMEM_BASE + (uint32_t)addr
                               : DN1_LLCM_BASE + (uint32_t)(addr - DN1_RADDR_LLCM);
    /* Two 32-bit bus reads (the processor is 32-bit); bytes are host order. */
    uint32_t lo = swap32(mmio_read32(pa));
    uint32_t hi = swap32(mmio_read32(pa + 4));
    *value = (uint64_t)hi << 32 | lo;
    return 0;
}
