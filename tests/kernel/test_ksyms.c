/* tests/kernel/test_ksyms.c - the symbol table and backtraces. */
#include "kernel/ksyms.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/tools/ktest.h"
#include "lib/string.h"

static void lookup_finds_functions(struct ktest *t)
{
	u64 off = 99, size = 0;
	const char *name = ksym_lookup((u64)kmalloc + 3, &off, &size);

	KT_ASSERT_NOT_NULL(t, name);
	KT_EXPECT_EQ(t, strcmp(name, "kmalloc"), 0);
	KT_EXPECT_EQ(t, off, 3);
	KT_EXPECT_TRUE(t, size > 3);
	KT_EXPECT_EQ(t, ksym_address("kmalloc"), (u64)kmalloc);
	KT_EXPECT_EQ(t, ksym_address("no_such_function"), 0);
	KT_EXPECT_TRUE(t, ksym_lookup(0x1000, NULL, NULL) == NULL);
}

static void sprint_symbol_formats(struct ktest *t)
{
	char buf[128];

	sprint_symbol(buf, sizeof(buf), (u64)kfree + 0x10);
	KT_EXPECT_TRUE(t, strncmp(buf, "kfree+0x10/0x", 13) == 0);
	sprint_symbol(buf, sizeof(buf), 0x1234);
	KT_EXPECT_EQ(t, strcmp(buf, "0x1234"), 0);
}

__noinline void backtrace_names_callers(struct ktest *t);
__noinline void backtrace_names_callers(struct ktest *t)
{
	static char log[2048];

	dump_stack();
	log_buf_read(log, sizeof(log));
	KT_EXPECT_TRUE(t, strstr(log, "Call trace:") != NULL);
	KT_EXPECT_TRUE(t, strstr(log, "] ktest_run_selected+0x") != NULL);
	KT_EXPECT_TRUE(t, strstr(log, "] kernel_init+0x") != NULL);
	KT_EXPECT_TRUE(t, strstr(log, "] sched_thread_start+0x") != NULL);
}

KTEST_SUITE(ksyms, KTEST_CASE(lookup_finds_functions), KTEST_CASE(sprint_symbol_formats),
	    KTEST_CASE(backtrace_names_callers));
