/*
 * What bench/measure_charges.py runs under callgrind to count the host
 * instructions of each path the model charges (issue 38 item 2): Open
 * MPI's pml cm and osc rdma over btl ofi, the provider and the shim, on two
 * boards in deterministic modeled time. Not a test, not a benchmark: it
 * prints nothing but its phases' names. Each phase ends with a callgrind
 * dump named after it (CALLGRIND_DUMP_STATS_AT), so a dump holds exactly
 * that phase's instructions; the set-up between phases (a barrier) goes
 * into dumps named "-", which the script ignores. Outside valgrind the
 * client requests do nothing.
 *
 * Phases (N operations each; rank 0 against rank 1):
 *   idle      rank 0 tests an unmatched receive IDLE times, then sends;
 *             rank 1 waits in MPI_Recv meanwhile (empty turns), answers
 *   irecv     rank 1 posts N receives (MPI_Irecv, 8 B)
 *   isend     rank 0 posts N sends into them (MPI_Isend, 8 B)
 *   waitall   both complete them (turns and completions)
 *   pingpong  N blocking round trips of 8 B (MPI_Send, MPI_Recv)
 *   put get acc fop   rank 0: N of MPI_Put, MPI_Get (8 B), MPI_Accumulate
 *             (MPI_SUM, int64), MPI_Fetch_and_op (MPI_SUM, int64), no flush
 *   flush-put flush-get flush-acc flush-fop   then one MPI_Win_flush
 *   put1      N times one MPI_Put and its MPI_Win_flush
 *
 *   dimmnet-cluster -n 2 --mpi --deterministic -- valgrind --tool=callgrind ... charges_mpi [N [IDLE]]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/callgrind.h>

#define MAX_N 64

static int rank;

/* The end of a phase: its dump. */
static void phase(const char *name)
{
    CALLGRIND_DUMP_STATS_AT(name);
    if (rank == 0 && name[0] != '-') {
        printf("charges_mpi: phase %s\n", name);
        fflush(stdout);
    }
}

/* Both ranks at the start of the next phase, the barrier's cost in "-". */
static void between(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    phase("-");
}

static void idle(int idle_turns)
{
    int64_t x = 0, y = 0;
    MPI_Request rq;
    int done = 0;

    if (rank == 0) {
        MPI_Irecv(&y, 1, MPI_INT64_T, 1, 2, MPI_COMM_WORLD, &rq);
        for (int i = 0; i < idle_turns; i++) {
            MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
        }
        MPI_Send(&x, 1, MPI_INT64_T, 1, 1, MPI_COMM_WORLD);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&y, 1, MPI_INT64_T, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT64_T, 0, 2, MPI_COMM_WORLD);
    }
    phase("idle");
}

static void two_sided(int n)
{
    static int64_t buf[MAX_N];
    MPI_Request rq[MAX_N];
    int64_t x = 0;

    if (rank == 1) {
        for (int i = 0; i < n; i++) {
            MPI_Irecv(&buf[i], 1, MPI_INT64_T, 0, 3, MPI_COMM_WORLD, &rq[i]);
        }
    }
    phase("irecv");
    between();
    if (rank == 0) {
        for (int i = 0; i < n; i++) {
            MPI_Isend(&buf[i], 1, MPI_INT64_T, 1, 3, MPI_COMM_WORLD, &rq[i]);
        }
    }
    phase("isend");
    MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
    phase("waitall");
    between();
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(&x, 1, MPI_INT64_T, 1, 4, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_INT64_T, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&x, 1, MPI_INT64_T, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_INT64_T, 0, 4, MPI_COMM_WORLD);
        }
    }
    phase("pingpong");
}

enum { PUT, GET, ACC, FOP };

static void rma_op(MPI_Win win, int kind, int i)
{
    static int64_t buf[MAX_N], old[MAX_N];
    int64_t one = 1;

    switch (kind) {
    case PUT:
        MPI_Put(&buf[i], 8, MPI_BYTE, 1, 8 * i, 8, MPI_BYTE, win);
        break;
    case GET:
        MPI_Get(&buf[i], 8, MPI_BYTE, 1, 8 * i, 8, MPI_BYTE, win);
        break;
    case ACC:
        MPI_Accumulate(&one, 1, MPI_INT64_T, 1, 1024 + 8 * i, 1, MPI_INT64_T, MPI_SUM,
                       win);
        break;
    default:
        MPI_Fetch_and_op(&one, &old[i], MPI_INT64_T, 1, 2048 + 8 * i, MPI_SUM, win);
        break;
    }
}

static void one_sided(MPI_Win win, int n)
{
    static const char *const names[][2] = {
        { "put", "flush-put" }, { "get", "flush-get" },
        { "acc", "flush-acc" }, { "fop", "flush-fop" },
    };

    for (int kind = PUT; kind <= FOP; kind++) {
        between();
        if (rank == 0) {
            for (int i = 0; i < n; i++) {
                rma_op(win, kind, i);
            }
        }
        phase(names[kind][0]);
        if (rank == 0) {
            MPI_Win_flush(1, win);
        }
        phase(names[kind][1]);
    }
    between();
    if (rank == 0) {
        for (int i = 0; i < n; i++) {
            rma_op(win, PUT, i);
            MPI_Win_flush(1, win);
        }
    }
    phase("put1");
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16, idle_turns = argc > 2 ? atoi(argv[2]) : 2000;
    int64_t *base;
    MPI_Win win;

    if (n < 1 || n > MAX_N || idle_turns < 1) {
        fprintf(stderr, "usage: charges_mpi [N (1..%d) [IDLE (>= 1)]]\n", MAX_N);
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(1 << 16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    /* Warm-up: every phase once (first registrations, free lists grown). */
    two_sided(n);
    one_sided(win, n);
    between();
    idle(idle_turns);
    between();
    two_sided(n);
    one_sided(win, n);
    between();
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
