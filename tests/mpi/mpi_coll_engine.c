/*
 * Every byte of the collectives coll/dimmnet's engine serves, on
 * MPI_COMM_WORLD, a dup and an even/odd split: barrier, bcast, reduce,
 * allreduce, allgather, alltoall, reduce_scatter_block and their I-forms
 * (several in flight at once), with int, long, uint64, float and double,
 * SUM MAX MIN BXOR PROD, MPI_IN_PLACE, counts 1 .. 16384 elements (64 KiB
 * of int), and a communicator whose first collective is an MPI_Ibarrier
 * that a message must overtake. Values are small integers, so float sums
 * are exact.
 * Prints "rank R of N: K results checked: ok". With --exhaust, only more
 * communicators than the engine has slots (exhaust, below).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long checked, bad;

/* A failure names itself "mpi_coll_engine: check failed:", which the test
 * scripts keep in their output. */
#define CHECK(cond, ...) do { checked++; if (!(cond)) { \
    if (bad++ < 10) { fprintf(stderr, "mpi_coll_engine: check failed: "); \
                      fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } } while (0)

/* The value rank r contributes at index i (small: exact in float). */
static long val(int r, int i) { return (r * 7 + i * 3) % 23 + 1; }

static const int counts[] = { 1, 2, 7, 1000, 16384 };
#define NCOUNTS (int) (sizeof(counts) / sizeof(counts[0]))

struct ty { MPI_Datatype dt; int kind; size_t sz; const char *name; };
/* kind 0 int, 1 long, 2 uint64, 3 float, 4 double */
static const struct ty types[] = {
    { MPI_INT, 0, sizeof(int), "int" }, { MPI_LONG, 1, sizeof(long), "long" },
    { MPI_UINT64_T, 2, 8, "uint64" }, { MPI_FLOAT, 3, sizeof(float), "float" },
    { MPI_DOUBLE, 4, sizeof(double), "double" },
};

static void put(const struct ty *t, void *b, int i, long v)
{
    switch (t->kind) {
    case 0: ((int *) b)[i] = (int) v; break;
    case 1: ((long *) b)[i] = v; break;
    case 2: ((uint64_t *) b)[i] = (uint64_t) v; break;
    case 3: ((float *) b)[i] = (float) v; break;
    default: ((double *) b)[i] = (double) v; break;
    }
}

static long get(const struct ty *t, const void *b, int i)
{
    switch (t->kind) {
    case 0: return ((const int *) b)[i];
    case 1: return ((const long *) b)[i];
    case 2: return (long) ((const uint64_t *) b)[i];
    case 3: return (long) ((const float *) b)[i];
    default: return (long) ((const double *) b)[i];
    }
}

/* The expected reduction over n ranks at index i. */
static long expect(MPI_Op op, int n, int i)
{
    long e = op == MPI_PROD ? val(0, i) % 2 + 1 : val(0, i);   /* PROD: factors 1 or 2 */
    for (int r = 1; r < n; r++) {
        long v = val(r, i);
        e = op == MPI_SUM ? e + v : op == MPI_MAX ? (v > e ? v : e)
          : op == MPI_MIN ? (v < e ? v : e) : op == MPI_BXOR ? (e ^ v) : e * (v % 2 + 1);
    }
    return e;
}

static void reductions(MPI_Comm comm, const char *cn)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Op ops[] = { MPI_SUM, MPI_MAX, MPI_MIN, MPI_BXOR };
    for (unsigned ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++) {
        const struct ty *t = &types[ti];
        for (unsigned oi = 0; oi < 4; oi++) {
            MPI_Op op = ops[oi];
            if (op == MPI_BXOR && t->kind >= 3) {
                continue;
            }
            for (int ci = 0; ci < NCOUNTS; ci++) {
                int c = counts[ci], root = (ci + oi) % n;
                char *s = malloc(t->sz * c * n), *r = malloc(t->sz * c * n);
                for (int i = 0; i < c * n; i++) {
                    put(t, s, i, val(me, i));
                }
                /* allreduce, then in place */
                MPI_Allreduce(s, r, c, t->dt, op, comm);
                for (int i = 0; i < c; i++)
                    CHECK(get(t, r, i) == expect(op, n, i), "%s allreduce %s op %u c=%d i=%d: %ld, not %ld",
                          cn, t->name, oi, c, i, get(t, r, i), expect(op, n, i));
                memcpy(r, s, t->sz * c);
                MPI_Allreduce(MPI_IN_PLACE, r, c, t->dt, op, comm);
                for (int i = 0; i < c; i++)
                    CHECK(get(t, r, i) == expect(op, n, i), "%s allreduce in place %s op %u c=%d i=%d: %ld, not %ld",
                          cn, t->name, oi, c, i, get(t, r, i), expect(op, n, i));
                /* reduce, in place at the root */
                if (me == root) {
                    memcpy(r, s, t->sz * c);
                    MPI_Reduce(MPI_IN_PLACE, r, c, t->dt, op, root, comm);
                    for (int i = 0; i < c; i++)
                        CHECK(get(t, r, i) == expect(op, n, i), "%s reduce %s op %u c=%d i=%d: %ld, not %ld",
                              cn, t->name, oi, c, i, get(t, r, i), expect(op, n, i));
                } else {
                    MPI_Reduce(s, NULL, c, t->dt, op, root, comm);
                }
                /* reduce_scatter_block: block me of the reduction of c*n */
                MPI_Reduce_scatter_block(s, r, c, t->dt, op, comm);
                for (int i = 0; i < c; i++)
                    CHECK(get(t, r, i) == expect(op, n, me * c + i), "%s rsb %s op %u c=%d i=%d: %ld, not %ld",
                          cn, t->name, oi, c, i, get(t, r, i), expect(op, n, me * c + i));
                memcpy(r, s, t->sz * c * n);
                MPI_Reduce_scatter_block(MPI_IN_PLACE, r, c, t->dt, op, comm);
                for (int i = 0; i < c; i++)
                    CHECK(get(t, r, i) == expect(op, n, me * c + i), "%s rsb in place %s op %u c=%d i=%d: %ld, not %ld",
                          cn, t->name, oi, c, i, get(t, r, i), expect(op, n, me * c + i));
                free(s);
                free(r);
            }
        }
    }
    /* One key (allreduce, MPI_INT, MPI_SUM, <= 8 bytes) called 48 times:
     * coll/dimmnet's run-time choice decides it at its 44th call (keys are
     * (operation, datatype, op, size class)), so the switch from the
     * trials to the kept candidate happens mid-stream, every result checked. */
    for (int k = 0; k < 48; k++) {
        int x = me + k, y = -1;
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, comm);
        CHECK(y == n * (n - 1) / 2 + n * k, "%s choice allreduce %d: %d", cn, k, y);
    }
    /* PROD on int (small factors: no overflow on 64 ranks... keep 1 or 2) */
    int pin[5], pout[5];
    for (int i = 0; i < 5; i++) pin[i] = (int) (val(me, i) % 2 + 1);
    MPI_Allreduce(pin, pout, 5, MPI_INT, MPI_PROD, comm);
    for (int i = 0; i < 5; i++) CHECK(pout[i] == expect(MPI_PROD, n, i), "%s prod", cn);
}

static void movement(MPI_Comm comm, const char *cn)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int c = counts[ci], root = ci % n;
        int *b = malloc(sizeof(int) * c * n), *s = malloc(sizeof(int) * c * n);
        for (int i = 0; i < c; i++) b[i] = me == root ? (int) val(root, i) : -1;
        MPI_Bcast(b, c, MPI_INT, root, comm);
        for (int i = 0; i < c; i++) CHECK(b[i] == val(root, i), "%s bcast c=%d", cn, c);
        for (int i = 0; i < c; i++) s[i] = (int) val(me, i);
        MPI_Allgather(s, c, MPI_INT, b, c, MPI_INT, comm);
        for (int r = 0; r < n; r++) for (int i = 0; i < c; i++)
            CHECK(b[r * c + i] == val(r, i), "%s allgather c=%d", cn, c);
        for (int i = 0; i < c * n; i++) b[i] = -1;
        for (int i = 0; i < c; i++) b[me * c + i] = (int) val(me, i);
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, c, MPI_INT, comm);
        for (int r = 0; r < n; r++) for (int i = 0; i < c; i++)
            CHECK(b[r * c + i] == val(r, i), "%s allgather in place c=%d", cn, c);
        /* alltoall: element i of block j from rank r is val(r, j * c + i) */
        for (int i = 0; i < c * n; i++) s[i] = (int) val(me, i);
        MPI_Alltoall(s, c, MPI_INT, b, c, MPI_INT, comm);
        for (int r = 0; r < n; r++) for (int i = 0; i < c; i++)
            CHECK(b[r * c + i] == val(r, me * c + i), "%s alltoall c=%d", cn, c);
        memcpy(b, s, sizeof(int) * c * n);
        MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, c, MPI_INT, comm);
        for (int r = 0; r < n; r++) for (int i = 0; i < c; i++)
            CHECK(b[r * c + i] == val(r, me * c + i), "%s alltoall in place c=%d", cn, c);
        free(b);
        free(s);
    }
    /* A strided type on one side, contiguous bytes on the other. */
    MPI_Datatype vec;
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int v[8], w[8];
    for (int i = 0; i < 8; i++) v[i] = me == 0 ? 100 + i : -1;
    if (me == 0) {
        MPI_Bcast(v, 1, vec, 0, comm);
    } else {
        MPI_Bcast(w, 4, MPI_INT, 0, comm);
        for (int i = 0; i < 4; i++) CHECK(w[i] == 100 + 2 * i, "%s bcast vector", cn);
    }
    MPI_Type_free(&vec);
    MPI_Barrier(comm);
    checked++;
}

/* Several non-blocking collectives in flight at once, then their results. */
static void nonblocking(MPI_Comm comm, const char *cn)
{
    int me, n, c = 1000;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Request rq[7];
    double *ds = malloc(sizeof(double) * c), *dr = malloc(sizeof(double) * c);
    double *dred = malloc(sizeof(double) * c);
    long *ls = malloc(sizeof(long) * c * n), *lr = malloc(sizeof(long) * c);
    int *bc = malloc(sizeof(int) * c), *ag = malloc(sizeof(int) * c * n);
    int *as = malloc(sizeof(int) * n), *ar = malloc(sizeof(int) * n);
    for (int i = 0; i < c; i++) { ds[i] = (double) val(me, i); bc[i] = me == 1 % n ? (int) val(9, i) : 0; }
    for (int i = 0; i < c * n; i++) ls[i] = val(me, i);
    for (int j = 0; j < n; j++) as[j] = me * 100 + j;
    MPI_Iallreduce(ds, dr, c, MPI_DOUBLE, MPI_SUM, comm, &rq[0]);
    MPI_Ireduce_scatter_block(ls, lr, c, MPI_LONG, MPI_MAX, comm, &rq[1]);
    MPI_Ibcast(bc, c, MPI_INT, 1 % n, comm, &rq[2]);
    MPI_Iallgather(ds, 0, MPI_INT, ag, 0, MPI_INT, comm, &rq[3]);  /* count 0 */
    MPI_Ialltoall(as, 1, MPI_INT, ar, 1, MPI_INT, comm, &rq[4]);
    MPI_Ireduce(ds, dred, c, MPI_DOUBLE, MPI_MAX, 0, comm, &rq[5]);
    MPI_Ibarrier(comm, &rq[6]);
    MPI_Waitall(7, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < c; i++) {
        CHECK((long) dr[i] == expect(MPI_SUM, n, i), "%s iallreduce", cn);
        CHECK(lr[i] == expect(MPI_MAX, n, me * c + i), "%s ireduce_scatter_block", cn);
        CHECK(bc[i] == val(9, i), "%s ibcast", cn);
        if (me == 0) CHECK((long) dred[i] == expect(MPI_MAX, n, i), "%s ireduce", cn);
    }
    for (int j = 0; j < n; j++) CHECK(ar[j] == j * 100 + me, "%s ialltoall", cn);
    int one = (int) val(me, 5);
    MPI_Iallgather(&one, 1, MPI_INT, ag, 1, MPI_INT, comm, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    for (int r = 0; r < n; r++) CHECK(ag[r] == val(r, 5), "%s iallgather", cn);
    free(ds); free(dr); free(dred); free(ls); free(lr); free(bc); free(ag); free(as); free(ar);
}

/* A communicator whose first collective is non-blocking, with a message
 * that rank 0 sends only after its MPI_Ibarrier returned and rank 1
 * receives before entering its own: legal MPI, and a hang if starting the
 * collective waited for every rank (the engine's join is non-blocking:
 * the call is kept until it is done, and the engine serves it; the test
 * script checks every non-blocking call was the engine's). Then an
 * MPI_Iallreduce on the joined communicator completed by MPI_Test alone
 * (the component's progress callback). */
static void first_nonblocking(MPI_Comm parent)
{
    MPI_Comm comm;
    MPI_Request rq;
    int me, n, token = 0, done = 0;
    MPI_Comm_dup(parent, &comm);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    if (me == 1) {
        MPI_Recv(&token, 1, MPI_INT, 0, 7, comm, MPI_STATUS_IGNORE);
    }
    MPI_Ibarrier(comm, &rq);
    if (me == 0) {
        token = 4711;
        MPI_Send(&token, 1, MPI_INT, 1, 7, comm);
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (me == 1) CHECK(token == 4711, "first ibarrier's message");
    MPI_Barrier(comm);                                  /* joins */
    long in = val(me, 3), out = -1;
    MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, comm, &rq);
    while (!done) {
        MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    }
    CHECK(out == expect(MPI_SUM, n, 3), "iallreduce completed by MPI_Test");
    MPI_Comm_free(&comm);
}

/* A communicator that only ever has non-blocking collectives, three in
 * flight from its first: all kept while the join is pending, then
 * started in their order, every result checked. Then one whose only
 * collective is of nothing, freed with its join pending. */
static void only_nonblocking(MPI_Comm parent)
{
    MPI_Comm comm;
    MPI_Request rq[3];
    int me, n, b = -1;
    long in, sum = -1;
    MPI_Comm_dup(parent, &comm);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    in = val(me, 4);
    b = me == n - 1 ? 4242 : -1;
    MPI_Iallreduce(&in, &sum, 1, MPI_LONG, MPI_SUM, comm, &rq[0]);
    MPI_Ibcast(&b, 1, MPI_INT, n - 1, comm, &rq[1]);
    MPI_Ibarrier(comm, &rq[2]);
    MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
    CHECK(sum == expect(MPI_SUM, n, 4), "only non-blocking: iallreduce %ld", sum);
    CHECK(b == 4242, "only non-blocking: ibcast %d", b);
    MPI_Comm_free(&comm);
    /* Its only collective one of nothing: the join it began is still
     * pending when the communicator is freed (its slot given back). */
    MPI_Comm_dup(parent, &comm);
    MPI_Iallreduce(&in, &sum, 0, MPI_LONG, MPI_SUM, comm, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Comm_free(&comm);
    checked++;
}

/* Point-to-point traffic across a blocking collective: rank 0 posts a
 * receive of a long message from rank 1 and enters MPI_Allreduce; rank 1
 * sends it with MPI_Send first and only then enters the allreduce. (Over
 * this provider a long message finishes without its receiver's turns,
 * tried: the wait's occasional opal_progress is not what this needs.) */
static void progress_in_wait(MPI_Comm comm)
{
    enum { LONG = 1 << 20 };
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    unsigned char *b = malloc(LONG);
    MPI_Request rq = MPI_REQUEST_NULL;
    if (!b) MPI_Abort(comm, 2);
    for (int i = 0; i < LONG; i++) b[i] = me == 1 ? (unsigned char)(i * 13 + 5) : 0;
    if (me == 0) MPI_Irecv(b, LONG, MPI_BYTE, 1, 9, comm, &rq);
    if (me == 1) MPI_Send(b, LONG, MPI_BYTE, 0, 9, comm);
    long in = val(me, 5), out = -1;
    MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, comm);
    CHECK(out == expect(MPI_SUM, n, 5), "allreduce while a long message moves");
    if (me == 0) {
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        int wrong = 0;
        for (int i = 0; i < LONG; i++) wrong += b[i] != (unsigned char)(i * 13 + 5);
        CHECK(wrong == 0, "long message received during a blocking collective");
    }
    free(b);
}

/* mpi_coll_engine --exhaust: more communicators than the engine has
 * slots (8 a process), each one's first collective non-blocking, so each
 * joins by the non-blocking join; the joins past the slots fail on every
 * rank, and the calls kept for them go to Open MPI's own after all. Then
 * a blocking call on each. Every result checked. */
static void exhaust(void)
{
    enum { K = 11 };
    MPI_Comm cs[K];
    MPI_Request rq[K];
    long in[K], out[K];
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int k = 0; k < K; k++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &cs[k]);
        in[k] = val(me, k);
        out[k] = -1;
        MPI_Iallreduce(&in[k], &out[k], 1, MPI_LONG, MPI_SUM, cs[k], &rq[k]);
    }
    MPI_Waitall(K, rq, MPI_STATUSES_IGNORE);
    for (int k = 0; k < K; k++) {
        CHECK(out[k] == expect(MPI_SUM, n, k), "exhaust: communicator %d: iallreduce %ld", k,
              out[k]);
        long x = val(me, k + 1), y = -1;
        MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_MAX, cs[k]);
        CHECK(y == expect(MPI_MAX, n, k + 1), "exhaust: communicator %d: allreduce %ld", k, y);
    }
    for (int k = 0; k < K; k++) {
        MPI_Comm_free(&cs[k]);
    }
}

static void all(MPI_Comm comm, const char *cn)
{
    MPI_Barrier(comm);
    reductions(comm, cn);
    movement(comm, cn);
    nonblocking(comm, cn);
}

int main(int argc, char **argv)
{
    int me, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc > 1 && 0 == strcmp(argv[1], "--exhaust")) {
        exhaust();
        printf("mpi_coll_engine: rank %d of %d: %ld results checked: %s\n", me, n, checked,
               bad ? "FAILED" : "ok");
        MPI_Finalize();
        return bad ? 1 : 0;
    }
    MPI_Comm dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &split);
    all(MPI_COMM_WORLD, "world");
    first_nonblocking(MPI_COMM_WORLD);
    only_nonblocking(MPI_COMM_WORLD);
    progress_in_wait(MPI_COMM_WORLD);
    all(dup, "dup");
    int ssize;
    MPI_Comm_size(split, &ssize);
    if (ssize > 1) {
        all(split, "split");
    }
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    printf("mpi_coll_engine: rank %d of %d: %ld results checked: %s\n", me, n, checked,
           bad ? "FAILED" : "ok");
    fflush(stdout);
    MPI_Finalize();
    return bad ? 1 : 0;
}
