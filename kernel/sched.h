/* kernel/sched.h - threads and the scheduler.
 *
 * Every CPU has a run queue (struct rq, in sched_internal.h) holding its
 * runnable threads in two classes: FIFO real-time threads (priority 1..99,
 * highest first, never preempted by fair ones, no slice) and fair threads
 * (nice -20..19; the one with the least weighted run time, vruntime, runs
 * next, as in Linux's CFS). Each CPU has an idle thread that halts.
 * Preemption: a fair thread's slice ends when it is due, by the CPU's
 * clock event (kernel/time.h: the run queue's slice_end is one of the
 * CPU's deadlines), and waking a better thread preempts the current one
 * (by IPI on another CPU); need_resched is acted on when the preemption
 * count drops to zero and on return from interrupts. There is no tick: a
 * CPU takes a timer interrupt for the scheduler only at a slice's end
 * (none while its thread runs alone) and, while it is busy, for its
 * balancing timer (every BALANCE_INTERVAL_NS, 100 ms: kernel/sched.c),
 * which lapses once the CPU is idle.
 *
 * Thread states: THREAD_RUNNING (running or runnable), THREAD_BLOCKED
 * (waiting for a wake-up), THREAD_DEAD. The blocking pattern is Linux's:
 *
 *   for (;;) {
 *           set_current_state(THREAD_BLOCKED);
 *           if (condition)
 *                   break;
 *           schedule();
 *   }
 *   __set_current_state(THREAD_RUNNING);
 *
 * and the waker makes the condition true, then calls wake_up_thread().
 *
 * ---------------------------------------------------------------------
 * Sleep/wake hooks: the contract
 * ---------------------------------------------------------------------
 * A thread may carry up to SCHED_MAX_HOOKS hook objects (Linus Torvalds'
 * review of the cmwq patchset: the callbacks belong to the thread, not to
 * a scheduler class). Only the thread itself writes its hook slots (it
 * adds or removes its hooks, interrupts off, since schedule() reads them
 * on its CPU), and only it acts on what they hold: sched_hook_data(current,
 * ops) finds a hook's data by its ops (the workqueue tells its workers
 * this way). Others may read another thread's slots only to describe it
 * (sched_hook_data(t, ops) from a for_each_thread() callback, the NMI
 * dump's count): a glance, each slot read once, which may be stale at once.
 *
 *   sleeping(t, data)  t is about to block: it called schedule() in a state
 *       other than THREAD_RUNNING and no wake-up came first. Called on t's
 *       CPU from inside schedule(), with that CPU's run-queue lock held and
 *       interrupts off. NOT called when t is preempted (a preempted thread
 *       is still runnable), nor when a wake-up arrived before t could
 *       block. It must not sleep, must not take the run-queue lock, and
 *       must not wake threads itself; instead it may RETURN one blocked
 *       thread bound to this same CPU (e.g. an idle workqueue worker), which
 *       the scheduler wakes right there, under the lock it already holds.
 *       Return NULL otherwise.
 *   running(t, data)   t runs again after having blocked (exactly once per
 *       sleeping() call). Called in t's own context, right after schedule()
 *       returns to it, with interrupts and preemption enabled and no lock
 *       held. It may take locks and spin, and must not sleep.
 *
 * So a thread that blocks N times sees N sleeping() and N running() calls,
 * and none for any number of preemptions. Hooks run in the order they were
 * added for sleeping() and in reverse order for running().
 * ---------------------------------------------------------------------
 */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include "kernel/completion.h"
#include "kernel/cpu_local.h"
#include "lib/cpumask.h"
#include "lib/list.h"
#include "lib/types.h"

#define THREAD_RUNNING 0
#define THREAD_BLOCKED 1
#define THREAD_DEAD    2

enum sched_class { SCHED_CLASS_IDLE, SCHED_CLASS_FAIR, SCHED_CLASS_FIFO };

#define NICE_MIN	(-20)
#define NICE_MAX	19
#define FIFO_PRIO_MIN	1
#define FIFO_PRIO_MAX	99
#define SCHED_MAX_HOOKS 4
#define THREAD_NAME_LEN 24

struct thread;

struct sched_hook_ops {
	struct thread *(*sleeping)(struct thread *t, void *data);
	void (*running)(struct thread *t, void *data);
};

/* The weight of nice 0: a fair thread's vruntime grows by its CPU time
 * times NICE_0_WEIGHT / its weight. */
#define NICE_0_WEIGHT 1024

/* Per-thread statistics; read without locks (approximate while running). */
struct thread_stats {
	u64 nvcsw;	 /* switches away because the thread blocked */
	u64 nivcsw;	 /* switches away because it was preempted */
	u64 sum_exec_ns; /* time on a CPU */
	u64 nr_wakeups;
	u64 nr_migrations;
	/* Its longest time on a CPU in one go (a current one not included):
	 * how far apart the fair class lets the vruntimes of one CPU's
	 * threads drift, whatever the host does to the clock. */
	u64 max_stint_ns;
};

/*
 * Field legend: R = the run-queue lock of the thread's CPU (t->cpu);
 * P = t->pi_lock (serialises wake-ups and affinity changes; taken before R,
 *     an order the lock validator checks: docs/lockdep.md);
 * S = the thread itself only; I = set at creation; K = kthread machinery.
 */
struct thread {
	u64 ctx_rsp;		/* R: saved stack pointer (switch.S; keep first) */
	u64 ctx_seal[2];	/* R: the saved rbp and return address, checked at
				 * switch-in: a stack written while switched out */
	volatile int state;	/* R for others; the thread itself sets it without R */
	int kcsan_disable;	/* the thread itself: data-race checks off (kernel/debug/kcsan.c) */
	unsigned int cpu;	/* R (changes need P or both run-queue locks) */
	bool on_rq;		/* R: queued, or current, on t->cpu */
	volatile bool on_cpu;	/* R: executing or being switched out */
	bool migrate;		/* R (cleared with P too): switched out off its
				 * mask, on no run queue; migrate_away() requeues it */
	bool fallback_reported; /* P: told once that it ran outside its mask */
	enum sched_class policy;     /* R */
	int nice;		     /* R */
	unsigned int weight;	     /* R: from nice */
	unsigned int fifo_prio;	     /* R: FIFO priority */
	u64 vruntime;		     /* R: weighted ns of CPU time */
	u64 exec_start;		     /* R: when it last got the CPU (ns) */
	u64 slice_start_exec;	     /* R: sum_exec_ns when its slice began */
	u64 stint_start_exec;	     /* R: sum_exec_ns when it last got the CPU */
	struct list_head run_link;   /* R: on the run queue */
	struct cpumask cpus_allowed; /* P+R */
	struct spinlock pi_lock;

	/* S to write; others glance (the hooks' contract above) */
	const struct sched_hook_ops *hook_ops[SCHED_MAX_HOOKS]; /* S */
	void *hook_data[SCHED_MAX_HOOKS];			/* S */
	unsigned int nr_hooks;					/* S */
	bool hooks_slept;    /* S: sleeping() ran; running() is due */
	bool in_hook;	     /* S: inside a hook callback (must not block) */
	u16 nr_cpus_allowed; /* P+R: the weight of cpus_allowed (thread_set_cpus_allowed()):
				a wake-up's test for a thread bound to one CPU */
	int biglock_depth;   /* S: kernel/biglock.c */
	u32 tid;	     /* I: unique id (tracing) */
	/* S (interrupts off): the locks it holds, for the validator; NULL
	 * with lockdep=0 (kernel/lockdep.h) */
	struct lockdep_ctx *lockdep;
	const void *sleeper; /* S: its schedule_timeout() timer while armed
			      * (kernel/wait.c checks it when a timer queue meets it) */

	char name[THREAD_NAME_LEN]; /* I */
	int (*fn)(void *arg);	    /* I */
	void *arg;		    /* I */
	void *data;		    /* kthread_set_data() before it starts, or by
				     * the thread itself: kthread_data() */
	u8 *stack;		    /* I: base of the kernel stack */
	unsigned long kflags;	    /* K: KTHREAD_* bits, atomic ops */
	int exit_code;		    /* K */
	struct completion exited;   /* K */
	int refcount;		    /* atomic: creator's ref + the thread's own */
	struct list_head all_link;  /* threads_lock */
	struct thread_stats stats;
	unsigned int out_cpu; /* R: where it last switched out, and when: */
	u64 out_ns;	      /* R  for reports */
};

/* The running thread on this CPU. */
static inline struct thread *current_thread(void)
{
	return (struct thread *)this_cpu_read(sched.curr_thread);
}
#define current current_thread()

void set_current_state(int state);
static inline void __set_current_state(int state)
{
	current->state = state;
}

void sched_init(void);	  /* boot CPU: make this context idle/0 */
void sched_init_ap(void); /* each AP: make this context its idle thread */
/* Is cpu halted in its idle loop (no section with interrupts off under
 * way there)? Read after a full barrier; smp_wait_irqs_off_sections(). */
bool sched_cpu_idle_halted(unsigned int cpu);
/* For a TLB shootdown: true if cpu is halted in its idle loop, in which case
 * it flushes its whole TLB as it wakes, before it runs anything; false if
 * it must be sent the flush. */
bool sched_cpu_flush_tlb_on_wake(unsigned int cpu);
__noreturn void cpu_idle(void); /* the idle loop */
void schedule(void);
void yield(void);
bool wake_up_thread(struct thread *t); /* true if it was blocked */
/* From an interrupt on this CPU (interrupts off): choose again at its exit,
 * so that threads woken meanwhile compete with the interrupted one now
 * rather than when its slice ends (still by the fair class's rule). The
 * workqueue uses it when a CPU hog stops holding its pool. */
void sched_resched_here(void);
/* For the clock event (this CPU, interrupts off): the end of the current
 * slice (KTIME_MAX: none), and its interrupt's check; true if the slice
 * deadline was due. */
u64 sched_next_event(void);
bool sched_clock_event(void);
/* Called on return from an interrupt with need_resched set. */
void preempt_schedule_irq(void);
void preempt_schedule(void);

int sched_set_nice(struct thread *t, int nice);
int sched_set_fifo(struct thread *t, unsigned int prio);
int sched_set_normal(struct thread *t);
/* 0, or -EINVAL if mask has no active CPU and is not one online CPU (a
 * per-CPU thread may use its CPU while it is online but not active: CPU
 * hotplug's online and offline steps run then). A queued t moves at once, and
 * t == current returns on an allowed CPU; a t running on another CPU is
 * only asked to reschedule, and moves as it switches out (it may still run
 * there when this returns); a blocked t moves when it is woken. */
int set_cpus_allowed(struct thread *t, const struct cpumask *mask);

/* Affinity, under t->pi_lock: t's allowed CPUs now. */
void thread_get_cpus_allowed(struct thread *t, struct cpumask *mask);
/* The calling thread runs on cpu only from now on; its mask until now is
 * saved in *saved for sched_unpin_current(). 0 (returning on cpu), or
 * -EINVAL if cpu is not active (nothing changed). May sleep. */
int sched_pin_current(unsigned int cpu, struct cpumask *saved);
/* Back to the mask sched_pin_current() saved: 0, or -EINVAL if none of
 * its CPUs is active (the pin stays). May sleep. */
int sched_unpin_current(const struct cpumask *saved);

/* Glances at another thread, without its locks, as Linux's owner_on_cpu():
 * each may be stale as soon as it is read (a thread moves, blocks and
 * wakes at any time). For display, last-gasp reports, tests that wait
 * for a state to settle and spin-or-sleep choices; never for a decision
 * that must be exact, which takes t's locks (sched_describe_thread()). */
static inline bool thread_on_cpu(const struct thread *t)
{
	return READ_ONCE(t->on_cpu);
}
static inline unsigned int thread_cpu(const struct thread *t)
{
	return READ_ONCE(t->cpu);
}
static inline int thread_state(const struct thread *t)
{
	return READ_ONCE(t->state);
}
/* Blocked and off its run queue: only a wake-up brings it back. */
static inline bool thread_asleep(const struct thread *t)
{
	return READ_ONCE(t->state) == THREAD_BLOCKED && !READ_ONCE(t->on_rq);
}

/* Is the calling context a CPU's idle thread (which must never block)? */
static inline bool current_is_idle(void)
{
	return current->policy == SCHED_CLASS_IDLE; /* set at boot, never changed */
}

/* What ps shows of a thread, read under t->pi_lock and its run-queue lock
 * so that the fields agree with each other. */
struct thread_desc {
	unsigned int cpu;
	int state;
	enum sched_class policy;
	int nice;
	unsigned int fifo_prio;
	struct cpumask cpus_allowed;
	u64 runtime_ns; /* its stint under way included */
	/* Fair class: its vruntime, and its run queue's minimum and count of
	 * runnable threads at the same moment (vruntime means something only
	 * against that queue's minimum). */
	u64 vruntime, min_vruntime;
	unsigned int nr_running;
	u64 nvcsw, nivcsw;
};
void sched_describe_thread(struct thread *t, struct thread_desc *d);

/* Where t last switched out, as return addresses from the switch outward
 * (the blocking call among them, for a thread that blocked), into ips;
 * how many. 0 if t is on a CPU now (its stack is changing under us).
 * Under t's locks: t cannot be switched in while its frames are read.
 * For failure reports and debuggers (Linux's stack_trace_save_tsk()). */
unsigned int sched_thread_backtrace(struct thread *t, u64 *ips, unsigned int max);

/* The calling thread adds or removes one of its own hooks; 0 or -ENOSPC. */
int sched_hook_add(const struct sched_hook_ops *ops, void *data);
void sched_hook_remove(const struct sched_hook_ops *ops);
/* The data of t's hook with these ops, or NULL if t has none (a few
 * compares: the workqueue asks on every queueing). Exact for t == current;
 * for another thread the glance of the hooks' contract above (display
 * only). */
void *sched_hook_data(const struct thread *t, const struct sched_hook_ops *ops);

/* t's CPU time in ns, its stint under way included (stats.sum_exec_ns
 * alone is brought up to date only when t switches, or its CPU's run
 * queue is looked at). Takes t's run-queue lock. */
u64 thread_runtime_ns(struct thread *t);

/* "running", "blocked", "dead" or "?": for ps, dumps and debuggers. */
const char *thread_state_name(int state);

/* Per-CPU run-queue figures for tests, benchmarks and the shell. */
struct rq_stats {
	u64 nr_switches;
	unsigned int nr_running; /* runnable, current included, idle not */
	u64 idle_ns;
};
void sched_get_rq_stats(unsigned int cpu, struct rq_stats *st);
/* CPU hotplug (kernel/hotplug.c): stop placing threads on cpu (and wait
 * until no CPU still can); place them again; move the queued ones away
 * (on the dying CPU, interrupts off); check nothing was left. */
void sched_cpu_deactivate(unsigned int cpu);
void sched_cpu_activate(unsigned int cpu);
void sched_cpu_dying(unsigned int cpu);
void sched_cpu_dead(unsigned int cpu);
/* Print every thread's state (from an NMI: takes no locks). */
void sched_dump_threads(void);
/* Is the scheduler running (threads exist)? */
extern bool sched_ready;

#endif
