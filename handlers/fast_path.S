/*
 * The two hottest packets in assembly. The exception vector jumps here
 * (cpu_exc_fast) with Cause in $k0; an interrupt for a held packet that one
 * of the paths below serves completely is served without a frame and
 * returns; anything else goes, with every register as it was, to
 * exc_entry and the C handlers, which give the same answer to every packet
 * (they are what unit tests and the fuzzers run).
 *
 *  - Remote indirect write (indirect_write_handle): the pointer slot an
 *    aligned LLCM word, the pointer below 4 GiB, pointer + offset without
 *    a carry: CONTINUE at pointer + offset. 39 instructions from the vector
 *    to eret on the 4Kc.
 *  - Message exchange (message_handle, then message_written), on a board
 *    of one host port only (message_fast_senders: it indexes the table by
 *    src and reads port 0's control block): a packet in the middle of a
 *    message already placed (not its first, not its last), in f_seq order
 *    and of the conversation in force (the envelope's low word,
 *    incarnation and length, compared whole), continuing at base +
 *    offset; once the hardware has written it, the sender's state moves
 *    on and its slot word is published, as message_written() does for
 *    such a packet (the slot's `delivered` is unchanged by it and not
 *    rewritten). A first packet (offset 0: every one-packet message) is
 *    sent to C after five instructions, before the other checks.
 *
 * Both count DN1_FWST_DISPATCHED as the dispatcher would, and read LLCM
 * through its host-order view (docs/hardware.md section 2): no byte swaps.
 * Registers: $k0/$k1, and $t0-$t3 borrowed below the interrupted $sp (the
 * o32 ABI keeps nothing there; interrupts do not nest).
 *
 * Why the dispatcher's own checks may be skipped: RX_HDR0 reads 0 when
 * nothing is held, and the hardware holds these types only for their type
 * (it does not translate types it does not implement); the firmware
 * enables no interrupt line but the Martini's.
 */
#include "fast_path.h"

#if defined(__mips_isa_rev) && __mips_isa_rev >= 1
#define HAZARD          /* MIPS32: loads and mfc0 interlock */
#else
#define HAZARD  nop     /* MIPS I (R3000): the load or mfc0 delay slot */
#endif

/* counter += 1 in fwstats_counts[] and its LLCM copy (fwstats_inc()). */
    .macro FWSTAT_INC off, scratch
    lui     $k1, %hi(fwstats_counts + \off)
    lw      $k0, %lo(fwstats_counts + \off)($k1)
    HAZARD
    addiu   $k0, $k0, 1
    sw      $k0, %lo(fwstats_counts + \off)($k1)
    lui     \scratch, FP_LLCM_HOST_ORDER_HI
    sw      $k0, FP_FWSTATS + \off(\scratch)
    .endm

    .macro EXC_RETURN
#if defined(__mips_isa_rev) && __mips_isa_rev >= 1
    eret
#else
    mfc0    $k0, $14                    /* EPC */
    HAZARD
    jr      $k0
    rfe
#endif
    .endm

    .set    noreorder
    .set    noat
    .text
    .globl  cpu_exc_fast
    .type   cpu_exc_fast, @function
cpu_exc_fast:
    HAZARD                              /* $k0 = Cause, from the vector */
    andi    $k0, $k0, 0x7c              /* ExcCode 0: an interrupt */
    bnez    $k0, exc_entry
    lui     $k1, FP_REGS_HI
    lw      $k0, FP_RX_HDR0($k1)        /* 0 when nothing is held */
    HAZARD
    srl     $k0, $k0, 16
    xori    $k0, $k0, FP_IW_VERSION_TYPE
    beqz    $k0, indirect_write
    sw      $t0, -4($sp)                /* both paths borrow $t0 */
    xori    $k0, $k0, FP_IW_VERSION_TYPE ^ FP_MSG_VERSION_TYPE
    bnez    $k0, 9f
    sw      $t1, -8($sp)

/* ---- Message: a middle packet ------------------------------------------ */
    lw      $k0, FP_RX_XOFF($k1)
    HAZARD
    beqz    $k0, exc_entry              /* a first packet: C places it at once */
    sw      $t2, -12($sp)               /* ($t0-$t3 are untouched so far) */
    sw      $t3, -16($sp)
    lw      $k0, FP_RX_HDR0($k1)
    lui     $t3, %hi(message_fast_senders)  /* in the load delay (R3000) */
    andi    $t0, $k0, FP_MSG_FLAGS_MASK
    xori    $t0, $t0, FP_MSG_FLAGS_WANT
    bnez    $t0, 8f                     /* OTF, VA or no ACK: C refuses */
    lw      $k0, FP_RX_HDR1($k1)
    lw      $t3, %lo(message_fast_senders)($t3) /* 64 if one port, else 0 */
    srl     $t1, $k0, 16                /* src */
    srl     $k0, $k0, 8
    andi    $k0, $k0, 0xff
    xori    $k0, $k0, 0xff
    beqz    $k0, 8f                     /* dst >= 0xff00: a group */
    sltu    $t0, $t1, $t3
    beqz    $t0, 8f                     /* not a sender, or K > 1: C */
    lui     $t2, FP_LLCM_HOST_ORDER_HI
    lw      $k0, FP_MSG_CTRL_ENABLE($t2)
    lui     $t0, FP_MSG_ENABLE_HI
    ori     $t0, $t0, FP_MSG_ENABLE_LO
    bne     $k0, $t0, 8f                /* not enabled: C refuses */
    sll     $t0, $t1, FP_MSG_SLOT_SHIFT
    addu    $t2, $t2, $t0               /* $t2: the sender's slot - SLOTS */
    lw      $k0, FP_MSG_SLOTS + FP_MSG_SLOT_GENS($t2)
    sll     $t1, $t1, FP_SENDER_SHIFT
    andi    $k0, $k0, 0xffff            /* setup_gen */
    beqz    $k0, 8f
    lui     $t0, %hi(message_senders)
    addiu   $t0, $t0, %lo(message_senders)
    addu    $t0, $t0, $t1               /* $t0: &message_senders[src] */
    lhu     $t1, FP_S_SETUP_GEN($t0)
    HAZARD
    bne     $k0, $t1, 8f                /* a new setup: C adopts it */
    lw      $k0, FP_RX_HDR2($k1)
    lhu     $t1, FP_S_NEXT_SEQ($t0)
    HAZARD
    xor     $t1, $t1, $k0
    andi    $t1, $t1, 0xffff
    bnez    $t1, 8f                     /* not the next f_seq: C */
    lbu     $t1, FP_S_ACTIVE($t0)
    HAZARD
    beqz    $t1, 8f                     /* a first packet: C places it */
    lw      $k0, FP_RX_RADDR_LO($k1)    /* incarnation << 24 | length */
    lw      $t1, FP_S_ENV($t0)
    HAZARD
    bne     $k0, $t1, 8f                /* another message or conversation: C */
    lw      $t3, FP_RX_RADDR_HI($k1)    /* its user tag */
    lw      $t1, FP_S_UTAG($t0)
    HAZARD
    bne     $t3, $t1, 8f
    lw      $t1, FP_RX_XOFF($k1)
    lw      $t3, FP_S_GOT($t0)
    HAZARD
    bne     $t1, $t3, 8f                /* not where the message stands */
    sll     $k0, $k0, 8                 /* the length alone */
    srl     $k0, $k0, 8
    subu    $k0, $k0, $t1               /* bytes left (> 0 while active) */
    lw      $t3, FP_RX_HDR2($k1)
    HAZARD
    srl     $t3, $t3, 16                /* len */
    beqz    $t3, 8f                     /* empty: C refuses it */
    sltu    $k0, $t3, $k0
    beqz    $k0, 8f                     /* the last packet (or too long): C */
    lw      $k0, FP_S_BASE($t0)
    HAZARD
    addu    $k0, $k0, $t1               /* base + xoff, as C's u32 sum */
    sw      $k0, FP_RX_RADDR_LO($k1)
    sw      $zero, FP_RX_RADDR_HI($k1)
    ori     $k0, $zero, FP_CMD_CONTINUE
    sw      $k0, FP_RX_CMD($k1)
    lw      $k0, FP_RX_CMD_RESULT($k1)
    HAZARD
    bnez    $k0, 7f                     /* refused (and NACKed): nothing moves */
    addu    $t1, $t1, $t3               /* delay: got + len */
    sw      $t1, FP_S_GOT($t0)
    lhu     $t1, FP_S_NEXT_SEQ($t0)
    lhu     $t3, FP_S_POST_TAKEN($t0)
    addiu   $t1, $t1, 1
    sh      $t1, FP_S_NEXT_SEQ($t0)
    sll     $t1, $t1, 16
    or      $t3, $t3, $t1
    sw      $t3, FP_MSG_SLOTS + FP_MSG_SLOT_FW($t2)     /* publish */
    FWSTAT_INC FP_MSG_PACKETS_STAT, $t1
7:  FWSTAT_INC 0, $t1                   /* DISPATCHED */
    lw      $t3, -16($sp)
    lw      $t2, -12($sp)
    lw      $t1, -8($sp)
    lw      $t0, -4($sp)
    EXC_RETURN

/* ---- Remote indirect write --------------------------------------------- */
indirect_write:
    lw      $k0, FP_RX_RADDR_HI($k1)    /* the pointer slot: in LLCM? */
    HAZARD
    xori    $k0, $k0, FP_RADDR_LLCM_HI
    bnez    $k0, 9f
    lw      $k0, FP_RX_RADDR_LO($k1)
    HAZARD
    srl     $t0, $k0, FP_LLCM_SIZE_SHIFT
    bnez    $t0, 9f                     /* past LLCM */
    andi    $t0, $k0, 7
    bnez    $t0, 9f                     /* not 8-aligned */
    lui     $t0, FP_LLCM_HOST_ORDER_HI
    addu    $k0, $t0, $k0
    lw      $t0, 4($k0)                 /* pointer, high word */
    HAZARD
    bnez    $t0, 9f                     /* at or past 4 GiB: C decides */
    lw      $k0, 0($k0)                 /* pointer, low word */
    lw      $t0, FP_RX_XOFF($k1)
    HAZARD
    addu    $k0, $k0, $t0
    sltu    $t0, $k0, $t0
    bnez    $t0, 9f                     /* carried past 4 GiB: C decides */
    ori     $t0, $zero, FP_CMD_CONTINUE
    sw      $k0, FP_RX_RADDR_LO($k1)
    sw      $zero, FP_RX_RADDR_HI($k1)
    sw      $t0, FP_RX_CMD($k1)         /* the hardware range-checks it */
    FWSTAT_INC 0, $k1                   /* DISPATCHED */
    lw      $t0, -4($sp)
    EXC_RETURN

/* ---- Not ours: the C path, registers as they were ---------------------- */
8:  lw      $t3, -16($sp)
    lw      $t2, -12($sp)
    lw      $t1, -8($sp)
9:  lw      $t0, -4($sp)
    j       exc_entry
    nop
    .size   cpu_exc_fast, . - cpu_exc_fast
