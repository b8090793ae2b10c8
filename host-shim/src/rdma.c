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

/* Write descriptor after descriptor (round robin) and ring its doorbell;
 * *sent: the packets that left. */
static int rdma_post(dn_node *n, uint8_t type, uint8_t flags, unsigned dst,
                     uint64_t raddr, uint64_t local, size_t len, uint32_t first_tag,
                     uint32_t xoff, uint16_t seq, uint64_t *sent)
{
    unsigned d = n->desc_first + n->next_desc;
    uint8_t *e = n->window + DN1_RDMA_DESC_OFF + d * sizeof(struct dn1_rdma_desc);

    dn_self(n, DN_SELF_PACKET);
    memset(e, 0, sizeof(struct dn1_rdma_desc));
    e[offsetof(struct dn1_rdma_desc, type)] = type;
    /* DN_BOTF_NO_ACK: nothing answers (the collectives' writes, whose
     * reader asks again for what it misses). */
    e[offsetof(struct dn1_rdma_desc, flags)] =
        flags & DN_BOTF_NO_ACK ? flags & ~DN_BOTF_NO_ACK : DN1_FLAG_ACK_REQ | flags;
    dn_put_le(e + offsetof(struct dn1_rdma_desc, dst), dst, 2);
    dn_put_le(e + offsetof(struct dn1_rdma_desc, len), len, 4);
    dn_put_le(e + offsetof(struct dn1_rdma_desc, local), local, 8);
    dn_put_le(e + offsetof(struct dn1_rdma_desc, raddr), raddr, 8);
    dn_put_le(e + offsetof(struct dn1_rdma_desc, first_tag), first_tag, 4);
    dn_put_le(e + offsetof(struct dn1_rdma_desc, xoff), xoff, 4);
    dn_put_le(e + offsetof(struct dn1_rdma_desc, seq), seq, 2);
    dn_host_charge(n, DN_HOST_PIO, sizeof(struct dn1_rdma_desc));
    __atomic_thread_fence(__ATOMIC_RELEASE);
    *sent = 0;
    int rc = dn_hb_call(n, DN1_HB_RDMA_POST, d, 0, 0, sent);
    n->next_desc = (n->next_desc + 1) % n->desc_count;
    return rc;
}

int dn_rdma_run_tracked(dn_node *n, uint8_t flags, unsigned dst, uint64_t raddr,
                        uint64_t local, size_t len, uint32_t first_tag, uint32_t xoff,
                        uint64_t *sent)
{
    int rc = rdma_post(n, DN1_TYPE_PUSH, flags, dst, raddr, local, len, first_tag, xoff,
                       n->next_seq, sent);

    n->next_seq = (uint16_t)(n->next_seq + *sent);
    return rc;
}

int dn_rdma_packet(dn_node *n, uint8_t type, unsigned dst, uint64_t raddr,
                   uint64_t local, uint32_t xoff, uint16_t len, uint32_t tag,
                   uint16_t seq)
{
    uint64_t sent;

    if (len > DN1_RDMA_MAX_PAYLOAD || local > n->hostmem_size ||
        len > n->hostmem_size - local) {
        return DN_ERANGE;
    }
    return rdma_post(n, type, 0, dst, raddr, local, len, tag, xoff, seq, &sent);
}

/* An RDMA transfer of @len bytes from receive memory at @local, in
 * descriptors of up to RDMA_DESC_PACKETS packets. */
static int rdma_transfer(dn_node *n, uint8_t type, uint8_t flags, unsigned dst,
                         uint64_t raddr, uint64_t local, size_t len, dn_xfer *x)
{
    const size_t desc_bytes = (size_t)RDMA_DESC_PACKETS * DN1_RDMA_MAX_PAYLOAD;
    size_t done = 0;

    dn_self(n, DN_SELF_XFER);
    if (local > n->hostmem_size || len > n->hostmem_size - local) {
        return DN_ERANGE;   /* the NIC could not read it */
    }
    struct dn_xfer_rec *r = dn_xfer_begin(n, x);
    if (type == DN1_TYPE_PUSH) {
        dn_xfer_redo(r, DN_REDO_RDMA, flags, dst, raddr, NULL, local, len);
    }
    do {
        size_t chunk = len - done < desc_bytes ? len - done : desc_bytes;
        uint32_t packets = chunk ? (uint32_t)((chunk + DN1_RDMA_MAX_PAYLOAD - 1) /
                                              DN1_RDMA_MAX_PAYLOAD) : 1;
        uint64_t sent = 0;
        int rc = dn_cq_wait_room(n, DN1_LLCM_CQ_ENTRIES - packets + 1,
                                 RDMA_ROOM_TIMEOUT_MS);
        if (rc != DN_OK) {
            return rc;
        }
        rc = rdma_post(n, type, flags, dst,
                       type == DN1_TYPE_PUSH ? raddr + done : raddr,
                       local + done, chunk, n->next_tag, (uint32_t)done, n->next_seq,
                       &sent);
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

int dn_rdma_untracked(dn_node *n, unsigned dst, uint64_t raddr, uint64_t local, size_t len)
{
    const size_t desc_bytes = (size_t)RDMA_DESC_PACKETS * DN1_RDMA_MAX_PAYLOAD;
    size_t done = 0;

    if (dst >= DN1_MCAST_BASE || !dn1_raddr_writable(raddr, len) ||
        local > n->hostmem_size || len > n->hostmem_size - local) {
        return DN_ERANGE;
    }
    do {
        size_t chunk = len - done < desc_bytes ? len - done : desc_bytes;
        uint64_t sent = 0;
        int rc = rdma_post(n, DN1_TYPE_PUSH, DN_BOTF_NO_ACK, dst, raddr + done, local + done,
                           chunk, 0, (uint32_t)done, n->next_seq, &sent);
        n->next_seq = (uint16_t)(n->next_seq + sent);
        if (rc != DN_OK) {
            return rc;
        }
        done += chunk;
    } while (done < len);
    return DN_OK;
}

int dn_rdma_write(dn_node *n, uint8_t type, unsigned dst, uint64_t raddr,
                  uint64_t local, size_t len, dn_xfer *x)
{
    if (!n || !x || dst >= DN1_MCAST_BASE || !dn1_type_sendable(type)) {
        return DN_EINVAL;
    }
    if (type == DN1_TYPE_PUSH && !dn1_raddr_writable(raddr, len)) {
        return DN_ERANGE;
    }
    return rdma_transfer(n, type, 0, dst, raddr, local, len, x);
}

int dn_rdma_write_rva(dn_node *n, unsigned dst, uint64_t rva, uint64_t local,
                      size_t len, dn_xfer *x)
{
    if (!n || !x || dst >= DN1_MCAST_BASE) {
        return DN_EINVAL;
    }
    /* The VA may not run into the context bits. */
    if (len > DN1_RVA_VA(~0ull) - DN1_RVA_VA(rva) + 1) {
        return DN_ERANGE;
    }
    return rdma_transfer(n, DN1_TYPE_PUSH, DN1_FLAG_VA, dst, rva, local, len, x);
}
