/*
 * Martini link port: packets to and from another board, framed on a chardev
 * stream (docs/hardware.md, "Link").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "hw/net/martini.h"
#include "dimmnet1/packet_codec.h"

bool martini_link_backlogged(MartiniState *s)
{
    return s->tx_bytes > MARTINI_TX_HIGH;
}

static gboolean martini_link_writable(void *do_not_use, GIOCondition cond,
                                      void *opaque);

/*
 * Timing off: the queued frames become one, so that they go in one write
 * (a sendmsg each cost more than the rest of a packet's trip through the
 * board); the bytes on the link are the same. It counts them all.
 */
static void martini_link_merge(MartiniState *s)
{
    MartiniFrame *f, *m;
    uint32_t size = 0, count = 0;

    QSIMPLEQ_FOREACH(f, &s->txq, next) {
        size += f->size - f->sent;
        count += f->count;
    }
    m = g_malloc(sizeof(*m) + size);
    m->size = size;
    m->sent = 0;
    m->count = count;
    size = 0;
    while ((f = QSIMPLEQ_FIRST(&s->txq))) {
        QSIMPLEQ_REMOVE_HEAD(&s->txq, next);
        memcpy(m->data + size, f->data + f->sent, f->size - f->sent);
        size += f->size - f->sent;
        g_free(f);
    }
    QSIMPLEQ_INSERT_HEAD(&s->txq, m, next);
}

/* Write queued frames as far as the socket takes them; never blocks. */
static void martini_link_flush(MartiniState *s)
{
    bool was_backlogged = martini_link_backlogged(s);
    MartiniFrame *f;

    f = QSIMPLEQ_FIRST(&s->txq);
    if (!s->sync && f && QSIMPLEQ_NEXT(f, next)) {
        martini_link_merge(s);
    }

    while ((f = QSIMPLEQ_FIRST(&s->txq))) {
        int n = qemu_chr_fe_write(&s->link, f->data + f->sent,
                                  f->size - f->sent);
        if (n <= 0) {
            break;
        }
        f->sent += n;
        s->tx_bytes -= n;
        if (f->sent < f->size) {
            break;
        }
        QSIMPLEQ_REMOVE_HEAD(&s->txq, next);
        g_free(f);
    }
    if (!QSIMPLEQ_EMPTY(&s->txq) && !s->tx_watch) {
        s->tx_watch = qemu_chr_fe_add_watch(&s->link, G_IO_OUT | G_IO_HUP,
                                            martini_link_writable, s);
    }
    if (was_backlogged && !martini_link_backlogged(s)) {
        /* Input held back for the backlog may flow again. */
        martini_hostbus_accept(s);
        qemu_chr_fe_accept_input(&s->link);
    }
}

static gboolean martini_link_writable(void *do_not_use, GIOCondition cond,
                                      void *opaque)
{
    MartiniState *s = opaque;

    s->tx_watch = 0;
    martini_link_flush(s);
    return G_SOURCE_REMOVE;
}

/* Frames not yet sent when the link goes down are lost: count each. */
void martini_link_reset(MartiniState *s)
{
    MartiniFrame *f;

    while ((f = QSIMPLEQ_FIRST(&s->txq))) {
        QSIMPLEQ_REMOVE_HEAD(&s->txq, next);
        for (uint32_t i = 0; i < f->count; i++) {
            martini_count(s, DN1_CNT_ERR_LINK_DOWN);
        }
        g_free(f);
    }
    s->tx_bytes = 0;
    if (s->tx_watch) {
        g_source_remove(s->tx_watch);
        s->tx_watch = 0;
    }
    s->link_rx.fill = 0;   /* a partial frame from the old peer is void */
}

static void martini_link_queue(MartiniState *s, MartiniFrame *f)
{
    QSIMPLEQ_INSERT_TAIL(&s->txq, f, next);
    s->tx_bytes += f->size;
    if (!s->tx_hold) {
        martini_link_flush(s);
    }
}

/*
 * Timing off: frames made while the main loop handles one read (host-bus
 * requests, received packets answered in hardware) leave in one write at
 * its end, martini_link_release. With timing they leave at once, as before.
 */
void martini_link_hold(MartiniState *s)
{
    if (!s->sync) {
        s->tx_hold++;
    }
}

void martini_link_release(MartiniState *s)
{
    martini_link_release_unless(s, false);
}

/* The same, but frames keep waiting if @busy (more to come soon), unless
 * MARTINI_TX_DEFER_MAX bytes wait already. */
void martini_link_release_unless(MartiniState *s, bool busy)
{
    if (s->tx_hold && --s->tx_hold == 0 && !QSIMPLEQ_EMPTY(&s->txq) &&
        !s->tx_watch && (!busy || s->tx_bytes >= MARTINI_TX_DEFER_MAX)) {
        martini_link_flush(s);
    }
}

/* Seal @h into @pkt (payload already in place) and queue it, framed. */
int martini_link_send(MartiniState *s, uint8_t *pkt, const struct dn1_hdr *h)
{
    /* An AOTF packet leaves its on-the-fly delay after the store; any
     * other packet its send circuit's start after the kick. */
    return martini_link_send_after(s, pkt, h, h->flags & DN1_FLAG_OTF ?
                                   DN1_AOTF_TX_NS : DN1_BOTF_TX_NS);
}

int martini_link_send_after(MartiniState *s, uint8_t *pkt,
                            const struct dn1_hdr *h, int64_t after_ns)
{
    uint32_t size = DN1_LINK_FRAME_HDR + DN1_PKT_HDR_SIZE + h->len;
    MartiniFrame *f;
    int64_t dep;

    if (!s->link_up) {
        martini_count(s, DN1_CNT_ERR_LINK_DOWN);
        return -1;
    }
    dn1_packet_seal(pkt, h);
    f = g_malloc(sizeof(*f) + size);
    f->size = size;
    f->sent = 0;
    f->count = 1;
    dn1_put_be32(f->data, DN1_LINK_MAGIC);
    dn1_put_be32(f->data + 4, size);
    /* Departure time in virtual time (after the link is free, timing on). */
    dep = martini_sync_departure(s, size, after_ns);
    dn1_put_be64(f->data + 8, dep);
    memcpy(f->data + DN1_LINK_FRAME_HDR, pkt, size - DN1_LINK_FRAME_HDR);
    martini_pcap_record(s, pkt, size - DN1_LINK_FRAME_HDR, dep);
    martini_count(s, DN1_CNT_TX_PACKETS);
    martini_link_queue(s, f);
    return 0;
}

/* A header-only control frame (timing) to the switch. */
void martini_link_control(MartiniState *s, uint32_t magic, int64_t vtime)
{
    MartiniFrame *f = g_malloc(sizeof(*f) + DN1_LINK_FRAME_HDR);

    f->size = DN1_LINK_FRAME_HDR;
    f->sent = 0;
    f->count = 1;
    dn1_put_be32(f->data, magic);
    dn1_put_be32(f->data + 4, DN1_LINK_FRAME_HDR);
    dn1_put_be64(f->data + 8, vtime);
    martini_link_queue(s, f);
}

static int martini_link_can_receive(void *opaque)
{
    MartiniState *s = opaque;

    /*
     * Back-pressure: the peer's bytes wait in the socket. With timing on,
     * frames wait for their arrival time in the in-flight list instead:
     * the switch's grant behind them must get through.
     */
    if ((!s->sync && !martini_rx_can_accept(s)) || martini_link_backlogged(s)) {
        return 0;
    }
    /* With timing, at most the rest of the current frame, so that each
     * frame is taken on its own. Without, as many frames as the receive
     * queue has room for: each frame that can enter it is at least
     * MARTINI_MIN_RX_FRAME bytes, so no read completes more of them. */
    if (s->sync) {
        return dn1_link_reasm_want(&s->link_rx);
    }
    return dn1_link_reasm_want(&s->link_rx) +
           (MARTINI_RXQ_MAX - s->rxq_len - 1) * MARTINI_MIN_RX_FRAME;
}

/*
 * A whole frame from the link. Control frames are checked against the
 * board's mode before they touch anything: a grant means something only
 * with timing on (its timers exist only then), and only the switch takes
 * DNR1. Anything else is dropped and counted (ERR_CONTROL), never obeyed.
 */
static void martini_link_frame(MartiniState *s, const uint8_t *f, uint32_t size)
{
    uint32_t magic = dn1_get_be32(f);

    if (magic == DN1_LINK_MAGIC) {
        martini_sync_receive(s, f, size);
    } else if (magic == DN1_LINK_MAGIC_GRANT && s->sync) {
        martini_sync_grant(s, (int64_t)dn1_get_be64(f + 8));
    } else {
        martini_count(s, DN1_CNT_ERR_CONTROL);
        qemu_log_mask(LOG_GUEST_ERROR, "martini%u: control frame 0x%08x not "
                      "expected %s, dropped\n", s->node_id, magic,
                      s->sync ? "from the switch" : "without timing");
    }
}

static void martini_link_receive(void *opaque, const uint8_t *buf, int size)
{
    MartiniState *s = opaque;
    size_t len = size;

    martini_link_hold(s);
    while (len > 0) {
        switch (dn1_link_reasm_feed(&s->link_rx, &buf, &len)) {
        case DN1_REASM_BAD:
            martini_count(s, DN1_CNT_ERR_FRAMING);
            qemu_log_mask(LOG_GUEST_ERROR, "martini%u: bad link frame "
                          "header, bytes dropped\n", s->node_id);
            break;
        case DN1_REASM_FRAME:
            martini_link_frame(s, s->link_rx.buf, s->link_rx.fill);
            s->link_rx.fill = 0;
            break;
        case DN1_REASM_MORE:
            break;
        }
    }
    martini_link_release(s);
}

static void martini_link_event(void *opaque, QEMUChrEvent event)
{
    MartiniState *s = opaque;

    switch (event) {
    case CHR_EVENT_OPENED:
        s->link_up = true;
        break;
    case CHR_EVENT_CLOSED:
        s->link_up = false;
        martini_link_reset(s);
        break;
    default:
        break;
    }
}

void martini_link_init(MartiniState *s)
{
    QSIMPLEQ_INIT(&s->txq);
    qemu_chr_fe_set_handlers(&s->link, martini_link_can_receive,
                             martini_link_receive, martini_link_event,
                             NULL, s, NULL, true);
}
