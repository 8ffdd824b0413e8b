/* lib/string.c - memory/string primitives and kstrto* number parsing.
 *
 * Interface and semantics are documented in string.h. Everything here is
 * plain C with no libc underneath: the kernel links these as the real
 * memcpy/memset/... that gcc itself emits calls to.
 */
#include "string.h"
#include "compiler.h"
#include "errno.h"

/*
 * gcc's loop-distribution pass recognises copy/fill loops and replaces them
 * with calls to memcpy/memset. Inside memcpy/memset that would be infinite
 * recursion, so the pass is switched off for this file only.
 */
#ifndef __clang__
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#endif

/* A word type allowed to alias anything, so word-at-a-time copies of
 * arbitrary objects do not break strict aliasing. */
typedef unsigned long __attribute__((may_alias)) word_t;

#define WORD_SIZE	sizeof(word_t)
#define WORD_ALIGNED(p) (((uintptr_t)(p) & (WORD_SIZE - 1)) == 0)

void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (WORD_ALIGNED(d) && WORD_ALIGNED(s)) {
		for (; n >= WORD_SIZE; n -= WORD_SIZE) {
			*(word_t *)d = *(const word_t *)s;
			d += WORD_SIZE;
			s += WORD_SIZE;
		}
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	/* Forward copy is safe unless dst starts inside [src, src + n). */
	if ((uintptr_t)d - (uintptr_t)s >= n)
		return memcpy(dst, src, n);

	d += n;
	s += n;
	if (WORD_ALIGNED(d) && WORD_ALIGNED(s)) {
		for (; n >= WORD_SIZE; n -= WORD_SIZE) {
			d -= WORD_SIZE;
			s -= WORD_SIZE;
			*(word_t *)d = *(const word_t *)s;
		}
	}
	while (n--)
		*--d = *--s;
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	unsigned char byte = (unsigned char)c;

	if (n >= 2 * WORD_SIZE) {
		word_t pattern = (word_t)0x0101010101010101UL * byte;

		while (!WORD_ALIGNED(d)) {
			*d++ = byte;
			n--;
		}
		for (; n >= WORD_SIZE; n -= WORD_SIZE) {
			*(word_t *)d = pattern;
			d += WORD_SIZE;
		}
	}
	while (n--)
		*d++ = byte;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++) {
		if (*x != *y)
			return *x < *y ? -1 : 1;
	}
	return 0;
}

size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return (size_t)(p - s);
}

size_t strnlen(const char *s, size_t maxlen)
{
	size_t n = 0;

	while (n < maxlen && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	return strncmp(a, b, (size_t)-1);
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		unsigned char x = (unsigned char)*a, y = (unsigned char)*b;

		if (x != y)
			return x < y ? -1 : 1;
		if (!x)
			break;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	char ch = (char)c;

	for (;; s++) {
		if (*s == ch)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *strrchr(const char *s, int c)
{
	char ch = (char)c;
	const char *last = NULL;

	for (;; s++) {
		if (*s == ch)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

char *strstr(const char *haystack, const char *needle)
{
	size_t nlen = strlen(needle);

	for (; *haystack; haystack++) {
		if (!strncmp(haystack, needle, nlen))
			return (char *)haystack;
	}
	return nlen ? NULL : (char *)haystack;
}

ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t i;

	if (size == 0)
		return -E2BIG;
	for (i = 0; i < size; i++) {
		dst[i] = src[i];
		if (!src[i])
			return (ssize_t)i;
	}
	dst[size - 1] = '\0';
	return -E2BIG;
}

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

char *strim(char *s)
{
	size_t len = strlen(s);

	while (len && is_space(s[len - 1]))
		s[--len] = '\0';
	while (is_space(*s))
		s++;
	return s;
}

static char to_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Value of digit c in bases up to 36, or 36 for "not a digit". */
static unsigned int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned int)(c - '0');
	c = to_lower(c);
	if (c >= 'a' && c <= 'z')
		return (unsigned int)(c - 'a' + 10);
	return 36;
}

/*
 * Parse the unsigned number at the start of s, no sign accepted. Stores the
 * position after the last digit in *end. Returns 0, -EINVAL if there is no
 * digit or the base is unsupported, -ERANGE on overflow (after consuming
 * every digit, so the caller can still tell trailing garbage apart).
 */
static int parse_u64_prefix(const char *s, unsigned int base, u64 *res, const char **end)
{
	bool overflow = false;
	const char *first;
	u64 val = 0;

	if (base == 0) {
		if (s[0] == '0' && to_lower(s[1]) == 'x') {
			base = 16;
			s += 2;
		} else if (s[0] == '0') {
			base = 8; /* the '0' itself parses as a digit */
		} else {
			base = 10;
		}
	} else if (base == 16 && s[0] == '0' && to_lower(s[1]) == 'x') {
		s += 2;
	} else if (base < 2 || base > 36) {
		return -EINVAL;
	}

	for (first = s; digit_value(*s) < base; s++) {
		unsigned int d = digit_value(*s);

		if (val > (UINT64_MAX - d) / base)
			overflow = true;
		val = val * base + d;
	}
	*end = s;
	if (s == first)
		return -EINVAL;
	if (overflow)
		return -ERANGE;
	*res = val;
	return 0;
}

/* Only "" or a single "\n" may follow the number. */
static bool at_string_end(const char *s)
{
	return s[0] == '\0' || (s[0] == '\n' && s[1] == '\0');
}

/* Like kstrtou64 but without the '+' sign. */
static int parse_u64_whole(const char *s, unsigned int base, u64 *res)
{
	const char *end;
	u64 val;
	int err;

	err = parse_u64_prefix(s, base, &val, &end);
	if (!at_string_end(end))
		return -EINVAL;
	if (err)
		return err;
	*res = val;
	return 0;
}

int kstrtou64(const char *s, unsigned int base, u64 *res)
{
	if (s[0] == '+')
		s++;
	return parse_u64_whole(s, base, res);
}

int kstrtos64(const char *s, unsigned int base, s64 *res)
{
	u64 val;
	int err;

	if (s[0] == '-') {
		err = parse_u64_whole(s + 1, base, &val);
		if (err)
			return err;
		if (val > (u64)INT64_MAX + 1)
			return -ERANGE;
		/* Negate in unsigned arithmetic: -INT64_MIN is not an s64. */
		*res = (s64)(0 - val);
		return 0;
	}
	err = kstrtou64(s, base, &val);
	if (err)
		return err;
	if (val > (u64)INT64_MAX)
		return -ERANGE;
	*res = (s64)val;
	return 0;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	u64 val;
	int err;

	err = kstrtou64(s, base, &val);
	if (err)
		return err;
	if (val > UINT32_MAX)
		return -ERANGE;
	*res = (unsigned int)val;
	return 0;
}

int kstrtoint(const char *s, unsigned int base, int *res)
{
	s64 val;
	int err;

	err = kstrtos64(s, base, &val);
	if (err)
		return err;
	if (val < INT32_MIN || val > INT32_MAX)
		return -ERANGE;
	*res = (int)val;
	return 0;
}

int kstrtou64_suffix(const char *s, u64 *res)
{
	unsigned int shift = 0;
	const char *end;
	u64 val;
	int err;

	if (s[0] == '+')
		s++;
	err = parse_u64_prefix(s, 0, &val, &end);
	switch (to_lower(*end)) {
	case 'k':
		shift = 10;
		end++;
		break;
	case 'm':
		shift = 20;
		end++;
		break;
	case 'g':
		shift = 30;
		end++;
		break;
	}
	if (!at_string_end(end))
		return -EINVAL;
	if (err)
		return err;
	if (val > (UINT64_MAX >> shift))
		return -ERANGE;
	*res = val << shift;
	return 0;
}

/* Case-insensitive compare of s[0..len) with the lower-case word. */
static bool word_equals(const char *s, size_t len, const char *word)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (!word[i] || to_lower(s[i]) != word[i])
			return false;
	}
	return word[len] == '\0';
}

int kstrtobool(const char *s, bool *res)
{
	static const char *const true_words[] = { "1", "y", "yes", "on", "true" };
	static const char *const false_words[] = { "0", "n", "no", "off", "false" };
	size_t len = strlen(s);
	size_t i;

	if (len && s[len - 1] == '\n')
		len--;
	for (i = 0; i < ARRAY_SIZE(true_words); i++) {
		if (word_equals(s, len, true_words[i])) {
			*res = true;
			return 0;
		}
	}
	for (i = 0; i < ARRAY_SIZE(false_words); i++) {
		if (word_equals(s, len, false_words[i])) {
			*res = false;
			return 0;
		}
	}
	return -EINVAL;
}

const char *strlist_next(const char **pos, size_t *len)
{
	const char *item = *pos, *comma;

	if (!*item)
		return NULL;
	comma = strchr(item, ',');
	*len = comma ? (size_t)(comma - item) : strlen(item);
	*pos = item + *len + (comma ? 1 : 0);
	return item;
}

bool strlist_has(const char *list, const char *word, size_t len)
{
	const char *item;
	size_t n;

	while ((item = strlist_next(&list, &n)))
		if (n == len && !strncmp(item, word, len))
			return true;
	return false;
}

ssize_t strword_next(const char **pos, char *word, size_t size)
{
	const char *s = *pos;
	size_t n = 0;
	bool quoted = false, truncated = false;

	while (is_space(*s))
		s++;
	if (!*s) {
		*pos = s;
		return -ENOENT;
	}
	for (; *s && (quoted || !is_space(*s)); s++) {
		if (*s == '"') {
			quoted = !quoted;
			continue;
		}
		if (n + 1 < size)
			word[n++] = *s;
		else
			truncated = true;
	}
	if (size)
		word[n] = '\0';
	*pos = s;
	return truncated ? -E2BIG : (ssize_t)n;
}
