/* drivers/uart16550.c - COM1 console; see uart16550.h.
 * Register map: PC16550D data sheet, section 8. */
#include "drivers/uart16550.h"
#include "arch/x86_64/cpu.h"
#include "kernel/printk.h"

#define UART_THR 0	/* transmit holding (DLAB=0) */
#define UART_DLL 0	/* divisor latch low (DLAB=1) */
#define UART_IER 1
#define UART_DLM 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_SCR 7
#define UART_LSR_THRE 0x20	/* THR empty: room for a byte */
#define UART_LCR_DLAB 0x80
#define UART_LCR_8N1 0x03
#define UART_FCR_ENABLE_CLEAR 0x07	/* enable FIFOs, clear both */
#define UART_MCR_DTR_RTS_OUT2 0x0B	/* OUT2 gates the IRQ line on PCs */

#define UART_CLOCK_DIVISOR 1	/* 115200 = 1843200 / (16 * 1) */
#define THRE_SPIN_LIMIT 100000	/* no UART: do not hang the boot */

static bool uart_present;

void uart_putc(char c)
{
	if (!uart_present)
		return;
	for (int i = 0; i < THRE_SPIN_LIMIT; i++)
		if (inb(COM1_PORT + UART_LSR) & UART_LSR_THRE)
			break;
	outb(COM1_PORT + UART_THR, (u8)c);
}

static void uart_console_write(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
	}
}

static struct console uart_console = { .name = "ttyS0", .write = uart_console_write };

void uart_early_init(void)
{
	/* The scratch register holds what we write only if a UART is there. */
	outb(COM1_PORT + UART_SCR, 0x5A);
	if (inb(COM1_PORT + UART_SCR) != 0x5A)
		return;
	outb(COM1_PORT + UART_IER, 0);
	outb(COM1_PORT + UART_LCR, UART_LCR_DLAB);
	outb(COM1_PORT + UART_DLL, UART_CLOCK_DIVISOR & 0xFF);
	outb(COM1_PORT + UART_DLM, UART_CLOCK_DIVISOR >> 8);
	outb(COM1_PORT + UART_LCR, UART_LCR_8N1);
	outb(COM1_PORT + UART_FCR, UART_FCR_ENABLE_CLEAR);
	outb(COM1_PORT + UART_MCR, UART_MCR_DTR_RTS_OUT2);
	uart_present = true;
	console_register(&uart_console);
}
