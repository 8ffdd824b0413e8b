/* arch/x86_64/cpu.h - thin wrappers around x86-64 instructions.
 *
 * Port I/O, control registers, MSRs, CPUID, TSC and interrupt-flag helpers.
 * Everything here is static inline and has no state. */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include "lib/types.h"

static inline void outb(u16 port, u8 v)
{
	__asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port));
}
static inline void outw(u16 port, u16 v)
{
	__asm__ volatile("outw %0, %1" ::"a"(v), "Nd"(port));
}
static inline void outl(u16 port, u32 v)
{
	__asm__ volatile("outl %0, %1" ::"a"(v), "Nd"(port));
}
static inline u8 inb(u16 port)
{
	u8 v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline u16 inw(u16 port)
{
	u16 v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline u32 inl(u16 port)
{
	u32 v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

#define DEFINE_CR_ACCESS(n)                                                                        \
	static inline u64 read_cr##n(void)                                                         \
	{                                                                                          \
		u64 v;                                                                             \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));                                  \
		return v;                                                                          \
	}                                                                                          \
	static inline void write_cr##n(u64 v)                                                      \
	{                                                                                          \
		__asm__ volatile("mov %0, %%cr" #n ::"r"(v) : "memory");                           \
	}
DEFINE_CR_ACCESS(0)
DEFINE_CR_ACCESS(2)
DEFINE_CR_ACCESS(3)
DEFINE_CR_ACCESS(4)
#undef DEFINE_CR_ACCESS

#define MSR_EFER	   0xC0000080
#define MSR_FS_BASE	   0xC0000100
#define MSR_GS_BASE	   0xC0000101
#define MSR_KERNEL_GS_BASE 0xC0000102

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}
static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ volatile("wrmsr" ::"c"(msr), "a"((u32)v), "d"((u32)(v >> 32)) : "memory");
}

static inline void cpuid(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}
static inline void invlpg(u64 va)
{
	__asm__ volatile("invlpg (%0)" ::"r"(va) : "memory");
}
/* Every translation this CPU caches (no page is global: CR4.PGE is off). */
static inline void local_flush_tlb_all(void)
{
	write_cr3(read_cr3());
}

/* Interrupt flag. The irq_save/restore pair nests; plain enable/disable does not. */
static inline void local_irq_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}
static inline void local_irq_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}
static inline u64 read_rflags(void)
{
	u64 f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f)::"memory");
	return f;
}
#define X86_RFLAGS_IF (1UL << 9)
static inline bool irqs_disabled(void)
{
	return !(read_rflags() & X86_RFLAGS_IF);
}
static inline unsigned long local_irq_save(void)
{
	unsigned long f = read_rflags();
	local_irq_disable();
	return f;
}
static inline void local_irq_restore(unsigned long f)
{
	if (f & X86_RFLAGS_IF)
		local_irq_enable();
}

/* Halt until the next interrupt; with interrupts off, forever. */
static inline void halt(void)
{
	__asm__ volatile("hlt" ::: "memory");
}
/* Halt unless *word == val, until any wake-up; interrupts off on entry, on
 * during the halt (and on return) if irqs_on. An NMI that lands between the
 * test and the hlt makes it return at once (halt_unless.S). */
void halt_unless(const volatile u32 *word, u32 val, bool irqs_on);
static inline __attribute__((noreturn)) void halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt" ::: "memory");
}

static inline u64 read_rbp(void)
{
	u64 v;
	__asm__ volatile("mov %%rbp, %0" : "=r"(v));
	return v;
}
static inline u64 read_rsp(void)
{
	u64 v;
	__asm__ volatile("mov %%rsp, %0" : "=r"(v));
	return v;
}

#endif
