/* Registered memory (handlers/mr/): the RVATLB miss handler and MR_SYNC on
 * the FAKE HAL. */
#include "../common/check.h"
#include "fake_hal.h"
#include "dispatch.h"
#include "fwstats.h"
#include "mr/mr.h"
#include "variant/variant.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/mr.h"
#include "dimmnet1/fw_types.h"

#define ME   3u
#define KEYA 0x8001u
#define KEYB 0xbeefu
#define VA   0x7f0012340000ull          /* page-aligned */
#define RW   (DN1_MR_ACCESS_W | DN1_MR_ACCESS_R)

static void reg(unsigned i, uint16_t key, uint64_t va, uint32_t nic_off,
                uint32_t len, uint32_t access)
{
    uint64_t e = DN1_RADDR_LLCM + DN1_MR_LLCM_OFF + DN1_MR_ENTRY * i;

    fake_nic_put_u32(e + DN1_MR_NIC_OFF, nic_off);
    fake_nic_put_u32(e + DN1_MR_LEN_ACCESS, len | access);
    fake_hostmem_put_u64(e, (uint64_t)key << 48 | va);
}

static void setup(void)
{
    fake_rx_reset();
    memset(fake_rvatlb, 0, sizeof(fake_rvatlb));
    fake_node_id = ME;
    variant_init();
    mr_init();
    dispatch_register(DN1_TYPE_MR_SYNC, mr_sync_handle);
    dispatch_register_miss(mr_miss_handle);
}

/* A PUSH (or a READ_REQ of @n bytes) to key:va held on an RVATLB miss;
 * its decision. */
static struct fake_decision miss(uint8_t type, uint16_t key, uint64_t va, uint32_t n)
{
    struct dn1_hdr h = { .version = 1, .type = type, .flags = DN1_FLAG_VA,
                         .src = 5, .dst = ME, .tag = 77,
                         .raddr = DN1_RVA(key, va) };
    if (type == DN1_TYPE_READ_REQ) {
        h.len = 8;
        h.xoff = n;
    } else {
        h.len = (uint16_t)n;
    }
    size_t k = fake_decision_count;
    fake_rx_push_held(&h, DN1_HOLD_RVATLB_MISS);
    dispatch_service();
    return fake_decisions[k % FAKE_DECISIONS];
}

static unsigned valid_entries(void)
{
    unsigned n = 0;
    for (unsigned i = 0; i < 64; i++) {
        n += (fake_rvatlb[i][0] & DN1_TLB_V) != 0;
    }
    return n;
}

static uint64_t entry_vpn(unsigned i)
{
    return (uint64_t)fake_rvatlb[i][1] << 32 | fake_rvatlb[i][2];
}

/* A page wholly inside a registration, VA and NIC offset on the same page
 * offset: RVATLB entries (32 first) with the registered access for it and
 * the registration's pages after it, RETRY. */
static void t_fill(void)
{
    uint32_t fills = fwstats_get(DN1_FWST_MR_FILLS);

    reg(4, KEYA, VA, 0x4000, 0x3000, RW);
    CHECK_EQ(miss(DN1_TYPE_PUSH, KEYA, VA + 0x1010, 64).action, RX_RETRY);
    CHECK_EQ(fake_rvatlb[32][0], DN1_TLB_V | DN1_TLB_W | DN1_TLB_R | KEYA);
    CHECK_EQ(entry_vpn(32), (VA + 0x1000) >> 12);
    CHECK_EQ(fake_rvatlb[32][3], 0x5000 >> 12);
    /* ... and the last page, the registration's end: no more. */
    CHECK_EQ(fake_rvatlb[33][0], DN1_TLB_V | DN1_TLB_W | DN1_TLB_R | KEYA);
    CHECK_EQ(entry_vpn(33), (VA + 0x2000) >> 12);
    CHECK_EQ(fake_rvatlb[33][3], 0x6000 >> 12);
    CHECK_EQ(fwstats_get(DN1_FWST_MR_FILLS), fills + 2);
    /* The next miss takes the next entry; a read-only one has R only. */
    reg(5, KEYB, VA + 0x100000, 0x8000, 0x1000, DN1_MR_ACCESS_R);
    CHECK_EQ(miss(DN1_TYPE_READ_REQ, KEYB, VA + 0x100000, 2048).action, RX_RETRY);
    CHECK_EQ(fake_rvatlb[34][0], DN1_TLB_V | DN1_TLB_R | KEYB);
    CHECK_EQ(fake_rvatlb[34][3], 0x8);
    CHECK_EQ(valid_entries(), 3);
}

/* A miss fills at most 8 pages (the missed one first), entries 32..63 in
 * turn, wrapping round. */
static void t_fill_ahead(void)
{
    uint32_t fills = fwstats_get(DN1_FWST_MR_FILLS);

    reg(2, KEYA, VA, 0x100000, 0x40000, DN1_MR_ACCESS_W);       /* 64 pages */
    for (unsigned m = 0; m < 5; m++) {                 /* pages 0, 8, .., 32 */
        CHECK_EQ(miss(DN1_TYPE_PUSH, KEYA, VA + m * 0x8000 + 8, 464).action, RX_RETRY);
    }
    CHECK_EQ(fwstats_get(DN1_FWST_MR_FILLS), fills + 40);
    CHECK_EQ(valid_entries(), 32);
    for (unsigned k = 0; k < 32; k++) {
        /* Entries 32..39 were filled first and again by the fifth miss. */
        unsigned page = k < 8 ? 32 + k : k;
        CHECK_EQ(fake_rvatlb[32 + k][0], DN1_TLB_V | DN1_TLB_W | KEYA);
        CHECK_EQ(entry_vpn(32 + k), (VA >> 12) + page);
        CHECK_EQ(fake_rvatlb[32 + k][3], (0x100000 >> 12) + page);
    }
}

/* Pages not wholly inside, or mapped off the page grid: checked to the
 * byte and continued at the NIC address; nothing filled. */
static void t_continue(void)
{
    uint32_t cont = fwstats_get(DN1_FWST_MR_CONTINUES);

    reg(0, KEYA, VA + 0x100, 0x4100, 0x1000, RW);       /* two partial pages */
    struct fake_decision d = miss(DN1_TYPE_PUSH, KEYA, VA + 0x100, 64);
    CHECK_EQ(d.action, RX_CONTINUE);
    CHECK_EQ(d.raddr, 0x4100);
    d = miss(DN1_TYPE_READ_REQ, KEYA, VA + 0x1000, 0x100);  /* the last bytes */
    CHECK_EQ(d.action, RX_CONTINUE);
    CHECK_EQ(d.raddr, 0x5000);
    reg(1, KEYB, VA, 0x6008, 0x4000, RW);               /* off the page grid */
    d = miss(DN1_TYPE_PUSH, KEYB, VA + 0x2000, 464);
    CHECK_EQ(d.action, RX_CONTINUE);
    CHECK_EQ(d.raddr, 0x8008);
    CHECK_EQ(fwstats_get(DN1_FWST_MR_CONTINUES), cont + 3);
    CHECK_EQ(valid_entries(), 0);
}

/* Every refusal: NACK PROTECTION, counted, no RVATLB entry. */
static void t_refusals(void)
{
    uint32_t refused = fwstats_get(DN1_FWST_MR_REFUSED);

    reg(2, KEYA, VA, 0x4000, 0x1000, DN1_MR_ACCESS_W);
    reg(3, 0x9000, VA, 0x4000, 0, RW);                  /* length 0 */
    reg(6, 0x9001, VA, 0x4000, DN1_MR_LEN_MAX + 1, RW); /* over 16 MiB */
    reg(7, 0x9002, VA, DN1_HOSTMEM_SIZE - 0x800, 0x1000, RW);  /* past receive memory */
    struct { uint8_t type; uint16_t key; uint64_t va; uint32_t n; } c[] = {
        { DN1_TYPE_PUSH, 0x8002, VA, 8 },               /* no entry with the key */
        { DN1_TYPE_PUSH, KEYA, VA - 8, 8 },             /* before the start */
        { DN1_TYPE_PUSH, KEYA, VA + 0xff8, 16 },        /* runs past the end */
        { DN1_TYPE_PUSH, KEYA, VA + 0x1000, 1 },        /* just after */
        { DN1_TYPE_READ_REQ, KEYA, VA, 8 },             /* no R */
        { DN1_TYPE_PUSH, 0x9000, VA, 8 },
        { DN1_TYPE_PUSH, 0x9001, VA, 8 },
        { DN1_TYPE_PUSH, 0x9002, VA, 8 },
    };
    for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        struct fake_decision d = miss(c[i].type, c[i].key, c[i].va, c[i].n);
        CHECK_MSG(d.action == RX_NACK && d.nack_reason == DN1_NACK_PROTECTION,
                  "case %u: action %d reason %u", i, d.action, d.nack_reason);
    }
    CHECK_EQ(fwstats_get(DN1_FWST_MR_REFUSED), refused + 8);
    /* Freed (rva_base 0): refused too. */
    fake_hostmem_put_u64(DN1_RADDR_LLCM + DN1_MR_LLCM_OFF + 2 * DN1_MR_ENTRY, 0);
    CHECK_EQ(miss(DN1_TYPE_PUSH, KEYA, VA, 8).nack_reason, DN1_NACK_PROTECTION);
    /* The whole byte range counts, not only the missed page: the last
     * byte inside, one more outside. */
    reg(2, KEYA, VA, 0x4000, 0x1000, DN1_MR_ACCESS_W);
    CHECK_EQ(miss(DN1_TYPE_PUSH, KEYA, VA + 0xff8, 8).action, RX_RETRY);
    CHECK_EQ(valid_entries(), 1);
}

/* Contexts without bit 15 keep the variant handler (default: NACK
 * NO_TRANSLATION). */
static void t_other_contexts(void)
{
    reg(0, KEYA, VA, 0x4000, 0x1000, RW);
    struct fake_decision d = miss(DN1_TYPE_PUSH, KEYA & 0x7fff, VA, 8);
    CHECK_EQ(d.action, RX_NACK);
    CHECK_EQ(d.nack_reason, DN1_NACK_NO_TRANSLATION);
}

/* MR_SYNC: only from this node to itself; invalidates the key's fills
 * (0: all) and nothing else; DONE. */
static void t_sync(void)
{
    reg(0, KEYA, VA, 0x4000, 0x2000, RW);
    reg(1, KEYB, VA, 0x8000, 0x1000, RW);
    CHECK_EQ(miss(DN1_TYPE_PUSH, KEYA, VA, 8).action, RX_RETRY);   /* both pages */
    CHECK_EQ(miss(DN1_TYPE_PUSH, KEYB, VA, 8).action, RX_RETRY);
    fake_rvatlb[0][0] = DN1_TLB_V | KEYA;               /* not the firmware's */
    CHECK_EQ(valid_entries(), 4);

    struct dn1_hdr h = { .version = 1, .type = DN1_TYPE_MR_SYNC,
                         .flags = DN1_FLAG_ACK_REQ, .src = 4, .dst = ME, .raddr = KEYA };
    size_t k = fake_decision_count;
    fake_rx_push(&h);
    dispatch_service();
    CHECK_EQ(fake_decisions[k % FAKE_DECISIONS].action, RX_NACK);
    CHECK_EQ(fake_decisions[k % FAKE_DECISIONS].nack_reason, DN1_NACK_BAD_CONTROL);
    CHECK_EQ(valid_entries(), 4);

    /* Another node's host port 1: refused; this node's (contract 1.27):
     * taken, if the board has that port (1.28). */
    h.src = 4 | 1u << DN1_PORT_SHIFT;
    fake_rx_push(&h);
    dispatch_service();
    CHECK_EQ(fake_decisions[(k + 1) % FAKE_DECISIONS].nack_reason, DN1_NACK_BAD_CONTROL);
    CHECK_EQ(valid_entries(), 4);
    h.src = ME | 1u << DN1_PORT_SHIFT;
    k++;
    fake_rx_push(&h);                                   /* a board of one port */
    dispatch_service();
    CHECK_EQ(fake_decisions[(k + 1) % FAKE_DECISIONS].nack_reason, DN1_NACK_BAD_CONTROL);
    CHECK_EQ(valid_entries(), 4);
    /* Only with ACK_REQ alone (the host waits for it) and no payload. */
    fake_host_ports = 2;
    struct dn1_hdr odd[] = { h, h, h };
    odd[0].flags = 0;
    odd[1].flags = DN1_FLAG_ACK_REQ | DN1_FLAG_VA;
    odd[2].len = 8;
    for (unsigned i = 0; i < 3; i++) {
        k++;
        fake_rx_push(&odd[i]);
        dispatch_service();
        CHECK_EQ(fake_decisions[(k + 1) % FAKE_DECISIONS].nack_reason, DN1_NACK_BAD_CONTROL);
    }
    CHECK_EQ(valid_entries(), 4);
    k++;
    fake_rx_push(&h);
    dispatch_service();
    CHECK_EQ(fake_decisions[(k + 1) % FAKE_DECISIONS].action, RX_DONE);
    CHECK_EQ(valid_entries(), 2);
    CHECK(fake_rvatlb[34][0] & DN1_TLB_V);              /* KEYB's */
    CHECK(fake_rvatlb[0][0] & DN1_TLB_V);
    h.raddr = 0;
    fake_rx_push(&h);
    dispatch_service();
    fake_host_ports = 1;
    CHECK_EQ(valid_entries(), 1);
    CHECK(fake_rvatlb[0][0] & DN1_TLB_V);
    /* A boot forgets whatever a predecessor filled in 32..63. */
    fake_rvatlb[40][0] = DN1_TLB_V | KEYB;
    mr_init();
    CHECK_EQ(valid_entries(), 1);
}

/* Fills take entries 32..63 in turn, never 0..31. */
static void t_round_robin(void)
{
    reg(0, KEYA, VA, 0, DN1_MR_LEN_MAX, RW);
    for (unsigned i = 0; i < 40; i++) {                 /* 8 pages a miss */
        CHECK_EQ(miss(DN1_TYPE_PUSH, KEYA, VA + 0x8000ull * i, 8).action, RX_RETRY);
    }
    CHECK_EQ(valid_entries(), 32);
    /* Fill 319, the last (page 319), took entry 32 + 319 % 32. */
    CHECK_EQ(fake_rvatlb[32 + 31][2], (uint32_t)((VA >> 12) + 319));
    CHECK_EQ(fake_rvatlb[32 + 24][2], (uint32_t)((VA >> 12) + 312));
    for (unsigned i = 0; i < 32; i++) {
        CHECK_EQ(fake_rvatlb[i][0], 0);
    }
}

/* A paged entry (NR, nic_off its length) of @len bytes from @va. */
static void reg_paged(unsigned i, uint16_t key, uint64_t va, uint32_t len, uint32_t access)
{
    reg(i, key, va, len, 0, DN1_MR_NR | access);
}

static uint32_t llcm32(uint32_t off)
{
    return fake_nic_get_u32(DN1_RADDR_LLCM + off);
}

/* Paged registrations (contract 1.28): an access only an NR entry holds
 * is NACKed NOT_RESIDENT and posted in the fault ring (record, then the
 * count); a resident piece with the same key serves what it holds whole;
 * what neither holds, or without the access, is PROTECTION. */
static void t_paged(void)
{
    uint32_t faults = llcm32(DN1_MR_FAULTS_OFF), nr = fwstats_get(DN1_FWST_MR_NOT_RESIDENT);
    uint32_t refused = fwstats_get(DN1_FWST_MR_REFUSED);
    struct fake_decision d;

    reg_paged(6, KEYA, VA, 0x100000, RW);
    reg_paged(9, KEYB, VA, 0x100000, DN1_MR_ACCESS_R);
    d = miss(DN1_TYPE_PUSH, KEYA, VA + 0x2010, 64);
    CHECK_EQ(d.action, RX_NACK);
    CHECK_EQ(d.nack_reason, DN1_NACK_NOT_RESIDENT);
    CHECK_EQ(llcm32(DN1_MR_FAULTS_OFF), faults + 1);
    uint32_t rec = DN1_MR_FAULT_RING + DN1_MR_FAULT_SIZE * (faults % DN1_MR_FAULT_SLOTS);
    CHECK_EQ(llcm32(rec), (uint32_t)(VA + 0x2010));
    CHECK_EQ(llcm32(rec + 4), (uint32_t)KEYA << 16 | (uint32_t)(VA >> 32));
    CHECK_EQ(llcm32(rec + 8), 64);
    CHECK_EQ(fwstats_get(DN1_FWST_MR_NOT_RESIDENT), nr + 1);
    CHECK_EQ(valid_entries(), 0);
    /* Reads of a read-only paged one: NOT_RESIDENT; writes: PROTECTION. */
    d = miss(DN1_TYPE_READ_REQ, KEYB, VA + 0x5000, 4096);
    CHECK_EQ(d.nack_reason, DN1_NACK_NOT_RESIDENT);
    d = miss(DN1_TYPE_PUSH, KEYB, VA + 0x5000, 8);
    CHECK_EQ(d.nack_reason, DN1_NACK_PROTECTION);
    /* Past its end, or running over it: PROTECTION, nothing posted. */
    faults = llcm32(DN1_MR_FAULTS_OFF);
    CHECK_EQ(miss(DN1_TYPE_PUSH, KEYA, VA + 0x100000, 8).nack_reason, DN1_NACK_PROTECTION);
    CHECK_EQ(miss(DN1_TYPE_PUSH, KEYA, VA + 0xffff0, 64).nack_reason, DN1_NACK_PROTECTION);
    CHECK_EQ(llcm32(DN1_MR_FAULTS_OFF), faults);
    CHECK_EQ(fwstats_get(DN1_FWST_MR_REFUSED), refused + 3);
    /* A piece moved onto the card: served (filled, RETRY); an access
     * running past the piece is NOT_RESIDENT again. */
    reg(7, KEYA, VA + 0x1000, 0x8000, 0x2000, RW);
    CHECK_EQ(miss(DN1_TYPE_PUSH, KEYA, VA + 0x2010, 64).action, RX_RETRY);
    CHECK(valid_entries() > 0);
    CHECK_EQ(miss(DN1_TYPE_PUSH, KEYA, VA + 0x2ff0, 64).nack_reason, DN1_NACK_NOT_RESIDENT);
    /* The ring wraps: the newest 8 records, the count goes on, and a new
     * start of the firmware goes on from it. */
    faults = llcm32(DN1_MR_FAULTS_OFF);
    for (unsigned i = 0; i < 10; i++) {
        CHECK_EQ(miss(DN1_TYPE_PUSH, KEYA, VA + 0x10000 + 0x100 * i, 8).nack_reason,
                 DN1_NACK_NOT_RESIDENT);
    }
    CHECK_EQ(llcm32(DN1_MR_FAULTS_OFF), faults + 10);
    rec = DN1_MR_FAULT_RING + DN1_MR_FAULT_SIZE * ((faults + 9) % DN1_MR_FAULT_SLOTS);
    CHECK_EQ(llcm32(rec), (uint32_t)(VA + 0x10000 + 0x900));
    mr_init();
    CHECK_EQ(miss(DN1_TYPE_PUSH, KEYA, VA + 0x20000, 8).nack_reason, DN1_NACK_NOT_RESIDENT);
    CHECK_EQ(llcm32(DN1_MR_FAULTS_OFF), faults + 11);
    /* An NR entry with length bits set, or length 0, holds nothing. */
    reg(6, KEYA, VA, 0x100000, 0x1000, DN1_MR_NR | RW);
    reg(9, KEYA, VA, 0, 0, DN1_MR_NR | RW);
    CHECK_EQ(miss(DN1_TYPE_PUSH, KEYA, VA + 0x30000, 8).nack_reason, DN1_NACK_PROTECTION);
    reg(6, 0, 0, 0, 0, 0);
    reg(7, 0, 0, 0, 0, 0);
    reg(9, 0, 0, 0, 0, 0);
}

static const struct test_case cases[] = {
    { "fill", t_fill },
    { "paged", t_paged },
    { "fill_ahead", t_fill_ahead },
    { "continue", t_continue },
    { "refusals", t_refusals },
    { "other_contexts", t_other_contexts },
    { "sync", t_sync },
    { "round_robin", t_round_robin },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, NULL);
}
