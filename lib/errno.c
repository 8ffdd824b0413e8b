/* lib/errno.c - the names of the error numbers; see errno.h. */
#include "lib/errno.h"
#include "lib/compiler.h"

#define ERRNO_NAME(e) [e] = "-" #e

/* Indexed by the positive number; each name carries its '-' sign first, so
 * the positive name is the same string one character on. */
static const char *const names[] = {
	ERRNO_NAME(EPERM),     ERRNO_NAME(ENOENT),   ERRNO_NAME(EINTR),	    ERRNO_NAME(EIO),
	ERRNO_NAME(E2BIG),     ERRNO_NAME(EAGAIN),   ERRNO_NAME(ENOMEM),    ERRNO_NAME(EFAULT),
	ERRNO_NAME(EBUSY),     ERRNO_NAME(EEXIST),   ERRNO_NAME(ENODEV),    ERRNO_NAME(EINVAL),
	ERRNO_NAME(ENOSPC),    ERRNO_NAME(ERANGE),   ERRNO_NAME(EDEADLK),   ERRNO_NAME(ENOSYS),
	ERRNO_NAME(ETIMEDOUT), ERRNO_NAME(EALREADY), ERRNO_NAME(ECANCELED),
};

const char *errno_name(int err)
{
	/* Compared before negating: -INT_MIN does not exist. */
	if (err <= -(int)ARRAY_SIZE(names) || err >= (int)ARRAY_SIZE(names))
		return "unknown error";
	if (err == 0)
		return "0";
	const char *name = names[err < 0 ? -err : err];

	if (!name)
		return "unknown error";
	return err < 0 ? name : name + 1;
}

int errno_parse(const char *s)
{
	int n = 0;

	if (!s || !*s)
		return 0;
	if (*s >= '0' && *s <= '9') {
		for (; *s >= '0' && *s <= '9'; s++)
			if ((n = n * 10 + (*s - '0')) > 4095)
				return 0;
		return *s ? 0 : -n;
	}
	if (*s == '-' && s[1] == 'E')
		s++;
	for (size_t i = 1; i < ARRAY_SIZE(names); i++) {
		const char *a = names[i], *b = s;

		if (!a)
			continue;
		for (a++; *a && *a == *b; a++, b++)
			;
		if (!*a && !*b)
			return -(int)i;
	}
	return 0;
}
