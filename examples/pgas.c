/* The libfabric side of the PGAS examples (pgas.h). */
#include "pgas.h"

#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include "dimmnet1/dn.h"

#define TRY(call)                                                                 \
    do {                                                                          \
        int rc_ = (int)(call);                                                    \
        if (rc_) {                                                                \
            fprintf(stderr, "node %u: %s: %s\n", g->me, #call, fi_strerror(-rc_)); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned env_uint(const char *name, unsigned dflt)
{
    const char *v = getenv(name);
    return v ? (unsigned)atoi(v) : dflt;
}

/* Publish our fabric name, segment base and key; read everybody's. */
static void exchange(struct pgas *g)
{
    char name[64], hex[160] = "", key[32], value[256];
    size_t len = sizeof(name);

    TRY(fi_getname(&g->ep->fid, name, &len));
    for (size_t i = 0; i < len; i++) {
        snprintf(hex + 2 * i, 3, "%02x", (uint8_t)name[i]);
    }
    snprintf(key, sizeof(key), "pgas.%u", g->me);
    snprintf(value, sizeof(value), "%s %" PRIx64 " %" PRIx64, hex,
             g->virt_addr ? (uint64_t)(uintptr_t)g->seg : 0, fi_mr_key(g->mr));
    TRY(dn_publish(key, value));
    for (unsigned k = 0; k < g->nodes; k++) {
        snprintf(key, sizeof(key), "pgas.%u", k);
        TRY(dn_lookup(key, value, sizeof(value), PGAS_WAIT_MS));
        if (sscanf(value, "%159s %" SCNx64 " %" SCNx64, hex, &g->base[k], &g->key[k]) != 3) {
            fprintf(stderr, "node %u: bad entry for node %u: %s\n", g->me, k, value);
            exit(1);
        }
        for (size_t i = 0; i < len; i++) {
            unsigned b;
            sscanf(hex + 2 * i, "%2x", &b);
            name[i] = (char)b;
        }
        if (fi_av_insert(g->av, name, 1, &g->addr[k], 0, NULL) != 1) {
            fprintf(stderr, "node %u: fi_av_insert of node %u failed\n", g->me, k);
            exit(1);
        }
    }
    TRY(dn_rendezvous("pgas-init", PGAS_WAIT_MS));
}

void pgas_init(struct pgas *g, size_t seg_len, int virt_addr, uint64_t caps)
{
    struct fi_info *hints = fi_allocinfo();
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA };
    struct fi_cntr_attr cntr_attr = { .events = FI_CNTR_EVENTS_COMP,
                                      .wait_obj = FI_WAIT_UNSPEC };
    void *seg;

    memset(g, 0, sizeof(*g));
    g->me = env_uint("DIMMNET_NODE_ID", 0);
    g->nodes = env_uint("DIMMNET_NODES", 1);
    g->virt_addr = virt_addr;
    if (g->nodes < 2 || g->nodes > PGAS_MAX_NODES) {
        fprintf(stderr, "node %u: %u nodes: run 2 to %u under dimmnet-cluster\n", g->me,
                g->nodes, PGAS_MAX_NODES);
        exit(1);
    }
    hints->caps = FI_RMA | FI_ATOMIC | caps;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_ALLOCATED | FI_MR_PROV_KEY |
                                  (virt_addr ? FI_MR_VIRT_ADDR : 0);
    hints->fabric_attr->prov_name = strdup("dimmnet");
    TRY(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &g->info));
    fi_freeinfo(hints);
    TRY(fi_fabric(g->info->fabric_attr, &g->fabric, NULL));
    TRY(fi_domain(g->fabric, g->info, &g->domain, NULL));
    TRY(fi_av_open(g->domain, &av_attr, &g->av, NULL));
    TRY(fi_cq_open(g->domain, &cq_attr, &g->cq, NULL));
    TRY(fi_cntr_open(g->domain, &cntr_attr, &g->cntr, NULL));
    TRY(fi_endpoint(g->domain, g->info, &g->ep, NULL));
    TRY(fi_ep_bind(g->ep, &g->av->fid, 0));
    /* No CQ entry for an operation unless asked (none is): the counter. */
    TRY(fi_ep_bind(g->ep, &g->cq->fid, FI_TRANSMIT | FI_SELECTIVE_COMPLETION |
                                       ((caps & FI_MSG) ? FI_RECV : 0)));
    TRY(fi_ep_bind(g->ep, &g->cntr->fid, FI_WRITE | FI_READ));
    TRY(fi_enable(g->ep));

    /* The segment: ordinary memory; registering it for remote access
     * makes it an entry of the NIC's registration table. */
    g->seg_len = seg_len;
    if (posix_memalign(&seg, 4096, seg_len)) {
        fprintf(stderr, "node %u: no memory for the segment\n", g->me);
        exit(1);
    }
    g->seg = seg;
    memset(g->seg, 0, seg_len);
    TRY(fi_mr_reg(g->domain, g->seg, seg_len, FI_REMOTE_WRITE | FI_REMOTE_READ, 0, 0, 0,
                  &g->mr, NULL));
    exchange(g);
}

void pgas_finalize(struct pgas *g)
{
    /* Nobody may still be reaching into our segment when it closes. */
    TRY(dn_rendezvous("pgas-finalize", PGAS_WAIT_MS));
    fi_close(&g->mr->fid);
    fi_close(&g->ep->fid);
    fi_close(&g->cntr->fid);
    fi_close(&g->cq->fid);
    fi_close(&g->av->fid);
    fi_close(&g->domain->fid);
    fi_close(&g->fabric->fid);
    fi_freeinfo(g->info);
    free(g->seg);
}

uint64_t pgas_raddr(const struct pgas *g, unsigned node, size_t off)
{
    return g->base[node] + off;
}

static void posted_or_die(struct pgas *g, ssize_t rc, const char *what)
{
    if (rc) {
        fprintf(stderr, "node %u: %s: %s\n", g->me, what, fi_strerror((int)-rc));
        exit(1);
    }
    g->posted++;
}

static void write_msg(struct pgas *g, unsigned node, size_t off, const void *src,
                      size_t len, uint64_t flags)
{
    struct iovec iov = { (void *)src, len };
    struct fi_rma_iov riov = { pgas_raddr(g, node, off), len, g->key[node] };
    struct fi_msg_rma msg = { .msg_iov = &iov, .iov_count = 1, .addr = g->addr[node],
                              .rma_iov = &riov, .rma_iov_count = 1 };
    ssize_t rc;

    while ((rc = fi_writemsg(g->ep, &msg, flags)) == -FI_EAGAIN) {
        pgas_progress(g);
    }
    posted_or_die(g, rc, "fi_writemsg");
}

void pgas_put(struct pgas *g, unsigned node, size_t off, const void *src, size_t len)
{
    write_msg(g, node, off, src, len, 0);
}

void pgas_put_word(struct pgas *g, unsigned node, size_t off, uint64_t value, int fence)
{
    write_msg(g, node, off, &value, sizeof(value), FI_INJECT | (fence ? FI_FENCE : 0));
}

void pgas_get(struct pgas *g, unsigned node, size_t off, void *dst, size_t len)
{
    ssize_t rc;

    while ((rc = fi_read(g->ep, dst, len, NULL, g->addr[node], pgas_raddr(g, node, off),
                         g->key[node], NULL)) == -FI_EAGAIN) {
        pgas_progress(g);
    }
    posted_or_die(g, rc, "fi_read");
}

void pgas_progress(struct pgas *g)
{
    (void)fi_cntr_read(g->cntr);
}

uint64_t pgas_sync(struct pgas *g)
{
    for (;;) {
        uint64_t errs = fi_cntr_readerr(g->cntr);
        int rc;

        if (fi_cntr_read(g->cntr) + errs >= g->posted) {
            return errs;
        }
        rc = fi_cntr_wait(g->cntr, g->posted - errs, PGAS_WAIT_MS);
        if (rc && rc != -FI_EAVAIL) {           /* -FI_EAVAIL: an error came, recount */
            fprintf(stderr, "node %u: fi_cntr_wait: %s\n", g->me, fi_strerror(-rc));
            exit(1);
        }
    }
}

uint64_t pgas_load_word(const struct pgas *g, size_t off)
{
    return __atomic_load_n((uint64_t *)(g->seg + off), __ATOMIC_ACQUIRE);
}

int pgas_wait_word(struct pgas *g, size_t off, uint64_t value)
{
    int64_t deadline = now_ms() + PGAS_WAIT_MS;

    while (pgas_load_word(g, off) != value) {
        if (now_ms() > deadline) {
            return -1;
        }
        pgas_progress(g);
        sched_yield();
    }
    return 0;
}

void pgas_fill(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(seed * 167u + i * 13u + (i >> 8) + (seed >> 8));
    }
}

size_t pgas_check(const uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != (uint8_t)(seed * 167u + i * 13u + (i >> 8) + (seed >> 8))) {
            return i;
        }
    }
    return n;
}
