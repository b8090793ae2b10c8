/*
 * dimmnet-soak --kill-every SEC: the message soak with host processes that
 * die (issue 25). Each node's program is a supervisor; the traffic runs in
 * a worker process it forks. Every SEC seconds of wall clock one node,
 * drawn from a schedule seeded alike on every node, has its worker killed
 * (SIGKILL: no dn_close) and started again; with --restart-boards its NIC
 * restarts in between (the firmware's handover, docs/hardware.md section
 * 10). Nothing is set up by hand: the new worker calls dn_msg_init as any
 * process does. What the workers learnt is kept in a book the supervisor
 * shares with them (MAP_SHARED), as an application's own log would be.
 *
 * Accounting (dimmnet-soak(1)):
 *  - a send is handed over once dn_msg_test says it completed. Each worker
 *    of a node is a generation g, the tag g << 24 | its index towards that
 *    receiver: a message the dead worker had not handed over is neither
 *    lost nor sent again (its successor sends new ones until the node's
 *    share is handed over);
 *  - every message handed over is delivered once, intact, and in order of
 *    (generation, index), except those a receiver's NIC took for a process
 *    that then died: between the last one that process had taken and the
 *    first one its successor took ("swallowed": counted apart, not lost);
 *  - the end: each sender publishes what it handed over to whom, then sends
 *    every receiver an empty FIN (generation 255); a receiver with a FIN
 *    from everyone has everything it will ever get (a conversation is in
 *    order), and says so. A FIN that a dying receiver's NIC took is sent
 *    again when that receiver's restart count moves.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dimmnet1/dn.h"
#include "soak.h"

#define MAXN 64
#define MAXGEN 64               /* workers a node may start */
#define FIN_GEN 0xffu
#define POS(g, idx) ((uint64_t)(g) << 32 | (idx))
#define POS_END UINT64_MAX
#define END_POLL_S 0.02         /* the end's key files: read this often */

struct book {
    unsigned gen, restarts;
    int started, finished;
    double t0;
    unsigned long handed, failed, dup, reord, bad;
    unsigned long long nacks, retransmits;          /* of workers gone */
    unsigned long long nacks_now, retransmits_now;  /* of the one running */
    uint32_t handed_to[MAXN][MAXGEN];
    /* receiving, per source */
    uint64_t next_pos[MAXN];    /* after the last delivered (generation, index) */
    int fresh[MAXN];            /* this node restarted since its last delivery */
    int fin_from[MAXN];
    unsigned nwin[MAXN];
    struct { uint64_t from, to; } win[MAXN][MAXGEN];  /* what may be swallowed */
};

static const struct soak_args *args;
static struct book *book;
static uint8_t *seen;           /* delivered: a bit per (source, generation, index) */
static size_t seen_bytes;       /* per (source, generation) */
static unsigned me, nodes;
static dn_node *n;

static uint8_t *seen_bits(unsigned src, unsigned g)
{
    return seen + ((size_t)src * MAXGEN + g) * seen_bytes;
}

/* The launcher's key @fmt... (no wait): 1 and its value in @v if it is there. */
static int lookup(char *v, size_t size, const char *fmt, ...)
{
    char key[64];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(key, sizeof(key), fmt, ap);
    va_end(ap);
    return dn_lookup(key, v, size, 0) == DN_OK;
}

static unsigned restarts_of(unsigned node)
{
    char v[32];

    return lookup(v, sizeof(v), "soak-rxr-%u", node) ? (unsigned)strtoul(v, NULL, 10) : 0;
}

static void deliver(unsigned src, uint32_t tag, const uint8_t *b, size_t len)
{
    unsigned g = tag >> 24;
    uint32_t idx = tag & 0xffffffu;
    unsigned w = book->nwin[src] - 1;

    if (g == FIN_GEN) {
        if (!book->fin_from[src] && book->fresh[src]) {
            book->win[src][w].to = POS_END;
            book->fresh[src] = 0;
        }
        book->fin_from[src] = 1;
        char key[64];
        snprintf(key, sizeof(key), "soak-fin-%u-%u", me, src);
        dn_publish(key, "1");
        return;
    }
    for (size_t i = 0; i < len; i++) {
        if (b[i] != pattern(src, me, tag, i)) {
            book->bad++;
            return;
        }
    }
    if (g >= MAXGEN || idx >= seen_bytes * 8) {
        book->bad++;
        return;
    }
    uint8_t *m = seen_bits(src, g);
    if (m[idx / 8] >> (idx % 8) & 1) {
        book->dup++;
        return;
    }
    m[idx / 8] |= (uint8_t)(1u << (idx % 8));
    uint64_t pos = POS(g, idx);
    if (pos < book->next_pos[src]) {
        book->reord++;
        return;
    }
    if (book->fresh[src]) {
        book->win[src][w].to = pos;
        book->fresh[src] = 0;
    }
    book->next_pos[src] = pos + 1;
}

static void publish_handed(void)
{
    static char v[MAXN * MAXGEN * 24];
    size_t k = 0;
    char key[64];

    for (unsigned d = 0; d < nodes; d++) {
        for (unsigned g = 0; g <= book->gen && g < MAXGEN; g++) {
            if (book->handed_to[d][g]) {
                k += (size_t)snprintf(v + k, sizeof(v) - k, "%u:%u:%u ", d, g,
                                      book->handed_to[d][g]);
            }
        }
    }
    snprintf(key, sizeof(key), "soak-sent-%u", me);
    dn_publish(key, v);
}

/* The sources' tables against what came: delivered, swallowed, lost. */
static void account(unsigned long *delivered, unsigned long *swallowed,
                    unsigned long *lost)
{
    static char v[MAXN * MAXGEN * 24];

    *delivered = *swallowed = *lost = 0;
    for (unsigned s = 0; s < nodes; s++) {
        unsigned d, g, c;
        int used;
        if (s == me) {
            continue;
        }
        if (!lookup(v, sizeof(v), "soak-sent-%u", s)) {
            fprintf(stderr, "dimmnet-soak-node: node %u: no table from node %u\n", me, s);
            (*lost)++;
            continue;
        }
        for (const char *p = v; sscanf(p, "%u:%u:%u %n", &d, &g, &c, &used) == 3; p += used) {
            if (d != me || g >= MAXGEN) {
                continue;
            }
            for (uint32_t i = 0; i < c; i++) {
                uint64_t pos = POS(g, i);
                int in_win = 0;
                if (i < seen_bytes * 8 && seen_bits(s, g)[i / 8] >> (i % 8) & 1) {
                    (*delivered)++;
                    continue;
                }
                for (unsigned k = 0; k < book->nwin[s]; k++) {
                    in_win |= pos >= book->win[s][k].from && pos < book->win[s][k].to;
                }
                (*(in_win ? swallowed : lost))++;
            }
        }
    }
}

static int worker(void)
{
    struct dn_msg_config cfg;
    uint8_t *rbuf = malloc(args->hi ? args->hi : 1), *sbuf[OUTSTANDING];
    dn_msg_req *sreq[OUTSTANDING] = { 0 }, *rreq = NULL, *fin[MAXN] = { 0 };
    unsigned sdst[OUTSTANDING], fin_at[MAXN] = { 0 };
    uint32_t send_idx[MAXN] = { 0 };
    int fin_sent[MAXN] = { 0 }, published = 0, rc;
    unsigned g = book->gen;
    unsigned long to_send = share(args->total, me, nodes), turn = 0;
    double last_poll = 0;

    if ((rc = dn_open_env(&n, 60000)) != DN_OK) {
        fprintf(stderr, "dimmnet-soak-node: cannot open the node: %s\n", dn_strerror(rc));
        return 1;
    }
    dn_msg_config_default(n, &cfg);
    if (args->hi > cfg.sysbuf_bytes) {
        cfg.sysbuf_bytes = (uint32_t)(args->hi + 7) & ~7u;
    }
    if ((rc = dn_msg_init(n, &cfg)) != DN_OK) {
        fprintf(stderr, "dimmnet-soak-node: dn_msg_init: %s\n", dn_strerror(rc));
        return 1;
    }
    for (int i = 0; i < OUTSTANDING; i++) {
        sbuf[i] = malloc(args->hi ? args->hi : 1);
    }
    if (!book->started) {
        if (dn_rendezvous("soak-ready", RDV_TIMEOUT_MS) != DN_OK) {
            fprintf(stderr, "dimmnet-soak-node: node %u: the others never came\n", me);
            return 1;
        }
        book->t0 = now_s();
        book->started = 1;
    }
    rng_state = args->seed * 1000003u + me + (uint64_t)g * 7919u;

    while (now_s() - book->t0 < args->deadline_s) {
        unsigned inflight = 0;
        for (int i = 0; i < OUTSTANDING; i++) {
            int done = 0;
            struct dn_msg_status st;
            if (sreq[i] && (rc = dn_msg_test(n, sreq[i], &done, &st), done)) {
                sreq[i] = NULL;
                if (rc == DN_OK) {
                    book->handed_to[sdst[i]][g]++;
                    book->handed++;
                } else {
                    book->failed++;
                    fprintf(stderr, "node %u: %s: %s\n", me, dn_strerror(rc), st.text);
                }
            }
            inflight += sreq[i] != NULL;
        }
        for (int i = 0; i < OUTSTANDING; i++) {
            if (sreq[i] || book->handed + book->failed + inflight >= to_send) {
                continue;
            }
            unsigned dst = (unsigned)(me + 1 + turn++ % (nodes - 1)) % nodes;
            size_t len = random_size(args->lo, args->hi);
            uint32_t tag = g << 24 | send_idx[dst]++;
            for (size_t b = 0; b < len; b++) {
                sbuf[i][b] = pattern(me, dst, tag, b);
            }
            if (dn_msg_isend(n, dst, tag, sbuf[i], len, &sreq[i]) != DN_OK) {
                sreq[i] = NULL;
                book->failed++;
            } else {
                sdst[i] = dst;
                inflight++;
            }
        }
        /* The end: what was handed over, then a FIN to everyone. */
        int finished = book->handed + book->failed >= to_send && inflight == 0;
        if (finished && !published) {
            publish_handed();
            published = 1;
        }
        if (finished && now_s() - last_poll > END_POLL_S) {
            char v[8];
            last_poll = now_s();
            for (unsigned d = 0; d < nodes; d++) {
                int done = 0;
                if (d == me || lookup(v, sizeof(v), "soak-fin-%u-%u", d, me)) {
                    continue;
                }
                finished = 0;
                if (fin[d] && (dn_msg_test(n, fin[d], &done, NULL), done)) {
                    fin[d] = NULL;
                }
                if (!fin[d] && (!fin_sent[d] || restarts_of(d) != fin_at[d])) {
                    fin_at[d] = restarts_of(d);
                    fin_sent[d] = dn_msg_isend(n, d, FIN_GEN << 24, NULL, 0, &fin[d]) == DN_OK;
                }
            }
            for (unsigned s = 0; s < nodes; s++) {
                finished &= s == me || book->fin_from[s];
            }
            if (finished) {
                break;
            }
        }
        if (!rreq && dn_msg_irecv(n, DN_ANY_SOURCE, DN_ANY_TAG, rbuf, args->hi, &rreq) != DN_OK) {
            rreq = NULL;
        }
        int done = 0;
        struct dn_msg_status st;
        if (rreq && (rc = dn_msg_test(n, rreq, &done, &st), done)) {
            rreq = NULL;
            if (rc != DN_OK || st.src >= nodes) {
                book->bad++;
            } else {
                deliver(st.src, st.tag, rbuf, st.len);
            }
            continue;
        }
        struct dn_msg_stats ms;
        dn_msg_stats(n, &ms);
        book->nacks_now = ms.nacks;
        book->retransmits_now = ms.retransmits;
        dn_idle(n);
    }
    book->finished = 1;
    double secs = now_s() - book->t0;
    unsigned long delivered, swallowed, lost;
    account(&delivered, &swallowed, &lost);
    printf("soak-node: node=%u sent=%lu delivered=%lu lost=%lu duplicated=%lu "
           "reordered=%lu corrupted=%lu nacks=%llu retransmits=%llu seconds=%.3f "
           "restarts=%u swallowed=%lu\n",
           me, book->handed, delivered, lost, book->dup, book->reord, book->bad,
           book->nacks + book->nacks_now, book->retransmits + book->retransmits_now,
           secs, book->restarts, swallowed);
    fflush(stdout);
    dn_rendezvous("soak-done", RDV_TIMEOUT_MS);
    dn_close(n);
    return !lost && !book->dup && !book->reord && !book->bad && !book->failed &&
           book->handed == to_send ? 0 : 1;
}

static pid_t start_worker(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        _exit(worker());
    }
    return pid;
}

/* The worker is gone: what a successor must know, and the board's NIC
 * restarted if asked. */
static void after_kill(void)
{
    char v[32];

    book->restarts++;
    book->gen++;
    book->nacks += book->nacks_now;
    book->retransmits += book->retransmits_now;
    book->nacks_now = book->retransmits_now = 0;
    for (unsigned s = 0; s < nodes; s++) {
        if (s != me && !book->fresh[s] && !book->fin_from[s]) {
            book->win[s][book->nwin[s]].from = book->next_pos[s];
            book->win[s][book->nwin[s]].to = POS_END;
            book->nwin[s]++;
            book->fresh[s] = 1;
        }
    }
    snprintf(v, sizeof(v), "%u", book->restarts);
    char key[64];
    snprintf(key, sizeof(key), "soak-rxr-%u", me);
    dn_publish(key, v);
    if (args->restart_boards) {
        dn_node *b;
        if (dn_open_env(&b, 60000) == DN_OK) {
            int rc = dn_nic_restart(b, 60000);
            if (rc != DN_OK) {
                fprintf(stderr, "dimmnet-soak-node: node %u: NIC restart: %s\n", me,
                        dn_strerror(rc));
            }
            dn_close(b);
        }
    }
}

int soak_restart_main(const struct soak_args *a)
{
    const char *id = getenv("DIMMNET_NODE_ID"), *nn = getenv("DIMMNET_NODES");
    uint64_t kill_rng = a->seed * 2654435761u + 12345u;
    int st = 0;

    args = a;
    me = id ? (unsigned)strtoul(id, NULL, 10) : 0;
    nodes = nn ? (unsigned)strtoul(nn, NULL, 10) : 0;
    if (nodes < 2 || nodes > MAXN || me >= nodes) {
        fprintf(stderr, "dimmnet-soak-node: --kill-every needs 2..%u nodes\n", MAXN);
        return 2;
    }
    seen_bytes = share(a->total, 0, nodes) / 8 + 1;
    book = mmap(NULL, sizeof(*book), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    seen = mmap(NULL, (size_t)nodes * MAXGEN * seen_bytes, PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (book == MAP_FAILED || seen == MAP_FAILED) {
        perror("dimmnet-soak-node: mmap");
        return 1;
    }
    memset(book, 0, sizeof(*book));
    pid_t pid = start_worker();
    for (unsigned k = 1;; ) {
        if (waitpid(pid, &st, WNOHANG) == pid) {
            return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
        }
        if (book->started && now_s() >= book->t0 + k * a->kill_every) {
            kill_rng = kill_rng * 6364136223846793005ull + 1442695040888963407ull;
            unsigned victim = (unsigned)(kill_rng >> 33) % nodes;
            k++;
            if (victim == me && !book->finished && book->gen + 1 < MAXGEN) {
                kill(pid, SIGKILL);
                waitpid(pid, &st, 0);
                after_kill();
                pid = start_worker();
            }
        }
        usleep(5000);
    }
}
