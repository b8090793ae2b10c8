/*
 * A benchmark's time stamp over the provider: the wall clock always and,
 * when the cluster keeps deterministic modeled time, the board's clock
 * (fi_dimmnet_modeled_clock; NULL: no modeled figures).
 */
#ifndef TESTS_FABRIC_BENCH_STAMP_H
#define TESTS_FABRIC_BENCH_STAMP_H

#include <time.h>
#include "fi_dimmnet.h"

struct bench_stamp {
    double wall;          /* s, CLOCK_MONOTONIC */
    uint64_t modeled;     /* ns of the board's clock, 0 without one */
};

static inline struct bench_stamp bench_stamp_now(fi_dimmnet_clock_fn clock_fn)
{
    struct timespec ts;
    struct bench_stamp s = { 0, 0 };

    clock_gettime(CLOCK_MONOTONIC, &ts);
    s.wall = ts.tv_sec + ts.tv_nsec * 1e-9;
    if (clock_fn) {
        clock_fn(&s.modeled, NULL);
    }
    return s;
}

#endif
