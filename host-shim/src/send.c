/*
 * Sends: a transfer is cut into packets of at most DN_BOTF_MAX_PAYLOAD bytes,
 * each built in a BOTF window (the two used alternately) and kicked over the
 * host bus, each asking for an ACK (paper, Sec. 5: 464-byte packets).
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/regs.h"
#include "dimmnet1/soft_indirect.h"
#include "dimmnet1/fw_types.h"

/* How long a send may wait for room among the packets in flight. */
#define SEND_ROOM_TIMEOUT_MS 10000

void dn_botf_windows_init(dn_node *n)
{
    const char *env = getenv("DIMMNET_BOTF_WINDOWS");
    unsigned k = env ? (unsigned)strtoul(env, NULL, 10) : DN1_BOTF_WINDOWS;

    if (k < DN1_BOTF_WINDOWS_PAPER || k > DN1_BOTF_WINDOWS) {
        k = DN1_BOTF_WINDOWS;
    }
    n->botf_windows = n->timed ? DN1_BOTF_WINDOWS_PAPER : k;
    if (n->botf_windows > n->win_count) {
        n->botf_windows = n->win_count;     /* the port's share */
    }
    n->next_window = 0;
}

static int botf_packet(dn_node *n, uint8_t type, uint8_t flags, unsigned dst,
                       uint64_t raddr, uint32_t xoff, const uint8_t *payload,
                       uint16_t len, uint32_t tag, uint16_t seq, int post)
{
    unsigned w = n->win_first + n->next_window;
    uint8_t *win = n->window + dn1_botf_window_off(w);

    dn_self(n, DN_SELF_PACKET);
    /* A window whose posted kick the NIC has not taken yet is still its
     * (the NIC reads the window when it takes the kick). */
    if (n->win_kick_posted[w]) {
        int rc = dn_hb_wait_taken(n, n->win_kick[w]);
        if (rc != DN_OK) {
            return rc;
        }
        n->win_kick_posted[w] = 0;
    }

    /* In modeled time a window is the NIC's until its last packet has left
     * (docs/hardware.md section 9): at most two packets queued. Bounded in
     * wall-clock time: a cluster whose switch is gone stops its clock. */
    for (int64_t deadline = dn_now_ms() + SEND_ROOM_TIMEOUT_MS; n->timed;) {
        uint32_t busy;
        int rc = dn_reg_read(n, DN1_REG_BOTF_STATUS, &busy);
        if (rc != DN_OK) {
            return rc;
        }
        if (!(busy & (1u << w))) {
            break;
        }
        if (dn_now_ms() >= deadline) {
            return DN_ETIMEDOUT;
        }
        dn_idle(n);
    }
    memset(win, 0, DN1_BOTF_PAYLOAD_OFF);
    win[offsetof(struct dn1_botf_hdr, type)] = type;
    /* Multicast is never answered: asking would only be misleading; nor do
     * firmware types that answer themselves (DN_BOTF_NO_ACK). */
    win[offsetof(struct dn1_botf_hdr, flags)] =
        (dst < DN1_MCAST_BASE && !(flags & DN_BOTF_NO_ACK) ? DN1_FLAG_ACK_REQ : 0) |
        (flags & ~DN_BOTF_NO_ACK);
    dn_put_le(win + offsetof(struct dn1_botf_hdr, dst), dst, 2);
    dn_put_le(win + offsetof(struct dn1_botf_hdr, len), len, 2);
    dn_put_le(win + offsetof(struct dn1_botf_hdr, seq), seq, 2);
    dn_put_le(win + offsetof(struct dn1_botf_hdr, tag), tag, 4);
    dn_put_le(win + offsetof(struct dn1_botf_hdr, xoff), xoff, 4);
    dn_put_le(win + offsetof(struct dn1_botf_hdr, raddr), raddr, 8);
    if (len) {
        memcpy(win + DN1_BOTF_PAYLOAD_OFF, payload, len);
    }
    dn_host_charge(n, DN_HOST_PIO, DN1_BOTF_PAYLOAD_OFF + len);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    int rc;
    if (post && n->hb_post) {
        rc = dn_hb_post(n, DN1_HB_BOTF_KICK, w, 0, 0, dst, tag, &n->win_kick[w]);
        n->win_kick_posted[w] = rc == DN_OK;
    } else {
        rc = dn_hb_call(n, DN1_HB_BOTF_KICK, w, 0, 0, NULL);
    }
    if (rc == DN_OK) {
        n->next_window = (n->next_window + 1) % (n->botf_windows ? n->botf_windows
                                                                 : DN1_BOTF_WINDOWS_PAPER);
    }
    return rc;
}

int dn_botf_packet(dn_node *n, uint8_t type, uint8_t flags, unsigned dst,
                   uint64_t raddr, uint32_t xoff, const uint8_t *payload,
                   uint16_t len, uint32_t tag, uint16_t seq)
{
    return botf_packet(n, type, flags, dst, raddr, xoff, payload, len, tag,
                       seq, 0);
}

int dn_botf_packet_posted(dn_node *n, uint8_t type, uint8_t flags,
                          unsigned dst, uint64_t raddr, uint32_t xoff,
                          const uint8_t *payload, uint16_t len, uint32_t tag,
                          uint16_t seq)
{
    return botf_packet(n, type, flags, dst, raddr, xoff, payload, len, tag,
                       seq, 1);
}

/* @tracked: the packet belongs to a transfer record (which hears of a
 * posted kick's failure), so its kick may be posted. */
static int botf_send(dn_node *n, uint8_t type, uint8_t flags, unsigned dst,
                     uint64_t raddr, uint32_t xoff, const uint8_t *payload,
                     uint16_t len, uint32_t tag, int tracked)
{
    int rc = botf_packet(n, type, flags, dst, raddr, xoff, payload, len,
                         tag, n->next_seq, tracked);
    if (rc == DN_OK) {
        n->next_seq++;
    }
    return rc;
}

int dn_botf_packet_tracked(dn_node *n, uint8_t type, uint8_t flags, unsigned dst,
                           uint64_t raddr, uint32_t xoff, const uint8_t *payload,
                           uint16_t len, uint32_t tag)
{
    return botf_send(n, type, flags, dst, raddr, xoff, payload, len, tag, 1);
}

struct dn_xfer_rec *dn_xfer_begin(dn_node *n, dn_xfer *x)
{
    uint32_t id = n->next_xfer_id++;
    struct dn_xfer_rec *r = &n->xfers[id % DN_XFER_SLOTS];

    /* Reusing the slot forgets the transfer 64 before this one: its
     * unanswered packets stop counting as in flight. */
    if (r->in_use) {
        n->completed += r->packets - r->acked - r->nacked - r->failed;
    }
    *r = (struct dn_xfer_rec){ .in_use = 1, .id = id, .first_tag = n->next_tag };
    *x = (dn_xfer){ .id = id };
    return r;
}

void dn_xfer_sent(dn_node *n, struct dn_xfer_rec *r, dn_xfer *x)
{
    n->next_tag++;
    r->packets++;
    x->packets++;
}

/*
 * Send @len bytes as packets of @type; direct writes advance the address.
 * With @x the packets ask for ACKs and are tracked as one transfer; without
 * (multicast) nothing will answer, so nothing is tracked or waited for.
 */
static int send_transfer(dn_node *n, uint8_t type, uint8_t flags, unsigned dst,
                         uint64_t raddr, int advance, const void *buf,
                         size_t len, dn_xfer *x)
{
    const uint8_t *p = buf;
    size_t done = 0;
    struct dn_xfer_rec *r = x ? dn_xfer_begin(n, x) : NULL;

    dn_self(n, DN_SELF_XFER);
    if (r && type == DN1_TYPE_PUSH && advance) {
        dn_xfer_redo(r, DN_REDO_BOTF, flags, dst, raddr, buf, 0, len);
    }
    do {
        uint16_t chunk = (uint16_t)(len - done < DN_BOTF_MAX_PAYLOAD
                                    ? len - done : DN_BOTF_MAX_PAYLOAD);
        int rc = r ? dn_cq_wait_room(n, DN1_LLCM_CQ_ENTRIES, SEND_ROOM_TIMEOUT_MS)
                   : DN_OK;

        if (rc == DN_OK) {
            rc = botf_send(n, type, flags, dst, advance ? raddr + done : raddr,
                           (uint32_t)done, p + done, chunk, r ? n->next_tag : 0,
                           r != NULL);
        }
        if (rc != DN_OK) {
            return rc;      /* x->packets were sent; dn_wait() can wait for them */
        }
        if (r) {
            dn_xfer_sent(n, r, x);
        }
        done += chunk;
    } while (done < len);
    return DN_OK;
}

static int check_common(dn_node *n, unsigned dst, const void *buf, size_t len,
                        dn_xfer *x)
{
    if (!n || !x || dst >= DN1_MCAST_BASE || (!buf && len > 0)) {
        return DN_EINVAL;   /* groups go through dn_botf_put_group() */
    }
    if (len > DN1_HOSTMEM_SIZE) {
        return DN_ERANGE;
    }
    return DN_OK;
}

int dn_botf_put(dn_node *n, unsigned dst, uint64_t raddr, const void *buf,
                size_t len, dn_xfer *x)
{
    int rc = check_common(n, dst, buf, len, x);

    if (rc != DN_OK) {
        return rc;
    }
    if (!dn1_raddr_writable(raddr, len)) {
        return DN_ERANGE;
    }
    return send_transfer(n, DN1_TYPE_PUSH, 0, dst, raddr, 1, buf, len, x);
}

int dn_botf_put_group(dn_node *n, unsigned group, uint64_t raddr,
                      const void *buf, size_t len)
{
    if (!n || group >= DN1_MCAST_GROUPS || (!buf && len > 0)) {
        return DN_EINVAL;
    }
    if (!dn1_raddr_writable(raddr, len)) {
        return DN_ERANGE;
    }
    return send_transfer(n, DN1_TYPE_PUSH, 0, DN1_MCAST_BASE + group, raddr, 1,
                         buf, len, NULL);
}

/* Remote read requests, one per response packet; each completes like an
 * ACKed write. @flags: 0, or DN1_FLAG_VA for an RVA. */
static int get_transfer(dn_node *n, uint8_t flags, unsigned src, uint64_t raddr,
                        uint64_t local, size_t len, dn_xfer *x)
{
    size_t done = 0;
    struct dn_xfer_rec *r = dn_xfer_begin(n, x);

    dn_self(n, DN_SELF_XFER);
    do {
        uint32_t chunk = (uint32_t)(len - done < DN1_PKT_MAX_PAYLOAD
                                    ? len - done : DN1_PKT_MAX_PAYLOAD);
        uint8_t reply[8];
        int rc = dn_cq_wait_room(n, DN1_LLCM_CQ_ENTRIES, SEND_ROOM_TIMEOUT_MS);

        for (int i = 0; i < 8; i++) {       /* wire order: big-endian */
            reply[i] = (uint8_t)((local + done) >> (56 - 8 * i));
        }
        if (rc == DN_OK) {
            /* The read length travels in xoff. */
            rc = botf_send(n, DN1_TYPE_READ_REQ, flags, src, raddr + done, chunk,
                           reply, sizeof(reply), n->next_tag, 1);
        }
        if (rc != DN_OK) {
            return rc;
        }
        dn_xfer_sent(n, r, x);
        done += chunk;
    } while (done < len);
    return DN_OK;
}

int dn_get(dn_node *n, unsigned src, uint64_t raddr, uint64_t local, size_t len,
           dn_xfer *x)
{
    if (!n || !x || src >= DN1_MCAST_BASE) {
        return DN_EINVAL;
    }
    if (!dn1_raddr_readable(raddr, len) || !dn1_raddr_writable(local, len)) {
        return DN_ERANGE;
    }
    return get_transfer(n, 0, src, raddr, local, len, x);
}

int dn_get_rva(dn_node *n, unsigned src, uint64_t rva, uint64_t local, size_t len,
               dn_xfer *x)
{
    if (!n || !x || src >= DN1_MCAST_BASE) {
        return DN_EINVAL;
    }
    if (len > DN1_RVA_VA(~0ull) - DN1_RVA_VA(rva) + 1 ||
        !dn1_raddr_writable(local, len)) {
        return DN_ERANGE;
    }
    return get_transfer(n, DN1_FLAG_VA, src, rva, local, len, x);
}

int dn_botf_put_rva(dn_node *n, unsigned dst, uint64_t rva, const void *buf,
                    size_t len, dn_xfer *x)
{
    int rc = check_common(n, dst, buf, len, x);

    if (rc != DN_OK) {
        return rc;
    }
    /* The VA may not run into the context bits. */
    if (len > DN1_RVA_VA(~0ull) - DN1_RVA_VA(rva) + 1) {
        return DN_ERANGE;
    }
    return send_transfer(n, DN1_TYPE_PUSH, DN1_FLAG_VA, dst, rva, 1, buf, len, x);
}

int dn_send_typed(dn_node *n, uint8_t type, unsigned dst, uint64_t raddr,
                  const void *buf, size_t len, dn_xfer *x)
{
    int rc = check_common(n, dst, buf, len, x);

    if (rc != DN_OK) {
        return rc;
    }
    if (type == DN1_TYPE_PUSH || !dn1_type_sendable(type)) {
        return DN_EINVAL;
    }
    return send_transfer(n, type, 0, dst, raddr, 0, buf, len, x);
}

int dn_soft_indirect_write(dn_node *n, unsigned dst, uint32_t slot_off,
                           const void *buf, size_t len, int fseq, dn_xfer *x)
{
    int rc = check_common(n, dst, buf, len, x);

    if (rc != DN_OK) {
        return rc;
    }
    if (!dn_soft_slot_ok(slot_off)) {
        return DN_EINVAL;
    }
    /* Every packet names the slot and the whole length; xoff its place. */
    return send_transfer(n, DN1_TYPE_SOFT_INDIRECT, fseq ? DN1_FLAG_FSEQ : 0,
                         dst, DN1_SOFT_RADDR(len, slot_off), 0, buf, len, x);
}

int dn_indirect_slot_set(dn_node *n, uint64_t ptr_addr, uint64_t target)
{
    if (!n || (ptr_addr & 7u) != 0) {
        return DN_EINVAL;
    }
    if (!dn1_raddr_writable(ptr_addr, 8)) {
        return DN_ERANGE;   /* nor into the NIC's own part of LLCM */
    }
    dn_put_le(ptr_addr < DN1_RADDR_LLCM ? n->hostmem + ptr_addr
                                        : n->llcm + (ptr_addr - DN1_RADDR_LLCM),
              target, 8);
    dn_host_charge(n, DN_HOST_STORE, 1);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);   /* set before what follows */
    return DN_OK;
}

int dn_indirect_write(dn_node *n, unsigned dst, uint64_t ptr_addr,
                      const void *buf, size_t len, dn_xfer *x)
{
    int rc = check_common(n, dst, buf, len, x);

    if (rc != DN_OK) {
        return rc;
    }
    if ((ptr_addr & 7u) != 0) {
        return DN_EINVAL;   /* the pointer slot is a 64-bit word */
    }
    if (!dn1_raddr_readable(ptr_addr, 8)) {
        return DN_ERANGE;   /* the receiver's firmware could not read it */
    }
    return dn_send_typed(n, DN1_TYPE_INDIRECT_WRITE, dst, ptr_addr, buf, len, x);
}
