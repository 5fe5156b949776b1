/*
 * One JSON string escaper for all of sleuth's JSON output (see
 * sleuth/json.h); UTF-8 validity comes from the same check the HTML
 * report uses (sl_utf8_len).
 */
#include "util/json.h"

#include <string.h>

#include "report/svg.h"

void sl_json_str(void (*put)(void *ctx, const char *bytes, size_t n), void *ctx,
		 const char *s)
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
