/* kernel/main.c - the boot order.
 *
 * arch/x86_64/boot.S enters kmain() on the boot CPU, in long mode, on the
 * boot stack, with the boot page tables, interrupts off. Each line below
 * brings up one part; later parts may use everything above them. */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/desc.h"
#include "arch/x86_64/paging.h"
#include "drivers/acpi.h"
#include "drivers/acpi_cpuhp.h"
#include "drivers/uart16550.h"
#include "kernel/bootinfo.h"
#include "kernel/cpu_local.h"
#include "kernel/deterministic.h"
#include "kernel/hotplug.h"
#include "kernel/kcsan.h"
#include "kernel/kthread.h"
#include "kernel/lockdep.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/mm/pmm.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/printk.h"
#include "kernel/smpboot.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/bench.h"
#include "kernel/tools/ktest.h"
#include "kernel/tools/shell.h"
#include "kernel/version.h"
#include "kernel/workqueue.h"
#include "lib/printf.h"

void kmain(u64 mb2_info_phys);

/* The first thread: everything that may sleep. */
static int kernel_init(void *unused)
{
	acpi_cpuhp_init(); // the host's CPU hot-plug: events through a work item
	if (ktest_requested())
		ktest_run_selected(); // KTAP on the serial port, then exit
	if (bench_requested())
		bench_run_selected(); // figures on the serial port, then exit
	printk(KERN_NOTICE "baton: boot complete (quit QEMU with Ctrl-A X)\n");
	shell_init(); // the prompt; input comes through a work item
	return 0;
}

void kmain(u64 mb2_info_phys)
{
	percpu_init_boot_cpu();			// GS base, GDT and TSS of the boot CPU
	uart_early_init();			// COM1: printk works from here
	printf_symbol_resolver = sprint_symbol; // %pS prints function names
	idt_init();				// exception vectors
	idt_load();				// faults are reported from here on
	multiboot2_parse(mb2_info_phys);	// copy what GRUB told us
	printk(KERN_NOTICE "baton %s (x86-64) booting; loader: %s\n", BATON_VERSION,
	       boot_info.loader_name[0] ? boot_info.loader_name : "unknown");
	printk(KERN_INFO "command line: %s\n", boot_info.cmdline);
	boot_log_firmware();		 // "firmware: UEFI ..." or "firmware: BIOS"
	params_parse(boot_info.cmdline); // loglevel=, test=, panic=, ...
	det_init();			 // deterministic=: seeds, delay points
	pmm_early_init();		 // free memory from the memory map
	paging_init();			 // our own page tables
	pmm_init();			 // buddy zones over all RAM
	kmalloc_init();			 // the kernel heap
	acpi_init();			 // firmware tables: MADT, HPET, FADT
	time_init();			 // TSC clock, calibrated against HPET/PIT
	timers_init();			 // per-CPU timer queues (by expiry, in ns)
	cpuhp_init();			 // CPU hotplug phases and their steps
	sched_init();			 // this context becomes cpu0's idle thread
#ifdef CONFIG_KCSAN
	kcsan_init(); /* per-CPU data and current exist from here on */
#endif
	lockdep_init();				     // the lock validator, from here on
	smp_init();				     // APICs, clock events, every other CPU online
	local_irq_enable();			     // interrupts on; threads from here on
	workqueue_init();			     // worker pools on every CPU
	cpuhp_boot_done();			     // every CPU past every hotplug step
	uart_rx_init();				     // COM1 input: IRQ 4, drained by a work item
	if (!kthread_run(kernel_init, NULL, "init")) // the rest, in a thread
		panic("cannot create the init thread");
	cpu_idle(); // cpu0 idles from here on
}
