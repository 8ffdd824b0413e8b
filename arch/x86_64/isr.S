/*
 * arch/x86_64/isr.S - entry stubs for all 256 interrupt vectors.
 *
 * Each stub makes the stack look the same whatever the vector: it pushes a
 * zero error code where the CPU does not push one, then the vector number,
 * and jumps to isr_common, which saves the general registers and calls
 * x86_interrupt(struct pt_regs *). The frame layout is struct pt_regs in
 * arch/x86_64/ptregs.h: keep the two in step.
 *
 * Vector v's stub is at isr_stub_base + v * ISR_STUB_SIZE (idt_init()
 * computes it): every stub is padded to that size, so no address table
 * is needed.
 */
	.text
	.balign 16
	.global isr_stub_base
isr_stub_base:
vector = 0
	.rept 256
	.balign 16
	/* Vectors where the CPU pushes an error code: 8, 10-14, 17, 21, 29, 30. */
	.if (vector == 8) || (vector >= 10 && vector <= 14) || (vector == 17) || (vector == 21) || (vector == 29) || (vector == 30)
	.else
	pushq	$0
	.endif
	pushq	$vector
	jmp	isr_common
vector = vector + 1
	.endr

	.balign 16
isr_common:
	cld
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%rbp
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, %rdi
	/* Link a frame so backtraces walk through the interrupted code. */
	pushq	17 * 8(%rsp)		/* interrupted rip */
	pushq	%rbp
	movq	%rsp, %rbp
	call	x86_interrupt
	addq	$16, %rsp
	.global isr_return
isr_return:
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rbp
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rbx
	popq	%rax
	addq	$16, %rsp		/* vector, error code */
	iretq

	.section .note.GNU-stack, "", @progbits
