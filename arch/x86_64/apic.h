/* arch/x86_64/apic.h - the local APIC: identity, IPIs, EOI and its timer.
 *
 * xAPIC (MMIO at the MADT's address) or x2APIC (MSRs) when the CPU offers it
 * (CPUID.1:ECX[21]) and nox2apic is not given; the accessors hide which.
 *
 * Vectors (the IDT is shared; these are the same on every CPU):
 *   0x20-0x2F  legacy ISA IRQs 0-15, routed by the IOAPIC (ioapic.c)
 *   0xEC       local APIC timer (the CPU's clock event: kernel/time.c)
 *   0xF0       call-function IPI (kernel/smp.c)
 *   0xF1       reschedule IPI
 *   0xF2       clock-event kick IPI: another CPU moved one of this CPU's
 *              deadlines earlier (kernel/time.c)
 *   0xFE       local APIC error
 *   0xFF       spurious
 *
 * Interface (interrupts off where it matters; every call acts on this CPU's
 * local APIC):
 *   lapic_init_boot(phys)  map and enable the boot CPU's APIC
 *   lapic_init_cpu()       enable this CPU's APIC (every CPU, each bring-up)
 *   lapic_id()             this CPU's APIC id
 *   lapic_eoi()            end of interrupt
 *   lapic_send_ipi(apic_id, vector), lapic_send_nmi(apic_id), lapic_send_nmi_allbutself(),
 *   lapic_send_init(apic_id), lapic_send_startup(apic_id, page)
 *                          the caller's earlier stores are visible to the
 *                          target before the interrupt arrives (xAPIC and
 *                          x2APIC alike: callers need no fence of their own)
 *   lapic_timer_calibrate()  measure the timer's rate against the TSC clock
 *   lapic_timer_setup_oneshot()  one-shot mode, nothing counting
 *   lapic_timer_oneshot(delta_ns)  one interrupt delta_ns from now (never
 *                          earlier; clamped to LAPIC_TIMER_MIN_DELTA_NS ..
 *                          lapic_timer_max_delta_ns()), replacing any pending
 *   lapic_timer_cancel()   no interrupt until the next lapic_timer_oneshot()
 *   lapic_timer_periodic(hz)  HZ interrupts a second (the nohz=off tick)
 *   lapic_timer_stop()     masked and stopped (a CPU going offline)
 */
#ifndef ARCH_APIC_H
#define ARCH_APIC_H

#include "lib/types.h"

#define ISA_IRQ_VECTOR(irq)  (0x20 + (irq))
#define LOCAL_TIMER_VECTOR   0xEC
#define CALL_FUNCTION_VECTOR 0xF0
#define RESCHEDULE_VECTOR    0xF1
#define CLOCK_KICK_VECTOR    0xF2
#define BH_KICK_VECTOR	     0xF3
#define ERROR_APIC_VECTOR    0xFE
#define SPURIOUS_APIC_VECTOR 0xFF

void lapic_init_boot(u64 phys);
void lapic_init_cpu(void);
u32 lapic_id(void);
bool lapic_is_x2apic(void);
void lapic_eoi(void);
void lapic_send_ipi(u32 apic_id, u8 vector);
void lapic_send_nmi_allbutself(void);
void lapic_send_nmi(u32 apic_id);
void lapic_send_init(u32 apic_id);
void lapic_send_startup(u32 apic_id, u8 page);
/* Did the last IPI get accepted? (xAPIC: ESR and delivery status) */
bool lapic_ipi_idle(void);
/* The shortest one-shot delta: shorter deadlines get this one. */
#define LAPIC_TIMER_MIN_DELTA_NS 1000

void lapic_timer_calibrate(void);
void lapic_timer_setup_oneshot(void);
void lapic_timer_oneshot(u64 delta_ns);
void lapic_timer_cancel(void);
void lapic_timer_periodic(unsigned int hz);
void lapic_timer_stop(void);
/* Counts per second of the timer at its divide setting (after calibrate). */
u64 lapic_timer_rate(void);
/* The longest one-shot delta the count register holds. */
u64 lapic_timer_max_delta_ns(void);

#endif
