/* Remote indirect write handler (paper, Sec. 3, steps 3-4). */
#include "indirect_write.h"
#include "fast_path.h"
#include "hal/nicmem.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/message.h"
#include "dimmnet1/fw_types.h"

/* The fast path's numbers are the contract's (fast_path.h). */
_Static_assert(((0xa0000000u | DN1_REGS_BASE) >> 16) == FP_REGS_HI, "regs");
_Static_assert(((0xa0000000u | DN1_LLCM_HOST_ORDER_BASE) >> 16) ==
               FP_LLCM_HOST_ORDER_HI, "LLCM host-order view");
_Static_assert(DN1_REG_RX_HDR0 == FP_RX_HDR0 &&
               DN1_REG_RX_RADDR_HI == FP_RX_RADDR_HI &&
               DN1_REG_RX_RADDR_LO == FP_RX_RADDR_LO &&
               DN1_REG_RX_XOFF == FP_RX_XOFF && DN1_REG_RX_CMD == FP_RX_CMD &&
               DN1_RX_CMD_CONTINUE == FP_CMD_CONTINUE, "registers");
_Static_assert((DN1_PKT_VERSION << 8 | DN1_TYPE_INDIRECT_WRITE) ==
               FP_IW_VERSION_TYPE, "version and type");
_Static_assert((DN1_RADDR_LLCM >> 32) == FP_RADDR_LLCM_HI &&
               (DN1_RADDR_LLCM & 0xffffffffu) == 0 &&
               DN1_LLCM_SIZE == 1u << FP_LLCM_SIZE_SHIFT, "LLCM");
_Static_assert(DN1_LLCM_FWSTATS + 8 + 4 * DN1_FWST_DISPATCHED == FP_FWSTATS,
               "statistics");

enum rx_action indirect_write_handle(struct rx_packet *p)
{
    uint64_t pointer;

    if (hal_nic_read_u64(p->hdr.raddr, &pointer) != 0) {
        p->nack_reason = DN1_NACK_BAD_POINTER;
        return RX_NACK;
    }
    p->raddr = pointer + p->hdr.xoff;
    if (p->raddr < pointer) {
        /* A wrapped sum would land at a small, valid-looking address. */
        p->nack_reason = DN1_NACK_RANGE;
        return RX_NACK;
    }
    /* A target past receive memory is refused by the hardware's range
     * check on CONTINUE, which NACKs the sender. */
    return RX_CONTINUE;
}
