/* Unit tests of sleuth-trace/1: the writer's output reads back equal, both
 * YAML styles and hex integers are accepted, the header may follow the
 * intervals, and every rejection rule names file, line and key.  The
 * threaded paths (SLEUTH_TRACE_QUEUE) are driven through tiny queues: write
 * errors raised in the writer thread, readers closed mid-file, errors and
 * warnings reported at their interval. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sleuth/common.h"
#include "sleuth/trace.h"

static char dir[] = "/tmp/sleuth-trace-ut.XXXXXX";

static char *put(const char *name, const char *text)
{
	char *p = sl_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

/* Read a whole trace; returns the number of intervals or -1. */
static int read_all(const char *path, sl_trace_interval *last)
{
	sl_trace_reader *r = sl_trace_open(path);
	sl_trace_interval iv;
	int n = 0, rc;
	if (!r)
		return -1;
	while ((rc = sl_trace_next(r, &iv)) > 0) {
		n++;
		if (last) {
			free(last->n);
			free(last->br);
			*last = iv;
			last->n = sl_xcalloc(sl_trace_header_of(r)->n_events, sizeof *iv.n);
			memcpy(last->n, iv.n, sl_trace_header_of(r)->n_events * sizeof *iv.n);
			last->br = sl_xcalloc(iv.n_br + 1, sizeof *iv.br);
			memcpy(last->br, iv.br, iv.n_br * sizeof *iv.br);
			last->label = NULL;
		}
	}
	assert_int_equal(sl_trace_next(r, &iv), rc < 0 ? -1 : 0); /* sticky */
	sl_trace_close(r);
	return rc < 0 ? -1 : n;
}

static void test_round_trip(void **state)
{
	(void)state;
	char *ev[] = {"cycles", "instructions", "UOPS_EXECUTED:CORE_STALL_CYCLES", "true"};
	sl_trace_header h = {.workload = "astar lakes: 1", .frequency_ghz = 2.66,
			     .interval_instructions = 100000000, .events = ev, .n_events = 4};
	uint64_t n[3][4] = {{100031744, 100000012, 41233801, 0},
			    {UINT64_MAX, 1, 2, 3},
			    {5, 6, 7, 8}};
	sl_branch br[] = {{0x401a2c, 5123004}, {0xffffffffff600000ull, 0}, {0, 1}};
	sl_trace_interval iv[3] = {
		{.t = 0.1 + 0.2, .n = n[0], .br = br, .n_br = 3, .has_e = 1, .e = 1.873,
		 .label = "p0", .has_temp = 1, .temp = 61.25},
		{.t = 1e-9, .n = n[1], .br = NULL, .n_br = 0},
		{.t = 12345.678901234567, .n = n[2], .br = br, .n_br = 1, .has_e = 1,
		 .e = 0, .label = "yes", .has_temp = 1, .temp = -5.5},
	};
	char *path = sl_xasprintf("%s/rt.yaml", dir);
	sl_trace_writer *w = sl_trace_create(path, &h);
	assert_non_null(w);
	for (int i = 0; i < 3; i++)
		assert_int_equal(sl_trace_write(w, &iv[i]), 0);
	assert_int_equal(sl_trace_commit(w), 0);

	sl_trace_reader *r = sl_trace_open(path);
	assert_non_null(r);
	const sl_trace_header *g = sl_trace_header_of(r);
	assert_string_equal(g->workload, h.workload);
	assert_true(g->frequency_ghz == h.frequency_ghz);
	assert_int_equal(g->interval_instructions, h.interval_instructions);
	assert_int_equal(g->n_events, 4);
	for (int i = 0; i < 4; i++)
		assert_string_equal(g->events[i], ev[i]);
	assert_int_equal(sl_trace_event_index(g, "UOPS_EXECUTED:CORE_STALL_CYCLES"), 2);
	assert_int_equal(sl_trace_event_index(g, "LLC_MISSES"), -1);
	for (int i = 0; i < 3; i++) {
		sl_trace_interval got;
		assert_int_equal(sl_trace_next(r, &got), 1);
		assert_true(got.t == iv[i].t);
		assert_memory_equal(got.n, iv[i].n, sizeof n[0]);
		assert_int_equal(got.n_br, iv[i].n_br);
		if (got.n_br)
			assert_memory_equal(got.br, iv[i].br, got.n_br * sizeof *got.br);
		assert_int_equal(got.has_e, iv[i].has_e);
		assert_true(got.e == iv[i].e);
		assert_int_equal(got.has_temp, iv[i].has_temp);
		if (iv[i].has_temp)
			assert_true(got.temp == iv[i].temp);
		if (iv[i].label)
			assert_string_equal(got.label, iv[i].label);
		else
			assert_null(got.label);
	}
	sl_trace_interval got;
	assert_int_equal(sl_trace_next(r, &got), 0);
	sl_trace_close(r);
	unlink(path);
	free(path);
}

/* Abort and a refused header leave no file behind. */
/* The writer prints intervals itself: labels that cannot be plain are
 * quoted so that both readers give them back, and a trace without
 * intervals reads back empty. */
static void test_written_labels(void **state)
{
	(void)state;
	static char *const labels[] = {"a b", "1.5", "null", "q\"u\\o", "tab\there", "caf\xc3\xa9",
				       "-x", "", "yes", "x: y", "#c", "[x]", "plain_ok-1.2"};
	char *ev[] = {"cycles", "instructions"};
	sl_trace_header h = {.workload = "w", .frequency_ghz = 2.0,
			     .interval_instructions = 1000, .events = ev, .n_events = 2};
	uint64_t n[2] = {10, 20};
	char *path = sl_xasprintf("%s/labels.yaml", dir);
	for (size_t count = 0; count <= SL_ARRAY_LEN(labels); count += SL_ARRAY_LEN(labels)) {
		sl_trace_writer *w = sl_trace_create(path, &h);
		assert_non_null(w);
		for (size_t i = 0; i < count; i++) {
			sl_trace_interval iv = {.t = 1, .n = n, .label = labels[i]};
			assert_int_equal(sl_trace_write(w, &iv), 0);
		}
		assert_int_equal(sl_trace_commit(w), 0);
		for (int fast = 0; fast < 2; fast++) {
			setenv("SLEUTH_TRACE_FAST", fast ? "1" : "0", 1);
			sl_trace_reader *r = sl_trace_open(path);
			sl_trace_interval got;
			assert_non_null(r);
			for (size_t i = 0; i < count; i++) {
				assert_int_equal(sl_trace_next(r, &got), 1);
				assert_string_equal(got.label, labels[i]);
			}
			assert_int_equal(sl_trace_next(r, &got), 0);
			sl_trace_close(r);
		}
	}
	unsetenv("SLEUTH_TRACE_FAST");
	unlink(path);
	free(path);
}

static void test_writer_atomic(void **state)
{
	(void)state;
	char *ev[] = {"cycles", "instructions"};
	char *bad[] = {"cycles", "cycles"};
	sl_trace_header h = {.workload = "w", .frequency_ghz = 1.6,
			     .interval_instructions = 10, .events = ev, .n_events = 2};
	uint64_t n[2] = {1, 2};
	sl_trace_interval iv = {.t = 1, .n = n};
	char *path = sl_xasprintf("%s/ab.yaml", dir);
	sl_trace_writer *w = sl_trace_create(path, &h);
	assert_non_null(w);
	assert_int_equal(sl_trace_write(w, &iv), 0);
	iv.t = 0;
	assert_int_equal(sl_trace_write(w, &iv), -1);
	assert_non_null(strstr(sl_error(), "t <= 0"));
	sl_trace_abort(w);
	assert_int_equal(access(path, F_OK), -1);
	h.events = bad;
	assert_null(sl_trace_create(path, &h));
	assert_non_null(strstr(sl_error(), "listed twice"));
	assert_int_equal(access(path, F_OK), -1);
	free(path);
}

#define HDR "format: sleuth-trace/1\nworkload: w\nfrequency_ghz: 2.66\n" \
	    "interval_instructions: 100\nevents: [cycles, instructions]\n"

/* Block style throughout, flow style throughout, hex integers. */
static void test_styles(void **state)
{
	(void)state;
	static const char *const docs[] = {
		"format: sleuth-trace/1\nworkload: w\nfrequency_ghz: 2.66\n"
		"interval_instructions: 0x64\nevents:\n  - cycles\n  - instructions\n"
		"intervals:\n  - t: 0.5\n    n:\n      - 0x10\n      - 2\n    br:\n"
		"      - - 0x401a2c\n        - 7\n    e: 3\n    label: A\n",
		"{format: sleuth-trace/1, workload: w, frequency_ghz: 2.66,\n"
		" interval_instructions: 100, events: [cycles, instructions],\n"
		" intervals: [{t: 0.5, n: [16, 0x2], br: [[4201004, 0x7]], e: 3.0, label: A}]}\n",
		HDR "intervals:\n- {t: 5e-1, n: [0x10, 2], br: [[0x401A2C, 7]], e: 3, label: A}\n",
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(docs); i++) {
		char *p = put("style.yaml", docs[i]);
		sl_trace_interval iv = {0};
		assert_int_equal(read_all(p, &iv), 1);
		assert_true(iv.t == 0.5);
		assert_int_equal(iv.n[0], 16);
		assert_int_equal(iv.n[1], 2);
		assert_int_equal(iv.n_br, 1);
		assert_int_equal(iv.br[0].addr, 0x401a2c);
		assert_int_equal(iv.br[0].count, 7);
		assert_true(iv.has_e && iv.e == 3);
		free(iv.n);
		free(iv.br);
		free(p);
	}
}

/* Mappings are unordered: a header after the intervals is read too. */
static void test_header_last(void **state)
{
	(void)state;
	char *p = put("late.yaml",
		      "intervals:\n- {t: 1, n: [1, 2, 3], br: [], extra: 1}\n"
		      "- {t: 2, n: [4, 5, 6], br: [[1, 2]], extra: 2}\n"
		      "unknown_top: [1, 2]\n"
		      "events: [instructions, LLC_MISSES, cycles]\n"
		      "format: sleuth-trace/1\nfrequency_ghz: 1.6\n"
		      "interval_instructions: 10\n");
	sl_trace_reader *r = sl_trace_open(p);
	assert_non_null(r);
	const sl_trace_header *h = sl_trace_header_of(r);
	assert_string_equal(h->workload, "");
	assert_true(h->frequency_ghz == 1.6);
	assert_int_equal(sl_trace_event_index(h, "cycles"), 2);
	sl_trace_interval iv;
	assert_int_equal(sl_trace_next(r, &iv), 1);
	assert_true(iv.t == 1);
	assert_int_equal(sl_trace_next(r, &iv), 1);
	assert_int_equal(iv.n[2], 6);
	assert_int_equal(iv.br[0].count, 2);
	assert_int_equal(sl_trace_next(r, &iv), 0);
	sl_trace_close(r);
	/* Interval errors are still found in the second pass. */
	free(p);
	p = put("late2.yaml", "intervals:\n- {t: 1, n: [1], br: []}\n" HDR);
	assert_int_equal(read_all(p, NULL), -1);
	assert_non_null(strstr(sl_error(), "late2.yaml:2: key 'n': has 1 counts"));
	free(p);
}

static const struct {
	const char *text;
	const char *error;
} bad[] = {
	/* missing required keys */
	{"workload: w\nfrequency_ghz: 2.66\ninterval_instructions: 100\n"
	 "events: [cycles, instructions]\nintervals: []\n",
	 "bad.yaml:1: key 'format': missing required key"},
	{"format: sleuth-trace/1\ninterval_instructions: 100\n"
	 "events: [cycles, instructions]\nintervals: []\n",
	 "bad.yaml:1: key 'frequency_ghz': missing required key"},
	{"format: sleuth-trace/1\nfrequency_ghz: 2\n"
	 "events: [cycles, instructions]\nintervals: []\n",
	 "bad.yaml:1: key 'interval_instructions': missing required key"},
	{"format: sleuth-trace/1\nfrequency_ghz: 2\ninterval_instructions: 100\n"
	 "intervals: []\n",
	 "bad.yaml:1: key 'events': missing required key"},
	{HDR, "bad.yaml:1: key 'intervals': missing required key"},
	{HDR "intervals:\n- {n: [1, 2], br: []}\n", "bad.yaml:7: key 't': missing required key in interval 0"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: []}\n- {t: 1, br: []}\n",
	 "bad.yaml:8: key 'n': missing required key in interval 1"},
	{HDR "intervals:\n- {t: 1, n: [1, 2]}\n", "bad.yaml:7: key 'br': missing required key"},
	/* wrong types */
	{"format: [sleuth-trace/1]\n", "bad.yaml:1: key 'format': expected a scalar"},
	{"format: sleuth-trace/1\nfrequency_ghz: fast\n", "bad.yaml:2: key 'frequency_ghz': expected a number"},
	{"format: sleuth-trace/1\nfrequency_ghz: \"2.66\"\n", "bad.yaml:2: key 'frequency_ghz': expected a number"},
	{"format: sleuth-trace/1\ninterval_instructions: 1.5\n", "bad.yaml:2: key 'interval_instructions': expected a non-negative integer"},
	{"format: sleuth-trace/1\nevents: cycles\n", "bad.yaml:2: key 'events': expected a sequence"},
	{"format: sleuth-trace/1\nevents: [cycles, [instructions]]\n", "bad.yaml:2: key 'events': expected a scalar"},
	{"format: sleuth-trace/1\nworkload: {a: 1}\n", "bad.yaml:2: key 'workload': expected a scalar"},
	{HDR "intervals: 5\n", "bad.yaml:6: key 'intervals': expected a sequence"},
	{HDR "intervals:\n- [1, 2]\n", "bad.yaml:7: key 'intervals': expected a mapping"},
	{HDR "intervals:\n- {t: 1, n: 5, br: []}\n", "bad.yaml:7: key 'n': expected a sequence"},
	{HDR "intervals:\n- {t: 1, n: [1, x], br: []}\n", "bad.yaml:7: key 'n': expected a non-negative integer"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: {}}\n", "bad.yaml:7: key 'br': expected a sequence"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: [], label: [x]}\n", "bad.yaml:7: key 'label': expected a scalar"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: [], e: lots}\n", "bad.yaml:7: key 'e': expected a number"},
	/* negative counts, NaN, inf */
	{"format: sleuth-trace/1\ninterval_instructions: -3\n", "bad.yaml:2: key 'interval_instructions': expected a non-negative count"},
	{HDR "intervals:\n- {t: 1, n: [-1, 2], br: []}\n", "bad.yaml:7: key 'n': expected a non-negative count"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: [[0x10, -5]]}\n", "bad.yaml:7: key 'br': expected a non-negative count"},
	{HDR "intervals:\n- {t: .nan, n: [1, 2], br: []}\n", "bad.yaml:7: key 't': NaN is not allowed"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: [], e: .inf}\n", "bad.yaml:7: key 'e': an infinite value"},
	{"format: sleuth-trace/1\nfrequency_ghz: .NaN\n", "bad.yaml:2: key 'frequency_ghz': NaN"},
	{"format: sleuth-trace/1\nfrequency_ghz: 0\n", "bad.yaml:2: key 'frequency_ghz': must be > 0"},
	{"format: sleuth-trace/1\ninterval_instructions: 0\n", "bad.yaml:2: key 'interval_instructions': must be > 0"},
	/* format */
	{"format: sleuth-trace/2\n", "bad.yaml:1: key 'format': 'sleuth-trace/2' is not a sleuth trace format"},
	{"format: sleuth-machine/1\n", "bad.yaml:1: key 'format': 'sleuth-machine/1' is not"},
	/* events */
	{"format: sleuth-trace/1\nevents: [instructions, LLC_MISSES]\n", "bad.yaml:2: key 'events': 'cycles' must be listed"},
	{"format: sleuth-trace/1\nevents: [cycles]\n", "bad.yaml:2: key 'events': 'instructions' must be listed"},
	{"format: sleuth-trace/1\nevents: [cycles, instructions, cycles]\n", "bad.yaml:2: key 'events': an event is listed twice"},
	/* per interval */
	{HDR "intervals:\n- {t: 1, n: [1, 2, 3], br: []}\n", "bad.yaml:7: key 'n': has 3 counts but events: lists 2"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: []}\n- {t: 0, n: [1, 2], br: []}\n", "bad.yaml:8: key 't': the duration must be > 0"},
	{HDR "intervals:\n- {t: -0.5, n: [1, 2], br: []}\n", "bad.yaml:7: key 't': the duration must be > 0"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: [5]}\n", "bad.yaml:7: key 'br': each entry must be an [address, count] pair"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: [[5]]}\n", "bad.yaml:7: key 'br': each entry must be"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: [[5, 1, 2]]}\n", "bad.yaml:7: key 'br': each entry must be"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: [], e: -1}\n", "bad.yaml:7: key 'e': energy must be >= 0"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: [], temp: -300}\n", "bad.yaml:7: key 'temp': a temperature in degrees C must be above absolute zero"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: [], temp: warm}\n", "bad.yaml:7: key 'temp': expected a number"},
	{HDR "intervals:\n- {t: 1, n: [1, 2], br: [], temp: .nan}\n", "bad.yaml:7: key 'temp': NaN"},
	/* duplicates, also after the intervals */
	{HDR "frequency_ghz: 2\n", "bad.yaml:6: key 'frequency_ghz': duplicate key"},
	{HDR "intervals: []\nworkload: x\n", "bad.yaml:7: key 'workload': duplicate key"},
	{HDR "intervals:\n- {t: 1, t: 2, n: [1, 2], br: []}\n", "bad.yaml:7: key 't': duplicate key"},
	/* not a trace at all */
	{"- 1\n", "bad.yaml:1: the document must be a mapping"},
	{"", "the file is empty"},
	{HDR "intervals: [\n", "bad.yaml:7: not valid YAML"},
};

/* Every case through both readers of the intervals: the canonical form's
 * own (handing over to libyaml at the bad line) and libyaml alone. */
static void test_rejections(void **state)
{
	(void)state;
	for (int fast = 1; fast >= 0; fast--) {
		setenv("SLEUTH_TRACE_FAST", fast ? "1" : "0", 1);
		for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
			char *p = put("bad.yaml", bad[i].text);
			int rc = read_all(p, NULL);
			if (rc != -1 || !strstr(sl_error(), bad[i].error))
				fail_msg("case %zu (fast %d): got %d, error '%s', wanted '%s'",
					 i, fast, rc, sl_error(), bad[i].error);
			free(p);
		}
	}
	unsetenv("SLEUTH_TRACE_FAST");
	assert_null(sl_trace_open("/nonexistent/trace.yaml"));
	assert_non_null(strstr(sl_error(), "cannot open /nonexistent/trace.yaml"));
}

/* ---- threaded paths ------------------------------------------------------ */

static void set_queue(const char *depth)
{
	if (depth)
		setenv("SLEUTH_TRACE_QUEUE", depth, 1);
	else
		unsetenv("SLEUTH_TRACE_QUEUE");
}

static char *ev2[] = {"cycles", "instructions"};
static const sl_trace_header h2 = {.workload = "q", .frequency_ghz = 2.0,
				   .interval_instructions = 1000, .events = ev2,
				   .n_events = 2};

/* Interval i of a synthetic trace: branch lists of varying length (so slot
 * buffers must grow), labels present or not, e present or not. */
static sl_trace_interval synth(size_t i, uint64_t *n, sl_branch *br, char *label)
{
	size_t nbr = (i * 37) % 301;
	n[0] = 1000 + i;
	n[1] = 3 * i + 1;
	for (size_t b = 0; b < nbr; b++) {
		br[b].addr = 0x400000 + 16 * b + i;
		br[b].count = i * b;
	}
	snprintf(label, 32, "phase-%zu", i % 7);
	return (sl_trace_interval){.t = 0.5 + (double)i, .n = n, .br = br,
				   .n_br = nbr, .has_e = i % 3 != 0, .e = (double)i / 8,
				   .label = i % 5 ? label : NULL, .has_temp = i % 4 == 1,
				   .temp = 40 + (double)i / 16};
}

static void write_synth(const char *path, size_t count)
{
	uint64_t n[2];
	sl_branch br[301];
	char label[32];
	sl_trace_writer *w = sl_trace_create(path, &h2);
	assert_non_null(w);
	for (size_t i = 0; i < count; i++) {
		sl_trace_interval iv = synth(i, n, br, label);
		assert_int_equal(sl_trace_write(w, &iv), 0);
	}
	assert_int_equal(sl_trace_commit(w), 0);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	char *buf = sl_xmalloc(*len + 1);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

/* 3000 intervals through queues of 1 and 3 slots: byte-identical to the
 * single-thread output, and every value reads back, in order. */
static void test_small_queue(void **state)
{
	(void)state;
	enum { COUNT = 3000 };
	char *ref = sl_xasprintf("%s/q0.yaml", dir), *got = sl_xasprintf("%s/q1.yaml", dir);
	set_queue("0");
	write_synth(ref, COUNT);
	set_queue("1");
	write_synth(got, COUNT);
	size_t lr, lg;
	char *a = slurp(ref, &lr), *b = slurp(got, &lg);
	assert_int_equal(lr, lg);
	assert_memory_equal(a, b, lr);
	free(a);
	free(b);

	set_queue("3");
	sl_trace_reader *r = sl_trace_open(got);
	assert_non_null(r);
	uint64_t n[2];
	sl_branch br[301];
	char label[32];
	sl_trace_interval iv;
	for (size_t i = 0; i < COUNT; i++) {
		sl_trace_interval want = synth(i, n, br, label);
		assert_int_equal(sl_trace_next(r, &iv), 1);
		assert_true(iv.t == want.t);
		assert_memory_equal(iv.n, want.n, sizeof n);
		assert_int_equal(iv.n_br, want.n_br);
		if (want.n_br)
			assert_memory_equal(iv.br, want.br, want.n_br * sizeof *br);
		assert_int_equal(iv.has_e, want.has_e);
		if (want.has_e)
			assert_true(iv.e == want.e);
		assert_int_equal(iv.has_temp, want.has_temp);
		if (want.has_temp)
			assert_true(iv.temp == want.temp);
		if (want.label)
			assert_string_equal(iv.label, want.label);
		else
			assert_null(iv.label);
	}
	assert_int_equal(sl_trace_next(r, &iv), 0);
	assert_int_equal(sl_trace_next(r, &iv), 0);
	sl_trace_close(r);
	set_queue(NULL);
	unlink(ref);
	unlink(got);
	free(ref);
	free(got);
}

/* Closing a reader whose thread is parsing ahead (or blocked on a full
 * queue) neither hangs nor leaks. */
static void test_reader_early_close(void **state)
{
	(void)state;
	char *p = sl_xasprintf("%s/early.yaml", dir);
	write_synth(p, 2000);
	const char *depths[] = {"2", "256"};
	for (size_t d = 0; d < SL_ARRAY_LEN(depths); d++) {
		set_queue(depths[d]);
		for (int k = 0; k < 3; k++) {
			sl_trace_reader *r = sl_trace_open(p);
			assert_non_null(r);
			sl_trace_interval iv;
			for (int i = 0; i < k * 10; i++)
				assert_int_equal(sl_trace_next(r, &iv), 1);
			sl_trace_close(r);
		}
	}
	set_queue(NULL);
	unlink(p);
	free(p);
}

/* The reader's position (for run's progress) grows with every interval
 * handed out, threaded or not, and reaches the end of the file. */
static void test_progress(void **state)
{
	(void)state;
	char *p = sl_xasprintf("%s/progress.yaml", dir);
	write_synth(p, 300);
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	const char *depths[] = {"0", "3", NULL};
	for (size_t d = 0; d < SL_ARRAY_LEN(depths); d++) {
		set_queue(depths[d]);
		sl_trace_reader *r = sl_trace_open(p);
		assert_non_null(r);
		uint64_t done, total, prev = 0;
		sl_trace_progress(r, &done, &total);
		assert_int_equal(total, (uint64_t)st.st_size);
		sl_trace_interval iv;
		while (sl_trace_next(r, &iv) == 1) {
			sl_trace_progress(r, &done, &total);
			assert_true(done > prev);
			prev = done;
		}
		/* only the line break and document end follow the last interval */
		assert_true(prev <= total && total - prev < 16);
		sl_trace_close(r);
	}
	set_queue(NULL);
	unlink(p);
	free(p);
}

/* With a small queue, the intervals before a bad one are delivered first,
 * then the error with its file, line and key; a header after the
 * intervals (second pass) streams through the thread too. */
static void test_queue_error_at_interval(void **state)
{
	(void)state;
	set_queue("2");
	char *p = put("qerr.yaml", HDR "intervals:\n"
		      "- {t: 1, n: [1, 2], br: []}\n- {t: 2, n: [1, 2], br: []}\n"
		      "- {t: 3, n: [1, 2], br: []}\n- {t: 4, n: [1, 2], br: []}\n"
		      "- {t: 5, n: [1, 2], br: [[1]]}\n- {t: 6, n: [1, 2], br: []}\n");
	sl_trace_reader *r = sl_trace_open(p);
	assert_non_null(r);
	sl_trace_interval iv;
	for (int i = 1; i <= 4; i++) {
		assert_int_equal(sl_trace_next(r, &iv), 1);
		assert_true(iv.t == i);
	}
	assert_int_equal(sl_trace_next(r, &iv), -1);
	assert_non_null(strstr(sl_error(), "qerr.yaml:11: key 'br': each entry must be"));
	assert_int_equal(sl_trace_next(r, &iv), -1);
	sl_trace_close(r);
	free(p);

	p = put("qlate.yaml", "intervals:\n- {t: 1, n: [1, 2], br: []}\n"
		"- {t: 2, n: [3, 4], br: [[5, 6]]}\n- {t: 3, n: [1, 2], br: []}\n" HDR);
	r = sl_trace_open(p);
	assert_non_null(r);
	for (int i = 1; i <= 3; i++) {
		assert_int_equal(sl_trace_next(r, &iv), 1);
		assert_true(iv.t == i);
	}
	assert_int_equal(sl_trace_next(r, &iv), 0);
	sl_trace_close(r);
	free(p);
	set_queue(NULL);
}

/* Warnings found by the parser thread appear when their interval is handed
 * out, not when the thread reads it. */
static void test_warning_order(void **state)
{
	(void)state;
	char *p = put("warn.yaml", HDR "intervals:\n- {t: 1, n: [1, 2], br: []}\n"
		      "- {t: 2, n: [1, 2], br: [], odd: 1}\n");
	char *log = sl_xasprintf("%s/stderr.txt", dir);
	int saved = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	sl_trace_reader *r = sl_trace_open(p);
	sl_trace_interval iv;
	size_t len0, len1, len2;
	assert_non_null(r);
	usleep(20000); /* let the thread parse both intervals */
	free(slurp(log, &len0));
	assert_int_equal(sl_trace_next(r, &iv), 1);
	free(slurp(log, &len1));
	assert_int_equal(sl_trace_next(r, &iv), 1);
	char *text = slurp(log, &len2);
	assert_int_equal(sl_trace_next(r, &iv), 0);
	sl_trace_close(r);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(len0, 0);
	assert_int_equal(len1, 0);
	text[len2] = 0;
	assert_non_null(strstr(text, "warn.yaml:8: unknown interval key 'odd' ignored"));
	free(text);
	free(log);
	free(p);
}

/* Write errors raised in the writer thread (a full device) reach the
 * caller with the message a single-threaded writer gives: at commit when
 * the queue never filled, at a later sl_trace_write when it did. */
static void test_writer_thread_error(void **state)
{
	(void)state;
	if (access("/dev/full", W_OK) < 0)
		skip();
	enum { NBR = 3000 }; /* one interval > libyaml's 16 kB output buffer */
	sl_branch *br = sl_xcalloc(NBR, sizeof *br);
	uint64_t n[2] = {1, 2};
	for (size_t b = 0; b < NBR; b++)
		br[b] = (sl_branch){0x400000 + b, b};
	sl_trace_interval iv = {.t = 1, .n = n, .br = br, .n_br = NBR};

	set_queue("0"); /* the message of the single-threaded writer */
	sl_trace_writer *w = sl_trace_create("/dev/full", &h2);
	assert_non_null(w);
	assert_int_equal(sl_trace_write(w, &iv), -1);
	char *want = sl_xstrdup(sl_error());
	assert_non_null(strstr(want, "cannot write /dev/full"));
	sl_trace_abort(w);

	/* One interval: queued at once, the thread fails on it, commit says so. */
	set_queue("4");
	w = sl_trace_create("/dev/full", &h2);
	assert_non_null(w);
	assert_int_equal(sl_trace_write(w, &iv), 0);
	sl_error_set("stale");
	assert_int_equal(sl_trace_commit(w), -1);
	assert_string_equal(sl_error(), want);

	/* Many: the queue fills, the failing thread wakes the caller. */
	w = sl_trace_create("/dev/full", &h2);
	assert_non_null(w);
	int rc = 0;
	for (int i = 0; i < 100 && rc == 0; i++)
		rc = sl_trace_write(w, &iv);
	assert_int_equal(rc, -1);
	assert_string_equal(sl_error(), want);
	assert_int_equal(sl_trace_write(w, &iv), -1); /* sticky */
	sl_trace_abort(w);

	/* Abort while the thread still has work queued removes the file. */
	char *p = sl_xasprintf("%s/aborted.yaml", dir);
	w = sl_trace_create(p, &h2);
	assert_non_null(w);
	for (int i = 0; i < 20; i++)
		assert_int_equal(sl_trace_write(w, &iv), 0);
	sl_trace_abort(w);
	assert_int_equal(access(p, F_OK), -1);
	set_queue(NULL);
	free(p);
	free(want);
	free(br);
}

static int setup(void **state)
{
	(void)state;
	sl_quiet = 1;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char *cmd = sl_xasprintf("rm -rf '%s'", dir);
	int rc = system(cmd);
	free(cmd);
	return rc;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_writer_atomic),
		cmocka_unit_test(test_written_labels),
		cmocka_unit_test(test_styles),
		cmocka_unit_test(test_header_last),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_small_queue),
		cmocka_unit_test(test_reader_early_close),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_queue_error_at_interval),
		cmocka_unit_test(test_warning_order),
		cmocka_unit_test(test_writer_thread_error),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
