/*
 * Provider entry (fi_prov_ini) and fi_getinfo: one fi_info, FI_EP_RDM with
 * tagged and untagged messages, if the hints allow it; -FI_ENODATA for hints
 * it cannot meet (fi_getinfo(3)), never a weaker answer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "dimmnet.h"
#include "dimmnet1/message.h"
#include "dimmnet1/shared_mem.h"

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
    fi_param_define(&dnf_prov, "zcopy", FI_PARAM_BOOL,
                    "Messages longer than 64 KiB are written straight into the "
                    "receive buffer (moved onto the card and kept there) by the "
                    "NIC's remote writes, no firmware and no copy (default: yes)");
    fi_param_define(&dnf_prov, "caller", FI_PARAM_STRING,
                    "The caller whose instructions above the provider are charged "
                    "as host work in deterministic modeled time, as the host-charge "
                    "table's rows measured them (docs/hardware.md, \"Host "
                    "profile\"): openmpi (dimmnet-cluster --mpi sets it), or unset "
                    "for none");
    fi_param_define(&dnf_prov, "caller_call_insns", FI_PARAM_INT,
                    "Instructions charged for the caller per data call into the "
                    "provider, instead of the table's (an experiment's; default: "
                    "the table's)");
    fi_param_define(&dnf_prov, "caller_poll_insns", FI_PARAM_INT,
                    "The same per completion-queue read (a turn of the caller's "
                    "progress loop)");
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

const char *dnf_strerror(int prov_errno, char *buf, size_t len)
{
    const char *s = dn_strerror(prov_errno);

    if (buf && len) {
        strncpy(buf, s, len - 1);
        buf[len - 1] = 0;
        return buf;
    }
    return s;
}

/* Does @hints leave room for what we offer? If not, say why (FI_LOG_LEVEL=info). */
#define REFUSE(...)                                                   \
    do {                                                              \
        FI_INFO(&dnf_prov, FI_LOG_CORE, __VA_ARGS__);                 \
        return 0;                                                     \
    } while (0)

/* The hints' transmit and receive attributes: capability bits of the other
 * direction are ignored there (as libfabric's own providers do); ordering we
 * cannot keep is refused, never answered with something weaker. */
static int xattr_fit(const char *what, uint64_t caps, uint64_t mine, uint64_t other,
                     uint64_t msg_order, uint64_t comp_order, size_t size, size_t iov)
{
    if (caps & ~(mine | other)) {
        REFUSE("%s caps 0x%llx beyond ours 0x%llx\n", what, (unsigned long long)caps,
               (unsigned long long)mine);
    }
    if (msg_order & ~(uint64_t)DNF_MSG_ORDER) {
        REFUSE("%s msg_order 0x%llx: only FI_ORDER_SAS\n", what,
               (unsigned long long)msg_order);
    }
    if (comp_order) {
        REFUSE("%s comp_order 0x%llx: completions are not ordered\n", what,
               (unsigned long long)comp_order);
    }
    if (size > DNF_QUEUE_SIZE || iov > 1) {
        REFUSE("%s size %zu / iov_limit %zu over %u / 1\n", what, size, iov,
               DNF_QUEUE_SIZE);
    }
    return 1;
}

/* Registration-table entries this process may use: its host port's share
 * of the node's (contract 1.27; DIMMNET_PORT of DIMMNET_HOST_PORTS, set by
 * the launcher), as the shim's dn_mr_entries gives once the node is open. */
static size_t mr_share(void)
{
    const char *p = getenv("DIMMNET_PORT"), *np = getenv("DIMMNET_HOST_PORTS");
    unsigned port = p ? (unsigned)atoi(p) : 0, ports = np ? (unsigned)atoi(np) : 1;

    unsigned first, end;

    if (ports < 1 || ports > DN1_HOST_PORTS_MAX || port >= ports) {
        return DN_MR_ENTRIES;
    }
    dn1_port_share(DN_MR_ENTRIES, ports, port, &first, &end);
    return end - first;
}

static int hints_fit(const struct fi_info *h)
{
    if (!h) {
        return 1;
    }
    if (h->caps & ~(uint64_t)DNF_CAPS) {
        REFUSE("caps 0x%llx beyond ours 0x%llx\n", (unsigned long long)h->caps,
               (unsigned long long)DNF_CAPS);
    }
    /* mode: what the application accepts; we require none of it. */
    if (h->ep_attr && h->ep_attr->type != FI_EP_UNSPEC && h->ep_attr->type != FI_EP_RDM) {
        REFUSE("endpoint type %d: only FI_EP_RDM\n", (int)h->ep_attr->type);
    }
    if (h->ep_attr && h->ep_attr->protocol != FI_PROTO_UNSPEC) {
        REFUSE("protocol %u: ours has no libfabric number\n", h->ep_attr->protocol);
    }
    if (h->ep_attr && (h->ep_attr->tx_ctx_cnt > 1 || h->ep_attr->rx_ctx_cnt > 1)) {
        REFUSE("shared or several contexts: one of each\n");    /* FI_SHARED_CONTEXT too */
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
    if (h->ep_attr && h->ep_attr->max_msg_size > DNF_MAX_MSG) {
        REFUSE("max_msg_size %zu over %u\n", h->ep_attr->max_msg_size, DNF_MAX_MSG);
    }
    if (h->tx_attr && (h->tx_attr->inject_size > DNF_INJECT_SIZE ||
                       !xattr_fit("tx", h->tx_attr->caps, DNF_TX_CAPS,
                                  DNF_CAPS & ~(uint64_t)DNF_TX_CAPS, h->tx_attr->msg_order,
                                  h->tx_attr->comp_order, h->tx_attr->size,
                                  h->tx_attr->iov_limit))) {
        REFUSE("transmit attributes\n");
    }
    if (h->rx_attr && !xattr_fit("rx", h->rx_attr->caps, DNF_RX_CAPS,
                                 DNF_CAPS & ~(uint64_t)DNF_RX_CAPS, h->rx_attr->msg_order,
                                 h->rx_attr->comp_order, h->rx_attr->size,
                                 h->rx_attr->iov_limit)) {
        REFUSE("receive attributes\n");
    }
    const struct fi_domain_attr *d = h->domain_attr;
    if (!d) {
        return 1;
    }
    if (d->name && strcmp(d->name, DNF_NAME)) {
        REFUSE("domain %s asked for\n", d->name);
    }
    if (d->caps & ~(uint64_t)DNF_DOMAIN_CAPS) {
        REFUSE("domain caps 0x%llx beyond ours 0x%llx (no FI_SHARED_AV)\n",
               (unsigned long long)d->caps, (unsigned long long)DNF_DOMAIN_CAPS);
    }
    if (d->control_progress == FI_PROGRESS_AUTO || d->data_progress == FI_PROGRESS_AUTO) {
        REFUSE("FI_PROGRESS_AUTO: progress is manual\n");
    }
    if (d->av_type != FI_AV_UNSPEC && d->av_type != FI_AV_MAP && d->av_type != FI_AV_TABLE) {
        REFUSE("av_type %d\n", (int)d->av_type);
    }
    /* mr_mode: what the application can do; we need none of it. */
    if (d->mr_key_size > 2 && (d->mr_mode & FI_MR_PROV_KEY)) {
        REFUSE("mr_key_size %zu: ours are 2 bytes\n", d->mr_key_size);
    }
    if (d->cq_data_size > DNF_CQ_DATA) {
        REFUSE("cq_data_size %zu over %u\n", d->cq_data_size, DNF_CQ_DATA);
    }
    if (d->ep_cnt > 1 || d->tx_ctx_cnt > 1 || d->rx_ctx_cnt > 1 || d->max_ep_tx_ctx > 1 ||
        d->max_ep_rx_ctx > 1 || d->max_ep_stx_ctx || d->max_ep_srx_ctx ||
        d->cntr_cnt > DNF_CNTR_CNT || d->mr_cnt > mr_share() || d->auth_key_size) {
        REFUSE("domain counts beyond one endpoint, %u counters, %u registrations for "
               "remote access, no auth keys\n", DNF_CNTR_CNT, DN_MR_ENTRIES);
    }
    return 1;
}

/* Host ports a board (DIMMNET_HOST_PORTS, set by the launcher; what the
 * domain's dn_port answers once the node is open): 1 without it. */
static unsigned env_ports(void)
{
    const char *np = getenv("DIMMNET_HOST_PORTS");
    unsigned ports = np ? (unsigned)atoi(np) : 1;

    return ports >= 1 && ports <= DN1_HOST_PORTS_MAX ? ports : 1;
}

/* A process's name, its address node | port << 12: the node id ("1" or
 * "dimmnet://1", port 0), or node and port ("1.1", "dimmnet://1.1", what
 * fi_av_straddr writes for a port above 0). */
static int parse_node(const char *s, uint32_t *node)
{
    char *end;
    unsigned long port = 0;

    if (!strncmp(s, "dimmnet://", 10)) {
        s += 10;
    }
    if (*s < '0' || *s > '9') {
        return -1;
    }
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (*end == '.' && end[1] >= '0' && end[1] <= '9') {
        port = strtoul(end + 1, &end, 10);
    }
    if (errno || *end || v >= DNF_NODES || port >= DN1_HOST_PORTS_MAX) {
        return -1;
    }
    *node = (uint32_t)(v | port << DN1_MSG_PORT_SHIFT);
    return 0;
}

/* Is address @a a peer of a run of @nodes boards (of env_ports ports):
 * a port the boards have, on a board below @nodes that messages reach
 * (dimmnet.h, "Host ports")? */
static int peer_ok(uint32_t a, uint32_t nodes)
{
    return dn1_msg_sender(a, env_ports()) >= 0 &&
           (a & ((1u << DN1_MSG_PORT_SHIFT) - 1)) < nodes;
}

/* This process's address (node and DIMMNET_PORT) and the cluster's size,
 * from the launcher's environment (what the domain opens); -1 outside a
 * cluster. */
static int own_node(uint32_t *self, uint32_t *nodes)
{
    const char *id = getenv("DIMMNET_NODE_ID"), *n = getenv("DIMMNET_NODES");
    const char *p = getenv("DIMMNET_PORT");

    *nodes = DNF_NODES;
    if (n && *n) {
        unsigned long v = strtoul(n, NULL, 10);
        if (v && v <= DNF_NODES) {
            *nodes = (uint32_t)v;
        }
    }
    if (!id || !*id || parse_node(id, self) || (*self >> DN1_MSG_PORT_SHIFT)) {
        return -1;
    }
    *self |= (p ? (uint32_t)atoi(p) : 0) << DN1_MSG_PORT_SHIFT;
    return peer_ok(*self, *nodes) ? 0 : -1;
}

static void *addr_dup(uint32_t node)
{
    struct dnf_addr *a = malloc(sizeof(*a));

    if (a) {
        a->magic = DNF_ADDR_MAGIC;
        a->node = node;
    }
    return a;
}

static int addr_node(const void *addr, size_t len, uint32_t nodes, uint32_t *node)
{
    const struct dnf_addr *a = addr;

    if (len != sizeof(*a) || a->magic != DNF_ADDR_MAGIC || !peer_ok(a->node, nodes)) {
        return -1;
    }
    *node = a->node;
    return 0;
}

/* Primary capabilities as asked (all ours with no caps in the hints), the
 * secondary ones we have always (ofi_get_caps). */
static uint64_t answer_caps(uint64_t asked)
{
    if (!asked) {
        /* FI_RMA_EVENT costs a message an RMA; FI_COLLECTIVE only when asked
         * (an application without it sees no collective calls). */
        return DNF_CAPS & ~(uint64_t)(FI_RMA_EVENT | FI_COLLECTIVE);
    }
    if ((asked & (FI_RMA | FI_ATOMIC)) && !(asked & DNF_RMA_ROLES)) {
        asked |= DNF_RMA_ROLES;
    }
    return asked | DNF_SECONDARY_CAPS;
}

/* An application of API 1.4 or older knows only FI_MR_BASIC and
 * FI_MR_SCALABLE; its FI_MR_UNSPEC (0) leaves the choice between them to
 * the provider (fi_mr(3)). */
static int old_mr_api(uint32_t version)
{
    return FI_VERSION_LT(version, FI_VERSION(1, 5));
}

/* mr_mode: of FI_MR_VIRT_ADDR, FI_MR_ALLOCATED and FI_MR_PROV_KEY what the
 * application allows (we can do without each; FI_MR_BASIC and
 * FI_MR_SCALABLE, the old modes, as asked); all three with no hints. An
 * old API's FI_MR_UNSPEC: FI_MR_BASIC (the three, our keys, which the
 * table can hold; SCALABLE would need any 64-bit key of the application). */
static int answer_mr_mode(const struct fi_info *hints, uint32_t version)
{
    if (old_mr_api(version)) {
        return hints && hints->domain_attr && hints->domain_attr->mr_mode == FI_MR_SCALABLE
                   ? FI_MR_SCALABLE : FI_MR_BASIC;
    }
    if (!hints || !hints->domain_attr) {
        return DNF_MR_MODES;
    }
    int mode = hints->domain_attr->mr_mode;
    if (mode == FI_MR_BASIC || mode == FI_MR_SCALABLE) {
        return mode;
    }
    return mode & DNF_MR_MODES;
}

/*
 * Addresses (fi_getinfo(3)): a node names a process by its board's node id
 * ("1" or "dimmnet://1": port 0) or, on boards of several host ports, node
 * and port ("1.1"). Without FI_SOURCE it is the destination (dest_addr)
 * and the source is this process's own address; with FI_SOURCE it names
 * the source, which can only be our own (or our board's node id). A
 * service names the endpoint of the process; there is one, so any decimal
 * service names it. Addresses in the hints are taken the same way (node
 * and service win).
 */
int dnf_getinfo(uint32_t version, const char *node, const char *service,
                uint64_t flags, const struct fi_info *hints, struct fi_info **info)
{
    struct fi_info *fi;
    uint32_t self, nodes, src = UINT32_MAX, dst = UINT32_MAX;
    int have_self;

    if (!hints_fit(hints)) {
        return -FI_ENODATA;
    }
    if (old_mr_api(version) && hints && hints->domain_attr &&
        hints->domain_attr->mr_mode != FI_MR_UNSPEC &&
        hints->domain_attr->mr_mode != FI_MR_BASIC &&
        hints->domain_attr->mr_mode != FI_MR_SCALABLE) {
        FI_INFO(&dnf_prov, FI_LOG_CORE, "mr_mode 0x%x: API %u.%u has only BASIC and SCALABLE\n",
                hints->domain_attr->mr_mode, FI_MAJOR(version), FI_MINOR(version));
        return -FI_ENODATA;
    }
    have_self = !own_node(&self, &nodes);
    if (service && (!*service || strspn(service, "0123456789") != strlen(service))) {
        FI_INFO(&dnf_prov, FI_LOG_CORE, "service %s: not a number\n", service);
        return -FI_ENODATA;
    }
    if (hints && hints->src_addr &&
        (addr_node(hints->src_addr, hints->src_addrlen, nodes, &src) ||
         !have_self || src != self)) {
        FI_INFO(&dnf_prov, FI_LOG_CORE, "hints' src_addr is not this node's\n");
        return -FI_ENODATA;
    }
    if (hints && hints->dest_addr &&
        addr_node(hints->dest_addr, hints->dest_addrlen, nodes, &dst)) {
        FI_INFO(&dnf_prov, FI_LOG_CORE, "hints' dest_addr is no board's\n");
        return -FI_ENODATA;
    }
    if (node) {
        uint32_t n;

        if (parse_node(node, &n) || !peer_ok(n, nodes)) {
            FI_INFO(&dnf_prov, FI_LOG_CORE, "node %s: no such board or port\n", node);
            return -FI_ENODATA;
        }
        if (flags & FI_SOURCE) {
            /* Our address, or our board's node id (port 0's name). */
            if (!have_self || (n != self && n != (self & ((1u << DN1_MSG_PORT_SHIFT) - 1)))) {
                FI_INFO(&dnf_prov, FI_LOG_CORE, "node %s: not this process's board\n", node);
                return -FI_ENODATA;
            }
            src = self;
        } else {
            dst = n;
        }
    }
    if (src == UINT32_MAX && have_self) {
        src = self;
    }
    fi = fi_allocinfo();
    if (!fi) {
        return -FI_ENOMEM;
    }
    fi->caps = answer_caps(hints ? hints->caps : 0);
    fi->mode = 0;
    fi->addr_format = FI_FORMAT_UNSPEC;      /* struct dnf_addr */
    if (src != UINT32_MAX) {
        fi->src_addr = addr_dup(src);
        fi->src_addrlen = sizeof(struct dnf_addr);
    }
    if (dst != UINT32_MAX) {
        fi->dest_addr = addr_dup(dst);
        fi->dest_addrlen = sizeof(struct dnf_addr);
    }
    if ((src != UINT32_MAX && !fi->src_addr) || (dst != UINT32_MAX && !fi->dest_addr)) {
        fi_freeinfo(fi);
        return -FI_ENOMEM;
    }
    /* Default op flags as asked: FI_COMPLETION (for selective completion);
     * a send completes when it is delivered and ACKed, which satisfies any
     * of FI_INJECT_COMPLETE, FI_TRANSMIT_COMPLETE, FI_DELIVERY_COMPLETE. */
    if (hints && hints->tx_attr) {
        fi->tx_attr->op_flags = hints->tx_attr->op_flags;
    }
    if (hints && hints->rx_attr) {
        fi->rx_attr->op_flags = hints->rx_attr->op_flags;
    }
    fi->tx_attr->caps = fi->caps & DNF_TX_CAPS;
    fi->tx_attr->msg_order = DNF_MSG_ORDER;
    fi->tx_attr->comp_order = FI_ORDER_NONE;
    fi->tx_attr->inject_size = DNF_INJECT_SIZE;
    fi->tx_attr->size = DNF_QUEUE_SIZE;
    fi->tx_attr->iov_limit = 1;
    fi->tx_attr->rma_iov_limit = 1;
    fi->rx_attr->caps = fi->caps & DNF_RX_CAPS;
    fi->rx_attr->msg_order = DNF_MSG_ORDER;
    fi->rx_attr->comp_order = FI_ORDER_NONE;
    fi->rx_attr->size = DNF_QUEUE_SIZE;
    fi->rx_attr->iov_limit = 1;
    fi->ep_attr->type = FI_EP_RDM;
    fi->ep_attr->protocol = FI_PROTO_UNSPEC;
    fi->ep_attr->max_msg_size = DNF_MAX_MSG;
    fi->ep_attr->mem_tag_format = 0xaaaaaaaaaaaaaaaaull;   /* FI_TAG_GENERIC: any 64 bits */
    fi->ep_attr->tx_ctx_cnt = 1;
    fi->ep_attr->rx_ctx_cnt = 1;
    fi->domain_attr->caps = fi->caps & DNF_DOMAIN_CAPS;
    fi->domain_attr->name = strdup(DNF_NAME);
    /* FI_THREAD_DOMAIN unless more is asked: FI_THREAD_SAFE (and _FID,
     * served the same way) take the provider's lock in every call
     * (dimmnet.h, "Threading"); the weaker _COMPLETION and _ENDPOINT are
     * met by _DOMAIN, which costs nothing. */
    fi->domain_attr->threading = hints && hints->domain_attr &&
                                 (hints->domain_attr->threading == FI_THREAD_SAFE ||
                                  hints->domain_attr->threading == FI_THREAD_FID)
                                     ? hints->domain_attr->threading : FI_THREAD_DOMAIN;
    fi->domain_attr->control_progress = FI_PROGRESS_MANUAL;
    fi->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    fi->domain_attr->resource_mgmt = FI_RM_ENABLED;
    fi->domain_attr->av_type = hints && hints->domain_attr ? hints->domain_attr->av_type
                                                           : FI_AV_UNSPEC;
    fi->domain_attr->mr_mode = answer_mr_mode(hints, version);
    fi->domain_attr->mr_key_size = 2;       /* an RVATLB context */
    fi->domain_attr->mr_cnt = mr_share();
    fi->domain_attr->mr_iov_limit = 1;
    fi->domain_attr->cntr_cnt = DNF_CNTR_CNT;
    fi->domain_attr->cq_cnt = 2;
    fi->domain_attr->ep_cnt = 1;
    fi->domain_attr->tx_ctx_cnt = 1;
    fi->domain_attr->rx_ctx_cnt = 1;
    fi->domain_attr->max_ep_tx_ctx = 1;
    fi->domain_attr->max_ep_rx_ctx = 1;
    fi->domain_attr->cq_data_size = DNF_CQ_DATA;  /* FIRST/DIRECT header field */
    fi->fabric_attr->name = strdup(DNF_NAME);
    fi->fabric_attr->prov_version = DNF_VERSION;
    if (!fi->domain_attr->name || !fi->fabric_attr->name) {
        fi_freeinfo(fi);
        return -FI_ENOMEM;
    }
    *info = fi;
    return 0;
}
