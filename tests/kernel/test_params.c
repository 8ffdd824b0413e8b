/* tests/kernel/test_params.c - command-line parsing, against a private
 * table so the real parameters are untouched. */
#include "kernel/params.h"
#include "kernel/tools/ktest.h"
#include "lib/string.h"

static unsigned int t_uint;
static u64 t_size;
static bool t_flag;
static char t_str[8];
static unsigned int t_mode;
static const char *const t_modes[] = { "fast", "slow", NULL };

static const struct kernel_param table[] = {
	{ .name = "count", .type = PARAM_T_UINT, .var = &t_uint, .min = 1, .max = 100 },
	{ .name = "size", .type = PARAM_T_U64, .var = &t_size, .min = 0, .max = 1ULL << 40 },
	{ .name = "flag", .type = PARAM_T_BOOL, .var = &t_flag },
	{ .name = "name", .type = PARAM_T_STRING, .var = t_str, .size = sizeof(t_str) },
	{ .name = "mode", .type = PARAM_T_ENUM, .var = &t_mode, .choices = t_modes },
};

static int parse(const char *line)
{
	t_uint = 7;
	t_size = 0;
	t_flag = false;
	strscpy(t_str, "dflt", sizeof(t_str));
	t_mode = 0;
	return params_parse_table(line, table, table + ARRAY_SIZE(table));
}

static void good_values(struct ktest *t)
{
	KT_EXPECT_EQ(t, parse("count=42 size=2M flag name=abc mode=slow"), 0);
	KT_EXPECT_EQ(t, t_uint, 42);
	KT_EXPECT_EQ(t, t_size, 2 << 20);
	KT_EXPECT_TRUE(t, t_flag);
	KT_EXPECT_EQ(t, strcmp(t_str, "abc"), 0);
	KT_EXPECT_EQ(t, t_mode, 1);
	KT_EXPECT_EQ(t, parse("count=0x10 flag=off"), 0);
	KT_EXPECT_EQ(t, t_uint, 16);
	KT_EXPECT_FALSE(t, t_flag);
	KT_EXPECT_EQ(t, parse(""), 0);
	KT_EXPECT_EQ(t, parse("   "), 0);
	KT_EXPECT_EQ(t, parse("name=\"a b\""), 0);
	KT_EXPECT_EQ(t, strcmp(t_str, "a b"), 0);
}

static void bad_values_keep_defaults(struct ktest *t)
{
	KT_EXPECT_EQ(t, parse("count=abc"), 1);
	KT_EXPECT_EQ(t, t_uint, 7);
	KT_EXPECT_EQ(t, parse("count=101"), 1); /* out of range */
	KT_EXPECT_EQ(t, t_uint, 7);
	KT_EXPECT_EQ(t, parse("count=0"), 1);
	KT_EXPECT_EQ(t, parse("count=99999999999999999999"), 1);
	KT_EXPECT_EQ(t, t_uint, 7);
	KT_EXPECT_EQ(t, parse("count="), 1);
	KT_EXPECT_EQ(t, parse("count"), 1);
	KT_EXPECT_EQ(t, parse("flag=maybe"), 1);
	KT_EXPECT_FALSE(t, t_flag);
	KT_EXPECT_EQ(t, parse("name=toolongvalue"), 1);
	KT_EXPECT_EQ(t, strcmp(t_str, "dflt"), 0);
	KT_EXPECT_EQ(t, parse("mode=medium"), 1);
	KT_EXPECT_EQ(t, t_mode, 0);
	KT_EXPECT_EQ(t, parse("size=1T"), 1);
}

static void unknown_names_and_repeats(struct ktest *t)
{
	KT_EXPECT_EQ(t, parse("bogus=1 =3 count=5 x"), 3);
	KT_EXPECT_EQ(t, t_uint, 5);
	KT_EXPECT_EQ(t, parse("count=5 count=6"), 0); /* the last wins */
	KT_EXPECT_EQ(t, t_uint, 6);
	KT_EXPECT_EQ(t, parse("count=5 count=zz"), 1); /* an earlier good value stays */
	KT_EXPECT_EQ(t, t_uint, 5);
}

static void garbage_never_crashes(struct ktest *t)
{
	static char line[600];

	for (int i = 0; i < 599; i++)
		line[i] = (char)(1 + (i * 37) % 254);
	line[599] = '\0';
	KT_EXPECT_TRUE(t, parse(line) >= 1);
	KT_EXPECT_TRUE(t, parse("\"unterminated quote=") >= 1);
	KT_EXPECT_EQ(t, t_uint, 7);
}

KTEST_SUITE(params, KTEST_CASE(good_values), KTEST_CASE(bad_values_keep_defaults),
	    KTEST_CASE(unknown_names_and_repeats), KTEST_CASE(garbage_never_crashes));
