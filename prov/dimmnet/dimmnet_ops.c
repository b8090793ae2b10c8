/*
 * The fi_msg and fi_tagged entry points: argument shapes to dnf_send and
 * dnf_recv (dimmnet_progress.c). iov_limit is 1; remote CQ data is up to
 * DNF_CQ_DATA bytes (all 64 bits of @data).
 */
#include "dimmnet.h"

#define EP(fep) container_of(fep, struct dnf_ep, ep)

static ssize_t msg_recv(struct fid_ep *fep, void *buf, size_t len, void *desc,
                        fi_addr_t src, void *context)
{
    (void)desc;
    return dnf_recv(EP(fep), 0, buf, len, src, 0, 0, context,
                    EP(fep)->rx_op_flags);
}

static ssize_t msg_recvv(struct fid_ep *fep, const struct iovec *iov, void **desc,
                         size_t count, fi_addr_t src, void *context)
{
    (void)desc;
    if (count > 1) {
        return -FI_EINVAL;        /* iov_limit 1 */
    }
    return dnf_recv(EP(fep), 0, count ? iov[0].iov_base : NULL,
                    count ? iov[0].iov_len : 0, src, 0, 0, context, EP(fep)->rx_op_flags);
}

static ssize_t msg_recvmsg(struct fid_ep *fep, const struct fi_msg *m, uint64_t flags)
{
    if (m->iov_count > 1) {
        return -FI_EINVAL;
    }
    return dnf_recv(EP(fep), 0, m->iov_count ? m->msg_iov[0].iov_base : NULL,
                    m->iov_count ? m->msg_iov[0].iov_len : 0, m->addr, 0, 0, m->context,
                    flags);
}

static ssize_t msg_send(struct fid_ep *fep, const void *buf, size_t len, void *desc,
                        fi_addr_t dest, void *context)
{
    (void)desc;
    return dnf_send(EP(fep), 0, buf, len, dest, 0, 0, context, EP(fep)->tx_op_flags);
}

static ssize_t msg_sendv(struct fid_ep *fep, const struct iovec *iov, void **desc,
                         size_t count, fi_addr_t dest, void *context)
{
    (void)desc;
    if (count > 1) {
        return -FI_EINVAL;
    }
    return dnf_send(EP(fep), 0, count ? iov[0].iov_base : NULL,
                    count ? iov[0].iov_len : 0, dest, 0, 0, context, EP(fep)->tx_op_flags);
}

static ssize_t msg_sendmsg(struct fid_ep *fep, const struct fi_msg *m, uint64_t flags)
{
    if (m->iov_count > 1) {
        return -FI_EINVAL;
    }
    return dnf_send(EP(fep), 0, m->iov_count ? m->msg_iov[0].iov_base : NULL,
                    m->iov_count ? m->msg_iov[0].iov_len : 0, m->addr, 0, m->data,
                    m->context, flags);
}

static ssize_t msg_inject(struct fid_ep *fep, const void *buf, size_t len, fi_addr_t dest)
{
    return dnf_send(EP(fep), 0, buf, len, dest, 0, 0, NULL, FI_INJECT);
}

static ssize_t msg_senddata(struct fid_ep *fep, const void *buf, size_t len, void *desc,
                            uint64_t data, fi_addr_t dest, void *context)
{
    (void)desc;
    return dnf_send(EP(fep), 0, buf, len, dest, 0, data, context,
                    EP(fep)->tx_op_flags | FI_REMOTE_CQ_DATA);
}

static ssize_t msg_injectdata(struct fid_ep *fep, const void *buf, size_t len,
                              uint64_t data, fi_addr_t dest)
{
    return dnf_send(EP(fep), 0, buf, len, dest, 0, data, NULL,
                    FI_INJECT | FI_REMOTE_CQ_DATA);
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
    return dnf_recv(EP(fep), DNF_F_TAGGED, buf, len, src, tag, ignore, context,
                    EP(fep)->rx_op_flags & ~FI_MULTI_RECV);   /* untagged only */
}

static ssize_t tag_recvv(struct fid_ep *fep, const struct iovec *iov, void **desc,
                         size_t count, fi_addr_t src, uint64_t tag, uint64_t ignore,
                         void *context)
{
    (void)desc;
    if (count > 1) {
        return -FI_EINVAL;
    }
    return dnf_recv(EP(fep), DNF_F_TAGGED, count ? iov[0].iov_base : NULL,
                    count ? iov[0].iov_len : 0, src, tag, ignore, context,
                    EP(fep)->rx_op_flags & ~FI_MULTI_RECV);
}

static ssize_t tag_recvmsg(struct fid_ep *fep, const struct fi_msg_tagged *m,
                           uint64_t flags)
{
    if (m->iov_count > 1) {
        return -FI_EINVAL;
    }
    return dnf_recv(EP(fep), DNF_F_TAGGED, m->iov_count ? m->msg_iov[0].iov_base : NULL,
                    m->iov_count ? m->msg_iov[0].iov_len : 0, m->addr, m->tag,
                    m->ignore, m->context, flags);
}

static ssize_t tag_send(struct fid_ep *fep, const void *buf, size_t len, void *desc,
                        fi_addr_t dest, uint64_t tag, void *context)
{
    (void)desc;
    return dnf_send(EP(fep), DNF_F_TAGGED, buf, len, dest, tag, 0, context,
                    EP(fep)->tx_op_flags);
}

static ssize_t tag_sendv(struct fid_ep *fep, const struct iovec *iov, void **desc,
                         size_t count, fi_addr_t dest, uint64_t tag, void *context)
{
    (void)desc;
    if (count > 1) {
        return -FI_EINVAL;
    }
    return dnf_send(EP(fep), DNF_F_TAGGED, count ? iov[0].iov_base : NULL,
                    count ? iov[0].iov_len : 0, dest, tag, 0, context,
                    EP(fep)->tx_op_flags);
}

static ssize_t tag_sendmsg(struct fid_ep *fep, const struct fi_msg_tagged *m,
                           uint64_t flags)
{
    if (m->iov_count > 1) {
        return -FI_EINVAL;
    }
    return dnf_send(EP(fep), DNF_F_TAGGED, m->iov_count ? m->msg_iov[0].iov_base : NULL,
                    m->iov_count ? m->msg_iov[0].iov_len : 0, m->addr, m->tag, m->data,
                    m->context, flags);
}

static ssize_t tag_inject(struct fid_ep *fep, const void *buf, size_t len,
                          fi_addr_t dest, uint64_t tag)
{
    return dnf_send(EP(fep), DNF_F_TAGGED, buf, len, dest, tag, 0, NULL, FI_INJECT);
}

static ssize_t tag_senddata(struct fid_ep *fep, const void *buf, size_t len, void *desc,
                            uint64_t data, fi_addr_t dest, uint64_t tag, void *context)
{
    (void)desc;
    return dnf_send(EP(fep), DNF_F_TAGGED, buf, len, dest, tag, data, context,
                    EP(fep)->tx_op_flags | FI_REMOTE_CQ_DATA);
}

static ssize_t tag_injectdata(struct fid_ep *fep, const void *buf, size_t len,
                              uint64_t data, fi_addr_t dest, uint64_t tag)
{
    return dnf_send(EP(fep), DNF_F_TAGGED, buf, len, dest, tag, data, NULL,
                    FI_INJECT | FI_REMOTE_CQ_DATA);
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
