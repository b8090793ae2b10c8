/*
 * An MPI job that loses a board: every rank exchanges a message with its
 * neighbours and meets the others in a barrier, then rank 1 kills its own
 * board's QEMU (DIMMNET_RUN_DIR/node1.pid, written by the launcher). Rank
 * 0, with MPI_ERRORS_RETURN, sends 4000 bytes to rank 1 (over the
 * provider's inject size: an injected send completes at once by
 * definition): MPI_Send must return an error (the provider's error
 * completion), not hang and not succeed; rank
 * 0 then aborts the job. Run by test_mpi_failing_job.sh, which checks the
 * launcher fails at once and leaves nothing behind.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "../common/board_kill.h"

int main(int argc, char **argv)
{
    static int big[1000];
    int rank, size, v, got = -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    v = rank;
    MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 1, &got, 1, MPI_INT,
                 (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        if (board_kill(1)) {
            exit(2);
        }
        fprintf(stderr, "rank 1: board gone\n");
    } else if (rank == 0) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0, rc;

        sleep(1);                       /* rank 1's board is gone by now */
        rc = MPI_Send(big, 1000, MPI_INT, 1, 5, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS) {
            printf("rank 0: MPI_Send to the lost rank succeeded?\n");
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
        MPI_Error_string(rc, text, &len);
        printf("rank 0: MPI_Send to the lost rank failed: %s\n", text);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Recv(&v, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d: a message from a failed rank?\n", rank);
    MPI_Finalize();
    return 1;
}
