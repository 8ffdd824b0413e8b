/* arch/x86_64/boot_defs.h - constants shared by assembly and C.
 * Included from boot.S and C: plain #defines only. */
#ifndef ARCH_BOOT_DEFS_H
#define ARCH_BOOT_DEFS_H

#define PAGE_SHIFT  12
#define PAGE_SIZE   4096
#define KERNEL_VMA  0xFFFFFFFF80000000
#define PHYS_OFFSET 0xFFFF800000000000 /* direct map of all RAM */

/* Every kernel stack is KSTACK_SIZE bytes with an unmapped guard below. */
#define KSTACK_SIZE 16384

#endif
