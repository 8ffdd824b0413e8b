/* lib/errno.h - error numbers; functions return 0 or a negative errno.
 *
 * errno_name(): the symbolic name of an error number, for messages:
 *             "-EBUSY" for -EBUSY (as functions return it), "EBUSY" for
 *             EBUSY, "0" for 0, and "unknown error" for any number not
 *             defined below. Add a name to lib/errno.c with each new number.
 * errno_parse(): the other way: "EIO", "-EIO" or "5" gives -EIO; 0 for
 *             anything else (an unknown name, a number over 4095).
 */
#ifndef LIB_ERRNO_H
#define LIB_ERRNO_H

#define EPERM	  1
#define ENOENT	  2
#define EINTR	  4
#define EIO	  5
#define E2BIG	  7
#define EAGAIN	  11
#define ENOMEM	  12
#define EFAULT	  14
#define EBUSY	  16
#define EEXIST	  17
#define ENODEV	  19
#define EINVAL	  22
#define ENOSPC	  28
#define ERANGE	  34
#define EDEADLK	  35
#define ENOSYS	  38
#define ETIMEDOUT 110
#define EALREADY  114
#define ECANCELED 125

const char *errno_name(int err);
int errno_parse(const char *s);

#endif
