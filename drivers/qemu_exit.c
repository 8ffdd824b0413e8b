/* drivers/qemu_exit.c - see qemu_exit.h. */
#include "drivers/qemu_exit.h"
#include "arch/x86_64/cpu.h"
#include "kernel/reboot.h"

__noreturn void qemu_exit(unsigned int code)
{
	outl(QEMU_EXIT_PORT, code);
	/* Still here: no debug-exit device. Power off instead. */
	machine_poweroff();
}
