/*
 * The shim's collectives timed (issue 37; docs/collectives.md): every
 * collective x implementation (each forced by name, and "auto", the
 * run-time choice once its trials are over) x size, on every board of the
 * run, and a non-blocking allreduce's overlap with computation measured as
 * OSU 5.3's osu_iallreduce does. Run it under the launcher; with
 * --deterministic the figures are modeled (the boards' virtual clock under
 * host sync, the host profile's charges for the shim's own instructions,
 * copies and every load and store of the card's memory), otherwise
 * wall-clock. Not a test: it prints figures.
 *
 *   coll_bench [--kinds K,K..] [--impls all|auto] [--iters N] [--type double|int64]
 *              [--overlap] [--overlap-impl I] SIZE...
 *
 * A collective's time is the slowest member's mean over N calls (10 N up
 * to 1 KiB; each member times its own calls; a max-reduction, not timed,
 * agrees on it).
 * SIZE is bytes: the message of bcast, every member's contribution (and
 * result) of reduce and allreduce, the block a member gives each member of
 * allgather and alltoall, a member's result block of reduce_scatter
 * (doubles summed for the reductions; with --type int64, 64-bit integers,
 * which the firmware combine serves up to 8 bytes: the reductions' kinds
 * are then printed K-int64, and "firmware" is timed only there); a barrier
 * has no size (one line). --overlap-impl forces the non-blocking
 * allreduce's implementation (default auto).
 * Rank 0 prints:
 *   coll_bench: kind=K impl=I nodes=N bytes=B iters=N modeled|wall-clock us=..
 *   coll_bench: overlap nodes=N bytes=B pure_us=.. compute_us=.. total_us=.. overlap_pct=..
 *               kind=iallreduce[-int64] impl=I
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include "dimmnet1/dn.h"

#define MAX_SIZES 32

static dn_node *n;
static int modeled;
static enum dn_coll_type rtype = DN_COLL_DOUBLE;   /* the reductions' (8 bytes either) */
static const char *tsuffix = "";

static uint64_t now_ns(void)
{
    if (modeled) {
        uint64_t t = 0;
        dn_clock(n, &t);
        return t;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "coll_bench: %s: %s\n", what, dn_strerror(rc));
    exit(1);
}

/* One blocking call of @kind on @bytes. */
static void call(dn_coll_comm *c, unsigned kind, size_t bytes, double *s, double *r)
{
    size_t cnt = bytes / sizeof(double), sz = dn_coll_size(c);
    int rc = DN_OK;

    switch (kind) {
    case DN_COLL_BARRIER:
        rc = dn_coll_barrier(c);
        break;
    case DN_COLL_BCAST:
        rc = dn_coll_bcast(c, r, bytes, DN_COLL_BYTE, 0);
        break;
    case DN_COLL_REDUCE:
        rc = dn_coll_reduce(c, s, r, cnt, rtype, DN_COLL_SUM, 0);
        break;
    case DN_COLL_ALLREDUCE:
        rc = dn_coll_allreduce(c, s, r, cnt, rtype, DN_COLL_SUM);
        break;
    case DN_COLL_ALLGATHER:
        rc = dn_coll_allgather(c, s, r, bytes, DN_COLL_BYTE);
        break;
    case DN_COLL_ALLTOALL:
        rc = dn_coll_alltoall(c, s, r, bytes, DN_COLL_BYTE);
        break;
    case DN_COLL_REDUCE_SCATTER:
        rc = dn_coll_reduce_scatter(c, s, r, cnt, rtype, DN_COLL_SUM);
        break;
    }
    (void)sz;
    if (rc != DN_OK) {
        die(dn_coll_kind_name((enum dn_coll_kind)kind), rc);
    }
}

/* The slowest member's value (not timed). */
static uint64_t slowest(dn_coll_comm *c, uint64_t mine)
{
    uint64_t all;
    int rc = dn_coll_allreduce(c, &mine, &all, 1, DN_COLL_UINT64, DN_COLL_MAX);

    if (rc != DN_OK) {
        die("max-reduction", rc);
    }
    return all;
}

static unsigned nimpls(unsigned kind)
{
    const char *const *im = dn_coll_impls((enum dn_coll_kind)kind);
    unsigned k = 0;

    while (im[k]) {
        k++;
    }
    return k;
}

static void timed(dn_coll_comm *c, unsigned kind, const char *impl, size_t bytes,
                  unsigned iters, double *s, double *r, unsigned trials)
{
    int rc = dn_coll_force(c, (enum dn_coll_kind)kind, impl);

    if (rc != DN_OK) {
        return;             /* not a candidate on this communicator */
    }
    /* The firmware combine serves barriers and integers of up to 8 bytes
     * (dn.h); forced on any other call, the first implementation would run
     * under its name. */
    if (!strcmp(impl, "firmware") && kind != DN_COLL_BARRIER &&
        (rtype != DN_COLL_INT64 || bytes > 8)) {
        dn_coll_force(c, (enum dn_coll_kind)kind, "auto");
        return;
    }
    /* Warm up; for auto, the trials of every candidate first (at most
     * every implementation of the kind, and the agreement's call). */
    unsigned warm = strcmp(impl, "auto") ? 2 : trials * nimpls(kind) + 2;
    for (unsigned i = 0; i < warm; i++) {
        call(c, kind, bytes, s, r);
    }
    /* Small ones 10x as many: the members leave the barrier below a few
     * microseconds apart, spread over few calls that hides differences
     * of a microsecond between implementations. */
    if (bytes <= 1024) {
        iters *= 10;
    }
    dn_coll_barrier(c);
    uint64_t t0 = now_ns();
    for (unsigned i = 0; i < iters; i++) {
        call(c, kind, bytes, s, r);
    }
    uint64_t mean = (now_ns() - t0) / iters;
    uint64_t worst = slowest(c, mean);
    if (dn_coll_rank(c) == 0) {
        int red = kind == DN_COLL_REDUCE || kind == DN_COLL_ALLREDUCE ||
                  kind == DN_COLL_REDUCE_SCATTER;
        printf("coll_bench: kind=%s%s impl=%s nodes=%u bytes=%zu iters=%u %s us=%.3f\n",
               dn_coll_kind_name((enum dn_coll_kind)kind), red ? tsuffix : "", impl,
               dn_coll_size(c),
               kind == DN_COLL_BARRIER ? (size_t)0 : bytes, iters,
               modeled ? "modeled" : "wall-clock", (double)worst / 1000.0);
        fflush(stdout);
    }
}

/* Computation of about @ns (the host profile's instructions under host
 * sync; a busy loop otherwise), testing @req every microsecond as OSU's
 * do_compute_and_probe does; *done once it completed. */
static void compute(uint64_t ns, dn_coll_req **req, int *done)
{
    uint64_t end = now_ns() + ns;

    while (now_ns() < end) {
        if (modeled) {
            dn_host_work(n, DN_HOST_INSNS, 850);        /* ~1 us of the paper's host */
        } else {
            for (volatile unsigned k = 0; k < 2000; k++) {
            }
        }
        if (*req && !*done) {
            int rc = dn_coll_test(*req, done);
            if (rc != DN_OK) {
                die("iallreduce test", rc);
            }
            if (*done) {
                *req = NULL;
            }
        }
    }
}

/* osu_iallreduce: the collective alone (pure), computation as long alone,
 * then both: overlap = 100 (1 - (total - compute) / pure), at least 0. */
static void overlap(dn_coll_comm *c, size_t bytes, unsigned iters, double *s, double *r,
                    const char *impl, unsigned trials)
{
    size_t cnt = bytes / sizeof(double);
    dn_coll_req *q;
    uint64_t pure = 0, comp = 0, total = 0;
    int rc, done;

    if ((rc = dn_coll_force(c, DN_COLL_ALLREDUCE, impl)) != DN_OK) {
        die(impl, rc);
    }
    for (unsigned i = 0; i < trials * nimpls(DN_COLL_ALLREDUCE) + 2; i++) {   /* trials over */
        call(c, DN_COLL_ALLREDUCE, bytes, s, r);
    }
    dn_coll_barrier(c);
    for (unsigned i = 0; i < iters; i++) {
        uint64_t t0 = now_ns();
        if ((rc = dn_coll_iallreduce(c, s, r, cnt, rtype, DN_COLL_SUM, &q)) != DN_OK ||
            (rc = dn_coll_wait(q)) != DN_OK) {
            die("iallreduce", rc);
        }
        pure += now_ns() - t0;
    }
    pure = slowest(c, pure / iters);
    dn_coll_barrier(c);
    for (unsigned i = 0; i < iters; i++) {
        dn_coll_req *none = NULL;
        done = 1;
        uint64_t t0 = now_ns();
        compute(pure, &none, &done);
        comp += now_ns() - t0;
    }
    comp /= iters;
    dn_coll_barrier(c);
    for (unsigned i = 0; i < iters; i++) {
        uint64_t t0 = now_ns();
        if ((rc = dn_coll_iallreduce(c, s, r, cnt, rtype, DN_COLL_SUM, &q)) != DN_OK) {
            die("iallreduce", rc);
        }
        done = 0;
        compute(pure, &q, &done);
        if (!done && (rc = dn_coll_wait(q)) != DN_OK) {
            die("iallreduce wait", rc);
        }
        total += now_ns() - t0;
    }
    total = slowest(c, total / iters);
    comp = slowest(c, comp);
    double pct = pure ? 100.0 * (1.0 - ((double)total - (double)comp) / (double)pure) : 0;
    if (pct < 0) {
        pct = 0;
    }
    if (dn_coll_rank(c) == 0) {
        printf("coll_bench: overlap nodes=%u bytes=%zu %s pure_us=%.3f compute_us=%.3f "
               "total_us=%.3f overlap_pct=%.1f kind=iallreduce%s impl=%s\n", dn_coll_size(c),
               bytes, modeled ? "modeled" : "wall-clock", pure / 1000.0, comp / 1000.0,
               total / 1000.0, pct, tsuffix, impl);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    const char *kinds = "barrier,bcast,reduce,allreduce,allgather,alltoall,reduce_scatter";
    int all_impls = 1, do_overlap = 0;
    const char *overlap_impl = "auto";
    unsigned iters = 10, nsizes = 0;
    size_t sizes[MAX_SIZES], max = 8;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--kinds") && i + 1 < argc) {
            kinds = argv[++i];
        } else if (!strcmp(argv[i], "--impls") && i + 1 < argc) {
            all_impls = strcmp(argv[++i], "auto") != 0;
        } else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
            iters = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--overlap")) {
            do_overlap = 1;
        } else if (!strcmp(argv[i], "--overlap-impl") && i + 1 < argc) {
            overlap_impl = argv[++i];
        } else if (!strcmp(argv[i], "--type") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "int64")) {
                rtype = DN_COLL_INT64;
                tsuffix = "-int64";
            } else if (strcmp(argv[i], "double")) {
                fprintf(stderr, "coll_bench: --type %s: double or int64\n", argv[i]);
                return 2;
            }
        } else if (argv[i][0] != '-' && nsizes < MAX_SIZES) {
            sizes[nsizes] = strtoull(argv[i], NULL, 0);
            sizes[nsizes] &= ~(size_t)7;           /* whole doubles */
            if (sizes[nsizes] < 8) {
                sizes[nsizes] = 8;
            }
            max = sizes[nsizes] > max ? sizes[nsizes] : max;
            nsizes++;
        } else {
            fprintf(stderr, "usage: coll_bench [--kinds K,K..] [--impls all|auto] "
                    "[--iters N] [--type double|int64] [--overlap] [--overlap-impl I] "
                    "SIZE...\n");
            return 2;
        }
    }
    if (!nsizes) {
        sizes[nsizes++] = 8;
    }
    if (iters < 1) {
        iters = 1;
    }
    int rc = dn_open_env(&n, 60000);
    if (rc != DN_OK) {
        die("dn_open_env", rc);
    }
    modeled = dn_host_sync(n) == 1;
    struct dn_coll_config cfg;
    dn_coll_config_default(n, &cfg);
    cfg.timeout_ms = 600000;
    dn_coll_comm *c;
    if ((rc = dn_coll_comm_create(n, &cfg, &c)) != DN_OK) {
        die("dn_coll_comm_create", rc);
    }
    /* Buffers for the largest: alltoall and allgather move a block a member. */
    size_t room = max * dn_coll_size(c);
    double *s = calloc(1, room), *r = calloc(1, room);
    if (!s || !r) {
        die("buffers", DN_ENOMEM);
    }
    for (size_t i = 0; i < room / sizeof(double); i++) {
        s[i] = (double)(i % 1000) + dn_coll_rank(c);
    }
    for (unsigned k = 0; k < DN_COLL_KINDS; k++) {
        const char *name = dn_coll_kind_name((enum dn_coll_kind)k);
        const char *p = strstr(kinds, name);
        size_t len = strlen(name);
        /* A whole item of the list ("reduce" is not "reduce_scatter"). */
        while (p && ((p != kinds && p[-1] != ',') || (p[len] && p[len] != ','))) {
            p = strstr(p + 1, name);
        }
        if (!p) {
            continue;
        }
        const char *const *im = dn_coll_impls((enum dn_coll_kind)k);
        for (unsigned z = 0; z < (k == DN_COLL_BARRIER ? 1 : nsizes); z++) {
            for (unsigned i = 0; all_impls && im[i]; i++) {
                timed(c, k, im[i], sizes[z], iters, s, r, cfg.trials);
            }
            timed(c, k, "auto", sizes[z], iters, s, r, cfg.trials);
        }
    }
    if (do_overlap) {
        for (unsigned z = 0; z < nsizes; z++) {
            overlap(c, sizes[z], iters, s, r, overlap_impl, cfg.trials);
        }
    }
    dn_coll_comm_free(c);
    dn_close(n);
    free(s);
    free(r);
    return 0;
}
