/*
 * Restart-safe barrier groups (issue 25, epochs), end to end: jobs of
 * barriers one after another on the same live boards, each job's host
 * processes killed (SIGKILL, no dn_barrier_destroy, no dn_close) before the
 * next job's start, nothing set up by hand in between:
 *
 *   job 1  killed inside its first barrier: every node but the last has
 *          arrived (the root's counter, or the words of the host-assisted
 *          algorithms, hold its arrivals), the last never comes
 *   job 2  five barriers, then killed (everyone out of the last one)
 *   job 3  seven barriers, then killed inside the eighth, as job 1
 *   job 4  thirty barriers, then a clean end
 *
 *   e2e_barrier_restart ALGORITHM     (any of dn_barrier_algorithm_parse's)
 *
 * Every job's processes start staggered (the root first in jobs 1 and 3,
 * last in 2 and 4), so members of a new job come while the old job's
 * state is still all the root's board knows (job 2's last node, first to
 * come, would complete job 1's barrier with its arrival). What must hold (docs/
 * barriers.md, "Across jobs"): no member of any job ever leaves a barrier
 * before every member entered it (an observer page outside the network,
 * as dimmnet-soak --barriers checks), no member leaves the barrier its job
 * is killed in, and every barrier of every job completes: the old job's
 * arrivals, completions and words count for nothing in the new one.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"

#define T 120000
#define STAGGER_MS 150
#define JOBS 4

static const struct job {
    unsigned barriers;   /* completed before the end */
    int killed_inside;   /* then every node but the last enters one more */
    int killed;          /* killed (else a clean end) */
    int root_last;       /* staggered start: the root last (else first) */
} jobs[JOBS] = {
    { 0, 1, 1, 0 },
    { 5, 0, 1, 1 },
    { 7, 1, 1, 0 },
    { 30, 0, 0, 1 },
};

static unsigned me, nodes;
static int algorithm;

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Job @k's observer page: slot j holds the barrier node j is in (or past). */
static volatile uint64_t *observer(unsigned k)
{
    char path[4096];

    snprintf(path, sizeof(path), "%s/barrier-restart-observer.%u", getenv("DIMMNET_RUN_DIR"), k);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, 4096) != 0) {
        return NULL;
    }
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

static void key(char *buf, size_t size, unsigned k, const char *what, unsigned node)
{
    snprintf(buf, size, "barrier-restart.%u.%s.%u", k, what, node);
}

/* Job @k on this node (a child process): exits 0 when its part held, 3 if
 * it left the barrier it was to be killed in. */
static void run_job(unsigned k)
{
    const struct job *j = &jobs[k];
    volatile uint64_t *seen = observer(k);
    dn_node *n;
    dn_barrier *b;
    struct dn_barrier_config cfg;
    char kb[128];

    check_failures = 0;     /* the child's own: not the parent's, of an earlier job */
    CHECK(seen != NULL);
    if (!seen) {
        return;
    }
    sleep_ms(STAGGER_MS * (j->root_last ? nodes - 1 - me : me));
    CHECK_EQ(dn_open_env(&n, 60000), DN_OK);
    dn_barrier_config_default(n, &cfg);
    cfg.algorithm = (enum dn_barrier_algorithm)algorithm;
    /* A barrier the job is killed inside waits for the harness, which
     * under a loaded CI may take seconds to see every member in: its
     * timeout is the harness's (T), not a barrier's. */
    cfg.timeout_ms = j->killed_inside ? T : 10000;
    CHECK_EQ(dn_barrier_create(n, &cfg, &b), DN_OK);
    if (check_failures) {
        return;
    }
    for (uint64_t r = 1; r <= j->barriers; r++) {
        __atomic_store_n(&seen[me], r, __ATOMIC_SEQ_CST);
        int rc = dn_barrier_wait(b);
        if (rc != DN_OK) {
            struct dn_barrier_report rep;
            dn_barrier_report(b, &rep);
            fprintf(stderr, "node %u: job %u: barrier %llu: %s: %s\n", me, k + 1,
                    (unsigned long long)r, dn_strerror(rc), rep.text);
            CHECK(0);
            return;
        }
        for (unsigned i = 0; i < nodes; i++) {
            uint64_t v = __atomic_load_n(&seen[i], __ATOMIC_SEQ_CST);
            CHECK_MSG(v >= r, "node %u: job %u: left barrier %llu while node %u was at %llu",
                      me, k + 1, (unsigned long long)r, i, (unsigned long long)v);
        }
    }
    printf("node %u: job %u: %u barriers, no early exit\n", me, k + 1, j->barriers);
    fflush(NULL);
    if (!j->killed) {
        /* Stay until every node is out: the others may still want our resends. */
        key(kb, sizeof(kb), k, "out", me);
        dn_publish(kb, "1");
        for (unsigned i = 0; i < nodes; i++) {
            char v[8];
            key(kb, sizeof(kb), k, "out", i);
            while (dn_lookup(kb, v, sizeof(v), 0) != DN_OK) {
                dn_barrier_progress(b);
                sleep_ms(1);
            }
        }
        dn_barrier_destroy(b);
        dn_close(n);
        return;
    }
    if (!j->killed_inside) {
        snprintf(kb, sizeof(kb), "barrier-restart.%u.done", k);
        CHECK_EQ(dn_rendezvous(kb, T), DN_OK);
        fflush(NULL);
        raise(SIGKILL);
    }
    if (me == nodes - 1) {
        /* The last node never arrives: it dies once the others are in. */
        for (unsigned i = 0; i + 1 < nodes; i++) {
            char v[8];
            key(kb, sizeof(kb), k, "in", i);
            CHECK_EQ(dn_lookup(kb, v, sizeof(v), 20000), DN_OK);
        }
        sleep_ms(100);
        printf("node %u: job %u: dies outside the barrier the others are in\n", me, k + 1);
        fflush(NULL);
        raise(SIGKILL);
    }
    __atomic_store_n(&seen[me], j->barriers + 1, __ATOMIC_SEQ_CST);
    key(kb, sizeof(kb), k, "in", me);
    dn_publish(kb, "1");
    printf("node %u: job %u: enters barrier %u, to be killed inside\n", me, k + 1,
           j->barriers + 1);
    fflush(NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = dn_barrier_wait(b);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(stderr, "node %u: job %u: left barrier %u (%s) after %.1f s, which node %u never entered\n",
            me, k + 1, j->barriers + 1, dn_strerror(rc),
            (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, nodes - 1);
    fflush(NULL);
    _exit(3);
}

int main(int argc, char **argv)
{
    algorithm = argc > 1 ? dn_barrier_algorithm_parse(argv[1]) : -1;
    if (algorithm < 0) {
        fprintf(stderr, "usage: e2e_barrier_restart ALGORITHM\n");
        return 2;
    }
    me = (unsigned)strtoul(getenv("DIMMNET_NODE_ID"), NULL, 10);
    nodes = (unsigned)strtoul(getenv("DIMMNET_NODES"), NULL, 10);
    CHECK(nodes >= 2 && nodes <= 8);
    for (unsigned k = 0; k < JOBS; k++) {
        char kb[128], v[8];

        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            run_job(k);
            fflush(NULL);
            _exit(check_failures ? 1 : 0);
        }
        CHECK(pid > 0);
        int st = 0, gone = 0;
        if (jobs[k].killed_inside && me + 1 < nodes) {
            /* Ours is inside the barrier: kill it once the last node died
             * (unless it ended on its own: a failure, said below). */
            key(kb, sizeof(kb), k, "in", me);
            for (int step = 0; step < 2 && !gone; step++) {
                while (!(gone = waitpid(pid, &st, WNOHANG) == pid) &&
                       dn_lookup(kb, v, sizeof(v), 0) != DN_OK) {
                    sleep_ms(5);
                }
                key(kb, sizeof(kb), k, "last-dead", nodes - 1);
            }
            if (!gone) {
                sleep_ms(100);
                kill(pid, SIGKILL);
            }
        }
        CHECK(gone || waitpid(pid, &st, 0) == pid);
        if (jobs[k].killed_inside && me + 1 == nodes) {
            key(kb, sizeof(kb), k, "last-dead", me);
            dn_publish(kb, "1");
        }
        if (jobs[k].killed) {
            CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
                      "node %u: job %u ended with status 0x%x, not killed", me, k + 1, st);
        } else {
            CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                      "node %u: job %u ended with status 0x%x", me, k + 1, st);
        }
        /* Every process of job k is dead before any of job k + 1 starts. */
        snprintf(kb, sizeof(kb), "barrier-restart.%u.dead", k);
        CHECK_EQ(dn_rendezvous(kb, T), DN_OK);
    }
    if (check_failures == 0) {
        printf("e2e_barrier_restart %s: node %u ok\n", argv[1], me);
    }
    return check_failures ? 1 : 0;
}
