/* lib/printf.c - the printf family on top of one callback-driven core.
 *
 * vcbprintf() pushes characters one at a time into an emit callback; the
 * buffer variants are thin sinks around it. Each conversion goes through
 * three steps: parse_conversion() reads the spec into a struct conversion,
 * fetch_signed()/fetch_unsigned() (or a plain va_arg) take its argument,
 * and a put_*() function prints it. See printf.h for the supported
 * conversions and the deliberate differences from libc.
 */
#include "printf.h"
#include "string.h"

#define FLAG_LEFT  0x01 /* '-': pad on the right */
#define FLAG_ZERO  0x02 /* '0': pad numbers with zeros */
#define FLAG_PLUS  0x04 /* '+': always print a sign */
#define FLAG_SPACE 0x08 /* ' ': space where a '+' would go */
#define FLAG_ALT   0x10 /* '#': 0x prefix / leading octal zero */

/* Keeps width/precision arithmetic far from int overflow. */
#define FIELD_MAX (1 << 24)

enum length_mod {
	LEN_NONE,
	LEN_HH,
	LEN_H,
	LEN_L,
	LEN_LL,
	LEN_Z,
	LEN_T,
	LEN_J,
};

/* What a conversion prints, as its spec's last character says. */
enum conversion_kind {
	CONV_SIGNED,   /* d i */
	CONV_UNSIGNED, /* u o x X: in base, upper for X */
	CONV_CHAR,     /* c */
	CONV_STRING,   /* s */
	CONV_POINTER,  /* p */
	CONV_SYMBOL,   /* pS, with a resolver registered */
	CONV_PERCENT,  /* %% */
	CONV_LITERAL,  /* unknown, or cut short by the format's end: the spec's own text */
};

/* One parsed conversion spec: "%", flags, width, precision, length, conversion. */
struct conversion {
	unsigned int flags;
	int width;
	int precision; /* -1 when not given */
	enum length_mod length;
	enum conversion_kind kind;
	unsigned int base; /* CONV_UNSIGNED */
	bool upper;	   /* CONV_UNSIGNED: %X */
};

/* ---- output -------------------------------------------------------------- */

struct sink {
	printf_emit_fn emit;
	void *arg;
	size_t count;
};

static void put(struct sink *out, char c)
{
	out->emit(c, out->arg);
	out->count++;
}

static void put_repeat(struct sink *out, char c, int n)
{
	for (; n > 0; n--)
		put(out, c);
}

static void put_str(struct sink *out, const char *s, size_t len)
{
	while (len--)
		put(out, *s++);
}

/*
 * One integer conversion. magnitude is the absolute value; sign is '-',
 * '+', ' ' or 0. Implements C's rules: precision is the minimum digit count
 * (and "%.0d" of 0 prints no digits), '0' is ignored with a precision or
 * '-', "%#x" of 0 has no prefix, "%#o" forces a leading zero.
 */
static void put_number(struct sink *out, const struct conversion *cv, u64 magnitude, char sign,
		       unsigned int base, bool upper)
{
	const char *digit_chars = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char digits[24]; /* 22 octal digits cover 2^64 - 1 */
	char prefix[3];
	int ndigits = 0, nprefix = 0, zeros, pad;

	while (magnitude) {
		digits[ndigits++] = digit_chars[magnitude % base];
		magnitude /= base;
	}
	if (ndigits == 0 && cv->precision != 0)
		digits[ndigits++] = '0';

	zeros = cv->precision > ndigits ? cv->precision - ndigits : 0;
	if (sign)
		prefix[nprefix++] = sign;
	if ((cv->flags & FLAG_ALT) && base == 8 && zeros == 0 &&
	    (ndigits == 0 || digits[ndigits - 1] != '0'))
		zeros = 1;
	if ((cv->flags & FLAG_ALT) && base == 16 && ndigits && digits[ndigits - 1] != '0') {
		prefix[nprefix++] = '0';
		prefix[nprefix++] = upper ? 'X' : 'x';
	}

	pad = cv->width - (nprefix + zeros + ndigits);
	if ((cv->flags & (FLAG_ZERO | FLAG_LEFT)) == FLAG_ZERO && cv->precision < 0 && pad > 0) {
		zeros += pad;
		pad = 0;
	}

	if (!(cv->flags & FLAG_LEFT))
		put_repeat(out, ' ', pad);
	put_str(out, prefix, (size_t)nprefix);
	put_repeat(out, '0', zeros);
	while (ndigits)
		put(out, digits[--ndigits]);
	if (cv->flags & FLAG_LEFT)
		put_repeat(out, ' ', pad);
}

/* Text padded to the field width (for %c, %s and %p). */
static void put_padded(struct sink *out, const struct conversion *cv, const char *s, size_t len)
{
	int pad = len < (size_t)FIELD_MAX ? cv->width - (int)len : 0;

	if (!(cv->flags & FLAG_LEFT))
		put_repeat(out, ' ', pad);
	put_str(out, s, len);
	if (cv->flags & FLAG_LEFT)
		put_repeat(out, ' ', pad);
}

int (*printf_symbol_resolver)(char *buf, size_t size, uintptr_t addr);

/* ---- parsing a spec -------------------------------------------------------
 * The spec's '*' width and precision are arguments, taken from *ap here, in
 * format order, before the value the conversion prints. */

static int parse_field_digits(const char **fmt)
{
	int n = 0;

	while (**fmt >= '0' && **fmt <= '9') {
		if (n < FIELD_MAX)
			n = n * 10 + (**fmt - '0');
		(*fmt)++;
	}
	return n < FIELD_MAX ? n : FIELD_MAX;
}

static int clamp_field(int n)
{
	return n > FIELD_MAX ? FIELD_MAX : n;
}

static enum length_mod parse_length(const char **fmt)
{
	const char *p = *fmt;
	enum length_mod len = LEN_NONE;

	switch (*p) {
	case 'h':
		len = p[1] == 'h' ? LEN_HH : LEN_H;
		break;
	case 'l':
		len = p[1] == 'l' ? LEN_LL : LEN_L;
		break;
	case 'z':
		len = LEN_Z;
		break;
	case 't':
		len = LEN_T;
		break;
	case 'j':
		len = LEN_J;
		break;
	default:
		return LEN_NONE;
	}
	*fmt = p + ((len == LEN_HH || len == LEN_LL) ? 2 : 1);
	return len;
}

static unsigned int parse_flags(const char **fmt)
{
	unsigned int flags = 0;

	for (;; (*fmt)++) {
		if (**fmt == '-')
			flags |= FLAG_LEFT;
		else if (**fmt == '0')
			flags |= FLAG_ZERO;
		else if (**fmt == '+')
			flags |= FLAG_PLUS;
		else if (**fmt == ' ')
			flags |= FLAG_SPACE;
		else if (**fmt == '#')
			flags |= FLAG_ALT;
		else
			return flags;
	}
}

/* The width: digits, or '*' (an int argument; negative means '-'). */
static void parse_width(const char **fmt, struct conversion *cv, va_list *ap)
{
	if (**fmt != '*') {
		cv->width = parse_field_digits(fmt);
		return;
	}
	int w = va_arg(*ap, int);

	(*fmt)++;
	if (w < 0) {
		cv->flags |= FLAG_LEFT;
		/* -(w + 1) + 1 avoids negating INT_MIN */
		cv->width = clamp_field(-(w + 1)) + 1;
	} else {
		cv->width = clamp_field(w);
	}
}

/* The precision after a '.': digits, or '*' (an int argument; negative
 * means none); -1 without a '.'. */
static int parse_precision(const char **fmt, va_list *ap)
{
	if (**fmt != '.')
		return -1;
	(*fmt)++;
	if (**fmt != '*')
		return parse_field_digits(fmt);
	int p = va_arg(*ap, int);

	(*fmt)++;
	return p < 0 ? -1 : clamp_field(p);
}

/* The conversion character at *fmt: sets the kind and steps past it (past
 * "pS" too), except at the format's end. */
static void parse_kind(const char **fmt, struct conversion *cv)
{
	char c = **fmt;

	switch (c) {
	case 'd':
	case 'i':
		cv->kind = CONV_SIGNED;
		break;
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		cv->kind = CONV_UNSIGNED;
		cv->base = c == 'u' ? 10 : c == 'o' ? 8 : 16;
		cv->upper = c == 'X';
		break;
	case 'c':
		cv->kind = CONV_CHAR;
		break;
	case 's':
		cv->kind = CONV_STRING;
		break;
	case 'p':
		/* %pS: a code address as symbol+off/size, if the embedder (the
		 * kernel) registered a resolver; else %p then a plain 'S'. */
		cv->kind = (*fmt)[1] == 'S' && printf_symbol_resolver ? CONV_SYMBOL : CONV_POINTER;
		if (cv->kind == CONV_SYMBOL)
			(*fmt)++;
		break;
	case '%':
		cv->kind = CONV_PERCENT;
		break;
	case '\0':
		cv->kind = CONV_LITERAL; /* a lone trailing '%...': print what is there */
		return;
	default:
		cv->kind = CONV_LITERAL;
		break;
	}
	(*fmt)++;
}

/* The spec that starts after a '%' at *fmt; leaves *fmt after it. */
static void parse_conversion(const char **fmt, struct conversion *cv, va_list *ap)
{
	*cv = (struct conversion){ .flags = parse_flags(fmt) };
	parse_width(fmt, cv, ap);
	cv->precision = parse_precision(fmt, ap);
	cv->length = parse_length(fmt);
	parse_kind(fmt, cv);
}

/* ---- fetching the argument ---------------------------------------------- */

/* A signed integer argument of the given length, widened. */
static s64 fetch_signed(enum length_mod length, va_list *ap)
{
	switch (length) {
	case LEN_HH:
		return (signed char)va_arg(*ap, int);
	case LEN_H:
		return (short)va_arg(*ap, int);
	case LEN_L:
		return va_arg(*ap, long);
	case LEN_LL:
		return va_arg(*ap, long long);
	case LEN_Z:
		return va_arg(*ap, ssize_t);
	case LEN_T:
		return va_arg(*ap, ptrdiff_t);
	case LEN_J:
		return va_arg(*ap, intmax_t);
	default:
		return va_arg(*ap, int);
	}
}

/* An unsigned integer argument of the given length, widened. */
static u64 fetch_unsigned(enum length_mod length, va_list *ap)
{
	switch (length) {
	case LEN_HH:
		return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_H:
		return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_L:
		return va_arg(*ap, unsigned long);
	case LEN_LL:
		return va_arg(*ap, unsigned long long);
	case LEN_Z:
	case LEN_T:
		return va_arg(*ap, size_t);
	case LEN_J:
		return va_arg(*ap, uintmax_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

/* ---- converting ---------------------------------------------------------- */

static void put_signed(struct sink *out, const struct conversion *cv, s64 val)
{
	char sign = 0;

	if (val < 0)
		sign = '-';
	else if (cv->flags & FLAG_PLUS)
		sign = '+';
	else if (cv->flags & FLAG_SPACE)
		sign = ' ';
	/* Negate as unsigned so INT64_MIN works. */
	put_number(out, cv, val < 0 ? 0 - (u64)val : (u64)val, sign, 10, false);
}

/* %s: NULL prints "(null)"; a precision limits what is read of s. */
static void put_string(struct sink *out, const struct conversion *cv, const char *s)
{
	if (!s)
		s = "(null)";
	put_padded(out, cv, s, cv->precision < 0 ? strlen(s) : strnlen(s, (size_t)cv->precision));
}

/* %p: "0x" and 16 hex digits. */
static void put_pointer(struct sink *out, const struct conversion *cv, uintptr_t p)
{
	char text[2 + 16];

	text[0] = '0';
	text[1] = 'x';
	for (int i = 17; i >= 2; i--, p >>= 4)
		text[i] = "0123456789abcdef"[p & 0xf];
	put_padded(out, cv, text, sizeof(text));
}

static void put_symbol(struct sink *out, const struct conversion *cv, uintptr_t p)
{
	char sym[128];
	int n = printf_symbol_resolver(sym, sizeof(sym), p);

	put_padded(out, cv, sym, (size_t)n);
}

/* Print the conversion cv parsed from spec[0, len), taking its value from *ap. */
static void put_conversion(struct sink *out, const struct conversion *cv, va_list *ap,
			   const char *spec, size_t len)
{
	switch (cv->kind) {
	case CONV_SIGNED:
		put_signed(out, cv, fetch_signed(cv->length, ap));
		break;
	case CONV_UNSIGNED:
		put_number(out, cv, fetch_unsigned(cv->length, ap), 0, cv->base, cv->upper);
		break;
	case CONV_CHAR: {
		char c = (char)va_arg(*ap, int);

		put_padded(out, cv, &c, 1);
		break;
	}
	case CONV_STRING:
		put_string(out, cv, va_arg(*ap, const char *));
		break;
	case CONV_POINTER:
		put_pointer(out, cv, (uintptr_t)va_arg(*ap, void *));
		break;
	case CONV_SYMBOL:
		put_symbol(out, cv, (uintptr_t)va_arg(*ap, void *));
		break;
	case CONV_PERCENT:
		put(out, '%');
		break;
	case CONV_LITERAL:
		put_str(out, spec, len);
		break;
	}
}

int vcbprintf(printf_emit_fn emit, void *arg, const char *fmt, va_list ap)
{
	struct sink out = { .emit = emit, .arg = arg, .count = 0 };
	/* A va_list parameter may be an array that decays to a pointer: only a
	 * local copy can portably be handed on as va_list *. */
	va_list args;

	va_copy(args, ap);
	while (*fmt) {
		const char *spec = fmt;
		struct conversion cv;

		if (*fmt != '%') {
			put(&out, *fmt++);
			continue;
		}
		fmt++;
		parse_conversion(&fmt, &cv, &args);
		put_conversion(&out, &cv, &args, spec, (size_t)(fmt - spec));
	}
	va_end(args);

	return out.count > INT32_MAX ? INT32_MAX : (int)out.count;
}

int cbprintf(printf_emit_fn emit, void *arg, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vcbprintf(emit, arg, fmt, ap);
	va_end(ap);
	return n;
}

struct buffer_sink {
	char *buf;
	size_t size;
	size_t len; /* chars stored so far, never above size - 1 */
};

static void emit_to_buffer(char c, void *arg)
{
	struct buffer_sink *b = arg;

	if (b->len + 1 < b->size)
		b->buf[b->len++] = c;
}

/* Formats into buf; returns the full length, *stored gets the kept part. */
static int format_to_buffer(char *buf, size_t size, size_t *stored, const char *fmt, va_list ap)
{
	struct buffer_sink b = { .buf = buf, .size = size, .len = 0 };
	int n;

	n = vcbprintf(emit_to_buffer, &b, fmt, ap);
	if (size)
		buf[b.len] = '\0';
	*stored = b.len;
	return n;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t stored;

	return format_to_buffer(buf, size, &stored, fmt, ap);
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t stored;

	format_to_buffer(buf, size, &stored, fmt, ap);
	return (int)stored;
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
