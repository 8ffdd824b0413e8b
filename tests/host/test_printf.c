/* tests/host/test_printf.c - tests for lib/printf.c.
 *
 * Most checks format the same thing with lib's vsnprintf and the host
 * libc's and demand identical output and return values, including with
 * truncating buffer sizes. lib-only behaviour (%p, NULL %s, unknown
 * conversions) is checked against fixed strings.
 */
#include "ktest_host.h"
#include "lib/printf.h"
#include "lib/string.h"

/*
 * Compare lib vsnprintf against libc for one format, with a roomy buffer
 * and with truncating sizes (0, 1, half, exact, one short).
 */
static __printf(4, 5) void compare_with_libc(struct ktest *t, int line, bool quiet, const char *fmt,
					     ...)
{
	char ours[512], ref[512];
	size_t sizes[6], i;
	int n_ref;
	va_list ap, ap2;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	n_ref = libc_vsnprintf(ref, sizeof(ref), fmt, ap2);
	va_end(ap2);
	if (n_ref < 0 || (size_t)n_ref >= sizeof(ref)) {
		va_end(ap);
		ktest_fail(t, __FILE__, line, "reference too long: %s", fmt);
		return;
	}

	sizes[0] = sizeof(ours);
	sizes[1] = 0;
	sizes[2] = 1;
	sizes[3] = (size_t)n_ref / 2;
	sizes[4] = (size_t)n_ref + 1;
	sizes[5] = (size_t)n_ref;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t size = sizes[i], kept;
		int n_ours;

		/* Poison, to catch writes past size and missing NULs. */
		for (kept = 0; kept < sizeof(ours); kept++)
			ours[kept] = '@';
		va_copy(ap2, ap);
		n_ours = vsnprintf(size ? ours : NULL, size, fmt, ap2);
		va_end(ap2);

		kept = size == 0 ? 0 : min(size - 1, (size_t)n_ref);
		if (n_ours != n_ref || (size && !ktest_mem_equal(ours, ref, kept)) ||
		    (size && ours[kept] != '\0') || ours[size ? kept + 1 : 0] != '@') {
			if (!quiet || !t->nr_failures)
				ktest_fail(
					t, __FILE__, line,
					"fmt \"%s\" size %zu: got \"%.*s\" (%d), libc \"%s\" (%d)",
					fmt, size, (int)kept, ours, n_ours, ref, n_ref);
			else
				t->nr_failures++;
			break;
		}
	}
	va_end(ap);
}

#define COMPARE(t, ...) compare_with_libc(t, __LINE__, false, __VA_ARGS__)

/* Append a C string to a format being built; returns the new end. */
static char *append(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	*p = '\0';
	return p;
}

/* Every flag subset x width x precision x integer conversion vs libc. */
static void printf_int_matrix_vs_libc(struct ktest *t)
{
	static const char flag_chars[] = "-0+ #";
	static const char *const widths[] = { "", "1", "6", "17" };
	static const char *const precisions[] = { "", ".", ".0", ".1", ".4", ".12" };
	static const char convs[] = "diuxXo";
	static const int values[] = { 0,   1,	 -1,	7,	8,	   42,	      -42,	255,
				      256, 1000, 65535, 0x7fff, 123456789, INT32_MAX, INT32_MIN };
	unsigned int flags;
	size_t w, p, c, v;

	for (flags = 0; flags < 32; flags++)
		for (w = 0; w < ARRAY_SIZE(widths); w++)
			for (p = 0; p < ARRAY_SIZE(precisions); p++)
				for (c = 0; c < sizeof(convs) - 1; c++) {
					char fmt[32], *end = fmt;
					unsigned int bit;
					char conv[2] = { convs[c], '\0' };

					end = append(end, "[%");
					for (bit = 0; bit < 5; bit++) {
						char flag[2] = { flag_chars[bit], '\0' };

						if (flags & (1U << bit))
							end = append(end, flag);
					}
					end = append(end, widths[w]);
					end = append(end, precisions[p]);
					end = append(end, conv);
					append(end, "]");
					for (v = 0; v < ARRAY_SIZE(values); v++)
						compare_with_libc(t, __LINE__, true, fmt,
								  values[v]);
				}
}

static void printf_length_modifiers_vs_libc(struct ktest *t)
{
	static const long long ll_values[] = {
		0,
		1,
		-1,
		INT64_MAX,
		INT64_MIN,
		0x123456789abcdefLL,
		-0x123456789abcdefLL,
		4294967296LL,
		-2147483649LL,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ll_values); i++) {
		long long v = ll_values[i];

		COMPARE(t, "%lld|%lli|%+lld|% lld|%30lld|%-30lld|%030lld", v, v, v, v, v, v, v);
		COMPARE(t, "%llu|%llx|%llX|%llo|%#llx|%#llo|%.25llu", (unsigned long long)v,
			(unsigned long long)v, (unsigned long long)v, (unsigned long long)v,
			(unsigned long long)v, (unsigned long long)v, (unsigned long long)v);
		COMPARE(t, "%ld|%lu|%lx|%#018lx", (long)v, (unsigned long)v, (unsigned long)v,
			(unsigned long)v);
		COMPARE(t, "%jd|%ju|%jx", (intmax_t)v, (uintmax_t)v, (uintmax_t)v);
		COMPARE(t, "%zd|%zu|%zx|%zo", (ssize_t)v, (size_t)v, (size_t)v, (size_t)v);
		COMPARE(t, "%td|%tx", (ptrdiff_t)v, (ptrdiff_t)v);
		/* Narrow modifiers truncate the promoted int. */
		COMPARE(t, "%hhd|%hhu|%hhx|%hd|%hu|%hx|%ho", (int)v, (unsigned int)v,
			(unsigned int)v, (int)v, (unsigned int)v, (unsigned int)v, (unsigned int)v);
	}
	COMPARE(t, "%hhd %hhd %hhu %hd %hd %hu", 300, -129, -1, 70000, -32769, -1);
	COMPARE(t, "%llu", 18446744073709551615ULL);
}

static void printf_char_string_vs_libc(struct ktest *t)
{
	static const char *const strings[] = { "", "a", "hello", "a somewhat longer string" };
	static const char *const str_formats[] = {
		"[%s]",	   "[%10s]", "[%-10s]", "[%.2s]", "[%10.2s]", "[%-10.0s]",
		"[%.10s]", "[%.0s]", "[%1s]",	"[%-1s]", "[%030s]",
	};
	static const char *const char_formats[] = {
		"[%c]", "[%5c]", "[%-5c]", "[%1c]", "[%.0c]", "[%-1c]",
	};
	static const int chars[] = { 'x', ' ', '%', 0x7f, 0xe9, 0 };
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(str_formats); i++)
		for (j = 0; j < ARRAY_SIZE(strings); j++)
			COMPARE(t, str_formats[i], strings[j]);
	for (i = 0; i < ARRAY_SIZE(char_formats); i++)
		for (j = 0; j < ARRAY_SIZE(chars); j++)
			COMPARE(t, char_formats[i], chars[j]);
	COMPARE(t, "%s=%c%c%c", "key", 'a', 'b', 'c');
}

static void printf_star_vs_libc(struct ktest *t)
{
	static const int args[] = { -20, -5, -1, 0, 1, 3, 7, 20 };
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(args); i++) {
		COMPARE(t, "[%*d]", args[i], 42);
		COMPARE(t, "[%-*d]", args[i], -42);
		COMPARE(t, "[%0*x]", args[i], 0xbeef);
		COMPARE(t, "[%.*d]", args[i], 42);
		COMPARE(t, "[%.*d]", args[i], 0);
		COMPARE(t, "[%*s]", args[i], "str");
		COMPARE(t, "[%.*s]", args[i], "string");
		for (j = 0; j < ARRAY_SIZE(args); j++)
			COMPARE(t, "[%*.*d]", args[i], args[j], -1234);
	}
}

/*
 * From here on formats are odd or wrong on purpose (ignored flags, NULL
 * strings, unknown conversions, huge widths): keep -Wformat quiet.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
#pragma GCC diagnostic ignored "-Wformat-zero-length"
#pragma GCC diagnostic ignored "-Wformat-overflow"

static void printf_mixed_vs_libc(struct ktest *t)
{
	COMPARE(t, "name=%s id=%u flags=%#x addr=%016llx %c%c %5.2s%%", "idle", 7U, 0x81U,
		0xffffffff80001000ULL, 'o', 'k', "xyz");
	COMPARE(t, "%d%s%x%s%o", 1, "-", 255, "-", 8);
	COMPARE(t, "no conversions at all");
	COMPARE(t, "%%|%5d%%|%-5d%%", 1, 2);
	COMPARE(t, "%s", "");
	COMPARE(t, "");
	COMPARE(t, "%+d % d %+d % d", 0, 0, -0, 5);
	COMPARE(t, "%#.3o %#.0o %#o %#5o %#-5o| %#.0x %#x", 8, 0, 0, 8, 8, 0, 0);
	COMPARE(t, "%-+08d|%- 8d|%+-8d|%0-8d", 12, 12, 12, 12);
	COMPARE(t, "%08.3d|%-08.3d|%08.0d|%8.0d", 42, 42, 0, 0);
}

static void snprintf_return_and_truncation(struct ktest *t)
{
	char buf[16];

	KT_EXPECT_EQ(t, snprintf(NULL, 0, "%d", 12345), 5);
	KT_EXPECT_EQ(t, snprintf(buf, 0, "abc"), 3);

	memset(buf, 'Z', sizeof(buf));
	KT_EXPECT_EQ(t, snprintf(buf, 1, "abc"), 3);
	KT_EXPECT_EQ(t, buf[0], '\0');
	KT_EXPECT_EQ(t, buf[1], 'Z');

	memset(buf, 'Z', sizeof(buf));
	KT_EXPECT_EQ(t, snprintf(buf, 4, "abcdef"), 6);
	KT_EXPECT_STREQ(t, buf, "abc");
	KT_EXPECT_EQ(t, buf[4], 'Z');

	KT_EXPECT_EQ(t, snprintf(buf, 4, "abc"), 3);
	KT_EXPECT_STREQ(t, buf, "abc");
	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "%s:%d", "x", -7), 4);
	KT_EXPECT_STREQ(t, buf, "x:-7");
}

static void scnprintf_returns_written(struct ktest *t)
{
	char buf[8];
	size_t pos = 0;
	int i;

	KT_EXPECT_EQ(t, scnprintf(buf, 0, "abc"), 0);
	KT_EXPECT_EQ(t, scnprintf(buf, 1, "abc"), 0);
	KT_EXPECT_STREQ(t, buf, "");
	KT_EXPECT_EQ(t, scnprintf(buf, 4, "abcdef"), 3);
	KT_EXPECT_STREQ(t, buf, "abc");
	KT_EXPECT_EQ(t, scnprintf(buf, sizeof(buf), "%d", 42), 2);

	/* The accumulate idiom must stop at the end, never overrun. */
	for (i = 0; i < 10; i++)
		pos += (size_t)scnprintf(buf + pos, sizeof(buf) - pos, "%d", i);
	KT_EXPECT_EQ(t, pos, sizeof(buf) - 1);
	KT_EXPECT_STREQ(t, buf, "0123456");
}

static void printf_pointer(struct ktest *t)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%p", (void *)0xffffffff80001234UL);
	KT_EXPECT_STREQ(t, buf, "0xffffffff80001234");
	snprintf(buf, sizeof(buf), "%p", (void *)NULL);
	KT_EXPECT_STREQ(t, buf, "0x0000000000000000");
	snprintf(buf, sizeof(buf), "%p", (void *)0x1234UL);
	KT_EXPECT_STREQ(t, buf, "0x0000000000001234");
	snprintf(buf, sizeof(buf), "[%20p]", (void *)0xabcUL);
	KT_EXPECT_STREQ(t, buf, "[  0x0000000000000abc]");
	snprintf(buf, sizeof(buf), "[%-20p]", (void *)0xabcUL);
	KT_EXPECT_STREQ(t, buf, "[0x0000000000000abc  ]");
	KT_EXPECT_EQ(t, snprintf(buf, 5, "%p", (void *)1), 18);
	KT_EXPECT_STREQ(t, buf, "0x00");
}

static void printf_null_string(struct ktest *t)
{
	char buf[32];
	const char *null = NULL;

	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "%s", null), 6);
	KT_EXPECT_STREQ(t, buf, "(null)");
	snprintf(buf, sizeof(buf), "[%8s]", null);
	KT_EXPECT_STREQ(t, buf, "[  (null)]");
	snprintf(buf, sizeof(buf), "[%.3s]", null);
	KT_EXPECT_STREQ(t, buf, "[(nu]");
}

static void printf_unknown_conversion(struct ktest *t)
{
	char buf[64];

	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "%q"), 2);
	KT_EXPECT_STREQ(t, buf, "%q");
	snprintf(buf, sizeof(buf), "a%-5qb");
	KT_EXPECT_STREQ(t, buf, "a%-5qb");
	/* Unknown conversions consume no argument. */
	snprintf(buf, sizeof(buf), "%y %d %k %s", 42, "ok");
	KT_EXPECT_STREQ(t, buf, "%y 42 %k ok");
	snprintf(buf, sizeof(buf), "%n|%f|%Lf", 1);
	KT_EXPECT_STREQ(t, buf, "%n|%f|%Lf");
	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "abc%"), 4);
	KT_EXPECT_STREQ(t, buf, "abc%");
	snprintf(buf, sizeof(buf), "abc%-08l");
	KT_EXPECT_STREQ(t, buf, "abc%-08l");
	snprintf(buf, sizeof(buf), "%ll");
	KT_EXPECT_STREQ(t, buf, "%ll");
	snprintf(buf, sizeof(buf), "%%%");
	KT_EXPECT_STREQ(t, buf, "%%");
	snprintf(buf, sizeof(buf), "%\x80|");
	KT_EXPECT_STREQ(t, buf, "%\x80|");
}

/* Corners the libc comparisons cannot reach: a '*' taken by a spec that
 * turns out unknown, "%%" with a width, digits past the field limit. */
static void printf_spec_corners(struct ktest *t)
{
	char buf[32];

	/* The '*' arguments are taken as they are met, even when the
	 * conversion is unknown and takes no value. */
	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "%*q %d", 5, 7), 5);
	KT_EXPECT_STREQ(t, buf, "%*q 7");
	snprintf(buf, sizeof(buf), "%-*.*y|%s", 3, 4, "ok");
	KT_EXPECT_STREQ(t, buf, "%-*.*y|ok");
	/* A format that ends inside a spec: its text, its '*' taken. */
	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "%d%.*", 1, 2), 4);
	KT_EXPECT_STREQ(t, buf, "1%.*");
	/* "%%" prints one '%' whatever its flags, width and length. */
	snprintf(buf, sizeof(buf), "[%5%|%-3%|%l%]");
	KT_EXPECT_STREQ(t, buf, "[%|%|%]");
	/* Width and precision stop at 2^24, digits or '*'. */
	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "%999999999d", 1), 1 << 24);
	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "%*d", INT32_MAX, 1), 1 << 24);
	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "%.999999999u", 1U), 1 << 24);
	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "%.*x", INT32_MAX, 1U), 1 << 24);
}

static int fake_resolver(char *buf, size_t size, uintptr_t addr)
{
	return scnprintf(buf, size, "func+0x%lx/0x40", (unsigned long)(addr & 0xff));
}

static void printf_symbol_extension(struct ktest *t)
{
	char buf[64];

	printf_symbol_resolver = NULL;
	snprintf(buf, sizeof(buf), "%pS", (void *)0x10);
	KT_EXPECT_STREQ(t, buf, "0x0000000000000010S");
	printf_symbol_resolver = fake_resolver;
	snprintf(buf, sizeof(buf), "<%pS> %d", (void *)0x1234, 7);
	KT_EXPECT_STREQ(t, buf, "<func+0x34/0x40> 7");
	snprintf(buf, sizeof(buf), "%p", (void *)0x1234);
	KT_EXPECT_STREQ(t, buf, "0x0000000000001234");
	/* Width and '-' apply to the symbol's text. */
	snprintf(buf, sizeof(buf), "[%18pS][%-18pS]", (void *)0x1234, (void *)0x12);
	KT_EXPECT_STREQ(t, buf, "[    func+0x34/0x40][func+0x12/0x40    ]");
	/* A resolver's text of any length, also where the buffer ends. */
	KT_EXPECT_EQ(t, snprintf(buf, 6, "%pS", (void *)0x1234), 14);
	KT_EXPECT_STREQ(t, buf, "func+");
	printf_symbol_resolver = NULL;
}

static void count_emit(char c, void *arg)
{
	char **p = arg;

	*(*p)++ = c;
}

static void cbprintf_callback(struct ktest *t)
{
	char out[64], *p = out;
	int n;

	n = cbprintf(count_emit, &p, "%s:%d:%x", "cb", 10, 255);
	KT_EXPECT_EQ(t, n, 8);
	KT_EXPECT_EQ(t, p - out, 8);
	*p = '\0';
	KT_EXPECT_STREQ(t, out, "cb:10:ff");
}

static void printf_huge_width(struct ktest *t)
{
	char buf[16];

	/* Widths are honoured in the return value even when truncated. */
	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "%1000d", 1), 1000);
	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "%-1000s|", "x"), 1001);
	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "%.1000d", 1), 1000);
	KT_EXPECT_STREQ(t, buf, "000000000000000");
	/* INT_MIN as '*' width must not overflow when negated. */
	KT_EXPECT_TRUE(t, snprintf(buf, sizeof(buf), "%*d", INT32_MIN, 1) > 1000);
	KT_EXPECT_STREQ(t, buf, "1              ");
}

#pragma GCC diagnostic pop

static const struct ktest_case printf_cases[] = {
	KTEST_CASE(printf_int_matrix_vs_libc),
	KTEST_CASE(printf_symbol_extension),
	KTEST_CASE(printf_length_modifiers_vs_libc),
	KTEST_CASE(printf_char_string_vs_libc),
	KTEST_CASE(printf_star_vs_libc),
	KTEST_CASE(printf_mixed_vs_libc),
	KTEST_CASE(snprintf_return_and_truncation),
	KTEST_CASE(scnprintf_returns_written),
	KTEST_CASE(printf_pointer),
	KTEST_CASE(printf_null_string),
	KTEST_CASE(printf_unknown_conversion),
	KTEST_CASE(printf_spec_corners),
	KTEST_CASE(cbprintf_callback),
	KTEST_CASE(printf_huge_width),
};

KTEST_SUITE(printf, printf_cases);
