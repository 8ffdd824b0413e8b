/* kernel/debug/lockdep.c - the lock-dependency validator; its hooks are
 * kernel/lockdep.h, what its tools read kernel/debug/lockdep.h; the design
 * is docs/lockdep.md.
 *
 * Everything is in static tables (no allocation: the allocator's own locks
 * are validated). The graph, the class table and the chain cache are
 * written under graph_lock, a bare test-and-set word taken with interrupts
 * off (never a struct spinlock: those call in here); they are read without
 * it where a stale read is harmless (a class lookup finds published
 * entries only, a chain-cache miss only means a slower check). Each
 * context's held-lock stack is touched by that context only, with
 * interrupts off. The classes of unregistered keys (destroyed workqueues)
 * are given back, with their dependencies and stack traces: "Giving
 * classes back" below says why that is safe against those reads.
 *
 * This file finds problems; lockdep_report.c prints them. What the two
 * share (the tables' structs, the report under way, the field legend) is
 * kernel/debug/lockdep_internal.h.
 */
#include "arch/x86_64/cpu.h"
#include "kernel/cpu_local.h"
#include "kernel/debug/lockdep_internal.h"
#include "kernel/mm/kstack.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "lib/hash.h"
#include "lib/printf.h"
#include "lib/string.h"

#define CLASS_HASH_BITS 10
#define CLASS_HASH_SIZE (1 << CLASS_HASH_BITS)
#define CHAIN_HASH_BITS 14
#define CHAIN_SLOTS	(1 << CHAIN_HASH_BITS)
#define CHAIN_PROBES	16
#define ZOMBIE_BATCH	32 /* zapped classes reused per emptying of the chain cache */

enum { LOCKDEP_OFF, LOCKDEP_TRACKING, LOCKDEP_ON };
static int lockdep_state; /* A */
int lockdep_active;	  /* A: lockdep_state != LOCKDEP_OFF, for the inline hooks */
static bool lockdep_enabled = true;
PARAM_BOOL(lockdep, lockdep_enabled,
	   "the lock-dependency validator: reports possible deadlocks (0: off)");
static unsigned long nr_reports; /* A */

/* Index 0 of classes, deps and traces means "none". The nr_ counts
 * without _used are high-water marks: the next never-used entry. */
struct lock_class classes[MAX_CLASSES];	   /* A/G */
static unsigned int nr_classes = 1;	   /* G */
static unsigned int nr_classes_used;	   /* G: not yet zapped */
static unsigned long nr_classes_reclaimed; /* G: zapped, ever */
static u16 pending_classes;		   /* G: dead, not yet zapped */
static u16 zombie_classes;		   /* G: zapped; a cached chain may name them */
static unsigned int nr_zombies;		   /* G */
static u16 free_classes;		   /* G: zapped, and no cached chain names them */
static u16 class_hash[CLASS_HASH_SIZE];	   /* A, set under G */
struct lock_dep deps[MAX_DEPS];		   /* G */
static unsigned int nr_deps = 1;	   /* G */
static unsigned int nr_deps_used;	   /* G */
static u32 free_deps;			   /* G: through next_after */
static u64 chains[CHAIN_SLOTS];		   /* A, written under G: 0 = empty */
static unsigned int nr_chains;		   /* G */
static unsigned int nr_chain_flushes;	   /* G: times the cache was emptied */
struct ld_trace traces[MAX_TRACES];	   /* G */
static unsigned int nr_traces = 1;	   /* G */
static u32 free_traces[TRACE_DEPTH + 1];   /* G: by cap, through next_free */
u64 trace_ips[MAX_TRACE_IPS];		   /* G */
static unsigned int nr_trace_ips;	   /* G */
static unsigned int nr_trace_ips_used;	   /* G */
static u32 bfs_gen;			   /* G */
static u16 bfs_queue[MAX_CLASSES];	   /* G */
static unsigned int max_depth_seen;	   /* A */

static u32 graph_lock_word; /* 0, or the holder's CPU number + 1 */

/* With interrupts off. Never held while printing. */
static void graph_lock(void)
{
	u32 free;

	assert(irqs_disabled());
	while (free = 0,
	       !__atomic_compare_exchange_n(&graph_lock_word, &free, smp_processor_id() + 1, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		cpu_relax();
}

static void graph_unlock(void)
{
	__atomic_store_n(&graph_lock_word, 0, __ATOMIC_RELEASE);
}

/* What each function marked "Under G" asserts. */
static void assert_graph_locked(void)
{
	assert(READ_ONCE(graph_lock_word) == smp_processor_id() + 1);
}

static bool validating(void)
{
	return READ_ONCE(lockdep_state) == LOCKDEP_ON;
}

/* ---- the report under way ------------------------------------------------
 * Only one report is ever printed at a time: the CPU that moves the state
 * from ON to TRACKING owns it, fills `rep` under the graph lock and prints
 * it (lockdep_report.c) after dropping the lock. Nothing changes the graph
 * meanwhile (only ON changes it), so the search results it points at stay
 * valid. */
/* Its kind and what it names: struct ld_report in lockdep_internal.h. */
struct ld_report rep;

/* Take the right to report: false if validation is already off. */
static bool report_begin(void)
{
	int on = LOCKDEP_ON;

	if (!__atomic_compare_exchange_n(&lockdep_state, &on, LOCKDEP_TRACKING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return false;
	__atomic_add_fetch(&nr_reports, 1, __ATOMIC_RELAXED);
	memset(&rep, 0, sizeof(rep));
	rep.owner = smp_processor_id();
	return true;
}

/* Did this CPU find the problem being reported (not only one that another
 * CPU reports)? With interrupts off: the hooks that ask turn them off just
 * before (not checked here: it is asked on every acquisition). */
static bool own_report(void)
{
	return READ_ONCE(rep.kind) != REP_NONE && READ_ONCE(rep.owner) == smp_processor_id();
}

/* Under G. */
static void report_full(const char *table)
{
	assert_graph_locked();
	if (!report_begin())
		return;
	rep.kind = REP_FULL;
	rep.table = table;
}

/* ---- traces -------------------------------------------------------------- */

/* Under G: a trace with room for n return addresses: a free one with the
 * least room that fits, else a new one; 0 if the tables are full. */
static u32 trace_alloc(unsigned int n)
{
	assert_graph_locked();
	for (unsigned int cap = n; cap <= TRACE_DEPTH; cap++) {
		u32 idx = free_traces[cap];

		if (idx) {
			free_traces[cap] = traces[idx].next_free;
			nr_trace_ips_used += cap;
			return idx;
		}
	}
	if (nr_traces >= MAX_TRACES || nr_trace_ips + n > MAX_TRACE_IPS)
		return 0;
	traces[nr_traces].start = nr_trace_ips;
	traces[nr_traces].cap = (u8)n;
	nr_trace_ips += n;
	nr_trace_ips_used += n;
	return nr_traces++;
}

/* Under G: give trace idx back (0: none). */
static void trace_free(u32 idx)
{
	assert_graph_locked();
	if (!idx)
		return;
	struct ld_trace *tr = &traces[idx];

	tr->next_free = free_traces[tr->cap];
	free_traces[tr->cap] = idx;
	nr_trace_ips_used -= tr->cap;
}

/* Under G: the acquisition at ip, then its callers (frame pointers). */
static u32 save_trace(const void *ip)
{
	assert_graph_locked();
	u64 frames[32], ips[TRACE_DEPTH];
	unsigned int nf = save_backtrace(this_cpu_read(lockdep.rbp), frames, ARRAY_SIZE(frames));
	unsigned int n = 0, from = 0;

	/* Leave out the validator's and the lock primitive's own frames: start
	 * at the acquisition, then its callers. */
	for (unsigned int i = 0; i < nf; i++)
		if (frames[i] == (u64)ip)
			from = i + 1;
	ips[n++] = (u64)ip;
	for (unsigned int i = from; i < nf && n < TRACE_DEPTH; i++)
		ips[n++] = frames[i];

	u32 idx = trace_alloc(n);

	if (!idx) {
		report_full(nr_traces >= MAX_TRACES ? "stack traces" : "stack trace entries");
		return 0;
	}
	struct ld_trace *tr = &traces[idx];

	memcpy(&trace_ips[tr->start], ips, n * sizeof(ips[0]));
	tr->len = (u8)n;
	strscpy(tr->comm, ctx_name(), sizeof(tr->comm));
	return idx;
}

/* ---- classes ------------------------------------------------------------- */

/* A pseudo-lock: "taking" it is waiting for whoever holds it (a flush, or
 * del_timer_sync()), so taking the very one held waits for itself. */
static bool is_pseudo(u8 kind)
{
	return kind == LD_WQ || kind == LD_WORK || kind == LD_TIMER;
}

/* The subclass goes into bits that are all ones in every kernel address
 * (48 and up): no two (key, subclass) pairs are hashed as the same number,
 * even where 1-byte keys sit side by side. */
static unsigned int key_hash(const void *key, unsigned int subclass)
{
	return hash_64((u64)(uintptr_t)key ^ (u64)subclass << 56, CLASS_HASH_BITS);
}

/* The live class of (key, subclass), or 0. Without the graph lock it may
 * miss one (a slot reused under it: "Giving classes back"), never find a
 * wrong one; under it, it is exact. */
static u16 class_find(const void *key, unsigned int subclass)
{
	for (u16 i = __atomic_load_n(&class_hash[key_hash(key, subclass)], __ATOMIC_ACQUIRE); i;
	     i = READ_ONCE(classes[i].hash_next)) {
		const struct lock_class *c = &classes[i];

		/* The key first, with acquire: a slot being reused gets its
		 * other fields before its key. */
		if (__atomic_load_n(&c->key, __ATOMIC_ACQUIRE) == key &&
		    READ_ONCE(c->subclass) == subclass && !READ_ONCE(c->dead))
			return i;
	}
	return 0;
}

/* ---- giving classes back -------------------------------------------------
 *
 * A workqueue's class dies with it (lockdep_unregister_key()), and a kernel
 * that makes and destroys workqueues must not fill the tables with dead
 * classes. A dead class goes through three lists:
 *   pending  its key is unregistered: no lookup finds it (it is out of its
 *            hash bucket, its key cleared), searches do not cross it, but
 *            its dependencies are still in the graph;
 *   zombie   zapped (only while the validator is on): its dependencies,
 *            both ways, are unlinked from their other ends and freed, and
 *            its stack traces and theirs are freed; but a key in the chain
 *            cache may still name its index;
 *   free     the chain cache was emptied since: the slot may be reused.
 * Zombies are freed ZOMBIE_BATCH at a time (or when the table runs out),
 * so that the cache is emptied once per batch, not per workqueue.
 *
 * Why this is safe while other CPUs take locks without the graph lock:
 * - Nobody takes a lock of a dead class: unregistering is the caller's
 *   promise that none is held or will be taken again (the workqueue is
 *   being freed). So no held-lock entry, chain key being computed, or
 *   lockdep_map's cached class_idx names it.
 * - The graph (dependencies, their lists, traces, usage traces) is read
 *   under the graph lock only, and by a report being printed, which it
 *   does with the validator off; nothing is zapped while it is off (a
 *   class unregistered then stays pending until a later unregistering
 *   finds it on).
 * - Lookups (class_find()) walk hash buckets without the lock. A dead
 *   class's key is cleared at once, so it matches nothing; a walker on it
 *   goes on along its old hash_next. A reused slot gets its fields before
 *   its key (release; the walker reads the key with acquire), so a walker
 *   that matches the new key also sees the new subclass. A walker that a
 *   relinked slot takes into another bucket can only miss, and a miss is
 *   looked up again under the lock.
 * - The chain cache (chain_cached()) is read without the lock, and a
 *   cached key is made of the class indexes of its chain: were a zombie's
 *   index reused while a key naming it is cached, the new class could be
 *   taken for validated. Hence the cache is emptied before zombies are
 *   reused. Emptying only takes keys out (a missing key means a slower
 *   check, never a skipped one); the stores that empty it come before the
 *   release that publishes a reused slot's key, so a CPU that has found
 *   the new class cannot see a key from before.
 * The lock acquire path is untouched: all of this runs under the graph
 * lock, in lockdep_unregister_key() and when a class is made.
 */

/* Under G: empty the chain cache, so that no cached chain names a zombie,
 * and free the zombies for reuse. */
static void recycle_zombies(void)
{
	assert_graph_locked();
	for (unsigned int s = 0; s < CHAIN_SLOTS; s++)
		__atomic_store_n(&chains[s], 0, __ATOMIC_RELAXED);
	nr_chains = 0;
	nr_chain_flushes++;
	while (zombie_classes) {
		u16 i = zombie_classes;

		zombie_classes = classes[i].free_next;
		classes[i].free_next = free_classes;
		free_classes = i;
	}
	nr_zombies = 0;
}

/* Under G: a slot for a new class (a free one, else a new one; zombies are
 * freed first if the table has run out); 0 if there is none. */
static u16 class_alloc(void)
{
	assert_graph_locked();
	if (!free_classes && nr_zombies && nr_classes >= MAX_CLASSES)
		recycle_zombies();
	u16 i = free_classes;

	if (i)
		free_classes = classes[i].free_next;
	else if (nr_classes < MAX_CLASSES)
		i = (u16)nr_classes++;
	if (i)
		nr_classes_used++;
	return i;
}

/* Under G: make slot i the class of (key, subclass), first taken through m
 * at ip, and publish it. A walker may stand on a reused slot: its key,
 * NULL until now, is written last. */
static void class_init(u16 i, const void *key, unsigned int subclass, const struct lockdep_map *m,
		       const void *ip)
{
	struct lock_class *c = &classes[i];
	unsigned int h = key_hash(key, subclass);

	assert_graph_locked();
	WRITE_ONCE(c->subclass, (u8)subclass);
	c->kind = m->kind;
	c->usage = 0;
	c->after = c->before = 0;
	memset(c->usage_trace, 0, sizeof(c->usage_trace));
	c->bfs_gen[0] = c->bfs_gen[1] = 0;
	strscpy(c->name, m->name ? m->name : "?", sizeof(c->name));
	c->first_trace = save_trace(ip);
	WRITE_ONCE(c->hash_next, class_hash[h]);
	WRITE_ONCE(c->dead, false);
	__atomic_store_n(&c->key, key, __ATOMIC_RELEASE);
	__atomic_store_n(&class_hash[h], i, __ATOMIC_RELEASE);
}

/* Under G: class i's key is being unregistered: out of its hash bucket and
 * unmatchable from now on, it waits on the pending list to be zapped. */
static void class_kill(u16 i)
{
	struct lock_class *c = &classes[i];
	u16 *link = &class_hash[key_hash(c->key, c->subclass)];

	assert_graph_locked();
	while (*link != i)
		link = &classes[*link].hash_next;
	__atomic_store_n(link, c->hash_next, __ATOMIC_RELAXED); /* already published */
	WRITE_ONCE(c->dead, true);
	WRITE_ONCE(c->key, NULL);
	c->free_next = pending_classes;
	pending_classes = i;
}

/* Under G: take dependency d off the list that starts at *head, linked
 * through next_before (before) or next_after. */
static void dep_unlink(u32 *head, u32 d, bool before)
{
	u32 *link = head;

	assert_graph_locked();
	while (*link != d)
		link = before ? &deps[*link].next_before : &deps[*link].next_after;
	*link = before ? deps[d].next_before : deps[d].next_after;
}

/* Under G: give dependency d back, off both its lists already. */
static void dep_free(u32 d)
{
	assert_graph_locked();
	trace_free(deps[d].trace);
	deps[d] = (struct lock_dep){ .next_after = free_deps };
	free_deps = d;
	nr_deps_used--;
}

/* Under G: a dependency slot (a free one, else a new one); 0 if none. */
static u32 dep_alloc(void)
{
	assert_graph_locked();
	u32 d = free_deps;

	if (d)
		free_deps = deps[d].next_after;
	else if (nr_deps < MAX_DEPS)
		d = nr_deps++;
	if (d)
		nr_deps_used++;
	return d;
}

/* Under G, validating: take pending class i out of the graph, give back
 * its dependencies and traces, and make it a zombie. */
static void zap_class(u16 i)
{
	struct lock_class *c = &classes[i];
	u32 d, next;

	assert_graph_locked();
	for (d = c->after; d; d = next) {
		next = deps[d].next_after;
		assert(deps[d].to != i); /* no class depends on itself */
		dep_unlink(&classes[deps[d].to].before, d, true);
		dep_free(d);
	}
	for (d = c->before; d; d = next) {
		next = deps[d].next_before;
		dep_unlink(&classes[deps[d].from].after, d, false);
		dep_free(d);
	}
	c->after = c->before = 0;
	trace_free(c->first_trace);
	for (unsigned int u = 0; u < NR_USAGE_BITS; u++) {
		trace_free(c->usage_trace[u]);
		c->usage_trace[u] = 0;
	}
	c->first_trace = 0;
	nr_classes_used--;
	nr_classes_reclaimed++;
	c->free_next = zombie_classes;
	zombie_classes = i;
	if (++nr_zombies >= ZOMBIE_BATCH)
		recycle_zombies();
}

extern char __data_start[], __bss_end[];

/* The class of (m, subclass), registered at its first use; 0 if there is
 * none (the table is full, or the lock has no key: both reported). */
static u16 map_class(const struct lockdep_map *m, unsigned int subclass, const void *ip)
{
	u16 idx = subclass ? 0 : READ_ONCE(m->class_idx);

	if (idx)
		return idx;
	const void *key = m->key ? (const void *)m->key : (const void *)m;

	if (subclass >= LOCKDEP_SUBCLASSES) {
		if (report_begin())
			lockdep_report_misuse("lock '%s' taken with subclass %u: at most %u",
					      m->name, subclass, LOCKDEP_SUBCLASSES - 1);
		return 0;
	}
	if (!m->key && ((const char *)m < __data_start || (const char *)m >= __bss_end)) {
		/* Made by copying a static initializer into memory that is not
		 * static: its address would make a class per lock, reused. */
		if (report_begin())
			lockdep_report_misuse("lock '%s' at %p has no class key: not set up by an "
					      "init function (spin_lock_init() and friends)",
					      m->name, m);
		return 0;
	}
	idx = class_find(key, subclass);
	if (!idx) {
		graph_lock();
		idx = class_find(key, subclass);
		if (!idx) {
			idx = class_alloc();
			if (idx)
				class_init(idx, key, subclass, m, ip);
			else
				report_full("lock classes");
		}
		graph_unlock();
		if (!idx) /* the table is full: reported */
			return 0;
	}
	if (!subclass)
		WRITE_ONCE(((struct lockdep_map *)m)->class_idx, idx);
	return idx;
}

/* ---- the graph ----------------------------------------------------------- */

/* Under G. */
static u32 find_dep(u16 from, u16 to)
{
	assert_graph_locked();
	for (u32 d = classes[from].after; d; d = deps[d].next_after)
		if (deps[d].to == to)
			return d;
	return 0;
}

/*
 * Breadth-first search from `from`, forward (along "after": what was taken
 * under it) or backward (what it was taken under), for the first class
 * that is `target` or has one of the usage bits in `usage`. Dead classes
 * are not crossed. Each class reached remembers the dependency it was
 * reached by, for printing the path. Returns the class found, or 0.
 */
static u16 bfs(u16 from, int backward, u16 target, u8 usage) /* under G */
{
	unsigned int head = 0, tail = 0;
	u32 gen;

	assert_graph_locked();
	gen = ++bfs_gen;

	classes[from].bfs_gen[backward] = gen;
	classes[from].bfs_dep[backward] = 0;
	bfs_queue[tail++] = from;
	while (head < tail) {
		u16 c = bfs_queue[head++];

		if (c == target || (classes[c].usage & usage))
			return c;
		u32 d = backward ? classes[c].before : classes[c].after;

		for (; d; d = backward ? deps[d].next_before : deps[d].next_after) {
			u16 n = backward ? deps[d].from : deps[d].to;
			struct lock_class *nc = &classes[n];

			if (nc->bfs_gen[backward] == gen || nc->dead)
				continue;
			nc->bfs_gen[backward] = gen;
			nc->bfs_dep[backward] = d;
			bfs_queue[tail++] = n;
		}
	}
	return 0;
}

/* Big-lock pairs make no dependency: blocking on a sleeping lock, or in a
 * flush, lets the big lock go, so neither order can deadlock. */
static bool exempt_pair(const struct lock_class *a, const struct lock_class *b)
{
	bool sleeps_a = a->kind == LD_MUTEX || a->kind == LD_WQ || a->kind == LD_WORK;
	bool sleeps_b = b->kind == LD_MUTEX || b->kind == LD_WQ || b->kind == LD_WORK;

	return (a->kind == LD_BIGLOCK && sleeps_b) || (b->kind == LD_BIGLOCK && sleeps_a);
}

/* Under G: record prev -> next, unless it closes a cycle or puts a
 * hardirq-safe class before a hardirq-unsafe one. False if it reported. */
static bool add_dep(u16 prev, u16 next, const void *ip)
{
	assert_graph_locked();
	if (find_dep(prev, next))
		return true;
	if (bfs(next, 0, prev, 0)) {
		if (report_begin()) {
			rep.kind = REP_CIRCULAR;
			rep.prev = prev;
			rep.next = next;
		}
		return false;
	}
	for (u8 used = USED_IN_HARDIRQ; used <= USED_IN_BH; used <<= 2) {
		u16 safe = bfs(prev, 1, 0, used);
		u16 unsafe = safe ? bfs(next, 0, 0, usage_partner(used)) : 0;

		if (unsafe) {
			if (report_begin()) {
				rep.kind = REP_IRQ_ORDER;
				rep.prev = prev;
				rep.next = next;
				rep.safe = safe;
				rep.unsafe = unsafe;
				rep.used_bit = used;
				rep.via_new_dep = true;
			}
			return false;
		}
	}
	u32 i = dep_alloc();

	if (!i) {
		report_full("dependencies");
		return false;
	}
	struct lock_dep *d = &deps[i];

	d->from = prev;
	d->to = next;
	d->trace = save_trace(ip);
	d->next_after = classes[prev].after;
	d->next_before = classes[next].before;
	classes[prev].after = i;
	classes[next].before = i;
	return true;
}

/* Under G: a usage bit seen for the first time on class c. False if it
 * reported: the class is both safe and unsafe, or now orders a safe class
 * before an unsafe one. */
static bool mark_usage(u16 c, u8 bit, const void *ip)
{
	assert_graph_locked();
	struct lock_class *cl = &classes[c];
	u8 other = usage_partner(bit);
	bool used = usage_is_used(bit);

	if (cl->usage & bit)
		return true;
	if (cl->usage & other) {
		if (report_begin()) {
			rep.kind = REP_INCONSISTENT;
			rep.next = c;
			rep.new_bit = bit;
		}
		return false;
	}
	u16 found = used ? bfs(c, 0, 0, other) : bfs(c, 1, 0, other);

	if (found) {
		if (report_begin()) {
			rep.kind = REP_IRQ_ORDER;
			rep.next = c;
			rep.safe = used ? c : found;
			rep.unsafe = used ? found : c;
			rep.used_bit = used ? bit : other;
			rep.safe_is_new = used;
		}
		return false;
	}
	cl->usage_trace[usage_index(bit)] = save_trace(ip);
	__atomic_or_fetch(&cl->usage, bit, __ATOMIC_RELEASE);
	return true;
}

/* ---- chains: the memo of held-class sequences already validated ---------- */

/* A chain's key: the key of the chain below it (0 for none) with one more
 * held class folded in, times lib/hash.h's golden ratio: one-to-one for a
 * given class. Its slot in the cache is the product's top bits, which
 * every bit of the chain reaches through the carries: what hash_64() gives
 * for the value multiplied. */
static u64 chain_next(u64 key, u16 class_idx, unsigned int flags)
{
	u64 k = (key ^ ((u64)class_idx << 1 | (flags & LD_TRY))) * GOLDEN_RATIO_64;

	return k ? k : 1;
}

static unsigned int chain_slot(u64 key)
{
	return (unsigned int)(key >> (64 - CHAIN_HASH_BITS));
}

static bool chain_cached(u64 key)
{
	unsigned int s = chain_slot(key);

	for (unsigned int i = 0; i < CHAIN_PROBES; i++, s = (s + 1) % CHAIN_SLOTS) {
		u64 v = __atomic_load_n(&chains[s], __ATOMIC_ACQUIRE);

		if (v == key)
			return true;
		if (!v)
			return false;
	}
	return false;
}

/* Under G. A full neighbourhood only means this chain is checked again. */
static void chain_add(u64 key)
{
	assert_graph_locked();
	unsigned int s = chain_slot(key);

	for (unsigned int i = 0; i < CHAIN_PROBES; i++, s = (s + 1) % CHAIN_SLOTS) {
		if (chains[s] == key)
			return;
		if (!chains[s]) {
			__atomic_store_n(&chains[s], key, __ATOMIC_RELEASE);
			nr_chains++;
			return;
		}
	}
}

/* ---- contexts ------------------------------------------------------------ */

/* The usage bits an acquisition of a spinlock shows: in an interrupt
 * handler, in a BH run, with interrupts on (an interrupt could come in on
 * top), with BHs on as well in a thread (a BH run could). */
static u8 acquire_usage(bool irqs_on, bool in_irq, int count)
{
	u8 bits = 0;

	if (in_irq)
		return USED_IN_HARDIRQ;
	if (count & BH_OFFSET)
		bits |= USED_IN_BH;
	if (irqs_on) {
		bits |= ENABLED_HARDIRQ;
		if (!(count & BH_MASK))
			bits |= ENABLED_BH;
	}
	return bits;
}

static bool __lock_acquire(struct lockdep_ctx *ctx, const struct lockdep_map *m,
			   unsigned int subclass, unsigned int flags, const void *instance,
			   const void *ip, bool irqs_on, bool in_irq, int count)
{
	u16 ci = map_class(m, subclass, ip);
	/* The chain of held classes with this one on top. */
	u64 key = chain_next(ctx->depth ? ctx->held[ctx->depth - 1].chain_key : 0, ci, flags);
	bool reported = false;

	if (!ci || (flags & LD_NOCHECK) || !validating())
		goto push;
	struct lock_class *c = &classes[ci];

	/* Interrupt and BH safety: spinlocks only (nothing else is taken in
	 * an interrupt handler or a BH item). */
	u8 bits = c->kind != LD_SPIN ? 0 : acquire_usage(irqs_on, in_irq, count);
	u8 news = bits & ~__atomic_load_n(&c->usage, __ATOMIC_ACQUIRE);

	while (news) {
		u8 bit = news & -news;

		news &= (u8)~bit;
		graph_lock();
		bool ok = !validating() || mark_usage(ci, bit, ip);

		graph_unlock();
		if (!ok && own_report())
			goto report;
	}
	/* The same class held already. */
	if (!(flags & LD_TRY)) {
		for (unsigned int i = ctx->depth; i-- > 0;) {
			const struct held_lock *h = &ctx->held[i];

			if (h->class_idx != ci)
				continue;
			/* The same lock again: the primitive reports it itself
			 * (a panic: it would never return). A pseudo-lock
			 * "taken" again (a flush, del_timer_sync() from the
			 * callback) waits for itself. */
			if (h->instance == instance && !is_pseudo(c->kind))
				goto push;
			/* Siblings of one INIT_WORK site may flush each other. */
			if (h->instance != instance && c->kind == LD_WORK)
				continue;
			if (report_begin()) {
				rep.kind = REP_RECURSIVE;
				rep.held = h;
				rep.next = ci;
				goto report;
			}
			goto push;
		}
	}
	/* Every dependency this chain of held classes implies is known and
	 * checked if the chain was seen before: the common case, lock-free. */
	if (chain_cached(key)) {
		this_cpu_ptr()->lockdep.chain_hits++;
		goto push;
	}
	this_cpu_ptr()->lockdep.chain_misses++;
	graph_lock();
	bool ok = validating();

	/* A trylock waits for nothing, so it depends on nothing held. Else
	 * the innermost lock held gets the dependency (those under it reach
	 * the new one through it); trylocks in between get theirs too. */
	for (unsigned int i = ctx->depth; ok && !(flags & LD_TRY) && i-- > 0;) {
		const struct held_lock *h = &ctx->held[i];

		if (!h->class_idx || h->class_idx == ci || exempt_pair(&classes[h->class_idx], c))
			continue;
		ok = add_dep(h->class_idx, ci, ip);
		if (!(h->flags & LD_TRY))
			break;
	}
	if (ok && validating())
		chain_add(key);
	graph_unlock();
	if (!ok && own_report())
		goto report;
	goto push;
report:
	reported = true;
	lockdep_print_report(ctx, ip, instance);
push:
	if (ctx->depth >= LOCKDEP_MAX_HELD) {
		if (report_begin())
			lockdep_report_misuse("%s holds more than %u locks; taking '%s' at %pS",
					      ctx_name(), LOCKDEP_MAX_HELD, m->name, ip);
		return true;
	}
	struct held_lock *n = &ctx->held[ctx->depth];

	n->instance = instance;
	n->ip = ip;
	n->class_idx = ci;
	n->flags = (u8)(flags & LD_TRY);
	n->chain_key = key;
	ctx->depth++;
	if (ctx->depth > READ_ONCE(max_depth_seen))
		WRITE_ONCE(max_depth_seen, ctx->depth);
	return reported;
}

bool __lock_acquire_hook(const struct lockdep_map *m, unsigned int subclass, unsigned int flags,
			 const void *instance, const void *ip)
{
	if (m->kind == LD_NOVALIDATE)
		return false;
	unsigned long irqf = local_irq_save();
	struct percpu *pc = this_cpu_ptr();
	struct lockdep_ctx *ctx = ctx_get(pc);
	bool reported = false;

	if (ctx && !pc->lockdep.recursion) {
		pc->lockdep.recursion = true;
		pc->lockdep.rbp = (u64)__builtin_frame_address(0); /* traces start at our caller */
		reported =
			__lock_acquire(ctx, m, subclass, flags, instance, ip, irqf & X86_RFLAGS_IF,
				       pc->lockdep.hardirq_depth > 0, pc->sched.preempt_count);
		/* A table that ran out on the way (a class, a trace) is
		 * reported here: the acquisition itself went on. */
		if (own_report()) {
			lockdep_print_report(ctx, ip, instance);
			reported = true;
		}
		pc->lockdep.recursion = false;
	}
	local_irq_restore(irqf);
	return reported;
}

static void ctx_remove(struct lockdep_ctx *ctx, unsigned int i)
{
	ctx->depth--;
	for (unsigned int j = i; j < ctx->depth; j++) {
		ctx->held[j] = ctx->held[j + 1];
		ctx->held[j].chain_key = chain_next(j ? ctx->held[j - 1].chain_key : 0,
						    ctx->held[j].class_idx, ctx->held[j].flags);
	}
}

void __lock_release_hook(const void *instance, const void *ip)
{
	(void)ip;
	unsigned long irqf = local_irq_save();
	struct percpu *pc = this_cpu_ptr();
	struct lockdep_ctx *ctx = ctx_get(pc);

	/* Not found: taken before tracking began (or never tracked). The
	 * primitives report real unbalanced unlocks themselves. */
	if (ctx && !pc->lockdep.recursion) {
		for (unsigned int i = ctx->depth; i-- > 0;) {
			if (ctx->held[i].instance == instance) {
				ctx_remove(ctx, i);
				break;
			}
		}
	}
	local_irq_restore(irqf);
}

void lockdep_init_map(struct lockdep_map *m, const char *name, const struct lock_class_key *key,
		      enum lockdep_kind kind)
{
	*m = (struct lockdep_map)LOCKDEP_MAP_INIT(name, key, kind);
}

void lockdep_unregister_key(struct lock_class_key *key)
{
	if (!READ_ONCE(lockdep_active))
		return;
	unsigned long irqf = local_irq_save();

	graph_lock();
	for (unsigned int s = 0; s < LOCKDEP_SUBCLASSES; s++) {
		u16 i = class_find(key, s);

		if (i)
			class_kill(i);
	}
	/* With the validator off a report may be printing the graph: the
	 * dead stay pending until a later call finds it on. */
	while (validating() && pending_classes) {
		u16 i = pending_classes;

		pending_classes = classes[i].free_next;
		zap_class(i);
	}
	graph_unlock();
	local_irq_restore(irqf);
}

/* ---- contexts entering and leaving --------------------------------------- */

/* A context that must hold at most `depth` locks holds more: report it
 * (once, while validating) and forget the extra ones. With
 * lockdep.recursion set. */
static void check_leak(struct lockdep_ctx *ctx, unsigned int depth, const char *what,
		       const char *who, const void *fn)
{
	assert(this_cpu_read(lockdep.recursion));
	if (ctx->depth <= depth)
		return;
	if (validating() && report_begin()) {
		char name[NAME_LEN + 24];

		lockdep_class_str(ctx->held[ctx->depth - 1].class_idx, name, sizeof(name));
		if (fn)
			report_bug("lockdep", "%s %pS returned holding %s", what, fn, name);
		else
			report_bug("lockdep", "%s %s exits holding %s", what, who, name);
		print_report_end(ctx);
	}
	ctx->depth = depth;
}

void lockdep_hardirq_enter(void)
{
	this_cpu_write(lockdep.hardirq_depth, this_cpu_read(lockdep.hardirq_depth) + 1);
}

void lockdep_hardirq_exit(const void *handler)
{
	struct percpu *pc = this_cpu_ptr();

	if (pc->lockdep.hardirq_depth == 1 && pc->lockdep.irq_ctx.depth && !pc->lockdep.recursion) {
		pc->lockdep.recursion = true;
		check_leak(&pc->lockdep.irq_ctx, 0, "interrupt handler", NULL, handler);
		pc->lockdep.recursion = false;
	}
	pc->lockdep.hardirq_depth--;
}

void lockdep_nmi_enter(void)
{
	this_cpu_write(lockdep.in_nmi, true);
}

void lockdep_nmi_exit(void)
{
	this_cpu_write(lockdep.in_nmi, false);
}

void lockdep_thread_exit(struct thread *t)
{
	if (!READ_ONCE(lockdep_active))
		return;
	unsigned long irqf = local_irq_save();
	struct percpu *pc = this_cpu_ptr();

	if (!pc->lockdep.recursion && t->lockdep && t->lockdep->depth) {
		pc->lockdep.recursion = true;
		check_leak(t->lockdep, 0, "thread", t->name, NULL);
		pc->lockdep.recursion = false;
	}
	local_irq_restore(irqf);
}

/* The idle threads' held locks (other threads carry theirs after their
 * struct: lockdep_thread_ctx_size()). */
static struct lockdep_ctx idle_ctx[NR_CPUS];

size_t lockdep_thread_ctx_size(void)
{
	return READ_ONCE(lockdep_active) ? sizeof(struct lockdep_ctx) : 0;
}

void lockdep_reset_cpu(struct thread *idle)
{
	struct percpu *pc = this_cpu_ptr();
	struct lockdep_ctx *ctx = &idle_ctx[smp_processor_id()];

	ctx->depth = 0;
	idle->lockdep = READ_ONCE(lockdep_active) ? ctx : NULL;
	pc->lockdep.irq_ctx.depth = 0;
	pc->lockdep.bh_ctx.depth = 0;
	pc->lockdep.hardirq_depth = 0;
	pc->lockdep.in_nmi = false;
	pc->lockdep.recursion = false;
}

unsigned int lockdep_held_depth(void)
{
	if (!READ_ONCE(lockdep_active))
		return 0;
	unsigned long irqf = local_irq_save();
	struct lockdep_ctx *ctx = ctx_get(this_cpu_ptr());
	unsigned int d = ctx ? ctx->depth : 0;

	local_irq_restore(irqf);
	return d;
}

void lockdep_check_depth(unsigned int depth, const char *what, const void *fn)
{
	if (!READ_ONCE(lockdep_active))
		return;
	unsigned long irqf = local_irq_save();
	struct percpu *pc = this_cpu_ptr();
	struct lockdep_ctx *ctx = ctx_get(pc);

	if (ctx && ctx->depth > depth && !pc->lockdep.recursion) {
		pc->lockdep.recursion = true;
		check_leak(ctx, depth, what, NULL, fn);
		pc->lockdep.recursion = false;
	}
	local_irq_restore(irqf);
}

/* ---- state --------------------------------------------------------------- */

bool lockdep_on(void)
{
	return validating();
}

unsigned long lockdep_reports(void)
{
	return __atomic_load_n(&nr_reports, __ATOMIC_RELAXED);
}

bool lockdep_claim_report(void)
{
	return report_begin();
}

void lockdep_rearm(void)
{
	int tracking = LOCKDEP_TRACKING;

	__atomic_compare_exchange_n(&lockdep_state, &tracking, LOCKDEP_ON, false, __ATOMIC_ACQ_REL,
				    __ATOMIC_RELAXED);
}

void lockdep_get_stats(struct lockdep_stats *st)
{
	*st = (struct lockdep_stats){
		.enabled = READ_ONCE(lockdep_state) != LOCKDEP_OFF,
		.on = validating(),
		.classes = READ_ONCE(nr_classes_used),
		.max_classes = MAX_CLASSES - 1,
		.classes_reclaimed = READ_ONCE(nr_classes_reclaimed),
		.deps = READ_ONCE(nr_deps_used),
		.max_deps = MAX_DEPS - 1,
		.chains = READ_ONCE(nr_chains),
		.max_chains = CHAIN_SLOTS,
		.chain_flushes = READ_ONCE(nr_chain_flushes),
		.trace_ips = READ_ONCE(nr_trace_ips_used),
		.max_trace_ips = MAX_TRACE_IPS,
		.max_depth = READ_ONCE(max_depth_seen),
		.reports = lockdep_reports(),
	};
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct percpu *pc = per_cpu_ptr(cpu);

		if (pc) {
			st->chain_hits += READ_ONCE(pc->lockdep.chain_hits);
			st->chain_misses += READ_ONCE(pc->lockdep.chain_misses);
		}
	}
}

void lockdep_init(void)
{
	if (lockdep_enabled) {
		WRITE_ONCE(lockdep_state, LOCKDEP_ON);
		WRITE_ONCE(lockdep_active, 1);
		current->lockdep = &idle_ctx[smp_processor_id()]; /* the boot CPU's idle thread */
	}
}
