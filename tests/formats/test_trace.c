/* Unit tests of sleuth-trace/1: the writer's output reads back equal, both
 * YAML styles and hex integers are accepted, the header may follow the
 * intervals, and every rejection rule names file, line and key. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
		 .label = "p0"},
		{.t = 1e-9, .n = n[1], .br = NULL, .n_br = 0},
		{.t = 12345.678901234567, .n = n[2], .br = br, .n_br = 1, .has_e = 1,
		 .e = 0, .label = "yes"},
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
	/* duplicates, also after the intervals */
	{HDR "frequency_ghz: 2\n", "bad.yaml:6: key 'frequency_ghz': duplicate key"},
	{HDR "intervals: []\nworkload: x\n", "bad.yaml:7: key 'workload': duplicate key"},
	{HDR "intervals:\n- {t: 1, t: 2, n: [1, 2], br: []}\n", "bad.yaml:7: key 't': duplicate key"},
	/* not a trace at all */
	{"- 1\n", "bad.yaml:1: the document must be a mapping"},
	{"", "the file is empty"},
	{HDR "intervals: [\n", "bad.yaml:7: not valid YAML"},
};

static void test_rejections(void **state)
{
	(void)state;
	for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
		char *p = put("bad.yaml", bad[i].text);
		int rc = read_all(p, NULL);
		if (rc != -1 || !strstr(sl_error(), bad[i].error))
			fail_msg("case %zu: got %d, error '%s', wanted '%s'", i, rc,
				 sl_error(), bad[i].error);
		free(p);
	}
	assert_null(sl_trace_open("/nonexistent/trace.yaml"));
	assert_non_null(strstr(sl_error(), "cannot open /nonexistent/trace.yaml"));
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
		cmocka_unit_test(test_styles),
		cmocka_unit_test(test_header_last),
		cmocka_unit_test(test_rejections),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
