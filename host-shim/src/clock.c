/*
 * Modeled time from the host's side (docs/hardware.md, "Host sync"): the
 * board's virtual clock, and idling that costs virtual time rather than
 * wall-clock time when the board runs with host sync.
 */
#include <sched.h>
#include <time.h>
#include <sys/prctl.h>
#include <stddef.h>
#include "internal.h"
#include "dimmnet1/message.h"

int dn_delay(dn_node *n, uint64_t ns, uint64_t *now_ns)
{
    uint64_t v = 0;
    int rc;

    if (!n || ns > DN1_HB_CLOCK_MAX_NS) {
        return DN_EINVAL;
    }
    rc = dn_hb_call(n, DN1_HB_CLOCK, n->host_sync ? ns : 0, 0, 0, &v);
    if (rc == DN_OK && now_ns) {
        *now_ns = v;
    }
    return rc;
}

int dn_clock(dn_node *n, uint64_t *now_ns)
{
    if (!now_ns) {
        return DN_EINVAL;
    }
    return dn_delay(n, 0, now_ns);
}

int dn_host_sync(dn_node *n)
{
    return n && n->host_sync;
}

int dn_sync_turn(dn_node *n, uint64_t *now_ns)
{
    /* The turn's loads are charged already; a turn that counted none (its
     * caller read memory we do not see) costs one LLCM load. */
    uint64_t ns = n->turn_loads ? 0 : DN_POLL_NS;

    n->turn_loads = 0;
    dn_self(n, DN_SELF_TURN);
    return dn_delay(n, ns, now_ns);
}

/* One turn of a host's polling loop. */
int dn_idle(dn_node *n)
{
    if (!n) {
        return DN_EINVAL;
    }
    if (n->host_sync) {
        return dn_sync_turn(n, NULL);
    }
    int rc = dn_hb_flush(n);    /* what we wait for may be among them */
    if (rc != DN_OK) {
        return rc;
    }
    /* Nothing new from the NIC for a while (no completion record, no
     * message notice): sleep a little instead of yielding again, so that
     * the boards' own processes get the CPU. */
    uint32_t sig = *dn_llcm32(n, n->llcm_port + DN1_LLCM_CQ_PRODUCED) +
                   *dn_llcm32(n, dn1_llcm_msg_ctrl(n->port) +
                                          offsetof(struct dn1_msg_ctrl, nq_produced));
    if (sig != n->idle_sig) {
        n->idle_sig = sig;
        n->idle_turns = 0;
    }
    if (++n->idle_turns < DN_IDLE_SPINS) {
        sched_yield();
    } else {
        /* The thread's timer slack (50 us by default) would make the
         * sleep five times longer: 1 us for this sleep only. */
        int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
        struct timespec ts = { 0, DN_IDLE_SLEEP_NS };

        prctl(PR_SET_TIMERSLACK, 1000, 0, 0, 0);
        nanosleep(&ts, NULL);
        if (slack > 0) {
            prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
        }
    }
    return DN_OK;
}
