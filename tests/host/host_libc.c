/* tests/host/host_libc.c - host libc services for the test files.
 *
 * Built WITHOUT lib_prefix.h, so the names here are the real libc ones.
 * Test files cannot include libc headers (see lib_prefix.h) and reach libc
 * only through these wrappers.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ktest_host.h"

int libc_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	return vsnprintf(buf, size, fmt, ap);
}

int libc_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

void libc_qsort(void *base, size_t num, size_t size, int (*cmp)(const void *a, const void *b))
{
	qsort(base, num, size, cmp);
}

void *host_alloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p) {
		fprintf(stderr, "host_alloc(%zu) failed\n", size);
		abort();
	}
	return p;
}

void host_free(void *p)
{
	free(p);
}

/* lib/list.h's checks: the kernel panics; a host test aborts, loudly. */
__attribute__((noreturn)) void list_corruption(const char *op, const void *node, const void *prev,
					       const void *next)
{
	fprintf(stderr, "%s corruption: node %p prev %p next %p\n", op, node, prev, next);
	abort();
}
