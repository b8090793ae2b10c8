/*
 * One node of tools/dimmnet-soak --barriers: R barrier rounds with the
 * early-exit check. Run by the launcher on every node.
 *
 *   dimmnet-soak-barrier-node --rounds R --algorithm A [--groups 1|2]
 *                             [--timeout-ms MS] [--seed S] [--warmup W]
 *
 * Before round r's barrier, each node writes r in its slot of an observer
 * page (a file in the launcher's run directory, mapped by every node: it
 * lies outside the network, so no fault can hide or fake an early exit);
 * after the barrier it checks that every other node's slot says r or more.
 * --groups 2 interleaves two barriers (ids 0 and 1, roots node 0 and the
 * last node). Prints one line:
 *   soak-barrier-node: node=I completed=C early_exits=E hangs=H
 *       algorithm=A mean_ns=T modeled=0|1 resends=S nacks=K seconds=X
 * (mean_ns: this node's mean time in a barrier, modeled with host sync;
 * algorithm: the one in use at the end, AUTO's choice) and, on node 0 with
 * AUTO, the candidates' slowest-member times on stderr. --warmup W: W
 * barriers of each group first, neither timed nor counted, so that nodes
 * that reached the start at different times (a rendezvous that had to let
 * virtual time pass, many boards) do not put that wait into the mean.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "dimmnet1/dn.h"

#define RDV_TIMEOUT_MS 600000

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The page outside the network every node writes and reads: in the run
 * directory, or the rendezvous directory when boards are on several hosts
 * (one machine's namespaces: a real cluster has no page all hosts share). */
static volatile uint64_t *observer(void)
{
    const char *dir = getenv("DIMMNET_KV_DIR");
    char path[4096];

    if (!dir || !*dir) {
        dir = getenv("DIMMNET_RUN_DIR");
    }
    if (!dir) {
        return NULL;
    }
    snprintf(path, sizeof(path), "%s/barrier-observer", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, 4096) != 0) {
        return NULL;
    }
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
    unsigned long rounds = 0;
    int algorithm = -1, groups = 1, timeout_ms = 60000, warmup = 0;
    dn_node *n;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
            rounds = strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--algorithm") && i + 1 < argc) {
            algorithm = dn_barrier_algorithm_parse(argv[++i]);
        } else if (!strcmp(argv[i], "--groups") && i + 1 < argc) {
            groups = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--timeout-ms") && i + 1 < argc) {
            timeout_ms = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) {
            warmup = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            i++;   /* the switch's; nothing here is random */
        } else {
            fprintf(stderr, "dimmnet-soak-barrier-node: bad argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (algorithm < 0 || (groups != 1 && groups != 2) || timeout_ms <= 0) {
        fprintf(stderr, "dimmnet-soak-barrier-node: --algorithm firmware|firmware-mcast|"
                        "host|host-mcast|auto|firmware-paper|firmware-paper-mcast, "
                        "--groups 1|2\n");
        return 2;
    }
    int rc = dn_open_env(&n, 60000);
    if (rc != DN_OK) {
        fprintf(stderr, "dimmnet-soak-barrier-node: cannot open the node: %s\n",
                dn_strerror(rc));
        return 1;
    }
    unsigned me = dn_node_id(n);
    volatile uint64_t *seen = observer();
    if (!seen) {
        fprintf(stderr, "dimmnet-soak-barrier-node: no observer page (DIMMNET_RUN_DIR)\n");
        return 1;
    }

    dn_barrier *bar[2] = { NULL, NULL };
    struct dn_barrier_config cfg;
    for (int g = 0; g < groups; g++) {
        dn_barrier_config_default(n, &cfg);
        cfg.id = (unsigned)g;
        cfg.root = g == 0 ? 0 : cfg.members[cfg.nmembers - 1];
        cfg.algorithm = (enum dn_barrier_algorithm)algorithm;
        cfg.timeout_ms = timeout_ms;
        rc = dn_barrier_create(n, &cfg, &bar[g]);
        if (rc != DN_OK) {
            fprintf(stderr, "dimmnet-soak-barrier-node: node %u: barrier %d: %s\n", me, g,
                    dn_strerror(rc));
            return 1;
        }
    }
    unsigned nodes = cfg.nmembers;
    if (dn_rendezvous("soak-barrier-ready", RDV_TIMEOUT_MS) != DN_OK) {
        fprintf(stderr, "dimmnet-soak-barrier-node: node %u: the others never came\n", me);
        return 1;
    }

    for (int w = 0; w < warmup * groups; w++) {
        rc = dn_barrier_wait(bar[w % groups]);
        if (rc != DN_OK) {
            fprintf(stderr, "node %u: warm-up barrier: %s\n", me, dn_strerror(rc));
            return 1;
        }
    }
    double t0 = now_s();
    unsigned long completed = 0, early = 0, hangs = 0;
    uint64_t total_ns = 0;
    for (unsigned long r = 1; r <= rounds; r++) {
        dn_barrier *b = bar[(r - 1) % (unsigned long)groups];
        struct dn_barrier_report rep;

        __atomic_store_n(&seen[me], r, __ATOMIC_SEQ_CST);
        rc = dn_barrier_wait(b);
        if (rc != DN_OK) {
            dn_barrier_report(b, &rep);
            fprintf(stderr, "node %u: round %lu: %s: %s\n", me, r, dn_strerror(rc), rep.text);
            hangs++;
            break;
        }
        for (unsigned j = 0; j < nodes; j++) {
            uint64_t v = __atomic_load_n(&seen[j], __ATOMIC_SEQ_CST);
            if (v < r) {
                early++;
                fprintf(stderr, "node %u: left round %lu while node %u was at round %llu\n",
                        me, r, j, (unsigned long long)v);
            }
        }
        dn_barrier_report(b, &rep);
        total_ns += rep.last_ns;
        completed++;
    }
    double secs = now_s() - t0;

    struct dn_barrier_report rep;
    dn_barrier_report(bar[0], &rep);
    if (me == 0 && algorithm == DN_BARRIER_AUTO) {
        for (int a = 1; a < DN_BARRIER_ALGORITHMS; a++) {
            if (rep.candidate[a].trials) {
                fprintf(stderr, "dimmnet-soak: auto: %s: %u trials, slowest member %.1f us "
                        "(this node %.1f us)%s\n", dn_barrier_algorithm_name(a),
                        rep.candidate[a].trials, rep.candidate[a].slowest_ns / 1e3,
                        rep.candidate[a].own_ns / 1e3,
                        (int)rep.algorithm == a ? "  <- chosen" : "");
            }
        }
    }
    uint64_t resends = rep.resends, nacks = rep.nacks;
    if (bar[1]) {
        struct dn_barrier_report r1;
        dn_barrier_report(bar[1], &r1);
        resends += r1.resends;
        nacks += r1.nacks;
    }
    printf("soak-barrier-node: node=%u completed=%lu early_exits=%lu hangs=%lu "
           "algorithm=%s mean_ns=%llu modeled=%d resends=%llu nacks=%llu seconds=%.1f\n",
           me, completed, early, hangs, dn_barrier_algorithm_name(rep.algorithm),
           (unsigned long long)(completed ? total_ns / completed : 0), rep.modeled,
           (unsigned long long)resends, (unsigned long long)nacks, secs);
    fflush(stdout);
    /* Stay until every node is done: a node that left would stop
     * answering the others' resends. */
    char key[64], v[8];
    snprintf(key, sizeof(key), "soak-barrier-done.%u", me);
    dn_publish(key, "1");
    double give_up = now_s() + RDV_TIMEOUT_MS / 1000.0;
    for (unsigned j = 0; j < nodes && now_s() < give_up; j++) {
        snprintf(key, sizeof(key), "soak-barrier-done.%u", j);
        while (dn_lookup(key, v, sizeof(v), 0) != DN_OK && now_s() < give_up) {
            for (int g = 0; g < groups; g++) {
                dn_barrier_progress(bar[g]);
            }
            if (!dn_host_sync(n)) {
                usleep(200);
            }
        }
    }
    for (int g = 0; g < groups; g++) {
        dn_barrier_destroy(bar[g]);
    }
    dn_close(n);
    return completed == rounds && early == 0 && hangs == 0 ? 0 : 1;
}
