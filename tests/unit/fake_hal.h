/*
 * FAKE HAL for host-built unit tests of the firmware handlers: receive memory
 * is a host array, and the receive pipeline is a list of packets with the
 * decisions recorded. Never linked into firmware.
 */
#ifndef FAKE_HAL_H
#define FAKE_HAL_H

#include <stddef.h>
#include "hal/rx.h"

#define FAKE_HOSTMEM_SIZE (1u << 16)
extern uint8_t fake_hostmem[FAKE_HOSTMEM_SIZE];

/* Store a little-endian 64-bit pointer as the host would, at a NIC address
 * (fake host memory, or fake LLCM at DN1_RADDR_LLCM). */
void fake_hostmem_put_u64(uint64_t addr, uint64_t v);

/* Queue packets to be "held"; dispatch_service() consumes them. */
void fake_rx_reset(void);
void fake_rx_push(const struct dn1_hdr *h);                 /* held: type */
void fake_rx_push_held(const struct dn1_hdr *h, uint8_t reason);

struct fake_decision {
    enum rx_action action;
    uint64_t raddr;
    uint8_t nack_reason;
};
extern struct fake_decision fake_decisions[16];
extern size_t fake_decision_count;

#endif
