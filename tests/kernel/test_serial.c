/* tests/kernel/test_serial.c - COM1 input: the receive interrupt and the
 * BH work item that delivers the bytes.
 *
 * serial (in test=all): the wiring, IRQ 4 routed to the boot CPU's vector
 * and the UART's receive interrupt on.
 *
 * serial_rx (explicit): the real path, from the host. The case sets a
 * consumer, prints "# serial_rx: ready for N bytes" and waits (at most
 * ktest_serial_rx_wait_s, 60 s) for the harness (tests/harness/run_tests.py,
 * Boot send_on=) to type N bytes of rx_test_byte() on the serial port. The
 * consumer is held (uart_rx_hold(): the rx item disabled) until the ring is
 * full and receive throttled, so the bytes must survive a consumer far
 * behind the sender: they wait in the UART and in QEMU, none is lost. QEMU's stdio
 * chardev passes every byte value unchanged when its stdin is a pipe, so
 * the pattern covers all 256 of them. Keep rx_test_byte() in step with
 * serial_rx_pattern() in tests/harness/run_tests.py.
 */
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/ioapic.h"
#include "drivers/uart16550.h"
#include "kernel/completion.h"
#include "kernel/cpu_local.h"
#include "kernel/params.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/time.h"
#include "kernel/tools/ktest.h"
#include "kernel/workqueue.h"

#define RX_TEST_BYTES	    4096
#define UART_IER	    1
#define UART_IER_RDI	    0x01
#define IOAPIC_REDIR_MASKED (1ull << 16)

/* How long the case waits for the host's bytes: 60 s by default (a loaded
 * host can be slow to send them); the harness's silence test, which sends
 * none, needs only to see it give up. */
static unsigned int rx_wait_s = 60;
PARAM_UINT(ktest_serial_rx_wait_s, rx_wait_s, 1, 3600,
	   "serial_rx test: seconds to wait for the host's bytes before failing");

/* Byte i of the pattern. Each 256-byte block is a different permutation
 * of all byte values, so a lost, repeated or shifted block shows too. */
static u8 rx_test_byte(u32 i)
{
	return (u8)((i * 7) ^ ((i >> 8) * 0x35));
}

static void rx_is_wired(struct ktest *t)
{
	struct uart_rx_stats st;
	u64 entry;

	uart_rx_get_stats(&st);
	if (!st.enabled) {
		ktest_skip(t, "no COM1 input");
		return;
	}
	KT_ASSERT_TRUE(t, ioapic_read_route(COM1_ISA_IRQ, &entry) == 0);
	KT_EXPECT_EQ(t, entry & 0xFF, ISA_IRQ_VECTOR(COM1_ISA_IRQ));
	KT_EXPECT_FALSE(t, entry & IOAPIC_REDIR_MASKED);
	KT_EXPECT_EQ(t, entry >> 56, boot_percpu.apic_id);
	KT_EXPECT_TRUE(t, inb(COM1_PORT + UART_IER) & UART_IER_RDI);
}

KTEST_SUITE(serial, KTEST_CASE(rx_is_wired));

/* What the consumer saw. Only the consumer writes these, and the rx work
 * item calls it one chunk at a time; the case reads them after done. */
static struct {
	u32 received; /* pattern bytes so far */
	u32 extra;    /* bytes beyond RX_TEST_BYTES */
	bool mismatch;
	u32 mismatch_at;
	u8 mismatch_got;
	u32 calls, calls_outside_work, calls_outside_bh;
	struct completion done; /* all bytes in, or the first wrong one */
} rxt;

static void rx_test_consumer(const u8 *buf, size_t n)
{
	rxt.calls++;
	if (!current_work())
		rxt.calls_outside_work++;
	if (!in_bh_run())
		rxt.calls_outside_bh++;
	for (size_t i = 0; i < n; i++) {
		if (rxt.received >= RX_TEST_BYTES) {
			rxt.extra++;
			continue;
		}
		if (!rxt.mismatch && buf[i] != rx_test_byte(rxt.received)) {
			rxt.mismatch = true;
			rxt.mismatch_at = rxt.received;
			rxt.mismatch_got = buf[i];
			complete(&rxt.done);
		}
		if (++rxt.received == RX_TEST_BYTES)
			complete(&rxt.done);
	}
}

static void host_bytes_arrive_in_order(struct ktest *t)
{
	struct uart_rx_stats before, after;

	uart_rx_get_stats(&before);
	if (!before.enabled) {
		ktest_skip(t, "no COM1 input");
		return;
	}
	rxt.received = rxt.extra = rxt.calls = rxt.calls_outside_work = rxt.calls_outside_bh = 0;
	rxt.mismatch = false;
	init_completion(&rxt.done);
	uart_rx_handler_t previous = uart_get_rx_handler();

	uart_set_rx_handler(rx_test_consumer);
	uart_rx_hold();
	uart_rx_get_stats(&before); /* from here, every byte is the host's */
	printk(KERN_RAW "    # serial_rx: ready for %u bytes\n", RX_TEST_BYTES);

	/* The consumer is held while the host's bytes fill the ring: wait
	 * (polling the counters) until the handler has throttled receive,
	 * then let the consumer go. */
	u64 deadline = ktime_get_ns() + (u64)rx_wait_s * NSEC_PER_SEC;
	bool throttled = false;

	for (;;) {
		uart_rx_get_stats(&after);
		if (after.throttles > before.throttles) {
			throttled = true;
			break;
		}
		if (ktime_get_ns() >= deadline)
			break;
		msleep(1);
	}
	uart_rx_release();
	u64 left = 0;

	if (throttled) {
		u64 now = ktime_get_ns();

		left = wait_for_completion_timeout(&rxt.done, deadline > now ? deadline - now : 1);
	}
	/* Anything after the pattern would be a duplicate: give it time to show. */
	msleep(200);
	uart_set_rx_handler(previous); /* also waits for the consumer to finish */
	uart_rx_get_stats(&after);

	if (!left)
		ktest_fail(t, __FILE__, __LINE__, "timeout after %u s: %u of %u bytes arrived (%s)",
			   rx_wait_s, rxt.received, RX_TEST_BYTES,
			   throttled ? "after the gate opened" : "the ring never filled");
	if (rxt.mismatch)
		ktest_fail(t, __FILE__, __LINE__,
			   "byte %u is 0x%02x, expected 0x%02x (lost or garbled)", rxt.mismatch_at,
			   rxt.mismatch_got, rx_test_byte(rxt.mismatch_at));
	if (left && !rxt.mismatch) {
		/* Exactly the pattern: nothing lost, nothing twice. */
		KT_EXPECT_EQ(t, rxt.received, RX_TEST_BYTES);
		KT_EXPECT_EQ(t, rxt.extra, 0);
		KT_EXPECT_EQ(t, after.bytes - before.bytes, RX_TEST_BYTES);
		KT_EXPECT_EQ(t, after.delivered - before.delivered, RX_TEST_BYTES);
	}
	KT_EXPECT_TRUE(t, rxt.calls > 0);
	KT_EXPECT_EQ(t, rxt.calls_outside_work, 0); /* always in the rx item */
	KT_EXPECT_EQ(t, rxt.calls_outside_bh, 0);   /* ... in BH context */
	KT_EXPECT_TRUE(t, after.interrupts > before.interrupts);
	KT_EXPECT_FALSE(t, after.throttled); /* the ring drained: receive is on again */
	KT_EXPECT_TRUE(t, inb(COM1_PORT + UART_IER) & UART_IER_RDI);
	KT_EXPECT_EQ(t, after.hw_overruns - before.hw_overruns, 0);
	printk(KERN_RAW "    # serial_rx: %u bytes in %u consumer calls; %lu interrupts, %lu work "
			"runs, receive throttled %lu times, %lu UART overruns\n",
	       rxt.received, rxt.calls, (unsigned long)(after.interrupts - before.interrupts),
	       (unsigned long)(after.work_runs - before.work_runs),
	       (unsigned long)(after.throttles - before.throttles),
	       (unsigned long)(after.hw_overruns - before.hw_overruns));
}

KTEST_SUITE_EXPLICIT(serial_rx, KTEST_CASE(host_bytes_arrive_in_order));
