/* kernel/tools/bench.c - measurements of the hot paths; see bench.h. */
#define pr_fmt(fmt) "bench: " fmt
#include "kernel/tools/bench.h"
#include "arch/x86_64/atomic.h"
#include "drivers/qemu_exit.h"
#include "drivers/uart16550.h"
#include "kernel/completion.h"
#include "kernel/cpu_masks.h"
#include "kernel/debug/lockdep.h"
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/mm/pmm.h"
#include "kernel/mutex.h"
#include "kernel/params.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/bench_compare.h"
#include "kernel/tools/torture.h"
#include "kernel/wait.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "lib/histogram.h"
#include "lib/printf.h"
#include "lib/string.h"

/* One run of one benchmark: fill samples[0..n) (in the benchmark's unit). */
struct bench_ctx {
	unsigned int a, b; /* the first and the last online CPU */
	unsigned int n;
	u64 *samples;
};

struct bench {
	const char *name;
	const char *what;
	const char *unit; /* "ns" or "us" */
	unsigned int dfl_n;
	bool two_cpus; /* needs a ≠ b */
	int (*run)(struct bench_ctx *c);
};

/* ---- wake-ups ------------------------------------------------------------ */

struct pingpong {
	struct completion go, done;
	u64 t0;
	struct bench_ctx *c;
};

static int wakee_fn(void *arg)
{
	struct pingpong *p = arg;

	for (unsigned int i = 0; i < p->c->n; i++) {
		wait_for_completion(&p->go);
		p->c->samples[i] = ktime_get_ns() - READ_ONCE(p->t0);
		complete(&p->done);
	}
	return 0;
}

/* The waker (this thread, moved to A) and a woken thread on cpu. */
static int bench_wake(struct bench_ctx *c, unsigned int cpu)
{
	struct pingpong p = { .c = c };
	struct thread *t;

	init_completion(&p.go);
	init_completion(&p.done);
	t = kthread_create_on_cpu(wakee_fn, &p, cpu, "bench/wakee");
	if (!t)
		return -ENOMEM;
	wake_up_thread(t);
	for (unsigned int i = 0; i < c->n; i++) {
		msleep(1); /* the woken thread is asleep, its CPU idle */
		WRITE_ONCE(p.t0, ktime_get_ns());
		complete(&p.go);
		wait_for_completion(&p.done);
	}
	kthread_stop(t);
	return 0;
}

static int bench_wake_same(struct bench_ctx *c)
{
	return bench_wake(c, c->a);
}
static int bench_wake_cross(struct bench_ctx *c)
{
	return bench_wake(c, c->b);
}

/* ---- queueing ------------------------------------------------------------ */

struct qitem {
	struct work_struct work;
	struct completion started;
	u64 t0, latency;
};

static void qitem_fn(struct work_struct *w)
{
	struct qitem *q = container_of(w, struct qitem, work);

	q->latency = ktime_get_ns() - READ_ONCE(q->t0);
	complete(&q->started);
}

/* Queue to cpu (or unbound if cpu == NR_CPUS) from A. */
static int bench_queue(struct bench_ctx *c, unsigned int cpu)
{
	struct qitem q;

	INIT_WORK(&q.work, qitem_fn);
	init_completion(&q.started);
	for (unsigned int i = 0; i < c->n; i++) {
		msleep(1); /* the worker is idle again, asleep */
		reinit_completion(&q.started);
		WRITE_ONCE(q.t0, ktime_get_ns());
		if (cpu == NR_CPUS)
			queue_work(system_unbound_wq, &q.work);
		else
			queue_work_on(cpu, system_wq, &q.work);
		wait_for_completion(&q.started);
		flush_work(&q.work); /* q is on our stack: let it go first */
		c->samples[i] = q.latency;
	}
	return 0;
}

static int bench_queue_same(struct bench_ctx *c)
{
	return bench_queue(c, c->a);
}
static int bench_queue_cross(struct bench_ctx *c)
{
	return bench_queue(c, c->b);
}
static int bench_queue_unbound(struct bench_ctx *c)
{
	return bench_queue(c, NR_CPUS);
}

/* ---- concurrency of sleeping items --------------------------------------- */

#define SLEEPERS   8
#define SLEEPER_MS 10

struct sleepers {
	struct sleeper {
		struct work_struct work;
		struct sleepers *all;
	} item[SLEEPERS];
	atomic_t left;
	struct completion all_done;
};

static void sleeper_fn(struct work_struct *w)
{
	struct sleepers *s = container_of(w, struct sleeper, work)->all;

	msleep(SLEEPER_MS);
	if (atomic_dec_and_test(&s->left))
		complete(&s->all_done);
}

static int bench_sleepers(struct bench_ctx *c)
{
	struct sleepers *s = kzalloc(sizeof(*s));

	if (!s)
		return -ENOMEM;
	init_completion(&s->all_done);
	for (unsigned int k = 0; k < SLEEPERS; k++) {
		INIT_WORK(&s->item[k].work, sleeper_fn);
		s->item[k].all = s;
	}
	for (unsigned int i = 0; i < c->n; i++) {
		msleep(1);
		reinit_completion(&s->all_done);
		atomic_set(&s->left, SLEEPERS);
		u64 t0 = ktime_get_ns();

		for (unsigned int k = 0; k < SLEEPERS; k++)
			queue_work_on(c->a, system_wq, &s->item[k].work);
		wait_for_completion(&s->all_done);
		c->samples[i] = (ktime_get_ns() - t0) / NSEC_PER_USEC;
		for (unsigned int k = 0; k < SLEEPERS; k++)
			flush_work(&s->item[k].work);
	}
	kfree(s);
	return 0;
}

/* ---- CPU hotplug ----------------------------------------------------------- */

#define BUSY_ITEMS	1000
#define BUSY_ITEM_MS	1
#define BUSY_MAX_ACTIVE 8

static void busy_item(struct work_struct *w)
{
	msleep(BUSY_ITEM_MS);
}

#define MEM_ITEM_MS 200

static void mem_item(struct work_struct *w)
{
	msleep(MEM_ITEM_MS);
}

enum hotplug_load {
	NO_WORK,   /* nothing pending on B */
	BUSY_WORK, /* BUSY_ITEMS items pending on B at each cpu_down */
};

enum hotplug_measured { MEASURE_CPU_DOWN, MEASURE_CPU_UP };

/* cpu_down(B), then cpu_up(B), n times: one of the two is measured. */
static int bench_hotplug(struct bench_ctx *c, enum hotplug_load load,
			 enum hotplug_measured measured)
{
	bool busy = load == BUSY_WORK;
	struct workqueue_struct *wq = NULL;
	struct work_struct *items = NULL;
	int err = 0;

	if (busy) {
		wq = alloc_workqueue("bench_busy", 0, BUSY_MAX_ACTIVE);
		items = kcalloc(BUSY_ITEMS, sizeof(*items));
		if (!wq || !items) {
			err = -ENOMEM;
			goto out;
		}
		for (unsigned int k = 0; k < BUSY_ITEMS; k++)
			INIT_WORK(&items[k], busy_item);
	}
	for (unsigned int i = 0; i < c->n && !err; i++) {
		msleep(1);
		if (busy)
			for (unsigned int k = 0; k < BUSY_ITEMS; k++)
				queue_work_on(c->b, wq, &items[k]);
		/* Unpinned while it waits, as a user's cpu_down() caller is:
		 * pinned to A, it would wait behind the trustees' worker when
		 * that wakes on A too (A idle meanwhile), and the figure
		 * would depend on where that worker ran last. */
		struct cpumask pin;

		sched_unpin_current(&cpu_possible_mask);
		u64 t0 = ktime_get_ns();

		err = cpu_down(c->b);
		u64 t1 = ktime_get_ns();

		if (sched_pin_current(c->a, &pin) && !err)
			err = -EINVAL; /* A is the first online CPU: never taken down here */

		if (err) {
			pr_err("cpu_down(%u): error %d\n", c->b, err);
			break;
		}
		if (busy)
			flush_workqueue(wq); /* the trustee's work, not measured */
		msleep(1);
		u64 t2 = ktime_get_ns();

		err = cpu_up(c->b);
		u64 t3 = ktime_get_ns();

		if (err)
			pr_err("cpu_up(%u): error %d; it stays offline\n", c->b, err);
		c->samples[i] = (measured == MEASURE_CPU_UP ? t3 - t2 : t1 - t0) / NSEC_PER_USEC;
	}
out:
	if (wq)
		destroy_workqueue(wq);
	kfree(items);
	return err;
}

static int bench_offline_idle(struct bench_ctx *c)
{
	return bench_hotplug(c, NO_WORK, MEASURE_CPU_DOWN);
}

static int bench_offline_busy(struct bench_ctx *c)
{
	return bench_hotplug(c, BUSY_WORK, MEASURE_CPU_DOWN);
}

static int bench_online(struct bench_ctx *c)
{
	return bench_hotplug(c, NO_WORK, MEASURE_CPU_UP);
}

/* ---- memory ------------------------------------------------------------- */

static u64 pages_in_use(void)
{
	struct pmm_stats st;

	pmm_get_stats(&st);
	return st.total_pages - st.free_pages;
}

static int bench_mem_boot(struct bench_ctx *c)
{
	for (unsigned int i = 0; i < c->n; i++)
		c->samples[i] = pages_in_use() * PAGE_SIZE / 1024;
	return 0;
}

#define MEM_WORKERS   32
#define MEM_MAX_ITEMS 512

/* What one more worker costs: items that all sleep at once on A, as many
 * as the pool has idle workers plus MEM_WORKERS, make the pool create
 * workers (each item blocks, the next worker starts); pages in use while
 * they sleep, over the workers added. */
static int bench_mem_worker(struct bench_ctx *c)
{
	struct workqueue_struct *wq = alloc_workqueue("bench_mem", 0, MEM_MAX_ITEMS);
	struct work_struct *items = kcalloc(MEM_MAX_ITEMS, sizeof(*items));
	int err = 0;

	if (!wq || !items) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned int k = 0; k < MEM_MAX_ITEMS; k++)
		INIT_WORK(&items[k], mem_item);
	for (unsigned int i = 0; i < c->n && !err; i++) {
		struct wq_pool_stats before, peak;

		msleep(1);
		workqueue_pool_stats(c->a, WQ_POOL_NORMAL, &before);
		unsigned int nr = min(before.nr_idle + MEM_WORKERS, MEM_MAX_ITEMS);
		u64 used = pages_in_use();

		for (unsigned int k = 0; k < nr; k++)
			queue_work_on(c->a, wq, &items[k]);
		msleep(MEM_ITEM_MS / 2); /* all of them asleep in their items */
		workqueue_pool_stats(c->a, WQ_POOL_NORMAL, &peak);
		u64 now = pages_in_use();

		flush_workqueue(wq);
		if (peak.nr_workers <= before.nr_workers || now < used) {
			pr_err("mem_worker: the pool did not grow (%u workers, then %u)\n",
			       before.nr_workers, peak.nr_workers);
			err = -EAGAIN;
			break;
		}
		c->samples[i] =
			(now - used) * PAGE_SIZE / 1024 / (peak.nr_workers - before.nr_workers);
	}
out:
	if (wq)
		destroy_workqueue(wq);
	kfree(items);
	return err;
}

/* ---- time: sleeps, slices, timers, an idle CPU ---------------------------- */

static volatile bool hogs_stop;

/* CPU-bound until told to stop. */
static int hog_fn(void *arg)
{
	while (!READ_ONCE(hogs_stop))
		cpu_relax();
	return 0;
}

/* How long usleep(us) lasts as its caller sees it (the wake-up included),
 * on A: idle, or beside a CPU-bound thread of the same nice. The hog runs
 * alone for 20 ms first, so that this thread, asleep meanwhile, is behind
 * it in vruntime as a thread that sleeps beside a CPU hog is: each wake-up
 * then takes the CPU from the hog at once (wake-up preemption). */
static int bench_sleep(struct bench_ctx *c, u64 us, bool busy)
{
	struct thread *hog = NULL;

	if (busy) {
		hogs_stop = false;
		hog = kthread_create_on_cpu(hog_fn, NULL, c->a, "bench/hog");
		if (!hog)
			return -ENOMEM;
		wake_up_thread(hog);
		msleep(20);
	}
	for (unsigned int i = 0; i < c->n; i++) {
		u64 t0 = ktime_get_ns();

		usleep(us);
		c->samples[i] = ktime_get_ns() - t0;
	}
	if (hog) {
		hogs_stop = true;
		kthread_stop(hog);
	}
	return 0;
}

static int bench_sleep_10ms(struct bench_ctx *c)
{
	return bench_sleep(c, 10000, false);
}
static int bench_sleep_1ms(struct bench_ctx *c)
{
	return bench_sleep(c, 1000, false);
}
static int bench_sleep_100us(struct bench_ctx *c)
{
	return bench_sleep(c, 100, false);
}
static int bench_sleep_10ms_busy(struct bench_ctx *c)
{
	return bench_sleep(c, 10000, true);
}
static int bench_sleep_1ms_busy(struct bench_ctx *c)
{
	return bench_sleep(c, 1000, true);
}
static int bench_sleep_100us_busy(struct bench_ctx *c)
{
	return bench_sleep(c, 100, true);
}

/* Fair slices: SLICE_HOGS CPU-bound threads of nice 0 on B. Each watches
 * the scheduler's record of when it last got the CPU (stint_start_exec: its
 * CPU time then); when that moves, it was switched out and back in, and
 * the move is the CPU time of the stint that ended, as the scheduler
 * counts it (not the gaps in the clock a thread sees: under -icount the
 * clock also moves while another vCPU has its turn). The first stint of
 * each thread is not counted (it may have started before the others were
 * there). */
#define SLICE_HOGS 3

struct stints {
	struct bench_ctx *c;
	atomic_t next; /* samples taken (or claimed) */
};

static int stint_hog_fn(void *arg)
{
	struct stints *s = arg;
	u64 start = READ_ONCE(current->stint_start_exec);
	bool first = true;

	while (!READ_ONCE(hogs_stop)) {
		u64 now = READ_ONCE(current->stint_start_exec);

		if (now == start) {
			cpu_relax();
			continue;
		}
		if (!first) {
			int i = atomic_inc_return(&s->next) - 1;

			if (i < (int)s->c->n)
				s->c->samples[i] = (now - start) / NSEC_PER_USEC;
		}
		first = false;
		start = now;
	}
	return 0;
}

static int bench_slices(struct bench_ctx *c)
{
	struct stints s = { .c = c };
	struct thread *hogs[SLICE_HOGS];
	int err = 0;

	hogs_stop = false;
	atomic_set(&s.next, 0);
	for (unsigned int i = 0; i < SLICE_HOGS; i++) {
		hogs[i] = kthread_create_on_cpu(stint_hog_fn, &s, c->b, "bench/slice%u", i);
		if (!hogs[i])
			err = -ENOMEM;
	}
	for (unsigned int i = 0; i < SLICE_HOGS; i++)
		if (hogs[i])
			wake_up_thread(hogs[i]);
	while (!err && atomic_read(&s.next) < (int)c->n)
		msleep(10);
	hogs_stop = true;
	for (unsigned int i = 0; i < SLICE_HOGS; i++)
		if (hogs[i])
			kthread_stop(hogs[i]);
	return err;
}

/* Arming a timer a second out and cancelling it (a timeout that is not
 * needed, the common case), TIMER_PAIRS pairs a sample, with others
 * pending on the same CPU: none, or 64 (between 2 and 3 s out). */
#define TIMER_PAIRS  1000
#define TIMERS_OTHER 64

static void noop_timer_fn(struct timer_list *t)
{
}

static int bench_timer_arm_cancel(struct bench_ctx *c, unsigned int others)
{
	struct timer_list *t = kcalloc(others + 1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (unsigned int k = 0; k <= others; k++)
		timer_setup(&t[k], noop_timer_fn);
	for (unsigned int k = 1; k <= others; k++)
		add_timer(&t[k], ktime_get_ns() + 2 * NSEC_PER_SEC + k * 15 * NSEC_PER_MSEC);
	for (unsigned int i = 0; i < c->n; i++) {
		msleep(1);
		u64 t0 = ktime_get_ns();

		for (unsigned int k = 0; k < TIMER_PAIRS; k++) {
			add_timer(&t[0], t0 + NSEC_PER_SEC);
			del_timer(&t[0]);
		}
		c->samples[i] = (ktime_get_ns() - t0) / TIMER_PAIRS;
	}
	for (unsigned int k = 0; k <= others; k++)
		del_timer_sync(&t[k]);
	kfree(t);
	return 0;
}

static int bench_timer_arm_cancel_0(struct bench_ctx *c)
{
	return bench_timer_arm_cancel(c, 0);
}
static int bench_timer_arm_cancel_64(struct bench_ctx *c)
{
	return bench_timer_arm_cancel(c, TIMERS_OTHER);
}

/* Timer interrupts B takes in a second with nothing to do (this thread
 * sleeps on A meanwhile). */
static int bench_idle_irqs(struct bench_ctx *c)
{
	for (unsigned int i = 0; i < c->n; i++) {
		struct clockevent_stats before, after;

		clockevent_get_stats(c->b, &before);
		msleep(1000);
		clockevent_get_stats(c->b, &after);
		c->samples[i] = after.nr_events - before.nr_events;
	}
	return 0;
}

/* ---- locks: what the validator (kernel/lockdep.h) adds to each ------------
 * LOCK_PAIRS take-and-release pairs per sample, each after an msleep(1)
 * (no timer interrupt falls inside a sample: none is due); the sample is the
 * time per pair. With lockdep=0 they measure the primitive; with the
 * validator on, what it adds: each acquire after the first finds its
 * chain of held classes in the chain cache (a hit) and checks nothing
 * else, each release pops the held-lock stack. The locks are static (one
 * class each) and nothing else takes them. */

#define LOCK_PAIRS 1000

static DEFINE_SPINLOCK(bench_lock_a);
static DEFINE_SPINLOCK(bench_lock_b);
static DEFINE_SPINLOCK(bench_lock_c);
static DEFINE_MUTEX(bench_mutex);
static struct work_struct bench_idle_work;

static void bench_idle_fn(struct work_struct *w)
{
}

enum lock_bench { LOCK_SPIN, LOCK_NESTED3, LOCK_MUTEX, LOCK_FLUSH_IDLE };

static void lock_pair(enum lock_bench which)
{
	switch (which) {
	case LOCK_SPIN:
		spin_lock(&bench_lock_a);
		spin_unlock(&bench_lock_a);
		break;
	case LOCK_NESTED3: /* A -> B -> C: the chain A, AB, ABC cached */
		spin_lock(&bench_lock_a);
		spin_lock(&bench_lock_b);
		spin_lock(&bench_lock_c);
		spin_unlock(&bench_lock_c);
		spin_unlock(&bench_lock_b);
		spin_unlock(&bench_lock_a);
		break;
	case LOCK_MUTEX: /* the mutex, and its wait_lock twice, under it */
		mutex_lock(&bench_mutex);
		mutex_unlock(&bench_mutex);
		break;
	case LOCK_FLUSH_IDLE: /* never queued: the pseudo-lock pair, no pool */
		flush_work(&bench_idle_work);
		break;
	}
}

static int bench_lock(struct bench_ctx *c, enum lock_bench which)
{
	INIT_WORK(&bench_idle_work, bench_idle_fn);
	lock_pair(which); /* the first: a chain-cache miss, new dependencies */
	for (unsigned int i = 0; i < c->n; i++) {
		msleep(1);
		u64 t0 = ktime_get_ns();

		for (unsigned int k = 0; k < LOCK_PAIRS; k++)
			lock_pair(which);
		c->samples[i] = (ktime_get_ns() - t0) / LOCK_PAIRS;
	}
	return 0;
}

static int bench_lock_spin(struct bench_ctx *c)
{
	return bench_lock(c, LOCK_SPIN);
}
static int bench_lock_nested3(struct bench_ctx *c)
{
	return bench_lock(c, LOCK_NESTED3);
}
static int bench_lock_mutex(struct bench_ctx *c)
{
	return bench_lock(c, LOCK_MUTEX);
}
static int bench_lock_flush_idle(struct bench_ctx *c)
{
	return bench_lock(c, LOCK_FLUSH_IDLE);
}

/* ---- bottom halves: BH items against thread items ------------------------ */

/* A timer interrupt on B stands for a device's: its callback notes the
 * time and queues the item (a BH item runs at that interrupt's exit; a
 * thread item needs B's high-priority worker woken and switched to). The
 * sample is the callback's time to the item's start. B is idle, or runs
 * a CPU-bound thread (busy). The serial ones do the same through COM1's
 * receive path (uart_rx_inject(): the ring, its lock, the rx item), to the
 * consumer being handed the byte: where the shell echoes it. */
enum irq_bh_kind { IRQ_BH, IRQ_THREAD, SERIAL_BH, SERIAL_THREAD };

struct irq_item {
	struct timer_list timer;
	struct work_struct work;
	struct completion started;
	enum irq_bh_kind kind;
	u64 t0, latency;
};

static struct irq_item *serial_probe; /* the consumer's: one bench at a time */

static void irq_item_fn(struct work_struct *w)
{
	struct irq_item *q = container_of(w, struct irq_item, work);

	q->latency = ktime_get_ns() - READ_ONCE(q->t0);
	complete(&q->started);
}

static void serial_consumer(const u8 *buf, size_t n)
{
	struct irq_item *q = READ_ONCE(serial_probe);

	if (!q)
		return;
	q->latency = ktime_get_ns() - READ_ONCE(q->t0);
	complete(&q->started);
}

static void irq_timer_fn(struct timer_list *t)
{
	struct irq_item *q = container_of(t, struct irq_item, timer);
	static const u8 byte = 'x';

	WRITE_ONCE(q->t0, ktime_get_ns());
	switch (q->kind) {
	case IRQ_BH:
		queue_work(system_bh_highpri_wq, &q->work);
		break;
	case IRQ_THREAD:
		queue_work(system_highpri_wq, &q->work);
		break;
	default:
		uart_rx_inject(&byte, 1);
		break;
	}
}

static int bench_irq(struct bench_ctx *c, enum irq_bh_kind kind, bool busy)
{
	struct thread *hog = NULL;
	struct irq_item q = { .kind = kind };
	uart_rx_handler_t old_consumer = NULL;
	bool old_bh = true;
	int err = 0;

	INIT_WORK(&q.work, irq_item_fn);
	init_completion(&q.started);
	timer_setup(&q.timer, irq_timer_fn);
	if (kind == SERIAL_BH || kind == SERIAL_THREAD) {
		struct uart_rx_stats st;

		uart_rx_get_stats(&st);
		if (!st.enabled)
			return -ENODEV;
		old_consumer = uart_get_rx_handler();
		WRITE_ONCE(serial_probe, &q);
		uart_set_rx_handler(serial_consumer);
		old_bh = uart_rx_set_bh(kind == SERIAL_BH);
	}
	if (busy) {
		hogs_stop = false;
		hog = kthread_create_on_cpu(hog_fn, NULL, c->b, "bench/hog");
		if (!hog) {
			err = -ENOMEM;
			goto out;
		}
		wake_up_thread(hog);
		msleep(20);
	}
	for (unsigned int i = 0; i < c->n; i++) {
		msleep(1); /* B's worker idle again, asleep */
		reinit_completion(&q.started);
		add_timer_on(&q.timer, ktime_get_ns() + 100 * NSEC_PER_USEC, c->b);
		wait_for_completion(&q.started);
		flush_work(&q.work);
		c->samples[i] = q.latency;
	}
	if (hog) {
		hogs_stop = true;
		kthread_stop(hog);
	}
out:
	del_timer_sync(&q.timer);
	if (kind == SERIAL_BH || kind == SERIAL_THREAD) {
		uart_rx_set_bh(old_bh);
		uart_set_rx_handler(old_consumer); /* waits for the consumer */
		WRITE_ONCE(serial_probe, NULL);
	}
	return err;
}

static int bench_irq_bh(struct bench_ctx *c)
{
	return bench_irq(c, IRQ_BH, false);
}
static int bench_irq_thread(struct bench_ctx *c)
{
	return bench_irq(c, IRQ_THREAD, false);
}
static int bench_irq_bh_busy(struct bench_ctx *c)
{
	return bench_irq(c, IRQ_BH, true);
}
static int bench_irq_thread_busy(struct bench_ctx *c)
{
	return bench_irq(c, IRQ_THREAD, true);
}
static int bench_serial_bh(struct bench_ctx *c)
{
	return bench_irq(c, SERIAL_BH, false);
}
static int bench_serial_thread(struct bench_ctx *c)
{
	return bench_irq(c, SERIAL_THREAD, false);
}

/* What a BH run costs the thread it comes in on top of: a CPU-bound
 * thread on B reads the clock in a loop and keeps the longest gap between
 * two reads while one timer interrupt of its own comes (with_bh: whose
 * callback queues an empty BH item, run at its exit). The sample is that
 * gap: the interrupt, and the BH run with it. */
struct gap_run {
	struct bench_ctx *c;
	bool with_bh;
	volatile bool fired, ran;
	struct timer_list timer;
	struct work_struct work;
	struct completion done;
};

static void gap_item_fn(struct work_struct *w)
{
	container_of(w, struct gap_run, work)->ran = true;
}

static void gap_timer_fn(struct timer_list *t)
{
	struct gap_run *g = container_of(t, struct gap_run, timer);

	if (g->with_bh)
		queue_work(system_bh_wq, &g->work);
	g->fired = true;
}

static int gap_thread_fn(void *arg)
{
	struct gap_run *g = arg;

	for (unsigned int i = 0; i < g->c->n; i++) {
		u64 last = ktime_get_ns(), worst = 0;

		g->fired = g->ran = false;
		add_timer(&g->timer, last + 50 * NSEC_PER_USEC);
		/* Until the interrupt (and its BH run) is over, and a little
		 * more: the last gap is then behind us. */
		for (unsigned int k = 0; !(g->fired && (g->ran || !g->with_bh)) || k < 100;) {
			u64 now = ktime_get_ns();

			worst = max(worst, now - last);
			last = now;
			if (g->fired && (g->ran || !g->with_bh))
				k++;
		}
		g->c->samples[i] = worst;
	}
	complete(&g->done);
	return 0;
}

static int bench_gap(struct bench_ctx *c, bool with_bh)
{
	struct gap_run g = { .c = c, .with_bh = with_bh };

	timer_setup(&g.timer, gap_timer_fn);
	INIT_WORK(&g.work, gap_item_fn);
	init_completion(&g.done);
	struct thread *t = kthread_create_on_cpu(gap_thread_fn, &g, c->b, "bench/gap");

	if (!t)
		return -ENOMEM;
	wake_up_thread(t);
	wait_for_completion(&g.done);
	kthread_stop(t);
	flush_work(&g.work);
	return 0;
}

static int bench_irq_gap(struct bench_ctx *c)
{
	return bench_gap(c, false);
}
static int bench_irq_gap_bh(struct bench_ctx *c)
{
	return bench_gap(c, true);
}

/* An interrupt flood's bottom halves against a thread: a BH item on B
 * that spins 50 us and queues itself again, for ever, beside a CPU-bound
 * thread on B. The budget hands the rest of each run to the continuation
 * (a worker thread), which the scheduler shares with the thread. The
 * sample is the thread's share of B over 100 ms, in percent. */
static volatile bool flood_stop;

static void flood_fn(struct work_struct *w)
{
	udelay(50);
	if (!READ_ONCE(flood_stop))
		queue_work(system_bh_wq, w);
}

static int bench_bh_flood_share(struct bench_ctx *c)
{
	struct work_struct w;

	INIT_WORK(&w, flood_fn);
	hogs_stop = false;
	flood_stop = false;
	struct thread *hog = kthread_create_on_cpu(hog_fn, NULL, c->b, "bench/hog");

	if (!hog)
		return -ENOMEM;
	wake_up_thread(hog);
	msleep(20);
	queue_work_on(c->b, system_bh_wq, &w);
	msleep(20);
	for (unsigned int i = 0; i < c->n; i++) {
		u64 r0 = thread_runtime_ns(hog), t0 = ktime_get_ns();

		msleep(100);
		u64 r1 = thread_runtime_ns(hog), t1 = ktime_get_ns();

		c->samples[i] = (r1 - r0) * 100 / (t1 - t0);
	}
	flood_stop = true;
	cancel_work_sync(&w);
	hogs_stop = true;
	kthread_stop(hog);
	return 0;
}

/* ---- the table and the runner -------------------------------------------- */

static const struct bench benches[] = {
	{ "mem_boot", "memory in use (pages handed out), measured first", "KiB", 1, false,
	  bench_mem_boot },
	{ "wake_same", "complete() to the woken thread running, one CPU", "ns", 200, false,
	  bench_wake_same },
	{ "wake_cross", "complete() to the woken thread running on another CPU", "ns", 200, true,
	  bench_wake_cross },
	{ "queue_same", "queue_work_on() this CPU to the item starting", "ns", 200, false,
	  bench_queue_same },
	{ "queue_cross", "queue_work_on() another CPU to the item starting", "ns", 200, true,
	  bench_queue_cross },
	{ "queue_unbound", "queue_work() on system_unbound_wq to the item starting", "ns", 200,
	  false, bench_queue_unbound },
	{ "sleepers", "8 items sleeping 10 ms on one CPU: queued to all done", "us", 20, false,
	  bench_sleepers },
	{ "offline_idle", "cpu_down() with no work pending", "us", 20, true, bench_offline_idle },
	{ "offline_busy", "cpu_down() with 1000 sleeping items pending", "us", 10, true,
	  bench_offline_busy },
	{ "online", "cpu_up()", "us", 20, true, bench_online },
	{ "mem_worker", "memory one more worker costs (stack, thread, struct)", "KiB", 5, false,
	  bench_mem_worker },
	{ "sleep_10ms", "usleep(10000) as its caller sees it, idle CPU", "ns", 100, false,
	  bench_sleep_10ms },
	{ "sleep_1ms", "usleep(1000), idle CPU", "ns", 100, false, bench_sleep_1ms },
	{ "sleep_100us", "usleep(100), idle CPU", "ns", 100, false, bench_sleep_100us },
	{ "sleep_10ms_busy", "usleep(10000) beside a CPU-bound thread", "ns", 100, false,
	  bench_sleep_10ms_busy },
	{ "sleep_1ms_busy", "usleep(1000) beside a CPU-bound thread", "ns", 100, false,
	  bench_sleep_1ms_busy },
	{ "sleep_100us_busy", "usleep(100) beside a CPU-bound thread", "ns", 100, false,
	  bench_sleep_100us_busy },
	{ "slices", "stints of 3 CPU-bound threads sharing a CPU (slice 20 ms / 3)", "us", 60, true,
	  bench_slices },
	{ "timer_arm_cancel", "add_timer + del_timer of a timer 1 s out, per pair", "ns", 20, false,
	  bench_timer_arm_cancel_0 },
	{ "timer_arm_cancel_64", "the same with 64 other timers pending on the CPU", "ns", 20,
	  false, bench_timer_arm_cancel_64 },
	{ "idle_irqs", "timer interrupts an idle CPU takes in a second", "irqs", 3, true,
	  bench_idle_irqs },
	{ "lock_spin", "spin_lock + spin_unlock of one static lock, per pair", "ns", 20, false,
	  bench_lock_spin },
	{ "lock_nested3", "three static spinlocks taken A -> B -> C and released", "ns", 20, false,
	  bench_lock_nested3 },
	{ "lock_mutex", "mutex_lock + mutex_unlock, uncontended", "ns", 20, false,
	  bench_lock_mutex },
	{ "lock_flush_idle", "flush_work() of an item never queued", "ns", 20, false,
	  bench_lock_flush_idle },
	{ "irq_bh", "a timer interrupt on an idle CPU to its BH item's start", "ns", 50, true,
	  bench_irq_bh },
	{ "irq_thread", "the same to a system_highpri_wq item's start (a worker woken)", "ns", 50,
	  true, bench_irq_thread },
	{ "irq_bh_busy", "irq_bh on a CPU running a CPU-bound thread", "ns", 50, true,
	  bench_irq_bh_busy },
	{ "irq_thread_busy", "irq_thread on a CPU running a CPU-bound thread", "ns", 50, true,
	  bench_irq_thread_busy },
	{ "serial_bh", "COM1 receive (injected) to the consumer, the rx item a BH item", "ns", 50,
	  true, bench_serial_bh },
	{ "serial_thread", "the same with the rx item a thread item (uart_rx_bh=0)", "ns", 50, true,
	  bench_serial_thread },
	{ "irq_gap", "longest clock gap of a CPU-bound thread across one timer interrupt", "ns", 20,
	  true, bench_irq_gap },
	{ "irq_gap_bh", "the same when the interrupt queues an empty BH item", "ns", 20, true,
	  bench_irq_gap_bh },
	{ "bh_flood_share", "a thread's share of a CPU flooded with BH work (percent)", "pct", 5,
	  true, bench_bh_flood_share },
};

static bool listed(const char *list, const char *name)
{
	return !strcmp(list, "all") || strlist_has(list, name, strlen(name));
}

/* Every name in list must be a benchmark: say which is not. */
static int check_list(const char *list)
{
	unsigned int nsc;
	const struct cmp_scenario *sc = bench_cmp_scenarios(&nsc);
	const char *item;
	size_t len;

	if (!strcmp(list, "all"))
		return 0;
	while ((item = strlist_next(&list, &len))) {
		bool known = false;

		for (size_t i = 0; i < ARRAY_SIZE(benches); i++)
			known |= strlen(benches[i].name) == len &&
				 !strncmp(item, benches[i].name, len);
		for (size_t i = 0; i < nsc; i++)
			known |= strlen(sc[i].name) == len && !strncmp(item, sc[i].name, len);
		if (!known) {
			pr_err("no benchmark '%.*s' (the shell's 'bench' lists them)\n", (int)len,
			       item);
			return -EINVAL;
		}
	}
	return 0;
}

static bool bench_samples;
PARAM_BOOL(bench_samples, bench_samples,
	   "benchmarks: print every sample, sorted, after each summary (make bench's wall-clock "
	   "table takes its percentiles from them)");

/* "bench: NAME: samples v v ...", SAMPLES_PER_LINE to a line, in order. */
#define SAMPLES_PER_LINE 16
static void print_samples(const char *name, const u64 *v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i += SAMPLES_PER_LINE) {
		char line[SAMPLES_PER_LINE * 21 + 1];
		size_t len = 0;

		for (unsigned int k = i; k < n && k < i + SAMPLES_PER_LINE; k++)
			len += scnprintf(line + len, sizeof(line) - len, " %lu",
					 (unsigned long)v[k]);
		pr_notice("%s: samples%s\n", name, line);
	}
}

static int run_one(const struct bench *bm, unsigned int a, unsigned int b, unsigned int n)
{
	struct bench_ctx c = { .a = a, .b = b, .n = n ? n : bm->dfl_n };
	int err;

	if (bm->two_cpus && a == b) {
		pr_notice("%s: skipped (needs two online CPUs)\n", bm->name);
		return 0;
	}
	c.samples = kcalloc(c.n, sizeof(u64));
	if (!c.samples)
		return -ENOMEM;
	err = bm->run(&c);
	if (!err) {
		struct value_summary sum;

		summarize_values(c.samples, c.n, &sum);
		pr_notice("%s: n %lu min %lu median %lu max %lu %s\n", bm->name, sum.n, sum.min,
			  sum.median, sum.max, bm->unit);
		if (bench_samples)
			print_samples(bm->name, c.samples, c.n);
	} else {
		pr_err("%s: failed (error %d)\n", bm->name, err);
	}
	kfree(c.samples);
	return err;
}

int bench_run(const char *list, unsigned int n)
{
	struct cpumask old;
	int err = check_list(list);

	might_sleep();

	if (err)
		return err;
	if (n > BENCH_MAX_N) {
		pr_err("at most %u runs, not %u\n", BENCH_MAX_N, n);
		return -EINVAL;
	}
	if (torture_running()) {
		pr_err("the hotplug torture is running; stop it first\n");
		return -EBUSY;
	}
	unsigned int a = cpumask_first(&cpu_online_mask), b = a;

	for (unsigned int cpu = a; cpu < nr_cpu_ids; cpu = cpumask_next(cpu, &cpu_online_mask))
		b = cpu;
	/* Measure from A: the wakers and queuers run there. */
	err = sched_pin_current(a, &old);
	if (err)
		return err;
	pr_notice("cpus %u and %u, %u online\n", a, b, num_online_cpus());
	for (size_t i = 0; i < ARRAY_SIZE(benches) && !err; i++)
		if (listed(list, benches[i].name))
			err = run_one(&benches[i], a, b, n);

	/* The comparisons with the models cmwq replaced (bench_compare.h). */
	unsigned int nsc;
	const struct cmp_scenario *sc = bench_cmp_scenarios(&nsc);
	struct cmp_ctx cc = { .a = a, .b = b };

	for (size_t i = 0; i < nsc && !err; i++) {
		if (!listed(list, sc[i].name))
			continue;
		u64 t0 = ktime_get_ns();

		err = sc[i].run(&cc);
		if (err)
			pr_err("%s: failed (error %d)\n", sc[i].name, err);
		else
			pr_notice("%s: done in %lu ms of guest time\n", sc[i].name,
				  (u64)((ktime_get_ns() - t0) / NSEC_PER_MSEC));
	}
	sched_unpin_current(&old);
	return err;
}

void bench_list(void (*fn)(const char *name, const char *what, void *arg), void *arg)
{
	unsigned int nsc;
	const struct cmp_scenario *sc = bench_cmp_scenarios(&nsc);

	for (size_t i = 0; i < ARRAY_SIZE(benches); i++)
		fn(benches[i].name, benches[i].what, arg);
	for (size_t i = 0; i < nsc; i++)
		fn(sc[i].name, sc[i].what, arg);
}

static char bench_param[256];
PARAM_STRING(bench, bench_param,
	     "run benchmarks and power off: all, or a comma-separated list (kernel/tools/bench.h)");
static unsigned int bench_n;
PARAM_UINT(bench_n, bench_n, 0, BENCH_MAX_N,
	   "runs per benchmark for bench= (0: each one's default)");

bool bench_requested(void)
{
	return bench_param[0] != '\0';
}

/* The validator's tables after the run: what they hold against their
 * sizes (tests/harness/bench.py records them). */
static void bench_lockdep_line(void)
{
	struct lockdep_stats st;

	lockdep_get_stats(&st);
	if (!st.enabled)
		return;
	pr_notice("lockdep: classes %u/%u deps %u/%u chains %u/%u traces %u/%u depth %u "
		  "hits %lu misses %lu reports %lu\n",
		  st.classes, st.max_classes, st.deps, st.max_deps, st.chains, st.max_chains,
		  st.trace_ips, st.max_trace_ips, st.max_depth, (unsigned long)st.chain_hits,
		  (unsigned long)st.chain_misses, st.reports);
}

void bench_run_selected(void)
{
	int err = bench_run(bench_param, bench_n);

	bench_lockdep_line();

	pr_notice("%s\n", err ? "FAILED" : "done");
	qemu_exit(err ? QEMU_EXIT_FAILURE : QEMU_EXIT_SUCCESS);
}
