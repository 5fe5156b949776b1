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

/* Decimal digits of v, right-aligned ending at end; returns the start. */
static char *digits(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
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

/* Scale to an integer of `sig` digits, print integer and fraction parts
 * from it.  Falls back to printf only outside the plain range. */
void sl_fmt_sig(char *out, double v, int sig)
{
	if (sig < 1)
		sig = 1;
	if (sig > 14) /* keeps the scaled value below 10^17 */
		sig = 14;
	double a = fabs(v);
	if (!isfinite(v) || (a != 0 && (a < 1e-4 || a >= 1e15))) {
		snprintf(out, 32, "%.*g", sig, v);
		return;
	}
	if (a == 0) {
		strcpy(out, "0");
		return;
	}
	int e = (int)floor(log10(a));
	int d = sig - 1 - e;
	if (d < 0)
		d = 0;
	uint64_t s = (uint64_t)llround(a * (double)pow10u[d]);
	uint64_t ip = s / pow10u[d], fp = s % pow10u[d];
	char *o = out;
	if (v < 0)
		*o++ = '-';
	char b[24], *end = b + sizeof b, *p = digits(end, ip);
	memcpy(o, p, (size_t)(end - p));
	o += end - p;
	if (fp) {
		*o++ = '.';
		for (int i = d - 1; i >= 0; i--) {
			*o++ = (char)('0' + fp / pow10u[i]);
			fp %= pow10u[i];
		}
		while (o[-1] == '0')
			o--;
	}
	*o = 0;
}

void sl_ob_double(sl_obuf *ob, double v, int sig)
{
	char b[40];
	sl_fmt_sig(b, v, sig);
	sl_ob_str(ob, b);
}
