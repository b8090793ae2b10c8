/* Run-time variants (CONTROL, miss-continue), on the FAKE HAL (host-built). */
#include "../common/check.h"
#include "fake_hal.h"
#include "dispatch.h"
#include "fwstats.h"
#include "variant/variant.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/variant.h"
#include "dimmnet1/fw_types.h"

#define BLOCK (DN1_RADDR_LLCM + DN1_VAR_LLCM_OFF)
#define ME 3u
#define RVA(ctx, va) ((uint64_t)(ctx) << 48 | (uint64_t)(va))   /* packet.h: context << 48 | VA */

static void setup(void)
{
    fake_rx_reset();
    variant_init();
    fake_node_id = ME;
    fake_patlb_enabled = 0;
    fake_rx_irq_enabled = 1;
    memset(fake_patlb, 0, sizeof(fake_patlb));
    for (unsigned i = 0; i < 8; i++) {
        fake_nic_put_u32(BLOCK + 4 * i, 0);
    }
    dispatch_register(DN1_TYPE_CONTROL, variant_control_handle);
    dispatch_register_miss(variant_miss_handle);
}

static void block(uint32_t mode, uint32_t flags, uint64_t base, uint32_t size,
                  uint32_t ptr_off, uint32_t gen)
{
    fake_nic_put_u32(BLOCK + DN1_VAR_MISS_MODE, mode);
    fake_nic_put_u32(BLOCK + DN1_VAR_FLAGS, flags);
    fake_nic_put_u32(BLOCK + DN1_VAR_WINDOW_BASE, (uint32_t)base);
    fake_nic_put_u32(BLOCK + DN1_VAR_WINDOW_BASE + 4, (uint32_t)(base >> 32));
    fake_nic_put_u32(BLOCK + DN1_VAR_WINDOW_SIZE, size);
    fake_nic_put_u32(BLOCK + DN1_VAR_POINTER_OFF, ptr_off);
    fake_nic_put_u32(BLOCK + DN1_VAR_GEN, gen);
}

static struct dn1_hdr control(uint16_t src, uint16_t dst)
{
    return (struct dn1_hdr){ .version = 1, .type = DN1_TYPE_CONTROL,
                             .flags = DN1_FLAG_ACK_REQ, .src = src, .dst = dst };
}

static struct dn1_hdr push(uint64_t raddr, uint32_t xoff, uint8_t flags)
{
    return (struct dn1_hdr){ .version = 1, .type = DN1_TYPE_PUSH,
                             .flags = DN1_FLAG_ACK_REQ | flags, .src = 1, .dst = ME,
                             .len = 464, .raddr = raddr, .xoff = xoff };
}

/* Take a block over; return the decision. */
static enum rx_action take(uint16_t src, uint16_t dst)
{
    struct dn1_hdr h = control(src, dst);
    size_t k = fake_decision_count;
    fake_rx_push(&h);
    fake_interrupts();
    CHECK_EQ(fake_decision_count, k + 1);
    return fake_decisions[k].action;
}

/* Without a CONTROL, a miss is NACKed NO_TRANSLATION, as before variants. */
static void t_default_nacks(void)
{
    uint32_t none = fwstats_get(DN1_FWST_NO_TRANSLATION);
    struct dn1_hdr h = push(RVA(1, 0x10000000), 0, DN1_FLAG_VA);
    fake_rx_push_held(&h, DN1_HOLD_RVATLB_MISS);
    fake_interrupts();
    CHECK_EQ(fake_decisions[0].action, RX_NACK);
    CHECK_EQ(fake_decisions[0].nack_reason, DN1_NACK_NO_TRANSLATION);
    CHECK_EQ(fwstats_get(DN1_FWST_NO_TRANSLATION), none + 1);
}

/* RVATLB miss-continue: inside the window, pointer (from LLCM) + offset. */
static void t_rvatlb_continue(void)
{
    uint64_t base = RVA(1, 0x10000000);
    block(DN1_VAR_MISS_CONTINUE, 0, base, 0x10000, 0x2100, 7);
    fake_hostmem_put_u64(DN1_RADDR_LLCM + 0x2100, 0x100000);
    CHECK_EQ(take(ME, ME), RX_DONE);
    CHECK_EQ(fake_nic_get_u32(BLOCK + DN1_VAR_TAKEN), 7);
    CHECK_EQ(fake_patlb_enabled, 0);
    CHECK_EQ(fake_rx_irq_enabled, 1);

    struct dn1_hdr in = push(base + 928, 928, DN1_FLAG_VA);
    struct dn1_hdr out = push(base + 0x10000, 0, DN1_FLAG_VA);   /* one past */
    fake_rx_push_held(&in, DN1_HOLD_RVATLB_MISS);
    fake_rx_push_held(&out, DN1_HOLD_RVATLB_MISS);
    fake_interrupts();
    CHECK_EQ(fake_decisions[1].action, RX_CONTINUE);
    CHECK_EQ(fake_decisions[1].raddr, 0x100000 + 928);
    CHECK_EQ(fake_decisions[2].action, RX_NACK);
    CHECK_EQ(fake_decisions[2].nack_reason, DN1_NACK_NO_TRANSLATION);

    /* The pointer is read at every miss: the host may move it. */
    fake_hostmem_put_u64(DN1_RADDR_LLCM + 0x2100, 0x200000);
    fake_rx_push_held(&in, DN1_HOLD_RVATLB_MISS);
    fake_interrupts();
    CHECK_EQ(fake_decisions[3].raddr, 0x200000 + 928);
}

/* PATLB miss-continue: the window is redirected, other pages entered and retried. */
static void t_patlb_continue_and_refill(void)
{
    block(DN1_VAR_MISS_CONTINUE, DN1_VAR_F_PATLB, 0x800000, 0x20000, 0x2100, 1);
    fake_hostmem_put_u64(DN1_RADDR_LLCM + 0x2100, 0x100000);
    CHECK_EQ(take(ME, ME), RX_DONE);
    CHECK_EQ(fake_patlb_enabled, 1);

    struct dn1_hdr in = push(0x800000 + 4096, 4096, 0);
    struct dn1_hdr other = push(DN1_RADDR_LLCM + 0x2200, 0, 0);
    fake_rx_push_held(&in, DN1_HOLD_PATLB_MISS);
    fake_rx_push_held(&other, DN1_HOLD_PATLB_MISS);
    fake_interrupts();
    CHECK_EQ(fake_decisions[1].action, RX_CONTINUE);
    CHECK_EQ(fake_decisions[1].raddr, 0x100000 + 4096);
    CHECK_EQ(fake_decisions[2].action, RX_RETRY);
    CHECK_EQ(fake_patlb[0], (DN1_RADDR_LLCM + 0x2200) >> 12 | 1ull << 63);

    /* A bad pointer slot is the pointer's fault: BAD_POINTER. */
    fake_hostmem_put_u64(DN1_RADDR_LLCM + 0x2100, 0xfffffffffffffff0ull);
    fake_rx_push_held(&in, DN1_HOLD_PATLB_MISS);
    fake_interrupts();
    CHECK_EQ(fake_decisions[3].action, RX_NACK);
    CHECK_EQ(fake_decisions[3].nack_reason, DN1_NACK_BAD_POINTER);
}

/* Non-intr: CONTROL turns polling on and off; the interrupt is the idle loop's. */
static void t_poll_switch(void)
{
    block(DN1_VAR_MISS_CONTINUE, DN1_VAR_F_PATLB | DN1_VAR_F_POLL, 0, 0x1000, 0x2100, 1);
    CHECK_EQ(take(ME, ME), RX_DONE);
    CHECK_EQ(variant_polling, 1);
    CHECK_EQ(fake_rx_irq_enabled, 1);   /* variant_poll switches it, never the handler */
    /* In the poll loop: a packet, then the CONTROL that ends polling. */
    struct dn1_hdr h = push(0x5000, 0, 0);              /* outside the window */
    fake_rx_push_held(&h, DN1_HOLD_PATLB_MISS);
    block(DN1_VAR_MISS_NACK, 0, 0, 0, 0x2100, 2);
    struct dn1_hdr c = control(ME, ME);
    fake_rx_push(&c);
    size_t k = fake_decision_count;
    variant_poll();
    CHECK_EQ(fake_decision_count, k + 2);
    CHECK_EQ(fake_decisions[k].action, RX_RETRY);      /* the PATLB refill */
    CHECK_EQ(fake_decisions[k + 1].action, RX_DONE);
    CHECK_EQ(variant_polling, 0);
    CHECK_EQ(fake_rx_irq_enabled, 1);   /* back on once the CONTROL is done */
    variant_poll();                     /* not polling: returns at once */
    CHECK_EQ(fake_decision_count, k + 2);
    CHECK_EQ(fake_patlb_enabled, 0);
}

/* BATCH: one interrupt serves every held packet, until switched off;
 * a restarted firmware (init) takes one interrupt a packet again. */
static void t_batch(void)
{
    CHECK_EQ(dispatch_batch, 0);
    block(DN1_VAR_MISS_NACK, DN1_VAR_F_BATCH, 0, 0, 0x2100, 30);
    CHECK_EQ(take(ME, ME), RX_DONE);
    CHECK_EQ(dispatch_batch, 1);
    CHECK_EQ(fake_nic_get_u32(BLOCK + DN1_VAR_TAKEN), 30);
    for (unsigned i = 0; i < 3; i++) {
        struct dn1_hdr h = push(0x10, 0, DN1_FLAG_VA);
        fake_rx_push_held(&h, DN1_HOLD_RVATLB_MISS);
    }
    CHECK_EQ(fake_interrupts(), 1);
    block(DN1_VAR_MISS_NACK, 0, 0, 0, 0x2100, 31);
    CHECK_EQ(take(ME, ME), RX_DONE);
    CHECK_EQ(dispatch_batch, 0);
    block(DN1_VAR_MISS_NACK, DN1_VAR_F_BATCH, 0, 0, 0x2100, 32);
    CHECK_EQ(take(ME, ME), RX_DONE);
    variant_init();
    CHECK_EQ(dispatch_batch, 0);
}

/* Only the node's own host may switch it; a bad block changes nothing. */
static void t_refusals(void)
{
    block(DN1_VAR_MISS_CONTINUE, DN1_VAR_F_POLL, 0, 0x1000, 0x2100, 1);
    CHECK_EQ(take(1, ME), RX_NACK);                 /* another node */
    CHECK_EQ(fake_decisions[0].nack_reason, DN1_NACK_BAD_CONTROL);
    CHECK_EQ(take(ME, 0xff00), RX_NACK);            /* to a group */
    CHECK_EQ(variant_polling, 0);
    const uint32_t bad[][3] = {
        { 2, 0, 0x2100 },                 /* mode */
        { 1, 0x8, 0x2100 },               /* flags */
        { 1, 0, 0x2104 },                 /* pointer unaligned */
        { 1, 0, DN1_LLCM_SIZE },          /* pointer outside LLCM */
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        block(bad[i][0], bad[i][1], 0, 0x1000, bad[i][2], 10 + i);
        CHECK_EQ(take(ME, ME), RX_NACK);
        CHECK_EQ(fake_nic_get_u32(BLOCK + DN1_VAR_TAKEN), 0);
    }
    block(1, 0, 0xfffffffffffff000ull, 0x2000, 0x2100, 20);   /* window wraps */
    CHECK_EQ(take(ME, ME), RX_NACK);
    CHECK_EQ(variant_polling, 0);
    CHECK_EQ(fake_rx_irq_enabled, 1);
    /* Still the default: a miss is NACKed. */
    struct dn1_hdr h = push(0x10, 0, DN1_FLAG_VA);
    size_t k = fake_decision_count;
    fake_rx_push_held(&h, DN1_HOLD_RVATLB_MISS);
    fake_interrupts();
    CHECK_EQ(fake_decisions[k].nack_reason, DN1_NACK_NO_TRANSLATION);
}

static const struct test_case cases[] = {
    { "default_nacks", t_default_nacks },
    { "batch", t_batch },
    { "rvatlb_continue", t_rvatlb_continue },
    { "patlb_continue_and_refill", t_patlb_continue_and_refill },
    { "poll_switch", t_poll_switch },
    { "refusals", t_refusals },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, NULL);
}
