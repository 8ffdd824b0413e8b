/* arch/x86_64/traps.h - exception and interrupt dispatch.
 *
 * x86_interrupt() is called by isr.S for every vector. Vectors 0-31 are CPU
 * exceptions: in a kernel-only system every one of them but the NMI is a
 * kernel bug, reported with the vector's name, error code (decoded for
 * #PF), CR2, registers and a backtrace, and then the kernel panics. A page
 * fault in a kernel stack's guard page, and the double fault it turns
 * into, are reported as a stack overflow, naming the stack. The NMI
 * (vector 2) is no bug: it halts a CPU that panic() stops, or prints what
 * the CPU runs (smp_show_backtraces(), or an NMI from outside).
 * Vectors 32-255 go to handlers registered with irq_register_vector().
 */
#ifndef ARCH_TRAPS_H
#define ARCH_TRAPS_H

#include "arch/x86_64/ptregs.h"

#define NR_EXCEPTIONS	      32
#define FIRST_EXTERNAL_VECTOR 32

typedef void (*vector_handler_t)(struct pt_regs *regs);

void x86_interrupt(struct pt_regs *regs);
/* Route vector (>= 32) to handler; returns 0, -EINVAL outside 32..255, or -EBUSY if taken. */
int irq_register_vector(unsigned int vector, vector_handler_t handler);
/* The same for a level-triggered source: the EOI follows the handler, which
 * must quieten the source (the ACPI SCI). Handlers do not switch threads. */
int irq_register_level_vector(unsigned int vector, vector_handler_t handler);
void show_regs(const struct pt_regs *regs);

#endif
