/* tests/host/test_string.c - tests for lib/string.c (mem*, str*, kstrto*).
 *
 * Built with lib_prefix.h, so memcpy & co. below are lib's versions.
 */
#include "ktest_host.h"
#include "lib/errno.h"
#include "lib/random.h"
#include "lib/string.h"

/* Reference byte-by-byte fill, so the mem* checks do not trust lib. */
static void fill_pattern(u8 *p, size_t n, u8 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (u8)(seed + i * 7);
}

static void memcpy_basic(struct ktest *t)
{
	u8 src[100], dst[100];
	size_t off_s, off_d, len;

	/* Every small alignment/length mix around the word-copy fast path. */
	for (off_s = 0; off_s < 9; off_s++) {
		for (off_d = 0; off_d < 9; off_d++) {
			for (len = 0; len < 40; len++) {
				size_t i;
				bool ok = true;

				fill_pattern(src, sizeof(src), 1);
				fill_pattern(dst, sizeof(dst), 100);
				KT_EXPECT_TRUE(t, memcpy(dst + off_d, src + off_s, len) ==
							  dst + off_d);
				for (i = 0; i < sizeof(dst); i++) {
					u8 want = (u8)(100 + i * 7);

					if (i >= off_d && i < off_d + len)
						want = src[off_s + i - off_d];
					ok = ok && dst[i] == want;
				}
				KT_EXPECT_TRUE(t, ok);
			}
		}
	}
}

static void memmove_overlap(struct ktest *t)
{
	u8 buf[128], ref[128];
	size_t src, dst, len;

	for (src = 0; src < 24; src++) {
		for (dst = 0; dst < 24; dst++) {
			for (len = 0; len < 80; len += 3) {
				size_t i;

				fill_pattern(buf, sizeof(buf), 5);
				fill_pattern(ref, sizeof(ref), 5);
				/* Reference: through a temporary copy. */
				{
					u8 tmp[128];

					for (i = 0; i < len; i++)
						tmp[i] = ref[src + i];
					for (i = 0; i < len; i++)
						ref[dst + i] = tmp[i];
				}
				KT_EXPECT_TRUE(t, memmove(buf + dst, buf + src, len) == buf + dst);
				KT_EXPECT_MEMEQ(t, buf, ref, sizeof(buf));
			}
		}
	}
}

static void memset_basic(struct ktest *t)
{
	u8 buf[80];
	size_t off, len, i;

	for (off = 0; off < 9; off++) {
		for (len = 0; len < 64; len++) {
			bool ok = true;

			fill_pattern(buf, sizeof(buf), 3);
			KT_EXPECT_TRUE(t, memset(buf + off, 0x1a5, len) == buf + off);
			for (i = 0; i < sizeof(buf); i++) {
				u8 want = (u8)(3 + i * 7);

				if (i >= off && i < off + len)
					want = 0xa5; /* int truncated */
				ok = ok && buf[i] == want;
			}
			KT_EXPECT_TRUE(t, ok);
		}
	}
}

static void memcmp_basic(struct ktest *t)
{
	u8 a[] = { 1, 2, 3, 0x80 };
	u8 b[] = { 1, 2, 3, 0x7f };

	KT_EXPECT_EQ(t, memcmp(a, b, 0), 0);
	KT_EXPECT_EQ(t, memcmp(a, b, 3), 0);
	/* Bytes compare as unsigned: 0x80 > 0x7f. */
	KT_EXPECT_TRUE(t, memcmp(a, b, 4) > 0);
	KT_EXPECT_TRUE(t, memcmp(b, a, 4) < 0);
	KT_EXPECT_EQ(t, memcmp(a, a, 4), 0);
}

static void strlen_strnlen(struct ktest *t)
{
	KT_EXPECT_EQ(t, strlen(""), 0);
	KT_EXPECT_EQ(t, strlen("a"), 1);
	KT_EXPECT_EQ(t, strlen("hello world"), 11);
	KT_EXPECT_EQ(t, strnlen("hello", 0), 0);
	KT_EXPECT_EQ(t, strnlen("hello", 3), 3);
	KT_EXPECT_EQ(t, strnlen("hello", 5), 5);
	KT_EXPECT_EQ(t, strnlen("hello", 100), 5);
	{
		/* strnlen must not read past maxlen: no NUL here. */
		char raw[4] = { 'a', 'b', 'c', 'd' };

		KT_EXPECT_EQ(t, strnlen(raw, sizeof(raw)), 4);
	}
}

static void strcmp_strncmp(struct ktest *t)
{
	KT_EXPECT_EQ(t, strcmp("", ""), 0);
	KT_EXPECT_EQ(t, strcmp("abc", "abc"), 0);
	KT_EXPECT_TRUE(t, strcmp("abc", "abd") < 0);
	KT_EXPECT_TRUE(t, strcmp("abd", "abc") > 0);
	KT_EXPECT_TRUE(t, strcmp("ab", "abc") < 0);
	KT_EXPECT_TRUE(t, strcmp("abc", "ab") > 0);
	KT_EXPECT_TRUE(t, strcmp("\x80", "\x7f") > 0); /* unsigned chars */
	KT_EXPECT_EQ(t, strncmp("abcx", "abcy", 3), 0);
	KT_EXPECT_TRUE(t, strncmp("abcx", "abcy", 4) < 0);
	KT_EXPECT_EQ(t, strncmp("abc", "xyz", 0), 0);
	KT_EXPECT_EQ(t, strncmp("ab", "ab", 10), 0);
	KT_EXPECT_TRUE(t, strncmp("ab", "abc", 10) < 0);
}

static void strchr_strrchr(struct ktest *t)
{
	const char *s = "hello, world";

	KT_EXPECT_TRUE(t, strchr(s, 'o') == s + 4);
	KT_EXPECT_TRUE(t, strrchr(s, 'o') == s + 8);
	KT_EXPECT_TRUE(t, strchr(s, 'z') == NULL);
	KT_EXPECT_TRUE(t, strrchr(s, 'z') == NULL);
	KT_EXPECT_TRUE(t, strchr(s, '\0') == s + 12);
	KT_EXPECT_TRUE(t, strrchr(s, '\0') == s + 12);
	KT_EXPECT_TRUE(t, strchr(s, 'h') == s);
	KT_EXPECT_TRUE(t, strrchr(s, 'h') == s);
	KT_EXPECT_TRUE(t, strchr("", 'a') == NULL);
	KT_EXPECT_TRUE(t, strchr(s, 'o' + 256) == s + 4); /* converted to char */
}

static void strstr_basic(struct ktest *t)
{
	const char *s = "abababc";

	KT_EXPECT_TRUE(t, strstr(s, "") == s);
	KT_EXPECT_TRUE(t, strstr("", "") != NULL);
	KT_EXPECT_TRUE(t, strstr(s, "abc") == s + 4);
	KT_EXPECT_TRUE(t, strstr(s, "bab") == s + 1);
	KT_EXPECT_TRUE(t, strstr(s, "abcd") == NULL);
	KT_EXPECT_TRUE(t, strstr(s, "c") == s + 6);
	KT_EXPECT_TRUE(t, strstr("", "a") == NULL);
	KT_EXPECT_TRUE(t, strstr("ab", "abc") == NULL);
}

static void strscpy_fits(struct ktest *t)
{
	char buf[8];

	memset(buf, 'X', sizeof(buf));
	KT_EXPECT_EQ(t, strscpy(buf, "abc", sizeof(buf)), 3);
	KT_EXPECT_STREQ(t, buf, "abc");
	KT_EXPECT_EQ(t, strscpy(buf, "", sizeof(buf)), 0);
	KT_EXPECT_STREQ(t, buf, "");
	/* Exactly size - 1 chars still fit. */
	KT_EXPECT_EQ(t, strscpy(buf, "1234567", sizeof(buf)), 7);
	KT_EXPECT_STREQ(t, buf, "1234567");
}

static void strscpy_truncates(struct ktest *t)
{
	char buf[8];

	KT_EXPECT_EQ(t, strscpy(buf, "12345678", sizeof(buf)), -E2BIG);
	KT_EXPECT_STREQ(t, buf, "1234567");
	KT_EXPECT_EQ(t, strscpy(buf, "abcdefghijklmnop", 4), -E2BIG);
	KT_EXPECT_STREQ(t, buf, "abc");
	KT_EXPECT_EQ(t, strscpy(buf, "abc", 1), -E2BIG);
	KT_EXPECT_STREQ(t, buf, "");
	buf[0] = 'Z';
	KT_EXPECT_EQ(t, strscpy(buf, "abc", 0), -E2BIG);
	KT_EXPECT_EQ(t, buf[0], 'Z'); /* size 0 writes nothing */
}

static void strim_basic(struct ktest *t)
{
	char a[] = "  \t hello world \n\r ";
	char b[] = "nothing";
	char c[] = "   ";
	char d[] = "";
	char *r;

	r = strim(a);
	KT_EXPECT_STREQ(t, r, "hello world");
	KT_EXPECT_TRUE(t, r == a + 4);
	KT_EXPECT_STREQ(t, strim(b), "nothing");
	r = strim(c);
	KT_EXPECT_STREQ(t, r, "");
	KT_EXPECT_TRUE(t, r >= c && r <= c + 3);
	KT_EXPECT_STREQ(t, strim(d), "");
}

static void kstrtou64_valid(struct ktest *t)
{
	static const struct {
		const char *s;
		unsigned int base;
		u64 want;
	} cases[] = {
		{ "0", 10, 0 },
		{ "0", 0, 0 },
		{ "42", 10, 42 },
		{ "42", 0, 42 },
		{ "+42", 10, 42 },
		{ "42\n", 10, 42 },
		{ "0x1f", 0, 0x1f },
		{ "0X1F", 0, 0x1f },
		{ "0x1F", 16, 0x1f },
		{ "DEADbeef", 16, 0xdeadbeef },
		{ "ff", 16, 0xff },
		{ "017", 0, 15 },
		{ "017", 10, 17 },
		{ "777", 8, 0777 },
		{ "1011", 2, 11 },
		{ "z", 36, 35 },
		{ "18446744073709551615", 10, UINT64_MAX },
		{ "0xffffffffffffffff", 0, UINT64_MAX },
		{ "01777777777777777777777", 0, UINT64_MAX },
		{ "00000000000000000000000000042", 10, 42 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u64 res = 12345;
		int err = kstrtou64(cases[i].s, cases[i].base, &res);

		KT_EXPECT_EQ(t, err, 0);
		KT_EXPECT_EQ(t, res, cases[i].want);
		if (err || res != cases[i].want)
			ktest_note("input \"%s\" base %u", cases[i].s, cases[i].base);
	}
}

static void kstrtou64_invalid(struct ktest *t)
{
	static const struct {
		const char *s;
		unsigned int base;
		int err;
	} cases[] = {
		{ "", 10, -EINVAL },
		{ "\n", 10, -EINVAL },
		{ "0x", 0, -EINVAL },
		{ "0x", 16, -EINVAL },
		{ "0xg", 0, -EINVAL },
		{ "-1", 10, -EINVAL },
		{ "-0", 10, -EINVAL },
		{ " 1", 10, -EINVAL },
		{ "1 ", 10, -EINVAL },
		{ "1\n\n", 10, -EINVAL },
		{ "12a", 10, -EINVAL },
		{ "08", 0, -EINVAL },
		{ "2", 2, -EINVAL },
		{ "++1", 10, -EINVAL },
		{ "+", 10, -EINVAL },
		{ "1", 1, -EINVAL },
		{ "1", 37, -EINVAL },
		{ "18446744073709551616", 10, -ERANGE },
		{ "99999999999999999999999", 10, -ERANGE },
		{ "0x10000000000000000", 0, -ERANGE },
		{ "0x10000000000000000\n", 16, -ERANGE },
		{ "99999999999999999999999x", 10, -EINVAL },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u64 res = 777;
		int err = kstrtou64(cases[i].s, cases[i].base, &res);

		KT_EXPECT_EQ(t, err, cases[i].err);
		KT_EXPECT_EQ(t, res, 777); /* untouched on error */
		if (err != cases[i].err)
			ktest_note("input \"%s\" base %u", cases[i].s, cases[i].base);
	}
}

static void kstrtos64_edges(struct ktest *t)
{
	s64 res;

	KT_EXPECT_EQ(t, kstrtos64("-0", 10, &res), 0);
	KT_EXPECT_EQ(t, res, 0);
	KT_EXPECT_EQ(t, kstrtos64("-42", 10, &res), 0);
	KT_EXPECT_EQ(t, res, -42);
	KT_EXPECT_EQ(t, kstrtos64("+42\n", 0, &res), 0);
	KT_EXPECT_EQ(t, res, 42);
	KT_EXPECT_EQ(t, kstrtos64("-0x10", 0, &res), 0);
	KT_EXPECT_EQ(t, res, -16);
	KT_EXPECT_EQ(t, kstrtos64("9223372036854775807", 10, &res), 0);
	KT_EXPECT_EQ(t, res, INT64_MAX);
	KT_EXPECT_EQ(t, kstrtos64("-9223372036854775808", 10, &res), 0);
	KT_EXPECT_EQ(t, res, INT64_MIN);
	res = 5;
	KT_EXPECT_EQ(t, kstrtos64("9223372036854775808", 10, &res), -ERANGE);
	KT_EXPECT_EQ(t, kstrtos64("-9223372036854775809", 10, &res), -ERANGE);
	KT_EXPECT_EQ(t, kstrtos64("-18446744073709551616", 10, &res), -ERANGE);
	KT_EXPECT_EQ(t, kstrtos64("-", 10, &res), -EINVAL);
	KT_EXPECT_EQ(t, kstrtos64("--1", 10, &res), -EINVAL);
	KT_EXPECT_EQ(t, kstrtos64("-+1", 10, &res), -EINVAL);
	KT_EXPECT_EQ(t, kstrtos64("", 10, &res), -EINVAL);
	KT_EXPECT_EQ(t, kstrtos64("1-", 10, &res), -EINVAL);
	KT_EXPECT_EQ(t, res, 5);
}

static void kstrtouint_kstrtoint(struct ktest *t)
{
	unsigned int u = 9;
	int i = 9;

	KT_EXPECT_EQ(t, kstrtouint("4294967295", 10, &u), 0);
	KT_EXPECT_EQ(t, u, 4294967295U);
	KT_EXPECT_EQ(t, kstrtouint("0xffffffff", 0, &u), 0);
	KT_EXPECT_EQ(t, u, 0xffffffffU);
	KT_EXPECT_EQ(t, kstrtouint("4294967296", 10, &u), -ERANGE);
	KT_EXPECT_EQ(t, kstrtouint("-1", 10, &u), -EINVAL);
	KT_EXPECT_EQ(t, kstrtouint("x", 10, &u), -EINVAL);
	KT_EXPECT_EQ(t, u, 0xffffffffU);

	KT_EXPECT_EQ(t, kstrtoint("2147483647", 10, &i), 0);
	KT_EXPECT_EQ(t, i, INT32_MAX);
	KT_EXPECT_EQ(t, kstrtoint("-2147483648", 10, &i), 0);
	KT_EXPECT_EQ(t, i, INT32_MIN);
	KT_EXPECT_EQ(t, kstrtoint("2147483648", 10, &i), -ERANGE);
	KT_EXPECT_EQ(t, kstrtoint("-2147483649", 10, &i), -ERANGE);
	KT_EXPECT_EQ(t, kstrtoint("-0x7f\n", 16, &i), 0);
	KT_EXPECT_EQ(t, i, -127);
	KT_EXPECT_EQ(t, kstrtoint("", 0, &i), -EINVAL);
	KT_EXPECT_EQ(t, i, -127);
}

static void kstrtobool_words(struct ktest *t)
{
	/* The tables as written read better than clang-format's columns. */
	/* clang-format off */
	static const char *const yes[] = { "1", "y", "Y", "yes", "YeS", "on", "ON", "true", "True",
					   "TRUE", "y\n", "on\n" };
	static const char *const no[] = { "0", "n", "N", "no", "NO", "off", "Off", "false", "FALSE",
					  "0\n", "false\n" };
	static const char *const bad[] = { "", "\n", "2", "yy", "ye", "of", "offf", "yes\n\n",
					   " yes", "yes ", "tru", "truex", "10", "nope" };
	/* clang-format on */
	size_t i;
	bool res;

	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		res = false;
		KT_EXPECT_EQ(t, kstrtobool(yes[i], &res), 0);
		KT_EXPECT_TRUE(t, res == true);
	}
	for (i = 0; i < ARRAY_SIZE(no); i++) {
		res = true;
		KT_EXPECT_EQ(t, kstrtobool(no[i], &res), 0);
		KT_EXPECT_TRUE(t, res == false);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		res = true;
		KT_EXPECT_EQ(t, kstrtobool(bad[i], &res), -EINVAL);
		KT_EXPECT_TRUE(t, res == true);
		if (kstrtobool(bad[i], &res) != -EINVAL)
			ktest_note("accepted \"%s\"", bad[i]);
	}
}

static void kstrtou64_suffix_sizes(struct ktest *t)
{
	u64 res = 1;

	KT_EXPECT_EQ(t, kstrtou64_suffix("0", &res), 0);
	KT_EXPECT_EQ(t, res, 0);
	KT_EXPECT_EQ(t, kstrtou64_suffix("4096", &res), 0);
	KT_EXPECT_EQ(t, res, 4096);
	KT_EXPECT_EQ(t, kstrtou64_suffix("4K", &res), 0);
	KT_EXPECT_EQ(t, res, 4096);
	KT_EXPECT_EQ(t, kstrtou64_suffix("4k\n", &res), 0);
	KT_EXPECT_EQ(t, res, 4096);
	KT_EXPECT_EQ(t, kstrtou64_suffix("16M", &res), 0);
	KT_EXPECT_EQ(t, res, 16ULL << 20);
	KT_EXPECT_EQ(t, kstrtou64_suffix("2G", &res), 0);
	KT_EXPECT_EQ(t, res, 2ULL << 30);
	KT_EXPECT_EQ(t, kstrtou64_suffix("0x10m", &res), 0);
	KT_EXPECT_EQ(t, res, 16ULL << 20);
	KT_EXPECT_EQ(t, kstrtou64_suffix("17179869183G", &res), 0);
	KT_EXPECT_EQ(t, res, 17179869183ULL << 30);
	res = 3;
	KT_EXPECT_EQ(t, kstrtou64_suffix("17179869184G", &res), -ERANGE);
	KT_EXPECT_EQ(t, kstrtou64_suffix("18014398509481984K", &res), -ERANGE);
	KT_EXPECT_EQ(t, kstrtou64_suffix("99999999999999999999", &res), -ERANGE);
	KT_EXPECT_EQ(t, kstrtou64_suffix("", &res), -EINVAL);
	KT_EXPECT_EQ(t, kstrtou64_suffix("K", &res), -EINVAL);
	KT_EXPECT_EQ(t, kstrtou64_suffix("4KB", &res), -EINVAL);
	KT_EXPECT_EQ(t, kstrtou64_suffix("4T", &res), -EINVAL);
	KT_EXPECT_EQ(t, kstrtou64_suffix("4 K", &res), -EINVAL);
	KT_EXPECT_EQ(t, kstrtou64_suffix("-4K", &res), -EINVAL);
	KT_EXPECT_EQ(t, res, 3);
}

/* Random round trip: print with a reference loop, parse back. */
static void kstrtou64_random_roundtrip(struct ktest *t)
{
	struct prng r;
	int n;

	prng_seed(&r, 42);
	for (n = 0; n < 2000; n++) {
		u64 v = prng_u64(&r) >> prng_below(&r, 64);
		unsigned int base = 2 + prng_below(&r, 35);
		char text[80], *p = text + sizeof(text);
		u64 x = v, res = 0;

		*--p = '\0';
		do {
			*--p = "0123456789abcdefghijklmnopqrstuvwxyz"[x % base];
			x /= base;
		} while (x);
		KT_EXPECT_EQ(t, kstrtou64(p, base, &res), 0);
		KT_EXPECT_EQ(t, res, v);
	}
}

static void strlist_items(struct ktest *t)
{
	const char *pos = "ab,,c", *item;
	size_t len = 99;

	item = strlist_next(&pos, &len);
	KT_EXPECT_TRUE(t, item && len == 2 && !strncmp(item, "ab", 2));
	item = strlist_next(&pos, &len);
	KT_EXPECT_TRUE(t, item && len == 0);
	item = strlist_next(&pos, &len);
	KT_EXPECT_TRUE(t, item && len == 1 && *item == 'c');
	KT_EXPECT_TRUE(t, strlist_next(&pos, &len) == NULL);
	pos = "";
	KT_EXPECT_TRUE(t, strlist_next(&pos, &len) == NULL);

	KT_EXPECT_TRUE(t, strlist_has("sched,smp,all", "smp", 3));
	KT_EXPECT_TRUE(t, strlist_has("sched,smp,all", "all", 3));
	KT_EXPECT_TRUE(t, strlist_has("sched", "sched", 5));
	KT_EXPECT_TRUE(t, !strlist_has("sched,smp", "sm", 2)); /* whole items only */
	KT_EXPECT_TRUE(t, !strlist_has("sched,smp", "smpx", 4));
	KT_EXPECT_TRUE(t, !strlist_has("", "a", 1));
	KT_EXPECT_TRUE(t, strlist_has("a,,b", "", 0)); /* the empty item */
}

/* The words of line, each checked in order, then the end. */
static void expect_words(struct ktest *t, const char *line, const char *const *want, size_t n)
{
	const char *pos = line;
	char word[32];

	for (size_t i = 0; i < n; i++) {
		ssize_t len = strword_next(&pos, word, sizeof(word));

		KT_EXPECT_EQ(t, len, (ssize_t)strlen(want[i]));
		KT_EXPECT_STREQ(t, word, want[i]);
	}
	KT_EXPECT_EQ(t, strword_next(&pos, word, sizeof(word)), -ENOENT);
	KT_EXPECT_EQ(t, strword_next(&pos, word, sizeof(word)), -ENOENT); /* stays at the end */
}

static void strword_splits(struct ktest *t)
{
	static const char *const plain[] = { "offline", "3" };
	static const char *const params[] = { "loglevel=8", "test=all", "nox2apic" };
	static const char *const quoted[] = { "msg=a b", "x", "", "one word", "q" };
	static const char *const unclosed[] = { "a", "b c  " };

	expect_words(t, "offline 3", plain, 2);
	expect_words(t, "  offline   3  ", plain, 2);
	expect_words(t, "loglevel=8\ttest=all\n nox2apic\n", params, 3);
	expect_words(t, "msg=\"a b\" x \"\" \"one\"\" word\" q", quoted, 5);
	expect_words(t, "a \"b c  ", unclosed, 2);
	expect_words(t, "", NULL, 0);
	expect_words(t, " \t\n ", NULL, 0);
}

static void strword_truncates(struct ktest *t)
{
	const char *pos = "abcdef \"gh ij\" k";
	char word[4] = "zzz";

	KT_EXPECT_EQ(t, strword_next(&pos, word, sizeof(word)), -E2BIG);
	KT_EXPECT_STREQ(t, word, "abc");
	KT_EXPECT_STREQ(t, pos, " \"gh ij\" k"); /* past the whole word */
	KT_EXPECT_EQ(t, strword_next(&pos, word, sizeof(word)), -E2BIG);
	KT_EXPECT_STREQ(t, word, "gh "); /* quotes take no room */
	KT_EXPECT_EQ(t, strword_next(&pos, word, sizeof(word)), 1);
	KT_EXPECT_STREQ(t, word, "k");
	/* A word of exactly size - 1 characters fits. */
	pos = "abc";
	KT_EXPECT_EQ(t, strword_next(&pos, word, sizeof(word)), 3);
	KT_EXPECT_STREQ(t, word, "abc");
	/* size 0: nothing is written, the word is still skipped. */
	pos = "xy z";
	KT_EXPECT_EQ(t, strword_next(&pos, word, 0), -E2BIG);
	KT_EXPECT_STREQ(t, word, "abc");
	KT_EXPECT_STREQ(t, pos, " z");
}

static const struct ktest_case string_cases[] = {
	KTEST_CASE(strlist_items),
	KTEST_CASE(strword_splits),
	KTEST_CASE(strword_truncates),
	KTEST_CASE(memcpy_basic),
	KTEST_CASE(memmove_overlap),
	KTEST_CASE(memset_basic),
	KTEST_CASE(memcmp_basic),
	KTEST_CASE(strlen_strnlen),
	KTEST_CASE(strcmp_strncmp),
	KTEST_CASE(strchr_strrchr),
	KTEST_CASE(strstr_basic),
	KTEST_CASE(strscpy_fits),
	KTEST_CASE(strscpy_truncates),
	KTEST_CASE(strim_basic),
	KTEST_CASE(kstrtou64_valid),
	KTEST_CASE(kstrtou64_invalid),
	KTEST_CASE(kstrtos64_edges),
	KTEST_CASE(kstrtouint_kstrtoint),
	KTEST_CASE(kstrtobool_words),
	KTEST_CASE(kstrtou64_suffix_sizes),
	KTEST_CASE(kstrtou64_random_roundtrip),
};

KTEST_SUITE(string, string_cases);
