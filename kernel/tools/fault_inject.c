/* kernel/tools/fault_inject.c - failures made on purpose, behind the hooks
 * kernel/kthread.h and kernel/hotplug.h declare; see fault_inject.h. */
#include "kernel/tools/fault_inject.h"
#include "arch/x86_64/cpu.h"
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
#include "kernel/panic.h"
#include "kernel/sched.h"
#include "lib/errno.h"

static unsigned int fail_next; /* atomic: creations left to fail */
/* kthread_fail_own(): whose creations fail, and how many more. */
static struct thread *own_thread; /* written by its thread; read by every creation */
static unsigned int own_left;	  /* own_thread's only */
/* A test's say over each creation (kthread_set_fail_hook()): set with its
 * argument first, cleared first. */
static bool (*fail_hook)(void *arg);
static void *fail_hook_arg;

static unsigned int fail_bringup; /* atomic: CPU starts left to fail */
static volatile bool hold_death;

/* Take one failure from *counter, if any is left (any thread may). */
static bool take_one(unsigned int *counter)
{
	unsigned int n = READ_ONCE(*counter);

	while (n && !__atomic_compare_exchange_n(counter, &n, n - 1, false, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
		;
	return n != 0;
}

/* kthread_should_fail: in the creating thread, no lock held. */
static bool creation_should_fail(void)
{
	if (READ_ONCE(own_thread) == current && own_left) {
		if (!--own_left)
			WRITE_ONCE(own_thread, NULL);
		return true;
	}
	if (take_one(&fail_next))
		return true;
	bool (*hook)(void *arg) = READ_ONCE(fail_hook);

	return hook && hook(READ_ONCE(fail_hook_arg));
}

/* The hook is filled after the count it reads is set. */
static void arm_creation_faults(void)
{
	WRITE_ONCE(kthread_should_fail, creation_should_fail);
}

void kthread_fail_next(unsigned int n)
{
	WRITE_ONCE(fail_next, n);
	arm_creation_faults();
}

void kthread_fail_own(unsigned int n)
{
	struct thread *owner = READ_ONCE(own_thread);

	WARN(n && owner && owner != current, "kthread_fail_own() by %s while %s's is armed",
	     current->name, owner->name);
	own_left = n;
	WRITE_ONCE(own_thread, n ? current : NULL);
	arm_creation_faults();
}

void kthread_set_fail_hook(bool (*fail)(void *arg), void *arg)
{
	if (fail) {
		WRITE_ONCE(fail_hook_arg, arg);
		WRITE_ONCE(fail_hook, fail);
	} else {
		WRITE_ONCE(fail_hook, NULL);
	}
	arm_creation_faults();
}

/* cpuhp_fault_hooks.fail_bringup: the control CPU, hotplug lock held. */
static int bringup_fault(unsigned int cpu)
{
	return take_one(&fail_bringup) ? -EIO : 0;
}

/* cpuhp_fault_hooks.before_death: the dying CPU, interrupts off. */
static void death_fault(unsigned int cpu)
{
	while (READ_ONCE(hold_death))
		cpu_relax();
}

static const struct cpuhp_fault_hooks cpuhp_faults = {
	.fail_bringup = bringup_fault,
	.before_death = death_fault,
};

void cpuhp_fail_bringup_next(unsigned int n)
{
	WRITE_ONCE(fail_bringup, n);
	WRITE_ONCE(cpuhp_fault_hooks, &cpuhp_faults);
}

void cpuhp_hold_death(bool hold)
{
	WRITE_ONCE(hold_death, hold);
	WRITE_ONCE(cpuhp_fault_hooks, &cpuhp_faults);
}
