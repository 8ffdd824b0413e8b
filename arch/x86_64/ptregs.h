/* arch/x86_64/ptregs.h - the register frame every interrupt and exception
 * builds on the stack.
 *
 * Layout shared with arch/x86_64/isr.S (the push order there, lowest
 * address first here): do not reorder one without the other. The CPU
 * pushes ss..rip; the vector stub pushes error_code (a 0 where the CPU does
 * not push one) and vector; isr_common pushes rax..r15. */
#ifndef ARCH_PTREGS_H
#define ARCH_PTREGS_H

#include "lib/types.h"

struct pt_regs {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 vector;
	u64 error_code;
	u64 rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

#define PT_REGS_SIZE (22 * 8)
_Static_assert(sizeof(struct pt_regs) == PT_REGS_SIZE, "isr.S frame layout");

#endif
