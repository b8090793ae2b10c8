/*
 * One node of tools/dimmnet-soak: all-to-all message traffic with every
 * payload checked. Run by the launcher on every node.
 *
 *   dimmnet-soak-node --total M [--sizes MIN:MAX] [--seed S] [--stall]
 *                     [--deadline SEC] [--rdma]
 *
 * Node i sends its share of the M messages (M / N, one more for the first
 * M mod N nodes) round robin to the other nodes, the tag being the per-pair
 * index and the payload a pattern of (sender, receiver, index, byte); it
 * receives with ANY_SOURCE / ANY_TAG until every message meant for it came,
 * checking per-sender order and every byte. --stall: it stops taking
 * messages at random and keeps arrivals in the ring (no heap stash), so that
 * senders meet BUFFER_FULL storms. --rdma: the send buffers lie in this
 * node's receive memory, so messages go by RDMA (2048-byte packets the NIC
 * reads itself) instead of BOTF. Prints one line:
 *   soak-node: node=I sent=.. delivered=.. lost=.. duplicated=.. reordered=..
 *              corrupted=.. nacks=.. retransmits=.. seconds=..
 * (seconds: wall clock of the traffic, start-up excluded) and exits 0 only
 * if everything arrived exactly once, in order and intact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dimmnet1/dn.h"
#include "dimmnet1/regs.h"
#include "soak.h"

static dn_node *n;
static unsigned me, nodes;
uint64_t rng_state;

uint32_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

uint8_t pattern(unsigned src, unsigned dst, uint32_t idx, size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u ^ (src * 7919u + dst * 104729u + idx * 31u);
    return (uint8_t)(x >> 24 ^ x >> 11 ^ x);
}

/*
 * A size in [lo, hi], both ends now and then: seven in eight within 256 of
 * lo, the rest from a random power-of-two class up to hi, so that long
 * multi-packet messages come often without every run moving gigabytes.
 */
size_t random_size(size_t lo, size_t hi)
{
    size_t span = hi - lo;
    uint32_t r = rng() % 64;
    unsigned bits = 0;

    if (r == 0 || span == 0) {
        return lo;
    }
    if (r == 1) {
        return hi;
    }
    if (r % 8) {
        return lo + rng() % ((span < 256 ? span : 256) + 1);
    }
    while (((size_t)2 << bits) <= span) {
        bits++;
    }
    size_t c = (size_t)1 << (rng() % (bits + 1));
    size_t v = c + rng() % c;
    return lo + (v > span ? span : v);
}

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Messages node @s sends in all, and how many of them go to node @d. */
unsigned long share(unsigned long total, unsigned s, unsigned nodes)
{
    return total / nodes + (s < total % nodes);
}

static unsigned long expected_from(unsigned long total, unsigned s, unsigned d)
{
    unsigned long cnt = share(total, s, nodes);
    unsigned j = (d + nodes - s - 1) % nodes;     /* d is s's j-th choice */
    return cnt / (nodes - 1) + (j < cnt % (nodes - 1));
}

int main(int argc, char **argv)
{
    unsigned long total = 0;
    size_t lo = 0, hi = 4096;
    unsigned long long seed = 1;
    int stall = 0, rdma = 0, restart_boards = 0;
    double deadline_s = 3600, kill_every = 0;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--total") && i + 1 < argc) {
            total = strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc &&
                   sscanf(argv[i + 1], "%zu:%zu", &lo, &hi) == 2 && lo <= hi) {
            i++;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--stall")) {
            stall = 1;
        } else if (!strcmp(argv[i], "--rdma")) {
            rdma = 1;
        } else if (!strcmp(argv[i], "--deadline") && i + 1 < argc) {
            deadline_s = strtod(argv[++i], NULL);
        } else if (!strcmp(argv[i], "--kill-every") && i + 1 < argc) {
            kill_every = strtod(argv[++i], NULL);
        } else if (!strcmp(argv[i], "--restart-boards")) {
            restart_boards = 1;
        } else {
            fprintf(stderr, "dimmnet-soak-node: bad argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (kill_every > 0) {
        struct soak_args a = {
            .total = total, .lo = lo, .hi = hi, .seed = seed, .deadline_s = deadline_s,
            .kill_every = kill_every, .restart_boards = restart_boards,
        };
        if (stall || rdma) {
            fprintf(stderr, "dimmnet-soak-node: --kill-every goes without --stall and --rdma\n");
            return 2;
        }
        return soak_restart_main(&a);
    }
    int rc = dn_open_env(&n, 60000);
    if (rc != DN_OK) {
        fprintf(stderr, "dimmnet-soak-node: cannot open the node: %s\n", dn_strerror(rc));
        return 1;
    }
    me = dn_node_id(n);
    nodes = (unsigned)strtoul(getenv("DIMMNET_NODES"), NULL, 10);
    if (nodes < 2) {
        fprintf(stderr, "dimmnet-soak-node: needs 2 nodes or more\n");
        return 2;
    }

    struct dn_msg_config cfg;
    dn_msg_config_default(n, &cfg);
    if (stall) {
        cfg.stash_bytes = 0;            /* early arrivals pin the ring */
        cfg.sysbuf_bytes = 64u << 10;   /* small rings: storms come soon */
    }
    if (hi > cfg.sysbuf_bytes) {
        cfg.sysbuf_bytes = (uint32_t)(hi + 7) & ~7u;   /* every size fits a ring */
    }
    if ((rc = dn_msg_init(n, &cfg)) != DN_OK) {
        fprintf(stderr, "dimmnet-soak-node: dn_msg_init: %s\n", dn_strerror(rc));
        return 1;
    }
    rng_state = seed * 1000003u + me;

    unsigned long to_send = share(total, me, nodes), want = 0, got = 0, sent = 0, issued = 0;
    unsigned long dup = 0, reord = 0, bad = 0, failed = 0;
    uint32_t *next_idx = calloc(nodes, sizeof(*next_idx));
    uint32_t *send_idx = calloc(nodes, sizeof(*send_idx));
    unsigned long *exp = calloc(nodes, sizeof(*exp));
    uint8_t *rbuf = malloc(hi ? hi : 1), *sbuf[OUTSTANDING];
    dn_msg_req *sreq[OUTSTANDING] = { 0 }, *rreq = NULL;
    for (unsigned s = 0; s < nodes; s++) {
        exp[s] = s == me ? 0 : expected_from(total, s, me);
        want += exp[s];
    }
    size_t memsize, slot = (hi + 7) & ~(size_t)7;
    uint8_t *mem = dn_hostmem(n, &memsize);
    if (rdma && OUTSTANDING * slot > cfg.sysbuf_off) {
        fprintf(stderr, "dimmnet-soak-node: --rdma: sizes up to %zu do not fit below "
                "the system buffers\n", hi);
        return 2;
    }
    for (int i = 0; i < OUTSTANDING; i++) {
        sbuf[i] = rdma ? mem + i * slot : malloc(hi ? hi : 1);
    }
    if (dn_rendezvous("soak-ready", RDV_TIMEOUT_MS) != DN_OK) {
        fprintf(stderr, "dimmnet-soak-node: node %u: the others never came\n", me);
        return 1;
    }

    double t0 = now_s();
    unsigned stall_turns = 0;
    while ((got < want || sent + failed < to_send) && now_s() - t0 < deadline_s) {
        for (int i = 0; i < OUTSTANDING; i++) {
            int done = 1;
            if (sreq[i]) {
                struct dn_msg_status st;
                rc = dn_msg_test(n, sreq[i], &done, &st);
                if (done) {
                    sreq[i] = NULL;
                    if (rc == DN_OK) {
                        sent++;
                    } else {
                        failed++;
                        fprintf(stderr, "node %u: %s: %s\n", me, dn_strerror(rc), st.text);
                    }
                }
            }
            if (done && issued < to_send) {
                unsigned dst = (unsigned)(me + 1 + issued % (nodes - 1)) % nodes;
                size_t len = random_size(lo, hi);
                uint32_t idx = send_idx[dst]++;
                for (size_t b = 0; b < len; b++) {
                    sbuf[i][b] = pattern(me, dst, idx, b);
                }
                if (dn_msg_isend(n, dst, idx, sbuf[i], len, &sreq[i]) != DN_OK) {
                    failed++;
                }
                issued++;
            }
        }
        if (stall && !stall_turns && rng() % 64 == 0) {
            stall_turns = 200 + rng() % 2000;
        }
        if (stall_turns) {
            stall_turns--;
            dn_msg_progress(n);
            dn_idle(n);
            continue;
        }
        if (got < want && !rreq &&
            dn_msg_irecv(n, DN_ANY_SOURCE, DN_ANY_TAG, rbuf, hi, &rreq) != DN_OK) {
            rreq = NULL;
        }
        if (rreq) {
            int done = 0;
            struct dn_msg_status st;
            rc = dn_msg_test(n, rreq, &done, &st);
            if (done) {
                rreq = NULL;
                got++;
                if (rc != DN_OK || st.src >= nodes) {
                    bad++;
                    continue;
                }
                if (st.tag < next_idx[st.src]) {
                    dup++;
                } else if (st.tag > next_idx[st.src]) {
                    reord++;
                }
                if (st.tag >= next_idx[st.src]) {
                    next_idx[st.src] = st.tag + 1;
                }
                for (size_t b = 0; b < st.len; b++) {
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
    double secs = now_s() - t0;
    /* What never came (a repeat does not make up for it). */
    unsigned long lost = want > got - dup ? want - (got - dup) : 0;
    struct dn_msg_stats st;
    dn_msg_stats(n, &st);
    uint32_t tx_rdma = 0;
    dn_counter_read(n, DN1_CNT_TX_RDMA, &tx_rdma);
    if (rdma && sent && !tx_rdma) {
        fprintf(stderr, "dimmnet-soak-node: node %u: --rdma, but the NIC sent no "
                "RDMA packet\n", me);
        failed++;
    }
    unsigned long delivered = got - dup - bad;
    printf("soak-node: node=%u sent=%lu delivered=%lu lost=%lu duplicated=%lu "
           "reordered=%lu corrupted=%lu nacks=%llu retransmits=%llu seconds=%.3f\n",
           me, sent, delivered, lost, dup, reord, bad,
           (unsigned long long)st.nacks, (unsigned long long)st.retransmits, secs);
    fflush(stdout);
    /* Nobody leaves while others may still need this node's ACKs. */
    dn_rendezvous("soak-done", RDV_TIMEOUT_MS);
    dn_close(n);
    return got == want && delivered == want && !lost && !dup && !reord && !bad &&
           !failed && !st.notice_errors ? 0 : 1;
}
