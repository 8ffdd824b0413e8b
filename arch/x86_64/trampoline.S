/*
 * arch/x86_64/trampoline.S - where an application processor starts.
 *
 * smpboot.c copies trampoline_start..trampoline_end to TRAMPOLINE_PHYS,
 * fills struct trampoline_params (layout: trampoline.h, keep in step) and
 * sends INIT-SIPI-SIPI with vector TRAMPOLINE_PHYS >> 12. The AP wakes in
 * real mode with CS:IP = 0x0800:0000, and walks 16 -> 32 -> 64 bit:
 *
 *   real mode: load our GDT, set CR0.PE, far jump to 32-bit code
 *   32-bit:    CR4.PAE, CR3 = TRAMPOLINE_PML4, EFER from params, CR0.PG,
 *              far jump to 64-bit code (still at low, identity-mapped addresses)
 *   64-bit:    rsp, rdi, rsi from params; jump to ap_entry64 in the higher
 *              half, which loads the kernel's CR3 and calls ap_start(percpu)
 *
 * Everything here must be position-independent within the page except for
 * the absolute TRAMPOLINE_PHYS-based addresses computed below.
 */
#include "arch/x86_64/trampoline.h"

#define TR(sym) (TRAMPOLINE_PHYS + ((sym) - trampoline_start))

	.section .rodata.trampoline, "a"
	.balign 16
	.global trampoline_start, trampoline_end
	.code16
trampoline_start:
	cli
	cld
	movw	%cs, %ax
	movw	%ax, %ds
	lgdtl	tr_gdt_desc - trampoline_start
	movl	%cr0, %eax
	orl	$1, %eax			/* PE */
	movl	%eax, %cr0
	ljmpl	$0x08, $TR(tr_protected)

	.code32
tr_protected:
	movw	$0x10, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movl	%cr4, %eax
	orl	$(1 << 5), %eax			/* PAE */
	movl	%eax, %cr4
	movl	$TRAMPOLINE_PML4, %eax
	movl	%eax, %cr3
	movl	$0xC0000080, %ecx		/* EFER */
	rdmsr
	orl	TRAMPOLINE_PHYS + TRAMPOLINE_PARAMS + TP_EFER, %eax
	wrmsr
	movl	%cr0, %eax
	orl	$((1 << 31) | (1 << 16)), %eax	/* PG, WP */
	movl	%eax, %cr0
	ljmpl	$0x18, $TR(tr_long)

	.code64
tr_long:
	movw	$0x10, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movq	TRAMPOLINE_PHYS + TRAMPOLINE_PARAMS + TP_STACK, %rsp
	movq	TRAMPOLINE_PHYS + TRAMPOLINE_PARAMS + TP_PERCPU, %rdi
	movq	TRAMPOLINE_PHYS + TRAMPOLINE_PARAMS + TP_KERNEL_CR3, %rsi
	movq	TRAMPOLINE_PHYS + TRAMPOLINE_PARAMS + TP_ENTRY, %rax
	jmp	*%rax

	.balign 8
tr_gdt:
	.quad 0
	.quad 0x00CF9A000000FFFF	/* 0x08: 32-bit code */
	.quad 0x00CF92000000FFFF	/* 0x10: data */
	.quad 0x00AF9A000000FFFF	/* 0x18: 64-bit code */
tr_gdt_end:
tr_gdt_desc:
	.short tr_gdt_end - tr_gdt - 1
	.long TR(tr_gdt)
trampoline_end:

/* In the higher half, on the kernel's side of the jump. */
	.text
	.global ap_entry64
ap_entry64:
	movq	%rsi, %cr3		/* the kernel's tables; the low map goes away */
	xorl	%ebp, %ebp		/* end of the backtrace */
	call	ap_start		/* ap_start(percpu): never returns */
1:	cli
	hlt
	jmp	1b

	.section .note.GNU-stack, "", @progbits
