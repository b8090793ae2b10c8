/*
 * Register frame saved on exception entry by the CPU port (hal/cpu/PORT/).
 * Offsets are shared by assembly and C.
 */
#ifndef HAL_CPU_FRAME_H
#define HAL_CPU_FRAME_H

#define FRAME_ARGS  16              /* o32: callee may spill a0-a3 here */
#define FRAME_REGS  FRAME_ARGS
#define FRAME_AT    (FRAME_REGS + 0)
#define FRAME_V0    (FRAME_REGS + 4)
#define FRAME_V1    (FRAME_REGS + 8)
#define FRAME_A0    (FRAME_REGS + 12)
#define FRAME_A1    (FRAME_REGS + 16)
#define FRAME_A2    (FRAME_REGS + 20)
#define FRAME_A3    (FRAME_REGS + 24)
#define FRAME_T0    (FRAME_REGS + 28)
#define FRAME_T1    (FRAME_REGS + 32)
#define FRAME_T2    (FRAME_REGS + 36)
#define FRAME_T3    (FRAME_REGS + 40)
#define FRAME_T4    (FRAME_REGS + 44)
#define FRAME_T5    (FRAME_REGS + 48)
#define FRAME_T6    (FRAME_REGS + 52)
#define FRAME_T7    (FRAME_REGS + 56)
#define FRAME_T8    (FRAME_REGS + 60)
#define FRAME_T9    (FRAME_REGS + 64)
#define FRAME_RA    (FRAME_REGS + 68)
#define FRAME_HI    (FRAME_REGS + 72)
#define FRAME_LO    (FRAME_REGS + 76)
#define FRAME_EPC   (FRAME_REGS + 80)
#define FRAME_SIZE  (FRAME_REGS + 88)   /* multiple of 8 */

#ifndef __ASSEMBLER__
#include <stdint.h>

struct cpu_frame {
    uint32_t at, v0, v1, a0, a1, a2, a3;
    uint32_t t0, t1, t2, t3, t4, t5, t6, t7, t8, t9;
    uint32_t ra, hi, lo, epc;
};
#endif

#endif
