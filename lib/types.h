/* lib/types.h - fixed-width integer types used across baton.
 *
 * lib/ is a leaf: it includes only the compiler's freestanding headers, so
 * the same sources build inside the kernel and natively for host tests. */
#ifndef LIB_TYPES_H
#define LIB_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef long ssize_t;
typedef u64 phys_addr_t;

#endif
