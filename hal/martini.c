/* Martini register access for the firmware (docs/hardware.md, "Registers"). */
#include "hal/martini.h"
#include "hal/rx.h"
#include "hal/mmio.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/regs.h"

#define REG(off)  (DN1_REGS_BASE + (off))

int hal_martini_probe(void)
{
    if (mmio_read32(REG(DN1_REG_ID)) != DN1_ID_VALUE) {
        return -1;
    }
    /* Same major version (the register layout we were built for), and
     * at least our minor: a minor adds what this firmware may use (1.33's
     * host-order views, which an older board does not map). */
    uint32_t v = mmio_read32(REG(DN1_REG_VERSION));

    return (v >> 16) == (DN1_CONTRACT_VERSION >> 16) &&
           (v & 0xffffu) >= (DN1_CONTRACT_VERSION & 0xffffu) ? 0 : -1;
}

uint32_t hal_node_id(void)
{
    return mmio_read32(REG(DN1_REG_NODE_ID));
}

uint32_t hal_host_ports(void)
{
    return mmio_read32(REG(DN1_REG_HOST_PORTS));
}

void hal_fw_ready(uint16_t version)
{
    mmio_write32(REG(DN1_REG_FW_STATUS),
                 (uint32_t)version << DN1_FW_VERSION_SHIFT | DN1_FW_READY);
}

void hal_fw_leave(void)
{
    mmio_write32(REG(DN1_REG_FW_STATUS), 0);
}

void hal_fw_failed(void)
{
    mmio_write32(REG(DN1_REG_FW_STATUS), DN1_FW_FAILED);
}

void hal_rx_read(struct rx_packet *p)
{
    uint32_t h0 = mmio_read32(REG(DN1_REG_RX_HDR0));
    uint32_t h1 = mmio_read32(REG(DN1_REG_RX_HDR1));
    uint32_t h2 = mmio_read32(REG(DN1_REG_RX_HDR2));

    p->hdr.version = (uint8_t)(h0 >> 24);
    p->hdr.type = (uint8_t)(h0 >> 16);
    p->hdr.flags = (uint8_t)(h0 >> 8);
    p->hdr.reason = (uint8_t)h0;
    p->hdr.src = (uint16_t)(h1 >> 16);
    p->hdr.dst = (uint16_t)h1;
    p->hdr.len = (uint16_t)(h2 >> 16);
    p->hdr.seq = (uint16_t)h2;
    p->hdr.tag = mmio_read32(REG(DN1_REG_RX_TAG));
    p->hdr.raddr = (uint64_t)mmio_read32(REG(DN1_REG_RX_RADDR_HI)) << 32 |
                   mmio_read32(REG(DN1_REG_RX_RADDR_LO));
    p->hdr.xoff = mmio_read32(REG(DN1_REG_RX_XOFF));
    p->hdr.crc = 0;
    p->hold_reason = (uint8_t)mmio_read32(REG(DN1_REG_RX_HOLD_REASON));
    p->miss_addr = p->hold_reason == DN1_HOLD_TYPE ? 0 :
                   (uint64_t)mmio_read32(REG(DN1_REG_RX_MISS_HI)) << 32 |
                   mmio_read32(REG(DN1_REG_RX_MISS_LO));
    p->raddr = p->hdr.raddr;
    p->nack_reason = DN1_NACK_NONE;
    p->written = 0;
}

uint32_t hal_rx_finish(const struct rx_packet *p, enum rx_action action)
{
    if (rx_action_writes(action) && p->raddr != p->hdr.raddr) {
        mmio_write32(REG(DN1_REG_RX_RADDR_HI), (uint32_t)(p->raddr >> 32));
        mmio_write32(REG(DN1_REG_RX_RADDR_LO), (uint32_t)p->raddr);
    } else if (action == RX_NACK) {
        mmio_write32(REG(DN1_REG_RX_NACK_REASON), p->nack_reason);
    }
    mmio_write32(REG(DN1_REG_RX_CMD), (uint32_t)action);
    return mmio_read32(REG(DN1_REG_RX_CMD_RESULT));
}
