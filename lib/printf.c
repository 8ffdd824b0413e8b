/* lib/printf.c - the printf family on top of one callback-driven core.
 *
 * vcbprintf() parses the format and pushes characters one at a time into an
 * emit callback; the buffer variants are thin sinks around it. See printf.h
 * for the supported conversions and the deliberate differences from libc.
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

struct conversion {
	unsigned int flags;
	int width;
	int precision; /* -1 when not given */
	enum length_mod length;
};

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

int (*printf_symbol_resolver)(char *buf, size_t size, uintptr_t addr);

int vcbprintf(printf_emit_fn emit, void *arg, const char *fmt, va_list ap)
{
	struct sink out = { .emit = emit, .arg = arg, .count = 0 };

	while (*fmt) {
		const char *spec_start = fmt;
		struct conversion cv = { .flags = 0, .width = 0, .precision = -1 };
		char sign = 0;
		s64 sval;
		u64 uval;

		if (*fmt != '%') {
			put(&out, *fmt++);
			continue;
		}
		fmt++;

		for (;; fmt++) {
			if (*fmt == '-')
				cv.flags |= FLAG_LEFT;
			else if (*fmt == '0')
				cv.flags |= FLAG_ZERO;
			else if (*fmt == '+')
				cv.flags |= FLAG_PLUS;
			else if (*fmt == ' ')
				cv.flags |= FLAG_SPACE;
			else if (*fmt == '#')
				cv.flags |= FLAG_ALT;
			else
				break;
		}

		if (*fmt == '*') {
			int w = va_arg(ap, int);

			fmt++;
			if (w < 0) {
				cv.flags |= FLAG_LEFT;
				/* -(w + 1) + 1 avoids negating INT_MIN */
				cv.width = clamp_field(-(w + 1)) + 1;
			} else {
				cv.width = clamp_field(w);
			}
		} else {
			cv.width = parse_field_digits(&fmt);
		}

		if (*fmt == '.') {
			fmt++;
			if (*fmt == '*') {
				int p = va_arg(ap, int);

				fmt++;
				cv.precision = p < 0 ? -1 : clamp_field(p);
			} else {
				cv.precision = parse_field_digits(&fmt);
			}
		}

		cv.length = parse_length(&fmt);

		switch (*fmt) {
		case 'd':
		case 'i':
			switch (cv.length) {
			case LEN_HH:
				sval = (signed char)va_arg(ap, int);
				break;
			case LEN_H:
				sval = (short)va_arg(ap, int);
				break;
			case LEN_L:
				sval = va_arg(ap, long);
				break;
			case LEN_LL:
				sval = va_arg(ap, long long);
				break;
			case LEN_Z:
				sval = va_arg(ap, ssize_t);
				break;
			case LEN_T:
				sval = va_arg(ap, ptrdiff_t);
				break;
			case LEN_J:
				sval = va_arg(ap, intmax_t);
				break;
			default:
				sval = va_arg(ap, int);
				break;
			}
			if (sval < 0)
				sign = '-';
			else if (cv.flags & FLAG_PLUS)
				sign = '+';
			else if (cv.flags & FLAG_SPACE)
				sign = ' ';
			/* Negate as unsigned so INT64_MIN works. */
			uval = sval < 0 ? 0 - (u64)sval : (u64)sval;
			put_number(&out, &cv, uval, sign, 10, false);
			break;

		case 'u':
		case 'x':
		case 'X':
		case 'o':
			switch (cv.length) {
			case LEN_HH:
				uval = (unsigned char)va_arg(ap, unsigned int);
				break;
			case LEN_H:
				uval = (unsigned short)va_arg(ap, unsigned int);
				break;
			case LEN_L:
				uval = va_arg(ap, unsigned long);
				break;
			case LEN_LL:
				uval = va_arg(ap, unsigned long long);
				break;
			case LEN_Z:
			case LEN_T:
				uval = va_arg(ap, size_t);
				break;
			case LEN_J:
				uval = va_arg(ap, uintmax_t);
				break;
			default:
				uval = va_arg(ap, unsigned int);
				break;
			}
			put_number(&out, &cv, uval, 0,
				   *fmt == 'u' ? 10 :
				   *fmt == 'o' ? 8 :
						 16,
				   *fmt == 'X');
			break;

		case 'c': {
			char c = (char)va_arg(ap, int);

			put_padded(&out, &cv, &c, 1);
			break;
		}

		case 's': {
			const char *s = va_arg(ap, const char *);

			if (!s)
				s = "(null)";
			put_padded(&out, &cv, s,
				   cv.precision < 0 ? strlen(s) : strnlen(s, (size_t)cv.precision));
			break;
		}

		case 'p': {
			uintptr_t p = (uintptr_t)va_arg(ap, void *);
			char text[2 + 16];
			int i;

			/* %pS: a code address as symbol+off/size, if the
			 * embedder (the kernel) registered a resolver. */
			if (fmt[1] == 'S' && printf_symbol_resolver) {
				char sym[128];
				int n = printf_symbol_resolver(sym, sizeof(sym), p);

				fmt++;
				put_padded(&out, &cv, sym, (size_t)n);
				break;
			}

			text[0] = '0';
			text[1] = 'x';
			for (i = 17; i >= 2; i--, p >>= 4)
				text[i] = "0123456789abcdef"[p & 0xf];
			put_padded(&out, &cv, text, sizeof(text));
			break;
		}

		case '%':
			put(&out, '%');
			break;

		case '\0':
			/* A lone trailing '%...': print what is there. */
			put_str(&out, spec_start, (size_t)(fmt - spec_start));
			continue;

		default:
			put_str(&out, spec_start, (size_t)(fmt + 1 - spec_start));
			break;
		}
		fmt++;
	}

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
