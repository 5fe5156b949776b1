/*
 * sleuth-trace/1 reader and writer (docs/formats.md, sleuth-trace/1).
 *
 * A trace can hold 100k intervals of 200 branches each, so neither side ever
 * holds the whole trace: the reader walks the top-level mapping with libyaml
 * events and loads one interval subtree at a time into the parser's arena;
 * the writer prints one flow mapping per interval, one line each.
 *
 * The intervals are most of a trace's bytes, and libyaml was most of the
 * cost of simulating or replaying one.  So the writer prints them itself
 * (libyaml's emitter writes only the header), and the reader parses lines
 * in exactly that form by hand, handing over to libyaml on the first line
 * in any other (see fast_begin); a libyaml-only reader stays behind
 * SLEUTH_TRACE_FAST=0.  Both run in a thread of their own, overlapping
 * with the caller's work: the writer
 * copies each interval into a bounded queue of reusable slots that a thread
 * emits; the reader's thread parses ahead into such slots.  Callers see the
 * same API, the same bytes and the same messages (a thread's error is
 * handed to the caller's thread and reported where it would have been;
 * reader warnings are printed when their interval is handed out).
 * SLEUTH_TRACE_QUEUE=N sets the queue depth (default 256); 0 turns the
 * threads off (everything in the caller's thread, as one loop).
 */
#include "sleuth/trace.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/yamlio.h"
#include "sleuth/common.h"
#include "squeue.h"

#define TRACE_FORMAT "sleuth-trace/1"
#define QUEUE_DEPTH 256
/* Events a trace may list: a profile holds at most as many, and the
 * duplicate check is pairwise. */
#define MAX_TRACE_EVENTS 4096

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

/* Warnings found by the parser thread, printed by the caller's thread when
 * it reaches the interval they belong to (one message per line). */
typedef struct wbuf {
	char *s;
	size_t len, cap;
} wbuf;

/* One queued interval with buffers of its own, reused from one interval to
 * the next (they only grow). */
typedef struct slot {
	sl_trace_interval iv; /* points into the buffers below */
	uint64_t *n;
	sl_branch *br;
	size_t br_cap;
	char *label;
	size_t label_cap;
	wbuf warn;            /* reader: warnings of this interval */
	double ghz;           /* writer: the interval's own frequency, 0: none */
	uint64_t pos;         /* reader: input parsed once this interval was */
} slot;

/* The slots and the thread working on them; n_slots == 0: no thread. */
typedef struct tpipe {
	slot *slots;
	size_t n_slots;
	sl_squeue q;
	pthread_t th;
	int running;          /* th started and not joined yet */
} tpipe;

struct sl_trace_reader {
	sl_yparser yp;        /* parser thread only, once streaming */
	char *path;
	sl_trace_header h;
	size_t cycles;        /* index of `cycles` in h.events */
	int two_pass;         /* header keys followed intervals: file read twice */
	int state;            /* 0 streaming, 1 finished, -1 failed */
	size_t index;         /* next interval to parse, counting from 0 */
	char **warned;        /* unknown per-interval keys already warned about */
	size_t n_warned, warned_cap;
	wbuf pend;            /* warnings not yet attached to an interval */
	tpipe p;
	long held;            /* slot handed to the caller, or -1 */
	int end_rc;           /* parser thread: 0 end of the trace, -1 error */
	char *end_msg;        /* its error, for the caller's thread */
	uint64_t size;        /* the file's size in bytes, 0 if unknown */
	uint64_t pos;         /* input behind the last interval handed out */
	/* The canonical form's own reader (parser thread): fast_f is open while
	 * it reads; fast_start is where the intervals begin. */
	FILE *fast_f;
	char *line;
	size_t line_cap;
	uint64_t fast_start, fast_pos;
};

struct sl_trace_writer {
	sl_ywriter yw;        /* writer thread only, while it runs */
	size_t n_events;
	size_t index;         /* intervals accepted so far */
	tpipe p;
	char *err;            /* the writer thread's error, once it failed */
	FILE *out;            /* the intervals are printed here directly */
	wbuf line;            /* writer thread: the line being made */
};

/* ---- slots and queues ---------------------------------------------------- */

/* SLEUTH_TRACE_QUEUE, or the default when unset or not a number 0-65536
 * (strtoul, not sl_parse_u64: a bad value must not touch sl_error()). */
static size_t queue_depth(void)
{
	const char *e = getenv("SLEUTH_TRACE_QUEUE");
	char *end;
	if (!e || *e < '0' || *e > '9')
		return QUEUE_DEPTH;
	unsigned long v = strtoul(e, &end, 10);
	return *end || v > 65536 ? QUEUE_DEPTH : (size_t)v;
}

static void wbuf_add(wbuf *b, const char *fmt, ...) SL_PRINTF(2, 3);
static void wbuf_add(wbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->len + (size_t)n + 2 > b->cap) {
		b->cap = 2 * (b->len + (size_t)n + 2);
		b->s = sl_xrealloc(b->s, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n + 1; /* each message keeps its NUL */
}

static void wbuf_flush(wbuf *b)
{
	for (size_t i = 0; i < b->len; i += strlen(b->s + i) + 1)
		sl_warn("%s", b->s + i);
	b->len = 0;
}

static void wbuf_swap(wbuf *a, wbuf *b)
{
	wbuf t = *a;
	*a = *b;
	*b = t;
}

static void slot_branches(slot *s, size_t n)
{
	if (n > s->br_cap) {
		s->br_cap = n;
		s->br = sl_xreallocarray(s->br, s->br_cap, sizeof *s->br);
	}
}

static char *slot_label(slot *s, const char *label)
{
	size_t len = strlen(label) + 1;
	if (len > s->label_cap) {
		s->label_cap = len < 32 ? 32 : len;
		s->label = sl_xrealloc(s->label, s->label_cap);
	}
	return memcpy(s->label, label, len);
}

/* Slots for n_events counts each; depth 0 still gets one slot (the reader
 * parses into it when there is no thread). */
static void tpipe_init(tpipe *p, size_t depth, size_t n_events)
{
	p->n_slots = depth;
	p->slots = sl_xcalloc(depth ? depth : 1, sizeof *p->slots);
	for (size_t i = 0; i < (depth ? depth : 1); i++)
		p->slots[i].n = sl_xcalloc(n_events ? n_events : 1, sizeof(uint64_t));
	if (depth)
		sl_squeue_init(&p->q, depth);
}

static void tpipe_start(tpipe *p, void *(*fn)(void *), void *arg)
{
	/* Without a thread everything still works, in the caller's thread. */
	if (p->n_slots && sl_squeue_spawn(&p->th, fn, arg) == 0)
		p->running = 1;
}

/* Stop the thread now (cancel) or after the queue drains (close). */
static void tpipe_join(tpipe *p, int cancel)
{
	if (!p->running)
		return;
	if (cancel)
		sl_squeue_cancel(&p->q);
	else
		sl_squeue_close(&p->q);
	pthread_join(p->th, NULL);
	p->running = 0;
}

static void tpipe_free(tpipe *p)
{
	tpipe_join(p, 1);
	for (size_t i = 0; i < (p->n_slots ? p->n_slots : 1) && p->slots; i++) {
		free(p->slots[i].n);
		free(p->slots[i].br);
		free(p->slots[i].label);
		free(p->slots[i].warn.s);
	}
	free(p->slots);
	if (p->n_slots)
		sl_squeue_destroy(&p->q);
	memset(p, 0, sizeof *p);
}

/* ---- shared validation ---------------------------------------------------- */

/* What is wrong with an events list, or NULL.  Reader and writer share it so
 * that sleuth never writes a trace it would refuse to read. */
static const char *events_problem(char *const *ev, size_t n)
{
	int cycles = 0, instructions = 0;
	if (n > MAX_TRACE_EVENTS)
		return "more than 4096 events";
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
	if (v->n > MAX_TRACE_EVENTS)
		return sl_yerr(yp, v->line, "events", "%zu events; a trace lists at most %d",
			       v->n, MAX_TRACE_EVENTS);
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
	r->cycles = (size_t)sl_trace_event_index(&r->h, "cycles");
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

static void *parse_thread(void *arg);

/*
 * The intervals of a trace as the writer emits them, one flow mapping a
 * line ("- {t: T, n: [..], br: [[0xA, C], ..], e: E, temp: C, label: L,
 * ghz: G}"),
 * are most of its bytes, and libyaml spends most of a replay's time on
 * them.  This reader parses exactly that form, by hand.  On the first line
 * it does not take (anything else YAML allows, and every error), it gives
 * up for good: the trace is reopened with libyaml, which skips the
 * intervals read so far and goes on from there, so the results, warnings
 * and messages are libyaml's own.  SLEUTH_TRACE_FAST=0 turns it off.
 */
static void fast_begin(sl_trace_reader *r)
{
	sl_yparser *yp = &r->yp;
	const char *e = getenv("SLEUTH_TRACE_FAST");
	char head[3];
	if ((e && !strcmp(e, "0")) || sl_yp_line(yp) <= 0 || !yp->have_ev ||
	    yp->ev.type != YAML_MAPPING_START_EVENT ||
	    yp->ev.data.mapping_start.style != YAML_FLOW_MAPPING_STYLE ||
	    yp->ev.start_mark.column != 2)
		return;
	/* libyaml counts characters: the bytes there must be "- {" at the
	 * start of a line (not so after non-ASCII text in the header). */
	uint64_t at = yp->ev.start_mark.index - 2;
	FILE *f = fopen(r->path, "rb");
	if (!f)
		return;
	if (fseeko(f, (off_t)(at ? at - 1 : 0), SEEK_SET) == 0 &&
	    (at == 0 || getc(f) == '\n') && fread(head, 1, 3, f) == 3 &&
	    !memcmp(head, "- {", 3) && fseeko(f, (off_t)at, SEEK_SET) == 0) {
		r->fast_f = f;
		r->fast_start = r->fast_pos = at;
		return;
	}
	fclose(f);
}

sl_trace_reader *sl_trace_open(const char *path)
{
	sl_trace_reader *r = sl_xcalloc(1, sizeof *r);
	int rc;
	r->path = sl_xstrdup(path);
	r->held = -1;
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
	if (!r->two_pass)
		fast_begin(r);
	struct stat st;
	if (fstat(fileno(r->yp.f), &st) == 0 && S_ISREG(st.st_mode))
		r->size = (uint64_t)st.st_size;
	/* The header is complete and read-only from here on: the parser
	 * thread may share it. */
	tpipe_init(&r->p, queue_depth(), r->h.n_events);
	tpipe_start(&r->p, parse_thread, r);
	return r;
fail:
	sl_trace_close(r);
	return NULL;
}

void sl_trace_progress(const sl_trace_reader *r, uint64_t *done, uint64_t *total)
{
	*done = r->pos;
	*total = r->size;
}

const sl_trace_header *sl_trace_header_of(const sl_trace_reader *r)
{
	return &r->h;
}

/* ---- reader: intervals (in the parser thread when there is one) -------- */

static void warn_unknown_once(sl_trace_reader *r, const char *key, int line)
{
	for (size_t i = 0; i < r->n_warned; i++)
		if (!strcmp(r->warned[i], key))
			return;
	SL_GROW(r->warned, r->n_warned, r->warned_cap);
	r->warned[r->n_warned++] = sl_xstrdup(key);
	wbuf_add(&r->pend, "%s:%d: unknown interval key '%s' ignored", r->path, line, key);
}

static int read_counts(sl_trace_reader *r, const sl_ynode *v, slot *s)
{
	sl_yparser *yp = &r->yp;
	if (sl_yexpect(yp, v, SL_YSEQ, "n") < 0)
		return -1;
	if (v->n != r->h.n_events)
		return sl_yerr(yp, v->line, "n",
			       "has %zu counts but events: lists %zu events", v->n,
			       r->h.n_events);
	for (size_t i = 0; i < v->n; i++)
		if (sl_yget_u64(yp, v->kid[i], "n", &s->n[i]) < 0)
			return -1;
	/* Time and power are per cycle: an interval without any would predict
	 * a time of 0 and a power of NaN, silently. */
	if (!s->n[r->cycles])
		return sl_yerr(yp, v->kid[r->cycles]->line, "n",
			       "interval %zu counts 0 cycles; every interval runs "
			       "for at least one", r->index);
	s->iv.n = s->n;
	return 0;
}

static int read_branches(sl_trace_reader *r, const sl_ynode *v, slot *s)
{
	sl_yparser *yp = &r->yp;
	if (sl_yexpect(yp, v, SL_YSEQ, "br") < 0)
		return -1;
	slot_branches(s, v->n);
	for (size_t i = 0; i < v->n; i++) {
		const sl_ynode *p = v->kid[i];
		if (p->type != SL_YSEQ || p->n != 2)
			return sl_yerr(yp, p->line, "br",
				       "each entry must be an [address, count] pair");
		if (sl_yget_u64(yp, p->kid[0], "br", &s->br[i].addr) < 0 ||
		    sl_yget_u64(yp, p->kid[1], "br", &s->br[i].count) < 0)
			return -1;
	}
	s->iv.br = s->br;
	s->iv.n_br = v->n;
	return 0;
}

/* A required member of interval m; "missing required key in interval N". */
static const sl_ynode *required(sl_trace_reader *r, const sl_ynode *m, const char *key)
{
	const sl_ynode *v = sl_ymap_get(m, key);
	if (!v) {
		char where[48];
		snprintf(where, sizeof where, "interval %zu", r->index);
		sl_yreq(&r->yp, m, key, where);
	}
	return v;
}

static int read_interval(sl_trace_reader *r, const sl_ynode *m, slot *s)
{
	/* `ghz` is sleuth's own extension: the interval's frequency in a trace
	 * run under a schedule (sleuth simulate --schedule). */
	static const char *const known[] = {"t", "n", "br", "e", "temp", "label", "ghz"};
	sl_yparser *yp = &r->yp;
	sl_trace_interval *iv = &s->iv;
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
	memset(iv, 0, sizeof *iv);
	if (!(v = required(r, m, "t")) || sl_yget_double(yp, v, "t", &iv->t) < 0)
		return -1;
	if (iv->t <= 0)
		return sl_yerr(yp, v->line, "t", "the duration must be > 0, found %s", v->str);
	if (!(v = required(r, m, "n")) || read_counts(r, v, s) < 0)
		return -1;
	if (!(v = required(r, m, "br")) || read_branches(r, v, s) < 0)
		return -1;
	if ((v = sl_ymap_get(m, "e"))) {
		if (sl_yget_double(yp, v, "e", &iv->e) < 0)
			return -1;
		if (iv->e < 0)
			return sl_yerr(yp, v->line, "e", "energy must be >= 0, found %s",
				       v->str);
		iv->has_e = 1;
	}
	if ((v = sl_ymap_get(m, "temp"))) {
		if (sl_yget_double(yp, v, "temp", &iv->temp) < 0)
			return -1;
		if (!(iv->temp > SL_TRACE_TEMP_MIN))
			return sl_yerr(yp, v->line, "temp", "a temperature in degrees C must "
				       "be above absolute zero (-273.15), found %s", v->str);
		if (iv->temp > SL_TRACE_TEMP_MAX)
			return sl_yerr(yp, v->line, "temp", "%s is not a die temperature in "
				       "degrees C (at most %g)", v->str, SL_TRACE_TEMP_MAX);
		iv->has_temp = 1;
	}
	if ((v = sl_ymap_get(m, "label"))) {
		const char *str;
		if (sl_yget_str(yp, v, "label", &str) < 0)
			return -1;
		iv->label = slot_label(s, str);
	}
	if ((v = sl_ymap_get(m, "ghz"))) {
		if (sl_yget_double(yp, v, "ghz", &iv->ghz) < 0)
			return -1;
		if (!(iv->ghz > 0 && iv->ghz < SL_MAX_GHZ))
			return sl_yerr(yp, v->line, "ghz", "a core frequency in GHz must be "
				       "> 0, found %s", v->str);
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
			wbuf_add(&r->pend, "%s:%d: unknown key '%s' ignored", r->path,
				 line, key);
		}
		if (sl_yp_skip(yp) < 0)
			return -1;
	}
	if (rc < 0)
		return -1;
	return sl_yp_end_document(yp);
}

/* Parse the next interval into s with libyaml: 1 done, 0 end of the
 * trace, -1 error.  Warnings go to r->pend. */
static int yaml_one(sl_trace_reader *r, slot *s)
{
	sl_ynode *m;
	sl_yp_reset(&r->yp);
	int rc = sl_yp_seq_more(&r->yp);
	if (rc == 0)
		return finish(r) < 0 ? -1 : 0;
	if (rc < 0 || sl_yp_load(&r->yp, &m) < 0 || read_interval(r, m, s) < 0)
		return -1;
	/* libyaml counts characters; traces are ASCII, so these are bytes. */
	s->pos = r->yp.p.mark.index;
	r->index++;
	return 1;
}

/* ---- reader: the canonical form (see fast_begin) ------------------------ */

#define LIT(p, s) (!strncmp((p), (s), sizeof(s) - 1) ? ((p) += sizeof(s) - 1, 1) : 0)

/* A number as sl_yget_double reads a plain scalar of these characters. */
static int fast_double(char **p, double *v)
{
	char *s = *p, *e = s;
	while ((*e >= '0' && *e <= '9') || *e == '.' || *e == '-' || *e == '+' ||
	       *e == 'e' || *e == 'E')
		e++;
	if (e == s)
		return 0;
	char c = *e;
	*e = 0;
	int ok = sl_parse_double(s, v) == 0;
	*e = c;
	*p = e;
	return ok;
}

static int fast_dec(char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	if (*s < '0' || *s > '9')
		return 0;
	do {
		unsigned d = (unsigned)(*s++ - '0');
		if (x > (UINT64_MAX - d) / 10)
			return 0;
		x = 10 * x + d;
	} while (*s >= '0' && *s <= '9');
	*v = x;
	*p = (char *)s;
	return 1;
}

static int fast_hex(char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;
	if (s[0] != '0' || s[1] != 'x')
		return 0;
	for (s += 2;; s++, n++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else
			break;
		if (n == 16)
			return 0;
		x = x << 4 | d;
	}
	if (!n)
		return 0;
	*v = x;
	*p = (char *)s;
	return 1;
}

/* A label as the writer prints it: plain [A-Za-z_][A-Za-z0-9_.-]* (not a
 * null word) or double-quoted printable ASCII without escapes. */
static int fast_label(char **p, slot *s)
{
	char *b = *p, *e;
	int quoted = *b == '"';
	if (quoted) {
		for (e = ++b; *e >= ' ' && *e <= '~' && *e != '"' && *e != '\\'; e++)
			;
		if (*e != '"')
			return 0;
	} else {
		if (!((*b >= 'A' && *b <= 'Z') || (*b >= 'a' && *b <= 'z') || *b == '_'))
			return 0;
		for (e = b; (*e >= 'A' && *e <= 'Z') || (*e >= 'a' && *e <= 'z') ||
			    (*e >= '0' && *e <= '9') || *e == '_' || *e == '.' || *e == '-';
		     e++)
			;
	}
	char c = *e;
	*e = 0;
	int null = !quoted && (!strcmp(b, "null") || !strcmp(b, "Null") ||
			       !strcmp(b, "NULL"));
	if (!null)
		s->iv.label = slot_label(s, b);
	*e = c;
	*p = e + quoted;
	return !null;
}

/* One interval line (len bytes, from the parser's buffer) into s: 1, or 0
 * when it is not in the canonical form or not a valid interval. */
static int fast_line(sl_trace_reader *r, char *p, size_t len, slot *s)
{
	char *end = p + len;
	sl_trace_interval *iv = &s->iv;
	size_t nb = 0;
	memset(iv, 0, sizeof *iv);
	if (!LIT(p, "- {t: ") || !fast_double(&p, &iv->t) || !(iv->t > 0) ||
	    !LIT(p, ", n: ["))
		return 0;
	for (size_t i = 0; i < r->h.n_events; i++)
		if ((i && !LIT(p, ", ")) || !fast_dec(&p, &s->n[i]))
			return 0;
	if (!LIT(p, "], br: [") || !s->n[r->cycles])
		return 0;
	while (*p != ']') {
		if (nb && !LIT(p, ", "))
			return 0;
		if (nb == s->br_cap)
			slot_branches(s, 2 * nb + 64);
		if (!LIT(p, "[") || !fast_hex(&p, &s->br[nb].addr) || !LIT(p, ", ") ||
		    !fast_dec(&p, &s->br[nb].count) || !LIT(p, "]"))
			return 0;
		nb++;
	}
	p++;
	iv->n = s->n;
	iv->br = s->br;
	iv->n_br = nb;
	if (LIT(p, ", e: ")) {
		if (!fast_double(&p, &iv->e) || !(iv->e >= 0))
			return 0;
		iv->has_e = 1;
	}
	if (LIT(p, ", temp: ")) {
		if (!fast_double(&p, &iv->temp) || !(iv->temp > SL_TRACE_TEMP_MIN))
			return 0;
		iv->has_temp = 1;
	}
	if (LIT(p, ", label: ") && !fast_label(&p, s))
		return 0;
	if (LIT(p, ", ghz: ") && (!fast_double(&p, &iv->ghz) ||
				  !(iv->ghz > 0 && iv->ghz < SL_MAX_GHZ)))
		return 0;
	return LIT(p, "}") && (p == end || (*p == '\n' && p + 1 == end));
}

/* The canonical reader met a line it does not take: read the trace with
 * libyaml from the start, skip what was handed out, parse the next one. */
static int fast_fallback(sl_trace_reader *r, slot *s)
{
	size_t done = r->index;
	fclose(r->fast_f);
	r->fast_f = NULL;
	sl_yp_close(&r->yp);
	if (sl_yp_open(&r->yp, r->path) < 0 || walk_top(r, 1) < 0)
		return -1;
	r->index = 0;
	while (r->index < done) {
		int rc = yaml_one(r, s);
		if (rc <= 0) {
			if (rc == 0)
				sl_error_set("%s: the trace changed while it was read", r->path);
			return -1;
		}
	}
	return yaml_one(r, s);
}

static int fast_one(sl_trace_reader *r, slot *s)
{
	for (;;) {
		ssize_t n = getline(&r->line, &r->line_cap, r->fast_f);
		if (n < 0) {
			if (ferror(r->fast_f))
				return fast_fallback(r, s);
			fclose(r->fast_f);
			r->fast_f = NULL;
			return 0;
		}
		const char *c = r->line;
		while (*c == ' ')
			c++;
		if (*c == '\n' || *c == '#' || (!*c && c == r->line + n)) {
			r->fast_pos += (uint64_t)n; /* blank or comment */
			continue;
		}
		if (!fast_line(r, r->line, (size_t)n, s))
			return fast_fallback(r, s);
		r->fast_pos += (uint64_t)n;
		s->pos = r->fast_pos;
		r->index++;
		return 1;
	}
}

/* Parse the next interval into s: 1 done, 0 end of the trace, -1 error.
 * Warnings go to r->pend. */
static int parse_one(sl_trace_reader *r, slot *s)
{
	return r->fast_f ? fast_one(r, s) : yaml_one(r, s);
}

/* Parse ahead until the end, an error, or the caller closes the reader.
 * The end (0 or -1, with the error's text) is left in r for the caller. */
static void *parse_thread(void *arg)
{
	sl_trace_reader *r = arg;
	long i;
	while ((i = sl_squeue_reserve(&r->p.q)) >= 0) {
		slot *s = &r->p.slots[i];
		int rc = parse_one(r, s);
		if (rc <= 0) {
			r->end_rc = rc;
			if (rc < 0)
				r->end_msg = sl_xstrdup(sl_error());
			break;
		}
		wbuf_swap(&s->warn, &r->pend); /* pend: the slot's flushed buffer */
		sl_squeue_put(&r->p.q);
	}
	sl_squeue_close(&r->p.q);
	return NULL;
}

int sl_trace_next(sl_trace_reader *r, sl_trace_interval *iv)
{
	int rc;
	if (r->state)
		return r->state > 0 ? 0 : -1;
	if (!r->p.running) { /* no thread: parse here */
		rc = parse_one(r, &r->p.slots[0]);
		wbuf_flush(&r->pend);
		if (rc > 0) {
			*iv = r->p.slots[0].iv;
			r->pos = r->p.slots[0].pos;
			return 1;
		}
	} else {
		if (r->held >= 0)
			sl_squeue_release(&r->p.q);
		r->held = sl_squeue_take(&r->p.q);
		if (r->held >= 0) {
			slot *s = &r->p.slots[r->held];
			wbuf_flush(&s->warn);
			*iv = s->iv;
			r->pos = s->pos;
			return 1;
		}
		/* Closed and drained: the thread has finished. */
		tpipe_join(&r->p, 0);
		wbuf_flush(&r->pend);
		rc = r->end_rc;
		if (rc < 0)
			sl_error_set("%s", r->end_msg);
	}
	r->state = rc < 0 ? -1 : 1;
	return rc;
}

void sl_trace_close(sl_trace_reader *r)
{
	if (!r)
		return;
	tpipe_free(&r->p); /* stops the parser thread first */
	if (r->fast_f)
		fclose(r->fast_f);
	free(r->line);
	sl_yp_close(&r->yp);
	sl_trace_header_free(&r->h);
	for (size_t i = 0; i < r->n_warned; i++)
		free(r->warned[i]);
	free(r->warned);
	free(r->pend.s);
	free(r->end_msg);
	free(r->path);
	free(r);
}

/* ---- writer -------------------------------------------------------------- */

static void *write_thread(void *arg);

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
	/* The intervals are most of the bytes: printed directly in the form
	 * libyaml gave them (and the canonical reader reads), not through
	 * libyaml's emitter, which was half of simulate's time. */
	int column;
	if (!(w->out = sl_yw_detach(&w->yw, &column)) ||
	    fputs(column ? "\nintervals:\n" : "intervals:\n", w->out) < 0) {
		if (w->out)
			sl_error_set("cannot write %s: %s", path, strerror(errno));
		sl_yw_abort(&w->yw);
		free(w);
		return NULL;
	}
	tpipe_init(&w->p, queue_depth(), h->n_events);
	tpipe_start(&w->p, write_thread, w);
	return w;
}

static void lb_put(wbuf *b, const char *s, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = 2 * (b->len + n);
		b->s = sl_xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
}

static void lb_u64(wbuf *b, uint64_t v)
{
	char t[24], *p = t + sizeof t;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	lb_put(b, p, (size_t)(t + sizeof t - p));
}

static void lb_hex(wbuf *b, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char t[24], *p = t + sizeof t;
	do {
		*--p = digits[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	lb_put(b, p, (size_t)(t + sizeof t - p));
}

static void lb_key_double(wbuf *b, const char *key, double v)
{
	char t[40];
	sl_fmt_double(t, sizeof t, v);
	lb_put(b, key, strlen(key));
	lb_put(b, t, strlen(t));
}

/* A label plain when it can be, else double-quoted with escapes. */
static void lb_label(wbuf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	lb_put(b, ", label: ", 9);
	if (sl_yw_plain_ok(s)) {
		lb_put(b, s, strlen(s));
		return;
	}
	lb_put(b, "\"", 1);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\') {
			char e[2] = {'\\', (char)*c};
			lb_put(b, e, 2);
		} else if (*c < 0x20 || *c == 0x7f) {
			char e[4] = {'\\', 'x', hex[*c >> 4], hex[*c & 15]};
			lb_put(b, e, 4);
		} else {
			lb_put(b, (const char *)c, 1);
		}
	}
	lb_put(b, "\"", 1);
}

/* One interval as one line (a flow mapping), with its own frequency as
 * `ghz` when ghz > 0; -1 with sl_error() (of this thread) on a write
 * error. */
static int emit_interval(sl_trace_writer *w, const sl_trace_interval *iv, double ghz)
{
	wbuf *b = &w->line;
	b->len = 0;
	lb_key_double(b, "- {t: ", iv->t);
	lb_put(b, ", n: [", 6);
	for (size_t i = 0; i < w->n_events; i++) {
		if (i)
			lb_put(b, ", ", 2);
		lb_u64(b, iv->n[i]);
	}
	lb_put(b, "], br: [", 8);
	for (size_t i = 0; i < iv->n_br; i++) {
		lb_put(b, i ? ", [" : "[", i ? 3 : 1);
		lb_hex(b, iv->br[i].addr);
		lb_put(b, ", ", 2);
		lb_u64(b, iv->br[i].count);
		lb_put(b, "]", 1);
	}
	lb_put(b, "]", 1);
	if (iv->has_e)
		lb_key_double(b, ", e: ", iv->e);
	if (iv->has_temp)
		lb_key_double(b, ", temp: ", iv->temp);
	if (iv->label)
		lb_label(b, iv->label);
	if (ghz > 0)
		lb_key_double(b, ", ghz: ", ghz);
	lb_put(b, "}\n", 2);
	if (fwrite(b->s, 1, b->len, w->out) != b->len) {
		sl_error_set("cannot write %s: %s",
			     w->yw.af.path ? w->yw.af.path : "standard output",
			     strerror(errno));
		return -1;
	}
	return 0;
}

/* Emit queued intervals until commit has drained the queue or abort stops
 * us.  On a write error, keep its message for the caller's thread and
 * cancel the queue, so that the next sl_trace_write (or the commit) fails. */
static void *write_thread(void *arg)
{
	sl_trace_writer *w = arg;
	long i;
	while ((i = sl_squeue_take(&w->p.q)) >= 0) {
		slot *sl = &w->p.slots[i];
		if (emit_interval(w, &sl->iv, sl->ghz) < 0) {
			w->err = sl_xstrdup(sl_error());
			sl_squeue_cancel(&w->p.q);
			break;
		}
		sl_squeue_release(&w->p.q);
	}
	return NULL;
}

/* Copy iv into s, reusing s's buffers. */
static void slot_copy(slot *s, const sl_trace_interval *iv, size_t n_events)
{
	s->iv = *iv;
	memcpy(s->n, iv->n, n_events * sizeof *s->n);
	s->iv.n = s->n;
	slot_branches(s, iv->n_br);
	if (iv->n_br)
		memcpy(s->br, iv->br, iv->n_br * sizeof *s->br);
	s->iv.br = s->br;
	if (iv->label)
		s->iv.label = slot_label(s, iv->label);
}

int sl_trace_write(sl_trace_writer *w, const sl_trace_interval *iv)
{
	return sl_trace_write_at(w, iv, 0);
}

int sl_trace_write_at(sl_trace_writer *w, const sl_trace_interval *iv, double ghz)
{
	sl_ywriter *yw = &w->yw;
	if (!isfinite(iv->t) || iv->t <= 0 || (iv->has_e && (!isfinite(iv->e) || iv->e < 0)) ||
	    (iv->has_temp && !(iv->temp > SL_TRACE_TEMP_MIN && iv->temp <= SL_TRACE_TEMP_MAX))) {
		sl_error_set("cannot write trace %s: interval %zu has t <= 0, a "
			     "negative or non-finite e, or a temp outside (-273.15, 500]",
			     yw->af.path ? yw->af.path : "-", w->index);
		return -1;
	}
	if (!w->p.running) {
		if (emit_interval(w, iv, ghz) < 0)
			return -1;
	} else {
		long i = sl_squeue_reserve(&w->p.q);
		if (i < 0) { /* only the writer thread cancels, on an error */
			sl_error_set("%s", w->err);
			return -1;
		}
		slot_copy(&w->p.slots[i], iv, w->n_events);
		w->p.slots[i].ghz = ghz;
		sl_squeue_put(&w->p.q);
	}
	w->index++;
	return 0;
}

int sl_trace_commit(sl_trace_writer *w)
{
	tpipe_join(&w->p, 0); /* drains the queue */
	if (w->err) {
		sl_error_set("%s", w->err);
		sl_trace_abort(w);
		return -1;
	}
	int rc = 0;
	if (!w->index && fputs("  []\n", w->out) < 0) /* "intervals:  []" */
		rc = -1;
	if (rc < 0) {
		sl_error_set("cannot write %s: %s",
			     w->yw.af.path ? w->yw.af.path : "standard output", strerror(errno));
		sl_yw_abort(&w->yw);
	} else {
		rc = sl_afile_commit(&w->yw.af);
	}
	tpipe_free(&w->p);
	free(w->line.s);
	free(w);
	return rc;
}

void sl_trace_abort(sl_trace_writer *w)
{
	if (!w)
		return;
	tpipe_free(&w->p); /* stops the writer thread first */
	sl_yw_abort(&w->yw);
	free(w->err);
	free(w->line.s);
	free(w);
}
