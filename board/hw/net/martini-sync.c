/*
 * Martini timing (optional, machine option sync=on, with -icount and -S):
 * virtual time kept consistent across boards in separate processes by the
 * switch. The switch grants virtual time up to a horizon; at the horizon the
 * board reports it and pauses until the next grant. Frames leave stamped
 * with their virtual departure (after the link is free: 500 MB/s) and are
 * handed to the receive pipeline only when the receiver's virtual clock
 * reaches their arrival. With a quantum no longer than the shortest link
 * latency, no frame arrives before it left plus its delay.
 * Contract: docs/hardware.md, "Timing".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "qemu/main-loop.h"
#include "qemu/error-report.h"
#include "sysemu/cpus.h"
#include "hw/core/cpu.h"
#include "qemu/main-loop.h"
#include "sysemu/runstate.h"
#include "hw/net/martini.h"

/* Modeled delay from the first bit leaving the sender to the last arriving. */
static int64_t martini_link_delay(uint32_t frame_size)
{
    return 2 * DN1_WIRE_NS + DN1_SWITCH_NS +
           (int64_t)(frame_size - DN1_LINK_FRAME_HDR) * DN1_LINK_NS_PER_BYTE;
}

int64_t martini_sync_departure(MartiniState *s, uint32_t frame_size)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    int64_t dep;

    if (!s->sync) {
        return now;
    }
    /* The link serializes: a frame starts when the one before is out. */
    dep = MAX(now, s->tx_free);
    s->tx_free = dep + (int64_t)(frame_size - DN1_LINK_FRAME_HDR) *
                       DN1_LINK_NS_PER_BYTE;
    return dep;
}

static void martini_sync_deliver(MartiniState *s, MartiniFrame *f)
{
    martini_count(s, DN1_CNT_RX_FRAMES);
    martini_pcap_record(s, f->data + DN1_LINK_FRAME_HDR,
                        f->size - DN1_LINK_FRAME_HDR);
    martini_rx_enqueue(s, f->data + DN1_LINK_FRAME_HDR,
                       f->size - DN1_LINK_FRAME_HDR);
    g_free(f);
}

static void martini_sync_arrive(void *opaque)
{
    MartiniState *s = opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    MartiniFrame *f;

    while ((f = QSIMPLEQ_FIRST(&s->inflight)) && f->at <= now) {
        QSIMPLEQ_REMOVE_HEAD(&s->inflight, next);
        martini_sync_deliver(s, f);
    }
    if (f) {
        timer_mod(s->arrive_timer, f->at);
    }
}

/* A data frame from the link: into the pipeline now or at its arrival. */
void martini_sync_receive(MartiniState *s, const uint8_t *frame, uint32_t size)
{
    MartiniFrame *f = g_malloc(sizeof(*f) + size);
    MartiniFrame *pos, *prev = NULL;

    f->size = size;
    f->sent = 0;
    memcpy(f->data, frame, size);
    f->at = (int64_t)dn1_get_be64(frame + 8) + martini_link_delay(size);
    if (!s->sync || f->at <= qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL)) {
        martini_sync_deliver(s, f);
        return;
    }
    /* Frames from several senders: keep them in arrival order. */
    QSIMPLEQ_FOREACH(pos, &s->inflight, next) {
        if (pos->at > f->at) {
            break;
        }
        prev = pos;
    }
    if (prev) {
        QSIMPLEQ_INSERT_AFTER(&s->inflight, prev, f, next);
    } else {
        QSIMPLEQ_INSERT_HEAD(&s->inflight, f, next);
    }
    timer_mod(s->arrive_timer, QSIMPLEQ_FIRST(&s->inflight)->at);
}

/* The switch granted virtual time up to @horizon: run until then. */
void martini_sync_grant(MartiniState *s, int64_t horizon)
{
    if (s->horizon == 0) {
        timer_mod(s->quantum_timer, horizon);   /* the first quantum */
    }
    s->horizon = horizon;
    if (!runstate_is_running()) {
        vm_start();                      /* the first grant starts the board */
    }
    qemu_cond_broadcast(&s->grant_cond);
}

/*
 * At the horizon: say so and wait for the next grant. In icount mode this
 * timer runs in the vCPU thread: waiting here (the BQL released, as QEMU's
 * own vCPU pause does) stops the CPU without making it idle, so the virtual
 * clock cannot warp ahead while the other boards catch up.
 */
static void martini_sync_quantum(void *opaque)
{
    MartiniState *s = opaque;
    int64_t reached = s->horizon;

    martini_link_control(s, DN1_LINK_MAGIC_REACHED, reached);
    if (!qemu_in_vcpu_thread()) {
        /* Not expected with icount; never block the main loop. */
        warn_report_once("martini: quantum timer outside the vCPU thread");
        timer_mod(s->quantum_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + 1);
        return;
    }
    /*
     * A CPU halted in `wait` counts as idle, and icount would then warp the
     * clock to the next deadline (the CP0 timer, seconds ahead) while we
     * wait. Not halted, it is not idle; the firmware's idle loop simply
     * executes `wait` again once the grant comes.
     */
    first_cpu->halted = 0;
    while (s->horizon == reached && s->sync_live) {
        qemu_cond_wait_iothread(&s->grant_cond);
    }
    timer_mod(s->quantum_timer, s->horizon);
}

void martini_sync_init(MartiniState *s)
{
    QSIMPLEQ_INIT(&s->inflight);
    if (!s->sync) {
        return;
    }
    s->quantum_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, martini_sync_quantum, s);
    s->arrive_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, martini_sync_arrive, s);
    qemu_cond_init(&s->grant_cond);
    s->sync_live = true;
}
