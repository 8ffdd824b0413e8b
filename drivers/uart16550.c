/* drivers/uart16550.c - COM1 console and input; see uart16550.h.
 * Register map: PC16550D data sheet, section 8. */
#define pr_fmt(fmt) "uart: " fmt
#include "drivers/uart16550.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/traps.h"
#include "kernel/cpu_local.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/workqueue.h"
#include "lib/printf.h"

#define UART_RBR	      0 /* receive buffer (DLAB=0, read) */
#define UART_THR	      0 /* transmit holding (DLAB=0, write) */
#define UART_DLL	      0 /* divisor latch low (DLAB=1) */
#define UART_IER	      1
#define UART_DLM	      1
#define UART_FCR	      2
#define UART_LCR	      3
#define UART_MCR	      4
#define UART_LSR	      5
#define UART_SCR	      7
#define UART_IER_RDI	      0x01 /* interrupt when received data is available */
#define UART_LSR_DR	      0x01 /* data ready: RBR (the FIFO) holds a byte */
#define UART_LSR_OE	      0x02 /* overrun: a byte was lost; cleared by reading LSR */
#define UART_LSR_THRE	      0x20 /* THR empty: room for a byte */
#define UART_LCR_DLAB	      0x80
#define UART_LCR_8N1	      0x03
#define UART_FCR_ENABLE_CLEAR 0x07 /* enable FIFOs, clear both */
#define UART_MCR_DTR_RTS_OUT2 0x0B /* OUT2 gates the IRQ line on PCs */

#define UART_CLOCK_DIVISOR 1	  /* 115200 = 1843200 / (16 * 1) */
#define THRE_SPIN_LIMIT	   100000 /* polls before the clock runs */
#define TX_POLL_US	   2
/* The other end may stop reading for a while (QEMU's chardev blocks while
 * the host does not read its end: a loaded host, a paused terminal). Wait
 * that long for room, then call it stalled: drop bytes, counted, without
 * waiting again, until the transmitter takes bytes again. */
#define TX_STALL_NS (5 * NSEC_PER_SEC)

static bool uart_present;
/* Console output runs under the console lock, so one CPU at a time: */
static bool tx_stalled; /* the other end stopped reading */
static u64 tx_dropped;	/* bytes dropped since (reported when it reads again) */

/* Is there room for a byte? Waits up to TX_STALL_NS (THRE_SPIN_LIMIT polls
 * before the clock runs); not at all while stalled. Writing THR without
 * room would overwrite what waits there: a byte lost without a trace.
 * The polls are spaced TX_POLL_US apart: under QEMU each is a trip into
 * its device model under its big lock, which its main loop needs in order
 * to pass the bytes on; polled back to back, that loop can starve, and
 * room never comes. */
static bool tx_room(void)
{
	u64 start = ktime_get_ns();

	for (unsigned int i = 1;; i++) {
		if (inb(COM1_PORT + UART_LSR) & UART_LSR_THRE)
			return true;
		if (tx_stalled)
			return false;
		if (!start) {
			if (i >= THRE_SPIN_LIMIT)
				return false; /* no clock yet, or no UART behind the port */
			cpu_relax();
			continue;
		}
		udelay(TX_POLL_US);
		if (ktime_get_ns() - start > TX_STALL_NS)
			return false;
	}
}

static void tx_byte(char c)
{
	if (!tx_room()) {
		tx_stalled = true;
		tx_dropped++;
		return;
	}
	outb(COM1_PORT + UART_THR, (u8)c);
}

void uart_putc(char c)
{
	if (!uart_present)
		return;
	if (tx_stalled && (inb(COM1_PORT + UART_LSR) & UART_LSR_THRE)) {
		/* Read again: say what the reader missed, where it missed it. */
		char note[96];
		int n = scnprintf(note, sizeof(note),
				  "\r\n[uart: %lu bytes of output dropped: the other end stopped "
				  "reading]\r\n",
				  (unsigned long)tx_dropped);

		tx_stalled = false;
		tx_dropped = 0;
		for (int i = 0; i < n; i++)
			tx_byte(note[i]);
	}
	tx_byte(c);
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

/*
 * Receive. The interrupt handler moves bytes from the UART into rx_ring;
 * the rx work item, a BH item (system_bh_highpri_wq), moves them from
 * rx_ring to the consumer, at the exit of that same interrupt on the same
 * CPU: no thread is woken for a keystroke. The consumer therefore runs in
 * BH context and must not sleep (the shell's line editing echoes and
 * queues the command line to its own workqueue). uart_rx_hold() keeps it
 * from running (disable_work_sync()), uart_rx_release() lets it go again
 * with what came meanwhile. uart_rx_bh=0 (or uart_rx_set_bh(false)) makes
 * it a thread item of system_highpri_wq instead, as it was before BH
 * workqueues: the benchmarks and lab 10 compare the two.
 *
 * Field legend: U = rx_lock (irq-safe: the interrupt handler takes it);
 * I = set once by uart_rx_init(), then read-only.
 */
#define RX_RING_SIZE 1024 /* bytes; a power of two */
#define RX_CHUNK     256  /* bytes handed to the consumer per call, at most */
/* Bytes one run of the rx item hands on at most before it queues itself
 * again: a host that keeps the ring full gets the rest through the BH
 * budget (a later run, or the continuation thread), not one endless item. */
#define RX_RUN_MAX RX_RING_SIZE
/* Bytes one interrupt reads at most: four FIFOs' worth. A host that keeps
 * the FIFO full must not keep this CPU in the handler for ever. */
#define RX_BURST_MAX 64

static DEFINE_SPINLOCK(rx_lock);
static u8 rx_ring[RX_RING_SIZE];      /* U: bytes rx_head..rx_tail-1 (mod size) */
static u32 rx_head, rx_tail;	      /* U: free-running; tail - head = bytes held */
static uart_rx_handler_t rx_handler;  /* U: the consumer, or NULL */
static struct uart_rx_stats rx_stats; /* U; .throttled: receive masked (IER 0) */
static struct work_struct rx_work;    /* I: INIT_WORK; the workqueue owns it after: a BH item */
static bool rx_bh = true;	      /* the command line's choice (uart_rx_bh=) */
/* Where rx_work goes: changed only with rx_work disabled
 * (uart_rx_set_bh()); queuers read it with READ_ONCE. */
static struct workqueue_struct *rx_wq;
PARAM_BOOL(uart_rx_bh, rx_bh,
	   "COM1 receive's bottom half: 1 a BH item (at the interrupt's exit, the default), 0 a "
	   "worker thread's item (system_highpri_wq)");
static bool rx_enabled; /* I */

/* Receive paused: the ring is full. Masking the receive interrupt drops
 * the UART's interrupt line; unmasking raises it again if data waits (a
 * new edge for the edge-triggered I/O APIC pin). Needs rx_lock. */
static void rx_throttle(void)
{
	assert_spin_locked(&rx_lock);
	rx_stats.throttled = true;
	rx_stats.throttles++;
	outb(COM1_PORT + UART_IER, 0);
}

static void rx_unthrottle(void)
{
	assert_spin_locked(&rx_lock);
	rx_stats.throttled = false;
	outb(COM1_PORT + UART_IER, UART_IER_RDI);
}

/* IRQ 4. Short: move the UART's FIFO into the ring, count, queue the work.
 * LSR is read before each byte: reading it reports (and clears) an overrun.
 * uart_putc() reads LSR as well, so an overrun it happens to read first is
 * not counted: hw_overruns is a lower bound. A byte is read only when the
 * ring has room for it: when it has none, receive is throttled and the
 * byte stays in the FIFO. */
static void uart_rx_interrupt(struct pt_regs *regs)
{
	unsigned long flags = spin_lock_irqsave(&rx_lock);
	bool stored = false;
	u8 lsr = 0;

	rx_stats.interrupts++;
	for (int i = 0; i < RX_BURST_MAX; i++) {
		lsr = inb(COM1_PORT + UART_LSR);
		if (lsr & UART_LSR_OE)
			rx_stats.hw_overruns++;
		if (!(lsr & UART_LSR_DR))
			break;
		if (rx_tail - rx_head == RX_RING_SIZE) {
			/* The consumer is behind. The work item is queued (or
			 * running and about to look again): whoever filled the
			 * ring queued it, and it unthrottles. */
			if (!rx_stats.throttled)
				rx_throttle();
			break;
		}
		rx_ring[rx_tail++ % RX_RING_SIZE] = inb(COM1_PORT + UART_RBR);
		rx_stats.bytes++;
		stored = true;
	}
	if ((lsr & UART_LSR_DR) && !rx_stats.throttled) {
		/* Stopped at the burst limit with bytes still in the FIFO. The
		 * IRQ is edge-triggered and the UART keeps its line high while
		 * data waits, so there would be no new edge and receive would
		 * stall: drop the line and raise it again, for another
		 * interrupt once this one returns. */
		outb(COM1_PORT + UART_IER, 0);
		outb(COM1_PORT + UART_IER, UART_IER_RDI);
	}
	spin_unlock_irqrestore(&rx_lock, flags);
	/* False if already pending, or held (uart_rx_hold()): fine either way. */
	if (stored)
		queue_work(READ_ONCE(rx_wq), &rx_work);
}

void uart_rx_inject(const u8 *buf, size_t n)
{
	if (!rx_enabled)
		return;
	unsigned long flags = spin_lock_irqsave(&rx_lock);
	size_t i;

	for (i = 0; i < n && rx_tail - rx_head < RX_RING_SIZE; i++)
		rx_ring[rx_tail++ % RX_RING_SIZE] = buf[i];
	rx_stats.bytes += i;
	spin_unlock_irqrestore(&rx_lock, flags);
	if (i)
		queue_work(READ_ONCE(rx_wq), &rx_work);
}

/* The rx work item: a BH item, so the consumer must not sleep. The
 * workqueue never runs one item twice at once, so the consumer is called
 * one chunk at a time, in order. */
static void uart_rx_work(struct work_struct *w)
{
	u8 chunk[RX_CHUNK];

	for (size_t done = 0;; done += RX_CHUNK) {
		if (done >= RX_RUN_MAX) {
			queue_work(READ_ONCE(rx_wq), w); /* the rest in a later run */
			return;
		}
		unsigned long flags = spin_lock_irqsave(&rx_lock);
		size_t n = 0;

		while (n < RX_CHUNK && rx_head != rx_tail)
			chunk[n++] = rx_ring[rx_head++ % RX_RING_SIZE];
		/* Half the ring free again: receive on (the FIFO's bytes raise
		 * the interrupt at once; it waits for this lock). */
		if (rx_stats.throttled && rx_tail - rx_head <= RX_RING_SIZE / 2)
			rx_unthrottle();
		uart_rx_handler_t fn = rx_handler;

		if (n == 0)
			rx_stats.work_runs++; /* the last pass of every run */
		else if (fn)
			rx_stats.delivered += n;
		else
			rx_stats.unclaimed += n;
		spin_unlock_irqrestore(&rx_lock, flags);
		if (n == 0)
			return;
		if (fn)
			fn(chunk, n);
	}
}

void uart_rx_init(void)
{
	int err;

	if (!uart_present)
		return;
	INIT_WORK(&rx_work, uart_rx_work);
	rx_wq = rx_bh ? system_bh_highpri_wq : system_highpri_wq;
	err = irq_register_vector(ISA_IRQ_VECTOR(COM1_ISA_IRQ), uart_rx_interrupt);
	if (err) {
		/* The vectors are assigned in the source: a clash is a kernel bug. */
		report_bug("uart", "COM1 input off: vector %#x is taken (%d)",
			   ISA_IRQ_VECTOR(COM1_ISA_IRQ), err);
		return;
	}
	/* To the boot CPU: it takes the interrupt and, since queue_work()
	 * queues on the CPU it is called on, runs the work item too. */
	err = ioapic_route_isa_irq(COM1_ISA_IRQ, boot_percpu.apic_id);
	if (err) {
		pr_err("COM1 input off: cannot route IRQ %d (%d)\n", COM1_ISA_IRQ, err);
		return;
	}
	rx_enabled = true;
	/* Unmasked first, the UART second: bytes that came during the boot
	 * raise the line the moment IER allows it, and that edge must not
	 * meet a masked I/O APIC pin. MCR.OUT2 (set at early init too)
	 * connects the UART's interrupt line on PCs. */
	outb(COM1_PORT + UART_MCR, UART_MCR_DTR_RTS_OUT2);
	outb(COM1_PORT + UART_IER, UART_IER_RDI);
	pr_info("COM1 input on IRQ %d (GSI %u), vector %#x, cpu0\n", COM1_ISA_IRQ,
		ioapic_isa_irq_gsi(COM1_ISA_IRQ), ISA_IRQ_VECTOR(COM1_ISA_IRQ));
}

void uart_set_rx_handler(uart_rx_handler_t fn)
{
	unsigned long flags = spin_lock_irqsave(&rx_lock);

	rx_handler = fn;
	spin_unlock_irqrestore(&rx_lock, flags);
	/* The work item may be calling the old consumer with bytes it took
	 * before the change: wait for it. */
	if (rx_enabled)
		flush_work(&rx_work);
}

void uart_rx_hold(void)
{
	might_sleep();
	if (rx_enabled)
		disable_work_sync(&rx_work);
}

void uart_rx_release(void)
{
	if (rx_enabled)
		enable_and_queue_work(READ_ONCE(rx_wq), &rx_work);
}

bool uart_rx_is_bh(void)
{
	return READ_ONCE(rx_wq) == system_bh_highpri_wq;
}

bool uart_rx_set_bh(bool bh)
{
	bool was = READ_ONCE(rx_wq) == system_bh_highpri_wq;

	might_sleep();
	if (!rx_enabled)
		return was;
	uart_rx_hold();
	WRITE_ONCE(rx_wq, bh ? system_bh_highpri_wq : system_highpri_wq);
	uart_rx_release();
	return was;
}

uart_rx_handler_t uart_get_rx_handler(void)
{
	unsigned long flags = spin_lock_irqsave(&rx_lock);
	uart_rx_handler_t fn = rx_handler;

	spin_unlock_irqrestore(&rx_lock, flags);
	return fn;
}

void uart_rx_get_stats(struct uart_rx_stats *st)
{
	unsigned long flags = spin_lock_irqsave(&rx_lock);

	*st = rx_stats;
	st->enabled = rx_enabled;
	spin_unlock_irqrestore(&rx_lock, flags);
}
