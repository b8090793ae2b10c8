/*
 * Boot: from the reset vector (hal/cpu/<port>/vectors.S) to main().
 * Runs from boot flash; copies .data to SRAM, clears .bss, sets sp and gp.
 */
    .set noreorder
    .text
    .globl  _start
    .type   _start, @function
_start:
    la      $sp, _stack_top
    la      $gp, _gp
    jal     cpu_early_init
    nop

    /* .data: from its load address in flash to SRAM. */
    la      $t0, _data_load
    la      $t1, _data_start
    la      $t2, _data_end
1:  beq     $t1, $t2, 2f
    nop
    lw      $t3, 0($t0)
    sw      $t3, 0($t1)
    addiu   $t0, $t0, 4
    b       1b
    addiu   $t1, $t1, 4
2:
    /* .bss: zero. */
    la      $t1, _bss_start
    la      $t2, _bss_end
3:  beq     $t1, $t2, 4f
    nop
    sw      $zero, 0($t1)
    b       3b
    addiu   $t1, $t1, 4
4:
    jal     main
    nop
    /* main() does not return; if it does, stop here. */
5:  b       5b
    nop
    .size   _start, . - _start
