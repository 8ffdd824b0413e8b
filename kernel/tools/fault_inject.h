/* kernel/tools/fault_inject.h - failures made on purpose, for the tests and
 * the torture: thread creations that fail and CPUs that do not start or do
 * not die, so that the callers' recovery paths (the workqueue's rescuers,
 * the hotplug rollbacks and bounds) can be tested for real.
 *
 * The core only declares where a failure may be made (kthread.h's
 * kthread_should_fail, hotplug.h's cpuhp_fault_hooks, Linux's should_fail()
 * in spirit); this file fills those hooks the first time it is asked for a
 * failure, so a kernel that never asks runs none of it.
 *
 * Thread creation (kthread_create() and the rest, whoever makes them):
 *   kthread_fail_next(n)   the next n creations fail with NULL, whoever
 *                          makes them; 0 ends it
 *   kthread_fail_own(n)    only the next n that the calling thread itself
 *                          makes (a test that needs one given creation to
 *                          fail: others' creations, a pool's manager making
 *                          a worker meanwhile, would take a shared count); 0
 *                          ends it. One thread at a time (the test case's).
 *   kthread_set_fail_hook(fail, arg)  every creation asks fail(arg) first, in
 *                          the creating thread (it may sleep: no locks are
 *                          held), and fails if it says so (a test that must
 *                          fail one given thread's creations, and hold it
 *                          there while it sets up a moment); NULL removes
 *                          it; one hook at a time
 * Asked in that order: a creation that one of them fails is not counted by
 * the next.
 *
 * CPU hotplug (kernel/hotplug.h):
 *   cpuhp_fail_bringup_next(n)  the next n cpu_up() calls that get as far
 *                          as starting their CPU fail there with -EIO, as if
 *                          it had not answered its INIT-SIPI-SIPI (the
 *                          "prepare" steps are then undone)
 *   cpuhp_hold_death(hold) while held, a dying CPU stops before it signals
 *                          its death (in cpu_play_dead(), interrupts off),
 *                          so cpu_down() reaches its bound
 * All may be called from any thread; none sleeps.
 */
#ifndef KERNEL_TOOLS_FAULT_INJECT_H
#define KERNEL_TOOLS_FAULT_INJECT_H

#include "lib/types.h"

void kthread_fail_next(unsigned int n);
void kthread_fail_own(unsigned int n);
void kthread_set_fail_hook(bool (*fail)(void *arg), void *arg);

void cpuhp_fail_bringup_next(unsigned int n);
void cpuhp_hold_death(bool hold);

#endif
