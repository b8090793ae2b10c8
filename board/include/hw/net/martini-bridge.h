/*
 * Martini internal-bus bridge: the 32-bit processor's view of the chip's
 * 64-bit-wide memories, each access charged in virtual time.
 * Contract: docs/hardware.md, "Timing".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_MARTINI_BRIDGE_H
#define HW_NET_MARTINI_BRIDGE_H

#include "exec/memory.h"

/*
 * Extra cost of one processor access (load or store, any width) to a
 * 64-bit-wide resource: one core cycle at 50 MHz. The paper says only that
 * such accesses cost extra cycles; one cycle is this model's assumption.
 */
#define DN1_WIDE_ACCESS_NS  20

/*
 * Advance the virtual clock by @ns at the current guest instruction, as
 * an access that stalls the processor would. Only under -icount and only
 * for accesses by the CPU (not qtest, not device code); otherwise nothing.
 */
void martini_charge_ns(int64_t ns);

/*
 * Initialise @bridge, an I/O region of @ram's size that gives the processor
 * @ram's bytes unchanged (as if @ram were mapped directly), or with
 * @host_order its little-endian values (byte lanes swapped for the
 * big-endian processor), and charges DN1_WIDE_ACCESS_NS per access. @ram
 * stays RAM for the device model, which reaches it through
 * memory_region_get_ram_ptr().
 */
void martini_bridge_init(MemoryRegion *bridge, Object *owner,
                         const char *name, MemoryRegion *ram, bool host_order);

#endif
