/*
 * MPI_THREAD_MULTIPLE (issue 36 item 7): an unmodified MPI program that
 * asks for it must start (Open MPI's mtl ofi then asks the provider for
 * FI_THREAD_SAFE) and may call MPI from several threads at once. Every
 * rank runs THREADS threads; thread t of rank r exchanges ROUNDS rounds
 * with thread t of each other rank, under tag t, with MPI_Isend/MPI_Irecv
 * and MPI_Waitall, at sizes on both sides of the provider's eager limit
 * (8 B to 200 KiB: landings, FIRSTs with the bytes, rendezvous), and
 * blocking MPI_Sendrecv on a duplicate communicator of its own; every byte
 * is checked. Then, from the main thread, a barrier and an allreduce of
 * what every thread counted. Exits 1 on any wrong byte, count or level.
 *
 *   mpi_threads [THREADS [ROUNDS]]
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 8

static int rank, size, threads = 4, rounds = 40;
static MPI_Comm dup[MAX_THREADS];
static long ok_bytes[MAX_THREADS];
static int bad;
static pthread_mutex_t bad_lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(int t, const char *what, int peer, int round, size_t len)
{
    pthread_mutex_lock(&bad_lock);
    fprintf(stderr, "rank %d thread %d: %s from %d, round %d, %zu bytes\n", rank, t, what,
            peer, round, len);
    bad++;
    pthread_mutex_unlock(&bad_lock);
}

/* The byte @i of what rank @from's thread @t sends in @round. */
static unsigned char pattern(int from, int t, int round, size_t i)
{
    return (unsigned char)(i * 31 + (size_t)from * 7 + (size_t)t * 13 + (size_t)round * 3);
}

static size_t round_len(int t, int round)
{
    static const size_t lens[] = { 8, 1000, 9000, 70000, 200000, 0, 464, 65536 };
    return lens[(t + round) % (sizeof(lens) / sizeof(lens[0]))];
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    size_t max = 200000;
    unsigned char *out = malloc(max), **in = calloc((size_t)size, sizeof(*in));
    MPI_Request *req = calloc(2 * (size_t)size, sizeof(*req));

    for (int p = 0; p < size; p++) {
        in[p] = malloc(max);
    }
    for (int round = 0; round < rounds; round++) {
        size_t len = round_len(t, round);
        int n = 0;

        for (size_t i = 0; i < len; i++) {
            out[i] = pattern(rank, t, round, i);
        }
        for (int p = 0; p < size; p++) {
            if (p != rank) {
                memset(in[p], 0xee, len);
                MPI_Irecv(in[p], (int)len, MPI_BYTE, p, t, MPI_COMM_WORLD, &req[n++]);
            }
        }
        for (int p = 0; p < size; p++) {
            if (p != rank) {
                MPI_Isend(out, (int)len, MPI_BYTE, p, t, MPI_COMM_WORLD, &req[n++]);
            }
        }
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        for (int p = 0; p < size; p++) {
            if (p == rank) {
                continue;
            }
            for (size_t i = 0; i < len; i++) {
                if (in[p][i] != pattern(p, t, round, i)) {
                    fail(t, "wrong byte (Isend/Irecv)", p, round, len);
                    break;
                }
            }
            ok_bytes[t] += (long)len;
        }
        /* Blocking, on the thread's own communicator: a ring. */
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        MPI_Status st;
        int got;
        memset(in[left], 0xee, len);
        MPI_Sendrecv(out, (int)len, MPI_BYTE, right, round, in[left], (int)len, MPI_BYTE, left,
                     round, dup[t], &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        if ((size_t)got != len) {
            fail(t, "wrong count (Sendrecv)", left, round, len);
        }
        for (size_t i = 0; i < len; i++) {
            if (in[left][i] != pattern(left, t, round, i)) {
                fail(t, "wrong byte (Sendrecv)", left, round, len);
                break;
            }
        }
        ok_bytes[t] += (long)len;
    }
    for (int p = 0; p < size; p++) {
        free(in[p]);
    }
    free(in);
    free(out);
    free(req);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    pthread_t th[MAX_THREADS];

    if (argc > 1) {
        threads = atoi(argv[1]);
    }
    if (argc > 2) {
        rounds = atoi(argv[2]);
    }
    if (threads < 1 || threads > MAX_THREADS || rounds < 1) {
        fprintf(stderr, "usage: %s [THREADS (1..%d) [ROUNDS]]\n", argv[0], MAX_THREADS);
        return 2;
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "rank %d: MPI_THREAD_MULTIPLE asked, %d provided\n", rank, provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int t = 0; t < threads; t++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &dup[t]);
    }
    for (int t = 0; t < threads; t++) {
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    }
    for (int t = 0; t < threads; t++) {
        pthread_join(th[t], NULL);
    }
    long mine = 0, all = 0;
    for (int t = 0; t < threads; t++) {
        mine += ok_bytes[t];
        MPI_Comm_free(&dup[t]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long want = 0;
    for (int t = 0; t < threads; t++) {
        for (int round = 0; round < rounds; round++) {
            want += (long)round_len(t, round) * size;     /* size - 1 peers and the ring */
        }
    }
    if (all != want * size) {
        fprintf(stderr, "rank %d: %ld bytes checked in all, %ld expected\n", rank, all,
                want * size);
        bad++;
    }
    printf("mpi_threads: rank %d of %d: MPI_THREAD_MULTIPLE, %d threads x %d rounds, "
           "%ld bytes checked: %s\n", rank, size, threads, rounds, mine, bad ? "FAILED" : "ok");
    MPI_Finalize();
    return bad ? 1 : 0;
}
