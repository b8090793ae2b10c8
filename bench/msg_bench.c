/*
 * Message exchange bandwidth between two nodes, timed as the paper times
 * its bandwidth (seed 002, section 5): from send start until the
 * receiver's ACK is back, one blocking send after another. Node 0 sends,
 * node 1 receives. Run it under the launcher; with --deterministic the
 * figures are modeled (the board's virtual clock: 50 MHz core, 500 MB/s
 * links), otherwise wall-clock. Not a test: it prints figures.
 *
 *   msg_bench [--count N] [--rdma] SIZE...
 *
 * --rdma: the send buffer lies in receive memory, so messages go by RDMA
 * (2048-byte packets) instead of BOTF (464-byte packets).
 *
 * Prints per size: "msg_bench: size=S count=N botf|rdma modeled|wall-clock
 * us_per_msg=.. msgs_per_s=.. mb_per_s=.." (MB = 10^6 bytes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dimmnet1/dn.h"

#define TIMEOUT_MS 600000

static uint64_t now_ns(dn_node *n, int modeled)
{
    if (modeled) {
        uint64_t v = 0;
        dn_clock(n, &v);
        return v;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    unsigned long count = 200;
    int rdma = 0;
    size_t sizes[16];
    int nsizes = 0;
    dn_node *n;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--count") && i + 1 < argc) {
            count = strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--rdma")) {
            rdma = 1;
        } else if (nsizes < 16) {
            sizes[nsizes++] = strtoul(argv[i], NULL, 0);
        }
    }
    if (!nsizes || dn_open_env(&n, 60000) != DN_OK || dn_msg_init(n, NULL) != DN_OK) {
        fprintf(stderr, "usage: msg_bench [--count N] SIZE... (under dimmnet-cluster -n 2)\n");
        return 2;
    }
    unsigned me = dn_node_id(n);
    int modeled = dn_host_sync(n);
    size_t max = 0;
    for (int k = 0; k < nsizes; k++) {
        max = sizes[k] > max ? sizes[k] : max;
    }
    size_t memsize;
    uint8_t *buf = me == 0 && rdma ? dn_hostmem(n, &memsize) : calloc(1, max ? max : 1);
    char v[8];
    dn_publish(me ? "bench-rx" : "bench-tx", "1");
    dn_lookup(me ? "bench-tx" : "bench-rx", v, sizeof(v), TIMEOUT_MS);
    for (int k = 0; k < nsizes; k++) {
        if (me == 1) {
            for (unsigned long i = 0; i < count; i++) {
                if (dn_msg_recv(n, 0, DN_ANY_TAG, buf, max, NULL, TIMEOUT_MS) != DN_OK) {
                    return 1;
                }
            }
            continue;
        }
        uint64_t t0 = now_ns(n, modeled);
        for (unsigned long i = 0; i < count; i++) {
            int rc = dn_msg_send(n, 1, (uint32_t)i, buf, sizes[k], TIMEOUT_MS);
            if (rc != DN_OK) {
                fprintf(stderr, "msg_bench: %s\n", dn_strerror(rc));
                return 1;
            }
        }
        double ns = (double)(now_ns(n, modeled) - t0);
        printf("msg_bench: size=%zu count=%lu %s %s us_per_msg=%.2f msgs_per_s=%.0f mb_per_s=%.2f\n",
               sizes[k], count, rdma ? "rdma" : "botf", modeled ? "modeled" : "wall-clock",
               ns / count / 1e3,
               count / (ns / 1e9), sizes[k] * (double)count / (ns / 1e9) / 1e6);
        fflush(stdout);
    }
    /* The receiver stays until the sender is done (its ACKs). */
    dn_publish(me ? "bench-rx-done" : "bench-tx-done", "1");
    dn_lookup(me ? "bench-tx-done" : "bench-rx-done", v, sizeof(v), TIMEOUT_MS);
    dn_close(n);
    return 0;
}
