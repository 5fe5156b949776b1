/*
 * sleuth-trace/1 (docs/formats.md): a full-information record of
 * one run at one frequency.  Read and written as a stream, one interval at a
 * time, so a trace of any length costs memory for one interval only.
 */
#ifndef SLEUTH_TRACE_H
#define SLEUTH_TRACE_H

#include <stddef.h>
#include <stdint.h>

typedef struct sl_branch {
	uint64_t addr;
	uint64_t count;
} sl_branch;

typedef struct sl_trace_header {
	char *workload;
	double frequency_ghz;
	uint64_t interval_instructions;
	char **events;     /* events[0..n_events) */
	size_t n_events;
} sl_trace_header;

/* Temperatures are degrees C, above absolute zero. */
#define SL_TRACE_TEMP_MIN (-273.15)
#define SL_TRACE_TEMP_MAX 500.0 /* no die runs hotter: a larger value is a unit error */

typedef struct sl_trace_interval {
	double t;          /* seconds, > 0 */
	uint64_t *n;       /* one count per header event */
	sl_branch *br;
	size_t n_br;
	int has_e;
	double e;          /* joules, when has_e */
	char *label;       /* NULL when absent */
	int has_temp;
	double temp;       /* die temperature, degrees C, when has_temp */
	double ghz;        /* the interval's own core frequency (`ghz:`), GHz;
			      0: the header's frequency_ghz */
} sl_trace_interval;

typedef struct sl_trace_reader sl_trace_reader;
typedef struct sl_trace_writer sl_trace_writer;

/* Opens the trace and reads its header.  NULL with sl_error() set. */
sl_trace_reader *sl_trace_open(const char *path);
const sl_trace_header *sl_trace_header_of(const sl_trace_reader *r);
/* 1: *iv filled (storage owned by the reader, valid until the next call);
 * 0: no more intervals; -1: error (sl_error() names file, line, key). */
int sl_trace_next(sl_trace_reader *r, sl_trace_interval *iv);
void sl_trace_close(sl_trace_reader *r);
/* How far the intervals handed out so far reach into the file, in bytes,
 * and the file's size (0 when unknown, e.g. a pipe): for progress. */
void sl_trace_progress(const sl_trace_reader *r, uint64_t *done, uint64_t *total);

/* Streaming writer; the file appears only on commit. */
sl_trace_writer *sl_trace_create(const char *path, const sl_trace_header *h);
int sl_trace_write(sl_trace_writer *w, const sl_trace_interval *iv);
/* The same, plus the interval's own core frequency as the extension key
 * `ghz:` (a run whose frequency changes: `simulate --schedule` or
 * `--dither`; the reader hands it back in sl_trace_interval.ghz,
 * docs/formats.md). */
int sl_trace_write_at(sl_trace_writer *w, const sl_trace_interval *iv, double ghz);
int sl_trace_commit(sl_trace_writer *w); /* frees w */
void sl_trace_abort(sl_trace_writer *w); /* frees w, removes the temp file */

/* Index of an event name in the header, or -1. */
int sl_trace_event_index(const sl_trace_header *h, const char *name);
void sl_trace_header_free(sl_trace_header *h);

#endif
