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
/* 32-bit little-endian words of the fake NIC address space, as the host
 * would write and read them (LLCM's firmware part included). */
void fake_nic_put_u32(uint64_t addr, uint32_t v);
uint32_t fake_nic_get_u32(uint64_t addr);
/* Called with every firmware write to the NIC address space (NULL: none),
 * so that a test can check where handlers write. */
extern void (*fake_nic_write_check)(uint64_t addr);

/* Queue packets to be "held"; dispatch_service() consumes them. A CONTINUE
 * is checked as the hardware checks it (writable NIC address space) and
 * recorded, not carried out: there is no payload. */
void fake_rx_reset(void);
int fake_rx_held(void);                                     /* a packet still queued */
void fake_rx_push(const struct dn1_hdr *h);                 /* held: type */
void fake_rx_push_held(const struct dn1_hdr *h, uint8_t reason);
/* The Martini interrupt as the processor takes it, level-triggered: entered
 * again (dispatch_service) while a packet is held. Returns how many times. */
unsigned fake_interrupts(void);

/* The same with a payload (up to 64 bytes; hal_rx_payload32 reads it). */
void fake_rx_push_payload(const struct dn1_hdr *h, const void *data, unsigned len);

/* Fake on-chip SRAM (processor words: big-endian), and the images the
 * firmware sent from it (hal_tx_send), decoded; fake_tx_result is what
 * the next sends answer (DN1_TX_RESULT_OK unless a test says otherwise). */
#define FAKE_SRAM_SIZE 0x10000u
extern uint8_t fake_sram[FAKE_SRAM_SIZE];
struct fake_send {
    uint32_t off;
    uint8_t type, flags;
    uint16_t dst;
    uint16_t len, seq;
    uint32_t tag, xoff;
    uint64_t raddr;
    uint8_t payload[16];
    size_t decisions_before;   /* fake_decision_count when it was sent */
};
#define FAKE_SENDS 256
extern struct fake_send fake_sends[FAKE_SENDS];
extern size_t fake_send_count;
extern uint32_t fake_tx_result;

struct fake_decision {
    enum rx_action action;
    uint64_t raddr;
    uint16_t len;
    uint8_t nack_reason;
};
#define FAKE_DECISIONS 64
extern struct fake_decision fake_decisions[FAKE_DECISIONS];
extern size_t fake_decision_count;

/* hal/mmu.h: what the variant handler switched, and the PATLB it filled. */
extern uint32_t fake_node_id;
extern uint32_t fake_host_ports;    /* HOST_PORTS, 1 unless a test sets it */
extern int fake_patlb_enabled, fake_rx_irq_enabled;
extern uint64_t fake_patlb[64];     /* NIC page number | 1 << 63 when valid */
extern uint32_t fake_rvatlb[64][4]; /* the RVATLB's words, as the processor stored them */

#endif
