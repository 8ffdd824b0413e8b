/* drivers/uart16550.h - the 16550 UART on COM1, the kernel console and its
 * input.
 *
 * Output: uart_early_init() programs COM1 for 115200 baud, 8N1, FIFOs on,
 * and registers it as a console; output is polled (it works with
 * interrupts off and before any allocator).
 *
 * Input: uart_rx_init() turns on the receive interrupt (ISA IRQ 4, routed
 * to the boot CPU). Receive is split in two halves:
 *
 *   interrupt handler (IRQ 4, interrupts off)
 *     reads the bytes the UART holds into a fixed ring (rx_lock), counts
 *     them, and queue_work(system_highpri_wq, rx work)
 *   rx work item (a workqueue worker: process context)
 *     drains the ring and hands the bytes to the consumer set with
 *     uart_set_rx_handler()
 *
 * Why a work item: the consumer (the shell) parses lines, prints, takes
 * mutexes and may sleep, none of which an interrupt handler may do, and
 * the handler must be short so that it does not hold interrupts off on
 * the boot CPU. The workqueue is baton's only deferred-work mechanism
 * (there are no tasklets, softirqs or private driver threads), and the
 * high-priority pool runs the item soon after the interrupt, on the same
 * CPU. An interrupt that arrives while the item is queued does not queue
 * it again (queue_work() returns false); one that arrives while it runs
 * queues it once more, so no byte is left in the ring.
 *
 * Flow control: if the consumer is slower than the sender, the ring
 * fills. The handler then stops reading and masks the UART's receive
 * interrupt (input is throttled, as Linux's 8250 driver stops receive
 * when its tty throttles), and the work item unmasks it once it has
 * emptied half the ring. Meanwhile the bytes wait in the UART's FIFO and
 * behind it: QEMU takes no byte from its character device while the FIFO
 * is full, so a host that types or pastes faster than the shell reads
 * waits, and nothing is lost (a flood of a megabyte arrives whole, in
 * order). A real line without hardware flow control would overrun the
 * 16-byte FIFO instead, as it would if the interrupt came too late: the
 * UART reports that (hw_overruns, from the line status register's
 * overrun bit) and the bytes are gone.
 *
 * Interface:
 *   uart_early_init()           boot, before printk
 *   uart_putc(c)                polled output, any context
 *   uart_rx_init()              boot, after workqueue_init(), on the
 *                               boot CPU; does nothing without a UART
 *   uart_set_rx_handler(fn)     the one consumer (NULL: bytes are counted
 *                               and dropped); fn runs in a workqueue
 *                               worker, one call at a time, bytes in
 *                               order. May sleep: once it returns, the
 *                               previous consumer is not running and will
 *                               not be called. Not from the consumer.
 *   uart_get_rx_handler()       the consumer now set
 *   uart_rx_get_stats(&st)      a consistent snapshot of the counters
 */
#ifndef DRIVERS_UART16550_H
#define DRIVERS_UART16550_H

#include "lib/types.h"

#define COM1_PORT    0x3F8
#define COM1_ISA_IRQ 4

/* The receive consumer: called in BH context (a BH work item at the exit
 * of COM1's interrupt; a worker thread with uart_rx_bh=0), one chunk at a
 * time, in order; it must not sleep. */
typedef void (*uart_rx_handler_t)(const u8 *buf, size_t n);

struct uart_rx_stats {
	bool enabled;	 /* uart_rx_init() turned receive on */
	u64 interrupts;	 /* receive interrupts taken */
	u64 bytes;	 /* bytes read from the UART */
	u64 throttles;	 /* times the ring filled and receive was paused */
	bool throttled;	 /* paused now: the ring is full, waiting for the work */
	u64 hw_overruns; /* overrun errors the UART reported (LSR.OE) */
	u64 delivered;	 /* bytes handed to a consumer */
	u64 unclaimed;	 /* bytes drained with no consumer set */
	u64 work_runs;	 /* times the rx work item (a BH item) ran */
};

void uart_early_init(void);
void uart_putc(char c);
void uart_rx_init(void);
void uart_set_rx_handler(uart_rx_handler_t fn);
uart_rx_handler_t uart_get_rx_handler(void);
/* Keep the consumer from being called (bytes wait in the ring, then in
 * the UART: receive throttles), waiting for a call under way; may sleep.
 * uart_rx_release() hands on what came meanwhile; any context. They pair
 * and nest (disable_work()/enable_and_queue_work() of the rx item). */
void uart_rx_hold(void);
void uart_rx_release(void);
/* Where the receive item runs: true a BH item (the default), false a
 * worker thread's item. Returns the old choice; may sleep. */
bool uart_rx_set_bh(bool bh);
/* The current choice (true: a BH item). */
bool uart_rx_is_bh(void);
/* Benchmarks: bytes into the ring as the interrupt handler stores them,
 * and the receive item queued on this CPU (any context). */
void uart_rx_inject(const u8 *buf, size_t n);
void uart_rx_get_stats(struct uart_rx_stats *st);

#endif
