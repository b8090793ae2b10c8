/* NIC address space reads and writes for handlers (see hal/nicmem.h). */
#include "hal/nicmem.h"
#include "hal/byteorder.h"
#include "hal/martini.h"
#include "hal/mmio.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/shared_mem.h"

/*
 * Processor address of @len bytes at NIC address @addr, or 0 if they are
 * unaligned or not wholly inside one of the two memories. LLCM through its
 * host-order view (*swap = 0: the bridge swaps); host receive memory in
 * memory order (*swap = 1: the processor must).
 */
static uint32_t nic_pa(uint64_t addr, unsigned len, int *swap)
{
    if ((addr & (len - 1u)) != 0 || !dn1_raddr_readable(addr, len)) {
        return 0;
    }
    *swap = addr < DN1_RADDR_LLCM;
    return *swap ? DN1_HOSTMEM_BASE + (uint32_t)addr
                 : DN1_LLCM_HOST_ORDER_BASE + (uint32_t)(addr - DN1_RADDR_LLCM);
}

static uint32_t load32(uint32_t pa, int swap)
{
    uint32_t v = mmio_read32(pa);

    return swap ? hal_swap32(v) : v;
}

int hal_nic_read_u64(uint64_t addr, uint64_t *value)
{
    int swap;
    uint32_t pa = nic_pa(addr, 8, &swap);

    if (!pa) {
        return -1;
    }
    /* Two 32-bit bus reads (the processor is 32-bit), low word first. */
    uint32_t lo = load32(pa, swap);
    uint32_t hi = load32(pa + 4, swap);
    *value = (uint64_t)hi << 32 | lo;
    return 0;
}

int hal_nic_read_u32(uint64_t addr, uint32_t *value)
{
    int swap;
    uint32_t pa = nic_pa(addr, 4, &swap);

    if (!pa) {
        return -1;
    }
    *value = load32(pa, swap);
    return 0;
}

/* hal_llcm_* and hal_hostmem_* mask their offsets (nicmem.h, inline). */
_Static_assert((DN1_LLCM_SIZE & (DN1_LLCM_SIZE - 1)) == 0, "LLCM size a power of two");
_Static_assert((DN1_HOSTMEM_SIZE & (DN1_HOSTMEM_SIZE - 1)) == 0, "receive memory a power of two");

int hal_nic_write_u32(uint64_t addr, uint32_t value)
{
    int swap;
    uint32_t pa = nic_pa(addr, 4, &swap);

    if (!pa) {
        return -1;
    }
    mmio_write32(pa, swap ? hal_swap32(value) : value);
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
