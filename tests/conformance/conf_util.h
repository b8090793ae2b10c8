/*
 * What the conformance tests share: the provider "dimmnet" found through
 * fi_getinfo (FI_PROVIDER_PATH set by the test), its objects opened as
 * fi_*(3) describe, and the expected answer of a call checked with the
 * call's text in the message.
 */
#ifndef TESTS_CONF_UTIL_H
#define TESTS_CONF_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_collective.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include "../common/check.h"

/* @call must answer @want (0, a count, or a negative fabric errno). */
#define EXPECT(call, want)                                                   \
    do {                                                                     \
        long got_ = (long)(call);                                            \
        long want_ = (long)(want);                                           \
        CHECK_MSG(got_ == want_, "%s = %ld (%s), expected %ld (%s)", #call,  \
                  got_, got_ < 0 ? fi_strerror((int)-got_) : "",              \
                  want_, want_ < 0 ? fi_strerror((int)-want_) : "");          \
    } while (0)

/* Stop at once (a later step would crash on what failed here). */
#define MUST(call)                                                           \
    do {                                                                     \
        long rc_ = (long)(call);                                             \
        if (rc_) {                                                           \
            fprintf(stderr, "%s:%d: %s: %ld (%s)\n", __FILE__, __LINE__,     \
                    #call, rc_, fi_strerror((int)-rc_));                     \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

static inline int64_t conf_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The provider's one fi_info (FI_EP_RDM, tagged and untagged messages). */
static inline struct fi_info *conf_info(void)
{
    struct fi_info *hints = fi_allocinfo(), *info = NULL;

    hints->caps = FI_TAGGED | FI_MSG | FI_DIRECTED_RECV | FI_SOURCE;
    hints->ep_attr->type = FI_EP_RDM;
    hints->fabric_attr->prov_name = strdup("dimmnet");
    MUST(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info));
    fi_freeinfo(hints);
    return info;
}

/* An endpoint of its own, enabled: bound to an AV that holds its own name
 * (*self) and to one CQ (@cq_attr) for both directions. */
struct conf_ep {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_cntr *cntr;       /* conf_ep_open_cntr: counts sends and receives */
    struct fid_ep *ep;
    fi_addr_t self;
};

/* An endpoint bound to a CQ of @cq_attr and, with @cntr_attr, to a counter
 * of its sends and receives; its own address in the AV (c->self). */
static inline void conf_ep_open_cntr(struct conf_ep *c, struct fi_cq_attr *cq_attr,
                                     struct fi_cntr_attr *cntr_attr)
{
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
    char name[64];
    size_t len = sizeof(name);

    memset(c, 0, sizeof(*c));
    c->info = conf_info();
    MUST(fi_fabric(c->info->fabric_attr, &c->fabric, NULL));
    MUST(fi_domain(c->fabric, c->info, &c->domain, NULL));
    MUST(fi_av_open(c->domain, &av_attr, &c->av, NULL));
    MUST(fi_cq_open(c->domain, cq_attr, &c->cq, NULL));
    MUST(fi_endpoint(c->domain, c->info, &c->ep, NULL));
    MUST(fi_ep_bind(c->ep, &c->av->fid, 0));
    MUST(fi_ep_bind(c->ep, &c->cq->fid, FI_TRANSMIT | FI_RECV));
    if (cntr_attr) {
        MUST(fi_cntr_open(c->domain, cntr_attr, &c->cntr, NULL));
        MUST(fi_ep_bind(c->ep, &c->cntr->fid, FI_SEND | FI_RECV));
    }
    MUST(fi_enable(c->ep));
    MUST(fi_getname(&c->ep->fid, name, &len));
    if (fi_av_insert(c->av, name, 1, &c->self, 0, NULL) != 1) {
        fprintf(stderr, "cannot insert the endpoint's own name\n");
        exit(1);
    }
}

static inline void conf_ep_open(struct conf_ep *c, struct fi_cq_attr *cq_attr)
{
    conf_ep_open_cntr(c, cq_attr, NULL);
}

static inline void conf_ep_close(struct conf_ep *c)
{
    EXPECT(fi_close(&c->ep->fid), 0);
    if (c->cntr) {
        EXPECT(fi_close(&c->cntr->fid), 0);
    }
    EXPECT(fi_close(&c->cq->fid), 0);
    EXPECT(fi_close(&c->av->fid), 0);
    EXPECT(fi_close(&c->domain->fid), 0);
    EXPECT(fi_close(&c->fabric->fid), 0);
    fi_freeinfo(c->info);
}

#endif
