/* Console UART: polled output on the board's 16550. */
#include "hal/uart.h"
#include "hal/mmio.h"
#include "dimmnet1/memmap.h"

#define UART_THR  0  /* transmit holding */
#define UART_IER  1
#define UART_FCR  2
#define UART_LCR  3
#define UART_LSR  5
#define LSR_THRE  0x20
#define LCR_8N1   0x03

void uart_init(void)
{
    mmio_write8(DN1_UART_BASE + UART_IER, 0);       /* polled: no interrupts */
    mmio_write8(DN1_UART_BASE + UART_LCR, LCR_8N1);
    mmio_write8(DN1_UART_BASE + UART_FCR, 0x07);    /* FIFOs on and cleared */
}

static void uart_putc(char c)
{
    while (!(mmio_read8(DN1_UART_BASE + UART_LSR) & LSR_THRE)) {
    }
    mmio_write8(DN1_UART_BASE + UART_THR, (uint8_t)c);
}

void uart_write(const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            uart_putc('\r');
        }
        uart_putc(buf[i]);
    }
}
