/*
 * End-to-end paths over two boards with firmware, run by the launcher on
 * each node. Node 1 lays out its receive memory (sentinel everywhere, pointer
 * slots aimed at chosen places) and waits; node 0 runs the scenarios below
 * and says "done"; node 1 then checks that every byte is where it should be
 * and nowhere else, and that its NIC counted each refusal.
 *
 *   e2e_paths
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/fw_types.h"
#include "dimmnet1/regs.h"

#define TIMEOUT_MS 30000
#define SENTINEL   0x5au

/* Node 1's layout: pointer slots and where they point. */
#define SLOT_SMALL   0x1000u   /* -> LAND_SMALL */
#define SLOT_464     0x1008u   /* -> LAND_464   */
#define SLOT_465     0x1010u   /* -> LAND_465   */
#define SLOT_BIG     0x1018u   /* -> LAND_BIG   */
#define SLOT_OUTSIDE 0x1020u   /* -> past receive memory */
#define SLOT_EMPTY   0x1028u   /* -> LAND_EMPTY, zero-byte transfer */
#define LAND_SMALL   0x20003u  /* odd on purpose: no alignment needed */
#define LAND_464     0x21000u
#define LAND_465     0x22000u
#define LAND_BIG     0x100000u
#define LAND_EMPTY   0x23000u
#define DIRECT_ADDR  0x30000u
#define SMALL_LEN    100u
#define BIG_LEN      (2560u * 1024u)  /* 5650 packets: more than the CQ holds,
                                         more than 4096 tags */
#define DIRECT_LEN   2000u
#define MANY_ADDR    0x40000u  /* 65 one-byte puts, not waited for in turn */
#define MANY         65u
#define LLCM_OFF     0x100u    /* in node 1's LLCM user area */
#define LLCM_LEN     600u      /* two packets */
#define AOTF_ADDR    0x50000u  /* 8 AOTF stores of 8 bytes, ACKed */
#define AOTF_LLCM    0x800u    /* 2 AOTF stores into LLCM, not ACKed */
#define SLOT_AOTF    0x1030u   /* -> LAND_AOTF: an indirect write by AOTF */
#define LAND_AOTF    0x24000u
#define RDMA_SRC     0x400000u /* in node 0's own receive memory */
#define RDMA_ADDR    0x600000u
#define RDMA_LEN     (300u * 1024u)   /* 150 packets: three descriptors */
#define SLOT_RDMA    0x1038u   /* -> LAND_RDMA: an indirect write by RDMA */
#define LAND_RDMA    0x700000u
#define SLOT_LLCM_OFF 0x1000u  /* pointer slot in node 1's LLCM user area, */
#define LAND_VIA_LLCM 0x25000u /* -> here (the paper keeps pointers in LLCM) */
#define READ_SRC     0x800000u /* node 1 fills it; node 0 reads it */
#define READ_LEN     10000u
#define READ_DST     0x900000u /* in node 0's own receive memory */
#define RDMA_IW_LEN  10000u

struct region {
    uint64_t addr;
    size_t len;
    unsigned seed;
};

static const struct region written[] = {
    { LAND_SMALL, SMALL_LEN, 1 },
    { LAND_464, 464, 2 },
    { LAND_465, 465, 3 },
    { LAND_BIG, BIG_LEN, 4 },
    { DIRECT_ADDR, DIRECT_LEN, 5 },
    { MANY_ADDR, MANY, 6 },
    { AOTF_ADDR, 64, 8 },
    { LAND_AOTF, 8, 9 },
    { RDMA_ADDR, RDMA_LEN, 11 },
    { LAND_RDMA, RDMA_IW_LEN, 12 },
    { LAND_VIA_LLCM, 1000, 13 },
    { READ_SRC, READ_LEN, 14 },               /* node 1's own, read by node 0 */
};

static const struct { uint64_t slot, target; } slots[] = {
    { SLOT_SMALL, LAND_SMALL }, { SLOT_464, LAND_464 }, { SLOT_465, LAND_465 },
    { SLOT_BIG, LAND_BIG }, { SLOT_OUTSIDE, DN1_HOSTMEM_SIZE + 0x1000u },
    { SLOT_EMPTY, LAND_EMPTY }, { SLOT_AOTF, LAND_AOTF },
    { SLOT_RDMA, LAND_RDMA },
};

static uint8_t pattern(size_t i, unsigned seed)
{
    uint32_t x = (uint32_t)i * 2246822519u + seed * 374761393u;
    return (uint8_t)(x >> 24 ^ x >> 13);
}

static uint8_t *make(size_t len, unsigned seed)
{
    uint8_t *p = malloc(len ? len : 1);
    for (size_t i = 0; i < len; i++) {
        p[i] = pattern(i, seed);
    }
    return p;
}

static dn_node *n;

static int send_wait(int rc, dn_xfer *x, uint32_t packets)
{
    if (rc != DN_OK) {
        return rc;
    }
    CHECK_EQ(x->packets, packets);
    return dn_wait(n, x, TIMEOUT_MS);
}

static void sender(void)
{
    char v[32];
    dn_xfer x;
    uint8_t *buf;

    CHECK_EQ(dn_lookup("layout", v, sizeof(v), TIMEOUT_MS), DN_OK);

    /* Indirect writes of several sizes; each lands where node 1 pointed. */
    buf = make(SMALL_LEN, 1);
    CHECK_EQ(send_wait(dn_indirect_write(n, 1, SLOT_SMALL, buf, SMALL_LEN, &x), &x, 1), DN_OK);
    CHECK_EQ(x.acked, 1);
    free(buf);
    buf = make(464, 2);
    CHECK_EQ(send_wait(dn_indirect_write(n, 1, SLOT_464, buf, 464, &x), &x, 1), DN_OK);
    free(buf);
    buf = make(465, 3);
    CHECK_EQ(send_wait(dn_indirect_write(n, 1, SLOT_465, buf, 465, &x), &x, 2), DN_OK);
    CHECK_EQ(x.acked, 2);
    free(buf);
    CHECK_EQ(send_wait(dn_indirect_write(n, 1, SLOT_EMPTY, NULL, 0, &x), &x, 1), DN_OK);

    /* More packets than the completion queue holds: the shim throttles. */
    buf = make(BIG_LEN, 4);
    CHECK_EQ(send_wait(dn_indirect_write(n, 1, SLOT_BIG, buf, BIG_LEN, &x), &x,
                       (BIG_LEN + 463) / 464), DN_OK);
    CHECK_EQ(x.acked, (BIG_LEN + 463) / 464);
    free(buf);

    /* Hardware direct write (PUSH) for comparison. */
    buf = make(DIRECT_LEN, 5);
    CHECK_EQ(send_wait(dn_botf_put(n, 1, DIRECT_ADDR, buf, DIRECT_LEN, &x), &x, 5), DN_OK);
    free(buf);

    /* 65 transfers outstanding: the oldest is forgotten (DN_ESTALE), never
     * confused with a newer one; the newest complete normally. */
    dn_xfer many[MANY];
    buf = make(MANY, 6);
    for (unsigned i = 0; i < MANY; i++) {
        CHECK_EQ(dn_botf_put(n, 1, MANY_ADDR + i, buf + i, 1, &many[i]), DN_OK);
    }
    free(buf);
    CHECK_EQ(dn_wait(n, &many[0], TIMEOUT_MS), DN_ESTALE);
    for (unsigned i = 1; i < MANY; i++) {
        CHECK_EQ(dn_wait(n, &many[i], TIMEOUT_MS), DN_OK);
    }
    CHECK_EQ(dn_wait(n, &many[1], TIMEOUT_MS), DN_ESTALE);   /* waited for already */

    /* Direct write into node 1's LLCM user area. */
    buf = make(LLCM_LEN, 7);
    CHECK_EQ(send_wait(dn_botf_put(n, 1, DN_RADDR_LLCM_USER + LLCM_OFF, buf, LLCM_LEN, &x),
                       &x, 2), DN_OK);
    free(buf);

    /* AOTF: one host store, one packet. */
    uint64_t word;
    dn_xfer ax[8];
    buf = make(64, 8);
    CHECK_EQ(dn_aotf_open(n, 0, DN1_TYPE_PUSH, 1, 1, AOTF_ADDR, 64), DN_OK);
    for (unsigned i = 0; i < 8; i++) {
        memcpy(&word, buf + 8 * i, 8);                /* host order = LE */
        CHECK_EQ(dn_aotf_store(n, 0, 8 * i, word, 8, &ax[i]), DN_OK);
    }
    for (unsigned i = 0; i < 8; i++) {
        CHECK_EQ(dn_wait(n, &ax[i], TIMEOUT_MS), DN_OK);
        CHECK_EQ(ax[i].acked, 1);
    }
    free(buf);
    buf = make(16, 10);                               /* no ACKs: into LLCM */
    CHECK_EQ(dn_aotf_open(n, 1, DN1_TYPE_PUSH, 0, 1, DN_RADDR_LLCM_USER + AOTF_LLCM, 16),
             DN_OK);
    memcpy(&word, buf, 8);
    CHECK_EQ(dn_aotf_store(n, 1, 0, word, 8, NULL), DN_OK);
    memcpy(&word, buf + 8, 8);
    CHECK_EQ(dn_aotf_store(n, 1, 8, word, 8, NULL), DN_OK);
    free(buf);
    buf = make(8, 9);                                 /* firmware type by AOTF */
    CHECK_EQ(dn_aotf_open(n, 2, DN1_TYPE_INDIRECT_WRITE, 1, 1, SLOT_AOTF, 8), DN_OK);
    memcpy(&word, buf, 8);
    CHECK_EQ(dn_aotf_store(n, 2, 0, word, 8, &x), DN_OK);
    CHECK_EQ(dn_wait(n, &x, TIMEOUT_MS), DN_OK);
    free(buf);
    /* AOTF misuse: refused locally. */
    CHECK_EQ(dn_aotf_store(n, 3, 0, 0, 8, &x), DN_EINVAL);          /* not open */
    CHECK_EQ(dn_aotf_store(n, 0, 0, 0, 8, NULL), DN_EINVAL);        /* ACKs need x */
    CHECK_EQ(dn_aotf_store(n, 1, 0, 0, 8, &x), DN_EINVAL);          /* none come */
    CHECK_EQ(dn_aotf_store(n, 0, 60, 0, 8, &x), DN_ERANGE);
    CHECK_EQ(dn_aotf_store(n, 0, 0, 0, 9, &x), DN_EINVAL);
    CHECK_EQ(dn_aotf_open(n, 4, DN1_TYPE_PUSH, 0, 1, DN1_HOSTMEM_SIZE - 4, 8), DN_ERANGE);
    CHECK_EQ(dn_aotf_open(n, 32, DN1_TYPE_PUSH, 0, 1, 0, 8), DN_EINVAL);
    CHECK_EQ(dn_aotf_close(n, 2), DN_OK);
    CHECK_EQ(dn_aotf_store(n, 2, 0, 0, 8, &x), DN_EINVAL);

    /* RDMA: the NIC reads node 0's memory itself; 2048-byte packets. */
    size_t mysize;
    uint8_t *mine = dn_hostmem(n, &mysize);
    buf = make(RDMA_LEN, 11);
    memcpy(mine + RDMA_SRC, buf, RDMA_LEN);
    free(buf);
    CHECK_EQ(send_wait(dn_rdma_write(n, DN1_TYPE_PUSH, 1, RDMA_ADDR, RDMA_SRC, RDMA_LEN, &x),
                       &x, RDMA_LEN / 2048), DN_OK);
    buf = make(RDMA_IW_LEN, 12);
    memcpy(mine + RDMA_SRC, buf, RDMA_IW_LEN);
    free(buf);
    CHECK_EQ(send_wait(dn_rdma_write(n, DN1_TYPE_INDIRECT_WRITE, 1, SLOT_RDMA, RDMA_SRC,
                                     RDMA_IW_LEN, &x), &x, 5), DN_OK);
    CHECK_EQ(dn_rdma_write(n, DN1_TYPE_PUSH, 1, 0, mysize - 10, 20, &x), DN_ERANGE);
    CHECK_EQ(dn_rdma_write(n, DN1_TYPE_PUSH, 1, DN1_HOSTMEM_SIZE - 10, 0, 20, &x), DN_ERANGE);
    CHECK_EQ(dn_rdma_write(n, DN1_TYPE_ACK, 1, 0, 0, 20, &x), DN_EINVAL);

    /* Remote read of what node 1 put there for us. */
    CHECK_EQ(send_wait(dn_get(n, 1, READ_SRC, READ_DST, READ_LEN, &x), &x, 5), DN_OK);
    CHECK_EQ(x.acked, 5);
    size_t read_bad = 0;
    for (size_t i = 0; i < READ_LEN; i++) {
        read_bad += mine[READ_DST + i] != pattern(i, 14);
    }
    CHECK_EQ(read_bad, 0);
    CHECK_EQ(send_wait(dn_get(n, 1, DN1_HOSTMEM_SIZE - 16, READ_DST, 32, &x), &x, 0),
             DN_ERANGE);

    /* Pointer slot in LLCM, as in the paper's measurements. */
    buf = make(1000, 13);
    CHECK_EQ(send_wait(dn_indirect_write(n, 1, DN_RADDR_LLCM_USER + SLOT_LLCM_OFF, buf, 1000,
                                         &x), &x, 3), DN_OK);
    free(buf);

    /* A remote virtual address with nothing in node 1's RVATLB: its firmware
     * has no miss handler yet, so the write is NACKed, not lost or hung. */
    uint8_t va_data[64] = { 1, 2, 3 };
    CHECK_EQ(send_wait(dn_botf_put_rva(n, 1, DN_RVA(3, 0x7f0000000000ull), va_data,
                                       sizeof(va_data), &x), &x, 1), DN_ENACK);
    CHECK_EQ(x.nack_reason, DN1_NACK_NO_TRANSLATION);
    CHECK_EQ(dn_botf_put_rva(n, 1, DN_RVA(3, 0xfffffffffff0ull), va_data, 64, &x),
             DN_ERANGE);

    /* The pointer aims outside node 1's memory: the NIC refuses, NACKs. */
    uint8_t small[16] = { 0 };
    CHECK_EQ(send_wait(dn_indirect_write(n, 1, SLOT_OUTSIDE, small, 16, &x), &x, 1), DN_ENACK);
    CHECK_EQ(x.nack_reason, DN1_NACK_RANGE);
    CHECK_EQ(x.nack_from, 1);
    CHECK_EQ(x.nacked, 1);

    /* A type no firmware handler serves: the dispatcher NACKs it. */
    CHECK_EQ(send_wait(dn_send_typed(n, 0x7f, 1, 0, small, 16, &x), &x, 1), DN_ENACK);
    CHECK_EQ(x.nack_reason, DN1_NACK_NO_HANDLER);

    /* Bad arguments: refused locally, nothing sent. */
    CHECK_EQ(dn_indirect_write(n, 1, 0x1004, small, 16, &x), DN_EINVAL);
    CHECK_EQ(dn_indirect_write(n, 1, DN1_HOSTMEM_SIZE, small, 16, &x), DN_ERANGE);
    CHECK_EQ(dn_botf_put(n, 1, DN1_HOSTMEM_SIZE - 8, small, 16, &x), DN_ERANGE);
    CHECK_EQ(dn_botf_put(n, 70000, 0, small, 16, &x), DN_EINVAL);
    CHECK_EQ(dn_botf_put(n, 1, 0, NULL, 16, &x), DN_EINVAL);
    CHECK_EQ(dn_send_typed(n, 2 /* ACK */, 1, 0, small, 1, &x), DN_EINVAL);

    /* A node that is not there: the switch has no route and drops it (its
     * counters say so); the wait times out instead of hanging. */
    CHECK_EQ(dn_botf_put(n, 5, 0, small, 16, &x), DN_OK);
    CHECK_EQ(dn_wait(n, &x, 500), DN_ETIMEDOUT);

    uint32_t botf_errors;
    CHECK_EQ(dn_reg_read(n, DN1_REG_CNT(DN1_CNT_ERR_BOTF), &botf_errors), DN_OK);
    CHECK_EQ(botf_errors, 0);
    CHECK_EQ(dn_publish("done", check_failures ? "fail" : "ok"), DN_OK);
}

static void receiver(void)
{
    size_t size;
    uint8_t *mem = dn_hostmem(n, &size);
    char v[32];

    memset(mem, SENTINEL, size);
    for (size_t i = 0; i < READ_LEN; i++) {
        mem[READ_SRC + i] = pattern(i, 14);
    }
    size_t llcm_size;
    uint8_t *llcm = dn_llcm_user(n, &llcm_size);
    memset(llcm, SENTINEL, llcm_size);
    CHECK_EQ(dn_indirect_slot_set(n, DN_RADDR_LLCM_USER + SLOT_LLCM_OFF, LAND_VIA_LLCM),
             DN_OK);
    for (size_t s = 0; s < sizeof(slots) / sizeof(slots[0]); s++) {
        CHECK_EQ(dn_indirect_slot_set(n, slots[s].slot, slots[s].target), DN_OK);
    }
    /* Slots it refuses, touching nothing: unaligned, outside both memories,
     * in the NIC's own part of LLCM (its completion queue). */
    CHECK_EQ(dn_indirect_slot_set(n, SLOT_SMALL + 4, 0), DN_EINVAL);
    CHECK_EQ(dn_indirect_slot_set(n, DN1_HOSTMEM_SIZE, 0), DN_ERANGE);
    CHECK_EQ(dn_indirect_slot_set(n, DN1_RADDR_LLCM + DN1_LLCM_SIZE, 0), DN_ERANGE);
    CHECK_EQ(dn_indirect_slot_set(n, DN1_RADDR_LLCM, 0), DN_ERANGE);
    CHECK_EQ(dn_publish("layout", "ready"), DN_OK);
    CHECK_EQ(dn_lookup("done", v, sizeof(v), 4 * TIMEOUT_MS), DN_OK);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);

    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < size; i++) {
        uint8_t want = SENTINEL;
        int slot = 0;
        for (size_t s = 0; s < sizeof(slots) / sizeof(slots[0]); s++) {
            slot |= i >= slots[s].slot && i < slots[s].slot + 8;
        }
        if (slot) {
            continue;
        }
        for (size_t r = 0; r < sizeof(written) / sizeof(written[0]); r++) {
            if (i >= written[r].addr && i < written[r].addr + written[r].len) {
                want = pattern(i - written[r].addr, written[r].seed);
            }
        }
        if (mem[i] != want && wrong++ == 0) {
            first = i;
        }
    }
    if (wrong) {
        fprintf(stderr, "node 1: %zu bytes wrong, first at 0x%zx\n", wrong, first);
    }
    CHECK_EQ(wrong, 0);

    size_t llcm_wrong = 0;
    for (size_t i = 0; i < llcm_size; i++) {
        uint8_t want = i >= LLCM_OFF && i < LLCM_OFF + LLCM_LEN
                       ? pattern(i - LLCM_OFF, 7) : SENTINEL;
        if (i >= AOTF_LLCM && i < AOTF_LLCM + 16) {
            want = pattern(i - AOTF_LLCM, 10);
        }
        if (i >= SLOT_LLCM_OFF && i < SLOT_LLCM_OFF + 8) {
            continue;                                  /* the pointer */
        }
        llcm_wrong += llcm[i] != want;
    }
    CHECK_EQ(llcm_wrong, 0);

    uint32_t c[DN1_CNT_COUNT];
    for (unsigned i = 0; i < DN1_CNT_COUNT; i++) {
        CHECK_EQ(dn_reg_read(n, DN1_REG_CNT(i), &c[i]), DN_OK);
    }
    uint32_t indirect_packets = 1 + 1 + 2 + 1 + (BIG_LEN + 463) / 464 + 1 /* AOTF */
                                + 5 /* RDMA */ + 3 /* pointer in LLCM */;
    CHECK_EQ(c[DN1_CNT_RX_CONTINUED], indirect_packets);
    CHECK_EQ(c[DN1_CNT_RX_HELD], indirect_packets + 3);  /* + outside, unknown type, VA */
    CHECK_EQ(c[DN1_CNT_RX_NACKED], 2);         /* unknown type, untranslatable VA */
    CHECK_EQ(c[DN1_CNT_RVATLB_MISS], 1);
    CHECK_EQ(c[DN1_CNT_ERR_RANGE], 1);                   /* pointer outside */
    CHECK_EQ(c[DN1_CNT_RX_PUSH], 5 + MANY + 2 + RDMA_LEN / 2048);
    CHECK_EQ(c[DN1_CNT_ERR_DST], 0);           /* node 5's packet never came here */
    CHECK_EQ(c[DN1_CNT_RX_OTF], 8 + 2);                  /* Mini-OTF receiver */
    CHECK_EQ(c[DN1_CNT_RX_READ_REQ], 5);
    CHECK_EQ(c[DN1_CNT_ERR_CRC], 0);
    CHECK_EQ(c[DN1_CNT_RX_DISCARDED], 0);
    CHECK(strcmp(v, "ok") == 0);
}

int main(void)
{
    int rc = dn_open_env(&n, TIMEOUT_MS);
    if (rc != DN_OK) {
        fprintf(stderr, "dn_open_env: %s\n", dn_strerror(rc));
        return 1;
    }
    unsigned me = dn_node_id(n);
    if (me == 0) {
        sender();
    } else if (me == 1) {
        receiver();
    }
    dn_close(n);
    printf("node %u: %s\n", me, check_failures ? "FAILED" : "all paths as expected");
    return check_failures ? 1 : 0;
}
