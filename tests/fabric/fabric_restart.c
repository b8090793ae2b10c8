/*
 * The provider across jobs (issue 25, per-peer state): two fabric programs
 * one after the other on the same live boards, the first killed (SIGKILL,
 * no fi_close) in the middle of its traffic, the second a new job (its own
 * rendezvous directory, as a new launcher run or MPI job would have), with
 * nothing set up by hand in between. Each job is a ping-pong of nodes 0
 * and 1 in which each side posts its directed receive before it sends, so
 * that advertisements (mailboxes), landings (chunks and zones), zero-copy
 * and rendezvous messages all happen; the first job also leaves receives
 * posted and sends on their way when it dies (rounds 3 to 8). The second
 * job first posts the receives of rounds 0 to 8 (the same tags, receive
 * ids and mailbox slots as the dead job's), waits 300 ms for what the
 * dead job left in the network, then sends; it must get
 * every message whole, in order, with its own tag and data, nothing of
 * the first job's (run under the switch's hold fault too, so that the
 * dead job's packets still come while the new one runs).
 *
 *   fabric_restart
 */
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fabric_util.h"

#define ROUNDS 60
#define KILL_AFTER 3           /* rounds the first job completes */
#define AHEAD 6                /* receives it leaves posted, sends on their way */
#define MAXLEN (200u * 1024)

static const size_t sizes[] = { 16, 300, 416, 4000, 8000, 30000, MAXLEN, 0, 100, 7000 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

#define PRE (KILL_AFTER + AHEAD)   /* the new job's receives posted before any send */
static uint8_t rbuf[PRE + 1][MAXLEN], sbuf[PRE + 1][MAXLEN];

static size_t len_of(unsigned r)
{
    return sizes[r % NSIZES];
}

/* Job @job's message of round @r from node @from: its tag (the same in
 * every job, as an MPI program's tags are) and data seed (not). */
static uint64_t tag_of(unsigned job, unsigned r, unsigned from)
{
    (void)job;
    return (uint64_t)r << 8 | from;
}

static uint32_t seed_of(unsigned job, unsigned r, unsigned from)
{
    return job * 100003u + r * 2u + from;
}

static void post_recv(fi_addr_t peer, unsigned job, unsigned r, unsigned slot)
{
    memset(rbuf[slot], 0xee, len_of(r) ? len_of(r) : 1);
    ssize_t rc;
    while ((rc = fi_trecv(ep, rbuf[slot], len_of(r), NULL, peer,
                          tag_of(job, r, 1 - me), 0, &rbuf[slot])) == -FI_EAGAIN) {
        struct fi_cq_tagged_entry e;
        fi_cq_read(cq, &e, 0);
    }
    CHECK_MSG(rc == 0, "fi_trecv: %s", fi_strerror((int)-rc));
}

/* One job's traffic; the first dies in its middle. */
static void job(unsigned k, int die)
{
    char dir[4096];

    /* A new job: its own rendezvous (names, "fi-ready"). */
    snprintf(dir, sizeof(dir), "%s/job%u", getenv("DIMMNET_RUN_DIR"), k);
    mkdir(dir, 0700);
    setenv("DIMMNET_RUN_DIR", dir, 1);
    fab_setup();
    fi_addr_t peer = node_addr[1 - me];
    unsigned rounds = die ? KILL_AFTER : ROUNDS, r0 = 0;

    if (!die) {
        /* The new job first posts (advertises) the receives of the rounds
         * the dead one had reached, with the same tags, receive ids and
         * mailbox slots as the dead job's, and gives what the dead job
         * left in the network (held back by the switch) time to come;
         * then it sends them all. */
        for (unsigned r = 0; r < PRE; r++) {
            post_recv(peer, k, r, r + 1);
        }
        CHECK(dn_rendezvous("preposted", TIMEOUT_MS) == DN_OK);
        struct timespec ts = { 0, 300 * 1000000L };
        nanosleep(&ts, NULL);
        void *ctx[2 * PRE];
        struct fi_cq_tagged_entry got[2 * PRE];
        for (unsigned r = 0; r < PRE; r++) {
            fill(sbuf[r + 1], len_of(r), seed_of(k, r, me));
            tsend_to(peer, sbuf[r + 1], len_of(r), tag_of(k, r, me), sbuf[r + 1]);
            ctx[r] = rbuf[r + 1];
            ctx[PRE + r] = sbuf[r + 1];
        }
        expect_all(ctx, got, NULL, 2 * PRE);
        for (unsigned r = 0; r < PRE; r++) {
            CHECK_MSG(got[r].len == len_of(r) && got[r].tag == tag_of(k, r, 1 - me),
                      "node %u: job %u round %u: len %zu tag 0x%llx", me, k, r, got[r].len,
                      (unsigned long long)got[r].tag);
            CHECK_MSG(same(rbuf[r + 1], len_of(r), seed_of(k, r, 1 - me)),
                      "node %u: job %u round %u: data differ (%zu bytes): not this job's",
                      me, k, r, len_of(r));
        }
        r0 = PRE;
    }
    for (unsigned r = r0; r < rounds && !(check_failures + fab_failures()); r++) {
        post_recv(peer, k, r, 0);
        if (r == 0 && die) {
            CHECK(dn_rendezvous("posted", TIMEOUT_MS) == DN_OK);
        }
        fill(sbuf[0], len_of(r), seed_of(k, r, me));
        tsend_to(peer, sbuf[0], len_of(r), tag_of(k, r, me), sbuf[0]);
        struct fi_cq_tagged_entry got[2];
        void *ctx[2] = { rbuf[0], sbuf[0] };
        expect_all(ctx, got, NULL, 2);
        CHECK_MSG(got[0].len == len_of(r) && got[0].tag == tag_of(k, r, 1 - me),
                  "node %u: job %u round %u: len %zu tag 0x%llx", me, k, r, got[0].len,
                  (unsigned long long)got[0].tag);
        CHECK_MSG(same(rbuf[0], len_of(r), seed_of(k, r, 1 - me)),
                  "node %u: job %u round %u: data differ (%zu bytes)", me, k, r, len_of(r));
    }
    printf("node %u: job %u: %u rounds%s\n", me, k, rounds,
           check_failures + fab_failures() ? "" : ", every message whole");
    fflush(NULL);
    if (die) {
        /* Receives posted (advertised) and sends under way, then death. */
        for (unsigned i = 1; i <= AHEAD; i++) {   /* the next rounds, as the new job's */
            post_recv(peer, k, rounds + i - 1, i);
        }
        for (unsigned i = 1; i <= AHEAD; i++) {
            unsigned r = rounds + i - 1;
            fill(sbuf[i], len_of(r), seed_of(k, r, me));
            tsend_to(peer, sbuf[i], len_of(r), tag_of(k, r, me), sbuf[i]);
        }
        for (int i = 0; i < 50; i++) {
            struct fi_cq_tagged_entry e;
            fi_cq_read(cq, &e, 0);
        }
        printf("node %u: job %u dies with %u receives posted and %u sends under way\n", me,
               k, AHEAD, AHEAD);
        fflush(NULL);
        raise(SIGKILL);
    }
    CHECK(dn_rendezvous("done", TIMEOUT_MS) == DN_OK);
    fab_close();
}

int main(void)
{
    const char *id = getenv("DIMMNET_NODE_ID");

    me = id ? (unsigned)atoi(id) : 0;
    for (unsigned k = 1; k <= 2; k++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            job(k, k == 1);
            fflush(NULL);
            _exit(check_failures + fab_failures() ? 1 : 0);
        }
        int st = 0;
        CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
        if (k == 1) {
            CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
                      "node %u: job 1 ended with 0x%x, not killed", me, st);
            CHECK(dn_rendezvous("job1-dead", TIMEOUT_MS) == DN_OK);
        } else {
            CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                      "node %u: job 2 ended with 0x%x", me, st);
        }
    }
    if (check_failures == 0) {
        printf("fabric_restart: node %u ok\n", me);
    }
    return check_failures ? 1 : 0;
}
