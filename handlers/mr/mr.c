/* Registered memory: table lookup, RVATLB miss handler, MR_SYNC (mr.h). */
#include "mr.h"
#include "fwstats.h"
#include "hal/martini.h"
#include "hal/mmu.h"
#include "hal/nicmem.h"
#include "variant/variant.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/mr.h"
#include "dimmnet1/packet.h"

#define PAGE ((uint64_t)1 << DN1_PAGE_SHIFT)
/* Pages filled on a miss: the missed one and those after it in the same
 * registration, a quarter of the entries. A put or get of more than a page
 * walks its pages in order, so it misses once in this many pages instead
 * of on every page (a miss costs an interrupt, ~20 us); random access
 * pays a few fills more, and an entry may then repeat a page another holds
 * (the hardware takes the first valid match; both say the same). */
#define FILL_AHEAD 8u

/* The key each entry 32..63 was filled for (0: none), and the next to use. */
static uint16_t filled[DN1_MR_TLB_COUNT];
static unsigned fill_next;
/* Faults posted in the fault ring so far (goes on across starts). */
static uint32_t faults;
/* Where a key was found last (key mod 16): tried first, checked as any. */
static uint8_t hint[16];

void mr_init(void)
{
    for (unsigned i = 0; i < DN1_MR_TLB_COUNT; i++) {
        hal_rvatlb_invalidate(DN1_MR_TLB_FIRST + i);
        filled[i] = 0;
    }
    fill_next = 0;
    faults = hal_llcm_read32(DN1_MR_FAULTS_OFF);
}

/* Entry @i if it is @key's and holds [va, va + n). The key word is read
 * again last: an entry the host freed meanwhile is not used. */
static int entry_match(unsigned i, uint16_t key, uint64_t va, uint32_t n,
                       struct mr_entry *e)
{
    uint32_t off = DN1_MR_LLCM_OFF + DN1_MR_ENTRY * i;
    uint32_t hi = hal_llcm_read32(off + DN1_MR_RVA_BASE + 4);

    if (hi >> 16 != key) {
        return -1;
    }
    e->base = (uint64_t)(hi & 0xffffu) << 32 | hal_llcm_read32(off + DN1_MR_RVA_BASE);
    e->nic_off = hal_llcm_read32(off + DN1_MR_NIC_OFF);
    uint32_t la = hal_llcm_read32(off + DN1_MR_LEN_ACCESS);
    e->len = la & DN1_MR_LEN_MASK;
    e->access = la & (DN1_MR_ACCESS_W | DN1_MR_ACCESS_R);
    if (hal_llcm_read32(off + DN1_MR_RVA_BASE + 4) != hi ||
        e->len == 0 || e->len > DN1_MR_LEN_MAX ||
        e->nic_off > DN1_HOSTMEM_SIZE - e->len ||
        va < e->base || va - e->base > e->len || n > e->len - (va - e->base)) {
        return -1;
    }
    return 0;
}

int mr_lookup(uint16_t key, uint64_t va, uint32_t n, struct mr_entry *e)
{
    unsigned h = hint[key & 15u];

    if (entry_match(h, key, va, n, e) == 0) {
        return 0;
    }
    for (unsigned i = 0; i < DN1_MR_ENTRIES; i++) {
        if (i != h && entry_match(i, key, va, n, e) == 0) {
            hint[key & 15u] = (uint8_t)i;
            return 0;
        }
    }
    return -1;
}

int mr_paged(uint16_t key, uint64_t va, uint32_t n, uint32_t access)
{
    for (unsigned i = 0; i < DN1_MR_ENTRIES; i++) {
        uint32_t off = DN1_MR_LLCM_OFF + DN1_MR_ENTRY * i;
        uint32_t hi = hal_llcm_read32(off + DN1_MR_RVA_BASE + 4);

        if (hi >> 16 != key) {
            continue;
        }
        uint32_t la = hal_llcm_read32(off + DN1_MR_LEN_ACCESS);
        uint64_t base = (uint64_t)(hi & 0xffffu) << 32 | hal_llcm_read32(off + DN1_MR_RVA_BASE);
        uint32_t len = hal_llcm_read32(off + DN1_MR_NIC_OFF);

        if ((la & ~(DN1_MR_ACCESS_W | DN1_MR_ACCESS_R)) == DN1_MR_NR &&
            (la & access) == access && len != 0 && va >= base && va - base < len &&
            n <= len - (va - base)) {
            return 1;
        }
    }
    return 0;
}

void mr_fault(uint16_t key, uint64_t va, uint32_t n)
{
    uint32_t rec = DN1_MR_FAULT_RING + DN1_MR_FAULT_SIZE * (faults % DN1_MR_FAULT_SLOTS);

    hal_llcm_write32(rec, (uint32_t)va);
    hal_llcm_write32(rec + 4, (uint32_t)key << 16 | (uint32_t)(va >> 32 & 0xffffu));
    hal_llcm_write32(rec + 8, n);
    hal_llcm_write32(rec + 12, 0);
    hal_llcm_write32(DN1_MR_FAULTS_OFF, ++faults);      /* the record first */
    fwstats_inc(DN1_FWST_MR_NOT_RESIDENT);
}

/* A registration key's miss (mr_miss_handle): refill or refuse. Out of
 * line, so that the test before it costs the paper's miss-continue
 * variants only a few instructions (both calls are tail calls). */
static enum rx_action __attribute__((noinline)) refill(struct rx_packet *p)
{
    uint16_t key = DN1_RVA_CTX(p->hdr.raddr);
    int read = p->hdr.type == DN1_TYPE_READ_REQ;
    uint32_t n = read ? p->hdr.xoff : p->hdr.len;
    uint64_t va = DN1_RVA_VA(p->hdr.raddr);
    struct mr_entry e;

    uint32_t need = read ? DN1_MR_ACCESS_R : DN1_MR_ACCESS_W;
    int found = mr_lookup(key, va, n ? n : 1, &e) == 0;

    if (!found && mr_paged(key, va, n ? n : 1, need)) {
        mr_fault(key, va, n ? n : 1);       /* the host moves it onto the card */
        p->nack_reason = DN1_NACK_NOT_RESIDENT;
        return RX_NACK;
    }
    if (!found || !(e.access & need)) {
        fwstats_inc(DN1_FWST_MR_REFUSED);
        p->nack_reason = DN1_NACK_PROTECTION;
        return RX_NACK;
    }
    uint64_t page = DN1_RVA_VA(p->miss_addr) & ~(PAGE - 1);

    /* The page wholly registered, and VA and NIC address on the same
     * offset in their pages: the RVATLB can map it, and the pages after
     * it that are wholly registered too. */
    if ((((uint32_t)e.base ^ e.nic_off) & (PAGE - 1)) == 0 &&
        page >= e.base && page + PAGE - e.base <= e.len) {
        uint32_t w0 = DN1_TLB_V | key | (e.access & DN1_MR_ACCESS_W ? DN1_TLB_W : 0) |
                      (e.access & DN1_MR_ACCESS_R ? DN1_TLB_R : 0);
        uint32_t ppn = (e.nic_off + (uint32_t)(page - e.base)) >> DN1_PAGE_SHIFT;
        uint64_t vpn = page >> DN1_PAGE_SHIFT;
        uint32_t pages = (uint32_t)((e.len - (page - e.base)) >> DN1_PAGE_SHIFT);

        pages = pages < FILL_AHEAD ? pages : FILL_AHEAD;
        for (uint32_t k = 0; k < pages; k++) {
            unsigned i = fill_next;

            fill_next = (i + 1) % DN1_MR_TLB_COUNT;
            filled[i] = key;
            hal_rvatlb_fill(DN1_MR_TLB_FIRST + i, w0, vpn + k, ppn + k);
        }
        fwstats_add(DN1_FWST_MR_FILLS, pages);
        return RX_RETRY;
    }
    /* An edge page: checked to the byte here, the hardware goes on at
     * the NIC address. */
    p->raddr = e.nic_off + (va - e.base);
    fwstats_inc(DN1_FWST_MR_CONTINUES);
    return RX_CONTINUE;
}

enum rx_action mr_miss_handle(struct rx_packet *p)
{
    /* Context bit 15 (raddr bit 63): a registration key. */
    if (p->hold_reason == DN1_HOLD_RVATLB_MISS && (int64_t)p->hdr.raddr < 0) {
        return refill(p);
    }
    return variant_miss_handle(p);
}

enum rx_action mr_sync_handle(struct rx_packet *p)
{
    uint64_t key = p->hdr.raddr;

    /* From this node's own host, any port the board has (contract 1.28),
     * asking for the ACK the host waits for and carrying nothing. */
    if (dn1_addr_node(p->hdr.src) != hal_node_id() || p->hdr.src >= DN1_ADDR_UNICAST_END ||
        dn1_addr_port(p->hdr.src) >= hal_host_ports() || p->hdr.dst != hal_node_id() ||
        p->hdr.flags != DN1_FLAG_ACK_REQ || p->hdr.len != 0 || key > 0xffffu) {
        p->nack_reason = DN1_NACK_BAD_CONTROL;
        return RX_NACK;
    }
    for (unsigned i = 0; i < DN1_MR_TLB_COUNT; i++) {
        if (filled[i] && (key == 0 || filled[i] == key)) {
            hal_rvatlb_invalidate(DN1_MR_TLB_FIRST + i);
            filled[i] = 0;
        }
    }
    fwstats_inc(DN1_FWST_MR_SYNCS);
    return RX_DONE;
}
