/*
 * Save and restore of the caller-saved registers around the C exception
 * handler, shared by the CPU ports' vector pages (offsets: hal/cpu_frame.h).
 * Interrupted code's stack; the ports differ only in how they return.
 */
#include "hal/cpu_frame.h"

    .macro SAVE_CALLER_SAVED
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
    .endm

    /* Everything but EPC, which the port's return sequence needs in $k0. */
    .macro RESTORE_CALLER_SAVED
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
    .endm
