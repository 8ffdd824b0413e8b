/* kernel/printk.c - the kernel log; see printk.h.
 *
 * One message is formatted into a per-call buffer on the stack, appended to
 * the log ring and written to the consoles under console_lock, so lines from
 * different CPUs never interleave. Each line starts with the time since the
 * clock started (0 before) and the CPU: "[    1.234567][cpu2] ". */
#include "kernel/printk.h"
#include "arch/x86_64/cpu.h"
#include "kernel/cpu_local.h"
#include "kernel/params.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "lib/printf.h"
#include "lib/string.h"

#define PRINTK_LINE_MAX 512
#define LOG_BUF_SIZE	(64 * 1024)

unsigned int console_loglevel = LOGLEVEL_DEFAULT;
PARAM_UINT(loglevel, console_loglevel, 0, 8,
	   "print messages with a level below this (0..8; 8 prints debug)");

static DEFINE_SPINLOCK_NOVALIDATE(console_lock);
static struct console *consoles;   /* console_lock */
static bool console_lock_broken;   /* set once by panic; never cleared */
static char log_buf[LOG_BUF_SIZE]; /* console_lock */
static size_t log_head;		   /* console_lock: total bytes ever logged */
static bool line_open;		   /* console_lock: last message lacked '\n' */
static unsigned int last_level;	   /* console_lock: level of the last message */

void console_register(struct console *con)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);

	con->next = consoles;
	consoles = con;
	spin_unlock_irqrestore(&console_lock, flags);
}

void console_force_unlock(void)
{
	WRITE_ONCE(console_lock_broken, true);
}

/* Called with console_lock held (or broken), not asserted: a warning
 * would print, here, through this lock. Every message is logged;
 * only those below console_loglevel reach the consoles. */
static void emit(const char *s, size_t len, bool to_console)
{
	for (size_t i = 0; i < len; i++)
		log_buf[(log_head + i) % LOG_BUF_SIZE] = s[i];
	log_head += len;
	if (!to_console)
		return;
	for (struct console *c = consoles; c; c = c->next)
		c->write(s, len);
}

/* What the KERN_* markers at the start of a format asked for. */
struct msg_kind {
	unsigned int level;
	bool cont, raw;
};

#define MSG_KIND_DEFAULT                                                                           \
	{                                                                                          \
		.level = LOGLEVEL_DEFAULT - 1                                                      \
	} /* KERN_INFO-ish */

/* Apply the KERN_* markers at the start of s to *kind; returns s past them. */
static const char *parse_markers(const char *s, struct msg_kind *kind)
{
	while (s[0] == KERN_SOH[0] && s[1]) {
		if (s[1] == 'c')
			kind->cont = true;
		else if (s[1] == 'r')
			kind->raw = true;
		else if (s[1] >= '0' && s[1] <= '7')
			kind->level = (unsigned int)(s[1] - '0');
		s += 2;
	}
	return s;
}

/* fmt is past its markers: they are in kind. */
static int vprintk_kind(struct msg_kind kind, const char *fmt, va_list ap)
{
	char line[PRINTK_LINE_MAX];
	unsigned int level = kind.level;
	bool cont = kind.cont, raw = kind.raw;
	size_t len = 0;

	if (!cont && !raw) {
		u64 ns = ktime_get_ns();

		len = (size_t)scnprintf(line, sizeof(line), "[%5lu.%06lu][cpu%u] ",
					(unsigned long)(ns / NSEC_PER_SEC),
					(unsigned long)(ns % NSEC_PER_SEC / 1000),
					smp_processor_id());
	}
	len += (size_t)vscnprintf(line + len, sizeof(line) - len, fmt, ap);
	if (len == sizeof(line) - 1 && line[len - 1] != '\n')
		line[len - 1] = '\n'; /* truncated: still end the line */

	unsigned long flags = local_irq_save();
	bool locked = false;
	struct percpu *pc = this_cpu_ptr();

	/* A fault inside printk on this CPU must still get its report out. */
	if (pc->printk.nesting == 0 && !READ_ONCE(console_lock_broken)) {
		spin_lock(&console_lock);
		locked = true;
	}
	pc->printk.nesting++;
	if (cont)
		level = last_level;
	if (raw)
		level = 0;
	if (!cont && line_open)
		emit("\n", 1, last_level < console_loglevel);
	emit(line, len, level < console_loglevel);
	line_open = len && line[len - 1] != '\n';
	last_level = level;
	pc->printk.nesting--;
	if (locked)
		spin_unlock(&console_lock);
	local_irq_restore(flags);
	return (int)len;
}

int vprintk(const char *fmt, va_list ap)
{
	struct msg_kind kind = MSG_KIND_DEFAULT;

	fmt = parse_markers(fmt, &kind);
	return vprintk_kind(kind, fmt, ap);
}

static __printf(2, 3) int printk_kind(struct msg_kind kind, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vprintk_kind(kind, fmt, ap);
	va_end(ap);
	return r;
}

void printk_lines(const char *prefix, const char *buf)
{
	struct msg_kind kind = MSG_KIND_DEFAULT;
	const char *text = parse_markers(prefix, &kind);

	for (const char *p = buf; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		printk_kind(kind, "%s%.*s\n", text, (int)len, p);
		if (!nl)
			break;
		p = nl + 1;
	}
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vprintk(fmt, ap);
	va_end(ap);
	return r;
}

size_t log_buf_read(char *buf, size_t size)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);
	size_t avail = min(log_head, (size_t)LOG_BUF_SIZE);
	size_t n = min(avail, size ? size - 1 : 0);
	size_t start = log_head - n;

	for (size_t i = 0; i < n; i++)
		buf[i] = log_buf[(start + i) % LOG_BUF_SIZE];
	if (size)
		buf[n] = '\0';
	spin_unlock_irqrestore(&console_lock, flags);
	return n;
}
