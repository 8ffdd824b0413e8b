/* kernel/reboot.h - turning the machine off or restarting it.
 *
 * machine_poweroff(): ACPI S5 (sleep type from the DSDT's \_S5 object,
 * written to PM1a/PM1b control with SLP_EN); if that fails, halt.
 * machine_reboot(): the FADT reset register, then the PCI reset control
 * register 0xCF9, then the 8042 keyboard controller, then a triple fault.
 * Both may be called from any context, including panic. */
#ifndef KERNEL_REBOOT_H
#define KERNEL_REBOOT_H

#include "lib/compiler.h"

__noreturn void machine_poweroff(void);
__noreturn void machine_reboot(void);

#endif
