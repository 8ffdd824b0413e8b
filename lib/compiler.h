/* lib/compiler.h - compiler helpers shared by kernel and host builds. */
#ifndef LIB_COMPILER_H
#define LIB_COMPILER_H

#include "types.h"

#define likely(x)      __builtin_expect(!!(x), 1)
#define unlikely(x)    __builtin_expect(!!(x), 0)
#define __packed       __attribute__((packed))
#define __aligned(n)   __attribute__((aligned(n)))
#define __used	       __attribute__((used))
#define __unused       __attribute__((unused))
#define __noreturn     __attribute__((noreturn))
#define __noinline     __attribute__((noinline))
#define __section(s)   __attribute__((section(s)))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define __must_check   __attribute__((warn_unused_result))

#ifndef __always_inline /* glibc's, in the host tests */
#define __always_inline inline __attribute__((always_inline))
#endif

#define ARRAY_SIZE(a)			(sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#define min(a, b)	   ((a) < (b) ? (a) : (b))
#define max(a, b)	   ((a) > (b) ? (a) : (b))
#define clamp(v, lo, hi)   min(max(v, lo), hi)
#define DIV_ROUND_UP(n, d) (((n) + (d)-1) / (d))
#define ALIGN_DOWN(x, a)   ((x) & ~((__typeof__(x))(a)-1))
#define ALIGN_UP(x, a)	   ALIGN_DOWN((x) + (a)-1, (a))
#define IS_ALIGNED(x, a)   (((x) & ((__typeof__(x))(a)-1)) == 0)

#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)

/* Compiler barrier and single-copy accesses (no tearing, no fusing). The
 * hardware side of ordering lives in arch/x86_64/atomic.h. */
#define barrier()	 __asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x)	 (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#endif
