/* kernel/tools/torture.h - the CPU-hotplug torture, in the spirit of Linux's
 * rcutorture "onoff": CPUs go offline and come back, over and over, while
 * the workqueue, timers and the scheduler are kept busy, and invariants
 * are checked all along and at the end. It is meant to run for hours
 * (`make torture DURATION=...`); it must never pass falsely.
 *
 *   torture_start(p)     start a run (one at a time); 0, -EBUSY (a run is
 *                        active, or an earlier one is stuck), -EINVAL (bad
 *                        parameters; torture_hotplug=host with cycles),
 *                        -ENODEV (no CPU can go offline: fewer than 2
 *                        present, torture_hotplug=own only), -ENOMEM
 *   torture_stop()       end the run early and wait until it is over
 *   torture_running()    is a run in progress (not yet finished)?
 *   torture_wait(ns)     wait up to ns (UINT64_MAX: forever) for the run to
 *                        finish; true if it has
 *   torture_status(buf, size)  one paragraph: progress or the result
 *                        (scnprintf-like return)
 *   torture_get_result(r)      the result of the last finished run; false
 *                        if none has finished
 *   torture_params_from_cmdline(p)  the torture_* command-line values
 *                        (torture_cycles=, torture_duration_s=,
 *                        torture_interval_ms=, torture_seed= (0: from
 *                        the clock, or deterministic=SEED's seed),
 *                        torture_threads=, torture_trace=,
 *                        torture_fail_workers=, torture_fail_steps=,
 *                        torture_walk_steps=, torture_attrs= (the
 *                        variants, below),
 *                        torture_hotplug=own|both|host (the host modes,
 *                        below), and torture_inject=none|lost|hang for the
 *                        harness; the shell's `torture start` takes them
 *                        too, but for cycles, duration, interval, mode)
 *
 * Threads (all test load, listed in docs/workqueue.md):
 *   torture/onoff   picks a random online CPU other than 0 and takes it
 *                   down, or a random offline one it took down and brings
 *                   it back; sometimes brings a CPU back at once, while
 *                   the trustee still runs its work; before each offline
 *                   it queues work and arms a timer on that very CPU.
 *                   Now and then it makes calls that must fail (cpu_down(0),
 *                   a CPU already in the asked state, a bad number) and
 *                   checks the error; any other error is a violation.
 *                   At the end it restores the CPUs and drains everything.
 *   torture/stressN queue, re-queue, delay, modify, flush and cancel work
 *                   on a bound, a high-priority, a CPU-intensive, an
 *                   unbound, an ordered and a BH (WQ_BH) workqueue, to
 *                   random CPUs (offline ones too); hop between CPUs; arm
 *                   timers
 *   torture/stressN, with torture_attrs=1: also apply_workqueue_attrs() to
 *                   the unbound workqueue, a random nice and a random set
 *                   of CPUs (CPUs that go offline among them)
 *   torture/watch   the watchdog: an operation (flush, cancel, hotplug
 *                   call, ...) that has not returned in 30 s is a
 *                   violation; if the run then cannot finish within
 *                   another 30 s it is ended as a FAIL with the threads
 *                   left where they are stuck. Prints progress every 30 s.
 *
 * Invariants (each breach is a "violation", described in the log):
 *   - every successful queueing runs exactly once: per item, executions +
 *     successful cancels == successful queue_* calls (mod_delayed_work
 *     that took a pending item over replaces it); never more at any time;
 *   - no item runs on two workers at once;
 *   - a BH workqueue's items run in BH context, others never do (a dying
 *     CPU's BH items are drained on a live CPU, one queued to an offline
 *     CPU runs on a live one: the rules above hold for them unchanged);
 *   - the ordered workqueue runs its items one at a time in queueing order;
 *   - every flush and cancel returns (watchdog), and a flush_work,
 *     flush_delayed_work or flush_workqueue of an item nobody else touches
 *     returns only after that item ran;
 *   - no item, stress loop or timer callback runs on an offline CPU;
 *   - every armed timer fires once or is deleted, and none is left
 *     pending 30 s after it expired;
 *   - cpu_down/cpu_up succeed and leave the masks right; deliberate
 *     errors are the documented ones; cpuhp_get_stats() counts our calls;
 *     with torture_fail_workers=1 (thread creation made to fail around a
 *     call: kthread_fail_next) or torture_fail_steps=1 (a registered
 *     online-phase step fails, for the CPU of that call), a call may fail
 *     with the injected error only (-ENOMEM; -ECANCELED), and then the CPU
 *     is exactly as before: online and active, or offline and not;
 *   - with torture_walk_steps=1 (own mode only) every other call is asked
 *     to fail at a step (cpuhp_fail_step()), each step that may fail that
 *     way in turn, with one of four errors: the call fails with it, at that
 *     step (cpuhp_failed_step()), using the request up, and leaves the CPU
 *     as before (above); once the turns have gone round, every step has
 *     failed a call each way it may (the summary counts them per step);
 *     of the other calls, every other first stops the CPU at a level
 *     between (cpuhp_target()), each in turn, checks it is there and not
 *     active, and the call goes on from there: every level is stopped at
 *     coming down and going up;
 *   - after a cancel_work_sync / cancel_delayed_work_sync (or a flush) of
 *     an item only its thread touches: it is not pending, not running,
 *     every queueing ran or was cancelled, and it does not run again until
 *     it is queued again;
 *   - after the run every online CPU's worker pools are bound again;
 *   - the kernel printed no WARN (spinlock "stuck" reports are counted,
 *     not violations: a busy host causes them; a deadlock hangs an
 *     operation, which the watchdog reports).
 * A run also fails if it completed no offline/online cycle or ran no
 * work, or (unless stopped by torture_stop) fewer cycles than asked, or,
 * in a sanitized image, if the data-race detector set fewer watchpoints
 * during it than its floor (KCSAN_FLOOR_PER_MILLION, kernel/debug/kcsan.h): a
 * detector that does not sample sees no race.
 *
 * The end of a run prints the cycles, offline and online latency (min,
 * median, max in microseconds), the work done, the violations, and
 * exactly one line "torture: PASS" or "torture: FAIL (N violations)".
 *
 * Who takes CPUs down and up (torture_hotplug=, the shell's `torture start
 * ... MODE`):
 *   own   the torture alone: it assumes it is the only caller of
 *         cpu_down/cpu_up meanwhile (everything above, exactly).
 *   both  the torture's onoff loop, and another caller meanwhile: the host,
 *         whose QMP device_add/device_del make the ACPI CPU-hotplug driver
 *         call cpu_up/cpu_down and eject CPUs (tests/vm/torture_qmp.py,
 *         `make torture-qmp`). The default there: the two race.
 *   host  another caller alone; the onoff thread makes no cpu_down/cpu_up
 *         but its probes, and the run is time-bound or stopped (cycles
 *         must be 0).
 * The host modes ("both", "host") accept what another caller legitimately
 * causes, and keep every other invariant above:
 *   - the onoff loop picks any present CPU but 0 (CPUs come and go), takes
 *     it down if online, brings it back if it took it down itself, and
 *     arms no timer on a CPU it is about to take down (it may go first);
 *   - its cpu_down/cpu_up may fail with -ENODEV (the CPU was ejected),
 *     -EALREADY (someone else got there first) or -EBUSY: counted as
 *     "overtaken", not violations; any other error still is one;
 *   - the checks of the state a call left (online, active, not going down,
 *     each pool with a worker) hold unless cpuhp_get_stats() shows another
 *     caller's call in between (each counts before it drops the hotplug
 *     lock, so when only ours is counted, a wrong state is ours);
 *   - probes are only those no other caller can make succeed: cpu_down(0)
 *     (-EPERM or -EBUSY), cpu_up(0) (-EALREADY), impossible numbers;
 *   - cpuhp_get_stats() counts at least our calls; the rest are reported
 *     as the others' (the verdict's "torture_hotplug=" line);
 *   - no own cycles are required, but some CPU must have gone offline or
 *     online during the run (by anyone); torture_inject fires after 20
 *     hotplug calls by anyone;
 *   - at the end it brings back the CPUs it took down that are still
 *     present; the end checks expect the other caller to have stopped by
 *     then (tests/vm/torture_qmp.py waits for its operations, then sends
 *     `torture stop`).
 */
#ifndef KERNEL_TOOLS_TORTURE_H
#define KERNEL_TOOLS_TORTURE_H

#include "kernel/debug/kcsan.h"
#include "lib/histogram.h"
#include "lib/types.h"

struct torture_params {
	unsigned int cycles;	  /* offline/online cycles; 0: run for duration_s */
	unsigned int duration_s;  /* with cycles 0; 0 too: until torture_stop() */
	unsigned int interval_ms; /* pause between hotplug operations (0: none) */
	u64 seed;		  /* PRNG seed; 0: taken from the clock */
	unsigned int inject;	  /* TORTURE_INJECT_*: a deliberate fault, so that
				   * the harness can check the torture fails */
	/* Variants (each off by default; any mix): */
	bool fail_workers;    /* around hotplug calls, thread creation fails now and then */
	bool fail_steps;      /* a hotplug step fails now and then: cancelled offlines,
			       * failed onlines */
	bool attrs;	      /* stress threads change the unbound workqueue's attributes */
	bool walk_steps;      /* every other hotplug call fails on request at a step, each
			       * step that may fail in turn, both ways (own mode only) */
	unsigned int hotplug; /* TORTURE_HOTPLUG_*: who takes CPUs down and up */
	unsigned int threads; /* stress threads, 1 to TORTURE_MAX_THREADS; 0: all */
	unsigned int trace;   /* events per CPU traced (0: no tracing): the ring
			       * is frozen at the first violation and printed
			       * with the verdict */
};

#define TORTURE_MAX_THREADS 4

#define TORTURE_HOTPLUG_OWN  0 /* the torture alone (the default) */
#define TORTURE_HOTPLUG_BOTH 1 /* the torture and another caller (the host) */
#define TORTURE_HOTPLUG_HOST 2 /* another caller alone */

#define TORTURE_INJECT_NONE 0
#define TORTURE_INJECT_LOST 1 /* count a queueing that never happened */
#define TORTURE_INJECT_HANG 2 /* the onoff thread hangs in an operation */

#define TORTURE_MAX_REPORTS 8 /* violation descriptions kept */
#define TORTURE_REPORT_LEN  160

struct torture_result {
	bool passed;
	bool stopped; /* ended by torture_stop() */
	bool gave_up; /* threads stuck: ended by the watchdog */
	u64 seed;
	u64 elapsed_ns;
	u64 cycles;		   /* offline + online of one CPU, completed */
	u64 nr_offline, nr_online; /* successful cpu_down / cpu_up calls */
	u64 quick_onlines;	   /* cpu_up right after its cpu_down */
	u64 probes;		   /* deliberate failing calls made */
	/* the variants: cpu_down / cpu_up calls that failed as injected (the
	 * CPU left as it was), attribute changes made, hand-overs done with
	 * no thread to be had (fail_workers) */
	u64 cancelled_offlines, failed_onlines, attrs_changes, starved_handovers;
	u64 starved_full;    /* of those, system_unbound_wq's pool full */
	u64 starved_rescued; /* of those, the item run by a rescuer */
	/* the host modes: our calls another caller overtook (accepted errors,
	 * excused state checks); successful cpu_down / cpu_up calls of others */
	u64 overtaken, others_offline, others_online;
	/* cpu_down / cpu_up latency in ns: median exact up to HIST_SAMPLES
	 * (4096) calls, then from a histogram (lib/histogram.h) */
	struct value_summary offline, online;
	u64 works_queued, works_run, works_cancelled;
	u64 ran_elsewhere; /* items for a CPU going down that ran on another */
	u64 flushes, cancels;
	u64 timers_armed, timers_fired;
	u64 spin_stuck;		     /* spinlock waits over spin_stuck_ms (not violations) */
	u64 stacks_held;	     /* kernel stacks freed while a CPU was in transit */
	struct kcsan_stats detector; /* the data-race detector's counts during the run */
	unsigned long violations;
	unsigned int nr_reports; /* the first violations, described */
	char reports[TORTURE_MAX_REPORTS][TORTURE_REPORT_LEN];
};

void torture_params_from_cmdline(struct torture_params *p);
int torture_start(const struct torture_params *p);
void torture_stop(void);
bool torture_running(void);
bool torture_wait(u64 timeout_ns);
size_t torture_status(char *buf, size_t size);
bool torture_get_result(struct torture_result *r);

#endif
