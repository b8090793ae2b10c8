/*
 * Exception dispatch shared by the CPU ports: interrupts go to the board's
 * handlers line by line, anything else is fatal. The ports supply the two
 * CP0 reads (their hazards differ).
 */
#include "hal/cpu.h"
#include "hal/cpu_frame.h"
#include "hal/board_irq.h"
#include "port.h"

void cpu_exception(uint32_t cause, struct cpu_frame *frame)
{
    uint32_t exccode = (cause >> 2) & 0x1f;

    if (exccode == 0) {
        uint32_t pending = (cause & cpu_port_read_status()) >> 8 & 0xff;

        /* Lowest line first, pending lines only: eight turns a packet
         * would cost more than its dispatch. MIPS32 finds a line with
         * clz; the R3000 has none and walks up to the highest. */
#if defined(__mips_isa_rev) && __mips_isa_rev >= 1
        while (pending) {
            unsigned ip = 31u - (unsigned)__builtin_clz(pending & -pending);

            board_irq(ip);
            pending &= pending - 1u;
        }
#else
        for (unsigned ip = 0; pending; ip++, pending >>= 1) {
            if (pending & 1u) {
                board_irq(ip);
            }
        }
#endif
        return;
    }
    board_fatal(exccode, frame->epc, cpu_port_read_badvaddr());
}
