/*
 * A packet that comes very late must not break a landing (issue 25 item
 * 2). Node 0 sends, node 1 receives; the switch holds some frames to node
 * 1 back for a long time (the test's --fault hold), so a landing's first
 * write, held, arrives after its rewrite was ACKed, after its chunk or zone
 * was offered again and the next landing was written there, before node 1
 * took that one. The boards keep modeled time (--timing; the hosts run
 * free), and rounds start every PERIOD us of the boards' shared timeline
 * (fi_dimmnet_clock): node 1 posts one directed receive (advertised with a
 * landing chunk: 256 bytes, or a zone: 4000 bytes), node 0 sends its
 * message LEAD_US later (to the advertisement, so it lands), and node 1
 * leaves it alone until PAUSE us into the round (no progress, only clock
 * reads: the landed message waits in its memory, where a late packet can
 * hit it) before it takes it. A chunk is used again every
 * 16 advertisements (its mailbox slot), a zone every other round (the
 * lowest free one), so the CTest entry holds frames 16 or 2 periods and
 * a bit: a held first write lands in the middle of a later round's pause,
 * on that round's landing. Every byte of every message is checked, and
 * every receive must complete (within BOUND_MS; a receive hit by a late
 * packet never did before REWRITE). The CTest entry checks from node 1's
 * statistics (FI_DIMMNET_STATS) that late packets did come.
 *
 *   fabric_late chunk|zone ROUNDS PERIOD_US PAUSE_US
 */
#include <dlfcn.h>
#include <string.h>
#include <time.h>
#include "fabric_util.h"
#include "fi_dimmnet.h"

#define BOUND_MS 20000           /* one completion, at most (then: failed) */
#define TAG_T0   0x60000000ull
#define TAG_DONE 0x60000001ull
#define LEAD_US  50              /* node 0 sends this long after node 1 posted */
#define TAG_MSG  0x61000000ull

/* The next @n completions are those of @ctx (any order), without errors. */
static void take(void **ctx, struct fi_cq_tagged_entry *out, unsigned n)
{
    for (unsigned got = 0; got < n; got++) {
        struct fi_cq_err_entry err;
        struct fi_cq_tagged_entry e = wait_comp_for(NULL, &err, BOUND_MS);
        unsigned i = 0;

        CHECK_MSG(!err.err, "node %u: error completion %d (%s)", me, err.err,
                  fi_strerror(err.err));
        while (i < n && ctx[i] != e.op_context) {
            i++;
        }
        CHECK_MSG(i < n, "node %u: completion of an unknown context %p", me, e.op_context);
        if (i < n && out) {
            out[i] = e;
        }
    }
}

static fi_dimmnet_clock_fn board_clock;

/* The board's modeled clock, us. */
static int64_t now_us(void)
{
    uint64_t ns = 0;

    CHECK(board_clock(&ns, NULL) == 0);
    return (int64_t)(ns / 1000u);
}

/* Node 0: let modeled time pass until @until us, driving progress (a
 * REWRITE is answered at once); no completion may come. */
static void spin_until(int64_t until)
{
    while (now_us() < until) {
        struct fi_cq_tagged_entry e;
        ssize_t n = fi_cq_read(cq, &e, 1);

        CHECK_MSG(n == -FI_EAGAIN, "node %u: unexpected completion (%zd)", me, n);
    }
}

/* Node 1: let modeled time pass until @until us, without driving the
 * provider. */
static void pause_until(int64_t until)
{
    struct timespec ts = { 0, 20000 };

    while (now_us() < until) {
        nanosleep(&ts, NULL);
    }
}

static void find_clock(void)
{
    uint64_t ns;
    int sync = 0;

    board_clock = fi_dimmnet_find_clock();
    if (!board_clock || board_clock(&ns, &sync) != 0 || sync || ns == 0) {
        fprintf(stderr, "node %u: fabric_late needs --timing (and no host sync)\n", me);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: fabric_late chunk|zone ROUNDS PERIOD_US PAUSE_US\n");
        return 2;
    }
    int zone = !strcmp(argv[1], "zone");
    unsigned rounds = (unsigned)atoi(argv[2]);
    int64_t period = atoi(argv[3]), pause = atoi(argv[4]);
    size_t len = zone ? 4000 : 256;
    static uint8_t buf[4000];
    static char ctxs[2];
    void *ctx[2] = { &ctxs[0], &ctxs[1] };
    int64_t t0 = 0;
    uint8_t done = 0;

    fab_setup();
    find_clock();
    fi_addr_t peer = node_addr[me ^ 1];
    /* Node 1 names the start, a while ahead on the shared timeline; then
     * neither waits for the other (node 1 sends nothing more until the end,
     * so nothing of node 1 waits for an ACK that the switch holds). */
    if (me == 1) {
        int64_t ack;

        t0 = now_us() + 2000;
        tsend_to(peer, &t0, sizeof(t0), TAG_T0, ctx[1]);
        take(&ctx[1], NULL, 1);
        /* Node 0's answer: a receive is advertised to a sender only once a
         * message of its has told its session (docs/libfabric.md). */
        CHECK(fi_trecv(ep, &ack, sizeof(ack), NULL, peer, TAG_T0, 0, ctx[1]) == 0);
        take(&ctx[1], NULL, 1);
    } else if (me == 0) {
        CHECK(fi_trecv(ep, &t0, sizeof(t0), NULL, peer, TAG_T0, 0, ctx[1]) == 0);
        take(&ctx[1], NULL, 1);
        tsend_to(peer, &t0, sizeof(t0), TAG_T0, ctx[1]);
        take(&ctx[1], NULL, 1);
    }
    for (unsigned r = 0; r < rounds && me < 2; r++) {
        int64_t at = t0 + (int64_t)r * period;

        if (me == 1) {
            pause_until(at);
            memset(buf, 0, len);
            CHECK(fi_trecv(ep, buf, len, NULL, peer, TAG_MSG + r, 0, ctx[0]) == 0);
            pause_until(at + pause);
            struct fi_cq_tagged_entry e;
            take(ctx, &e, 1);
            CHECK_MSG(e.len == len && e.tag == TAG_MSG + r, "round %u: len %zu tag 0x%llx",
                      r, e.len, (unsigned long long)e.tag);
            CHECK_MSG(same(buf, len, r), "round %u: data differ", r);
            if (r % 8 == 7) {
                printf("node 1: round %u took at %lld us\n", r, (long long)(now_us() - t0));
                fflush(stdout);
            }
        } else {
            spin_until(at + LEAD_US);
            fill(buf, len, r);
            tsend_to(peer, buf, len, TAG_MSG + r, ctx[0]);
            take(ctx, NULL, 1);
        }
    }
    /* Node 0 keeps driving progress (a rewrite asked for late) until node 1
     * has taken everything. */
    if (me == 1) {
        tsend_to(peer, &done, 1, TAG_DONE, ctx[1]);
        take(&ctx[1], NULL, 1);
    } else if (me == 0) {
        CHECK(fi_trecv(ep, &done, 1, NULL, peer, TAG_DONE, 0, ctx[1]) == 0);
        take(&ctx[1], NULL, 1);
    }
    fab_close();
    int failures = check_failures + fab_failures();
    printf("node %u: fabric_late %s, %u rounds: %s\n", me, zone ? "zone" : "chunk", rounds,
           failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
