/*
 * Every rank to every other, at every size class of the provider (empty,
 * a landing, a zone, an eager FIRST, rendezvous, 1 MiB), all at once with
 * MPI_Isend/MPI_Irecv, every byte checked; then MPI_Allgather and
 * MPI_Reduce_scatter_block. Written for several ranks a board
 * (dimmnet-cluster --mpi --ranks-per-board K, issue 36 item 5), where a
 * pair of one board talks through its NIC like any other. One line a rank:
 *   mpi_all_pairs: rank R of N (board B port P) ok
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int fails;

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
                                           __FILE__, __LINE__, #c); fails++; } } while (0)

/* The byte @i of the message from @src to @dst of @len bytes. */
static uint8_t pattern(int src, int dst, int len, int i)
{
    return (uint8_t)(i * 13 + src * 37 + dst * 11 + len);
}

int main(int argc, char **argv)
{
    static const int sizes[] = { 0, 1, 100, 420, 4000, 8100, 70000, 300000, 1 << 20 };
    int rank, n;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);

    uint8_t **out = calloc((size_t)n, sizeof(*out)), **in = calloc((size_t)n, sizeof(*in));
    MPI_Request *req = calloc(2 * (size_t)n, sizeof(*req));
    for (unsigned z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        int len = sizes[z], k = 0;

        for (int p = 0; p < n; p++) {
            if (p == rank) {
                continue;
            }
            out[p] = malloc((size_t)len + 1);
            in[p] = malloc((size_t)len + 1);
            for (int i = 0; i < len; i++) {
                out[p][i] = pattern(rank, p, len, i);
                in[p][i] = 0;
            }
            MPI_Irecv(in[p], len, MPI_BYTE, p, 500 + (int)z, MPI_COMM_WORLD, &req[k++]);
        }
        for (int p = 0; p < n; p++) {
            if (p != rank) {
                MPI_Isend(out[p], len, MPI_BYTE, p, 500 + (int)z, MPI_COMM_WORLD, &req[k++]);
            }
        }
        MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        for (int p = 0; p < n; p++) {
            if (p == rank) {
                continue;
            }
            int wrong = 0;
            for (int i = 0; i < len; i++) {
                wrong += in[p][i] != pattern(p, rank, len, i);
            }
            if (wrong) {
                fprintf(stderr, "rank %d: %d wrong bytes of %d from rank %d\n", rank, wrong,
                        len, p);
            }
            CHECK(wrong == 0);
            free(out[p]);
            free(in[p]);
        }
    }

    /* Allgather of 1000 bytes a rank; reduce-scatter of 256 ints a rank. */
    enum { AG = 1000, RS = 256 };
    uint8_t *ag_in = malloc(AG), *ag_out = malloc((size_t)AG * (size_t)n);
    for (int i = 0; i < AG; i++) {
        ag_in[i] = pattern(rank, 0, AG, i);
    }
    MPI_Allgather(ag_in, AG, MPI_BYTE, ag_out, AG, MPI_BYTE, MPI_COMM_WORLD);
    for (int p = 0; p < n; p++) {
        for (int i = 0; i < AG; i++) {
            CHECK(ag_out[(size_t)p * AG + (size_t)i] == pattern(p, 0, AG, i));
        }
    }
    int *rs_in = malloc(sizeof(int) * RS * (size_t)n), rs_out[RS];
    for (int i = 0; i < RS * n; i++) {
        rs_in[i] = rank * 1000 + i;
    }
    MPI_Reduce_scatter_block(rs_in, rs_out, RS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < RS; i++) {
        /* sum over ranks r of r * 1000 + (rank * RS + i) */
        CHECK(rs_out[i] == 1000 * n * (n - 1) / 2 + n * (rank * RS + i));
    }

    const char *pv = getenv("DIMMNET_PORT"), *node = getenv("DIMMNET_NODE_ID");
    printf("mpi_all_pairs: rank %d of %d (board %s port %s) %s\n", rank, n,
           node ? node : "?", pv ? pv : "0", fails ? "FAILED" : "ok");
    free(ag_in);
    free(ag_out);
    free(rs_in);
    free(req);
    free(out);
    free(in);
    MPI_Finalize();
    return fails ? 1 : 0;
}
