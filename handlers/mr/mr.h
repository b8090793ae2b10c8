/*
 * Registered memory (docs/hardware.md section 14, include/dimmnet1/mr.h):
 * the registration table in LLCM that only the node's own host writes,
 * the RVATLB miss handler that fills the RVATLB from it or refuses, and
 * MR_SYNC, after which no packet reaches a registration the host cleared.
 */
#ifndef HANDLERS_MR_H
#define HANDLERS_MR_H

#include <stdint.h>
#include "hal/rx.h"

/* A registration as read from the table. */
struct mr_entry {
    uint64_t base;          /* VA of its first byte */
    uint32_t len;           /* bytes */
    uint32_t nic_off;       /* host receive memory offset of its first byte */
    uint32_t access;        /* DN1_MR_ACCESS_W | DN1_MR_ACCESS_R */
};

/* Forget every RVATLB entry filled before (entries 32..63 invalid: a
 * firmware started anew does not know what its predecessor filled). */
void mr_init(void);

/*
 * The registration of @key that holds the whole of [@va, @va + @n) (@n >= 1):
 * 0 and *e, or -1. Entries that could not be valid (length 0 or over
 * 16 MiB, running past receive memory) hold nothing.
 */
int mr_lookup(uint16_t key, uint64_t va, uint32_t n, struct mr_entry *e);

/*
 * Paged registrations (section 14): does an NR entry of @key hold the whole
 * of [@va, @va + @n) with every bit of @access? Asked only once mr_lookup
 * found no resident entry: NACK NOT_RESIDENT then, after mr_fault.
 */
int mr_paged(uint16_t key, uint64_t va, uint32_t n, uint32_t access);
/* Post a fault in the fault ring (statistic mr_not_resident). */
void mr_fault(uint16_t key, uint64_t va, uint32_t n);

/*
 * RVATLB misses (dispatch_register_miss): a context with bit 15 set is a
 * registration key; a PUSH needs W, a READ_REQ R, over its whole byte
 * range. Held only by a paged registration: NACK NOT_RESIDENT (a fault
 * posted). Refused: NACK PROTECTION. The missed page wholly inside and
 * mapped page to page: an RVATLB entry filled, RETRY; else CONTINUE at
 * the NIC address. Everything else goes to variant_miss_handle.
 */
enum rx_action mr_miss_handle(struct rx_packet *p);

/* MR_SYNC from this node's own host: invalidate the RVATLB entries filled
 * for the key in raddr (0: all), then DONE (ACK). */
enum rx_action mr_sync_handle(struct rx_packet *p);

#endif
