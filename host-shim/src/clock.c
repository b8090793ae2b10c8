/*
 * Modeled time from the host's side (docs/hardware.md, "Host sync"): the
 * board's virtual clock, and idling that costs virtual time rather than
 * wall-clock time when the board runs with host sync.
 */
#include <sched.h>
#include "internal.h"

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

/* One turn of a host's polling loop. */
int dn_idle(dn_node *n)
{
    if (!n) {
        return DN_EINVAL;
    }
    if (n->host_sync) {
        return dn_delay(n, DN_POLL_NS, NULL);   /* one LLCM poll */
    }
    sched_yield();
    return DN_OK;
}
