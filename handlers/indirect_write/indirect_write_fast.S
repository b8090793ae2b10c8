/*
 * Remote indirect write, the common case in assembly: the exception vector
 * jumps here (cpu_exc_fast) with Cause in $k0. If the interrupt is for a
 * held INDIRECT_WRITE packet whose pointer slot is an aligned LLCM word
 * holding a pointer below 4 GiB, and pointer + offset does not carry, the
 * packet continues at pointer + offset and the interrupt returns: 39
 * instructions from the vector to eret on the 4Kc, no frame, only $t0
 * borrowed (below the interrupted $sp: the o32 ABI keeps nothing there).
 * Anything else (another exception, another packet type, no packet, a
 * pointer slot in host memory, a bad slot, a carry) goes to exc_entry with
 * nothing changed, where indirect_write_handle() decides in C. Both give
 * the same answer to the same packet; the C one is what unit tests and the
 * fuzzers run.
 *
 * Why it may skip the dispatcher's checks: RX_HDR0 reads 0 when nothing is
 * held, and the hardware holds an INDIRECT_WRITE only for its type (never
 * on a TLB miss: it does not translate types it does not implement); the
 * firmware enables no interrupt line but the Martini's. The pointer is read
 * through LLCM's host-order view (docs/hardware.md section 2): no byte swap.
 * It counts DN1_FWST_DISPATCHED as the dispatcher would.
 */
#include "indirect_write_fast.h"

#if defined(__mips_isa_rev) && __mips_isa_rev >= 1
#define HAZARD          /* MIPS32: loads and mfc0 interlock */
#else
#define HAZARD  nop     /* MIPS I (R3000): the load or mfc0 delay slot */
#endif

    .set    noreorder
    .set    noat
    .text
    .globl  cpu_exc_fast
    .type   cpu_exc_fast, @function
cpu_exc_fast:
    HAZARD                              /* $k0 = Cause, from the vector */
    andi    $k0, $k0, 0x7c              /* ExcCode 0: an interrupt */
    bnez    $k0, exc_entry
    lui     $k1, IWF_REGS_HI
    lw      $k0, IWF_RX_HDR0($k1)       /* 0 when nothing is held */
    HAZARD
    srl     $k0, $k0, 16
    xori    $k0, $k0, IWF_VERSION_TYPE
    bnez    $k0, exc_entry
    lw      $k0, IWF_RX_RADDR_HI($k1)   /* the pointer slot: in LLCM? */
    HAZARD
    xori    $k0, $k0, IWF_RADDR_LLCM_HI
    bnez    $k0, exc_entry
    lw      $k0, IWF_RX_RADDR_LO($k1)
    sw      $t0, -4($sp)
    srl     $t0, $k0, IWF_LLCM_SIZE_SHIFT
    bnez    $t0, 9f                     /* past LLCM */
    andi    $t0, $k0, 7
    bnez    $t0, 9f                     /* not 8-aligned */
    lui     $t0, IWF_LLCM_HOST_ORDER_HI
    addu    $k0, $t0, $k0
    lw      $t0, 4($k0)                 /* pointer, high word */
    HAZARD
    bnez    $t0, 9f                     /* at or past 4 GiB: C decides */
    lw      $k0, 0($k0)                 /* pointer, low word */
    lw      $t0, IWF_RX_XOFF($k1)
    HAZARD
    addu    $k0, $k0, $t0
    sltu    $t0, $k0, $t0
    bnez    $t0, 9f                     /* carried past 4 GiB: C decides */
    ori     $t0, $zero, IWF_CMD_CONTINUE
    sw      $k0, IWF_RX_RADDR_LO($k1)
    sw      $zero, IWF_RX_RADDR_HI($k1)
    sw      $t0, IWF_RX_CMD($k1)        /* the hardware range-checks it */
    lui     $k1, %hi(fwstats_counts)
    lw      $k0, %lo(fwstats_counts)($k1)   /* [DN1_FWST_DISPATCHED] */
    HAZARD
    addiu   $k0, $k0, 1
    sw      $k0, %lo(fwstats_counts)($k1)
    lui     $k1, IWF_LLCM_HOST_ORDER_HI
    sw      $k0, IWF_FWST_DISPATCHED($k1)
    lw      $t0, -4($sp)
#if defined(__mips_isa_rev) && __mips_isa_rev >= 1
    eret
#else
    mfc0    $k0, $14                    /* EPC */
    HAZARD
    jr      $k0
    rfe
#endif
9:  lw      $t0, -4($sp)
    j       exc_entry
    nop
    .size   cpu_exc_fast, . - cpu_exc_fast
