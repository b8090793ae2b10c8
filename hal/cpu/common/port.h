/* What each CPU port provides to the shared exception code. */
#ifndef HAL_CPU_PORT_H
#define HAL_CPU_PORT_H

#include <stdint.h>

uint32_t cpu_port_read_status(void);
uint32_t cpu_port_read_badvaddr(void);

#endif
