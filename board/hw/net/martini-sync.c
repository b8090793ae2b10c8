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
#include "hw/core/cpu.h"
#include "sysemu/runstate.h"
#include "hw/net/martini.h"

/* Time a frame's packet occupies the link (500 MB/s). */
static int64_t martini_serialize_ns(uint32_t frame_size)
{
    return (int64_t)(frame_size - DN1_LINK_FRAME_HDR) * DN1_LINK_NS_PER_BYTE;
}

/* Modeled delay from the first bit leaving the sender to the last arriving. */
static int64_t martini_link_delay(uint32_t frame_size)
{
    return 2 * DN1_WIRE_NS + DN1_SWITCH_NS + martini_serialize_ns(frame_size);
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
    s->tx_free = dep + martini_serialize_ns(frame_size);
    return dep;
}

/* A frame reaches the receive pipeline (and the trace). */
static void martini_sync_deliver(MartiniState *s, const uint8_t *frame,
                                 uint32_t size)
{
    martini_count(s, DN1_CNT_RX_FRAMES);
    martini_pcap_record(s, frame + DN1_LINK_FRAME_HDR, size - DN1_LINK_FRAME_HDR);
    martini_rx_enqueue(s, frame + DN1_LINK_FRAME_HDR, size - DN1_LINK_FRAME_HDR);
}

static void martini_sync_arrive(void *opaque)
{
    MartiniState *s = opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    MartiniFrame *f;

    while ((f = QSIMPLEQ_FIRST(&s->inflight)) && f->at <= now) {
        QSIMPLEQ_REMOVE_HEAD(&s->inflight, next);
        martini_sync_deliver(s, f->data, f->size);
        g_free(f);
    }
    if (f) {
        timer_mod(s->arrive_timer, f->at);
    }
}

/* A data frame from the link: into the pipeline now or at its arrival. */
void martini_sync_receive(MartiniState *s, const uint8_t *frame, uint32_t size)
{
    int64_t at = (int64_t)dn1_get_be64(frame + 8) + martini_link_delay(size);
    MartiniFrame *f, *pos, *prev = NULL;

    if (!s->sync || at <= qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL)) {
        martini_sync_deliver(s, frame, size);   /* no copy: it is due now */
        return;
    }
    f = g_malloc(sizeof(*f) + size);
    f->size = size;
    f->sent = 0;
    f->at = at;
    memcpy(f->data, frame, size);
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
 * Wait for the next grant, as work on the vCPU thread: outside timer
 * processing, with the BQL released, as QEMU's own vCPU pause does. The CPU
 * neither executes nor counts as idle meanwhile, so the virtual clock cannot
 * warp ahead while the other boards catch up. Without the switch no grant
 * comes and the board waits (its host bus still answers).
 */
static void martini_sync_wait(CPUState *cpu, run_on_cpu_data data)
{
    MartiniState *s = data.host_ptr;
    int64_t reached = s->horizon;

    /*
     * A CPU halted in `wait` counts as idle, and icount would warp the clock
     * to the next deadline (the CP0 timer, seconds ahead). Not halted, it is
     * not idle; the firmware's idle loop executes `wait` again afterwards.
     */
    cpu->halted = 0;
    while (s->horizon == reached) {
        if (cpu->stop) {
            /* QEMU pauses the CPU (shutdown, debugger): let it, and wait
             * again once it runs. */
            s->wait_on_resume = true;
            return;
        }
        qemu_cond_timedwait_iothread(&s->grant_cond, 10);
    }
    timer_mod(s->quantum_timer, s->horizon);
}

/* At the horizon: say so, and have the vCPU wait for the next grant. */
static void martini_sync_quantum(void *opaque)
{
    MartiniState *s = opaque;

    if (qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) < s->horizon) {
        /* Granted more while the CPU was stopped: not there yet. */
        timer_mod(s->quantum_timer, s->horizon);
        return;
    }
    martini_link_control(s, DN1_LINK_MAGIC_REACHED, s->horizon);
    /* Queued work also kicks the CPU out before its next instruction. */
    async_run_on_cpu(first_cpu, martini_sync_wait, RUN_ON_CPU_HOST_PTR(s));
}

static void martini_sync_vm_state(void *opaque, bool running, RunState state)
{
    MartiniState *s = opaque;

    if (running && s->wait_on_resume) {
        s->wait_on_resume = false;
        timer_mod(s->quantum_timer, s->horizon);
    }
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
    qemu_add_vm_change_state_handler(martini_sync_vm_state, s);
}
