/*
 * JSON string literals, written once for every JSON sleuth emits (predict,
 * schedule, report): names and paths come from files and may hold quotes,
 * control characters or invalid UTF-8, and the output must stay valid JSON.
 */
#ifndef SLEUTH_JSON_H
#define SLEUTH_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Write `s` as a JSON string literal, quotes included, through put(ctx, bytes,
 * n): valid UTF-8 as is, invalid bytes as \ufffd, '"' and '\\' escaped,
 * control characters as \n or \u00XX.  NULL is written as null. */
void sl_json_str(void (*put)(void *ctx, const char *bytes, size_t n), void *ctx,
		 const char *s);
/* The same to a stdio stream. */
void sl_json_fputs(FILE *f, const char *s);

#endif
