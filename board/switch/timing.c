/*
 * Timing for the switch model (docs/hardware.md, "Timing"): with virtual
 * time on, frames are routed in batches when every board has reached the
 * horizon H: exactly those stamped before H (all of them are in, since a
 * frame leaves no earlier than it is sent and boards report H after their
 * frames), in the order of their stamps (then input port, then arrival).
 * So output contention, fault draws and the trace do not depend on which
 * board's process happened to write first, nor on how far a board had run
 * when the others reported. A frame stamped at or after H arrives after
 * H + quantum (the quantum is below the shortest link delay): it can wait
 * for the next batch.
 */
#include <stdlib.h>
#include <string.h>
#include "switch.h"

void sw_batch_add(struct sw *sw, unsigned src, const uint8_t *f, uint32_t size)
{
    struct sw_pend *e;

    if (sw->npend == sw->pend_cap) {
        sw->pend_cap = sw->pend_cap ? 2 * sw->pend_cap : 64;
        sw->pend = realloc(sw->pend, sw->pend_cap * sizeof(*sw->pend));
        if (!sw->pend) {
            abort();
        }
    }
    e = &sw->pend[sw->npend++];
    e->stamp = (int64_t)dn1_get_be64(f + 8);
    e->src = src;
    e->order = sw->pend_order++;
    e->size = size;
    e->out = -1;
    e->f = malloc(size);
    if (!e->f) {
        abort();
    }
    memcpy(e->f, f, size);
}

static int pend_cmp(const void *a, const void *b)
{
    const struct sw_pend *x = a, *y = b;

    if (x->stamp != y->stamp) {
        return x->stamp < y->stamp ? -1 : 1;
    }
    if (x->src != y->src) {
        return x->src < y->src ? -1 : 1;
    }
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Route the frames stamped before @before (all: INT64_MAX), in order; a
 * held frame (fault hold) is released to its port instead. */
void sw_batch_flush(struct sw *sw, int64_t before, sw_route_fn route,
                    sw_release_fn release)
{
    size_t kept = 0;

    qsort(sw->pend, sw->npend, sizeof(*sw->pend), pend_cmp);
    for (size_t k = 0; k < sw->npend; k++) {
        if (sw->pend[k].stamp < before && sw->pend[k].out >= 0) {
            release(sw, (unsigned)sw->pend[k].out, sw->pend[k].f, sw->pend[k].size);
            free(sw->pend[k].f);
        } else if (sw->pend[k].stamp < before) {
            route(sw, sw->pend[k].src, sw->pend[k].f, sw->pend[k].size);
            free(sw->pend[k].f);
        } else {
            sw->pend[kept++] = sw->pend[k];   /* stays sorted */
        }
    }
    sw->npend = kept;
}

/*
 * Output contention: a frame starts leaving output port @p when it has
 * crossed the switch and the frame before it on @p is out. The stamp is
 * moved so that the receiver's arrival (stamp + 2 wires + switch +
 * serialization) comes out right.
 */
void sw_contend(struct sw_port *p, uint8_t *f, uint32_t size)
{
    int64_t dep = (int64_t)dn1_get_be64(f + 8);
    int64_t start = dep + DN1_WIRE_NS + DN1_SWITCH_NS;

    if (start < p->out_free) {
        start = p->out_free;
        p->contended++;
    }
    p->out_free = start + (int64_t)(size - DN1_LINK_FRAME_HDR) * DN1_LINK_NS_PER_BYTE;
    dn1_put_be64(f + 8, (uint64_t)(start - DN1_WIRE_NS - DN1_SWITCH_NS));
}
