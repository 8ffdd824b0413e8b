/* kernel/trace.c - per-CPU event rings; see trace.h.
 *
 * Field legend: T = trace_mutex; C = the ring's own CPU with interrupts
 * off (only that CPU writes its ring).
 */
#include "kernel/trace.h"
#include "arch/x86_64/cpu.h"
#include "kernel/cpu_masks.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/mutex.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/string.h"

struct trace_ev {
	u64 ts;
	u64 a, b;
	u32 tid;
	u16 type;
	u16 cpu;
	char name[16];
};

struct trace_ring {
	struct trace_ev *ev; /* T to (re)allocate, while off */
	u64 head;	     /* C: events ever written */
};

bool trace_on; /* T to turn on; T or trace_freeze() to turn off; read anywhere */
static DEFINE_MUTEX(trace_mutex);
static struct trace_ring rings[NR_CPUS];
static unsigned int ring_size; /* T */

static const char *const type_names[TR_NR_TYPES] = {
	[TR_SWITCH] = "switch",
	[TR_WORK_QUEUE] = "queue",
	[TR_WORK_START] = "start",
	[TR_WORK_END] = "end",
	[TR_WORKER_SLEEP] = "sleep",
	[TR_WORKER_WAKE] = "wake",
	[TR_WORKER_CREATE] = "create",
	[TR_WORKER_DESTROY] = "destroy",
	[TR_CPU] = "cpu",
	[TR_TRUSTEE] = "trustee",
	[TR_MAYDAY] = "mayday",
	[TR_RESCUE] = "rescue",
	[TR_CLOCK_PROGRAM] = "program",
	[TR_CLOCK_EVENT] = "clockevent",
	[TR_TIMER_EXPIRE] = "timer",
	[TR_SLICE_END] = "slice",
	[TR_WQ_HOG] = "hog",
	[TR_CPUHP_ENTER] = "cpuhp_enter",
	[TR_CPUHP_EXIT] = "cpuhp_exit",
	[TR_BH_RUN] = "bh_run",
	[TR_BH_RUN_END] = "bh_end",
};

void __trace_event(enum trace_type type, const struct thread *t, u64 a, u64 b)
{
	unsigned long flags = local_irq_save();
	struct trace_ring *r = &rings[smp_processor_id()];

	if (READ_ONCE(trace_on) && r->ev) {
		u64 head = r->head;
		struct trace_ev *e = &r->ev[head % ring_size];

		WRITE_ONCE(r->head, head + 1); /* the dump reads it without the CPU */

		e->ts = ktime_get_ns();
		e->type = (u16)type;
		e->cpu = (u16)smp_processor_id();
		e->a = a;
		e->b = b;
		e->tid = t ? t->tid : 0;
		if (t) {
			memcpy(e->name, t->name, sizeof(e->name) - 1);
			e->name[sizeof(e->name) - 1] = '\0';
		} else {
			strscpy(e->name, "-", sizeof(e->name));
		}
	}
	local_irq_restore(flags);
}

static void free_rings(void)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		kfree(rings[cpu].ev);
		rings[cpu].ev = NULL;
		rings[cpu].head = 0;
	}
}

int trace_start(unsigned int events_per_cpu)
{
	unsigned int cpu;
	int err = 0;

	if (!events_per_cpu)
		return -EINVAL;
	mutex_lock(&trace_mutex);
	if (trace_on) {
		err = -EBUSY;
		goto out;
	}
	free_rings();
	ring_size = events_per_cpu;
	for_each_possible_cpu(cpu) {
		rings[cpu].ev = kcalloc(events_per_cpu, sizeof(struct trace_ev));
		if (!rings[cpu].ev) {
			free_rings();
			err = -ENOMEM;
			goto out;
		}
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	WRITE_ONCE(trace_on, true);
out:
	mutex_unlock(&trace_mutex);
	return err;
}

void trace_stop(void)
{
	mutex_lock(&trace_mutex);
	WRITE_ONCE(trace_on, false);
	/* Writers run with interrupts off: after an IPI round, none is left. */
	smp_wait_irqs_off_sections();
	mutex_unlock(&trace_mutex);
}

void trace_freeze(void)
{
	WRITE_ONCE(trace_on, false);
}

void trace_counts(u64 *recorded, u64 *lost)
{
	*recorded = *lost = 0;
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		u64 head = READ_ONCE(rings[cpu].head);

		*recorded += head;
		if (ring_size && head > ring_size)
			*lost += head - ring_size;
	}
}

unsigned long trace_dump(void)
{
	static u64 next[NR_CPUS]; /* T: the merge cursor of each ring */
	unsigned long n = 0;
	u64 recorded, lost;

	mutex_lock(&trace_mutex);
	if (trace_on) {
		mutex_unlock(&trace_mutex);
		printk(KERN_RAW "trace: stop tracing first\n");
		return 0;
	}
	trace_counts(&recorded, &lost);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		u64 head = rings[cpu].head;

		next[cpu] = head > ring_size ? head - ring_size : 0;
	}
	printk(KERN_RAW "trace: begin %lu events (%lu lost) on %u CPUs\n", recorded - lost, lost,
	       nr_cpu_ids);
	for (;;) {
		struct trace_ev *best = NULL;
		unsigned int best_cpu = 0;

		for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
			if (!rings[cpu].ev || next[cpu] >= rings[cpu].head)
				continue;
			struct trace_ev *e = &rings[cpu].ev[next[cpu] % ring_size];

			if (!best || e->ts < best->ts) {
				best = e;
				best_cpu = cpu;
			}
		}
		if (!best)
			break;
		next[best_cpu]++;
		char name[sizeof(best->name)];

		strscpy(name, best->name, sizeof(name));
		for (char *p = name; *p; p++)
			if (*p == ' ')
				*p = '_';
		if (best->type == TR_WORK_QUEUE || best->type == TR_WORK_START ||
		    best->type == TR_WORK_END || best->type == TR_TIMER_EXPIRE ||
		    best->type == TR_WQ_HOG || best->type == TR_CPUHP_ENTER ||
		    best->type == TR_CPUHP_EXIT)
			printk(KERN_RAW "T %lu %u %s %u %s %lx %lx %pS\n", best->ts, best->cpu,
			       type_names[best->type], best->tid, name, best->a, best->b,
			       (void *)best->b);
		else
			printk(KERN_RAW "T %lu %u %s %u %s %lx %lx -\n", best->ts, best->cpu,
			       type_names[best->type], best->tid, name, best->a, best->b);
		n++;
	}
	printk(KERN_RAW "trace: end\n");
	mutex_unlock(&trace_mutex);
	return n;
}
