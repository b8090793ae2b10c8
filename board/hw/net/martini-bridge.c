/*
 * Martini internal-bus bridge: how the chip's 32-bit processor reaches the
 * 64-bit-wide memories (host receive memory aperture, LLCM, window memory,
 * on-chip SRAM, and the TLB memories).
 *
 * Why: the paper notes that the R3000-class processor is 32 bits wide while
 * most of the chip's resources are 64 bits wide, so its accesses to them
 * take extra cycles. Mapped as plain RAM, those accesses would cost the
 * processor nothing beyond the instruction. The board therefore maps each
 * such memory into the processor's address space through an I/O region that
 * reads and writes the memory's bytes unchanged and, under -icount, advances
 * the virtual clock by DN1_WIDE_ACCESS_NS per access (one 50 MHz core cycle,
 * a modeled figure). The memories themselves stay RAM regions: the device
 * model and the host shim use them directly, at no charge.
 * Contract: docs/hardware.md, "Timing".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/seqlock.h"
#include "qemu/timer.h"
#include "hw/core/cpu.h"
#include "sysemu/cpu-timers.h"
#include "softmmu/timers-state.h"
#include "hw/net/martini-bridge.h"

void martini_charge_ns(int64_t ns)
{
    CPUState *cpu = current_cpu;

    /* Only the processor pays, and only where time is instruction-counted. */
    if (ns <= 0 || !icount_enabled() || !cpu) {
        return;
    }
    /*
     * QEMU_CLOCK_VIRTUAL under icount is qemu_icount_bias plus the executed
     * instructions scaled by the shift; advance the bias as icount's own
     * clock warp does (softmmu/icount.c). TCG runs an I/O access as the last
     * instruction of its block with the instruction count exact, so the
     * clock moves at the same guest instruction on every run.
     */
    seqlock_write_lock(&timers_state.vm_clock_seqlock,
                       &timers_state.vm_clock_lock);
    qatomic_set_i64(&timers_state.qemu_icount_bias,
                    timers_state.qemu_icount_bias + ns);
    seqlock_write_unlock(&timers_state.vm_clock_seqlock,
                         &timers_state.vm_clock_lock);
    /*
     * The vCPU's instruction budget was computed against the next timer
     * deadline at the old clock. Leave the execution loop after this
     * instruction so that the round-robin loop runs any timer now due and
     * computes a new budget (accel/tcg/tcg-accel-ops-rr.c,
     * icount_prepare_for_run); otherwise charges would carry the clock past
     * deadlines (the CP0 timer, the sync horizon) for the rest of the budget.
     */
    cpu_exit(cpu);
}

static uint64_t martini_bridge_read(void *opaque, hwaddr addr, unsigned size)
{
    MemoryRegion *ram = opaque;
    const uint8_t *p = memory_region_get_ram_ptr(ram);

    martini_charge_ns(DN1_WIDE_ACCESS_NS);
    /* Big-endian device, bytes in memory order: what a RAM mapping gives. */
    return ldn_be_p(p + addr, size);
}

static void martini_bridge_write(void *opaque, hwaddr addr, uint64_t val,
                                 unsigned size)
{
    MemoryRegion *ram = opaque;
    uint8_t *p = memory_region_get_ram_ptr(ram);

    martini_charge_ns(DN1_WIDE_ACCESS_NS);
    stn_be_p(p + addr, size, val);
}

/*
 * The host-order view (DN1_LLCM_HOST_ORDER_BASE): the bridge swaps byte
 * lanes, so a load returns the little-endian value the host stored and a
 * store leaves one the host reads back. Same charge.
 */
static uint64_t martini_bridge_read_host_order(void *opaque, hwaddr addr,
                                               unsigned size)
{
    MemoryRegion *ram = opaque;
    const uint8_t *p = memory_region_get_ram_ptr(ram);

    martini_charge_ns(DN1_WIDE_ACCESS_NS);
    return ldn_le_p(p + addr, size);
}

static void martini_bridge_write_host_order(void *opaque, hwaddr addr,
                                            uint64_t val, unsigned size)
{
    MemoryRegion *ram = opaque;
    uint8_t *p = memory_region_get_ram_ptr(ram);

    martini_charge_ns(DN1_WIDE_ACCESS_NS);
    stn_le_p(p + addr, size, val);
}

/* Any width and alignment RAM would take (qtest too); one charge each. */
#define MARTINI_BRIDGE_ACCESS { \
    .min_access_size = 1, .max_access_size = 8, .unaligned = true }

static const MemoryRegionOps martini_bridge_ops = {
    .read = martini_bridge_read,
    .write = martini_bridge_write,
    .endianness = DEVICE_BIG_ENDIAN,
    .valid = MARTINI_BRIDGE_ACCESS,
    .impl = MARTINI_BRIDGE_ACCESS,
};

static const MemoryRegionOps martini_bridge_host_order_ops = {
    .read = martini_bridge_read_host_order,
    .write = martini_bridge_write_host_order,
    .endianness = DEVICE_BIG_ENDIAN,    /* the swap is done above */
    .valid = MARTINI_BRIDGE_ACCESS,
    .impl = MARTINI_BRIDGE_ACCESS,
};

void martini_bridge_init(MemoryRegion *bridge, Object *owner,
                         const char *name, MemoryRegion *ram, bool host_order)
{
    assert(memory_region_is_ram(ram));
    memory_region_init_io(bridge, owner,
                          host_order ? &martini_bridge_host_order_ops
                                     : &martini_bridge_ops,
                          ram, name, memory_region_size(ram));
}
