/*
 * R3000 (MIPS I) CPU port: the vector page at the start of the image, which
 * runs at 0x80000000 with Status.BEV = 0, as on the Martini chip's own core:
 * UTLB miss at 0x000, general exceptions at 0x080. Leaves with jr + rfe (no eret on MIPS I).
 * Reorder mode: the assembler covers load-delay and coprocessor hazards.
 */
#include "../common/frame_macros.S"

    .set noat
    .set noreorder
    .section .vectors, "ax"
    .globl _vectors
_vectors:
    j       exc_entry           /* UTLB miss: nothing is mapped, so fatal */
    nop

    .org    0x080
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
    .set reorder

    .text
    .globl  exc_entry
    .type   exc_entry, @function
exc_entry:
    SAVE_CALLER_SAVED
    mfc0    $a0, $13            /* Cause */
    addiu   $a1, $sp, FRAME_REGS
    jal     cpu_exception       /* (cause, frame) */

    RESTORE_CALLER_SAVED
    lw      $k0, FRAME_EPC($sp)
    addiu   $sp, $sp, FRAME_SIZE
    .set noreorder
    jr      $k0
    rfe                         /* pop the interrupt-enable stack */
    .set reorder
    .size   exc_entry, . - exc_entry
