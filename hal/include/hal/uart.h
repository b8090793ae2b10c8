/* Console UART (16550 at DN1_UART_BASE). */
#ifndef HAL_UART_H
#define HAL_UART_H

#include <stddef.h>

void uart_init(void);
void uart_write(const char *buf, size_t n);

#endif
