/*
 * MPI-3 one-sided communication and collectives on the emulated cluster,
 * for the check that no MPI byte bypasses the NIC (issue 24, item 0;
 * tests/mpi/test_no_bypass.sh reads the boards' counters afterwards).
 * Every rank: a fence epoch with a put of BIG bytes into its right
 * neighbour's window and a get of BIG bytes from its left neighbour's;
 * a passive epoch (lock_all) with MPI_Fetch_and_op and MPI_Win_flush on
 * rank 0's counter and MPI_Compare_and_swap; then MPI_Bcast, MPI_Allreduce
 * and MPI_Alltoall. Every byte is checked. Prints one line a rank:
 *   mpi_rma_coll: rank R of N ok
 *   mpi_rma_coll [rma|coll]   (default both)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (1 << 20)            /* bytes put and got by each rank */
#define COLL (256 * 1024)        /* bytes of each collective's buffer */

static int fails;

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
                                           __FILE__, __LINE__, #c); fails++; } } while (0)

static uint8_t pattern(size_t i, int rank)
{
    return (uint8_t)(i * 7 + (size_t)rank * 31 + 1);
}

int main(int argc, char **argv)
{
    int rank, n;
    uint8_t *win_mem;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int right = (rank + 1) % n, left = (rank + n - 1) % n;
    int rma = argc < 2 || !strcmp(argv[1], "rma"), coll = argc < 2 || !strcmp(argv[1], "coll");

    if (!rma) {
        goto collectives;
    }

    /* The window: BIG bytes put into by the left neighbour, BIG bytes it
     * reads from, and a counter (int64) at the end. */
    MPI_Win_allocate(2 * BIG + 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
    uint8_t *src = malloc(BIG), *got = malloc(BIG);
    for (size_t i = 0; i < BIG; i++) {
        src[i] = pattern(i, rank);
        win_mem[BIG + i] = pattern(i, rank + 100);
    }
    memset(win_mem, 0, BIG);
    *(int64_t *)(win_mem + 2 * BIG) = 0;

    MPI_Win_fence(0, win);
    MPI_Put(src, BIG, MPI_BYTE, right, 0, BIG, MPI_BYTE, win);
    MPI_Get(got, BIG, MPI_BYTE, left, BIG, BIG, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    for (size_t i = 0; i < BIG; i++) {
        if (win_mem[i] != pattern(i, left) || got[i] != pattern(i, left + 100)) {
            CHECK(!"put or get data differ");
            break;
        }
    }

    /* Passive target: every rank adds rank + 1 to rank 0's counter. */
    MPI_Win_lock_all(0, win);
    int64_t add = rank + 1, old = -1;
    MPI_Fetch_and_op(&add, &old, MPI_INT64_T, 0, 2 * BIG, MPI_SUM, win);
    MPI_Win_flush(0, win);
    CHECK(old >= 0);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        int64_t want = (int64_t)n * (n + 1) / 2, cur = 0;
        MPI_Get(&cur, 1, MPI_INT64_T, 0, 2 * BIG, 1, MPI_INT64_T, win);
        MPI_Win_unlock(0, win);
        CHECK(cur == want);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Compare and swap: exactly one rank swaps 0 into its rank + 1000. */
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        *(int64_t *)(win_mem + 2 * BIG) = 0;
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    int64_t cmp = 0, mine = rank + 1000, was = -1;
    MPI_Compare_and_swap(&mine, &cmp, &was, MPI_INT64_T, 0, 2 * BIG, win);
    MPI_Win_unlock(0, win);
    int swapped = was == 0, total = 0;
    MPI_Allreduce(&swapped, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == 1);
    MPI_Win_free(&win);
    free(src);
    free(got);
    if (!coll) {
        goto out;
    }
collectives:;
    uint8_t *b = malloc(COLL);
    for (size_t i = 0; i < COLL; i++) {
        b[i] = rank == n - 1 ? pattern(i, 77) : 0;
    }
    MPI_Bcast(b, COLL, MPI_BYTE, n - 1, MPI_COMM_WORLD);
    for (size_t i = 0; i < COLL; i++) {
        if (b[i] != pattern(i, 77)) {
            CHECK(!"bcast data differ");
            break;
        }
    }
    size_t words = COLL / sizeof(int64_t);
    int64_t *in = malloc(COLL), *sum = malloc(COLL);
    for (size_t i = 0; i < words; i++) {
        in[i] = (int64_t)(i * (size_t)(rank + 1));
    }
    MPI_Allreduce(in, sum, (int)words, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    for (size_t i = 0; i < words; i++) {
        if (sum[i] != (int64_t)(i * (size_t)n * (n + 1) / 2)) {
            CHECK(!"allreduce result differs");
            break;
        }
    }
    size_t each = COLL / (size_t)n;
    uint8_t *to = malloc(each * n), *from = malloc(each * n);
    for (int r = 0; r < n; r++) {
        memset(to + r * each, rank * 16 + r, each);
    }
    MPI_Alltoall(to, (int)each, MPI_BYTE, from, (int)each, MPI_BYTE, MPI_COMM_WORLD);
    for (int r = 0; r < n; r++) {
        CHECK(from[r * each] == (uint8_t)(r * 16 + rank) &&
              from[r * each + each - 1] == (uint8_t)(r * 16 + rank));
    }

    free(b); free(in); free(sum); free(to); free(from);
out:
    printf("mpi_rma_coll: rank %d of %d %s\n", rank, n, fails ? "FAILED" : "ok");
    MPI_Finalize();
    return fails ? 1 : 0;
}
