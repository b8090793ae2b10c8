/*
 * A fixed workload for deterministic runs (launcher --deterministic): every
 * node sends its right-hand neighbour an indirect write, a BOTF put into
 * LLCM, ACKed AOTF stores and an RDMA write, and reads a block from it, then
 * checks what its left-hand neighbour sent it. The programs synchronize only
 * through the network (virtual time), never through files, so that the
 * traces depend on nothing but the programs, the seed and the faults. Each
 * milestone is printed with the board's virtual clock (modeled ns); the
 * determinism test compares two runs line for line and trace for trace.
 *
 *   e2e_determinism
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/regs.h"

#define TIMEOUT_MS 60000

/* Every node's receive memory has the same layout. */
#define SLOT        0x1000u    /* indirect-write pointer -> LAND_IW */
#define LAND_IW     0x10000u
#define IW_LEN      2000u
#define LLCM_OFF    0x200u     /* BOTF put into the LLCM user area */
#define LLCM_LEN    1000u
#define AOTF_ADDR   0x20000u
#define AOTF_STORES 4u
#define RDMA_SRC    0x100000u  /* own memory, sent by RDMA */
#define RDMA_ADDR   0x30000u
#define RDMA_LEN    3000u
#define READ_SRC    0x200000u  /* own memory, read by the left neighbour */
#define READ_DST    0x40000u
#define READ_LEN    256u
/* Virtual time every node gives the others to lay out memory (they start
 * within a few microseconds of each other: same firmware, same epoch). */
#define SETUP_NS    20000u
#define DRAIN_NS    20000u

static uint8_t pattern(size_t i, unsigned from, unsigned what)
{
    return (uint8_t)(i * 7u + from * 31u + what * 101u + 1u);
}

static void milestone(dn_node *n, const char *what)
{
    uint64_t now = 0;

    CHECK_EQ(dn_clock(n, &now), DN_OK);
    printf("%" PRIu64 " ns (modeled): %s\n", now, what);
    fflush(stdout);
}

/* Poll until @len bytes at @p match @from's @what pattern (or time out). */
static size_t await(dn_node *n, const uint8_t *p, size_t len, unsigned from,
                    unsigned what)
{
    size_t wrong = len;

    for (int turns = 0; turns < 2000000 && wrong; turns++) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        wrong = 0;
        for (size_t i = 0; i < len; i++) {
            wrong += p[i] != pattern(i, from, what);
        }
        if (wrong && dn_idle(n) != DN_OK) {
            break;
        }
    }
    return wrong;
}

int main(void)
{
    dn_node *n;
    size_t hsize, lsize;
    int rc = dn_open_env(&n, TIMEOUT_MS);

    if (rc != DN_OK) {
        fprintf(stderr, "dn_open_env: %s\n", dn_strerror(rc));
        return 1;
    }
    const char *nodes_env = getenv("DIMMNET_NODES");
    unsigned nodes = nodes_env ? (unsigned)atoi(nodes_env) : 0;
    unsigned me = (unsigned)atoi(getenv("DIMMNET_NODE_ID"));
    unsigned right = (me + 1) % nodes, left = (me + nodes - 1) % nodes;
    uint8_t *mem = dn_hostmem(n, &hsize);
    uint8_t *llcm = dn_llcm_user(n, &lsize);

    CHECK(nodes >= 2);
    CHECK(dn_host_sync(n));
    milestone(n, "open");
    /* Lay out memory; with host sync the board stands still meanwhile. */
    CHECK_EQ(dn_indirect_slot_set(n, SLOT, LAND_IW), DN_OK);
    for (size_t i = 0; i < RDMA_LEN; i++) {
        mem[RDMA_SRC + i] = pattern(i, me, 3);
    }
    for (size_t i = 0; i < READ_LEN; i++) {
        mem[READ_SRC + i] = pattern(i, me, 4);
    }
    CHECK_EQ(dn_delay(n, SETUP_NS, NULL), DN_OK);
    milestone(n, "laid out");

    uint8_t buf[IW_LEN];
    dn_xfer iw, put, rdma, get, ax[AOTF_STORES];
    /* AOTF first, on an idle link: the test reads the store's modeled
     * on-the-fly delay off the trace, from this milestone's clock. */
    CHECK_EQ(dn_aotf_open(n, 0, DN1_TYPE_PUSH, 1, right, AOTF_ADDR, 8 * AOTF_STORES),
             DN_OK);
    milestone(n, "aotf store");
    for (unsigned k = 0; k < AOTF_STORES; k++) {
        uint64_t word = 0;
        for (unsigned b = 0; b < 8; b++) {
            word |= (uint64_t)pattern(8 * k + b, me, 2) << (8 * b);
        }
        CHECK_EQ(dn_aotf_store(n, 0, 8 * k, word, 8, &ax[k]), DN_OK);
    }
    for (size_t i = 0; i < IW_LEN; i++) {
        buf[i] = pattern(i, me, 0);
    }
    CHECK_EQ(dn_indirect_write(n, right, SLOT, buf, IW_LEN, &iw), DN_OK);
    for (size_t i = 0; i < LLCM_LEN; i++) {
        buf[i] = pattern(i, me, 1);
    }
    CHECK_EQ(dn_botf_put(n, right, DN_RADDR_LLCM_USER + LLCM_OFF, buf, LLCM_LEN, &put),
             DN_OK);
    CHECK_EQ(dn_rdma_write(n, DN1_TYPE_PUSH, right, RDMA_ADDR, RDMA_SRC, RDMA_LEN, &rdma),
             DN_OK);
    CHECK_EQ(dn_get(n, right, READ_SRC, READ_DST, READ_LEN, &get), DN_OK);
    CHECK_EQ(dn_wait(n, &iw, TIMEOUT_MS), DN_OK);
    CHECK_EQ(dn_wait(n, &put, TIMEOUT_MS), DN_OK);
    for (unsigned k = 0; k < AOTF_STORES; k++) {
        CHECK_EQ(dn_wait(n, &ax[k], TIMEOUT_MS), DN_OK);
    }
    CHECK_EQ(dn_wait(n, &rdma, TIMEOUT_MS), DN_OK);
    CHECK_EQ(dn_wait(n, &get, TIMEOUT_MS), DN_OK);
    milestone(n, "sends answered");
    CHECK_EQ(await(n, mem + READ_DST, READ_LEN, right, 4), 0);

    /* What the left-hand neighbour sent. */
    CHECK_EQ(await(n, mem + LAND_IW, IW_LEN, left, 0), 0);
    CHECK_EQ(await(n, llcm + LLCM_OFF, LLCM_LEN, left, 1), 0);
    CHECK_EQ(await(n, mem + AOTF_ADDR, 8 * AOTF_STORES, left, 2), 0);
    CHECK_EQ(await(n, mem + RDMA_ADDR, RDMA_LEN, left, 3), 0);
    milestone(n, "received");
    /* Let the network drain (duplicates the faults made, their answers)
     * before leaving: after the last host leaves, boards run on for as
     * long as the launcher takes to stop them, a wall-clock span. */
    CHECK_EQ(dn_delay(n, DRAIN_NS, NULL), DN_OK);
    /* No frame reached this board after its modeled arrival. */
    uint32_t late = 1;
    CHECK_EQ(dn_counter_read(n, DN1_CNT_ERR_SYNC, &late), DN_OK);
    CHECK_EQ(late, 0);
    dn_close(n);
    printf("node %u: %s\n", me, check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}
