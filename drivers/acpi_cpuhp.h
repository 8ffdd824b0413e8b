/* drivers/acpi_cpuhp.h - the hypervisor's CPU hot-plug and hot-unplug.
 *
 * QEMU's x86 machines have a CPU-hotplug register block (QEMU's
 * docs/specs/acpi_cpu_hotplug.rst): I/O port 0x0cd8 on q35 (ICH9), 0xaf00
 * on pc (PIIX4). A guest with an AML interpreter drives it from the DSDT's
 * methods; baton has none and drives it directly, as those methods would:
 *
 *   - at boot, writes 0 to the block's first dword, which switches it from
 *     the legacy interface (a bitmap of present CPUs) to the modern one,
 *     and only then does QEMU accept `device_del` of a vCPU; lists the
 *     slots (possible vCPUs) and their APIC ids and says where they and
 *     the MADT disagree; enables GPE0 bit 2 (CPU hotplug) and takes the
 *     SCI (a level-triggered ISA interrupt, IRQ 9 on QEMU), whose handler
 *     queues a work item. Without a usable SCI a delayed work item polls.
 *   - the work item (on an ordered workqueue of its own) asks the block
 *     for the next slot with an event, as often as there is one:
 *       insert  (QMP device_add): the APIC id names the kernel's CPU (the
 *               MADT slot with that id); cpu_hot_add() marks it present and
 *               brings it up through cpu_up(), then _OST(1, 0) tells the
 *               host it is in use (QEMU sends ACPI_DEVICE_OST), or _OST(1,
 *               1) that it could not be;
 *       remove  (QMP device_del): cpu_hot_remove() takes it down (the
 *               trustee takes its work: it leaves at once) and marks it not
 *               present; then the eject bit makes QEMU delete the vCPU and
 *               send DEVICE_DELETED. A refusal is reported with _OST(3, s)
 *               and the CPU keeps running: s = 0x80 (ejection not
 *               supported: the boot CPU), 0x81 (in use: the last online
 *               CPU), 0x01 (any other failure of cpu_down).
 *   - every event is logged ("acpi-cpuhp: ...") and counted.
 *
 * The host is not trusted (docs/vcpu-hotplug.md, "A hostile host"): an
 * event whose selector is past the last slot, or whose slot now reports an
 * APIC id other than the one it had at boot, is refused (cleared, _OST
 * failure, nothing done to any CPU) and reported once; a pass cut short by
 * its cap (a slot that reports an event again and again) goes on by itself
 * 100 ms later; an SCI with events that are not ours has them cleared and
 * disabled, and an SCI that keeps coming with nothing to clear is masked
 * (events are then polled), so that no host can storm a CPU.
 *
 * Command line: acpi_cpuhp=sci (default) | poll (skip the SCI: poll every
 * 100 ms) | off (leave the block alone: QEMU then refuses device_del).
 *
 *   acpi_cpuhp_init()             after workqueue_init(); cpu0, may sleep
 *   acpi_cpuhp_get_stats(st)      the figures; st->active false if no
 *                                 interface is driven
 *
 * For tests, the same driver on a register block the test scripts (QEMU
 * produces none of the hostile cases): acpi_cpuhp_block_create() reads
 * the slots through ops as the real block's are read at boot;
 * acpi_cpuhp_block_kick() is what its SCI would do (queue a scan on the
 * driver's ordered workqueue), acpi_cpuhp_block_busy() whether that scan
 * is still queued or running; acpi_cpuhp_block_sci() is its SCI handler
 * (call with interrupts off); acpi_cpuhp_block_destroy() waits for its
 * scans and frees it. Its events act on the real CPUs.
 */
#ifndef DRIVERS_ACPI_CPUHP_H
#define DRIVERS_ACPI_CPUHP_H

#include "lib/types.h"

struct acpi_cpuhp_stats {
	bool active;		 /* the modern interface is driven */
	bool sci;		 /* events come by the SCI (else by polling) */
	bool sci_masked;	 /* the SCI stormed and was masked: polling since */
	u16 base;		 /* I/O port of the register block */
	unsigned int sci_irq;	 /* with sci */
	unsigned int nr_slots;	 /* possible vCPUs */
	unsigned int nr_present; /* slots with a vCPU, as the block says now */
	u64 sci_interrupts;	 /* SCIs with a CPU-hotplug event */
	u64 inserted, removed;	 /* brought online / offline and ejected */
	u64 refused;		 /* removals refused (_OST non-zero) */
	u64 failed;		 /* inserts that could not be brought online */
	u64 hostile;		 /* events refused: bad selector, APIC id not the slot's */
	u64 resumed;		 /* passes cut short by the cap and resumed */
	u64 foreign_events;	 /* SCI sources not ours, cleared and disabled */
	u64 spurious_sci;	 /* SCIs with nothing to clear at all */
};

void acpi_cpuhp_init(void);
void acpi_cpuhp_get_stats(struct acpi_cpuhp_stats *st);

/* Port access for a block: the real ports, or a test's script. */
struct acpi_cpuhp_ops {
	u8 (*in8)(void *ctx, u16 port);
	u16 (*in16)(void *ctx, u16 port);
	u32 (*in32)(void *ctx, u16 port);
	void (*out8)(void *ctx, u16 port, u8 v);
	void (*out16)(void *ctx, u16 port, u16 v);
	void (*out32)(void *ctx, u16 port, u32 v);
	void (*mask_sci)(void *ctx); /* the SCI stormed: mask it */
};
/* Where a block's registers are: the hotplug block, GPE0 (status, then
 * enable; 0: none) and PM1a events (the same; 0: none). */
struct acpi_cpuhp_ports {
	u16 base, gpe0, pm1a;
	u8 gpe0_len, pm1_len;
};
struct acpi_cpuhp_block;
struct acpi_cpuhp_block *acpi_cpuhp_block_create(const struct acpi_cpuhp_ops *ops, void *ctx,
						 const struct acpi_cpuhp_ports *ports);
void acpi_cpuhp_block_kick(struct acpi_cpuhp_block *b);
bool acpi_cpuhp_block_busy(struct acpi_cpuhp_block *b); /* a kicked scan queued or running */
bool acpi_cpuhp_block_sci(struct acpi_cpuhp_block *b);
void acpi_cpuhp_block_stats(struct acpi_cpuhp_block *b, struct acpi_cpuhp_stats *st);
void acpi_cpuhp_block_destroy(struct acpi_cpuhp_block *b);

#endif
