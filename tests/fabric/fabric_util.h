/*
 * What the libfabric tests share: one endpoint a node on the provider
 * "dimmnet" (FI_PROVIDER_PATH set by the test), every node's name in the
 * AV (exchanged through the launcher's rendezvous), data patterns, and
 * waiting for completions with a bound.
 */
#ifndef TESTS_FABRIC_UTIL_H
#define TESTS_FABRIC_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include "dimmnet1/dn.h"
#include "../common/check.h"

#define TIMEOUT_MS 60000
#define FAB_NODES  64

extern struct fid_fabric *fabric;
extern struct fid_domain *domain;
extern struct fid_av *av;
extern struct fid_cq *cq;
extern struct fid_ep *ep;
extern struct fid_cntr *cntr;          /* with FI_RMA: FI_WRITE | FI_READ | FI_REMOTE_WRITE */
extern struct fi_info *info;
extern unsigned me, nodes;             /* DIMMNET_NODE_ID, DIMMNET_NODES */
extern fi_addr_t node_addr[FAB_NODES]; /* node i's address in the AV */

#define TRY(call)                                                            \
    do {                                                                     \
        int rc_ = (int)(call);                                               \
        if (rc_) {                                                           \
            fprintf(stderr, "node %u: %s: %s\n", me, #call, fi_strerror(-rc_)); \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

/* Open everything (FI_AV_TABLE on node 0, FI_AV_MAP elsewhere), insert
 * every node's name, meet the others. */
void fab_setup(void);
/* The same with more capabilities asked for (FI_RMA...) and @mr_mode
 * allowed in the hints. */
void fab_setup_caps(uint64_t caps, int mr_mode);
void fab_close(void);
/* Publish this endpoint's name under TAG-name.ME, put every node's in the
 * AV in node order (node_addr), and meet the others at TAG-ready. */
void fab_exchange_names(const char *tag);
/* CHECKs that failed in here (check.h counts per file): add to the test's. */
int fab_failures(void);

void fill(uint8_t *p, size_t n, uint32_t seed);
int same(const uint8_t *p, size_t n, uint32_t seed);

/* The next completion (an error entry returned as err->err != 0); exits
 * after @timeout_ms without one. */
struct fi_cq_tagged_entry wait_comp_for(fi_addr_t *src, struct fi_cq_err_entry *err,
                                        int timeout_ms);
/* Monotonic ms, for loops bounded in time (a part may wait for a resend). */
int64_t now_ms(void);
struct fi_cq_tagged_entry wait_comp(fi_addr_t *src, struct fi_cq_err_entry *err);
/* Wait for the completion of @ctx (others of the same kind must not come). */
struct fi_cq_tagged_entry expect(void *ctx, uint64_t flags, fi_addr_t *src);
/* Wait for the completions of @n contexts, in any order, without errors;
 * each one's entry goes to out[i] (may be NULL), its source to srcs[i]. */
void expect_all(void **ctx, struct fi_cq_tagged_entry *out, fi_addr_t *srcs, unsigned n);
/* An endpoint of its own (fabric, domain, AV_MAP, context CQ for transmit
 * only), as Open MPI's btl ofi opens one beside its mtl: @caps asked for,
 * the provider's key modes; the first failing call's code, or 0. */
struct fab_ep {
    struct fi_info *info;
    struct fid_fabric *fab;
    struct fid_domain *dom;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
};
int fab_ep_open(struct fab_ep *r, uint64_t caps);
void fab_ep_close(struct fab_ep *r);

/* fi_tsend, reading the CQ while it answers -FI_EAGAIN. */
void tsend_to(fi_addr_t dest, const void *buf, size_t len, uint64_t tag, void *ctx);

#endif
