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
