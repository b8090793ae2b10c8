/*
 * Martini host bus: the host transactions that act on the NIC (a BOTF kick,
 * a register read), carried over a chardev stream from the host shim
 * (docs/hardware.md, "Host bus"). One response per request, in order.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "qemu/bswap.h"
#include "qemu/cutils.h"
#include "qemu/timer.h"
#include "exec/address-spaces.h"
#include "hw/net/martini.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet_codec.h"
#include "dimmnet1/shared_mem.h"

/* The address a host port's packets carry as their source. */
static uint16_t martini_port_src(MartiniState *s, unsigned port)
{
    return s->node_id | port << DN1_PORT_SHIFT;
}

/* Is @idx of @count things (windows, descriptors) host port @port's? */
static bool martini_port_owns(MartiniState *s, unsigned port, uint64_t idx,
                              unsigned count)
{
    unsigned first, end;

    dn1_port_share(count, s->host_ports, port, &first, &end);
    return idx >= first && idx < end;
}

/* Build a packet from what host port @port wrote into BOTF window @w, and
 * send it. */
static int martini_botf_kick(MartiniState *s, unsigned port, uint64_t w)
{
    const uint8_t *win;
    uint8_t pkt[DN1_PKT_MAX_SIZE];
    struct dn1_hdr h = { .version = DN1_PKT_VERSION };

    if (w >= DN1_BOTF_WINDOWS || !martini_port_owns(s, port, w, DN1_BOTF_WINDOWS)) {
        martini_count(s, DN1_CNT_ERR_BOTF);
        return DN1_HB_EINVAL;
    }
    if (martini_botf_status(s) & (1u << w)) {
        /* Its last packet is still going out of it (timing on). */
        martini_count(s, DN1_CNT_ERR_BOTF);
        qemu_log_mask(LOG_GUEST_ERROR, "martini%u: BOTF window %u kicked "
                      "before its packet left, not sent\n", s->node_id,
                      (unsigned)w);
        return DN1_HB_EBUSY;
    }
    win = (const uint8_t *)memory_region_get_ram_ptr(s->window) +
          dn1_botf_window_off(w);
    h.type = win[offsetof(struct dn1_botf_hdr, type)];
    h.flags = win[offsetof(struct dn1_botf_hdr, flags)];
    h.dst = lduw_le_p(win + offsetof(struct dn1_botf_hdr, dst));
    h.len = lduw_le_p(win + offsetof(struct dn1_botf_hdr, len));
    h.seq = lduw_le_p(win + offsetof(struct dn1_botf_hdr, seq));
    h.tag = ldl_le_p(win + offsetof(struct dn1_botf_hdr, tag));
    h.xoff = ldl_le_p(win + offsetof(struct dn1_botf_hdr, xoff));
    h.raddr = ldq_le_p(win + offsetof(struct dn1_botf_hdr, raddr));
    h.src = martini_port_src(s, port);

    /* ACK and NACK are the hardware's answers; a host may not forge them. */
    if (h.len > DN1_BOTF_MAX_PAYLOAD || !martini_sendable(h.type, h.flags) ||
        ldq_le_p(win + offsetof(struct dn1_botf_hdr, reserved)) != 0) {
        martini_count(s, DN1_CNT_ERR_BOTF);
        qemu_log_mask(LOG_GUEST_ERROR, "martini%u: BOTF window %u has a bad "
                      "header (type 0x%x, flags 0x%x, len %u), not sent\n",
                      s->node_id, (unsigned)w, h.type, h.flags, h.len);
        return DN1_HB_EINVAL;
    }
    memcpy(pkt + DN1_PKT_HDR_SIZE, win + DN1_BOTF_PAYLOAD_OFF, h.len);
    if (martini_link_send(s, pkt, &h) != 0) {
        return DN1_HB_ELINKDOWN;
    }
    /* The NIC reads the window as the packet goes out: busy until its last
     * byte has left (with timing; otherwise it leaves at once). */
    s->botf_busy_until[w] = s->sync ? s->tx_free : 0;
    return 0;
}

uint32_t martini_botf_status(MartiniState *s)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    uint32_t busy = 0;

    for (unsigned w = 0; w < DN1_BOTF_WINDOWS; w++) {
        if (s->botf_busy_until[w] > now) {
            busy |= 1u << w;
        }
    }
    return busy;
}

/*
 * One host store to AOTF channel @ch becomes one packet: 1-8 bytes, the
 * channel's destination, type and remote base + @off, flag OTF. The
 * channels are host port 0's.
 */
static int martini_aotf_store(MartiniState *s, unsigned port, uint64_t arg0,
                              uint64_t data, uint32_t tag)
{
    unsigned ch = (arg0 >> 40) & 0xffffff;
    unsigned size = (arg0 >> 32) & 0xff;
    uint32_t off = (uint32_t)arg0;
    const uint8_t *c;
    uint8_t pkt[DN1_PKT_HDR_SIZE + DN1_AOTF_MAX_PAYLOAD];
    struct dn1_hdr h = { .version = DN1_PKT_VERSION };
    uint32_t limit;

    if (port != 0 || ch >= DN1_AOTF_CHANNELS || size < 1 ||
        size > DN1_AOTF_MAX_PAYLOAD) {
        goto bad;
    }
    c = (const uint8_t *)memory_region_get_ram_ptr(s->window) +
        DN1_AOTF_TABLE_OFF + ch * sizeof(struct dn1_aotf_channel);
    h.type = c[offsetof(struct dn1_aotf_channel, type)];
    h.flags = c[offsetof(struct dn1_aotf_channel, flags)];
    h.dst = lduw_le_p(c + offsetof(struct dn1_aotf_channel, dst));
    limit = ldl_le_p(c + offsetof(struct dn1_aotf_channel, size));
    h.raddr = ldq_le_p(c + offsetof(struct dn1_aotf_channel, raddr));
    if (!martini_sendable(h.type, h.flags) || off > limit || size > limit - off ||
        ldq_le_p(c + offsetof(struct dn1_aotf_channel, reserved)) ||
        ldq_le_p(c + offsetof(struct dn1_aotf_channel, reserved) + 8)) {
        goto bad;
    }
    h.flags |= DN1_FLAG_OTF;
    h.src = s->node_id;
    h.len = size;
    h.raddr += off;
    h.tag = tag;
    h.seq = s->aotf_seq++;
    for (unsigned i = 0; i < size; i++) {   /* bytes as a little-endian store */
        pkt[DN1_PKT_HDR_SIZE + i] = (uint8_t)(data >> (8 * i));
    }
    if (martini_link_send(s, pkt, &h) != 0) {
        return DN1_HB_ELINKDOWN;
    }
    martini_count(s, DN1_CNT_TX_AOTF);
    return 0;
bad:
    martini_count(s, DN1_CNT_ERR_AOTF);
    qemu_log_mask(LOG_GUEST_ERROR, "martini%u: AOTF store to channel %u "
                  "(size %u, offset 0x%x) refused\n", s->node_id, ch, size, off);
    return DN1_HB_EINVAL;
}

/*
 * RDMA: send what descriptor @d describes, reading the data from this node's
 * host receive memory, in packets of up to DN1_RDMA_MAX_PAYLOAD bytes.
 * Returns the hostbus status; *sent counts the packets that left. Host
 * port @port may post only its share of the descriptors.
 */
static int martini_rdma_post(MartiniState *s, unsigned port, uint64_t d,
                             uint64_t *sent)
{
    const uint8_t *desc, *mem = memory_region_get_ram_ptr(s->hostmem);
    uint64_t memsize = memory_region_size(s->hostmem);
    uint8_t pkt[DN1_PKT_MAX_SIZE];
    struct dn1_hdr h = { .version = DN1_PKT_VERSION };
    uint64_t local, raddr;
    uint32_t len, done = 0, tag, xoff;
    uint16_t seq;
    int64_t read_from = DN1_RDMA_START_NS;

    *sent = 0;
    if (d >= DN1_RDMA_DESCS || !martini_port_owns(s, port, d, DN1_RDMA_DESCS)) {
        goto bad;
    }
    desc = (const uint8_t *)memory_region_get_ram_ptr(s->window) +
           DN1_RDMA_DESC_OFF + d * sizeof(struct dn1_rdma_desc);
    h.type = desc[offsetof(struct dn1_rdma_desc, type)];
    h.flags = desc[offsetof(struct dn1_rdma_desc, flags)];
    h.dst = lduw_le_p(desc + offsetof(struct dn1_rdma_desc, dst));
    len = ldl_le_p(desc + offsetof(struct dn1_rdma_desc, len));
    local = ldq_le_p(desc + offsetof(struct dn1_rdma_desc, local));
    raddr = ldq_le_p(desc + offsetof(struct dn1_rdma_desc, raddr));
    tag = ldl_le_p(desc + offsetof(struct dn1_rdma_desc, first_tag));
    seq = lduw_le_p(desc + offsetof(struct dn1_rdma_desc, seq));
    xoff = ldl_le_p(desc + offsetof(struct dn1_rdma_desc, xoff));
    if (!martini_sendable(h.type, h.flags) || local > memsize ||
        len > memsize - local ||
        lduw_le_p(desc + offsetof(struct dn1_rdma_desc, reserved0)) ||
        ldl_le_p(desc + offsetof(struct dn1_rdma_desc, reserved1)) ||
        !buffer_is_zero(desc + offsetof(struct dn1_rdma_desc, reserved),
                        3 * sizeof(uint64_t))) {
        goto bad;
    }
    h.src = martini_port_src(s, port);
    /* The NIC reads the data from the DIMM side after its start-up, in one
     * run (timing on: once the DIMM is free of other accesses). */
    if (s->sync) {
        int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

        read_from = martini_dimm_nic(s, now + DN1_RDMA_START_NS, DN1_DIMM_NS(len)) -
                    DN1_DIMM_NS(len) - now;
    }
    do {
        h.len = MIN(len - done, DN1_RDMA_MAX_PAYLOAD);
        h.raddr = h.type == DN1_TYPE_PUSH ? raddr + done : raddr;
        h.xoff = xoff + done;
        h.tag = tag + *sent;
        h.seq = seq + *sent;
        memcpy(pkt + DN1_PKT_HDR_SIZE, mem + local + done, h.len);
        /* A packet leaves once the NIC has read it from the DIMM side:
         * start-up, then the bytes up to its end at the DIMM's rate. */
        if (martini_link_send_after(s, pkt, &h, read_from + DN1_BOTF_TX_NS +
                                    DN1_DIMM_NS(done + h.len)) != 0) {
            return DN1_HB_ELINKDOWN;
        }
        martini_count(s, DN1_CNT_TX_RDMA);
        (*sent)++;
        done += h.len;
    } while (done < len);
    return 0;
bad:
    martini_count(s, DN1_CNT_ERR_RDMA);
    qemu_log_mask(LOG_GUEST_ERROR, "martini%u: RDMA descriptor %u refused\n",
                  s->node_id, (unsigned)d);
    return DN1_HB_EINVAL;
}

/*
 * Host-bus FLASH_READ / FLASH_WRITE: one 32-bit bus access to the boot
 * flash, as the processor would make it (big-endian), so the host drives
 * the flash's own CFI command set. Only on a board with a flash device.
 */
static int32_t martini_flash_access(MartiniState *s, bool write, uint64_t off,
                                    uint64_t data, uint64_t *value)
{
    uint8_t buf[4];

    if (!s->flash) {
        return DN1_HB_ENOFLASH;
    }
    if (off >= DN1_FLASH_SIZE || (off & 3)) {
        return DN1_HB_EINVAL;
    }
    if (write) {
        stl_be_p(buf, (uint32_t)data);
        address_space_write(&address_space_memory, DN1_FLASH_BASE + off,
                            MEMTXATTRS_UNSPECIFIED, buf, sizeof(buf));
    } else {
        address_space_read(&address_space_memory, DN1_FLASH_BASE + off,
                           MEMTXATTRS_UNSPECIFIED, buf, sizeof(buf));
        *value = ldl_be_p(buf);
    }
    return 0;
}

/* What issuing op @op itself costs the host; *dimm: how long of it the
 * DIMM side is held (the bytes written first, the access itself). */
static int64_t martini_hostbus_op_cost(uint32_t op, uint64_t arg0, const uint8_t *win,
                                       int64_t *dimm)
{
    int64_t fill = 0;

    *dimm = DN1_DIMM_NS(8);
    switch (op) {
    case DN1_HB_REG_READ:
        return DN1_HOST_LOAD_NS;
    case DN1_HB_BOTF_KICK:
        if (arg0 < DN1_BOTF_WINDOWS) {
            uint16_t len = lduw_le_p(win + dn1_botf_window_off(arg0) +
                                     offsetof(struct dn1_botf_hdr, len));
            fill = DN1_DIMM_NS(sizeof(struct dn1_botf_hdr) +
                               MIN(len, DN1_BOTF_MAX_PAYLOAD));
        }
        *dimm += fill;
        return DN1_HOST_STORE_NS + fill;
    case DN1_HB_RDMA_POST:
        fill = DN1_DIMM_NS(sizeof(struct dn1_rdma_desc));
        *dimm += fill;
        return DN1_HOST_STORE_NS + fill;
    case DN1_HB_CLOCK:
        *dimm = 0;              /* host time passing, no access */
        return arg0 <= DN1_HB_CLOCK_MAX_NS ? (int64_t)arg0 : 0;
    default:
        return DN1_HOST_STORE_NS;
    }
}

/*
 * Modeled host time to issue @req (host sync): the host's own work since
 * its previous request (op bits 8-30), what it writes into NIC memory
 * first (a BOTF window, an RDMA descriptor) and the access that reaches
 * the NIC. CLOCK asks for its own amount. *dimm_ns: how long, at the end
 * of that, the host held the DIMM side: the DIMM time of its own accesses
 * (arg2 bits 32-63, at most its work) and of the request's.
 */
int64_t martini_hostbus_cost(MartiniState *s, const struct dn1_hb_req *req,
                             int64_t *dimm_ns)
{
    uint64_t arg0 = le64_to_cpu(req->arg0);
    const uint8_t *win = memory_region_get_ram_ptr(s->window);
    uint32_t op = le32_to_cpu(req->op);
    int64_t work = DN1_HB_HOST_NS(op);
    int64_t own = MIN((int64_t)DN1_HB_HOST_DIMM_NS(le64_to_cpu(req->arg2)), work);
    int64_t dimm, cost = work + martini_hostbus_op_cost(op & DN1_HB_OP_MASK, arg0, win,
                                                        &dimm);

    *dimm_ns = own + dimm;
    return cost;
}

static void martini_hostbus_flush(MartiniHostPort *hp)
{
    if (hp->out_len) {
        qemu_chr_fe_write_all(hp->chr, hp->out, hp->out_len);
        hp->out_len = 0;
    }
}

/* A response goes at once, or with the others of the same read. */
static void martini_hostbus_respond(MartiniHostPort *hp,
                                    const struct dn1_hb_rsp *rsp)
{
    if (!hp->batching) {
        qemu_chr_fe_write_all(hp->chr, (const uint8_t *)rsp, sizeof(*rsp));
        return;
    }
    if (hp->out_len + sizeof(*rsp) > sizeof(hp->out)) {
        martini_hostbus_flush(hp);
    }
    memcpy(hp->out + hp->out_len, rsp, sizeof(*rsp));
    hp->out_len += sizeof(*rsp);
}

/*
 * A posted request has acted: count it in its port's LLCM block
 * (HB_POSTED); if it failed, send an error notice naming it and count that
 * (HB_FAILED) first, so that a host that sees HB_POSTED pass a request
 * knows of its failure too.
 */
static void martini_hostbus_posted(MartiniHostPort *hp, int32_t status)
{
    MartiniState *s = hp->s;
    uint8_t *llcm = (uint8_t *)memory_region_get_ram_ptr(s->llcm) +
                    dn1_llcm_port_block(hp->port);
    uint32_t num = ldl_le_p(llcm + DN1_LLCM_HB_POSTED);

    if (status != 0) {
        struct dn1_hb_rsp notice = {
            .magic = cpu_to_le32(DN1_HB_MAGIC_NOTICE),
            .status = cpu_to_le32(status),
            .value = cpu_to_le64(num),
        };

        martini_hostbus_respond(hp, &notice);
        stl_le_p(llcm + DN1_LLCM_HB_FAILED,
                 ldl_le_p(llcm + DN1_LLCM_HB_FAILED) + 1);
        smp_wmb();
    }
    stl_le_p(llcm + DN1_LLCM_HB_POSTED, num + 1);
    memory_region_set_dirty(s->llcm, dn1_llcm_port_block(hp->port), 16);
}

void martini_hostbus_apply(MartiniState *s, unsigned port,
                           const struct dn1_hb_req *req)
{
    MartiniHostPort *hp = &s->hport[port];
    struct dn1_hb_rsp rsp = { .magic = cpu_to_le32(DN1_HB_MAGIC) };
    uint32_t op = le32_to_cpu(req->op);
    uint64_t arg0 = le64_to_cpu(req->arg0);
    int32_t status = 0;
    uint64_t value = 0;
    bool posted = false;

    if (le32_to_cpu(req->magic) != DN1_HB_MAGIC) {
        status = DN1_HB_EINVAL;   /* answered: its op cannot be trusted */
    } else {
        posted = op & DN1_HB_POSTED;
        op &= DN1_HB_OP_MASK;       /* bits 8-30: host time, its cost only */
        switch (op) {
        case DN1_HB_NOP:
            break;
        case DN1_HB_REG_READ:
            if (arg0 < DN1_REGS_SIZE && martini_reg_readable(arg0)) {
                value = martini_reg_value(s, arg0);
            } else {
                status = DN1_HB_EINVAL;
            }
            break;
        case DN1_HB_BOTF_KICK:
            status = martini_botf_kick(s, port, arg0);
            break;
        case DN1_HB_RDMA_POST:
            status = martini_rdma_post(s, port, arg0, &value);
            break;
        case DN1_HB_AOTF_STORE:
            status = martini_aotf_store(s, port, arg0, le64_to_cpu(req->arg1),
                                        (uint32_t)le64_to_cpu(req->arg2));
            break;
        case DN1_HB_FLASH_READ:
        case DN1_HB_FLASH_WRITE:
            if (port != 0) {        /* the node's own process only */
                status = DN1_HB_EINVAL;
                break;
            }
            status = martini_flash_access(s, op == DN1_HB_FLASH_WRITE, arg0,
                                          le64_to_cpu(req->arg1), &value);
            break;
        case DN1_HB_NIC_RESTART:
            status = port != 0 ? DN1_HB_EINVAL : martini_nic_restart(s, arg0);
            break;
        case DN1_HB_CLOCK:
            /* With host sync, the asked-for time has passed by now. */
            if (arg0 > DN1_HB_CLOCK_MAX_NS) {
                status = DN1_HB_EINVAL;
            }
            value = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
            break;
        default:
            status = DN1_HB_EBADOP;
            break;
        }
    }
    if (status == DN1_HB_EINVAL || status == DN1_HB_EBADOP ||
        status == DN1_HB_ENOFLASH) {
        martini_count(s, DN1_CNT_ERR_HOSTBUS);
    }
    if (posted) {
        martini_hostbus_posted(hp, status);
        return;
    }
    rsp.status = cpu_to_le32(status);
    rsp.value = cpu_to_le64(value);
    martini_hostbus_respond(hp, &rsp);
}

static int martini_hostbus_can_receive(void *opaque)
{
    MartiniHostPort *hp = opaque;
    MartiniState *s = hp->s;

    if (martini_link_backlogged(s)) {
        return 0;   /* the host waits, as on a busy bus */
    }
    if (martini_sync_host_queues(s)) {
        if (s->hbq_len == MARTINI_HBQ_MAX) {
            return 0;   /* host sync: requests wait for their virtual time */
        }
        return sizeof(hp->buf) - hp->fill;   /* one at a time */
    }
    /* Timing off: several requests, their frames and responses written
     * together at the end (timing on: one at a time, as before). */
    return (s->sync ? 1 : MARTINI_HB_BATCH) * sizeof(hp->buf) - hp->fill;
}

static void martini_hostbus_receive(void *opaque, const uint8_t *buf, int size)
{
    MartiniHostPort *hp = opaque;
    MartiniState *s = hp->s;

    martini_link_hold(s);
    hp->batching = !s->sync;
    while (size > 0) {
        uint32_t n = MIN((uint32_t)size, sizeof(hp->buf) - hp->fill);

        memcpy(hp->buf + hp->fill, buf, n);
        hp->fill += n;
        buf += n;
        size -= n;
        if (hp->fill == sizeof(hp->buf)) {
            struct dn1_hb_req req;

            memcpy(&req, hp->buf, sizeof(req));
            hp->fill = 0;
            if (!martini_sync_host_queues(s)) {
                martini_hostbus_apply(s, hp->port, &req);
            } else if (!martini_sync_host_request(s, &req)) {
                /* can_receive keeps this from happening */
                qemu_log_mask(LOG_GUEST_ERROR, "martini%u: host request "
                              "queue overflow, request dropped\n", s->node_id);
                martini_count(s, DN1_CNT_ERR_HOSTBUS);
            }
        }
    }
    /* Frames first: a host that has its response may expect the packet
     * on its way (as when each left at once). */
    martini_link_release(s);
    martini_hostbus_flush(hp);
    hp->batching = false;
}

static void martini_hostbus_event(void *opaque, QEMUChrEvent event)
{
    MartiniHostPort *hp = opaque;

    if (event == CHR_EVENT_CLOSED || event == CHR_EVENT_OPENED) {
        hp->fill = 0;   /* a new host starts a new request stream */
        if (hp->port == 0) {
            martini_sync_host_event(hp->s, event == CHR_EVENT_OPENED);
        }
    }
}

void martini_hostbus_accept(MartiniState *s)
{
    for (unsigned p = 0; p < s->host_ports; p++) {
        qemu_chr_fe_accept_input(s->hport[p].chr);
    }
}

/*
 * Host ports: "hostbus" is port 0, "hostbus1".. the others, host-ports of
 * them. With host sync the one host is the timing participant, so a board
 * with more than one port cannot keep host time (refused).
 */
void martini_hostbus_init(MartiniState *s, Error **errp)
{
    if (s->host_ports < 1 || s->host_ports > DN1_HOST_PORTS_MAX) {
        error_setg(errp, "martini: host-ports must be 1..%u",
                   DN1_HOST_PORTS_MAX);
        return;
    }
    if (s->host_ports > 1 && s->host_sync) {
        error_setg(errp, "martini: host-sync takes one host port, not %u",
                   s->host_ports);
        return;
    }
    for (unsigned p = 0; p < DN1_HOST_PORTS_MAX; p++) {
        MartiniHostPort *hp = &s->hport[p];
        CharBackend *chr = p ? &s->hostbus_more[p - 1] : &s->hostbus;

        if (p >= s->host_ports) {
            if (p && qemu_chr_fe_backend_connected(chr)) {
                error_setg(errp, "martini: hostbus%u given but host-ports "
                           "is %u", p, s->host_ports);
                return;
            }
            continue;
        }
        if (p && !qemu_chr_fe_backend_connected(chr)) {
            error_setg(errp, "martini: host-ports=%u needs hostbus%u",
                       s->host_ports, p);
            return;
        }
        hp->s = s;
        hp->port = p;
        hp->chr = chr;
        qemu_chr_fe_set_handlers(chr, martini_hostbus_can_receive,
                                 martini_hostbus_receive, martini_hostbus_event,
                                 NULL, hp, NULL, true);
    }
}
