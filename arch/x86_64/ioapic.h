/* arch/x86_64/ioapic.h - the I/O APIC(s) and the legacy 8259 PICs.
 *
 * ISA IRQ n goes to vector ISA_IRQ_VECTOR(n) on one CPU. The MADT's
 * interrupt source overrides say which global system interrupt (GSI) an
 * ISA IRQ arrives on and with which polarity and trigger (on QEMU, IRQ 0,
 * the PIT, is GSI 2, and the PCI interrupts 5, 9, 10, 11 are level/low);
 * ioapic_route_isa_irq() honours them. The 8259s are remapped out of the
 * way (vectors 0x30-0x3F) and fully masked: baton does not use them.
 *
 * Interface (boot CPU at init; later calls serialise on ioapic_lock):
 *   ioapic_init(madt)                  find the I/O APICs, mask every input
 *   ioapic_route_isa_irq(irq, apic_id) route and unmask; 0 or -errno
 *   ioapic_mask_isa_irq(irq)
 *   ioapic_isa_irq_gsi(irq)            the GSI an ISA IRQ arrives on
 *   ioapic_read_route(irq, &entry)     the raw redirection entry (tests)
 *   ioapic_retarget(from, to)          point every unmasked input aimed at APIC
 *                                      id from at to instead (CPU hotplug);
 *                                      returns how many moved
 */
#ifndef ARCH_IOAPIC_H
#define ARCH_IOAPIC_H

#include "drivers/acpi.h"
#include "lib/types.h"

#define NR_ISA_IRQS	  16
#define PIC_SPURIOUS_BASE 0x30

void pic_disable(void);
void ioapic_init(const struct acpi_madt_info *madt);
int ioapic_route_isa_irq(unsigned int irq, u32 apic_id);
void ioapic_mask_isa_irq(unsigned int irq);
u32 ioapic_isa_irq_gsi(unsigned int irq);
int ioapic_read_route(unsigned int irq, u64 *entry);
unsigned int ioapic_retarget(u32 from_apic, u32 to_apic);

#endif
