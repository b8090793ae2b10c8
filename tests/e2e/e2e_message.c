/*
 * Message exchange end to end, one process per node under the launcher
 * (firmware on dimmnet1 boards, through the switch):
 *
 *   e2e_message alltoall --messages M [--max-size S] [--seed X] [--stall]
 *       every node sends M messages to every other node (random sizes, 0 to
 *       S bytes, most of them small), receives with ANY_SOURCE/ANY_TAG and
 *       checks each one: per-sender order (the tag is the per-pair index),
 *       every payload byte. --stall: receivers stop taking messages at
 *       random and keep arrivals in the ring (no heap stash), forcing
 *       overflow storms (NACK BUFFER_FULL and resends).
 *   e2e_message zerocopy     a posted user buffer receives in place
 *   e2e_message toolong      TOO_LONG until the receiver posts a buffer
 *   e2e_message errors       bad input: no setup, AOTF, contradicting
 *                            packets, a post outside receive memory
 *
 * Prints one "msg:" line per node with its counts; exit status 0 only if
 * every check held.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/message.h"
#include "dimmnet1/packet.h"

#define TIMEOUT_MS 120000
#define OUTSTANDING 16

static dn_node *n;
static unsigned me, nodes;

static uint8_t pattern(unsigned src, unsigned dst, uint32_t idx, size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u ^ (src * 7919u + dst * 104729u + idx * 31u);
    return (uint8_t)(x >> 24 ^ x >> 11 ^ x);
}

/* Everyone publishes "<what><me>" and waits for all the others'. */
static void all_reach(const char *what)
{
    char key[32], v[8];
    snprintf(key, sizeof(key), "%s%u", what, me);
    CHECK_EQ(dn_publish(key, "1"), DN_OK);
    for (unsigned i = 0; i < nodes; i++) {
        snprintf(key, sizeof(key), "%s%u", what, i);
        CHECK_EQ(dn_lookup(key, v, sizeof(v), TIMEOUT_MS), DN_OK);
    }
}

static uint64_t rng_state;
static uint32_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

/* Mostly small: a size class 0..log2(max), then uniform inside it. */
static size_t random_size(size_t max)
{
    unsigned bits = 0;
    while ((2ull << bits) <= max) {
        bits++;
    }
    unsigned cls = rng() % (bits + 2);
    if (cls == 0) {
        return 0;
    }
    size_t hi = (size_t)1 << (cls - 1 > bits ? bits : cls - 1);
    size_t v = hi + rng() % hi;
    return v > max ? max : v;
}

static void print_stats(const char *mode, unsigned long sent, unsigned long got,
                        unsigned long lost, unsigned long dup, unsigned long reord,
                        unsigned long bad)
{
    struct dn_msg_stats st;
    dn_msg_stats(n, &st);
    printf("msg: mode=%s node=%u sent=%lu received=%lu lost=%lu duplicated=%lu "
           "reordered=%lu corrupted=%lu nacks=%llu retransmits=%llu timeouts=%llu "
           "stashed=%llu notice_errors=%llu\n", mode, me, sent, got, lost, dup,
           reord, bad, (unsigned long long)st.nacks,
           (unsigned long long)st.retransmits, (unsigned long long)st.timeouts,
           (unsigned long long)st.stashed, (unsigned long long)st.notice_errors);
    CHECK_EQ(st.notice_errors, 0);
}

static void alltoall(unsigned long m, size_t max, uint64_t seed, int stall)
{
    struct dn_msg_config cfg;
    unsigned long want = m * (nodes - 1), got = 0, dup = 0, reord = 0, bad = 0;
    unsigned long sent = 0, next_to_send = 0;
    uint32_t *next_idx = calloc(nodes, sizeof(*next_idx));
    uint32_t *send_idx = calloc(nodes, sizeof(*send_idx));
    uint8_t *rbuf = malloc(max ? max : 1);
    uint8_t *sbuf[OUTSTANDING];
    dn_msg_req *sreq[OUTSTANDING] = { 0 };

    dn_msg_config_default(n, &cfg);
    if (stall) {
        cfg.stash_bytes = 0;            /* early arrivals pin the ring */
        cfg.sysbuf_bytes = 64u << 10;   /* small rings: storms come soon */
    }
    CHECK_EQ(dn_msg_init(n, &cfg), DN_OK);
    rng_state = seed * 1000003u + me;
    for (int i = 0; i < OUTSTANDING; i++) {
        sbuf[i] = malloc(max ? max : 1);
    }
    all_reach("msg-ready");

    dn_msg_req *rreq = NULL;
    unsigned stall_turns = 0;
    while (got < want || sent < want) {
        /* Keep up to OUTSTANDING sends going, round robin over peers. */
        for (int i = 0; i < OUTSTANDING; i++) {
            int done = 1;
            struct dn_msg_status st;
            if (sreq[i]) {
                int rc = dn_msg_test(n, sreq[i], &done, &st);
                if (done) {
                    CHECK_EQ(rc, DN_OK);
                    if (rc != DN_OK) {
                        fprintf(stderr, "node %u: %s: %s\n", me, dn_strerror(rc), st.text);
                    }
                    sreq[i] = NULL;
                    sent++;
                }
            }
            if (done && next_to_send < want) {
                unsigned dst = (unsigned)(me + 1 + next_to_send % (nodes - 1)) % nodes;
                size_t len = random_size(max);
                uint32_t idx = send_idx[dst]++;
                for (size_t b = 0; b < len; b++) {
                    sbuf[i][b] = pattern(me, dst, idx, b);
                }
                CHECK_EQ(dn_msg_isend(n, dst, idx, sbuf[i], len, &sreq[i]), DN_OK);
                next_to_send++;
            }
        }
        /* Receivers that stall take nothing for a while. */
        if (stall && stall_turns == 0 && rng() % 64 == 0) {
            stall_turns = 200 + rng() % 2000;
        }
        if (stall_turns) {
            stall_turns--;
            dn_msg_progress(n);
            dn_idle(n);
            continue;
        }
        if (got < want && !rreq) {
            CHECK_EQ(dn_msg_irecv(n, DN_ANY_SOURCE, DN_ANY_TAG, rbuf, max, &rreq), DN_OK);
        }
        if (rreq) {
            int done = 0;
            struct dn_msg_status st;
            int rc = dn_msg_test(n, rreq, &done, &st);
            if (done) {
                rreq = NULL;
                CHECK_EQ(rc, DN_OK);
                got++;
                if (st.tag != next_idx[st.src]) {
                    if (st.tag < next_idx[st.src]) {
                        dup++;
                    } else {
                        reord++;
                    }
                }
                next_idx[st.src] = st.tag + 1;
                for (size_t b = 0; b < st.len && b < max; b++) {
                    if (rbuf[b] != pattern(st.src, me, st.tag, b)) {
                        bad++;
                        break;
                    }
                }
                continue;
            }
        }
        dn_idle(n);
    }
    /* Every peer sent us exactly m. */
    unsigned long lost = 0;
    for (unsigned s = 0; s < nodes; s++) {
        if (s != me && next_idx[s] != m) {
            lost += next_idx[s] < m ? m - next_idx[s] : 0;
        }
    }
    print_stats(stall ? "alltoall-stall" : "alltoall", sent, got, lost, dup, reord, bad);
    CHECK_EQ(got, want);
    CHECK_EQ(sent, want);
    CHECK_EQ(lost + dup + reord + bad, 0);
    all_reach("msg-done");      /* nobody leaves while others still need ACKs */
    for (int i = 0; i < OUTSTANDING; i++) {
        free(sbuf[i]);
    }
    free(rbuf);
    free(next_idx);
    free(send_idx);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    unsigned long messages = 100;
    size_t max = 4096;
    uint64_t seed = 1;
    int stall = 0;

    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--messages") && i + 1 < argc) {
            messages = strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--max-size") && i + 1 < argc) {
            max = strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--stall")) {
            stall = 1;
        } else {
            fprintf(stderr, "e2e_message: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    int rc = dn_open_env(&n, 60000);
    if (rc != DN_OK) {
        fprintf(stderr, "dn_open_env: %s\n", dn_strerror(rc));
        return 1;
    }
    me = dn_node_id(n);
    nodes = (unsigned)strtoul(getenv("DIMMNET_NODES"), NULL, 10);
    printf("node %u: %s seed=%llu\n", me, mode, (unsigned long long)seed);
    if (!strcmp(mode, "alltoall")) {
        alltoall(messages, max, seed, stall);
    } else {
        fprintf(stderr, "e2e_message: unknown mode '%s'\n", mode);
        return 2;
    }
    dn_close(n);
    return check_failures ? 1 : 0;
}
