/* arch/x86_64/percpu.c - per-CPU areas; see percpu.h. */
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/cpu.h"
#include "kernel/cpu_local.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/mm/kstack.h"
#include "lib/string.h"

struct percpu boot_percpu = { .self = &boot_percpu, .cpu_id = 0 };
struct percpu *percpu_areas[NR_CPUS] = { [0] = &boot_percpu };

/* Before any allocator exists the boot CPU's IST stacks are static. */
static u8 boot_ist_stacks[NR_IST_STACKS][IST_STACK_SIZE] __aligned(PAGE_SIZE);

static void percpu_init_common(struct percpu *pc, unsigned int cpu)
{
	pc->self = pc;
	pc->cpu_id = cpu;
	smp_cpu_init(&pc->smp); /* the kernel's parts: by their owners */
}

void percpu_load(struct percpu *pc)
{
	wrmsr(MSR_GS_BASE, (u64)pc);
	gdt_init_cpu(&pc->gdt, &pc->tss);
	for (int i = 0; i < NR_IST_STACKS; i++)
		pc->tss.ist[i] = (u64)pc->ist_stack[i] + IST_STACK_SIZE;
}

void percpu_init_boot_cpu(void)
{
	percpu_init_common(&boot_percpu, 0);
	for (int i = 0; i < NR_IST_STACKS; i++)
		boot_percpu.ist_stack[i] = boot_ist_stacks[i];
	percpu_load(&boot_percpu);
}

struct percpu *percpu_setup(unsigned int cpu, unsigned int apic_id)
{
	struct percpu *pc = percpu_areas[cpu];

	if (!pc) {
		pc = kzalloc(sizeof(*pc));
		if (!pc)
			return NULL;
		for (int i = 0; i < NR_IST_STACKS; i++) {
			/* Guarded stacks; IST_STACK_SIZE fits in one. */
			pc->ist_stack[i] = kstack_alloc("an IST stack");
			if (!pc->ist_stack[i]) {
				while (i--)
					kstack_free(pc->ist_stack[i]);
				kfree(pc);
				return NULL;
			}
		}
		percpu_init_common(pc, cpu);
		percpu_areas[cpu] = pc;
	}
	pc->apic_id = apic_id;
	return pc;
}
