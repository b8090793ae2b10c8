/* What the libfabric tests share (fabric_util.h). */
#include <string.h>
#include <time.h>
#include "fabric_util.h"

struct fid_fabric *fabric;
struct fid_domain *domain;
struct fid_av *av;
struct fid_cq *cq;
struct fid_ep *ep;
struct fid_cntr *cntr;
struct fi_info *info;
unsigned me, nodes;
fi_addr_t node_addr[FAB_NODES];

static uint8_t pattern(uint32_t seed, size_t i)
{
    return (uint8_t)(seed * 131u + i * 7u + (i >> 9));
}

void fill(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = pattern(seed, i);
    }
}

int same(const uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != pattern(seed, i)) {
            return 0;
        }
    }
    return 1;
}

int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct fi_cq_tagged_entry wait_comp_for(fi_addr_t *src, struct fi_cq_err_entry *err,
                                        int timeout_ms)
{
    struct fi_cq_tagged_entry e;
    int64_t deadline = now_ms() + timeout_ms;

    memset(err, 0, sizeof(*err));
    while (now_ms() < deadline) {
        ssize_t n = fi_cq_readfrom(cq, &e, 1, src);

        if (n == 1) {
            return e;
        }
        if (n == -FI_EAVAIL) {
            CHECK(fi_cq_readerr(cq, err, 0) == 1);
            memset(&e, 0, sizeof(e));
            e.op_context = err->op_context;
            e.flags = err->flags;
            return e;
        }
        CHECK_MSG(n == -FI_EAGAIN, "fi_cq_readfrom: %zd", n);
    }
    fprintf(stderr, "node %u: no completion in %d ms\n", me, timeout_ms);
    exit(1);
}

struct fi_cq_tagged_entry wait_comp(fi_addr_t *src, struct fi_cq_err_entry *err)
{
    return wait_comp_for(src, err, TIMEOUT_MS);
}

struct fi_cq_tagged_entry expect(void *ctx, uint64_t flags, fi_addr_t *src)
{
    struct fi_cq_err_entry err;
    struct fi_cq_tagged_entry e = wait_comp(src, &err);

    CHECK_MSG(!err.err, "node %u: error completion %d (%s)", me, err.err,
              fi_strerror(err.err));
    CHECK_MSG(e.op_context == ctx, "node %u: completion of %p, expected %p", me,
              e.op_context, ctx);
    CHECK_MSG((e.flags & flags) == flags, "node %u: flags 0x%llx lack 0x%llx", me,
              (unsigned long long)e.flags, (unsigned long long)flags);
    return e;
}

void expect_all(void **ctx, struct fi_cq_tagged_entry *out, fi_addr_t *srcs, unsigned n)
{
    for (unsigned got = 0; got < n; got++) {
        struct fi_cq_err_entry err;
        fi_addr_t src = FI_ADDR_NOTAVAIL;
        struct fi_cq_tagged_entry e = wait_comp(&src, &err);
        unsigned i = 0;

        CHECK_MSG(!err.err, "node %u: error completion %d (%s)", me, err.err,
                  fi_strerror(err.err));
        while (i < n && ctx[i] != e.op_context) {
            i++;
        }
        CHECK_MSG(i < n, "node %u: completion of an unknown context %p", me, e.op_context);
        if (i < n && out) {
            out[i] = e;
        }
        if (i < n && srcs) {
            srcs[i] = src;
        }
    }
}

void tsend_to(fi_addr_t dest, const void *buf, size_t len, uint64_t tag, void *ctx)
{
    ssize_t rc;

    while ((rc = fi_tsend(ep, buf, len, NULL, dest, tag, ctx)) == -FI_EAGAIN) {
        struct fi_cq_tagged_entry e;
        fi_cq_read(cq, &e, 0);
    }
    CHECK_MSG(rc == 0, "fi_tsend: %s", fi_strerror((int)-rc));
}

void fab_setup(void)
{
    fab_setup_caps(0, 0);
}

void fab_setup_caps(uint64_t caps, int mr_mode)
{
    struct fi_info *hints = fi_allocinfo();
    struct fi_av_attr av_attr = { 0 };
    struct fi_cq_attr cq_attr = { 0 };
    const char *id = getenv("DIMMNET_NODE_ID"), *n = getenv("DIMMNET_NODES");

    me = id ? (unsigned)atoi(id) : 0;
    nodes = n ? (unsigned)atoi(n) : 2;
    if (nodes > FAB_NODES) {
        fprintf(stderr, "node %u: %u nodes, at most %u\n", me, nodes, FAB_NODES);
        exit(1);
    }
    hints->caps = FI_TAGGED | FI_MSG | FI_DIRECTED_RECV | FI_SOURCE | caps;
    hints->domain_attr->mr_mode = mr_mode;
    hints->ep_attr->type = FI_EP_RDM;
    hints->fabric_attr->prov_name = strdup("dimmnet");
    TRY(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info));
    fi_freeinfo(hints);
    CHECK_EQ(info->ep_attr->type, FI_EP_RDM);
    TRY(fi_fabric(info->fabric_attr, &fabric, NULL));
    TRY(fi_domain(fabric, info, &domain, NULL));
    av_attr.type = me == 0 ? FI_AV_TABLE : FI_AV_MAP;
    TRY(fi_av_open(domain, &av_attr, &av, NULL));
    cq_attr.format = FI_CQ_FORMAT_TAGGED;
    TRY(fi_cq_open(domain, &cq_attr, &cq, NULL));
    TRY(fi_endpoint(domain, info, &ep, NULL));
    CHECK(fi_enable(ep) == -FI_ENOAV);             /* not bound yet */
    TRY(fi_ep_bind(ep, &av->fid, 0));
    TRY(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    if (caps & FI_RMA) {
        struct fi_cntr_attr cntr_attr = { .events = FI_CNTR_EVENTS_COMP,
                                          .wait_obj = FI_WAIT_UNSPEC };
        TRY(fi_cntr_open(domain, &cntr_attr, &cntr, NULL));
        TRY(fi_ep_bind(ep, &cntr->fid, FI_WRITE | FI_READ | FI_REMOTE_WRITE));
    }
    TRY(fi_enable(ep));
    fab_exchange_names("fi");
}

void fab_exchange_names(const char *tag)
{
    char name[64], key[32], hex[129] = "", value[129];
    size_t len = sizeof(name);

    TRY(fi_getname(&ep->fid, name, &len));
    for (size_t i = 0; i < len; i++) {
        snprintf(hex + 2 * i, 3, "%02x", (uint8_t)name[i]);
    }
    snprintf(key, sizeof(key), "%s-name.%u", tag, me);
    CHECK(dn_publish(key, hex) == DN_OK);
    for (unsigned k = 0; k < nodes; k++) {       /* in node order, itself too */
        snprintf(key, sizeof(key), "%s-name.%u", tag, k);
        CHECK(dn_lookup(key, value, sizeof(value), TIMEOUT_MS) == DN_OK);
        for (size_t i = 0; i < len; i++) {
            unsigned b;
            sscanf(value + 2 * i, "%2x", &b);
            name[i] = (char)b;
        }
        CHECK_EQ(fi_av_insert(av, name, 1, &node_addr[k], 0, NULL), 1);
    }
    snprintf(key, sizeof(key), "%s-ready", tag);
    CHECK(dn_rendezvous(key, TIMEOUT_MS) == DN_OK);
}

int fab_failures(void)
{
    return check_failures;
}

void fab_close(void)
{
    fi_close(&ep->fid);
    if (cntr) {
        fi_close(&cntr->fid);
    }
    fi_close(&cq->fid);
    fi_close(&av->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    fi_freeinfo(info);
}

int fab_ep_open(struct fab_ep *r, uint64_t caps)
{
    struct fi_info *hints = fi_allocinfo();
    struct fi_av_attr av_attr = { .type = FI_AV_MAP };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_CONTEXT };
    int rc;

    hints->caps = caps;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup("dimmnet");
    rc = fi_getinfo(FI_VERSION(1, 5), NULL, NULL, 0, hints, &r->info);
    fi_freeinfo(hints);
    if (rc || (rc = fi_fabric(r->info->fabric_attr, &r->fab, NULL)) ||
        (rc = fi_domain(r->fab, r->info, &r->dom, NULL)) ||
        (rc = fi_av_open(r->dom, &av_attr, &r->av, NULL)) ||
        (rc = fi_cq_open(r->dom, &cq_attr, &r->cq, NULL)) ||
        (rc = fi_endpoint(r->dom, r->info, &r->ep, NULL))) {
        return rc;
    }
    if ((rc = fi_ep_bind(r->ep, &r->av->fid, 0)) ||
        (rc = fi_ep_bind(r->ep, &r->cq->fid, FI_TRANSMIT)) ||    /* no receive CQ */
        (rc = fi_enable(r->ep))) {
        return rc;
    }
    return 0;
}

void fab_ep_close(struct fab_ep *r)
{
    if (r->ep) {
        fi_close(&r->ep->fid);
    }
    if (r->cq) {
        fi_close(&r->cq->fid);
    }
    if (r->av) {
        fi_close(&r->av->fid);
    }
    if (r->dom) {
        fi_close(&r->dom->fid);
    }
    if (r->fab) {
        fi_close(&r->fab->fid);
    }
    fi_freeinfo(r->info);
    memset(r, 0, sizeof(*r));
}
