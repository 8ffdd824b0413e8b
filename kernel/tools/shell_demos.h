/* kernel/tools/shell_demos.h - the workloads behind the shell's `demo`.
 *
 * The shell (shell.c) parses `demo ...` and checks its arguments; these
 * run what it asked for and print the answer on the console, as every
 * command does. Each may sleep (they run in the shell's work item) and
 * returns 0 or -errno, reporting its own failure in words.
 *
 * Interface:
 *   demo_queue(kind, n, cpu, ms)  queue n items on cpu that sleep or spin
 *                                 ms ms, or block at a gate (DEMO_HOLD)
 *   demo_release()                open the gate: the held items go
 *   demo_wait()                   until every item has finished or is
 *                                 held at the gate
 *   demo_ordered(n)               n items on an ordered workqueue and on
 *                                 a bound one with max_active 1
 *   demo_lab7(), demo_lab8()      the labs' runs (docs/labs.md)
 *
 * With hold, release and wait a script (the labs' checks) reaches "an item
 * is blocked while others run" or "items are pending when the CPU goes
 * offline" by construction, not by racing a sleep against the host's
 * speed.
 */
#ifndef KERNEL_TOOLS_SHELL_DEMOS_H
#define KERNEL_TOOLS_SHELL_DEMOS_H

#define DEMO_MAX_ITEMS 1000  /* demo_queue()'s and demo_ordered()'s n */
#define DEMO_MAX_MS    10000 /* demo_queue()'s ms */

enum demo_kind { DEMO_SLEEP, DEMO_SPIN, DEMO_HOLD };

/* cpu: a possible CPU (an offline one's trustee runs the items); ms is
 * unused by DEMO_HOLD. */
int demo_queue(enum demo_kind kind, unsigned int n, unsigned int cpu, unsigned int ms);
int demo_release(void);
int demo_wait(void);
int demo_ordered(unsigned int n);
int demo_lab7(void);
int demo_lab8(void);

#endif
