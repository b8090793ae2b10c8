/*
 * A second process on a node (issue 24 item 4, contract 1.27: host ports).
 * Two boards with two host ports each, four processes:
 *   - node 1 port 0 is the target: it registers a window for remote reads
 *     and writes; each of the three others owns a slice of it, and a cell
 *     all three fetch-add;
 *   - node 0 port 0, node 0 port 1 and node 1 port 1 each open an
 *     endpoint for RMA and atomics (caps FI_RMA | FI_ATOMIC; messages on
 *     every port: fabric_peers.c), write their
 *     slice, read it back, fetch-add the cell ADDS times (every old value
 *     below the end's, rising), and count their completions: exactly what
 *     they posted, none of another process's;
 *   - node 0's two processes each register a page of their own (two
 *     processes, one registration table: keys and entries must not
 *     clash); node 1 port 1 writes a pattern into each, and each finds
 *     its own, under its own key;
 *   - the target checks every slice, the cell (3 * ADDS: each add once)
 *     and the guard bytes after the slices (nothing else landed);
 *   - then each port-1 process opens its port with the shim alone: its
 *     port is 1 of 2; the message layer, barriers, AOTF channels, another
 *     port's registration entries and NIC restarts are refused.
 *
 *   fabric_ports          (dimmnet-cluster -n 2 --host-ports 2)
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>
#include "fabric_util.h"

#define SLICE   (16u << 10)
#define SLICES  3u
#define GUARD   4096u
#define WIN     (SLICES * SLICE + GUARD + 64u)
#define CELL    (SLICES * SLICE + GUARD)          /* the fetch-add cell */
#define ADDS    200u
#define PAGE    4096u
#define WAIT_MS 60000

static unsigned node, port;
static char who[32];

/* The completion of @ctx, and nothing else: another process's completion
 * in our queue would show here as an unknown context. */
static int completions;
static void wait_ctx(struct fab_ep *r, void *ctx)
{
    struct fi_cq_entry e;
    int64_t deadline = now_ms() + WAIT_MS;

    for (;;) {
        ssize_t n = fi_cq_read(r->cq, &e, 1);
        if (n == 1) {
            CHECK_MSG(e.op_context == ctx, "%s: completion of %p, expected %p", who,
                      e.op_context, ctx);
            completions++;
            return;
        }
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry err = { 0 };
            fi_cq_readerr(r->cq, &err, 0);
            CHECK_MSG(0, "%s: error completion %d (%s)", who, err.err, fi_strerror(err.err));
            exit(1);
        }
        if (now_ms() > deadline) {
            CHECK_MSG(0, "%s: no completion in %d ms", who, WAIT_MS);
            exit(1);
        }
    }
}

static uint8_t pattern(unsigned seed, size_t i)
{
    return (uint8_t)(seed * 37u + i * 11u + (i >> 8));
}

static void publish(const char *key, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void publish(const char *key, const char *fmt, ...)
{
    char v[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(v, sizeof(v), fmt, ap);
    va_end(ap);
    CHECK_EQ(dn_publish(key, v), DN_OK);
}

static void lookup(const char *key, char *v, size_t len)
{
    if (dn_lookup(key, v, len, WAIT_MS) != DN_OK) {
        fprintf(stderr, "%s: no '%s' in %d ms\n", who, key, WAIT_MS);
        exit(1);
    }
}

/* An initiator's slice: node 0 port 0, node 0 port 1, node 1 port 1. */
static unsigned slice_of(unsigned n, unsigned p)
{
    return n == 0 ? p : 2;
}

static void target(void)
{
    struct fab_ep r = { 0 };
    struct fid_mr *mr;
    uint8_t *win = aligned_alloc(PAGE, (WIN + PAGE - 1) / PAGE * PAGE);
    char name[64], hex[129], v[64];
    size_t len = sizeof(name);

    memset(win, 0xa5, WIN);
    memset(win + CELL, 0, 8);
    CHECK_EQ(fab_ep_open(&r, FI_RMA | FI_ATOMIC), 0);
    CHECK_EQ(fi_mr_reg(r.dom, win, WIN, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0, &mr, NULL), 0);
    CHECK_EQ(fi_getname(&r.ep->fid, name, &len), 0);
    for (size_t i = 0; i < len; i++) {
        sprintf(hex + 2 * i, "%02x", (uint8_t)name[i]);
    }
    publish("ports.target", "%s %" PRIx64 " %" PRIx64, hex, (uint64_t)(uintptr_t)win,
            fi_mr_key(mr));
    for (unsigned s = 0; s < SLICES; s++) {
        char key[32];
        snprintf(key, sizeof(key), "ports.done%u", s);
        lookup(key, v, sizeof(v));
    }
    for (unsigned s = 0; s < SLICES; s++) {
        size_t bad = 0;
        for (size_t i = 0; i < SLICE; i++) {
            bad += win[s * SLICE + i] != pattern(10 + s, i);
        }
        CHECK_MSG(bad == 0, "target: slice %u has %zu bytes not its writer's", s, bad);
    }
    size_t touched = 0;
    for (size_t i = SLICES * SLICE; i < CELL; i++) {
        touched += win[i] != 0xa5;
    }
    CHECK_MSG(touched == 0, "target: %zu guard bytes written", touched);
    uint64_t cell;
    memcpy(&cell, win + CELL, 8);
    CHECK_MSG(cell == SLICES * ADDS, "target: the cell is %" PRIu64 ", not %u", cell,
              SLICES * ADDS);
    printf("fabric_ports: target: 3 slices of %u bytes right, guard untouched, cell %" PRIu64
           "\n", SLICE, cell);
    publish("ports.verified", "%d", check_failures);
    fi_close(&mr->fid);
    fab_ep_close(&r);
    free(win);
}

/* Node 0's processes: a page of their own that node 1 port 1 writes. */
static struct fid_mr *own_page(struct fab_ep *r, uint8_t *page)
{
    struct fid_mr *mr;
    char key[32];

    memset(page, 0, PAGE);
    CHECK_EQ(fi_mr_reg(r->dom, page, PAGE, FI_REMOTE_WRITE, 0, 0, 0, &mr, NULL), 0);
    snprintf(key, sizeof(key), "ports.page%u", port);
    publish(key, "%" PRIx64 " %" PRIx64, (uint64_t)(uintptr_t)page, fi_mr_key(mr));
    return mr;
}

static void initiator(void)
{
    struct fab_ep r = { 0 };
    char v[256], hex[129] = "", name[64];
    uint64_t rwin, key;
    fi_addr_t peer;
    unsigned s = slice_of(node, port);
    static uint8_t src[SLICE], back[SLICE], page[PAGE] __attribute__((aligned(PAGE)));
    struct fid_mr *page_mr = NULL;
    int ctx;

    CHECK_EQ(fab_ep_open(&r, FI_RMA | FI_ATOMIC), 0);
    if (node == 0) {
        page_mr = own_page(&r, page);
    }
    lookup("ports.target", v, sizeof(v));
    CHECK_EQ(sscanf(v, "%128s %" SCNx64 " %" SCNx64, hex, &rwin, &key), 3);
    size_t len = strlen(hex) / 2;
    for (size_t i = 0; i < len; i++) {
        unsigned b;
        sscanf(hex + 2 * i, "%2x", &b);
        name[i] = (char)b;
    }
    CHECK_EQ(fi_av_insert(r.av, name, 1, &peer, 0, NULL), 1);

    /* Write the slice, read it back. */
    for (size_t i = 0; i < SLICE; i++) {
        src[i] = pattern(10 + s, i);
    }
    CHECK_EQ(fi_write(r.ep, src, SLICE, NULL, peer, rwin + s * SLICE, key, &ctx), 0);
    wait_ctx(&r, &ctx);
    CHECK_EQ(fi_read(r.ep, back, SLICE, NULL, peer, rwin + s * SLICE, key, &ctx), 0);
    wait_ctx(&r, &ctx);
    CHECK_MSG(memcmp(back, src, SLICE) == 0, "%s: slice %u read back differs", who, s);

    /* Fetch-adds, beside the other two initiators. */
    uint64_t last = 0;
    int rising = 1;
    for (unsigned i = 0; i < ADDS; i++) {
        uint64_t one = 1, old = UINT64_MAX;
        ssize_t rc;
        while ((rc = fi_fetch_atomic(r.ep, &one, 1, NULL, &old, NULL, peer, rwin + CELL, key,
                                     FI_UINT64, FI_SUM, &ctx)) == -FI_EAGAIN) {
            fi_cq_read(r.cq, NULL, 0);
        }
        CHECK_EQ(rc, 0);
        wait_ctx(&r, &ctx);
        rising &= i == 0 || old > last;
        CHECK_MSG(old < SLICES * ADDS, "%s: old value %" PRIu64, who, old);
        last = old;
    }
    CHECK_MSG(rising, "%s: the cell's old values did not rise", who);

    /* Node 1 port 1 writes node 0's pages, each under its own key. */
    if (node == 1) {
        for (unsigned p = 0; p < 2; p++) {
            char k[32], nm[64], hx[129] = "";
            uint64_t addr, pkey;
            fi_addr_t n0;
            size_t nlen = sizeof(nm);
            snprintf(k, sizeof(k), "ports.page%u", p);
            lookup(k, v, sizeof(v));
            CHECK_EQ(sscanf(v, "%" SCNx64 " %" SCNx64, &addr, &pkey), 2);
            /* Node 0's name: this node's own, with another node id. */
            CHECK_EQ(fi_getname(&r.ep->fid, nm, &nlen), 0);
            CHECK(nlen == 8);
            uint32_t n0id = 0;
            memcpy(nm + 4, &n0id, 4);
            (void)hx;
            CHECK_EQ(fi_av_insert(r.av, nm, 1, &n0, 0, NULL), 1);
            for (size_t i = 0; i < 256; i++) {
                src[i] = pattern(50 + p, i);
            }
            CHECK_EQ(fi_write(r.ep, src, 256, NULL, n0, addr, pkey, &ctx), 0);
            wait_ctx(&r, &ctx);
            snprintf(k, sizeof(k), "ports.page%u.written", p);
            publish(k, "%" PRIx64, pkey);
        }
    } else {
        char k[32];
        snprintf(k, sizeof(k), "ports.page%u.written", port);
        lookup(k, v, sizeof(v));
        size_t bad = 0;
        for (size_t i = 0; i < 256; i++) {
            bad += page[i] != pattern(50 + port, i);
        }
        for (size_t i = 256; i < PAGE; i++) {
            bad += page[i] != 0;
        }
        CHECK_MSG(bad == 0, "%s: %zu bytes of its page not as node 1 port 1 wrote them "
                  "(key %#" PRIx64 ")", who, bad, fi_mr_key(page_mr));
    }

    /* Nothing more in our queue: no other process's completion came here. */
    struct fi_cq_entry e;
    int64_t until = now_ms() + 200;
    while (now_ms() < until) {
        CHECK_MSG(fi_cq_read(r.cq, &e, 1) == -FI_EAGAIN, "%s: a completion not ours", who);
    }
    CHECK_EQ(completions, 2 + (int)ADDS + (node == 1 ? 2 : 0));
    char k[32];
    snprintf(k, sizeof(k), "ports.done%u", s);
    publish(k, "%d", completions);
    lookup("ports.verified", v, sizeof(v));
    printf("fabric_ports: %s: slice %u, %u fetch-adds (last old value %" PRIu64 "), "
           "%d completions, all its own\n", who, s, ADDS, last, completions);
    if (page_mr) {
        char k2[32];
        snprintf(k2, sizeof(k2), "ports.page%u.closed", port);
        fi_close(&page_mr->fid);
        publish(k2, "1");
    }
    fab_ep_close(&r);
}

/* A port-1 process with the shim alone: what a port above 0 may do and not. */
static void shim_refusals(void)
{
    dn_node *n = NULL;
    unsigned ports = 0, first = 0, end = 0;

    CHECK_EQ(dn_open_env(&n, 30000), DN_OK);
    if (!n) {
        return;
    }
    CHECK_EQ(dn_port(n, &ports), 1u);
    CHECK_EQ(ports, 2u);
    CHECK(dn_port_incarnation(n) > 0);
    CHECK_EQ(dn_mr_entries(n, &first, &end), DN_OK);
    CHECK_MSG(first == 16 && end == 32, "%s: entries %u..%u", who, first, end);
    CHECK_EQ(dn_mr_set(n, 0, 0x8001, 0x1000, 0, 4096, DN_MR_REMOTE_WRITE), DN_EINVAL);
    /* Messages on every port (contract 1.29), with this port's defaults:
     * its half of the system buffers, 2 boards x 2 ports as senders, its
     * own notice queue; once only, and only to addresses that can take
     * messages (nodes below 16 with 2 ports). */
    struct dn_msg_config mc;
    dn_msg_req *mr = NULL;
    dn_msg_config_default(n, &mc);
    CHECK_MSG(mc.senders == 4 && mc.sysbuf_off == (12u << 20) && mc.nq_off == 0x3000,
              "%s: message defaults: %u senders, buffers at %u, notices at 0x%x", who,
              mc.senders, mc.sysbuf_off, mc.nq_off);
    CHECK_EQ(dn_msg_init(n, NULL), DN_OK);
    CHECK_EQ(dn_msg_init(n, NULL), DN_EINVAL);
    CHECK_EQ(dn_msg_isend(n, 16, 1, "x", 1, &mr), DN_EINVAL);
    CHECK_EQ(dn_msg_isend(n, 1 | 2u << 12, 1, "x", 1, &mr), DN_EINVAL);
    CHECK_EQ(dn_aotf_open(n, 0, 0x01, 1, 1 - node, DN_RADDR_LLCM_USER, 8), DN_EINVAL);
    CHECK_EQ(dn_nic_restart(n, 1000), DN_EINVAL);
    dn_close(n);
    printf("fabric_ports: %s: shim: port 1 of 2, entries %u..%u, messages of its own; AOTF, "
           "another port's entries and NIC restarts refused\n", who, first, end - 1);
}

int main(void)
{
    const char *id = getenv("DIMMNET_NODE_ID"), *p = getenv("DIMMNET_PORT");

    alarm(200);
    node = id ? (unsigned)atoi(id) : 0;
    port = p ? (unsigned)atoi(p) : 0;
    snprintf(who, sizeof(who), "node %u port %u", node, port);
    if (node == 1 && port == 0) {
        target();
    } else {
        initiator();
        if (port > 0) {
            shim_refusals();
        }
    }
    printf("fabric_ports: %s: %s\n", who, check_failures ? "FAILED" : "ok");
    return check_failures != 0;
}
