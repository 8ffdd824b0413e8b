/* kernel/debug/lockdep_report.c - what the lock validator prints when it
 * finds something: the report of a possible deadlock (a cycle, a
 * recursion, an inconsistent or misordered interrupt usage, a table run
 * out), the locks a context holds, misuse of its hooks. lockdep.c finds
 * the problem and fills rep (kernel/debug/lockdep_internal.h); the CPU that
 * owns the report prints it from here, with the validator off, so the
 * graph and the stack traces it reads do not change under it.
 */
#include "arch/x86_64/cpu.h"
#include "kernel/debug/lockdep_internal.h"
#include "lib/printf.h"

/* ---- naming classes ------------------------------------------------------ */

static const char *const kind_names[] = {
	[LD_SPIN] = "spinlock",
	[LD_MUTEX] = "mutex",
	[LD_BIGLOCK] = "big lock",
	[LD_WQ] = "workqueue",
	[LD_WORK] = "work",
	[LD_TIMER] = "timer",
	[LD_NOVALIDATE] = "not validated",
};

/* "'name'" or "'name/1'", then "(kind)": the form every report line uses. */
const char *lockdep_class_str(u16 idx, char *buf, size_t size)
{
	const struct lock_class *c = &classes[idx];

	if (!idx)
		scnprintf(buf, size, "(a lock taken before validation began)");
	else if (c->subclass)
		scnprintf(buf, size, "'%s/%u' (%s)", c->name, c->subclass, kind_names[c->kind]);
	else
		scnprintf(buf, size, "'%s' (%s)", c->name, kind_names[c->kind]);
	return buf;
}

/* ---- printing traces ----------------------------------------------------- */

static void print_trace(u32 idx, const char *indent)
{
	char sym[128];

	if (!idx) {
		printk(KERN_ERR "%s(no trace: the table was full)\n", indent);
		return;
	}
	const struct ld_trace *tr = &traces[idx];

	for (unsigned int i = 0; i < tr->len; i++) {
		u64 a = trace_ips[tr->start + i];

		sprint_symbol(sym, sizeof(sym), a - 1);
		printk(KERN_ERR "%s[<%016lx>] %s\n", indent, (unsigned long)a, sym);
	}
}

static void print_ip(char *buf, size_t size, const void *ip)
{
	sprint_symbol(buf, size, (u64)ip - 1);
}

/* ---- reports ------------------------------------------------------------- */

void lockdep_report_held(const struct lockdep_ctx *ctx)
{
	char name[NAME_LEN + 24], where[128];

	printk(KERN_ERR "%s holds %u lock%s:\n", ctx_name(), ctx->depth,
	       ctx->depth == 1 ? "" : "s");
	for (unsigned int i = 0; i < ctx->depth; i++) {
		const struct held_lock *h = &ctx->held[i];

		print_ip(where, sizeof(where), h->ip);
		printk(KERN_ERR "  #%u %s taken at %s%s\n", i,
		       lockdep_class_str(h->class_idx, name, sizeof(name)), where,
		       h->flags & LD_TRY ? " (trylock)" : "");
	}
}

/* One dependency of a chain, with where it was first made. */
static void print_dep(u32 d)
{
	char a[NAME_LEN + 24], b[NAME_LEN + 24];
	const struct ld_trace *tr = &traces[deps[d].trace];

	printk(KERN_ERR "  %s -> %s, first by %s:\n", lockdep_class_str(deps[d].from, a, sizeof(a)),
	       lockdep_class_str(deps[d].to, b, sizeof(b)), deps[d].trace ? tr->comm : "?");
	print_trace(deps[d].trace, "      ");
}

/* The path a search found, from its start to `to`, in order. */
static void print_path(u16 to, int backward)
{
	u32 path[64];
	unsigned int n = 0;

	for (u32 d = classes[to].bfs_dep[backward]; d && n < 64;
	     d = classes[backward ? deps[d].to : deps[d].from].bfs_dep[backward])
		path[n++] = d;
	if (backward) /* found walking back: from `to` forward already */
		for (unsigned int i = 0; i < n; i++)
			print_dep(path[i]);
	else
		while (n)
			print_dep(path[--n]);
}

static void print_first(u16 c)
{
	char name[NAME_LEN + 24];

	printk(KERN_ERR "%s first taken by %s:\n", lockdep_class_str(c, name, sizeof(name)),
	       classes[c].first_trace ? traces[classes[c].first_trace].comm : "?");
	print_trace(classes[c].first_trace, "      ");
}

static void print_hints(u16 c)
{
	if (classes[c].kind == LD_WQ)
		printk(KERN_ERR
		       "(a workqueue is 'held' by each item it runs and 'taken' by "
		       "flush_workqueue(), and by flush_work() on an ordered or max_active 1 "
		       "workqueue)\n");
	else if (classes[c].kind == LD_WORK)
		printk(KERN_ERR "(a work item is 'held' while it runs and 'taken' by flush_work() "
				"and cancel_work_sync(): they wait for it)\n");
	else if (classes[c].kind == LD_TIMER)
		printk(KERN_ERR "(a timer is 'held' while its callback runs and 'taken' by "
				"del_timer_sync(): it waits for the callback)\n");
}

/* Where the classes of a cycle or of a recursion were first taken. */
static void print_first_taken(void)
{
	print_first(rep.prev ? rep.prev : rep.next);
	if (rep.prev && rep.prev != rep.next)
		print_first(rep.next);
}

/* REP_CIRCULAR: who takes rep.next at `where` while holding rep.prev. */
static void print_circular(const char *who, const char *where)
{
	char a[NAME_LEN + 24], b[NAME_LEN + 24];

	report_bug("lockdep",
		   "possible circular locking dependency: %s takes %s at %s while "
		   "holding %s",
		   who, lockdep_class_str(rep.next, a, sizeof(a)), where,
		   lockdep_class_str(rep.prev, b, sizeof(b)));
	printk(KERN_ERR "the existing chain back (each dependency where it was first "
			"made):\n");
	print_path(rep.prev, 0);
	printk(KERN_ERR "  %s -> %s: the new dependency, taken at %s\n",
	       lockdep_class_str(rep.prev, b, sizeof(b)), lockdep_class_str(rep.next, a, sizeof(a)),
	       where);
	print_hints(rep.next);
	print_hints(rep.prev);
	print_first_taken();
}

/* REP_RECURSIVE: who takes instance, of class rep.next, at `where` while
 * holding rep.held of the same class. */
static void print_recursive(const char *who, const char *where, const void *instance)
{
	char a[NAME_LEN + 24], held_at[128];

	print_ip(held_at, sizeof(held_at), rep.held->ip);
	report_bug("lockdep",
		   "possible recursive locking: %s takes %s at %s while holding %s "
		   "(taken at %s)",
		   who, lockdep_class_str(rep.next, a, sizeof(a)), where,
		   rep.held->instance == instance ? "that very one" : "another of its class",
		   held_at);
	if (classes[rep.next].kind == LD_TIMER)
		printk(KERN_ERR "del_timer_sync() from a timer's own callback waits for "
				"itself; from the callback of another timer of its class, "
				"the two callbacks can wait for each other\n");
	else if (classes[rep.next].kind == LD_WQ || classes[rep.next].kind == LD_WORK)
		printk(KERN_ERR "flushing a work item from inside itself, a workqueue "
				"from one of its own items, or a later item of an ordered or "
				"max_active 1 workqueue from an earlier one, waits for "
				"itself\n");
	else
		printk(KERN_ERR "two locks of one class nest without a subclass "
				"(spin_lock_nested()) saying in which order\n");
	print_hints(rep.next);
	print_first_taken();
}

/* How a pair of usage bits is named in reports. */
struct usage_words {
	const char *used_state, *on_state; /* {IN-...-W}, {...-ON-W} */
	const char *safe, *unsafe;	   /* "hardirq-safe", "hardirq-unsafe" */
	const char *in_ctx, *on_ctx;	   /* "in an interrupt handler", "with ..." */
	const char *why_self, *why_order;  /* the deadlock each report means */
};

static const struct usage_words hardirq_words = {
	"{IN-HARDIRQ-W}",
	"{HARDIRQ-ON-W}",
	"hardirq-safe",
	"hardirq-unsafe",
	"in an interrupt handler",
	"with interrupts enabled",
	"an interrupt taking it on a CPU that holds it with interrupts on spins forever",
	"an interrupt taking the first while this CPU waits for the second, held by a CPU that "
	"the interrupt stopped, deadlocks",
};

static const struct usage_words bh_words = {
	"{IN-BH-W}",
	"{BH-ON-W}",
	"BH-safe",
	"BH-unsafe",
	"in a BH item",
	"with BHs and interrupts enabled",
	"a BH run at the exit of an interrupt on a CPU that holds it with BHs on spins forever "
	"(take it with local_bh_disable() or interrupts off)",
	"a BH run taking the first while this CPU waits for the second, held by a thread that "
	"the run interrupted, deadlocks",
};

static const struct usage_words *words_of(u8 bit)
{
	return (bit & (USED_IN_BH | ENABLED_BH)) ? &bh_words : &hardirq_words;
}

/* REP_INCONSISTENT: rep.next, just seen with usage rep.new_bit, had the
 * other one. */
static void print_inconsistent(const char *who, const char *where)
{
	char a[NAME_LEN + 24];
	const struct usage_words *w = words_of(rep.new_bit);
	bool now_used = usage_is_used(rep.new_bit);
	u32 before = classes[rep.next].usage_trace[usage_index(usage_partner(rep.new_bit))];

	report_bug("lockdep", "inconsistent lock state %s -> %s: %s takes %s at %s %s",
		   now_used ? w->on_state : w->used_state, now_used ? w->used_state : w->on_state,
		   who, lockdep_class_str(rep.next, a, sizeof(a)), where,
		   now_used ? w->in_ctx : w->on_ctx);
	printk(KERN_ERR "it was taken %s before, first by %s:\n", now_used ? w->on_ctx : w->in_ctx,
	       traces[before].comm);
	print_trace(before, "      ");
	printk(KERN_ERR "%s\n", w->why_self);
}

/* REP_IRQ_ORDER: a chain from safe rep.safe to unsafe rep.unsafe (of the
 * pair of rep.used_bit), closed by the new rep.prev -> rep.next or by a
 * usage just seen on rep.next. */
static void print_irq_order(const char *who, const char *where)
{
	char a[NAME_LEN + 24], b[NAME_LEN + 24], c[NAME_LEN + 24];
	const struct usage_words *w = words_of(rep.used_bit);
	u32 safe_trace = classes[rep.safe].usage_trace[usage_index(rep.used_bit)];
	u32 unsafe_trace =
		classes[rep.unsafe].usage_trace[usage_index(usage_partner(rep.used_bit))];

	report_bug("lockdep", "%s -> %s lock order: %s takes %s at %s; %s is taken %s and %s %s",
		   w->safe, w->unsafe, who, lockdep_class_str(rep.next, a, sizeof(a)), where,
		   lockdep_class_str(rep.safe, b, sizeof(b)),
		   w == &hardirq_words ? "in interrupt handlers" : "in BH items",
		   lockdep_class_str(rep.unsafe, c, sizeof(c)), w->on_ctx);
	printk(KERN_ERR "the chain from the %s lock to the %s one:\n", w->safe, w->unsafe);
	if (rep.via_new_dep) {
		print_path(rep.safe, 1);
		printk(KERN_ERR "  %s -> %s: the new dependency\n",
		       lockdep_class_str(rep.prev, a, sizeof(a)),
		       lockdep_class_str(rep.next, b, sizeof(b)));
	}
	if (rep.via_new_dep || rep.safe_is_new)
		print_path(rep.unsafe, 0); /* searched forward, to it */
	else
		print_path(rep.safe, 1); /* searched backward, to it */
	printk(KERN_ERR "%s taken %s, first by %s:\n", lockdep_class_str(rep.safe, a, sizeof(a)),
	       w->in_ctx, traces[safe_trace].comm);
	print_trace(safe_trace, "      ");
	printk(KERN_ERR "%s taken %s, first by %s:\n", lockdep_class_str(rep.unsafe, a, sizeof(a)),
	       w->on_ctx, traces[unsafe_trace].comm);
	print_trace(unsafe_trace, "      ");
	printk(KERN_ERR "%s\n", w->why_order);
}

/* The report this CPU owns (rep), for the acquisition of instance at ip
 * by ctx; with interrupts off and lockdep.recursion set. */
void lockdep_print_report(const struct lockdep_ctx *ctx, const void *ip, const void *instance)
{
	char where[128];
	const char *who = ctx_name();

	assert(irqs_disabled() && this_cpu_read(lockdep.recursion));
	print_ip(where, sizeof(where), ip);
	switch (rep.kind) {
	case REP_CIRCULAR:
		print_circular(who, where);
		break;
	case REP_RECURSIVE:
		print_recursive(who, where, instance);
		break;
	case REP_INCONSISTENT:
		print_inconsistent(who, where);
		break;
	case REP_IRQ_ORDER:
		print_irq_order(who, where);
		break;
	case REP_FULL:
		report_bug("lockdep", "out of %s; validator off", rep.table);
		break;
	case REP_NONE:
		return;
	}
	print_report_end(ctx);
	rep.kind = REP_NONE;
}

void lockdep_report_misuse(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	report_bug("lockdep", "%s", msg);
	unsigned long irqf = local_irq_save();
	struct lockdep_ctx *ctx = ctx_get(this_cpu_ptr());

	if (ctx)
		lockdep_report_held(ctx);
	local_irq_restore(irqf);
	dump_stack();
}
