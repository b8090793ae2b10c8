/* Packet-type dispatcher (see dispatch.h). */
#include "dispatch.h"

static rx_handler_fn handler_table[256];
static rx_handler_fn miss_handler;
static struct dispatch_stats stats;

void dispatch_register(uint8_t type, rx_handler_fn fn)
{
    handler_table[type] = fn;
}

void dispatch_register_miss(rx_handler_fn fn)
{
    miss_handler = fn;
}

enum rx_action dispatch_packet(struct rx_packet *p)
{
    if (p->hold_reason == DN1_HOLD_RVATLB_MISS ||
        p->hold_reason == DN1_HOLD_PATLB_MISS) {
        stats.tlb_misses++;
        if (!miss_handler) {
            stats.no_translation++;
            p->nack_reason = DN1_NACK_NO_TRANSLATION;
            return RX_NACK;
        }
        return miss_handler(p);
    }

    rx_handler_fn fn = handler_table[p->hdr.type];

    if (!fn) {
        stats.no_handler++;
        p->nack_reason = DN1_NACK_NO_HANDLER;
        return RX_NACK;
    }
    stats.dispatched++;
    return fn(p);
}

void dispatch_service(void)
{
    struct rx_packet p;

    while (hal_rx_held()) {
        hal_rx_read(&p);
        hal_rx_finish(&p, dispatch_packet(&p));
    }
}

const struct dispatch_stats *dispatch_get_stats(void)
{
    return &stats;
}
