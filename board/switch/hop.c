/*
 * A frame's way through the topology (docs/hardware.md, "Topologies"): from
 * its board into that board's switch, from switch to switch by the
 * up*-down* tables, out to the board it is for. Each switch costs 140 ns
 * and each cable 50 ns (cut-through: the head goes on as soon as it is
 * through; serialization is paid once per link, where links contend). A
 * multicast frame is copied where its members' routes part, each copy
 * carrying the members still to reach, so no member gets it twice.
 */
#include <stdlib.h>
#include <string.h>
#include "switch.h"
#include "dimmnet1/packet_codec.h"

static void at_switch(struct sw *sw, unsigned s, int down, unsigned hops,
                      const struct sw_id *id, uint8_t *f, uint32_t size,
                      const uint64_t *members);

/* Out of port @p of switch @s: to its board, or over a link to the next
 * switch (now without timing; with timing as an event at the time its head
 * leaves, after the link's contention). */
static void leave(struct sw *sw, unsigned s, unsigned p, unsigned hops,
                  const struct sw_id *id, uint8_t *f, uint32_t size,
                  const uint64_t *members)
{
    struct topo_port *l = &sw->topo.sw[s].port[p];
    uint8_t copy[SW_FRAME_MAX];

    if (l->node >= 0) {
        sw_emit(sw, (unsigned)l->node, f, size, hops, id);
        return;
    }
    unsigned next = (unsigned)l->peer;
    int down = topo_is_down(&sw->topo, s, next);
    memcpy(copy, f, size);
    int n = sw_link_fault(l, copy, size);
    /* The next switch another process's (a fold): the frame goes there. */
    int remote = sw->fold.count > 1 && sw_fold_owner(sw, next) != sw->fold.index;
    for (int i = 0; i < n; i++) {
        /* A cable's duplicate is another copy: one bit more of its id. */
        struct sw_id cid = { id->src, id->seq, id->copy << 1 | (uint64_t)i };
        l->tx_frames++;
        if (!sw->quantum && !remote) {
            at_switch(sw, next, down, hops + 1, &cid, copy, size, members);
            continue;
        }
        int64_t start = sw->quantum ? sw_link_contend(l, (int64_t)dn1_get_be64(copy + 8), size)
                                    : (int64_t)dn1_get_be64(copy + 8);
        struct sw_pend e = { .stamp = start, .id = cid, .size = size, .out = -1,
                             .at = (int32_t)next, .down = (uint8_t)down,
                             .hops = (uint8_t)(hops + 1), .f = copy };
        uint64_t m[SW_MASK_WORDS];
        if (members) {
            memcpy(m, members, sizeof(m));
            e.members = m;
        }
        dn1_put_be64(copy + 8, (uint64_t)start);
        if (remote) {
            sw_fold_send(sw, &e);
        } else {
            sw_batch_push(sw, &e);    /* copies the frame and the members */
        }
    }
}

static void at_switch(struct sw *sw, unsigned s, int down, unsigned hops,
                      const struct sw_id *id, uint8_t *f, uint32_t size,
                      const uint64_t *members)
{
    const struct sw_topo *t = &sw->topo;

    if (hops > SW_MAX_HOPS) {
        sw->port[id->src].no_route++;  /* cannot happen with checked tables */
        return;
    }
    if (!members) {
        /* Read again at every switch: a bit flipped on a cable may have
         * changed it (no switch checks CRCs; the receiving NIC does). */
        unsigned dst = dn1_get_be16(f + DN1_LINK_FRAME_HDR + DN1_OFF_DST);
        unsigned node = dn1_addr_node(dst);      /* host port bits: the NIC's */
        int p = dst < DN1_ADDR_UNICAST_END && node < sw->nports
                ? topo_next(t, s, node, down) : -1;
        if (p < 0) {
            sw->port[id->src].no_route++;
            return;
        }
        leave(sw, s, (unsigned)p, hops, id, f, size, NULL);
        return;
    }
    /* Multicast: the members by the port their route takes from here. */
    uint64_t by_port[SW_MAX_RADIX][SW_MASK_WORDS];
    uint64_t used = 0;

    memset(by_port, 0, t->sw[s].radix * sizeof(by_port[0]));
    for (unsigned w = 0; w < SW_MASK_WORDS; w++) {
        for (uint64_t m = members[w]; m; m &= m - 1) {
            unsigned node = w * 64 + (unsigned)__builtin_ctzll(m);
            int p = topo_next(t, s, node, down);
            if (p >= 0) {
                by_port[p][w] |= 1ull << (node % 64);
                used |= 1ull << p;
            }
        }
    }
    for (uint64_t u = used; u; u &= u - 1) {
        unsigned p = (unsigned)__builtin_ctzll(u);
        leave(sw, s, p, hops, id, f, size, by_port[p]);
    }
}

/* A whole frame from board @src enters its switch, the @seq-th from there. */
void sw_enter(struct sw *sw, unsigned src, uint32_t seq, uint8_t *f, uint32_t size)
{
    struct sw_port *in = &sw->port[src];
    const struct sw_id id = { .src = src, .seq = seq };
    uint16_t dst;

    in->rx_frames++;
    if (size < DN1_LINK_FRAME_HDR + DN1_PKT_HDR_SIZE) {
        in->bad_frames++;
        return;
    }
    dst = dn1_get_be16(f + DN1_LINK_FRAME_HDR + DN1_OFF_DST);
    if (dst < DN1_MCAST_BASE) {
        if (dst >= DN1_ADDR_UNICAST_END || dn1_addr_node(dst) >= sw->nports) {
            in->no_route++;
            return;
        }
        at_switch(sw, sw->topo.node_sw[src], 0, 1, &id, f, size, NULL);
        return;
    }
    const uint64_t *members = sw->group[dst - DN1_MCAST_BASE];
    uint64_t any = 0;
    for (unsigned w = 0; w < SW_MASK_WORDS; w++) {
        any |= members[w];
    }
    if (!any) {
        in->no_route++;
        return;
    }
    at_switch(sw, sw->topo.node_sw[src], 0, 1, &id, f, size, members);
}

/* Timing: one event of the batch (timing.c keeps them in order). */
void sw_step(struct sw *sw, const struct sw_pend *e)
{
    if (e->at < 0) {
        sw_enter(sw, e->id.src, e->id.seq, e->f, e->size);
    } else {
        at_switch(sw, (unsigned)e->at, e->down, e->hops, &e->id, e->f, e->size,
                  e->members);
    }
}
