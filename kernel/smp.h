/* kernel/smp.h - cross-CPU calls: running code on other CPUs. Which CPUs
 * exist and run is kernel/cpu_masks.h; bringing them up, kernel/smpboot.h.
 *
 *   smp_call_function_single(cpu, fn, info, wait)  run fn(info) on cpu, in
 *       its call-function IPI handler (interrupts off, must not sleep);
 *       with wait, return when fn has returned. Callable with interrupts
 *       off: a waiting CPU runs the calls queued to it meanwhile, so two
 *       CPUs calling each other do not deadlock.
 *   smp_call_function_many(mask, fn, info, wait)   the same on every online
 *       CPU in mask except the caller
 *   on_each_cpu(fn, info, wait)   every online CPU, the caller included
 *   smp_wait_irqs_off_sections()  return once every online CPU has taken
 *       an interrupt since the call: whatever any CPU was doing with
 *       interrupts off when it was called is over (a barrier for code that
 *       changed what such sections read: the active mask, the tracer's
 *       switch)
 *   smp_send_reschedule(cpu)      poke cpu's scheduler
 *   smp_send_stop()               NMI every other CPU to a halt (panic)
 *   smp_show_backtraces()         NMI every other CPU: each prints what it
 *                                 runs, with a backtrace (debugging)
 * Only online CPUs take calls (kernel/cpu_masks.h).
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "kernel/cpu_local.h"
#include "lib/cpumask.h"
#include "lib/types.h"

typedef void (*smp_call_func_t)(void *info);

/* smp_init(): register the call-function and reschedule vectors. */
void smp_calls_init(void);
/* The CPU itself, going offline (its stopper, interrupts off): clear its
 * online bit under its call lock, then run the calls queued meanwhile, so
 * that no waiter hangs. */
void smp_cpu_dying(void);
int smp_call_function_single(unsigned int cpu, smp_call_func_t fn, void *info, bool wait);
int smp_call_function_many(const struct cpumask *mask, smp_call_func_t fn, void *info, bool wait);
int on_each_cpu(smp_call_func_t fn, void *info, bool wait);
void smp_wait_irqs_off_sections(void);
void smp_send_reschedule(unsigned int cpu);
/* An interrupt to cpu (this CPU too) whose exit runs its bottom halves
 * (kernel/workqueue/bh.c): the CPU's BH pool has work. Any context. */
void smp_send_bh_kick(unsigned int cpu);
void smp_send_stop(void);
void smp_show_backtraces(void);

#endif
