/*
 * Boot loader entry: the reset vector at the start of the boot flash and a
 * vector page for Status.BEV = 1 that serves both CPU ports (R3000: 0x100,
 * 0x180; 4Kc: 0x200, 0x380). Any exception while loading is fatal. The
 * loader runs from flash with its stack at the top of local memory; it has
 * no .data or .bss (ld/loader.ld checks).
 */
    .set noreorder
    .set noat
    .section .vectors, "ax"
    .globl  _reset
_reset:
    j       loader_reset
    nop

    .org    0x100
    j       loader_fatal
    nop
    .org    0x180
    j       loader_fatal
    nop
    .org    0x200
    j       loader_fatal
    nop
    .org    0x380
    j       loader_fatal
    nop

    .text
    .globl  loader_reset
    .type   loader_reset, @function
loader_reset:
    lui     $t0, 0x0040             /* Status: BEV only; leaves ERL, all masked */
    mtc0    $t0, $12
    nop
    nop
    nop
    mtc0    $zero, $13
    nop
    la      $sp, _stack_top
    jal     loader_main
    nop
1:  b       1b
    nop
    .size   loader_reset, . - loader_reset
