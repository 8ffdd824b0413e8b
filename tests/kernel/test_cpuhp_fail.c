/* tests/kernel/test_cpuhp_fail.c - CPU hotplug steps failed on request
 * (cpuhp_fail_step(), kernel/hotplug.h): the refusals and their reasons,
 * and every step that may fail, failed once in each direction it may, each
 * rollback checked the same way: the CPU back where it started, every
 * step's callbacks balanced for it and its position (up_cpus) right, its
 * work and its timers running where they should. Witness steps in every
 * phase, around the built-in ones, count their calls: a rollback that
 * skips or repeats an undo shows up in their counts. */
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/cpu.h"
#include "kernel/completion.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/printk.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/ktest.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "tests/kernel/ktest_helpers.h"

#define NR_WITNESSES 6
#define NR_STAYING   5 /* registered through every case */

static unsigned int wit_cpu = NR_CPUS;
static unsigned int wit_registered; /* witnesses[0..wit_registered) are */
static atomic_t wit_ups[NR_WITNESSES], wit_downs[NR_WITNESSES];
static volatile int wit_fail_up; /* witness 4 (the last online step) fails its startup with it */

#define WITNESS(i)                                                                                 \
	static int wit_up_##i(unsigned int cpu)                                                    \
	{                                                                                          \
		if (cpu == wit_cpu)                                                                \
			atomic_inc(&wit_ups[i]);                                                   \
		return 0;                                                                          \
	}                                                                                          \
	static int wit_down_##i(unsigned int cpu)                                                  \
	{                                                                                          \
		if (cpu == wit_cpu)                                                                \
			atomic_inc(&wit_downs[i]);                                                 \
		return 0;                                                                          \
	}
WITNESS(0)
WITNESS(1)
WITNESS(2)
WITNESS(3)
WITNESS(4)
WITNESS(5)

static int wit_up_failing(unsigned int cpu)
{
	int err = cpu == wit_cpu ? wit_fail_up : 0;

	return err ? err : wit_up_5(cpu);
}

/* The first NR_STAYING stay registered through a case, around the built-in
 * steps of each phase (the "first" ones before them): a step failed on
 * request has a witness before it in its phase to be undone, and one after
 * it to be redone. The last fails on its own when armed (not on request),
 * for the stopper's retry. */
static struct cpuhp_step witnesses[NR_WITNESSES] = {
	{ .name = "test:w-prepare-first",
	  .phase = CPUHP_PREPARE,
	  .startup = wit_up_0,
	  .teardown = wit_down_0 },
	{ .name = "test:w-prepare",
	  .phase = CPUHP_PREPARE,
	  .startup = wit_up_1,
	  .teardown = wit_down_1 },
	{ .name = "test:w-starting",
	  .phase = CPUHP_STARTING,
	  .startup = wit_up_2,
	  .teardown = wit_down_2 },
	{ .name = "test:w-online-first",
	  .phase = CPUHP_ONLINE,
	  .startup = wit_up_3,
	  .teardown = wit_down_3 },
	{ .name = "test:w-online-last",
	  .phase = CPUHP_ONLINE,
	  .startup = wit_up_4,
	  .teardown = wit_down_4 },
	{ .name = "test:w-online-failing",
	  .phase = CPUHP_ONLINE,
	  .startup = wit_up_failing,
	  .teardown = wit_down_5 },
};
static const bool witness_first[NR_WITNESSES] = { [0] = true, [3] = true };

/* Did the hotplug operation what on cpu succeed? Reported on t if not. */
static bool op_ok(struct ktest *t, int err, const char *what, unsigned int cpu)
{
	if (err)
		ktest_fail(t, __FILE__, __LINE__, "%s(%u) failed: %s", what, cpu, errno_name(err));
	return !err;
}

/* Take cpu offline, register the witnesses for it (none ran for it yet: it
 * is offline) and bring it back. */
static bool witnesses_add(struct ktest *t, unsigned int cpu, unsigned int n)
{
	if (!op_ok(t, cpu_down(cpu), "cpu_down", cpu))
		return false;
	wit_cpu = cpu;
	wit_fail_up = 0;
	wit_registered = n;
	for (unsigned int i = 0; i < n; i++) {
		atomic_set(&wit_ups[i], 0);
		atomic_set(&wit_downs[i], 0);
		cpumask_clear(&witnesses[i].up_cpus);
		if (witness_first[i])
			cpuhp_add_step_first(&witnesses[i]); /* before the built-in ones */
		else
			cpuhp_add_step(&witnesses[i]);
	}
	return op_ok(t, cpu_up(cpu), "cpu_up", cpu);
}

static void witnesses_remove(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		cpuhp_remove_step(&witnesses[i]);
	wit_cpu = NR_CPUS;
	wit_registered = 0;
}

/* The steps as cpuhp_for_each_step() lists them. */
#define MAX_STEPS 32
struct step_list {
	unsigned int n;
	struct cpuhp_step_info info[MAX_STEPS];
};

static void collect(const struct cpuhp_step_info *info, void *arg)
{
	struct step_list *l = arg;

	if (l->n < MAX_STEPS)
		l->info[l->n++] = *info;
}

struct position_check {
	struct ktest *t;
	const char *what;
	unsigned int cpu;
	bool on;
};

static void position_is_right(const struct cpuhp_step_info *info, void *arg)
{
	struct position_check *c = arg;

	if (cpumask_test_cpu(c->cpu, &info->step->up_cpus) != c->on)
		ktest_fail(c->t, __FILE__, __LINE__, "%s: step %s has cpu%u %s, the CPU is %s",
			   c->what, info->step->name, c->cpu, c->on ? "not done" : "done",
			   c->on ? "online" : "offline");
}

static struct completion timer_fired;
static volatile unsigned int timer_fired_on;

static void timer_fn(struct timer_list *tm)
{
	timer_fired_on = smp_processor_id();
	complete(&timer_fired);
}

/* After an operation on cpu (done or rolled back): is it whole, online
 * (on) or offline, with every step agreeing and its work and timers
 * running? */
static void whole_timer(struct ktest *t, unsigned int cpu, bool on, const char *what);

static void whole(struct ktest *t, unsigned int cpu, bool on, const char *what)
{
	struct position_check pc = { .t = t, .what = what, .cpu = cpu, .on = on };

	if (cpu_online(cpu) != on)
		ktest_fail(t, __FILE__, __LINE__, "%s: cpu%u is %s, expected %s", what, cpu,
			   cpu_online(cpu) ? "online" : "offline", on ? "online" : "offline");
	if (cpumask_test_cpu(cpu, &cpu_active_mask) != on || cpu_going_down(cpu))
		ktest_fail(t, __FILE__, __LINE__, "%s: cpu%u is %sactive%s", what, cpu,
			   cpumask_test_cpu(cpu, &cpu_active_mask) ? "" : "not ",
			   cpu_going_down(cpu) ? " and going down" : "");
	for (unsigned int i = 0; i < wit_registered; i++) {
		int ups = atomic_read(&wit_ups[i]), downs = atomic_read(&wit_downs[i]);

		if (ups - downs != (on ? 1 : 0))
			ktest_fail(t, __FILE__, __LINE__,
				   "%s: %s ran up %d times and down %d for cpu%u, which is %s",
				   what, witnesses[i].name, ups, downs, cpu,
				   on ? "online" : "offline");
	}
	cpuhp_for_each_step(position_is_right, &pc);
	ktest_item_for_cpu_runs(t, cpu, on);
	whole_timer(t, cpu, on, what);
}

/* A timer armed for cpu fires: there if it is online, else where its
 * timers went. */
static void whole_timer(struct ktest *t, unsigned int cpu, bool on, const char *what)
{
	struct timer_list tm;

	init_completion(&timer_fired);
	timer_fired_on = NR_CPUS;
	timer_setup(&tm, timer_fn);
	add_timer_on(&tm, ktime_get_ns() + 100 * NSEC_PER_USEC, cpu);
	if (!wait_for_completion_timeout(&timer_fired, KT_WAIT_LIMIT_NS))
		ktest_fail(t, __FILE__, __LINE__, "%s: a timer armed for cpu%u did not fire", what,
			   cpu);
	del_timer_sync(&tm);
	if (on && timer_fired_on != cpu)
		ktest_fail(t, __FILE__, __LINE__, "%s: a timer armed for cpu%u fired on cpu%u",
			   what, cpu, timer_fired_on);
}

static const char *const may_fail_up[] = { "test:w-prepare-first", "test:w-prepare",
					   "workqueue:bh",	   "cpu:bringup",
					   "test:w-online-first",  "workqueue:online",
					   "test:w-online-last",   "sched:active" };
static const char *const may_fail_down[] = { "sched:active", "test:w-online-first",
					     "workqueue:online", "test:w-online-last", "cpu:stop" };

static bool named(const char *const *names, unsigned int n, const char *name)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Which steps may fail, each way, and why the others may not. */
static void refusals_say_why(struct ktest *t)
{
	static struct step_list l;
	unsigned int cpu = ktest_last_online_cpu(), dirs;
	const char *why;
	int err;

	if (!ktest_need_cpus(t, 2) || !witnesses_add(t, cpu, NR_STAYING))
		return;
	l.n = 0;
	cpuhp_for_each_step(collect, &l);
	KT_EXPECT_TRUE(t, l.n > 8 && l.n < MAX_STEPS);
	for (unsigned int i = 0; i < l.n; i++) {
		const struct cpuhp_step_info *in = &l.info[i];

		for (int d = 0; d < CPUHP_NR_DIRS; d++) {
			bool listed = d == CPUHP_UP ?
					      named(may_fail_up, ARRAY_SIZE(may_fail_up),
						    in->step->name) :
					      named(may_fail_down, ARRAY_SIZE(may_fail_down),
						    in->step->name);

			err = cpuhp_fail_step(cpu, in->step->name, CPUHP_DIR_BIT(d), -EIO, &why);
			if (in->can_fail[d] != listed || (err == 0) != listed ||
			    (err && (err != -EPERM || !why || !why[0])))
				ktest_fail(
					t, __FILE__, __LINE__,
					"step %s %s: listed as %s, request gave %s (%s), expected "
					"it %s",
					in->step->name, d == CPUHP_UP ? "up" : "down",
					in->can_fail[d] ? "may fail" : "may not fail",
					errno_name(err), why ?: "no reason",
					listed ? "to be taken" : "refused with a reason");
			KT_EXPECT_EQ(t, cpuhp_fail_step(cpu, NULL, 0, 0, NULL), 0);
		}
	}
	/* Either way: the way it may fail is enough; neither way: refused. */
	KT_EXPECT_EQ(t, cpuhp_fail_step(cpu, "cpu:stop", CPUHP_DIRS_ANY, -ENOMEM, &why), 0);
	KT_EXPECT_STREQ(t, cpuhp_fail_pending(cpu, &dirs, &err), "cpu:stop");
	KT_EXPECT_EQ(t, dirs, CPUHP_DIR_BIT(CPUHP_DOWN));
	KT_EXPECT_EQ(t, err, -ENOMEM);
	KT_EXPECT_EQ(t, cpuhp_fail_step(cpu, "workqueue:dying", CPUHP_DIRS_ANY, -EIO, &why),
		     -EPERM);
	KT_EXPECT_TRUE(t, why && strstr(why, "interrupts off"));
	/* A refused request leaves the one before it. */
	KT_EXPECT_STREQ(t, cpuhp_fail_pending(cpu, &dirs, &err), "cpu:stop");
	KT_EXPECT_EQ(t, cpuhp_fail_step(cpu, "sched:dead", CPUHP_DIR_BIT(CPUHP_DOWN), -EIO, &why),
		     -EPERM);
	KT_EXPECT_TRUE(t, why && strstr(why, "stopped"));
	KT_EXPECT_EQ(t, cpuhp_fail_step(cpu, "no:such-step", CPUHP_DIRS_ANY, -EIO, &why), -ENOENT);
	KT_EXPECT_EQ(t, cpuhp_fail_step(cpu, "workqueue:online", CPUHP_DIRS_ANY, 0, &why), -EINVAL);
	KT_EXPECT_EQ(t, cpuhp_fail_step(cpu, "workqueue:online", CPUHP_DIRS_ANY, EIO, &why),
		     -EINVAL);
	KT_EXPECT_EQ(t, cpuhp_fail_step(cpu, "workqueue:online", 0, -EIO, &why), -EINVAL);
	KT_EXPECT_EQ(t, cpuhp_fail_step(NR_CPUS, "workqueue:online", CPUHP_DIRS_ANY, -EIO, &why),
		     -EINVAL);
	KT_EXPECT_EQ(t, cpuhp_fail_step(cpu, NULL, 0, 0, &why), 0);
	KT_EXPECT_TRUE(t, cpuhp_fail_pending(cpu, &dirs, &err) == NULL);
	/* Nothing armed, nothing fails. */
	KT_EXPECT_EQ(t, cpu_down(cpu), 0);
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	whole(t, cpu, true, "after the refusals");
	witnesses_remove(NR_STAYING);
}

/* The errors the requests carry, in turn: each must come back as is. */
static const int errs[] = { -EIO, -EBUSY, -EAGAIN, -ENOMEM, -ECANCELED };

/* Every step that may fail, failed once each way it may (the refusals'
 * case says which): the operation returns the requested error, the request
 * is used up and counted, and the CPU is whole where it started; then the
 * operation goes through. */
static void every_step_fails_each_way_it_may(struct ktest *t)
{
	static struct step_list l;
	unsigned int cpu = ktest_last_online_cpu(), dirs, k = 0, nr[CPUHP_NR_DIRS] = { 0, 0 };
	char what[96];
	int err;

	if (!ktest_need_cpus(t, 2) || !witnesses_add(t, cpu, NR_STAYING))
		return;
	whole(t, cpu, true, "witnesses registered");
	l.n = 0;
	cpuhp_for_each_step(collect, &l);
	for (unsigned int i = 0; i < l.n; i++) {
		const struct cpuhp_step *st = l.info[i].step;

		for (int d = 0; d < CPUHP_NR_DIRS; d++) {
			bool up = d == CPUHP_UP;

			if (!l.info[i].can_fail[d])
				continue;
			if (up && !op_ok(t, cpu_down(cpu), "cpu_down", cpu))
				goto out;
			u64 requested = READ_ONCE(st->nr_requested[d]);
			int want = errs[k++ % ARRAY_SIZE(errs)];

			scnprintf(what, sizeof(what), "%s failed going %s (%s)", st->name,
				  up ? "up" : "down", errno_name(want));
			KT_EXPECT_EQ(
				t, cpuhp_fail_step(cpu, st->name, CPUHP_DIR_BIT(d), want, NULL), 0);
			err = up ? cpu_up(cpu) : cpu_down(cpu);
			if (err != want)
				ktest_fail(t, __FILE__, __LINE__, "%s: the %s returned %s", what,
					   up ? "cpu_up" : "cpu_down", errno_name(err));
			KT_EXPECT_TRUE(t, cpuhp_fail_pending(cpu, &dirs, &err) == NULL);
			KT_EXPECT_EQ(t, READ_ONCE(st->nr_requested[d]), requested + 1);
			whole(t, cpu, !up, what);
			/* And now the way through. */
			if (!op_ok(t, up ? cpu_up(cpu) : cpu_down(cpu), up ? "cpu_up" : "cpu_down",
				   cpu))
				goto out;
			whole(t, cpu, up, up ? "cpu_up after it" : "cpu_down after it");
			if (!up && !op_ok(t, cpu_up(cpu), "cpu_up", cpu))
				goto out;
			if (named(up ? may_fail_up : may_fail_down,
				  up ? ARRAY_SIZE(may_fail_up) : ARRAY_SIZE(may_fail_down),
				  st->name))
				nr[d]++;
		}
	}
	/* Every step expected to fail each way was found and failed. */
	KT_EXPECT_EQ(t, nr[CPUHP_UP], ARRAY_SIZE(may_fail_up));
	KT_EXPECT_EQ(t, nr[CPUHP_DOWN], ARRAY_SIZE(may_fail_down));
	pr_info("cpuhp_fail: cpu%u: %u steps failed going up, %u going down, each rolled back\n",
		cpu, nr[CPUHP_UP], nr[CPUHP_DOWN]);
out:
	cpuhp_fail_step(cpu, NULL, 0, 0, NULL);
	if (!cpu_online(cpu))
		cpu_up(cpu);
	witnesses_remove(NR_STAYING);
}

/* Rolling back a failed online, the stopper that takes the CPU back down
 * cannot fail the rollback: its first try fails on request, it is tried
 * again (after 10 ms) and the CPU ends offline and whole. */
static void a_stopper_failing_in_a_rollback_is_tried_again(struct ktest *t)
{
	static struct step_list l;
	const struct cpuhp_step *stop = NULL;
	unsigned int cpu = ktest_last_online_cpu();

	if (!ktest_need_cpus(t, 2) || !witnesses_add(t, cpu, NR_WITNESSES))
		return;
	l.n = 0;
	cpuhp_for_each_step(collect, &l);
	for (unsigned int i = 0; i < l.n; i++)
		if (!strcmp(l.info[i].step->name, "cpu:stop"))
			stop = l.info[i].step;
	KT_EXPECT_TRUE(t, stop != NULL);
	if (!stop || !op_ok(t, cpu_down(cpu), "cpu_down", cpu))
		goto out;
	u64 requested = READ_ONCE(stop->nr_requested[CPUHP_DOWN]);

	KT_EXPECT_EQ(t, cpuhp_fail_step(cpu, "cpu:stop", CPUHP_DIR_BIT(CPUHP_DOWN), -ENOMEM, NULL),
		     0);
	wit_fail_up = -EIO; /* the last online step: the CPU goes back down */
	KT_EXPECT_EQ(t, cpu_up(cpu), -EIO);
	wit_fail_up = 0;
	KT_EXPECT_EQ(t, READ_ONCE(stop->nr_requested[CPUHP_DOWN]), requested + 1);
	whole(t, cpu, false, "an online step failed, the stopper's first try too");
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	whole(t, cpu, true, "cpu_up after it");
out:
	wit_fail_up = 0;
	cpuhp_fail_step(cpu, NULL, 0, 0, NULL);
	if (!cpu_online(cpu))
		cpu_up(cpu);
	witnesses_remove(NR_WITNESSES);
}

/* ---- registering a step while CPUs are up (cpuhp_setup_step()) ---------- */

static atomic_t reg_ups[NR_CPUS], reg_downs[NR_CPUS], reg_bad;
static volatile unsigned int reg_fail_cpu = NR_CPUS;

static int reg_up(unsigned int cpu)
{
	if (cpu == reg_fail_cpu)
		return -EIO;
	atomic_inc(&reg_ups[cpu]);
	return 0;
}

static int reg_down(unsigned int cpu)
{
	atomic_inc(&reg_downs[cpu]);
	return 0;
}

/* A starting step's callbacks run on their CPU with interrupts off. */
static int reg_up_here(unsigned int cpu)
{
	if (cpu != smp_processor_id() || !irqs_disabled())
		atomic_inc(&reg_bad);
	return reg_up(cpu);
}

static int reg_down_here(unsigned int cpu)
{
	if (cpu != smp_processor_id() || !irqs_disabled())
		atomic_inc(&reg_bad);
	return reg_down(cpu);
}

static struct cpuhp_step reg_steps[] = {
	{ .name = "test:reg-prepare",
	  .phase = CPUHP_PREPARE,
	  .startup = reg_up,
	  .teardown = reg_down },
	{ .name = "test:reg-starting",
	  .phase = CPUHP_STARTING,
	  .startup = reg_up_here,
	  .teardown = reg_down_here },
	{ .name = "test:reg-online",
	  .phase = CPUHP_ONLINE,
	  .startup = reg_up,
	  .teardown = reg_down },
};

static void reg_reset(void)
{
	for (unsigned int c = 0; c < NR_CPUS; c++) {
		atomic_set(&reg_ups[c], 0);
		atomic_set(&reg_downs[c], 0);
	}
	atomic_set(&reg_bad, 0);
	reg_fail_cpu = NR_CPUS;
}

static bool listed(const char *name)
{
	static struct step_list l;

	l.n = 0;
	cpuhp_for_each_step(collect, &l);
	for (unsigned int i = 0; i < l.n; i++)
		if (!strcmp(l.info[i].step->name, name))
			return true;
	return false;
}

/* In each phase: set up while CPUs are online, the step's startup runs
 * once for each of them (a starting step on the CPU, interrupts off), then
 * for a CPU that comes and goes; taken out, its teardown runs for each.
 * One whose startup fails for a CPU is undone on those before it and not
 * registered. */
static void a_step_set_up_runs_for_the_cpus_already_up(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu(), c;

	if (!ktest_need_cpus(t, 2))
		return;
	for (unsigned int i = 0; i < ARRAY_SIZE(reg_steps); i++) {
		struct cpuhp_step *st = &reg_steps[i];

		reg_reset();
		KT_EXPECT_EQ(t, cpuhp_setup_step(st), 0);
		for_each_possible_cpu(c)
			if (atomic_read(&reg_ups[c]) != (cpu_online(c) ? 1 : 0) ||
			    cpumask_test_cpu(c, &st->up_cpus) != cpu_online(c))
				ktest_fail(t, __FILE__, __LINE__,
					   "%s set up: cpu%u (%s) ran its startup %d times",
					   st->name, c, cpu_online(c) ? "online" : "offline",
					   atomic_read(&reg_ups[c]));
		KT_EXPECT_EQ(t, cpu_down(cpu), 0);
		KT_EXPECT_EQ(t, cpu_up(cpu), 0);
		KT_EXPECT_EQ(t, atomic_read(&reg_downs[cpu]), 1);
		KT_EXPECT_EQ(t, atomic_read(&reg_ups[cpu]), 2);
		cpuhp_teardown_step(st);
		KT_EXPECT_FALSE(t, listed(st->name));
		for_each_possible_cpu(c)
			if (atomic_read(&reg_ups[c]) != atomic_read(&reg_downs[c]))
				ktest_fail(t, __FILE__, __LINE__,
					   "%s taken out: cpu%u ran its startup %d times, its "
					   "teardown "
					   "%d",
					   st->name, c, atomic_read(&reg_ups[c]),
					   atomic_read(&reg_downs[c]));
		KT_EXPECT_EQ(t, atomic_read(&reg_bad), 0);

		/* Failing for the last online CPU: undone on the others, gone. */
		reg_reset();
		reg_fail_cpu = cpu;
		KT_EXPECT_EQ(t, cpuhp_setup_step(st), -EIO);
		KT_EXPECT_FALSE(t, listed(st->name));
		for_each_possible_cpu(c)
			if (atomic_read(&reg_ups[c]) != (cpu_online(c) && c != cpu ? 1 : 0) ||
			    atomic_read(&reg_downs[c]) != atomic_read(&reg_ups[c]))
				ktest_fail(
					t, __FILE__, __LINE__,
					"%s failing for cpu%u: cpu%u ran its startup %d times, its "
					"teardown %d",
					st->name, cpu, c, atomic_read(&reg_ups[c]),
					atomic_read(&reg_downs[c]));
		reg_fail_cpu = NR_CPUS;
		whole(t, cpu, true, "after a failed set-up");
	}
}

/* ---- where the last operations went (cpuhp_last_op()) -------------------- */

/* The index of the first entry of r named name going dir, from i on; r->nr
 * if none. */
static unsigned int entry_at(const struct cpuhp_op_record *r, unsigned int i, const char *name,
			     enum cpuhp_dir dir)
{
	for (; i < r->nr; i++)
		if (r->steps[i].dir == dir && !strcmp(r->steps[i].name, name))
			break;
	return i;
}

/* A cpu_down keeps its steps in the order they ran, the dying ones run on
 * the CPU itself, with the death's wait, summing to no more than the whole;
 * a failed cpu_up keeps its failing step, its error, and the rollback after
 * it. */
static void the_last_operations_say_where_their_time_went(struct ktest *t)
{
	static struct cpuhp_op_record r;
	static const char *const down_order[] = { "sched:active", "workqueue:online", "cpu:stop",
						  "timers:dying", "workqueue:dying",  "sched:dying",
						  "death",	  "sched:dead" };
	unsigned int cpu = ktest_last_online_cpu(), i = 0;
	u64 sum = 0;

	if (!ktest_need_cpus(t, 2))
		return;
	KT_EXPECT_EQ(t, cpu_down(cpu), 0);
	KT_EXPECT_TRUE(t, cpuhp_last_op(false, &r));
	KT_EXPECT_EQ(t, r.cpu, cpu);
	KT_EXPECT_EQ(t, r.result, 0);
	for (unsigned int k = 0; k < ARRAY_SIZE(down_order); k++) {
		unsigned int at = entry_at(&r, i, down_order[k], CPUHP_DOWN);

		if (at == r.nr) {
			ktest_fail(t, __FILE__, __LINE__,
				   "cpu_down's record lacks %s after entry %u", down_order[k], i);
			break;
		}
		if (strstr(down_order[k], ":dying") && r.steps[at].on_cpu != cpu)
			ktest_fail(t, __FILE__, __LINE__, "%s ran on cpu%u, not on cpu%u itself",
				   down_order[k], r.steps[at].on_cpu, cpu);
		i = at + 1;
	}
	for (unsigned int k = 0; k < r.nr; k++)
		sum += r.steps[k].ns;
	KT_EXPECT_LE(t, sum, r.total_ns);
	/* A failed online: its failing step, then the way back down. */
	KT_EXPECT_EQ(t,
		     cpuhp_fail_step(cpu, "workqueue:online", CPUHP_DIR_BIT(CPUHP_UP), -EIO, NULL),
		     0);
	KT_EXPECT_EQ(t, cpu_up(cpu), -EIO);
	KT_EXPECT_TRUE(t, cpuhp_last_op(true, &r));
	KT_EXPECT_EQ(t, r.result, -EIO);
	i = entry_at(&r, 0, "workqueue:online", CPUHP_UP);
	KT_EXPECT_LT(t, i, r.nr);
	if (i < r.nr) {
		KT_EXPECT_EQ(t, r.steps[i].result, -EIO);
		KT_EXPECT_LT(t, entry_at(&r, i, "death", CPUHP_DOWN), r.nr);
	}
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	whole(t, cpu, true, "after the records");
}

/* ---- stopping at a step (cpuhp_target()) ----------------------------------- */

static bool done_for(const struct cpuhp_step *st, unsigned int cpu)
{
	return cpumask_test_cpu(cpu, &st->up_cpus);
}

static unsigned int level_index(const struct cpuhp_step_info **lv, unsigned int n, const char *name)
{
	unsigned int k = 0;

	while (k < n && strcmp(lv[k]->step->name, name))
		k++;
	return k;
}

/* The witnesses at level k of lv: each ran up once more than down if its
 * level is at or below k (the starting one: if the CPU is online), else as
 * often. */
static void whole_witnesses(struct ktest *t, unsigned int cpu, const struct cpuhp_step_info **lv,
			    unsigned int k, const char *what)
{
	unsigned int stop = 0;

	while (strcmp(lv[stop]->step->name, "cpu:stop"))
		stop++;
	for (unsigned int i = 0; i < wit_registered; i++) {
		int ups = atomic_read(&wit_ups[i]), downs = atomic_read(&wit_downs[i]);
		bool in = witnesses[i].phase == CPUHP_STARTING ?
				  k >= stop :
				  level_index(lv, k + 1, witnesses[i].name) <= k;

		if (ups - downs != (in ? 1 : 0))
			ktest_fail(t, __FILE__, __LINE__, "%s at %s: %s ran up %d times, down %d",
				   what, lv[k]->step->name, witnesses[i].name, ups, downs);
	}
}

/* The levels a CPU may stop at, in order, from the listing: every step but
 * the starting ones and cpu:bringup. */
static unsigned int levels(const struct step_list *l, const struct cpuhp_step_info **out)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < l->n; i++)
		if (strcmp(l->info[i].phase, "starting") &&
		    strcmp(l->info[i].step->name, "cpu:bringup"))
			out[n++] = &l->info[i];
	return n;
}

/* cpu stopped at level k of lv, come down to it (down) or up: every step
 * up to it done, none after; the masks as the level promises; work queued
 * for it and a timer armed for it run (there if its pools are bound,
 * elsewhere if not: they are handed to the trustee by a dying step, and
 * taken back by workqueue:online, so an online CPU come down below that
 * step still has them). */
static void stopped_at(struct ktest *t, unsigned int cpu, const struct cpuhp_step_info **lv,
		       unsigned int n, unsigned int k, const struct step_list *l, bool down)
{
	char what[80];
	bool online = false, bound = false;

	scnprintf(what, sizeof(what), "stopped at %s", lv[k]->step->name);
	KT_EXPECT_STREQ(t, cpuhp_cpu_level(cpu), k == n - 1 ? "online" : lv[k]->step->name);
	for (unsigned int i = 0; i < n; i++) {
		if (done_for(lv[i]->step, cpu) != (i <= k))
			ktest_fail(t, __FILE__, __LINE__, "%s: %s is %s for cpu%u", what,
				   lv[i]->step->name, i <= k ? "not done" : "done", cpu);
		if (i <= k && !strcmp(lv[i]->step->name, "cpu:stop"))
			online = true;
		if (i <= k && !strcmp(lv[i]->step->name, "workqueue:online"))
			bound = true;
	}
	for (unsigned int i = 0; i < l->n; i++) /* the starting steps go with the start */
		if (!strcmp(l->info[i].phase, "starting") &&
		    done_for(l->info[i].step, cpu) != online)
			ktest_fail(t, __FILE__, __LINE__, "%s: starting step %s is %s", what,
				   l->info[i].step->name, online ? "not done" : "done");
	if (cpu_online(cpu) != online || cpumask_test_cpu(cpu, &cpu_active_mask) != (k == n - 1))
		ktest_fail(t, __FILE__, __LINE__, "%s: cpu%u online %d active %d", what, cpu,
			   cpu_online(cpu), cpumask_test_cpu(cpu, &cpu_active_mask));
	ktest_item_for_cpu_runs(t, cpu, bound || (down && online));
	whole_timer(t, cpu, online, what);
}

/* From online, stop at every level going down, each time coming back up;
 * then from offline at every level going up, each time going back down;
 * then cpu_up and cpu_down from a level between. Each stop is a state the
 * kernel lives with: checked by stopped_at(). */
static void a_cpu_stops_at_every_level_either_way(struct ktest *t)
{
	static struct step_list l;
	static const struct cpuhp_step_info *lv[MAX_STEPS];
	unsigned int cpu = ktest_last_online_cpu(), n;
	const char *why;

	if (!ktest_need_cpus(t, 2) || !witnesses_add(t, cpu, NR_STAYING))
		return;
	l.n = 0;
	cpuhp_for_each_step(collect, &l);
	n = levels(&l, lv);
	for (unsigned int k = n - 1; k-- > 0;) {
		if (!op_ok(t, cpuhp_target(cpu, lv[k]->step->name, &why), "cpuhp_target", cpu))
			goto out;
		stopped_at(t, cpu, lv, n, k, &l, true);
		whole_witnesses(t, cpu, lv, k, "stopped going down");
		if (!op_ok(t, cpuhp_target(cpu, "online", &why), "cpuhp_target online", cpu))
			goto out;
		whole(t, cpu, true, "back online");
	}
	if (!op_ok(t, cpu_down(cpu), "cpu_down", cpu))
		goto out;
	for (unsigned int k = 0; k + 1 < n; k++) {
		if (!op_ok(t, cpuhp_target(cpu, lv[k]->step->name, &why), "cpuhp_target", cpu))
			goto out;
		stopped_at(t, cpu, lv, n, k, &l, false);
		whole_witnesses(t, cpu, lv, k, "stopped going up");
		if (!op_ok(t, cpuhp_target(cpu, "offline", &why), "cpuhp_target offline", cpu))
			goto out;
		whole(t, cpu, false, "back offline");
	}
	/* cpu_up and cpu_down go on from a level between. */
	KT_EXPECT_EQ(t, cpuhp_target(cpu, "workqueue:online", &why), 0);
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	whole(t, cpu, true, "cpu_up from workqueue:online");
	KT_EXPECT_EQ(t, cpuhp_target(cpu, "cpu:stop", &why), 0);
	KT_EXPECT_EQ(t, cpu_down(cpu), 0);
	whole(t, cpu, false, "cpu_down from cpu:stop");
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	/* Refusals, with reasons. */
	KT_EXPECT_EQ(t, cpuhp_target(cpu, "workqueue:dying", &why), -EPERM);
	KT_EXPECT_TRUE(t, why && strstr(why, "starting and dying"));
	KT_EXPECT_EQ(t, cpuhp_target(cpu, "cpu:bringup", &why), -EPERM);
	KT_EXPECT_EQ(t, cpuhp_target(cpu, "no:such", &why), -ENOENT);
	KT_EXPECT_EQ(t, cpuhp_target(0, "cpu:stop", &why), -EPERM);
	KT_EXPECT_TRUE(t, why && strstr(why, "boot CPU"));
	KT_EXPECT_EQ(t, cpuhp_target(NR_CPUS, "online", &why), -EINVAL);
	/* A failure on the way: back where it started. */
	KT_EXPECT_EQ(t, cpuhp_target(cpu, "workqueue:online", &why), 0);
	KT_EXPECT_EQ(t,
		     cpuhp_fail_step(cpu, "test:w-online-first", CPUHP_DIR_BIT(CPUHP_DOWN), -EIO,
				     NULL),
		     0);
	KT_EXPECT_EQ(t, cpuhp_target(cpu, "offline", &why), -EIO);
	stopped_at(t, cpu, lv, n, level_index(lv, n, "workqueue:online"), &l, true);
	/* The host takes a stopped CPU away: the offline completes first. */
	KT_EXPECT_EQ(t, cpu_hot_remove(cpu), 0);
	KT_EXPECT_FALSE(t, cpumask_test_cpu(cpu, &cpu_present_mask));
	KT_EXPECT_STREQ(t, cpuhp_cpu_level(cpu), "offline");
	KT_EXPECT_EQ(t, cpu_hot_add(cpu), 0);
	whole(t, cpu, true, "removed while stopped, added back");
out:
	cpuhp_fail_step(cpu, NULL, 0, 0, NULL);
	cpuhp_target(cpu, "online", &why);
	whole(t, cpu, true, "at the end");
	witnesses_remove(NR_STAYING);
}

KTEST_SUITE(cpuhp_fail, KTEST_CASE(refusals_say_why), KTEST_CASE(every_step_fails_each_way_it_may),
	    KTEST_CASE(a_stopper_failing_in_a_rollback_is_tried_again),
	    KTEST_CASE(a_step_set_up_runs_for_the_cpus_already_up),
	    KTEST_CASE(the_last_operations_say_where_their_time_went),
	    KTEST_CASE(a_cpu_stops_at_every_level_either_way));

/* Booted with cpuhp_fail=3,workqueue:online,down,EBUSY (tests/harness). */
static void the_command_line_fails_a_step(struct ktest *t)
{
	unsigned int dirs;
	int err;

	if (!ktest_need_cpus(t, 4))
		return;
	KT_EXPECT_STREQ(t, cpuhp_fail_pending(3, &dirs, &err), "workqueue:online");
	KT_EXPECT_EQ(t, dirs, CPUHP_DIR_BIT(CPUHP_DOWN));
	KT_EXPECT_EQ(t, err, -EBUSY);
	KT_EXPECT_EQ(t, cpu_down(3), -EBUSY);
	whole(t, 3, true, "failed from the command line");
	KT_EXPECT_EQ(t, cpu_down(3), 0);
	KT_EXPECT_EQ(t, cpu_up(3), 0);
}

KTEST_SUITE_EXPLICIT(cpuhp_fail_cmdline, KTEST_CASE(the_command_line_fails_a_step));
