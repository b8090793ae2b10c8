/* NIC address space reads and writes for handlers (see hal/nicmem.h). */
#include "hal/nicmem.h"
#include "hal/byteorder.h"
#include "hal/mmio.h"
#include "dimmnet1/memmap.h"


/* Processor address of @len bytes at NIC address @addr, or 0 if they are
 * unaligned or not wholly inside one of the two memories. */
static uint32_t nic_pa(uint64_t addr, unsigned len)
{
    if ((addr & (len - 1u)) != 0 || !dn1_raddr_readable(addr, len)) {
        return 0;
    }
    return addr < DN1_RADDR_LLCM ? DN1_HOSTMEM_BASE + (uint32_t)addr
                                 : DN1_LLCM_BASE + (uint32_t)(addr - DN1_RADDR_LLCM);
}

int hal_nic_read_u64(uint64_t addr, uint64_t *value)
{
    uint32_t pa = nic_pa(addr, 8);

    if (!pa) {
        return -1;
    }
    /* Two 32-bit bus reads (the processor is 32-bit); bytes are host order. */
    uint32_t lo = hal_swap32(mmio_read32(pa));
    uint32_t hi = hal_swap32(mmio_read32(pa + 4));
    *value = (uint64_t)hi << 32 | lo;
    return 0;
}

int hal_nic_read_u32(uint64_t addr, uint32_t *value)
{
    uint32_t pa = nic_pa(addr, 4);

    if (!pa) {
        return -1;
    }
    *value = hal_swap32(mmio_read32(pa));
    return 0;
}

int hal_nic_write_u32(uint64_t addr, uint32_t value)
{
    uint32_t pa = nic_pa(addr, 4);

    if (!pa) {
        return -1;
    }
    mmio_write32(pa, hal_swap32(value));
    return 0;
}
