/*
 * OMPL (seed 003) in today's terms: its calls written over libfabric RMA on
 * the dimmnet provider, run on 2 or more boards (docs/one-sided.md).
 *
 * OMPL gives every node an equal global area and six calls: put, get,
 * put_word (a flag), wait and poll on a flag, plus init/finalize. A task
 * hands data to another node by putting the data, then putting a flag word;
 * the receiver waits for the flag and may then read the data. The flag must
 * never land before the data. Here put_word is a write with FI_FENCE: the
 * provider starts it only once every earlier operation of the endpoint has
 * completed, and an operation completes only when the target's NIC has
 * ACKed every packet of it, i.e. the data is in the target's memory.
 *
 * The nodes form a ring (with 2, the seed's ping-pong). Checks:
 *   1. rounds of data + flag around the ring: each round a block of a
 *      different size sent as 1 to 4 puts posted back to back (split
 *      phase), then one put_word; the receiver waits for the flag, then
 *      checks every byte of the block;
 *   2. gets, split phase: the block this node last put into its successor,
 *      read back in 4 reads posted back to back, then one wait for all;
 *      and the flag word it last put there;
 *   3. the seed's own mechanism (InfiniBand's RDMA write with immediate):
 *      fi_writedata, whose notice reaches the target's CQ only after the
 *      data is in place.
 * Exit status 1 if any check fails.
 *
 *   ompl_flag [--no-fence] [--rounds N]
 *
 * --no-fence sends the flag without FI_FENCE, to show what the fence is
 * for: with packets lost or reordered on the links (the launcher's
 * --fault), the flag then overtakes the data and step 1 fails.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include "pgas.h"

/* The global area, the same on every node. */
#define BLOCK      0u                 /* where a predecessor's puts land */
#define BLOCK_MAX  (65536u + 64u)
#define FLAG       BLOCK_MAX          /* where its put_word lands */
#define NOTED      (FLAG + 64u)       /* where step 3's write lands */
#define NOTED_LEN  3000u
#define AREA       (NOTED + NOTED_LEN)

static const size_t sizes[] = { 8, 464, 465, 4096, 8193, 20000, BLOCK_MAX };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static struct pgas g;
static int use_fence = 1;
static int failures;

#define FAIL(...)                                          \
    do {                                                   \
        fprintf(stderr, "node %u: ", g.me);                \
        fprintf(stderr, __VA_ARGS__);                      \
        fputc('\n', stderr);                               \
        failures++;                                        \
    } while (0)

/* ---- OMPL's calls, one line each ---------------------------------------- */

static void ompl_put(const void *src, unsigned rank, size_t dest, size_t len)
{
    pgas_put(&g, rank, dest, src, len);             /* fi_writemsg */
}

static void ompl_get(void *dst, unsigned rank, size_t src, size_t len)
{
    pgas_get(&g, rank, src, dst, len);              /* fi_read */
}

static void ompl_put_word(unsigned rank, size_t flag, uint64_t value)
{
    pgas_put_word(&g, rank, flag, value, use_fence); /* fi_writemsg, FI_FENCE | FI_INJECT */
}

static int ompl_poll(size_t flag, uint64_t value)
{
    return pgas_load_word(&g, flag) == value;      /* one load of our own memory */
}

static int ompl_wait(size_t flag, uint64_t value)
{
    return pgas_wait_word(&g, flag, value);        /* poll, progress, sched_yield */
}

/* ---- the program --------------------------------------------------------- */

static uint32_t seed_of(unsigned round, unsigned from)
{
    return round * 64u + from + 1u;
}

/* Step 1, sending: round @r's block to @to in 1 to 4 puts, then the flag. */
static void send_round(uint8_t *out, unsigned r, unsigned to)
{
    size_t len = sizes[r % NSIZES];
    unsigned puts = 1 + r % 4;

    pgas_sync(&g);                  /* the last round's puts are done with out */
    pgas_fill(out, len, seed_of(r, g.me));
    for (unsigned k = 0; k < puts; k++) {          /* posted back to back */
        size_t a = len * k / puts, b = len * (k + 1) / puts;
        ompl_put(out + a, to, BLOCK + a, b - a);
    }
    ompl_put_word(to, FLAG, r + 1);
}

/* Step 1, receiving: wait for round @r's flag, then check the block. */
static void receive_round(unsigned r, unsigned from)
{
    size_t len = sizes[r % NSIZES], bad;
    int early = ompl_poll(FLAG, r + 1);

    if (ompl_wait(FLAG, r + 1)) {
        FAIL("round %u: flag %u never came (holds %" PRIu64 ")", r, r + 1,
             pgas_load_word(&g, FLAG));
        exit(1);
    }
    bad = pgas_check(g.seg + BLOCK, len, seed_of(r, from));
    if (bad != len) {
        FAIL("round %u: flag %u seen but byte %zu of the %zu-byte block differs: the "
             "flag landed before the data", r, r + 1, bad, len);
    }
    printf("node %u: round %2u: flag %u from node %u%s, %zu bytes in %u puts %s\n", g.me,
           r, r + 1, from, early ? " (already there)" : "", len, 1 + r % 4,
           bad == len ? "all there" : "WRONG");
}

/* Step 2: read back what we last put into our successor, 4 reads at once. */
static void get_back(uint8_t *in, unsigned rounds, unsigned succ)
{
    size_t len = sizes[(rounds - 1) % NSIZES], bad;
    uint64_t flag = 0;

    memset(in, 0, len);
    for (unsigned k = 0; k < 4; k++) {
        size_t a = len * k / 4, b = len * (k + 1) / 4;
        ompl_get(in + a, succ, BLOCK + a, b - a);
    }
    ompl_get(&flag, succ, FLAG, sizeof(flag));
    if (pgas_sync(&g)) {
        FAIL("a get completed in error");
    }
    bad = pgas_check(in, len, seed_of(rounds - 1, g.me));
    if (bad != len) {
        FAIL("get: byte %zu of node %u's block differs from what we put", bad, succ);
    }
    if (flag != rounds) {
        FAIL("get: node %u's flag holds %" PRIu64 ", we put %u", succ, flag, rounds);
    }
    printf("node %u: got %zu bytes in 4 reads and the flag (%" PRIu64 ") back from node %u\n",
           g.me, len, flag, succ);
}

/* Step 3: a write with remote CQ data; the target's CQ entry follows the data. */
static void noted_write(uint8_t *out, unsigned succ, unsigned pred, unsigned rounds)
{
    struct fi_cq_data_entry e;
    fi_addr_t src;
    ssize_t n;

    pgas_sync(&g);
    pgas_fill(out, NOTED_LEN, seed_of(rounds, g.me));
    while ((n = fi_writedata(g.ep, out, NOTED_LEN, NULL, 0xd1770000u + g.me, g.addr[succ],
                             pgas_raddr(&g, succ, NOTED), g.key[succ], NULL)) == -FI_EAGAIN) {
        pgas_progress(&g);
    }
    if (n) {
        FAIL("fi_writedata: %s", fi_strerror((int)-n));
        exit(1);
    }
    g.posted++;
    while ((n = fi_cq_readfrom(g.cq, &e, 1, &src)) == -FI_EAGAIN) {
        sched_yield();               /* reading the CQ drives progress */
    }
    if (n != 1 || !(e.flags & FI_REMOTE_CQ_DATA) || e.data != 0xd1770000u + pred ||
        src != g.addr[pred] || e.len != NOTED_LEN) {
        FAIL("remote CQ data: %zd entries, flags 0x%" PRIx64 ", data 0x%" PRIx64, n,
             (uint64_t)e.flags, (uint64_t)e.data);
        exit(1);
    }
    if (pgas_check(g.seg + NOTED, NOTED_LEN, seed_of(rounds, pred)) != NOTED_LEN) {
        FAIL("remote CQ data 0x%" PRIx64 " came before its data", (uint64_t)e.data);
    }
    if (pgas_sync(&g)) {
        FAIL("fi_writedata completed in error");
    }
    printf("node %u: remote CQ data 0x%" PRIx64 " from node %u, %u bytes there before it\n",
           g.me, (uint64_t)e.data, pred, NOTED_LEN);
}

int main(int argc, char **argv)
{
    static uint8_t out[BLOCK_MAX], in[BLOCK_MAX];
    unsigned rounds = 2 * NSIZES;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-fence")) {
            use_fence = 0;
        } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
            rounds = (unsigned)atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: ompl_flag [--no-fence] [--rounds N]\n");
            return 2;
        }
    }
    if (rounds < 1) {
        rounds = 1;
    }
    /* ompl_init: every node's area registered, addresses and keys shared.
     * FI_MSG only for step 3's remote CQ data. */
    pgas_init(&g, AREA, 1, FI_MSG);
    unsigned succ = (g.me + 1) % g.nodes, pred = (g.me + g.nodes - 1) % g.nodes;

    printf("node %u: ring of %u nodes, %u rounds, flag %s the fence\n", g.me, g.nodes,
           rounds, use_fence ? "behind" : "WITHOUT");
    for (unsigned r = 0; r < rounds; r++) {        /* the seed's ping-pong, as a ring */
        if (g.me == 0) {
            send_round(out, r, succ);
            receive_round(r, pred);
        } else {
            receive_round(r, pred);
            send_round(out, r, succ);
        }
    }
    if (pgas_sync(&g)) {
        FAIL("a put completed in error");
    }
    get_back(in, rounds, succ);
    noted_write(out, succ, pred, rounds);

    pgas_finalize(&g);                              /* ompl_finalize */
    if (failures) {
        fprintf(stderr, "node %u: %d check(s) failed\n", g.me, failures);
        return 1;
    }
    printf("node %u: ompl ok\n", g.me);
    return 0;
}
