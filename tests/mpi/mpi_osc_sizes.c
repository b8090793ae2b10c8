/*
 * One-sided MPI at OSU's default sizes (issue 36 item 9): what
 * osu_put_latency and osu_get_latency (OSU 5.3) do by default, with every
 * byte checked. Both ranks allocate a 4 MiB window (MPI_Win_allocate) and
 * a 4 MiB origin buffer of ordinary memory; rank 0, under a shared lock of
 * rank 1's window, puts (then gets) 1 B .. 4 MiB, each followed by
 * MPI_Win_flush, a few times a size. Open MPI's osc rdma registers the
 * origin buffer for each operation (btl ofi asks for remote access too), so
 * with both windows on the card the provider's pool has no room for it:
 * those registrations are paged (docs/libfabric.md), where they used to be
 * refused and retried by osc rdma for ever. Exits 1 on any wrong byte.
 *
 *   mpi_osc_sizes [MAX_BYTES]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pattern(long i, long size, int round)
{
    return (unsigned char)(i * 7 + size * 3 + round);
}

int main(int argc, char **argv)
{
    long max = argc > 1 ? atol(argv[1]) : 1L << 22;
    int rank, size, bad = 0;
    unsigned char *win_base, *origin;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    origin = malloc((size_t)max);
    MPI_Win_allocate(max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_base, &win);
    for (int get = 0; get < 2; get++) {
        for (long n = 1; n <= max; n *= 2) {
            int iters = n >= (1L << 20) ? 3 : n >= (1L << 16) ? 10 : 50;
            double t0 = MPI_Wtime();

            /* The bytes the last operation of this size moves. */
            if (get && rank == 1) {
                for (long i = 0; i < n; i++) {
                    win_base[i] = pattern(i, n, 100);
                }
            }
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                for (int it = 0; it < iters; it++) {
                    if (get) {
                        memset(origin, 0, (size_t)n);
                        MPI_Get(origin, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, win);
                    } else {
                        for (long i = 0; i < n; i++) {
                            origin[i] = pattern(i, n, it);
                        }
                        MPI_Put(origin, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, win);
                    }
                    MPI_Win_flush(1, win);
                    if (get) {
                        for (long i = 0; i < n; i++) {
                            if (origin[i] != pattern(i, n, 100)) {
                                fprintf(stderr, "rank 0: get of %ld bytes: byte %ld differs\n",
                                        n, i);
                                bad++;
                                break;
                            }
                        }
                    }
                }
                MPI_Win_unlock(1, win);
                printf("mpi_osc_sizes: %s %ld bytes: %.1f us (wall-clock)\n", get ? "get" : "put",
                       n, (MPI_Wtime() - t0) * 1e6 / iters);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            if (!get && rank == 1) {
                for (long i = 0; i < n; i++) {
                    if (win_base[i] != pattern(i, n, iters - 1)) {
                        fprintf(stderr, "rank 1: put of %ld bytes: byte %ld differs\n", n, i);
                        bad++;
                        break;
                    }
                }
            }
        }
    }
    MPI_Win_free(&win);
    free(origin);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("mpi_osc_sizes: rank %d of %d: put and get 1 B .. %ld B with flush: %s\n", rank, size,
           max, all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
