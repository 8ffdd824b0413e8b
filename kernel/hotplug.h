/* kernel/hotplug.h - taking CPUs offline and bringing them back at run time.
 *
 *   cpu_down(cpu) / remove_cpu(cpu)   take an online CPU offline
 *   cpu_up(cpu)   / add_cpu(cpu)      bring a present, offline CPU online
 * Both sleep, are serialised by one hotplug lock (cpu_hotplug_lock), and
 * return 0 or:
 *   -EINVAL   cpu is not a possible CPU number
 *   -ENODEV   cpu is not present
 *   -EALREADY it is already in the asked state
 *   -EBUSY    it is the last online CPU
 *   -EPERM    it is the boot CPU, which stays: it receives the legacy
 *             interrupts (PIT/HPET calibration, ACPI SCI), the reboot and
 *             power-off paths run on it, and QEMU's x86 machines cannot
 *             restart it (there is no INIT-SIPI target for the BSP)
 *   -errno    of a callback that failed: the operation was rolled back
 *             (a "cancelled offline" or a failed online) and the CPU is
 *             back where it was (unless the way back gave up at its
 *             bound: below)
 *   -ETIMEDOUT cpu_down: gave up at its bound (below)
 *   -EBUSY    cpu_up: an operation left the CPU half-way (below)
 *
 * ---------------------------------------------------------------------
 * The state machine
 * ---------------------------------------------------------------------
 * A CPU moves through these phases; every phase has callbacks, run in
 * registration order on the way up and in reverse order on the way down:
 *
 *   OFFLINE
 *     | ^  prepare   (control CPU, may sleep; down: "dead", after the CPU
 *     v |            stopped: free, reap, take over what it left)
 *   PREPARED
 *     | ^  starting  (on the CPU itself, interrupts off, must not fail;
 *     v |            down: "dying", run by the CPU's stopper thread)
 *   ONLINE (in cpu_online_mask, taking interrupts)
 *     | ^  online    (control CPU, may sleep; either way the CPU runs but
 *     v |            takes no new work: its per-CPU threads may run there)
 *   (online steps done)
 *     | ^  sched:active (set last going up, cleared first going down: a
 *     v |            stack, as Linux's CPUHP_AP_ACTIVE)
 *   ACTIVE (in cpu_active_mask: a target for wake-ups and new work)
 *
 * Going down: clear active (and wait until no CPU can still be placing a
 * thread there), run the "offline" callbacks, start a FIFO priority-99
 * stopper thread on the CPU which, interrupts off, clears online, runs the
 * "dying" callbacks (the scheduler moves every thread away, timers move to
 * a live CPU, I/O APIC interrupts routed there are re-routed, the
 * workqueue hands the CPU's pools to a trustee) and exits; the idle thread
 * then stops the local APIC timer and halts with interrupts off; the
 * control CPU sends it INIT, lets kernel stacks freed meanwhile be reused
 * (the dying CPU missed their TLB shootdown: kernel/mm/kstack.c) and runs
 * the "dead" callbacks.
 * Coming up: "prepare" callbacks, INIT-SIPI-SIPI through the same
 * trampoline as at boot (per-CPU state re-initialised), "starting"
 * callbacks on the CPU, the "online" callbacks (the workqueue takes its
 * pools back from the trustee, its bound workers on the CPU already: a
 * thread allowed one CPU may run there while it is online, active or not),
 * then the active bit (workqueues with a CPU mask send work there again).
 *
 * A failing "offline" or "prepare" callback rolls the operation back: the
 * callbacks of that phase already run are undone in reverse, and the CPU
 * ends where it started. A failing "online" callback takes the CPU back
 * down (the online callbacks before it undone, a failing one leaves
 * nothing behind; its stopper thread is retried every 10 ms while it
 * cannot be made: the way back is only down). A failing "starting",
 * "dying" or "dead" callback, or a teardown failing while a failed up
 * is rolled back, is only reported ("BUG: cpuhp: ...", report_bug()):
 * there is no way back by then.
 *
 * ---------------------------------------------------------------------
 * Bounds
 * ---------------------------------------------------------------------
 * Two waits have a bound, cpuhp_timeout_ms (20 s by default, the
 * parameter of that name): cpu_down()'s wait for the dying CPU to signal
 * its death and let go of its locks, and a failed cpu_up()'s tries to make
 * the stopper that takes the CPU back down. A death takes well under a
 * millisecond on a quiet host (docs/bench.md: a whole cpu_down, offline_busy,
 * at most about 1 ms); under TCG on a loaded 2-core host the whole of a
 * cpu_down took at most 1.4 s (the fail_workers torture at -smp 4, beside
 * another torture), so 20 s is beyond what a busy host stretches it to,
 * and a stopper's memory has long come back by then. It is below the
 * torture's 30 s watchdog, so a hung death is named by this report first.
 * At the bound the operation gives up, reports it with report_bug() ("BUG:
 * cpuhp: cpuN: ...") and leaves the CPU half-way, in one of two states:
 *
 *   no stopper (cpu_up() returned the online step's error): online, not
 *     active, going down (cpu_going_down()), its online steps undone (its
 *     pools with the trustee); threads bound to it may still run there.
 *   not dead (cpu_down() returned -ETIMEDOUT; also a failed cpu_up() whose
 *     rollback's CPU did not die, which returned the step's error): not
 *     active, going down; not online if its stopper ran. It is neither
 *     sent INIT nor are its dead steps run: it may hold locks still.
 *
 * Either way cpu_up() refuses the CPU with -EBUSY, and cpu_down() (or
 * cpu_hot_remove()) finishes the offline: it makes the stopper, or waits
 * for the death again, each with the same bound (and the same report and
 * -ETIMEDOUT if it is reached again), and returns 0 once the CPU is
 * offline as after any cpu_down().
 */
#ifndef KERNEL_HOTPLUG_H
#define KERNEL_HOTPLUG_H

#include "lib/cpumask.h"
#include "lib/list.h"
#include "lib/types.h"

enum cpuhp_phase { CPUHP_PREPARE, CPUHP_STARTING, CPUHP_ONLINE, CPUHP_NR_PHASES };

/* One registered step: startup runs on the way up (prepare, starting,
 * online), teardown on the way down (dead, dying, offline); either may be
 * NULL. Named as Linux's cpuhp names them, apart from the semaphore's
 * up()/down(). starting-phase callbacks run with interrupts off and must
 * not fail (a failure is reported with report_bug() and otherwise
 * ignored). */
enum cpuhp_dir { CPUHP_UP, CPUHP_DOWN, CPUHP_NR_DIRS };

struct cpuhp_step {
	const char *name;
	enum cpuhp_phase phase;
	int (*startup)(unsigned int cpu);
	int (*teardown)(unsigned int cpu);
	struct list_head node; /* the hotplug lock */
	/* The hotplug lock; kept by hotplug.c (`hotplug states`), zero when
	 * registered: */
	u64 last_ns[CPUHP_NR_DIRS];	      /* how long it took the last time */
	unsigned int last_cpu[CPUHP_NR_DIRS]; /* for which CPU */
	u64 nr_failed[CPUHP_NR_DIRS];	      /* failures, requested ones included */
	u64 nr_requested[CPUHP_NR_DIRS];      /* failures made on request */
	struct cpumask up_cpus;		      /* the CPUs it is done for */
	int level; /* the hotplug lock: its place in the order (hotplug.c) */
};

int cpu_down(unsigned int cpu);
int cpu_up(unsigned int cpu);
/* What err, an error of cpu_down() (up false) or cpu_up() (up true) from
 * the list above, means, in words for a message (the shell, the host's
 * driver); cpu_hot_remove() and cpu_hot_add() return theirs. errno_name()
 * gives the symbol to print beside them. Any context. */
const char *cpuhp_error_words(int err, bool up);
#define remove_cpu(cpu) cpu_down(cpu)
#define add_cpu(cpu)	cpu_up(cpu)

/*
 * The host's side of it (drivers/acpi_cpuhp.c, when the hypervisor plugs a
 * virtual CPU in or asks for one back). Both sleep and take the hotplug
 * lock; cpu_present_mask changes only here after boot, under that lock.
 *   cpu_hot_add(cpu)     mark a possible CPU present and cpu_up() it; 0
 *                        also if it was online already; -EINVAL (not a
 *                        possible CPU), or cpu_up()'s error (it then stays
 *                        present and offline)
 *   cpu_hot_remove(cpu)  cpu_down() it if online, then mark it not present
 *                        (the host may then eject it); -EPERM for the boot
 *                        CPU (checked first), -ENODEV if not present,
 *                        -EINVAL, or cpu_down()'s error (nothing changed)
 */
int cpu_hot_add(unsigned int cpu);
int cpu_hot_remove(unsigned int cpu);

/* Register a step (kept in the caller's memory) after those of its phase;
 * cpuhp_remove_step() takes it out. Both take the hotplug lock. Steps
 * registered here do not run their startup for CPUs already past their
 * place (cpuhp_setup_step() below does), but count as done for them, as
 * Linux's _nocalls variants do: their teardown runs as those CPUs go down. cpuhp_add_step_first()
 * registers it before them instead: its startup runs first and its
 * teardown last (a dying step then runs after every built-in one, the
 * timers' move included: what a CPU does last before it dies). */
void cpuhp_add_step(struct cpuhp_step *step);
void cpuhp_add_step_first(struct cpuhp_step *step);
void cpuhp_remove_step(struct cpuhp_step *step);

/*
 * Register a step as Linux's cpuhp_setup_state() does: after those of its
 * phase, then run its startup for every CPU already past its place (each
 * online CPU not left half-way: "Bounds"), in CPU order: a starting step on
 * that CPU with interrupts off (a cross-CPU call), the others here. If one
 * fails, its teardown runs for the CPUs done (in reverse), the step is
 * unregistered and the error returned; 0 once done for all. While it runs
 * no CPU comes or goes (it holds the hotplug lock), and from then on every
 * CPU passes the step as it comes and goes. cpuhp_teardown_step() runs its
 * teardown for every CPU it is done for (reverse order; a failure is
 * reported and the others go on), then unregisters it (Linux's
 * cpuhp_remove_state()). Both sleep; not from a hotplug callback.
 */
int cpuhp_setup_step(struct cpuhp_step *step);
void cpuhp_teardown_step(struct cpuhp_step *step);

/*
 * Failing a step on request (Linux's cpuhp "fail" file): the next time the
 * step named name runs for cpu in a direction of dirs (a bit per enum
 * cpuhp_dir), it fails with err (a negative errno) instead of running its
 * callback, once; the operation then rolls back as for any failure of that
 * step (above). One request per CPU: a new one replaces it; a step name of
 * NULL clears it. Besides the registered steps, the fixed points of the
 * state machine are named too:
 *   cpu:bringup    between the prepare and the starting steps: up, the
 *                  INIT-SIPI-SIPI (a failure is a CPU that did not start);
 *                  down, the CPU's death (cannot fail)
 *   cpu:stop       between the starting and the online steps: down only,
 *                  the stopper thread that takes the CPU down (a failure
 *                  cancels the offline; rolling back a failed online it is
 *                  retried every 10 ms)
 *   sched:active   the active bit: up, set last, after the online steps (as
 *                  Linux's CPUHP_AP_ACTIVE); down, cleared first
 * Refused with -EPERM and a reason in *why: the starting and dying steps
 * (on the CPU itself, interrupts off: no way back), the dead steps and
 * cpu:bringup down (the CPU has stopped: no way back), a direction without
 * a callback (nothing runs there to fail). -ENOENT: no such step;
 * -EINVAL: cpu not possible, err not a negative errno or dirs empty.
 * Sleeps (the hotplug lock). cpuhp_fail_pending() reads the request back
 * (the step's name or NULL).
 */
#define CPUHP_DIR_BIT(d) (1u << (d))
#define CPUHP_DIRS_ANY	 (CPUHP_DIR_BIT(CPUHP_UP) | CPUHP_DIR_BIT(CPUHP_DOWN))
int cpuhp_fail_step(unsigned int cpu, const char *name, unsigned int dirs, int err,
		    const char **why);
const char *cpuhp_fail_pending(unsigned int cpu, unsigned int *dirs, int *err);
/* The step whose failure failed the last cpu_down()/cpu_up() of cpu (its
 * name), or NULL: that operation did not fail in a step (it succeeded, or
 * was refused before any: the errors of the list at the top). Sleeps. */
const char *cpuhp_failed_step(unsigned int cpu);

/*
 * Stopping at a step (Linux's cpuhp "target" file): take cpu down, or bring
 * it up, to the level of the step named name ("offline" and "online": the
 * two ends) and leave it there; cpu_down(), cpu_up() or another target go
 * on from there, either way. A failure on the way moves it back to where
 * it was, as for cpu_down()/cpu_up(). The levels (`hotplug states`, in
 * order): each prepare step (the CPU stopped, its prepare steps up to that
 * one done), cpu:stop (started, online, taking interrupts, not active, no
 * online step done: its pools with the trustee), each online step (online,
 * not active, the online steps up to it done), sched:active (= online).
 * What a CPU stopped between promises: docs/hotplug.md. 0 (there already
 * too), or -EINVAL (not a possible CPU) or -ENODEV (not present), -ENOENT
 * (no such step), -EPERM with why (a starting step or cpu:bringup, which
 * the CPU runs as one with its start and stop; the boot CPU below online),
 * -EBUSY with why (left half-way: cpu_down() finishes it; the last active
 * or online CPU), or a step's error (the move undone). Sleeps.
 * cpuhp_cpu_level(): the step cpu stands at, "offline" or "online".
 */
int cpuhp_target(unsigned int cpu, const char *name, const char **why);
const char *cpuhp_cpu_level(unsigned int cpu);

/* Where the last cpu_down() and the last cpu_up() that ran their steps
 * spent their time: each step in the order it ran (a rollback's too), with
 * its direction, result and duration, and the wait that is no step
 * ("death": for the dying CPU beyond its dying steps, which run meanwhile:
 * the stopper's start, the halt, the caller's wake-up). cpuhp_last_op(up, out): a copy, false if
 * there was none yet. Sleeps. */
#define CPUHP_OP_STEPS 40
struct cpuhp_op_record {
	unsigned int cpu;
	bool up;
	int result;	 /* 0 or the operation's error */
	u64 total_ns;	 /* from the call to the result (the lock wait included) */
	unsigned int nr; /* entries (more were dropped: nr_dropped) */
	unsigned int nr_dropped;
	struct cpuhp_op_entry {
		char name[28];
		enum cpuhp_dir dir;
		int result;
		unsigned int on_cpu; /* where it ran (the dying steps: the CPU itself) */
		u64 ns;
	} steps[CPUHP_OP_STEPS];
};
bool cpuhp_last_op(bool up, struct cpuhp_op_record *out);

/* Every step in the order a CPU passes them coming up (the fixed points
 * among them), one call of fn each, under the hotplug lock (fn must not
 * take it): with its phase's name and whether it may be failed in each
 * direction. A step's up_cpus are the CPUs it is done for: passed on the
 * way up (its startup run, or none to run) and not yet on the way down. */
struct cpuhp_step_info {
	const struct cpuhp_step *step;
	const char *phase;     /* "prepare", "starting", "online" or "fixed" */
	const char *up, *down; /* a fixed point's work each way (NULL: the
				* step's callback, or nothing) */
	bool can_fail[CPUHP_NR_DIRS];
};
void cpuhp_for_each_step(void (*fn)(const struct cpuhp_step_info *info, void *arg), void *arg);

/* Keep CPUs from coming or going meanwhile (the hotplug lock itself): for
 * code that sets something up for each online CPU (the workqueue's pools
 * of a new nice level). Sleeps; not from a hotplug callback, which runs
 * under it already. cpus_locked(): the caller holds it (either way). */
void cpus_read_lock(void);
void cpus_read_unlock(void);
bool cpus_locked(void);

/* Is cpu on its way down (between clearing active and being offline)? */
bool cpu_going_down(unsigned int cpu);

/* Figures for tests, the shell and the torture. */
struct cpuhp_stats {
	u64 nr_down, nr_up, nr_down_failed, nr_up_failed;
	u64 last_down_ns, last_up_ns; /* how long the last ones took */
	/* The last cpu_down from its start until the dying CPU signalled its
	 * death: without the wait of its caller for its own CPU after that. */
	u64 last_down_dead_ns;
};
void cpuhp_get_stats(struct cpuhp_stats *st);

/* Where CPU hotplug may be failed on purpose (kernel/tools/fault_inject.c
 * fills it when a test asks; NULL: never; either callback may be NULL):
 *   fail_bringup(cpu)  asked just before cpu is started (control CPU,
 *                      hotplug lock held): an error fails the start with it,
 *                      as if the CPU had not answered its INIT-SIPI-SIPI
 *   before_death(cpu)  on the dying CPU, interrupts off, just before it
 *                      signals its death: it may hold the CPU there */
struct cpuhp_fault_hooks {
	int (*fail_bringup)(unsigned int cpu);
	void (*before_death)(unsigned int cpu);
};
extern const struct cpuhp_fault_hooks *cpuhp_fault_hooks;
/* The bound of the waits above ("Bounds"); tests lower it for a case. */
extern unsigned int cpuhp_timeout_ms;

/*
 * The machine's part (arch/x86_64/hotplug.c): the state machine reaches the
 * interrupt controllers only through these.
 *   arch_cpu_irqs_dying(cpu)  the dying step "irqs:dying" (on cpu,
 *                             interrupts off, out of the online mask):
 *                             route the device interrupts aimed at cpu to
 *                             an online CPU; 0
 *   arch_cpu_dead(cpu)        on the control CPU, once cpu has halted for
 *                             good and holds no lock, before the dead
 *                             steps: leave it where cpu_up() can start it
 *                             again as at power-on (x86: INIT)
 */
int arch_cpu_irqs_dying(unsigned int cpu);
void arch_cpu_dead(unsigned int cpu);

/* From ap_start(), interrupts off: run the starting steps, go online. */
void cpuhp_ap_starting(void);
/* Called by the idle loop when its CPU is to die (interrupts off). */
__noreturn void cpu_play_dead(void);
bool cpu_should_die(void);

void cpuhp_init(void);
/* The boot has brought every CPU up by its own paths (smp_init(), the
 * workqueue's pools made for each online CPU): record them as past every
 * step. Once, from kmain(). */
void cpuhp_boot_done(void);

#endif
