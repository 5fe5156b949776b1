/*
 * A buffered text writer with fast number formatting, private to the
 * prediction writers: `predict --all --per interval` writes tens of
 * millions of numbers, where printf's generality would dominate the run.
 */
#ifndef SLEUTH_MODELS_OUTBUF_H
#define SLEUTH_MODELS_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sl_obuf {
	FILE *f;
	char *buf;
	size_t len, cap;
	int err;       /* a write failed */
} sl_obuf;

void sl_ob_init(sl_obuf *ob, FILE *f);
/* Flush and free the buffer; -1 with sl_error() if any write failed. */
int sl_ob_finish(sl_obuf *ob);
void sl_ob_mem(sl_obuf *ob, const char *s, size_t n);
void sl_ob_str(sl_obuf *ob, const char *s);
void sl_ob_char(sl_obuf *ob, char c);
void sl_ob_u64(sl_obuf *ob, uint64_t v);
/* Room for n bytes (n at most the buffer's capacity) at the buffer's end:
 * write into it, then add what was written to ob->len. */
char *sl_ob_room(sl_obuf *ob, size_t n);
/* The digits of v at out (no terminator); their count. */
size_t sl_fmt_u64(char *out, uint64_t v);
/* `sig` (1..14) significant digits, plain decimal notation for 1e-4 <= |v| < 1e15
 * (exponent notation outside), no trailing zeros; "nan"/"inf" as printf. */
void sl_ob_double(sl_obuf *ob, double v, int sig);
/* The same into a string (at least 40 bytes); returns its length. */
size_t sl_fmt_sig(char *out, double v, int sig);

#endif
