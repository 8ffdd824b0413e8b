/* kernel/tools/torture_end.c - how a CPU-hotplug torture run ends and is
 * judged: the watchdog (operations that hang, more executions than
 * queueings, kernel warnings, progress; it ends a run whose threads are
 * stuck), the end of a run (the CPUs restored, the stress threads stopped,
 * everything drained, the end checks) and the verdict, decided and printed
 * once. What it checks is in torture.h; what the parts share in
 * torture_internal.h.
 */
#define pr_fmt(fmt) "torture: " fmt
#include "kernel/debug/deterministic.h"
#include "kernel/debug/kcsan.h"
#include "kernel/debug/lockdep.h"
#include "kernel/kthread.h"
#include "kernel/mm/kstack.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/tools/torture_internal.h"
#include "kernel/trace.h"
#include "lib/printf.h"

#define STOP_WAIT_NS	(60 * NSEC_PER_SEC) /* for a stress thread to stop */
#define WATCH_PERIOD_MS 200
#define PROGRESS_NS	(30 * NSEC_PER_SEC)
#define REBIND_WAIT_NS	(10 * NSEC_PER_SEC)
#define DRAIN_ROUNDS	5

/* ---- the watchdog -------------------------------------------------------- */

/* How a run reaches its verdict. */
enum run_end {
	RUN_ENDED,   /* torture_end_run(): the threads stopped, the end checks are done */
	RUN_GAVE_UP, /* threads are stuck: the verdict without them */
};

static void report_verdict(enum run_end how);

static void watch_slots(u64 now, u64 *first_stall)
{
	for (unsigned int i = 0; i < NR_SLOTS; i++) {
		struct torture_slot *s = &torture_run.slots[i];
		u64 st = READ_ONCE(s->state);

		if (!(st & 1) || st != s->seen_state) {
			s->seen_state = st;
			s->seen_since = now;
			s->reported = false;
			continue;
		}
		if (s->reported || now - s->seen_since < STALL_NS)
			continue;
		const char *what = READ_ONCE(s->what), *obj = READ_ONCE(s->obj);
		int arg = READ_ONCE(s->arg);

		smp_rmb();
		if (READ_ONCE(s->state) != st)
			continue; /* it returned just now */
		s->reported = true;
		if (obj)
			torture_violation("%s: %s(%s) has not returned after %lu s", s->thread,
					  what, obj, UL((now - s->seen_since) / NSEC_PER_SEC));
		else
			torture_violation("%s: %s(%d) has not returned after %lu s", s->thread,
					  what, arg, UL((now - s->seen_since) / NSEC_PER_SEC));
		if (!*first_stall) {
			*first_stall = now;
			sched_dump_threads();
			workqueue_show();
		}
	}
}

/* Never more executions and cancels than queueings, at any time. */
static void watch_counts(void)
{
	for (unsigned int i = 0; i < torture_run.nr_items; i++) {
		struct torture_item *it = &torture_run.items[i];
		long e = atomic_long_read(&it->executed), c = atomic_long_read(&it->cancelled);
		long q = atomic_long_read(&it->queued);

		if (e + c > q && !it->over_reported) {
			it->over_reported = true;
			torture_violation(
				"item %s ran %ld times and was cancelled %ld times, queued only "
				"%ld",
				it->name, e, c, q);
		}
	}
	for (unsigned int i = 0; i < NR_TIMERS; i++) {
		struct torture_timer *tt = &torture_run.timers[i];
		long f = atomic_long_read(&tt->fired), d = atomic_long_read(&tt->deleted);
		long a = atomic_long_read(&tt->armed);

		if (f + d > a && !tt->over_reported) {
			tt->over_reported = true;
			torture_violation(
				"timer %s fired %ld times and was deleted %ld times, armed only "
				"%ld",
				tt->name, f, d, a);
		}
	}
}

static void print_progress(u64 now)
{
	struct work_totals works;
	struct hp_counts hp;

	torture_sum_items(&works);
	torture_read_hp_counts(&hp);
	pr_info("%lu s: %lu cycles (%lu offline, %lu online), %lu works run, %ld violations\n",
		UL((now - torture_run.start_ns) / NSEC_PER_SEC), UL(hp.cycles), UL(hp.offline),
		UL(hp.online), UL(works.executed), atomic_long_read(&torture_run.nr_violations));
}

int torture_watch_thread_fn(void *unused)
{
	u64 first_stall = 0, next_progress = torture_run.start_ns + PROGRESS_NS;
	int offline_fires_seen = 0;

	while (!kthread_should_stop()) {
		msleep(WATCH_PERIOD_MS);
		u64 now = ktime_get_ns();

		watch_slots(now, &first_stall);
		watch_counts();
		torture_check_kernel_reports();
		int n = atomic_read(&torture_run.timer_offline_fires);

		if (n != offline_fires_seen) {
			torture_violation(
				"a torture timer fired on cpu%u while it was offline (%d such so "
				"far)",
				READ_ONCE(torture_run.timer_offline_cpu), n);
			offline_fires_seen = n;
		}
		if (atomic_read(&torture_run.verdict_given))
			continue;
		if (first_stall && now - first_stall >= STALL_NS) {
			pr_err("threads are stuck: ending the run without them\n");
			report_verdict(RUN_GAVE_UP);
			continue;
		}
		if (now >= next_progress) {
			print_progress(now);
			next_progress += PROGRESS_NS;
		}
	}
	return 0;
}

/* ---- the end ------------------------------------------------------------- */

static bool item_idle(struct torture_item *it)
{
	return !work_pending(&it->dw.work) && !(work_busy(&it->dw.work) & WORK_BUSY_RUNNING) &&
	       !((it->flags & TI_DELAYED) && timer_pending(&it->dw.timer));
}

/* Flush every item until none is pending or running. Executions that
 * began before "stopping" may re-queue once more: hence rounds. */
static bool drain_items(struct torture_slot *s)
{
	for (unsigned int round = 0; round < DRAIN_ROUNDS; round++) {
		bool idle = true;

		for (unsigned int i = 0; i < torture_run.nr_items; i++)
			torture_do_flush(s, &torture_run.items[i]);
		for (unsigned int w = 0; w < NR_TWQ; w++)
			torture_do_flush_workqueue(s, (enum torture_wq)w);
		for (unsigned int i = 0; i < torture_run.nr_items; i++)
			idle &= item_idle(&torture_run.items[i]);
		if (idle)
			return true;
	}
	for (unsigned int i = 0; i < torture_run.nr_items; i++)
		if (!item_idle(&torture_run.items[i]))
			torture_violation(
				"item %s still pending or running after %u rounds of flushing",
				torture_run.items[i].name, DRAIN_ROUNDS);
	return false;
}

/* Every item ran or was cancelled once per queueing, and none is still
 * inside its function. */
static void check_items_balanced(void)
{
	for (unsigned int i = 0; i < torture_run.nr_items; i++) {
		struct torture_item *it = &torture_run.items[i];
		long q = atomic_long_read(&it->queued), e = atomic_long_read(&it->executed);
		long c = atomic_long_read(&it->cancelled);

		if (e + c != q)
			torture_violation(
				"item %s: queued %ld times, ran %ld, cancelled %ld (%s %ld)",
				it->name, q, e, c, e + c < q ? "lost" : "extra",
				e + c < q ? q - e - c : e + c - q);
		if (atomic_read(&it->inside))
			torture_violation("item %s: %d executions still inside", it->name,
					  atomic_read(&it->inside));
		if (it->flags & TI_PRIVATE)
			torture_private_idle_check(it);
	}
}

/* Every timer fired or was deleted once per arming (those still pending
 * are deleted here). */
static void check_timers_balanced(void)
{
	for (unsigned int i = 0; i < NR_TIMERS; i++) {
		struct torture_timer *tt = &torture_run.timers[i];

		if (del_timer_sync(&tt->timer))
			atomic_long_inc(&tt->deleted);
		long a = atomic_long_read(&tt->armed), f = atomic_long_read(&tt->fired);
		long d = atomic_long_read(&tt->deleted);

		if (f + d != a)
			torture_violation("timer %s: armed %ld times, fired %ld, deleted %ld",
					  tt->name, a, f, d);
	}
}

/* Every online CPU's pools are bound again (busy workers rebind after
 * their item: give them a moment). */
static void check_pools_rebound(void)
{
	u64 t0 = ktime_get_ns();
	unsigned int cpu, left;

	do {
		left = 0;
		for_each_online_cpu(cpu)
			left += workqueue_pool_unbound_workers(cpu, WQ_POOL_NORMAL) +
				workqueue_pool_unbound_workers(cpu, WQ_POOL_HIGHPRI);
		if (left)
			msleep(10);
	} while (left && ktime_get_ns() - t0 < REBIND_WAIT_NS);
	for_each_online_cpu(cpu) {
		unsigned int n = workqueue_pool_unbound_workers(cpu, WQ_POOL_NORMAL),
			     h = workqueue_pool_unbound_workers(cpu, WQ_POOL_HIGHPRI);

		if (n + h)
			torture_violation(
				"cpu%u is online but %u normal and %u highpri workers are still "
				"unbound",
				cpu, n, h);
	}
	if (left) { /* for whoever debugs it: the busy ones too */
		workqueue_show();
		sched_dump_threads();
		smp_show_backtraces();
		msleep(200);
	}
}

/* cpuhp_get_stats() counted exactly our successful calls; in the host
 * modes, ours and those of others (whose count it gives torture_run.hp). */
static void check_hotplug_counted(void)
{
	struct cpuhp_stats now;

	cpuhp_get_stats(&now);
	struct hp_counts hp;
	u64 downs = now.nr_down - torture_run.hp_before.nr_down,
	    ups = now.nr_up - torture_run.hp_before.nr_up;

	torture_read_hp_counts(&hp);
	if (host_mode() ? downs < hp.offline || ups < hp.online :
			  downs != hp.offline || ups != hp.online)
		torture_violation(
			"cpuhp_get_stats: %lu offline and %lu online during the run, we made %lu "
			"and %lu",
			UL(downs), UL(ups), UL(hp.offline), UL(hp.online));
	if (host_mode()) {
		unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

		torture_run.hp.others_offline = downs >= hp.offline ? downs - hp.offline : 0;
		torture_run.hp.others_online = ups >= hp.online ? ups - hp.online : 0;
		spin_unlock_irqrestore(&torture_stats_lock, flags);
	}
}

/* Every hotplug operation ends by releasing the kernel stacks freed while
 * its CPU was in transit: none may still be held. */
static void check_stacks_released(void)
{
	unsigned int held = kstack_nr_held(NULL);

	if (held && !cpus_in_transit())
		torture_violation(
			"%u freed kernel stacks still held back, with no CPU starting or dying",
			held);
}

/* The run did what it was asked: CPUs went offline and online (the cycles
 * asked for), work ran, and each variant made its calls fail or its
 * changes. After check_hotplug_counted(): the host modes count the others'
 * calls. */
/* walk_steps: once the calls asked to fail one way were as many as the
 * steps that may fail that way, the turns have reached each of them: each
 * must have failed a call (walk_check() reported any that did not). */
static void check_walk(void)
{
	unsigned int per_dir[CPUHP_NR_DIRS] = { 0, 0 };

	if (!torture_run.params.walk_steps)
		return;
	if (!torture_run.nr_walk)
		torture_violation("walk: no step may fail");
	for (unsigned int i = 0; i < torture_run.nr_walk; i++)
		per_dir[torture_run.walk[i].dir]++;
	for (unsigned int i = 0; i < torture_run.nr_stops; i++)
		for (int d = 0; d < CPUHP_NR_DIRS; d++)
			if (!torture_run.stops[i].stopped[d] &&
			    torture_run.stop_calls[d] >= torture_run.nr_stops)
				torture_violation(
					"walk: never stopped at %s %s (%lu stops that way)",
					torture_run.stops[i].name,
					d == CPUHP_UP ? "going up" : "coming down",
					UL(torture_run.stop_calls[d]));
	for (unsigned int i = 0; i < torture_run.nr_walk; i++) {
		const struct torture_walk *w = &torture_run.walk[i];

		if (!w->failed && torture_run.walk_calls[w->dir] >= per_dir[w->dir])
			torture_violation(
				"walk: %s %s never failed a call (%lu calls asked to fail "
				"that way)",
				w->name, w->dir == CPUHP_UP ? "up" : "down",
				UL(torture_run.walk_calls[w->dir]));
	}
}

/* The walk's line of the summary: each step, each way, and its failures. */
static void print_walk(void)
{
	char line[640];
	int len = 0;

	if (!torture_run.params.walk_steps)
		return;
	for (unsigned int i = 0; i < torture_run.nr_walk; i++) {
		const struct torture_walk *w = &torture_run.walk[i];

		len += scnprintf(line + len, sizeof(line) - len, "%s%s %s %lu", i ? ", " : "",
				 w->name, w->dir == CPUHP_UP ? "up" : "down", UL(w->failed));
	}
	pr_notice("walk_steps: %u steps x ways, %lu calls failed up and %lu down on request, "
		  "each rolled back and checked: %s\n",
		  torture_run.nr_walk, UL(torture_run.walk_calls[CPUHP_UP]),
		  UL(torture_run.walk_calls[CPUHP_DOWN]), line);
	len = 0;
	for (unsigned int i = 0; i < torture_run.nr_stops; i++)
		len += scnprintf(line + len, sizeof(line) - len, "%s%s %lu/%lu", i ? ", " : "",
				 torture_run.stops[i].name,
				 UL(torture_run.stops[i].stopped[CPUHP_DOWN]),
				 UL(torture_run.stops[i].stopped[CPUHP_UP]));
	pr_notice("walk_steps: stopped %lu times coming down and %lu going up, at each level in "
		  "turn (down/up): %s\n",
		  UL(torture_run.stop_calls[CPUHP_DOWN]), UL(torture_run.stop_calls[CPUHP_UP]),
		  line);
}

static void check_run_exercised(void)
{
	u64 cycles = torture_cycles_completed();
	struct work_totals works;
	struct hp_counts hp;

	torture_sum_items(&works);
	torture_read_hp_counts(&hp);
	if (!cycles && !host_mode())
		torture_violation("no offline/online cycle was completed");
	else if (host_mode() && !hp.offline && !hp.online && !hp.others_offline &&
		 !hp.others_online)
		torture_violation("no CPU went offline or online during the run");
	else if (torture_run.params.cycles && cycles < torture_run.params.cycles &&
		 !READ_ONCE(torture_run.stop_requested))
		torture_violation("only %lu of %u cycles were done", UL(cycles),
				  torture_run.params.cycles);
	if (!works.executed)
		torture_violation("no work item ran");
	if (torture_run.params.fail_steps && !hp.cancelled_offlines && !hp.failed_onlines)
		torture_violation("torture_fail_steps: no call failed at its step");
	check_walk();
	if (torture_run.params.fail_workers && !hp.cancelled_offlines && !hp.failed_onlines)
		torture_violation("torture_fail_workers: no call failed for want of a thread");
	if (torture_run.params.fail_workers && !READ_ONCE(torture_run.nr_starved) && !host_mode())
		torture_violation("torture_fail_workers: no hand-over was starved of threads");
	if (torture_run.params.attrs && !atomic_long_read(&torture_run.nr_attrs))
		torture_violation("torture_attrs: no attribute change was made");
}

/* In a sanitized image, the data-race detector sampled the run at its
 * floor or above (kernel/debug/kcsan.h): with fewer watchpoints, "no race seen"
 * means no race looked for. */
static void check_detector_sampled(void)
{
	struct kcsan_stats during;
	char why[TORTURE_REPORT_LEN];

	kcsan_stats_since(&during, &torture_run.kcsan_at_start);
	if (!kcsan_sampled(&during, why, sizeof(why)))
		torture_violation("%s", why);
}

/* The end state, once the stress threads have stopped and the items are
 * drained: each check reports what it finds as violations, in this order. */
static void final_checks(void)
{
	check_items_balanced();
	check_timers_balanced();
	check_pools_rebound();
	check_hotplug_counted();
	check_stacks_released();
	torture_check_kernel_reports();
	check_run_exercised();
	check_detector_sampled();
}

void torture_destroy_wqs(void)
{
	for (unsigned int w = 0; w < NR_TWQ; w++) {
		if (torture_run.wqs[w])
			destroy_workqueue(torture_run.wqs[w]);
		torture_run.wqs[w] = NULL;
	}
	if (torture_run.starve_wq)
		destroy_workqueue(torture_run.starve_wq);
	torture_run.starve_wq = NULL;
}

/* The onoff thread, once the cycles or the time are done: restore the
 * CPUs, stop the stress threads, drain everything, check the end state,
 * then report the verdict and stop the watchdog. */
void torture_end_run(void)
{
	struct torture_slot *s = &torture_run.slots[ONOFF_SLOT];
	bool stuck = false;

	/* Leave the CPUs as we found them (the stress goes on meanwhile); in
	 * the host modes, bring back those we took down that are still there. */
	for (unsigned int i = 0; i < torture_run.nr_cand && !host_mode(); i++)
		if (cpumask_test_cpu(torture_run.cand[i], &torture_run.initially_online) &&
		    !cpu_online(torture_run.cand[i]))
			torture_timed_hotplug(torture_run.cand[i], BRING_UP, 0);
	unsigned int cpu;

	for_each_cpu(cpu, &torture_run.taken_down)
		if (host_mode() && cpumask_test_cpu(cpu, &cpu_present_mask) && !cpu_online(cpu))
			torture_timed_hotplug(cpu, BRING_UP, 0);
	WRITE_ONCE(torture_run.stopping, true);
	smp_mb();
	for (unsigned int i = 0; i < torture_run.params.threads; i++) {
		slot_begin(s, "waiting for", torture_run.stress[i].thread->name, 0);
		u64 left = wait_for_completion_timeout(&torture_run.stress[i].done, STOP_WAIT_NS);

		slot_end(s);
		if (!left) {
			torture_violation("%s did not stop within %lu s",
					  torture_run.stress[i].thread->name,
					  UL(STOP_WAIT_NS / NSEC_PER_SEC));
			stuck = true;
		}
	}
	if (stuck) {
		report_verdict(RUN_GAVE_UP);
		return; /* leave everything as it is: threads still use it */
	}
	for (unsigned int i = 0; i < torture_run.params.threads; i++)
		kthread_stop(torture_run.stress[i].thread);
	torture_timer_delete(&torture_run.timers[ONOFF_TIMER]);
	bool idle = drain_items(s);

	if (idle) {
		for (unsigned int w = 0; w < NR_TWQ; w++) {
			slot_begin(s, "drain_workqueue", torture_wq_names[w], 0);
			drain_workqueue(torture_run.wqs[w]);
			slot_end(s);
		}
	}
	final_checks();
	mutex_lock(&torture_mutex);
	if (torture_step_added)
		cpuhp_remove_step(&torture_fail_step);
	torture_step_added = false;
	mutex_unlock(&torture_mutex);
	if (idle)
		torture_destroy_wqs();
	report_verdict(RUN_ENDED);
	kthread_stop(torture_run.watch_thread);
	/* Items left in flight (a violation) keep the run "active": a new one
	 * must not re-initialise them under the workqueue. */
	mutex_lock(&torture_mutex);
	torture_active = !idle;
	mutex_unlock(&torture_mutex);
}

static void print_latency(const char *what, const struct value_summary *l)
{
	pr_notice("%s latency us: min %lu median %lu max %lu (%lu samples)\n", what, to_us(l->min),
		  to_us(l->median), to_us(l->max), UL(l->n));
}

/* Deterministic mode: how often each delay point delayed. */
static void report_delay_points(void)
{
	struct delay_stats st;
	char buf[256];
	size_t n = 0;

	if (!delay_points_on)
		return;
	delay_get_stats(&st);
	buf[0] = '\0';
	for (int i = 0; i < NR_DELAY_SITES && n < sizeof(buf); i++)
		if (st.passes[i])
			n += snprintf(buf + n, sizeof(buf) - n, " %s %lu/%lu",
				      delay_site_name((enum delay_site)i), UL(st.delays[i]),
				      UL(st.passes[i]));
	pr_notice("delay points (delayed/passed):%s; %lu us of delays in all\n", buf,
		  UL(st.delayed_ns / NSEC_PER_USEC));
}

/* Fill in torture_run.result from the run's counts: the verdict (passed unless
 * there were violations or the run gave up) and the statistics it reports. */
static void decide_verdict(bool gave_up)
{
	struct torture_result *res = &torture_run.result;
	struct work_totals works;
	struct hp_counts hp;
	u64 armed = 0, fired = 0;

	torture_lat_summary(&torture_run.lat_down, &res->offline);
	torture_lat_summary(&torture_run.lat_up, &res->online);
	torture_sum_items(&works);
	for (unsigned int i = 0; i < NR_TIMERS; i++) {
		armed += atomic_long_read(&torture_run.timers[i].armed);
		fired += atomic_long_read(&torture_run.timers[i].fired);
	}
	torture_read_hp_counts(&hp);
	res->cycles = hp.cycles;
	res->nr_offline = hp.offline;
	res->nr_online = hp.online;
	res->quick_onlines = hp.quick_onlines;
	res->probes = hp.probes;
	res->cancelled_offlines = hp.cancelled_offlines;
	res->failed_onlines = hp.failed_onlines;
	res->overtaken = hp.overtaken;
	res->others_offline = hp.others_offline;
	res->others_online = hp.others_online;
	res->attrs_changes = (u64)atomic_long_read(&torture_run.nr_attrs);
	res->starved_handovers = READ_ONCE(torture_run.nr_starved);
	res->starved_rescued = READ_ONCE(torture_run.nr_starved_rescued);
	res->starved_full = READ_ONCE(torture_run.nr_starved_full);
	res->seed = torture_run.params.seed;
	res->elapsed_ns = ktime_get_ns() - torture_run.start_ns;
	res->stopped = READ_ONCE(torture_run.stop_requested);
	res->gave_up = gave_up;
	res->works_queued = works.queued;
	res->works_run = works.executed;
	res->works_cancelled = works.cancelled;
	res->ran_elsewhere = atomic_long_read(&torture_run.ran_elsewhere);
	res->flushes = atomic_long_read(&torture_run.nr_flushes);
	res->cancels = atomic_long_read(&torture_run.nr_cancels);
	res->timers_armed = armed;
	res->timers_fired = fired;
	res->spin_stuck = READ_ONCE(spin_stuck_reports) - torture_run.spin_stuck_at_start;
	kstack_nr_held(&res->stacks_held);
	res->stacks_held -= torture_run.stacks_held_at_start;
	kcsan_stats_since(&res->detector, &torture_run.kcsan_at_start);
	unsigned long flags = spin_lock_irqsave(&torture_report_lock);

	res->violations = atomic_long_read(&torture_run.nr_violations);
	res->passed = res->violations == 0 && !gave_up;
	spin_unlock_irqrestore(&torture_report_lock, flags);
}

/* The validators' statistics beside the verdict: lockdep's since boot, and
 * the data-race detector's during the run, where it is built in. */
static void print_validators(const struct torture_result *res)
{
	const struct kcsan_stats *kc = &res->detector;
	u64 elapsed_ns = max(res->elapsed_ns, 1ull);
	struct lockdep_stats ld;

	lockdep_get_stats(&ld);
	pr_notice("lock validator: %s, %lu report(s); classes %u/%u, dependencies %u/%u, chains "
		  "%u/%u, deepest %u held; chain cache %lu hits, %lu misses\n",
		  !ld.enabled ? "off (lockdep=0)" :
		  ld.on	      ? "on" :
				"off after a report",
		  ld.reports, ld.classes, ld.max_classes, ld.deps, ld.max_deps, ld.chains,
		  ld.max_chains, ld.max_depth, UL(ld.chain_hits), UL(ld.chain_misses));
	if (kc->on)
		pr_notice(
			"data-race detector: %lu watchpoints set (%lu per minute; %lu per million "
			"plain accesses, floor %u), %lu races seen, %lu pairs of functions "
			"reported\n",
			UL(kc->watchpoints), UL(kc->watchpoints * 60 * NSEC_PER_SEC / elapsed_ns),
			kcsan_per_million(kc->rate_watchpoints, kc->rate_accesses),
			KCSAN_FLOOR_PER_MILLION, UL(kc->races), UL(kc->reported));
}

/* Print torture_run.result as decide_verdict() left it: the statistics, the
 * trace up to the first violation if one froze it, the violations, and
 * PASS or FAIL last. */
static void print_verdict(void)
{
	const struct torture_result *res = &torture_run.result;

	pr_notice("%s after %lu s: %lu cycles (%lu offline, %lu online, %lu at once), %lu error "
		  "probes, seed %lu\n",
		  res->stopped ? "stopped" : "done", UL(res->elapsed_ns / NSEC_PER_SEC),
		  UL(res->cycles), UL(res->nr_offline), UL(res->nr_online), UL(res->quick_onlines),
		  UL(res->probes), UL(res->seed));
	print_latency("offline", &res->offline);
	print_latency("online", &res->online);
	pr_notice("works queued %lu, run %lu, cancelled %lu, %lu ran elsewhere as their CPU went "
		  "down; %lu flushes, %lu cancels; timers armed %lu, fired %lu\n",
		  UL(res->works_queued), UL(res->works_run), UL(res->works_cancelled),
		  UL(res->ran_elsewhere), UL(res->flushes), UL(res->cancels), UL(res->timers_armed),
		  UL(res->timers_fired));
	pr_notice("%lu kernel stack(s) freed while a CPU was starting or dying, held back until "
		  "none was\n",
		  UL(res->stacks_held));
	print_validators(res);
	print_walk();
	if (res->spin_stuck)
		pr_notice("%lu spinlock wait(s) over spin_stuck_ms reported (not violations: a "
			  "busy host can cause them)\n",
			  UL(res->spin_stuck));
	if (torture_run.params.fail_workers || torture_run.params.fail_steps ||
	    torture_run.params.attrs)
		pr_notice("variants (%s%s%s): %lu cancelled offlines, %lu failed onlines, %lu "
			  "attribute changes, %lu starved hand-overs (%lu with the trustees' pool "
			  "full, %lu items by rescuers)\n",
			  torture_run.params.fail_workers ? " fail_workers" : "",
			  torture_run.params.fail_steps ? " fail_steps" : "",
			  torture_run.params.attrs ? " attrs" : "", UL(res->cancelled_offlines),
			  UL(res->failed_onlines), UL(res->attrs_changes),
			  UL(res->starved_handovers), UL(res->starved_full),
			  UL(res->starved_rescued));
	if (host_mode())
		pr_notice("torture_hotplug=%s: others took CPUs offline %lu times and online %lu "
			  "times; %lu of our calls found the CPU moved by them\n",
			  torture_hotplug_names[torture_run.params.hotplug],
			  UL(res->others_offline), UL(res->others_online), UL(res->overtaken));
	report_delay_points();
	if (torture_run.tracing) {
		trace_stop(); /* the ring must stand still to be printed */
		if (res->violations) {
			pr_notice("the trace up to the first violation follows "
				  "(scripts/trace2json.py "
				  "turns it into Perfetto JSON and an SVG timeline)\n");
			trace_dump();
		}
	}
	pr_notice("violations: %lu\n", res->violations);
	for (unsigned int i = 0; i < res->nr_reports; i++)
		pr_notice("  %u: %s\n", i + 1, res->reports[i]);
	if (res->passed)
		pr_notice("PASS\n");
	else
		pr_err("FAIL (%lu violations)\n", res->violations);
}

/* Decide and print the verdict, once per run (the first caller does it:
 * torture_end_run(), or the watchdog giving up on stuck threads), then wake whoever
 * waits for it. */
static void report_verdict(enum run_end how)
{
	bool gave_up = how == RUN_GAVE_UP;

	if (atomic_cmpxchg(&torture_run.verdict_given, 0, 1) != 0)
		return;
	if (gave_up)
		WRITE_ONCE(torture_run.stopping, true); /* the stress threads that can, stop */
	decide_verdict(gave_up);
	print_verdict();
	mutex_lock(&torture_mutex);
	torture_have_result = true;
	mutex_unlock(&torture_mutex);
	complete_all(&torture_run.finished);
}
