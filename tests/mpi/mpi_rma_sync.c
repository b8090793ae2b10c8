/*
 * MPI-3 one-sided communication under every synchronization, as osc rdma
 * runs it over btl ofi over the dimmnet provider (issue 24 item 5): the
 * NIC's remote writes and reads carry MPI_Put and MPI_Get, its firmware's
 * atomics the accumulates. Every result is checked:
 *   - MPI_Win_create on malloc'd memory (its pages moved onto the card by
 *     the registration) and MPI_Win_allocate;
 *   - fence: MPI_Put to the right neighbour, MPI_Get from the left one,
 *     MPI_Accumulate (MPI_SUM of int64) from every rank into rank 0;
 *   - post-start-complete-wait with both neighbours: MPI_Put of a block;
 *   - lock exclusive: each rank, ITERS times, reads rank 0's counter with
 *     MPI_Get and writes it back plus one with MPI_Put under an exclusive
 *     lock: the lock alone makes the count exact;
 *   - lock shared with MPI_Win_flush: MPI_Fetch_and_op, MPI_Get_accumulate
 *     (MPI_SUM, MPI_NO_OP) and MPI_Compare_and_swap on rank 0: old values
 *     distinct, sums exact, exactly one swap.
 * Prints one line a rank:  mpi_rma_sync: rank R of N ok
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK (64 * 1024)
#define ITERS 20

static int fails;

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "rank %d: %s:%d: CHECK failed: %s\n", \
                                           rank, __FILE__, __LINE__, #c); fails++; } } while (0)

static int rank, n;

static uint8_t pattern(size_t i, int r)
{
    return (uint8_t)(i * 13 + (size_t)r * 29 + 5);
}

/* Window layout (bytes): [0, BLOCK) put by the left neighbour under fence;
 * [BLOCK, 2 BLOCK) read by the right one; [2 BLOCK, 3 BLOCK) put under
 * PSCW; then int64 cells: 0 accumulate, 1 exclusive counter, 2 fetch-add,
 * 3 get-accumulate, 4 compare-and-swap. */
#define CELL(k) (3 * BLOCK + 8 * (k))
#define WIN_SIZE (3 * BLOCK + 8 * 8)

/* Origin buffers: osc rdma may keep them registered (btl ofi) while a
 * window lives, and Open MPI refuses a free() of registered memory. */
static uint8_t *src, *got;

static void epochs(MPI_Win win, uint8_t *mem)
{
    int right = (rank + 1) % n, left = (rank + n - 1) % n;

    for (size_t i = 0; i < BLOCK; i++) {
        src[i] = pattern(i, rank);
        mem[BLOCK + i] = pattern(i, rank + 50);
    }
    memset(mem, 0, BLOCK);
    memset(mem + 2 * BLOCK, 0, BLOCK + 64);

    /* Fence: put, get, accumulate. */
    MPI_Win_fence(0, win);
    MPI_Put(src, BLOCK, MPI_BYTE, right, 0, BLOCK, MPI_BYTE, win);
    MPI_Get(got, BLOCK, MPI_BYTE, left, BLOCK, BLOCK, MPI_BYTE, win);
    int64_t mine = rank + 1;
    MPI_Accumulate(&mine, 1, MPI_INT64_T, 0, CELL(0), 1, MPI_INT64_T, MPI_SUM, win);
    MPI_Win_fence(0, win);
    for (size_t i = 0; i < BLOCK; i++) {
        if (mem[i] != pattern(i, left) || got[i] != pattern(i, left + 50)) {
            CHECK(!"fence put or get data differ");
            break;
        }
    }
    if (rank == 0) {
        CHECK(*(int64_t *)(mem + CELL(0)) == (int64_t)n * (n + 1) / 2);
    }

    /* Post-start-complete-wait with both neighbours (a ring). */
    MPI_Group world, peers;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int nb[2] = { left, right };
    MPI_Group_incl(world, n > 2 ? 2 : 1, nb, &peers);
    for (size_t i = 0; i < BLOCK; i++) {
        src[i] = pattern(i, rank + 100);
    }
    MPI_Win_post(peers, 0, win);
    MPI_Win_start(peers, 0, win);
    MPI_Put(src, BLOCK, MPI_BYTE, right, 2 * BLOCK, BLOCK, MPI_BYTE, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    for (size_t i = 0; i < BLOCK; i++) {
        if (mem[2 * BLOCK + i] != pattern(i, left + 100)) {
            CHECK(!"PSCW put data differ");
            break;
        }
    }
    MPI_Group_free(&peers);
    MPI_Group_free(&world);

    /* Lock exclusive: read-modify-write with plain Get and Put. */
    for (int k = 0; k < ITERS; k++) {
        int64_t v = -1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_INT64_T, 0, CELL(1), 1, MPI_INT64_T, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_INT64_T, 0, CELL(1), 1, MPI_INT64_T, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int64_t v = -1;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Get(&v, 1, MPI_INT64_T, 0, CELL(1), 1, MPI_INT64_T, win);
        MPI_Win_unlock(0, win);
        CHECK(v == (int64_t)n * ITERS);
    }

    /* Lock shared (lock_all) with flushes: atomics on rank 0. */
    MPI_Win_lock_all(0, win);
    int64_t one = 1, olds[ITERS], ga = -1, none = 0, cur = -1;
    for (int k = 0; k < ITERS; k++) {
        MPI_Fetch_and_op(&one, &olds[k], MPI_INT64_T, 0, CELL(2), MPI_SUM, win);
        MPI_Win_flush(0, win);
        if (k) {
            CHECK(olds[k] > olds[k - 1]);   /* ours only grow */
        }
    }
    int64_t add = rank + 1;
    MPI_Get_accumulate(&add, 1, MPI_INT64_T, &ga, 1, MPI_INT64_T, 0, CELL(3), 1,
                       MPI_INT64_T, MPI_SUM, win);
    MPI_Win_flush(0, win);
    CHECK(ga >= 0);
    int64_t cmp = 0, swap = rank + 1000, was = -1;
    MPI_Compare_and_swap(&swap, &cmp, &was, MPI_INT64_T, 0, CELL(4), win);
    MPI_Win_flush(0, win);
    MPI_Win_unlock_all(win);
    int swapped = was == 0, total = 0;
    MPI_Allreduce(&swapped, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Get_accumulate(&none, 1, MPI_INT64_T, &cur, 1, MPI_INT64_T, 0, CELL(2), 1,
                           MPI_INT64_T, MPI_NO_OP, win);
        MPI_Win_unlock(0, win);
        CHECK(cur == (int64_t)n * ITERS);
        CHECK(*(int64_t *)(mem + CELL(3)) == (int64_t)n * (n + 1) / 2);
        CHECK(*(int64_t *)(mem + CELL(4)) >= 1000);
    }
    /* The fetch-adds' old values: each one taken once among all ranks. */
    int64_t sum = 0, all = 0;
    for (int k = 0; k < ITERS; k++) {
        sum += olds[k];
    }
    MPI_Allreduce(&sum, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int64_t m = (int64_t)n * ITERS;
    CHECK(all == m * (m - 1) / 2);
}

int main(int argc, char **argv)
{
    MPI_Win win;
    uint8_t *mem;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    src = malloc(BLOCK);
    got = malloc(BLOCK);

    /* MPI_Win_create on memory of our own. */
    mem = malloc(WIN_SIZE);
    MPI_Win_create(mem, WIN_SIZE, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    epochs(win, mem);
    MPI_Win_free(&win);
    free(mem);

    /* MPI_Win_allocate: memory of MPI's. */
    MPI_Win_allocate(WIN_SIZE, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    epochs(win, mem);
    MPI_Win_free(&win);

    printf("mpi_rma_sync: rank %d of %d %s\n", rank, n, fails ? "FAILED" : "ok");
    MPI_Finalize();
    free(src);
    free(got);
    return fails ? 1 : 0;
}
