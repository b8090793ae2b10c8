/*
 * "MP by soft indirect" on real boards (docs/hardware.md section 13): node
 * 1 sets a pointer slot, node 0 sends transfers through it, with and
 * without f_seq; every byte lands at the slot's target + offset, the
 * firmware's notice counts each transfer once, and its own ACKs complete
 * the sender's waits. A transfer past the slot's capacity has its last
 * packet NACKed TOO_LONG (and is not counted done); a bad slot is refused
 * by the shim.
 *   e2e_soft_indirect [fseq-only]   (fseq-only: under duplicating faults,
 *                                    where only f_seq keeps the count right)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/message.h"
#include "dimmnet1/soft_indirect.h"

#define T 60000
#define SLOT (DN1_LLCM_NIC_RESERVED + 0x400u)
#define TARGET 0x200000u
#define CAPACITY 0x10000u
#define ROUNDS 6

static dn_node *n;
static const size_t lens[ROUNDS] = { 1, 464, 465, 5000, 20000, 65536 };

static void pattern(uint8_t *b, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) {
        b[i] = (uint8_t)(i * 11 + seed * 37 + i / 509);
    }
}

/* A rendezvous of both nodes; each name is used once. */
static void step(const char *what, int fseq, unsigned r)
{
    char name[64];
    snprintf(name, sizeof(name), "%s-%d-%u", what, fseq, r);
    CHECK_EQ(dn_rendezvous(name, T), DN_OK);
}

int main(int argc, char **argv)
{
    int fseq_only = argc > 1 && !strcmp(argv[1], "fseq-only");
    static uint8_t buf[CAPACITY + 8];
    size_t size;

    CHECK_EQ(dn_open_env(&n, T), DN_OK);
    unsigned me = dn_node_id(n);
    if (me == 1) {
        CHECK_EQ(dn_soft_slot_set(n, SLOT, TARGET, CAPACITY), DN_OK);
        CHECK_EQ(dn_soft_slot_set(n, SLOT + 8, TARGET, CAPACITY), DN_EINVAL);
        CHECK_EQ(dn_soft_slot_set(n, 0x100, TARGET, CAPACITY), DN_EINVAL);
    }
    step("slot", 0, 0);
    for (int fseq = fseq_only; fseq <= 1; fseq++) {
        for (unsigned r = 0; r < ROUNDS; r++) {
            if (me == 0) {
                dn_xfer x;
                pattern(buf, lens[r], r + 10 * fseq);
                CHECK_EQ(dn_soft_indirect_write(n, 1, SLOT, buf, lens[r], fseq, &x), DN_OK);
                CHECK_EQ(dn_wait(n, &x, T), DN_OK);
                CHECK_EQ(x.acked, x.packets);
            }
            step("sent", fseq, r);
            if (me == 1) {
                uint8_t *mem = dn_hostmem(n, &size);
                pattern(buf, lens[r], r + 10 * fseq);
                CHECK(memcmp(mem + TARGET, buf, lens[r]) == 0);
                uint32_t done = 0;
                CHECK_EQ(dn_soft_done(n, SLOT, &done), DN_OK);
                CHECK_EQ(done, (fseq - fseq_only) * ROUNDS + r + 1);
            }
            step("checked", fseq, r);
        }
    }
    if (me == 0 && !fseq_only) {
        dn_xfer x;
        CHECK_EQ(dn_soft_indirect_write(n, 1, SLOT, buf, CAPACITY + 8, 1, &x), DN_OK);
        CHECK_EQ(dn_wait(n, &x, T), DN_ENACK);
        CHECK_EQ(x.nack_reason, DN1_NACK_TOO_LONG);
        CHECK_EQ(dn_soft_indirect_write(n, 1, SLOT + 4, buf, 8, 1, &x), DN_EINVAL);
    }
    step("end", 0, 0);
    if (me == 1) {
        uint32_t v = 0;
        CHECK_EQ(dn_fw_stat_read(n, DN1_FWST_SOFT_DONE, &v), DN_OK);
        CHECK_EQ(v, (2 - fseq_only) * ROUNDS);
        CHECK_EQ(dn_fw_stat_read(n, DN1_FWST_SOFT_TX_ERRORS, &v), DN_OK);
        CHECK_EQ(v, 0);
        if (fseq_only) {
            /* The faults did duplicate packets: answered, not counted. */
            CHECK_EQ(dn_fw_stat_read(n, DN1_FWST_SOFT_DUPLICATES, &v), DN_OK);
            CHECK(v > 0);
        }
    }
    printf("e2e_soft_indirect: node %u %s\n", me, check_failures ? "FAILED" : "ok");
    dn_close(n);
    return check_failures ? 1 : 0;
}
