/* kernel/debug/ubsan.c - the handlers GCC's -fsanitize=undefined calls (the
 * sanitized build, `make SAN=1`; docs/sanitizers.md).
 *
 * Each check the compiler inserts calls one of these with a pointer to a
 * static description of the site (its source location, the types) and the
 * values involved. A handler reports the first time a site fires, through
 * report_bug("ubsan", ...) with a backtrace, and returns: the code goes on
 * as it would have without the check (GCC's recoverable mode). A site that
 * fires again stays quiet (its location's reported bit, set atomically).
 * builtin_unreachable cannot return: it panics.
 *
 * This file is built without the instrumentation (the Makefile), so the
 * handlers never call themselves. They may be called from any context,
 * interrupts and early boot included: report_bug() is safe there.
 *
 * The layouts below are GCC 12's (gcc/ubsan.cc), the same as
 * compiler-rt's and Linux's lib/ubsan.h.
 */
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/cpu.h"
#include "kernel/ksyms.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "lib/compiler.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "lib/types.h"

struct source_location {
	const char *file;
	u32 line; /* bit 31: reported already */
	u32 column;
};

struct type_descriptor {
	u16 kind; /* 0 integer, 1 float, 0xffff other */
	u16 info; /* integer: log2(bit width) << 1 | signed */
	char name[];
};

struct overflow_data {
	struct source_location loc;
	struct type_descriptor *type;
};

struct shift_data {
	struct source_location loc;
	struct type_descriptor *lhs_type;
	struct type_descriptor *rhs_type;
};

struct out_of_bounds_data {
	struct source_location loc;
	struct type_descriptor *array_type;
	struct type_descriptor *index_type;
};

struct type_mismatch_data {
	struct source_location loc;
	struct type_descriptor *type;
	u8 log_alignment;
	u8 type_check_kind;
};

struct invalid_value_data {
	struct source_location loc;
	struct type_descriptor *type;
};

struct pointer_overflow_data {
	struct source_location loc;
};

struct invalid_builtin_data {
	struct source_location loc;
	u8 kind;
};

struct nonnull_arg_data {
	struct source_location loc;
	struct source_location attr_loc;
	int arg_index;
};

struct nonnull_return_data {
	struct source_location attr_loc;
};

struct unreachable_data {
	struct source_location loc;
};

#define REPORTED_BIT 31

/* The first time this site fires? (Marks it.) */
static bool first_report(struct source_location *loc)
{
	u32 old = __atomic_fetch_or(&loc->line, 1u << REPORTED_BIT, __ATOMIC_RELAXED);

	return !(old & (1u << REPORTED_BIT));
}

static u32 line_of(const struct source_location *loc)
{
	return loc->line & ~(1u << REPORTED_BIT);
}

static bool type_is_signed(const struct type_descriptor *t)
{
	return t->kind == 0 && (t->info & 1);
}

static unsigned int type_bits(const struct type_descriptor *t)
{
	return t->kind == 0 ? 1u << (t->info >> 1) : 0;
}

/* A value handle as text: integers up to 64 bits are passed by value
 * (sign-extended when signed); wider ones by pointer (shown as such). */
static void value_str(char *buf, size_t size, const struct type_descriptor *t, unsigned long v)
{
	if (t->kind == 0 && type_bits(t) > 64)
		scnprintf(buf, size, "(a %u-bit value)", type_bits(t));
	else if (type_is_signed(t))
		scnprintf(buf, size, "%ld", (long)v);
	else
		scnprintf(buf, size, "%lu", v);
}

/* The return address into the checked code: the frame above the
 * __ubsan_handle_* one that called report() (NULL if none is found). */
static const void *site_of_handler(void)
{
	u64 ips[8], off, len;
	unsigned int n = save_backtrace(read_rbp(), ips, ARRAY_SIZE(ips));

	for (unsigned int i = 0; i + 1 < n; i++) {
		const char *name = ksym_lookup(ips[i] - 1, &off, &len);

		if (name && strncmp(name, "__ubsan_handle_", 15) == 0)
			return (const void *)ips[i + 1];
	}
	return NULL;
}

/* One report: what, where, the details, and the stack. */
static void __printf(3, 4)
	report(struct source_location *loc, const char *what, const char *fmt, ...)
{
	char detail[160];
	va_list ap;

	if (!first_report(loc))
		return;
	va_start(ap, fmt);
	vscnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	report_bug("ubsan", "%s at %s:%u:%u: %s", what, loc->file, line_of(loc), loc->column,
		   detail);
	dump_stack_from(site_of_handler());
}

/* The handlers, declared here for -Wmissing-prototypes: only the compiler
 * calls them. */
void __ubsan_handle_add_overflow(struct overflow_data *d, unsigned long a, unsigned long b);
void __ubsan_handle_sub_overflow(struct overflow_data *d, unsigned long a, unsigned long b);
void __ubsan_handle_mul_overflow(struct overflow_data *d, unsigned long a, unsigned long b);
void __ubsan_handle_negate_overflow(struct overflow_data *d, unsigned long old);
void __ubsan_handle_divrem_overflow(struct overflow_data *d, unsigned long a, unsigned long b);
void __ubsan_handle_shift_out_of_bounds(struct shift_data *d, unsigned long a, unsigned long b);
void __ubsan_handle_out_of_bounds(struct out_of_bounds_data *d, unsigned long index);
void __ubsan_handle_type_mismatch_v1(struct type_mismatch_data *d, unsigned long ptr);
void __ubsan_handle_load_invalid_value(struct invalid_value_data *d, unsigned long val);
void __ubsan_handle_vla_bound_not_positive(struct invalid_value_data *d, unsigned long bound);
void __ubsan_handle_pointer_overflow(struct pointer_overflow_data *d, unsigned long base,
				     unsigned long result);
void __ubsan_handle_invalid_builtin(struct invalid_builtin_data *d);
void __ubsan_handle_nonnull_arg(struct nonnull_arg_data *d);
void __ubsan_handle_nonnull_return_v1(struct nonnull_return_data *d, struct source_location *loc);
__noreturn void __ubsan_handle_builtin_unreachable(struct unreachable_data *d);

static void arith_overflow(struct overflow_data *d, const char *op, unsigned long a,
			   unsigned long b)
{
	char sa[32], sb[32];

	value_str(sa, sizeof(sa), d->type, a);
	value_str(sb, sizeof(sb), d->type, b);
	report(&d->loc, type_is_signed(d->type) ? "signed-integer-overflow" : "integer-overflow",
	       "%s %s %s cannot be represented in type %s", sa, op, sb, d->type->name);
}

void __ubsan_handle_add_overflow(struct overflow_data *d, unsigned long a, unsigned long b)
{
	arith_overflow(d, "+", a, b);
}

void __ubsan_handle_sub_overflow(struct overflow_data *d, unsigned long a, unsigned long b)
{
	arith_overflow(d, "-", a, b);
}

void __ubsan_handle_mul_overflow(struct overflow_data *d, unsigned long a, unsigned long b)
{
	arith_overflow(d, "*", a, b);
}

void __ubsan_handle_negate_overflow(struct overflow_data *d, unsigned long old)
{
	char s[32];

	value_str(s, sizeof(s), d->type, old);
	report(&d->loc, "signed-integer-overflow",
	       "negation of %s cannot be represented in type %s", s, d->type->name);
}

void __ubsan_handle_divrem_overflow(struct overflow_data *d, unsigned long a, unsigned long b)
{
	char sa[32];

	value_str(sa, sizeof(sa), d->type, a);
	if (b == 0 || !type_is_signed(d->type))
		report(&d->loc, "integer-divide-by-zero", "%s divided by zero", sa);
	else
		report(&d->loc, "signed-integer-overflow",
		       "%s / -1 cannot be represented in type %s", sa, d->type->name);
}

void __ubsan_handle_shift_out_of_bounds(struct shift_data *d, unsigned long a, unsigned long b)
{
	char sa[32], sb[32];

	value_str(sa, sizeof(sa), d->lhs_type, a);
	value_str(sb, sizeof(sb), d->rhs_type, b);
	if (type_is_signed(d->rhs_type) && (long)b < 0)
		report(&d->loc, "shift-out-of-bounds", "shift exponent %s is negative", sb);
	else if (b >= type_bits(d->lhs_type))
		report(&d->loc, "shift-out-of-bounds",
		       "shift exponent %s is too large for %u-bit type %s", sb,
		       type_bits(d->lhs_type), d->lhs_type->name);
	else if (type_is_signed(d->lhs_type) && (long)a < 0)
		report(&d->loc, "shift-out-of-bounds", "left shift of negative value %s", sa);
	else
		report(&d->loc, "shift-out-of-bounds",
		       "left shift of %s by %s places cannot be represented in type %s", sa, sb,
		       d->lhs_type->name);
}

void __ubsan_handle_out_of_bounds(struct out_of_bounds_data *d, unsigned long index)
{
	char s[32];

	value_str(s, sizeof(s), d->index_type, index);
	report(&d->loc, "array-index-out-of-bounds", "index %s is out of range for type %s", s,
	       d->array_type->name);
}

static const char *const check_kinds[] = {
	"load of",
	"store to",
	"reference binding to",
	"member access within",
	"member call on",
	"constructor call on",
	"downcast of",
	"downcast of",
	"upcast of",
	"cast to virtual base of",
};

void __ubsan_handle_type_mismatch_v1(struct type_mismatch_data *d, unsigned long ptr)
{
	const char *kind = d->type_check_kind < ARRAY_SIZE(check_kinds) ?
				   check_kinds[d->type_check_kind] :
				   "access to";
	unsigned long align = 1ul << d->log_alignment;

	if (!ptr)
		report(&d->loc, "null-pointer-dereference", "%s null pointer of type %s", kind,
		       d->type->name);
	else if (d->log_alignment && (ptr & (align - 1)))
		report(&d->loc, "misaligned-access",
		       "%s misaligned address %#lx for type %s, which needs %lu-byte alignment",
		       kind, ptr, d->type->name, align);
	else
		report(&d->loc, "object-size-mismatch",
		       "%s address %#lx with too little space for an object of type %s", kind, ptr,
		       d->type->name);
}

void __ubsan_handle_load_invalid_value(struct invalid_value_data *d, unsigned long val)
{
	char s[32];

	value_str(s, sizeof(s), d->type, val);
	report(&d->loc, "invalid-load", "load of value %s is not a valid value for type %s", s,
	       d->type->name);
}

void __ubsan_handle_vla_bound_not_positive(struct invalid_value_data *d, unsigned long bound)
{
	char s[32];

	value_str(s, sizeof(s), d->type, bound);
	report(&d->loc, "vla-bound-not-positive", "variable length array bound %s", s);
}

void __ubsan_handle_pointer_overflow(struct pointer_overflow_data *d, unsigned long base,
				     unsigned long result)
{
	report(&d->loc, "pointer-overflow", "pointer arithmetic on %#lx overflowed to %#lx", base,
	       result);
}

void __ubsan_handle_invalid_builtin(struct invalid_builtin_data *d)
{
	report(&d->loc, "invalid-builtin-use", "passing zero to %s, which is not a valid argument",
	       d->kind == 0 ? "ctz()" : "clz()");
}

void __ubsan_handle_nonnull_arg(struct nonnull_arg_data *d)
{
	report(&d->loc, "nonnull-attribute",
	       "null pointer passed as argument %d, which is declared never null", d->arg_index);
}

void __ubsan_handle_nonnull_return_v1(struct nonnull_return_data *d, struct source_location *loc)
{
	report(loc, "returns-nonnull-attribute",
	       "null pointer returned from a function declared never to return null");
}

__noreturn void __ubsan_handle_builtin_unreachable(struct unreachable_data *d)
{
	panic("ubsan: execution reached an unreachable program point at %s:%u:%u", d->loc.file,
	      line_of(&d->loc), d->loc.column);
}
