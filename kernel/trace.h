/* kernel/trace.h - event tracing into per-CPU ring buffers.
 *
 * trace_start(n) gives every possible CPU a ring of n events and turns
 * tracing on; trace_stop() turns it off (the rings keep what they hold);
 * trace_dump() prints every event, merged in time order, as one line each:
 *
 *   T <ns> <cpu> <event> <tid> <thread-name> <a> <b> <symbol>
 *
 * between "trace: begin N events" and "trace: end" lines, which
 * scripts/trace2json.py turns into Chrome/Perfetto trace-event JSON and
 * an SVG timeline. A full ring overwrites its oldest events (bounded
 * memory); the dump says how many were lost.
 *
 * Cost when off: one predicted-not-taken branch on a global flag at each
 * trace point. When on: interrupts off for a 48-byte store on this CPU.
 * Trace points may be hit in any context, scheduler and hooks included.
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include "lib/compiler.h"
#include "lib/types.h"

enum trace_type {
	TR_SWITCH,	   /* t = next thread, a = previous thread's tid */
	TR_WORK_QUEUE,	   /* t = queuer, a = work, b = func */
	TR_WORK_START,	   /* t = worker, a = work, b = func */
	TR_WORK_END,	   /* t = worker, a = work, b = func */
	TR_WORKER_SLEEP,   /* t = worker that blocks, a = pool id, b = worker woken (tid) */
	TR_WORKER_WAKE,	   /* t = worker running again, a = pool id */
	TR_WORKER_CREATE,  /* t = new worker, a = pool id */
	TR_WORKER_DESTROY, /* t = worker told to exit, a = pool id */
	TR_CPU,		   /* a = cpu, b = enum trace_cpu_phase */
	TR_TRUSTEE,	   /* a = pool id, b = trustee state */
	TR_MAYDAY,	   /* a = pool id */
	TR_RESCUE,	   /* t = rescuer, a = pool id */
	TR_CLOCK_PROGRAM,  /* a = deadline programmed (0: none), b = its delta (ns) */
	TR_CLOCK_EVENT,	   /* a clock-event interrupt: a = the deadline it was for */
	TR_TIMER_EXPIRE,   /* a = timer, b = its callback */
	TR_SLICE_END,	   /* t = the thread whose slice ended, a = its stint (ns) */
	TR_WQ_HOG,	   /* t = worker whose item held its pool, a = pool id, b = func */
	TR_CPUHP_ENTER,	   /* a hotplug step starts for a CPU: a = TRACE_CPUHP_A(), b = its
			    * callback (the stopper's function for cpu:stop) */
	TR_CPUHP_EXIT,	   /* and ends: the same a with its result, the same b */
	TR_BH_RUN,	   /* a BH pool's run starts on this CPU: t = the thread it interrupts
			    * (or the continuation's worker), a = pool id, b = 0 at interrupt
			    * exit/idle/bh enable, 1 the continuation, 2 a drain */
	TR_BH_RUN_END,	   /* and ends: a = pool id, b = 1 if work was left */
	TR_NR_TYPES
};

enum trace_cpu_phase {
	TRC_DOWN_BEGIN,
	TRC_DYING,
	TRC_DEAD,
	TRC_UP_BEGIN,
	TRC_STARTING,
	TRC_ONLINE,
	TRC_DOWN_FAILED, /* cpu_down() failed in a step: the offline was undone */
	TRC_UP_FAILED,	 /* cpu_up() failed in a step: the CPU is back down */
	TRC_STOPPED,	 /* a move to a level between (cpuhp_target()) got there */
	TRC_NR_PHASES
};

/* TR_CPUHP_ENTER/EXIT's a: the CPU (bits 0-31), the direction (bit 32: 1
 * going down) and, on exit, the step's result negated (bits 40-51: 0 or an
 * errno). */
#define TRACE_CPUHP_A(cpu, down, err)                                                              \
	((u64)(u32)(cpu) | ((u64) !!(down) << 32) | ((u64)((unsigned int)-(err)&0xfff) << 40))

struct thread;

extern bool trace_on;
void __trace_event(enum trace_type type, const struct thread *t, u64 a, u64 b);

static inline void trace_event(enum trace_type type, const struct thread *t, u64 a, u64 b)
{
#ifndef CONFIG_LEAN /* LEAN=1 (Makefile): nothing is recorded */
	if (unlikely(READ_ONCE(trace_on)))
		__trace_event(type, t, a, b);
#endif
}

/* 0, -ENOMEM, or -EBUSY if already on. May sleep. */
int trace_start(unsigned int events_per_cpu);
void trace_stop(void);
/* Stop recording now, from any context (a failure's moment): the rings
 * keep what led up to it. trace_stop() must still follow before a dump. */
void trace_freeze(void);
/* Print the merged events (tracing must be off); returns how many. */
unsigned long trace_dump(void);
/* Events recorded and lost (overwritten) since trace_start. */
void trace_counts(u64 *recorded, u64 *lost);

#endif
