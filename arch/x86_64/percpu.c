/* arch/x86_64/percpu.c - the boot CPU's per-CPU area and its early setup;
 * see percpu.h. */
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/cpu.h"

struct percpu boot_percpu = { .self = &boot_percpu, .cpu_id = 0 };

/* Before any allocator exists the boot CPU's IST stacks are static. */
static u8 boot_ist_stacks[NR_IST_STACKS][IST_STACK_SIZE] __aligned(PAGE_SIZE);

void percpu_init_boot_cpu(void)
{
	wrmsr(MSR_GS_BASE, (u64)&boot_percpu);
	for (int i = 0; i < NR_IST_STACKS; i++)
		boot_percpu.ist_stack[i] = boot_ist_stacks[i];
	gdt_init_cpu(&boot_percpu.gdt, &boot_percpu.tss);
	for (int i = 0; i < NR_IST_STACKS; i++)
		boot_percpu.tss.ist[i] = (u64)boot_ist_stacks[i] + IST_STACK_SIZE;
}
