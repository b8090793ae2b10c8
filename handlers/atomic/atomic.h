/*
 * Remote atomics (docs/hardware.md section 15, include/dimmnet1/atomic.h):
 * an ATOMIC packet names a target in registered memory by key and VA; the
 * firmware applies the op to host receive memory and sends the old value
 * back in a READ_RSP, exactly once per (source, session, seq).
 */
#ifndef HANDLERS_ATOMIC_H
#define HANDLERS_ATOMIC_H

#include <stdint.h>
#include "hal/rx.h"

/* Forget every source's session. */
void atomic_init(void);

/*
 * An ATOMIC packet, in order: its path and length (BAD_ATOMIC, nothing
 * remembered); the source's session and seq (a new session at seq 0
 * starts afresh; an answered seq in the window is answered again, not
 * applied; ahead or unknown: SEQUENCE; older: discarded); then, the seq
 * taken: op and datatype, natural alignment (BAD_ATOMIC), the
 * registration with W and R (READ: R) (PROTECTION); the op; the old value
 * to the reply address. Refusals past the seq check are remembered too.
 */
enum rx_action atomic_handle(struct rx_packet *p);

/* The new value of the op (the old one if it writes nothing; *write set
 * when it writes): exposed for the unit tests' model check. */
uint64_t atomic_apply(unsigned op, unsigned dt, uint64_t old, uint64_t v,
                      uint64_t c, int *write);

#endif
