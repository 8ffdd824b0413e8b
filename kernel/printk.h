/* kernel/printk.h - the kernel log.
 *
 * printk(KERN_INFO "fmt", ...) formats one message and writes it, whole
 * and prefixed with the CPU that wrote it, to every console, if its level
 * is below console_loglevel (the loglevel= parameter, as in Linux).
 * Messages are also kept in a ring buffer (log_buf) for later reading.
 * Callable from any context, including exception handlers and with
 * interrupts off; a nested printk on the same CPU (from a fault inside
 * printk) bypasses the console lock rather than deadlocking on it.
 *
 * %pS prints a code address as symbol+offset/size.
 */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include "lib/compiler.h"
#include <stdarg.h>

#define KERN_SOH     "\001"
#define KERN_EMERG   KERN_SOH "0"
#define KERN_ALERT   KERN_SOH "1"
#define KERN_CRIT    KERN_SOH "2"
#define KERN_ERR     KERN_SOH "3"
#define KERN_WARNING KERN_SOH "4"
#define KERN_NOTICE  KERN_SOH "5"
#define KERN_INFO    KERN_SOH "6"
#define KERN_DEBUG   KERN_SOH "7"
#define KERN_CONT    KERN_SOH "c" /* continue the previous line, no prefix */
#define KERN_RAW     KERN_SOH "r" /* no prefix, always shown: machine-read output (KTAP) */

#define LOGLEVEL_DEFAULT 7 /* print everything but KERN_DEBUG */

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

#define pr_emerg(fmt, ...)  printk(KERN_EMERG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_crit(fmt, ...)   printk(KERN_CRIT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...)    printk(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)   printk(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...) printk(KERN_NOTICE pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)   printk(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug(fmt, ...)  printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_cont(fmt, ...)   printk(KERN_CONT fmt, ##__VA_ARGS__)

struct console {
	const char *name;
	void (*write)(const char *s, size_t len); /* must not sleep */
	struct console *next;
};

extern unsigned int console_loglevel;

int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);
/* Print a multi-line text (a dump built with scnprintf) one printk per
 * line, so each line gets its own time/CPU prefix and fits in one message.
 * prefix is what a format would start with: KERN_* markers, then text to
 * begin each line, e.g. KERN_INFO pr_fmt(""). A last line without '\n'
 * is printed too. */
void printk_lines(const char *prefix, const char *buf);
void console_register(struct console *con);
/* Panic path: stop honouring the console lock (its holder may be dead). */
void console_force_unlock(void);

/* Copy up to size-1 bytes of the most recent log into buf; returns length. */
size_t log_buf_read(char *buf, size_t size);

#endif
