/*
 * libfabric provider "dimmnet": FI_EP_RDM with FI_TAGGED and FI_MSG over
 * the host shim's message exchange (host-shim/include/dimmnet1/dn.h), one
 * DIMMnet-1 node per process (opened from the launcher's environment).
 * Written against the installed provider interface only (fi_prov.h).
 *
 * Wire: every libfabric message is one dn_msg message (shim tag 0, so the
 * shim keeps per-pair order) carrying a 16-byte header (magic, kind, the
 * 64-bit libfabric tag) and the payload; matching with tag and ignore
 * bits, directed receives and unexpected messages happen here, in the
 * provider. Eager only: payloads up to DNF_MAX_MSG.
 */
#ifndef DIMMNET_PROV_H
#define DIMMNET_PROV_H

#include <stdint.h>
#include <sys/uio.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include <rdma/providers/fi_prov.h>
#include <rdma/providers/fi_log.h>
#include "dimmnet1/dn.h"

#define DNF_NAME        "dimmnet"
#define DNF_VERSION     FI_VERSION(0, 1)
#define DNF_API_VERSION FI_VERSION(1, 17)
#define DNF_MAX_MSG     (64u * 1024u)      /* payload bytes of one message */
#define DNF_INJECT_SIZE 1024u
#define DNF_BOUNCES     8u                 /* receives kept posted in the shim */
#define DNF_CAPS        (FI_TAGGED | FI_MSG | FI_SEND | FI_RECV | FI_LOCAL_COMM | \
                         FI_REMOTE_COMM | \
                         FI_DIRECTED_RECV | FI_SOURCE)

/* The header in front of every payload (little-endian, host order). */
#define DNF_MAGIC       0x49464e44u        /* "DNFI" */
#define DNF_KIND_MSG    1u
#define DNF_KIND_TAGGED 2u
struct dnf_hdr {
    uint32_t magic, kind;
    uint64_t tag;
};

/* An endpoint's name (fi_getname, AV entries). */
#define DNF_ADDR_MAGIC  0x41464e44u        /* "DNFA" */
struct dnf_addr {
    uint32_t magic, node;
};

extern struct fi_provider dnf_prov;

struct dnf_fabric {
    struct fid_fabric fab;
};

struct dnf_ep;

struct dnf_domain {
    struct fid_domain dom;
    dn_node *node;
    unsigned nodes;              /* DIMMNET_NODES */
    struct dnf_ep *ep;           /* one endpoint a domain */
    int refs;                    /* AVs, CQs and the endpoint open on it */
};

struct dnf_av {
    struct fid_av av;
    struct dnf_domain *dom;
    enum fi_av_type type;
    uint32_t *node;              /* FI_AV_TABLE: index -> node (UINT32_MAX: removed) */
    size_t count, cap;
    uint8_t *in;                 /* FI_AV_MAP: node inserted? (one byte a node) */
};

/* One completion, in order; err != 0 makes it an error entry. */
struct dnf_comp {
    struct fi_cq_tagged_entry e;
    fi_addr_t src;
    int err, prov_errno;
    size_t olen;
};

struct dnf_cq {
    struct fid_cq cq;
    struct dnf_domain *dom;
    enum fi_cq_format format;
    struct dnf_comp *ring;
    size_t size, head, count;
};

/* A posted receive, or one waiting for its message. */
struct dnf_rx {
    struct dnf_rx *next;
    uint32_t kind;
    int complete;                /* a completion on success (errors always) */
    void *buf;
    size_t len;
    int64_t src;                 /* node, or -1: any */
    uint64_t tag, ignore;
    void *context;
};

/* A message that came before its receive. */
struct dnf_unexp {
    struct dnf_unexp *next;
    uint32_t kind, node;
    uint64_t tag;
    size_t len;
    uint8_t data[];
};

/* A send until the shim says it completed. */
struct dnf_tx {
    struct dnf_tx *next;
    dn_msg_req *req;
    uint32_t kind;
    int complete;                /* a completion on success (errors always) */
    size_t len;
    uint64_t tag;
    void *context;
    uint8_t buf[];               /* header + payload */
};

struct dnf_bounce {
    dn_msg_req *req;
    uint8_t buf[sizeof(struct dnf_hdr) + DNF_MAX_MSG];
};

struct dnf_ep {
    struct fid_ep ep;
    struct dnf_domain *dom;
    struct dnf_av *av;
    struct dnf_cq *tx_cq, *rx_cq;
    int enabled;
    /* FI_SELECTIVE_COMPLETION on the CQ binding: then only operations with
     * FI_COMPLETION (their flags, or the default op_flags) complete. */
    int tx_selective, rx_selective;
    uint64_t tx_op_flags, rx_op_flags;
    struct dnf_rx *rx_head, **rx_tail;
    struct dnf_unexp *ux_head, **ux_tail;
    struct dnf_tx *tx_head, **tx_tail;
    struct dnf_bounce *bounce;   /* DNF_BOUNCES, taken in posting order */
    unsigned bounce_next;
};

/* dimmnet_init.c */
int dnf_getinfo(uint32_t version, const char *node, const char *service,
                uint64_t flags, const struct fi_info *hints, struct fi_info **info);
/* dimmnet_fabric.c */
int dnf_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
/* dimmnet_domain.c */
int dnf_domain_open(struct fid_fabric *fabric, struct fi_info *info,
                    struct fid_domain **dom, void *context);
/* dimmnet_av.c */
int dnf_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
                struct fid_av **av, void *context);
int dnf_av_node(struct dnf_av *av, fi_addr_t addr, uint32_t *node);
fi_addr_t dnf_av_addr(struct dnf_av *av, uint32_t node);
/* dimmnet_cq.c */
int dnf_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
                struct fid_cq **cq, void *context);
int dnf_cq_push(struct dnf_cq *cq, const struct dnf_comp *c);
/* dimmnet_ep.c */
int dnf_endpoint(struct fid_domain *domain, struct fi_info *info,
                 struct fid_ep **ep, void *context);
/* dimmnet_progress.c */
void dnf_progress(struct dnf_ep *ep);
int dnf_post_bounces(struct dnf_ep *ep);
void dnf_ep_drain(struct dnf_ep *ep);
/* @flags: FI_INJECT, FI_COMPLETION (for selective completion), as fi_*msg;
 * the plain calls pass the endpoint's default op_flags. */
ssize_t dnf_send(struct dnf_ep *ep, uint32_t kind, const void *buf, size_t len,
                 fi_addr_t dest, uint64_t tag, void *context, uint64_t flags);
ssize_t dnf_recv(struct dnf_ep *ep, uint32_t kind, void *buf, size_t len,
                 fi_addr_t src, uint64_t tag, uint64_t ignore, void *context,
                 uint64_t flags);
extern struct fi_ops_msg dnf_msg_ops;
extern struct fi_ops_tagged dnf_tagged_ops;

/* libfabric errors for the shim's statuses. */
int dnf_errno(int dn_status);

#endif
