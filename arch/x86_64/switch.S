/*
 * arch/x86_64/switch.S - switching kernel stacks.
 *
 * void __switch_to(u64 *prev_rsp, u64 next_rsp)
 *
 * Saves the callee-saved registers on the current stack, stores the stack
 * pointer in *prev_rsp (struct thread's first field, ctx_rsp), loads
 * next_rsp and pops the next thread's registers. The saved frame, from
 * the saved rsp upwards (kernel/sched.c's sched_thread_stack_init() builds the
 * same frame for a thread that never ran; keep the two in step):
 *
 *   rsp + 0   r15
 *   rsp + 8   r14
 *   rsp + 16  r13
 *   rsp + 24  r12
 *   rsp + 32  rbx
 *   rsp + 40  rbp
 *   rsp + 48  return address (into __schedule, or thread_start)
 *
 * Everything else (flags, caller-saved registers) is the C caller's
 * business; interrupts are off across the switch.
 */
	.text
	.global __switch_to
__switch_to:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret

/* A new thread's first "return": rsp is 16-byte aligned here, so the call
 * below enters C with the ABI's alignment. Never returns. */
	.global thread_start
thread_start:
	xorl	%ebp, %ebp		/* the backtrace ends here */
	call	sched_thread_start
	ud2

	.section .note.GNU-stack, "", @progbits
