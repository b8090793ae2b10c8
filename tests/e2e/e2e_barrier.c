/*
 * Barrier refusals and bad input on 3 boards with the firmware (issue 9,
 * item 1's refusals; docs/hardware.md section 11). Node 0 is the counter
 * node of group 0, whose members are nodes 0 and 1; node 2 is a stranger.
 *
 *   node 2: BARRIER packets (BOTF, with ACK_REQ, so the NACK comes back):
 *           as a non-member (BARRIER_MEMBER), to a group not set up and to
 *           an raddr naming no counter (BARRIER_SETUP), shorter than an
 *           epoch (BAD_PATH); then a dn_barrier that wrongly claims
 *           membership: dn_barrier_wait fails with DN_ENACK and a text.
 *           The paper's barrier (BARRIER_PAPER): an raddr naming no counter
 *           and a set-up for node 0 from node 2 (BARRIER_SETUP both).
 *   node 1: a wrong epoch (BARRIER_EPOCH), then real barriers with node 0.
 *   node 0: after all, its firmware statistics count every refusal, and
 *           nothing was counted or released by them.
 * Also the shim's own argument checks, on every node.
 */
#include <stdio.h>
#include <string.h>
#include "../common/check.h"
#include "../common/fw_stat_wait.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/barrier.h"
#include "dimmnet1/message.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/fw_types.h"

#define RDV 120000

static dn_node *n;

/* One BARRIER packet of @len payload bytes (the epoch first) to node 0;
 * returns the NACK reason, 0 if ACKed. */
static int barrier_packet(uint64_t raddr, uint32_t epoch, size_t len)
{
    uint8_t p[8] = { (uint8_t)epoch, (uint8_t)(epoch >> 8), (uint8_t)(epoch >> 16),
                     (uint8_t)(epoch >> 24) };
    dn_xfer x;
    int rc = dn_send_typed(n, DN1_TYPE_BARRIER, 0, raddr, p, len, &x);
    if (rc == DN_OK) {
        rc = dn_wait(n, &x, 20000);
    }
    if (rc == DN_ENACK) {
        return x.nack_reason;
    }
    return rc == DN_OK ? 0 : -1;
}

/* One BARRIER_PAPER packet of @len bytes (members 0 and 1 if read as a
 * set-up) to node 0: the NACK reason, 0 if ACKed. */
static int paper_packet(uint64_t raddr, size_t len)
{
    uint8_t p[DN1_BARP_SETUP_BYTES] = { 3, 0, 0, 0, 0, 0, 0, 0, 0, 0x80 };
    dn_xfer x;
    int rc = dn_send_typed(n, DN1_TYPE_BARRIER_PAPER, 0, raddr, p, len, &x);
    if (rc == DN_OK) {
        rc = dn_wait(n, &x, 20000);
    }
    if (rc == DN_ENACK) {
        return x.nack_reason;
    }
    return rc == DN_OK ? 0 : -1;
}

static void bad_arguments(void)
{
    struct dn_barrier_config c;
    dn_barrier *b;

    dn_barrier_config_default(n, &c);
    c.id = DN_BARRIER_MAX;
    CHECK_EQ(dn_barrier_create(n, &c, &b), DN_EINVAL);
    dn_barrier_config_default(n, &c);
    c.members[0] = 1, c.members[1] = 0;          /* not ascending */
    CHECK_EQ(dn_barrier_create(n, &c, &b), DN_EINVAL);
    dn_barrier_config_default(n, &c);
    c.root = 9;                                  /* not a member */
    CHECK_EQ(dn_barrier_create(n, &c, &b), DN_EINVAL);
    dn_barrier_config_default(n, &c);
    c.mcast_group = -1;
    c.algorithm = DN_BARRIER_HOST_MCAST;         /* no group to release through */
    CHECK_EQ(dn_barrier_create(n, &c, &b), DN_EINVAL);
    dn_barrier_config_default(n, &c);
    c.nmembers = 2;
    c.members[0] = 60, c.members[1] = 61;        /* this node not among them */
    c.root = 60;
    CHECK_EQ(dn_barrier_create(n, &c, &b), DN_EINVAL);
    CHECK_EQ(dn_barrier_wait(NULL), DN_EINVAL);
    CHECK(dn_barrier_algorithm_parse("host-mcast") == DN_BARRIER_HOST_MCAST);
    CHECK(dn_barrier_algorithm_parse("fast") == -1);
    CHECK(dn_barrier_algorithm_parse("firmware-paper") == DN_BARRIER_FIRMWARE_PAPER);
    CHECK(dn_barrier_algorithm_parse("firmware-paper-mcast") ==
          DN_BARRIER_FIRMWARE_PAPER_MCAST);
    dn_barrier_config_default(n, &c);
    c.mcast_group = -1;
    c.algorithm = DN_BARRIER_FIRMWARE_PAPER_MCAST;   /* no group to release through */
    CHECK_EQ(dn_barrier_create(n, &c, &b), DN_EINVAL);
}

int main(void)
{
    int rc = dn_open_env(&n, 60000);
    if (rc != DN_OK) {
        fprintf(stderr, "e2e_barrier: %s\n", dn_strerror(rc));
        return 1;
    }
    unsigned me = dn_node_id(n);
    bad_arguments();

    struct dn_barrier_config c;
    dn_barrier *b = NULL;
    dn_barrier_config_default(n, &c);
    c.nmembers = 2;                 /* nodes 0 and 1 */
    c.mcast_group = -1;
    c.algorithm = DN_BARRIER_FIRMWARE;
    c.timeout_ms = 20000;
    if (me < 2) {
        CHECK_EQ(dn_barrier_create(n, &c, &b), DN_OK);
        CHECK_EQ(dn_barrier_create(n, &c, &b), DN_EBUSY);   /* id taken */
    }
    CHECK_EQ(dn_rendezvous("set-up", RDV), DN_OK);

    if (me == 2) {
        CHECK_EQ(barrier_packet(DN1_BAR_RADDR(0), 1, 4), DN1_NACK_BARRIER_MEMBER);
        CHECK_EQ(barrier_packet(DN1_BAR_RADDR(5), 1, 4), DN1_NACK_BARRIER_SETUP);
        CHECK_EQ(barrier_packet(DN1_BAR_RADDR(0) + 8, 1, 4), DN1_NACK_BARRIER_SETUP);
        CHECK_EQ(barrier_packet(DN1_BAR_RADDR(DN1_BAR_GROUPS), 1, 4), DN1_NACK_BARRIER_SETUP);
        CHECK_EQ(barrier_packet(DN1_BAR_RADDR(0), 1, 3), DN1_NACK_BAD_PATH);
        /* The paper's barrier: a counter address it does not know; a
         * set-up that is not from node 0's own host. */
        CHECK_EQ(paper_packet(DN1_BARP_RADDR(0) + 4, 4), DN1_NACK_BARRIER_SETUP);
        CHECK_EQ(paper_packet(DN1_BARP_RADDR(DN1_BAR_GROUPS), 4), DN1_NACK_BARRIER_SETUP);
        CHECK_EQ(paper_packet(DN1_BARP_SETUP_RADDR(0), DN1_BARP_SETUP_BYTES),
                 DN1_NACK_BARRIER_SETUP);
        /* Claiming membership the root does not know: a clear failure. */
        dn_barrier_config_default(n, &c);
        c.algorithm = DN_BARRIER_FIRMWARE;
        c.mcast_group = -1;
        c.timeout_ms = 20000;
        CHECK_EQ(dn_barrier_create(n, &c, &b), DN_OK);
        CHECK_EQ(dn_barrier_wait(b), DN_ENACK);
        struct dn_barrier_report r;
        CHECK_EQ(dn_barrier_report(b, &r), DN_OK);
        printf("node 2: %s\n", r.text);
        CHECK(strstr(r.text, "refused") != NULL);
        CHECK_EQ(dn_barrier_wait(b), DN_ENACK);   /* stays failed */
        dn_barrier_destroy(b);
    }
    if (me == 1) {
        /* An epoch no barrier object counts: refused, not counted.
         * Epochs start at 2^20 + 1 or later (an object's incarnation,
         * 1..4095, shifted by 20). */
        CHECK_EQ(barrier_packet(DN1_BAR_RADDR(0), 999, 4), DN1_NACK_BARRIER_EPOCH);
    }
    CHECK_EQ(dn_rendezvous("refusals-done", RDV), DN_OK);

    if (me < 2) {
        for (int i = 0; i < 20; i++) {
            CHECK_EQ(dn_barrier_wait(b), DN_OK);
        }
        struct dn_barrier_report r;
        dn_barrier_report(b, &r);
        CHECK_EQ(r.calls, 20);
        CHECK_EQ(r.algorithm, DN_BARRIER_FIRMWARE);
    }
    if (me == 0) {
        uint32_t v[DN1_FWST_COUNT];
        for (unsigned i = 0; i < DN1_FWST_COUNT; i++) {
            dn_fw_stat_read(n, i, &v[i]);
        }
        CHECK(v[DN1_FWST_NACK_BAR_MEMBER] >= 2);   /* the packet, node 2's barrier */
        CHECK_EQ(v[DN1_FWST_NACK_BAR_SETUP], 3 + 3);   /* 3 of them the paper's */
        /* That one, and node 1's probes if its join waited past its
         * resend time (node 0 answers from its first wait; a probe,
         * epoch 0, is refused EPOCH: docs/barriers.md, "Across jobs"). */
        CHECK(v[DN1_FWST_NACK_BAR_EPOCH] >= 1);
        CHECK(v[DN1_FWST_NACK_BAD_PATH] >= 1);
        /* The release count trails the completions. */
        v[DN1_FWST_BAR_RELEASED] = fw_stat_wait(n, DN1_FWST_BAR_RELEASED, 20, 10000);
        CHECK_EQ(v[DN1_FWST_BAR_RELEASED], 20);
        CHECK_EQ(v[DN1_FWST_BAR_COUNTED], 40);
        CHECK_EQ(v[DN1_FWST_BAR_SETUPS], 1);
        struct dn_barrier_report r;
        CHECK_EQ(dn_barrier_report_read(n, 0, &r), DN_OK);   /* as dnctl sees it */
        CHECK_EQ(r.calls, 16);  /* written after calls 1, 2, 4, 8, 16, ... */
        CHECK_EQ(dn_barrier_report_read(n, 7, &r), DN_EINVAL);
    }
    CHECK_EQ(dn_rendezvous("done", RDV), DN_OK);
    if (b && me < 2) {
        dn_barrier_destroy(b);
        struct dn_barrier_report r;
        CHECK_EQ(dn_barrier_report_read(n, 0, &r), DN_OK);   /* and at destroy */
        CHECK(r.calls == 20 || me != 0);
    }
    dn_close(n);
    printf("e2e_barrier node %u: %s\n", me, check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}
