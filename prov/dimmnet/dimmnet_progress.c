/*
 * Data path: sends, receives, matching, progress.
 *
 * Sends: header + payload in one buffer, dn_msg_isend to the node (shim
 * tag 0); the completion when the shim says the message is delivered and
 * ACKed (FI_SEND), an error entry if it fails (retries out: FI_EIO, with
 * the shim's status as prov_errno). At most 256 in flight (-FI_EAGAIN).
 *
 * Receives: DNF_BOUNCES shim receives from any node stay posted; they
 * complete in posting order, which is arrival order, so the order of each
 * sender's messages holds. Each arrival is matched against the posted
 * receives in posting order (kind, source unless FI_ADDR_UNSPEC, tag under
 * ~ignore); unmatched, it waits in the unexpected list, which a new
 * receive searches first, in arrival order. A message longer than the
 * receive completes with FI_ETRUNC (olen: the bytes cut).
 */
#include <stdlib.h>
#include <string.h>
#include "dimmnet.h"

#define DNF_TX_MAX 256u            /* tx_attr->size */
#define DNF_RX_MAX 256u            /* rx_attr->size */

static unsigned tx_inflight(struct dnf_ep *ep)
{
    unsigned n = 0;

    for (struct dnf_tx *t = ep->tx_head; t; t = t->next) {
        n++;
    }
    return n;
}

static unsigned rx_posted(struct dnf_ep *ep)
{
    unsigned n = 0;

    for (struct dnf_rx *r = ep->rx_head; r; r = r->next) {
        n++;
    }
    return n;
}

static uint64_t kind_flag(uint32_t kind)
{
    return kind == DNF_KIND_TAGGED ? FI_TAGGED : FI_MSG;
}

static int post_bounce(struct dnf_ep *ep, struct dnf_bounce *b)
{
    int rc = dn_msg_irecv(ep->dom->node, DN_ANY_SOURCE, 0, b->buf, sizeof(b->buf),
                          &b->req);

    return rc == DN_OK ? 0 : -dnf_errno(rc);
}

int dnf_post_bounces(struct dnf_ep *ep)
{
    for (unsigned i = 0; i < DNF_BOUNCES; i++) {
        int rc = post_bounce(ep, &ep->bounce[i]);

        if (rc) {
            return rc;
        }
    }
    ep->bounce_next = 0;
    return 0;
}

static int matches(const struct dnf_rx *r, uint32_t kind, uint32_t node, uint64_t tag)
{
    return r->kind == kind && (r->src < 0 || r->src == node) &&
           (kind != DNF_KIND_TAGGED || ((r->tag ^ tag) & ~r->ignore) == 0);
}

/* A message met its receive: copy, complete. */
static void complete_rx(struct dnf_ep *ep, const struct dnf_rx *r, uint32_t kind,
                        uint32_t node, uint64_t tag, const uint8_t *data, size_t len)
{
    struct dnf_comp c = { 0 };
    size_t n = len < r->len ? len : r->len;

    if (n) {
        memcpy(r->buf, data, n);
    }
    c.e.op_context = r->context;
    c.e.flags = FI_RECV | kind_flag(kind);
    c.e.len = n;
    c.e.buf = r->buf;
    c.e.tag = kind == DNF_KIND_TAGGED ? tag : 0;
    c.src = dnf_av_addr(ep->av, node);
    if (len > r->len) {
        c.err = FI_ETRUNC;
        c.olen = len - r->len;
    }
    if (c.err || r->complete) {
        dnf_cq_push(ep->rx_cq, &c);
    }
}

static void arrived(struct dnf_ep *ep, uint32_t node, const uint8_t *msg, size_t len)
{
    struct dnf_hdr h;
    const uint8_t *data = msg + sizeof(h);
    struct dnf_unexp *u;

    if (len < sizeof(h)) {
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "short message from node %u dropped\n", node);
        return;
    }
    memcpy(&h, msg, sizeof(h));
    len -= sizeof(h);
    if (h.magic != DNF_MAGIC || (h.kind != DNF_KIND_MSG && h.kind != DNF_KIND_TAGGED)) {
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "foreign message from node %u dropped\n", node);
        return;
    }
    for (struct dnf_rx **p = &ep->rx_head; *p; p = &(*p)->next) {
        struct dnf_rx *r = *p;

        if (matches(r, h.kind, node, h.tag)) {
            *p = r->next;
            if (!*p) {
                ep->rx_tail = p;
            }
            complete_rx(ep, r, h.kind, node, h.tag, data, len);
            free(r);
            return;
        }
    }
    u = malloc(sizeof(*u) + len);
    if (!u) {
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "no memory for an unexpected message\n");
        return;
    }
    u->next = NULL;
    u->kind = h.kind;
    u->node = node;
    u->tag = h.tag;
    u->len = len;
    memcpy(u->data, data, len);
    *ep->ux_tail = u;
    ep->ux_tail = &u->next;
}

void dnf_progress(struct dnf_ep *ep)
{
    if (!ep->enabled) {
        return;
    }
    dn_msg_progress(ep->dom->node);
    /* Arrivals, in posting order of the shim receives. */
    for (;;) {
        struct dnf_bounce *b = &ep->bounce[ep->bounce_next];
        struct dn_msg_status st;
        int done = 0, rc = dn_msg_test(ep->dom->node, b->req, &done, &st);

        if (!done) {
            break;
        }
        if (rc == DN_OK) {
            arrived(ep, st.src, b->buf, st.len);
        } else {
            FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "receive from node %u failed: %s\n",
                    st.src, dn_strerror(rc));
        }
        if (post_bounce(ep, b)) {
            FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "cannot post a receive again\n");
            break;
        }
        ep->bounce_next = (ep->bounce_next + 1) % DNF_BOUNCES;
    }
    /* Sends the shim has finished, in any order. */
    for (struct dnf_tx **p = &ep->tx_head; *p;) {
        struct dnf_tx *t = *p;
        struct dn_msg_status st;
        int done = 0, rc = dn_msg_test(ep->dom->node, t->req, &done, &st);

        if (!done) {
            p = &t->next;
            continue;
        }
        *p = t->next;
        if (!*p) {
            ep->tx_tail = p;
        }
        if (t->complete || rc != DN_OK) {
            struct dnf_comp c = { 0 };

            c.e.op_context = t->context;
            c.e.flags = FI_SEND | kind_flag(t->kind);
            c.e.len = t->len;
            c.e.tag = t->tag;
            c.src = FI_ADDR_NOTAVAIL;
            if (rc != DN_OK) {
                c.err = dnf_errno(rc) == FI_ETRUNC ? FI_EIO : dnf_errno(rc);
                c.prov_errno = rc;
            }
            dnf_cq_push(ep->tx_cq, &c);
        }
        free(t);
    }
}

/* Does an operation with @flags complete on success? */
static int wants_completion(int selective, uint64_t flags)
{
    return !(flags & FI_INJECT) && (!selective || (flags & FI_COMPLETION));
}

ssize_t dnf_send(struct dnf_ep *ep, uint32_t kind, const void *buf, size_t len,
                 fi_addr_t dest, uint64_t tag, void *context, uint64_t flags)
{
    int inject = (flags & FI_INJECT) != 0;
    struct dnf_hdr h = { DNF_MAGIC, kind, tag };
    struct dnf_tx *t;
    uint32_t node;
    int rc;

    if (!ep->enabled) {
        return -FI_EOPBADSTATE;
    }
    if (len > (inject ? DNF_INJECT_SIZE : DNF_MAX_MSG)) {
        return -FI_EMSGSIZE;
    }
    if (len && !buf) {
        return -FI_EINVAL;
    }
    if (dnf_av_node(ep->av, dest, &node)) {
        return -FI_EINVAL;        /* not an address of this AV */
    }
    dnf_progress(ep);
    if (tx_inflight(ep) >= DNF_TX_MAX) {
        return -FI_EAGAIN;
    }
    t = malloc(sizeof(*t) + sizeof(h) + len);
    if (!t) {
        return -FI_ENOMEM;
    }
    memcpy(t->buf, &h, sizeof(h));
    if (len) {
        memcpy(t->buf + sizeof(h), buf, len);
    }
    t->next = NULL;
    t->kind = kind;
    t->complete = wants_completion(ep->tx_selective, flags);
    t->len = len;
    t->tag = kind == DNF_KIND_TAGGED ? tag : 0;
    t->context = context;
    rc = dn_msg_isend(ep->dom->node, node, 0, t->buf, sizeof(h) + len, &t->req);
    if (rc != DN_OK) {
        free(t);
        return rc == DN_EBUSY ? -FI_EAGAIN : -dnf_errno(rc);
    }
    *ep->tx_tail = t;
    ep->tx_tail = &t->next;
    return 0;
}

ssize_t dnf_recv(struct dnf_ep *ep, uint32_t kind, void *buf, size_t len,
                 fi_addr_t src, uint64_t tag, uint64_t ignore, void *context,
                 uint64_t flags)
{
    struct dnf_rx *r;
    int64_t node = -1;

    if (!ep->enabled) {
        return -FI_EOPBADSTATE;
    }
    if (len && !buf) {
        return -FI_EINVAL;
    }
    if (src != FI_ADDR_UNSPEC) {
        uint32_t n;

        if (dnf_av_node(ep->av, src, &n)) {
            return -FI_EINVAL;
        }
        node = n;
    }
    dnf_progress(ep);
    /* rx_attr->size: with at most 256 sends and 256 receives outstanding,
     * the CQ (1024 at least) cannot overrun (FI_RM_ENABLED). */
    if (rx_posted(ep) >= DNF_RX_MAX) {
        return -FI_EAGAIN;
    }
    r = malloc(sizeof(*r));
    if (!r) {
        return -FI_ENOMEM;
    }
    *r = (struct dnf_rx){ NULL, kind, wants_completion(ep->rx_selective, flags), buf, len,
                          node, tag, ignore, context };
    /* An unexpected message it matches, oldest first. */
    for (struct dnf_unexp **p = &ep->ux_head; *p; p = &(*p)->next) {
        struct dnf_unexp *u = *p;

        if (matches(r, u->kind, u->node, u->tag)) {
            *p = u->next;
            if (!*p) {
                ep->ux_tail = p;
            }
            complete_rx(ep, r, u->kind, u->node, u->tag, u->data, u->len);
            free(u);
            free(r);
            return 0;
        }
    }
    *ep->rx_tail = r;
    ep->rx_tail = &r->next;
    return 0;
}

/* Closing: what is still queued goes (the shim keeps its own requests). */
void dnf_ep_drain(struct dnf_ep *ep)
{
    while (ep->rx_head) {
        struct dnf_rx *r = ep->rx_head;

        ep->rx_head = r->next;
        free(r);
    }
    while (ep->ux_head) {
        struct dnf_unexp *u = ep->ux_head;

        ep->ux_head = u->next;
        free(u);
    }
    /* Sends in flight: wait for the shim a little, so their buffers are free. */
    for (int i = 0; i < 1000 && ep->tx_head; i++) {
        dnf_progress(ep);
        if (ep->tx_head) {
            dn_idle(ep->dom->node);
        }
    }
}

/* ---- fi_msg and fi_tagged entry points ---------------------------------- */

#define EP(fep) container_of(fep, struct dnf_ep, ep)

static ssize_t msg_recv(struct fid_ep *fep, void *buf, size_t len, void *desc,
                        fi_addr_t src, void *context)
{
    (void)desc;
    return dnf_recv(EP(fep), DNF_KIND_MSG, buf, len, src, 0, 0, context,
                    EP(fep)->rx_op_flags);
}

static ssize_t msg_recvv(struct fid_ep *fep, const struct iovec *iov, void **desc,
                         size_t count, fi_addr_t src, void *context)
{
    (void)desc;
    if (count > 1) {
        return -FI_EINVAL;        /* iov_limit 1 */
    }
    return dnf_recv(EP(fep), DNF_KIND_MSG, count ? iov[0].iov_base : NULL,
                    count ? iov[0].iov_len : 0, src, 0, 0, context, EP(fep)->rx_op_flags);
}

static ssize_t msg_recvmsg(struct fid_ep *fep, const struct fi_msg *m, uint64_t flags)
{
    if (m->iov_count > 1) {
        return -FI_EINVAL;
    }
    return dnf_recv(EP(fep), DNF_KIND_MSG, m->iov_count ? m->msg_iov[0].iov_base : NULL,
                    m->iov_count ? m->msg_iov[0].iov_len : 0, m->addr, 0, 0, m->context,
                    flags);
}

static ssize_t msg_send(struct fid_ep *fep, const void *buf, size_t len, void *desc,
                        fi_addr_t dest, void *context)
{
    (void)desc;
    return dnf_send(EP(fep), DNF_KIND_MSG, buf, len, dest, 0, context, EP(fep)->tx_op_flags);
}

static ssize_t msg_sendv(struct fid_ep *fep, const struct iovec *iov, void **desc,
                         size_t count, fi_addr_t dest, void *context)
{
    (void)desc;
    if (count > 1) {
        return -FI_EINVAL;
    }
    return dnf_send(EP(fep), DNF_KIND_MSG, count ? iov[0].iov_base : NULL,
                    count ? iov[0].iov_len : 0, dest, 0, context, EP(fep)->tx_op_flags);
}

static ssize_t msg_sendmsg(struct fid_ep *fep, const struct fi_msg *m, uint64_t flags)
{
    if (m->iov_count > 1 || (flags & FI_REMOTE_CQ_DATA)) {
        return -FI_EINVAL;        /* no CQ data (cq_data_size 0) */
    }
    return dnf_send(EP(fep), DNF_KIND_MSG, m->iov_count ? m->msg_iov[0].iov_base : NULL,
                    m->iov_count ? m->msg_iov[0].iov_len : 0, m->addr, 0, m->context,
                    flags);
}

static ssize_t msg_inject(struct fid_ep *fep, const void *buf, size_t len, fi_addr_t dest)
{
    return dnf_send(EP(fep), DNF_KIND_MSG, buf, len, dest, 0, NULL, FI_INJECT);
}

static ssize_t msg_senddata(struct fid_ep *fep, const void *buf, size_t len, void *desc,
                            uint64_t data, fi_addr_t dest, void *context)
{
    (void)fep; (void)buf; (void)len; (void)desc; (void)data; (void)dest; (void)context;
    return -FI_ENOSYS;            /* no remote CQ data */
}

static ssize_t msg_injectdata(struct fid_ep *fep, const void *buf, size_t len,
                              uint64_t data, fi_addr_t dest)
{
    (void)fep; (void)buf; (void)len; (void)data; (void)dest;
    return -FI_ENOSYS;
}

struct fi_ops_msg dnf_msg_ops = {
    .size = sizeof(struct fi_ops_msg),
    .recv = msg_recv,
    .recvv = msg_recvv,
    .recvmsg = msg_recvmsg,
    .send = msg_send,
    .sendv = msg_sendv,
    .sendmsg = msg_sendmsg,
    .inject = msg_inject,
    .senddata = msg_senddata,
    .injectdata = msg_injectdata,
};

static ssize_t tag_recv(struct fid_ep *fep, void *buf, size_t len, void *desc,
                        fi_addr_t src, uint64_t tag, uint64_t ignore, void *context)
{
    (void)desc;
    return dnf_recv(EP(fep), DNF_KIND_TAGGED, buf, len, src, tag, ignore, context,
                    EP(fep)->rx_op_flags);
}

static ssize_t tag_recvv(struct fid_ep *fep, const struct iovec *iov, void **desc,
                         size_t count, fi_addr_t src, uint64_t tag, uint64_t ignore,
                         void *context)
{
    (void)desc;
    if (count > 1) {
        return -FI_EINVAL;
    }
    return dnf_recv(EP(fep), DNF_KIND_TAGGED, count ? iov[0].iov_base : NULL,
                    count ? iov[0].iov_len : 0, src, tag, ignore, context,
                    EP(fep)->rx_op_flags);
}

static ssize_t tag_recvmsg(struct fid_ep *fep, const struct fi_msg_tagged *m,
                           uint64_t flags)
{
    if (m->iov_count > 1 || (flags & (FI_PEEK | FI_CLAIM | FI_DISCARD))) {
        return -FI_ENOSYS;        /* no probing yet */
    }
    return dnf_recv(EP(fep), DNF_KIND_TAGGED, m->iov_count ? m->msg_iov[0].iov_base : NULL,
                    m->iov_count ? m->msg_iov[0].iov_len : 0, m->addr, m->tag,
                    m->ignore, m->context, flags);
}

static ssize_t tag_send(struct fid_ep *fep, const void *buf, size_t len, void *desc,
                        fi_addr_t dest, uint64_t tag, void *context)
{
    (void)desc;
    return dnf_send(EP(fep), DNF_KIND_TAGGED, buf, len, dest, tag, context,
                    EP(fep)->tx_op_flags);
}

static ssize_t tag_sendv(struct fid_ep *fep, const struct iovec *iov, void **desc,
                         size_t count, fi_addr_t dest, uint64_t tag, void *context)
{
    (void)desc;
    if (count > 1) {
        return -FI_EINVAL;
    }
    return dnf_send(EP(fep), DNF_KIND_TAGGED, count ? iov[0].iov_base : NULL,
                    count ? iov[0].iov_len : 0, dest, tag, context, EP(fep)->tx_op_flags);
}

static ssize_t tag_sendmsg(struct fid_ep *fep, const struct fi_msg_tagged *m,
                           uint64_t flags)
{
    if (m->iov_count > 1 || (flags & FI_REMOTE_CQ_DATA)) {
        return -FI_EINVAL;
    }
    return dnf_send(EP(fep), DNF_KIND_TAGGED, m->iov_count ? m->msg_iov[0].iov_base : NULL,
                    m->iov_count ? m->msg_iov[0].iov_len : 0, m->addr, m->tag, m->context,
                    flags);
}

static ssize_t tag_inject(struct fid_ep *fep, const void *buf, size_t len,
                          fi_addr_t dest, uint64_t tag)
{
    return dnf_send(EP(fep), DNF_KIND_TAGGED, buf, len, dest, tag, NULL, FI_INJECT);
}

static ssize_t tag_senddata(struct fid_ep *fep, const void *buf, size_t len, void *desc,
                            uint64_t data, fi_addr_t dest, uint64_t tag, void *context)
{
    (void)fep; (void)buf; (void)len; (void)desc; (void)data; (void)dest; (void)tag;
    (void)context;
    return -FI_ENOSYS;
}

static ssize_t tag_injectdata(struct fid_ep *fep, const void *buf, size_t len,
                              uint64_t data, fi_addr_t dest, uint64_t tag)
{
    (void)fep; (void)buf; (void)len; (void)data; (void)dest; (void)tag;
    return -FI_ENOSYS;
}

struct fi_ops_tagged dnf_tagged_ops = {
    .size = sizeof(struct fi_ops_tagged),
    .recv = tag_recv,
    .recvv = tag_recvv,
    .recvmsg = tag_recvmsg,
    .send = tag_send,
    .sendv = tag_sendv,
    .sendmsg = tag_sendmsg,
    .inject = tag_inject,
    .senddata = tag_senddata,
    .injectdata = tag_injectdata,
};
