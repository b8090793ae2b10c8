/*
 * Provider entry (fi_prov_ini) and fi_getinfo: one fi_info, FI_EP_RDM with
 * tagged and untagged messages, if the hints allow it.
 */
#include <stdlib.h>
#include <string.h>
#include "dimmnet.h"

static void dnf_cleanup(void)
{
}

struct fi_provider dnf_prov = {
    .name = DNF_NAME,
    .version = DNF_VERSION,
    .fi_version = DNF_API_VERSION,
    .getinfo = dnf_getinfo,
    .fabric = dnf_fabric,
    .cleanup = dnf_cleanup,
};

FI_EXT_INI
{
    fi_param_define(&dnf_prov, "sender_matching", FI_PARAM_BOOL,
                    "Advertise directed receives to their senders, which match "
                    "locally and send at once (MPI-EMX; default: yes)");
    fi_param_define(&dnf_prov, "landing", FI_PARAM_BOOL,
                    "With sender-side matching, small advertised receives (up to "
                    "416 bytes) take their message by one remote write into the "
                    "receiver's memory, no firmware in the path (default: yes)");
    fi_param_define(&dnf_prov, "caller_call_insns", FI_PARAM_INT,
                    "Instructions the caller (an MPI library) runs per data call "
                    "into the provider, charged as host work in deterministic "
                    "modeled time (docs/hardware.md, \"Host profile\"; "
                    "dimmnet-cluster --mpi sets Open MPI 4.1.4's; default 0)");
    fi_param_define(&dnf_prov, "caller_poll_insns", FI_PARAM_INT,
                    "The same per completion-queue read (a turn of the caller's "
                    "progress loop; default 0)");
    fi_param_define(&dnf_prov, "stats", FI_PARAM_BOOL,
                    "Print the endpoint's protocol counts to stderr when it closes");
    return &dnf_prov;
}

int dnf_errno(int dn_status)
{
    switch (dn_status) {
    case DN_OK:        return 0;
    case DN_EINVAL:    return FI_EINVAL;
    case DN_ERANGE:    return FI_EINVAL;
    case DN_ETIMEDOUT: return FI_ETIMEDOUT;
    case DN_ERETRY:    return FI_ETIMEDOUT;   /* no answer from the peer: retries ran out */
    case DN_ENOMEM:    return FI_ENOMEM;
    case DN_EBUSY:     return FI_EAGAIN;
    case DN_ETRUNC:    return FI_ETRUNC;
    case DN_ELINKDOWN: return FI_EHOSTUNREACH;
    case DN_ENODEV:    return FI_ENODEV;
    default:           return FI_EIO;
    }
}

/* Does @hints leave room for what we offer? If not, say why (FI_LOG_LEVEL=info). */
#define REFUSE(...)                                                   \
    do {                                                              \
        FI_INFO(&dnf_prov, FI_LOG_CORE, __VA_ARGS__);                 \
        return 0;                                                     \
    } while (0)

static int hints_fit(const struct fi_info *h)
{
    if (!h) {
        return 1;
    }
    if (h->caps & ~(uint64_t)DNF_CAPS) {
        REFUSE("caps 0x%llx beyond ours 0x%llx\n", (unsigned long long)h->caps,
               (unsigned long long)DNF_CAPS);
    }
    if (h->ep_attr && h->ep_attr->type != FI_EP_UNSPEC && h->ep_attr->type != FI_EP_RDM) {
        REFUSE("endpoint type %d: only FI_EP_RDM\n", (int)h->ep_attr->type);
    }
    if (h->addr_format != FI_FORMAT_UNSPEC) {
        REFUSE("address format %u: ours is opaque (FI_FORMAT_UNSPEC)\n", h->addr_format);
    }
    if (h->fabric_attr && h->fabric_attr->prov_name &&
        strcasecmp(h->fabric_attr->prov_name, DNF_NAME)) {
        REFUSE("provider %s asked for\n", h->fabric_attr->prov_name);
    }
    if (h->fabric_attr && h->fabric_attr->name && strcmp(h->fabric_attr->name, DNF_NAME)) {
        REFUSE("fabric %s asked for\n", h->fabric_attr->name);
    }
    if (h->domain_attr && h->domain_attr->name && strcmp(h->domain_attr->name, DNF_NAME)) {
        REFUSE("domain %s asked for\n", h->domain_attr->name);
    }
    /* mr_mode: what the application can do; we need none of it. */
    if (h->ep_attr && h->ep_attr->max_msg_size > DNF_MAX_MSG) {
        REFUSE("max_msg_size %zu over %u\n", h->ep_attr->max_msg_size, DNF_MAX_MSG);
    }
    if (h->domain_attr && h->domain_attr->cq_data_size > DNF_CQ_DATA) {
        REFUSE("cq_data_size %zu over %u\n", h->domain_attr->cq_data_size, DNF_CQ_DATA);
    }
    if (h->tx_attr && h->tx_attr->inject_size > DNF_INJECT_SIZE) {
        REFUSE("inject_size %zu over %u\n", h->tx_attr->inject_size, DNF_INJECT_SIZE);
    }
    return 1;
}

int dnf_getinfo(uint32_t version, const char *node, const char *service,
                uint64_t flags, const struct fi_info *hints, struct fi_info **info)
{
    struct fi_info *fi;

    (void)version;
    (void)service;
    if (node && !(flags & FI_SOURCE)) {
        /* A destination name: only our own (opaque) names work, through the AV. */
        return -FI_ENODATA;
    }
    if (!hints_fit(hints)) {
        return -FI_ENODATA;
    }
    fi = fi_allocinfo();
    if (!fi) {
        return -FI_ENOMEM;
    }
    fi->caps = hints && hints->caps ? hints->caps : DNF_CAPS;
    fi->caps |= FI_SEND | FI_RECV;
    fi->mode = 0;
    fi->addr_format = FI_FORMAT_UNSPEC;
    /* Default op flags as asked: FI_COMPLETION (for selective completion);
     * a send completes when it is delivered and ACKed, which satisfies any
     * of FI_INJECT_COMPLETE, FI_TRANSMIT_COMPLETE, FI_DELIVERY_COMPLETE. */
    if (hints && hints->tx_attr) {
        fi->tx_attr->op_flags = hints->tx_attr->op_flags;
    }
    if (hints && hints->rx_attr) {
        fi->rx_attr->op_flags = hints->rx_attr->op_flags;
    }
    fi->tx_attr->caps = fi->caps;
    fi->tx_attr->msg_order = FI_ORDER_SAS;
    fi->tx_attr->comp_order = FI_ORDER_NONE;
    fi->tx_attr->inject_size = DNF_INJECT_SIZE;
    fi->tx_attr->size = 256;
    fi->tx_attr->iov_limit = 1;
    fi->rx_attr->caps = fi->caps;
    fi->rx_attr->msg_order = FI_ORDER_SAS;
    fi->rx_attr->comp_order = FI_ORDER_NONE;
    fi->rx_attr->size = 256;
    fi->rx_attr->iov_limit = 1;
    fi->ep_attr->type = FI_EP_RDM;
    fi->ep_attr->protocol = FI_PROTO_UNSPEC;
    fi->ep_attr->max_msg_size = DNF_MAX_MSG;
    fi->ep_attr->mem_tag_format = 0xaaaaaaaaaaaaaaaaull;   /* FI_TAG_GENERIC: any 64 bits */
    fi->ep_attr->tx_ctx_cnt = 1;
    fi->ep_attr->rx_ctx_cnt = 1;
    fi->domain_attr->name = strdup(DNF_NAME);
    fi->domain_attr->threading = FI_THREAD_DOMAIN;
    fi->domain_attr->control_progress = FI_PROGRESS_MANUAL;
    fi->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    fi->domain_attr->resource_mgmt = FI_RM_ENABLED;
    fi->domain_attr->av_type = FI_AV_UNSPEC;
    fi->domain_attr->mr_mode = 0;
    fi->domain_attr->cq_cnt = 2;
    fi->domain_attr->ep_cnt = 1;
    fi->domain_attr->tx_ctx_cnt = 1;
    fi->domain_attr->rx_ctx_cnt = 1;
    fi->domain_attr->max_ep_tx_ctx = 1;
    fi->domain_attr->max_ep_rx_ctx = 1;
    fi->domain_attr->cq_data_size = DNF_CQ_DATA;  /* FIRST/DIRECT header field */
    fi->fabric_attr->name = strdup(DNF_NAME);
    fi->fabric_attr->prov_version = DNF_VERSION;
    *info = fi;
    return 0;
}
