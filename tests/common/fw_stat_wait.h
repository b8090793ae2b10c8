/*
 * Firmware counters trail the event they count (a notice, a barrier
 * completion) by a few instructions (docs/hardware.md section 10): a test
 * that has just seen the event waits for the counter to reach the value it
 * expects, within a bound, and then checks it.
 */
#ifndef TESTS_COMMON_FW_STAT_WAIT_H
#define TESTS_COMMON_FW_STAT_WAIT_H

#include <stdint.h>
#include "dimmnet1/dn.h"

/* Counter @i once it is at least @want, or its value after about
 * @timeout_ms (0 if unreadable). */
static inline uint32_t fw_stat_wait(dn_node *n, unsigned i, uint32_t want, int timeout_ms)
{
    uint64_t start = 0, now = 0;
    uint32_t v = 0;

    dn_clock(n, &start);
    while (dn_fw_stat_read(n, i, &v) == DN_OK && v < want &&
           dn_clock(n, &now) == DN_OK && now - start < (uint64_t)timeout_ms * 1000000u) {
        dn_idle(n);
    }
    return v;
}

#endif
