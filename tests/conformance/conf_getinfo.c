/*
 * fi_getinfo and addressing, as fi_getinfo(3) and fi_domain(3) describe
 * (always with prov_name "dimmnet", API 1.17):
 *   no_hints    one info: FI_EP_RDM, src_addr this node's name (what
 *               fi_getname gives) with src_addrlen, no dest_addr; each
 *               capability bit on the attribute it belongs to (transmit,
 *               receive, domain), info->caps their union
 *   caps        primary caps as asked (FI_MSG alone: no FI_TAGGED), with
 *               the secondary ones; FI_COLLECTIVE only when asked (on
 *               caps, tx and rx); caps not offered (FI_MULTICAST,
 *               FI_SHARED_AV, ...), in info->caps or in an attribute's
 *               caps: -FI_ENODATA
 *   order       msg_order FI_ORDER_SAS answered as asked; every other
 *               msg_order bit and any comp_order: -FI_ENODATA, never a
 *               weaker answer
 *   ep_type     FI_EP_UNSPEC and FI_EP_RDM answer FI_EP_RDM; the others
 *               -FI_ENODATA
 *   mode        every mode bit is accepted (we need none): mode 0
 *   addr_format FI_FORMAT_UNSPEC only (ours is provider-specific)
 *   domain      threading, progress, av_type, counts the domain cannot meet:
 *               -FI_ENODATA; av_type answered as asked
 *   node        node "N" / "dimmnet://N" without FI_SOURCE: dest_addr names
 *               board N, src_addr ours; with FI_SOURCE it names the source
 *               (our board; another: -FI_ENODATA); no such board, a name
 *               that is no board, a non-numeric service: -FI_ENODATA; the
 *               hints' src_addr/dest_addr taken
 *   domains     two domains in one process (fi_dom_test -n 2): both open,
 *               the node's one endpoint in either, a second -FI_EBUSY; a
 *               message to ourselves through the dest_addr fi_getinfo gave
 *
 *   conf_getinfo [CASE]     (under dimmnet-cluster -n 2, each node on its own)
 */
#include "conf_util.h"

#define API FI_VERSION(1, 17)
#define TX_BITS (FI_MSG | FI_TAGGED | FI_SEND | FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE | \
                 FI_COLLECTIVE)
#define RX_BITS (FI_MSG | FI_TAGGED | FI_RECV | FI_DIRECTED_RECV | FI_SOURCE | FI_MULTI_RECV | \
                 FI_RMA | FI_ATOMIC | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_RMA_EVENT | \
                 FI_COLLECTIVE)
#define RMA_ROLES (FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)
#define DOM_BITS (FI_LOCAL_COMM | FI_REMOTE_COMM)

struct addr {                   /* the provider's name: magic, node id */
    uint32_t magic, node;
};

static uint32_t self, nodes;

static struct fi_info *hints_new(void)
{
    struct fi_info *h = fi_allocinfo();

    h->fabric_attr->prov_name = strdup("dimmnet");
    return h;
}

/* fi_getinfo with @h (freed), the answer in *out (NULL on error). */
static int gi(const char *node, const char *service, uint64_t flags, struct fi_info *h,
              struct fi_info **out)
{
    struct fi_info *info = NULL;
    int rc = fi_getinfo(API, node, service, flags, h, &info);

    fi_freeinfo(h);
    if (rc) {
        *out = NULL;
        return rc;
    }
    CHECK_MSG(info && !info->next, "one fi_info from dimmnet");
    *out = info;
    return 0;
}

/* Only whether the provider takes @h. */
static int takes(struct fi_info *h)
{
    struct fi_info *info;
    int rc = gi(NULL, NULL, 0, h, &info);

    fi_freeinfo(info);
    return rc;
}

static int addr_is(const void *a, size_t len, uint32_t node)
{
    const struct addr *x = a;

    return a && len == sizeof(*x) && x->node == node;
}

/* What every answer must hold, whatever the hints. */
static void check_info(const struct fi_info *fi)
{
    CHECK_EQ(fi->ep_attr->type, FI_EP_RDM);
    CHECK_EQ(fi->addr_format, FI_FORMAT_UNSPEC);
    CHECK_EQ(fi->mode, 0);
    CHECK_MSG(!(fi->tx_attr->caps & ~(uint64_t)TX_BITS), "tx caps 0x%llx: transmit bits only",
              (unsigned long long)fi->tx_attr->caps);
    CHECK_MSG(!(fi->rx_attr->caps & ~(uint64_t)RX_BITS), "rx caps 0x%llx: receive bits only",
              (unsigned long long)fi->rx_attr->caps);
    CHECK_MSG(!(fi->domain_attr->caps & ~(uint64_t)DOM_BITS),
              "domain caps 0x%llx: domain bits only", (unsigned long long)fi->domain_attr->caps);
    CHECK_EQ(fi->tx_attr->caps | fi->rx_attr->caps | fi->domain_attr->caps, fi->caps);
    CHECK_EQ(fi->tx_attr->msg_order, FI_ORDER_SAS);
    CHECK_EQ(fi->rx_attr->msg_order, FI_ORDER_SAS);
    CHECK_EQ(fi->tx_attr->comp_order, FI_ORDER_NONE);
    CHECK_EQ(fi->rx_attr->comp_order, FI_ORDER_NONE);
    CHECK_EQ(fi->domain_attr->threading, FI_THREAD_DOMAIN);
    CHECK_EQ(fi->domain_attr->data_progress, FI_PROGRESS_MANUAL);
    CHECK_MSG(addr_is(fi->src_addr, fi->src_addrlen, self), "src_addr is this node (%u)", self);
}

static void test_no_hints(void)
{
    struct fi_info *all = NULL, *fi = NULL;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fi_av_attr av_attr = { .type = FI_AV_MAP };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
    struct addr name;
    size_t len = sizeof(name);

    /* Truly no hints: every provider answers; ours is among them. */
    MUST(fi_getinfo(API, NULL, NULL, 0, NULL, &all));
    for (struct fi_info *i = all; i; i = i->next) {
        if (!strcmp(i->fabric_attr->prov_name, "dimmnet")) {
            CHECK_MSG(!fi, "dimmnet answers once");
            fi = i;
        }
    }
    CHECK_MSG(fi, "dimmnet answers fi_getinfo without hints");
    if (!fi) {
        fi_freeinfo(all);
        return;
    }
    check_info(fi);
    /* Everything but FI_RMA_EVENT, which costs a message an RMA, and
     * FI_COLLECTIVE, given only when asked for. */
    CHECK_EQ(fi->caps, (TX_BITS | RX_BITS | DOM_BITS) & ~(FI_RMA_EVENT | FI_COLLECTIVE));
    CHECK_EQ(fi->tx_attr->caps, TX_BITS & ~FI_COLLECTIVE);
    CHECK_EQ(fi->rx_attr->caps, RX_BITS & ~(FI_RMA_EVENT | FI_COLLECTIVE));
    CHECK_EQ(fi->domain_attr->caps, DOM_BITS);
    CHECK(!fi->dest_addr && !fi->dest_addrlen);
    /* src_addr is what the endpoint calls itself. */
    MUST(fi_fabric(fi->fabric_attr, &fabric, NULL));
    MUST(fi_domain(fabric, fi, &domain, NULL));
    MUST(fi_av_open(domain, &av_attr, &av, NULL));
    MUST(fi_cq_open(domain, &cq_attr, &cq, NULL));
    MUST(fi_endpoint(domain, fi, &ep, NULL));
    EXPECT(fi_getname(&ep->fid, &name, &len), 0);
    CHECK(len == fi->src_addrlen && !memcmp(&name, fi->src_addr, len));
    EXPECT(fi_close(&ep->fid), 0);
    EXPECT(fi_close(&cq->fid), 0);
    EXPECT(fi_close(&av->fid), 0);
    EXPECT(fi_close(&domain->fid), 0);
    EXPECT(fi_close(&fabric->fid), 0);
    fi_freeinfo(all);
}

static void test_caps(void)
{
    static const uint64_t ok[] = {
        FI_MSG, FI_TAGGED, FI_MSG | FI_TAGGED, FI_MSG | FI_SEND, FI_TAGGED | FI_RECV,
        FI_TAGGED | FI_DIRECTED_RECV | FI_SOURCE, FI_MSG | FI_LOCAL_COMM | FI_REMOTE_COMM,
        FI_MSG | FI_MULTI_RECV, TX_BITS | RX_BITS | DOM_BITS,
        FI_RMA, FI_MSG | FI_RMA, FI_RMA | FI_WRITE, FI_RMA | FI_REMOTE_READ, FI_ATOMIC,
        FI_TAGGED | FI_ATOMIC | FI_READ, FI_RMA | FI_RMA_EVENT,
        FI_COLLECTIVE, FI_MSG | FI_TAGGED | FI_COLLECTIVE,
    };
    static const uint64_t no[] = {
        FI_MULTICAST, FI_NAMED_RX_CTX, FI_HMEM, FI_VARIABLE_MSG,
        FI_TRIGGER, FI_FENCE, FI_SOURCE_ERR, FI_RMA_PMEM,
        FI_SHARED_AV, FI_AV_USER_ID, FI_MSG | FI_MULTICAST, FI_TAGGED | FI_SHARED_AV,
    };
    struct fi_info *h, *fi;

    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        h = hints_new();
        h->caps = ok[i];
        EXPECT(gi(NULL, NULL, 0, h, &fi), 0);
        if (!fi) {
            continue;
        }
        check_info(fi);
        /* Asked-for caps are there; primary ones not asked for are not. */
        CHECK_MSG((fi->caps & ok[i]) == ok[i], "caps 0x%llx answer 0x%llx",
                  (unsigned long long)ok[i], (unsigned long long)fi->caps);
        if (!(ok[i] & FI_TAGGED)) {
            CHECK(!(fi->caps & FI_TAGGED));
        }
        if (!(ok[i] & FI_MSG)) {
            CHECK(!(fi->caps & FI_MSG));
        }
        if (!(ok[i] & FI_RMA)) {
            CHECK(!(fi->caps & FI_RMA));
        }
        if (!(ok[i] & FI_ATOMIC)) {
            CHECK(!(fi->caps & FI_ATOMIC));
        }
        /* FI_RMA or FI_ATOMIC without a role implies every role; with
         * roles asked, only those. */
        if ((ok[i] & (FI_RMA | FI_ATOMIC)) && !(ok[i] & RMA_ROLES)) {
            CHECK_EQ(fi->caps & RMA_ROLES, RMA_ROLES);
        } else if (ok[i] & (FI_RMA | FI_ATOMIC)) {
            CHECK_EQ(fi->caps & RMA_ROLES, ok[i] & RMA_ROLES);
        }
        fi_freeinfo(fi);
    }
    /* FI_RMA_EVENT costs a message an RMA: given only when asked; and so
     * is FI_COLLECTIVE, which then sits on both attributes. */
    h = hints_new();
    h->caps = FI_RMA;
    EXPECT(gi(NULL, NULL, 0, h, &fi), 0);
    CHECK(fi && !(fi->caps & FI_RMA_EVENT) && !(fi->rx_attr->caps & FI_RMA_EVENT));
    CHECK(fi && !(fi->caps & FI_COLLECTIVE));
    fi_freeinfo(fi);
    h = hints_new();
    h->caps = FI_TAGGED | FI_COLLECTIVE;
    EXPECT(gi(NULL, NULL, 0, h, &fi), 0);
    CHECK(fi && (fi->tx_attr->caps & FI_COLLECTIVE) && (fi->rx_attr->caps & FI_COLLECTIVE));
    fi_freeinfo(fi);
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        h = hints_new();
        h->caps = no[i];
        CHECK_MSG(takes(h) == -FI_ENODATA, "caps 0x%llx", (unsigned long long)no[i]);
        h = hints_new();
        h->tx_attr->caps = no[i];
        if (no[i] & (FI_MULTICAST |
                     FI_NAMED_RX_CTX | FI_HMEM | FI_TRIGGER | FI_FENCE)) {
            CHECK_MSG(takes(h) == -FI_ENODATA, "tx caps 0x%llx", (unsigned long long)no[i]);
        } else {
            fi_freeinfo(h);
        }
        h = hints_new();
        h->rx_attr->caps = no[i];
        if (no[i] & (
                     FI_VARIABLE_MSG | FI_SOURCE_ERR)) {
            CHECK_MSG(takes(h) == -FI_ENODATA, "rx caps 0x%llx", (unsigned long long)no[i]);
        } else {
            fi_freeinfo(h);
        }
    }
    /* Domain capabilities live on the domain attribute. */
    h = hints_new();
    h->domain_attr->caps = FI_SHARED_AV;
    EXPECT(takes(h), -FI_ENODATA);
    h = hints_new();
    h->domain_attr->caps = FI_LOCAL_COMM | FI_REMOTE_COMM;
    EXPECT(takes(h), 0);
}

static void test_order(void)
{
    static const uint64_t no_msg[] = {
        FI_ORDER_RAR, FI_ORDER_RAW, FI_ORDER_RAS, FI_ORDER_WAR, FI_ORDER_WAW,
        FI_ORDER_WAS, FI_ORDER_SAR, FI_ORDER_SAW, FI_ORDER_SAS | FI_ORDER_RAW,
        FI_ORDER_RMA_RAR, FI_ORDER_RMA_WAW, FI_ORDER_ATOMIC_RAW, FI_ORDER_ATOMIC_WAW,
        FI_ORDER_STRICT,
    };
    struct fi_info *h, *fi;

    for (int rx = 0; rx < 2; rx++) {
        h = hints_new();
        *(rx ? &h->rx_attr->msg_order : &h->tx_attr->msg_order) = FI_ORDER_SAS;
        EXPECT(gi(NULL, NULL, 0, h, &fi), 0);
        if (fi) {
            check_info(fi);
            fi_freeinfo(fi);
        }
        for (size_t i = 0; i < sizeof(no_msg) / sizeof(no_msg[0]); i++) {
            h = hints_new();
            *(rx ? &h->rx_attr->msg_order : &h->tx_attr->msg_order) = no_msg[i];
            CHECK_MSG(takes(h) == -FI_ENODATA, "%s msg_order 0x%llx", rx ? "rx" : "tx",
                      (unsigned long long)no_msg[i]);
        }
        h = hints_new();
        *(rx ? &h->rx_attr->comp_order : &h->tx_attr->comp_order) = FI_ORDER_NONE;
        EXPECT(takes(h), 0);
        h = hints_new();
        *(rx ? &h->rx_attr->comp_order : &h->tx_attr->comp_order) = FI_ORDER_STRICT;
        EXPECT(takes(h), -FI_ENODATA);
        h = hints_new();
        *(rx ? &h->rx_attr->comp_order : &h->tx_attr->comp_order) = FI_ORDER_DATA;
        EXPECT(takes(h), -FI_ENODATA);
    }
}

static void test_ep_type(void)
{
    static const enum fi_ep_type no[] = {
        FI_EP_MSG, FI_EP_DGRAM, FI_EP_SOCK_STREAM, FI_EP_SOCK_DGRAM,
    };
    struct fi_info *h, *fi;

    for (int t = 0; t < 2; t++) {
        h = hints_new();
        h->ep_attr->type = t ? FI_EP_RDM : FI_EP_UNSPEC;
        EXPECT(gi(NULL, NULL, 0, h, &fi), 0);
        if (fi) {
            check_info(fi);
            fi_freeinfo(fi);
        }
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        h = hints_new();
        h->ep_attr->type = no[i];
        CHECK_MSG(takes(h) == -FI_ENODATA, "ep_type %d", (int)no[i]);
    }
    h = hints_new();
    h->ep_attr->tx_ctx_cnt = FI_SHARED_CONTEXT;
    EXPECT(takes(h), -FI_ENODATA);
    h = hints_new();
    h->ep_attr->protocol = FI_PROTO_UDP;
    EXPECT(takes(h), -FI_ENODATA);
}

static void test_mode(void)
{
    static const uint64_t modes[] = {
        FI_CONTEXT, FI_CONTEXT2, FI_MSG_PREFIX, FI_ASYNC_IOV, FI_RX_CQ_DATA,
        FI_LOCAL_MR, FI_NOTIFY_FLAGS_ONLY, FI_RESTRICTED_COMP, FI_BUFFERED_RECV,
        FI_CONTEXT | FI_CONTEXT2 | FI_RX_CQ_DATA | FI_ASYNC_IOV,
    };
    struct fi_info *h, *fi;

    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        h = hints_new();
        h->mode = modes[i];
        EXPECT(gi(NULL, NULL, 0, h, &fi), 0);
        if (fi) {
            check_info(fi);   /* mode 0: nothing asked of the application */
            fi_freeinfo(fi);
        }
    }
}

static void test_addr_format(void)
{
    static const uint32_t no[] = {
        FI_SOCKADDR, FI_SOCKADDR_IN, FI_SOCKADDR_IN6, FI_SOCKADDR_IB, FI_ADDR_PSMX,
        FI_ADDR_GNI, FI_ADDR_BGQ, FI_ADDR_MLX, FI_ADDR_STR, FI_ADDR_PSMX2, FI_ADDR_IB_UD,
        FI_ADDR_EFA, FI_ADDR_PSMX3, FI_ADDR_OPX, FI_ADDR_CXI,
    };
    struct fi_info *h, *fi;

    h = hints_new();
    h->addr_format = FI_FORMAT_UNSPEC;
    EXPECT(gi(NULL, NULL, 0, h, &fi), 0);
    fi_freeinfo(fi);
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        h = hints_new();
        h->addr_format = no[i];
        CHECK_MSG(takes(h) == -FI_ENODATA, "addr_format %u", no[i]);
    }
}

static void test_domain(void)
{
    struct fi_info *h, *fi;

    /* FI_THREAD_SAFE and _FID answered as asked (the provider's lock);
     * the weaker levels are met by FI_THREAD_DOMAIN. */
    static const struct { enum fi_threading ask, answer; } th[] = {
        { FI_THREAD_SAFE, FI_THREAD_SAFE }, { FI_THREAD_FID, FI_THREAD_FID },
        { FI_THREAD_COMPLETION, FI_THREAD_DOMAIN }, { FI_THREAD_ENDPOINT, FI_THREAD_DOMAIN },
        { FI_THREAD_UNSPEC, FI_THREAD_DOMAIN },
    };
    for (size_t i = 0; i < sizeof(th) / sizeof(th[0]); i++) {
        h = hints_new();
        h->domain_attr->threading = th[i].ask;
        EXPECT(gi(NULL, NULL, 0, h, &fi), 0);
        if (fi) {
            CHECK_MSG(fi->domain_attr->threading == th[i].answer, "threading %d answered %d",
                      (int)th[i].ask, (int)fi->domain_attr->threading);
            fi_freeinfo(fi);
        }
    }
    h = hints_new();
    h->domain_attr->data_progress = FI_PROGRESS_AUTO;
    EXPECT(takes(h), -FI_ENODATA);
    h = hints_new();
    h->domain_attr->control_progress = FI_PROGRESS_AUTO;
    EXPECT(takes(h), -FI_ENODATA);
    h = hints_new();
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    EXPECT(takes(h), 0);
    h = hints_new();
    h->domain_attr->ep_cnt = 2;
    EXPECT(takes(h), -FI_ENODATA);
    h = hints_new();
    h->domain_attr->cntr_cnt = 16;                       /* counters (issue 24) */
    EXPECT(takes(h), 0);
    h = hints_new();
    h->domain_attr->cntr_cnt = 17;
    EXPECT(takes(h), -FI_ENODATA);
    h = hints_new();
    h->domain_attr->mr_cnt = 33;                         /* the table's 32 */
    EXPECT(takes(h), -FI_ENODATA);
    /* A process on host port 1 of 3 (the launcher's DIMMNET_PORT and
     * DIMMNET_HOST_PORTS): its share of the table, entries 10..20. */
    setenv("DIMMNET_HOST_PORTS", "3", 1);
    setenv("DIMMNET_PORT", "1", 1);
    h = hints_new();
    EXPECT(gi(NULL, NULL, 0, h, &fi), 0);
    if (fi) {
        CHECK_EQ(fi->domain_attr->mr_cnt, 11);
        fi_freeinfo(fi);
    }
    h = hints_new();
    h->domain_attr->mr_cnt = 12;
    EXPECT(takes(h), -FI_ENODATA);
    unsetenv("DIMMNET_PORT");
    unsetenv("DIMMNET_HOST_PORTS");
    /* mr_mode: what the hints allow of the three we can use, or the old
     * modes as asked. */
    static const struct { int ask, answer; } mr[] = {
        { FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_LOCAL | FI_MR_ENDPOINT,
          FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY },
        { FI_MR_PROV_KEY, FI_MR_PROV_KEY }, { 0, 0 },
        { FI_MR_BASIC, FI_MR_BASIC }, { FI_MR_SCALABLE, FI_MR_SCALABLE },
    };
    for (size_t i = 0; i < sizeof(mr) / sizeof(mr[0]); i++) {
        h = hints_new();
        h->domain_attr->mr_mode = mr[i].ask;
        EXPECT(gi(NULL, NULL, 0, h, &fi), 0);
        if (fi) {
            CHECK_MSG(fi->domain_attr->mr_mode == mr[i].answer, "mr_mode 0x%x answered 0x%x",
                      mr[i].ask, fi->domain_attr->mr_mode);
            CHECK_EQ(fi->domain_attr->mr_key_size, 2);
            CHECK_EQ(fi->domain_attr->mr_cnt, 32);
            fi_freeinfo(fi);
        }
    }
    /* An application of API 1.0 (fabtests getinfo_mr_mode3): FI_MR_UNSPEC
     * leaves the choice between BASIC and SCALABLE to us; the modes of
     * 1.5 and later are not its to ask. */
    static const struct { int ask, answer; } old_api[] = {
        { FI_MR_UNSPEC, FI_MR_BASIC }, { FI_MR_BASIC, FI_MR_BASIC },
        { FI_MR_SCALABLE, FI_MR_SCALABLE }, { FI_MR_PROV_KEY, -1 },
        { FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY, -1 },
    };
    for (size_t i = 0; i < sizeof(old_api) / sizeof(old_api[0]); i++) {
        struct fi_info *info = NULL;
        h = hints_new();
        h->caps = FI_RMA;
        h->domain_attr->mr_mode = old_api[i].ask;
        int rc = fi_getinfo(FI_VERSION(1, 0), NULL, NULL, 0, h, &info);
        fi_freeinfo(h);
        if (old_api[i].answer < 0) {
            CHECK_MSG(rc == -FI_ENODATA, "API 1.0 mr_mode 0x%x: %d", old_api[i].ask, rc);
        } else {
            CHECK_MSG(rc == 0 && info, "API 1.0 mr_mode 0x%x: %d", old_api[i].ask, rc);
            for (struct fi_info *f = info; f; f = f->next) {
                CHECK_MSG(f->domain_attr->mr_mode == old_api[i].answer,
                          "API 1.0 mr_mode 0x%x answered 0x%x", old_api[i].ask,
                          f->domain_attr->mr_mode);
            }
        }
        fi_freeinfo(info);
    }
    h = hints_new();
    h->domain_attr->cq_data_size = 9;
    EXPECT(takes(h), -FI_ENODATA);
    h = hints_new();
    h->domain_attr->name = strdup("mlx5_0");
    EXPECT(takes(h), -FI_ENODATA);
    h = hints_new();
    h->domain_attr->av_type = FI_AV_TABLE;
    EXPECT(gi(NULL, NULL, 0, h, &fi), 0);
    if (fi) {
        CHECK_EQ(fi->domain_attr->av_type, FI_AV_TABLE);
        fi_freeinfo(fi);
    }
}

static void test_node(void)
{
    char own[16], other[16], uri[32], far[16];
    uint32_t peer = (self + 1) % nodes;
    struct fi_info *h, *fi;
    struct addr a;

    snprintf(own, sizeof(own), "%u", self);
    snprintf(other, sizeof(other), "%u", peer);
    snprintf(uri, sizeof(uri), "dimmnet://%u", peer);
    snprintf(far, sizeof(far), "%u", nodes);
    /* Destination names. */
    EXPECT(gi(other, NULL, 0, hints_new(), &fi), 0);
    if (fi) {
        check_info(fi);
        CHECK_MSG(addr_is(fi->dest_addr, fi->dest_addrlen, peer), "dest_addr is board %u", peer);
        fi_freeinfo(fi);
    }
    EXPECT(gi(uri, "9228", 0, hints_new(), &fi), 0);
    if (fi) {
        check_info(fi);
        CHECK(addr_is(fi->dest_addr, fi->dest_addrlen, peer));
        fi_freeinfo(fi);
    }
    EXPECT(gi(far, NULL, 0, hints_new(), &fi), -FI_ENODATA);
    EXPECT(gi("64", NULL, 0, hints_new(), &fi), -FI_ENODATA);
    EXPECT(gi("localhost", NULL, 0, hints_new(), &fi), -FI_ENODATA);
    EXPECT(gi("1x", NULL, 0, hints_new(), &fi), -FI_ENODATA);
    EXPECT(gi(other, "http", 0, hints_new(), &fi), -FI_ENODATA);
    /* Source names. */
    EXPECT(gi(own, NULL, FI_SOURCE, hints_new(), &fi), 0);
    if (fi) {
        check_info(fi);
        CHECK(!fi->dest_addr);
        fi_freeinfo(fi);
    }
    EXPECT(gi(other, NULL, FI_SOURCE, hints_new(), &fi), -FI_ENODATA);
    EXPECT(gi(NULL, "0", FI_SOURCE, hints_new(), &fi), 0);
    if (fi) {
        check_info(fi);
        fi_freeinfo(fi);
    }
    /* Addresses in the hints. */
    h = hints_new();
    a = (struct addr){ 0, peer };
    {
        /* The name's magic is the provider's: take it from src_addr. */
        struct fi_info *probe;

        MUST(gi(NULL, NULL, 0, hints_new(), &probe));
        memcpy(&a, probe->src_addr, sizeof(a));
        a.node = peer;
        fi_freeinfo(probe);
    }
    h->dest_addr = malloc(sizeof(a));
    memcpy(h->dest_addr, &a, sizeof(a));
    h->dest_addrlen = sizeof(a);
    EXPECT(gi(NULL, NULL, 0, h, &fi), 0);
    if (fi) {
        CHECK(addr_is(fi->dest_addr, fi->dest_addrlen, peer));
        fi_freeinfo(fi);
    }
    h = hints_new();
    h->src_addr = malloc(sizeof(a));
    memcpy(h->src_addr, &a, sizeof(a));   /* another board's: not ours */
    h->src_addrlen = sizeof(a);
    EXPECT(gi(NULL, NULL, 0, h, &fi), -FI_ENODATA);
    h = hints_new();
    h->dest_addr = calloc(1, 4);
    h->dest_addrlen = 4;
    EXPECT(gi(NULL, NULL, 0, h, &fi), -FI_ENODATA);
}

static void test_domains(void)
{
    struct fi_info *fi, *to_self;
    struct fid_fabric *fabric;
    struct fid_domain *dom[2];
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep, *ep2;
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
    struct fi_cq_tagged_entry e;
    fi_addr_t fa, src;
    char own[16], in[8] = "", out[8] = "hello";
    ssize_t n;

    snprintf(own, sizeof(own), "%u", self);
    MUST(gi(NULL, NULL, 0, hints_new(), &fi));
    MUST(gi(own, NULL, 0, hints_new(), &to_self));
    MUST(fi_fabric(fi->fabric_attr, &fabric, NULL));
    EXPECT(fi_domain(fabric, fi, &dom[0], NULL), 0);
    EXPECT(fi_domain(fabric, fi, &dom[1], NULL), 0);
    MUST(fi_endpoint(dom[1], fi, &ep, NULL));
    EXPECT(fi_endpoint(dom[0], fi, &ep2, NULL), -FI_EBUSY);
    EXPECT(fi_endpoint(dom[1], fi, &ep2, NULL), -FI_EBUSY);
    EXPECT(fi_close(&dom[1]->fid), -FI_EBUSY);
    EXPECT(fi_close(&dom[0]->fid), 0);    /* the node stays: dom[1] has it */
    /* A message to ourselves, addressed by fi_getinfo's dest_addr. */
    MUST(fi_av_open(dom[1], &av_attr, &av, NULL));
    MUST(fi_cq_open(dom[1], &cq_attr, &cq, NULL));
    MUST(fi_ep_bind(ep, &av->fid, 0));
    MUST(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    MUST(fi_enable(ep));
    EXPECT(fi_av_insert(av, to_self->dest_addr, 1, &fa, 0, NULL), 1);
    EXPECT(fi_trecv(ep, in, sizeof(in), NULL, fa, 7, 0, in), 0);
    EXPECT(fi_tsend(ep, out, sizeof(out), NULL, fa, 7, out), 0);
    int got = 0;
    for (int64_t end = conf_now_ms() + 20000; got < 2 && conf_now_ms() < end;) {
        n = fi_cq_readfrom(cq, &e, 1, &src);
        if (n == 1) {
            got++;
            if (e.op_context == in) {
                CHECK_EQ(src, fa);
                CHECK(!memcmp(in, out, sizeof(out)));
            }
        } else {
            CHECK_MSG(n == -FI_EAGAIN, "fi_cq_readfrom: %zd", n);
            if (n != -FI_EAGAIN) {
                break;
            }
        }
    }
    CHECK_EQ(got, 2);
    EXPECT(fi_close(&ep->fid), 0);
    EXPECT(fi_close(&cq->fid), 0);
    EXPECT(fi_close(&av->fid), 0);
    /* The endpoint is the node's again: another domain may take it. */
    EXPECT(fi_domain(fabric, fi, &dom[0], NULL), 0);
    EXPECT(fi_endpoint(dom[0], fi, &ep2, NULL), 0);
    EXPECT(fi_close(&ep2->fid), 0);
    EXPECT(fi_close(&dom[0]->fid), 0);
    EXPECT(fi_close(&dom[1]->fid), 0);
    EXPECT(fi_close(&fabric->fid), 0);
    fi_freeinfo(fi);
    fi_freeinfo(to_self);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "no_hints", test_no_hints },
        { "caps", test_caps },
        { "order", test_order },
        { "ep_type", test_ep_type },
        { "mode", test_mode },
        { "addr_format", test_addr_format },
        { "domain", test_domain },
        { "node", test_node },
        { "domains", test_domains },
        { NULL, NULL },
    };
    const char *id = getenv("DIMMNET_NODE_ID"), *n = getenv("DIMMNET_NODES");

    if (!id || !n) {
        fprintf(stderr, "run under dimmnet-cluster\n");
        return 1;
    }
    self = (uint32_t)strtoul(id, NULL, 10);
    nodes = (uint32_t)strtoul(n, NULL, 10);
    return run_cases(cases, argc, argv, 1, NULL, NULL);
}
