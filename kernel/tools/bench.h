/* kernel/tools/bench.h - measurements of the hot paths, for `make bench` and the
 * shell's `bench` command.
 *
 *   bench_run(list, n)   run the benchmarks named in list ("all", or names
 *                        separated by commas), each n times (0: its own
 *                        default), and print one line per benchmark:
 *
 *       bench: NAME: n N min A median B max C UNIT
 *
 *                        0, -EINVAL for an unknown name or a bad n (said
 *                        on the console), -EBUSY while the hotplug torture
 *                        runs (it would move the CPUs under the figures),
 *                        or the -errno that stopped a benchmark.
 *   bench_list(fn, arg)  call fn(name, what, arg) for every benchmark
 *
 * The list may also name the comparisons of kernel/tools/bench_compare.h
 * (cmwq against the models it replaced; "all" runs them after the
 * benchmarks below); they print "bench: cmp ..." lines and ignore n.
 *
 * `bench=LIST` on the kernel command line runs them at boot and powers off
 * (`make bench` boots that way, under QEMU's -icount so that the figures
 * are counted in instructions, not the host's mood).
 *
 * The benchmarks (the CPUs are the first online one, A, and the last, B;
 * the boot CPU never goes offline, so the hotplug ones use B):
 *   wake_same      complete() to the woken thread running, both on A
 *   wake_cross     the same with the waker on A and the woken thread on B
 *   queue_same     queue_work_on(A) from A to the item starting
 *   queue_cross    queue_work_on(B) from A to the item starting
 *   queue_unbound  queue_work() on system_unbound_wq to the item starting
 *   sleepers       8 items that sleep 10 ms, queued to A: first queued to
 *                  last finished (about 10.2 ms; 20 ms with nohz=off, each
 *                  sleep ending on a 10 ms tick; the "sleepers" comparison
 *                  runs the same on the models cmwq replaced)
 *   offline_idle   cpu_down(B) with no work pending
 *   offline_busy   cpu_down(B) with 1000 pending items that sleep 1 ms on
 *                  a workqueue allowing 8 at once (they need 125 ms): the
 *                  trustee takes them, cpu_down does not wait
 *   online         cpu_up(B)
 *   mem_boot       memory in use: pages handed out by the page allocator
 *   mem_worker     what one more worker costs: items sleeping at once on
 *                  A (32 more than the pool has idle workers) make the
 *                  pool add workers; pages in use over the workers added
 *                  (stack, thread and worker structs)
 *   sleep_10ms, sleep_1ms, sleep_100us  usleep() of that length on A, as
 *                  its caller sees it (the wake-up included)
 *   sleep_10ms_busy, sleep_1ms_busy, sleep_100us_busy  the same beside a
 *                  CPU-bound thread on A (which runs alone 20 ms first)
 *   slices         the stints of 3 CPU-bound threads sharing B, in the CPU
 *                  time the scheduler counts (us)
 *   timer_arm_cancel  add_timer + del_timer of a timer 1 s out, per pair
 *   timer_arm_cancel_64  the same with 64 other timers pending on A
 *   idle_irqs      timer interrupts B takes in a second with nothing to do
 *   lock_spin      spin_lock + spin_unlock of one static lock, per pair
 *   lock_nested3   three static spinlocks taken A -> B -> C, then released
 *   lock_mutex     mutex_lock + mutex_unlock, uncontended
 *   lock_flush_idle  flush_work() of an item never queued (the validator's
 *                  pseudo-lock pair, nothing to wait for)
 *                  The lock_* ones measure 1000 pairs per sample; run with
 *                  lockdep=0 and with the validator on, they give its cost
 *                  (bench= then also prints "bench: lockdep: ..." with its
 *                  tables' use).
 * Every wait between samples sleeps, so each sample starts from idle
 * CPUs and sleeping workers.
 *
 * Sleeps; call from a thread that is not a work item of system_wq (the
 * queue benchmarks flush it), not inside a hotplug callback.
 */
#ifndef KERNEL_TOOLS_BENCH_H
#define KERNEL_TOOLS_BENCH_H

#include "lib/types.h"

#define BENCH_MAX_N 100000

int bench_run(const char *list, unsigned int n);
void bench_list(void (*fn)(const char *name, const char *what, void *arg), void *arg);
/* The boot path: run what bench= asked for and power off; false if
 * nothing was asked. */
bool bench_requested(void);
void bench_run_selected(void);

#endif /* KERNEL_TOOLS_BENCH_H */
