/* NIC address space reads and writes for handlers (see hal/nicmem.h). */
#include "hal/nicmem.h"
#include "hal/martini.h"
#include "hal/mmio.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/shared_mem.h"

/*
 * Processor address of @len bytes at NIC address @addr, or 0 if they are
 * unaligned or not wholly inside one of the two memories. Both through
 * their host-order views (the bridge swaps byte lanes; contract 1.33).
 */
static uint32_t nic_pa(uint64_t addr, unsigned len)
{
    if ((addr & (len - 1u)) != 0 || !dn1_raddr_readable(addr, len)) {
        return 0;
    }
    return addr < DN1_RADDR_LLCM
           ? DN1_HOSTMEM_HOST_ORDER_BASE + (uint32_t)addr
           : DN1_LLCM_HOST_ORDER_BASE + (uint32_t)(addr - DN1_RADDR_LLCM);
}

int hal_nic_read_u64(uint64_t addr, uint64_t *value)
{
    uint32_t pa = nic_pa(addr, 8);

    if (!pa) {
        return -1;
    }
    /* Two 32-bit bus reads (the processor is 32-bit), low word first. */
    uint32_t lo = mmio_read32(pa);
    uint32_t hi = mmio_read32(pa + 4);
    *value = (uint64_t)hi << 32 | lo;
    return 0;
}

int hal_nic_read_u32(uint64_t addr, uint32_t *value)
{
    uint32_t pa = nic_pa(addr, 4);

    if (!pa) {
        return -1;
    }
    *value = mmio_read32(pa);
    return 0;
}

/* hal_llcm_* and hal_hostmem_* mask their offsets (nicmem.h, inline). */
_Static_assert((DN1_LLCM_SIZE & (DN1_LLCM_SIZE - 1)) == 0, "LLCM size a power of two");
_Static_assert((DN1_HOSTMEM_SIZE & (DN1_HOSTMEM_SIZE - 1)) == 0, "receive memory a power of two");

int hal_nic_write_u32(uint64_t addr, uint32_t value)
{
    uint32_t pa = nic_pa(addr, 4);

    if (!pa) {
        return -1;
    }
    mmio_write32(pa, value);
    return 0;
}

int hal_nic_may_write(uint64_t addr, uint32_t len)
{
    return dn1_raddr_remote_writable(addr, len, hal_host_ports());
}

int hal_nic_may_read(uint64_t addr, uint32_t len)
{
    return dn1_raddr_readable(addr, len);
}
