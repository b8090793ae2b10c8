/*
 * MPI ping-pong between ranks 0 and 1, a benchmark (not a test), two ways:
 * "blocking" (MPI_Send, then MPI_Recv) and "pre-posted" (each rank's
 * receive for the next message is posted, MPI_Irecv, before it sends:
 * what lets sender-side matching send straight into it). Per size,
 * round trips per second, half a round trip and bandwidth in WALL-CLOCK
 * time (MPI_Wtime: how fast a user's test suite runs) and, when the
 * cluster keeps deterministic modeled time (dimmnet-cluster
 * --deterministic), the same in MODELED time, read from the board's clock
 * through the provider (fi_dimmnet_clock, prov/dimmnet/fi_dimmnet.h).
 * Each size starts with one round trip that is not timed (a warm-up, as
 * osu_latency's): the first receive into a buffer moves its pages onto
 * the card (zero-copy rendezvous, docs/libfabric.md), once.
 * With "read" the application also uses the data, as a real one would:
 * it reads every byte of each message received once and writes every byte
 * of the next one it sends (modes blocking-read and pre-posted-read);
 * where those bytes lie on the card (a zero-copy receive's pages moved
 * there), the provider charges them as the host profile's uncached loads
 * and write-combined stores (fi_dimmnet_touch, fi_dimmnet.h), which is
 * what a DIMM-slot card costs a host that consumes its data.
 *   dimmnet-cluster -n 2 --mpi [--deterministic] -- mpi_pingpong [ROUNDS [MAX_BYTES [read]]]
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fi_dimmnet.h"

static fi_dimmnet_touch_fn touch;     /* set in the "read" modes */
static volatile unsigned long sink;

/* The application reads a message received (every byte once). */
static void use_received(const char *buf, int len)
{
    unsigned long sum = 0;

    if (!touch) {
        return;
    }
    for (int i = 0; i < len; i++) {
        sum += (unsigned char)buf[i];
    }
    sink += sum;
    touch(buf, (size_t)len, 0);
}

/* The application writes the next message's bytes. */
static void fill_send(char *buf, int len, int i)
{
    if (!touch) {
        return;
    }
    memset(buf, i & 0xff, (size_t)len);
    touch(buf, (size_t)len, 1);
}

/* @n round trips of @len bytes; pre-posted or blocking. */
static void pingpong(int rank, int len, int n, int pre, char *sbuf, char *rbuf)
{
    MPI_Request rq;
    int peer = 1 - rank;

    if (rank > 1) {
        return;
    }
    if (pre && rank == 1) {
        MPI_Irecv(rbuf, len, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq);
    }
    for (int i = 0; i < n; i++) {
        if (!pre) {
            if (rank == 0) {
                fill_send(sbuf, len, i);
                MPI_Send(sbuf, len, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            }
            MPI_Recv(rbuf, len, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            use_received(rbuf, len);
            if (rank == 1) {
                fill_send(sbuf, len, i);
                MPI_Send(sbuf, len, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        } else if (rank == 0) {
            MPI_Irecv(rbuf, len, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &rq);
            fill_send(sbuf, len, i);
            MPI_Send(sbuf, len, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            use_received(rbuf, len);
        } else {
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            use_received(rbuf, len);
            if (i + 1 < n) {
                MPI_Irecv(rbuf, len, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq);
            }
            fill_send(sbuf, len, i);
            MPI_Send(sbuf, len, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
}

static uint64_t modeled_ns(fi_dimmnet_clock_fn clock)
{
    uint64_t ns = 0;

    if (clock) {
        clock(&ns, NULL);
    }
    return ns;
}

int main(int argc, char **argv)
{
    static const int sizes[] = { 0, 8, 1024, 65536, 262144, 1 << 20, 4 << 20 };
    int rank, rounds = argc > 1 ? atoi(argv[1]) : 2000;
    long max = argc > 2 ? atol(argv[2]) : 1 << 20;
    size_t room = max > (1 << 20) ? (size_t)max : 1 << 20;
    char *sbuf = calloc(1, room), *rbuf = calloc(1, room);
    fi_dimmnet_clock_fn clock;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    clock = fi_dimmnet_modeled_clock();
    if (argc > 3 && !strcmp(argv[3], "read")) {
        touch = fi_dimmnet_find_touch();
        if (!touch) {
            fprintf(stderr, "mpi_pingpong: no fi_dimmnet_touch (not over the dimmnet "
                    "provider?)\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    for (int pre = 0; pre < 2; pre++) {
        const char *how = pre ? (touch ? "pre-posted-read" : "pre-posted")
                              : (touch ? "blocking-read" : "blocking");

        for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]) && sizes[k] <= max; k++) {
            int len = sizes[k], n = len >= 65536 ? rounds / 20 + 1 : rounds;
            pingpong(rank, len, 1, pre, sbuf, rbuf);     /* warm-up */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            uint64_t m0 = modeled_ns(clock);
            pingpong(rank, len, n, pre, sbuf, rbuf);
            double t = MPI_Wtime() - t0, m = (double)(modeled_ns(clock) - m0) * 1e-9;
            if (rank == 0) {
                printf("mpi_pingpong (wall clock): %-10s %8d B  %6d round trips  %9.0f round "
                       "trips/s  %9.1f us half round trip  %8.2f MB/s\n", how, len, n, n / t,
                       t / n / 2 * 1e6, 2.0 * len * n / t / 1e6);
                if (clock) {
                    printf("mpi_pingpong (modeled):    %-10s %8d B  %6d round trips  %9.0f "
                           "round trips/s  %9.2f us half round trip  %8.2f MB/s\n", how, len,
                           n, n / m, m / n / 2 * 1e6, 2.0 * len * n / m / 1e6);
                }
            }
        }
    }
    if (rank == 0 && !clock) {
        printf("mpi_pingpong: no modeled figures (run under dimmnet-cluster --deterministic)\n");
    }
    MPI_Finalize();
    free(sbuf);
    free(rbuf);
    return 0;
}
