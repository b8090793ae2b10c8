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
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "hw/core/cpu.h"
#include "sysemu/runstate.h"
#include "hw/net/martini.h"

/* A host in step starts its epoch after READY: past any boot quantum. */
QEMU_BUILD_BUG_ON(DN1_SYNC_BOOT_QUANTUM_NS > DN1_HOST_EPOCH_NS);

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

int64_t martini_sync_departure(MartiniState *s, uint32_t frame_size,
                               int64_t extra_ns)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    int64_t dep;

    if (!s->sync) {
        return now;
    }
    /* The link serializes: a frame starts when the one before is out, and
     * none leaves inside a boot quantum (see martini_sync_report). */
    dep = MAX(MAX(now + extra_ns, s->tx_free), s->tx_not_before);
    s->tx_free = dep + martini_serialize_ns(frame_size);
    return dep;
}

/* A frame reaches the receive pipeline (and the trace). */
static void martini_sync_deliver(MartiniState *s, const uint8_t *frame,
                                 uint32_t size)
{
    martini_count(s, DN1_CNT_RX_FRAMES);
    martini_pcap_record(s, frame + DN1_LINK_FRAME_HDR, size - DN1_LINK_FRAME_HDR,
                        qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
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

/*
 * A data frame from the link: into the pipeline now (timing off) or at its
 * modeled arrival. The receive pipeline is in order, so a frame never enters
 * it before the one ahead of it on the link; a packet enters it its receive
 * circuit's delay after arrival (the Mini-OTF receiver's for OTF, the
 * RHiNET circuit's for the rest).
 */
void martini_sync_receive(MartiniState *s, const uint8_t *frame, uint32_t size)
{
    int64_t at, now;
    MartiniFrame *f;

    if (!s->sync) {
        martini_sync_deliver(s, frame, size);
        return;
    }
    at = (int64_t)dn1_get_be64(frame + 8) + martini_link_delay(size);
    if (size >= DN1_LINK_FRAME_HDR + DN1_PKT_HDR_SIZE) {
        /* The Mini-OTF receiver, or the RHiNET receive circuit. */
        at += frame[DN1_LINK_FRAME_HDR + DN1_OFF_FLAGS] & DN1_FLAG_OTF ?
              DN1_OTF_RX_NS : DN1_RHINET_RX_NS;
    }
    at = MAX(at, s->rx_last);
    s->rx_last = at;
    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    if (at < now) {
        /* The board ran past the frame's arrival before it got the frame:
         * the lookahead broke (section "Timing"); it lands late. */
        qemu_log_mask(LOG_GUEST_ERROR, "martini%u: frame due at %" PRId64
                      " ns came %" PRId64 " ns late\n", s->node_id, at,
                      now - at);
        martini_count(s, DN1_CNT_ERR_SYNC);
    }
    if (at <= now && QSIMPLEQ_EMPTY(&s->inflight)) {
        martini_sync_deliver(s, frame, size);   /* no copy: it is due now */
        return;
    }
    f = g_malloc(sizeof(*f) + size);
    f->size = size;
    f->sent = 0;
    f->at = at;
    memcpy(f->data, frame, size);
    QSIMPLEQ_INSERT_TAIL(&s->inflight, f, next);
    timer_mod(s->arrive_timer, QSIMPLEQ_FIRST(&s->inflight)->at);
}

/*
 * Host sync. The host is a process outside virtual time; to make a run
 * independent of how fast it happens to be, its requests take effect at the
 * virtual time the host had reached (its previous response) plus the modeled
 * cost of issuing the request, and the board does not run past that point
 * until it knows the host's next request. Before the firmware is READY the
 * host is not in step yet (requests wait); after the host disconnects the
 * board runs free and serves later hosts at once.
 */
static bool martini_host_in_step(MartiniState *s)
{
    return s->host_sync && s->host_started && (!s->host_gone || s->hbq_len);
}

/*
 * Virtual time the board may not pass for its host. The board always stops
 * at host_at first, whether or not the next request is already there: where
 * and how the CPU pauses must not depend on when a request arrived.
 */
static int64_t martini_host_horizon(MartiniState *s)
{
    if (!martini_host_in_step(s)) {
        return INT64_MAX;
    }
    if (!s->host_stopped || !s->hbq_len) {
        return s->host_at;
    }
    if (!s->head_known) {
        /* Known once, with the board standing at host_at: the host's
         * accesses wait for a NIC access to the DIMM under way. */
        int64_t dimm;
        int64_t cost = martini_hostbus_cost(s, &s->hbq[s->hbq_head], &dimm);

        s->head_cost = cost + martini_dimm_host(s, s->host_at + cost, dimm);
        s->head_known = true;
    }
    return s->host_at + s->head_cost;
}

static int64_t martini_sync_next(MartiniState *s)
{
    return MIN(s->horizon, martini_host_horizon(s));
}

/*
 * Host requests whose time has come take effect, in order. Frames due by
 * now land first: timers that expire together run in no fixed order, and
 * the host reads NIC memory as soon as it has its answer.
 */
static void martini_host_apply_due(MartiniState *s, int64_t now)
{
    if (martini_host_in_step(s) && s->hbq_len &&
        now >= martini_host_horizon(s)) {
        martini_sync_arrive(s);
    }
    while (martini_host_in_step(s) && s->hbq_len &&
           now >= martini_host_horizon(s)) {
        struct dn1_hb_req req = s->hbq[s->hbq_head];

        s->hbq_head = (s->hbq_head + 1) % MARTINI_HBQ_MAX;
        s->hbq_len--;
        s->head_known = false;
        s->host_at = now;
        s->host_stopped = true;
        martini_hostbus_apply(s, 0, &req);
        martini_hostbus_accept(s);   /* room for more */
    }
}

/*
 * Must the vCPU stand still at @now: for a grant, or for its host's next
 * request? (A request that is due is applied, not waited for.)
 */
static bool martini_sync_blocked(MartiniState *s, int64_t now)
{
    return now >= s->horizon ||
           (now >= martini_host_horizon(s) && !s->hbq_len);
}

bool martini_sync_host_queues(MartiniState *s)
{
    return s->hbq_len || (s->host_sync && !s->host_gone);
}

/* A request from the host, to take effect in virtual time. False: full. */
bool martini_sync_host_request(MartiniState *s, const struct dn1_hb_req *req)
{
    if (s->hbq_len == MARTINI_HBQ_MAX) {
        return false;
    }
    s->hbq[(s->hbq_head + s->hbq_len++) % MARTINI_HBQ_MAX] = *req;
    /* A board that waits for it stands at host_at and re-arms its timer. */
    qemu_cond_broadcast(&s->grant_cond);
    return true;
}

void martini_sync_host_event(MartiniState *s, bool connected)
{
    if (!s->host_sync) {
        return;
    }
    if (connected) {
        s->host_connected = true;
    } else if (s->host_connected) {
        s->host_gone = true;          /* queued requests still take effect */
        qemu_cond_broadcast(&s->grant_cond);
    }
}

/* Firmware reports READY: the host's first request may take effect soon. */
void martini_sync_fw_status(MartiniState *s, uint32_t old, uint32_t val)
{
    if (val & DN1_FW_READY) {
        s->ever_ready = true;         /* booted: no more boot quanta */
    }
    if (s->host_sync && !s->host_started && (val & ~old & DN1_FW_READY)) {
        s->host_started = true;
        s->host_stopped = false;
        s->host_at = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + DN1_HOST_EPOCH_NS;
        timer_mod(s->quantum_timer, martini_sync_next(s));
    }
}

/*
 * The switch granted virtual time up to @horizon: run until then. A grant
 * that is no step forward (a duplicate, a switch that restarted from zero,
 * a negative time) changes nothing; it is counted, and answered as soon as
 * the board stands at or past it, so that a restarted switch can catch up.
 */
void martini_sync_grant(MartiniState *s, int64_t horizon)
{
    if (horizon <= s->horizon) {
        martini_count(s, DN1_CNT_ERR_CONTROL);
        qemu_log_mask(LOG_GUEST_ERROR, "martini%u: grant to %" PRId64
                      " ns does not pass the horizon %" PRId64 " ns\n",
                      s->node_id, horizon, s->horizon);
        if (horizon > 0 &&
            qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) >= horizon) {
            martini_link_control(s, DN1_LINK_MAGIC_REACHED, horizon);
        }
        return;
    }
    if (s->horizon == 0) {
        timer_mod(s->quantum_timer, horizon);   /* the first quantum */
    }
    if (s->reported_booting) {
        /* Maybe a boot quantum: the others run through it unchecked. */
        s->tx_not_before = horizon;
    }
    s->horizon = horizon;
    if (!runstate_is_running()) {
        vm_start();                      /* the first grant starts the board */
    }
    qemu_cond_broadcast(&s->grant_cond);
}

/*
 * Tell the switch the board got to its horizon (once per horizon): DNB1
 * while it boots (its firmware never READY since power-on) with no frame
 * coming to it, else DNR1. After a DNB1 the next grant may be a boot
 * quantum, through which every board runs without a stop: so nothing the
 * board sends leaves before that grant's end (tx_not_before), and no frame
 * can reach another board inside it. A firmware READY inside the quantum
 * changes nothing before its end: a host in step acts only one epoch later.
 */
static void martini_sync_report(MartiniState *s, int64_t now)
{
    if (now < s->horizon || s->reported == s->horizon) {
        return;
    }
    if (now - s->horizon > DN1_SYNC_QUANTUM_SLACK_NS) {
        /* Frames due meanwhile may land late (counted when they come). */
        qemu_log_mask(LOG_GUEST_ERROR, "martini%u: ran %" PRId64 " ns past "
                      "the horizon %" PRId64 "\n", s->node_id,
                      now - s->horizon, s->horizon);
    }
    s->reported = s->horizon;
    s->reported_booting = !s->ever_ready && QSIMPLEQ_EMPTY(&s->inflight);
    martini_link_control(s, s->reported_booting ? DN1_LINK_MAGIC_BOOTING
                                                : DN1_LINK_MAGIC_REACHED,
                         s->horizon);
}

/*
 * Wait for the next grant or host request, as work on the vCPU thread:
 * outside timer processing, with the BQL released, as QEMU's own vCPU pause
 * does. The CPU neither executes nor counts as idle meanwhile, so the
 * virtual clock cannot warp ahead while the other boards catch up. Without
 * the switch no grant comes and the board waits (its host bus still
 * answers, unless host sync holds requests for virtual time).
 */
static void martini_sync_wait(CPUState *cpu, run_on_cpu_data data)
{
    MartiniState *s = data.host_ptr;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    /*
     * A CPU halted in `wait` counts as idle, and icount would warp the clock
     * to the next deadline (the CP0 timer, seconds ahead). Not halted, it is
     * not idle; the firmware's idle loop executes `wait` again afterwards.
     */
    cpu->halted = 0;
    while (martini_sync_blocked(s, now)) {
        martini_sync_report(s, now);    /* a grant that came during a stop */
        if (cpu->stop) {
            /* QEMU pauses the CPU (shutdown, debugger): let it, and wait
             * again once it runs. */
            s->wait_on_resume = true;
            return;
        }
        qemu_cond_timedwait_iothread(&s->grant_cond, 10);
    }
    timer_mod(s->quantum_timer, martini_sync_next(s));
}

/*
 * At a stop (the switch's horizon, the host's place in virtual time, a host
 * request's time): apply what is due, report the horizon, and always have
 * the vCPU go through the wait (which returns at once if nothing is
 * missing), so that the CPU does the same at every stop in every run.
 */
static void martini_sync_quantum(void *opaque)
{
    MartiniState *s = opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    if (martini_host_in_step(s) && now >= s->host_at) {
        s->host_stopped = true;
    }
    /*
     * Queue the wait first: queued work also kicks the CPU out before its
     * next instruction, and keeps a halted CPU from counting as idle. Else
     * arming a timer below (a frame's arrival) would let icount warp the
     * clock to that timer, past this stop, whose timer is not armed now.
     */
    async_run_on_cpu(first_cpu, martini_sync_wait, RUN_ON_CPU_HOST_PTR(s));
    martini_host_apply_due(s, now);
    martini_sync_report(s, now);
}

static void martini_sync_vm_state(void *opaque, bool running, RunState state)
{
    MartiniState *s = opaque;

    if (running && s->wait_on_resume) {
        s->wait_on_resume = false;
        timer_mod(s->quantum_timer, martini_sync_next(s));
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
