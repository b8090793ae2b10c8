/*
 * MPI collectives timed the way OSU Micro-Benchmarks 5.3 times them
 * (osu_barrier, osu_bcast, osu_reduce, osu_allreduce, osu_allgather,
 * osu_alltoall, osu_iallreduce), to compare Open MPI's own algorithms
 * (OMPI_MCA_coll=^dimmnet, or ^sm,dimmnet) with coll/dimmnet (the default
 * under dimmnet-cluster --mpi), in WALL-CLOCK time (MPI_Wtime) and, when
 * the cluster keeps deterministic modeled time (dimmnet-cluster
 * --deterministic), in MODELED time: each rank reads its own board's clock
 * through the provider (fi_dimmnet_modeled_clock, prov/dimmnet/fi_dimmnet.h).
 * A benchmark, not a test (but every kind's result is checked once a size,
 * before the timing: a wrong one aborts the job, exit status non-zero).
 *
 *   mpi_coll_bench [--iters N] [--skip N]
 *                  [--kinds barrier,bcast,reduce,allreduce,allgather,alltoall,iallreduce]
 *                  SIZE...
 *
 * SIZE is bytes (at least 1): the message of bcast (MPI_CHAR, root 0), the
 * block each rank gives each rank of allgather and alltoall (MPI_CHAR), and
 * for reduce (root 0), allreduce and iallreduce SIZE / 4 MPI_FLOATs summed
 * (at least one: 4 bytes). A barrier has no size: one line.
 *
 * OSU 5.3's method, per kind and size: one checked call (not timed), an
 * MPI_Barrier, then SKIP warm-up iterations and ITERS timed ones in one
 * loop; each iteration is t_start, the call, t_stop, then an MPI_Barrier
 * that is not timed (osu_barrier has none: its call is the barrier). A
 * rank's latency is the sum of its (t_stop - t_start) over the timed
 * iterations / ITERS; the figures are its average over the ranks (OSU's)
 * and its maximum (the slowest rank, which the project's targets judge).
 * The default SKIP (44) is what coll/dimmnet's run-time choices take
 * (the engine's: cfg.trials 6 x at most 5 candidates + 1 calls a size
 * class; then the component's between the engine and Open MPI's own, 12
 * calls more and one to decide: 44, docs/collectives.md): the timed calls
 * then run the chosen algorithm.
 *
 * osu_iallreduce (OSU 5.3): the collective alone (MPI_Iallreduce +
 * MPI_Wait: pure), a dummy computation as long as this rank's pure time
 * alone (compute: OSU's blocks of 25 x 25 multiply-adds until that much
 * wall-clock time passed), then MPI_Iallreduce + that computation with an
 * MPI_Test after each block (OSU's do_compute_and_probe tests num_probes
 * times, none by default; here every block, about a microsecond) +
 * MPI_Wait (total); skip + iters calls alone and overlapped, iters
 * computations alone; each averaged over the ranks, overlap % =
 * max(0, 100 (1 - (total - compute) / pure)). Wall-clock only: with host
 * sync the modeled clock stands still while the host computes, and the
 * provider exports no call that charges host work (fi_dimmnet.h has the
 * clock and the collective engine's ops), so an MPI program cannot make
 * modeled compute; the modeled line says "unavailable" and gives the pure
 * time only.
 *
 * Rank 0 prints, one line a figure:
 *   mpi_coll_bench: kind=K nodes=N bytes=B iters=I wall_us_avg=X wall_us_max=X modeled_us_avg=X modeled_us_max=X
 *   mpi_coll_bench: overlap nodes=N bytes=B wall pure_us=X compute_us=X total_us=X overlap_pct=X
 *   mpi_coll_bench: overlap nodes=N bytes=B modeled unavailable pure_us=X (...)
 *   mpi_coll_bench: coll/dimmnet served=yes|no|partly|unknown [KIND=served/calls ...]
 * (modeled fields "-" without a modeled clock; no modeled overlap line then).
 * The last line reads rank 0's coll/dimmnet counters (the same ones
 * DIMMNET_COLL_STATS=1 prints at finalize; ompi-coll/README.md) when the
 * component is loaded, and says "unknown" if it cannot read them reliably.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fi_dimmnet.h"

enum kind { K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE, K_ALLGATHER, K_ALLTOALL, K_IALLREDUCE,
            K_N };
static const char *const kind_name[K_N] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "iallreduce",
};

#define MAX_SIZES 32

static int rank, nprocs, iters = 10, skip = 44;
static fi_dimmnet_clock_fn mclock;
static char *sbuf, *rbuf;

static double modeled_us(void)
{
    uint64_t ns = 0;

    if (mclock) {
        mclock(&ns, NULL);
    }
    return (double)ns / 1000.0;
}

static void fail(const char *kind, size_t bytes, const char *what, long at, double got,
                 double want)
{
    fprintf(stderr, "mpi_coll_bench: rank %d: WRONG RESULT kind=%s bytes=%zu: %s[%ld] = %g, "
            "expected %g\n", rank, kind, bytes, what, at, got, want);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* Small integers (exact in float whatever the order of combination). */
static float fval(int r, size_t i) { return (float)((r * 7 + (int)(i % 1000) * 3) % 23 + 1); }
static char cval(int r, size_t i) { return (char)((r * 31 + (int)(i % 977) * 7) % 127); }

static size_t float_count(size_t bytes) { return bytes / 4 ? bytes / 4 : 1; }

/* One call of @k on @bytes (the timed thing). */
static void call(enum kind k, size_t bytes)
{
    MPI_Request rq;
    int cnt = (int)bytes, fcnt = (int)float_count(bytes);

    switch (k) {
    case K_BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case K_BCAST:
        MPI_Bcast(sbuf, cnt, MPI_CHAR, 0, MPI_COMM_WORLD);
        break;
    case K_REDUCE:
        MPI_Reduce(sbuf, rbuf, fcnt, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    case K_ALLREDUCE:
        MPI_Allreduce(sbuf, rbuf, fcnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case K_ALLGATHER:
        MPI_Allgather(sbuf, cnt, MPI_CHAR, rbuf, cnt, MPI_CHAR, MPI_COMM_WORLD);
        break;
    case K_ALLTOALL:
        MPI_Alltoall(sbuf, cnt, MPI_CHAR, rbuf, cnt, MPI_CHAR, MPI_COMM_WORLD);
        break;
    case K_IALLREDUCE:
        MPI_Iallreduce(sbuf, rbuf, fcnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        break;
    default:
        break;
    }
}

/* One call of @k on @bytes with known values, its result checked on every
 * rank that gets one; a wrong value aborts the job. */
static void check(enum kind k, size_t bytes)
{
    const char *kn = kind_name[k];
    size_t fcnt = float_count(bytes), b = bytes, P = (size_t)nprocs;
    float *fs = (float *)sbuf, *fr = (float *)rbuf;

    switch (k) {
    case K_BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    case K_BCAST:
        for (size_t i = 0; i < b; i++) {
            sbuf[i] = rank == 0 ? cval(0, i) : 0;
        }
        break;
    case K_REDUCE:
    case K_ALLREDUCE:
    case K_IALLREDUCE:
        for (size_t i = 0; i < fcnt; i++) {
            fs[i] = fval(rank, i);
            fr[i] = -1.0f;
        }
        break;
    case K_ALLGATHER:
        for (size_t i = 0; i < b; i++) {
            sbuf[i] = cval(rank, i);
        }
        memset(rbuf, 0x55, b * P);
        break;
    case K_ALLTOALL:
        for (size_t d = 0; d < P; d++) {       /* block d goes to rank d */
            for (size_t i = 0; i < b; i++) {
                sbuf[d * b + i] = cval(rank * nprocs + (int)d, i);
            }
        }
        memset(rbuf, 0x55, b * P);
        break;
    default:
        return;
    }
    call(k, bytes);
    switch (k) {
    case K_BCAST:
        for (size_t i = 0; i < b; i++) {
            if (sbuf[i] != cval(0, i)) {
                fail(kn, bytes, "buf", (long)i, sbuf[i], cval(0, i));
            }
        }
        break;
    case K_REDUCE:
    case K_ALLREDUCE:
    case K_IALLREDUCE:
        if (k == K_REDUCE && rank != 0) {
            break;
        }
        for (size_t i = 0; i < fcnt; i++) {
            float want = 0;
            for (int r = 0; r < nprocs; r++) {
                want += fval(r, i);
            }
            if (fr[i] != want) {
                fail(kn, bytes, "recv", (long)i, fr[i], want);
            }
        }
        break;
    case K_ALLGATHER:
        for (size_t r = 0; r < P; r++) {
            for (size_t i = 0; i < b; i++) {
                if (rbuf[r * b + i] != cval((int)r, i)) {
                    fail(kn, bytes, "recv", (long)(r * b + i), rbuf[r * b + i],
                         cval((int)r, i));
                }
            }
        }
        break;
    case K_ALLTOALL:
        for (size_t s = 0; s < P; s++) {       /* block s came from rank s */
            for (size_t i = 0; i < b; i++) {
                char want = cval((int)s * nprocs + rank, i);
                if (rbuf[s * b + i] != want) {
                    fail(kn, bytes, "recv", (long)(s * b + i), rbuf[s * b + i], want);
                }
            }
        }
        break;
    default:
        break;
    }
}

/* Sum and max over the ranks of @v[0..n) (to rank 0). */
static void over_ranks(const double *v, int n, double *avg, double *max)
{
    MPI_Reduce(v, avg, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(v, max, n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        avg[i] /= nprocs;
    }
}

static void fmt(char *out, size_t room, double us, int have)
{
    if (have) {
        snprintf(out, room, "%.3f", us);
    } else {
        snprintf(out, room, "-");
    }
}

/* osu_<kind> at @bytes: a line. */
static void latency(enum kind k, size_t bytes)
{
    double wall = 0, mod = 0, mine[2], avg[2] = { 0 }, max[2] = { 0 };

    check(k, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < skip + iters; i++) {
        double t0 = MPI_Wtime(), m0 = modeled_us();
        call(k, bytes);
        double m1 = modeled_us(), t1 = MPI_Wtime();
        if (i >= skip) {
            wall += t1 - t0;
            mod += m1 - m0;
        }
        if (k != K_BARRIER) {
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    mine[0] = wall * 1e6 / iters;
    mine[1] = mod / iters;
    over_ranks(mine, 2, avg, max);
    if (rank == 0) {
        char ma[32], mm[32];
        size_t shown = k == K_BARRIER ? 0
                       : k == K_REDUCE || k == K_ALLREDUCE ? float_count(bytes) * 4 : bytes;
        fmt(ma, sizeof(ma), avg[1], mclock != NULL);
        fmt(mm, sizeof(mm), max[1], mclock != NULL);
        printf("mpi_coll_bench: kind=%s nodes=%d bytes=%zu iters=%d wall_us_avg=%.3f "
               "wall_us_max=%.3f modeled_us_avg=%s modeled_us_max=%s\n", kind_name[k], nprocs,
               shown, iters, avg[0], max[0], ma, mm);
        fflush(stdout);
    }
}

/* OSU's dummy computation: blocks of a 25 x 25 float kernel until @secs of
 * wall-clock time passed, MPI_Test on *@rq after each block while it is
 * not done (do_compute_and_probe). */
#define DIM 25
static float ca[DIM][DIM], cx[DIM], cy[DIM];
static volatile float csink;

static void compute(double secs, MPI_Request *rq, int *done)
{
    double t0 = MPI_Wtime();

    while (MPI_Wtime() - t0 < secs) {
        for (int i = 0; i < DIM; i++) {
            for (int j = 0; j < DIM; j++) {
                cx[i] = cx[i] * 0.5f + ca[i][j] * ca[j][i] + cy[j];
            }
        }
        csink = cx[0];
        if (rq && !*done) {
            MPI_Test(rq, done, MPI_STATUS_IGNORE);
        }
    }
}

/* osu_iallreduce at @bytes: the overlap lines. */
static void overlap(size_t bytes)
{
    int fcnt = (int)float_count(bytes), done;
    double pure = 0, pure_m = 0, comp = 0, total = 0, mine[4], avg[4] = { 0 }, max[4] = { 0 };
    MPI_Request rq;

    for (int i = 0; i < DIM; i++) {
        cx[i] = cy[i] = 1.0f;
        for (int j = 0; j < DIM; j++) {
            ca[i][j] = 2.0f;
        }
    }
    check(K_IALLREDUCE, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < skip + iters; i++) {               /* the collective alone */
        double t0 = MPI_Wtime(), m0 = modeled_us();
        MPI_Iallreduce(sbuf, rbuf, fcnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        double m1 = modeled_us(), t1 = MPI_Wtime();
        if (i >= skip) {
            pure += t1 - t0;
            pure_m += m1 - m0;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    pure /= iters;
    pure_m /= iters;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters; i++) {                      /* the computation alone */
        done = 1;
        double t0 = MPI_Wtime();
        compute(pure, NULL, &done);
        comp += MPI_Wtime() - t0;
    }
    comp /= iters;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < skip + iters; i++) {               /* both */
        double t0 = MPI_Wtime();
        MPI_Iallreduce(sbuf, rbuf, fcnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &rq);
        done = 0;
        compute(pure, &rq, &done);
        if (!done) {
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        }
        double t1 = MPI_Wtime();
        if (i >= skip) {
            total += t1 - t0;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    total /= iters;
    mine[0] = pure * 1e6;
    mine[1] = comp * 1e6;
    mine[2] = total * 1e6;
    mine[3] = pure_m;
    over_ranks(mine, 4, avg, max);
    if (rank == 0) {
        double pct = avg[0] > 0 ? 100.0 * (1.0 - (avg[2] - avg[1]) / avg[0]) : 0;
        printf("mpi_coll_bench: overlap nodes=%d bytes=%zu wall pure_us=%.3f compute_us=%.3f "
               "total_us=%.3f overlap_pct=%.1f\n", nprocs, (size_t)fcnt * 4, avg[0], avg[1],
               avg[2], pct < 0 ? 0 : pct);
        if (mclock) {
            printf("mpi_coll_bench: overlap nodes=%d bytes=%zu modeled unavailable "
                   "pure_us=%.3f (host compute cannot take modeled time from an MPI program: "
                   "the provider exports no host-work charge)\n", nprocs, (size_t)fcnt * 4,
                   avg[3]);
        }
        fflush(stdout);
    }
}

/*
 * coll/dimmnet's counters in this process, if the component is loaded:
 * mca_coll_dimmnet_component (ompi-coll/coll_dimmnet.h) ends with comms,
 * calls[15] and served[15] (uint64_t each); the symbol's size gives the
 * end. Read only; the reading is proven by a probe (served_line): a
 * layout that changed gives "unknown", never a wrong answer.
 */
#define DN_NOPS 15
static const char *const dn_op_name[DN_NOPS] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall",
    "reduce_scatter_block", "reduce_scatter", "ibarrier", "ibcast", "ireduce",
    "iallreduce", "iallgather", "ialltoall", "ireduce_scatter_block",
};
struct dn_counts { uint64_t calls[DN_NOPS], served[DN_NOPS]; };
static const volatile uint64_t *dn_tail;       /* calls[0]; served follow */
static char dn_path[4096];

static int find_component(struct dl_phdr_info *info, size_t size, void *arg)
{
    const char *name = info->dlpi_name, *base = strrchr(name, '/');

    (void)size;
    (void)arg;
    if (base && strcmp(base + 1, "mca_coll_dimmnet.so") == 0) {
        snprintf(dn_path, sizeof(dn_path), "%s", name);
        return 1;
    }
    return 0;
}

/* 1 loaded and readable, 0 not loaded, -1 loaded but unreadable. */
static int dn_counters_open(void)
{
    void *h, *sym;
    Dl_info info;
    const ElfW(Sym) *es = NULL;

    if (!dl_iterate_phdr(find_component, NULL)) {
        return 0;
    }
    h = dlopen(dn_path, RTLD_NOW | RTLD_NOLOAD);
    sym = h ? dlsym(h, "mca_coll_dimmnet_component") : NULL;
    if (!sym || !dladdr1(sym, &info, (void **)&es, RTLD_DL_SYMENT) || !es ||
        es->st_size < (1 + 2 * DN_NOPS) * sizeof(uint64_t)) {
        return -1;
    }
    dn_tail = (const volatile uint64_t *)((const char *)sym + es->st_size) - 2 * DN_NOPS;
    return 1;
}

static void dn_counters(struct dn_counts *c)
{
    for (int i = 0; i < DN_NOPS; i++) {
        c->calls[i] = dn_tail[i];
        c->served[i] = dn_tail[DN_NOPS + i];
    }
}

/* The line saying whether coll/dimmnet served the benchmark's calls
 * (rank 0's, between @before and now). Every rank takes part (a probe of
 * two MPI_Allreduce calls). */
static void served_line(int state, const struct dn_counts *before, const unsigned *kinds_run)
{
    static const int op_of[K_N] = { 0, 1, 2, 3, 4, 5, 11 };
    struct dn_counts now, after;
    int x = 0, y = 0, ok = state == 1, unselected = ok && dn_tail[-1] == 0;

    if (ok) {
        dn_counters(&now);
    }
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (ok) {      /* the probe: exactly 2 allreduce calls, 0 or 2 served; or,
                    * enabled on no communicator (comms 0), every count 0 */
        dn_counters(&after);
        for (int i = 0; i < DN_NOPS; i++) {
            uint64_t dc = after.calls[i] - now.calls[i], ds = after.served[i] - now.served[i];
            if (unselected) {
                ok &= after.calls[i] == 0 && after.served[i] == 0;
                continue;
            }
            if (i == 3 ? dc != 2 || (ds != 0 && ds != 2) : dc != 0 || ds != 0) {
                ok = 0;
            }
            if (now.served[i] > now.calls[i] || now.calls[i] < before->calls[i]) {
                ok = 0;
            }
        }
    }
    if (rank != 0) {
        return;
    }
    if (state == 0) {
        printf("mpi_coll_bench: coll/dimmnet served=no (component not loaded)\n");
    } else if (ok && unselected) {
        printf("mpi_coll_bench: coll/dimmnet served=no (component loaded, selected on no "
               "communicator)\n");
    } else if (!ok) {
        printf("mpi_coll_bench: coll/dimmnet served=unknown (its counters could not be read "
               "reliably; DIMMNET_COLL_STATS=1 prints them at finalize)\n");
    } else {
        char buf[1024];
        size_t at = 0;
        int all = 1, none = 1;

        for (int k = 0; k < K_N; k++) {
            if (!kinds_run[k]) {
                continue;
            }
            int o = op_of[k];
            uint64_t c = now.calls[o] - before->calls[o], s = now.served[o] - before->served[o];
            all &= c > 0 && s == c;
            none &= s == 0;
            at += (size_t)snprintf(buf + at, sizeof(buf) - at, " %s=%llu/%llu", dn_op_name[o],
                                   (unsigned long long)s, (unsigned long long)c);
        }
        printf("mpi_coll_bench: coll/dimmnet served=%s%s (served/calls on rank 0, the "
               "bench's own barriers and reductions of its figures too)\n",
               none ? "no" : all ? "yes" : "partly", buf);
    }
    fflush(stdout);
}

static void usage(void)
{
    if (rank == 0) {
        fprintf(stderr, "usage: mpi_coll_bench [--iters N] [--skip N] [--kinds K,K..] SIZE...\n"
                "  kinds: barrier,bcast,reduce,allreduce,allgather,alltoall,iallreduce\n");
    }
    MPI_Finalize();
    exit(1);
}

int main(int argc, char **argv)
{
    const char *kinds = "barrier,bcast,reduce,allreduce,allgather,alltoall,iallreduce";
    size_t sizes[MAX_SIZES], max = 4;
    unsigned nsizes = 0, run[K_N] = { 0 };
    struct dn_counts before;
    int dn_state;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) {
            iters = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--skip") == 0 && i + 1 < argc) {
            skip = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--kinds") == 0 && i + 1 < argc) {
            kinds = argv[++i];
        } else if (argv[i][0] >= '1' && argv[i][0] <= '9' && nsizes < MAX_SIZES) {
            sizes[nsizes] = strtoul(argv[i], NULL, 0);
            if (sizes[nsizes] > max) {
                max = sizes[nsizes];
            }
            nsizes++;
        } else {
            usage();
        }
    }
    if (iters < 1 || skip < 0) {
        usage();
    }
    for (const char *p = kinds; *p;) {
        size_t len = strcspn(p, ",");
        int k;
        for (k = 0; k < K_N; k++) {
            if (strlen(kind_name[k]) == len && strncmp(p, kind_name[k], len) == 0) {
                break;
            }
        }
        if (k == K_N) {
            if (rank == 0) {
                fprintf(stderr, "mpi_coll_bench: unknown kind '%.*s'\n", (int)len, p);
            }
            usage();
        }
        run[k] = 1;
        p += len + (p[len] == ',');
    }
    if (nsizes == 0 && (run[K_BCAST] | run[K_REDUCE] | run[K_ALLREDUCE] | run[K_ALLGATHER] |
                        run[K_ALLTOALL] | run[K_IALLREDUCE])) {
        usage();
    }
    sbuf = calloc(1, max * (size_t)nprocs);
    rbuf = calloc(1, max * (size_t)nprocs);
    if (!sbuf || !rbuf) {
        fprintf(stderr, "mpi_coll_bench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    mclock = fi_dimmnet_modeled_clock();
    /* A blocking collective first: coll/dimmnet joins a communicator at its
     * first blocking collective and forwards the non-blocking ones before
     * it (ompi-coll/README.md), which an iallreduce-only run would time. */
    MPI_Barrier(MPI_COMM_WORLD);
    dn_state = dn_counters_open();
    if (dn_state == 1) {
        dn_counters(&before);
    }
    if (rank == 0) {
        printf("mpi_coll_bench: nodes=%d iters=%d skip=%d modeled=%s (wall-clock: MPI_Wtime)\n",
               nprocs, iters, skip, mclock ? "yes (board clocks, host sync)"
                                           : "no (run under dimmnet-cluster --deterministic)");
        fflush(stdout);
    }
    for (int k = 0; k < K_N; k++) {
        if (!run[k]) {
            continue;
        }
        if (k == K_BARRIER) {
            latency(K_BARRIER, 0);
            continue;
        }
        for (unsigned s = 0; s < nsizes; s++) {
            if (k == K_IALLREDUCE) {
                overlap(sizes[s]);
            } else {
                latency((enum kind)k, sizes[s]);
            }
        }
    }
    served_line(dn_state, &before, run);
    MPI_Finalize();
    free(sbuf);
    free(rbuf);
    return 0;
}
