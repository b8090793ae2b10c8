/*
 * The provider across jobs (issue 25, per-peer state): two fabric programs
 * one after the other on the same live boards, the first killed (SIGKILL,
 * no fi_close) in the middle of its traffic, the second a new job (its own
 * rendezvous directory, as a new launcher run or MPI job would have), with
 * nothing set up by hand in between. Each job is a ping-pong of nodes 0
 * and 1 in which each side posts its directed receive before it sends, so
 * that advertisements (mailboxes), landings (chunks and zones), zero-copy
 * and rendezvous messages all happen; the first job also leaves receives
 * posted and sends on their way when it dies. The second job must get
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

static uint8_t rbuf[AHEAD + 1][MAXLEN], sbuf[AHEAD + 1][MAXLEN];

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
    unsigned rounds = die ? KILL_AFTER : ROUNDS;

    for (unsigned r = 0; r < rounds; r++) {
        post_recv(peer, k, r, 0);
        if (r == 0) {
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
        if (fab_failures()) {
            break;
        }
    }
    printf("node %u: job %u: %u rounds, every message whole\n", me, k, rounds);
    fflush(NULL);
    if (die) {
        /* Receives posted (advertised) and sends under way, then death. */
        for (unsigned i = 1; i <= AHEAD; i++) {
            post_recv(peer, k, rounds + i, i);
        }
        for (unsigned i = 1; i <= AHEAD; i++) {
            fill(sbuf[i], len_of(rounds + i), seed_of(k, rounds + i, me));
            tsend_to(peer, sbuf[i], len_of(rounds + i), tag_of(k, rounds + i, me), sbuf[i]);
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
            _exit(fab_failures() ? 1 : 0);
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
