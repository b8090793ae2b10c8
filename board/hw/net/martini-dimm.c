/*
 * The card's DIMM side, shared by the host and the NIC (docs/hardware.md
 * section 9, "The host's accesses to the card"): the host's loads, stores
 * and window fills and the NIC's own writes of received data and reads of
 * RDMA data take it one at a time, in virtual time (timing on).
 *
 * The host's accesses of one request are known once the request is at the
 * head of the host queue, with the board standing at host_at: they hold
 * the DIMM for the last @dimm ns before the request takes effect. A NIC
 * access under way then makes them (and the request) wait; a NIC access
 * that would start inside them waits for their end.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "hw/net/martini.h"

int64_t martini_dimm_nic(MartiniState *s, int64_t at, int64_t ns)
{
    int64_t start = MAX(at, s->dimm_free);

    if (start < s->dimm_host_to && start + ns > s->dimm_host_from) {
        start = s->dimm_host_to;    /* the host's accesses come first */
    }
    if (start > at) {
        martini_count(s, DN1_CNT_DIMM_NIC_WAITS);
    }
    s->dimm_free = start + ns;
    return s->dimm_free;
}

int64_t martini_dimm_host(MartiniState *s, int64_t end, int64_t dimm)
{
    int64_t from = end - dimm;
    int64_t wait = dimm > 0 && s->dimm_free > from ? s->dimm_free - from : 0;

    if (wait) {
        martini_count(s, DN1_CNT_DIMM_HOST_WAITS);
    }
    s->dimm_host_from = from + wait;
    s->dimm_host_to = end + wait;
    return wait;
}
