/* kernel/debug/kcsan.c - a data-race detector in the style of Linux's KCSAN: the
 * runtime of GCC's -fsanitize=thread instrumentation (make SAN=1 or
 * SAN=kcsan; docs/sanitizers.md).
 *
 * Every plain access of instrumented code calls __tsan_readN/writeN. Most
 * only look for a watchpoint on their address; about once every
 * kcsan_skip_watch accesses on a CPU, one sets a watchpoint, waits
 * kcsan_delay_us with interrupts off and looks again. Another CPU that
 * touched the same bytes meanwhile (a write, or any access if the watched
 * one writes) either consumed the watchpoint, and is reported beside it with
 * its own backtrace, or changed the value, and the report says the other
 * side is unknown. Marked accesses (READ_ONCE/WRITE_ONCE: volatile; the
 * atomics) consume watchpoints but never set one, so two marked accesses
 * never make a report. Interrupt handlers are checked like threads, with a
 * per-CPU context of their own; NMIs and the CPUs still starting are not.
 *
 * A detector that stops sampling sees no race, which reads like a kernel
 * without any: the rate it sampled at is counted (kcsan_get_stats()), and
 * the end of a test boot and the torture fail a run that sampled under
 * KCSAN_FLOOR_PER_MILLION (kcsan_sampled()).
 *
 * This file is not instrumented; the atomics the compiler replaced with
 * calls are carried out here, natively.
 */
#include "kernel/debug/kcsan.h"
#include "arch/x86_64/cpu.h"
#include "kernel/cpu_local.h"
#include "kernel/ksyms.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "lib/compiler.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "lib/types.h"

#define NR_WATCHPOINTS 64
#define NR_SLOTS       NR_WATCHPOINTS /* one per page number, modulo: a busy slot is not shared */
#define WP_CONSUMED    1ul
#define WP_WRITE       (1ul << 63)
#define WP_SIZE_SHIFT  48
#define WP_ADDR_MASK   ((1ul << WP_SIZE_SHIFT) - 1)

static unsigned long watchpoints[NR_SLOTS]; /* atomic: 0 free, CONSUMED, or encoded */
#define OTHER_FRAMES 8
/* The access that consumed each slot's watchpoint, for the report: written
 * by the CPU whose compare-and-swap consumed it, then ready (release); read
 * and cleared by the watching CPU before it frees the slot. */
static struct {
	const void *ip;
	unsigned int cpu;
	bool write;
	bool in_irq;
	char comm[16];
	unsigned int nr_frames;
	u64 frames[OTHER_FRAMES];
	bool ready; /* atomic */
} other[NR_SLOTS];

bool kcsan_enabled; /* set by kcsan_init(), once per-CPU data and current exist */
static unsigned int skip_watch = 4000;
PARAM_UINT(kcsan_skip_watch, skip_watch, 0, 1000000,
	   "data-race detector: set a watchpoint about once per N accesses of a CPU");
static unsigned int delay_us = 80;
PARAM_UINT(kcsan_delay_us, delay_us, 1, 10000, "data-race detector: how long a watchpoint waits");
static int skip[NR_CPUS];	 /* per CPU, own CPU: accesses until the next (a test's
				    kcsan_set_skip_watch() resets all: a lost reset is harmless) */
static u32 rnd[NR_CPUS];	 /* per CPU, own CPU only: pseudo-random state */
static int irq_disable[NR_CPUS]; /* per CPU, own CPU only: data_race() in an interrupt */
static unsigned long nr_watchpoints, nr_races; /* atomic */

/*
 * How often the detector samples, for the floor under it (kcsan_sampled()):
 * the plain accesses counted down, got from the countdown itself, so the
 * fast path does no more than it did. sample() adds each finished count to
 * nr_counted; a count under way is skip_from less what skip has left. Read
 * by other CPUs as a glance: a thread and an interrupt of one CPU may lose
 * a decrement, and a reset racing with the CPU's own sample() a count.
 */
static long skip_from[NR_CPUS]; /* per CPU, own CPU and kcsan_set_skip_watch() write: where
				   skip[] started (less what a reset left counted) */
static unsigned long nr_counted[NR_CPUS]; /* per CPU, own CPU writes: finished counts */

/* A test's kcsan_set_skip_watch() changes the rate; what it samples then is
 * left out of the figures the floor judges, which are the boot's own rate
 * (kcsan_skip_watch=, or its default). */
static unsigned int boot_skip_watch;	   /* set by kcsan_init() */
static unsigned long override_watchpoints; /* override_lock: at the override's start */
static unsigned long override_accesses;	   /* override_lock: at the override's start */
static unsigned long excluded_watchpoints; /* override_lock: in overrides that ended */
static unsigned long excluded_accesses;	   /* override_lock: in overrides that ended */
static DEFINE_SPINLOCK(override_lock);

void kcsan_init(void)
{
	for (unsigned int i = 0; i < NR_CPUS; i++)
		rnd[i] = 2463534242u + i;
	boot_skip_watch = skip_watch;
	WRITE_ONCE(kcsan_enabled, true);
	pr_info("kcsan: on: a watchpoint every ~%u accesses per CPU, %u us each\n", skip_watch,
		delay_us);
}

/* Plain accesses counted down so far, and on how many CPUs (a glance). */
static unsigned long counted_accesses(unsigned int *cpus)
{
	unsigned long sum = 0;

	*cpus = 0;
	for (unsigned int i = 0; i < NR_CPUS; i++) {
		long under_way = READ_ONCE(skip_from[i]) - READ_ONCE(skip[i]);
		unsigned long n = READ_ONCE(nr_counted[i]) + (unsigned long)max(under_way, 0l);

		sum += n;
		*cpus += n != 0;
	}
	return sum;
}

unsigned int kcsan_set_skip_watch(unsigned int n)
{
	unsigned long flags = spin_lock_irqsave(&override_lock);
	unsigned int old = READ_ONCE(skip_watch);
	unsigned long wp = __atomic_load_n(&nr_watchpoints, __ATOMIC_RELAXED);
	unsigned int cpus;
	unsigned long acc = counted_accesses(&cpus);

	if (old != boot_skip_watch) {
		excluded_watchpoints += wp - override_watchpoints;
		excluded_accesses += acc - override_accesses;
	}
	override_watchpoints = wp;
	override_accesses = acc;
	WRITE_ONCE(skip_watch, n);
	/* Restart every count (sample() draws the next at the new rate), and
	 * keep what each had counted so far counted. */
	for (unsigned int i = 0; i < NR_CPUS; i++) {
		WRITE_ONCE(skip_from[i], READ_ONCE(skip_from[i]) - READ_ONCE(skip[i]));
		WRITE_ONCE(skip[i], 0);
	}
	spin_unlock_irqrestore(&override_lock, flags);
	return old;
}

static u32 next_random(unsigned int cpu)
{
	u32 x = rnd[cpu];

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	rnd[cpu] = x;
	return x;
}

static unsigned long encode(unsigned long addr, size_t size, bool write)
{
	return (write ? WP_WRITE : 0) | (unsigned long)size << WP_SIZE_SHIFT |
	       (addr & WP_ADDR_MASK);
}

static bool overlaps(unsigned long wp, unsigned long addr, size_t size, bool write)
{
	unsigned long wa = wp & WP_ADDR_MASK, ws = (wp & ~WP_WRITE) >> WP_SIZE_SHIFT;

	if (wp <= WP_CONSUMED || (!write && !(wp & WP_WRITE)))
		return false; /* free, or both reads */
	addr &= WP_ADDR_MASK;
	return addr < wa + ws && wa < addr + size;
}

static unsigned int slot_of(unsigned long addr)
{
	return (unsigned int)((addr >> 12) % NR_WATCHPOINTS);
}

/* An NMI, early boot, a CPU still starting, inside data_race(): not checked. */
static bool unchecked(void)
{
	if (!READ_ONCE(kcsan_enabled) || this_cpu_read(lockdep.in_nmi))
		return true;
	if (this_cpu_read(lockdep.hardirq_depth))
		return irq_disable[smp_processor_id()] != 0;
	/* A CPU starting (ap_start() before sched_init_ap()) has no thread. */
	struct thread *t = current_thread();

	return !t || t->kcsan_disable != 0;
}

/* data_race(): the context's count, the interrupt's or the thread's. */
void kcsan_nest(int delta)
{
	unsigned long flags = local_irq_save();

	if (this_cpu_read(lockdep.hardirq_depth))
		irq_disable[smp_processor_id()] += delta;
	else if (current_thread())
		current_thread()->kcsan_disable += delta;
	local_irq_restore(flags);
}

/* Reported pairs of functions (either order), each once. */
#define MAX_REPORTED 128
static struct {
	u64 a, b;
} reported[MAX_REPORTED];	 /* reported_lock */
static unsigned int nr_reported; /* reported_lock, as reported[] */
static DEFINE_SPINLOCK(reported_lock);

static u64 func_of(const void *ip)
{
	u64 off, len;

	return ip && ksym_lookup((u64)ip, &off, &len) ? (u64)ip - off : (u64)ip;
}

/* First time for this pair? */
static bool first_pair(const void *ip1, const void *ip2)
{
	u64 a = func_of(ip1), b = func_of(ip2);
	bool first = true;

	if (a > b) {
		u64 t = a;

		a = b;
		b = t;
	}
	unsigned long flags = spin_lock_irqsave(&reported_lock);
	for (unsigned int i = 0; i < nr_reported && first; i++)
		first = !(reported[i].a == a && reported[i].b == b);
	if (first && nr_reported < MAX_REPORTED) {
		reported[nr_reported].a = a;
		reported[nr_reported++].b = b;
	} else if (first) {
		first = false; /* the table is full: counted only */
	}
	spin_unlock_irqrestore(&reported_lock, flags);
	return first;
}

void kcsan_get_stats(struct kcsan_stats *st)
{
	unsigned long flags = spin_lock_irqsave(&reported_lock);

	st->reported = nr_reported;
	spin_unlock_irqrestore(&reported_lock, flags);
	st->on = READ_ONCE(kcsan_enabled);
	flags = spin_lock_irqsave(&override_lock);
	st->watchpoints = __atomic_load_n(&nr_watchpoints, __ATOMIC_RELAXED);
	st->accesses = counted_accesses(&st->cpus);
	st->rate_watchpoints = st->watchpoints - excluded_watchpoints;
	st->rate_accesses = st->accesses - excluded_accesses;
	if (READ_ONCE(skip_watch) != boot_skip_watch) { /* an override under way */
		st->rate_watchpoints -= st->watchpoints - override_watchpoints;
		st->rate_accesses -= st->accesses - override_accesses;
	}
	spin_unlock_irqrestore(&override_lock, flags);
	st->races = __atomic_load_n(&nr_races, __ATOMIC_RELAXED);
}

void kcsan_stats_since(struct kcsan_stats *during, const struct kcsan_stats *from)
{
	struct kcsan_stats now;

	kcsan_get_stats(&now);
	*during = (struct kcsan_stats){
		.on = now.on,
		.cpus = now.cpus,
		.watchpoints = now.watchpoints - from->watchpoints,
		.races = now.races - from->races,
		.reported = now.reported - from->reported,
		.accesses = now.accesses - from->accesses,
		.rate_watchpoints = now.rate_watchpoints - from->rate_watchpoints,
		.rate_accesses = now.rate_accesses - from->rate_accesses,
	};
}

bool kcsan_sampled(const struct kcsan_stats *st, char *why, size_t len)
{
#ifdef CONFIG_KCSAN
	unsigned long wp = st->rate_watchpoints, acc = st->rate_accesses;

	if (acc < KCSAN_FLOOR_MIN_ACCESSES_PER_CPU * st->cpus ||
	    wp * 1000000 >= acc * KCSAN_FLOOR_PER_MILLION)
		return true;
	snprintf(why, len,
		 "the data-race detector was not sampling: %lu watchpoints in %lu plain accesses "
		 "(%lu per million), under its floor of %u per million",
		 wp, acc, kcsan_per_million(wp, acc), KCSAN_FLOOR_PER_MILLION);
	return false;
#else
	return true; /* no detector in this image: nothing to judge */
#endif
}

/* The call instruction of a return address (as the backtraces print it). */
static const void *call_of(const void *ip)
{
	return ip ? (const char *)ip - 1 : NULL;
}

static const char *context_name(bool in_irq, const char *comm)
{
	return in_irq ? "interrupt" : comm;
}

/* Called with the slot's other side copied out (consumed) or not. */
static void report(unsigned long addr, size_t size, bool write, const void *ip, bool consumed,
		   const typeof(other[0]) *o)
{
	__atomic_add_fetch(&nr_races, 1, __ATOMIC_RELAXED);
	if (!first_pair(ip, consumed ? o->ip : NULL))
		return;
	bool in_irq = this_cpu_read(lockdep.hardirq_depth) != 0;
	const char *me = context_name(in_irq, current_thread() ? current->name : "?");

	if (consumed) {
		report_bug("kcsan",
			   "data-race in %pS / %pS: %s of %zu bytes at %#lx by cpu%u (%s); %s by "
			   "cpu%u (%s)",
			   call_of(ip), call_of(o->ip), write ? "write" : "read", size, addr,
			   smp_processor_id(), me, o->write ? "write" : "read", o->cpu,
			   context_name(o->in_irq, o->comm));
		printk(KERN_ERR "kcsan: %s by cpu%u (%s), watched:\n", write ? "write" : "read",
		       smp_processor_id(), me);
		dump_stack_from(ip);
		printk(KERN_ERR "kcsan: %s by cpu%u (%s), meanwhile:\n",
		       o->write ? "write" : "read", o->cpu, context_name(o->in_irq, o->comm));
		printk(KERN_ERR "Call trace:\n");
		print_backtrace(o->frames, o->nr_frames, "");
	} else {
		report_bug("kcsan",
			   "data-race in %pS: %s of %zu bytes at %#lx by cpu%u (%s); the value "
			   "changed under it (the other side unknown)",
			   call_of(ip), write ? "write" : "read", size, addr, smp_processor_id(),
			   me);
		dump_stack_from(ip);
	}
}

static u64 read_value(unsigned long addr, size_t size)
{
	switch (size) {
	case 1:
		return *(volatile u8 *)addr;
	case 2:
		return *(volatile u16 *)addr;
	case 4:
		return *(volatile u32 *)addr;
	case 8:
		return *(volatile u64 *)addr;
	default:
		return 0;
	}
}

static void watch(unsigned long addr, size_t size, bool write, const void *ip)
{
	unsigned int slot = slot_of(addr);
	unsigned long enc = encode(addr, size, write), expected = 0;
	typeof(other[0]) o;
	unsigned long flags = local_irq_save();

	if (!__atomic_compare_exchange_n(&watchpoints[slot], &expected, enc, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
		/* Another CPU watches this page's slot: not this time. It may
		 * be waiting for its turn: under -icount QEMU runs one virtual
		 * CPU at a time, a watcher's pause gave this one the turn, and
		 * this one, if it never paused, would keep the turn (and the
		 * slot blocked) to the end of a loop that never sets a
		 * watchpoint. The pause gives the turn back. */
		local_irq_restore(flags);
		cpu_relax();
		return;
	}
	__atomic_add_fetch(&nr_watchpoints, 1, __ATOMIC_RELAXED);
	u64 before = read_value(addr, size);

	udelay(READ_ONCE(delay_us));
	u64 after = read_value(addr, size);
	bool consumed = !__atomic_compare_exchange_n(&watchpoints[slot], &enc, 0, false,
						     __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);

	if (consumed) {
		/* The consumer fills in its side with interrupts off: a few
		 * hundred instructions; give up after far more. */
		for (unsigned int spins = 0; spins < 1000000; spins++) {
			if (__atomic_load_n(&other[slot].ready, __ATOMIC_ACQUIRE))
				break;
			cpu_relax();
		}
		o = other[slot];
		if (!o.ready)
			o.ip = NULL, o.nr_frames = 0;
		__atomic_store_n(&other[slot].ready, false, __ATOMIC_RELAXED);
		__atomic_store_n(&watchpoints[slot], 0, __ATOMIC_RELEASE);
	}
	local_irq_restore(flags);
	if (consumed)
		report(addr, size, write, ip, true, &o);
	else if (before != after)
		report(addr, size, write, ip, false, NULL);
}

/* This access consumed slot's watchpoint: say who it is. */
static void fill_other(unsigned int slot, const void *ip, bool write)
{
	unsigned long flags = local_irq_save();
	typeof(other[0]) *o = &other[slot];
	struct thread *t = current_thread();

	o->ip = ip;
	o->cpu = smp_processor_id();
	o->write = write;
	o->in_irq = this_cpu_read(lockdep.hardirq_depth) != 0;
	strscpy(o->comm, t ? t->name : "?", sizeof(o->comm));
	/* Its frames from the instrumented function's (ip's) on. */
	u64 frames[OTHER_FRAMES + 4];
	unsigned int n = save_backtrace(read_rbp(), frames, ARRAY_SIZE(frames)), from = 0;

	while (from < n && frames[from] != (u64)ip)
		from++;
	if (from == n)
		from = 0;
	o->nr_frames = min(n - from, (unsigned int)OTHER_FRAMES);
	memcpy(o->frames, frames + from, o->nr_frames * sizeof(u64));
	__atomic_store_n(&o->ready, true, __ATOMIC_RELEASE);
	local_irq_restore(flags);
}

/* The access overlaps slot's watchpoint wp: consume it, if this context is
 * checked. Out of line: rare. */
static __noinline void consume(unsigned int slot, unsigned long wp, bool write, const void *ip)
{
	if (unchecked())
		return;
	if (__atomic_compare_exchange_n(&watchpoints[slot], &wp, WP_CONSUMED, false,
					__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		fill_other(slot, ip, write);
}

/* This CPU's count of accesses ran out: the next count, and a watchpoint on
 * this access if the context is checked. A count that was restarted instead
 * (0 at boot, and kcsan_set_skip_watch() writes 0: the next access finds it
 * negative) only starts the next one: every watchpoint comes of a count run
 * out at the rate asked for, never of a restart. Out of line: once per
 * thousands. */
static __noinline void sample(unsigned int cpu, unsigned long addr, size_t size, bool write,
			      const void *ip)
{
	unsigned int every = READ_ONCE(skip_watch);
	bool ran_out = skip[cpu] >= 0;
	int from = (int)(every > 1 ? every / 2 + next_random(cpu) % every : 1);

	WRITE_ONCE(nr_counted[cpu], nr_counted[cpu] + (unsigned long)(skip_from[cpu] - skip[cpu]));
	skip[cpu] = from;
	WRITE_ONCE(skip_from[cpu], from);
	if (ran_out && !unchecked())
		watch(addr, size, write, ip);
}

/*
 * Every instrumented access: the fast path is a look at one slot (free,
 * almost always) and, for a plain access, one decrement. What the
 * context is (an NMI, data_race(), a CPU starting) is looked at only on the
 * rare paths: to consume a watchpoint, or to set one.
 */
static __always_inline void check_access(const volatile void *ptr, size_t size, bool write,
					 bool marked, const void *ip)
{
	unsigned long addr = (unsigned long)ptr;

	if (!READ_ONCE(kcsan_enabled) || !size)
		return; /* before per-CPU data exists, smp_processor_id() cannot be read */
	unsigned int slot = slot_of(addr);
	unsigned long wp = __atomic_load_n(&watchpoints[slot], __ATOMIC_RELAXED);

	if (unlikely(wp) && overlaps(wp, addr, size, write)) {
		consume(slot, wp, write, ip);
		return;
	}
	if (marked)
		return;
	unsigned int cpu = smp_processor_id();

	if (likely(--skip[cpu] > 0))
		return;
	sample(cpu, addr, size, write, ip);
}

/* ---- the instrumentation's entry points ---------------------------------- */

#define RET_IP __builtin_return_address(0)

void __tsan_init(void);
void __tsan_init(void)
{
}

#define DEFINE_ACCESS(n)                                                                           \
	void __tsan_read##n(void *p);                                                              \
	void __tsan_read##n(void *p)                                                               \
	{                                                                                          \
		check_access(p, n, false, false, RET_IP);                                          \
	}                                                                                          \
	void __tsan_write##n(void *p);                                                             \
	void __tsan_write##n(void *p)                                                              \
	{                                                                                          \
		check_access(p, n, true, false, RET_IP);                                           \
	}                                                                                          \
	void __tsan_volatile_read##n(void *p);                                                     \
	void __tsan_volatile_read##n(void *p)                                                      \
	{                                                                                          \
		check_access(p, n, false, true, RET_IP);                                           \
	}                                                                                          \
	void __tsan_volatile_write##n(void *p);                                                    \
	void __tsan_volatile_write##n(void *p)                                                     \
	{                                                                                          \
		check_access(p, n, true, true, RET_IP);                                            \
	}
DEFINE_ACCESS(1)
DEFINE_ACCESS(2)
DEFINE_ACCESS(4)
DEFINE_ACCESS(8)
DEFINE_ACCESS(16)

void __tsan_read_range(void *p, size_t size);
void __tsan_read_range(void *p, size_t size)
{
	check_access(p, size, false, false, RET_IP);
}

void __tsan_write_range(void *p, size_t size);
void __tsan_write_range(void *p, size_t size)
{
	check_access(p, size, true, false, RET_IP);
}

/* The atomics: done here (the instrumented code has none left), and marked. */
#define MO(mo) ((mo)&0xffff)
#define DEFINE_ATOMIC(bits, T)                                                                     \
	T __tsan_atomic##bits##_load(const volatile T *a, int mo);                                 \
	T __tsan_atomic##bits##_load(const volatile T *a, int mo)                                  \
	{                                                                                          \
		check_access(a, sizeof(T), false, true, RET_IP);                                   \
		return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                       \
	}                                                                                          \
	void __tsan_atomic##bits##_store(volatile T *a, T v, int mo);                              \
	void __tsan_atomic##bits##_store(volatile T *a, T v, int mo)                               \
	{                                                                                          \
		check_access(a, sizeof(T), true, true, RET_IP);                                    \
		__atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                          \
	}                                                                                          \
	DEFINE_XCHG(bits, T)                                                                       \
	DEFINE_RMW(bits, T, fetch_add)                                                             \
	DEFINE_RMW(bits, T, fetch_sub)                                                             \
	DEFINE_RMW(bits, T, fetch_and)                                                             \
	DEFINE_RMW(bits, T, fetch_or)                                                              \
	DEFINE_RMW(bits, T, fetch_xor)                                                             \
	DEFINE_RMW(bits, T, fetch_nand)                                                            \
	bool __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *exp, T v, int smo,    \
							   int fmo);                               \
	bool __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *exp, T v, int smo,    \
							   int fmo)                                \
	{                                                                                          \
		check_access(a, sizeof(T), true, true, RET_IP);                                    \
		return __atomic_compare_exchange_n(a, exp, v, false, __ATOMIC_SEQ_CST,             \
						   __ATOMIC_SEQ_CST);                              \
	}                                                                                          \
	bool __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *exp, T v, int smo,      \
							 int fmo);                                 \
	bool __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *exp, T v, int smo,      \
							 int fmo)                                  \
	{                                                                                          \
		check_access(a, sizeof(T), true, true, RET_IP);                                    \
		return __atomic_compare_exchange_n(a, exp, v, true, __ATOMIC_SEQ_CST,              \
						   __ATOMIC_SEQ_CST);                              \
	}
/* Every order is done as seq_cst: stronger than asked, never weaker (x86's
 * locked instructions are full barriers anyway). */
#define DEFINE_RMW(bits, T, op)                                                                    \
	T __tsan_atomic##bits##_##op(volatile T *a, T v, int mo);                                  \
	T __tsan_atomic##bits##_##op(volatile T *a, T v, int mo)                                   \
	{                                                                                          \
		check_access(a, sizeof(T), true, true, RET_IP);                                    \
		return __atomic_##op(a, v, __ATOMIC_SEQ_CST);                                      \
	}
#define DEFINE_XCHG(bits, T)                                                                       \
	T __tsan_atomic##bits##_exchange(volatile T *a, T v, int mo);                              \
	T __tsan_atomic##bits##_exchange(volatile T *a, T v, int mo)                               \
	{                                                                                          \
		check_access(a, sizeof(T), true, true, RET_IP);                                    \
		return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                \
	}
DEFINE_ATOMIC(8, u8)
DEFINE_ATOMIC(16, u16)
DEFINE_ATOMIC(32, u32)
DEFINE_ATOMIC(64, u64)

void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_thread_fence(int mo)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_signal_fence(int mo)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}
