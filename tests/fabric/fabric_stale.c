/*
 * A dead job's landing that the network delivers only after a new job on
 * the same boards advertised a receive on the same chunk (issue 25: the
 * provider across jobs). Two jobs of nodes 0 and 1 run one after the
 * other, the same program: node 0 says hello (so node 1 knows its
 * session), node 1 posts a directed 256-byte receive (advertised with a
 * landing chunk: the same receive id and chunk in both jobs, as an MPI
 * program's second job would have), node 0 sends into it. After job 1,
 * node 1 keeps the bytes of its chunks (the landing and its stamp, as they
 * lay). In job 2, once node 1 has advertised, node 2 writes those bytes
 * back into node 1's chunks with a remote write: exactly what a packet of
 * job 1 held in the network that long would do. Node 1 must take job 2's
 * message, not job 1's (before the session in the check, job 1's stamp
 * was as valid as job 2's and its old bytes completed the receive).
 *
 *   fabric_stale   (dimmnet-cluster -n 3)
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fabric_util.h"
#include "dimmnet.h"

#define TAG_HELLO 0x5e55u
#define TAG_MSG   0x5e56u
#define LEN       256u
#define REGION    ((size_t)DNF_MBOX_SLOTS * DNF_LAND_CHUNK)   /* writer 0's chunks */

static char top[4096];

static uint32_t seed_of(unsigned job)
{
    return 7000u + job;
}

/* Job 2's rendezvous directory (its nodes' DIMMNET_RUN_DIR, where node 2
 * meets them too): @name published, or waited for. */
static void mark(const char *name)
{
    CHECK(dn_publish(name, "1") == DN_OK);
}

static void wait_mark(const char *name)
{
    char v[8];

    CHECK_MSG(dn_lookup(name, v, sizeof(v), TIMEOUT_MS) == DN_OK, "node %u: no '%s'", me,
              name);
}

static void stale_path(char *p, size_t n)
{
    snprintf(p, n, "%s/stale-chunks", top);
}

static void job(unsigned k)
{
    static uint8_t buf[LEN];
    char dir[4200];
    int hello = 0, hctx, rctx, sctx;

    snprintf(dir, sizeof(dir), "%s/job%u", top, k);
    mkdir(dir, 0700);
    setenv("DIMMNET_RUN_DIR", dir, 1);
    setenv("DIMMNET_NODES", "2", 1);
    fab_setup();
    fi_addr_t peer = node_addr[1 - me];

    if (me == 0) {
        tsend_to(peer, &hello, sizeof(hello), TAG_HELLO, &hctx);
        expect(&hctx, FI_SEND | FI_TAGGED, NULL);
        CHECK(dn_rendezvous("advertised", TIMEOUT_MS) == DN_OK);
        if (k == 2) {
            wait_mark("replayed");
        }
        for (int i = 0; i < 200; i++) {          /* take the advertisement */
            struct fi_cq_tagged_entry e;
            fi_cq_read(cq, &e, 0);
        }
        fill(buf, LEN, seed_of(k));
        tsend_to(peer, buf, LEN, TAG_MSG, &sctx);
        expect(&sctx, FI_SEND | FI_TAGGED, NULL);
    } else {
        CHECK(fi_trecv(ep, &hello, sizeof(hello), NULL, peer, TAG_HELLO, 0, &hctx) == 0);
        expect(&hctx, FI_RECV | FI_TAGGED, NULL);
        memset(buf, 0, LEN);
        CHECK(fi_trecv(ep, buf, LEN, NULL, peer, TAG_MSG, 0, &rctx) == 0);
        for (int i = 0; i < 200; i++) {          /* the advertisement goes */
            struct fi_cq_tagged_entry e;
            fi_cq_read(cq, &e, 0);
        }
        CHECK(dn_rendezvous("advertised", TIMEOUT_MS) == DN_OK);
        if (k == 2) {
            mark("job2-advertised");
            wait_mark("replayed");
        }
        expect(&rctx, FI_RECV | FI_TAGGED, NULL);
        CHECK_MSG(same(buf, LEN, seed_of(k)), "node 1: job %u took %s", k,
                  same(buf, LEN, seed_of(1)) ? "job 1's message (a stale landing)"
                                             : "bytes of no job");
        if (k == 1) {
            /* The chunks as the landing left them, stamp and all. */
            char p[4300];
            static uint8_t region[REGION];
            int fd = open(getenv("DIMMNET_HOSTMEM"), O_RDONLY);

            CHECK(fd >= 0 && pread(fd, region, REGION, DNF_LAND_OFF) == (ssize_t)REGION);
            close(fd);
            int stamped = 0;
            for (size_t c = 0; c < DNF_MBOX_SLOTS; c++) {
                stamped |= region[(c + 1) * DNF_LAND_CHUNK - 1] != 0;
            }
            CHECK_MSG(stamped, "node 1: job 1's message did not land in a chunk");
            stale_path(p, sizeof(p));
            fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            CHECK(fd >= 0 && write(fd, region, REGION) == (ssize_t)REGION);
            close(fd);
        }
    }
    CHECK(dn_rendezvous("done", TIMEOUT_MS) == DN_OK);
    fab_close();
}

/* Node 2: job 1's chunks written back into node 1's, once job 2 advertised. */
static void replay(void)
{
    static uint8_t region[REGION];
    char p[4300];
    dn_node *n;
    dn_xfer x;

    snprintf(p, sizeof(p), "%s/job2", top);
    mkdir(p, 0700);
    setenv("DIMMNET_RUN_DIR", p, 1);
    wait_mark("job2-advertised");
    stale_path(p, sizeof(p));
    int fd = open(p, O_RDONLY);
    CHECK(fd >= 0 && read(fd, region, REGION) == (ssize_t)REGION);
    close(fd);
    CHECK(dn_open_env(&n, TIMEOUT_MS) == DN_OK);
    CHECK(dn_botf_put(n, 1, DNF_LAND_OFF, region, REGION, &x) == DN_OK);
    CHECK(dn_wait(n, &x, TIMEOUT_MS) == DN_OK);
    dn_close(n);
    printf("node 2: job 1's landing written again into node 1's chunks\n");
    mark("replayed");
}

int main(void)
{
    const char *id = getenv("DIMMNET_NODE_ID"), *run = getenv("DIMMNET_RUN_DIR");

    me = id ? (unsigned)atoi(id) : 0;
    snprintf(top, sizeof(top), "%s", run ? run : ".");
    if (me == 2) {
        replay();
    } else if (me < 2) {
        for (unsigned k = 1; k <= 2; k++) {
            fflush(NULL);
            pid_t pid = fork();
            if (pid == 0) {
                job(k);
                fflush(NULL);
                _exit(check_failures + fab_failures() ? 1 : 0);
            }
            int st = 0;
            CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
            CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "node %u: job %u ended with 0x%x",
                      me, k, st);
        }
    }
    if (check_failures == 0) {
        printf("fabric_stale: node %u ok\n", me);
    }
    return check_failures ? 1 : 0;
}
