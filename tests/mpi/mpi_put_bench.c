/*
 * MPI-3 one-sided figures over osc rdma, btl ofi and the provider, a
 * benchmark (not a test): rank 0 against rank 1's window (MPI_Win_allocate,
 * 1 MiB) under MPI_Win_lock_all. Latencies: MPI_Put of 8 bytes then
 * MPI_Win_flush (the put is complete at the target), MPI_Get of 8 bytes
 * then MPI_Win_flush, MPI_Fetch_and_op (MPI_SUM, 8 bytes) then flush; put
 * bandwidth: N puts of a size, then one flush. Each in WALL-CLOCK time and,
 * under dimmnet-cluster --deterministic, MODELED time (fi_dimmnet_clock,
 * as mpi_pingpong finds it). Each figure after one untimed warm-up.
 *   dimmnet-cluster -n 2 --mpi [--deterministic] -- mpi_put_bench [ROUNDS]
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fi_dimmnet.h"

#define WIN (1 << 20)              /* with the origin's registrations (osc rdma registers each
                                    * put's source) it fits the pool; 4 MiB does not */

static fi_dimmnet_clock_fn clock_fn;

static uint64_t modeled_ns(void)
{
    uint64_t ns = 0;

    if (clock_fn) {
        clock_fn(&ns, NULL);
    }
    return ns;
}

enum { PUT, GET, FADD, PUTBW };

/* @n operations of @kind (@len bytes) from rank 0 to rank 1. */
static void run(MPI_Win win, int kind, char *buf, int len, int n)
{
    int64_t one = 1, old;

    for (int i = 0; i < n; i++) {
        switch (kind) {
        case PUT:
            MPI_Put(buf, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
            MPI_Win_flush(1, win);
            break;
        case GET:
            MPI_Get(buf, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
            MPI_Win_flush(1, win);
            break;
        case FADD:
            MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, 64, MPI_SUM, win);
            MPI_Win_flush(1, win);
            break;
        default:
            MPI_Put(buf, len, MPI_BYTE, 1, 0, len, MPI_BYTE, win);
            break;
        }
    }
    if (kind == PUTBW) {
        MPI_Win_flush(1, win);
    }
}

static void measure(MPI_Win win, const char *what, int kind, char *buf, int len, int n)
{
    run(win, kind, buf, len, 1);                 /* warm-up */
    double t0 = MPI_Wtime();
    uint64_t m0 = modeled_ns();
    run(win, kind, buf, len, n);
    double w = MPI_Wtime() - t0, m = (double)(modeled_ns() - m0) * 1e-9;

    if (kind == PUTBW) {
        printf("mpi_put_bench (wall clock): %-18s %8d B %5d ops %10.2f MB/s\n", what, len, n,
               (double)len * n / w / 1e6);
        if (clock_fn) {
            printf("mpi_put_bench (modeled):    %-18s %8d B %5d ops %10.2f MB/s\n", what, len,
                   n, (double)len * n / m / 1e6);
        }
    } else {
        printf("mpi_put_bench (wall clock): %-18s %8d B %5d ops %10.2f us\n", what, len, n,
               w / n * 1e6);
        if (clock_fn) {
            printf("mpi_put_bench (modeled):    %-18s %8d B %5d ops %10.2f us\n", what, len, n,
                   m / n * 1e6);
        }
    }
}

int main(int argc, char **argv)
{
    static const int sizes[] = { 8, 512, 4096, 65536, 1 << 20 };
    int rank, rounds = argc > 1 ? atoi(argv[1]) : 50;
    char *base, *buf = malloc(WIN);
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    clock_fn = fi_dimmnet_modeled_clock();
    memset(buf, 0x5a, WIN);
    MPI_Win_allocate(WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(base, 0, WIN);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        measure(win, "put+flush latency", PUT, buf, 8, rounds);
        measure(win, "get+flush latency", GET, buf, 8, rounds);
        measure(win, "fetch-add latency", FADD, buf, 8, rounds);
        for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            int n = sizes[k] <= 65536 ? rounds : 4;
            measure(win, "put bandwidth", PUTBW, buf, sizes[k], n);
        }
        if (!clock_fn) {
            printf("mpi_put_bench: no modeled figures (run under dimmnet-cluster "
                   "--deterministic)\n");
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    free(buf);
    return 0;
}
