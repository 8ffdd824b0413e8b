/*
 * void halt_unless(const volatile u32 *word, u32 val, bool irqs_on)
 *
 * Halt this CPU unless *word == val; return on any wake-up (an interrupt
 * when irqs_on, an NMI always). Called with interrupts off. With irqs_on,
 * interrupts are enabled for the halt (sti's one-instruction shadow lets
 * none in before the hlt starts) and stay enabled on return: the caller
 * turns them off again.
 *
 * The wake-up nobody may lose: another CPU stores val and then sends this
 * one an NMI (kernel/spinlock.c's kick). If the NMI lands between the
 * compare and the hlt, the hlt would wait for a wake-up already spent; so
 * the NMI handler calls halt_unless_nmi_fixup(), which moves a return
 * address anywhere in [halt_unless_window, halt_unless_resume) to
 * halt_unless_resume: the CPU leaves without halting and the caller looks
 * at *word again.
 */
	.text
	.global halt_unless, halt_unless_window, halt_unless_resume
halt_unless:
halt_unless_window:
	cmpl	%esi, (%rdi)
	je	halt_unless_resume
	testb	%dl, %dl
	jz	1f
	sti
1:	hlt
halt_unless_resume:
	ret

	.section .note.GNU-stack, "", @progbits
