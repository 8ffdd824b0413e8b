/* lib/printf.h - formatted output into buffers or through a callback.
 *
 * Conversions: %d %i %u %x %X %o %c %s %p %%, flags "-0+ #", width and
 * precision (both may be '*'), length modifiers hh h l ll z t j. No floating
 * point (the kernel is built without SSE/x87).
 *
 * Differences from the C library, on purpose:
 *   %s of NULL prints "(null)" (precision still applies).
 *   %p always prints "0x" and 16 hex digits, e.g. 0xffffffff80001234;
 *      only width and '-' are honoured.
 *   An unknown conversion (including %n) is printed literally, e.g. "%q" or
 *      "%-5q", and consumes no argument.
 *
 * vsnprintf()/snprintf():  C semantics; return the length the full output
 *                          would have, write at most size - 1 chars + NUL.
 * vscnprintf()/scnprintf(): return the chars actually stored (excluding the
 *                          NUL), so "pos += scnprintf(buf + pos, size - pos,
 *                          ...)" can never run past the buffer.
 * vcbprintf():             the core: calls emit(c, arg) once per output char
 *                          and returns the number of chars emitted. Useful
 *                          for unbuffered consoles.
 */
#ifndef LIB_PRINTF_H
#define LIB_PRINTF_H

#include <stdarg.h>

#include "compiler.h"
#include "types.h"

typedef void (*printf_emit_fn)(char c, void *arg);

/* %pS prints a code address through this resolver when it is set (the
 * kernel sets it to its symbol-table lookup; lib/ knows no symbols). It
 * writes at most size-1 characters and a NUL, and returns the length.
 * Without a resolver %pS prints like %p followed by 'S'. */
extern int (*printf_symbol_resolver)(char *buf, size_t size, uintptr_t addr);

int vcbprintf(printf_emit_fn emit, void *arg, const char *fmt, va_list ap) __printf(3, 0);
int cbprintf(printf_emit_fn emit, void *arg, const char *fmt, ...) __printf(3, 4);

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) __printf(3, 0);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap) __printf(3, 0);
int scnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

#endif
