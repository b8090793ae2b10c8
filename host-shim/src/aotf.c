/*
 * AOTF: a channel is set up once in the NIC's channel table (window memory);
 * then each store of 1-8 bytes to it is one host-bus transaction and one
 * packet, with no other host action (paper: AOTF, the finest grain).
 */
#include <string.h>
#include "internal.h"
#include "dimmnet1/memmap.h"

/* How long a store may wait for room among the packets in flight. */
#define AOTF_ROOM_TIMEOUT_MS 10000

static uint8_t *channel_entry(dn_node *n, unsigned ch)
{
    return n->window + DN1_AOTF_TABLE_OFF + ch * sizeof(struct dn1_aotf_channel);
}

int dn_aotf_open(dn_node *n, unsigned ch, uint8_t type, int ack, unsigned dst,
                 uint64_t raddr, uint32_t size)
{
    if (!n || n->port || ch >= DN1_AOTF_CHANNELS || dst > 0xffffu || size == 0 ||
        !dn1_type_sendable(type) || (ack && dst >= DN1_MCAST_BASE)) {
        return DN_EINVAL;   /* a group never answers: no ACK channel to one */
    }
    /* For a plain write the whole range must be writable at the receiver;
     * for a firmware type the address is the handler's to interpret. */
    if (type == DN1_TYPE_PUSH && !dn1_raddr_writable(raddr, size)) {
        return DN_ERANGE;
    }
    uint8_t *e = channel_entry(n, ch);
    memset(e, 0, sizeof(struct dn1_aotf_channel));
    e[offsetof(struct dn1_aotf_channel, flags)] = ack ? DN1_FLAG_ACK_REQ : 0;
    dn_put_le(e + offsetof(struct dn1_aotf_channel, dst), dst, 2);
    dn_put_le(e + offsetof(struct dn1_aotf_channel, size), size, 4);
    dn_put_le(e + offsetof(struct dn1_aotf_channel, raddr), raddr, 8);
    /* The type last: a channel with a type is open. */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    e[offsetof(struct dn1_aotf_channel, type)] = type;
    n->aotf[ch].open = 1;
    n->aotf[ch].ack = ack != 0;
    n->aotf[ch].size = size;
    n->aotf[ch].dst = (uint16_t)dst;
    n->aotf[ch].raddr = raddr;
    /* The entry is 32 bytes of window memory: four uncached stores. */
    dn_host_charge(n, DN_HOST_STORE, 4);
    return DN_OK;
}

int dn_aotf_close(dn_node *n, unsigned ch)
{
    if (!n || ch >= DN1_AOTF_CHANNELS || !n->aotf[ch].open) {
        return DN_EINVAL;
    }
    channel_entry(n, ch)[offsetof(struct dn1_aotf_channel, type)] = 0;
    n->aotf[ch].open = 0;
    return DN_OK;
}

int dn_aotf_store(dn_node *n, unsigned ch, uint32_t offset, uint64_t value,
                  unsigned size, dn_xfer *x)
{
    if (!n || ch >= DN1_AOTF_CHANNELS || !n->aotf[ch].open ||
        size < 1 || size > DN1_AOTF_MAX_PAYLOAD ||
        (n->aotf[ch].ack ? !x : x != NULL)) {
        return DN_EINVAL;
    }
    if (offset > n->aotf[ch].size || size > n->aotf[ch].size - offset) {
        return DN_ERANGE;
    }
    uint64_t arg0 = DN1_AOTF_ARG0(ch, size, offset);
    if (!n->aotf[ch].ack) {
        /* Nothing will answer: the packet takes no place in flight. */
        return dn_hb_call(n, DN1_HB_AOTF_STORE, arg0, value, 0, NULL);
    }
    int rc = dn_cq_wait_room(n, DN1_LLCM_CQ_ENTRIES, AOTF_ROOM_TIMEOUT_MS);
    if (rc != DN_OK) {
        return rc;
    }
    struct dn_xfer_rec *r = dn_xfer_begin(n, x);
    /* Answered, so tracked: posted when the node posts; a refusal then
     * comes back through the transfer (dn_wait). */
    rc = n->hb_post
        ? dn_hb_post(n, DN1_HB_AOTF_STORE, arg0, value, n->next_tag, 0,
                     n->next_tag, NULL)
        : dn_hb_call(n, DN1_HB_AOTF_STORE, arg0, value, n->next_tag, NULL);
    if (rc == DN_OK) {
        dn_xfer_sent(n, r, x);
    }
    return rc;
}
