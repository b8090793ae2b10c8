/*
 * dn_resend over a lossy switch: node 0 writes K transfers of 8 KiB to
 * node 1 by BOTF (18 packets each) and K by RDMA (4 packets each), each to
 * its own place. A transfer not answered in time gets only its unanswered
 * packets sent again (dn_resend), until every packet is answered; every
 * transfer must end DN_OK with each packet ACKed exactly once (a late
 * answer to the first copy of a resent packet is not counted twice), and
 * node 1 checks every byte. Also the refusals: a remote read, a transfer
 * of more than 64 packets (DN_EINVAL), one waited for already (DN_ESTALE).
 * Prints "resend: transfers=N timeouts=T packets=P resent=R" (node 0).
 *
 *   e2e_resend [--transfers K]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet.h"

#define TIMEOUT_MS 60000
#define WAIT_MS    300        /* then the unanswered packets go again */
#define TRIES      40
#define LEN        8192u
#define DST(k)     (0x100000u + LEN * (k))     /* at node 1 */
#define SRC        0x80000u                    /* RDMA source at node 0 */

static uint8_t pattern(size_t i, unsigned k)
{
    uint32_t x = (uint32_t)i * 2654435761u + k * 40503u + 17u;
    return (uint8_t)(x >> 24 ^ x >> 7);
}

static unsigned timeouts, packets, resent;

/* Wait for @x, resending what is unanswered after each WAIT_MS. */
static void settle(dn_node *n, dn_xfer *x, unsigned k)
{
    int rc;

    for (unsigned t = 0; (rc = dn_wait(n, x, WAIT_MS)) == DN_ETIMEDOUT && t < TRIES; t++) {
        uint32_t r = 0;

        timeouts++;
        CHECK_EQ(dn_resend(n, x, &r), DN_OK);
        CHECK_MSG(r < x->packets || x->packets == 1 || x->acked == 0,
                  "transfer %u: %u of %u packets resent although %u were ACKed", k, r,
                  x->packets, x->acked);
        resent += r;
    }
    CHECK_MSG(rc == DN_OK, "transfer %u: %s", k, dn_strerror(rc));
    CHECK_EQ(x->acked, x->packets);     /* each packet once */
    packets += x->packets;
}

static void refusals(dn_node *n)
{
    static uint8_t big[65536];
    dn_xfer x;
    uint32_t r = 99;

    /* A remote read: its requests are not resent by packet. */
    /* (Neither is waited for: over this switch a lost packet of theirs
     * would never be answered.) */
    CHECK_EQ(dn_get(n, 1, DST(0), SRC + LEN, 4096, &x), DN_OK);
    CHECK_EQ(dn_resend(n, &x, &r), DN_EINVAL);
    CHECK_EQ(r, 0);
    /* 142 packets: more than the bitmap tells apart. */
    CHECK_EQ(dn_botf_put(n, 1, 0x300000, big, sizeof(big), &x), DN_OK);
    CHECK_EQ(dn_resend(n, &x, &r), DN_EINVAL);
    /* One waited for: its record is gone. */
    CHECK_EQ(dn_botf_put(n, 1, 0x310000, big, 8, &x), DN_OK);
    settle(n, &x, 2000);
    CHECK_EQ(dn_resend(n, &x, &r), DN_ESTALE);
    CHECK_EQ(dn_resend(NULL, &x, &r), DN_EINVAL);
}

int main(int argc, char **argv)
{
    unsigned k_max = 60;
    dn_node *n;
    char v[8];

    if (argc == 3 && !strcmp(argv[1], "--transfers")) {
        k_max = (unsigned)strtoul(argv[2], NULL, 0);
    }
    CHECK(k_max > 0 && 2 * k_max * LEN <= 0x200000u);
    if (dn_open_env(&n, TIMEOUT_MS) != DN_OK) {
        fprintf(stderr, "cannot open node\n");
        return 1;
    }
    size_t size;
    uint8_t *mem = dn_hostmem(n, &size);

    if (dn_node_id(n) == 1) {
        memset(mem + DST(0), 0xee, 2 * k_max * LEN);
        CHECK_EQ(dn_publish("ready", "1"), DN_OK);
        CHECK_EQ(dn_lookup("done", v, sizeof(v), 10 * TIMEOUT_MS), DN_OK);
        unsigned bad = 0;
        for (unsigned k = 0; k < 2 * k_max; k++) {
            for (size_t i = 0; i < LEN; i++) {
                bad += mem[DST(k) + i] != pattern(i, k);
            }
        }
        CHECK_MSG(bad == 0, "%u bytes wrong at node 1", bad);
        printf("resend: node 1 checked %u transfers\n", 2 * k_max);
        dn_close(n);
        return check_failures != 0;
    }
    CHECK_EQ(dn_lookup("ready", v, sizeof(v), TIMEOUT_MS), DN_OK);
    static uint8_t buf[LEN];
    for (unsigned k = 0; k < 2 * k_max; k++) {
        dn_xfer x;

        for (size_t i = 0; i < LEN; i++) {
            buf[i] = pattern(i, k);
        }
        if (k < k_max) {
            CHECK_EQ(dn_botf_put(n, 1, DST(k), buf, LEN, &x), DN_OK);
        } else {
            memcpy(mem + SRC, buf, LEN);
            CHECK_EQ(dn_rdma_write(n, DN1_TYPE_PUSH, 1, DST(k), SRC, LEN, &x), DN_OK);
        }
        settle(n, &x, k);
    }
    refusals(n);
    printf("resend: transfers=%u timeouts=%u packets=%u resent=%u\n", 2 * k_max, timeouts,
           packets, resent);
    CHECK_EQ(dn_publish("done", "1"), DN_OK);
    dn_close(n);
    return check_failures != 0;
}
