/*
 * Martini: the DIMMnet-1 network interface controller — register block and
 * receive pipeline.
 *
 * The hardware does remote writes (PUSH) and answers them with ACK; a packet
 * whose type it does not implement stops the in-order receive pipeline and
 * raises the processor's interrupt. Firmware then reads the held header,
 * may rewrite its remote address, and CONTINUEs, DISCARDs or NACKs it
 * (paper: remote indirect write, steps 2-4). Contract: docs/hardware.md.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/bswap.h"
#include "qemu/atomic.h"
#include "qapi/error.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "exec/memory.h"
#include "sysemu/cpus.h"
#include "hw/net/martini.h"
#include "dimmnet1/packet_codec.h"
#include "dimmnet1/shared_mem.h"

void martini_count(MartiniState *s, unsigned counter)
{
    s->counters[counter]++;
}

/* RESTART is raised only with nothing held: the firmware finishes the
 * packet it has (and its fast path sees none) before it is asked to leave. */
static void martini_update_irq(MartiniState *s)
{
    bool level = (s->held && (s->irq_enable & DN1_IRQ_RX_HELD)) ||
                 (!s->held && s->restart_pending &&
                  (s->irq_enable & DN1_IRQ_RESTART));

    /* Only changes reach the CPU: each qemu_set_irq is a cpu_interrupt,
     * which kicks the vCPU or ends its translation block. */
    if (level != s->irq_level) {
        s->irq_level = level;
        qemu_set_irq(s->irq, level);
    }
}

static bool martini_is_hw_type(uint8_t type)
{
    return type == DN1_TYPE_PUSH || type == DN1_TYPE_ACK ||
           type == DN1_TYPE_NACK || type == DN1_TYPE_READ_REQ ||
           type == DN1_TYPE_READ_RSP;
}

/* Does @h want the hardware's ACK or NACK? Never for multicast. */
static bool martini_wants_answer(const struct dn1_hdr *h)
{
    return (h->flags & DN1_FLAG_ACK_REQ) && h->dst < DN1_MCAST_BASE;
}

/* Send an ACK or NACK for @h back to its source, leaving @after_ns from now
 * at the earliest (timing on). */
static void martini_reply_after(MartiniState *s, const struct dn1_hdr *h,
                                uint8_t type, uint8_t reason, int64_t after_ns)
{
    uint8_t pkt[DN1_PKT_HDR_SIZE];
    struct dn1_hdr r = {
        .version = DN1_PKT_VERSION,
        .type = type,
        .reason = reason,
        /* From the port asked (contract 1.29): a sender talking to two
         * ports of one node tells their answers apart. */
        .src = s->node_id | (h->dst & ~DN1_ADDR_NODE_MASK),
        .dst = h->src,
        .seq = h->seq,
        .tag = h->tag,
        .raddr = h->raddr,
        .xoff = h->xoff,
    };

    if (martini_link_send_after(s, pkt, &r, after_ns) == 0) {
        martini_count(s, type == DN1_TYPE_ACK ? DN1_CNT_TX_ACK
                                              : DN1_CNT_TX_NACK);
    }
}

static void martini_reply(MartiniState *s, const struct dn1_hdr *h,
                          uint8_t type, uint8_t reason)
{
    martini_reply_after(s, h, type, reason, 0);
}

typedef enum MartiniWriteResult {
    MARTINI_WRITE_DONE,
    MARTINI_WRITE_HELD,      /* a TLB miss: the packet must be held */
    MARTINI_WRITE_REFUSED,   /* counted, NACKed if asked */
} MartiniWriteResult;

/*
 * Remote write of a packet's payload at @raddr: through the RVATLB and PATLB
 * when @translate, else at the NIC address as given (the firmware vouches
 * for it). A write is done whole or not at all, never outside the writable
 * NIC address space, and NACKed when refused if the sender asked for an
 * answer. On a miss, the hold reason and missed address are recorded.
 */
static MartiniWriteResult martini_remote_write(MartiniState *s,
                                               const MartiniPacket *p,
                                               uint64_t raddr, bool translate,
                                               bool ack)
{
    const struct dn1_hdr *h = &p->hdr;
    int64_t written = DN1_DIMM_NS(h->len);
    MartiniWrite w;

    switch (martini_xlate(s, h->flags, raddr, h->len, translate, false, &w)) {
    case MARTINI_XLATE_HOLD:
        s->hold_reason = w.hold_reason;
        s->miss_addr = w.miss_addr;
        martini_count(s, w.hold_reason == DN1_HOLD_RVATLB_MISS
                         ? DN1_CNT_RVATLB_MISS : DN1_CNT_PATLB_MISS);
        return MARTINI_WRITE_HELD;
    case MARTINI_XLATE_REFUSE:
        martini_count(s, w.nack_reason == DN1_NACK_PROTECTION
                         ? DN1_CNT_ERR_PROT : DN1_CNT_ERR_RANGE);
        qemu_log_mask(LOG_GUEST_ERROR,
                      "martini%u: write of %u bytes at 0x%" PRIx64
                      " refused (reason %u)\n",
                      s->node_id, h->len, raddr, w.nack_reason);
        if (martini_wants_answer(h)) {
            martini_reply(s, h, DN1_TYPE_NACK, w.nack_reason);
        }
        return MARTINI_WRITE_REFUSED;
    case MARTINI_XLATE_OK:
        break;
    }
    /* A packet's first aligned 8 bytes land first, in one store (when it
     * has at least 16 and starts aligned): a host that reads a stamp at a
     * packet's end, then its bytes, then a stamp at its start, and finds
     * both of one write, read no byte of another write (the collectives'
     * frames, docs/hardware.md section 5). */
    unsigned skip = 0;
    if (w.npieces && w.piece[0].len >= 16 && !(w.piece[0].off & 7)) {
        uint8_t *dst = (uint8_t *)memory_region_get_ram_ptr(w.piece[0].mr) + w.piece[0].off;

        qatomic_set((uint64_t *)dst, ldq_he_p(p->data + DN1_PKT_HDR_SIZE + w.piece[0].src));
        smp_wmb();
        skip = 8;
    }
    for (unsigned i = 0; i < w.npieces; i++) {
        unsigned first = i == 0 ? skip : 0;
        uint8_t *dst = (uint8_t *)memory_region_get_ram_ptr(w.piece[i].mr) +
                       w.piece[i].off + first;
        const uint8_t *src = p->data + DN1_PKT_HDR_SIZE + w.piece[i].src + first;
        uint32_t plen = w.piece[i].len - first;

        /* An aligned 4- or 8-byte write lands in one store: a host polling
         * the word (a flag, a barrier's epoch) never sees half of it. */
        if (first == 0 && w.piece[i].len == 8 && !(w.piece[i].off & 7)) {
            qatomic_set((uint64_t *)dst, ldq_he_p(src));
        } else if (first == 0 && w.piece[i].len == 4 && !(w.piece[i].off & 3)) {
            qatomic_set((uint32_t *)dst, ldl_he_p(src));
        } else if (i == w.npieces - 1 && plen >= 8 &&
                   !((w.piece[i].off + w.piece[i].len) & 7)) {
            /* A packet's last aligned 8 bytes land last, in one store: a
             * host polling a stamp at the end of a packet (sender-side
             * matching's landing, mailbox entries) then sees all of it. */
            uint32_t head = plen - 8;

            memcpy(dst, src, head);
            smp_wmb();
            qatomic_set((uint64_t *)(dst + head), ldq_he_p(src + head));
        } else {
            memcpy(dst, src, plen);
        }
        memory_region_set_dirty(w.piece[i].mr, w.piece[i].off, w.piece[i].len);
    }
    /* The data must be visible to the host before the sender learns of it;
     * in modeled time the ACK leaves once the DIMM side has taken it (after
     * the host's accesses or another NIC access holding it). */
    smp_wmb();
    if (s->sync) {
        int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

        written = martini_dimm_nic(s, now, written) - now;
    }
    if (ack && martini_wants_answer(h)) {
        martini_reply_after(s, h, DN1_TYPE_ACK, DN1_NACK_NONE, written);
    }
    return MARTINI_WRITE_DONE;
}

/* AOTF PUSHes take the Mini-OTF receiver, the rest the RDMA-style one; both
 * write the same way, in arrival order. */
static void martini_count_push(MartiniState *s, const MartiniPacket *p)
{
    martini_count(s, p->hdr.flags & DN1_FLAG_OTF ? DN1_CNT_RX_OTF
                                                 : DN1_CNT_RX_PUSH);
}

/* Stop the pipeline on @p and tell the processor why (a TLB miss has also
 * recorded the missed address). */
static void martini_hold(MartiniState *s, MartiniPacket *p, uint32_t reason)
{
    s->held = p;
    s->held_raddr = p->hdr.raddr;
    s->hold_reason = reason;
    s->nack_reason = DN1_NACK_NONE;
    martini_count(s, DN1_CNT_RX_HELD);
}

/* Post an ACK/NACK record to the LLCM completion queue of the host port
 * @h is for: for @h's tag, of @h's type (a READ_RSP written completes as
 * an ACK). */
static void martini_cq_post(MartiniState *s, const struct dn1_hdr *h)
{
    /* An answer to a group address (never sent by a NIC, only forged)
     * goes to port 0's queue, as before host ports. */
    unsigned port = h->dst < DN1_MCAST_BASE ? dn1_addr_port(h->dst) : 0;
    uint8_t *llcm = (uint8_t *)memory_region_get_ram_ptr(s->llcm) +
                    dn1_llcm_port_block(port < s->host_ports ? port : 0);
    uint32_t produced = ldl_le_p(llcm + DN1_LLCM_CQ_PRODUCED);
    uint32_t consumed = qatomic_read((uint32_t *)(llcm + DN1_LLCM_CQ_CONSUMED));
    uint8_t *rec;

    consumed = le32_to_cpu(consumed);
    if (produced - consumed >= DN1_LLCM_CQ_ENTRIES) {
        martini_count(s, DN1_CNT_ERR_CQ_FULL);
        qemu_log_mask(LOG_GUEST_ERROR,
                      "martini%u: completion queue full, record for tag "
                      "0x%x lost\n", s->node_id, h->tag);
        return;
    }
    rec = llcm + DN1_LLCM_CQ_RING +
          (produced % DN1_LLCM_CQ_ENTRIES) * sizeof(struct dn1_cq_rec);
    stl_le_p(rec + offsetof(struct dn1_cq_rec, tag), h->tag);
    rec[offsetof(struct dn1_cq_rec, kind)] =
        h->type == DN1_TYPE_NACK ? DN1_CQ_KIND_NACK : DN1_CQ_KIND_ACK;
    rec[offsetof(struct dn1_cq_rec, reason)] = h->reason;
    stw_le_p(rec + offsetof(struct dn1_cq_rec, src), h->src);
    stl_le_p(rec + offsetof(struct dn1_cq_rec, index), produced);
    stl_le_p(rec + offsetof(struct dn1_cq_rec, reserved), 0);
    smp_wmb();
    stl_le_p(llcm + DN1_LLCM_CQ_PRODUCED, produced + 1);
    memory_region_set_dirty(s->llcm, 0, memory_region_size(s->llcm));
}

/*
 * Serve a remote read in hardware: send the @h->xoff bytes at @raddr back
 * to the reply address the request carries, or NACK (RANGE) if they are not
 * all readable or too many for one packet. With flag VA and @translate the
 * RVATLB maps @raddr page by page and must allow reads (R; a miss holds the
 * request for the firmware, contract 1.22); without, @raddr is a NIC
 * address (a firmware CONTINUE vouches for it).
 */
static MartiniWriteResult martini_read_serve(MartiniState *s,
                                             const MartiniPacket *p,
                                             uint64_t raddr, bool translate)
{
    const struct dn1_hdr *h = &p->hdr;
    uint8_t rsp[DN1_PKT_MAX_SIZE];
    struct dn1_hdr r = {
        .version = DN1_PKT_VERSION, .type = DN1_TYPE_READ_RSP,
        .src = s->node_id | (h->dst & ~DN1_ADDR_NODE_MASK), .dst = h->src,
        .len = h->xoff, .seq = h->seq,
        .tag = h->tag,
    };
    uint8_t flags = translate ? h->flags : h->flags & ~DN1_FLAG_VA;
    uint8_t reason = DN1_NACK_RANGE;
    MartiniWrite w;

    if (h->len != 8 || h->xoff > DN1_PKT_MAX_PAYLOAD) {
        goto refuse;
    }
    switch (martini_xlate(s, flags, raddr, h->xoff, translate, true, &w)) {
    case MARTINI_XLATE_HOLD:
        s->hold_reason = w.hold_reason;
        s->miss_addr = w.miss_addr;
        martini_count(s, DN1_CNT_RVATLB_MISS);
        return MARTINI_WRITE_HELD;
    case MARTINI_XLATE_REFUSE:
        reason = w.nack_reason;
        goto refuse;
    case MARTINI_XLATE_OK:
        break;
    }
    r.raddr = dn1_get_be64(p->data + DN1_PKT_HDR_SIZE);
    for (unsigned i = 0; i < w.npieces; i++) {
        memcpy(rsp + DN1_PKT_HDR_SIZE + w.piece[i].src,
               (uint8_t *)memory_region_get_ram_ptr(w.piece[i].mr) +
               w.piece[i].off, w.piece[i].len);
    }
    martini_count(s, DN1_CNT_RX_READ_REQ);
    martini_link_send(s, rsp, &r);
    return MARTINI_WRITE_DONE;

refuse:
    martini_count(s, reason == DN1_NACK_PROTECTION ? DN1_CNT_ERR_PROT
                                                   : DN1_CNT_ERR_RANGE);
    qemu_log_mask(LOG_GUEST_ERROR, "martini%u: read of %u bytes at 0x%"
                  PRIx64 " from node %u refused (reason %u)\n", s->node_id,
                  h->xoff, raddr, h->src, reason);
    martini_reply(s, h, DN1_TYPE_NACK, reason);
    return MARTINI_WRITE_REFUSED;
}

/* The data of our remote read: write it, then tell the host (CQ). */
static void martini_read_done(MartiniState *s, const MartiniPacket *p)
{
    struct dn1_hdr done = p->hdr;

    /* A response asks for no ACK; the completion is ours to post. Our own
     * reply address needs no translation, only the range check. */
    if (martini_remote_write(s, p, p->hdr.raddr, false, true) ==
        MARTINI_WRITE_DONE) {
        martini_count(s, DN1_CNT_RX_READ_RSP);
    } else {
        done.type = DN1_TYPE_NACK;
        done.reason = DN1_NACK_RANGE;
    }
    martini_cq_post(s, &done);
}

/*
 * Hardware handling of an implemented type. Returns true if the packet was
 * held (a PUSH or a READ_REQ that missed in a TLB); otherwise it is consumed.
 */
static bool martini_rx_hw(MartiniState *s, MartiniPacket *p)
{
    switch (p->hdr.type) {
    case DN1_TYPE_PUSH:
        switch (martini_remote_write(s, p, p->hdr.raddr, true, true)) {
        case MARTINI_WRITE_HELD:
            martini_hold(s, p, s->hold_reason);
            return true;
        case MARTINI_WRITE_DONE:
            martini_count_push(s, p);
            break;
        case MARTINI_WRITE_REFUSED:
            break;
        }
        break;
    case DN1_TYPE_ACK:
    case DN1_TYPE_NACK:
        martini_count(s, p->hdr.type == DN1_TYPE_ACK ? DN1_CNT_RX_ACK
                                                     : DN1_CNT_RX_NACK);
        martini_cq_post(s, &p->hdr);
        break;
    case DN1_TYPE_READ_REQ:
        if (p->hdr.dst >= DN1_MCAST_BASE) {
            /* One reply address, N members: no member answers a group
             * read, with data or with a NACK (section 6a). */
            martini_count(s, DN1_CNT_ERR_GROUP);
            qemu_log_mask(LOG_GUEST_ERROR, "martini%u: remote read to group "
                          "0x%x from node %u, dropped\n", s->node_id,
                          p->hdr.dst, p->hdr.src);
            break;
        }
        if (martini_read_serve(s, p, p->hdr.raddr, true) == MARTINI_WRITE_HELD) {
            martini_hold(s, p, s->hold_reason);
            return true;
        }
        break;
    case DN1_TYPE_READ_RSP:
        martini_read_done(s, p);
        break;
    }
    return false;
}

bool martini_rx_can_accept(MartiniState *s)
{
    return s->rxq_len < MARTINI_RXQ_MAX;
}

/* Run the pipeline until it is empty or a packet is held for firmware. */
static void martini_rx_pump(MartiniState *s)
{
    bool was_full = !martini_rx_can_accept(s);

    /* While a restart is pending, arrivals wait in the queue (then the
     * link holds them back): none is taken by the firmware that leaves. */
    while (!s->held && !s->restart_pending && !QSIMPLEQ_EMPTY(&s->rxq)) {
        MartiniPacket *p = QSIMPLEQ_FIRST(&s->rxq);

        QSIMPLEQ_REMOVE_HEAD(&s->rxq, next);
        s->rxq_len--;
        if (martini_is_hw_type(p->hdr.type)) {
            if (!martini_rx_hw(s, p)) {
                g_free(p);
            }
            continue;
        }
        martini_hold(s, p, DN1_HOLD_TYPE);
        s->miss_addr = 0;
    }
    martini_update_irq(s);
    if (was_full && martini_rx_can_accept(s)) {
        qemu_chr_fe_accept_input(&s->link);   /* the link may deliver again */
    }
}

/* A packet from the link: check it, then queue it in arrival order. */
void martini_rx_enqueue(MartiniState *s, const uint8_t *pkt, uint32_t size)
{
    static const unsigned check_counter[] = {
        [DN1_PKT_SHORT] = DN1_CNT_ERR_SHORT,
        [DN1_PKT_BAD_VERSION] = DN1_CNT_ERR_VERSION,
        [DN1_PKT_BAD_LENGTH] = DN1_CNT_ERR_LENGTH,
        [DN1_PKT_BAD_CRC] = DN1_CNT_ERR_CRC,
    };
    enum dn1_pkt_check check = dn1_packet_check(pkt, size);
    MartiniPacket *p;

    if (check != DN1_PKT_OK) {
        martini_count(s, check_counter[check]);
        qemu_log_mask(LOG_GUEST_ERROR, "martini%u: malformed packet "
                      "(check %d), dropped\n", s->node_id, check);
        return;
    }
    p = g_new(MartiniPacket, 1);
    dn1_packet_parse(pkt, &p->hdr);
    /* The switch delivers a multicast packet only to its group's members;
     * a unicast one names a node and one of its host ports. */
    if (p->hdr.dst < DN1_MCAST_BASE &&
        (p->hdr.dst >= DN1_ADDR_UNICAST_END || dn1_addr_node(p->hdr.dst) != s->node_id ||
         dn1_addr_port(p->hdr.dst) >= s->host_ports)) {
        martini_count(s, DN1_CNT_ERR_DST);
        qemu_log_mask(LOG_GUEST_ERROR, "martini%u: packet for node %u, "
                      "dropped\n", s->node_id, p->hdr.dst);
        g_free(p);
        return;
    }
    if ((p->hdr.type == DN1_TYPE_ACK || p->hdr.type == DN1_TYPE_NACK) &&
        p->hdr.len != 0) {
        martini_count(s, DN1_CNT_ERR_STRAY_ACK);
        g_free(p);
        return;
    }
    if ((p->hdr.flags & DN1_FLAG_OTF) && p->hdr.len > DN1_AOTF_MAX_PAYLOAD) {
        martini_count(s, DN1_CNT_ERR_LENGTH);   /* no AOTF packet is that long */
        g_free(p);
        return;
    }
    p->size = size;
    memcpy(p->data, pkt, size);
    QSIMPLEQ_INSERT_TAIL(&s->rxq, p, next);
    s->rxq_len++;
    martini_rx_pump(s);
}

/* Firmware's decision on the held packet (RX_CMD). */
static void martini_rx_command(MartiniState *s, uint32_t cmd)
{
    MartiniPacket *p = s->held;

    if (!p) {
        s->cmd_result = DN1_RX_RESULT_NO_PACKET;
        martini_count(s, DN1_CNT_ERR_REG);
        qemu_log_mask(LOG_GUEST_ERROR, "martini%u: RX_CMD %u with no packet "
                      "held\n", s->node_id, cmd);
        return;
    }
    switch (cmd) {
    case DN1_RX_CMD_CONTINUE:
    case DN1_RX_CMD_WRITE:
        if (p->hdr.type == DN1_TYPE_READ_REQ) {
            /* A held read: served at RX_RADDR, a NIC address, as given. */
            if (cmd == DN1_RX_CMD_WRITE) {
                goto bad_cmd;
            }
            s->cmd_result = martini_read_serve(s, p, s->held_raddr, false) ==
                            MARTINI_WRITE_DONE ? DN1_RX_RESULT_OK
                                               : DN1_RX_RESULT_RANGE;
            if (s->cmd_result == DN1_RX_RESULT_OK) {
                martini_count(s, DN1_CNT_RX_CONTINUED);
            }
            break;
        }
        /* At RX_RADDR as a NIC address: the firmware translated (or chose)
         * it, so no TLB applies; only the range check does. WRITE is the
         * DMA the firmware starts: no ACK, the firmware sends its own. */
        if (martini_remote_write(s, p, s->held_raddr, false,
                                 cmd == DN1_RX_CMD_CONTINUE) ==
            MARTINI_WRITE_DONE) {
            s->cmd_result = DN1_RX_RESULT_OK;
            martini_count(s, DN1_CNT_RX_CONTINUED);
        } else {
            s->cmd_result = DN1_RX_RESULT_RANGE;
        }
        break;
    case DN1_RX_CMD_RETRY:
        if (s->hold_reason != DN1_HOLD_RVATLB_MISS &&
            s->hold_reason != DN1_HOLD_PATLB_MISS) {
            goto bad_cmd;       /* only a TLB miss can be retried */
        }
        martini_count(s, DN1_CNT_RX_RETRY);
        switch (p->hdr.type == DN1_TYPE_READ_REQ
                ? martini_read_serve(s, p, s->held_raddr, true)
                : martini_remote_write(s, p, s->held_raddr, true, true)) {
        case MARTINI_WRITE_HELD:
            s->cmd_result = DN1_RX_RESULT_HELD;
            martini_update_irq(s);
            return;             /* still held, with the new miss */
        case MARTINI_WRITE_DONE:
            s->cmd_result = DN1_RX_RESULT_OK;
            if (p->hdr.type == DN1_TYPE_PUSH) {
                martini_count_push(s, p);   /* a read counted itself */
            }
            break;
        case MARTINI_WRITE_REFUSED:
            s->cmd_result = DN1_RX_RESULT_PROT;
            break;
        }
        break;
    case DN1_RX_CMD_DISCARD:
        s->cmd_result = DN1_RX_RESULT_OK;
        martini_count(s, DN1_CNT_RX_DISCARDED);
        break;
    case DN1_RX_CMD_NACK:
        s->cmd_result = DN1_RX_RESULT_OK;
        if (p->hdr.dst < DN1_MCAST_BASE) {   /* never for a group packet */
            martini_reply(s, &p->hdr, DN1_TYPE_NACK, s->nack_reason);
        }
        martini_count(s, DN1_CNT_RX_NACKED);
        break;
    case DN1_RX_CMD_DONE:
        /* Firmware did the work itself (paper, barrier step 3: core IDLE). */
        s->cmd_result = DN1_RX_RESULT_OK;
        if (martini_wants_answer(&p->hdr)) {
            martini_reply(s, &p->hdr, DN1_TYPE_ACK, DN1_NACK_NONE);
        }
        martini_count(s, DN1_CNT_RX_DONE);
        break;
    default:
    bad_cmd:
        /* The packet stays held: firmware may still decide. */
        s->cmd_result = DN1_RX_RESULT_BAD_CMD;
        martini_count(s, DN1_CNT_ERR_REG);
        qemu_log_mask(LOG_GUEST_ERROR, "martini%u: unknown RX_CMD %u\n",
                      s->node_id, cmd);
        return;
    }
    s->held = NULL;
    s->hold_reason = DN1_HOLD_NONE;
    s->miss_addr = 0;
    g_free(p);
    martini_rx_pump(s);
}

/*
 * Send the packet image the firmware built at @off in chip SRAM: a wire-format
 * header (big-endian) and its payload. The NIC sets version and src and
 * computes the CRC (paper, barrier step 5: completion packets pre-built).
 */
static void martini_tx_sram(MartiniState *s, uint32_t off)
{
    const uint8_t *sram = memory_region_get_ram_ptr(s->sram);
    uint64_t size = memory_region_size(s->sram);
    uint8_t pkt[DN1_PKT_MAX_SIZE];
    struct dn1_hdr h;

    if ((off & 7) || off > size - DN1_PKT_HDR_SIZE) {
        goto bad;
    }
    dn1_packet_parse(sram + off, &h);
    if (h.len > DN1_PKT_MAX_PAYLOAD || h.len > size - off - DN1_PKT_HDR_SIZE ||
        !dn1_fw_sendable(h.type, h.flags, h.len)) {
        goto bad;
    }
    h.version = DN1_PKT_VERSION;
    h.reason = 0;
    h.src = s->node_id;
    memcpy(pkt + DN1_PKT_HDR_SIZE, sram + off + DN1_PKT_HDR_SIZE, h.len);
    if (martini_link_send(s, pkt, &h) != 0) {
        s->tx_result = DN1_TX_RESULT_LINK_DOWN;
        martini_count(s, DN1_CNT_ERR_TX);
        return;
    }
    s->tx_result = DN1_TX_RESULT_OK;
    martini_count(s, DN1_CNT_TX_FW);
    return;
bad:
    s->tx_result = DN1_TX_RESULT_BAD_IMAGE;
    martini_count(s, DN1_CNT_ERR_TX);
    qemu_log_mask(LOG_GUEST_ERROR, "martini%u: bad packet image at SRAM "
                  "offset 0x%x, not sent\n", s->node_id, off);
}

/* @size bytes of the held payload from @base, in address order (0 past
 * len, or with nothing held): a big-endian load, as the processor sees it. */
static uint64_t martini_payload_read(MartiniState *s, hwaddr base,
                                     unsigned size)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < size; i++) {
        hwaddr at = base + i;
        uint8_t b = 0;

        if (s->held && at < s->held->hdr.len) {
            b = s->held->data[DN1_PKT_HDR_SIZE + at];
        }
        v = v << 8 | b;
    }
    return v;
}

/* Register contents; reads have no side effects (the host may read too). */
uint32_t martini_reg_value(MartiniState *s, hwaddr offset)
{
    const struct dn1_hdr *h = s->held ? &s->held->hdr : NULL;

    if (offset >= DN1_REG_RX_PAYLOAD) {
        return martini_payload_read(s, offset - DN1_REG_RX_PAYLOAD, 4);
    }
    if (offset >= DN1_REG_CNT_BASE &&
        offset < DN1_REG_CNT(DN1_CNT_COUNT)) {
        return s->counters[(offset - DN1_REG_CNT_BASE) / 4];
    }
    switch (offset) {
    case DN1_REG_ID:
        return DN1_ID_VALUE;
    case DN1_REG_VERSION:
        return DN1_CONTRACT_VERSION;
    case DN1_REG_NODE_ID:
        return s->node_id;
    case DN1_REG_HOST_PORTS:
        return s->host_ports;
    case DN1_REG_LINK_STATUS:
        return s->link_up ? DN1_LINK_UP : 0;
    case DN1_REG_FW_STATUS:
        return s->fw_status;
    case DN1_REG_BOOT_VERSION:
        return s->boot_version;
    case DN1_REG_BOOT_SLOT:
        return s->boot_slot;
    case DN1_REG_IRQ_STATUS:
        return (s->held ? DN1_IRQ_RX_HELD : 0) |
               (s->restart_pending ? DN1_IRQ_RESTART : 0);
    case DN1_REG_IRQ_ENABLE:
        return s->irq_enable;
    case DN1_REG_RX_HDR0:
        return h ? (uint32_t)h->version << 24 | (uint32_t)h->type << 16 |
                   (uint32_t)h->flags << 8 | h->reason : 0;
    case DN1_REG_RX_HDR1:
        return h ? (uint32_t)h->src << 16 | h->dst : 0;
    case DN1_REG_RX_HDR2:
        return h ? (uint32_t)h->len << 16 | h->seq : 0;
    case DN1_REG_RX_TAG:
        return h ? h->tag : 0;
    case DN1_REG_RX_RADDR_HI:
        return h ? s->held_raddr >> 32 : 0;
    case DN1_REG_RX_RADDR_LO:
        return h ? (uint32_t)s->held_raddr : 0;
    case DN1_REG_RX_XOFF:
        return h ? h->xoff : 0;
    case DN1_REG_RX_NACK_REASON:
        return s->nack_reason;
    case DN1_REG_RX_CMD_RESULT:
        return s->cmd_result;
    case DN1_REG_TX_SRAM_OFF:
        return s->tx_sram_off;
    case DN1_REG_TX_RESULT:
        return s->tx_result;
    case DN1_REG_RX_HOLD_REASON:
        return s->hold_reason;
    case DN1_REG_RX_MISS_HI:
        return s->miss_addr >> 32;
    case DN1_REG_RX_MISS_LO:
        return (uint32_t)s->miss_addr;
    case DN1_REG_MMU_CTRL:
        return s->mmu_ctrl;
    case DN1_REG_TIMING:
        return (s->sync ? DN1_TIMING_SYNC : 0) |
               (s->host_sync ? DN1_TIMING_HOST_SYNC : 0);
    case DN1_REG_BOTF_STATUS:
        return martini_botf_status(s);
    }
    return 0;
}

bool martini_reg_readable(hwaddr offset)
{
    if ((offset >= DN1_REG_CNT_BASE && offset < DN1_REG_CNT(DN1_CNT_COUNT)) ||
        (offset >= DN1_REG_RX_PAYLOAD && offset < DN1_REGS_SIZE)) {
        return (offset & 3) == 0;
    }
    switch (offset) {
    case DN1_REG_ID: case DN1_REG_VERSION: case DN1_REG_NODE_ID:
    case DN1_REG_LINK_STATUS: case DN1_REG_FW_STATUS: case DN1_REG_IRQ_STATUS:
    case DN1_REG_IRQ_ENABLE: case DN1_REG_RX_HDR0: case DN1_REG_RX_HDR1:
    case DN1_REG_RX_HDR2: case DN1_REG_RX_TAG: case DN1_REG_RX_RADDR_HI:
    case DN1_REG_RX_RADDR_LO: case DN1_REG_RX_XOFF: case DN1_REG_RX_NACK_REASON:
    case DN1_REG_RX_CMD_RESULT: case DN1_REG_TX_SRAM_OFF: case DN1_REG_TX_RESULT:
    case DN1_REG_RX_HOLD_REASON: case DN1_REG_RX_MISS_HI: case DN1_REG_RX_MISS_LO:
    case DN1_REG_MMU_CTRL: case DN1_REG_TIMING:
    case DN1_REG_BOTF_STATUS: case DN1_REG_BOOT_VERSION: case DN1_REG_BOOT_SLOT:
    case DN1_REG_HOST_PORTS:
        return true;
    }
    return false;   /* holes, and the write-only RX_CMD and TX_CMD */
}

static uint64_t martini_read(void *opaque, hwaddr offset, unsigned size)
{
    MartiniState *s = opaque;

    if (offset >= DN1_REG_RX_PAYLOAD) {
        /* Held payload, memory-like: any access size. */
        return martini_payload_read(s, offset - DN1_REG_RX_PAYLOAD, size);
    }
    if (size != 4 || !martini_reg_readable(offset)) {
        martini_count(s, DN1_CNT_ERR_REG);
        qemu_log_mask(LOG_GUEST_ERROR, "martini%u: bad read of %u bytes at "
                      "0x%" HWADDR_PRIx ", returns 0\n",
                      s->node_id, size, offset);
        return 0;
    }
    return martini_reg_value(s, offset);
}

static void martini_write_reg(MartiniState *s, hwaddr offset, uint64_t value,
                              unsigned size);

/*
 * RX_PAYLOAD in host order (DN1_RX_PAYLOAD_HOST_ORDER_BASE): the bridge's
 * byte-lane swap, as for LLCM's host-order view, so a 32-bit load returns
 * the little-endian word the sender's host stored. Read-only.
 */
static uint64_t martini_payload_host_order_read(void *opaque, hwaddr offset,
                                                unsigned size)
{
    uint64_t v = martini_payload_read(opaque, offset, size);

    switch (size) {
    case 2: return bswap16(v);
    case 4: return bswap32(v);
    case 8: return bswap64(v);
    }
    return v;
}

static void martini_payload_host_order_write(void *opaque, hwaddr offset,
                                             uint64_t value, unsigned size)
{
    MartiniState *s = opaque;

    martini_count(s, DN1_CNT_ERR_REG);
    qemu_log_mask(LOG_GUEST_ERROR, "martini%u: write to the read-only "
                  "host-order payload at 0x%" HWADDR_PRIx ", ignored\n",
                  s->node_id, offset);
}

static const MemoryRegionOps martini_payload_host_order_ops = {
    .read = martini_payload_host_order_read,
    .write = martini_payload_host_order_write,
    .endianness = DEVICE_BIG_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
};

/*
 * A processor write (timing off): frames it makes (the ACK of a packet the
 * firmware finished, a packet it sends) wait while the firmware has the
 * next packet held already; they leave in one write once nothing is held
 * (or at the next main-loop input), not one write each.
 */
static void martini_write(void *opaque, hwaddr offset, uint64_t value,
                          unsigned size)
{
    MartiniState *s = opaque;
    bool cpu = !s->sync && qemu_in_vcpu_thread();

    if (cpu) {
        martini_link_hold(s);
    }
    martini_write_reg(s, offset, value, size);
    if (cpu) {
        martini_link_release_unless(s, s->held != NULL);
    }
}

static void martini_write_reg(MartiniState *s, hwaddr offset, uint64_t value,
                              unsigned size)
{

    if (size != 4 || (offset & 3)) {
        goto bad;
    }
    switch (offset) {
    case DN1_REG_FW_STATUS:
        martini_sync_fw_status(s, s->fw_status, value);
        s->fw_status = value;
        if (s->restart_pending && !(value & DN1_FW_READY)) {
            martini_restart_now(s);     /* the firmware has left */
        }
        return;
    case DN1_REG_BOOT_VERSION:
        s->boot_version = value;
        return;
    case DN1_REG_BOOT_SLOT:
        s->boot_slot = value;
        return;
    case DN1_REG_IRQ_ENABLE:
        s->irq_enable = value & (DN1_IRQ_RX_HELD | DN1_IRQ_RESTART);
        martini_update_irq(s);
        return;
    case DN1_REG_RX_RADDR_HI:
    case DN1_REG_RX_RADDR_LO:
        if (!s->held) {
            goto bad;
        }
        if (offset == DN1_REG_RX_RADDR_HI) {
            s->held_raddr = deposit64(s->held_raddr, 32, 32, value);
        } else {
            s->held_raddr = deposit64(s->held_raddr, 0, 32, value);
        }
        return;
    case DN1_REG_RX_NACK_REASON:
        s->nack_reason = value & 0xff;
        return;
    case DN1_REG_RX_CMD:
        martini_rx_command(s, value);
        return;
    case DN1_REG_TX_SRAM_OFF:
        s->tx_sram_off = value;
        return;
    case DN1_REG_MMU_CTRL:
        s->mmu_ctrl = value & DN1_MMU_PATLB_EN;
        return;
    case DN1_REG_TX_CMD:
        if (value == DN1_TX_CMD_SEND) {
            martini_tx_sram(s, s->tx_sram_off);
        } else {
            s->tx_result = DN1_TX_RESULT_BAD_CMD;
            goto bad;
        }
        return;
    }
bad:
    martini_count(s, DN1_CNT_ERR_REG);
    qemu_log_mask(LOG_GUEST_ERROR, "martini%u: bad write of %u bytes at "
                  "0x%" HWADDR_PRIx ", ignored\n", s->node_id, size, offset);
}

static const MemoryRegionOps martini_ops = {
    .read = martini_read,
    .write = martini_write,
    .endianness = DEVICE_BIG_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 4,
    },
};

static void martini_reset(DeviceState *dev)
{
    MartiniState *s = MARTINI(dev);
    MartiniPacket *p, *tmp;

    QSIMPLEQ_FOREACH_SAFE(p, &s->rxq, next, tmp) {
        g_free(p);
    }
    QSIMPLEQ_INIT(&s->rxq);
    s->rxq_len = 0;
    g_free(s->held);
    s->held = NULL;
    s->held_raddr = 0;
    s->hold_reason = DN1_HOLD_NONE;
    s->miss_addr = 0;
    martini_mmu_reset(s);
    memset(s->botf_busy_until, 0, sizeof(s->botf_busy_until));
    s->nack_reason = 0;
    s->cmd_result = 0;
    s->aotf_seq = 0;
    s->tx_sram_off = 0;
    s->tx_result = 0;
    s->fw_status = 0;
    s->boot_version = s->bios_version;
    s->boot_slot = s->bios_slot;
    s->irq_enable = 0;
    s->restart_pending = false;
    timer_del(s->restart_timer);
    memset(s->counters, 0, sizeof(s->counters));
    s->irq_level = -1;          /* the CPU's side was reset too */
    martini_update_irq(s);
}

/* What the board itself boots (firmware loaded from -bios): BOOT_* now
 * and after every reset (the device resets after the board's CPU hook). */
void martini_set_boot(MartiniState *s, uint32_t version, uint32_t slot)
{
    s->boot_version = s->bios_version = version;
    s->boot_slot = s->bios_slot = slot;
}

/*
 * The processor starts again from its reset vector. The Martini keeps
 * everything else (queues, counters, LLCM, TLBs, chip SRAM); what the
 * firmware owns goes back to reset values, so the host sees READY again
 * only from the new firmware, and the next packet for firmware waits held
 * until the new firmware enables its interrupt.
 */
void martini_restart_now(MartiniState *s)
{
    s->restart_pending = false;
    timer_del(s->restart_timer);
    s->fw_status = 0;
    s->boot_version = s->boot_slot = 0;
    s->irq_enable = 0;
    s->irq_level = -1;          /* the processor starts from reset */
    qemu_irq_pulse(s->cpu_restart);
    martini_rx_pump(s);         /* what waited: held for the new firmware */
}

static void martini_restart_grace_over(void *opaque)
{
    MartiniState *s = opaque;

    qemu_log_mask(LOG_GUEST_ERROR, "martini%u: firmware did not leave within "
                  "%llu ns of NIC_RESTART: restarted without it\n", s->node_id,
                  (unsigned long long)DN1_RESTART_GRACE_NS);
    martini_restart_now(s);
}

/*
 * Host-bus NIC_RESTART. Firmware that enabled the RESTART interrupt and is
 * READY is asked first: new arrivals wait, the interrupt comes once nothing
 * is held, and the firmware saves what must survive and clears READY
 * (martini_write), which restarts the processor; it gets
 * DN1_RESTART_GRACE_NS of virtual time. Otherwise, or when @how says
 * DN1_NIC_RESTART_HARD, the restart is at once. IRQ_STATUS.RESTART tells
 * the host the restart has not happened yet.
 */
int32_t martini_nic_restart(MartiniState *s, uint64_t how)
{
    if (how == DN1_NIC_RESTART_HARD) {
        martini_restart_now(s);     /* a hard reset: the firmware is not asked */
        return 0;
    }
    if (how != DN1_NIC_RESTART_ASK) {
        return DN1_HB_EINVAL;
    }
    if (s->restart_pending) {
        return 0;               /* asked already */
    }
    if ((s->irq_enable & DN1_IRQ_RESTART) && (s->fw_status & DN1_FW_READY)) {
        s->restart_pending = true;
        timer_mod(s->restart_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  DN1_RESTART_GRACE_NS);
        martini_update_irq(s);
        return 0;
    }
    martini_restart_now(s);
    return 0;
}

static void martini_realize(DeviceState *dev, Error **errp)
{
    MartiniState *s = MARTINI(dev);

    if (!s->hostmem || !s->llcm || !s->window || !s->sram) {
        error_setg(errp, "martini: hostmem, llcm, window and sram must be set");
        return;
    }
    if (!memory_region_get_ram_ptr(s->hostmem) ||
        !memory_region_get_ram_ptr(s->llcm) ||
        !memory_region_get_ram_ptr(s->window) ||
        !memory_region_get_ram_ptr(s->sram)) {
        error_setg(errp, "martini: shared memories must be RAM");
        return;
    }
    if (s->node_id > UINT16_MAX) {
        error_setg(errp, "martini: node-id %u does not fit a packet's "
                   "16-bit node field", s->node_id);
        return;
    }
    QSIMPLEQ_INIT(&s->rxq);
    s->restart_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                    martini_restart_grace_over, s);
    martini_mmu_init(s, errp);
    if (*errp) {
        return;
    }
    /* sysbus region 3, after the TLBs' 1 and 2. */
    memory_region_init_io(&s->payload_host_order, OBJECT(s),
                          &martini_payload_host_order_ops, s,
                          "martini.rx-payload-host-order", DN1_PKT_MAX_PAYLOAD);
    sysbus_init_mmio(SYS_BUS_DEVICE(s), &s->payload_host_order);
    martini_pcap_open(s, errp);
    if (*errp) {
        return;
    }
    if (s->host_sync && !s->sync) {
        error_setg(errp, "martini: host-sync needs sync (virtual time from "
                   "the switch)");
        return;
    }
    martini_sync_init(s);
    martini_link_init(s);
    martini_hostbus_init(s, errp);
}

static void martini_init(Object *obj)
{
    MartiniState *s = MARTINI(obj);

    s->irq_level = -1;
    memory_region_init_io(&s->regs, obj, &martini_ops, s, "martini.regs",
                          DN1_REGS_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(obj), &s->regs);
    /* An unnamed GPIO out, so qtest's irq_intercept_out can watch it. */
    qdev_init_gpio_out(DEVICE(obj), &s->irq, 1);
    qdev_init_gpio_out_named(DEVICE(obj), &s->cpu_restart, "cpu-restart", 1);
}

static Property martini_properties[] = {
    DEFINE_PROP_UINT32("node-id", MartiniState, node_id, 0),
    DEFINE_PROP_LINK("hostmem", MartiniState, hostmem, TYPE_MEMORY_REGION,
                     MemoryRegion *),
    DEFINE_PROP_LINK("llcm", MartiniState, llcm, TYPE_MEMORY_REGION,
                     MemoryRegion *),
    DEFINE_PROP_LINK("window", MartiniState, window, TYPE_MEMORY_REGION,
                     MemoryRegion *),
    DEFINE_PROP_LINK("sram", MartiniState, sram, TYPE_MEMORY_REGION,
                     MemoryRegion *),
    DEFINE_PROP_CHR("hostbus", MartiniState, hostbus),
    DEFINE_PROP_CHR("hostbus1", MartiniState, hostbus_more[0]),
    DEFINE_PROP_CHR("hostbus2", MartiniState, hostbus_more[1]),
    DEFINE_PROP_CHR("hostbus3", MartiniState, hostbus_more[2]),
    DEFINE_PROP_UINT32("host-ports", MartiniState, host_ports, 1),
    DEFINE_PROP_CHR("link", MartiniState, link),
    DEFINE_PROP_STRING("pcap", MartiniState, pcap_path),
    DEFINE_PROP_BOOL("sync", MartiniState, sync, false),
    DEFINE_PROP_BOOL("host-sync", MartiniState, host_sync, false),
    DEFINE_PROP_BOOL("flash", MartiniState, flash, false),
    DEFINE_PROP_END_OF_LIST(),
};

static void martini_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);

    dc->desc = "DIMMnet-1 Martini network interface controller";
    dc->realize = martini_realize;
    dc->reset = martini_reset;
    /* Part of the dimmnet1 board; its memories are wired by the machine. */
    dc->user_creatable = false;
    device_class_set_props(dc, martini_properties);
}

static const TypeInfo martini_info = {
    .name = TYPE_MARTINI,
    .parent = TYPE_SYS_BUS_DEVICE,
    .instance_size = sizeof(MartiniState),
    .instance_init = martini_init,
    .class_init = martini_class_init,
};

static void martini_register_types(void)
{
    type_register_static(&martini_info);
}

type_init(martini_register_types)
