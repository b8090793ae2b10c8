/*
 * An unmodified MPI program (Open MPI, built with mpicc) on the emulated
 * cluster, through dimmnet-cluster --mpi and the libfabric provider:
 * ping-pong between ranks 0 and 1 from 0 B to 60,000 B (the provider's
 * messages stop at 64 KiB so far) with the data checked; MPI_ANY_SOURCE
 * and MPI_ANY_TAG; many MPI_Isend/MPI_Irecv with MPI_Waitall, in order;
 * MPI_Barrier, MPI_Bcast, MPI_Allreduce, MPI_Alltoall. Exits 1 on any
 * wrong byte or count.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad;

#define EXPECT(cond)                                                          \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "rank %d: %s:%d: %s\n", rank, __FILE__, __LINE__, #cond); \
            bad++;                                                            \
        }                                                                     \
    } while (0)

int main(int argc, char **argv)
{
    static unsigned char buf[60000], rb[60000];
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Ping-pong 0 .. 60,000 bytes between ranks 0 and 1. */
    for (int len = 0; len <= 60000; len = len ? len * 3 : 1) {
        for (int i = 0; i < len; i++) {
            buf[i] = (unsigned char)(i * 7 + len);
        }
        memset(rb, 0, sizeof(rb));
        if (rank == 0) {
            MPI_Send(buf, len, MPI_BYTE, 1, len & 0x7fff, MPI_COMM_WORLD);
            MPI_Recv(rb, len, MPI_BYTE, 1, len & 0x7fff, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            EXPECT(memcmp(buf, rb, len) == 0);
        } else if (rank == 1) {
            MPI_Status st;
            int n;
            MPI_Recv(rb, len, MPI_BYTE, 0, len & 0x7fff, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_BYTE, &n);
            EXPECT(n == len);
            EXPECT(memcmp(buf, rb, len) == 0);
            MPI_Send(rb, len, MPI_BYTE, 0, len & 0x7fff, MPI_COMM_WORLD);
        }
    }
    /* Everyone sends rank 0 its rank; 0 takes them from any source, any tag. */
    if (rank == 0) {
        int seen = 0;
        for (int k = 1; k < size; k++) {
            int v;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (v != st.MPI_SOURCE || st.MPI_TAG != 100 + v) {
                fprintf(stderr, "rank 0: got %d from %d tag %d\n", v, st.MPI_SOURCE, st.MPI_TAG);
                bad++;
            }
            seen |= 1 << v;
        }
        EXPECT(seen == ((1 << size) - 2));
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
    }
    /* (Any source, any tag would take the next phase's messages too.) */
    MPI_Barrier(MPI_COMM_WORLD);
    /* 64 nonblocking messages each way between neighbours, in order. */
    {
        enum { N = 64 };
        int out[N], in[N], right = (rank + 1) % size, left = (rank + size - 1) % size;
        MPI_Request req[2 * N];
        for (int k = 0; k < N; k++) {
            out[k] = rank * 1000 + k;
            MPI_Irecv(&in[k], 1, MPI_INT, left, 7, MPI_COMM_WORLD, &req[k]);
        }
        for (int k = 0; k < N; k++) {
            MPI_Isend(&out[k], 1, MPI_INT, right, 7, MPI_COMM_WORLD, &req[N + k]);
        }
        MPI_Waitall(2 * N, req, MPI_STATUSES_IGNORE);
        for (int k = 0; k < N; k++) {
            EXPECT(in[k] == left * 1000 + k);   /* non-overtaking */
        }
    }
    /* Collectives. */
    MPI_Barrier(MPI_COMM_WORLD);
    int root_val = rank == 0 ? 4242 : 0;
    MPI_Bcast(&root_val, 1, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT(root_val == 4242);
    int one = rank + 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(sum == size * (size + 1) / 2);
    int *a2a_out = malloc(sizeof(int) * size), *a2a_in = malloc(sizeof(int) * size);
    for (int k = 0; k < size; k++) {
        a2a_out[k] = rank * 100 + k;
    }
    MPI_Alltoall(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD);
    for (int k = 0; k < size; k++) {
        EXPECT(a2a_in[k] == k * 100 + rank);
    }
    free(a2a_out);
    free(a2a_in);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d of %d: ping-pong 0..60000 B, any-source/any-tag, 64 Isend/Irecv in order, "
           "barrier, bcast, allreduce %d, alltoall: %s\n", rank, size, sum, bad ? "FAILED" : "ok");
    MPI_Finalize();
    return bad ? 1 : 0;
}
