/* tests/kernel/test_selftest.c - kernels that fail on purpose.
 *
 * These suites run only when named (KTEST_SUITE_EXPLICIT): the harness's
 * own tests (tests/harness/run_tests.py, HARNESS_BOOTS and the report-* boots)
 * boot them to prove that a failing case, a panic, a hang, a page fault,
 * a stack overflow, a kernel that exits mid-run, an unexpected WARNING,
 * SKIP or error report are each caught and reported. */
#include "arch/x86_64/cpu.h"
#include "drivers/qemu_exit.h"
#include "kernel/cpu_masks.h"
#include "kernel/mm/kstack.h"
#include "kernel/mutex.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/tools/ktest.h"
#include "kernel/workqueue.h"
#include "lib/list.h"

static void passes_on_purpose(struct ktest *t)
{
	KT_EXPECT_EQ(t, 1 + 1, 2);
}

static void fails_on_purpose(struct ktest *t)
{
	KT_EXPECT_EQ(t, 1 + 1, 3);
}

KTEST_SUITE_EXPLICIT(selftest_fail, KTEST_CASE(passes_on_purpose), KTEST_CASE(fails_on_purpose));

static void panics_on_purpose(struct ktest *t)
{
	panic("deliberate panic from the selftest_panic suite");
}

KTEST_SUITE_EXPLICIT(selftest_panic, KTEST_CASE(panics_on_purpose));

static void hangs_on_purpose(struct ktest *t)
{
	halt_forever();
}

KTEST_SUITE_EXPLICIT(selftest_hang, KTEST_CASE(hangs_on_purpose));

/* QEMU exits with the success status in the middle of the suite: the
 * harness must name the case that never finished and the one never run. */
static void exits_mid_run(struct ktest *t)
{
	qemu_exit(QEMU_EXIT_SUCCESS);
}

static void never_reached(struct ktest *t)
{
	KT_EXPECT_TRUE(t, false); /* not reached */
}

KTEST_SUITE_EXPLICIT(selftest_exit, KTEST_CASE(passes_on_purpose), KTEST_CASE(exits_mid_run),
		     KTEST_CASE(never_reached));

/* A WARN nobody declared (ktest_expect_warnings): the case fails, and the
 * harness fails the boot on the WARNING line itself. */
static void warns_unexpectedly(struct ktest *t)
{
	WARN(true, "an undeclared warning from the selftest_warn suite");
}

KTEST_SUITE_EXPLICIT(selftest_warn, KTEST_CASE(warns_unexpectedly));

/* A case that declares a WARN from one file, and a WARN from another file
 * comes (here the case's own): it reads as a plain WARNING, fails the
 * boot, and the case fails; the declared one beside it still reads
 * "(expected by a test)". Before WARNs were declared by file, every WARN
 * during a declaring case passed as the declared one. */
static void a_warn_from_another_file(struct ktest *t)
{
	ktest_expect_warnings(t, "tests/kernel/test_selftest_other.c", 1);
	WARN(true, "a warning from a file the case did not declare");
}

static void the_declared_warn_beside_another(struct ktest *t)
{
	ktest_expect_warnings(t, __FILE__, 1);
	WARN(true, "the warning the case declared");
	WARN(true, "a second warning, one more than declared");
}

KTEST_SUITE_EXPLICIT(selftest_warn_kind, KTEST_CASE(a_warn_from_another_file),
		     KTEST_CASE(the_declared_warn_beside_another));

/* A SKIP with a reason no boot's configuration explains: the kernel counts
 * it as no failure, the harness must. */
static void skips_unexpectedly(struct ktest *t)
{
	ktest_skip(t, "skipped on purpose by the selftest_skip suite");
}

KTEST_SUITE_EXPLICIT(selftest_skip, KTEST_CASE(skips_unexpectedly));

/* An error report in the agreed form ("[cpuN] BUG: subsystem: message"),
 * which the case itself does not notice, beside one declared as expected:
 * the harness must fail the boot on the first and quote it, and let the
 * second pass. */
static void reports_an_error(struct ktest *t)
{
	pr_err("BUG (expected by a test): selftest: a report a test declared\n");
	pr_err("BUG: selftest: an error report from the selftest_bug suite\n");
}

KTEST_SUITE_EXPLICIT(selftest_bug, KTEST_CASE(reports_an_error));

/* A declared report ties the case to its kind: a report of another kind
 * during the case, from another CPU's work item or from the case itself,
 * is an error report like any other (the harness quotes it), and a
 * declared report that never came fails the case. */
static void unrelated_fn(struct work_struct *w)
{
	report_bug("unrelated", "a report of another kind, from a work item, instead of the "
				"declared one");
}

static void another_kind_instead_of_the_declared(struct ktest *t)
{
	struct work_struct w;
	unsigned int cpu = cpumask_any_but(&cpu_online_mask, smp_processor_id());

	if (cpu >= nr_cpu_ids)
		cpu = smp_processor_id(); /* alone: from this CPU's worker, another thread */

	ktest_expect_bugs(t, "selftest", 1);
	INIT_WORK(&w, unrelated_fn);
	queue_work_on(cpu, system_wq, &w);
	flush_work(&w);
}

static void another_kind_beside_the_declared(struct ktest *t)
{
	ktest_expect_bugs(t, "selftest", 1);
	report_bug("selftest", "the report the case declared");
	report_bug("unrelated", "a second report, of another kind, from the case itself");
}

KTEST_SUITE_EXPLICIT(selftest_bug_kind, KTEST_CASE(another_kind_instead_of_the_declared),
		     KTEST_CASE(another_kind_beside_the_declared));

/* Not static, and not inlined: the report must name them. */
__noinline int crash_null_deref(int *volatile *pp);
__noinline int crash_null_deref(int *volatile *pp)
{
	int *p = *pp;

	*p = 42; /* p is NULL: a write to page 0, which is never mapped */
	return *p;
}

void crash_page_fault_case(struct ktest *t);
void crash_page_fault_case(struct ktest *t)
{
	int *volatile p = NULL;

	KT_EXPECT_EQ(t, crash_null_deref(&p), 42);
}

KTEST_SUITE_EXPLICIT(crash_page_fault, KTEST_CASE(crash_page_fault_case));

__noinline unsigned long crash_recurse(unsigned long depth);
__noinline unsigned long crash_recurse(unsigned long depth)
{
	volatile u8 frame[256];

	frame[0] = (u8)depth;
	if (depth == ~0UL) /* never: a 16 KiB stack runs out long before */
		return 0;
	/* Use the frame after the call, so the call is no tail call. */
	return crash_recurse(depth + 1) + frame[0];
}

static void crash_recurse_entry(void *arg)
{
	*(unsigned long *)arg = crash_recurse(0);
}

static void crash_stack_overflow_case(struct ktest *t)
{
	void *stack = kstack_alloc("crash-test");
	unsigned long r = 0;

	KT_ASSERT_NOT_NULL(t, stack);
	preempt_disable(); /* a thread switches out only on its own stack */
	call_on_stack(stack, crash_recurse_entry, &r);
	KT_EXPECT_TRUE(t, false); /* not reached */
}

KTEST_SUITE_EXPLICIT(crash_stack_overflow, KTEST_CASE(crash_stack_overflow_case));

/* Taking a spinlock this CPU already holds can never succeed: panic, naming it. */
static void crash_spinlock_recursion_case(struct ktest *t)
{
	static DEFINE_SPINLOCK(twice);

	spin_lock(&twice);
	spin_lock(&twice);
	KT_EXPECT_TRUE(t, false); /* not reached */
}

KTEST_SUITE_EXPLICIT(crash_spinlock_recursion, KTEST_CASE(crash_spinlock_recursion_case));

/* Locking a mutex one already owns would never return: panic, naming it. */
static void crash_mutex_recursion_case(struct ktest *t)
{
	static DEFINE_MUTEX(again);

	mutex_lock(&again);
	mutex_lock(&again);
	KT_EXPECT_TRUE(t, false); /* not reached */
}

KTEST_SUITE_EXPLICIT(crash_mutex_recursion, KTEST_CASE(crash_mutex_recursion_case));

/* A node re-initialised while still linked (a timer set up again while
 * pending, say): the next insertion beside it must stop the kernel, naming
 * the nodes, instead of forking the list. */
static void crash_list_corruption_case(struct ktest *t)
{
	static LIST_HEAD(head);
	static struct list_head a, b, c;

	list_add_tail(&a, &head);
	list_add_tail(&b, &head);
	INIT_LIST_HEAD(&b);	  /* the bug: b is still head's last node */
	list_add_tail(&c, &head); /* head->prev is b, whose next is not head */
	KT_EXPECT_TRUE(t, false); /* not reached */
}

KTEST_SUITE_EXPLICIT(crash_list_corruption, KTEST_CASE(crash_list_corruption_case));
