/*
 * libFuzzer harness: the trace reader (sleuth-trace/1), the header and
 * every interval, through the reader's parser thread.  Differential: each
 * input is read by the canonical-form reader (handing over to libyaml where
 * it does not take a line) and by libyaml alone (SLEUTH_TRACE_FAST=0); the
 * two must agree on every value, the end and the error message, else the
 * harness aborts.
 * Build and run: docs/hacking.md, "Fuzzing".
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzz.h"
#include "sleuth/trace.h"

typedef struct outcome {
	int rc;
	size_t n;
	uLong crc; /* of every interval's values */
	char err[512];
} outcome;

static outcome result;

static void read_one(const char *path)
{
	outcome *o = &result;
	sl_trace_reader *r = sl_trace_open(path);
	sl_trace_interval iv;
	memset(o, 0, sizeof *o);
	o->crc = crc32(0L, Z_NULL, 0);
	if (!r) {
		o->rc = -2;
		snprintf(o->err, sizeof o->err, "%s", sl_error());
		return;
	}
	size_t ne = sl_trace_header_of(r)->n_events;
	while ((o->rc = sl_trace_next(r, &iv)) > 0) {
		o->n++;
		o->crc = crc32(o->crc, (const Bytef *)&iv.t, sizeof iv.t);
		o->crc = crc32(o->crc, (const Bytef *)iv.n, (uInt)(ne * sizeof *iv.n));
		if (iv.n_br)
			o->crc = crc32(o->crc, (const Bytef *)iv.br,
				       (uInt)(iv.n_br * sizeof *iv.br));
		o->crc = crc32(o->crc, (const Bytef *)&iv.n_br, sizeof iv.n_br);
		if (iv.has_e)
			o->crc = crc32(o->crc, (const Bytef *)&iv.e, sizeof iv.e);
		if (iv.has_temp)
			o->crc = crc32(o->crc, (const Bytef *)&iv.temp, sizeof iv.temp);
		if (iv.label)
			o->crc = crc32(o->crc, (const Bytef *)iv.label, (uInt)strlen(iv.label) + 1);
	}
	if (o->rc < 0)
		snprintf(o->err, sizeof o->err, "%s", sl_error());
	sl_trace_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	outcome fast;
	setenv("SLEUTH_TRACE_FAST", "1", 1);
	fuzz_path_reader(data, size, read_one);
	fast = result;
	setenv("SLEUTH_TRACE_FAST", "0", 1);
	fuzz_path_reader(data, size, read_one);
	/* The same result: the same intervals, or the same error.  Before an
	 * error the readers may have handed out a different number of
	 * intervals (libyaml's scanner looks one token ahead, so it finds an
	 * error on the next line before it ends the interval above it); every
	 * caller throws those away with the error, so only the error counts. */
	if (fast.rc != result.rc || strcmp(fast.err, result.err) ||
	    (result.rc == 0 && (fast.n != result.n || fast.crc != result.crc))) {
		fprintf(stderr, "the two trace readers differ: fast rc %d, %zu intervals, "
			"'%s'; libyaml rc %d, %zu intervals, '%s'\n", fast.rc, fast.n,
			fast.err, result.rc, result.n, result.err);
		abort();
	}
	return 0;
}
