/* kernel/params.h - typed kernel command-line parameters.
 *
 * A parameter is declared next to the variable it sets, with its type,
 * limits and a one-line help, and registered at link time:
 *
 *   static unsigned int loglevel = 7;
 *   PARAM_UINT(loglevel, loglevel, 0, 8, "console log level");
 *
 * params_parse() reads the Multiboot2 command line ("name=value name2"):
 * values may be "double quoted". An unknown name, a malformed value or a
 * value out of range never stops the boot: it is reported with the name and
 * the default that stays in force. The last occurrence of a name wins.
 */
#ifndef KERNEL_PARAMS_H
#define KERNEL_PARAMS_H

#include "lib/compiler.h"
#include "lib/types.h"

enum param_type { PARAM_T_UINT, PARAM_T_U64, PARAM_T_BOOL, PARAM_T_STRING, PARAM_T_ENUM };

struct kernel_param {
	const char *name;
	enum param_type type;
	void *var;
	u64 min, max;		    /* UINT, U64: accepted range */
	size_t size;		    /* STRING: buffer size */
	const char *const *choices; /* ENUM: NULL-terminated names */
	const char *help;
};

#define __PARAM(pname, ...)                                                                        \
	static const struct kernel_param __param_##pname __used __section(".kparam")               \
		__aligned(8) = { .name = #pname, __VA_ARGS__ }

/* var is an unsigned int */
#define PARAM_UINT(pname, var_, lo, hi, h)                                                         \
	__PARAM(pname, .type = PARAM_T_UINT, .var = &(var_), .min = (lo), .max = (hi), .help = (h))
/* var is a u64; the value may carry a K, M or G suffix */
#define PARAM_U64(pname, var_, lo, hi, h)                                                          \
	__PARAM(pname, .type = PARAM_T_U64, .var = &(var_), .min = (lo), .max = (hi), .help = (h))
/* var is a bool; "name" alone means true */
#define PARAM_BOOL(pname, var_, h) __PARAM(pname, .type = PARAM_T_BOOL, .var = &(var_), .help = (h))
/* var is a char array */
#define PARAM_STRING(pname, var_, h)                                                               \
	__PARAM(pname, .type = PARAM_T_STRING, .var = (var_), .size = sizeof(var_), .help = (h))
/* var is an unsigned int index into choices */
#define PARAM_ENUM(pname, var_, choices_, h)                                                       \
	__PARAM(pname, .type = PARAM_T_ENUM, .var = &(var_), .choices = (choices_), .help = (h))

/* Parse cmdline and set every parameter it names; returns how many
 * problems were reported (0 when the line was clean). */
int params_parse(const char *cmdline);
/* The same against a given table of parameters (tests use their own). */
int params_parse_table(const char *cmdline, const struct kernel_param *start,
		       const struct kernel_param *end);
/* The command line as given by the boot loader. */
extern char boot_cmdline[];

#endif
