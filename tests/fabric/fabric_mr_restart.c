/*
 * Registrations across processes (issue 25's new job on the same boards,
 * for one-sided memory): node 1 is the target, node 0 writes with the
 * shim's raw remote writes (dn_botf_put_rva), so it can use any key.
 *   1. node 1's first process (A) registers a page for remote writes
 *      (provider keys); node 0 writes it under A's key: it lands (and the
 *      NIC's RVATLB now holds the translation); A is killed (SIGKILL: no
 *      fi_close, its table entry stays on in LLCM);
 *   2. node 1's next process (B, forked from the same parent: the same
 *      buffer at the same address) registers it again: taken (the dead
 *      process's entry no longer blocks the table: dn_mr_reset at domain
 *      open), under a key that is not A's (keys carry the incarnation);
 *   3. node 0 writes under A's key again, as a dead job's late write
 *      would: refused (NACK), and B's memory keeps nothing of it (neither
 *      the table nor the RVATLB's cached translation reach it); then under
 *      B's key: lands.
 *   fabric_mr_restart       (dimmnet-cluster -n 2)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include "dimmnet1/dn.h"
#include "../common/check.h"

#define LEN 64u
#define WAIT_MS 60000

static uint8_t buf[8192] __attribute__((aligned(4096)));

static void publish_u64(const char *key, uint64_t a, uint64_t b)
{
    char v[64];

    snprintf(v, sizeof(v), "%llx %llx", (unsigned long long)a, (unsigned long long)b);
    CHECK_EQ(dn_publish(key, v), DN_OK);
}

static void lookup_u64(const char *key, uint64_t *a, uint64_t *b)
{
    char v[64] = "";
    unsigned long long x = 0, y = 0;

    CHECK_EQ(dn_lookup(key, v, sizeof(v), WAIT_MS), DN_OK);
    CHECK_EQ(sscanf(v, "%llx %llx", &x, &y), 2);
    *a = x;
    *b = y;
}

static int pattern_at(const uint8_t *p, uint8_t seed)
{
    for (unsigned i = 0; i < LEN; i++) {
        if (p[i] != (uint8_t)(seed + i)) {
            return 0;
        }
    }
    return 1;
}

/* Node 1: a process that opens the provider and registers buf; its key. */
static struct fid_mr *register_buf(struct fid_domain **dom_out)
{
    struct fi_info *hints = fi_allocinfo(), *info = NULL;
    struct fid_fabric *fabric;
    struct fid_domain *dom;
    struct fid_mr *mr = NULL;

    hints->caps = FI_RMA;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup("dimmnet");
    CHECK_EQ(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info), 0);
    fi_freeinfo(hints);
    if (!info) {
        exit(1);
    }
    CHECK_EQ(fi_fabric(info->fabric_attr, &fabric, NULL), 0);
    CHECK_EQ(fi_domain(fabric, info, &dom, NULL), 0);
    int rc = fi_mr_reg(dom, buf, sizeof(buf), FI_REMOTE_WRITE, 0, 0, 0, &mr, NULL);
    CHECK_MSG(rc == 0, "fi_mr_reg: %d (%s)", rc, fi_strerror(-rc));
    if (rc) {
        exit(1);
    }
    *dom_out = dom;
    return mr;
}

static void process_a(void)
{
    struct fid_domain *dom;
    struct fid_mr *mr = register_buf(&dom);
    uint64_t ok, unused;

    publish_u64("mr-a", fi_mr_key(mr), (uint64_t)(uintptr_t)buf);
    lookup_u64("mr-a-written", &ok, &unused);
    CHECK_MSG(ok == 1 && pattern_at(buf, 1), "node 1: the write under A's key did not land");
    printf("fabric_mr_restart: A: key %#llx, written; killed now\n",
           (unsigned long long)fi_mr_key(mr));
    fflush(stdout);
    if (check_failures) {
        exit(1);
    }
    raise(SIGKILL);          /* no fi_close: the table entry stays on */
}

static void process_b(void)
{
    struct fid_domain *dom;
    struct fid_mr *mr = register_buf(&dom);
    uint64_t key_a, va, st_a, st_b;
    char v[64] = "";

    CHECK_EQ(dn_lookup("mr-a", v, sizeof(v), WAIT_MS), DN_OK);
    CHECK_EQ(sscanf(v, "%llx %llx", (unsigned long long *)&key_a, (unsigned long long *)&va), 2);
    CHECK_MSG((fi_mr_key(mr) & 0xffff) != (key_a & 0xffff), "B's key %#llx is A's",
              (unsigned long long)fi_mr_key(mr));
    CHECK(!pattern_at(buf, 1));
    publish_u64("mr-b", fi_mr_key(mr), (uint64_t)(uintptr_t)buf);
    lookup_u64("mr-b-written", &st_a, &st_b);
    CHECK_MSG(st_a == 1, "node 0: the write under the dead process's key was not refused");
    CHECK_MSG(st_b == 1, "node 0: the write under B's key failed");
    CHECK_MSG(!pattern_at(buf, 2), "the dead process's late write landed in B's memory");
    CHECK_MSG(pattern_at(buf, 3), "the write under B's key did not land");
    printf("fabric_mr_restart: B: key %#llx (A's %#llx); A's refused, B's landed\n",
           (unsigned long long)fi_mr_key(mr), (unsigned long long)key_a);
    fi_close(&mr->fid);
    fi_close(&dom->fid);
    exit(check_failures ? 1 : 0);
}

static int run_child(void (*fn)(void))
{
    int status = 0;
    pid_t pid = fork();

    if (pid == 0) {
        fn();
        exit(1);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    return status;
}

/* Node 0: a raw write of LEN bytes of @seed under @key; 1 if ACKed, 0 if
 * NACKed (refused), else -1. */
static int write_under(dn_node *n, uint64_t key, uint64_t va, uint8_t seed)
{
    uint8_t src[LEN];
    dn_xfer x;

    for (unsigned i = 0; i < LEN; i++) {
        src[i] = (uint8_t)(seed + i);
    }
    int rc = dn_botf_put_rva(n, 1, DN_RVA(key & 0xffff, va), src, LEN, &x);
    if (rc == DN_OK) {
        rc = dn_wait(n, &x, 10000);
    }
    return rc == DN_OK ? 1 : rc == DN_ENACK ? 0 : -1;
}

int main(void)
{
    const char *id = getenv("DIMMNET_NODE_ID");

    alarm(200);
    if (id && atoi(id) == 1) {
        int st = run_child(process_a);
        CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "process A ended %#x", st);
        st = run_child(process_b);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "process B ended %#x", st);
    } else {
        dn_node *n = NULL;
        uint64_t key_a, key_b, va;

        CHECK_EQ(dn_open_env(&n, 30000), DN_OK);
        if (!n) {
            return 1;
        }
        lookup_u64("mr-a", &key_a, &va);
        int a1 = write_under(n, key_a, va, 1);
        CHECK_EQ(a1, 1);
        publish_u64("mr-a-written", (uint64_t)a1, 0);
        lookup_u64("mr-b", &key_b, &va);
        int a2 = write_under(n, key_a, va, 2), b = write_under(n, key_b, va, 3);
        CHECK_EQ(a2, 0);
        CHECK_EQ(b, 1);
        publish_u64("mr-b-written", a2 == 0, (uint64_t)b);
        dn_close(n);
    }
    printf("fabric_mr_restart: node %s: %s\n", id ? id : "?", check_failures ? "FAILED" : "ok");
    return check_failures != 0;
}
