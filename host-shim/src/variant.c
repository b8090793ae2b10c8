/*
 * Firmware variants chosen at run time (docs/hardware.md section 12): write
 * the LLCM variant block, then a CONTROL packet to this node itself, which
 * the firmware ACKs once it has taken the block over.
 */
#include "internal.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/variant.h"
#include "dimmnet1/fw_types.h"

#define VAR(off) (n->llcm + DN1_VAR_LLCM_OFF + (off))

int dn_fw_variant_set(dn_node *n, const struct dn_fw_variant *v)
{
    dn_xfer x;
    int rc;

    if (!n || !v || v->miss_mode > DN_MISS_CONTINUE ||
        v->window_base + v->window_size < v->window_base ||
        (v->pointer_off & 7) || v->pointer_off > DN1_LLCM_SIZE - 8) {
        return DN_EINVAL;
    }
    uint32_t gen = dn_get_le(VAR(DN1_VAR_GEN), 4) + 1;
    dn_put_le(VAR(DN1_VAR_MISS_MODE), v->miss_mode, 4);
    dn_put_le(VAR(DN1_VAR_FLAGS), (v->patlb ? DN1_VAR_F_PATLB : 0) |
                                  (v->poll ? DN1_VAR_F_POLL : 0) |
                                  (v->batch ? DN1_VAR_F_BATCH : 0), 4);
    dn_put_le(VAR(DN1_VAR_WINDOW_BASE), v->window_base, 8);
    dn_put_le(VAR(DN1_VAR_WINDOW_SIZE), v->window_size, 4);
    dn_put_le(VAR(DN1_VAR_POINTER_OFF), v->pointer_off, 4);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    dn_put_le(VAR(DN1_VAR_GEN), gen, 4);
    /* Through the switch and back: the firmware takes it in order with traffic. */
    rc = dn_send_typed(n, DN1_TYPE_CONTROL, dn_node_id(n), 0, NULL, 0, &x);
    if (rc == DN_OK) {
        rc = dn_wait(n, &x, 60000);
    }
    if (rc == DN_OK && dn_get_le(VAR(DN1_VAR_TAKEN), 4) != gen) {
        rc = DN_EIO;            /* ACKed but not taken: never expected */
    }
    return rc;
}
