/* Dispatcher and indirect-write handler, on the FAKE HAL (host-built). */
#include "../common/check.h"
#include "fake_hal.h"
#include "dispatch.h"
#include "fwstats.h"
#include "indirect_write/indirect_write.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/fw_types.h"

static struct dn1_hdr iw(uint64_t raddr, uint32_t xoff, uint16_t len)
{
    return (struct dn1_hdr){ .version = 1, .type = DN1_TYPE_INDIRECT_WRITE,
                             .flags = DN1_FLAG_ACK_REQ, .src = 0, .dst = 1,
                             .len = len, .raddr = raddr, .xoff = xoff };
}

static void setup(void)
{
    fake_rx_reset();
    dispatch_register(DN1_TYPE_INDIRECT_WRITE, indirect_write_handle);
}

/* Step 3-4: read the pointer (host byte order), rewrite the address. */
static void t_pointer_rewrite(void)
{
    struct rx_packet p = { .hdr = iw(0x100, 0, 64) };
    p.raddr = p.hdr.raddr;
    fake_hostmem_put_u64(0x100, 0x0000000000020010ull);
    CHECK_EQ(indirect_write_handle(&p), RX_CONTINUE);
    CHECK_EQ(p.raddr, 0x20010);
    CHECK_EQ(p.hdr.raddr, 0x100);       /* the header copy is left alone */
}

/* The paper keeps the pointer in LLCM; the data may land in LLCM too. */
static void t_pointer_in_llcm(void)
{
    struct rx_packet p = { .hdr = iw(DN1_RADDR_LLCM + 0x2000, 464, 64) };
    fake_hostmem_put_u64(DN1_RADDR_LLCM + 0x2000, DN1_RADDR_LLCM + 0x3000);
    CHECK_EQ(indirect_write_handle(&p), RX_CONTINUE);
    CHECK_EQ(p.raddr, DN1_RADDR_LLCM + 0x3000 + 464);
    p = (struct rx_packet){ .hdr = iw(DN1_RADDR_LLCM + DN1_LLCM_SIZE, 0, 8) };
    CHECK_EQ(indirect_write_handle(&p), RX_NACK);        /* past LLCM */
    CHECK_EQ(p.nack_reason, DN1_NACK_BAD_POINTER);
}

/* Later packets of a transfer land at pointer + their offset. */
static void t_offset_added(void)
{
    struct rx_packet p = { .hdr = iw(0x108, 928, 72) };
    fake_hostmem_put_u64(0x108, 0x123456789aull);
    CHECK_EQ(indirect_write_handle(&p), RX_CONTINUE);
    CHECK_EQ(p.raddr, 0x123456789aull + 928);
}

static void t_bad_slot_nacked(void)
{
    struct rx_packet p = { .hdr = iw(0x104, 0, 8) };       /* unaligned */
    CHECK_EQ(indirect_write_handle(&p), RX_NACK);
    CHECK_EQ(p.nack_reason, DN1_NACK_BAD_POINTER);

    p = (struct rx_packet){ .hdr = iw(FAKE_HOSTMEM_SIZE, 0, 8) };   /* outside */
    CHECK_EQ(indirect_write_handle(&p), RX_NACK);
    CHECK_EQ(p.nack_reason, DN1_NACK_BAD_POINTER);

    p = (struct rx_packet){ .hdr = iw(UINT64_MAX - 7, 0, 8) };      /* wraps */
    CHECK_EQ(indirect_write_handle(&p), RX_NACK);
}

static void t_wrapping_target_nacked(void)
{
    struct rx_packet p = { .hdr = iw(0x200, 0x1000, 8) };
    fake_hostmem_put_u64(0x200, UINT64_MAX - 0x10);
    CHECK_EQ(indirect_write_handle(&p), RX_NACK);
    CHECK_EQ(p.nack_reason, DN1_NACK_RANGE);
}

/* Step 2: the dispatcher picks the handler by type; unknown types are NACKed. */
static void t_dispatch_by_type(void)
{
    uint32_t dispatched = fwstats_get(DN1_FWST_DISPATCHED);
    uint32_t no_handler = fwstats_get(DN1_FWST_NO_HANDLER);
    struct dn1_hdr a = iw(0x100, 0, 4), b = iw(0x100, 464, 4), c = iw(0, 0, 4);

    fake_hostmem_put_u64(0x100, 0x4000);
    c.type = 0x7f;                                /* nobody's type */
    fake_rx_push(&a);
    fake_rx_push(&c);
    fake_rx_push(&b);
    CHECK_EQ(fake_interrupts(), 3);               /* one interrupt a packet */
    CHECK_EQ(fake_decision_count, 3);
    CHECK_EQ(fake_decisions[0].action, RX_CONTINUE);
    CHECK_EQ(fake_decisions[0].raddr, 0x4000);
    CHECK_EQ(fake_decisions[1].action, RX_NACK);
    CHECK_EQ(fake_decisions[1].nack_reason, DN1_NACK_NO_HANDLER);
    CHECK_EQ(fake_decisions[2].action, RX_CONTINUE);
    CHECK_EQ(fake_decisions[2].raddr, 0x4000 + 464);
    CHECK_EQ(fwstats_get(DN1_FWST_DISPATCHED), dispatched + 2);
    CHECK_EQ(fwstats_get(DN1_FWST_NO_HANDLER), no_handler + 1);
    /* Published for the host in LLCM, little-endian. */
    CHECK_EQ(fake_nic_get_u32(DN1_RADDR_LLCM + DN1_LLCM_FWSTATS + 8 +
                              4 * DN1_FWST_NO_HANDLER), no_handler + 1);
}

/* Batched (variant BATCH): one interrupt serves every packet held. */
static void t_batched(void)
{
    struct dn1_hdr a = iw(0x100, 0, 4), b = iw(0x100, 464, 4), c = iw(0x100, 928, 4);

    fake_hostmem_put_u64(0x100, 0x4000);
    fake_rx_push(&a);
    fake_rx_push(&b);
    fake_rx_push(&c);
    dispatch_service();                           /* the paper's way: one */
    CHECK_EQ(fake_decision_count, 1);
    dispatch_batch = 1;
    CHECK_EQ(fake_interrupts(), 1);               /* the other two in one */
    dispatch_batch = 0;
    CHECK_EQ(fake_decision_count, 3);
    CHECK_EQ(fake_decisions[2].raddr, 0x4000 + 928);
}

/* A type with a fast path at the vector: batched, the C loop serves the
 * packet it was entered for, then leaves the next one of that type held
 * for the vector (other types it goes on serving). */
static void t_fast_type_left_held(void)
{
    struct dn1_hdr a = iw(0x100, 0, 4), f = iw(0x100, 0, 4), b = iw(0x100, 464, 4);

    dispatch_batch = 1;
    fake_hostmem_put_u64(0x100, 0x4000);
    f.type = 0x7e;
    dispatch_register(0x7e, indirect_write_handle);
    dispatch_register_fast(0x7e);
    fake_rx_push(&a);
    fake_rx_push(&f);
    fake_rx_push(&b);
    dispatch_service();
    CHECK_EQ(fake_decision_count, 1);             /* a; f left held */
    CHECK(fake_rx_held());
    CHECK_EQ(hal_rx_type(), 0x7e);
    dispatch_service();                           /* entered for f: served, then b */
    CHECK_EQ(fake_decision_count, 3);
    CHECK(!fake_rx_held());
    CHECK_EQ(hal_rx_type(), 0);
    dispatch_register(0x7e, NULL);
    dispatch_batch = 0;
}

static void t_unregister(void)
{
    struct dn1_hdr a = iw(0x100, 0, 4);
    dispatch_register(DN1_TYPE_INDIRECT_WRITE, NULL);
    fake_rx_push(&a);
    dispatch_service();
    CHECK_EQ(fake_decisions[0].action, RX_NACK);
    CHECK_EQ(fake_decisions[0].nack_reason, DN1_NACK_NO_HANDLER);
}

static enum rx_action refill_stub(struct rx_packet *p)
{
    p->raddr = 0x7000;               /* as a miss-continue handler would */
    return RX_CONTINUE;
}

/* TLB misses go to the miss handler, not by type; without one: NACK. */
static void t_tlb_miss_routing(void)
{
    uint32_t misses = fwstats_get(DN1_FWST_TLB_MISSES);
    uint32_t none = fwstats_get(DN1_FWST_NO_TRANSLATION);
    struct dn1_hdr push = iw(0x100, 0, 8);
    push.type = DN1_TYPE_PUSH;
    fake_rx_push_held(&push, DN1_HOLD_RVATLB_MISS);
    fake_rx_push_held(&push, DN1_HOLD_PATLB_MISS);
    fake_interrupts();
    CHECK_EQ(fake_decisions[0].action, RX_NACK);
    CHECK_EQ(fake_decisions[0].nack_reason, DN1_NACK_NO_TRANSLATION);
    CHECK_EQ(fake_decisions[1].nack_reason, DN1_NACK_NO_TRANSLATION);
    CHECK_EQ(fwstats_get(DN1_FWST_NO_TRANSLATION), none + 2);

    /* An indirect-write packet that missed is a miss, not an indirect write. */
    dispatch_register_miss(refill_stub);
    struct dn1_hdr w = iw(0x100, 0, 8);
    fake_hostmem_put_u64(0x100, 0x9999);
    fake_rx_push_held(&w, DN1_HOLD_RVATLB_MISS);
    fake_interrupts();
    CHECK_EQ(fake_decisions[2].action, RX_CONTINUE);
    CHECK_EQ(fake_decisions[2].raddr, 0x7000);
    CHECK_EQ(fwstats_get(DN1_FWST_TLB_MISSES), misses + 3);
    dispatch_register_miss(NULL);
}

static const struct test_case cases[] = {
    { "tlb_miss_routing", t_tlb_miss_routing },
    { "pointer_rewrite", t_pointer_rewrite },
    { "offset_added", t_offset_added },
    { "pointer_in_llcm", t_pointer_in_llcm },
    { "bad_slot_nacked", t_bad_slot_nacked },
    { "wrapping_target_nacked", t_wrapping_target_nacked },
    { "dispatch_by_type", t_dispatch_by_type },
    { "unregister", t_unregister },
    { "batched", t_batched },
    { "fast_type_left_held", t_fast_type_left_held },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, NULL);
}
