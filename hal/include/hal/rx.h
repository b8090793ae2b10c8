/*
 * The packet held in Martini's receive pipeline, as handlers see it, and the
 * decisions a handler can return. Handlers depend only on this header (and
 * hal/nicmem.h), so unit tests can run them over a fake HAL.
 */
#ifndef HAL_RX_H
#define HAL_RX_H

#include <stdint.h>
#include "dimmnet1/packet.h"
#include "dimmnet1/regs.h"
#include "hal/access.h"

struct rx_packet {
    struct dn1_hdr hdr;      /* as received (crc field not loaded) */
    uint8_t hold_reason;     /* DN1_HOLD_*: why the pipeline stopped */
    uint64_t miss_addr;      /* on a TLB miss: the address that missed */
    uint64_t raddr;          /* where CONTINUE writes; starts as hdr.raddr */
    uint8_t nack_reason;     /* sent with RX_NACK */
    /*
     * Set by a handler that returns RX_CONTINUE or RX_WRITE and must act
     * once the payload is in memory (for CONTINUE: and its ACK has left):
     * called with the packet after the hardware did the write, never if it
     * refused it.
     */
    void (*written)(const struct rx_packet *p);
};

enum rx_action {
    RX_CONTINUE = DN1_RX_CMD_CONTINUE,   /* hardware writes payload at raddr */
    RX_DISCARD = DN1_RX_CMD_DISCARD,     /* drop silently (counted) */
    RX_NACK = DN1_RX_CMD_NACK,           /* drop, NACK the source */
    RX_DONE = DN1_RX_CMD_DONE,           /* consumed by firmware (core IDLE) */
    RX_RETRY = DN1_RX_CMD_RETRY,         /* TLB refilled: translate again */
    RX_WRITE = DN1_RX_CMD_WRITE,         /* write at raddr, no ACK: the
                                            handler answers (hal_tx_send) */
    RX_RELEASED = 0,                     /* handed back early (dispatch_release) */
};

/* The decisions that have the hardware write the payload at p->raddr. */
static inline int rx_action_writes(enum rx_action a)
{
    return a == RX_CONTINUE || a == RX_WRITE;
}

/*
 * IRQ_STATUS: DN1_IRQ_RX_HELD, DN1_IRQ_RESTART (a NIC restart the host
 * asked for); one register read.
 * The held packet's type (0 when nothing is held): one register read.
 * The held packet's payload word at byte @off (4-aligned, < len), as the
 * processor loads it: bytes in address order (a host's little-endian store
 * reads byte-swapped); 0 past len. hal_rx_payload_le32: the same word as
 * the sender's host stored it, its little-endian value, through the
 * host-order view (one load, no swap; contract 1.33).
 * Load the held packet's header. Hand the held packet back to the hardware
 * with the handler's decision; returns the command's result
 * (DN1_RX_RESULT_OK when it was carried out).
 * Inline on the NIC (hal/access.h): the dispatcher's every packet.
 */
#if HAL_ACCESS_INLINE
#include "dimmnet1/memmap.h"

#define HAL_REG(off) (DN1_REGS_BASE + (off))

HAL_ACCESS uint32_t hal_irq_status(void)
{
    return mmio_read32(HAL_REG(DN1_REG_IRQ_STATUS));
}

HAL_ACCESS uint8_t hal_rx_type(void)
{
    return (uint8_t)(mmio_read32(HAL_REG(DN1_REG_RX_HDR0)) >> 16);
}

HAL_ACCESS uint32_t hal_rx_payload32(unsigned off)
{
    return mmio_read32(HAL_REG(DN1_REG_RX_PAYLOAD + off));
}

HAL_ACCESS uint32_t hal_rx_payload_le32(unsigned off)
{
    return mmio_read32(DN1_RX_PAYLOAD_HOST_ORDER_BASE + off);
}

HAL_ACCESS void hal_rx_read(struct rx_packet *p)
{
    uint32_t h0 = mmio_read32(HAL_REG(DN1_REG_RX_HDR0));
    uint32_t h1 = mmio_read32(HAL_REG(DN1_REG_RX_HDR1));
    uint32_t h2 = mmio_read32(HAL_REG(DN1_REG_RX_HDR2));

    p->hdr.version = (uint8_t)(h0 >> 24);
    p->hdr.type = (uint8_t)(h0 >> 16);
    p->hdr.flags = (uint8_t)(h0 >> 8);
    p->hdr.reason = (uint8_t)h0;
    p->hdr.src = (uint16_t)(h1 >> 16);
    p->hdr.dst = (uint16_t)h1;
    p->hdr.len = (uint16_t)(h2 >> 16);
    p->hdr.seq = (uint16_t)h2;
    p->hdr.tag = mmio_read32(HAL_REG(DN1_REG_RX_TAG));
    p->hdr.raddr = (uint64_t)mmio_read32(HAL_REG(DN1_REG_RX_RADDR_HI)) << 32 |
                   mmio_read32(HAL_REG(DN1_REG_RX_RADDR_LO));
    p->hdr.xoff = mmio_read32(HAL_REG(DN1_REG_RX_XOFF));
    p->hdr.crc = 0;
    p->hold_reason = (uint8_t)mmio_read32(HAL_REG(DN1_REG_RX_HOLD_REASON));
    p->miss_addr = p->hold_reason == DN1_HOLD_TYPE ? 0 :
                   (uint64_t)mmio_read32(HAL_REG(DN1_REG_RX_MISS_HI)) << 32 |
                   mmio_read32(HAL_REG(DN1_REG_RX_MISS_LO));
    p->raddr = p->hdr.raddr;
    p->nack_reason = DN1_NACK_NONE;
    p->written = 0;
}

HAL_ACCESS uint32_t hal_rx_finish(const struct rx_packet *p, enum rx_action action)
{
    if (rx_action_writes(action) && p->raddr != p->hdr.raddr) {
        mmio_write32(HAL_REG(DN1_REG_RX_RADDR_HI), (uint32_t)(p->raddr >> 32));
        mmio_write32(HAL_REG(DN1_REG_RX_RADDR_LO), (uint32_t)p->raddr);
    } else if (action == RX_NACK) {
        mmio_write32(HAL_REG(DN1_REG_RX_NACK_REASON), p->nack_reason);
    }
    mmio_write32(HAL_REG(DN1_REG_RX_CMD), (uint32_t)action);
    return mmio_read32(HAL_REG(DN1_REG_RX_CMD_RESULT));
}
#else
uint32_t hal_irq_status(void);
uint8_t hal_rx_type(void);
uint32_t hal_rx_payload32(unsigned off);
uint32_t hal_rx_payload_le32(unsigned off);
void hal_rx_read(struct rx_packet *p);
uint32_t hal_rx_finish(const struct rx_packet *p, enum rx_action action);
#endif

#endif
