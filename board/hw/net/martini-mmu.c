/*
 * Martini translation and protection of remote writes: the RVATLB maps a
 * remote virtual address (flag VA: context << 48 | VA) page by page to the
 * NIC address space; the PATLB, when enabled, must allow every page written.
 * Both are on-chip memories the processor fills itself; a miss stops the
 * pipeline and interrupts it (paper, Sec. 4: RVATLB/PATLB miss-continue).
 * The processor's stores and loads reach them through the internal-bus
 * bridge (martini-bridge.c), charged as accesses to 64-bit-wide memory.
 * Contract: docs/hardware.md, "Translation and protection".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "hw/net/martini.h"
#include "hw/net/martini-bridge.h"

#define PAGE_SIZE_DN1  (1u << DN1_PAGE_SHIFT)
#define PAGE_MASK_DN1  (PAGE_SIZE_DN1 - 1)

/* First valid RVATLB entry for (@ctx, @vpn): its word 0, PPN in *ppn. */
static uint32_t rvatlb_lookup(MartiniState *s, uint16_t ctx, uint64_t vpn,
                              uint32_t *ppn)
{
    const uint8_t *e = memory_region_get_ram_ptr(&s->rvatlb);

    for (unsigned i = 0; i < DN1_RVATLB_ENTRIES; i++, e += DN1_RVATLB_ENTRY) {
        /* ldl_be_p() returns a signed int: take every word as unsigned. */
        uint32_t w0 = ldl_be_p(e);
        uint64_t evpn = (uint64_t)(uint32_t)ldl_be_p(e + 4) << 32 |
                        (uint32_t)ldl_be_p(e + 8);

        if ((w0 & DN1_TLB_V) && (uint16_t)w0 == ctx && evpn == vpn) {
            *ppn = ldl_be_p(e + 12);
            return w0;
        }
    }
    return 0;
}

/* First valid PATLB entry for page @ppn: its word 0 (0 on a miss). */
static uint32_t patlb_lookup(MartiniState *s, uint64_t ppn)
{
    const uint8_t *e = memory_region_get_ram_ptr(&s->patlb);

    for (unsigned i = 0; i < DN1_PATLB_ENTRIES; i++, e += DN1_PATLB_ENTRY) {
        uint32_t w0 = ldl_be_p(e);

        if ((w0 & DN1_TLB_V) && (uint32_t)ldl_be_p(e + 4) == ppn) {
            return w0;
        }
    }
    return 0;
}

/* The NIC memory and offset of NIC address @a (already range-checked). */
static void martini_place(MartiniState *s, uint64_t a, MartiniPiece *p)
{
    if (a >= DN1_RADDR_LLCM) {
        p->mr = s->llcm;
        p->off = a - DN1_RADDR_LLCM;
    } else {
        p->mr = s->hostmem;
        p->off = a - DN1_RADDR_HOSTMEM;
    }
}

/* Does a write of @len bytes at NIC address @a reach the completion queue
 * of a host port above 0 (in the LLCM user area, contract 1.27)? */
static bool martini_port_cq_hit(MartiniState *s, uint64_t a, uint32_t len)
{
    return a >= DN1_RADDR_LLCM &&
           dn1_llcm_port_cq_hit(a - DN1_RADDR_LLCM, len, s->host_ports);
}

MartiniXlate martini_xlate(MartiniState *s, uint8_t flags, uint64_t raddr,
                           uint32_t len, bool translate, bool read,
                           MartiniWrite *w)
{
    /* A write needs W in every entry it uses, a remote read R (contract
     * 1.22); reads are range-checked as readable and pass no PATLB. */
    uint32_t allow = read ? DN1_TLB_R : DN1_TLB_W;

    uint64_t nic[2];
    unsigned n = 1;

    memset(w, 0, sizeof(*w));
    w->piece[0].len = len;
    nic[0] = raddr;
    if (translate && (flags & DN1_FLAG_VA)) {
        uint16_t ctx = DN1_RVA_CTX(raddr);
        uint64_t va = DN1_RVA_VA(raddr);
        uint32_t first = MIN(len, PAGE_SIZE_DN1 - (uint32_t)(va & PAGE_MASK_DN1));

        if (va + len > DN1_RVA_VA(~0ull) + 1) {
            w->nack_reason = DN1_NACK_RANGE;
            return MARTINI_XLATE_REFUSE;
        }
        /* A payload (<= 2048 bytes) spans at most two pages. */
        if (first < len) {
            n = 2;
            w->piece[0].len = first;
            w->piece[1].len = len - first;
            w->piece[1].src = first;
        }
        for (unsigned i = 0; i < n; i++) {
            uint64_t pva = va + w->piece[i].src;
            uint32_t ppn, w0 = rvatlb_lookup(s, ctx, pva >> DN1_PAGE_SHIFT, &ppn);

            if (!w0) {
                w->hold_reason = DN1_HOLD_RVATLB_MISS;
                w->miss_addr = DN1_RVA(ctx, pva);
                return MARTINI_XLATE_HOLD;
            }
            if (!(w0 & allow)) {
                w->nack_reason = DN1_NACK_PROTECTION;
                return MARTINI_XLATE_REFUSE;
            }
            nic[i] = (uint64_t)ppn << DN1_PAGE_SHIFT | (pva & PAGE_MASK_DN1);
        }
    }
    for (unsigned i = 0; i < n; i++) {
        if (read ? !dn1_raddr_readable(nic[i], w->piece[i].len)
                 : !dn1_raddr_writable(nic[i], w->piece[i].len) ||
                   martini_port_cq_hit(s, nic[i], w->piece[i].len)) {
            w->nack_reason = DN1_NACK_RANGE;
            return MARTINI_XLATE_REFUSE;
        }
    }
    if (translate && !read && (s->mmu_ctrl & DN1_MMU_PATLB_EN)) {
        for (unsigned i = 0; i < n; i++) {
            uint64_t last = nic[i] + (w->piece[i].len ? w->piece[i].len - 1 : 0);

            for (uint64_t pg = nic[i] >> DN1_PAGE_SHIFT;
                 pg <= last >> DN1_PAGE_SHIFT; pg++) {
                uint32_t w0 = patlb_lookup(s, pg);

                if (!w0) {
                    w->hold_reason = DN1_HOLD_PATLB_MISS;
                    w->miss_addr = MAX(nic[i], pg << DN1_PAGE_SHIFT);
                    return MARTINI_XLATE_HOLD;
                }
                if (!(w0 & DN1_TLB_W)) {
                    w->nack_reason = DN1_NACK_PROTECTION;
                    return MARTINI_XLATE_REFUSE;
                }
            }
        }
    }
    for (unsigned i = 0; i < n; i++) {
        martini_place(s, nic[i], &w->piece[i]);
    }
    w->npieces = n;
    return MARTINI_XLATE_OK;
}

void martini_mmu_init(MartiniState *s, Error **errp)
{
    MemoryRegion *rvatlb_bus, *patlb_bus;

    memory_region_init_ram(&s->rvatlb, OBJECT(s), "martini.rvatlb",
                           DN1_RVATLB_ENTRIES * DN1_RVATLB_ENTRY, errp);
    if (*errp) {
        return;
    }
    memory_region_init_ram(&s->patlb, OBJECT(s), "martini.patlb",
                           DN1_PATLB_ENTRIES * DN1_PATLB_ENTRY, errp);
    if (*errp) {
        return;
    }
    /*
     * The processor reaches both over the internal bus, 64 bits wide: through
     * the bridge, which charges its extra cycle per access. The lookups above
     * read the memories directly, at no charge.
     */
    rvatlb_bus = g_new(MemoryRegion, 1);
    patlb_bus = g_new(MemoryRegion, 1);
    martini_bridge_init(rvatlb_bus, OBJECT(s), "martini.rvatlb-bus", &s->rvatlb,
                        false);
    martini_bridge_init(patlb_bus, OBJECT(s), "martini.patlb-bus", &s->patlb,
                        false);
    sysbus_init_mmio(SYS_BUS_DEVICE(s), rvatlb_bus);
    sysbus_init_mmio(SYS_BUS_DEVICE(s), patlb_bus);
}

void martini_mmu_reset(MartiniState *s)
{
    /* All entries invalid after reset; the firmware fills them. */
    memset(memory_region_get_ram_ptr(&s->rvatlb), 0,
           memory_region_size(&s->rvatlb));
    memset(memory_region_get_ram_ptr(&s->patlb), 0,
           memory_region_size(&s->patlb));
    s->mmu_ctrl = 0;
}
