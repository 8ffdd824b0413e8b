/*
 * arch/x86_64/boot.S - from the Multiboot2 loader to kmain().
 *
 * GRUB enters _start in 32-bit protected mode, paging off, with
 *   eax = 0x36d76289 (the Multiboot2 bootloader magic)
 *   ebx = physical address of the Multiboot2 information structure.
 * We check both the magic and that the CPU has long mode, build boot page
 * tables, enable long mode and jump to kernel_entry64 in the higher half,
 * which zeroes .bss, switches to the boot CPU's stack and calls
 * kmain(mb2_info_phys).
 *
 * Boot page tables (replaced by paging_init() as soon as C runs):
 *   PML4[0]   -> identity map of 0..4 GiB   (2 MiB pages; this file's code)
 *   PML4[256] -> same, at PHYS_OFFSET        (the direct map, see paging.h)
 *   PML4[511] -> PDPT[510..511] -> 0..2 GiB at KERNEL_VMA (the kernel image)
 *
 * Anything that cannot go on is reported on COM1 (and the VGA text screen)
 * and the CPU halts: there is no one to return to.
 */
#include "arch/x86_64/boot_defs.h"

#define MB2_HEADER_MAGIC	0xE85250D6
#define MB2_BOOTLOADER_MAGIC	0x36d76289
#define MB2_ARCH_I386		0
#define MB2_HEADER_TAG_FRAMEBUFFER 5
#define MB2_HEADER_TAG_OPTIONAL	1
#define MB1_BOOTLOADER_MAGIC	0x2BADB002

#define COM1			0x3F8

	.section .multiboot2, "a"
	.balign 8
mb2_header:
	.long MB2_HEADER_MAGIC
	.long MB2_ARCH_I386
	.long mb2_header_end - mb2_header
	.long -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	/*
	 * Framebuffer tag, optional, no preferred mode (0x0x0): baton copes
	 * with any display, since it draws on none (its console is COM1). Without
	 * it GRUB's EFI build, which has no VGA text mode to offer, says
	 * "WARNING: no console will be available to OS". scripts/grub.cfg then
	 * sets gfxpayload=text, so GRUB changes no video mode: under BIOS the
	 * screen stays in VGA text mode (the messages below still show), under
	 * UEFI it stays as the firmware left it and no framebuffer tag comes.
	 */
	.balign 8
	.short MB2_HEADER_TAG_FRAMEBUFFER
	.short MB2_HEADER_TAG_OPTIONAL
	.long 20
	.long 0				/* width: any */
	.long 0				/* height: any */
	.long 0				/* depth: any */
	/* end tag */
	.balign 8
	.short 0
	.short 0
	.long 8
mb2_header_end:

/*
 * A Multiboot (version 1) header too, only so that `qemu -kernel baton.elf`
 * (QEMU's loader speaks version 1) runs _start and gets a clear message
 * instead of a refusal or a silent hang. Flag bit 16 ("a.out kludge") makes
 * the loader use the addresses below: it loads just the .boot section.
 * GRUB's multiboot2 command ignores this header.
 */
#define MB1_HEADER_MAGIC	0x1BADB002
#define MB1_FLAGS		0x00010000
	.balign 4
mb1_header:
	.long MB1_HEADER_MAGIC
	.long MB1_FLAGS
	.long -(MB1_HEADER_MAGIC + MB1_FLAGS)
	.long mb1_header		/* header_addr */
	.long __kernel_phys_start	/* load_addr */
	.long __boot_end		/* load_end_addr */
	.long 0				/* bss_end_addr: nothing to clear */
	.long _start			/* entry_addr */

	.section .boot.data, "aw"
	.balign 8
	.global mb2_info_phys
mb2_info_phys:
	.quad 0
	.global boot_cpu_has_nx
boot_cpu_has_nx:
	.long 0

	.balign 8
boot_gdt:
	.quad 0
	.quad 0x00AF9A000000FFFF	/* 0x08: 64-bit kernel code */
	.quad 0x00CF92000000FFFF	/* 0x10: kernel data */
boot_gdt_end:
boot_gdt_desc:
	.short boot_gdt_end - boot_gdt - 1
	.long boot_gdt

msg_not_mb2:
	.asciz "baton: not started by a Multiboot2 loader (eax is not 0x36d76289); boot baton.iso with GRUB. Halting.\r\n"
msg_mb1:
	.asciz "baton: started by a Multiboot (version 1) loader such as QEMU -kernel; baton needs Multiboot2: boot baton.iso with GRUB. Halting.\r\n"
msg_no_lm:
	.asciz "baton: this CPU has no 64-bit long mode; baton needs an x86-64 CPU. Halting.\r\n"

	.section .boot.bss, "aw", @nobits
	.balign 4096
boot_pml4:	.skip 4096
boot_pdpt_lo:	.skip 4096
boot_pdpt_hi:	.skip 4096
boot_pd:	.skip 4 * 4096		/* 4 GiB of 2 MiB pages */
boot32_stack:	.skip 1024
boot32_stack_top:

	.section .boot.text, "ax"
	.code32
	.global _start
_start:
	cli
	cld
	movl	$boot32_stack_top, %esp
	cmpl	$MB2_BOOTLOADER_MAGIC, %eax
	je	1f
	movl	$msg_not_mb2, %esi
	cmpl	$MB1_BOOTLOADER_MAGIC, %eax
	jne	boot_fail
	movl	$msg_mb1, %esi
	jmp	boot_fail
1:	movl	%ebx, mb2_info_phys

	/* CPUID present? (EFLAGS.ID toggles) */
	pushfl
	popl	%eax
	movl	%eax, %ecx
	xorl	$(1 << 21), %eax
	pushl	%eax
	popfl
	pushfl
	popl	%eax
	pushl	%ecx
	popfl
	xorl	%ecx, %eax
	movl	$msg_no_lm, %esi
	jz	boot_fail

	/* Long mode: CPUID 0x80000001 EDX bit 29. NX: EDX bit 20. */
	movl	$0x80000000, %eax
	cpuid
	cmpl	$0x80000001, %eax
	jb	boot_fail
	movl	$0x80000001, %eax
	cpuid
	testl	$(1 << 29), %edx
	jz	boot_fail
	shrl	$20, %edx
	andl	$1, %edx
	movl	%edx, boot_cpu_has_nx

	/* boot_pd: 2048 2 MiB pages covering 0..4 GiB, present+writable+PS. */
	movl	$boot_pd, %edi
	movl	$0x83, %eax
	xorl	%ecx, %ecx
2:	movl	%eax, (%edi, %ecx, 8)
	movl	$0, 4(%edi, %ecx, 8)
	addl	$0x200000, %eax
	incl	%ecx
	cmpl	$2048, %ecx
	jb	2b

	/* boot_pdpt_lo[0..3] -> the four page directories */
	movl	$boot_pd + 0x3, %eax
	movl	$boot_pdpt_lo, %edi
	xorl	%ecx, %ecx
3:	movl	%eax, (%edi, %ecx, 8)
	addl	$4096, %eax
	incl	%ecx
	cmpl	$4, %ecx
	jb	3b

	/* KERNEL_VMA = -2 GiB is PDPT index 510 of PML4 slot 511. */
	movl	$boot_pd + 0x3, boot_pdpt_hi + 510 * 8
	movl	$boot_pd + 4096 + 0x3, boot_pdpt_hi + 511 * 8

	movl	$boot_pdpt_lo + 0x3, boot_pml4
	movl	$boot_pdpt_lo + 0x3, boot_pml4 + 256 * 8
	movl	$boot_pdpt_hi + 0x3, boot_pml4 + 511 * 8

	movl	$boot_pml4, %eax
	movl	%eax, %cr3

	movl	%cr4, %eax
	orl	$(1 << 5), %eax			/* CR4.PAE */
	movl	%eax, %cr4

	movl	$0xC0000080, %ecx		/* IA32_EFER */
	rdmsr
	orl	$(1 << 8), %eax			/* LME */
	cmpl	$0, boot_cpu_has_nx
	je	4f
	orl	$(1 << 11), %eax		/* NXE */
4:	wrmsr

	movl	%cr0, %eax
	orl	$((1 << 31) | (1 << 16)), %eax	/* PG, WP */
	movl	%eax, %cr0

	lgdt	boot_gdt_desc
	ljmp	$0x08, $boot_long_mode

/* Print the string at %esi on COM1 and on the VGA text screen, then halt. */
boot_fail:
	movw	$COM1 + 1, %dx		/* IER: no interrupts */
	movb	$0x00, %al
	outb	%al, %dx
	movw	$COM1 + 3, %dx		/* LCR: DLAB */
	movb	$0x80, %al
	outb	%al, %dx
	movw	$COM1 + 0, %dx		/* divisor 1: 115200 baud */
	movb	$0x01, %al
	outb	%al, %dx
	movw	$COM1 + 1, %dx
	movb	$0x00, %al
	outb	%al, %dx
	movw	$COM1 + 3, %dx		/* 8N1 */
	movb	$0x03, %al
	outb	%al, %dx
	movl	$0xB8000, %edi
5:	movb	(%esi), %bl
	testb	%bl, %bl
	jz	7f
	movw	$COM1 + 5, %dx		/* LSR: wait for THR empty */
6:	inb	%dx, %al
	testb	$0x20, %al
	jz	6b
	movw	$COM1, %dx
	movb	%bl, %al
	outb	%al, %dx
	cmpb	$0x20, %bl
	jb	8f
	movb	%bl, (%edi)
	movb	$0x4F, 1(%edi)		/* white on red */
	addl	$2, %edi
8:	incl	%esi
	jmp	5b
7:	cli
	hlt
	jmp	7b

	.code64
boot_long_mode:
	movw	$0x10, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	xorw	%ax, %ax
	movw	%ax, %fs
	movw	%ax, %gs
	movabsq	$kernel_entry64, %rax
	jmp	*%rax

	.section .text.entry, "ax"
	.global kernel_entry64
kernel_entry64:
	/* .bss is NOLOAD: zero it before any C runs. */
	movabsq	$__bss_start, %rdi
	movabsq	$__bss_end, %rcx
	subq	%rdi, %rcx
	shrq	$3, %rcx
	xorl	%eax, %eax
	rep stosq

	movabsq	$boot_stack_top, %rsp
	xorl	%ebp, %ebp		/* ends the frame-pointer backtrace */
	movl	mb2_info_phys, %edi
	call	kmain
9:	cli
	hlt
	jmp	9b

	/* The boot CPU's kernel stack; paging_init() leaves the guard unmapped. */
	.section .bss..boot_stack, "aw", @nobits
	.balign 4096
	.global boot_stack_guard, boot_stack, boot_stack_top
boot_stack_guard:
	.skip PAGE_SIZE
boot_stack:
	.skip KSTACK_SIZE
boot_stack_top:
