/*
 * Host-bus protocol (docs/hardware.md, "Host bus"): host bus transactions that
 * must act on the NIC, carried over a stream socket (a QEMU chardev). Fields
 * are little-endian, the host's order. Every request gets one response, in
 * order; a host that reads the response knows the NIC has acted. A posted
 * request (op | DN1_HB_POSTED) gets none: LLCM HB_POSTED counts it once it
 * has acted, and only a failure is answered, by an error notice.
 */
#ifndef DIMMNET1_HOSTBUS_H
#define DIMMNET1_HOSTBUS_H

#include <stdint.h>

#define DN1_HB_MAGIC      0x31484e44u  /* "DNH1" read as little-endian bytes */
/* An error notice: a posted request failed; value = its number (the count
 * of posted requests, LLCM DN1_LLCM_HB_POSTED, before it). */
#define DN1_HB_MAGIC_NOTICE 0x31504e44u  /* "DNP1" */

/* Op flag: posted, no response; its value (if any) is dropped. */
#define DN1_HB_POSTED     0x80000000u
/*
 * Op bits 8-30: the host's own work (ns) since its previous request: with
 * host sync the request takes effect that much later (added to its cost);
 * otherwise ignored. The shim charges its host profile's costs so
 * (docs/hardware.md section 9, "Host profile"); more than the field holds
 * goes with the next requests.
 */
#define DN1_HB_OP_MASK        0xffu
#define DN1_HB_HOST_NS_SHIFT  8
#define DN1_HB_HOST_NS_MAX    0x7fffffu
#define DN1_HB_HOST_NS(op)    (((op) >> DN1_HB_HOST_NS_SHIFT) & DN1_HB_HOST_NS_MAX)
/*
 * arg2 bits 32-63 (no op uses them otherwise): how many ns of that work
 * the host's own accesses to the card (LLCM, receive memory) held the
 * DIMM side, at 1.25 ns a byte; with host sync the NIC's accesses contend
 * with them (docs/hardware.md section 9), otherwise ignored.
 */
#define DN1_HB_HOST_DIMM_SHIFT 32
#define DN1_HB_HOST_DIMM_NS(arg2) ((uint64_t)(arg2) >> DN1_HB_HOST_DIMM_SHIFT)

enum dn1_hb_op {
    DN1_HB_NOP        = 0,  /* no action; response proves the NIC is there */
    DN1_HB_REG_READ   = 1,  /* arg0 = register offset; value = contents */
    DN1_HB_BOTF_KICK  = 2,  /* arg0 = window (0 or 1): send what it holds */
    DN1_HB_AOTF_STORE = 3,  /* one host store: arg0 = DN1_AOTF_ARG0(ch, size,
                               offset), arg1 = data (its low size bytes, in
                               little-endian order), arg2 = the packet's tag */
    DN1_HB_RDMA_POST  = 4,  /* arg0 = descriptor index: send it; value =
                               packets sent */
    DN1_HB_CLOCK      = 5,  /* value = the board's virtual time (ns); with
                               host sync, first let arg0 ns of host time pass
                               (at most DN1_HB_CLOCK_MAX_NS) */
    DN1_HB_FLASH_READ  = 6, /* arg0 = boot flash offset (4-aligned); value =
                               the 32-bit word the processor would read */
    DN1_HB_FLASH_WRITE = 7, /* arg0 = boot flash offset (4-aligned), arg1 =
                               a 32-bit bus write: the flash's CFI command
                               set (erase, program, status, read array) */
    DN1_HB_NIC_RESTART = 8, /* restart the NIC processor from its reset
                               vector (the boot loader); the Martini keeps
                               its state, packets for firmware stay held;
                               arg0 DN1_NIC_RESTART_* */
};
#define DN1_NIC_RESTART_ASK  0u  /* the firmware may leave state first */
#define DN1_NIC_RESTART_HARD 1u  /* at once, not asked: it starts cold */

#define DN1_HB_CLOCK_MAX_NS  1000000000ull

/*
 * Host sync (machine option host-sync=on, docs/hardware.md "Host sync"):
 * each request takes effect at the virtual time of the previous response
 * plus the modeled host cost of issuing it, so a run does not depend on how
 * fast the host process happens to be. Costs of the paper's host (Table 1:
 * Pentium III 850 MHz, 100 MHz front-side bus and DIMM; the figures are
 * this model's assumptions, docs section 9):
 */
#define DN1_HOST_STORE_NS     60u   /* one uncached store: 6 bus cycles */
#define DN1_HOST_LOAD_NS      150u  /* one uncached load: a round trip */
/* A write-combined window or descriptor fill goes through the DIMM slot at
 * the DIMM's rate: DN1_DIMM_NS (link.h). */
/* The first request of a host takes effect this long after the firmware
 * reported READY (time for the firmware to finish its banner). */
#define DN1_HOST_EPOCH_NS     100000u

#define DN1_AOTF_ARG0(ch, size, off) \
    ((uint64_t)(ch) << 40 | (uint64_t)(size) << 32 | (uint32_t)(off))

struct dn1_hb_req {
    uint32_t magic;
    uint32_t op;
    uint64_t arg0;
    uint64_t arg1;
    uint64_t arg2;
};

struct dn1_hb_rsp {
    uint32_t magic;
    int32_t  status;   /* 0, or a negative DN1_HB_E* */
    uint64_t value;
};

#define DN1_HB_EBADOP     (-1)   /* unknown op */
#define DN1_HB_EINVAL     (-2)   /* bad argument (register, window, header) */
#define DN1_HB_ELINKDOWN  (-3)   /* link not connected: nothing sent */
#define DN1_HB_EBUSY      (-4)   /* BOTF window whose packet has not left yet:
                                    nothing sent (BOTF_STATUS says when) */
#define DN1_HB_ENOFLASH   (-5)   /* FLASH_* on a board without a flash device
                                    (firmware loaded from -bios) */

#endif
