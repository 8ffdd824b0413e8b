/* arch/x86_64/idt.c - the interrupt descriptor table, shared by all CPUs.
 *
 * Every vector gets an interrupt gate (interrupts off on entry) to its stub
 * in isr.S. #DF, NMI and #MC run on their own IST stacks so they work even
 * when the interrupted stack is broken, e.g. overflowed into its guard. */
#include "arch/x86_64/desc.h"

#define IDT_ENTRIES    256
#define GATE_INTERRUPT 0x8E /* present, DPL0, 64-bit interrupt gate */
#define ISR_STUB_SIZE  16   /* see isr.S */

struct idt_gate {
	u16 offset_lo;
	u16 selector;
	u8 ist;
	u8 type;
	u16 offset_mid;
	u32 offset_hi;
	u32 reserved;
} __packed;

struct idt_ptr {
	u16 limit;
	u64 base;
} __packed;

static struct idt_gate idt[IDT_ENTRIES] __aligned(16); /* I: filled once at boot */
extern const char isr_stub_base[];

static void idt_set_gate(unsigned int vec, u64 handler, u8 ist)
{
	idt[vec] = (struct idt_gate){
		.offset_lo = handler & 0xFFFF,
		.selector = KERNEL_CS,
		.ist = ist,
		.type = GATE_INTERRUPT,
		.offset_mid = (handler >> 16) & 0xFFFF,
		.offset_hi = handler >> 32,
	};
}

void idt_init(void)
{
	for (unsigned int v = 0; v < IDT_ENTRIES; v++)
		idt_set_gate(v, (u64)isr_stub_base + v * ISR_STUB_SIZE, 0);
	idt[8].ist = IST_DOUBLE_FAULT;
	idt[2].ist = IST_NMI;
	idt[18].ist = IST_MACHINE_CHECK;
}

void idt_load(void)
{
	struct idt_ptr ptr = { .limit = sizeof(idt) - 1, .base = (u64)idt };

	__asm__ volatile("lidt %0" ::"m"(ptr) : "memory");
}
