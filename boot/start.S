/*
 * Firmware entry (the image header's entry point): the boot loader or the
 * board has copied the whole image, .data included, to local memory; clear
 * .bss, set sp and gp, and go to main().
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
