/*
 * Over a faulty link (switch --fault on node 1's port): node 0 sends K
 * one-packet writes, each to its own slot, and waits briefly for each ACK;
 * node 1 then checks that every slot holds either its sentinel (lost) or
 * exactly the data (landed) — a corrupted packet never lands. Prints
 * "lost: i j k" (node 0) and "landed N crc_errors N" (node 1) for the test
 * script to compare across runs and with the switch's counters.
 *
 *   e2e_faults [--packets K]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/regs.h"

#define TIMEOUT_MS 60000
#define SLOT(k)    (0x10000u + 512u * (k))
#define LEN        464u
#define SENTINEL   0xeeu

static uint8_t pattern(size_t i, unsigned k)
{
    uint32_t x = (uint32_t)i * 2654435761u + k * 40503u;
    return (uint8_t)(x >> 24 ^ x >> 5);
}

int main(int argc, char **argv)
{
    unsigned packets = 200;
    dn_node *n;
    char v[8];

    if (argc == 3 && !strcmp(argv[1], "--packets")) {
        packets = (unsigned)strtoul(argv[2], NULL, 0);
    }
    if (dn_open_env(&n, TIMEOUT_MS) != DN_OK) {
        fprintf(stderr, "cannot open node\n");
        return 1;
    }
    if (dn_node_id(n) == 1) {
        size_t size;
        uint8_t *mem = dn_hostmem(n, &size);
        memset(mem, SENTINEL, size);
        CHECK_EQ(dn_publish("ready", "1"), DN_OK);
        CHECK_EQ(dn_lookup("done", v, sizeof(v), 4 * TIMEOUT_MS), DN_OK);
        unsigned landed = 0, garbage = 0;
        for (unsigned k = 0; k < packets; k++) {
            unsigned good = 0, untouched = 0;
            for (unsigned i = 0; i < LEN; i++) {
                good += mem[SLOT(k) + i] == pattern(i, k);
                untouched += mem[SLOT(k) + i] == SENTINEL;
            }
            landed += good == LEN;
            garbage += good != LEN && untouched != LEN;
        }
        uint32_t crc;
        CHECK_EQ(dn_counter_read(n, DN1_CNT_ERR_CRC, &crc), DN_OK);
        CHECK_EQ(garbage, 0);
        printf("landed %u crc_errors %u\n", landed, crc);
    } else if (dn_node_id(n) == 0) {
        uint8_t buf[LEN];
        dn_xfer x;
        CHECK_EQ(dn_lookup("ready", v, sizeof(v), TIMEOUT_MS), DN_OK);
        printf("lost:");
        for (unsigned k = 0; k < packets; k++) {
            for (unsigned i = 0; i < LEN; i++) {
                buf[i] = pattern(i, k);
            }
            CHECK_EQ(dn_botf_put(n, 1, SLOT(k), buf, LEN, &x), DN_OK);
            int rc = dn_wait(n, &x, 150);   /* an ACK takes milliseconds */
            CHECK(rc == DN_OK || rc == DN_ETIMEDOUT);
            if (rc != DN_OK) {
                printf(" %u", k);
            }
        }
        printf("\n");
        fflush(stdout);
        CHECK_EQ(dn_publish("done", "1"), DN_OK);
    }
    dn_close(n);
    return check_failures ? 1 : 0;
}
