/* kernel/ksyms.h - the kernel's own symbol table, for backtraces.
 *
 * The Makefile links the kernel twice: the first image's text symbols
 * (nm) become scripts/mksyms.py's table in section .ksyms, which the
 * second, final image carries. ksym_lookup() finds the function that
 * contains an address. */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include "lib/types.h"

/* The name of the function containing addr, or NULL; *offset and *size
 * (either may be NULL) get the position inside it and its length. */
const char *ksym_lookup(u64 addr, u64 *offset, u64 *size);
/* The address of a function by name, or 0. */
u64 ksym_address(const char *name);

#endif
