/*
 * R3000 (MIPS I) CPU port: the vector page at the start of the boot flash,
 * as on the Martini chip's own core. Status.BEV stays 1: UTLB miss at 0x100,
 * general exceptions at 0x180. Leaves with jr + rfe (no eret on MIPS I).
 * Reorder mode: the assembler covers load-delay and coprocessor hazards.
 */
#include "hal/cpu_frame.h"

    .set noat
    .set noreorder
    .section .vectors, "ax"
    .globl _reset
_reset:
    j       _start
    nop

    .org    0x100
    j       exc_entry           /* UTLB miss: nothing is mapped, so fatal */
    nop

    .org    0x180
    j       exc_entry
    nop
    .set reorder

    .text
    .globl  exc_entry
    .type   exc_entry, @function
exc_entry:
    addiu   $sp, $sp, -FRAME_SIZE
    sw      $1,  FRAME_AT($sp)
    sw      $v0, FRAME_V0($sp)
    sw      $v1, FRAME_V1($sp)
    sw      $a0, FRAME_A0($sp)
    sw      $a1, FRAME_A1($sp)
    sw      $a2, FRAME_A2($sp)
    sw      $a3, FRAME_A3($sp)
    sw      $t0, FRAME_T0($sp)
    sw      $t1, FRAME_T1($sp)
    sw      $t2, FRAME_T2($sp)
    sw      $t3, FRAME_T3($sp)
    sw      $t4, FRAME_T4($sp)
    sw      $t5, FRAME_T5($sp)
    sw      $t6, FRAME_T6($sp)
    sw      $t7, FRAME_T7($sp)
    sw      $t8, FRAME_T8($sp)
    sw      $t9, FRAME_T9($sp)
    sw      $ra, FRAME_RA($sp)
    mfhi    $k0
    sw      $k0, FRAME_HI($sp)
    mflo    $k0
    sw      $k0, FRAME_LO($sp)
    mfc0    $k0, $14            /* EPC */
    sw      $k0, FRAME_EPC($sp)

    mfc0    $a0, $13            /* Cause */
    addiu   $a1, $sp, FRAME_REGS
    jal     cpu_exception       /* (cause, frame) */

    lw      $k0, FRAME_HI($sp)
    mthi    $k0
    lw      $k0, FRAME_LO($sp)
    mtlo    $k0
    lw      $1,  FRAME_AT($sp)
    lw      $v0, FRAME_V0($sp)
    lw      $v1, FRAME_V1($sp)
    lw      $a0, FRAME_A0($sp)
    lw      $a1, FRAME_A1($sp)
    lw      $a2, FRAME_A2($sp)
    lw      $a3, FRAME_A3($sp)
    lw      $t0, FRAME_T0($sp)
    lw      $t1, FRAME_T1($sp)
    lw      $t2, FRAME_T2($sp)
    lw      $t3, FRAME_T3($sp)
    lw      $t4, FRAME_T4($sp)
    lw      $t5, FRAME_T5($sp)
    lw      $t6, FRAME_T6($sp)
    lw      $t7, FRAME_T7($sp)
    lw      $t8, FRAME_T8($sp)
    lw      $t9, FRAME_T9($sp)
    lw      $ra, FRAME_RA($sp)
    lw      $k0, FRAME_EPC($sp)
    addiu   $sp, $sp, FRAME_SIZE
    .set noreorder
    jr      $k0
    rfe                         /* pop the interrupt-enable stack */
    .set reorder
    .size   exc_entry, . - exc_entry
