/*
 * An unmodified MPI program (Open MPI, built with mpicc) on the emulated
 * cluster, through dimmnet-cluster --mpi and the libfabric provider:
 * ping-pong between ranks 0 and 1 from 0 B to 1 MiB with the data checked;
 * MPI_ANY_SOURCE and MPI_ANY_TAG; unexpected messages (short and long,
 * sent before their receives) taken out of order by tag; MPI_Probe,
 * MPI_Iprobe, MPI_Mprobe/MPI_Mrecv; many MPI_Isend/MPI_Irecv with
 * MPI_Waitall, in order; non-overtaking between a pair with sizes on both
 * sides of the provider's eager size; MPI_Barrier, MPI_Bcast,
 * MPI_Allreduce, MPI_Alltoall. Exits 1 on any wrong byte or count.
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
    enum { BIG = 1 << 20 };
    static unsigned char buf[BIG], rb[BIG];
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Ping-pong 0 B .. 1 MiB between ranks 0 and 1. */
    for (int len = 0; len <= BIG; len = len == BIG ? BIG + 1 : len * 3 > BIG ? BIG : len ? len * 3 : 1) {
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
    /* Unexpected: rank 1 sends rank 0 three short and one long message
     * before rank 0 receives; rank 0 takes them by tag, newest first. */
    if (rank == 1) {
        MPI_Request lr;
        for (int k = 0; k < 3; k++) {
            int v = 500 + k;
            MPI_Send(&v, 1, MPI_INT, 0, 60 + k, MPI_COMM_WORLD);
        }
        for (int i = 0; i < 300000; i++) {
            buf[i] = (unsigned char)(i * 13 + 1);
        }
        MPI_Isend(buf, 300000, MPI_BYTE, 0, 63, MPI_COMM_WORLD, &lr);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&lr, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Status st;
            int n;
            memset(rb, 0, 300000);
            MPI_Recv(rb, 300000, MPI_BYTE, 1, 63, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_BYTE, &n);
            EXPECT(n == 300000);
            int ok = 1;
            for (int i = 0; i < 300000; i++) {
                ok &= rb[i] == (unsigned char)(i * 13 + 1);
            }
            EXPECT(ok);
            for (int k = 2; k >= 0; k--) {
                int v = 0;
                MPI_Recv(&v, 1, MPI_INT, 1, 60 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                EXPECT(v == 500 + k);
            }
        }
    }
    /* Probes: rank 1 sends a long and a short message; rank 0 probes both
     * (MPI_Probe, MPI_Iprobe), takes the short one by MPI_Mprobe/MPI_Mrecv. */
    if (size > 1 && rank == 1) {
        for (int i = 0; i < 100000; i++) {
            buf[i] = (unsigned char)(i * 5 + 3);
        }
        MPI_Request pr;
        MPI_Isend(buf, 100000, MPI_BYTE, 0, 70, MPI_COMM_WORLD, &pr);
        MPI_Send(buf, 10, MPI_BYTE, 0, 71, MPI_COMM_WORLD);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
    } else if (rank == 0) {
        MPI_Status st;
        MPI_Message msg;
        int n, flag = 0;
        MPI_Probe(1, 70, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        EXPECT(n == 100000 && st.MPI_SOURCE == 1 && st.MPI_TAG == 70);
        while (!flag) {
            MPI_Iprobe(MPI_ANY_SOURCE, 71, MPI_COMM_WORLD, &flag, &st);
        }
        MPI_Get_count(&st, MPI_BYTE, &n);
        EXPECT(n == 10 && st.MPI_SOURCE == 1);
        MPI_Mprobe(1, 71, MPI_COMM_WORLD, &msg, &st);
        memset(rb, 0, 10);
        MPI_Mrecv(rb, 10, MPI_BYTE, &msg, &st);
        int ok = 1;
        for (int i = 0; i < 10; i++) {
            ok &= rb[i] == (unsigned char)(i * 5 + 3);
        }
        EXPECT(ok);
        MPI_Iprobe(1, 71, MPI_COMM_WORLD, &flag, &st);
        EXPECT(!flag);                          /* taken: gone */
        MPI_Recv(rb, 100000, MPI_BYTE, 1, 70, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        ok = n == 100000;
        for (int i = 0; i < 100000; i++) {
            ok &= rb[i] == (unsigned char)(i * 5 + 3);
        }
        EXPECT(ok);
    }
    /* Non-overtaking across the eager size: 24 messages of one tag from
     * rank 0 to rank 1, 10 B and 100,000 B alternating. */
    {
        enum { M = 24, L = 100000 };
        static unsigned char mb[M][L];
        MPI_Request rq[M];
        if (rank == 0 && size > 1) {
            for (int k = 0; k < M; k++) {
                int len = k % 2 ? L : 10;
                for (int i = 0; i < len; i++) {
                    mb[k][i] = (unsigned char)(k * 31 + i);
                }
                MPI_Isend(mb[k], len, MPI_BYTE, 1, 80, MPI_COMM_WORLD, &rq[k]);
            }
            MPI_Waitall(M, rq, MPI_STATUSES_IGNORE);
        } else if (rank == 1) {
            MPI_Status sts[M];
            for (int k = 0; k < M; k++) {
                MPI_Irecv(mb[k], L, MPI_BYTE, k % 3 ? 0 : MPI_ANY_SOURCE, 80, MPI_COMM_WORLD,
                          &rq[k]);
            }
            MPI_Waitall(M, rq, sts);
            for (int k = 0; k < M; k++) {
                int n, len = k % 2 ? L : 10, ok;
                MPI_Get_count(&sts[k], MPI_BYTE, &n);
                ok = n == len;
                for (int i = 0; ok && i < len; i++) {
                    ok = mb[k][i] == (unsigned char)(k * 31 + i);
                }
                EXPECT(ok);
            }
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
    printf("rank %d of %d: ping-pong 0 B..1 MiB, any-source/any-tag, unexpected, probe/iprobe/"
           "mprobe, 64 Isend/Irecv in order, non-overtaking 10 B/100 KB, barrier, bcast, "
           "allreduce %d, alltoall: %s\n", rank, size, sum, bad ? "FAILED" : "ok");
    MPI_Finalize();
    return bad ? 1 : 0;
}
