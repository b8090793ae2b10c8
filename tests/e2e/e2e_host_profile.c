/*
 * The host profile end to end (docs/hardware.md section 9, "Host
 * profile"): a ping-pong of 4096-byte messages between nodes 0 and 1 in
 * deterministic modeled time, each message received after it arrived (the
 * receiver waits for the firmware's count of delivered messages first), so
 * the shim copies it from the system buffer into the user's buffer: host
 * work the profile charges, on the round trip's critical path. Prints, per node:
 *   host_profile: node N profile P rounds R modeled_ns T charged_ns W copy_ns C
 *                 card_read_ns D window_ns F
 * (T: node 0's loop in modeled time; W: dn_host_charged; C, D, F: of it,
 * copies in host memory, bulk reads of the card's memory and window fills,
 * dn_host_charges). test_host_profile.sh
 * compares a run under "free" with one under "paper-host".
 *   e2e_host_profile [ROUNDS]   (under dimmnet-cluster -n 2 --deterministic)
 */
#include <stdio.h>
#include <stdlib.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/message.h"
#include "dimmnet1/regs.h"

#define LEN 4096
#define TIMEOUT_MS 120000

/* Until the firmware has delivered @want messages here (in virtual time). */
static int wait_delivered(dn_node *n, uint32_t want)
{
    uint32_t v = 0;

    for (long turns = 0; turns < 100000000L; turns++) {
        int rc = dn_fw_stat_read(n, DN1_FWST_MSG_DELIVERED, &v);
        if (rc != DN_OK || v >= want) {
            return rc;
        }
        dn_idle(n);
    }
    return DN_ETIMEDOUT;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    static uint8_t out[LEN], in[LEN];
    struct dn_msg_config cfg;
    uint64_t t0 = 0, t1 = 0;
    dn_node *n;

    CHECK_EQ(dn_open_env(&n, 60000), DN_OK);
    if (check_failures) {
        return 1;
    }
    CHECK(dn_host_sync(n));
    unsigned me = dn_node_id(n), peer = 1 - me;
    dn_msg_config_default(n, &cfg);
    CHECK_EQ(dn_msg_init(n, &cfg), DN_OK);
    CHECK_EQ(dn_rendezvous("ready", TIMEOUT_MS), DN_OK);
    for (unsigned i = 0; i < LEN; i++) {
        out[i] = (uint8_t)(i * 13 + me);
    }
    uint32_t delivered = 0;
    CHECK_EQ(dn_fw_stat_read(n, DN1_FWST_MSG_DELIVERED, &delivered), DN_OK);
    CHECK_EQ(dn_clock(n, &t0), DN_OK);
    for (int r = 0; r < rounds && !check_failures; r++) {
        if (me == 0) {
            CHECK_EQ(dn_msg_send(n, peer, (uint32_t)r, out, LEN, TIMEOUT_MS), DN_OK);
        }
        CHECK_EQ(wait_delivered(n, ++delivered), DN_OK);
        CHECK_EQ(dn_msg_recv(n, (int)peer, r, in, LEN, NULL, TIMEOUT_MS), DN_OK);
        CHECK_EQ(in[LEN - 1], (uint8_t)((LEN - 1) * 13 + peer));
        if (me == 1) {
            CHECK_EQ(dn_msg_send(n, peer, (uint32_t)r, out, LEN, TIMEOUT_MS), DN_OK);
        }
    }
    CHECK_EQ(dn_clock(n, &t1), DN_OK);
    struct dn_host_charges c;
    uint32_t host_waits = 0, nic_waits = 0;
    CHECK_EQ(dn_host_charges(n, &c), DN_OK);
    CHECK_EQ(dn_counter_read(n, DN1_CNT_DIMM_HOST_WAITS, &host_waits), DN_OK);
    CHECK_EQ(dn_counter_read(n, DN1_CNT_DIMM_NIC_WAITS, &nic_waits), DN_OK);
    printf("host_profile: node %u dimm_host_waits %u dimm_nic_waits %u\n", me, host_waits,
           nic_waits);
    printf("host_profile: node %u profile %s rounds %d modeled_ns %llu charged_ns %llu "
           "copy_ns %llu card_read_ns %llu window_ns %llu\n",
           me, dn_host_profile(n), rounds, (unsigned long long)(t1 - t0),
           (unsigned long long)dn_host_charged(n), (unsigned long long)c.copy_ns,
           (unsigned long long)c.card_read_ns, (unsigned long long)c.window_ns);
    /* No rendezvous at the end: a host blocked outside virtual time stops
     * its board and so the cluster; the last message ends both loops. */
    dn_close(n);
    return check_failures ? 1 : 0;
}
