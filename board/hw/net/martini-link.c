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

/* Seal @h into @pkt (payload already in place) and send it, framed. */
int martini_link_send(MartiniState *s, uint8_t *pkt, const struct dn1_hdr *h)
{
    uint8_t frame[DN1_LINK_FRAME_HDR + DN1_PKT_MAX_SIZE];
    uint32_t size = DN1_PKT_HDR_SIZE + h->len;

    if (!s->link_up) {
        martini_count(s, DN1_CNT_ERR_LINK_DOWN);
        return -1;
    }
    dn1_packet_seal(pkt, h);
    dn1_put_be32(frame, DN1_LINK_MAGIC);
    dn1_put_be32(frame + 4, DN1_LINK_FRAME_HDR + size);
    /* Departure time in virtual time; used by the timing model. */
    dn1_put_be64(frame + 8, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    memcpy(frame + DN1_LINK_FRAME_HDR, pkt, size);
    if (qemu_chr_fe_write_all(&s->link, frame, DN1_LINK_FRAME_HDR + size) !=
        (int)(DN1_LINK_FRAME_HDR + size)) {
        martini_count(s, DN1_CNT_ERR_LINK_DOWN);
        return -1;
    }
    martini_count(s, DN1_CNT_TX_PACKETS);
    return 0;
}

static int martini_link_can_receive(void *opaque)
{
    MartiniState *s = opaque;

    if (!martini_rx_can_accept(s)) {
        return 0;   /* back-pressure: the peer's bytes wait in the socket */
    }
    return sizeof(s->link_buf) - s->link_fill;
}

static void martini_link_receive(void *opaque, const uint8_t *buf, int size)
{
    MartiniState *s = opaque;

    while (size > 0) {
        uint32_t want = DN1_LINK_FRAME_HDR;
        uint32_t n;

        if (s->link_fill >= DN1_LINK_FRAME_HDR) {
            want = dn1_get_be32(s->link_buf + 4);
        }
        n = MIN((uint32_t)size, want - s->link_fill);
        memcpy(s->link_buf + s->link_fill, buf, n);
        s->link_fill += n;
        buf += n;
        size -= n;

        if (s->link_fill == DN1_LINK_FRAME_HDR) {
            uint32_t frame = dn1_get_be32(s->link_buf + 4);

            if (dn1_get_be32(s->link_buf) != DN1_LINK_MAGIC ||
                frame < DN1_LINK_FRAME_HDR ||
                frame > sizeof(s->link_buf)) {
                /* Out of step with the sender: drop what we hold. */
                martini_count(s, DN1_CNT_ERR_FRAMING);
                qemu_log_mask(LOG_GUEST_ERROR, "martini%u: bad link frame "
                              "header, %u bytes dropped\n", s->node_id,
                              s->link_fill);
                s->link_fill = 0;
                continue;
            }
        }
        if (s->link_fill >= DN1_LINK_FRAME_HDR &&
            s->link_fill == dn1_get_be32(s->link_buf + 4)) {
            martini_count(s, DN1_CNT_RX_FRAMES);
            martini_rx_enqueue(s, s->link_buf + DN1_LINK_FRAME_HDR,
                               s->link_fill - DN1_LINK_FRAME_HDR);
            s->link_fill = 0;
        }
    }
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
        s->link_fill = 0;   /* a partial frame from the old peer is void */
        break;
    default:
        break;
    }
}

void martini_link_init(MartiniState *s)
{
    qemu_chr_fe_set_handlers(&s->link, martini_link_can_receive,
                             martini_link_receive, martini_link_event,
                             NULL, s, NULL, true);
}
