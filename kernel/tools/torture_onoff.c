/* kernel/tools/torture_onoff.c - the CPU-hotplug torture's onoff thread:
 * it takes random CPUs down and brings them back, timing and checking each
 * call and the state it left, makes calls that must fail (probes), queues
 * doomed work and arms a timer on a CPU about to go, starves hand-overs of
 * workers (torture_fail_workers), fails a hotplug step (torture_fail_steps),
 * injects the harness's faults, and ends the run (torture_end_run(),
 * torture_end.c). What it checks is in torture.h; what the parts share in
 * torture_internal.h.
 */
#define pr_fmt(fmt) "torture: " fmt
#include "kernel/printk.h"
#include "kernel/tools/fault_inject.h"
#include "kernel/tools/torture_internal.h"
#include "lib/errno.h"
#include "lib/string.h"

#define VIOLATIONS_ABORT 200 /* the run ends early: it has failed */
#define IDLE_PAUSE_MS	 10  /* the onoff thread, after a round without a hotplug call */
#define HOST_PAUSE_MS	 100 /* torture_hotplug=host: between its rounds */

/* ---- the onoff thread ---------------------------------------------------- */

static void count_overtaken(void)
{
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	torture_run.hp.overtaken++;
	spin_unlock_irqrestore(&torture_stats_lock, flags);
}

static u64 hp_calls(const struct cpuhp_stats *st)
{
	return st->nr_down + st->nr_up + st->nr_down_failed + st->nr_up_failed;
}

/* The host modes, after our call and the checks of the CPU's state that
 * followed it: did another caller's cpu_down or cpu_up run meanwhile (since
 * *before, read before our call)? Each takes the hotplug lock for all its
 * changes and is counted before it lets go, so if cpuhp_get_stats() (which
 * waits for that lock) counts only our call, nobody else changed a CPU's
 * state between our call and now: a wrong state is then ours. */
static bool others_moved(const struct cpuhp_stats *before)
{
	struct cpuhp_stats now;

	cpuhp_get_stats(&now);
	return hp_calls(&now) - hp_calls(before) > 1;
}

/* A check of the state our call left failed: a violation, unless (host
 * modes) another caller may have changed it since. */
static bool state_excused(const struct cpuhp_stats *before)
{
	if (!host_mode() || !others_moved(before))
		return false;
	count_overtaken();
	return true;
}

/* cpu_down or cpu_up, timed and checked; may_fail: the error a fault
 * injected for this call may bring (0: none). The onoff thread. In the
 * host modes another caller may get there first: the CPU gone (-ENODEV),
 * already in the asked state (-EALREADY), the last one online (-EBUSY). */
int torture_timed_hotplug(unsigned int cpu, enum hotplug_dir dir, int may_fail)
{
	struct torture_slot *s = &torture_run.slots[ONOFF_SLOT];
	bool up = dir == BRING_UP;
	const char *op = up ? "cpu_up" : "cpu_down";
	struct cpuhp_stats before = { 0 };

	if (host_mode())
		cpuhp_get_stats(&before);
	slot_begin(s, op, NULL, (int)cpu);
	u64 t0 = ktime_get_ns();
	int err = up ? cpu_up(cpu) : cpu_down(cpu);
	u64 dt = ktime_get_ns() - t0;

	slot_end(s);
	if (err && host_mode() && (err == -ENODEV || err == -EALREADY || err == -EBUSY)) {
		count_overtaken();
		return err;
	}
	if (err && err == may_fail) {
		/* Rolled back: the CPU is exactly as it was. */
		bool online = cpu_online(cpu), act = cpumask_test_cpu(cpu, &cpu_active_mask);

		if ((online == up || act == up || cpu_going_down(cpu)) && !state_excused(&before))
			torture_violation(
				"after %s(%u) failed as injected (%s): online %d, active %d, "
				"going down %d",
				op, cpu, errno_name(err), online, act, cpu_going_down(cpu));
		unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

		if (up)
			torture_run.hp.failed_onlines++;
		else
			torture_run.hp.cancelled_offlines++;
		spin_unlock_irqrestore(&torture_stats_lock, flags);
		return err;
	}
	if (err) {
		torture_violation("%s(%u) returned %d (%s)", op, cpu, err, errno_name(err));
		return err;
	}
	torture_lat_add(up ? &torture_run.lat_up : &torture_run.lat_down, dt);
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	if (up)
		torture_run.hp.online++;
	else
		torture_run.hp.offline++;
	spin_unlock_irqrestore(&torture_stats_lock, flags);
	if (up)
		cpumask_clear_cpu(cpu, &torture_run.taken_down);
	else
		cpumask_set_cpu(cpu, &torture_run.taken_down);
	bool online = cpu_online(cpu), act = cpumask_test_cpu(cpu, &cpu_active_mask);

	if ((online != up || act != up || cpu_going_down(cpu)) && !state_excused(&before))
		torture_violation("after %s(%u) returned 0: online %d, active %d, going down %d",
				  op, cpu, online, act, cpu_going_down(cpu));
	/* Online again, each pool has a worker to run what is queued there
	 * (none can go meanwhile: idle ones are culled down to two). */
	for (unsigned int p = 0; up && p < WQ_NR_CPU_POOLS; p++) {
		struct wq_pool_stats ps;

		workqueue_pool_stats(cpu, (enum wq_cpu_pool)p, &ps);
		if (!ps.nr_workers && !state_excused(&before))
			torture_violation("cpu%u is online again, and its %s pool has no worker",
					  cpu, p == WQ_POOL_HIGHPRI ? "high-priority" : "normal");
	}
	return 0;
}

/* torture_fail_steps: an online-phase step that fails for one CPU, the
 * CPU of the onoff thread's current call (NR_CPUS: none). Its "down"
 * failing cancels an offline; its "up" failing makes cpu_up roll back. */
static unsigned int step_fail_cpu = NR_CPUS; /* O */
bool torture_step_added;		     /* TM */

static int step_fail_fn(unsigned int cpu)
{
	return cpu == READ_ONCE(step_fail_cpu) ? -ECANCELED : 0;
}

struct cpuhp_step torture_fail_step = {
	.name = "torture:fail",
	.phase = CPUHP_ONLINE,
	.startup = step_fail_fn,
	.teardown = step_fail_fn,
};

/* walk_steps: cpuhp_for_each_step()'s callback at the start (the hotplug
 * lock held): each step that may fail, each way it may. */
void torture_walk_add(const struct cpuhp_step_info *info, void *arg)
{
	const char *name = info->step->name;

	/* A level to stop at: any step but the starting ones, cpu:bringup
	 * and sched:active (online itself). */
	if (strcmp(info->phase, "starting") && strcmp(name, "cpu:bringup") &&
	    strcmp(name, "sched:active") && torture_run.nr_stops < TORTURE_MAX_WALK)
		strscpy(torture_run.stops[torture_run.nr_stops++].name, name,
			sizeof(torture_run.stops[0].name));
	for (int d = 0; d < CPUHP_NR_DIRS; d++) {
		struct torture_walk *w = &torture_run.walk[torture_run.nr_walk];

		if (!info->can_fail[d] || torture_run.nr_walk == TORTURE_MAX_WALK)
			continue;
		strscpy(w->name, info->step->name, sizeof(w->name));
		w->dir = (enum cpuhp_dir)d;
		torture_run.nr_walk++;
	}
}

static const int walk_errs[] = { -ECANCELED, -EIO, -EBUSY, -EAGAIN };

/* walk_steps: the next step of the walk the call's way, asked to fail for
 * cpu; returns its entry (NULL: none that way). The onoff thread. */
static struct torture_walk *walk_request(unsigned int cpu, enum hotplug_dir dir, int *err)
{
	enum cpuhp_dir d = dir == BRING_UP ? CPUHP_UP : CPUHP_DOWN;

	for (unsigned int n = 0; n < torture_run.nr_walk; n++) {
		unsigned int i = torture_run.walk_next[d]++ % torture_run.nr_walk;
		struct torture_walk *w = &torture_run.walk[i];

		if (w->dir != d)
			continue;
		*err = walk_errs[(w->failed + i) % ARRAY_SIZE(walk_errs)];
		int ret = cpuhp_fail_step(cpu, w->name, CPUHP_DIR_BIT(d), *err, NULL);

		if (ret) /* (unregistered since the start) */
			continue;
		torture_run.walk_calls[d]++;
		return w;
	}
	return NULL;
}

/* After a walk's call: it failed there, with that error, and used the
 * request up. */
static void walk_check(struct torture_walk *w, unsigned int cpu, int want, int err)
{
	unsigned int dirs;
	int e;
	const char *at = cpuhp_failed_step(cpu);

	if (cpuhp_fail_pending(cpu, &dirs, &e)) {
		cpuhp_fail_step(cpu, NULL, 0, 0, NULL);
		torture_violation("walk: %s %s was asked to fail for cpu%u, and the call (%s) "
				  "never reached it",
				  w->name, w->dir == CPUHP_UP ? "up" : "down", cpu,
				  errno_name(err));
		return;
	}
	if (err != want || !at || strcmp(at, w->name)) {
		torture_violation("walk: %s %s was to fail cpu%u's call with %s; it returned %s, "
				  "failed at %s",
				  w->name, w->dir == CPUHP_UP ? "up" : "down", cpu,
				  errno_name(want), errno_name(err), at ?: "no step");
		return;
	}
	w->failed++;
}

/* walk_steps, a call without a failure asked: first stop cpu at the next
 * level of the walk that way (cpuhp_target()) and check it is there and not
 * active; the call then goes on from there. The onoff thread. */
static void walk_stop(unsigned int cpu, enum hotplug_dir dir)
{
	enum cpuhp_dir d = dir == BRING_UP ? CPUHP_UP : CPUHP_DOWN;
	struct torture_stop *st;
	const char *why = NULL, *at;

	if (!torture_run.nr_stops)
		return;
	st = &torture_run.stops[torture_run.stop_next[d]++ % torture_run.nr_stops];
	torture_run.stop_calls[d]++;
	int err = cpuhp_target(cpu, st->name, &why);

	at = cpuhp_cpu_level(cpu);
	if (err || strcmp(at, st->name) || cpumask_test_cpu(cpu, &cpu_active_mask)) {
		torture_violation("walk: cpu%u stopping at %s %s: %s (%s), it is at %s, active %d",
				  cpu, st->name, d == CPUHP_UP ? "going up" : "coming down",
				  errno_name(err), why ?: "", at,
				  cpumask_test_cpu(cpu, &cpu_active_mask));
		return;
	}
	st->stopped[d]++;
}

/* A hotplug call of the onoff thread, with a fault injected now and then
 * (the variants): a failing step, or thread creation failing around it. */
static int hotplug_call(struct prng *r, unsigned int cpu, enum hotplug_dir dir)
{
	struct torture_walk *walk = NULL;
	int may_fail = 0;

	if (torture_run.params.walk_steps && prng_below(r, 2) == 0 &&
	    (walk = walk_request(cpu, dir, &may_fail))) {
		/* (the step asked to fail: may_fail) */
	} else if (torture_run.params.walk_steps && prng_below(r, 2) == 0) {
		walk_stop(cpu, dir);
	} else if (torture_run.params.fail_steps && prng_below(r, 4) == 0) {
		WRITE_ONCE(step_fail_cpu, cpu);
		may_fail = -ECANCELED;
	} else if (torture_run.params.fail_workers && prng_below(r, 4) == 0) {
		kthread_fail_next(1 + (unsigned int)prng_below(r, 3));
		may_fail = -ENOMEM;
	}
	int err = torture_timed_hotplug(cpu, dir, may_fail);

	if (walk)
		walk_check(walk, cpu, may_fail, err);
	else if (may_fail == -ENOMEM)
		kthread_fail_next(0);
	WRITE_ONCE(step_fail_cpu, NR_CPUS);
	return err;
}

/* How a cycle's cpu_up followed its cpu_down. */
enum cycle_kind {
	UP_LATER,   /* in a later round of the onoff thread */
	UP_AT_ONCE, /* right after it, while the trustee may still run its work */
};

/* One more completed offline/online cycle (torture_cycles_completed() reads them). */
static void count_cycle(enum cycle_kind kind)
{
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	WRITE_ONCE(torture_run.hp.cycles, torture_run.hp.cycles + 1);
	torture_run.hp.quick_onlines += kind == UP_AT_ONCE;
	spin_unlock_irqrestore(&torture_stats_lock, flags);
}

/* A call that must fail, with the error hotplug.h documents. */
static void probe_one(const char *call, unsigned int cpu, int err, int want, int also)
{
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	torture_run.hp.probes++;
	spin_unlock_irqrestore(&torture_stats_lock, flags);
	if (err != want && err != also)
		torture_violation("%s(%u) returned %d (%s), expected %s", call, cpu, err,
				  errno_name(err), errno_name(want));
}

/* In the host modes only the calls no other caller can make succeed: on
 * CPU 0 (never taken down: -EPERM, or -EBUSY if it is the last one
 * online) and on impossible numbers. */
static void probe(struct prng *r)
{
	unsigned int cpu, online_cand = NR_CPUS, offline_cand = NR_CPUS;
	bool host = host_mode();

	for (unsigned int i = 0; i < torture_run.nr_cand && !host; i++) {
		if (cpu_online(torture_run.cand[i]))
			online_cand = torture_run.cand[i];
		else
			offline_cand = torture_run.cand[i];
	}
	switch (prng_below(r, 4)) {
	case 0:
		/* The boot CPU stays; when it is the last one online either
		 * reason is right. */
		probe_one("cpu_down", 0, cpu_down(0), -EPERM,
			  num_online_cpus() == 1 || host ? -EBUSY : -EPERM);
		break;
	case 1:
		if (online_cand < NR_CPUS)
			probe_one("cpu_up", online_cand, cpu_up(online_cand), -EALREADY, -EALREADY);
		probe_one("cpu_up", 0, cpu_up(0), -EALREADY, -EALREADY);
		break;
	case 2:
		if (offline_cand < NR_CPUS)
			probe_one("cpu_down", offline_cand, cpu_down(offline_cand), -EALREADY,
				  -EALREADY);
		break;
	default:
		probe_one("cpu_down", NR_CPUS + 1, cpu_down(NR_CPUS + 1), -EINVAL, -EINVAL);
		probe_one("cpu_up", NR_CPUS + 1, cpu_up(NR_CPUS + 1), -EINVAL, -EINVAL);
		for_each_possible_cpu(cpu) {
			if (!host && !cpumask_test_cpu(cpu, &cpu_present_mask)) {
				probe_one("cpu_up", cpu, cpu_up(cpu), -ENODEV, -ENODEV);
				break;
			}
		}
		break;
	}
}

enum doom_time { BEFORE_DOWN, AFTER_DOWN };

/* Work and a timer for cpu, which is about to go down (or just went):
 * the trustee must run the work elsewhere, the timer must move. */
static void doom(struct prng *r, unsigned int cpu, enum doom_time when)
{
	bool before = when == BEFORE_DOWN;

	for (unsigned int i = 0; i < torture_run.nr_shared; i++) {
		struct torture_item *it = &torture_run.items[i];

		if (!(it->flags & TI_DOOM))
			continue;
		if (it->flags & TI_DELAYED)
			torture_item_queue_delayed(it, cpu,
						   torture_random_delay_ns(r, before ? 20 : 3),
						   QUEUE_DELAYED);
		else
			torture_item_queue(it, cpu);
	}
	/* Only this thread takes CPUs down: cpu stays online until we do (not
	 * so in the host modes: add_timer_on() wants an online CPU). */
	if (before && !host_mode())
		torture_timer_arm(&torture_run.timers[ONOFF_TIMER], torture_random_delay_ns(r, 100),
				  cpu);
}

/* torture_fail_workers, now and then: a hand-over starved of workers.
 * Before the offline, no pool may grow (wq_max_workers 1) and the pool of
 * the trustees' workqueue (the unbound high-priority one) has no idle
 * worker (items at a gate, of torture_run.starve_wq which shares it, take them one
 * by one);
 * after it, no thread can be made at all. The offline CPU's trustees must
 * still start (by their workqueue's rescuer), and an item of the
 * WQ_MEM_RECLAIM workqueue queued for the offline CPU must run on an
 * online CPU (by a worker the trustee has, or by the rescuers the offline
 * pool's mayday timer calls), all before anything can be made again. */
#define STARVE_BLOCKERS 64
#define STARVE_LIMIT_NS (30 * NSEC_PER_SEC)
static struct work_struct starve_blockers[STARVE_BLOCKERS], starve_item; /* O */
static struct completion starve_gate, starve_ran;			 /* O */
static unsigned int starve_max_workers;					 /* O */
static u64 starve_trustee_runs[WQ_NR_CPU_POOLS];			 /* O */
static unsigned int starve_queued;					 /* O: blockers queued */
static atomic_t starve_inside;
static unsigned int starve_ran_on; /* written by the item before starve_ran */

static void starve_blocker_fn(struct work_struct *w)
{
	atomic_inc(&starve_inside);
	wait_for_completion(&starve_gate);
}

static void starve_item_fn(struct work_struct *w)
{
	starve_ran_on = smp_processor_id();
	complete(&starve_ran);
}

/* Bounded: false (and a violation) if cond stays false for STARVE_LIMIT_NS. */
#define starve_wait(cond, fmt, ...)                                                                \
	({                                                                                         \
		u64 __t0 = ktime_get_ns();                                                         \
		bool __ok;                                                                         \
		while (!(__ok = (cond)) && ktime_get_ns() - __t0 < STARVE_LIMIT_NS)                \
			msleep(1);                                                                 \
		if (!__ok)                                                                         \
			torture_violation("starved hand-over: " fmt, ##__VA_ARGS__);               \
		__ok;                                                                              \
	})

static u64 trustee_runs(unsigned int cpu, enum wq_cpu_pool which)
{
	struct wq_pool_stats st;

	workqueue_pool_stats(cpu, which, &st);
	return st.nr_trustee_runs;
}

/* The idle workers of the trustees' pool. */
static unsigned int trustee_idle(void)
{
	struct wq_pool_stats st;

	workqueue_wq_pool_stats(torture_run.starve_wq, WORK_CPU_UNBOUND, &st);
	return st.nr_idle;
}

/* Before cpu goes down: note how often its pools' trustees have run; no
 * pool may grow; the trustees' pool made full by construction, one
 * blocker at a time until it has no idle worker (each either starts, on
 * an idle worker, or finds none: then the pool is full). Its workers may
 * all be busy already (trustees of other offline CPUs). */
static void starve_begin(unsigned int cpu)
{
	for (int p = 0; p < WQ_NR_CPU_POOLS; p++)
		starve_trustee_runs[p] = trustee_runs(cpu, (enum wq_cpu_pool)p);
	starve_max_workers = READ_ONCE(wq_max_workers);
	WRITE_ONCE(wq_max_workers, 1);
	init_completion(&starve_gate);
	atomic_set(&starve_inside, 0);
	INIT_WORK(&starve_item, starve_item_fn); /* flushed at the end, queued or not */
	starve_queued = 0;
	while (trustee_idle() && starve_queued < STARVE_BLOCKERS) {
		struct work_struct *w = &starve_blockers[starve_queued++];

		INIT_WORK(w, starve_blocker_fn);
		queue_work(torture_run.starve_wq, w);
		int inside = atomic_read(&starve_inside);

		starve_wait(atomic_read(&starve_inside) > inside ||
				    work_busy(w) == WORK_BUSY_RUNNING || !trustee_idle(),
			    "a blocker in the trustees' pool neither started nor found it "
			    "full in 30 s");
	}
}

/* cpu went down while starved. */
static void starve_check(unsigned int cpu)
{
	struct torture_slot *s = &torture_run.slots[ONOFF_SLOT];
	struct wq_pool_stats before, after;

	slot_begin(s, "starved hand-over", torture_wq_names[TWQ_HIGHPRI], cpu);
	/* Full: no idle worker left when the CPU's trustees were queued. */
	bool full = !trustee_idle();

	kthread_fail_next(~0u); /* for ever, until starve_end() */
	for (int p = 0; p < WQ_NR_CPU_POOLS; p++)
		starve_wait(trustee_runs(cpu, (enum wq_cpu_pool)p) > starve_trustee_runs[p],
			    "the trustee of offline cpu%u's %s pool did not start within 30 s with "
			    "the trustees' pool full and no worker to be made",
			    cpu, p == WQ_POOL_HIGHPRI ? "high-priority" : "normal");
	workqueue_pool_stats(cpu, WQ_POOL_HIGHPRI, &before);
	init_completion(&starve_ran);
	starve_ran_on = NR_CPUS;
	queue_work_on(cpu, torture_run.wqs[TWQ_HIGHPRI], &starve_item);
	if (starve_wait(completion_done(&starve_ran),
			"an item of %s for offline cpu%u did not run within 30 s with no "
			"worker to be made",
			torture_wq_names[TWQ_HIGHPRI], cpu) &&
	    starve_ran_on == cpu)
		torture_violation("starved hand-over: an item for offline cpu%u ran on it", cpu);
	workqueue_pool_stats(cpu, WQ_POOL_HIGHPRI, &after);
	WRITE_ONCE(torture_run.nr_starved, torture_run.nr_starved + 1);
	if (full)
		WRITE_ONCE(torture_run.nr_starved_full, torture_run.nr_starved_full + 1);
	if (after.nr_rescued > before.nr_rescued)
		WRITE_ONCE(torture_run.nr_starved_rescued, torture_run.nr_starved_rescued + 1);
	slot_end(s);
}

static void starve_end(void)
{
	kthread_fail_next(0);
	WRITE_ONCE(wq_max_workers, starve_max_workers);
	complete_all(&starve_gate);
	for (unsigned int i = 0; i < starve_queued; i++)
		flush_work(&starve_blockers[i]);
	flush_work(&starve_item);
}

static bool onoff_should_end(void)
{
	if (READ_ONCE(torture_run.stop_requested) ||
	    atomic_long_read(&torture_run.nr_violations) >= VIOLATIONS_ABORT)
		return true;
	if (torture_run.params.cycles)
		return torture_cycles_completed() >= torture_run.params.cycles;
	return torture_run.params.duration_s &&
	       ktime_get_ns() - torture_run.start_ns >=
		       (u64)torture_run.params.duration_s * NSEC_PER_SEC;
}

/* idle: the round made no hotplug call (there was none to make). */
static void onoff_pause(bool idle)
{
	unsigned int ms = torture_run.params.interval_ms;

	if (idle && ms < IDLE_PAUSE_MS)
		ms = IDLE_PAUSE_MS;
	if (ms)
		wait_event_timeout(torture_onoff_wait, READ_ONCE(torture_run.stop_requested),
				   (u64)ms * NSEC_PER_MSEC);
}

/* The CPU for the next hotplug call: a candidate; in the host modes any
 * present CPU but 0 (the host adds and removes them), NR_CPUS if none. */
static unsigned int pick_cpu(struct prng *r)
{
	struct cpumask m;

	if (!host_mode())
		return torture_run.cand[prng_below(r, torture_run.nr_cand)];
	cpumask_copy(&m, &cpu_present_mask);
	cpumask_clear_cpu(0, &m);
	unsigned int n = cpumask_weight(&m);

	return n ? cpumask_nth(prng_below(r, n), &m) : NR_CPUS;
}

/* When the harness's fault is due: after 10 cycles; in the host modes,
 * after 20 hotplug calls by anyone. */
static bool inject_due(void)
{
	struct cpuhp_stats now;

	if (!host_mode())
		return torture_cycles_completed() >= 10;
	cpuhp_get_stats(&now);
	return now.nr_down + now.nr_up - torture_run.hp_before.nr_down -
		       torture_run.hp_before.nr_up >=
	       20;
}

/* The harness's self-test: faults the torture must catch. */
static void inject_fault(void)
{
	struct torture_slot *s = &torture_run.slots[ONOFF_SLOT];

	if (torture_run.params.inject == TORTURE_INJECT_LOST) {
		pr_notice("injecting a fault: a queueing of %s that never happens\n",
			  torture_run.items[0].name);
		atomic_long_inc(&torture_run.items[0].queued);
	} else if (torture_run.params.inject == TORTURE_INJECT_HANG) {
		pr_notice("injecting a fault: torture/onoff hangs\n");
		slot_begin(s, "injected hang", NULL, 0);
		for (;;)
			msleep(1000);
	}
}

int torture_onoff_thread(void *arg)
{
	struct prng *r = arg;
	bool injected = false;

	while (!onoff_should_end()) {
		if (torture_run.params.inject && !injected && inject_due()) {
			inject_fault();
			injected = true;
		}
		torture_check_cpu("thread", "torture/onoff");
		torture_timer_check_late(&torture_run.timers[ONOFF_TIMER]);
		if (prng_below(r, 16) == 0)
			probe(r);
		if (torture_run.params.hotplug == TORTURE_HOTPLUG_HOST) {
			wait_event_timeout(torture_onoff_wait,
					   READ_ONCE(torture_run.stop_requested),
					   (u64)max(torture_run.params.interval_ms, HOST_PAUSE_MS) *
						   NSEC_PER_MSEC);
			continue;
		}
		unsigned int cpu = pick_cpu(r);

		if (cpu >= NR_CPUS) {
			onoff_pause(true);
		} else if (cpu_online(cpu)) {
			bool starve = torture_run.params.fail_workers && prng_below(r, 4) == 0;

			if (starve)
				starve_begin(cpu);
			doom(r, cpu, BEFORE_DOWN);
			int down = hotplug_call(r, cpu, TAKE_DOWN);

			if (!down)
				doom(r, cpu, AFTER_DOWN);
			if (!down && starve)
				starve_check(cpu);
			if (starve)
				starve_end();
			/* Sometimes at once, while the trustee still has work. */
			if (!down && prng_below(r, 4) == 0 && !hotplug_call(r, cpu, BRING_UP))
				count_cycle(UP_AT_ONCE);
		} else if (cpumask_test_cpu(cpu, &torture_run.taken_down)) {
			if (!hotplug_call(r, cpu, BRING_UP))
				count_cycle(UP_LATER);
		} else {
			onoff_pause(true); /* host modes: offline, not by us */
			continue;
		}
		onoff_pause(false);
	}
	torture_end_run();
	return 0;
}
