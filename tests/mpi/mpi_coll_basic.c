/*
 * An unmodified MPI program (Open MPI's mpicc) for the coll component
 * coll/dimmnet (tests/mpi/test_coll_component.sh): on MPI_COMM_WORLD, a
 * duplicate of it and an MPI_Comm_split (even and odd ranks), ROUNDS times
 * each, every collective the component takes, blocking (MPI_Barrier,
 * MPI_Bcast of 64 KiB, MPI_Reduce and MPI_Allreduce of int and double sums,
 * MPI_Allgather, MPI_Alltoall, MPI_Reduce_scatter_block, MPI_Reduce_scatter)
 * and non-blocking (MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce, MPI_Iallreduce,
 * MPI_Iallgather, MPI_Ialltoall, MPI_Ireduce_scatter_block), every result
 * checked. Prints one line a rank,
 *   mpi_coll_basic: rank R of N: C communicators, A allreduce calls, B results checked: ok
 * (A: the MPI_Allreduce calls it made, B: the results compared) and exits
 * 1 on any wrong byte.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 3, BCAST = 64 * 1024, N = 257, MAXP = 64 };

static int wrank, bad;
static long checked;

#define EXPECT(cond, ...)                                                     \
    do {                                                                      \
        checked++;                                                            \
        if (!(cond)) {                                                        \
            if (bad++ < 20) {                                                 \
                fprintf(stderr, "mpi_coll_basic: rank %d: ", wrank);          \
                fprintf(stderr, __VA_ARGS__);                                 \
                fputc('\n', stderr);                                          \
            }                                                                 \
        }                                                                     \
    } while (0)

/* Values whose sums are exact in any order (doubles included). */
static int ival(int rank, int i, int round) { return rank * 1000 + i * 3 + round; }
static double dval(int rank, int i, int round) { return rank * 0.5 + i * 0.25 + round; }
static int isum(int size, int i, int round)
{
    return 1000 * size * (size - 1) / 2 + size * (i * 3 + round);
}
static double dsum(int size, int i, int round)
{
    return 0.5 * size * (size - 1) / 2 + size * (i * 0.25 + round);
}
static unsigned char bbyte(int root, int i, int round)
{
    return (unsigned char) (i * 7 + root * 31 + round * 13 + 1);
}

static int allreduce_calls;

static void wait1(MPI_Request *r)
{
    MPI_Wait(r, MPI_STATUS_IGNORE);
}

static void run(MPI_Comm comm, const char *name, int round, int nonblocking)
{
    static unsigned char bbuf[BCAST];
    static int isb[N], irb[N];
    static double dsb[N], drb[N];
    static int ga[MAXP * 4], ta_s[MAXP * 2], ta_r[MAXP * 2];
    static int rs_s[MAXP * 3], rs_r[MAXP * 3], rcounts[MAXP];
    const char *how = nonblocking ? "non-blocking" : "blocking";
    MPI_Request req;
    int rank, size, root, i, p;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    root = round % size;

    /* barrier */
    if (nonblocking) {
        MPI_Ibarrier(comm, &req);
        wait1(&req);
    } else {
        MPI_Barrier(comm);
    }

    /* bcast of 64 KiB from root */
    for (i = 0; i < BCAST; i++) {
        bbuf[i] = rank == root ? bbyte(root, i, round) : 0;
    }
    if (nonblocking) {
        MPI_Ibcast(bbuf, BCAST, MPI_BYTE, root, comm, &req);
        wait1(&req);
    } else {
        MPI_Bcast(bbuf, BCAST, MPI_BYTE, root, comm);
    }
    for (i = 0; i < BCAST; i++) {
        if (bbuf[i] != bbyte(root, i, round)) {
            break;
        }
    }
    EXPECT(i == BCAST, "%s %s bcast round %d: byte %d wrong", name, how, round, i);

    /* reduce, int and double sums, to root */
    for (i = 0; i < N; i++) {
        isb[i] = ival(rank, i, round);
        dsb[i] = dval(rank, i, round);
        irb[i] = -1;
        drb[i] = -1;
    }
    if (nonblocking) {
        MPI_Ireduce(isb, irb, N, MPI_INT, MPI_SUM, root, comm, &req);
        wait1(&req);
        MPI_Ireduce(dsb, drb, N, MPI_DOUBLE, MPI_SUM, root, comm, &req);
        wait1(&req);
    } else {
        MPI_Reduce(isb, irb, N, MPI_INT, MPI_SUM, root, comm);
        MPI_Reduce(dsb, drb, N, MPI_DOUBLE, MPI_SUM, root, comm);
    }
    if (rank == root) {
        for (i = 0; i < N; i++) {
            EXPECT(irb[i] == isum(size, i, round), "%s %s reduce int [%d] %d, want %d",
                   name, how, i, irb[i], isum(size, i, round));
            EXPECT(drb[i] == dsum(size, i, round), "%s %s reduce double [%d] %g, want %g",
                   name, how, i, drb[i], dsum(size, i, round));
        }
    }

    /* allreduce, int and double sums */
    for (i = 0; i < N; i++) {
        irb[i] = -1;
        drb[i] = -1;
    }
    if (nonblocking) {
        MPI_Iallreduce(isb, irb, N, MPI_INT, MPI_SUM, comm, &req);
        wait1(&req);
        MPI_Iallreduce(dsb, drb, N, MPI_DOUBLE, MPI_SUM, comm, &req);
        wait1(&req);
    } else {
        MPI_Allreduce(isb, irb, N, MPI_INT, MPI_SUM, comm);
        MPI_Allreduce(dsb, drb, N, MPI_DOUBLE, MPI_SUM, comm);
        allreduce_calls += 2;
    }
    for (i = 0; i < N; i++) {
        EXPECT(irb[i] == isum(size, i, round), "%s %s allreduce int [%d] %d, want %d",
               name, how, i, irb[i], isum(size, i, round));
        EXPECT(drb[i] == dsum(size, i, round), "%s %s allreduce double [%d] %g, want %g",
               name, how, i, drb[i], dsum(size, i, round));
    }

    /* allgather: 4 ints a rank */
    int mine[4];
    for (i = 0; i < 4; i++) {
        mine[i] = ival(rank, i, round);
    }
    memset(ga, 0xff, sizeof(ga));
    if (nonblocking) {
        MPI_Iallgather(mine, 4, MPI_INT, ga, 4, MPI_INT, comm, &req);
        wait1(&req);
    } else {
        MPI_Allgather(mine, 4, MPI_INT, ga, 4, MPI_INT, comm);
    }
    for (p = 0; p < size; p++) {
        for (i = 0; i < 4; i++) {
            EXPECT(ga[p * 4 + i] == ival(p, i, round), "%s %s allgather from %d [%d]: %d",
                   name, how, p, i, ga[p * 4 + i]);
        }
    }

    /* alltoall: 2 ints to each rank, naming sender and receiver */
    for (p = 0; p < size; p++) {
        for (i = 0; i < 2; i++) {
            ta_s[p * 2 + i] = rank * 10000 + p * 10 + i + round * 1000000;
        }
    }
    memset(ta_r, 0xff, sizeof(ta_r));
    if (nonblocking) {
        MPI_Ialltoall(ta_s, 2, MPI_INT, ta_r, 2, MPI_INT, comm, &req);
        wait1(&req);
    } else {
        MPI_Alltoall(ta_s, 2, MPI_INT, ta_r, 2, MPI_INT, comm);
    }
    for (p = 0; p < size; p++) {
        for (i = 0; i < 2; i++) {
            EXPECT(ta_r[p * 2 + i] == p * 10000 + rank * 10 + i + round * 1000000,
                   "%s %s alltoall from %d [%d]: %d", name, how, p, i, ta_r[p * 2 + i]);
        }
    }

    /* reduce_scatter_block: 3 ints a rank */
    for (i = 0; i < size * 3; i++) {
        rs_s[i] = ival(rank, i, round);
    }
    memset(rs_r, 0xff, sizeof(rs_r));
    if (nonblocking) {
        MPI_Ireduce_scatter_block(rs_s, rs_r, 3, MPI_INT, MPI_SUM, comm, &req);
        wait1(&req);
    } else {
        MPI_Reduce_scatter_block(rs_s, rs_r, 3, MPI_INT, MPI_SUM, comm);
    }
    for (i = 0; i < 3; i++) {
        EXPECT(rs_r[i] == isum(size, rank * 3 + i, round),
               "%s %s reduce_scatter_block [%d]: %d, want %d", name, how, i, rs_r[i],
               isum(size, rank * 3 + i, round));
    }

    /* reduce_scatter (blocking only; rank p gets p % 3 + 1 ints) */
    if (!nonblocking) {
        int off = 0, total = 0;
        for (p = 0; p < size; p++) {
            rcounts[p] = p % 3 + 1;
            if (p < rank) {
                off += rcounts[p];
            }
            total += rcounts[p];
        }
        for (i = 0; i < total; i++) {
            rs_s[i] = ival(rank, i, round);
        }
        memset(rs_r, 0xff, sizeof(rs_r));
        MPI_Reduce_scatter(rs_s, rs_r, rcounts, MPI_INT, MPI_SUM, comm);
        for (i = 0; i < rcounts[rank]; i++) {
            EXPECT(rs_r[i] == isum(size, off + i, round), "%s reduce_scatter [%d]: %d, want %d",
                   name, i, rs_r[i], isum(size, off + i, round));
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Comm dup, split;
    int size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP) {
        if (wrank == 0) {
            fprintf(stderr, "mpi_coll_basic: at most %d ranks\n", MAXP);
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &split);

    for (int round = 0; round < ROUNDS; round++) {
        for (int nb = 0; nb < 2; nb++) {
            run(MPI_COMM_WORLD, "world", round, nb);
            run(dup, "dup", round, nb);
            run(split, "split", round, nb);
        }
    }

    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    if (bad) {
        fprintf(stderr, "mpi_coll_basic: rank %d of %d: %d wrong results\n", wrank, size, bad);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("mpi_coll_basic: rank %d of %d: 3 communicators, %d allreduce calls, "
           "%ld results checked: ok\n", wrank, size, allreduce_calls, checked);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
