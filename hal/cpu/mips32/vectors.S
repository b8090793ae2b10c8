/*
 * MIPS32 (4Kc) CPU port: the vector page at the start of the image, which
 * runs at 0x80000000 with Status.BEV = 0: 0x000 TLB refill, 0x180 general.
 * (The R3000 port puts general exceptions at 0x080 and leaves with rfe
 * instead of eret; nothing outside hal/cpu/ differs.)
 */
#include "../common/frame_macros.S"

    .set noreorder
    .set noat
    .section .vectors, "ax"
    .globl _vectors
_vectors:
    j       exc_entry           /* TLB refill: nothing is mapped, so fatal */
    nop

    .org    0x180
    j       cpu_exc_fast        /* exc_entry unless the image has a fast path */
    mfc0    $k0, $13            /* Cause, for it */

    /*
     * A firmware image may link a fast path for its hottest interrupt
     * (handlers/fast_path.S): it gets Cause in $k0,
     * may use $k0/$k1, and goes on to exc_entry for anything it does not
     * serve itself, with every other register as it found it.
     */
    .weak   cpu_exc_fast
    .set    cpu_exc_fast, exc_entry

    .text
    .globl  exc_entry
    .type   exc_entry, @function
exc_entry:
    /* EXL=1 keeps further interrupts out until eret. */
    SAVE_CALLER_SAVED
    mfc0    $a0, $13            /* Cause */
    jal     cpu_exception       /* (cause, frame) */
    addiu   $a1, $sp, FRAME_REGS

    lw      $k0, FRAME_EPC($sp)
    mtc0    $k0, $14
    RESTORE_CALLER_SAVED
    addiu   $sp, $sp, FRAME_SIZE
    eret
    nop
    .size   exc_entry, . - exc_entry
