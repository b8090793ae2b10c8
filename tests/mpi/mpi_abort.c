/*
 * An MPI job with a rank that aborts: every rank exchanges a message with
 * its neighbours and meets the others in a barrier, then rank 1 calls
 * MPI_Abort while the others wait in a receive from it that never comes.
 * Run by test_mpi_failing_job.sh, which checks that the launcher reports the
 * failure and leaves no process and no shared-memory file behind.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, v, got = -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    v = rank;
    MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 1, &got, 1, MPI_INT,
                 (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        fprintf(stderr, "rank 1: got %d, aborting the job\n", got);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Recv(&v, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d: a message from a failed rank?\n", rank);
    MPI_Finalize();
    return 1;
}
