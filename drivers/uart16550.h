/* drivers/uart16550.h - the 16550 UART on COM1, the kernel console.
 *
 * uart_early_init() programs COM1 for 115200 baud, 8N1, FIFOs on, and
 * registers it as a console; output is polled (it works with interrupts
 * off and before any allocator). Receive interrupts come with the shell. */
#ifndef DRIVERS_UART16550_H
#define DRIVERS_UART16550_H

#include "lib/types.h"

#define COM1_PORT 0x3F8

void uart_early_init(void);
void uart_putc(char c);

#endif
