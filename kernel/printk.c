/* kernel/printk.c - the kernel log; see printk.h.
 *
 * One message is formatted into a per-call buffer on the stack, appended to
 * the log ring and written to the consoles under console_lock, so lines from
 * different CPUs never interleave. Each line starts with the time since the
 * clock started (0 before) and the CPU: "[    1.234567][cpu2] ". */
#include "kernel/printk.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/spinlock.h"
#include "kernel/params.h"
#include "kernel/time.h"
#include "lib/printf.h"
#include "lib/string.h"

#define PRINTK_LINE_MAX 512
#define LOG_BUF_SIZE (64 * 1024)

unsigned int console_loglevel = LOGLEVEL_DEFAULT;
PARAM_UINT(loglevel, console_loglevel, 0, 8,
	   "print messages with a level below this (0..8; 8 prints debug)");

static DEFINE_SPINLOCK_QUIET(console_lock);
static struct console *consoles;	/* console_lock */
static bool console_lock_broken;	/* set once by panic; never cleared */
static char log_buf[LOG_BUF_SIZE];	/* console_lock */
static size_t log_head;			/* console_lock: total bytes ever logged */
static bool line_open;			/* console_lock: last message lacked '\n' */
static unsigned int last_level;		/* console_lock: level of the last message */

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

/* Called with console_lock held (or broken). Every message is logged;
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

int vprintk(const char *fmt, va_list ap)
{
	char line[PRINTK_LINE_MAX];
	unsigned int level = LOGLEVEL_DEFAULT - 1;	/* KERN_INFO-ish default */
	bool cont = false, raw = false;
	size_t len = 0;

	while (fmt[0] == KERN_SOH[0] && fmt[1]) {
		if (fmt[1] == 'c')
			cont = true;
		else if (fmt[1] == 'r')
			raw = true;
		else if (fmt[1] >= '0' && fmt[1] <= '7')
			level = (unsigned int)(fmt[1] - '0');
		fmt += 2;
	}
	if (!cont && !raw) {
		u64 ns = ktime_get_ns();

		len = (size_t)scnprintf(line, sizeof(line), "[%5lu.%06lu][cpu%u] ",
					(unsigned long)(ns / NSEC_PER_SEC),
					(unsigned long)(ns % NSEC_PER_SEC / 1000), smp_processor_id());
	}
	len += (size_t)vscnprintf(line + len, sizeof(line) - len, fmt, ap);
	if (len == sizeof(line) - 1 && line[len - 1] != '\n')
		line[len - 1] = '\n';	/* truncated: still end the line */

	unsigned long flags = local_irq_save();
	bool locked = false;
	struct percpu *pc = this_cpu_ptr();

	/* A fault inside printk on this CPU must still get its report out. */
	if (pc->printk_nesting == 0 && !READ_ONCE(console_lock_broken)) {
		spin_lock(&console_lock);
		locked = true;
	}
	pc->printk_nesting++;
	if (cont)
		level = last_level;
	if (raw)
		level = 0;
	if (!cont && line_open)
		emit("\n", 1, last_level < console_loglevel);
	emit(line, len, level < console_loglevel);
	line_open = len && line[len - 1] != '\n';
	last_level = level;
	pc->printk_nesting--;
	if (locked)
		spin_unlock(&console_lock);
	local_irq_restore(flags);
	return (int)len;
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
