/*
 * The one JSON writer behind every JSON sleuth emits (predict, schedule,
 * report).  Names and paths come from files and may hold quotes, control
 * characters or invalid UTF-8, and numbers may be NaN; the output must stay
 * valid JSON all the same.  The writer places the commas and the quoting;
 * the caller chooses the whitespace (where lines break), so each output
 * keeps a layout a person can read, and the number format, because the
 * outputs differ in how many digits they promise.
 */
#ifndef SLEUTH_JSON_H
#define SLEUTH_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef void (*sl_json_put_fn)(void *ctx, const char *bytes, size_t n);

/* Length (2..4) of the valid UTF-8 sequence of a non-ASCII character at
 * s, or 0 if it is not one (overlong, surrogate, truncated, > U+10FFFF).
 * Shared with the HTML report, which must reject what JSON rejects. */
size_t sl_utf8_len(const unsigned char *s);

/* Write `s` as a JSON string literal, quotes included, through put(ctx, bytes,
 * n): valid UTF-8 as is, invalid bytes as \ufffd, '"' and '\\' escaped,
 * control characters as \n or \u00XX.  NULL is written as null. */
void sl_json_str(sl_json_put_fn put, void *ctx, const char *s);
/* The same to a stdio stream. */
void sl_json_fputs(FILE *f, const char *s);

/* Format a finite number into out (at least 40 bytes); return its length. */
typedef size_t (*sl_json_num_fn)(char *out, double v);

#define SL_JSON_DEPTH 16

typedef struct sl_json {
	sl_json_put_fn put;
	void *ctx;
	sl_json_num_fn num;
	int depth;                         /* open containers */
	char close[SL_JSON_DEPTH];         /* '}' or ']' of each */
	unsigned char items[SL_JSON_DEPTH];/* it holds an item already */
	const char *sep[SL_JSON_DEPTH];    /* whitespace after its commas */
	const char *brk;                   /* before the next item, once */
	int after_key;                     /* the next value belongs to a key */
} sl_json;

/* A writer to put(ctx, ...); num NULL: the shortest text that reads back
 * as the same double (sl_fmt_double). */
void sl_json_init(sl_json *w, sl_json_put_fn put, void *ctx, sl_json_num_fn num);
void sl_json_init_file(sl_json *w, FILE *f, sl_json_num_fn num);

/* Open an object ('{') or array ('['), as a value; `sep` is the whitespace
 * after each comma between its items (" " or ""). */
void sl_json_open(sl_json *w, char bracket, const char *sep);
/* Close the innermost container, with `ws` before the bracket if it holds
 * anything (e.g. "\n" to put the bracket on a line of its own). */
void sl_json_close(sl_json *w, const char *ws);
/* Whitespace before the next key or item instead of the container's `sep`
 * (after the comma, if any): a line break and indentation. */
void sl_json_break(sl_json *w, const char *ws);

/* "key": -- the next value is its value. */
void sl_json_key(sl_json *w, const char *key);
/* The same with the key's JSON text given, quotes and ": " included (from
 * sl_json_quote_key), for a writer that writes the same keys millions of
 * times. */
void sl_json_key_text(sl_json *w, const char *text, size_t n);
/* `"key": ` into out (cap bytes); its length, or 0 if it does not fit or
 * needs escaping (then use sl_json_key). */
size_t sl_json_quote_key(char *out, size_t cap, const char *key);
void sl_json_string(sl_json *w, const char *s);   /* NULL: null */
void sl_json_number(sl_json *w, double v);        /* not finite: null */
/* A number formatted already (the caller's digits, e.g. a frequency). */
void sl_json_number_text(sl_json *w, const char *text, size_t n);
void sl_json_uint(sl_json *w, uint64_t v);
void sl_json_bool(sl_json *w, int v);
void sl_json_null(sl_json *w);

#endif
