/* kernel/params.c - command-line parsing; see params.h. */
#define pr_fmt(fmt) "cmdline: " fmt
#include "kernel/params.h"
#include "kernel/printk.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

#define CMDLINE_MAX 1024
#define TOKEN_MAX   256
#define PARAMS_MAX  128 /* for "set earlier on this line" tracking */

char boot_cmdline[CMDLINE_MAX];

extern const struct kernel_param __kparam_start[], __kparam_end[];

static const struct kernel_param *param_find(const struct kernel_param *start,
					     const struct kernel_param *end, const char *name)
{
	for (const struct kernel_param *p = start; p < end; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

/* The value a parameter holds now, as text, for "using default" messages. */
static void param_format(const struct kernel_param *p, char *buf, size_t size)
{
	switch (p->type) {
	case PARAM_T_UINT:
		scnprintf(buf, size, "%u", *(unsigned int *)p->var);
		break;
	case PARAM_T_U64:
		scnprintf(buf, size, "%llu", (unsigned long long)*(u64 *)p->var);
		break;
	case PARAM_T_BOOL:
		scnprintf(buf, size, "%s", *(bool *)p->var ? "1" : "0");
		break;
	case PARAM_T_STRING:
		scnprintf(buf, size, "\"%s\"", (char *)p->var);
		break;
	case PARAM_T_ENUM:
		scnprintf(buf, size, "%s", p->choices[*(unsigned int *)p->var]);
		break;
	}
}

static void param_expected(const struct kernel_param *p, char *buf, size_t size)
{
	size_t n = 0;

	switch (p->type) {
	case PARAM_T_UINT:
	case PARAM_T_U64:
		scnprintf(buf, size, "an integer %llu..%llu%s", (unsigned long long)p->min,
			  (unsigned long long)p->max,
			  p->type == PARAM_T_U64 ? " (K/M/G suffix allowed)" : "");
		break;
	case PARAM_T_BOOL:
		scnprintf(buf, size, "0/1, y/n, on/off or true/false");
		break;
	case PARAM_T_STRING:
		scnprintf(buf, size, "a string of at most %zu characters", p->size - 1);
		break;
	case PARAM_T_ENUM:
		n = scnprintf(buf, size, "one of");
		for (const char *const *c = p->choices; *c; c++)
			n += scnprintf(buf + n, size - n, " %s", *c);
		break;
	}
}

/* Set p from value (NULL when the token had no '='); 0 or -errno. */
static int param_set(const struct kernel_param *p, const char *value)
{
	if (!value)
		value = p->type == PARAM_T_BOOL ? "1" : "";
	switch (p->type) {
	case PARAM_T_UINT:
	case PARAM_T_U64: {
		u64 v;
		int err = p->type == PARAM_T_U64 ? kstrtou64_suffix(value, &v) :
						   kstrtou64(value, 0, &v);
		if (err)
			return err;
		if (v < p->min || v > p->max)
			return -ERANGE;
		if (p->type == PARAM_T_U64)
			*(u64 *)p->var = v;
		else
			*(unsigned int *)p->var = (unsigned int)v;
		return 0;
	}
	case PARAM_T_BOOL:
		return kstrtobool(value, (bool *)p->var);
	case PARAM_T_STRING:
		if (strlen(value) >= p->size)
			return -E2BIG;
		strscpy(p->var, value, p->size);
		return 0;
	case PARAM_T_ENUM:
		for (unsigned int i = 0; p->choices[i]; i++) {
			if (strcmp(p->choices[i], value) == 0) {
				*(unsigned int *)p->var = i;
				return 0;
			}
		}
		return -EINVAL;
	}
	return -EINVAL;
}

int params_parse_table(const char *cmdline, const struct kernel_param *start,
		       const struct kernel_param *end)
{
	char tok[TOKEN_MAX], cur[64], expect[160];
	bool set_here[PARAMS_MAX] = { false };
	int problems = 0;
	ssize_t len;

	for (const char *s = cmdline; (len = strword_next(&s, tok, sizeof(tok))) != -ENOENT;) {
		char *value = strchr(tok, '=');

		if (value)
			*value++ = '\0';
		const struct kernel_param *p = param_find(start, end, tok);

		if (!p) {
			pr_warn("unknown parameter '%s' ignored\n", tok);
			problems++;
			continue;
		}
		param_format(p, cur, sizeof(cur));
		int err = len == -E2BIG ? -E2BIG : param_set(p, value);

		if (err) {
			param_expected(p, expect, sizeof(expect));
			pr_warn("bad value '%s' for %s= (%s, expected %s); using %s %s\n",
				value ? value : "", p->name,
				err == -ERANGE ? "out of range" :
				err == -E2BIG  ? "too long" :
						 "malformed",
				expect,
				p - start < PARAMS_MAX && set_here[p - start] ? "earlier value" :
										"default",
				cur);
			problems++;
		} else if (p - start < PARAMS_MAX) {
			set_here[p - start] = true;
		}
	}
	return problems;
}

int params_parse(const char *cmdline)
{
	strscpy(boot_cmdline, cmdline, sizeof(boot_cmdline));
	return params_parse_table(cmdline, __kparam_start, __kparam_end);
}
