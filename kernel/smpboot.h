/* kernel/smpboot.h - bringing the other CPUs up: all of them at boot,
 * one at a time for cpu_up(). The machine's part, the INIT-SIPI-SIPI and
 * the trampoline, is arch/x86_64/smpboot.h's.
 *
 *   smp_init()            on the boot CPU, once: read the firmware's MADT
 *                         (the CPUs, drivers/acpi_cpus.c; the local APIC's
 *                         address; the I/O APICs), set up the local APIC,
 *                         the interrupt vectors and the I/O APIC, and bring
 *                         every present CPU online
 *   smp_bringup_cpu(cpu)  start one present, offline CPU (it runs the
 *                         hotplug starting steps and goes online itself);
 *                         0, or -errno (-ETIMEDOUT if it did not answer).
 *                         Callers serialise (boot; later the hotplug lock)
 *   smp_booted            smp_init() is done
 */
#ifndef KERNEL_SMPBOOT_H
#define KERNEL_SMPBOOT_H

#include "lib/types.h"

void smp_init(void);
int smp_bringup_cpu(unsigned int cpu);
extern bool smp_booted;

#endif
