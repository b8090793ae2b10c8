/*
 * Firmware statistics: counters the host reads in LLCM (docs/hardware.md
 * section 10, DN1_LLCM_FWSTATS; `dnctl` prints them). Each increment is one
 * store to LLCM; the firmware keeps its own copy, so it never reads back
 * what the host could have scribbled over.
 */
#ifndef HANDLERS_FWSTATS_H
#define HANDLERS_FWSTATS_H

#include <stdint.h>
#include "dimmnet1/message.h"
#include "hal/nicmem.h"

/* Zero every counter and publish the block (magic, count) for the host. */
void fwstats_init(void);
void fwstats_add(unsigned counter, uint32_t n);
uint32_t fwstats_get(unsigned counter);

/* The firmware's copy, by DN1_FWST_*: global so that the assembly fast
 * paths (fast_path.S) count as fwstats_inc() does, and so that the count
 * is inline (hot paths count every packet: a load, an add, two stores). */
extern uint32_t fwstats_counts[DN1_FWST_COUNT];

/* LLCM offset of the block's @word: magic, count, then the counters. */
#define FWST_OFF(word) (DN1_LLCM_FWSTATS + 4u * (word))

static inline __attribute__((always_inline)) void fwstats_inc(unsigned counter)
{
    hal_llcm_write32(FWST_OFF(2 + counter), ++fwstats_counts[counter]);
}

#endif
