/* Remote indirect write handler (paper, Sec. 3, steps 3-4). */
#include "indirect_write.h"
#include "hal/nicmem.h"

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
