/* kernel/hotplug.c - CPU offline and online at run time; the phases and the
 * rules are in hotplug.h, the workqueue's part (the trustee) in
 * workqueue/trustee.c, the machine's (the APIC and I/O APIC) in
 * arch/x86_64/hotplug.c, starting a CPU in kernel/smpboot.c.
 *
 * Field legend: H = cpu_hotplug_lock.
 */
#define pr_fmt(fmt) "cpu: " fmt
#include "kernel/hotplug.h"
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/cpu.h"
#include "kernel/completion.h"
#include "kernel/cpu_masks.h"
#include "kernel/kthread.h"
#include "kernel/mm/kstack.h"
#include "kernel/mutex.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/smpboot.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/trace.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"

#define STOPPER_PRIO	 FIFO_PRIO_MAX
#define STOPPER_RETRY_MS 10

static DEFINE_MUTEX(cpu_hotplug_lock);
static struct list_head phases[CPUHP_NR_PHASES]; /* H: steps, in up order */
static struct cpumask going_down;		 /* H to change, atomically; read freely */
static struct cpuhp_stats stats;		 /* H */

/* Per dying CPU: set by its stopper (take_cpu_down(), on that CPU), read
 * and cleared by that CPU's idle loop (cpu_play_dead()). */
static volatile bool should_die[NR_CPUS];
static struct completion cpu_died[NR_CPUS];
static volatile bool dead_ack[NR_CPUS]; /* the CPU holds no lock any more */
/* When the dying CPU signalled its death (its own clock, read before the
 * complete() that wakes cpu_down's caller): stats.last_down_dead_ns from it. */
static u64 died_at_ns[NR_CPUS];
/* cpu_died[cpu] was taken for the death under way: a cpu_down() that gave
 * up after it (waiting for dead_ack) must not wait for it again. */
static bool death_seen[NR_CPUS]; /* H */

/* An operation that gave up at its bound left its CPU half-way
 * (hotplug.h, "Bounds"); cpu_down() finishes it, cpu_up() refuses it. */
enum halfway {
	WHOLE,	    /* nothing left half-way */
	NO_STOPPER, /* a failed cpu_up() found no stopper to take it back down */
	NOT_DEAD,   /* its stopper was started; it has not signalled its death */
};
static enum halfway halfway[NR_CPUS]; /* H to change; read freely (quick refusals) */

const struct cpuhp_fault_hooks *cpuhp_fault_hooks; /* written once by fault injection */

/* hotplug.h, "Bounds": why 20 s. */
unsigned int cpuhp_timeout_ms = 20000;
PARAM_UINT(cpuhp_timeout_ms, cpuhp_timeout_ms, 10, 3600000,
	   "how long cpu_down waits for a dying CPU's death, and a failed cpu_up's rollback "
	   "tries to make its stopper thread, before it gives up and reports it (ms)");

static u64 timeout_ns(void)
{
	return (u64)READ_ONCE(cpuhp_timeout_ms) * NSEC_PER_MSEC;
}

/* ---- steps -------------------------------------------------------------- */

void cpus_read_lock(void)
{
	mutex_lock(&cpu_hotplug_lock);
}

void cpus_read_unlock(void)
{
	mutex_unlock(&cpu_hotplug_lock);
}

bool cpus_locked(void)
{
	return mutex_owned(&cpu_hotplug_lock);
}

void cpuhp_add_step(struct cpuhp_step *step)
{
	mutex_lock(&cpu_hotplug_lock);
	list_add_tail(&step->node, &phases[step->phase]);
	mutex_unlock(&cpu_hotplug_lock);
}

void cpuhp_add_step_first(struct cpuhp_step *step)
{
	mutex_lock(&cpu_hotplug_lock);
	list_add(&step->node, &phases[step->phase]);
	mutex_unlock(&cpu_hotplug_lock);
}

void cpuhp_remove_step(struct cpuhp_step *step)
{
	mutex_lock(&cpu_hotplug_lock);
	list_del_init(&step->node);
	mutex_unlock(&cpu_hotplug_lock);
}

/* Run the startup callbacks of phase, from step from (NULL: the first) to the
 * last. On failure, undo the ones this call ran, in reverse, and return
 * the error. */
static int phase_up(enum cpuhp_phase phase, unsigned int cpu, struct cpuhp_step *from)
{
	struct cpuhp_step *first, *st, *undo;

	first = from ? from : list_first_entry(&phases[phase], struct cpuhp_step, node);
	for (st = first; &st->node != &phases[phase]; st = list_next_entry(st, node)) {
		int err = st->startup ? st->startup(cpu) : 0;

		if (!err)
			continue;
		pr_warn("cpu%u: %s startup failed (%d): rolling back\n", cpu, st->name, err);
		for (undo = st; undo != first;) {
			undo = list_prev_entry(undo, node);
			if (undo->teardown && undo->teardown(cpu))
				report_bug("cpuhp", "cpu%u: %s teardown failed while rolling back",
					   cpu, undo->name);
		}
		return err;
	}
	return 0;
}

/* The teardown callbacks of phase in reverse order; on failure, redo the ones
 * that ran (a cancelled offline) and return the error. */
static int phase_down(enum cpuhp_phase phase, unsigned int cpu)
{
	struct cpuhp_step *st;

	list_for_each_entry_reverse(st, &phases[phase], node) {
		int err = st->teardown ? st->teardown(cpu) : 0;

		if (!err)
			continue;
		pr_warn("cpu%u: %s teardown failed (%d): offline cancelled\n", cpu, st->name, err);
		st = list_next_entry(st, node);
		if (&st->node != &phases[phase])
			phase_up(phase, cpu, st);
		return err;
	}
	return 0;
}

/* The CPUHP_STARTING phase runs on the CPU itself with interrupts off, so
 * its callbacks cannot fail: an error is reported and ignored, nothing is
 * rolled back. The "starting" callbacks, in order, as the CPU comes up: */
static void run_starting_steps(unsigned int cpu)
{
	struct cpuhp_step *st;

	list_for_each_entry(st, &phases[CPUHP_STARTING], node)
		if (st->startup && st->startup(cpu))
			report_bug("cpuhp", "cpu%u: starting step %s failed; ignored", cpu,
				   st->name);
}

/* The "dying" callbacks, in reverse order, as the CPU goes down. */
static void run_dying_steps(unsigned int cpu)
{
	struct cpuhp_step *st;

	list_for_each_entry_reverse(st, &phases[CPUHP_STARTING], node)
		if (st->teardown && st->teardown(cpu))
			report_bug("cpuhp", "cpu%u: dying step %s failed; ignored", cpu, st->name);
}

/* From ap_start(), interrupts off: the starting callbacks, then online. */
void cpuhp_ap_starting(void)
{
	trace_event(TR_CPU, NULL, smp_processor_id(), TRC_STARTING);
	run_starting_steps(smp_processor_id());
	cpu_mark_online();
}

/* ---- going down --------------------------------------------------------- */

/* The stopper: FIFO 99 on the dying CPU, so nothing else runs there. */
static int take_cpu_down(void *arg)
{
	unsigned int cpu = smp_processor_id();

	local_irq_disable();
	assert(cpu == (unsigned int)(unsigned long)arg); /* bound, FIFO 99 */
	trace_event(TR_CPU, NULL, cpu, TRC_DYING);
	smp_cpu_dying();	/* out of cpu_online_mask; pending calls run */
	run_dying_steps(cpu);	/* timers, workqueue, irqs, scheduler */
	should_die[cpu] = true; /* the idle thread takes it from here */
	local_irq_enable();
	return 0;
}

bool cpu_should_die(void)
{
	return should_die[smp_processor_id()];
}

__noreturn void cpu_play_dead(void)
{
	unsigned int cpu = smp_processor_id();

	const struct cpuhp_fault_hooks *faults = READ_ONCE(cpuhp_fault_hooks);

	local_irq_disable();
	clockevent_stop_cpu();
	if (faults && faults->before_death)
		faults->before_death(cpu); /* a test may hold it here */
	should_die[cpu] = false;
	died_at_ns[cpu] = ktime_get_ns();
	complete(&cpu_died[cpu]);
	/* The last touch of anything but this CPU's own state: from here
	 * on it reads no memory a TLB shootdown could have changed. */
	clear_bit(cpu, cpumask_bits(&cpu_live_mask));
	WRITE_ONCE(dead_ack[cpu], true); /* after this, no lock is held here */
	for (;;)
		__asm__ volatile("cli; hlt" ::: "memory"); /* until INIT */
}

/* Is cpu a CPU that cpu_down()/cpu_up() can act on at all? 0, -EINVAL
 * or -ENODEV. */
static int check_cpu_number(unsigned int cpu)
{
	if (!cpu_possible(cpu))
		return -EINVAL;
	if (!cpumask_test_cpu(cpu, &cpu_present_mask))
		return -ENODEV;
	return 0;
}

/* Does cpu_down_phases() run the "offline" callbacks? Not when a failed cpu_up()
 * has already undone the "online" ones. */
enum offline_steps { RUN_OFFLINE_STEPS, SKIP_OFFLINE_STEPS };

/* The stopper thread for cpu. Rolling back a failed cpu_up() (its online
 * steps undone already: down is the only way), keep trying, as a pool's
 * manager does for a worker, but for cpuhp_timeout_ms at most. */
static struct thread *make_stopper(unsigned int cpu, enum offline_steps offline_steps)
{
	void *arg = (void *)(unsigned long)cpu;
	u64 t0 = ktime_get_ns();

	assert(mutex_owned(&cpu_hotplug_lock));
	for (bool first = true;; first = false) {
		struct thread *stopper;

		stopper = kthread_create_on_cpu(take_cpu_down, arg, cpu, "stop/%u", cpu);
		if (stopper || offline_steps == RUN_OFFLINE_STEPS ||
		    ktime_get_ns() - t0 >= timeout_ns())
			return stopper;
		if (first)
			pr_warn("cpu%u: cannot create its stopper thread to take it back down; "
				"retrying for up to %u ms\n",
				cpu, READ_ONCE(cpuhp_timeout_ms));
		msleep(STOPPER_RETRY_MS);
	}
}

/* The stopper was started: wait (cpuhp_timeout_ms at most) until cpu has
 * signalled its death and let go of every lock, then finish the offline.
 * If it does not, leave it NOT_DEAD, going down, and report it: -ETIMEDOUT. */
static int finish_down(unsigned int cpu, bool again)
{
	u64 t0 = ktime_get_ns();

	assert(mutex_owned(&cpu_hotplug_lock));
	if (!death_seen[cpu]) {
		if (!wait_for_completion_timeout(&cpu_died[cpu], timeout_ns()))
			goto not_dead;
		death_seen[cpu] = true;
	}
	/* complete() above still holds locks on that CPU until dead_ack: an
	 * INIT before it would leave them held for good. */
	while (!READ_ONCE(dead_ack[cpu])) {
		if (ktime_get_ns() - t0 >= timeout_ns())
			goto not_dead;
		cpu_relax();
	}
	halfway[cpu] = WHOLE;
	arch_cpu_dead(cpu); /* halted: ready to be started as at power-on */
	/* Stacks freed while it was dying were held back (kernel/mm/kstack.c):
	 * it has halted, and INIT flushes it before it runs again. */
	kstack_reclaim();
	trace_event(TR_CPU, current, cpu, TRC_DEAD);
	if (phase_down(CPUHP_PREPARE, cpu))
		report_bug("cpuhp", "cpu%u: a dead step failed after the CPU stopped", cpu);
	clear_bit(cpu, cpumask_bits(&going_down));
	return 0;
not_dead:
	halfway[cpu] = NOT_DEAD;
	report_bug("cpuhp", "cpu%u: did not die within %u ms of %s; left going down", cpu,
		   READ_ONCE(cpuhp_timeout_ms), again ? "another cpu_down" : "its stopper's start");
	return -ETIMEDOUT;
}

static int cpu_down_phases(unsigned int cpu, enum offline_steps offline_steps)
{
	struct thread *stopper;
	int err;

	trace_event(TR_CPU, current, cpu, TRC_DOWN_BEGIN);
	set_bit(cpu, cpumask_bits(&going_down));
	sched_cpu_deactivate(cpu);
	err = offline_steps == RUN_OFFLINE_STEPS ? phase_down(CPUHP_ONLINE, cpu) : 0;
	if (err)
		goto cancel;
	stopper = make_stopper(cpu, offline_steps);
	if (!stopper && offline_steps == SKIP_OFFLINE_STEPS) {
		/* No way back up (its online steps are undone) and none down. */
		halfway[cpu] = NO_STOPPER;
		report_bug("cpuhp",
			   "cpu%u: no stopper thread to take it back down after a failed online "
			   "within %u ms; left online, inactive and going down",
			   cpu, READ_ONCE(cpuhp_timeout_ms));
		return -ETIMEDOUT;
	}
	if (!stopper) {
		err = -ENOMEM;
		pr_warn("cpu%u: cannot create its stopper thread: offline cancelled\n", cpu);
		phase_up(CPUHP_ONLINE, cpu, NULL);
		goto cancel;
	}
	halfway[cpu] = WHOLE;
	sched_set_fifo(stopper, STOPPER_PRIO);
	init_completion(&cpu_died[cpu]);
	dead_ack[cpu] = false;
	death_seen[cpu] = false;
	wake_up_thread(stopper);
	put_thread(stopper);
	return finish_down(cpu, false);
cancel:
	sched_cpu_activate(cpu);
	clear_bit(cpu, cpumask_bits(&going_down));
	return err;
}

/* cpu_down() with the hotplug lock held: the checks, the work, the counts. */
static int cpu_down_locked(unsigned int cpu, u64 t0)
{
	assert(mutex_owned(&cpu_hotplug_lock));
	/* Checked again: the host may have taken it away meanwhile. */
	int err = check_cpu_number(cpu);

	if (err)
		return err;
	if (halfway[cpu] == NOT_DEAD)
		err = finish_down(cpu, true);
	else if (halfway[cpu] == NO_STOPPER)
		err = cpu_down_phases(cpu, SKIP_OFFLINE_STEPS);
	else if (!cpu_online(cpu))
		err = -EALREADY;
	else if (num_online_cpus() == 1)
		err = -EBUSY;
	else if (cpu == 0)
		err = -EPERM;
	else
		err = cpu_down_phases(cpu, RUN_OFFLINE_STEPS);
	if (err) {
		stats.nr_down_failed++;
	} else {
		stats.nr_down++;
		stats.last_down_ns = ktime_get_ns() - t0;
		/* The caller ran again only when its CPU let it (a slice of a
		 * worker there may end first): how long the CPU took to leave is
		 * the other figure. */
		stats.last_down_dead_ns = died_at_ns[cpu] > t0 ? died_at_ns[cpu] - t0 : 0;
	}
	return err;
}

/* ---- coming up ---------------------------------------------------------- */

static int cpu_up_phases(unsigned int cpu)
{
	trace_event(TR_CPU, current, cpu, TRC_UP_BEGIN);
	int err = phase_up(CPUHP_PREPARE, cpu, NULL);

	if (err)
		return err;
	const struct cpuhp_fault_hooks *faults = READ_ONCE(cpuhp_fault_hooks);

	err = faults && faults->fail_bringup ? faults->fail_bringup(cpu) : 0;
	if (!err)
		err = smp_bringup_cpu(cpu); /* ap_start runs the starting steps */
	kstack_reclaim(); /* online and flushed, or not started: none held for it */
	if (err) {
		pr_warn("cpu%u: did not start (%d)\n", cpu, err);
		phase_down(CPUHP_PREPARE, cpu);
		return err;
	}
	/* Active first: the online steps create threads bound to it. */
	sched_cpu_activate(cpu);
	err = phase_up(CPUHP_ONLINE, cpu, NULL);
	if (err) {
		/* Online but not usable: take it back down. */
		cpu_down_phases(cpu, SKIP_OFFLINE_STEPS);
		return err;
	}
	trace_event(TR_CPU, current, cpu, TRC_ONLINE);
	return 0;
}

/* cpu_up() with the hotplug lock held. */
static int cpu_up_locked(unsigned int cpu, u64 t0)
{
	assert(mutex_owned(&cpu_hotplug_lock));
	/* Checked again: the host may have taken it away meanwhile. */
	int err = check_cpu_number(cpu);

	if (err)
		return err;
	err = halfway[cpu] != WHOLE ? -EBUSY : cpu_online(cpu) ? -EALREADY : cpu_up_phases(cpu);

	if (err) {
		stats.nr_up_failed++;
	} else {
		stats.nr_up++;
		stats.last_up_ns = ktime_get_ns() - t0;
	}
	return err;
}

/* ---- the host's CPUs: physical hot-add and hot-remove ------------------- */

/* cpu_hot_add() with the hotplug lock held. */
static int cpu_hot_add_locked(unsigned int cpu, u64 t0)
{
	assert(mutex_owned(&cpu_hotplug_lock));
	set_bit(cpu, cpumask_bits(&cpu_present_mask)); /* read freely: atomically */
	/* Online already (the host told us twice): nothing to do, no count. */
	return cpu_online(cpu) && halfway[cpu] == WHOLE ? 0 : cpu_up_locked(cpu, t0);
}

/* cpu_hot_remove() with the hotplug lock held. */
static int cpu_hot_remove_locked(unsigned int cpu, u64 t0)
{
	int err;

	assert(mutex_owned(&cpu_hotplug_lock));
	if (cpu == 0)
		err = -EPERM; /* asked before anything else: it never goes */
	else if (!cpumask_test_cpu(cpu, &cpu_present_mask))
		err = -ENODEV;
	else if (cpu_online(cpu) || halfway[cpu] != WHOLE)
		err = cpu_down_locked(cpu, t0);
	else
		err = 0; /* offline already: nothing runs there */
	/* Not present from here on, still under the lock: no cpu_up() can
	 * start it again between its offline and the host's eject. */
	if (!err)
		clear_bit(cpu, cpumask_bits(&cpu_present_mask));
	return err;
}

/* ---- the four ways in --------------------------------------------------- */

/* What cpu_down(), cpu_up(), cpu_hot_add() and cpu_hot_remove() open with:
 * each may sleep, refuses at once what err (its checks without the lock,
 * not counted) says, and otherwise runs op under the hotplug lock, timed
 * from t0. */
static int hotplug_op(unsigned int cpu, u64 t0, int err, int (*op)(unsigned int cpu, u64 t0))
{
	might_sleep();
	if (err)
		return err;
	mutex_lock(&cpu_hotplug_lock);
	err = op(cpu, t0);
	mutex_unlock(&cpu_hotplug_lock);
	return err;
}

/* The refusals of cpu_down() (want_online false) and cpu_up() without the
 * lock: not a CPU to act on, or already in the state asked for. */
static int quick_refusal(unsigned int cpu, bool want_online)
{
	int err = check_cpu_number(cpu);

	if (!err && cpu_online(cpu) == want_online && READ_ONCE(halfway[cpu]) == WHOLE)
		err = -EALREADY;
	return err;
}

int cpu_down(unsigned int cpu)
{
	u64 t0 = ktime_get_ns();

	return hotplug_op(cpu, t0, quick_refusal(cpu, false), cpu_down_locked);
}

int cpu_up(unsigned int cpu)
{
	u64 t0 = ktime_get_ns();

	return hotplug_op(cpu, t0, quick_refusal(cpu, true), cpu_up_locked);
}

int cpu_hot_add(unsigned int cpu)
{
	u64 t0 = ktime_get_ns();

	return hotplug_op(cpu, t0, cpu_possible(cpu) ? 0 : -EINVAL, cpu_hot_add_locked);
}

int cpu_hot_remove(unsigned int cpu)
{
	u64 t0 = ktime_get_ns();

	return hotplug_op(cpu, t0, cpu_possible(cpu) ? 0 : -EINVAL, cpu_hot_remove_locked);
}

const char *cpuhp_error_words(int err, bool up)
{
	switch (err) {
	case -EINVAL:
		return "not a possible CPU";
	case -ENODEV:
		return "not present";
	case -EALREADY:
		return "already in that state";
	case -EBUSY:
		if (up)
			return "left half-way down earlier (taking it offline ends that)";
		return "it is the last online CPU";
	case -EPERM:
		return "the boot CPU stays online";
	case -ENOMEM:
		return "out of memory";
	case -ETIMEDOUT:
		if (up)
			return "it did not start in time";
		return "it did not die in time; left half-way (taking it offline ends that)";
	default: /* a step's own error */
		return "a hotplug step failed; the operation was undone";
	}
}

bool cpu_going_down(unsigned int cpu)
{
	return cpu < NR_CPUS && cpumask_test_cpu(cpu, &going_down);
}

void cpuhp_get_stats(struct cpuhp_stats *st)
{
	mutex_lock(&cpu_hotplug_lock);
	*st = stats;
	mutex_unlock(&cpu_hotplug_lock);
}

/* ---- the built-in steps ------------------------------------------------- */

static int sched_dying(unsigned int cpu)
{
	sched_cpu_dying(cpu);
	return 0;
}

static int sched_dead(unsigned int cpu)
{
	sched_cpu_dead(cpu);
	return 0;
}

static int timers_dying(unsigned int cpu)
{
	timers_migrate(cpu, cpumask_first(&cpu_online_mask));
	return 0;
}

/* Dying steps run in reverse: the timers go first, so that one due while
 * the CPU dies (interrupts off from its first dying step) waits only for
 * them, not for the trustee's hand-over; a timer armed for the CPU by a
 * later step goes to an online CPU at once (arm_timer()). */
static struct cpuhp_step builtin_steps[] = {
	{ .name = "sched:dead", .phase = CPUHP_PREPARE, .teardown = sched_dead },
	{ .name = "sched:dying", .phase = CPUHP_STARTING, .teardown = sched_dying },
	{ .name = "irqs:dying", .phase = CPUHP_STARTING, .teardown = arch_cpu_irqs_dying },
	{ .name = "workqueue:dying", .phase = CPUHP_STARTING, .teardown = workqueue_cpu_dying },
	{ .name = "timers:dying", .phase = CPUHP_STARTING, .teardown = timers_dying },
	{ .name = "workqueue:online",
	  .phase = CPUHP_ONLINE,
	  .startup = workqueue_cpu_online,
	  .teardown = workqueue_cpu_offline },
};

void cpuhp_init(void)
{
	for (int i = 0; i < CPUHP_NR_PHASES; i++)
		INIT_LIST_HEAD(&phases[i]);
	for (size_t i = 0; i < ARRAY_SIZE(builtin_steps); i++)
		list_add_tail(&builtin_steps[i].node, &phases[builtin_steps[i].phase]);
}
