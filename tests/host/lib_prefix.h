/* tests/host/lib_prefix.h - rename lib/ symbols that clash with the host libc.
 *
 * The host test build force-includes this file (gcc -include) into every
 * lib/ source and tests/host/test_*.c file, so lib's memcpy is compiled
 * and called as lib_memcpy, its snprintf as lib_snprintf, and so on. The
 * tests then exercise OUR code (instrumented by ASan/UBSan) while the test
 * binary still links against the host libc for stdio and malloc.
 *
 * Rule that keeps this sound: a file compiled with this prefix must not
 * include libc headers (their prototypes would be renamed too, and glibc's
 * inline definitions would then collide). Host-only code that needs libc
 * lives in ktest_host.c and host_libc.c, which are built without it.
 *
 * Only names that exist in libc are listed; the rest of lib/ (strscpy,
 * kstrto*, scnprintf, sort, bitmap_*, buddy_*, prng_*) cannot clash.
 */
#ifndef TESTS_HOST_LIB_PREFIX_H
#define TESTS_HOST_LIB_PREFIX_H

#define memcpy	  lib_memcpy
#define memmove	  lib_memmove
#define memset	  lib_memset
#define memcmp	  lib_memcmp
#define strlen	  lib_strlen
#define strnlen	  lib_strnlen
#define strcmp	  lib_strcmp
#define strncmp	  lib_strncmp
#define strchr	  lib_strchr
#define strrchr	  lib_strrchr
#define strstr	  lib_strstr
#define vsnprintf lib_vsnprintf
#define snprintf  lib_snprintf
#define bsearch	  lib_bsearch

#endif
