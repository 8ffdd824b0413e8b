/* arch/x86_64/smpboot.h - starting an application processor.
 *
 * arch_cpu_boot(pc) starts the CPU whose per-CPU area is pc: it fills the
 * trampoline (trampoline.h), sends INIT and a STARTUP IPI (a second one
 * only if the CPU has not started by then), with the waits of the Intel
 * MultiProcessor Specification (B.4) only on the CPU families that need
 * them (legacy_init_pause(); the others wait 10 us after each STARTUP and
 * not after INIT), and waits a bounded time (smp_boot_timeout_ms=) for
 * the CPU to start. A CPU that does not answer is sent INIT again (so it
 * cannot wake up later with stale instructions) and -ETIMEDOUT is
 * returned. One that started is waited for until it is online, with a
 * warning every timeout: it runs kernel code by then, and INIT could leave
 * a lock held. Can be called again for the same CPU after it went
 * offline: every start re-initialises it.
 * Callers serialise (boot: only the boot CPU runs; later the hotplug lock).
 */
#ifndef ARCH_SMPBOOT_H
#define ARCH_SMPBOOT_H

#include "arch/x86_64/percpu.h"

int arch_cpu_boot(struct percpu *pc);
/* C entry of an AP, from ap_entry64 in trampoline.S. */
__noreturn void ap_start(struct percpu *pc);

#endif
