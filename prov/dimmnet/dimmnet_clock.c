/*
 * The provider's resend clock: the board's modeled clock when the cluster
 * keeps modeled time (a run is then the same at any host speed), else the
 * wall clock.
 */
#include <time.h>
#include "dimmnet.h"

#define RESEND_US_WALL    200000u  /* unACKed this long: written again */
#define RESEND_US_MODELED 200u     /* on a board keeping modeled time (as the
                                    * shim's message timeouts) */

uint64_t dnf_now_us(const struct dnf_domain *dom)
{
    struct timespec ts;
    uint64_t ns = 0;

    if (dom->modeled && dn_clock(dom->node, &ns) == DN_OK) {
        return ns / 1000u;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* How long a write that was written @tries times waits for its ACK before
 * it is written again: the base, doubled with every try up to 8 times, as
 * the shim's message timeout (an ACK waits in its NIC's in-order receive
 * pipeline behind every packet that needs the firmware). */
uint64_t dnf_resend_us(const struct dnf_domain *dom, unsigned tries)
{
    uint64_t base = dom->modeled ? RESEND_US_MODELED : RESEND_US_WALL;

    return base << (tries > 4 ? 3 : tries ? tries - 1 : 0);
}
