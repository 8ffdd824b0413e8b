/* kernel/mm/kstack.c - guarded kernel stacks; see kstack.h. */
#include "kernel/mm/kstack.h"
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/paging.h"
#include "kernel/cpu_local.h"
#include "kernel/cpu_masks.h"
#include "kernel/mm/pmm.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/bitmap.h"
#include "lib/printf.h"

#define KSTACK_ORDER 2 /* 16 KiB = 4 pages */
BUILD_BUG_ON(((u64)PAGE_SIZE << KSTACK_ORDER) != KSTACK_SIZE);

extern char boot_stack_guard[], boot_stack[], boot_stack_top[];

static DEFINE_SPINLOCK(kstack_lock);
/* kstack_lock to change, with atomic bit operations: the stack walks of
 * reports (kstack_bounds(), any context) read them without the lock. */
static DECLARE_BITMAP(kstack_used, KSTACK_MAX_SLOTS);
static DECLARE_BITMAP(kstack_held, KSTACK_MAX_SLOTS);	 /* freed, not reusable yet */
static const char *kstack_owner_names[KSTACK_MAX_SLOTS]; /* kstack_lock to change; reports
							    read them without it */

/*
 * Stacks freed while a CPU was in transit (kernel/cpu_masks.h: starting, or
 * dying) are held back: that CPU missed the shootdown and may still
 * translate the slot to the old frames, and a dying CPU does reach into
 * threads' stacks (moving timers, some of them sleepers' on-stack ones).
 * Were slot and frames reused, it would read and write the new stack's
 * contents in memory now someone else's. The frames themselves keep the
 * list: a held stack's first bytes, through the direct map.
 */
struct held_stack {
	phys_addr_t next; /* the next held stack's frames, or 0 */
	unsigned int slot;
};
static phys_addr_t held_first; /* kstack_lock */
static unsigned int nr_held;   /* kstack_lock */
static u64 nr_held_ever;       /* kstack_lock */

static u64 slot_stack_base(unsigned int slot)
{
	return KSTACK_BASE + (u64)slot * KSTACK_SLOT_SIZE + KSTACK_GUARD_SIZE;
}

void *kstack_alloc(const char *owner)
{
	phys_addr_t pa = pmm_alloc_pages(KSTACK_ORDER);

	if (!pa)
		return NULL;
	unsigned long flags = spin_lock_irqsave(&kstack_lock);
	unsigned int slot = (unsigned int)find_first_zero_bit(kstack_used, KSTACK_MAX_SLOTS);

	if (slot == KSTACK_MAX_SLOTS) {
		spin_unlock_irqrestore(&kstack_lock, flags);
		pmm_free_pages(pa);
		return NULL;
	}
	set_bit(slot, kstack_used);
	WRITE_ONCE(kstack_owner_names[slot], owner);
	spin_unlock_irqrestore(&kstack_lock, flags);

	u64 base = slot_stack_base(slot);

	for (u64 off = 0; off < KSTACK_SIZE; off += PAGE_SIZE) {
		if (map_kernel_page(base + off, pa + off, PAGE_KERNEL_RW)) {
			for (u64 o = 0; o < off; o += PAGE_SIZE)
				unmap_kernel_page(base + o);
			flags = spin_lock_irqsave(&kstack_lock);
			clear_bit(slot, kstack_used);
			spin_unlock_irqrestore(&kstack_lock, flags);
			pmm_free_pages(pa);
			return NULL;
		}
	}
	return (void *)base;
}

static void flush_stack_tlb(void *base)
{
	for (u64 off = 0; off < KSTACK_SIZE; off += PAGE_SIZE)
		invlpg((u64)base + off);
}

void kstack_free(void *base)
{
	u64 b = (u64)base;
	u64 rel = b - KSTACK_BASE - KSTACK_GUARD_SIZE;
	unsigned int slot = (unsigned int)(rel / KSTACK_SLOT_SIZE);

	bool valid = b >= KSTACK_BASE + KSTACK_GUARD_SIZE && !(rel % KSTACK_SLOT_SIZE) &&
		     slot < KSTACK_MAX_SLOTS;
	/* The bitmaps under their lock: other stacks' bits share the words,
	 * and other CPUs change them (the detector found these reads bare). */
	unsigned long flags = spin_lock_irqsave(&kstack_lock);
	bool used = valid && test_bit(slot, kstack_used);
	bool held = used && test_bit(slot, kstack_held);

	spin_unlock_irqrestore(&kstack_lock, flags);
	if (WARN(!used, "kstack_free(%p): not an allocated stack", base))
		return;
	if (WARN(held, "kstack_free(%p): freed twice (held since the first)", base))
		return;
	/* Read the frames' physical address before the mapping goes. */
	u64 pte_pa = virt_to_phys_mapped(b);

	if (WARN(!pte_pa, "kstack_free(%p): its slot is not mapped", base))
		return;

	/* On one CPU throughout: unmap_kernel_page() flushes this CPU's TLB,
	 * the calls below every other's. Migrating in between would leave the
	 * CPU we moved to with the old translations, and a new stack in this
	 * slot would then write through them into frames reused elsewhere. */
	preempt_disable();
	for (u64 off = 0; off < KSTACK_SIZE; off += PAGE_SIZE)
		unmap_kernel_page(b + off);
	/* Other CPUs may still cache these translations (the thread may have
	 * run anywhere); the frames and the slot must not be reused until
	 * every CPU has forgotten them. One halted in its idle loop runs
	 * nothing before it flushes as it wakes: it is left asleep (an IPI
	 * to an idle vCPU is a host thread wake-up, milliseconds of a
	 * cpu_up() that reaped the threads the last offline left). */
	struct cpumask awake;
	unsigned int cpu;

	cpumask_clear(&awake);
	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id() && !sched_cpu_flush_tlb_on_wake(cpu))
			cpumask_set_cpu(cpu, &awake);
	if (!cpumask_empty(&awake))
		smp_call_function_many(&awake, flush_stack_tlb, (void *)b, true);
	preempt_enable();
	flags = spin_lock_irqsave(&kstack_lock);

	/* Asked after the shootdown: a CPU that left cpu_online_mask before
	 * it (and so missed it) is in transit until it halts. */
	if (cpus_in_transit()) {
		struct held_stack *h = phys_to_virt(pte_pa);

		h->next = held_first;
		h->slot = slot;
		held_first = pte_pa;
		nr_held++;
		nr_held_ever++;
		set_bit(slot, kstack_held);
		spin_unlock_irqrestore(&kstack_lock, flags);
		return;
	}
	clear_bit(slot, kstack_used);
	WRITE_ONCE(kstack_owner_names[slot], NULL);
	spin_unlock_irqrestore(&kstack_lock, flags);
	pmm_free_pages(pte_pa);
	kstack_reclaim();
}

void kstack_reclaim(void)
{
	for (;;) {
		unsigned long flags = spin_lock_irqsave(&kstack_lock);

		/* With no CPU in transit, every one that was when these were
		 * held has halted (INIT will flush it) or come online (and
		 * flushed everything, cpu_mark_online()). */
		if (!held_first || cpus_in_transit()) {
			spin_unlock_irqrestore(&kstack_lock, flags);
			return;
		}
		phys_addr_t pa = held_first;
		const struct held_stack *h = phys_to_virt(pa);
		unsigned int slot = h->slot;

		/* The entry sits in freed frames a stale translation could still
		 * reach: a write there would free the wrong frames or slot. */
		if (unlikely(slot >= KSTACK_MAX_SLOTS || !test_bit(slot, kstack_held) ||
			     (h->next && h->next % (KSTACK_SIZE) != 0)))
			panic("kstack: the list of held stacks is corrupt at %lx: slot %u, next "
			      "%lx (something wrote into a freed stack)",
			      pa, slot, h->next);
		held_first = h->next;
		nr_held--;
		clear_bit(slot, kstack_held);
		clear_bit(slot, kstack_used);
		WRITE_ONCE(kstack_owner_names[slot], NULL);
		spin_unlock_irqrestore(&kstack_lock, flags);
		pmm_free_pages(pa);
	}
}

unsigned int kstack_nr_held(u64 *ever)
{
	unsigned long flags = spin_lock_irqsave(&kstack_lock);
	unsigned int n = nr_held;

	if (ever)
		*ever = nr_held_ever;
	spin_unlock_irqrestore(&kstack_lock, flags);
	return n;
}

/* Which part of a stack an address is looked up in. */
enum stack_part { STACK_BODY, STACK_GUARD };

/* Fixed stacks: the boot stack and every CPU's IST stacks. */
static bool fixed_stack(u64 addr, u64 *lo, u64 *hi, enum stack_part part, char *what, size_t size)
{
	u64 s = (u64)boot_stack, g = (u64)boot_stack_guard;
	bool guard = part == STACK_GUARD;

	if (guard ? (addr >= g && addr < s) : (addr >= s && addr < (u64)boot_stack_top)) {
		*lo = s;
		*hi = (u64)boot_stack_top;
		if (what)
			scnprintf(what, size, "the boot stack");
		return true;
	}
	if (guard)
		return false; /* IST stacks of the boot CPU are static: no guard */
	struct percpu *pc = &boot_percpu;

	for (int i = 0; i < NR_IST_STACKS; i++) {
		u64 base = (u64)pc->ist_stack[i];

		if (addr >= base && addr < base + IST_STACK_SIZE) {
			*lo = base;
			*hi = base + IST_STACK_SIZE;
			return true;
		}
	}
	return false;
}

bool kstack_bounds(u64 addr, u64 *lo, u64 *hi)
{
	if (fixed_stack(addr, lo, hi, STACK_BODY, NULL, 0))
		return true;
	if (addr < KSTACK_BASE || addr >= KSTACK_BASE + (u64)KSTACK_MAX_SLOTS * KSTACK_SLOT_SIZE)
		return false;
	unsigned int slot = (unsigned int)((addr - KSTACK_BASE) / KSTACK_SLOT_SIZE);
	u64 base = slot_stack_base(slot);

	/* Read without the lock: this runs inside fault reports. */
	if (addr < base || !test_bit(slot, kstack_used) || test_bit(slot, kstack_held))
		return false;
	*lo = base;
	*hi = base + KSTACK_SIZE;
	return true;
}

bool kstack_guard_hit(u64 addr, u64 *lo, u64 *hi, char *what, size_t size)
{
	if (fixed_stack(addr, lo, hi, STACK_GUARD, what, size))
		return true;
	if (addr < KSTACK_BASE || addr >= KSTACK_BASE + (u64)KSTACK_MAX_SLOTS * KSTACK_SLOT_SIZE)
		return false;
	unsigned int slot = (unsigned int)((addr - KSTACK_BASE) / KSTACK_SLOT_SIZE);
	u64 base = slot_stack_base(slot);

	if (addr >= base || !test_bit(slot, kstack_used))
		return false;
	*lo = base;
	*hi = base + KSTACK_SIZE;
	scnprintf(what, size, "%s %s",
		  test_bit(slot, kstack_held) ? "the freed stack of" : "the stack of",
		  READ_ONCE(kstack_owner_names[slot]) ?: "?");
	return true;
}

/* Who owns the stack addr is on, or NULL if none (reports: no lock). */
const char *kstack_owner(u64 addr)
{
	u64 lo, hi;

	if (fixed_stack(addr, &lo, &hi, false, NULL, 0))
		return "a fixed stack (boot or IST)";
	if (!kstack_bounds(addr, &lo, &hi))
		return NULL;
	const char *who = READ_ONCE(kstack_owner_names[(addr - KSTACK_BASE) / KSTACK_SLOT_SIZE]);

	return who ? who : "?";
}
