/* arch/x86_64/trampoline.h - the AP start-up trampoline's memory layout.
 *
 * Shared by arch/x86_64/trampoline.S (which reads it) and smpboot.c (which
 * fills it): keep the two in step. An AP leaves INIT in real mode at
 * TRAMPOLINE_PHYS (the STARTUP IPI's vector is the page number), so all of
 * this lives below 1 MiB, in memory the page allocator never hands out.
 *
 *   0x8000  code (16-, 32- and 64-bit) and a GDT, copied from the kernel
 *           image; struct trampoline_params at TRAMPOLINE_PARAMS
 *   0x9000  PML4: [0] -> identity map of the first 2 MiB (the trampoline
 *           runs there after paging is on), [256..511] = the kernel's
 *   0xA000  PDPT for the identity map
 *   0xB000  PD for the identity map (one 2 MiB page)
 */
#ifndef ARCH_TRAMPOLINE_H
#define ARCH_TRAMPOLINE_H

#define TRAMPOLINE_PHYS	  0x8000
#define TRAMPOLINE_PML4	  0x9000
#define TRAMPOLINE_PDPT	  0xA000
#define TRAMPOLINE_PD	  0xB000
#define TRAMPOLINE_END	  0xC000
#define TRAMPOLINE_PARAMS 0x0F00 /* offset of the parameters in the page */

/* Offsets into struct trampoline_params, for the assembly. */
#define TP_EFER	      0	 /* u32: EFER bits to set (LME, and NXE if the CPU has NX) */
#define TP_KERNEL_CR3 8	 /* u64: the kernel's page tables, loaded in the higher half */
#define TP_STACK      16 /* u64: top of the AP's kernel stack */
#define TP_PERCPU     24 /* u64: the AP's struct percpu */
#define TP_ENTRY      32 /* u64: ap_entry64, in the higher half */

#ifndef __ASSEMBLY__
#include "lib/types.h"

struct trampoline_params {
	u32 efer;
	u32 pad;
	u64 kernel_cr3;
	u64 stack_top;
	u64 percpu;
	u64 entry;
};
_Static_assert(__builtin_offsetof(struct trampoline_params, kernel_cr3) == TP_KERNEL_CR3, "");
_Static_assert(__builtin_offsetof(struct trampoline_params, stack_top) == TP_STACK, "");
_Static_assert(__builtin_offsetof(struct trampoline_params, percpu) == TP_PERCPU, "");
_Static_assert(__builtin_offsetof(struct trampoline_params, entry) == TP_ENTRY, "");

extern const char trampoline_start[], trampoline_end[];
#endif

#endif
