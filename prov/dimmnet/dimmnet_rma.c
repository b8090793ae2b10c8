/*
 * RMA (fi_rma(3)) over the NIC's remote writes and reads: a write goes to
 * the target's remote virtual address DN_RVA(key, addr) by BOTF (the host
 * stores the data into the windows) or, when the source lies in receive
 * memory, by RDMA (the NIC reads it itself, 2048-byte packets); a read is
 * the hardware's remote read, landing straight in the destination when it
 * lies in receive memory, else in a staging slot first. The target's NIC
 * translates and checks every packet against its registrations (RVATLB,
 * refilled by its firmware from the registration table); no software runs
 * there. A refusal (wrong key, outside the registration, access not
 * granted, closed) lands nothing and completes the operation with
 * FI_EACCES.
 *
 * Completion: once every packet is ACKed (a read: once its data is here),
 * so FI_DELIVERY_COMPLETE (and the weaker FI_TRANSMIT_COMPLETE and
 * FI_INJECT_COMPLETE) always hold. Remote CQ data (fi_writedata) follows
 * the write as a provider message (WDATA) once it is ACKed: the target's
 * completion comes after the data is in place, and consumes no receive.
 * FI_FENCE: the operation starts once every earlier one is done.
 */
#include <stdlib.h>
#include <string.h>
#include "dimmnet.h"
#include "dimmnet1/packet.h"

/* The target's NIC said no: access, not transport. */
static int refusal_errno(uint8_t reason)
{
    switch (reason) {
    case DN1_NACK_PROTECTION:
    case DN1_NACK_NO_TRANSLATION:
    case DN1_NACK_RANGE:
        return FI_EACCES;
    default:
        return FI_EIO;
    }
}

static void op_fail(struct dnf_rma *op, int rc, uint8_t reason)
{
    if (op->err == DN_OK) {
        op->err = rc;
        op->nack = reason;
    }
}

static int piece_send(struct dnf_ep *ep, struct dnf_rma_piece *pc, unsigned slot)
{
    struct dnf_rma *op = pc->op;
    dn_node *n = ep->dom->node;
    uint64_t rva = DN_RVA(op->wire, op->addr + pc->off);
    /* The target process's port: registrations are the board's, but its
     * NIC answers from the port named, to this process's port. */
    unsigned dst = dnf_peer_addr(ep->dom, op->node);

    if (op->rndv) {             /* a zero-copy rest: raw receive memory */
        if (op->local != UINT64_MAX && pc->len > DN_BOTF_MAX_PAYLOAD) {
            return dn_rdma_write(n, DN1_TYPE_PUSH, dst, op->addr + pc->off,
                                 op->local + pc->off, pc->len, &pc->x);
        }
        return dn_botf_put(n, dst, op->addr + pc->off, op->src + pc->off, pc->len,
                           &pc->x);
    }
    if (op->kind == DNF_RMA_READ) {
        uint64_t local = op->local != UINT64_MAX
                             ? op->local + pc->off
                             : DNF_RMA_STAGE_OFF(ep->slot) + (uint64_t)slot * DNF_RMA_PIECE;
        return dn_get_rva(n, dst, rva, local, pc->len, &pc->x);
    }
    if (op->local != UINT64_MAX && pc->len > DN_BOTF_MAX_PAYLOAD) {
        return dn_rdma_write_rva(n, dst, rva, op->local + pc->off, pc->len, &pc->x);
    }
    return dn_botf_put_rva(n, dst, rva, op->src + pc->off, pc->len, &pc->x);
}

/* (Re)send a piece. Refused at once for want of room or link, maybe
 * after some of its packets went (@refused): sent again whole soon, which
 * is no try (its transfer would answer DN_OK for what went, short). */
static void piece_go(struct dnf_ep *ep, struct dnf_rma_piece *pc, unsigned slot)
{
    /* A refused send's retry is no try, nor one after NOT_RESIDENT. */
    int rc, again = pc->refused || pc->paused || pc->tries++;

    pc->paused = 0;

    ep->stats.rma_resends += again != 0;
    pc->ahead = 0;
    for (unsigned i = 0; i < DNF_RMA_SLOTS; i++) {
        if (ep->rma_piece[i].op && &ep->rma_piece[i] != pc) {
            pc->ahead += ep->rma_piece[i].len;
        }
    }
    rc = piece_send(ep, pc, slot);
    ep->stats.rma_packets_resent += again ? pc->x.packets : 0;
    pc->sent_us = dnf_now_us(ep->dom);
    pc->refused = rc == DN_EBUSY || rc == DN_ELINKDOWN || rc == DN_ETIMEDOUT
                      ? pc->refused + 1 : 0;
    if (pc->refused > DNF_RMA_REFUSALS) {
        rc = rc == DN_EBUSY ? DN_ETIMEDOUT : rc;     /* given up: the operation fails */
        pc->refused = 0;
    }
    if (rc != DN_OK && !pc->refused) {
        op_fail(pc->op, rc, 0);
        pc->op->finished += pc->len;
        pc->op = NULL;
        dnf_ep_fatal(ep, rc);
    }
}

/* Is a piece answered? Then its slot is free again. */
static void piece_test(struct dnf_ep *ep, struct dnf_rma_piece *pc, unsigned slot)
{
    struct dnf_rma *op = pc->op;
    /* Its ACK may come only after every piece in flight before it went
     * (the NIC sends in order; a miss at the target's RVATLB holds them):
     * their bytes at 50 MB/s modeled (the miss-continue path's rate, about
     * 64) or 10 MB/s wall-clock, on top of the resend time. */
    uint64_t more = (pc->ahead + pc->len) / (ep->dom->modeled ? 50u : 10u);
    int rc;

    if (pc->paused) {
        /* The target's host is moving its pages onto the card. */
        unsigned sh = pc->page_waits < 4 ? pc->page_waits : 3;
        if (dnf_now_us(ep->dom) - pc->sent_us >= (dnf_resend_us(ep->dom, 0) / 64) << sh) {
            piece_go(ep, pc, slot);
        }
        return;
    }
    if (pc->refused) {
        /* Again after a pause (an eighth of the resend time), whole. */
        if (dnf_now_us(ep->dom) - pc->sent_us >= dnf_resend_us(ep->dom, 0) / 8) {
            piece_go(ep, pc, slot);
        }
        return;
    }
    rc = dn_wait(ep->dom->node, &pc->x, 0);

    if (rc == DN_ETIMEDOUT &&
        dnf_now_us(ep->dom) - pc->sent_us < dnf_resend_us(ep->dom, pc->tries) + more) {
        return;
    }
    if (rc == DN_ETIMEDOUT && pc->tries < DNF_RMA_TRIES && op->kind == DNF_RMA_WRITE) {
        /* Only its packets still unanswered (the ACKs say which): under
         * loss a piece costs the packets lost, and eight tries in a row
         * fail for a packet, not for any of a piece's 18. */
        uint32_t resent;

        if (dn_resend(ep->dom->node, &pc->x, &resent) == DN_OK) {
            if (resent) {
                pc->tries++;
                ep->stats.rma_resends++;
                ep->stats.rma_packets_resent += resent;
                pc->sent_us = dnf_now_us(ep->dom);
            }
            return;
        }
    }
    if ((rc == DN_ETIMEDOUT || rc == DN_ESTALE) && pc->tries < DNF_RMA_TRIES) {
        piece_go(ep, pc, slot);
        return;
    }
    if (rc == DN_OK && op->kind == DNF_RMA_READ && op->local == UINT64_MAX) {
        size_t size;
        uint8_t *mem = dn_hostmem(ep->dom->node, &size);

        dnf_copy(ep->dom, op->dst + pc->off,
                 mem + DNF_RMA_STAGE_OFF(ep->slot) + (size_t)slot * DNF_RMA_PIECE, pc->len);
    }
    if (rc == DN_ENACK && pc->x.nack_reason == DN1_NACK_NOT_RESIDENT &&
        pc->page_waits < DNF_RMA_PAGE_WAITS) {
        pc->page_waits++;
        pc->paused = 1;
        pc->sent_us = dnf_now_us(ep->dom);
        ep->stats.rma_not_resident++;
        return;
    }
    if (rc == DN_ENACK) {
        ep->stats.rma_refused++;
        FI_INFO(&dnf_prov, FI_LOG_EP_DATA, "RMA %s of %zu bytes at %#llx key %#x on "
                "node %u refused (NACK %u)\n", op->kind == DNF_RMA_READ ? "read" : "write",
                pc->len, (unsigned long long)(op->addr + pc->off), op->wire, op->node,
                pc->x.nack_reason);
    }
    if (rc != DN_OK) {
        op_fail(op, rc, pc->x.nack_reason);
    }
    op->finished += pc->len;
    pc->op = NULL;
}

static struct dnf_cntr *op_cntr(const struct dnf_ep *ep, const struct dnf_rma *op)
{
    return op->kind == DNF_RMA_READ ? ep->cntr_read : ep->cntr_write;
}

/* Done (every piece answered, the notice delivered): complete and free it. */
static void op_complete(struct dnf_ep *ep, struct dnf_rma *op)
{
    struct dnf_comp c = { 0 };

    dnf_rma_done_charge(ep);

    ep->stats.rma_ops++;
    dnf_cntr_bump(op_cntr(ep, op), op->err != DN_OK);
    /* An injected one failing names no context: logged and counted only
     * (as for sends, dimmnet_progress.c). */
    if ((op->err == DN_OK && !op->complete) || (!op->complete && !op->context)) {
        if (op->err != DN_OK) {
            ep->stats.inject_errors++;
            FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "injected RMA write to node %u failed: "
                    "%s\n", op->node, dn_strerror(op->err));
        }
        free(op);
        return;
    }
    c.e.op_context = op->context;
    c.e.flags = FI_RMA | (op->kind == DNF_RMA_READ ? FI_READ : FI_WRITE);
    c.src = FI_ADDR_NOTAVAIL;
    if (op->err != DN_OK) {
        c.err = op->err == DN_ENACK ? refusal_errno(op->nack) : dnf_errno(op->err);
        c.prov_errno = op->err;
        FI_WARN(&dnf_prov, FI_LOG_EP_DATA, "RMA %s of %zu bytes to node %u failed: %s\n",
                op->kind == DNF_RMA_READ ? "read" : "write", op->len, op->node,
                dn_strerror(op->err));
    }
    dnf_cq_push(ep->tx_cq, &c);
    free(op);
}

/* A write with remote CQ data is in place, or an RMA to announce
 * (FI_RMA_EVENT) done: tell the target. */
static int notice_send(struct dnf_ep *ep, struct dnf_rma *op)
{
    /* The shim reads the message from op->nh until it is delivered (and
     * again for a resend): it lives in the operation. */
    op->nh = (struct dnf_hdr){ .magic = DNF_MAGIC, .kind = DNF_K_WDATA,
                               .sess = ep->session, .data = op->data,
                               .len = op->len, .rid = op->wire,
                               .seen = op->kind == DNF_RMA_READ };
    op->nh.flags = (uint8_t)((op->flags & FI_REMOTE_CQ_DATA ? DNF_F_DATA : 0) |
                             (op->event ? DNF_F_EVENT : 0));
    int rc = dn_msg_isend(ep->dom->node, dnf_peer_addr(ep->dom, op->node), 0, &op->nh,
                          sizeof(op->nh), &op->notice);

    if (rc != DN_OK) {
        op_fail(op, rc, 0);
        op->notice = NULL;
        return 0;
    }
    return 1;
}

void dnf_rma_progress(struct dnf_ep *ep)
{
    unsigned slot = 0;
    int earlier_busy = 0;

    for (unsigned i = 0; i < DNF_RMA_SLOTS; i++) {
        if (ep->rma_piece[i].op) {
            piece_test(ep, &ep->rma_piece[i], i);
        }
    }
    for (struct dnf_rma **p = &ep->rma_head; *p;) {
        struct dnf_rma *op = *p;

        if (op->fence && earlier_busy) {
            break;                  /* nothing after a fence passes it */
        }
        while (op->err == DN_OK && op->issued < op->len) {
            while (slot < DNF_RMA_SLOTS && ep->rma_piece[slot].op) {
                slot++;
            }
            if (slot == DNF_RMA_SLOTS) {
                break;
            }
            struct dnf_rma_piece *pc = &ep->rma_piece[slot];
            pc->op = op;
            pc->off = op->issued;
            pc->len = op->len - op->issued < DNF_RMA_PIECE ? op->len - op->issued
                                                           : DNF_RMA_PIECE;
            /* Within one DNF_MR_EXTENT of the target's addresses: a
             * paged target holds it in one piece. */
            size_t room = DNF_MR_EXTENT - ((op->addr + op->issued) & (DNF_MR_EXTENT - 1));
            pc->len = pc->len < room ? pc->len : room;
            pc->tries = 0;
            pc->refused = 0;
            pc->page_waits = 0;
            pc->paused = 0;
            op->issued += pc->len;
            piece_go(ep, pc, slot);
        }
        if (op->err != DN_OK && op->issued < op->len) {
            op->finished += op->len - op->issued;     /* the rest is never sent */
            op->issued = op->len;
        }
        int done = op->finished == op->len;
        if (done && op->err == DN_OK && ((op->flags & FI_REMOTE_CQ_DATA) || op->event)) {
            if (!op->notice) {
                done = !notice_send(ep, op);
            }
            if (op->notice) {
                struct dn_msg_status st;
                int fin = 0, rc = dn_msg_test(ep->dom->node, op->notice, &fin, &st);

                done = fin;
                if (fin && rc != DN_OK) {
                    op_fail(op, rc, 0);
                }
            }
        }
        if (!done) {
            earlier_busy = 1;
            p = &op->next;
            continue;
        }
        *p = op->next;
        if (!*p) {
            ep->rma_tail = p;
        }
        if (op->rndv) {
            op->rndv->zc_err = op->err;     /* its send goes on (dimmnet_progress.c) */
            op->rndv->zc_busy = 0;
            dnf_mr_rndv_give(ep->dom, op->src_zc);
            free(op);
            continue;
        }
        op_complete(ep, op);
    }
}

int dnf_rma_rndv(struct dnf_ep *ep, struct dnf_tx *t, uint32_t node, uint64_t raddr,
                 const uint8_t *src, size_t len)
{
    struct dnf_rma *op = calloc(1, sizeof(*op));

    if (!op) {
        return -FI_ENOMEM;
    }
    op->kind = DNF_RMA_WRITE;
    op->node = node;
    op->addr = raddr;
    op->src = src;
    op->len = len;
    op->local = UINT64_MAX;
    op->rndv = t;
    /* The NIC reads the source itself (RDMA) where it lies on the card:
     * a long one is moved there and kept (the receive cache's), so that the
     * host's stores into the window (BOTF) are not the limit. */
    if (!(len >= DNF_RNDV_RDMA_MIN &&
          !dnf_mr_rndv_take_src(ep->dom, src, len, &op->local, &op->src_zc)) &&
        !dnf_mr_nic(ep->dom, src, len, &op->local)) {
        op->local = UINT64_MAX;
    }
    ep->stats.zcopy_rdma += op->local != UINT64_MAX;
    t->zc_busy = 1;
    t->zc_err = DN_OK;
    *ep->rma_tail = op;
    ep->rma_tail = &op->next;
    dnf_rma_progress(ep);
    return 0;
}

int dnf_rma_idle(const struct dnf_ep *ep)
{
    return !ep->rma_head && !ep->atomic_head;
}

/* An RMA or atomic done, out of its list: when it was the last in flight,
 * the caller's flush (MPI_Win_flush) ends now, and is charged. */
void dnf_rma_done_charge(struct dnf_ep *ep)
{
    if (dnf_rma_idle(ep)) {
        dn_host_work(ep->dom->node, DN_HOST_INSNS, ep->dom->charge.flush);
    }
}

/* The target: remote CQ data of a write now in place, and/or an RMA event
 * (the registration's counters, and the endpoint's remote ones). */
void dnf_rma_notice(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h)
{
    struct dnf_comp c = { 0 };
    int read = h->seen != 0;

    if (h->flags & DNF_F_EVENT) {
        dnf_mr_event(ep->dom, (uint16_t)h->rid, read);
    }
    dnf_cntr_bump(read ? ep->cntr_rread : ep->cntr_rwrite, 0);
    if (!(h->flags & DNF_F_DATA)) {
        return;
    }
    c.e.flags = FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA;
    c.e.len = h->len;
    c.e.data = h->data;
    c.src = dnf_av_addr(ep->av, node);
    dnf_cq_push(ep->rx_cq, &c);
}

/* ---- the calls ------------------------------------------------------------ */

static uint64_t tx_flags(const struct dnf_ep *ep)
{
    return ep->tx_op_flags;
}

static int wants_completion(const struct dnf_ep *ep, uint64_t flags, const void *context)
{
    return !((flags & FI_INJECT) && !context) &&
           (!ep->tx_selective || (flags & FI_COMPLETION));
}

static ssize_t rma_post(struct dnf_ep *ep, uint8_t kind, void *buf, size_t len,
                        fi_addr_t peer, uint64_t addr, uint64_t key, void *context,
                        uint64_t flags, uint64_t data)
{
    struct dnf_rma *op;
    uint32_t node;
    uint16_t wire;
    int inject = kind == DNF_RMA_WRITE && (flags & FI_INJECT);
    int event, rc;

    dnf_enter();
    if (!ep->enabled) {
        return -FI_EOPBADSTATE;
    }
    if ((!buf && len) || len > DNF_MAX_MSG || (inject && len > DNF_INJECT_SIZE)) {
        return -FI_EINVAL;
    }
    if (dnf_av_node(ep->av, peer, &node)) {
        return -FI_EINVAL;
    }
    if ((rc = dnf_mr_wire(ep->dom, key, &wire, &event))) {
        return rc;
    }
    event |= ep->dom->rma_event;
    if (addr > DN1_RVA_VA(~0ull) || len > DN1_RVA_VA(~0ull) - addr + 1) {
        return -FI_EINVAL;          /* more than an RVA's 48 bits carry */
    }
    if (((flags & FI_REMOTE_CQ_DATA) || event) && !ep->messaging) {
        return -FI_EOPNOTSUPP;      /* its notice is a message: not on this endpoint */
    }
    dn_host_work(ep->dom->node, DN_HOST_INSNS, kind == DNF_RMA_READ ? ep->dom->charge.read
                                                                    : ep->dom->charge.write);
    op = calloc(1, sizeof(*op) + (inject ? len : 0));
    if (!op) {
        return -FI_ENOMEM;
    }
    op->kind = kind;
    op->fence = (flags & FI_FENCE) != 0;
    op->event = (uint8_t)event;
    op->complete = wants_completion(ep, flags, context);
    op->node = node;
    op->wire = wire;
    op->addr = addr;
    op->len = len;
    op->flags = flags;
    op->data = data;
    op->context = context;
    op->local = UINT64_MAX;
    if (kind == DNF_RMA_READ) {
        op->dst = buf;
    } else if (inject) {
        dnf_copy(ep->dom, op->inject, buf, len);
        op->src = op->inject;
    } else {
        op->src = buf;
    }
    if (!inject && len) {
        dnf_mr_nic(ep->dom, buf, len, &op->local);
    }
    *ep->rma_tail = op;
    ep->rma_tail = &op->next;
    dnf_rma_progress(ep);
    return 0;
}

static struct dnf_ep *ep_of(struct fid_ep *fep)
{
    return container_of(fep, struct dnf_ep, ep);
}

static ssize_t rma_read(struct fid_ep *fep, void *buf, size_t len, void *desc,
                        fi_addr_t src_addr, uint64_t addr, uint64_t key, void *context)
{
    struct dnf_ep *ep = ep_of(fep);

    (void)desc;
    return rma_post(ep, DNF_RMA_READ, buf, len, src_addr, addr, key, context,
                    tx_flags(ep), 0);
}

static ssize_t rma_readv(struct fid_ep *fep, const struct iovec *iov, void **desc,
                         size_t count, fi_addr_t src_addr, uint64_t addr, uint64_t key,
                         void *context)
{
    if (count > 1 || (count && !iov)) {
        return -FI_EINVAL;          /* iov_limit 1 */
    }
    return rma_read(fep, count ? iov[0].iov_base : NULL, count ? iov[0].iov_len : 0,
                    desc ? desc[0] : NULL, src_addr, addr, key, context);
}

/* One local and one remote piece of the same length (iov limits 1). */
static int msg_fits(const struct fi_msg_rma *msg)
{
    return msg && msg->iov_count <= 1 && msg->rma_iov_count == 1 && msg->rma_iov &&
           (!msg->iov_count || (msg->msg_iov && msg->msg_iov[0].iov_len == msg->rma_iov[0].len)) &&
           (msg->iov_count || !msg->rma_iov[0].len);
}

#define RMA_MSG_FLAGS (FI_COMPLETION | FI_INJECT | FI_REMOTE_CQ_DATA | FI_FENCE | \
                       FI_DELIVERY_COMPLETE | FI_TRANSMIT_COMPLETE | FI_INJECT_COMPLETE | \
                       FI_MORE)

static ssize_t rma_readmsg(struct fid_ep *fep, const struct fi_msg_rma *msg, uint64_t flags)
{
    if (!msg_fits(msg) || (flags & ~(uint64_t)RMA_MSG_FLAGS) ||
        (flags & (FI_INJECT | FI_REMOTE_CQ_DATA))) {
        return -FI_EINVAL;
    }
    return rma_post(ep_of(fep), DNF_RMA_READ,
                    msg->iov_count ? msg->msg_iov[0].iov_base : NULL, msg->rma_iov[0].len,
                    msg->addr, msg->rma_iov[0].addr, msg->rma_iov[0].key, msg->context,
                    flags, 0);
}

static ssize_t rma_write(struct fid_ep *fep, const void *buf, size_t len, void *desc,
                         fi_addr_t dest_addr, uint64_t addr, uint64_t key, void *context)
{
    struct dnf_ep *ep = ep_of(fep);

    (void)desc;
    return rma_post(ep, DNF_RMA_WRITE, (void *)buf, len, dest_addr, addr, key, context,
                    tx_flags(ep) & ~(uint64_t)FI_INJECT, 0);
}

static ssize_t rma_writev(struct fid_ep *fep, const struct iovec *iov, void **desc,
                          size_t count, fi_addr_t dest_addr, uint64_t addr, uint64_t key,
                          void *context)
{
    if (count > 1 || (count && !iov)) {
        return -FI_EINVAL;
    }
    return rma_write(fep, count ? iov[0].iov_base : NULL, count ? iov[0].iov_len : 0,
                     desc ? desc[0] : NULL, dest_addr, addr, key, context);
}

static ssize_t rma_writemsg(struct fid_ep *fep, const struct fi_msg_rma *msg, uint64_t flags)
{
    if (!msg_fits(msg) || (flags & ~(uint64_t)RMA_MSG_FLAGS)) {
        return -FI_EINVAL;
    }
    return rma_post(ep_of(fep), DNF_RMA_WRITE,
                    msg->iov_count ? msg->msg_iov[0].iov_base : NULL, msg->rma_iov[0].len,
                    msg->addr, msg->rma_iov[0].addr, msg->rma_iov[0].key, msg->context,
                    flags, msg->data);
}

static ssize_t rma_inject(struct fid_ep *fep, const void *buf, size_t len,
                          fi_addr_t dest_addr, uint64_t addr, uint64_t key)
{
    return rma_post(ep_of(fep), DNF_RMA_WRITE, (void *)buf, len, dest_addr, addr, key,
                    NULL, FI_INJECT, 0);
}

static ssize_t rma_writedata(struct fid_ep *fep, const void *buf, size_t len, void *desc,
                             uint64_t data, fi_addr_t dest_addr, uint64_t addr,
                             uint64_t key, void *context)
{
    struct dnf_ep *ep = ep_of(fep);

    (void)desc;
    return rma_post(ep, DNF_RMA_WRITE, (void *)buf, len, dest_addr, addr, key, context,
                    (tx_flags(ep) & ~(uint64_t)FI_INJECT) | FI_REMOTE_CQ_DATA, data);
}

static ssize_t rma_injectdata(struct fid_ep *fep, const void *buf, size_t len,
                              uint64_t data, fi_addr_t dest_addr, uint64_t addr,
                              uint64_t key)
{
    return rma_post(ep_of(fep), DNF_RMA_WRITE, (void *)buf, len, dest_addr, addr, key,
                    NULL, FI_INJECT | FI_REMOTE_CQ_DATA, data);
}

struct fi_ops_rma dnf_rma_ops = {
    .size = sizeof(struct fi_ops_rma),
    .read = rma_read,
    .readv = rma_readv,
    .readmsg = rma_readmsg,
    .write = rma_write,
    .writev = rma_writev,
    .writemsg = rma_writemsg,
    .inject = rma_inject,
    .writedata = rma_writedata,
    .injectdata = rma_injectdata,
};
