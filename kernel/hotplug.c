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
#include "lib/string.h"

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
/* Stopped at a level between offline and online (cpuhp_target()). */
static bool stopped_at[NR_CPUS]; /* H to change; read freely (quick refusals) */

const struct cpuhp_fault_hooks *cpuhp_fault_hooks; /* written once by fault injection */

/* The fixed points of the state machine (hotplug.h, cpuhp_fail_step()):
 * named like steps, for failing them and for the listing; on no phase list,
 * no callbacks (hotplug.c does their work in line). */
static int bringup_startup(unsigned int cpu);
static int active_startup(unsigned int cpu);
static int active_teardown(unsigned int cpu);
static struct cpuhp_step bringup_point = { .name = "cpu:bringup", .startup = bringup_startup };
static struct cpuhp_step stop_point = { .name = "cpu:stop" };
static struct cpuhp_step active_point = { .name = "sched:active",
					  .startup = active_startup,
					  .teardown = active_teardown };

/* Per CPU: the failure requested for its next pass through a step. */
struct fail_request {
	const struct cpuhp_step *step; /* NULL: none */
	unsigned int dirs;	       /* CPUHP_DIR_BIT()s */
	int err;
};
static struct fail_request fail_req[NR_CPUS]; /* H */
/* The last cpu_down ([0]) and cpu_up ([1]) that ran steps, and the one
 * under way (NULL outside one: a step set up or taken out is no operation). */
static struct cpuhp_op_record last_ops[2]; /* H */
static bool last_op_valid[2];		   /* H */
static struct cpuhp_op_record op_now;	   /* H */
static bool op_running;			   /* H */

/* An entry of the operation under way: a step or a wait. H held by the
 * operation (the starting and dying steps add theirs from the CPU itself,
 * while the control CPU waits). */
static void op_note(const char *name, enum cpuhp_dir dir, int result, u64 ns)
{
	if (!op_running)
		return;
	if (op_now.nr == CPUHP_OP_STEPS) {
		op_now.nr_dropped++;
		return;
	}
	struct cpuhp_op_entry *e = &op_now.steps[op_now.nr++];

	strscpy(e->name, name, sizeof(e->name));
	e->dir = dir;
	e->result = result;
	e->on_cpu = smp_processor_id();
	e->ns = ns;
}

static void op_begin(unsigned int cpu, bool up)
{
	assert(mutex_owned(&cpu_hotplug_lock));
	/* (the entries are written before they are read: not cleared) */
	op_now.nr = op_now.nr_dropped = 0;
	op_now.result = 0;
	op_now.total_ns = 0;
	op_now.cpu = cpu;
	op_now.up = up;
	op_running = true;
}

/* Keep it as the last of its kind if it ran any step (a refusal did not). */
static void op_end(int result, u64 t0)
{
	assert(mutex_owned(&cpu_hotplug_lock));
	op_running = false;
	if (!op_now.nr)
		return;
	op_now.result = result;
	op_now.total_ns = ktime_get_ns() - t0;
	last_ops[op_now.up] = op_now;
	last_op_valid[op_now.up] = true;
}

bool cpuhp_last_op(bool up, struct cpuhp_op_record *out)
{
	mutex_lock(&cpu_hotplug_lock);
	bool valid = last_op_valid[up];

	if (valid)
		*out = last_ops[up];
	mutex_unlock(&cpu_hotplug_lock);
	return valid;
}

/* Per CPU: the step that failed its last operation (NULL: none did). */
static const struct cpuhp_step *failed_at[NR_CPUS]; /* H */

static char cpuhp_fail_param[64];
PARAM_STRING(cpuhp_fail, cpuhp_fail_param,
	     "CPU,STEP[,up|down|any[,ERRNO]]: the next pass of CPU through STEP fails "
	     "(`hotplug states` names the steps; default any and EAGAIN)");

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

static void renumber_levels(void);

/* The CPUs past a step just put on its phase's list, where it stands: those
 * the level after it is done for (a starting step goes with cpu:bringup).
 * A step registered without its startup run (cpuhp_add_step()) counts as
 * done for them, as in Linux, where a CPU's position is one number: its
 * teardown runs as they go down. H held. */
static void mark_past(struct cpuhp_step *step)
{
	const struct cpuhp_step *next;

	if (step->phase == CPUHP_STARTING)
		next = &bringup_point;
	else if (!list_is_last(&step->node, &phases[step->phase]))
		next = list_next_entry(step, node);
	else
		next = step->phase == CPUHP_PREPARE ? &bringup_point : &active_point;
	cpumask_copy(&step->up_cpus, &next->up_cpus);
}

void cpuhp_add_step(struct cpuhp_step *step)
{
	mutex_lock(&cpu_hotplug_lock);
	list_add_tail(&step->node, &phases[step->phase]);
	renumber_levels();
	mark_past(step);
	mutex_unlock(&cpu_hotplug_lock);
}

void cpuhp_add_step_first(struct cpuhp_step *step)
{
	mutex_lock(&cpu_hotplug_lock);
	list_add(&step->node, &phases[step->phase]);
	renumber_levels();
	mark_past(step);
	mutex_unlock(&cpu_hotplug_lock);
}

void cpuhp_remove_step(struct cpuhp_step *step)
{
	mutex_lock(&cpu_hotplug_lock);
	list_del_init(&step->node);
	renumber_levels();
	mutex_unlock(&cpu_hotplug_lock);
}

/* A failure requested for st, cpu and dir (cpuhp_fail_step()): taken (once)
 * and returned, or 0. H held by the operation under way. */
static int requested_failure(struct cpuhp_step *st, unsigned int cpu, enum cpuhp_dir dir)
{
	struct fail_request *req = &fail_req[cpu];

	if (req->step != st || !(req->dirs & CPUHP_DIR_BIT(dir)))
		return 0;
	req->step = NULL;
	st->nr_requested[dir]++;
	pr_info("cpu%u: %s %s fails on request (%s)\n", cpu, st->name,
		dir == CPUHP_UP ? "startup" : "teardown", errno_name(req->err));
	return req->err;
}

/* st failed for cpu going dir: counted, and named as what failed the
 * operation under way (cpuhp_failed_step()) unless something did before
 * (a rollback's failure is reported, not the operation's). H held. */
static void step_failed(struct cpuhp_step *st, unsigned int cpu, enum cpuhp_dir dir)
{
	st->nr_failed[dir]++;
	if (!failed_at[cpu])
		failed_at[cpu] = st;
}

/* cpu has passed st going dir: its position (st->up_cpus). */
static void step_passed(struct cpuhp_step *st, unsigned int cpu, enum cpuhp_dir dir)
{
	if (dir == CPUHP_UP)
		cpumask_set_cpu(cpu, &st->up_cpus);
	else
		cpumask_clear_cpu(cpu, &st->up_cpus);
}

/*
 * Run st's callback for cpu going dir, timed, counted and, if it succeeds,
 * recorded as cpu's position. inject: a failure requested for this pass
 * takes the callback's place; never on a way back (a rollback runs the
 * callbacks as they are: a requested failure there would only leave the
 * CPU half-way). H held by the operation under way (the starting and dying
 * steps run on the CPU itself, for the control CPU that holds it).
 */
static int step_call(struct cpuhp_step *st, unsigned int cpu, enum cpuhp_dir dir, bool inject)
{
	int (*fn)(unsigned int cpu) = dir == CPUHP_UP ? st->startup : st->teardown;
	u64 t0 = ktime_get_ns();
	int err = inject ? requested_failure(st, cpu, dir) : 0;

	if (fn)
		trace_event(TR_CPUHP_ENTER, current, TRACE_CPUHP_A(cpu, dir, 0), (u64)fn);
	if (!err && fn)
		err = fn(cpu);
	if (fn)
		trace_event(TR_CPUHP_EXIT, current, TRACE_CPUHP_A(cpu, dir, err), (u64)fn);
	if (fn) { /* a pass with nothing to run takes no time worth showing */
		st->last_ns[dir] = ktime_get_ns() - t0;
		st->last_cpu[dir] = cpu;
		op_note(st->name, dir, err, st->last_ns[dir]);
	}
	if (err)
		step_failed(st, cpu, dir);
	else
		step_passed(st, cpu, dir);
	return err;
}

/* ---- levels: where a CPU is ------------------------------------------------ */

/* Is st done for cpu (passed going up, not yet going down)? H held. */
static bool done(const struct cpuhp_step *st, unsigned int cpu)
{
	return cpumask_test_cpu(cpu, &st->up_cpus);
}

/*
 * The levels of the stack, in the order a CPU passes them coming up: the
 * prepare steps, cpu:bringup (the CPU started, its starting steps run by
 * it), cpu:stop, the online steps, sched:active. A CPU's level is the last
 * one done for it (LEVEL_OFFLINE: none); going down undoes the levels above
 * the target in reverse, going up does those up to it in order. The
 * starting steps are no levels: they go with cpu:bringup and cpu:stop
 * (the CPU runs them itself as it starts and stops). H held.
 */
#define LEVEL_OFFLINE (-1)

/* Number the levels again (st->level): after every change of the lists. */
static void renumber_levels(void)
{
	struct cpuhp_step *st;
	int n = 0;

	list_for_each_entry(st, &phases[CPUHP_PREPARE], node)
		st->level = n++;
	bringup_point.level = n++;
	stop_point.level = n++;
	list_for_each_entry(st, &phases[CPUHP_STARTING], node)
		st->level = LEVEL_OFFLINE - 1; /* none: they go with the start and stop */
	list_for_each_entry(st, &phases[CPUHP_ONLINE], node)
		st->level = n++;
	active_point.level = n;
}

static int level_of(const struct cpuhp_step *st)
{
	return st->level;
}

static int top_level(void)
{
	return level_of(&active_point);
}

static int cpu_level(unsigned int cpu)
{
	assert(mutex_owned(&cpu_hotplug_lock));
	const struct cpuhp_step *st;
	int level = LEVEL_OFFLINE, n = 0;

	list_for_each_entry(st, &phases[CPUHP_PREPARE], node) {
		if (done(st, cpu))
			level = n;
		n++;
	}
	if (done(&bringup_point, cpu))
		level = n;
	if (done(&stop_point, cpu))
		level = n + 1;
	n += 2;
	list_for_each_entry(st, &phases[CPUHP_ONLINE], node) {
		if (done(st, cpu))
			level = n;
		n++;
	}
	return done(&active_point, cpu) ? n : level;
}

/* One step of a move, undone (dir down) or done (up). forward: an
 * operation's way (a requested failure applies, a failure is returned for
 * the caller to move back); else a way back (a failure is reported and
 * the move goes on). */
static int move_step(struct cpuhp_step *st, unsigned int cpu, enum cpuhp_dir dir, bool forward)
{
	int err = step_call(st, cpu, dir, forward);

	if (!err)
		return 0;
	if (forward) {
		pr_warn("cpu%u: %s %s failed (%d): %s\n", cpu, st->name,
			dir == CPUHP_UP ? "startup" : "teardown", err,
			dir == CPUHP_UP ? "rolling back" : "offline cancelled");
		return err;
	}
	report_bug("cpuhp", "cpu%u: %s %s failed while rolling back", cpu, st->name,
		   dir == CPUHP_UP ? "startup" : "teardown");
	return 0;
}

/* The prepare steps above level target undone, last first (the "dead"
 * callbacks; none may fail on request): after the CPU stopped, or on the
 * way back of an online that failed before it started (rollback). */
static void prepare_down(unsigned int cpu, int target, bool rollback)
{
	struct cpuhp_step *st;

	list_for_each_entry_reverse(st, &phases[CPUHP_PREPARE], node)
		if (level_of(st) > target && done(st, cpu) && step_call(st, cpu, CPUHP_DOWN, false))
			report_bug("cpuhp",
				   rollback ? "cpu%u: %s teardown failed while rolling back" :
					      "cpu%u: dead step %s failed after the CPU stopped",
				   cpu, st->name);
}

/* The CPUHP_STARTING phase runs on the CPU itself with interrupts off, so
 * its callbacks cannot fail: an error is reported and ignored, nothing is
 * rolled back (and none is requested: cpuhp_fail_step() refuses them). The
 * "starting" callbacks, in order, as the CPU comes up: */
static void run_starting_steps(unsigned int cpu)
{
	struct cpuhp_step *st;

	list_for_each_entry(st, &phases[CPUHP_STARTING], node)
		if (step_call(st, cpu, CPUHP_UP, false))
			report_bug("cpuhp", "cpu%u: starting step %s failed; ignored", cpu,
				   st->name);
}

/* The "dying" callbacks, in reverse order, as the CPU goes down. */
static void run_dying_steps(unsigned int cpu)
{
	struct cpuhp_step *st;

	list_for_each_entry_reverse(st, &phases[CPUHP_STARTING], node)
		if (step_call(st, cpu, CPUHP_DOWN, false))
			report_bug("cpuhp", "cpu%u: dying step %s failed; ignored", cpu, st->name);
}

/* From ap_start(), interrupts off: the starting callbacks, then online. */
void cpuhp_ap_starting(void)
{
	trace_event(TR_CPU, NULL, smp_processor_id(), TRC_STARTING);
	run_starting_steps(smp_processor_id());
	cpu_mark_online();
}

/* ---- registering a step for the CPUs already up ------------------------- */

struct remote_step {
	struct cpuhp_step *st;
	enum cpuhp_dir dir;
	int err;
};

/* On the CPU (a cross-CPU call: interrupts off), for a starting step. */
static void remote_step_call(void *arg)
{
	struct remote_step *rs = arg;

	rs->err = step_call(rs->st, smp_processor_id(), rs->dir, false);
}

/* Run st's callback going dir for cpu, which is up: where its phase runs
 * it (a starting step on cpu, interrupts off). H held. */
static int step_call_for(struct cpuhp_step *st, unsigned int cpu, enum cpuhp_dir dir)
{
	struct remote_step rs = { .st = st, .dir = dir };
	int err;

	assert(mutex_owned(&cpu_hotplug_lock));
	if (st->phase != CPUHP_STARTING)
		return step_call(st, cpu, dir, false);
	err = smp_call_function_single(cpu, remote_step_call, &rs, true);
	return err ? err : rs.err;
}

/* st's teardown for every CPU it is done for, last first. H held. */
static void step_undo_all(struct cpuhp_step *st)
{
	for (unsigned int cpu = nr_cpu_ids; cpu-- > 0;)
		if (cpumask_test_cpu(cpu, &st->up_cpus) && step_call_for(st, cpu, CPUHP_DOWN))
			report_bug("cpuhp", "cpu%u: %s teardown failed as the step was removed",
				   cpu, st->name);
}

int cpuhp_setup_step(struct cpuhp_step *step)
{
	unsigned int cpu;
	int err = 0;

	might_sleep();
	struct cpumask past;

	mutex_lock(&cpu_hotplug_lock);
	list_add_tail(&step->node, &phases[step->phase]);
	renumber_levels();
	mark_past(step); /* which CPUs are past it: its startup runs for them */
	cpumask_copy(&past, &step->up_cpus);
	cpumask_clear(&step->up_cpus);
	for_each_cpu(cpu, &past) {
		if (halfway[cpu] != WHOLE)
			continue;
		err = step_call_for(step, cpu, CPUHP_UP);
		if (err)
			break;
	}
	if (err) {
		pr_warn("%s: startup failed for cpu%u (%s): not registered\n", step->name, cpu,
			errno_name(err));
		step_undo_all(step);
		list_del_init(&step->node);
		renumber_levels();
	}
	mutex_unlock(&cpu_hotplug_lock);
	return err;
}

void cpuhp_teardown_step(struct cpuhp_step *step)
{
	might_sleep();
	mutex_lock(&cpu_hotplug_lock);
	step_undo_all(step);
	list_del_init(&step->node);
	renumber_levels();
	mutex_unlock(&cpu_hotplug_lock);
}

/* ---- the fixed points' work -------------------------------------------- */

/* cpu:bringup going up: INIT-SIPI-SIPI, the CPU's starting steps and its
 * arrival in cpu_online_mask (fault injection may fail it first). */
static int bringup_startup(unsigned int cpu)
{
	const struct cpuhp_fault_hooks *faults = READ_ONCE(cpuhp_fault_hooks);
	int err = faults && faults->fail_bringup ? faults->fail_bringup(cpu) : 0;

	return err ? err : smp_bringup_cpu(cpu); /* ap_start runs the starting steps */
}

/* sched:active: the CPU becomes a target for wake-ups and new work, or
 * stops being one (and is going down from then on). */
static int active_startup(unsigned int cpu)
{
	sched_cpu_activate(cpu);
	clear_bit(cpu, cpumask_bits(&going_down));
	workqueue_cpu_active(cpu); /* (going down, workqueue:online's teardown remaps) */
	return 0;
}

static int active_teardown(unsigned int cpu)
{
	set_bit(cpu, cpumask_bits(&going_down));
	sched_cpu_deactivate(cpu);
	return 0;
}

/* ---- going down --------------------------------------------------------- */

/* The stopper: FIFO 99 on the dying CPU, so nothing else runs there. */
static int take_cpu_down(void *arg)
{
	unsigned int cpu = smp_processor_id();

	local_irq_disable();
	assert(cpu == (unsigned int)(unsigned long)arg); /* bound, FIFO 99 */
	trace_event(TR_CPU, NULL, cpu, TRC_DYING);
	smp_cpu_dying(); /* out of cpu_online_mask; pending calls run */
	step_passed(&stop_point, cpu, CPUHP_DOWN);
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

/* The stopper thread for cpu (the step cpu:stop; a failure requested for
 * it fails the first try with *err, otherwise -ENOMEM). Rolling back a
 * failed cpu_up() (its online steps undone already: down is the only way),
 * keep trying, as a pool's manager does for a worker, but for
 * cpuhp_timeout_ms at most. */
static struct thread *make_stopper(unsigned int cpu, bool forward, int *err)
{
	void *arg = (void *)(unsigned long)cpu;
	u64 t0 = ktime_get_ns();

	assert(mutex_owned(&cpu_hotplug_lock));
	for (bool first = true;; first = false) {
		struct thread *stopper = NULL;
		u64 t1 = ktime_get_ns();

		trace_event(TR_CPUHP_ENTER, current, TRACE_CPUHP_A(cpu, 1, 0), (u64)take_cpu_down);
		*err = first ? requested_failure(&stop_point, cpu, CPUHP_DOWN) : 0;
		if (!*err)
			stopper = kthread_create_on_cpu(take_cpu_down, arg, cpu, "stop/%u", cpu);
		if (!stopper && !*err)
			*err = -ENOMEM;
		trace_event(TR_CPUHP_EXIT, current, TRACE_CPUHP_A(cpu, 1, stopper ? 0 : *err),
			    (u64)take_cpu_down);
		op_note(stop_point.name, CPUHP_DOWN, stopper ? 0 : *err, ktime_get_ns() - t1);
		if (!stopper)
			step_failed(&stop_point, cpu, CPUHP_DOWN);
		if (stopper || forward || ktime_get_ns() - t0 >= timeout_ns())
			return stopper;
		if (first)
			pr_warn("cpu%u: cannot create its stopper thread to take it back down; "
				"retrying for up to %u ms\n",
				cpu, READ_ONCE(cpuhp_timeout_ms));
		msleep(STOPPER_RETRY_MS);
	}
}

/* The stopper was started: wait (cpuhp_timeout_ms at most) until cpu has
 * signalled its death and let go of every lock, then finish the offline
 * (its dead steps above level target).
 * If it does not, leave it NOT_DEAD, going down, and report it: -ETIMEDOUT. */
static int finish_down(unsigned int cpu, bool again, int target)
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
	/* The dying steps, on the CPU meanwhile, noted theirs: the death is
	 * the rest of the wait (the stopper's start, the halt, our wake-up). */
	u64 wait = ktime_get_ns() - t0;

	for (unsigned int i = 0; i < op_now.nr; i++)
		if (op_now.steps[i].on_cpu == cpu)
			wait -= min(wait, op_now.steps[i].ns);
	op_note("death", CPUHP_DOWN, 0, wait);
	halfway[cpu] = WHOLE;
	arch_cpu_dead(cpu); /* halted: ready to be started as at power-on */
	step_passed(&bringup_point, cpu, CPUHP_DOWN);
	/* Stacks freed while it was dying were held back (kernel/mm/kstack.c):
	 * it has halted, and INIT flushes it before it runs again. */
	kstack_reclaim();
	prepare_down(cpu, target, false);
	trace_event(TR_CPU, current, cpu, TRC_DEAD); /* the offline's end, its dead steps run */
	clear_bit(cpu, cpumask_bits(&going_down));
	return 0;
not_dead:
	halfway[cpu] = NOT_DEAD;
	report_bug("cpuhp", "cpu%u: did not die within %u ms of %s; left going down", cpu,
		   READ_ONCE(cpuhp_timeout_ms), again ? "another cpu_down" : "its stopper's start");
	return -ETIMEDOUT;
}

/* An operation that failed in a step and was undone, for the trace (its
 * slice ends here: scripts/trace2json.py); returns err. */
static int op_failed(unsigned int cpu, int err, enum trace_cpu_phase phase)
{
	trace_event(TR_CPU, current, cpu, phase);
	return err;
}

/*
 * Take cpu down to level target (below its level): the active bit, the
 * online steps, the stopper (the CPU's dying steps and death), the dead
 * steps, each above target. forward: as move_step(); a stopper that cannot
 * be made ends a forward move (the caller moves back up) and is retried on
 * a way back. 0, a step's error, or -ETIMEDOUT: the CPU left half-way
 * ("Bounds"). H held.
 */
static int move_down(unsigned int cpu, int target, bool forward)
{
	struct cpuhp_step *st;
	struct thread *stopper;
	int err;

	if (cpu_online(cpu))
		set_bit(cpu, cpumask_bits(&going_down));
	if (target < top_level() && done(&active_point, cpu) &&
	    (err = move_step(&active_point, cpu, CPUHP_DOWN, forward)))
		return err;
	list_for_each_entry_reverse(st, &phases[CPUHP_ONLINE], node)
		if (level_of(st) > target && done(st, cpu) &&
		    (err = move_step(st, cpu, CPUHP_DOWN, forward)))
			return err;
	if (target >= level_of(&stop_point))
		return 0; /* stopped at an online level: online, not active */
	if (!done(&stop_point, cpu)) {
		prepare_down(cpu, target, !forward); /* not started: prepare steps left */
		return 0;
	}
	stopper = make_stopper(cpu, forward, &err);
	if (!stopper && !forward) {
		/* No way back up (its online steps are undone) and none down. */
		halfway[cpu] = NO_STOPPER;
		report_bug("cpuhp",
			   "cpu%u: no stopper thread to take it back down after a failed online "
			   "within %u ms; left online, inactive and going down",
			   cpu, READ_ONCE(cpuhp_timeout_ms));
		return -ETIMEDOUT;
	}
	if (!stopper) {
		pr_warn("cpu%u: cannot create its stopper thread (%s): offline cancelled\n", cpu,
			errno_name(err));
		return err;
	}
	halfway[cpu] = WHOLE;
	sched_set_fifo(stopper, STOPPER_PRIO);
	init_completion(&cpu_died[cpu]);
	dead_ack[cpu] = false;
	death_seen[cpu] = false;
	wake_up_thread(stopper);
	put_thread(stopper);
	return finish_down(cpu, false, target);
}

/* Bring cpu up to level target (above its level): the prepare steps, the
 * start (INIT-SIPI-SIPI: the CPU runs its starting steps), the online
 * steps, the active bit, each up to target. forward: as move_step(). 0 or a
 * step's error. H held. */
static int move_up(unsigned int cpu, int target, bool forward)
{
	struct cpuhp_step *st;
	int err;

	list_for_each_entry(st, &phases[CPUHP_PREPARE], node)
		if (level_of(st) <= target && !done(st, cpu) &&
		    (err = move_step(st, cpu, CPUHP_UP, forward)))
			return err;
	if (target >= level_of(&bringup_point) && !done(&bringup_point, cpu)) {
		err = step_call(&bringup_point, cpu, CPUHP_UP, forward);
		kstack_reclaim(); /* online and flushed, or not started: none held for it */
		if (err) {
			pr_warn("cpu%u: did not start (%d)\n", cpu, err);
			return err;
		}
		step_passed(&stop_point, cpu, CPUHP_UP); /* nothing to run that way */
	}
	list_for_each_entry(st, &phases[CPUHP_ONLINE], node)
		if (level_of(st) <= target && !done(st, cpu) &&
		    (err = move_step(st, cpu, CPUHP_UP, forward)))
			return err;
	/* Active last, as Linux's CPUHP_AP_ACTIVE: the online steps ran on a
	 * CPU that takes no new work yet, their per-CPU threads on it already
	 * (cpus_usable(), kernel/sched_internal.h). */
	if (target >= top_level() && !done(&active_point, cpu))
		return move_step(&active_point, cpu, CPUHP_UP, forward);
	return 0;
}

/* Move cpu to level target, either way; a failure moves it back to where
 * it was (a cancelled offline, a failed online), unless the CPU was left
 * half-way (-ETIMEDOUT). The trace has the operation as a slice. H held. */
static int cpu_move_steps(unsigned int cpu, int target);

static int cpu_move(unsigned int cpu, int target)
{
	int err = cpu_move_steps(cpu, target), level = cpu_level(cpu);

	WRITE_ONCE(stopped_at[cpu], level != LEVEL_OFFLINE && level < top_level());
	return err;
}

static int cpu_move_steps(unsigned int cpu, int target)
{
	int from = cpu_level(cpu), err;

	assert(mutex_owned(&cpu_hotplug_lock));
	if (target < from) {
		trace_event(TR_CPU, current, cpu, TRC_DOWN_BEGIN);
		err = move_down(cpu, target, true);
		if (!err && target >= level_of(&stop_point))
			trace_event(TR_CPU, current, cpu, TRC_STOPPED);
		if (!err || err == -ETIMEDOUT)
			return err;
		move_up(cpu, from, false); /* cancelled: back where it was */
		if (from >= top_level())
			clear_bit(cpu, cpumask_bits(&going_down));
		return op_failed(cpu, err, TRC_DOWN_FAILED);
	}
	if (target == from)
		return 0;
	trace_event(TR_CPU, current, cpu, TRC_UP_BEGIN);
	err = move_up(cpu, target, true);
	if (!err) {
		trace_event(TR_CPU, current, cpu, target >= top_level() ? TRC_ONLINE : TRC_STOPPED);
		return 0;
	}
	/* Back down where it was (the way back is only down: a stopper that
	 * cannot be made leaves it half-way). */
	if (move_down(cpu, from, false) == -ETIMEDOUT)
		return err;
	return op_failed(cpu, err, TRC_UP_FAILED);
}

/* cpu_down() with the hotplug lock held: the checks, the work, the counts. */
static int cpu_down_locked(unsigned int cpu, u64 t0)
{
	assert(mutex_owned(&cpu_hotplug_lock));
	/* Checked again: the host may have taken it away meanwhile. */
	int err = check_cpu_number(cpu);

	if (err)
		return err;
	failed_at[cpu] = NULL;
	op_begin(cpu, false);
	if (halfway[cpu] == NOT_DEAD)
		err = finish_down(cpu, true, LEVEL_OFFLINE);
	else if (halfway[cpu] == NO_STOPPER)
		err = cpu_move(cpu, LEVEL_OFFLINE); /* its online steps undone already */
	else if (cpu_level(cpu) == LEVEL_OFFLINE)
		err = -EALREADY;
	else if (cpu_online(cpu) && num_online_cpus() == 1)
		err = -EBUSY;
	else if (cpu == 0)
		err = -EPERM;
	else
		err = cpu_move(cpu, LEVEL_OFFLINE); /* from online or a level it stopped at */
	op_end(err, t0);
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

/* cpu_up() with the hotplug lock held. */
static int cpu_up_locked(unsigned int cpu, u64 t0)
{
	assert(mutex_owned(&cpu_hotplug_lock));
	/* Checked again: the host may have taken it away meanwhile. */
	int err = check_cpu_number(cpu);

	if (err)
		return err;
	failed_at[cpu] = NULL;
	op_begin(cpu, true);
	err = halfway[cpu] != WHOLE	    ? -EBUSY :
	      cpu_level(cpu) >= top_level() ? -EALREADY :
					      cpu_move(cpu, top_level());
	op_end(err, t0);

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
	return cpu_level(cpu) >= top_level() && halfway[cpu] == WHOLE ? 0 : cpu_up_locked(cpu, t0);
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
	else if (cpu_level(cpu) != LEVEL_OFFLINE || halfway[cpu] != WHOLE)
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

	/* A glance, the locked path decides: active is all the way up;
	 * offline and not stopped at a level between (cpuhp_target()) is
	 * all the way down. */
	if (err || READ_ONCE(halfway[cpu]) != WHOLE)
		return err;
	if (want_online ? cpumask_test_cpu(cpu, &cpu_active_mask) :
			  !cpu_online(cpu) && !READ_ONCE(stopped_at[cpu]))
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
	{ .name = "workqueue:bh",
	  .phase = CPUHP_PREPARE,
	  .startup = workqueue_bh_prepare,
	  .teardown = workqueue_bh_dead },
	{ .name = "sched:dead", .phase = CPUHP_PREPARE, .teardown = sched_dead },
	{ .name = "sched:dying", .phase = CPUHP_STARTING, .teardown = sched_dying },
	{ .name = "irqs:dying", .phase = CPUHP_STARTING, .teardown = arch_cpu_irqs_dying },
	{ .name = "workqueue:dying",
	  .phase = CPUHP_STARTING,
	  .startup = workqueue_cpu_starting,
	  .teardown = workqueue_cpu_dying },
	{ .name = "timers:dying", .phase = CPUHP_STARTING, .teardown = timers_dying },
	{ .name = "workqueue:online",
	  .phase = CPUHP_ONLINE,
	  .startup = workqueue_cpu_online,
	  .teardown = workqueue_cpu_offline },
};

/* ---- failing on request, the listing ------------------------------------ */

static struct cpuhp_step *const fixed_points[] = { &bringup_point, &stop_point, &active_point };

/* The step named name, a registered one or a fixed point, or NULL. H held. */
static struct cpuhp_step *find_step(const char *name)
{
	struct cpuhp_step *st;

	for (int p = 0; p < CPUHP_NR_PHASES; p++)
		list_for_each_entry(st, &phases[p], node)
			if (!strcmp(st->name, name))
				return st;
	for (size_t i = 0; i < ARRAY_SIZE(fixed_points); i++)
		if (!strcmp(fixed_points[i]->name, name))
			return fixed_points[i];
	return NULL;
}

/* Why st may not be failed going dir (hotplug.h), or NULL: it may. */
static const char *fail_refusal(const struct cpuhp_step *st, enum cpuhp_dir dir)
{
	bool up = dir == CPUHP_UP;

	if (st == &bringup_point)
		return up ? NULL :
			    "the CPU's death cannot fail: it has stopped by then, there is no way "
			    "back";
	if (st == &stop_point)
		return up ? "it runs only on the way down (the stopper thread)" : NULL;
	if (st == &active_point)
		return NULL;
	if (st->phase == CPUHP_STARTING)
		return "starting and dying steps run on the CPU itself with interrupts off: there "
		       "is no way back from them";
	if (st->phase == CPUHP_PREPARE && !up)
		return "dead steps run after the CPU has stopped: there is no way back";
	if (!(up ? st->startup : st->teardown))
		return up ? "it has no startup callback: nothing runs that way to fail" :
			    "it has no teardown callback: nothing runs that way to fail";
	return NULL;
}

/* What is wrong with cpuhp_fail_step()'s arguments (-EINVAL), or NULL. */
static const char *fail_args_invalid(unsigned int cpu, const char *name, unsigned int dirs, int err)
{
	if (!cpu_possible(cpu))
		return "not a possible CPU";
	if (name && (err >= 0 || err < -4095))
		return "the error must be a negative errno";
	if (name && (!dirs || (dirs & ~CPUHP_DIRS_ANY)))
		return "no direction (up, down or any)";
	return NULL;
}

/* cpuhp_fail_step() past its argument checks. H held. */
static int fail_step_locked(unsigned int cpu, const char *name, unsigned int dirs, int err,
			    const char **why)
{
	struct cpuhp_step *st;
	unsigned int allowed = 0;
	const char *refusal = NULL;

	assert(mutex_owned(&cpu_hotplug_lock));
	if (!name) {
		fail_req[cpu].step = NULL;
		return 0;
	}
	st = find_step(name);
	if (!st) {
		*why = "no step of that name (`hotplug states` lists them)";
		return -ENOENT;
	}
	for (int d = 0; d < CPUHP_NR_DIRS; d++) {
		const char *r = dirs & CPUHP_DIR_BIT(d) ? fail_refusal(st, d) : NULL;

		if (r && !refusal)
			refusal = r;
		else if (!r && (dirs & CPUHP_DIR_BIT(d)))
			allowed |= CPUHP_DIR_BIT(d);
	}
	/* Both ways asked (any): the way that may fail is enough. */
	if (refusal && (dirs != CPUHP_DIRS_ANY || !allowed)) {
		*why = refusal;
		return -EPERM;
	}
	fail_req[cpu] = (struct fail_request){ .step = st, .dirs = allowed, .err = err };
	return 0;
}

int cpuhp_fail_step(unsigned int cpu, const char *name, unsigned int dirs, int err,
		    const char **why)
{
	const char *unused;

	if (!why)
		why = &unused;
	*why = fail_args_invalid(cpu, name, dirs, err);
	if (*why)
		return -EINVAL;
	mutex_lock(&cpu_hotplug_lock);
	err = fail_step_locked(cpu, name, dirs, err, why);
	mutex_unlock(&cpu_hotplug_lock);
	return err;
}

/* The step at level n, or NULL (offline, or none). H held. */
static const struct cpuhp_step *level_step(int n)
{
	const struct cpuhp_step *st;

	list_for_each_entry(st, &phases[CPUHP_PREPARE], node)
		if (n-- == 0)
			return st;
	if (n-- == 0)
		return &bringup_point;
	if (n-- == 0)
		return &stop_point;
	list_for_each_entry(st, &phases[CPUHP_ONLINE], node)
		if (n-- == 0)
			return st;
	return n == 0 ? &active_point : NULL;
}

/* cpuhp_target() with H held: what it refuses, then the move. */
static int target_locked(unsigned int cpu, const char *name, const char **why, u64 t0)
{
	const struct cpuhp_step *st = NULL;
	int target, from, err;

	assert(mutex_owned(&cpu_hotplug_lock));
	if (!strcmp(name, "offline")) {
		target = LEVEL_OFFLINE;
	} else if (!strcmp(name, "online")) {
		target = top_level();
	} else {
		st = find_step(name);
		if (!st) {
			*why = "no step of that name (`hotplug states` lists them)";
			return -ENOENT;
		}
		target = level_of(st);
		if (target < LEVEL_OFFLINE || st == &bringup_point) {
			*why = "the CPU runs its starting and dying steps as one with its start "
			       "and "
			       "stop: stop at cpu:stop (started) or at a prepare step (stopped)";
			return -EPERM;
		}
	}
	if (halfway[cpu] != WHOLE) {
		*why = "an operation left it half-way earlier: take it offline to finish that";
		return -EBUSY;
	}
	if (cpu == 0 && target < top_level()) {
		*why = "the boot CPU stays online";
		return -EPERM;
	}
	from = cpu_level(cpu);
	if (target < top_level() && from >= top_level() && cpumask_weight(&cpu_active_mask) == 1) {
		*why = "it is the last active CPU";
		return -EBUSY;
	}
	if (target < level_of(&stop_point) && cpu_online(cpu) && num_online_cpus() == 1) {
		*why = "it is the last online CPU";
		return -EBUSY;
	}
	failed_at[cpu] = NULL;
	op_begin(cpu, target > from);
	err = cpu_move(cpu, target);
	op_end(err, t0);
	if (err) {
		*why = "a step failed on the way: it was moved back where it was";
		if (target > from)
			stats.nr_up_failed++;
		else
			stats.nr_down_failed++;
	}
	return err;
}

int cpuhp_target(unsigned int cpu, const char *name, const char **why)
{
	u64 t0 = ktime_get_ns();
	const char *unused;
	int err = check_cpu_number(cpu);

	if (!why)
		why = &unused;
	*why = err == -EINVAL ? "not a possible CPU" : err ? "not present" : NULL;
	if (err)
		return err;
	might_sleep();
	mutex_lock(&cpu_hotplug_lock);
	err = target_locked(cpu, name, why, t0);
	mutex_unlock(&cpu_hotplug_lock);
	return err;
}

const char *cpuhp_cpu_level(unsigned int cpu)
{
	const char *name = "offline";

	if (!cpu_possible(cpu))
		return NULL;
	mutex_lock(&cpu_hotplug_lock);
	int level = cpu_level(cpu);

	if (level >= top_level())
		name = "online";
	else if (level > LEVEL_OFFLINE)
		name = level_step(level)->name;
	mutex_unlock(&cpu_hotplug_lock);
	return name;
}

const char *cpuhp_failed_step(unsigned int cpu)
{
	const char *name = NULL;

	if (!cpu_possible(cpu))
		return NULL;
	mutex_lock(&cpu_hotplug_lock);
	if (failed_at[cpu])
		name = failed_at[cpu]->name;
	mutex_unlock(&cpu_hotplug_lock);
	return name;
}

const char *cpuhp_fail_pending(unsigned int cpu, unsigned int *dirs, int *err)
{
	const char *name = NULL;

	if (!cpu_possible(cpu))
		return NULL;
	mutex_lock(&cpu_hotplug_lock);
	if (fail_req[cpu].step) {
		name = fail_req[cpu].step->name;
		*dirs = fail_req[cpu].dirs;
		*err = fail_req[cpu].err;
	}
	mutex_unlock(&cpu_hotplug_lock);
	return name;
}

static const char *const phase_names[CPUHP_NR_PHASES] = {
	[CPUHP_PREPARE] = "prepare", [CPUHP_STARTING] = "starting", [CPUHP_ONLINE] = "online"
};

/* One step's line for cpuhp_for_each_step(). */
static void step_info(const struct cpuhp_step *st, const char *phase, const char *up,
		      const char *down, void (*fn)(const struct cpuhp_step_info *, void *),
		      void *arg)
{
	struct cpuhp_step_info info = {
		.step = st,
		.phase = phase,
		.up = up,
		.down = down,
		.can_fail = { !fail_refusal(st, CPUHP_UP), !fail_refusal(st, CPUHP_DOWN) },
	};

	fn(&info, arg);
}

static void phase_info(enum cpuhp_phase p, void (*fn)(const struct cpuhp_step_info *, void *),
		       void *arg)
{
	const struct cpuhp_step *st;

	list_for_each_entry(st, &phases[p], node)
		step_info(st, phase_names[p], NULL, NULL, fn, arg);
}

void cpuhp_for_each_step(void (*fn)(const struct cpuhp_step_info *info, void *arg), void *arg)
{
	mutex_lock(&cpu_hotplug_lock);
	phase_info(CPUHP_PREPARE, fn, arg);
	step_info(&bringup_point, "fixed", "INIT-SIPI-SIPI", "death and INIT", fn, arg);
	phase_info(CPUHP_STARTING, fn, arg);
	step_info(&stop_point, "fixed", NULL, "stopper thread", fn, arg);
	phase_info(CPUHP_ONLINE, fn, arg);
	step_info(&active_point, "fixed", "set active", "clear active", fn, arg);
	mutex_unlock(&cpu_hotplug_lock);
}

/* cpuhp_fail=CPU,STEP[,up|down|any[,ERRNO]] (steps have colons in their
 * names), read once the boot has brought the CPUs up (the possible ones are
 * known) and registered the built-in steps, H held: a malformed or refused
 * request is reported and dropped. */
static void apply_fail_param(void)
{
	char buf[sizeof(cpuhp_fail_param)], *f[4] = { buf, NULL, NULL, NULL };
	unsigned int n = 1, cpu = 0, dirs = CPUHP_DIRS_ANY;
	int err = -EAGAIN;
	const char *why = NULL;

	if (!cpuhp_fail_param[0])
		return;
	strscpy(buf, cpuhp_fail_param, sizeof(buf));
	for (char *c = buf; *c && n < 4; c++)
		if (*c == ',') {
			*c = 0;
			f[n++] = c + 1;
		}
	if (n < 2 || kstrtouint(f[0], 10, &cpu) || !f[1][0]) {
		why = "expected CPU,STEP[,up|down|any[,ERRNO]]";
	} else if (f[2] && !strcmp(f[2], "up")) {
		dirs = CPUHP_DIR_BIT(CPUHP_UP);
	} else if (f[2] && !strcmp(f[2], "down")) {
		dirs = CPUHP_DIR_BIT(CPUHP_DOWN);
	} else if (f[2] && strcmp(f[2], "any")) {
		why = "the direction is up, down or any";
	}
	if (!why && f[3] && !(err = errno_parse(f[3])))
		why = "the error is a name such as EIO or a number";
	if (!why)
		why = fail_args_invalid(cpu, f[1], dirs, err);
	if (!why && !fail_step_locked(cpu, f[1], dirs, err, &why)) {
		pr_info("cpuhp_fail: cpu%u's next pass through %s fails (%s)\n", cpu, f[1],
			errno_name(err));
		return;
	}
	pr_warn("cpuhp_fail=%s ignored: %s\n", cpuhp_fail_param, why);
}

void cpuhp_init(void)
{
	for (int i = 0; i < CPUHP_NR_PHASES; i++)
		INIT_LIST_HEAD(&phases[i]);
	for (size_t i = 0; i < ARRAY_SIZE(builtin_steps); i++)
		list_add_tail(&builtin_steps[i].node, &phases[builtin_steps[i].phase]);
	renumber_levels();
}

void cpuhp_boot_done(void)
{
	struct cpuhp_step *st;

	mutex_lock(&cpu_hotplug_lock);
	for (int p = 0; p < CPUHP_NR_PHASES; p++)
		list_for_each_entry(st, &phases[p], node)
			cpumask_copy(&st->up_cpus, &cpu_online_mask);
	for (size_t i = 0; i < ARRAY_SIZE(fixed_points); i++)
		cpumask_copy(&fixed_points[i]->up_cpus, &cpu_online_mask);
	apply_fail_param();
	mutex_unlock(&cpu_hotplug_lock);
}
