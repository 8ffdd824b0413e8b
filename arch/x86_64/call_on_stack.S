/*
 * void call_on_stack(void *base, void (*fn)(void *), void *arg)
 *
 * Run fn(arg) with the stack pointer at base + KSTACK_SIZE (the top of a
 * stack from kstack_alloc()), then come back to the caller's stack. Used
 * by tests that need a guarded stack before threads exist.
 */
#include "arch/x86_64/boot_defs.h"

	.text
	.global call_on_stack
call_on_stack:
	pushq	%rbp
	movq	%rsp, %rbp
	leaq	KSTACK_SIZE(%rdi), %rsp
	movq	%rdx, %rdi
	callq	*%rsi
	movq	%rbp, %rsp
	popq	%rbp
	ret

	.section .note.GNU-stack, "", @progbits
