/* lib/string.h - memory and string helpers, plus strict number parsing.
 *
 * The mem* and str* functions have their C library names and semantics;
 * they must stay real, out-of-line functions because gcc emits calls to
 * memcpy/memmove/memset/memcmp on its own (struct copies, zeroing).
 *
 * strscpy():  bounded copy, always NUL-terminates when size > 0; returns the
 *             length copied or -E2BIG when src did not fit (or size == 0).
 * strim():    cuts trailing whitespace in place, returns a pointer past the
 *             leading whitespace.
 * strlist_next(): walks a comma-separated list ("a,b,c"): returns the item
 *             at *pos and its length in *len (an empty item has length 0),
 *             and moves *pos past it; NULL once the list is used up.
 * strlist_has(): is word[0..len) one of the list's items?
 * strword_next(): splits a command line (the kernel's, a shell line) into
 *             words: copies the word at *pos into word[size] (NUL-terminated
 *             when size > 0) and moves *pos past it. Words are separated by
 *             whitespace; double quotes group whitespace into a word and are
 *             removed ("msg=\"a b\"" gives msg=a b, "" gives an empty
 *             word, an unclosed quote runs to the end). Returns the word's
 *             length; -E2BIG when it did not fit (word holds what fit, *pos
 *             is still past the whole word); -ENOENT when only whitespace
 *             is left.
 * kstrto*():  parse a whole string as a number. base 0 means auto-detect
 *             ("0x" hex, leading "0" octal, else decimal); base 16 also
 *             accepts an optional "0x" prefix. A leading '+' is accepted,
 *             '-' only by the signed variants. One trailing '\n' is allowed
 *             (sysfs-style input). Returns 0, -EINVAL for empty input or
 *             garbage, -ERANGE when the value does not fit. *res is written
 *             only on success.
 * kstrtou64_suffix(): like kstrtou64 with base 0, plus an optional binary
 *             size suffix K, M or G (either case): "4K" == 4096.
 * kstrtobool(): exactly one of 1/0, y/n, yes/no, on/off, true/false, any
 *             case, optional trailing '\n'.
 */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include "types.h"

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

size_t strlen(const char *s);
size_t strnlen(const char *s, size_t maxlen);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);

ssize_t strscpy(char *dst, const char *src, size_t size);
char *strim(char *s);
const char *strlist_next(const char **pos, size_t *len);
bool strlist_has(const char *list, const char *word, size_t len);
ssize_t strword_next(const char **pos, char *word, size_t size);

int kstrtou64(const char *s, unsigned int base, u64 *res);
int kstrtos64(const char *s, unsigned int base, s64 *res);
int kstrtouint(const char *s, unsigned int base, unsigned int *res);
int kstrtoint(const char *s, unsigned int base, int *res);
int kstrtobool(const char *s, bool *res);
int kstrtou64_suffix(const char *s, u64 *res);

#endif
