/*
 * Fault "hold" for the switch model (docs/hardware.md, "Switch"): a frame
 * held back goes out hold-ns later than it would have, so frames behind it
 * on its port overtake it. Without timing the delay is wall-clock time; with
 * timing (--sync) the frame's stamp moves by hold-ns and it joins the batch
 * of the quantum its new stamp falls in, so a run stays deterministic.
 */
#include <stdlib.h>
#include <string.h>
#include "switch.h"

void sw_hold_add(struct sw *sw, unsigned port, const uint8_t *f, uint32_t size,
                 int64_t due, const struct sw_id *id)
{
    struct sw_hold *h;

    if (sw->nhold == sw->hold_cap) {
        sw->hold_cap = sw->hold_cap ? 2 * sw->hold_cap : 16;
        sw->hold = realloc(sw->hold, sw->hold_cap * sizeof(*sw->hold));
        if (!sw->hold) {
            abort();
        }
    }
    h = &sw->hold[sw->nhold++];
    h->due = due;
    h->port = port;
    h->size = size;
    h->id = *id;
    h->f = malloc(size);
    if (!h->f) {
        abort();
    }
    memcpy(h->f, f, size);
}

/* When the next held frame is due (INT64_MAX: none). */
int64_t sw_hold_next(const struct sw *sw)
{
    int64_t next = INT64_MAX;

    for (size_t k = 0; k < sw->nhold; k++) {
        if (sw->hold[k].due < next) {
            next = sw->hold[k].due;
        }
    }
    return next;
}

static int hold_cmp(const void *a, const void *b)
{
    const struct sw_hold *x = a, *y = b;

    if (x->due != y->due) {
        return x->due < y->due ? -1 : 1;
    }
    if (x->port != y->port) {
        return x->port < y->port ? -1 : 1;
    }
    return sw_id_cmp(&x->id, &y->id);
}

/* Release the frames due before @before, oldest due first. */
void sw_hold_release(struct sw *sw, int64_t before, sw_release_fn release)
{
    size_t kept = 0;

    qsort(sw->hold, sw->nhold, sizeof(*sw->hold), hold_cmp);
    for (size_t k = 0; k < sw->nhold; k++) {
        struct sw_hold *h = &sw->hold[k];

        if (h->due < before) {
            release(sw, h->port, h->f, h->size);
            free(h->f);
        } else {
            sw->hold[kept++] = *h;
        }
    }
    sw->nhold = kept;
}

/* Timing: frames due before @before join the batch about to be routed, in
 * stamp order with the others (sw_batch_flush releases them). */
void sw_hold_to_batch(struct sw *sw, int64_t before)
{
    size_t kept = 0;

    for (size_t k = 0; k < sw->nhold; k++) {
        struct sw_hold *h = &sw->hold[k];

        if (h->due >= before) {
            sw->hold[kept++] = *h;
            continue;
        }
        struct sw_pend e = { .stamp = h->due, .id = h->id, .size = h->size,
                             .out = (int32_t)h->port, .at = -1, .f = h->f };
        sw_batch_push(sw, &e);     /* copies the frame */
        free(h->f);
    }
    sw->nhold = kept;
}
