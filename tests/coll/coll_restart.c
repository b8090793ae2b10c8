/*
 * Collectives across a NIC restart (issue 37, item 5): a long stream of
 * collectives on every board, every result checked, while one board's NIC
 * restarts in the middle, with collectives in flight. The contract: every
 * call either returns DN_OK with an exactly correct result, or returns an
 * error; never DN_OK with a wrong or partial result, never a hang.
 *
 *   coll_restart [--groups G] [--seed S] [--victim NODE]
 *                [--plain K] [--no-mcast]
 *
 * Five phases, each on a fresh first communicator (dn_coll_comm_create):
 *
 *   1 nic     every board's NIC restarts in turn, at groups G/5 .. 4G/5:
 *             nodes 1 and 3 by dn_nic_restart (the firmware asked, state
 *             handed over), nodes 2 and 0 by dn_nic_reset (hard: a cold
 *             firmware start), each by the board's own host process, which
 *             lives on, right after it started four non-blocking
 *             collectives (started on every other member too). The
 *             collectives move by the NIC's hardware remote writes
 *             (docs/collectives.md), which a restart of the NIC's
 *             processor does not stop: every call is expected to complete
 *             (an error would be allowed, a wrong result never).
 *   2 board   the victim board (--victim, default node 2) restarts whole,
 *             as e2e_restart's "board" mode does: its host process is
 *             killed (SIGKILL: no dn_coll_comm_free, no dn_close) at group
 *             G/2 with its non-blocking collectives in flight, and its NIC
 *             is reset hard before a new host process takes the board.
 *             Every surviving member waits on the dead one sooner or
 *             later: it must report an error (DN_ETIMEDOUT after
 *             timeout_ms); every DN_OK before must be exactly right.
 *   3 rejoin  at once (no rendezvous) the new process makes a fresh
 *             communicator while the survivors may still wait in the old
 *             one; they join it once theirs failed: every call DN_OK.
 *   4 early   the same death at group 0 (the old communicator's first
 *             epochs in flight), and the next process at once again,
 *   5 after   on a fresh communicator: every call DN_OK and exact.
 *
 * Phases 3 and 5 hold the bug this test found: rank 0's open communicator
 * answered any new join word with its incarnation, so the restarted
 * member's new process was welcomed into the survivors' old communicator
 * at epoch 0 (phase 3: a hang until timeout_ms; phase 4/5: both sides took
 * each other's frames, DN_OK with wrong data and barriers left early).
 *
 * The stream, the same on every member: groups of a blocking allreduce
 * (double SUM of integer-valued doubles, so the exact result is known
 * whatever the order; 1 to 4000 elements, the larger ones several
 * epochs), a bcast (double, rotating root), an allgather (int64) and a
 * barrier; every fourth group (and each restart's) starts first an
 * iallreduce of 6000 doubles (48 KB: many epochs), an iallgather, an
 * ibcast and an ibarrier, which stay in flight across the group's
 * blocking calls and are waited for at its end, last first. Receive
 * buffers are filled with a pattern first, so a partial result shows as
 * wrong. A barrier is checked against an observer page outside the
 * network (a file in the run directory every process maps): a member that
 * leaves barrier b while another member has not entered it is a wrong
 * result. The run-time selection is left on (auto), so the calls try
 * every implementation, multicast ones included.
 *
 * The contract after an error (docs/collectives.md, "Faults and
 * time-outs"): the communicator is broken: everything in flight and
 * queued fails with that status, and later calls return it. The program
 * checks this: after the first error it waits for what it has in flight
 * (each must be an error, or DN_OK with a correct result if it was done
 * before), then makes two more calls, which must not say DN_OK; then it
 * frees the communicator and goes on with a fresh one.
 *
 * Each process prints, a phase: calls ok (and after a restart), calls
 * failed by status, wrong results; it exits 1 if wrong > 0, a broken
 * communicator said DN_OK, a survivor of phases 2 and 4 saw no error, a
 * call of phases 3 and 5 failed, or phase 1 had no call complete after
 * the first restart.
 *
 * Not with --deterministic: under host sync the restarted firmware does
 * not come up within dn_nic_restart's 30 s of wall clock. The data come
 * from --seed; the timing does not repeat exactly.
 *
 * For diagnosis: --plain K runs the stream alone, on K fresh
 * communicators one after another (no restart, no rendezvous between);
 * --no-mcast makes every communicator without the switch's multicast.
 * Under link faults (dimmnet-cluster --fault ... hold=...) a late
 * multicast frame can still land inside a later epoch's RDMA frame in the
 * same region, unseen by its stamps (see the commit that added this test);
 * with --no-mcast the faulted runs are exact.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"

#define T_MS 60000
#define NB 4                    /* non-blocking collectives in flight in a group */
#define NB_BIG 6000             /* the iallreduce's doubles (many epochs) */
#define MAXSTAT 17

enum phase { PH_NIC = 1, PH_BOARD, PH_REJOIN, PH_EARLY, PH_AFTER, PH_END };
static const char *const phase_names[] = { "", "nic", "board", "rejoin", "early", "after" };

static unsigned me, nodes, victim = 2, groups = 36, seed = 12345, plain;
static int no_mcast;
static dn_node *n;
static volatile uint64_t *seen;         /* observer: [phase][rank] barriers entered */

struct tally {
    unsigned ok, wrong, failed[MAXSTAT], ok_after_restart, broken_ok;
    int first_err;                      /* status of the first error, 0 none */
    unsigned err_group;
    double first_err_ms;                /* from the phase's start */
};
static struct tally tl;
static int restarted;                   /* a restart happened in this phase (any board) */
static struct timespec t_phase;

static double since_ms(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static volatile uint64_t *observer(void)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/coll-restart-observer", getenv("DIMMNET_RUN_DIR"));
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, 4096) != 0) {
        return NULL;
    }
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

/* ---- values whose results are known exactly ---- */

static uint64_t mix(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t h = (a + 1) * 0x9e3779b97f4a7c15ull ^ (b + 1) * 0xc2b2ae3d27d4eb4full ^
                 (c + seed) * 0x165667b19e3779f9ull;
    return h ^ h >> 31;
}

/* Integer-valued (below 2^31 in magnitude): any order of a sum of 64 is exact. */
static double dval(unsigned r, size_t i, unsigned salt)
{
    return (double)(int64_t)(mix(r, i, salt) % 2000000001ull) - 1.0e9;
}

static int64_t ival(unsigned r, size_t i, unsigned salt)
{
    return (int64_t)mix(r + 100, i, salt);
}

/* ---- one call: start, later finish and check ---- */

struct call {
    unsigned kind, root, salt;
    size_t count;
    void *sbuf, *rbuf;
    dn_coll_req *rq;
    uint64_t barrier_no;        /* the observer's number (blocking barriers) */
};

static void fill_pattern(void *p, size_t bytes)
{
    memset(p, 0xa5, bytes);
}

static int start(dn_coll_comm *c, struct call *x)
{
    unsigned size = dn_coll_size(c), r = dn_coll_rank(c);
    size_t cnt = x->count;

    x->sbuf = x->rbuf = NULL;
    switch (x->kind) {
    case DN_COLL_BARRIER:
        return dn_coll_ibarrier(c, &x->rq);
    case DN_COLL_ALLREDUCE: {
        double *s = malloc(cnt * 8), *d = malloc(cnt * 8);
        for (size_t i = 0; i < cnt; i++) {
            s[i] = dval(r, i, x->salt);
        }
        fill_pattern(d, cnt * 8);
        x->sbuf = s;
        x->rbuf = d;
        return dn_coll_iallreduce(c, s, d, cnt, DN_COLL_DOUBLE, DN_COLL_SUM, &x->rq);
    }
    case DN_COLL_BCAST: {
        double *b = malloc(cnt * 8);
        if (r == x->root) {
            for (size_t i = 0; i < cnt; i++) {
                b[i] = dval(x->root + 50, i, x->salt) + 0.125 * (double)(i % 8);
            }
        } else {
            fill_pattern(b, cnt * 8);
        }
        x->rbuf = b;
        return dn_coll_ibcast(c, b, cnt, DN_COLL_DOUBLE, x->root, &x->rq);
    }
    case DN_COLL_ALLGATHER: {
        int64_t *s = malloc(cnt * 8), *d = malloc(cnt * size * 8);
        for (size_t i = 0; i < cnt; i++) {
            s[i] = ival(r, i, x->salt);
        }
        fill_pattern(d, cnt * size * 8);
        x->sbuf = s;
        x->rbuf = d;
        return dn_coll_iallgather(c, s, d, cnt, DN_COLL_INT64, &x->rq);
    }
    }
    return DN_EINVAL;
}

/* Elements of @x's result that differ from the reference. */
static size_t wrong_elems(dn_coll_comm *c, const struct call *x, size_t *first)
{
    unsigned size = dn_coll_size(c);
    size_t bad = 0;

    switch (x->kind) {
    case DN_COLL_BARRIER:
        return 0;       /* checked by the caller against the observer */
    case DN_COLL_ALLREDUCE:
        for (size_t i = 0; i < x->count; i++) {
            double want = 0;
            for (unsigned j = 0; j < size; j++) {
                want += dval(j, i, x->salt);
            }
            if (memcmp(&want, (double *)x->rbuf + i, 8)) {
                if (bad < 4) {
                    fprintf(stderr, "coll_restart: node %u: allreduce count %zu salt %u: "
                            "[%zu] = %.17g, not %.17g (off by %.17g)\n", me, x->count,
                            x->salt, i, ((double *)x->rbuf)[i], want,
                            ((double *)x->rbuf)[i] - want);
                }
                if (!bad++) {
                    *first = i;
                }
            }
        }
        break;
    case DN_COLL_BCAST:
        for (size_t i = 0; i < x->count; i++) {
            double want = dval(x->root + 50, i, x->salt) + 0.125 * (double)(i % 8);
            if (memcmp(&want, (double *)x->rbuf + i, 8) && !bad++) {
                *first = i;
            }
        }
        break;
    case DN_COLL_ALLGATHER:
        for (size_t i = 0; i < x->count * size; i++) {
            int64_t want = ival((unsigned)(i / x->count), i % x->count, x->salt);
            if (((int64_t *)x->rbuf)[i] != want && !bad++) {
                *first = i;
            }
        }
        break;
    }
    return bad;
}

static void count_status(int rc, unsigned group)
{
    if (rc == DN_OK) {
        tl.ok++;
        tl.ok_after_restart += restarted != 0;
        return;
    }
    unsigned k = (unsigned)-rc < MAXSTAT ? (unsigned)-rc : MAXSTAT - 1;
    tl.failed[k]++;
    if (!tl.first_err) {
        tl.first_err = rc;
        tl.err_group = group;
        tl.first_err_ms = since_ms(&t_phase);
    }
}

/* Finish @x (its status @rc, from the wait or the start), check, free. */
static void finish(dn_coll_comm *c, enum phase ph, unsigned group, struct call *x, int rc)
{
    count_status(rc, group);
    if (rc == DN_OK) {
        size_t first = 0, bad = wrong_elems(c, x, &first);
        if (x->kind == DN_COLL_BARRIER && x->barrier_no) {
            for (unsigned j = 0; j < dn_coll_size(c); j++) {
                uint64_t v = __atomic_load_n(&seen[64 * ph + j], __ATOMIC_SEQ_CST);
                if (v < x->barrier_no) {
                    fprintf(stderr, "coll_restart: node %u: %s group %u: left barrier %llu "
                            "while rank %u had entered %llu only\n", me, phase_names[ph],
                            group, (unsigned long long)x->barrier_no, j,
                            (unsigned long long)v);
                    bad++;
                }
            }
        }
        if (bad) {
            tl.wrong++;
            fprintf(stderr, "coll_restart: node %u: %s group %u: %s count %zu root %u: "
                    "DN_OK with %zu wrong elements (the first %zu)\n", me, phase_names[ph],
                    group, dn_coll_kind_name(x->kind), x->count, x->root, bad, first);
        }
    }
    free(x->sbuf);
    free(x->rbuf);
    x->sbuf = x->rbuf = NULL;
    x->rq = NULL;
}

/* Start and wait: a blocking call as the shim's blocking forms are. */
static int blocking(dn_coll_comm *c, enum phase ph, unsigned group, struct call *x)
{
    int rc = start(c, x);
    if (rc == DN_OK) {
        rc = dn_coll_wait(x->rq);
    }
    finish(c, ph, group, x, rc);
    return rc;
}

/* ---- the restarts ---- */

enum action { RESTART_ASK, RESET_HARD, DIE };
struct event {
    unsigned group, node;
    enum action what;
};

/* The requests of @nb still in flight (a test finishes those done). */
static unsigned in_flight(dn_coll_comm *c, enum phase ph, unsigned group, struct call *nb)
{
    unsigned live = 0;
    for (unsigned k = 0; k < NB; k++) {
        if (nb[k].kind == ~0u) {
            continue;
        }
        int done = 0, rc = dn_coll_test(nb[k].rq, &done);
        if (done || rc != DN_OK) {
            finish(c, ph, group, &nb[k], rc);
            nb[k].kind = ~0u;
        } else {
            live++;
        }
    }
    return live;
}

static void act(const struct event *ev, dn_coll_comm *c, enum phase ph, struct call *nb)
{
    struct timespec t0;
    unsigned live = in_flight(c, ph, ev->group, nb);

    if (ev->what == DIE) {
        printf("coll_restart: node %u: host process dies at group %u with %u of its %d "
               "non-blocking collectives in flight (%u calls ok before)\n", me, ev->group,
               live, NB, tl.ok);
        fflush(NULL);
        raise(SIGKILL);
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = ev->what == RESET_HARD ? dn_nic_reset(n, 30000) : dn_nic_restart(n, 30000);
    printf("coll_restart: node %u: NIC %s at group %u with %u of its %d non-blocking "
           "collectives in flight: %s (%.0f ms)\n", me,
           ev->what == RESET_HARD ? "reset hard (cold start)" : "restarted (handover)",
           ev->group, live, NB, dn_strerror(rc), since_ms(&t0));
    fflush(stdout);
    CHECK_MSG(rc == DN_OK, "node %u: NIC restart: %s", me, dn_strerror(rc));
}

/* ---- the stream ---- */

static const size_t ar_sizes[] = { 1, 5, 64, 1000, 4000 };
static const size_t bc_sizes[] = { 3, 300, 2500 };
static const size_t ag_sizes[] = { 1, 40, 400 };

/*
 * Run @ngroups groups of the stream on @c until the first error; at each of
 * @nev events' groups (the same on every member) the non-blocking set is
 * started, and the event's node acts right after its start.
 */
static void stream(dn_coll_comm *c, enum phase ph, unsigned ngroups, const struct event *ev,
                   unsigned nev)
{
    unsigned size = dn_coll_size(c);
    uint64_t barriers = 0;
    struct call nb[NB];

    for (unsigned g = 0; g < ngroups && !tl.first_err; g++) {
        unsigned salt = ph * 100000u + g * 16u;
        int with_nb = g % 4 == 0;
        const struct event *mine = NULL;

        for (unsigned e = 0; e < nev; e++) {
            with_nb |= ev[e].group == g;
            restarted |= ev[e].group < g;
            if (ev[e].group == g && ev[e].node == me) {
                mine = &ev[e];
            }
        }
        for (unsigned k = 0; k < NB; k++) {
            nb[k].kind = ~0u;
        }
        if (with_nb) {
            nb[0] = (struct call){ DN_COLL_ALLREDUCE, 0, salt + 1, NB_BIG, 0, 0, 0, 0 };
            nb[1] = (struct call){ DN_COLL_ALLGATHER, 0, salt + 2, 300, 0, 0, 0, 0 };
            nb[2] = (struct call){ DN_COLL_BCAST, (g + 2) % size, salt + 3, 1500, 0, 0, 0, 0 };
            nb[3] = (struct call){ DN_COLL_BARRIER, 0, salt + 4, 0, 0, 0, 0, 0 };
            for (unsigned k = 0; k < NB; k++) {
                int rc = start(c, &nb[k]);
                if (rc != DN_OK) {
                    finish(c, ph, g, &nb[k], rc);
                    nb[k].kind = ~0u;
                }
            }
        }
        if (mine) {
            act(mine, c, ph, nb);
        }
        struct call x;
        x = (struct call){ DN_COLL_ALLREDUCE, 0, salt + 5, ar_sizes[g % 5], 0, 0, 0, 0 };
        if (blocking(c, ph, g, &x) == DN_OK) {
            x = (struct call){ DN_COLL_BCAST, (g + 1) % size, salt + 6, bc_sizes[g % 3],
                               0, 0, 0, 0 };
            if (blocking(c, ph, g, &x) == DN_OK) {
                x = (struct call){ DN_COLL_ALLGATHER, 0, salt + 7, ag_sizes[(g / 3) % 3],
                                   0, 0, 0, 0 };
                if (blocking(c, ph, g, &x) == DN_OK) {
                    x = (struct call){ DN_COLL_BARRIER, 0, salt + 8, 0, 0, 0, 0, ++barriers };
                    __atomic_store_n(&seen[64 * ph + dn_coll_rank(c)], barriers,
                                     __ATOMIC_SEQ_CST);
                    blocking(c, ph, g, &x);
                }
            }
        }
        /* Last first: a later request may complete before an earlier one. */
        for (unsigned k = NB; k-- > 0;) {
            if (nb[k].kind != ~0u) {
                finish(c, ph, g, &nb[k], dn_coll_wait(nb[k].rq));
            }
        }
    }
    if (tl.first_err) {
        /* Broken: a later call must not say DN_OK (it may fail at its
         * start, or at its wait). */
        dn_coll_req *rq = NULL;
        int rc = dn_coll_ibarrier(c, &rq);
        if (rc == DN_OK) {
            rc = dn_coll_wait(rq);
        }
        double d[2] = { 1, 2 }, o[2];
        int rc2 = dn_coll_allreduce(c, d, o, 2, DN_COLL_DOUBLE, DN_COLL_SUM);
        if (rc == DN_OK || rc2 == DN_OK) {
            tl.broken_ok++;
            fprintf(stderr, "coll_restart: node %u: %s: the communicator broken by %s "
                    "said DN_OK later (barrier %s, allreduce %s)\n", me, phase_names[ph],
                    dn_strerror(tl.first_err), dn_strerror(rc), dn_strerror(rc2));
        }
    }
}

static void report(enum phase ph)
{
    char failed[512] = "";
    size_t len = 0;
    unsigned nfail = 0;

    for (unsigned k = 1; k < MAXSTAT; k++) {
        if (tl.failed[k]) {
            nfail += tl.failed[k];
            len += (size_t)snprintf(failed + len, sizeof(failed) - len, " %s=%u",
                                    dn_strerror(-(int)k), tl.failed[k]);
        }
    }
    printf("coll_restart: node %u phase %s: calls ok %u (after the restart %u), failed %u%s, "
           "wrong %u", me, phase_names[ph], tl.ok, tl.ok_after_restart, nfail,
           nfail ? failed : "", tl.wrong);
    if (tl.first_err) {
        printf(", first error %s at group %u after %.0f ms", dn_strerror(tl.first_err),
               tl.err_group, tl.first_err_ms);
    }
    printf("\n");
    fflush(stdout);
    CHECK_MSG(tl.wrong == 0, "node %u phase %s: %u wrong results reported as done", me,
              phase_names[ph], tl.wrong);
    CHECK_MSG(tl.broken_ok == 0, "node %u phase %s: a broken communicator said DN_OK", me,
              phase_names[ph]);
}

/* One phase on a fresh first communicator; returns after its free. */
static void phase(enum phase ph, int timeout_ms, const struct event *ev, unsigned nev)
{
    struct dn_coll_config cfg;
    dn_coll_comm *c = NULL;

    memset(&tl, 0, sizeof(tl));
    restarted = ph == PH_REJOIN || ph == PH_AFTER;     /* all after a board restart */
    clock_gettime(CLOCK_MONOTONIC, &t_phase);
    dn_coll_config_default(n, &cfg);
    cfg.timeout_ms = timeout_ms;
    if (no_mcast) {
        cfg.mcast_group = -1;
    }
    int rc = dn_coll_comm_create(n, &cfg, &c);
    CHECK_MSG(rc == DN_OK && c, "node %u phase %s: dn_coll_comm_create: %s", me,
              phase_names[ph], dn_strerror(rc));
    if (!c) {
        return;
    }
    stream(c, ph, groups, ev, nev);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    dn_coll_comm_free(c);
    double free_ms = since_ms(&t0);
    report(ph);
    printf("coll_restart: node %u phase %s: communicator freed in %.0f ms\n", me,
           phase_names[ph], free_ms);
    fflush(stdout);
}

static void open_node(void)
{
    int rc = dn_open_env(&n, 60000);
    if (rc != DN_OK) {
        fprintf(stderr, "coll_restart: node %u: dn_open_env: %s\n", me, dn_strerror(rc));
        exit(1);
    }
}

static void rendezvous(const char *what)
{
    int rc = dn_rendezvous(what, T_MS);
    CHECK_MSG(rc == DN_OK, "node %u: rendezvous %s: %s", me, what, dn_strerror(rc));
}

/* Phases @from .. PH_END on this node; the victim's process dies in
 * PH_BOARD or PH_EARLY (the caller starts the next one). */
static void run_phases(enum phase from)
{
    for (unsigned ph = from; ph < PH_END; ph++) {
        struct event ev[4];
        unsigned nev = 0;
        int timeout_ms = 30000;

        switch (ph) {
        case PH_NIC:
            /* Every board's NIC in turn, asked and hard alternately. */
            for (unsigned k = 0; k < 4; k++) {
                ev[nev++] = (struct event){ groups * (k + 1) / 5, (k + 1) % nodes,
                                            k % 2 ? RESET_HARD : RESTART_ASK };
            }
            timeout_ms = 20000;
            break;
        case PH_BOARD:
            ev[nev++] = (struct event){ groups / 2, victim, DIE };
            timeout_ms = 4000;
            break;
        case PH_EARLY:
            ev[nev++] = (struct event){ 0, victim, DIE };
            timeout_ms = 6000;  /* time for the next process to ask to join */
            break;
        }
        if (ph == PH_BOARD || ph == PH_EARLY) {
            /* Every member's phase before ended (no such wait after a death:
             * the restarted member joins again as soon as it can). */
            char what[64];
            snprintf(what, sizeof(what), "coll-restart.%s", phase_names[ph]);
            rendezvous(what);
        }
        phase((enum phase)ph, timeout_ms, ev, nev);
        if (ph == PH_BOARD || ph == PH_EARLY) {
            /* Every survivor waited on the dead member sooner or later. */
            CHECK_MSG(me == victim || tl.first_err != 0, "node %u phase %s: no error "
                      "although node %u died (%u calls ok)", me, phase_names[ph], victim,
                      tl.ok);
        } else if (ph == PH_NIC) {
            CHECK_MSG(tl.first_err || tl.ok_after_restart > 0,
                      "node %u phase nic: no call completed after the restarts", me);
        } else {
            /* A fresh communicator after a board restart: everything completes. */
            CHECK_MSG(tl.first_err == 0 && tl.ok > 0, "node %u phase %s: %s on a fresh "
                      "communicator (%u calls ok)", me, phase_names[ph],
                      dn_strerror(tl.first_err), tl.ok);
        }
    }
}

/* One life of the victim board's host process, from phase @from: it dies
 * in the stream; then the board restarts (the NIC reset hard). */
static enum phase life(enum phase from)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        open_node();
        run_phases(from);
        fflush(NULL);
        _exit(3);       /* it was to die */
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
              "node %u: the host process did not die as planned (status 0x%x)", me, st);
    enum phase died = from <= PH_BOARD ? PH_BOARD : PH_EARLY;
    open_node();
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = dn_nic_reset(n, 30000);
    printf("coll_restart: node %u: board restarted after phase %s: NIC reset hard, "
           "new host process (%s, %.0f ms)\n", me, phase_names[died], dn_strerror(rc),
           since_ms(&t0));
    CHECK_MSG(rc == DN_OK, "node %u: dn_nic_reset: %s", me, dn_strerror(rc));
    dn_close(n);
    n = NULL;
    return (enum phase)(died + 1);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--groups") && i + 1 < argc) {
            groups = (unsigned)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = (unsigned)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--no-mcast")) {
            no_mcast = 1;
        } else if (!strcmp(argv[i], "--plain") && i + 1 < argc) {
            plain = (unsigned)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--victim") && i + 1 < argc) {
            victim = (unsigned)strtoul(argv[++i], NULL, 0);
        } else {
            fprintf(stderr, "usage: coll_restart [--groups G] [--seed S] [--victim NODE]\n");
            return 2;
        }
    }
    const char *id = getenv("DIMMNET_NODE_ID"), *nn = getenv("DIMMNET_NODES");
    if (!id || !nn) {
        fprintf(stderr, "coll_restart: run it under tools/dimmnet-cluster\n");
        return 2;
    }
    me = (unsigned)strtoul(id, NULL, 10);
    nodes = (unsigned)strtoul(nn, NULL, 10);
    if (nodes < 2 || nodes > 64 || victim >= nodes || groups < 6) {
        fprintf(stderr, "coll_restart: 2 to 64 boards, a victim among them, 6 groups or more\n");
        return 2;
    }
    seen = observer();
    if (!seen) {
        fprintf(stderr, "coll_restart: no observer page in DIMMNET_RUN_DIR\n");
        return 1;
    }
    printf("coll_restart: node %u of %u: seed %u, %u groups, victim node %u\n", me, nodes,
           seed, groups, victim);
    enum phase from = PH_NIC;
    if (plain) {
        /* The stream alone, no restart: @plain fresh communicators. */
        open_node();
        for (unsigned k = 0; k < plain; k++) {
            phase(PH_AFTER, 30000, NULL, 0);
        }
        dn_close(n);
        return check_failures ? 1 : 0;
    }
    if (me == victim) {
        from = life(from);      /* dies in phase board */
        from = life(from);      /* dies in phase early */
    }
    open_node();
    run_phases(from);
    rendezvous("coll-restart.end");
    dn_close(n);
    if (!check_failures) {
        printf("coll_restart: node %u ok\n", me);
    }
    return check_failures ? 1 : 0;
}
