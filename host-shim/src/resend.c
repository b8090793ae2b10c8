/*
 * Resending what was lost: the hardware ACKs every packet of a remote
 * write, so after a timeout the shim knows which packets of a transfer
 * are unanswered (lost, or their ACK lost) and sends only those again,
 * under their own tags, so that whichever copy is answered first counts
 * once (completion.c). A transfer of many packets under loss then costs
 * a few packets more, not the whole transfer again.
 */
#include "internal.h"
#include "dimmnet1/memmap.h"

void dn_xfer_redo(struct dn_xfer_rec *r, uint8_t how, uint8_t flags, unsigned dst,
                  uint64_t raddr, const void *buf, uint64_t local, size_t len)
{
    r->redo = how;
    r->redo_flags = flags;
    r->redo_dst = (uint16_t)dst;
    r->redo_raddr = raddr;
    r->redo_buf = buf;
    r->redo_local = local;
    r->redo_len = len;
}

/* Packet @k's share of a transfer of @len bytes in packets of @per. */
static size_t packet_len(size_t len, size_t per, uint32_t k)
{
    size_t off = (size_t)k * per;

    return len - off < per ? len - off : per;
}

int dn_resend(dn_node *n, dn_xfer *x, uint32_t *resent)
{
    struct dn_xfer_rec *r;
    size_t per;
    uint32_t count = 0;

    if (resent) {
        *resent = 0;
    }
    if (!n || !x) {
        return DN_EINVAL;
    }
    r = &n->xfers[x->id % DN_XFER_SLOTS];
    if (!r->in_use || r->id != x->id) {
        return DN_ESTALE;
    }
    per = r->redo == DN_REDO_BOTF ? DN_BOTF_MAX_PAYLOAD : DN1_RDMA_MAX_PAYLOAD;
    /* Only remote writes, whole (every packet sent), of packets the bitmap
     * tells apart. */
    if (r->redo == DN_REDO_NONE || r->packets > DN_REDO_PACKETS ||
        r->packets != (r->redo_len ? (r->redo_len + per - 1) / per : 1)) {
        return DN_EINVAL;
    }
    dn_cq_drain(n);                   /* answers that came meanwhile count */
    if (r->acked + r->nacked + r->failed >= r->packets) {
        return DN_OK;                 /* nothing unanswered: dn_wait says how */
    }
    if (r->nacked || r->failed) {
        return DN_EINVAL;             /* a NACK is an answer, not a loss */
    }
    dn_self(n, DN_SELF_XFER);
    int rc = DN_OK;
    for (uint32_t k = 0; k < r->packets && rc == DN_OK;) {
        if (r->answered >> k & 1) {
            k++;
            continue;
        }
        uint32_t end = k + 1;

        if (r->redo == DN_REDO_BOTF) {
            size_t off = (size_t)k * per;

            rc = dn_botf_packet_tracked(n, DN1_TYPE_PUSH, r->redo_flags, r->redo_dst,
                                        r->redo_raddr + off, (uint32_t)off,
                                        r->redo_buf + off,
                                        (uint16_t)packet_len(r->redo_len, per, k),
                                        r->first_tag + k);
        } else {
            /* A run of unanswered packets: one descriptor. */
            while (end < r->packets && !(r->answered >> end & 1)) {
                end++;
            }
            size_t off = (size_t)k * per;
            size_t len = (size_t)(end - 1) * per + packet_len(r->redo_len, per, end - 1) - off;
            uint64_t sent = 0;

            rc = dn_rdma_run_tracked(n, r->redo_flags, r->redo_dst, r->redo_raddr + off,
                                     r->redo_local + off, len, r->first_tag + k,
                                     (uint32_t)off, &sent);
            if (rc == DN_OK && sent != end - k) {
                rc = DN_EIO;          /* the NIC sent other than asked */
            }
            end = k + (uint32_t)(sent < end - k ? sent : end - k);
        }
        count += end - k;
        k = end;
    }
    if (resent) {
        *resent = count;
    }
    return rc;
}
