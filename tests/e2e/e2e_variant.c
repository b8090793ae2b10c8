/*
 * Run-time firmware variants on real boards (docs/hardware.md section 12),
 * two nodes: node 1 switches its firmware, node 0 writes.
 *   - wrong arguments are refused by the shim (DN_EINVAL);
 *   - a CONTROL packet from another node is NACKed BAD_CONTROL;
 *   - RVATLB miss-continue: VA writes land at the LLCM pointer + offset;
 *     back to the default, the same write is NACKed NO_TRANSLATION;
 *   - PATLB miss-continue polled ("non-intr"): writes into the window land
 *     at the pointer, writes elsewhere where they were aimed (the firmware
 *     enters their pages and retries); then back to interrupts.
 * Every payload is checked byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/fw_types.h"
#include "dimmnet1/regs.h"
#include "dimmnet1/variant.h"

#define T 60000
#define SLOT 0x100u                      /* pointer: LLCM user area + 0x100 */
#define TARGET 0x100000u
#define DIRECT 0x300000u
#define WINDOW 0x800000u
#define RVA_BASE DN_RVA(1, 0x10000000u)

static dn_node *n;
static unsigned me;

static void step(const char *what)
{
    CHECK_EQ(dn_rendezvous(what, T), DN_OK);
}

static void pattern(uint8_t *b, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) {
        b[i] = (uint8_t)(i * 13 + seed);
    }
}

/* Node 0: write @len bytes to @raddr (VA if @rva) and expect @want. */
static void put(uint64_t raddr, int rva, size_t len, unsigned seed, int want,
                uint8_t reason)
{
    uint8_t buf[2000];
    dn_xfer x;
    pattern(buf, len, seed);
    CHECK_EQ(rva ? dn_botf_put_rva(n, 1, raddr, buf, len, &x)
                 : dn_botf_put(n, 1, raddr, buf, len, &x), DN_OK);
    CHECK_EQ(dn_wait(n, &x, T), want);
    if (want == DN_ENACK) {
        CHECK_EQ(x.nack_reason, reason);
    }
}

/* Node 1: the bytes at @off of receive memory are the pattern. */
static void landed(uint32_t off, size_t len, unsigned seed)
{
    size_t size;
    uint8_t want[2000];
    pattern(want, len, seed);
    CHECK(memcmp(dn_hostmem(n, &size) + off, want, len) == 0);
}

static void set(unsigned mode, int patlb, int poll, uint64_t base)
{
    struct dn_fw_variant v = { .miss_mode = mode, .patlb = patlb, .poll = poll,
                               .window_base = base, .window_size = 0x10000,
                               .pointer_off = DN1_LLCM_NIC_RESERVED + SLOT };
    CHECK_EQ(dn_fw_variant_set(n, &v), DN_OK);
}

int main(void)
{
    CHECK_EQ(dn_open_env(&n, T), DN_OK);
    me = dn_node_id(n);

    if (me == 1) {
        struct dn_fw_variant bad = { .miss_mode = 2, .pointer_off = DN1_LLCM_NIC_RESERVED };
        CHECK_EQ(dn_fw_variant_set(n, &bad), DN_EINVAL);
        bad.miss_mode = DN_MISS_CONTINUE;
        bad.pointer_off = DN1_LLCM_NIC_RESERVED + 4;            /* unaligned */
        CHECK_EQ(dn_fw_variant_set(n, &bad), DN_EINVAL);
        bad.pointer_off = DN1_LLCM_SIZE;                        /* outside */
        CHECK_EQ(dn_fw_variant_set(n, &bad), DN_EINVAL);
        bad.pointer_off = DN1_LLCM_NIC_RESERVED;
        bad.window_base = ~0ull - 10;
        bad.window_size = 100;                                  /* wraps */
        CHECK_EQ(dn_fw_variant_set(n, &bad), DN_EINVAL);
        CHECK_EQ(dn_fw_variant_set(NULL, &bad), DN_EINVAL);
        CHECK_EQ(dn_indirect_slot_set(n, DN_RADDR_LLCM_USER + SLOT, TARGET), DN_OK);
    } else {
        /* Another node's CONTROL: refused, and nothing switched (below). */
        dn_xfer x;
        CHECK_EQ(dn_send_typed(n, DN1_TYPE_CONTROL, 1, 0, NULL, 0, &x), DN_OK);
        CHECK_EQ(dn_wait(n, &x, T), DN_ENACK);
        CHECK_EQ(x.nack_reason, DN1_NACK_BAD_CONTROL);
        /* Default: a VA write nobody translates is NACKed. */
        put(RVA_BASE, 1, 64, 1, DN_ENACK, DN1_NACK_NO_TRANSLATION);
    }
    step("variant-default");

    if (me == 1) {
        set(DN_MISS_CONTINUE, 0, 0, RVA_BASE);
    }
    step("variant-rvatlb");
    if (me == 0) {
        put(RVA_BASE, 1, 1500, 2, DN_OK, 0);                     /* four packets */
        put(RVA_BASE + 0x10000, 1, 8, 3, DN_ENACK, DN1_NACK_NO_TRANSLATION);  /* past it */
    }
    step("variant-rvatlb-sent");
    if (me == 1) {
        landed(TARGET, 1500, 2);
        set(DN_MISS_NACK, 0, 0, 0);
    }
    step("variant-back");
    if (me == 0) {
        put(RVA_BASE, 1, 64, 4, DN_ENACK, DN1_NACK_NO_TRANSLATION);
    }
    step("variant-back-sent");

    if (me == 1) {
        set(DN_MISS_CONTINUE, 1, 1, WINDOW);
    }
    step("variant-patlb");
    if (me == 0) {
        put(WINDOW + 464, 0, 1000, 5, DN_OK, 0);
        put(DIRECT, 0, 1000, 6, DN_OK, 0);
        put(DIRECT + 8, 0, 8, 7, DN_OK, 0);                     /* its page is entered now */
    }
    step("variant-patlb-sent");
    if (me == 1) {
        landed(TARGET + 464, 1000, 5);
        landed(DIRECT, 8, 6);
        landed(DIRECT + 8, 8, 7);
        landed(DIRECT + 16, 984, 6 + 16 * 13 % 256);
        uint32_t polled = 0;
        CHECK_EQ(dn_reg_read(n, DN1_REG_IRQ_ENABLE, &polled), DN_OK);
        /* (RESTART stays enabled throughout: NIC_RESTART's interrupt.) */
        CHECK_EQ(polled, DN1_IRQ_RESTART);                      /* non-intr */
        set(DN_MISS_NACK, 0, 0, 0);
        /* The idle loop turns the interrupt back on once CONTROL is done:
         * a few instructions after its ACK left. */
        for (int i = 0; i < 100000 && !(polled & DN1_IRQ_RX_HELD); i++) {
            CHECK_EQ(dn_reg_read(n, DN1_REG_IRQ_ENABLE, &polled), DN_OK);
            dn_idle(n);
        }
        CHECK_EQ(polled, DN1_IRQ_RX_HELD | DN1_IRQ_RESTART);
    }
    step("variant-done");
    dn_close(n);
    printf("e2e_variant: node %u ok\n", me);
    return check_failures ? 1 : 0;
}
