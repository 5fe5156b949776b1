/*
 * One JSON writer for all of sleuth's JSON output (see util/json.h): the
 * UTF-8 check (which the HTML report uses too), the string escaper, and the
 * commas, brackets and numbers around it.
 */
#include "util/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"

size_t sl_utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
		   : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong 3- and 4-byte forms, surrogates, beyond U+10FFFF */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

void sl_json_str(sl_json_put_fn put, void *ctx, const char *s)
{
	if (!s) {
		put(ctx, "null", 4);
		return;
	}
	put(ctx, "\"", 1);
	const unsigned char *p = (const unsigned char *)s, *run = p;
	/* Plain bytes go out in runs; only what needs escaping is special. */
	for (; *p; p++) {
		const char *esc = NULL;
		char b[8];
		if (*p >= 0x80) {
			size_t n = sl_utf8_len(p);
			if (n) {
				p += n - 1;
				continue;
			}
			esc = "\\ufffd";
		} else if (*p == '"') {
			esc = "\\\"";
		} else if (*p == '\\') {
			esc = "\\\\";
		} else if (*p == '\n') {
			esc = "\\n";
		} else if (*p < 0x20) {
			snprintf(b, sizeof b, "\\u%04x", *p);
			esc = b;
		} else {
			continue;
		}
		if (p > run)
			put(ctx, (const char *)run, (size_t)(p - run));
		put(ctx, esc, strlen(esc));
		run = p + 1;
	}
	if (p > run)
		put(ctx, (const char *)run, (size_t)(p - run));
	put(ctx, "\"", 1);
}

static void put_file(void *ctx, const char *bytes, size_t n)
{
	fwrite(bytes, 1, n, ctx);
}

void sl_json_fputs(FILE *f, const char *s)
{
	sl_json_str(put_file, f, s);
}

static size_t num_shortest(char *out, double v)
{
	sl_fmt_double(out, 40, v);
	return strlen(out);
}

void sl_json_init(sl_json *w, sl_json_put_fn put, void *ctx, sl_json_num_fn num)
{
	memset(w, 0, sizeof *w);
	w->put = put;
	w->ctx = ctx;
	w->num = num ? num : num_shortest;
}

void sl_json_init_file(sl_json *w, FILE *f, sl_json_num_fn num)
{
	sl_json_init(w, put_file, f, num);
}

static void puts_w(sl_json *w, const char *s)
{
	if (*s)
		w->put(w->ctx, s, strlen(s));
}

/* What goes before a key or a value: nothing after a key, else the comma
 * (unless first) and the whitespace. */
static void item(sl_json *w)
{
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (!w->depth)
		return;
	int d = w->depth - 1;
	if (w->items[d])
		w->put(w->ctx, ",", 1);
	puts_w(w, w->brk ? w->brk : w->items[d] ? w->sep[d] : "");
	w->brk = NULL;
	w->items[d] = 1;
}

void sl_json_open(sl_json *w, char bracket, const char *sep)
{
	/* The nesting is the caller's code, not input: too deep is a bug. */
	if (w->depth >= SL_JSON_DEPTH)
		abort();
	item(w);
	w->put(w->ctx, &bracket, 1);
	w->close[w->depth] = bracket == '{' ? '}' : ']';
	w->items[w->depth] = 0;
	w->sep[w->depth] = sep;
	w->depth++;
}

void sl_json_close(sl_json *w, const char *ws)
{
	if (!w->depth)
		abort();
	w->depth--;
	if (w->items[w->depth])
		puts_w(w, ws);
	w->brk = NULL;
	w->put(w->ctx, &w->close[w->depth], 1);
}

void sl_json_break(sl_json *w, const char *ws)
{
	w->brk = ws;
}

/*
 * `s` quoted into b (with `tail` after the closing quote) when it is short
 * and needs no escaping, which is every key and most values: one put
 * instead of one per run.  0 when it does not fit or needs escaping.
 */
static size_t plain_quoted(char *b, size_t cap, const char *s, const char *tail)
{
	size_t n = 0, t = strlen(tail);
	b[n++] = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p >= 0x80 || *p == '"' || *p == '\\' || n + 2 + t >= cap)
			return 0;
		b[n++] = (char)*p;
	}
	b[n++] = '"';
	memcpy(b + n, tail, t);
	return n + t;
}

size_t sl_json_quote_key(char *out, size_t cap, const char *key)
{
	return plain_quoted(out, cap, key, ": ");
}

void sl_json_key_text(sl_json *w, const char *text, size_t n)
{
	item(w);
	w->put(w->ctx, text, n);
	w->after_key = 1;
}

void sl_json_key(sl_json *w, const char *key)
{
	char b[64];
	size_t n = plain_quoted(b, sizeof b, key, ": ");
	item(w);
	if (n) {
		w->put(w->ctx, b, n);
	} else {
		sl_json_str(w->put, w->ctx, key);
		w->put(w->ctx, ": ", 2);
	}
	w->after_key = 1;
}

void sl_json_string(sl_json *w, const char *s)
{
	char b[64];
	size_t n = s ? plain_quoted(b, sizeof b, s, "") : 0;
	item(w);
	if (n)
		w->put(w->ctx, b, n);
	else
		sl_json_str(w->put, w->ctx, s);
}

void sl_json_number(sl_json *w, double v)
{
	if (!isfinite(v)) {
		sl_json_null(w);
		return;
	}
	char b[48];
	size_t n = w->num(b, v);
	item(w);
	w->put(w->ctx, b, n);
}

void sl_json_number_text(sl_json *w, const char *text, size_t n)
{
	item(w);
	w->put(w->ctx, text, n);
}

void sl_json_uint(sl_json *w, uint64_t v)
{
	char b[24];
	size_t i = sizeof b; /* digits from the end: no printf per number */
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	item(w);
	w->put(w->ctx, b + i, sizeof b - i);
}

void sl_json_bool(sl_json *w, int v)
{
	item(w);
	puts_w(w, v ? "true" : "false");
}

void sl_json_null(sl_json *w)
{
	item(w);
	w->put(w->ctx, "null", 4);
}
