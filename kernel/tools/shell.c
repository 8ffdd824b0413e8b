/* kernel/tools/shell.c - the serial shell; see shell.h.
 *
 * Field legend: RX = only the serial receive work item (a work item never
 * runs on two workers at once, so it needs no lock).
 */
#include "kernel/tools/shell.h"
#include "arch/x86_64/atomic.h"
#include "drivers/acpi_cpuhp.h"
#include "drivers/uart16550.h"
#include "kernel/cpu_masks.h"
#include "kernel/debug/lockdep.h"
#include "kernel/hotplug.h"
#include "kernel/ksyms.h"
#include "kernel/kthread.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/reboot.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/bench.h"
#include "kernel/tools/ktest.h"
#include "kernel/tools/shell_demos.h"
#include "kernel/tools/torture.h"
#include "kernel/trace.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

#define SHELL_HISTORY  16
#define SHELL_MAX_ARGS 8

#define out shell_out
/* Echo continues the prompt's line. */
#define echo(fmt, ...) printk(KERN_CONT fmt, ##__VA_ARGS__)

/* ---- line editing (RX) -------------------------------------------------- */

enum esc_state { ESC_NONE, ESC_GOT_ESC, ESC_CSI };

static char line[SHELL_LINE_MAX + 1];			/* RX */
static size_t line_len;					/* RX */
static bool line_overflow;				/* RX */
static bool last_was_cr;				/* RX */
static enum esc_state esc;				/* RX */
static char history[SHELL_HISTORY][SHELL_LINE_MAX + 1]; /* RX */
static unsigned int hist_count;				/* RX: lines ever stored */
static unsigned int hist_back;				/* RX: 0 = editing a new line */
static struct workqueue_struct *shell_wq;
static u64 ignored_bytes; /* RX */

struct shell_job {
	struct work_struct work;
	char line[SHELL_LINE_MAX + 1];
};

static void prompt(void)
{
	out(SHELL_PROMPT);
}

static void erase_line(void)
{
	while (line_len) {
		echo("\b \b");
		line_len--;
	}
	line_overflow = false;
}

static void set_line(const char *s)
{
	erase_line();
	strscpy(line, s, sizeof(line));
	line_len = strlen(line);
	echo("%s", line);
}

enum history_dir { HISTORY_OLDER, HISTORY_NEWER };

static void history_browse(enum history_dir dir)
{
	if (dir == HISTORY_OLDER && hist_back < min(hist_count, (unsigned int)SHELL_HISTORY))
		hist_back++;
	else if (dir == HISTORY_NEWER && hist_back > 0)
		hist_back--;
	else
		return;
	if (hist_back == 0)
		set_line("");
	else
		set_line(history[(hist_count - hist_back) % SHELL_HISTORY]);
}

static void job_fn(struct work_struct *w)
{
	struct shell_job *job = container_of(w, struct shell_job, work);

	shell_exec(job->line);
	kfree(job);
	prompt();
}

static void enter(void)
{
	echo("\n");
	hist_back = 0;
	if (line_overflow) {
		out("shell: line too long (more than %d characters); ignored\n", SHELL_LINE_MAX);
		line_len = 0;
		line_overflow = false;
		prompt();
		return;
	}
	line[line_len] = '\0';
	line_len = 0;
	const char *p = line;

	while (*p == ' ')
		p++;
	if (!*p) {
		prompt();
		return;
	}
	strscpy(history[hist_count++ % SHELL_HISTORY], line, SHELL_LINE_MAX + 1);
	struct shell_job *job = kmalloc(sizeof(*job));

	if (!job) {
		out("shell: out of memory; command dropped\n");
		prompt();
		return;
	}
	INIT_WORK(&job->work, job_fn);
	strscpy(job->line, line, sizeof(job->line));
	queue_work(shell_wq, &job->work);
}

static void input_byte(u8 c)
{
	bool cr = last_was_cr;

	last_was_cr = c == '\r';
	if (esc == ESC_GOT_ESC) {
		esc = c == '[' ? ESC_CSI : ESC_NONE;
		return;
	}
	if (esc == ESC_CSI) {
		if (c >= 0x40 && c <= 0x7e) { /* the final byte */
			esc = ESC_NONE;
			if (c == 'A') /* up arrow */
				history_browse(HISTORY_OLDER);
			else if (c == 'B') /* down arrow */
				history_browse(HISTORY_NEWER);
		} else if (c < 0x20 || c > 0x3f) {
			esc = ESC_NONE; /* not a CSI sequence after all */
		}
		return;
	}
	switch (c) {
	case '\n':
		if (!cr) /* \r\n is one line end */
			enter();
		return;
	case '\r':
		enter();
		return;
	case 0x1b:
		esc = ESC_GOT_ESC;
		return;
	case 0x7f:
	case '\b':
		if (line_len) {
			line_len--;
			echo("\b \b");
		}
		return;
	case 0x15: /* Ctrl-U */
		erase_line();
		return;
	case 0x03: /* Ctrl-C */
		echo("^C\n");
		line_len = 0;
		line_overflow = false;
		hist_back = 0;
		prompt();
		return;
	}
	if (c < 0x20 || c > 0x7e) {
		ignored_bytes++;
		return;
	}
	if (line_len == SHELL_LINE_MAX) {
		line_overflow = true; /* refused whole at Enter */
		return;
	}
	line[line_len++] = (char)c;
	echo("%c", c);
}

void shell_input(const u8 *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		input_byte(buf[i]);
}

/* ---- argument helpers --------------------------------------------------- */

/* The decimal number s, at most max, into *v (left alone on error); a bad
 * value is reported naming what it was for. 0, -EINVAL or -ERANGE. */
static int arg_uint(const char *what, const char *s, unsigned int max, unsigned int *v)
{
	unsigned int x;
	int err = kstrtouint(s, 10, &x);

	if (!err && x > max)
		err = -ERANGE;
	if (err == -EINVAL)
		out("shell: %s must be a number, not '%s'\n", what, s);
	else if (err)
		out("shell: %s '%s' is too large (at most %u)\n", what, s, max);
	else
		*v = x;
	return err;
}

static int arg_cpu(const char *s, unsigned int *cpu)
{
	int err = arg_uint("CPU", s, NR_CPUS - 1, cpu);

	if (!err && !cpu_possible(*cpu)) {
		out("shell: there is no cpu%u (possible: 0-%u)\n", *cpu, nr_cpu_ids - 1);
		return -EINVAL;
	}
	return err;
}

/* ---- commands ----------------------------------------------------------- */

struct shell_cmd {
	const char *name, *usage, *help;
	int min_args, max_args; /* after the name */
	int (*fn)(int argc, char **argv);
};

static const struct shell_cmd commands[];

static int cmd_help(int argc, char **argv);

/* COM1 receive: its figures, and where its bottom half runs. */
static int cmd_serial(int argc, char **argv)
{
	struct uart_rx_stats st;

	uart_rx_get_stats(&st);
	if (!st.enabled) {
		out("serial: COM1 input is off\n");
		return -ENODEV;
	}
	if (argc == 2) {
		bool bh = !strcmp(argv[1], "bh");

		if (!bh && strcmp(argv[1], "thread")) {
			out("serial: say bh or thread, not '%s'\n", argv[1]);
			return -EINVAL;
		}
		uart_rx_set_bh(bh);
	}
	bool bh = uart_rx_is_bh();

	out("serial: receive's bottom half is %s\n",
	    bh ? "a BH item (system_bh_highpri_wq: at the interrupt's exit, no thread)" :
		 "a thread item (system_highpri_wq: a worker wakes for it)");
	out("serial: %lu interrupts, %lu bytes, %lu delivered, %lu rx item runs, %lu throttles, "
	    "%lu overruns\n",
	    (unsigned long)st.interrupts, (unsigned long)st.bytes, (unsigned long)st.delivered,
	    (unsigned long)st.work_runs, (unsigned long)st.throttles,
	    (unsigned long)st.hw_overruns);
	return 0;
}

static int cmd_cpus(int argc, char **argv)
{
	unsigned int cpu;
	struct cpuhp_stats st;
	struct acpi_cpuhp_stats hs;

	for_each_possible_cpu(cpu) {
		const char *state = cpu_going_down(cpu) ? "going down" :
				    cpu_online(cpu)	? (cpumask_test_cpu(cpu, &cpu_active_mask) ?
								   "online" :
								   "online, inactive") :
				    cpumask_test_cpu(cpu, &cpu_present_mask) ? "offline" :
									       "not present";
		struct rq_stats rs;
		struct clockevent_stats ce;
		struct timer_stats ts;

		sched_get_rq_stats(cpu, &rs);
		clockevent_get_stats(cpu, &ce);
		timers_get_stats(cpu, &ts);
		char next[32] = "";
		u64 now = ktime_get_ns();

		if (ce.next_ns != KTIME_MAX)
			scnprintf(next, sizeof(next), ", next in %lu us",
				  ce.next_ns > now ? (ce.next_ns - now) / 1000 : 0);
		out("cpu%-3u apic %-3u %-16s runnable %u switches %lu; timer irqs %lu (%lu early), "
		    "programmed %lu, kicked %lu; timers %u%s\n",
		    cpu, cpu_apic_ids[cpu], state, rs.nr_running, rs.nr_switches, ce.nr_events,
		    ce.nr_early, ce.nr_programs, ce.nr_kicks, ts.nr_pending, next);
	}
	if (clockevent_periodic())
		out("clock events: a periodic %u Hz tick (nohz=off)\n", CLOCK_TICK_HZ);
	cpuhp_get_stats(&st);
	out("hotplug: %lu down, %lu up, %lu refused or failed; last down %lu us, last up %lu us\n",
	    st.nr_down, st.nr_up, st.nr_down_failed + st.nr_up_failed, st.last_down_ns / 1000,
	    st.last_up_ns / 1000);
	acpi_cpuhp_get_stats(&hs);
	if (hs.active)
		out("host: %u slots, %u with a vCPU; events by %s; %lu inserted, %lu removed, %lu "
		    "removals refused, %lu inserts failed\n",
		    hs.nr_slots, hs.nr_present, hs.sci ? "SCI" : "polling", hs.inserted, hs.removed,
		    hs.refused, hs.failed);
	else
		out("host: CPU hot-plug by the host not driven (see the boot log)\n");
	return 0;
}

/* offline and online: cpu_down() or (up) cpu_up() on the CPU named by
 * arg, timed. */
static int cpu_set_state(const char *arg, bool up)
{
	const char *state = up ? "online" : "offline";
	unsigned int cpu;
	int err = arg_cpu(arg, &cpu);

	if (err)
		return err;
	u64 t0 = ktime_get_ns();

	err = up ? cpu_up(cpu) : cpu_down(cpu);
	const char *step = err ? cpuhp_failed_step(cpu) : NULL;

	if (step)
		out("%s cpu%u: step %s failed (%s); the %s was undone\n", state, cpu, step,
		    errno_name(err), state);
	else if (err)
		out("%s cpu%u: %s (%s)\n", state, cpu, cpuhp_error_words(err, up), errno_name(err));
	else
		out("cpu%u is %s (%lu us)\n", cpu, state, (u64)((ktime_get_ns() - t0) / 1000));
	return err;
}

static int cmd_offline(int argc, char **argv)
{
	return cpu_set_state(argv[1], false);
}

static int cmd_online(int argc, char **argv)
{
	return cpu_set_state(argv[1], true);
}

/* One way of a step for `hotplug states`: its fixed work or its callback,
 * marked * if it may be failed that way. */
static void step_way(char *buf, size_t n, const char *text, int (*fn)(unsigned int), bool can_fail)
{
	u64 off, size;
	const char *sym = fn ? ksym_lookup((u64)fn, &off, &size) : NULL;

	scnprintf(buf, n, "%s%s", text ? text : sym ? sym : fn ? "?" : "-", can_fail ? " *" : "");
}

/* hotplug states: one line per step, in the order a CPU passes them up. */
static void states_one(const struct cpuhp_step_info *in, void *arg)
{
	const struct cpuhp_step *st = in->step;
	char cpus[48], up[40], down[40];

	cpumask_print_list(cpus, sizeof(cpus), &st->up_cpus);
	step_way(up, sizeof(up), in->up, st->startup, in->can_fail[CPUHP_UP]);
	step_way(down, sizeof(down), in->down, st->teardown, in->can_fail[CPUHP_DOWN]);
	out("  %-22s %-8s %-26s %-26s %s\n", st->name, in->phase, up, down,
	    cpus[0] ? cpus : "none");
	char what[120];
	int len = 0;

	for (int d = 0; d < CPUHP_NR_DIRS; d++)
		if (st->last_ns[d])
			len += scnprintf(what + len, sizeof(what) - len, "%s %s %lu us (cpu%u)",
					 len ? "," : "last", d == CPUHP_UP ? "up" : "down",
					 st->last_ns[d] / 1000, st->last_cpu[d]);
	if (st->nr_failed[CPUHP_UP] || st->nr_failed[CPUHP_DOWN])
		len += scnprintf(what + len, sizeof(what) - len,
				 "%sfailed %lu up, %lu down (%lu of them on request)",
				 len ? "; " : "", st->nr_failed[CPUHP_UP],
				 st->nr_failed[CPUHP_DOWN],
				 st->nr_requested[CPUHP_UP] + st->nr_requested[CPUHP_DOWN]);
	if (len)
		out("  %22s %s\n", "", what);
}

/* hotplug states, at the end: where the last offline and online went. */
static void last_op_lines(bool up)
{
	static struct cpuhp_op_record r; /* (2 KB: not on the stack) */
	u64 steps_ns = 0;

	if (!cpuhp_last_op(up, &r))
		return;
	for (unsigned int i = 0; i < r.nr; i++)
		steps_ns += r.steps[i].ns;
	out("last %s of cpu%u: %lu us (%s%s); its steps and waits in order:\n",
	    up ? "cpu_up" : "cpu_down", r.cpu, r.total_ns / 1000, r.result ? "failed " : "done",
	    r.result ? errno_name(r.result) : "");
	for (unsigned int i = 0; i < r.nr; i++) {
		const struct cpuhp_op_entry *e = &r.steps[i];

		out("  %-22s %-4s %7lu us  on cpu%u%s%s\n", e->name,
		    e->dir == CPUHP_UP ? "up" : "down", e->ns / 1000, e->on_cpu,
		    e->result ? "  failed " : "", e->result ? errno_name(e->result) : "");
	}
	if (r.nr_dropped)
		out("  (%u more not kept)\n", r.nr_dropped);
	out("  %-22s      %7lu us  (the rest: the hotplug lock, the masks, IPIs)\n", "other",
	    r.total_ns > steps_ns ? (r.total_ns - steps_ns) / 1000 : 0);
}

static int hotplug_fail(int argc, char **argv)
{
	unsigned int cpu, dirs = CPUHP_DIRS_ANY;
	int err = -EAGAIN, ret;
	const char *why = NULL, *name = argv[3];

	if (arg_cpu(argv[2], &cpu))
		return -EINVAL;
	if (!strcmp(name, "off")) {
		if (argc > 4) {
			out("shell: usage: hotplug fail CPU off\n");
			return -EINVAL;
		}
		name = NULL;
	}
	if (argc > 4 && !strcmp(argv[4], "up")) {
		dirs = CPUHP_DIR_BIT(CPUHP_UP);
	} else if (argc > 4 && !strcmp(argv[4], "down")) {
		dirs = CPUHP_DIR_BIT(CPUHP_DOWN);
	} else if (argc > 4 && strcmp(argv[4], "any")) {
		out("shell: the direction is up, down or any, not '%s'\n", argv[4]);
		return -EINVAL;
	}
	if (argc > 5 && !(err = errno_parse(argv[5]))) {
		out("shell: the error is a name such as EIO or a number, not '%s'\n", argv[5]);
		return -EINVAL;
	}
	ret = cpuhp_fail_step(cpu, name, dirs, err, &why);
	if (ret)
		out("hotplug fail: %s refused (%s): %s\n", argv[3], errno_name(ret), why);
	else if (!name)
		out("cpu%u: no step fails on request\n", cpu);
	else
		out("cpu%u: the next pass through %s (%s) fails with %s\n", cpu, name,
		    dirs == CPUHP_DIRS_ANY ? "either way" :
		    argc > 4		   ? argv[4] :
					     "",
		    errno_name(err));
	return ret;
}

static int cmd_hotplug(int argc, char **argv)
{
	if (!strcmp(argv[1], "states") && argc == 2) {
		unsigned int cpu, dirs;
		int err;

		out("CPU hotplug steps in the order a CPU passes them coming up (going down: the "
		    "reverse; * may be failed that way):\n");
		out("  %-22s %-8s %-26s %-26s %s\n", "STEP", "PHASE", "UP", "DOWN", "DONE FOR");
		cpuhp_for_each_step(states_one, NULL);
		for_each_possible_cpu(cpu) {
			const char *level = cpuhp_cpu_level(cpu);

			if (strcmp(level, "online") && strcmp(level, "offline"))
				out("cpu%u is stopped at %s (hotplug target)\n", cpu, level);
		}
		last_op_lines(false);
		last_op_lines(true);
		for_each_possible_cpu(cpu) {
			const char *name = cpuhp_fail_pending(cpu, &dirs, &err);

			if (name)
				out("cpu%u: its next pass through %s (%s) fails with %s\n", cpu,
				    name,
				    dirs == CPUHP_DIRS_ANY	    ? "either way" :
				    dirs == CPUHP_DIR_BIT(CPUHP_UP) ? "up" :
								      "down",
				    errno_name(err));
		}
		return 0;
	}
	if (!strcmp(argv[1], "fail") && argc >= 4)
		return hotplug_fail(argc, argv);
	if (!strcmp(argv[1], "target") && argc == 4) {
		unsigned int cpu;
		const char *why = NULL;

		if (arg_cpu(argv[2], &cpu))
			return -EINVAL;
		u64 t0 = ktime_get_ns();
		int err = cpuhp_target(cpu, argv[3], &why);

		if (err)
			out("hotplug target: cpu%u to %s refused or failed (%s): %s\n", cpu,
			    argv[3], errno_name(err), why ?: "");
		else
			out("cpu%u is at %s: %s, %s (%lu us)\n", cpu, cpuhp_cpu_level(cpu),
			    cpu_online(cpu) ? "online" : "offline",
			    cpumask_test_cpu(cpu, &cpu_active_mask) ? "active" : "not active",
			    (u64)((ktime_get_ns() - t0) / 1000));
		return err;
	}
	out("shell: usage: hotplug states | hotplug fail CPU STEP [up|down|any] [ERRNO] | hotplug "
	    "fail CPU off | hotplug target CPU STEP|offline|online\n");
	return -EINVAL;
}

static void ps_one(struct thread *t, void *arg)
{
	char cls[12], mask[32], work[48] = "";
	struct thread_desc d;

	sched_describe_thread(t, &d);
	if (d.policy == SCHED_CLASS_FIFO)
		snprintf(cls, sizeof(cls), "fifo%u", d.fifo_prio);
	else if (d.policy == SCHED_CLASS_IDLE)
		snprintf(cls, sizeof(cls), "idle");
	else
		snprintf(cls, sizeof(cls), "nice%d", d.nice);
	cpumask_print_list(mask, sizeof(mask), &d.cpus_allowed);
	workqueue_describe_thread(t, work, sizeof(work));
	out("%-18s %4u %-7s %-7s %-10s %8lu %7lu %7lu %s\n", t->name, d.cpu,
	    thread_state_name(d.state), cls, mask, (u64)(d.runtime_ns / NSEC_PER_MSEC), d.nvcsw,
	    d.nivcsw, work);
}

static int cmd_ps(int argc, char **argv)
{
	out("%-18s %4s %-7s %-7s %-10s %8s %7s %7s %s\n", "NAME", "CPU", "STATE", "CLASS", "CPUS",
	    "RUN(ms)", "VCSW", "IVCSW", "WORK");
	for_each_thread(ps_one, NULL);
	return 0;
}

static int cmd_lockdep(int argc, char **argv)
{
	struct lockdep_stats st;

	lockdep_get_stats(&st);
	out("validator   %s\n", !st.enabled ? "off (lockdep=0)" :
				st.on	    ? "on" :
					      "off after a report (locks still tracked)");
	out("reports     %lu\n", st.reports);
	out("classes     %u of %u; %lu given back (destroyed workqueues)\n", st.classes,
	    st.max_classes, st.classes_reclaimed);
	out("dependencies %u of %u\n", st.deps, st.max_deps);
	out("chains      %u of %u cached; %lu hits, %lu misses; emptied %u times\n", st.chains,
	    st.max_chains, (unsigned long)st.chain_hits, (unsigned long)st.chain_misses,
	    st.chain_flushes);
	out("traces      %u of %u entries\n", st.trace_ips, st.max_trace_ips);
	out("deepest     %u locks held at once\n", st.max_depth);
	return 0;
}

/* wq set NAME KEY VALUE [KEY VALUE]...: nice, cpus, max_active. */
static int wq_set(int argc, char **argv)
{
	struct wq_change ch = { 0 };
	const char *why;

	if (argc < 5 || (argc - 3) % 2) {
		out("shell: usage: wq set NAME nice N|cpus LIST|max_active N [...]\n");
		return -EINVAL;
	}
	for (int i = 3; i < argc; i += 2) {
		const char *key = argv[i], *val = argv[i + 1];
		unsigned int n;

		if (!strcmp(key, "nice")) {
			if (kstrtoint(val, 10, &ch.nice)) {
				out("shell: nice must be a number, not '%s'\n", val);
				return -EINVAL;
			}
			ch.set_nice = true;
		} else if (!strcmp(key, "cpus")) {
			int err = cpumask_parselist(val, &ch.cpus);

			if (err) {
				out("shell: cpus must be a list like 0-2,5 (CPUs below %u), not "
				    "'%s'\n",
				    NR_CPUS, val);
				return err;
			}
			for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
				if (cpumask_test_cpu(cpu, &ch.cpus) && !cpu_possible(cpu)) {
					out("shell: there is no cpu%u (possible: 0-%u)\n", cpu,
					    nr_cpu_ids - 1);
					return -EINVAL;
				}
			ch.set_cpus = true;
		} else if (!strcmp(key, "max_active")) {
			if (arg_uint("max_active", val, WQ_MAX_ACTIVE, &n))
				return -EINVAL;
			if (!n) {
				out("shell: max_active must be 1..%d, not 0\n", WQ_MAX_ACTIVE);
				return -EINVAL;
			}
			ch.max_active = (int)n;
		} else {
			out("shell: wq set: no attribute '%s' (nice, cpus or max_active)\n", key);
			return -EINVAL;
		}
	}
	int err = workqueue_change(argv[2], &ch, &why);

	if (err)
		out("shell: wq set %s: %s\n", argv[2], why);
	else
		out("wq %s: done\n", argv[2]);
	return err;
}

static int cmd_wq(int argc, char **argv)
{
	size_t size = 64 * 1024;
	struct wq_counters c;

	if (argc > 1) {
		if (!strcmp(argv[1], "set"))
			return wq_set(argc, argv);
		out("shell: wq what? 'wq' or 'wq set', not '%s'\n", argv[1]);
		return -EINVAL;
	}
	char *buf = kmalloc(size);

	if (!buf) {
		out("shell: out of memory\n");
		return -ENOMEM;
	}
	workqueue_dump(buf, size);
	printk_lines(KERN_RAW, buf);
	kfree(buf);
	workqueue_get_counters(&c);
	out("total: %u pools, %u workers (%u idle); executed %lu, created %lu, destroyed %lu, "
	    "maydays %lu, rescued %lu\n",
	    c.pools, c.workers, c.idle, c.executed, c.created, c.destroyed, c.maydays, c.rescued);
	return 0;
}

/* demo's sub-commands: a usage error names the one asked for. 0 if ok,
 * else -EINVAL. */
static int demo_args(bool ok, const char *usage)
{
	if (ok)
		return 0;
	out("shell: usage: demo %s\n", usage);
	return -EINVAL;
}

/* demo WHAT [ARGS]: the arguments are checked here, the workload is
 * shell_demos.c's. */
static int cmd_demo(int argc, char **argv)
{
	const char *what = argv[1];
	int nargs = argc - 2; /* after "demo WHAT" */
	unsigned int n, cpu = 0, ms = 100;

	if (!strcmp(what, "sleep") || !strcmp(what, "spin")) {
		if (demo_args(nargs >= 1, "sleep|spin COUNT [CPU] [MS]") ||
		    arg_uint("count", argv[2], DEMO_MAX_ITEMS, &n) ||
		    (nargs >= 2 && arg_cpu(argv[3], &cpu)) ||
		    (nargs >= 3 && arg_uint("milliseconds", argv[4], DEMO_MAX_MS, &ms)))
			return -EINVAL;
		return demo_queue(!strcmp(what, "spin") ? DEMO_SPIN : DEMO_SLEEP, n, cpu, ms);
	}
	if (!strcmp(what, "hold")) {
		if (demo_args(nargs >= 1 && nargs <= 2, "hold COUNT [CPU]") ||
		    arg_uint("count", argv[2], DEMO_MAX_ITEMS, &n) ||
		    (nargs >= 2 && arg_cpu(argv[3], &cpu)))
			return -EINVAL;
		return demo_queue(DEMO_HOLD, n, cpu, 0);
	}
	if (!strcmp(what, "release"))
		return demo_args(nargs == 0, "release") ?: demo_release();
	if (!strcmp(what, "wait"))
		return demo_args(nargs == 0, "wait") ?: demo_wait();
	if (!strcmp(what, "ordered")) {
		if (demo_args(nargs == 1, "ordered COUNT") ||
		    arg_uint("count", argv[2], DEMO_MAX_ITEMS, &n))
			return -EINVAL;
		return demo_ordered(n);
	}
	if (!strcmp(what, "lab7"))
		return demo_args(nargs == 0, "lab7") ?: demo_lab7();
	if (!strcmp(what, "lab8"))
		return demo_args(nargs == 0, "lab8") ?: demo_lab8();
	out("shell: demo what? 'sleep', 'spin', 'hold', 'release', 'wait', 'ordered', 'lab7' or "
	    "'lab8', not '%s'\n",
	    what);
	return -EINVAL;
}

/* Tests and benchmarks run in a thread of their own: they expect not to
 * run inside a work item (they flush system_wq, pin themselves to CPUs). */
struct side_run {
	const char *list;
	unsigned int n; /* bench: runs per benchmark */
	int result;	/* test: failed cases; bench: 0 or -errno */
	struct completion done;
};

static int test_thread(void *arg)
{
	struct side_run *r = arg;

	r->result = (int)ktest_run(r->list);
	complete(&r->done);
	return 0;
}

static int bench_thread(void *arg)
{
	struct side_run *r = arg;

	r->result = bench_run(r->list, r->n);
	complete(&r->done);
	return 0;
}

/* t: the side thread just started on r (NULL if it could not be). */
static int wait_side(struct thread *t, struct side_run *r, const char *what)
{
	if (!t) {
		out("shell: cannot create the %s thread\n", what);
		return -ENOMEM;
	}
	put_thread(t);
	wait_for_completion(&r->done);
	return 0;
}

static int cmd_test(int argc, char **argv)
{
	struct side_run r = { .list = argv[1] };

	init_completion(&r.done);
	int err = wait_side(kthread_run(test_thread, &r, "ktest"), &r, "test");

	if (err)
		return err;
	out("test %s: %s\n", argv[1], r.result ? "FAILED" : "passed");
	return r.result ? -EIO : 0;
}

static void list_bench(const char *name, const char *what, void *arg)
{
	out("  %-14s %s\n", name, what);
}

static int cmd_bench(int argc, char **argv)
{
	struct side_run r = { .list = argc > 1 ? argv[1] : "" };

	if (argc == 1) {
		out("benchmarks (bench NAME[,NAME...]|all [RUNS]; make bench checks targets):\n");
		bench_list(list_bench, NULL);
		return 0;
	}
	if (argc > 2 && arg_uint("runs", argv[2], BENCH_MAX_N, &r.n))
		return -EINVAL;
	if (argc > 2 && !r.n) {
		out("shell: runs must be at least 1\n");
		return -EINVAL;
	}
	init_completion(&r.done);
	int err = wait_side(kthread_run(bench_thread, &r, "bench"), &r, "bench");

	return err ? err : r.result;
}

#define TRACE_DFL_EVENTS 4096
#define TRACE_MAX_EVENTS 65536

static int cmd_trace(int argc, char **argv)
{
	u64 recorded, lost;
	unsigned int n = TRACE_DFL_EVENTS;
	int err;

	if (!strcmp(argv[1], "start")) {
		if (argc > 2 && arg_uint("events per CPU", argv[2], TRACE_MAX_EVENTS, &n))
			return -EINVAL;
		if (!n) {
			out("shell: events per CPU must be at least 1\n");
			return -EINVAL;
		}
		err = trace_start(n);
		if (err)
			out("trace: %s\n", err == -EBUSY ? "already on" : "out of memory");
		else
			out("trace: on, %u events per CPU\n", n);
		return err;
	}
	if (argc > 2) {
		out("shell: usage: trace start [EVENTS]|stop|dump|status\n");
		return -EINVAL;
	}
	if (!strcmp(argv[1], "stop")) {
		trace_stop();
		trace_counts(&recorded, &lost);
		out("trace: off; %lu events recorded, %lu overwritten\n", recorded, lost);
		return 0;
	}
	if (!strcmp(argv[1], "dump")) {
		trace_dump();
		return 0;
	}
	if (!strcmp(argv[1], "status")) {
		trace_counts(&recorded, &lost);
		out("trace: %s; %lu events recorded, %lu overwritten\n",
		    READ_ONCE(trace_on) ? "on" : "off", recorded, lost);
		return 0;
	}
	out("shell: trace what? start, stop, dump or status, not '%s'\n", argv[1]);
	return -EINVAL;
}

/* torture start [SECONDS] [INTERVAL_MS] [own|both|host] | stop | status
 * (the other torture_* command-line values apply: seed, variants, inject) */
static int cmd_torture(int argc, char **argv)
{
	static const char *const modes[] = { "own", "both", "host" };
	char buf[2048];

	if (!strcmp(argv[1], "start")) {
		struct torture_params p;

		torture_params_from_cmdline(&p);
		p.cycles = 0;
		p.duration_s = 60;
		p.interval_ms = 0;
		p.hotplug = TORTURE_HOTPLUG_OWN;
		if ((argc > 2 && arg_uint("seconds", argv[2], 30 * 24 * 3600, &p.duration_s)) ||
		    (argc > 3 && arg_uint("interval (ms)", argv[3], 60000, &p.interval_ms)))
			return -EINVAL;
		if (argc > 4) {
			for (p.hotplug = 0; p.hotplug < ARRAY_SIZE(modes); p.hotplug++)
				if (!strcmp(argv[4], modes[p.hotplug]))
					break;
			if (p.hotplug == ARRAY_SIZE(modes)) {
				out("shell: torture mode is own, both or host, not '%s'\n",
				    argv[4]);
				return -EINVAL;
			}
		}
		if (num_online_cpus() < 2 && p.hotplug == TORTURE_HOTPLUG_OWN) {
			out("torture: needs at least 2 online CPUs\n");
			return -EINVAL;
		}
		int err = torture_start(&p);

		if (err)
			out("torture: %s (%s)\n",
			    err == -EBUSY ? "already running" : "cannot start", errno_name(err));
		else
			out("torture: running for %u s (interval %u ms, hotplug by %s); 'torture "
			    "status' to watch\n",
			    p.duration_s, p.interval_ms, modes[p.hotplug]);
		return err;
	}
	if (argc > 2) {
		out("shell: usage: torture start [SECONDS] [INTERVAL_MS] [own|both|host] | stop | "
		    "status\n");
		return -EINVAL;
	}
	if (!strcmp(argv[1], "stop")) {
		if (!torture_running()) {
			out("torture: not running\n");
			return 0;
		}
		torture_stop();
		torture_wait(UINT64_MAX);
	} else if (strcmp(argv[1], "status")) {
		out("shell: torture what? start, stop or status, not '%s'\n", argv[1]);
		return -EINVAL;
	}
	torture_status(buf, sizeof(buf));
	printk_lines(KERN_RAW, buf);
	return 0;
}

static int cmd_poweroff(int argc, char **argv)
{
	out("powering off\n");
	machine_poweroff();
}

static int cmd_reboot(int argc, char **argv)
{
	out("rebooting\n");
	machine_reboot();
}

static const struct shell_cmd commands[] = {
	{ "help", "help [COMMAND]", "list the commands, or explain one", 0, 1, cmd_help },
	{ "cpus", "cpus", "CPUs and their state, hotplug counts", 0, 0, cmd_cpus },
	{ "serial", "serial [bh|thread]",
	  "COM1 input's figures; run its bottom half as a BH item or a thread item", 0, 1,
	  cmd_serial },
	{ "offline", "offline CPU", "take a CPU offline (cpu_down)", 1, 1, cmd_offline },
	{ "online", "online CPU", "bring a CPU online (cpu_up)", 1, 1, cmd_online },
	{ "hotplug",
	  "hotplug states | hotplug fail CPU STEP|off [up|down|any] [ERRNO] | hotplug target CPU "
	  "STEP|offline|online",
	  "the CPU hotplug steps in order (what each does, which CPUs are past it, its last "
	  "time); make the next pass of CPU through STEP fail (default either way, EAGAIN); or "
	  "take CPU down or up to STEP and stop there",
	  1, 5, cmd_hotplug },
	{ "ps", "ps", "threads: CPU, state, class, affinity, run time, switches, work item", 0, 0,
	  cmd_ps },
	{ "wq", "wq [set NAME nice N|cpus LIST|max_active N ...]",
	  "worker pools and workqueues, with counters; or change a workqueue's nice, CPUs or "
	  "max_active",
	  0, 8, cmd_wq },
	{ "lockdep", "lockdep",
	  "the lock validator: on or off, reports, and how full its tables are", 0, 0,
	  cmd_lockdep },
	{ "demo",
	  "demo sleep|spin COUNT [CPU] [MS] | demo hold COUNT [CPU] | demo release|wait | demo "
	  "ordered COUNT | demo lab7|lab8",
	  "queue COUNT items that sleep or spin MS ms (default 100) on CPU (default 0), or block "
	  "until 'demo release'; 'demo wait' waits until each has finished or blocks; or compare "
	  "an ordered workqueue with max_active 1; or run lab 7's two paths over two locks, one "
	  "after the other, or lab 8's counter on every CPU at once (docs/labs.md)",
	  1, 4, cmd_demo },
	{ "trace", "trace start [EVENTS]|stop|dump|status",
	  "event tracing into per-CPU rings (scripts/trace2json.py reads the dump)", 1, 2,
	  cmd_trace },
	{ "torture", "torture start [SECONDS] [INTERVAL_MS] [own|both|host]|stop|status",
	  "the CPU-hotplug torture: CPUs go offline and online under workqueue load (by the "
	  "torture, by both it and the host, or by the host alone; 0 s: until stopped)",
	  1, 4, cmd_torture },
	{ "test", "test SUITE[,SUITE...]|all", "run kernel test suites (KTAP)", 1, 1, cmd_test },
	{ "bench", "bench [NAME[,NAME...]|all [RUNS]]",
	  "measure the hot paths; compare cmwq with the models it replaced (no argument: list)", 0,
	  2, cmd_bench },
	{ "poweroff", "poweroff", "turn the machine off", 0, 0, cmd_poweroff },
	{ "reboot", "reboot", "restart the machine", 0, 0, cmd_reboot },
	{ NULL, NULL, NULL, 0, 0, NULL },
};

static const struct shell_cmd *find_cmd(const char *name)
{
	for (const struct shell_cmd *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* help's lines fit a terminal of HELP_COLS columns. The list puts each
 * command's usage in a column HELP_USAGE_COLS wide after HELP_INDENT
 * spaces and its text after that, from HELP_TEXT_AT; either goes on over
 * more lines where it is longer, broken between words (a usage's further
 * lines indented two more), so no word is cut at the terminal's edge. */
#define HELP_COLS	80
#define HELP_INDENT	2
#define HELP_USAGE_COLS 36
#define HELP_TEXT_AT	(HELP_INDENT + HELP_USAGE_COLS + 1)

/* The length of the next line from *s of at most cols characters, broken
 * after a word (inside one only if it alone is longer); *s moves past it
 * and the spaces after it. 0 once *s is used up. */
static int wrap_next(const char **s, int cols)
{
	const char *p = *s;
	int len = (int)strnlen(p, (size_t)cols + 1);

	if (len > cols) {
		len = cols;
		while (len > 0 && p[len] != ' ')
			len--;
		if (!len)
			len = cols;
	}
	*s = p + len;
	while (**s == ' ')
		(*s)++;
	while (len > 0 && p[len - 1] == ' ')
		len--;
	return len;
}

/* s on lines of at most HELP_COLS characters: the first after indent
 * spaces, the others after more. */
static void help_wrap(const char *s, int indent, int more)
{
	for (int at = indent; *s; at = indent + more) {
		const char *from = s;
		int len = wrap_next(&s, HELP_COLS - at);

		out("%*s%.*s\n", at, "", len, from);
	}
}

/* One command in help's list: its usage beside its text. */
static void help_entry(const struct shell_cmd *c)
{
	const char *usage = c->usage, *text = c->help;

	for (int indent = HELP_INDENT; *usage || *text; indent = HELP_INDENT + 2) {
		int ucols = HELP_INDENT + HELP_USAGE_COLS - indent;
		const char *u = usage, *t = text;
		int ulen = wrap_next(&usage, ucols),
		    tlen = wrap_next(&text, HELP_COLS - HELP_TEXT_AT);

		if (tlen)
			out("%*s%-*.*s %.*s\n", indent, "", ucols, ulen, u, tlen, t);
		else
			out("%*s%.*s\n", indent, "", ulen, u);
	}
}

static int cmd_help(int argc, char **argv)
{
	if (argc > 1) {
		const struct shell_cmd *c = find_cmd(argv[1]);

		if (!c) {
			out("shell: no command '%s' (try help)\n", argv[1]);
			return -EINVAL;
		}
		help_wrap(c->usage, 0, 2);
		help_wrap(c->help, 4, 0);
		return 0;
	}
	for (const struct shell_cmd *c = commands; c->name; c++)
		help_entry(c);
	help_wrap("Line editing: Backspace, Ctrl-U (erase line), Ctrl-C (cancel), Up/Down "
		  "(history).",
		  0, 2);
	return 0;
}

int shell_exec(const char *cmdline)
{
	/* The words, one after another: never longer than the line itself. */
	char words[SHELL_LINE_MAX + 1], *argv[SHELL_MAX_ARGS + 1];
	size_t used = 0;
	int argc = 0;
	ssize_t len;

	for (const char *s = cmdline;
	     (len = strword_next(&s, words + used, sizeof(words) - used)) != -ENOENT;) {
		if (len < 0) { /* only a caller other than the line editor can */
			out("shell: line too long (more than %d characters); ignored\n",
			    SHELL_LINE_MAX);
			return -E2BIG;
		}
		if (argc == SHELL_MAX_ARGS + 1) {
			out("shell: too many arguments (at most %d)\n", SHELL_MAX_ARGS);
			return -E2BIG;
		}
		argv[argc++] = words + used;
		used += (size_t)len + 1;
	}
	if (!argc)
		return 0;
	const struct shell_cmd *c = find_cmd(argv[0]);

	if (!c) {
		out("shell: unknown command '%s' (try help)\n", argv[0]);
		return -ENOENT;
	}
	if (argc - 1 < c->min_args || argc - 1 > c->max_args) {
		out("shell: usage: %s\n", c->usage);
		return -EINVAL;
	}
	return c->fn(argc, argv);
}

/* The serial consumer: runs in the receive work item, a BH item (it must
 * not sleep: line editing and echo only; a command line goes to shell_wq). */
static void shell_rx(const u8 *buf, size_t n)
{
	shell_input(buf, n);
}

void shell_init(void)
{
	shell_wq = alloc_ordered_workqueue("shell", 0);
	if (!shell_wq) {
		pr_err("shell: cannot allocate its workqueue; no shell\n");
		return;
	}
	uart_set_rx_handler(shell_rx);
	out("baton shell: type 'help' for the commands\n");
	prompt();
}
