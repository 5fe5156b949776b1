/*
 * sleuth-trace/1 reader and writer (shared/spec/formats.md §1).
 *
 * A trace can hold 100k intervals of 200 branches each, so neither side ever
 * holds more than one interval: the reader walks the top-level mapping with
 * libyaml events and loads one interval subtree at a time into the parser's
 * arena; the writer emits one flow mapping per interval straight to libyaml's
 * emitter.
 */
#include "sleuth/trace.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/yamlio.h"

#define TRACE_FORMAT "sleuth-trace/1"

/* Top-level keys, as bits so that duplicates and absences are cheap. */
enum {
	K_FORMAT,
	K_WORKLOAD,
	K_FREQ,
	K_II,
	K_EVENTS,
	K_INTERVALS,
	K_COUNT
};
static const char *const top_keys[K_COUNT] = {
	"format", "workload", "frequency_ghz", "interval_instructions", "events",
	"intervals",
};
#define BIT(k) (1u << (k))
#define HEADER_ALL (BIT(K_FORMAT) | BIT(K_WORKLOAD) | BIT(K_FREQ) | BIT(K_II) | BIT(K_EVENTS))
#define REQUIRED (BIT(K_FORMAT) | BIT(K_FREQ) | BIT(K_II) | BIT(K_EVENTS) | BIT(K_INTERVALS))

struct sl_trace_reader {
	sl_yparser yp;
	char *path;
	sl_trace_header h;
	int two_pass;     /* header keys followed intervals: file read twice */
	int state;        /* 0 streaming, 1 finished, -1 failed */
	size_t index;     /* next interval, counting from 0 */
	uint64_t *n;
	sl_branch *br;
	size_t br_cap;
	char **warned;    /* unknown per-interval keys already warned about */
	size_t n_warned, warned_cap;
};

struct sl_trace_writer {
	sl_ywriter yw;
	size_t n_events;
	size_t index;
};

/* ---- shared validation ---------------------------------------------------- */

/* What is wrong with an events list, or NULL.  Reader and writer share it so
 * that sleuth never writes a trace it would refuse to read. */
static const char *events_problem(char *const *ev, size_t n)
{
	int cycles = 0, instructions = 0;
	for (size_t i = 0; i < n; i++) {
		if (!ev[i] || !ev[i][0])
			return "an event name is empty";
		cycles |= !strcmp(ev[i], "cycles");
		instructions |= !strcmp(ev[i], "instructions");
		for (size_t j = 0; j < i; j++)
			if (!strcmp(ev[i], ev[j]))
				return "an event is listed twice";
	}
	if (!cycles)
		return "'cycles' must be listed (unhalted core cycles are always counted)";
	if (!instructions)
		return "'instructions' must be listed (retired instructions are always counted)";
	return NULL;
}

int sl_trace_event_index(const sl_trace_header *h, const char *name)
{
	for (size_t i = 0; i < h->n_events; i++)
		if (!strcmp(h->events[i], name))
			return (int)i;
	return -1;
}

void sl_trace_header_free(sl_trace_header *h)
{
	for (size_t i = 0; i < h->n_events; i++)
		free(h->events[i]);
	free(h->events);
	free(h->workload);
	memset(h, 0, sizeof *h);
}

/* ---- reader: header ------------------------------------------------------ */

static int top_index(const char *key)
{
	for (int k = 0; k < K_COUNT; k++)
		if (!strcmp(top_keys[k], key))
			return k;
	return -1;
}

static int read_events(sl_trace_reader *r, const sl_ynode *v)
{
	sl_yparser *yp = &r->yp;
	if (sl_yexpect(yp, v, SL_YSEQ, "events") < 0)
		return -1;
	r->h.events = sl_xcalloc(v->n ? v->n : 1, sizeof *r->h.events);
	for (size_t i = 0; i < v->n; i++) {
		const char *s;
		if (sl_yget_str(yp, v->kid[i], "events", &s) < 0)
			return -1;
		r->h.events[r->h.n_events++] = sl_xstrdup(s);
	}
	const char *why = events_problem(r->h.events, r->h.n_events);
	if (why)
		return sl_yerr(yp, v->line, "events", "%s", why);
	return 0;
}

/* Parse the value of header key k (already loaded as v). */
static int read_header_value(sl_trace_reader *r, int k, const sl_ynode *v)
{
	sl_yparser *yp = &r->yp;
	const char *s;
	const char *key = top_keys[k];
	switch (k) {
	case K_FORMAT:
		if (sl_yget_str(yp, v, key, &s) < 0)
			return -1;
		if (strcmp(s, TRACE_FORMAT))
			return sl_yerr(yp, v->line, key,
				       "'%s' is not a sleuth trace format; expected '%s'",
				       s, TRACE_FORMAT);
		return 0;
	case K_WORKLOAD:
		if (sl_yget_str(yp, v, key, &s) < 0)
			return -1;
		free(r->h.workload);
		r->h.workload = sl_xstrdup(s);
		return 0;
	case K_FREQ:
		if (sl_yget_double(yp, v, key, &r->h.frequency_ghz) < 0)
			return -1;
		if (r->h.frequency_ghz <= 0)
			return sl_yerr(yp, v->line, key, "must be > 0, found %s", v->str);
		return 0;
	case K_II:
		if (sl_yget_u64(yp, v, key, &r->h.interval_instructions) < 0)
			return -1;
		if (r->h.interval_instructions == 0)
			return sl_yerr(yp, v->line, key, "must be > 0");
		return 0;
	case K_EVENTS:
		return read_events(r, v);
	}
	return 0;
}

/*
 * Walk the top-level mapping.  In the first pass every header key is parsed;
 * at `intervals` we either start streaming (the whole header has been seen)
 * or skip the list and come back in a second pass (mappings are unordered,
 * so the header may follow the intervals).  Returns 1 when positioned inside
 * the intervals sequence, 0 when the first pass ended needing a second one.
 */
static int walk_top(sl_trace_reader *r, int second)
{
	sl_yparser *yp = &r->yp;
	unsigned seen = 0;
	const char *key;
	int line, rc;
	int doc_line;
	if (sl_yp_begin_document_map(yp) < 0)
		return -1;
	doc_line = sl_yp_line(yp);
	while ((rc = sl_yp_map_key(yp, &key, &line)) > 0) {
		int k = top_index(key);
		if (second) {
			if (k == K_INTERVALS)
				return sl_yp_begin_seq(yp, "intervals") < 0 ? -1 : 1;
			if (sl_yp_skip(yp) < 0)
				return -1;
			continue;
		}
		if (k < 0) {
			sl_warn("%s:%d: unknown key '%s' ignored", r->path, line, key);
			if (sl_yp_skip(yp) < 0)
				return -1;
			continue;
		}
		if (seen & BIT(k))
			return sl_yerr(yp, line, key, "duplicate key");
		seen |= BIT(k);
		if (k == K_INTERVALS) {
			if ((seen & HEADER_ALL) == HEADER_ALL)
				return sl_yp_begin_seq(yp, "intervals") < 0 ? -1 : 1;
			if (sl_yp_skip(yp) < 0)
				return -1;
			continue;
		}
		sl_ynode *v;
		if (sl_yp_load(yp, &v) < 0 || read_header_value(r, k, v) < 0)
			return -1;
		sl_yp_reset(yp);
	}
	if (rc < 0)
		return -1;
	if (second)
		return sl_yerr(yp, doc_line, "intervals", "missing required key");
	for (int k = 0; k < K_COUNT; k++)
		if ((REQUIRED & BIT(k)) && !(seen & BIT(k)))
			return sl_yerr(yp, doc_line, top_keys[k], "missing required key");
	if (sl_yp_end_document(yp) < 0)
		return -1;
	return 0;
}

sl_trace_reader *sl_trace_open(const char *path)
{
	sl_trace_reader *r = sl_xcalloc(1, sizeof *r);
	int rc;
	r->path = sl_xstrdup(path);
	if (sl_yp_open(&r->yp, path) < 0)
		goto fail;
	rc = walk_top(r, 0);
	if (rc < 0)
		goto fail;
	if (rc == 0) {
		r->two_pass = 1;
		sl_yp_close(&r->yp);
		if (sl_yp_open(&r->yp, path) < 0 || walk_top(r, 1) < 0)
			goto fail;
	}
	if (!r->h.workload)
		r->h.workload = sl_xstrdup("");
	r->n = sl_xcalloc(r->h.n_events, sizeof *r->n);
	return r;
fail:
	sl_trace_close(r);
	return NULL;
}

const sl_trace_header *sl_trace_header_of(const sl_trace_reader *r)
{
	return &r->h;
}

/* ---- reader: intervals --------------------------------------------------- */

static void warn_unknown_once(sl_trace_reader *r, const char *key, int line)
{
	for (size_t i = 0; i < r->n_warned; i++)
		if (!strcmp(r->warned[i], key))
			return;
	SL_GROW(r->warned, r->n_warned, r->warned_cap);
	r->warned[r->n_warned++] = sl_xstrdup(key);
	sl_warn("%s:%d: unknown interval key '%s' ignored", r->path, line, key);
}

static int read_counts(sl_trace_reader *r, const sl_ynode *v)
{
	sl_yparser *yp = &r->yp;
	if (sl_yexpect(yp, v, SL_YSEQ, "n") < 0)
		return -1;
	if (v->n != r->h.n_events)
		return sl_yerr(yp, v->line, "n",
			       "has %zu counts but events: lists %zu events", v->n,
			       r->h.n_events);
	for (size_t i = 0; i < v->n; i++)
		if (sl_yget_u64(yp, v->kid[i], "n", &r->n[i]) < 0)
			return -1;
	return 0;
}

static int read_branches(sl_trace_reader *r, const sl_ynode *v, sl_trace_interval *iv)
{
	sl_yparser *yp = &r->yp;
	if (sl_yexpect(yp, v, SL_YSEQ, "br") < 0)
		return -1;
	if (v->n > r->br_cap) {
		r->br_cap = v->n;
		r->br = sl_xreallocarray(r->br, r->br_cap, sizeof *r->br);
	}
	for (size_t i = 0; i < v->n; i++) {
		const sl_ynode *p = v->kid[i];
		if (p->type != SL_YSEQ || p->n != 2)
			return sl_yerr(yp, p->line, "br",
				       "each entry must be an [address, count] pair");
		if (sl_yget_u64(yp, p->kid[0], "br", &r->br[i].addr) < 0 ||
		    sl_yget_u64(yp, p->kid[1], "br", &r->br[i].count) < 0)
			return -1;
	}
	iv->br = r->br;
	iv->n_br = v->n;
	return 0;
}

static int read_interval(sl_trace_reader *r, const sl_ynode *m, sl_trace_interval *iv)
{
	/* `ghz` is sleuth's own extension: the interval's frequency in a trace
	 * run under a schedule (sleuth simulate --schedule). */
	static const char *const known[] = {"t", "n", "br", "e", "label", "ghz"};
	sl_yparser *yp = &r->yp;
	char where[48];
	const sl_ynode *v;
	if (sl_yexpect(yp, m, SL_YMAP, "intervals") < 0)
		return -1;
	for (size_t i = 0; i + 1 < m->n; i += 2) {
		size_t j;
		for (j = 0; j < SL_ARRAY_LEN(known); j++)
			if (!strcmp(known[j], m->kid[i]->str))
				break;
		if (j == SL_ARRAY_LEN(known))
			warn_unknown_once(r, m->kid[i]->str, m->kid[i]->line);
	}
	snprintf(where, sizeof where, "interval %zu", r->index);
	memset(iv, 0, sizeof *iv);
	if (!(v = sl_yreq(yp, m, "t", where)) || sl_yget_double(yp, v, "t", &iv->t) < 0)
		return -1;
	if (iv->t <= 0)
		return sl_yerr(yp, v->line, "t", "the duration must be > 0, found %s", v->str);
	if (!(v = sl_yreq(yp, m, "n", where)) || read_counts(r, v) < 0)
		return -1;
	iv->n = r->n;
	if (!(v = sl_yreq(yp, m, "br", where)) || read_branches(r, v, iv) < 0)
		return -1;
	if ((v = sl_ymap_get(m, "e"))) {
		if (sl_yget_double(yp, v, "e", &iv->e) < 0)
			return -1;
		if (iv->e < 0)
			return sl_yerr(yp, v->line, "e", "energy must be >= 0, found %s",
				       v->str);
		iv->has_e = 1;
	}
	if ((v = sl_ymap_get(m, "label"))) {
		const char *s;
		if (sl_yget_str(yp, v, "label", &s) < 0)
			return -1;
		iv->label = (char *)s; /* in the arena, valid until the next call */
	}
	return 0;
}

/* After the intervals: the rest of the top-level mapping, then the end. */
static int finish(sl_trace_reader *r)
{
	sl_yparser *yp = &r->yp;
	const char *key;
	int line, rc;
	while ((rc = sl_yp_map_key(yp, &key, &line)) > 0) {
		if (!r->two_pass) {
			if (top_index(key) >= 0)
				return sl_yerr(yp, line, key, "duplicate key");
			sl_warn("%s:%d: unknown key '%s' ignored", r->path, line, key);
		}
		if (sl_yp_skip(yp) < 0)
			return -1;
	}
	if (rc < 0)
		return -1;
	return sl_yp_end_document(yp);
}

int sl_trace_next(sl_trace_reader *r, sl_trace_interval *iv)
{
	sl_ynode *m;
	int rc;
	if (r->state)
		return r->state > 0 ? 0 : -1;
	sl_yp_reset(&r->yp);
	rc = sl_yp_seq_more(&r->yp);
	if (rc == 0)
		rc = finish(r) < 0 ? -1 : 0;
	else if (rc > 0)
		rc = sl_yp_load(&r->yp, &m) < 0 || read_interval(r, m, iv) < 0 ? -1 : 1;
	if (rc <= 0)
		r->state = rc < 0 ? -1 : 1;
	else
		r->index++;
	return rc;
}

void sl_trace_close(sl_trace_reader *r)
{
	if (!r)
		return;
	sl_yp_close(&r->yp);
	sl_trace_header_free(&r->h);
	for (size_t i = 0; i < r->n_warned; i++)
		free(r->warned[i]);
	free(r->warned);
	free(r->n);
	free(r->br);
	free(r->path);
	free(r);
}

/* ---- writer -------------------------------------------------------------- */

sl_trace_writer *sl_trace_create(const char *path, const sl_trace_header *h)
{
	const char *why = events_problem(h->events, h->n_events);
	if (why) {
		sl_error_set("cannot write trace %s: events: %s", path, why);
		return NULL;
	}
	if (!isfinite(h->frequency_ghz) || h->frequency_ghz <= 0 ||
	    !h->interval_instructions) {
		sl_error_set("cannot write trace %s: frequency_ghz and "
			     "interval_instructions must be > 0", path);
		return NULL;
	}
	sl_trace_writer *w = sl_xcalloc(1, sizeof *w);
	if (sl_yw_open(&w->yw, path, NULL) < 0) {
		free(w);
		return NULL;
	}
	/* One line per interval: wrapping 4 kB of branches helps no reader. */
	yaml_emitter_set_width(&w->yw.em, INT_MAX);
	w->n_events = h->n_events;
	sl_yw_map(&w->yw, 0);
	sl_yw_kstr(&w->yw, "format", TRACE_FORMAT);
	sl_yw_kstr(&w->yw, "workload", h->workload ? h->workload : "");
	sl_yw_kdouble(&w->yw, "frequency_ghz", h->frequency_ghz);
	sl_yw_ku64(&w->yw, "interval_instructions", h->interval_instructions);
	sl_yw_plain(&w->yw, "events");
	sl_yw_seq(&w->yw, 0);
	for (size_t i = 0; i < h->n_events; i++)
		sl_yw_str(&w->yw, h->events[i]);
	sl_yw_end_seq(&w->yw);
	sl_yw_plain(&w->yw, "intervals");
	sl_yw_seq(&w->yw, 0);
	return w;
}

/* The interval, and its own frequency as `ghz` when ghz > 0. */
static int write_interval(sl_trace_writer *w, const sl_trace_interval *iv, double ghz)
{
	sl_ywriter *yw = &w->yw;
	if (!isfinite(iv->t) || iv->t <= 0 || (iv->has_e && (!isfinite(iv->e) || iv->e < 0))) {
		sl_error_set("cannot write trace %s: interval %zu has t <= 0 or a "
			     "negative or non-finite e", yw->af.path ? yw->af.path : "-",
			     w->index);
		return -1;
	}
	sl_yw_map(yw, 1);
	sl_yw_kdouble(yw, "t", iv->t);
	sl_yw_plain(yw, "n");
	sl_yw_seq(yw, 1);
	for (size_t i = 0; i < w->n_events; i++)
		sl_yw_u64(yw, iv->n[i]);
	sl_yw_end_seq(yw);
	sl_yw_plain(yw, "br");
	sl_yw_seq(yw, 1);
	for (size_t i = 0; i < iv->n_br; i++) {
		sl_yw_seq(yw, 1);
		sl_yw_hex(yw, iv->br[i].addr);
		sl_yw_u64(yw, iv->br[i].count);
		sl_yw_end_seq(yw);
	}
	sl_yw_end_seq(yw);
	if (iv->has_e)
		sl_yw_kdouble(yw, "e", iv->e);
	if (iv->label)
		sl_yw_kstr(yw, "label", iv->label);
	if (ghz > 0)
		sl_yw_kdouble(yw, "ghz", ghz);
	sl_yw_end_map(yw);
	w->index++;
	return yw->err ? -1 : 0;
}

int sl_trace_write(sl_trace_writer *w, const sl_trace_interval *iv)
{
	return write_interval(w, iv, 0);
}

int sl_trace_write_at(sl_trace_writer *w, const sl_trace_interval *iv, double ghz)
{
	return write_interval(w, iv, ghz);
}

int sl_trace_commit(sl_trace_writer *w)
{
	sl_yw_end_seq(&w->yw);
	sl_yw_end_map(&w->yw);
	int rc = sl_yw_commit(&w->yw);
	free(w);
	return rc;
}

void sl_trace_abort(sl_trace_writer *w)
{
	if (!w)
		return;
	sl_yw_abort(&w->yw);
	free(w);
}
