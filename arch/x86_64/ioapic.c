/* arch/x86_64/ioapic.c - I/O APIC routing and the 8259s; see ioapic.h.
 * I/O APIC registers: Intel 82093AA data sheet, 3.2; 8259A ICWs: its data sheet. */
#define pr_fmt(fmt) "ioapic: " fmt
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/paging.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "lib/errno.h"

#define IOREGSEL	   0x00
#define IOWIN		   0x10
#define IOAPIC_REG_ID	   0x00
#define IOAPIC_REG_VERSION 0x01
#define IOAPIC_REDIR(n)	   (0x10 + 2 * (n))
#define REDIR_MASKED	   (1ULL << 16)
#define REDIR_LEVEL	   (1ULL << 15)
#define REDIR_ACTIVE_LOW   (1ULL << 13)

#define MPS_POLARITY_MASK 0x3
#define MPS_POLARITY_LOW  0x3
#define MPS_TRIGGER_MASK  0xC
#define MPS_TRIGGER_LEVEL 0xC

#define PIC1_CMD  0x20
#define PIC1_DATA 0x21
#define PIC2_CMD  0xA0
#define PIC2_DATA 0xA1

struct ioapic {
	volatile u32 *mmio;
	u32 gsi_base;
	unsigned int nr_inputs;
};

static DEFINE_SPINLOCK(ioapic_lock);
static struct ioapic ioapics[ACPI_MAX_IOAPICS]; /* I: found at init */
static unsigned int nr_ioapics;			/* I */
static u32 isa_gsi[NR_ISA_IRQS];		/* I: GSI of each ISA IRQ */
static u16 isa_flags[NR_ISA_IRQS];		/* I: MPS INTI flags */

/* Called with ioapic_lock held (or at init). */
static u32 ioapic_read(struct ioapic *io, u32 reg)
{
	io->mmio[IOREGSEL / 4] = reg;
	return io->mmio[IOWIN / 4];
}

static void ioapic_write(struct ioapic *io, u32 reg, u32 v)
{
	io->mmio[IOREGSEL / 4] = reg;
	io->mmio[IOWIN / 4] = v;
}

static struct ioapic *ioapic_for_gsi(u32 gsi, unsigned int *pin)
{
	for (unsigned int i = 0; i < nr_ioapics; i++) {
		struct ioapic *io = &ioapics[i];

		if (gsi >= io->gsi_base && gsi < io->gsi_base + io->nr_inputs) {
			*pin = gsi - io->gsi_base;
			return io;
		}
	}
	return NULL;
}

static void write_redir(struct ioapic *io, unsigned int pin, u64 e)
{
	ioapic_write(io, IOAPIC_REDIR(pin) + 1, (u32)(e >> 32));
	ioapic_write(io, IOAPIC_REDIR(pin), (u32)e);
}

void pic_disable(void)
{
	/* ICW1-4: cascade, vectors 0x30/0x38, 8086 mode; then mask all. A
	 * spurious IRQ 7 or 15 from them lands on a harmless vector. */
	outb(PIC1_CMD, 0x11);
	outb(PIC2_CMD, 0x11);
	outb(PIC1_DATA, PIC_SPURIOUS_BASE);
	outb(PIC2_DATA, PIC_SPURIOUS_BASE + 8);
	outb(PIC1_DATA, 4);
	outb(PIC2_DATA, 2);
	outb(PIC1_DATA, 1);
	outb(PIC2_DATA, 1);
	outb(PIC1_DATA, 0xFF);
	outb(PIC2_DATA, 0xFF);
}

void ioapic_init(const struct acpi_madt_info *madt)
{
	for (unsigned int i = 0; i < madt->nr_ioapics && nr_ioapics < ACPI_MAX_IOAPICS; i++) {
		struct ioapic *io = &ioapics[nr_ioapics];

		io->mmio = ioremap(madt->ioapics[i].phys, PAGE_SIZE);
		if (!io->mmio)
			continue;
		io->gsi_base = madt->ioapics[i].gsi_base;
		io->nr_inputs = ((ioapic_read(io, IOAPIC_REG_VERSION) >> 16) & 0xFF) + 1;
		for (unsigned int pin = 0; pin < io->nr_inputs; pin++)
			write_redir(io, pin, REDIR_MASKED);
		pr_info("I/O APIC %u at %lx: GSI %u-%u\n", madt->ioapics[i].id,
			(unsigned long)madt->ioapics[i].phys, io->gsi_base,
			io->gsi_base + io->nr_inputs - 1);
		nr_ioapics++;
	}
	for (unsigned int irq = 0; irq < NR_ISA_IRQS; irq++)
		isa_gsi[irq] = irq; /* identity unless overridden */
	for (unsigned int i = 0; i < madt->nr_overrides; i++) {
		const struct acpi_madt_override *o = &madt->overrides[i];

		if (o->bus != 0 || o->source_irq >= NR_ISA_IRQS) {
			pr_warn("ignoring an override for bus %u IRQ %u\n", o->bus, o->source_irq);
			continue;
		}
		isa_gsi[o->source_irq] = o->gsi;
		isa_flags[o->source_irq] = o->flags;
	}
	if (!nr_ioapics)
		pr_err("no I/O APIC: legacy interrupts (serial input) will not arrive\n");
}

u32 ioapic_isa_irq_gsi(unsigned int irq)
{
	return irq < NR_ISA_IRQS ? isa_gsi[irq] : ~0u;
}

int ioapic_route_isa_irq(unsigned int irq, u32 apic_id)
{
	unsigned int pin;
	struct ioapic *io;

	if (irq >= NR_ISA_IRQS)
		return -EINVAL;
	io = ioapic_for_gsi(isa_gsi[irq], &pin);
	if (!io)
		return -ENODEV;
	/* ISA defaults: active high, edge; the override may say otherwise. */
	u64 e = ISA_IRQ_VECTOR(irq) | ((u64)apic_id << 56);

	if ((isa_flags[irq] & MPS_POLARITY_MASK) == MPS_POLARITY_LOW)
		e |= REDIR_ACTIVE_LOW;
	if ((isa_flags[irq] & MPS_TRIGGER_MASK) == MPS_TRIGGER_LEVEL)
		e |= REDIR_LEVEL;
	unsigned long flags = spin_lock_irqsave(&ioapic_lock);

	write_redir(io, pin, e);
	spin_unlock_irqrestore(&ioapic_lock, flags);
	return 0;
}

void ioapic_mask_isa_irq(unsigned int irq)
{
	unsigned int pin;
	struct ioapic *io = irq < NR_ISA_IRQS ? ioapic_for_gsi(isa_gsi[irq], &pin) : NULL;

	if (!io)
		return;
	unsigned long flags = spin_lock_irqsave(&ioapic_lock);

	write_redir(io, pin, REDIR_MASKED);
	spin_unlock_irqrestore(&ioapic_lock, flags);
}

int ioapic_read_route(unsigned int irq, u64 *entry)
{
	unsigned int pin;
	struct ioapic *io = irq < NR_ISA_IRQS ? ioapic_for_gsi(isa_gsi[irq], &pin) : NULL;

	if (!io)
		return -ENODEV;
	unsigned long flags = spin_lock_irqsave(&ioapic_lock);

	*entry = ioapic_read(io, IOAPIC_REDIR(pin)) |
		 ((u64)ioapic_read(io, IOAPIC_REDIR(pin) + 1) << 32);
	spin_unlock_irqrestore(&ioapic_lock, flags);
	return 0;
}

unsigned int ioapic_retarget(u32 from_apic, u32 to_apic)
{
	unsigned int moved = 0;
	unsigned long flags = spin_lock_irqsave(&ioapic_lock);

	for (unsigned int i = 0; i < nr_ioapics; i++) {
		struct ioapic *io = &ioapics[i];

		for (unsigned int pin = 0; pin < io->nr_inputs; pin++) {
			u32 hi = ioapic_read(io, IOAPIC_REDIR(pin) + 1);
			u32 lo = ioapic_read(io, IOAPIC_REDIR(pin));

			if ((lo & (u32)REDIR_MASKED) || hi >> 24 != from_apic)
				continue;
			write_redir(io, pin, ((u64)to_apic << 56) | lo);
			moved++;
		}
	}
	spin_unlock_irqrestore(&ioapic_lock, flags);
	return moved;
}
