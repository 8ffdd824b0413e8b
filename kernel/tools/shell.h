/* kernel/tools/shell.h - the teaching shell on the serial console.
 *
 * Input arrives through the workqueue: the COM1 interrupt queues the
 * driver's receive work item, which hands the bytes to shell_input() (in
 * process context). shell_input() edits the line (backspace, Ctrl-U,
 * Ctrl-C, history with the up and down arrows; other control bytes and
 * bytes above 0x7e are ignored; a line over SHELL_LINE_MAX is refused
 * whole). A finished line becomes a work item on the ordered workqueue
 * "shell", so commands run one at a time, in order, while typing goes on.
 *
 * A line is split into words by strword_next() (lib/string.h), as the
 * kernel command line is: whitespace separates, double quotes group.
 *
 * Commands are a table (name, usage, help, function) in shell.c, the one
 * list of them: `help` prints it, and tests/checks/check_shell_commands.py (run
 * by make test) fails if README.md's shell table or docs/guide.md section
 * 6 lists a command the table lacks or lacks one it has. Every command
 * checks its arguments and answers a bad one with a message naming it;
 * nothing the user types can crash the kernel. The workloads `demo` runs
 * are in shell_demos.c, which is given arguments already checked.
 */
#ifndef KERNEL_TOOLS_SHELL_H
#define KERNEL_TOOLS_SHELL_H

#include "kernel/printk.h"
#include "lib/types.h"

#define SHELL_LINE_MAX 200
#define SHELL_PROMPT   "baton> "

/* A command's answer: whole lines on the console, without the log's time
 * and CPU prefix (shell.c and shell_demos.c print with it). */
#define shell_out(fmt, ...) printk(KERN_RAW fmt, ##__VA_ARGS__)

/* Start the shell: register as the serial consumer, print the prompt. */
void shell_init(void);
/* Feed bytes as if typed (the serial receive work item calls this). */
void shell_input(const u8 *buf, size_t n);
/* Run one command line now, in the caller's context (tests). 0 if the
 * command ran and succeeded, -errno otherwise. */
int shell_exec(const char *line);

#endif
