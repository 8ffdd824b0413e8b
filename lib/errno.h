/* lib/errno.h - error numbers; functions return 0 or a negative errno. */
#ifndef LIB_ERRNO_H
#define LIB_ERRNO_H

#define EPERM 1
#define ENOENT 2
#define EINTR 4
#define EIO 5
#define E2BIG 7
#define EAGAIN 11
#define ENOMEM 12
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define ENODEV 19
#define EINVAL 22
#define ENOSPC 28
#define ERANGE 34
#define EDEADLK 35
#define ENOSYS 38
#define ETIMEDOUT 110
#define EALREADY 114
#define ECANCELED 125

#endif
