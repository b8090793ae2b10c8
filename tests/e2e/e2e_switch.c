/*
 * Many boards through the switch, run by the launcher on each node:
 *   ring:       node i indirect-writes to node i+1 (mod N) and checks what
 *               node i-1 wrote to it;
 *   multicast:  node 0 writes once to group 0 (all nodes); every node
 *               (node 0 too) finds the data in its LLCM.
 *
 *   e2e_switch ring|multicast [--bytes N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/regs.h"

#define TIMEOUT_MS 60000
#define SLOT       0x100u
#define LAND       0x10000u

static dn_node *n;
static unsigned me, nodes;

static uint8_t pattern(size_t i, unsigned from)
{
    uint32_t x = (uint32_t)i * 2654435761u + from * 7919u;
    return (uint8_t)(x >> 24 ^ x >> 7);
}

static void ring(size_t bytes)
{
    size_t size;
    uint8_t *mem = dn_hostmem(n, &size);
    unsigned next = (me + 1) % nodes, prev = (me + nodes - 1) % nodes;

    memset(mem, 0, size);
    CHECK_EQ(dn_indirect_slot_set(n, SLOT, LAND), DN_OK);
    CHECK_EQ(dn_rendezvous("ready", TIMEOUT_MS), DN_OK);
    uint8_t *buf = malloc(bytes);
    for (size_t i = 0; i < bytes; i++) {
        buf[i] = pattern(i, me);
    }
    dn_xfer x;
    CHECK_EQ(dn_indirect_write(n, next, SLOT, buf, bytes, &x), DN_OK);
    CHECK_EQ(dn_wait(n, &x, TIMEOUT_MS), DN_OK);
    free(buf);
    CHECK_EQ(dn_rendezvous("sent", TIMEOUT_MS), DN_OK);
    size_t wrong = 0;
    for (size_t i = 0; i < bytes; i++) {
        wrong += mem[LAND + i] != pattern(i, prev);
    }
    CHECK_EQ(wrong, 0);
    printf("node %u: %zu bytes to node %u acked, %zu from node %u intact\n",
           me, bytes, next, bytes - wrong, prev);
    CHECK_EQ(dn_rendezvous("checked", TIMEOUT_MS), DN_OK);
}

static void multicast(size_t bytes)
{
    size_t size;
    uint8_t *llcm = dn_llcm_user(n, &size);
    CHECK(bytes <= size);
    memset(llcm, 0, size);
    CHECK_EQ(dn_rendezvous("ready", TIMEOUT_MS), DN_OK);
    if (me == 0) {
        uint8_t *buf = malloc(bytes);
        for (size_t i = 0; i < bytes; i++) {
            buf[i] = pattern(i, 99);
        }
        CHECK_EQ(dn_botf_put_group(n, 0, DN_RADDR_LLCM_USER, buf, bytes), DN_OK);
        free(buf);
        dn_xfer x;
        CHECK_EQ(dn_botf_put_group(n, DN1_MCAST_GROUPS, 0, "x", 1), DN_EINVAL);
        CHECK_EQ(dn_indirect_write(n, DN1_MCAST_BASE, SLOT, "x", 1, &x), DN_EINVAL);
    }
    /* Nothing answers a multicast: poll until the last byte shows. */
    size_t wrong = bytes;
    for (int waited = 0; waited < TIMEOUT_MS && wrong; waited += 10) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        wrong = 0;
        for (size_t i = 0; i < bytes; i++) {
            wrong += llcm[i] != pattern(i, 99);
        }
        if (wrong) {
            struct timespec ts = { 0, 10 * 1000000L };
            nanosleep(&ts, NULL);
        }
    }
    CHECK_EQ(wrong, 0);
    uint32_t acks_sent;
    CHECK_EQ(dn_counter_read(n, DN1_CNT_TX_ACK, &acks_sent), DN_OK);
    CHECK_EQ(acks_sent, 0);                  /* a multicast is not answered */
    printf("node %u: multicast of %zu bytes from node 0 arrived\n", me, bytes - wrong);
    CHECK_EQ(dn_rendezvous("checked", TIMEOUT_MS), DN_OK);
}

int main(int argc, char **argv)
{
    size_t bytes = 100000;
    if (argc < 2 || (argc == 4 && strcmp(argv[2], "--bytes")) || argc == 3 || argc > 4) {
        fprintf(stderr, "usage: %s ring|multicast [--bytes N]\n", argv[0]);
        return 2;
    }
    if (argc == 4) {
        bytes = strtoull(argv[3], NULL, 0);
    }
    if (dn_open_env(&n, TIMEOUT_MS) != DN_OK) {
        fprintf(stderr, "cannot open node\n");
        return 1;
    }
    me = dn_node_id(n);
    nodes = (unsigned)strtoul(getenv("DIMMNET_NODES"), NULL, 10);
    if (!strcmp(argv[1], "ring")) {
        ring(bytes);
    } else if (!strcmp(argv[1], "multicast")) {
        multicast(bytes);
    } else {
        fprintf(stderr, "unknown test '%s'\n", argv[1]);
        return 2;
    }
    dn_close(n);
    return check_failures ? 1 : 0;
}
