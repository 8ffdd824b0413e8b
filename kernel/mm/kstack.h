/* kernel/mm/kstack.h - kernel stacks with guard pages.
 *
 * Every kernel stack is KSTACK_SIZE bytes, mapped in the KSTACK_BASE area
 * with KSTACK_GUARD_SIZE bytes of unmapped address space right below it:
 * a stack overflow faults in the guard instead of corrupting a neighbour,
 * and traps.c reports it as a stack overflow (on the #DF IST stack, since
 * the overflowed stack cannot take the page fault's frame).
 *
 * Interface:
 *   kstack_alloc(owner) / kstack_free(base)   may not be called with
 *                            interrupts off (TLB shootdown on SMP)
 *   kstack_reclaim()         let stacks freed while a CPU was starting or
 *                            dying be reused, once none is (CPU hotplug
 *                            calls it; kstack_free() tries too)
 *   kstack_nr_held(&ever)    how many freed stacks wait for that now
 *                            (and, if ever is not NULL, have since boot)
 *   kstack_bounds(addr, &lo, &hi)  the stack containing addr (any kind:
 *                            boot stack, IST stacks, allocated stacks)
 *   kstack_guard_hit(addr, ...)    is addr in some stack's guard? which?
 *   kstack_owner(addr)             whose stack is addr on (reports)
 */
#ifndef KERNEL_MM_KSTACK_H
#define KERNEL_MM_KSTACK_H

#include "arch/x86_64/boot_defs.h"
#include "lib/types.h"

#define KSTACK_GUARD_SIZE (4 * PAGE_SIZE)
#define KSTACK_SLOT_SIZE  (KSTACK_GUARD_SIZE + KSTACK_SIZE)
#define KSTACK_MAX_SLOTS  8192

/* Returns the lowest address of a fresh stack (top = base + KSTACK_SIZE),
 * or NULL when out of memory or slots. owner names it in reports. */
void *kstack_alloc(const char *owner);
void kstack_free(void *base);
void kstack_reclaim(void);
unsigned int kstack_nr_held(u64 *ever);
bool kstack_bounds(u64 addr, u64 *lo, u64 *hi);
bool kstack_guard_hit(u64 addr, u64 *lo, u64 *hi, char *what, size_t size);
/* The name the stack addr is on was allocated under (reports), or NULL. */
const char *kstack_owner(u64 addr);
/* Run fn(arg) on the stack [base, base + KSTACK_SIZE); returns when fn does.
 * Preemption disabled: the scheduler panics when a thread is switched out
 * on a stack not its own (kernel/sched.c, check_curr). */
void call_on_stack(void *base, void (*fn)(void *), void *arg);

#endif
