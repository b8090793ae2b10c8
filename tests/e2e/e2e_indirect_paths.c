/*
 * The remote indirect write's two firmware paths on real boards: the
 * assembly fast path (pointer slot an aligned LLCM word, pointer below
 * 4 GiB, no carry) and the C handler (everything else) must give the same
 * answers. Node 1 sets pointer slots, node 0 sends, node 1 checks:
 *   fast       slot in LLCM, 3 packets land at the pointer;
 *   host slot  slot in receive memory (C), lands;
 *   high       slot in LLCM, pointer into the LLCM user area (C), lands;
 *   carry      pointer 0xfffff000: packet k goes to 0xfffff000 + 464 k;
 *              those below 4 GiB are refused by the hardware (RANGE), the
 *              one whose sum carries (C) lands in the LLCM user area;
 *   outside    pointer past receive memory: hardware NACK RANGE;
 *   bad slots  unaligned (by 4 and by 2, where the words read as a good
 *              pointer), just past LLCM, raddr high word 2, past receive
 *              memory: NACK BAD_POINTER, nothing written.
 * Then the firmware's DISPATCHED statistic has counted every packet once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/message.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/fw_types.h"

#define T 60000
#define USER(off)    (DN1_RADDR_LLCM + DN1_LLCM_NIC_RESERVED + (off))
#define SLOT_FAST    USER(0x8000u)
#define SLOT_HIGH    USER(0x8008u)
#define SLOT_CARRY   USER(0x8010u)
#define SLOT_OUTSIDE USER(0x8018u)
#define SLOT_ODD     USER(0x8024u)     /* unaligned; the words there read as */
#define SLOT_HOST    0x1040u           /* a good pointer (LAND_FAST) */           /* in node 1's receive memory */
#define LAND_FAST    0x120000u
#define LAND_HOST    0x121000u
#define LAND_HIGH    0x3000u           /* LLCM user offset */
#define CARRY_PTR    0xfffff000u
#define CARRY_PKTS   28u               /* packet 27: 0xfffff000 + 12528 */
#define CARRY_LAND   ((uint64_t)CARRY_PTR + 27u * 464u - DN1_RADDR_LLCM - DN1_LLCM_NIC_RESERVED)
#define LEN          1000u

static dn_node *n;

static void pattern(uint8_t *b, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) {
        b[i] = (uint8_t)(i * 29 + seed);
    }
}

/* Node 0: an indirect write of @len bytes by way of @slot; the answer. */
static int send(uint64_t slot, size_t len, unsigned seed, dn_xfer *x)
{
    uint8_t *buf = malloc(len);
    pattern(buf, len, seed);
    CHECK_EQ(dn_send_typed(n, DN1_TYPE_INDIRECT_WRITE, 1, slot, buf, len, x), DN_OK);
    int rc = dn_wait(n, x, T);
    free(buf);
    return rc;
}

static void expect_nack(uint64_t slot, uint8_t reason, unsigned packets)
{
    dn_xfer x;
    CHECK_EQ(send(slot, 464u * packets, 9, &x), DN_ENACK);
    CHECK_EQ(x.nack_reason, reason);
    CHECK_EQ(x.nacked, packets);
}

static void sender(void)
{
    dn_xfer x;

    CHECK_EQ(send(SLOT_FAST, LEN, 1, &x), DN_OK);
    CHECK_EQ(x.acked, 3);
    CHECK_EQ(send(SLOT_HOST, LEN, 2, &x), DN_OK);
    CHECK_EQ(send(SLOT_HIGH, LEN, 3, &x), DN_OK);
    CHECK_EQ(send(SLOT_CARRY, 464u * CARRY_PKTS, 4, &x), DN_ENACK);
    CHECK_EQ(x.nack_reason, DN1_NACK_RANGE);
    CHECK_EQ(x.nacked, CARRY_PKTS - 1);
    CHECK_EQ(x.acked, 1);
    expect_nack(SLOT_OUTSIDE, DN1_NACK_RANGE, 1);
    expect_nack(SLOT_ODD, DN1_NACK_BAD_POINTER, 2);
    expect_nack(SLOT_ODD - 2, DN1_NACK_BAD_POINTER, 1);
    expect_nack(DN1_RADDR_LLCM + DN1_LLCM_SIZE, DN1_NACK_BAD_POINTER, 1);
    expect_nack(DN1_RADDR_LLCM + DN1_LLCM_SIZE - 8 + 0x100000000ull,
                DN1_NACK_BAD_POINTER, 1);
    expect_nack(DN1_HOSTMEM_SIZE, DN1_NACK_BAD_POINTER, 1);
}

static void receiver(void)
{
    size_t mem_size, user_size;
    uint8_t want[464u * CARRY_PKTS];
    uint8_t *mem = dn_hostmem(n, &mem_size), *user = dn_llcm_user(n, &user_size);
    uint32_t before, after;

    CHECK(mem && mem_size == DN1_HOSTMEM_SIZE);
    CHECK(user && user_size == DN1_LLCM_SIZE - DN1_LLCM_NIC_RESERVED);

    CHECK_EQ(dn_indirect_slot_set(n, SLOT_FAST, LAND_FAST), DN_OK);
    CHECK_EQ(dn_indirect_slot_set(n, SLOT_HOST, LAND_HOST), DN_OK);
    CHECK_EQ(dn_indirect_slot_set(n, SLOT_HIGH, USER(LAND_HIGH)), DN_OK);
    CHECK_EQ(dn_indirect_slot_set(n, SLOT_CARRY, CARRY_PTR), DN_OK);
    CHECK_EQ(dn_indirect_slot_set(n, SLOT_OUTSIDE, DN1_HOSTMEM_SIZE - 8), DN_OK);
    CHECK_EQ(dn_indirect_slot_set(n, SLOT_ODD - 4, (uint64_t)LAND_FAST << 32), DN_OK);
    CHECK_EQ(dn_indirect_slot_set(n, SLOT_ODD + 4, 0), DN_OK);
    CHECK_EQ(dn_fw_stat_read(n, DN1_FWST_DISPATCHED, &before), DN_OK);
    CHECK_EQ(dn_rendezvous("slots", T), DN_OK);
    CHECK_EQ(dn_rendezvous("sent", T), DN_OK);

    pattern(want, LEN, 1);
    CHECK(memcmp(mem + LAND_FAST, want, LEN) == 0);
    pattern(want, LEN, 2);
    CHECK(memcmp(mem + LAND_HOST, want, LEN) == 0);
    pattern(want, LEN, 3);
    CHECK(memcmp(user + LAND_HIGH, want, LEN) == 0);
    pattern(want, sizeof(want), 4);
    CHECK(memcmp(user + CARRY_LAND, want + 27u * 464u, 464) == 0);
    /* Nothing landed past receive memory's end: the OUTSIDE pointer's page. */
    CHECK_EQ(mem[DN1_HOSTMEM_SIZE - 8], 0);

    CHECK_EQ(dn_fw_stat_read(n, DN1_FWST_DISPATCHED, &after), DN_OK);
    CHECK_EQ(after - before, 3 + 3 + 3 + CARRY_PKTS + 1 + 2 + 1 + 1 + 1 + 1);
}

int main(void)
{
    CHECK_EQ(dn_open_env(&n, T), DN_OK);
    if (dn_node_id(n) == 1) {
        receiver();
    } else {
        CHECK_EQ(dn_rendezvous("slots", T), DN_OK);
        sender();
        CHECK_EQ(dn_rendezvous("sent", T), DN_OK);
    }
    printf("e2e_indirect_paths: node %u %s\n", dn_node_id(n),
           check_failures ? "FAILED" : "ok");
    dn_close(n);
    return check_failures ? 1 : 0;
}
