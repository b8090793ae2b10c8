/*
 * MPI ping-pong between ranks 0 and 1, a benchmark (not a test): prints,
 * per size, round trips per second, half a round trip and bandwidth,
 * measured with MPI_Wtime, so in WALL-CLOCK time of the emulated cluster
 * (how fast a user's test suite runs), never modeled time.
 *   dimmnet-cluster -n 2 --mpi -- mpi_pingpong [ROUNDS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    static const int sizes[] = { 0, 8, 1024, 65536, 262144, 1 << 20 };
    int rank, rounds = argc > 1 ? atoi(argv[1]) : 2000;
    char *buf = malloc(1 << 20);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        int len = sizes[k], n = len >= 65536 ? rounds / 20 + 1 : rounds;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < n && rank < 2; i++) {
            if (rank == 0) {
                MPI_Send(buf, len, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, len, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, len, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, len, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        double t = MPI_Wtime() - t0;
        if (rank == 0) {
            printf("mpi_pingpong (wall clock): %8d B  %6d round trips  %9.0f round trips/s  "
                   "%9.1f us half round trip  %8.2f MB/s\n", len, n, n / t, t / n / 2 * 1e6,
                   2.0 * len * n / t / 1e6);
        }
    }
    MPI_Finalize();
    free(buf);
    return 0;
}
