/* kernel/reboot.c - power off and reboot; see reboot.h. */
#include "kernel/reboot.h"
#include "arch/x86_64/cpu.h"
#include "drivers/acpi.h"
#include "kernel/printk.h"

#define PCI_RESET_CONTROL   0xCF9
#define PCI_RESET_SYS_RST   0x02
#define PCI_RESET_CPU_RST   0x04
#define KBC_STATUS	    0x64
#define KBC_INPUT_FULL	    0x02
#define KBC_CMD_PULSE_RESET 0xFE

__noreturn void machine_poweroff(void)
{
	printk(KERN_NOTICE "Power down.\n");
	local_irq_disable();
	acpi_poweroff();
	printk(KERN_EMERG "power-off failed; halting (quit QEMU with Ctrl-A X)\n");
	halt_forever();
}

__noreturn void machine_reboot(void)
{
	printk(KERN_NOTICE "Restarting system.\n");
	local_irq_disable();
	acpi_reset();
	outb(PCI_RESET_CONTROL, PCI_RESET_SYS_RST);
	outb(PCI_RESET_CONTROL, PCI_RESET_SYS_RST | PCI_RESET_CPU_RST);
	for (int i = 0; i < 100000 && (inb(KBC_STATUS) & KBC_INPUT_FULL); i++)
		cpu_relax();
	outb(KBC_STATUS, KBC_CMD_PULSE_RESET);
	/* Last resort: a triple fault through an empty IDT. */
	struct {
		u16 limit;
		u64 base;
	} __packed empty = { 0, 0 };
	__asm__ volatile("lidt %0; int3" ::"m"(empty));
	halt_forever();
}
