/*
 * The profile file: sleuth's own binary format (docs/profile-format.md),
 * written once by `sleuth run` and read by every later stage.  Binary, not
 * YAML, because a long run has a million intervals and `predict` must load
 * them in a fraction of a second; sectioned with a table of contents and a
 * CRC per section so that a truncated or damaged file is named precisely
 * ("truncated at byte N (interval section)") instead of being half-read.
 *
 * The reader maps the file and hands the pages it has checked or decoded
 * back to the kernel as it goes (MADV_DONTNEED on a read-only private
 * mapping: they are the page cache's again), so a run's peak memory is the
 * decoded profile alone, not the decoded profile plus the file.  Where the
 * file cannot be mapped, or SLEUTH_PROFILE_MMAP=0, it is read into memory;
 * both paths decode the same bytes the same way (tests/formats).
 */
#include "sleuth/profile.h"

#include <endian.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "sleuth/common.h"
#include "sleuth/machine.h"

#define MAGIC "SLEUTHPF"
#define HEADER_SIZE 24u
#define TOC_ENTRY 24u
#define MAX_SECTIONS 64u
#define NULL_STR 0xFFFFFFFFu
#define MAX_EVENTS 4096u
#define IV_RECORD 44u

enum {
	SEC_META = 1,
	SEC_EVENTS = 2,
	SEC_NOTES = 3,
	SEC_INTERVALS = 4,
	SEC_COUNTS = 5,
	SEC_PHASES = 6,
	SEC_MACHINE = 7,
	SEC_TEMPS = 8,  /* optional: written when the intervals carry temperatures */
	SEC_GHZ = 9,    /* optional: written when an interval ran at another
			   frequency (version 2) */
	SEC_CODE = 10,  /* optional: written when phases run one code */
	SEC_LAST = SEC_CODE,
};

static const char *const sec_names[] = {
	[SEC_META] = "metadata", [SEC_EVENTS] = "event",
	[SEC_NOTES] = "notes",   [SEC_INTERVALS] = "interval",
	[SEC_COUNTS] = "counts", [SEC_PHASES] = "phase",
	[SEC_MACHINE] = "machine", [SEC_TEMPS] = "temperature",
	[SEC_GHZ] = "frequency", [SEC_CODE] = "same-code",
};

enum { MT_STR = 1, MT_U64 = 2, MT_F64 = 3 };

static const char *sec_name(uint32_t type);

/* ---- in-memory profile ------------------------------------------------ */

void sl_profile_init(sl_profile *p)
{
	memset(p, 0, sizeof *p);
	p->predictor_accuracy = NAN;
}

static void free_locs(sl_codeloc *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].function);
		free(l[i].file);
	}
	free(l);
}

void sl_profile_free(sl_profile *p)
{
	free(p->command);
	free(p->host_cpu);
	free(p->backend);
	free(p->workload);
	free(p->machine_text);
	free(p->machine_path);
	free(p->energy_source);
	free(p->pmu);
	free(p->kernel);
	free(p->sampling);
	free(p->counter_plan);
	for (size_t i = 0; i < p->n_notes; i++)
		free(p->notes[i]);
	free(p->notes);
	free(p->predictor);
	free(p->sample_event);
	for (size_t i = 0; i < p->n_events; i++)
		free(p->events[i]);
	free(p->events);
	free(p->iv);
	free(p->counts);
	free(p->temp_c);
	free(p->ghz);
	for (size_t i = 0; i < p->n_phases; i++) {
		free_locs(p->phases[i].funcs, p->phases[i].n_funcs);
		free_locs(p->phases[i].lines, p->phases[i].n_lines);
	}
	free(p->phases);
	free(p->same_code);
	sl_profile_init(p);
}

void sl_profile_add_note(sl_profile *p, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = sl_xstrdup(fmt); /* keep the note's gist */
	va_end(ap);
	p->notes = sl_xreallocarray(p->notes, p->n_notes + 1, sizeof *p->notes);
	p->notes[p->n_notes++] = s;
}

int sl_profile_dithered(const sl_profile *p, size_t i)
{
	return p->ghz && fabs(p->ghz[i] - p->freq_ghz) >= SL_SAME_GHZ;
}

int sl_interval_one_freq(const char *path, size_t i, double ghz, double run_ghz,
			 const char *use)
{
	if (!(ghz > 0) || fabs(ghz - run_ghz) < SL_SAME_GHZ)
		return 0;
	sl_error_set("%s: interval %zu ran at %.2f GHz, the run at %.2f GHz (a dithered or "
		     "scheduled run); %s", path, i, ghz, run_ghz, use);
	return -1;
}

int sl_profile_one_freq(const sl_profile *p, const char *path, const char *use)
{
	for (size_t i = 0; p->ghz && i < p->n_intervals; i++)
		if (sl_interval_one_freq(path, i, p->ghz[i], p->freq_ghz, use) < 0)
			return -1;
	return 0;
}

/* Whether any interval is dithered: the file is then version 2. */
static int any_dithered(const sl_profile *p)
{
	for (size_t i = 0; p->ghz && i < p->n_intervals; i++)
		if (sl_profile_dithered(p, i))
			return 1;
	return 0;
}

int sl_profile_event_index(const sl_profile *p, const char *name)
{
	for (size_t i = 0; i < p->n_events; i++)
		if (!strcmp(p->events[i], name))
			return (int)i;
	return -1;
}

size_t sl_profile_instances(const sl_profile *p, sl_instance **out)
{
	sl_instance *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < p->n_intervals; i++) {
		if (n && v[n - 1].phase == p->iv[i].phase) {
			v[n - 1].n++;
			continue;
		}
		SL_GROW(v, n, cap);
		v[n++] = (sl_instance){.phase = p->iv[i].phase, .first = i, .n = 1};
	}
	*out = v;
	return n;
}

/* ---- writing ------------------------------------------------------------ */

/* A growable little-endian byte buffer: one per section.  The interval
 * and counts sections, which grow with the run, are streamed instead
 * (stream set): the buffer is drained every STREAM_CHUNK bytes into the
 * section's CRC and length, and into the file (f) on the second pass, so
 * writing a long run needs no copy of it in memory. */
typedef struct buf {
	unsigned char *d;
	size_t n, cap;
	int stream;
	FILE *f;           /* stream: where the bytes go; NULL: measure only */
	uLong crc;         /* stream: of the bytes drained so far */
	uint64_t total;    /* stream: bytes drained so far */
	int err;           /* stream: a write failed (errno kept in werr) */
	int werr;
} buf;

#define STREAM_CHUNK (1u << 16)

static void drain(buf *b)
{
	if (!b->n)
		return;
	b->crc = crc32(b->crc, b->d, (uInt)b->n);
	b->total += b->n;
	if (b->f && !b->err && fwrite(b->d, 1, b->n, b->f) != b->n) {
		b->err = 1;
		b->werr = errno;
	}
	b->n = 0;
}

static unsigned char *reserve(buf *b, size_t n)
{
	if (b->stream && b->n + n > STREAM_CHUNK)
		drain(b);
	if (b->cap - b->n < n) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap - b->n < n)
			cap *= 2;
		b->d = sl_xrealloc(b->d, cap);
		b->cap = cap;
	}
	unsigned char *p = b->d + b->n;
	b->n += n;
	return p;
}

static void put_u8(buf *b, uint8_t v) { *reserve(b, 1) = v; }

static void put_u32(buf *b, uint32_t v)
{
	v = htole32(v);
	memcpy(reserve(b, 4), &v, 4);
}

static void put_u64(buf *b, uint64_t v)
{
	v = htole64(v);
	memcpy(reserve(b, 8), &v, 8);
}

static void put_f64(buf *b, double d)
{
	uint64_t v;
	memcpy(&v, &d, 8);
	put_u64(b, v);
}

static void put_str(buf *b, const char *s)
{
	if (!s) {
		put_u32(b, NULL_STR);
		return;
	}
	size_t n = strlen(s);
	put_u32(b, (uint32_t)n);
	memcpy(reserve(b, n), s, n);
}

static void meta_str(buf *b, uint32_t *n, const char *k, const char *v)
{
	if (!v)
		return;
	put_str(b, k);
	put_u8(b, MT_STR);
	put_str(b, v);
	(*n)++;
}

static void meta_u64(buf *b, uint32_t *n, const char *k, uint64_t v)
{
	put_str(b, k);
	put_u8(b, MT_U64);
	put_u64(b, v);
	(*n)++;
}

static void meta_f64(buf *b, uint32_t *n, const char *k, double v)
{
	put_str(b, k);
	put_u8(b, MT_F64);
	put_f64(b, v);
	(*n)++;
}

static void enc_meta(buf *b, const sl_profile *p)
{
	uint32_t n = 0;
	put_u32(b, 0); /* patched below */
	meta_str(b, &n, "command", p->command);
	meta_str(b, &n, "host_cpu", p->host_cpu);
	meta_str(b, &n, "backend", p->backend);
	meta_str(b, &n, "workload", p->workload);
	meta_str(b, &n, "machine_path", p->machine_path);
	meta_str(b, &n, "energy_source", p->energy_source);
	meta_str(b, &n, "predictor", p->predictor);
	meta_f64(b, &n, "freq_ghz", p->freq_ghz);
	meta_u64(b, &n, "interval_instructions", p->interval_instructions);
	meta_f64(b, &n, "interval_s", p->interval_s);
	meta_u64(b, &n, "has_counts", p->has_counts ? 1 : 0);
	meta_u64(b, &n, "samples", p->samples);
	meta_u64(b, &n, "lost_samples", p->lost_samples);
	meta_f64(b, &n, "predictor_accuracy", p->predictor_accuracy);
	meta_u64(b, &n, "bv_dims", p->bv_dims);
	meta_f64(b, &n, "threshold", p->threshold);
	meta_f64(b, &n, "threshold_margin", p->threshold_margin);
	meta_str(b, &n, "pmu", p->pmu);
	meta_str(b, &n, "kernel", p->kernel);
	meta_str(b, &n, "sampling", p->sampling);
	meta_str(b, &n, "counter_plan", p->counter_plan);
	if (p->sample_event) {
		meta_str(b, &n, "sample_event", p->sample_event);
		meta_u64(b, &n, "sample_period", p->sample_period);
	}
	if (p->pmu) {
		meta_u64(b, &n, "throttles", p->throttles);
		meta_u64(b, &n, "merged_intervals", p->merged_intervals);
		meta_u64(b, &n, "scaled_intervals", p->scaled_intervals);
	}
	uint32_t le = htole32(n);
	memcpy(b->d, &le, 4);
}

static void enc_strings(buf *b, char *const *s, size_t n)
{
	put_u32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		put_str(b, s[i]);
}

static void enc_intervals(buf *b, const sl_profile *p)
{
	put_u64(b, p->n_intervals);
	for (size_t i = 0; i < p->n_intervals; i++) {
		const sl_prof_interval *v = &p->iv[i];
		put_u32(b, v->phase);
		put_f64(b, v->start_s);
		put_f64(b, v->time_s);
		put_u64(b, v->cycles);
		put_u64(b, v->instructions);
		put_f64(b, v->energy_j);
	}
}

/* Counts are sparse: with K counters most of an interval's columns are
 * SL_MISSING, so each interval stores a bit mask of its measured events and
 * only their values. */
static void enc_counts(buf *b, const sl_profile *p)
{
	size_t words = (p->n_events + 63) / 64;
	uint64_t *mask = sl_xcalloc(words ? words : 1, sizeof *mask);
	put_u64(b, p->n_intervals);
	put_u32(b, (uint32_t)p->n_events);
	put_u32(b, (uint32_t)words);
	for (size_t i = 0; i < p->n_intervals; i++) {
		/* (a profile without events may have no counts array) */
		const uint64_t *c = p->n_events ? p->counts + i * p->n_events : NULL;
		memset(mask, 0, words * sizeof *mask);
		for (size_t k = 0; k < p->n_events; k++)
			if (c[k] != SL_MISSING)
				mask[k / 64] |= 1ull << (k % 64);
		for (size_t w = 0; w < words; w++)
			put_u64(b, mask[w]);
		for (size_t k = 0; k < p->n_events; k++)
			if (c[k] != SL_MISSING)
				put_u64(b, c[k]);
	}
	free(mask);
}

static void enc_locs(buf *b, const sl_codeloc *l, size_t n)
{
	put_u32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		put_str(b, l[i].function ? l[i].function : "?");
		put_str(b, l[i].file);
		put_u32(b, (uint32_t)(l[i].line > 0 ? l[i].line : 0));
		put_u64(b, l[i].addr);
		put_f64(b, l[i].share);
	}
}

static void enc_phases(buf *b, const sl_profile *p)
{
	put_u32(b, (uint32_t)p->n_phases);
	for (size_t i = 0; i < p->n_phases; i++) {
		put_u32(b, (uint32_t)i);
		enc_locs(b, p->phases[i].funcs, p->phases[i].n_funcs);
		enc_locs(b, p->phases[i].lines, p->phases[i].n_lines);
	}
}

/* Which phase's code each phase runs: the count, then one u32 each. */
static void enc_same_code(buf *b, const sl_profile *p)
{
	put_u32(b, (uint32_t)p->n_phases);
	for (size_t i = 0; i < p->n_phases; i++)
		put_u32(b, p->same_code[i]);
}

/* Whether same[k] names, for each of n phases, the lowest phase of its
 * code: at most k, and that phase its own. */
static int same_code_ok(const uint32_t *same, size_t n, size_t *bad)
{
	for (size_t k = 0; k < n; k++)
		if (same[k] > k || same[same[k]] != same[k]) {
			*bad = k;
			return 0;
		}
	return 1;
}

/* A per-interval section (die temperatures, frequencies): the count,
 * then one f64 each. */
static void enc_per_interval(buf *b, const sl_profile *p, const double *x)
{
	put_u64(b, p->n_intervals);
	for (size_t i = 0; i < p->n_intervals; i++)
		put_f64(b, x[i]);
}

/* What the writer refuses: a profile the reader would reject.  Checked
 * before anything is written so a bug upstream never leaves a bad file. */
static int check_writable(const sl_profile *p)
{
	if (p->n_events > MAX_EVENTS) {
		sl_error_set("cannot write a profile of %zu events (at most %u)",
			     p->n_events, MAX_EVENTS);
		return -1;
	}
	for (size_t i = 0; i < p->n_intervals; i++) {
		const sl_prof_interval *v = &p->iv[i];
		if (v->phase >= p->n_phases) {
			sl_error_set("cannot write the profile: interval %zu has phase %u "
				     "but there are %zu phases", i, v->phase, p->n_phases);
			return -1;
		}
		if (!isfinite(v->start_s) || !isfinite(v->time_s) || v->time_s < 0) {
			sl_error_set("cannot write the profile: interval %zu has an "
				     "invalid time", i);
			return -1;
		}
		if (p->temp_c && !isnan(p->temp_c[i]) &&
		    !(p->temp_c[i] > -273.15 && p->temp_c[i] <= 500)) {
			sl_error_set("cannot write the profile: interval %zu has a die "
				     "temperature of %g C", i, p->temp_c[i]);
			return -1;
		}
		if (p->ghz && !(p->ghz[i] > 0 && p->ghz[i] < SL_MAX_GHZ)) {
			sl_error_set("cannot write the profile: interval %zu ran at %g GHz, "
				     "not a core frequency (0 to %g GHz); fix the frequencies "
				     "of the trace or machine it was recorded from",
				     i, p->ghz[i], SL_MAX_GHZ);
			return -1;
		}
	}
	size_t bad;
	if (p->same_code && !same_code_ok(p->same_code, p->n_phases, &bad)) {
		sl_error_set("cannot write the profile: phase %zu runs the code of phase %u, "
			     "not the lowest phase of its code", bad, p->same_code[bad]);
		return -1;
	}
	return 0;
}

/* Encode a streamed section into `f` (NULL: only its CRC and length). */
static void stream_section(buf *b, int type, const sl_profile *p, FILE *f)
{
	b->stream = 1;
	b->f = f;
	b->crc = crc32(0L, Z_NULL, 0);
	b->total = 0;
	b->n = 0;
	if (type == SEC_INTERVALS)
		enc_intervals(b, p);
	else
		enc_counts(b, p);
	drain(b);
}

int sl_profile_write(const char *path, const sl_profile *p)
{
	int order[] = {SEC_META,    SEC_EVENTS, SEC_NOTES, SEC_INTERVALS, SEC_COUNTS,
		       SEC_PHASES,  SEC_MACHINE, SEC_TEMPS, SEC_GHZ,      SEC_CODE};
	/* the temperature section only when there are temperatures, the
	 * frequency section only when an interval ran at another frequency,
	 * the same-code section only when phases run one code */
	int dithered = any_dithered(p);
	size_t NS = 7;
	buf sec[SL_ARRAY_LEN(order)];
	int rc = -1;

	if (check_writable(p) < 0)
		return -1;
	if (p->temp_c)
		order[NS++] = SEC_TEMPS;
	if (dithered)
		order[NS++] = SEC_GHZ;
	if (p->same_code)
		order[NS++] = SEC_CODE;
	memset(sec, 0, sizeof sec);
	enc_meta(&sec[0], p);
	enc_strings(&sec[1], p->events, p->n_events);
	enc_strings(&sec[2], p->notes, p->n_notes);
	/* the interval and counts sections: measured now, written below */
	stream_section(&sec[3], SEC_INTERVALS, p, NULL);
	stream_section(&sec[4], SEC_COUNTS, p, NULL);
	enc_phases(&sec[5], p);
	put_str(&sec[6], p->machine_text);
	for (size_t i = 7; i < NS; i++)
		if (order[i] == SEC_CODE)
			enc_same_code(&sec[i], p);
		else
			enc_per_interval(&sec[i], p, order[i] == SEC_TEMPS ? p->temp_c : p->ghz);

	buf head = {0};
	uint64_t off = HEADER_SIZE + NS * TOC_ENTRY;
	memcpy(reserve(&head, 8), MAGIC, 8);
	put_u32(&head, dithered ? SL_PROFILE_VERSION : SL_PROFILE_VERSION_PLAIN);
	put_u32(&head, (uint32_t)NS);
	uint64_t total = off;
	for (size_t i = 0; i < NS; i++)
		total += sec[i].stream ? sec[i].total : sec[i].n;
	put_u64(&head, total);
	for (size_t i = 0; i < NS; i++) {
		uint64_t len = sec[i].stream ? sec[i].total : sec[i].n;
		put_u32(&head, (uint32_t)order[i]);
		put_u32(&head, sec[i].stream ? (uint32_t)sec[i].crc
					     : (uint32_t)crc32(0L, sec[i].d, (uInt)sec[i].n));
		put_u64(&head, off);
		put_u64(&head, len);
		off += len;
	}

	sl_afile af;
	FILE *f = sl_afile_open(&af, path);
	if (!f)
		goto out;
	int ok = fwrite(head.d, 1, head.n, f) == head.n;
	for (size_t i = 0; ok && i < NS; i++) {
		if (!sec[i].stream) {
			ok = fwrite(sec[i].d, 1, sec[i].n, f) == sec[i].n;
			continue;
		}
		uLong crc = sec[i].crc;
		uint64_t len = sec[i].total;
		stream_section(&sec[i], order[i], p, f);
		ok = !sec[i].err;
		if (!ok)
			errno = sec[i].werr;
		/* the same bytes as measured: the encoding is a function of p, so
		 * this only fails if p changed under the writer (a bug) */
		if (ok && (sec[i].crc != crc || sec[i].total != len)) {
			sl_error_set("cannot write %s: the %s section changed while it was "
				     "written (internal error)", path, sec_name((uint32_t)order[i]));
			sl_afile_abort(&af);
			goto out;
		}
	}
	if (!ok) {
		sl_error_set("cannot write %s: %s", path, strerror(errno));
		sl_afile_abort(&af);
		goto out;
	}
	rc = sl_afile_commit(&af);
out:
	free(head.d);
	for (size_t i = 0; i < NS; i++)
		free(sec[i].d);
	return rc;
}

/* ---- reading ------------------------------------------------------------ */

/* A cursor over one section; every read is bounds-checked, and the first
 * failure records where and why (the section's name goes in the message). */
typedef struct cur {
	const unsigned char *d;
	size_t n, pos;
	size_t base;       /* file offset of d[0], for messages */
	const char *path;
	const char *sec;
	int err;
	int mapped;                   /* d lies in a read-only file mapping */
	const unsigned char *dropped; /* pages below this are given back */
} cur;

/* Bytes of a mapped section checked or decoded between two drops. */
#define DROP_CHUNK (1u << 20)

/* Give the whole pages of a mapped section below `upto` back to the
 * kernel: they were read and will not be read again. */
static void drop_below(cur *c, const unsigned char *upto)
{
	if (!c->mapped)
		return;
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)c->dropped + pg - 1) & ~(pg - 1);
	uintptr_t hi = (uintptr_t)upto & ~(pg - 1);
	if (hi > lo && hi - lo >= DROP_CHUNK) {
		/* advice only: a refusal leaves the pages mapped, nothing else */
		(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
		c->dropped = (const unsigned char *)hi;
	}
}

static int corrupt(cur *c, const char *fmt, ...) SL_PRINTF(2, 3);
static int corrupt(cur *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	if (c->err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	sl_error_set("%s: corrupt profile (%s section, byte %zu): %s; re-record it",
		     c->path, c->sec, c->base + c->pos, msg);
	c->err = 1;
	return -1;
}

static const unsigned char *take(cur *c, size_t n)
{
	if (c->err)
		return NULL;
	if (c->n - c->pos < n) {
		corrupt(c, "a field runs past the section's end");
		return NULL;
	}
	const unsigned char *p = c->d + c->pos;
	c->pos += n;
	return p;
}

/* n little-endian bytes as an integer (0 after an error). */
static uint64_t get_le(cur *c, size_t n)
{
	const unsigned char *p = take(c, n);
	uint64_t v = 0;
	for (size_t i = n; p && i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static uint32_t get_u32(cur *c) { return (uint32_t)get_le(c, 4); }
static uint64_t get_u64(cur *c) { return get_le(c, 8); }

static double get_f64(cur *c)
{
	uint64_t v = get_u64(c);
	double d;
	memcpy(&d, &v, 8);
	return d;
}

/* A string, or NULL for the null marker (*isnull set).  Embedded NULs are
 * corruption: every string is used as a C string. */
static char *get_str(cur *c, int *isnull)
{
	uint32_t n = get_u32(c);
	*isnull = 0;
	if (c->err)
		return NULL;
	if (n == NULL_STR) {
		*isnull = 1;
		return NULL;
	}
	const unsigned char *p = take(c, n);
	if (!p)
		return NULL;
	if (memchr(p, 0, n)) {
		corrupt(c, "a string contains a NUL byte");
		return NULL;
	}
	char *s = sl_xmalloc((size_t)n + 1);
	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

static char *get_nonnull_str(cur *c, const char *what)
{
	int isnull;
	char *s = get_str(c, &isnull);
	if (isnull)
		corrupt(c, "%s is missing", what);
	return s;
}

/* A count that must fit in what remains of the section at `min` bytes per
 * element: rejects absurd counts before anything is allocated. */
static int get_count(cur *c, uint64_t v, size_t min, const char *what, size_t *out)
{
	if (c->err)
		return -1;
	if (min && v > (c->n - c->pos) / min)
		return corrupt(c, "%s count %llu exceeds the section", what,
			       (unsigned long long)v);
	*out = (size_t)v;
	return 0;
}

typedef struct meta_key {
	const char *key;
	int type;
	size_t off;
} meta_key;

#define MK(k, t) {#k, t, offsetof(sl_profile, k)}
static const meta_key meta_keys[] = {
	MK(command, MT_STR),           MK(host_cpu, MT_STR),
	MK(backend, MT_STR),           MK(workload, MT_STR),
	MK(machine_path, MT_STR),      MK(energy_source, MT_STR),
	MK(predictor, MT_STR),         MK(freq_ghz, MT_F64),
	MK(interval_instructions, MT_U64), MK(interval_s, MT_F64),
	MK(has_counts, MT_U64),        MK(samples, MT_U64),
	MK(lost_samples, MT_U64),      MK(predictor_accuracy, MT_F64),
	MK(bv_dims, MT_U64),           MK(threshold, MT_F64),
	MK(threshold_margin, MT_F64),
	MK(pmu, MT_STR),               MK(kernel, MT_STR),
	MK(sampling, MT_STR),          MK(counter_plan, MT_STR),
	MK(throttles, MT_U64),         MK(merged_intervals, MT_U64),
	MK(scaled_intervals, MT_U64),
	MK(sample_event, MT_STR),      MK(sample_period, MT_U64),
};
#undef MK

/* Store one decoded metadata value into its field (by type and width). */
static int store_meta(cur *c, sl_profile *p, const meta_key *k, char *s, uint64_t u,
		      double d)
{
	char *field = (char *)p + k->off;
	if (k->type == MT_STR) {
		char **dst = (char **)field;
		free(*dst);
		*dst = s;
		return 0;
	}
	if (k->type == MT_F64) {
		int nan_ok = !strcmp(k->key, "predictor_accuracy");
		if (!(isfinite(d) || (nan_ok && isnan(d))) || d < 0)
			return corrupt(c, "'%s' is not a valid number", k->key);
		*(double *)field = d;
		return 0;
	}
	if (!strcmp(k->key, "has_counts")) {
		if (u > 1)
			return corrupt(c, "'has_counts' is %llu, not 0 or 1",
				       (unsigned long long)u);
		p->has_counts = (int)u;
	} else if (!strcmp(k->key, "bv_dims")) {
		if (u > 1u << 20)
			return corrupt(c, "'bv_dims' is %llu", (unsigned long long)u);
		p->bv_dims = (unsigned)u;
	} else {
		*(uint64_t *)field = u;
	}
	return 0;
}

static int dec_meta(cur *c, sl_profile *p)
{
	size_t n = 0;
	if (get_count(c, get_u32(c), 6, "entry", &n) < 0)
		return -1;
	for (size_t i = 0; i < n && !c->err; i++) {
		char *key = get_nonnull_str(c, "a metadata key");
		const unsigned char *tp = take(c, 1);
		if (!tp) {
			free(key);
			return -1;
		}
		int type = *tp, isnull = 0;
		char *s = NULL;
		uint64_t u = 0;
		double d = 0;
		if (type == MT_STR)
			s = get_str(c, &isnull);
		else if (type == MT_U64)
			u = get_u64(c);
		else if (type == MT_F64)
			d = get_f64(c);
		else
			corrupt(c, "metadata '%s' has unknown type %d", key, type);
		const meta_key *k = NULL;
		for (size_t j = 0; !c->err && j < SL_ARRAY_LEN(meta_keys); j++)
			if (!strcmp(meta_keys[j].key, key))
				k = &meta_keys[j];
		/* Unknown keys are skipped: a later minor addition stays readable. */
		if (k && k->type != type)
			corrupt(c, "metadata '%s' has type %d, expected %d", key, type,
				k->type);
		else if (k && !c->err && store_meta(c, p, k, s, u, d) == 0 && type == MT_STR)
			s = NULL;
		free(s);
		free(key);
	}
	if (!c->err && !p->backend)
		corrupt(c, "the backend is not recorded");
	return c->err ? -1 : 0;
}

static int dec_strings(cur *c, char ***out, size_t *nout, const char *what)
{
	size_t n = 0;
	if (get_count(c, get_u32(c), 4, what, &n) < 0)
		return -1;
	char **v = sl_xcalloc(n, sizeof *v);
	size_t i;
	for (i = 0; i < n && !c->err; i++)
		v[i] = get_nonnull_str(c, what);
	*out = v; /* unfilled entries are NULL: freeing them is harmless */
	*nout = n;
	return c->err ? -1 : 0;
}

static int dec_events(cur *c, sl_profile *p)
{
	if (dec_strings(c, &p->events, &p->n_events, "event") < 0)
		return -1;
	if (p->n_events > MAX_EVENTS)
		return corrupt(c, "%zu events (at most %u)", p->n_events, MAX_EVENTS);
	for (size_t i = 0; i < p->n_events; i++) {
		if (!p->events[i][0])
			return corrupt(c, "event %zu has an empty name", i);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(p->events[i], p->events[j]))
				return corrupt(c, "event '%s' is listed twice", p->events[i]);
	}
	return 0;
}

static int dec_intervals(cur *c, sl_profile *p)
{
	size_t n = 0;
	if (get_count(c, get_u64(c), IV_RECORD, "interval", &n) < 0)
		return -1;
	if (c->n - c->pos != (size_t)n * IV_RECORD)
		return corrupt(c, "%zu intervals do not fill the section", n);
	p->iv = sl_xcalloc(n, sizeof *p->iv);
	p->n_intervals = n;
	for (size_t i = 0; i < n; i++) {
		if (i % 8192 == 0)
			drop_below(c, c->d + c->pos);
		sl_prof_interval *v = &p->iv[i];
		v->phase = get_u32(c);
		v->start_s = get_f64(c);
		v->time_s = get_f64(c);
		v->cycles = get_u64(c);
		v->instructions = get_u64(c);
		v->energy_j = get_f64(c);
		if (!isfinite(v->start_s) || v->start_s < 0 || !isfinite(v->time_s) ||
		    v->time_s < 0)
			return corrupt(c, "interval %zu has an invalid start or time", i);
		if (!isnan(v->energy_j) && (!isfinite(v->energy_j) || v->energy_j < 0))
			return corrupt(c, "interval %zu has an invalid energy", i);
	}
	return 0;
}

static int dec_counts(cur *c, sl_profile *p)
{
	uint64_t ni = get_u64(c);
	uint32_t ne = get_u32(c), words = get_u32(c);
	if (c->err)
		return -1;
	if (ni != p->n_intervals || ne != p->n_events)
		return corrupt(c, "counts for %llu intervals x %u events, but the profile "
			       "has %zu x %zu", (unsigned long long)ni, ne,
			       p->n_intervals, p->n_events);
	if (words != (ne + 63) / 64)
		return corrupt(c, "mask of %u words for %u events", words, ne);
	size_t total = p->n_intervals * p->n_events;
	p->counts = sl_xmalloc((total ? total : 1) * sizeof *p->counts);
	uint64_t mask[MAX_EVENTS / 64];
	for (size_t i = 0; i < p->n_intervals; i++) {
		if (i % 8192 == 0)
			drop_below(c, c->d + c->pos);
		uint64_t *row = p->counts + i * ne;
		const unsigned char *m = take(c, (size_t)words * 8);
		if (!m)
			return -1;
		memcpy(mask, m, (size_t)words * 8);
		for (size_t k = 0; k < ne; k++) {
			if (!(le64toh(mask[k / 64]) >> (k % 64) & 1)) {
				row[k] = SL_MISSING;
				continue;
			}
			row[k] = get_u64(c);
			if (c->err)
				return -1;
			if (row[k] == SL_MISSING)
				return corrupt(c, "interval %zu: a measured count has the "
					       "missing marker", i);
		}
		if (ne % 64 && le64toh(mask[words - 1]) >> (ne % 64))
			return corrupt(c, "interval %zu: mask names events beyond %u", i, ne);
	}
	return 0;
}

static int dec_locs(cur *c, sl_codeloc **out, size_t *nout)
{
	size_t n = 0;
	if (get_count(c, get_u32(c), 32, "code location", &n) < 0)
		return -1;
	sl_codeloc *l = sl_xcalloc(n, sizeof *l);
	*out = l;
	*nout = n;
	for (size_t i = 0; i < n; i++) {
		int isnull;
		l[i].function = get_nonnull_str(c, "a function name");
		l[i].file = get_str(c, &isnull);
		uint32_t line = get_u32(c);
		l[i].addr = get_u64(c);
		l[i].share = get_f64(c);
		if (c->err)
			return -1;
		if (line > INT32_MAX)
			return corrupt(c, "line number %u", line);
		l[i].line = (int)line;
		if (!(l[i].share >= 0 && l[i].share <= 1))
			return corrupt(c, "a code location's share is not in [0, 1]");
	}
	return 0;
}

static int dec_phases(cur *c, sl_profile *p)
{
	size_t n = 0;
	if (get_count(c, get_u32(c), 12, "phase", &n) < 0)
		return -1;
	p->phases = sl_xcalloc(n, sizeof *p->phases);
	p->n_phases = n;
	for (size_t i = 0; i < n; i++) {
		sl_phase_info *ph = &p->phases[i];
		uint32_t id = get_u32(c);
		if (!c->err && id != i)
			return corrupt(c, "phase %zu is numbered %u", i, id);
		ph->id = (uint32_t)i;
		if (dec_locs(c, &ph->funcs, &ph->n_funcs) < 0 ||
		    dec_locs(c, &ph->lines, &ph->n_lines) < 0)
			return -1;
	}
	return c->err ? -1 : 0;
}

static int dec_same_code(cur *c, sl_profile *p)
{
	uint32_t n = get_u32(c);
	if (!c->err && n != p->n_phases)
		return corrupt(c, "%u phases' code for %zu phases", n, p->n_phases);
	if (c->n - c->pos != (size_t)n * 4)
		return corrupt(c, "the phases' code does not fill the section");
	p->same_code = sl_xmalloc((n ? n : 1) * sizeof *p->same_code);
	for (size_t k = 0; k < n; k++)
		p->same_code[k] = get_u32(c);
	size_t bad;
	if (!c->err && !same_code_ok(p->same_code, n, &bad))
		return corrupt(c, "phase %zu runs the code of phase %u, not the lowest phase "
			       "of its code", bad, p->same_code[bad]);
	return c->err ? -1 : 0;
}

static int dec_machine(cur *c, sl_profile *p)
{
	int isnull;
	p->machine_text = get_str(c, &isnull);
	return c->err ? -1 : 0;
}

/* A per-interval section of `what` (plural), one f64 per interval, each
 * passing ok(). */
static int dec_per_interval(cur *c, const sl_profile *p, double **out, const char *what,
			    int (*ok)(double))
{
	uint64_t n = get_u64(c);
	if (!c->err && n != p->n_intervals)
		return corrupt(c, "%llu %s for %zu intervals", (unsigned long long)n, what,
			       p->n_intervals);
	if (c->n - c->pos != p->n_intervals * 8)
		return corrupt(c, "the %s do not fill the section", what);
	*out = sl_xmalloc((p->n_intervals ? p->n_intervals : 1) * sizeof **out);
	for (size_t i = 0; i < p->n_intervals; i++) {
		double x = get_f64(c);
		if (!ok(x))
			return corrupt(c, "interval %zu: %g is not one of the %s", i, x, what);
		(*out)[i] = x;
	}
	return c->err ? -1 : 0;
}

static int temp_ok(double t) { return isnan(t) || (t > -273.15 && t <= 500); }
/* a per-interval core frequency is in (0, SL_MAX_GHZ), as a trace's */
static int ghz_ok(double f) { return f > 0 && f < SL_MAX_GHZ; }

static int dec_temps(cur *c, sl_profile *p)
{
	return dec_per_interval(c, p, &p->temp_c, "die temperatures", temp_ok);
}

static int dec_ghz(cur *c, sl_profile *p)
{
	return dec_per_interval(c, p, &p->ghz, "core frequencies in GHz", ghz_ok);
}

/* Cross-section rules: what no single section can check alone. */
static int check_whole(const char *path, sl_profile *p)
{
	for (size_t i = 0; i < p->n_intervals; i++)
		if (p->iv[i].phase >= p->n_phases) {
			sl_error_set("%s: corrupt profile (interval section): interval %zu "
				     "has phase %u but the profile has %zu phases; "
				     "re-record it", path, i, p->iv[i].phase, p->n_phases);
			return -1;
		}
	return 0;
}

typedef struct toc {
	uint32_t type, crc;
	uint64_t off, len;
} toc;

static const char *sec_name(uint32_t type)
{
	return type >= 1 && type <= SEC_LAST ? sec_names[type] : "unknown";
}

/* The header and table of contents: magic, version, sizes, and where the
 * file is cut short if it is. */
static int read_toc(const char *path, const unsigned char *d, size_t size, toc *t,
		    uint32_t *ns, uint32_t *version)
{
	if (size < 8 || memcmp(d, MAGIC, 8)) {
		if (size < 8 && !memcmp(d, MAGIC, size))
			goto trunc_head;
		sl_error_set("%s: not a sleuth profile (bad magic); record one with "
			     "'sleuth run'", path);
		return -1;
	}
	if (size < HEADER_SIZE)
		goto trunc_head;
	uint32_t ver, n;
	uint64_t total;
	memcpy(&ver, d + 8, 4);
	memcpy(&n, d + 12, 4);
	memcpy(&total, d + 16, 8);
	ver = le32toh(ver);
	n = le32toh(n);
	total = le64toh(total);
	if (ver != SL_PROFILE_VERSION && ver != SL_PROFILE_VERSION_PLAIN) {
		sl_error_set("%s: profile version %u is not supported (this sleuth "
			     "reads versions %u and %u); re-record it with this sleuth", path,
			     ver, SL_PROFILE_VERSION_PLAIN, SL_PROFILE_VERSION);
		return -1;
	}
	if (n == 0 || n > MAX_SECTIONS) {
		sl_error_set("%s: corrupt profile (header): %u sections; re-record it",
			     path, n);
		return -1;
	}
	uint64_t data = HEADER_SIZE + (uint64_t)n * TOC_ENTRY;
	if (total < data) {
		sl_error_set("%s: corrupt profile (header): file size %llu is too "
			     "small; re-record it", path, (unsigned long long)total);
		return -1;
	}
	if (size < data) {
		sl_error_set("%s: truncated at byte %zu (section table); re-record it",
			     path, size);
		return -1;
	}
	uint64_t off = data;
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *e = d + HEADER_SIZE + (size_t)i * TOC_ENTRY;
		memcpy(&t[i].type, e, 4);
		memcpy(&t[i].crc, e + 4, 4);
		memcpy(&t[i].off, e + 8, 8);
		memcpy(&t[i].len, e + 16, 8);
		t[i].type = le32toh(t[i].type);
		t[i].crc = le32toh(t[i].crc);
		t[i].off = le64toh(t[i].off);
		t[i].len = le64toh(t[i].len);
		/* sections are contiguous, in table order */
		if (t[i].off != off || t[i].len > total - off) {
			sl_error_set("%s: corrupt profile (section table): %s section "
				     "at %llu+%llu is out of place; re-record it", path,
				     sec_name(t[i].type), (unsigned long long)t[i].off,
				     (unsigned long long)t[i].len);
			return -1;
		}
		off += t[i].len;
	}
	if (off != total) {
		sl_error_set("%s: corrupt profile (section table): sections end at %llu, "
			     "the header says %llu; re-record it", path,
			     (unsigned long long)off, (unsigned long long)total);
		return -1;
	}
	if (size < total) {
		const char *where = "unknown";
		for (uint32_t i = 0; i < n; i++)
			if (size >= t[i].off && size < t[i].off + t[i].len)
				where = sec_name(t[i].type);
		sl_error_set("%s: truncated at byte %zu (%s section); re-record it",
			     path, size, where);
		return -1;
	}
	if (size > total) {
		sl_error_set("%s: corrupt profile: %zu bytes of garbage after the end "
			     "(byte %llu); re-record it", path, size - (size_t)total,
			     (unsigned long long)total);
		return -1;
	}
	*ns = n;
	*version = ver;
	return 0;
trunc_head:
	sl_error_set("%s: truncated at byte %zu (header); re-record it", path, size);
	return -1;
}

/* The section's CRC-32, its pages given back as they are summed. */
static uint32_t section_crc(cur *c)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	for (size_t off = 0; off < c->n;) {
		size_t len = SL_MIN(c->n - off, (size_t)DROP_CHUNK);
		crc = crc32(crc, c->d + off, (uInt)len);
		off += len;
		drop_below(c, c->d + off);
	}
	c->dropped = c->d; /* decoding reads the section again */
	return (uint32_t)crc;
}

static int decode(const char *path, const unsigned char *d, size_t size, int mapped,
		  sl_profile *p)
{
	typedef int (*dec_fn)(cur *, sl_profile *);
	static const dec_fn decoders[] = {
		[SEC_META] = dec_meta,         [SEC_EVENTS] = dec_events,
		[SEC_NOTES] = NULL,            [SEC_INTERVALS] = dec_intervals,
		[SEC_COUNTS] = dec_counts,     [SEC_PHASES] = dec_phases,
		[SEC_MACHINE] = dec_machine,   [SEC_TEMPS] = dec_temps,
		[SEC_GHZ] = dec_ghz,           [SEC_CODE] = dec_same_code,
	};
	toc t[MAX_SECTIONS];
	uint32_t ns, ver;
	int seen[SEC_LAST + 1] = {0};
	if (read_toc(path, d, size, t, &ns, &ver) < 0)
		return -1;
	for (uint32_t i = 0; i < ns; i++) {
		if (t[i].type < 1 || t[i].type > SEC_LAST)
			continue; /* a section a later minor version added */
		cur c = {d + t[i].off, t[i].len, 0, t[i].off, path, sec_name(t[i].type), 0,
			 mapped, d + t[i].off};
		if (section_crc(&c) != t[i].crc) {
			sl_error_set("%s: corrupt profile (%s section): checksum mismatch; "
				     "re-record it", path, c.sec);
			return -1;
		}
		if (seen[t[i].type]++)
			return corrupt(&c, "the section appears twice");
		/* counts need the interval and event sections decoded first */
		if (t[i].type == SEC_COUNTS && (!seen[SEC_INTERVALS] || !seen[SEC_EVENTS]))
			return corrupt(&c, "counts precede the interval or event section");
		if (t[i].type == SEC_TEMPS && !seen[SEC_INTERVALS])
			return corrupt(&c, "temperatures precede the interval section");
		if (t[i].type == SEC_GHZ && !seen[SEC_INTERVALS])
			return corrupt(&c, "frequencies precede the interval section");
		if (t[i].type == SEC_CODE && !seen[SEC_PHASES])
			return corrupt(&c, "the phases' code precedes the phase section");
		/* a version-1 reader skips the section: its intervals would be
		 * taken as run at freq_ghz */
		if (t[i].type == SEC_GHZ && ver < SL_PROFILE_VERSION)
			return corrupt(&c, "per-interval frequencies in a version-%u profile",
				       ver);
		int rc = t[i].type == SEC_NOTES
				 ? dec_strings(&c, &p->notes, &p->n_notes, "note")
				 : decoders[t[i].type](&c, p);
		if (rc < 0)
			return -1;
		if (c.pos != c.n)
			return corrupt(&c, "%zu bytes left over", c.n - c.pos);
	}
	for (int s = 1; s <= SEC_LAST; s++)
		if (!seen[s] && s != SEC_TEMPS && s != SEC_GHZ && s != SEC_CODE) {
			sl_error_set("%s: corrupt profile: no %s section; re-record it",
				     path, sec_names[s]);
			return -1;
		}
	return check_whole(path, p);
}

int sl_profile_read(const char *path, sl_profile *p)
{
	sl_profile_init(p);
	FILE *f = fopen(path, "rb");
	if (!f) {
		sl_error_set("cannot open profile %s: %s%s", path, strerror(errno),
			     errno == ENOENT ? "; record one with 'sleuth run'" : "");
		return -1;
	}
	sl_input_note(f);
	struct stat st;
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		sl_error_set("%s: not a regular file; give a profile written by "
			     "'sleuth run'", path);
		fclose(f);
		return -1;
	}
	size_t size = (size_t)st.st_size;
	const char *e = getenv("SLEUTH_PROFILE_MMAP");
	int use_map = size > 0 && !(e && !strcmp(e, "0"));
	void *map = use_map ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fileno(f), 0)
			    : MAP_FAILED;
	if (map != MAP_FAILED) {
		fclose(f);
		(void)madvise(map, size, MADV_SEQUENTIAL);
		int rc = decode(path, map, size, 1, p);
		munmap(map, size);
		if (rc < 0)
			sl_profile_free(p);
		return rc;
	}
	unsigned char *d = sl_xmalloc(size ? size : 1);
	size_t got = fread(d, 1, size, f);
	int rerr = ferror(f);
	fclose(f);
	if (rerr) {
		sl_error_set("cannot read %s: %s", path, strerror(errno));
		free(d);
		return -1;
	}
	int rc = decode(path, d, got, 0, p);
	free(d);
	if (rc < 0)
		sl_profile_free(p);
	return rc;
}

int sl_profile_machine(const sl_profile *p, const char *prof_path, const char *path,
		       struct sl_machine *m, const char **origin)
{
	if (path) {
		if (origin)
			*origin = path;
		return sl_machine_load(path, m);
	}
	if (!p->machine_text) {
		sl_error_set("%s embeds no machine model; pass --machine FILE", prof_path);
		return -1;
	}
	if (origin)
		*origin = "embedded in the profile";
	return sl_machine_load_mem(p->machine_path ? p->machine_path : prof_path,
				   p->machine_text, strlen(p->machine_text), m);
}

const char *sl_profile_predictor_text(const sl_profile *p, char *buf, size_t len)
{
	const char *name = p->predictor ? p->predictor : "?";
	if (isnan(p->predictor_accuracy))
		snprintf(buf, len, "%s predictor: nothing to predict", name);
	else
		snprintf(buf, len, "%s predictor %.1f%% right", name,
			 100 * p->predictor_accuracy);
	return buf;
}

static int by_time_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

size_t sl_profile_phases_covering(const sl_profile *p, double frac)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n_intervals; i++)
		n = SL_MAX(n, (size_t)p->iv[i].phase + 1);
	double *t = sl_xcalloc(n + 1, sizeof *t), total = 0, sum = 0;
	for (size_t i = 0; i < p->n_intervals; i++) {
		t[p->iv[i].phase] += p->iv[i].time_s;
		total += p->iv[i].time_s;
	}
	qsort(t, n, sizeof *t, by_time_desc);
	size_t k = 0;
	while (k < n && t[k] > 0 && sum < frac * total * (1 - 1e-12))
		sum += t[k++];
	free(t);
	return k;
}

size_t sl_profile_phases_used(const sl_profile *p)
{
	char *seen = sl_xcalloc(p->n_phases + 1, 1);
	size_t n = 0;
	for (size_t i = 0; i < p->n_intervals; i++) {
		uint32_t k = p->iv[i].phase;
		if (k < p->n_phases && !seen[k])
			seen[k] = 1, n++;
	}
	free(seen);
	return n;
}

int sl_profile_phases_noisy(const sl_profile *p)
{
	/* the phases that hold intervals: ids merged away at the end of the
	 * run are no phases the user sees */
	return p->n_intervals >= 20 && 2 * sl_profile_phases_used(p) > p->n_intervals;
}
