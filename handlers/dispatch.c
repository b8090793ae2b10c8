/* Packet-type dispatcher (see dispatch.h). */
#include "dispatch.h"
#include "fwstats.h"

int dispatch_batch;
static rx_handler_fn handler_table[256];
static rx_handler_fn miss_handler;
static uint8_t fast_type[256];

void dispatch_register(uint8_t type, rx_handler_fn fn)
{
    handler_table[type] = fn;
}

void dispatch_register_fast(uint8_t type)
{
    fast_type[type] = 1;
}

void dispatch_register_miss(rx_handler_fn fn)
{
    miss_handler = fn;
}

uint32_t dispatch_release(struct rx_packet *p, enum rx_action action)
{
    return hal_rx_finish(p, action);
}

enum rx_action dispatch_packet(struct rx_packet *p)
{
    if (p->hold_reason == DN1_HOLD_RVATLB_MISS ||
        p->hold_reason == DN1_HOLD_PATLB_MISS) {
        fwstats_inc(DN1_FWST_TLB_MISSES);
        if (!miss_handler) {
            fwstats_inc(DN1_FWST_NO_TRANSLATION);
            p->nack_reason = DN1_NACK_NO_TRANSLATION;
            return RX_NACK;
        }
        return miss_handler(p);
    }

    rx_handler_fn fn = handler_table[p->hdr.type];

    if (!fn) {
        fwstats_inc(DN1_FWST_NO_HANDLER);
        p->nack_reason = DN1_NACK_NO_HANDLER;
        return RX_NACK;
    }
    fwstats_inc(DN1_FWST_DISPATCHED);
    return fn(p);
}

uint32_t dispatch_service(void)
{
    struct rx_packet p;
    uint32_t st;

    while ((st = hal_irq_status()) & DN1_IRQ_RX_HELD) {
        hal_rx_read(&p);
        enum rx_action a = dispatch_packet(&p);
        /* RX_RELEASED: the handler handed it back itself. */
        if (a != RX_RELEASED && hal_rx_finish(&p, a) == DN1_RX_RESULT_OK &&
            rx_action_writes(a) && p.written) {
            p.written(&p);
        }
        /* The paper's firmware: one interrupt a packet (the next enters
         * at the vector again). Batched: on, unless the next one is a
         * fast path's (type 0: none held). */
        if (!dispatch_batch || fast_type[hal_rx_type()]) {
            break;
        }
    }
    return st;
}
