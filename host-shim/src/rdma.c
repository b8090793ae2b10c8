/*
 * RDMA: the NIC reads the data from this node's receive memory itself and
 * sends it in packets of up to DN1_RDMA_MAX_PAYLOAD bytes; the host writes a
 * descriptor and rings the doorbell. More set-up than BOTF, no 464-byte bound.
 */
#include <string.h>
#include "internal.h"
#include "dimmnet1/memmap.h"

/* Packets per descriptor: keeps one post well inside the completion queue. */
#define RDMA_DESC_PACKETS 64u
#define RDMA_ROOM_TIMEOUT_MS 10000

int dn_rdma_write(dn_node *n, uint8_t type, unsigned dst, uint64_t raddr,
                  uint64_t local, size_t len, dn_xfer *x)
{
    const size_t desc_bytes = (size_t)RDMA_DESC_PACKETS * DN1_RDMA_MAX_PAYLOAD;
    size_t done = 0;

    if (!n || !x || dst >= DN1_MCAST_BASE || !dn1_type_sendable(type)) {
        return DN_EINVAL;
    }
    if (local > n->hostmem_size || len > n->hostmem_size - local) {
        return DN_ERANGE;   /* the NIC could not read it */
    }
    if (type == DN1_TYPE_PUSH && !dn1_raddr_writable(raddr, len)) {
        return DN_ERANGE;
    }
    struct dn_xfer_rec *r = dn_xfer_begin(n, x);
    do {
        size_t chunk = len - done < desc_bytes ? len - done : desc_bytes;
        uint32_t packets = chunk ? (uint32_t)((chunk + DN1_RDMA_MAX_PAYLOAD - 1) /
                                              DN1_RDMA_MAX_PAYLOAD) : 1;
        unsigned d = n->next_desc;
        uint8_t *e = n->window + DN1_RDMA_DESC_OFF + d * sizeof(struct dn1_rdma_desc);
        uint64_t sent = 0;
        int rc = dn_cq_wait_room(n, DN1_LLCM_CQ_ENTRIES - packets + 1,
                                 RDMA_ROOM_TIMEOUT_MS);
        if (rc != DN_OK) {
            return rc;
        }
        memset(e, 0, sizeof(struct dn1_rdma_desc));
        e[offsetof(struct dn1_rdma_desc, type)] = type;
        e[offsetof(struct dn1_rdma_desc, flags)] = DN1_FLAG_ACK_REQ;
        dn_put_le(e + offsetof(struct dn1_rdma_desc, dst), dst, 2);
        dn_put_le(e + offsetof(struct dn1_rdma_desc, len), chunk, 4);
        dn_put_le(e + offsetof(struct dn1_rdma_desc, local), local + done, 8);
        dn_put_le(e + offsetof(struct dn1_rdma_desc, raddr),
                  type == DN1_TYPE_PUSH ? raddr + done : raddr, 8);
        dn_put_le(e + offsetof(struct dn1_rdma_desc, first_tag), n->next_tag, 4);
        dn_put_le(e + offsetof(struct dn1_rdma_desc, xoff), done, 4);
        dn_put_le(e + offsetof(struct dn1_rdma_desc, seq), n->next_seq, 2);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        rc = dn_hb_call(n, DN1_HB_RDMA_POST, d, 0, 0, &sent);
        n->next_desc = (d + 1) % DN1_RDMA_DESCS;
        for (uint64_t i = 0; i < sent; i++) {    /* those left, even on error */
            dn_xfer_sent(n, r, x);
        }
        n->next_seq = (uint16_t)(n->next_seq + sent);
        if (rc != DN_OK) {
            return rc;
        }
        done += chunk;
    } while (done < len);
    return DN_OK;
}
