/*
 * Buffered output and number formatting for the prediction writers (see
 * outbuf.h): digits are produced from integers, without printf.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outbuf.h"
#include "sleuth/common.h"

#define OB_CAP (1 << 16)

void sl_ob_init(sl_obuf *ob, FILE *f)
{
	ob->f = f;
	ob->cap = OB_CAP;
	ob->buf = sl_xmalloc(ob->cap);
	ob->len = 0;
	ob->err = 0;
}

static void flush(sl_obuf *ob)
{
	if (ob->len && fwrite(ob->buf, 1, ob->len, ob->f) != ob->len && !ob->err) {
		ob->err = errno ? errno : EIO;
	}
	ob->len = 0;
}

int sl_ob_finish(sl_obuf *ob)
{
	flush(ob);
	free(ob->buf);
	ob->buf = NULL;
	if (!ob->err && fflush(ob->f) != 0)
		ob->err = errno ? errno : EIO;
	if (ob->err) {
		sl_error_set("cannot write the predictions: %s", strerror(ob->err));
		return -1;
	}
	return 0;
}

void sl_ob_mem(sl_obuf *ob, const char *s, size_t n)
{
	if (ob->len + n > ob->cap) {
		flush(ob);
		if (n > ob->cap) {
			if (fwrite(s, 1, n, ob->f) != n && !ob->err)
				ob->err = errno ? errno : EIO;
			return;
		}
	}
	memcpy(ob->buf + ob->len, s, n);
	ob->len += n;
}

void sl_ob_str(sl_obuf *ob, const char *s)
{
	sl_ob_mem(ob, s, strlen(s));
}

void sl_ob_char(sl_obuf *ob, char c)
{
	if (ob->len == ob->cap)
		flush(ob);
	ob->buf[ob->len++] = c;
}

/* "00" .. "99": digits are produced two at a time. */
static const char pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal digits of v, right-aligned ending at end; returns the start.
 * Four digits per division while v is large (a division by a constant is
 * a multiply), then two at a time. */
static char *digits(char *end, uint64_t v)
{
	while (v >= 10000) {
		uint32_t r = (uint32_t)(v % 10000);
		v /= 10000;
		end -= 4;
		memcpy(end, pairs + 2 * (r / 100), 2);
		memcpy(end + 2, pairs + 2 * (r % 100), 2);
	}
	if (v >= 100) {
		uint32_t r = (uint32_t)(v % 100);
		v /= 100;
		end -= 2;
		memcpy(end, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * v, 2);
	} else
		*--end = (char)('0' + v);
	return end;
}

char *sl_ob_room(sl_obuf *ob, size_t n)
{
	if (ob->cap - ob->len < n)
		flush(ob);
	return ob->buf + ob->len;
}

size_t sl_fmt_u64(char *out, uint64_t v)
{
	char b[24], *e = b + sizeof b;
	char *s = digits(e, v);
	memcpy(out, s, (size_t)(e - s));
	return (size_t)(e - s);
}

void sl_ob_u64(sl_obuf *ob, uint64_t v)
{
	char b[24], *e = b + sizeof b;
	char *s = digits(e, v);
	sl_ob_mem(ob, s, (size_t)(e - s));
}


static const uint64_t pow10u[] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL,
};

/* Powers of ten 1e-5 .. 1e16 as doubles, indexed by exponent + 5. */
static const double pow10d[] = {
	1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
	1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
};

/* floor(log10(a)) for 1e-4 <= a < 1e15, from the binary exponent and at
 * most two comparisons (log10 itself dominated the output's cost).  a is
 * normal, so its exponent field is frexp's exponent plus 1022. */
static int dec_exponent(double a)
{
	uint64_t bits;
	memcpy(&bits, &a, sizeof bits);
	int e2 = (int)((bits >> 52) & 0x7ff) - 1022;
	/* floor((e2 - 1) * log10(2)) in integers (exact for |e2| < 1600); the
	 * loops below make it exact against the table in any case */
	int e = ((e2 - 1) * 78913) >> 18;
	if (e < -4)
		e = -4;
	while (e < 14 && a >= pow10d[e + 1 + 5])
		e++;
	while (e > -4 && a < pow10d[e + 5])
		e--;
	return e;
}

/* Scale to an integer of `sig` digits, print its digits once and place the
 * decimal point in them.  printf only outside the plain range. */
size_t sl_fmt_sig(char *out, double v, int sig)
{
	if (sig < 1)
		sig = 1;
	if (sig > 14) /* keeps the scaled value below 10^17 */
		sig = 14;
	double a = fabs(v);
	if (!isfinite(v) || (a != 0 && (a < 1e-4 || a >= 1e15)))
		return (size_t)snprintf(out, 32, "%.*g", sig, v);
	if (a == 0) {
		out[0] = '0';
		out[1] = 0;
		return 1;
	}
	int d = sig - 1 - dec_exponent(a);
	if (d < 0)
		d = 0;
	uint64_t s = (uint64_t)(a * (double)pow10u[d] + 0.5);
	char b[24], *end = b + sizeof b, *p = digits(end, s);
	int len = (int)(end - p);
	char *o = out;
	if (v < 0)
		*o++ = '-';
	if (len > d) { /* integer digits, then the fraction */
		memcpy(o, p, (size_t)(len - d));
		o += len - d;
		p += len - d;
	} else {
		*o++ = '0';
	}
	/* fraction: d digits, zero-padded on the left, trailing zeros dropped */
	int lead = d > len ? d - len : 0, nfrac = d - lead;
	while (nfrac > 0 && p[nfrac - 1] == '0')
		nfrac--;
	if (nfrac > 0) {
		*o++ = '.';
		if (lead) {
			memset(o, '0', (size_t)lead);
			o += lead;
		}
		memcpy(o, p, (size_t)nfrac);
		o += nfrac;
	}
	*o = 0;
	return (size_t)(o - out);
}

void sl_ob_double(sl_obuf *ob, double v, int sig)
{
	if (ob->cap - ob->len < 40)
		flush(ob);
	ob->len += sl_fmt_sig(ob->buf + ob->len, v, sig);
}
