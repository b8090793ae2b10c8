/*
 * Message exchange end to end, one process per node under the launcher
 * (firmware on dimmnet1 boards, through the switch):
 *
 *   e2e_message zerocopy         a posted user buffer receives in place
 *   e2e_message toolong          TOO_LONG until the receiver posts a buffer
 *   e2e_message errors-nobuffer  no setup: retries run out, the error says so
 *   e2e_message errors-packets   AOTF (BAD_PATH), contradicting packets
 *                                (BAD_MESSAGE), a gap (SEQUENCE)
 *   e2e_message errors-badpost   a post outside receive memory (BAD_POINTER)
 * All on 2 nodes. Exit status 0 only if every check held. The all-to-all
 * traffic tests run tools/dimmnet-soak (tools/soak/soak_node.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "../common/fw_stat_wait.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/message.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/fw_types.h"

#define TIMEOUT_MS 120000

static dn_node *n;
static unsigned me, nodes;

static uint8_t pattern(unsigned src, unsigned dst, uint32_t idx, size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u ^ (src * 7919u + dst * 104729u + idx * 31u);
    return (uint8_t)(x >> 24 ^ x >> 11 ^ x);
}

static uint32_t fw_stat(unsigned i)
{
    uint32_t v = 0;
    CHECK_EQ(dn_fw_stat_read(n, i, &v), DN_OK);
    return v;
}

static void init_with(uint32_t sysbuf_bytes, unsigned rnr_retry, unsigned rnr_code)
{
    struct dn_msg_config cfg;
    dn_msg_config_default(n, &cfg);
    if (sysbuf_bytes) {
        cfg.sysbuf_bytes = sysbuf_bytes;
    }
    cfg.rnr_retry = rnr_retry;
    cfg.min_rnr_timer = rnr_code;
    CHECK_EQ(dn_msg_init(n, &cfg), DN_OK);
}

static void fill(uint8_t *b, size_t len, uint32_t idx)
{
    for (size_t i = 0; i < len; i++) {
        b[i] = pattern(0, 1, idx, i);
    }
}

static int same(const uint8_t *b, size_t len, uint32_t idx)
{
    for (size_t i = 0; i < len; i++) {
        if (b[i] != pattern(0, 1, idx, i)) {
            return 0;
        }
    }
    return 1;
}

/* Node 1 sets nothing up for node 0: NO_BUFFER NACKs, and after rnr_retry
 * (2) resends the documented error, naming destination, message and count;
 * everything queued after it fails too. */
static void errors_nobuffer(void)
{
    if (me == 0) {
        uint8_t b[100];
        struct dn_msg_status st;
        dn_msg_req *r;
        init_with(0, 2, 1);
        CHECK_EQ(dn_rendezvous("ready", TIMEOUT_MS), DN_OK);
        fill(b, sizeof(b), 1);
        CHECK_EQ(dn_msg_isend(n, 1, 42, b, sizeof(b), &r), DN_OK);
        CHECK_EQ(dn_msg_wait(n, r, &st, TIMEOUT_MS), DN_ERETRY);
        printf("node 0: %s\n", st.text);
        CHECK(strstr(st.text, "node 1") && strstr(st.text, "tag 42") &&
              strstr(st.text, "100 bytes") && strstr(st.text, "2 retries") &&
              strstr(st.text, "NO_BUFFER"));
        CHECK_EQ(st.nack_reason, DN1_NACK_NO_BUFFER);
        CHECK_EQ(dn_msg_send(n, 1, 43, b, 8, TIMEOUT_MS), DN_ERETRY);
    } else {
        CHECK_EQ(dn_rendezvous("ready", TIMEOUT_MS), DN_OK);
    }
    CHECK_EQ(dn_rendezvous("end", TIMEOUT_MS), DN_OK);
    if (me == 1) {
        CHECK_EQ(fw_stat(DN1_FWST_NACK_NO_BUFFER), 3);      /* first try + 2 */
        CHECK_EQ(fw_stat(DN1_FWST_MSG_DELIVERED), 0);
    }
}

/* A message by AOTF (flag OTF) is NACKed BAD_PATH; a packet that
 * contradicts the message in progress is NACKed BAD_MESSAGE; neither is
 * written. Raw sends, bypassing the message layer as a broken peer would. */
static void errors_packets(void)
{
    if (me == 1) {
        init_with(0, 7, 12);
    }
    CHECK_EQ(dn_rendezvous("ready", TIMEOUT_MS), DN_OK);
    if (me == 0) {
        uint8_t b[600];
        dn_xfer x;
        fill(b, sizeof(b), 2);
        CHECK_EQ(dn_aotf_open(n, 0, DN1_TYPE_MESSAGE, 1, 1, DN1_MSG_RADDR(5, 8), 8), DN_OK);
        CHECK_EQ(dn_aotf_store(n, 0, 0, 0x1122334455667788ull, 8, &x), DN_OK);
        CHECK_EQ(dn_wait(n, &x, TIMEOUT_MS), DN_ENACK);
        CHECK_EQ(x.nack_reason, DN1_NACK_BAD_PATH);
        /* f_seq 0: half of a 100-byte message, accepted ... */
        CHECK_EQ(dn_send_typed(n, DN1_TYPE_MESSAGE, 1, DN1_MSG_RADDR(7, 100), b, 50, &x), DN_OK);
        CHECK_EQ(dn_wait(n, &x, TIMEOUT_MS), DN_OK);
        /* ... then f_seq 1 starts over at offset 0: contradicts it. */
        CHECK_EQ(dn_send_typed(n, DN1_TYPE_MESSAGE, 1, DN1_MSG_RADDR(7, 100), b, 30, &x), DN_OK);
        CHECK_EQ(dn_wait(n, &x, TIMEOUT_MS), DN_ENACK);
        CHECK_EQ(x.nack_reason, DN1_NACK_BAD_MESSAGE);
        /* f_seq 2, ahead of the expected 1: SEQUENCE. */
        CHECK_EQ(dn_send_typed(n, DN1_TYPE_MESSAGE, 1, DN1_MSG_RADDR(7, 100), b, 50, &x), DN_OK);
        CHECK_EQ(dn_wait(n, &x, TIMEOUT_MS), DN_ENACK);
        CHECK_EQ(x.nack_reason, DN1_NACK_SEQUENCE);
    }
    CHECK_EQ(dn_rendezvous("end", TIMEOUT_MS), DN_OK);
    if (me == 1) {
        CHECK_EQ(fw_stat(DN1_FWST_NACK_BAD_PATH), 1);
        CHECK_EQ(fw_stat(DN1_FWST_NACK_BAD_MESSAGE), 1);
        CHECK_EQ(fw_stat(DN1_FWST_NACK_SEQUENCE), 1);
        CHECK_EQ(fw_stat(DN1_FWST_MSG_PACKETS), 1);
        CHECK_EQ(fw_stat(DN1_FWST_MSG_DELIVERED), 0);
    }
}

/* A post outside receive memory (written raw, as a broken host would): the
 * firmware refuses it once (BAD_POINTER) and drops it; the sender's resend
 * lands in the system buffer. Nothing is written outside. */
static void errors_badpost(void)
{
    uint8_t b[64];
    if (me == 1) {
        size_t sz;
        init_with(0, 7, 1);
        uint8_t *llcm = dn_llcm_user(n, &sz) - (DN_RADDR_LLCM_USER - DN1_RADDR_LLCM);
        uint8_t *slot = llcm + DN1_LLCM_MSG_SLOTS;        /* sender 0 */
        uint32_t off = DN1_HOSTMEM_SIZE - 4, len = 64, gens;
        memcpy(slot + offsetof(struct dn1_msg_slot, post_off), &off, 4);
        memcpy(slot + offsetof(struct dn1_msg_slot, post_len), &len, 4);
        memcpy(&gens, slot + offsetof(struct dn1_msg_slot, setup_gen), 4);
        gens += 0x10000u;
        __atomic_store_n((uint32_t *)(slot + offsetof(struct dn1_msg_slot, setup_gen)),
                         gens, __ATOMIC_RELEASE);
    }
    CHECK_EQ(dn_rendezvous("ready", TIMEOUT_MS), DN_OK);
    if (me == 0) {
        init_with(0, 7, 1);
        fill(b, sizeof(b), 3);
        CHECK_EQ(dn_msg_send(n, 1, 9, b, sizeof(b), TIMEOUT_MS), DN_OK);
    } else {
        struct dn_msg_status st;
        CHECK_EQ(dn_msg_recv(n, 0, 9, b, sizeof(b), &st, TIMEOUT_MS), DN_OK);
        CHECK(same(b, sizeof(b), 3));
        CHECK_EQ(fw_stat(DN1_FWST_NACK_BAD_POINTER), 1);
        size_t sz;
        const uint8_t *mem = dn_hostmem(n, &sz);
        for (size_t i = sz - 4; i < sz; i++) {
            CHECK_EQ(mem[i], 0);
        }
    }
    CHECK_EQ(dn_rendezvous("end", TIMEOUT_MS), DN_OK);
}

/* Step 5: a user buffer posted for node 0 takes its next message in place;
 * the system buffer is untouched. */
static void zerocopy(void)
{
    enum { LEN = 20000, OFF = 0x100000 };
    static uint8_t b[LEN];
    if (me == 1) {
        init_with(0, 7, 12);
        CHECK_EQ(dn_msg_post_buffer(n, 0, OFF, LEN), DN_OK);
        CHECK_EQ(dn_msg_post_buffer(n, 0, OFF, LEN), DN_EBUSY);   /* one at a time */
        CHECK_EQ(dn_msg_post_buffer(n, 0, DN1_HOSTMEM_SIZE - 8, 16), DN_ERANGE);
    }
    CHECK_EQ(dn_rendezvous("ready", TIMEOUT_MS), DN_OK);
    if (me == 0) {
        init_with(0, 7, 12);
        fill(b, LEN, 4);
        CHECK_EQ(dn_msg_send(n, 1, 77, b, LEN, TIMEOUT_MS), DN_OK);
    } else {
        size_t sz;
        uint8_t *mem = dn_hostmem(n, &sz);
        struct dn_msg_config cfg;
        struct dn_msg_status st;
        dn_msg_config_default(n, &cfg);
        CHECK_EQ(dn_msg_recv(n, 0, 77, mem + OFF, LEN, &st, TIMEOUT_MS), DN_OK);
        CHECK_EQ(st.len, LEN);
        CHECK(same(mem + OFF, LEN, 4));
        CHECK_EQ(fw_stat_wait(n, DN1_FWST_MSG_USER, 1, TIMEOUT_MS), 1);   /* trails the notice */
        for (size_t i = 0; i < 4096; i++) {
            CHECK_EQ(mem[cfg.sysbuf_off + i], 0);
        }
        /* Taken: the next post is accepted. */
        CHECK_EQ(dn_msg_post_buffer(n, 0, OFF, LEN), DN_OK);
    }
    CHECK_EQ(dn_rendezvous("end", TIMEOUT_MS), DN_OK);
}

/* Longer than the whole system buffer (4 KiB here): NACKed TOO_LONG and
 * resent until the receiver posts a user buffer for it. */
static void toolong(void)
{
    enum { LEN = 10000, OFF = 0x200000 };
    static uint8_t b[LEN];
    if (me == 1) {
        init_with(4096, 7, 12);
    }
    CHECK_EQ(dn_rendezvous("ready", TIMEOUT_MS), DN_OK);
    if (me == 0) {
        init_with(0, 7, 12);
        fill(b, LEN, 5);
        CHECK_EQ(dn_msg_send(n, 1, 5, b, LEN, TIMEOUT_MS), DN_OK);
    } else {
        size_t sz;
        uint8_t *mem = dn_hostmem(n, &sz);
        struct dn_msg_status st;
        dn_msg_req *r;
        CHECK_EQ(dn_msg_irecv(n, 0, 5, mem + OFF, LEN, &r), DN_OK);
        while (fw_stat(DN1_FWST_NACK_TOO_LONG) < 3) {
            dn_msg_progress(n);
            dn_idle(n);
        }
        CHECK_EQ(dn_msg_post_buffer(n, 0, OFF, LEN), DN_OK);
        CHECK_EQ(dn_msg_wait(n, r, &st, TIMEOUT_MS), DN_OK);
        CHECK(same(mem + OFF, LEN, 5));
        CHECK_EQ(fw_stat_wait(n, DN1_FWST_MSG_USER, 1, TIMEOUT_MS), 1);
    }
    CHECK_EQ(dn_rendezvous("end", TIMEOUT_MS), DN_OK);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (argc != 2) {
        fprintf(stderr, "usage: e2e_message MODE\n");
        return 2;
    }
    int rc = dn_open_env(&n, 60000);
    if (rc != DN_OK) {
        fprintf(stderr, "dn_open_env: %s\n", dn_strerror(rc));
        return 1;
    }
    me = dn_node_id(n);
    nodes = (unsigned)strtoul(getenv("DIMMNET_NODES"), NULL, 10);
    printf("node %u: %s\n", me, mode);
    if (nodes == 2 && !strcmp(mode, "errors-nobuffer")) {
        errors_nobuffer();
    } else if (nodes == 2 && !strcmp(mode, "errors-packets")) {
        errors_packets();
    } else if (nodes == 2 && !strcmp(mode, "errors-badpost")) {
        errors_badpost();
    } else if (nodes == 2 && !strcmp(mode, "zerocopy")) {
        zerocopy();
    } else if (nodes == 2 && !strcmp(mode, "toolong")) {
        toolong();
    } else {
        fprintf(stderr, "e2e_message: unknown mode '%s'\n", mode);
        return 2;
    }
    dn_close(n);
    return check_failures ? 1 : 0;
}
