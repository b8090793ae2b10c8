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
#include "dimmnet1/packet_codec.h"

int sw_id_cmp(const struct sw_id *x, const struct sw_id *y)
{
    if (x->src != y->src) {
        return x->src < y->src ? -1 : 1;
    }
    if (x->seq != y->seq) {
        return (int32_t)(x->seq - y->seq) < 0 ? -1 : 1;   /* numbers wrap */
    }
    return x->copy < y->copy ? -1 : x->copy > y->copy;
}

static int pend_before(const struct sw_pend *x, const struct sw_pend *y)
{
    int c;

    if (x->stamp != y->stamp) {
        return x->stamp < y->stamp;
    }
    if ((c = sw_id_cmp(&x->id, &y->id)) != 0) {
        return c < 0;
    }
    if (x->at != y->at) {
        return x->at < y->at;
    }
    return x->out < y->out;
}

/* The batch is a binary heap on (stamp, id, at, out): a frame crossing
 * several switches comes back as a new event, later than the one that
 * made it, and must still be taken in its place. */
void sw_batch_push(struct sw *sw, const struct sw_pend *e)
{
    size_t i;

    if (sw->npend == sw->pend_cap) {
        sw->pend_cap = sw->pend_cap ? 2 * sw->pend_cap : 64;
        sw->pend = realloc(sw->pend, sw->pend_cap * sizeof(*sw->pend));
        if (!sw->pend) {
            abort();
        }
    }
    struct sw_pend n = *e;
    n.f = malloc(e->size);
    n.members = NULL;
    if (!n.f) {
        abort();
    }
    memcpy(n.f, e->f, e->size);
    if (e->members) {
        n.members = malloc(SW_MASK_WORDS * sizeof(uint64_t));
        if (!n.members) {
            abort();
        }
        memcpy(n.members, e->members, SW_MASK_WORDS * sizeof(uint64_t));
    }
    for (i = sw->npend++; i > 0 && pend_before(&n, &sw->pend[(i - 1) / 2]); i = (i - 1) / 2) {
        sw->pend[i] = sw->pend[(i - 1) / 2];
    }
    sw->pend[i] = n;
}

static struct sw_pend pend_pop(struct sw *sw)
{
    struct sw_pend top = sw->pend[0], last = sw->pend[--sw->npend];
    size_t i = 0;

    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= sw->npend) {
            break;
        }
        if (c + 1 < sw->npend && pend_before(&sw->pend[c + 1], &sw->pend[c])) {
            c++;
        }
        if (!pend_before(&sw->pend[c], &last)) {
            break;
        }
        sw->pend[i] = sw->pend[c];
        i = c;
    }
    if (sw->npend) {
        sw->pend[i] = last;
    }
    return top;
}

void sw_batch_add(struct sw *sw, unsigned src, const uint8_t *f, uint32_t size)
{
    struct sw_pend e = { .stamp = (int64_t)dn1_get_be64(f + 8),
                         .id = { .src = src, .seq = sw->port[src].rx_seq++ },
                         .size = size, .out = -1, .at = -1, .f = (uint8_t *)f };
    sw_batch_push(sw, &e);
}

/* Take the events stamped before @before (all: INT64_MAX), in order: a
 * frame moves on one switch, or a held frame (fault hold) is released to
 * its port. */
void sw_batch_flush(struct sw *sw, int64_t before, sw_route_fn route,
                    sw_release_fn release)
{
    while (sw->npend && sw->pend[0].stamp < before) {
        struct sw_pend e = pend_pop(sw);
        if (e.out >= 0) {
            release(sw, (unsigned)e.out, e.f, e.size);
        } else {
            route(sw, &e);
        }
        free(e.f);
        free(e.members);
    }
}

/*
 * Output contention: a frame whose head left the element before at @left
 * starts leaving an output link when it has crossed the switch and the
 * frame before it on that link is out; it then holds the link for its
 * serialization time. Returns the start; counts a wait in @contended.
 */
static int64_t contend(int64_t *out_free, uint64_t *contended, int64_t left,
                       uint32_t size)
{
    int64_t start = left + DN1_WIRE_NS + DN1_SWITCH_NS;

    if (start < *out_free) {
        start = *out_free;
        (*contended)++;
    }
    *out_free = start + (int64_t)(size - DN1_LINK_FRAME_HDR) * DN1_LINK_NS_PER_BYTE;
    return start;
}

/* The link to a board: the frame's stamp is moved so that the receiver's
 * arrival (stamp + 2 wires + switch + serialization) comes out right. */
void sw_contend(struct sw_port *p, uint8_t *f, uint32_t size)
{
    int64_t start = contend(&p->out_free, &p->contended, (int64_t)dn1_get_be64(f + 8), size);

    dn1_put_be64(f + 8, (uint64_t)(start - DN1_WIRE_NS - DN1_SWITCH_NS));
}

/* A cable between switches: the frame goes on to the next switch at the
 * returned time. */
int64_t sw_link_contend(struct topo_port *l, int64_t left, uint32_t size)
{
    return contend(&l->out_free, &l->contended, left, size);
}
