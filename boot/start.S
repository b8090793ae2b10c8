/*
 * Boot: from the reset vector (hal/cpu/<port>/vectors.S) to main().
 * Runs from boot flash; copies .data to SRAM, clears .bss, sets sp and gp.
 * Written in reorder mode so the assembler fills delay slots and, for the
 * R3000 (MIPS I), load-delay hazards.
 */
    .set reorder
    .text
    .globl  _start
    .type   _start, @function
_start:
    la      $sp, _stack_top
    la      $gp, _gp
    jal     cpu_early_init

    /* .data: from its load address in flash to SRAM. */
    la      $t0, _data_load
    la      $t1, _data_start
    la      $t2, _data_end
1:  beq     $t1, $t2, 2f
    lw      $t3, 0($t0)
    sw      $t3, 0($t1)
    addiu   $t0, $t0, 4
    addiu   $t1, $t1, 4
    b       1b
2:
    /* .bss: zero. */
    la      $t1, _bss_start
    la      $t2, _bss_end
3:  beq     $t1, $t2, 4f
    sw      $zero, 0($t1)
    addiu   $t1, $t1, 4
    b       3b
4:
    jal     main
    /* main() does not return; if it does, stop here. */
5:  b       5b
    .size   _start, . - _start
