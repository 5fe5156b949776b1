/*
 * Unit tests of the prediction writers: the fast number formatting, the
 * CSV rows of each unit against docs/formats.md, prediction table and against the
 * model's own predictions, JSON, the human table (80 columns for two
 * frequencies, ranks, sensitivity, shares, clamps) and time-only output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/outbuf.h"
#include "fixture.h"
#include "sleuth/common.h"
#include "sleuth/predict.h"

/* ---- number formatting ------------------------------------------------- */

static void test_fmt_sig(void **state)
{
	(void)state;
	static const struct { double v; int sig; const char *want; } cases[] = {
		{0, 9, "0"},           {1.5, 9, "1.5"},         {2.66, 6, "2.66"},
		{2.666, 6, "2.666"},   {-0.001, 9, "-0.001"},   {1234.5, 9, "1234.5"},
		{100, 9, "100"},       {0.375093773443, 9, "0.375093773"},
		{9.9999999996, 9, "10"}, {123456789012.0, 9, "123456789012"},
		{1e20, 9, "1e+20"},    {1e-7, 9, "1e-07"},      {0.0001, 9, "0.0001"},
	};
	char b[40];
	for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
		sl_fmt_sig(b, cases[i].v, cases[i].sig);
		assert_string_equal(b, cases[i].want);
	}
	sl_fmt_sig(b, NAN, 9);
	assert_string_equal(b, "nan");
	/* agrees with printf's %.9g to 9 significant digits over many magnitudes */
	srand(7);
	for (int i = 0; i < 20000; i++) {
		double v = (rand() / (double)RAND_MAX) * pow(10, rand() % 30 - 12);
		sl_fmt_sig(b, v, 9);
		double back = strtod(b, NULL);
		if (fabs(back - v) > 5.01e-9 * fabs(v))
			fail_msg("%.17g formatted as %s", v, b);
	}
}

/* The integers of the CSV rows: printf's digits at every length, at the
 * edges of each chunk of the conversion and at random. */
static void test_fmt_u64(void **state)
{
	(void)state;
	char b[32], want[32];
	uint64_t v = 1;
	for (int k = 0; k < 20; k++, v *= 10) {
		uint64_t edge[] = {v - 1, v, v + 1, 2 * v - 1, 9 * v, v * 10 - 1};
		for (size_t j = 0; j < SL_ARRAY_LEN(edge); j++) {
			if (k == 19 && j >= 3)
				break; /* beyond 2^64 */
			b[sl_fmt_u64(b, edge[j])] = 0;
			snprintf(want, sizeof want, "%llu", (unsigned long long)edge[j]);
			assert_string_equal(b, want);
		}
	}
	b[sl_fmt_u64(b, UINT64_MAX)] = 0;
	assert_string_equal(b, "18446744073709551615");
	srand(11);
	for (int i = 0; i < 100000; i++) {
		uint64_t r = ((uint64_t)rand() << 42 ^ (uint64_t)rand() << 21 ^ (uint64_t)rand()) >>
			     (rand() % 64);
		b[sl_fmt_u64(b, r)] = 0;
		snprintf(want, sizeof want, "%llu", (unsigned long long)r);
		assert_string_equal(b, want);
	}
}

/* ---- fixtures ------------------------------------------------------------ */

/* Phases 0 1 0 (three instances), every Nehalem event measured; interval 1
 * is memory-bound. */
static sl_prof_interval iv3[] = {
	{0, 0, 0.375, 1000000000, 800000000, NAN},
	{1, 0.375, 0.375, 1000000000, 200000000, NAN},
	{0, 0.75, 0.375, 1000000000, 800000000, NAN},
};
static uint64_t counts3[] = {
	100000000, 200000,   900000000, 4000000, 10000000, 100000000, 100000000, 2000000,
	700000000, 10000000, 200000000, 9000000, 12000000, 100000000, 0,         100000,
	100000000, 200000,   900000000, 4000000, 10000000, 100000000, 100000000, 2000000,
};

typedef struct fx {
	sl_profile p;
	sl_machine m;
	sl_model md;
	sl_opoint ops[2];
	char *out;
	size_t len;
} fx;

static int setup(void **state)
{
	fx *f = test_calloc(1, sizeof *f);
	mkprof(&f->p, 3, iv3, 8, nhm_events, counts3, 2.666);
	mknhm(&f->m);
	*state = f;
	if (sl_model_init(&f->md, &f->p, &f->m, SL_TIME_STALL, 0) < 0 ||
	    sl_model_opoint(&f->md, 2.666, &f->ops[0]) < 0 ||
	    sl_model_opoint(&f->md, 1.6, &f->ops[1]) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	fx *f = *state;
	sl_model_free(&f->md);
	free(f->out);
	test_free(f);
	return 0;
}

/* Write with `per` and `fmt` into f->out. */
static sl_predict_stats write_out(fx *f, sl_per per, sl_fmt fmt)
{
	free(f->out);
	f->out = NULL;
	FILE *mf = open_memstream(&f->out, &f->len);
	sl_predict_stats st;
	sl_predict_info info = {"app.prof", "embedded in the profile"};
	assert_int_equal(sl_predict_write(mf, &f->md, f->ops, 2, per, fmt, &info, &st), 0);
	fclose(mf);
	return st;
}

/* Line `n` (from 0) of s, copied into buf. */
static const char *line(const char *s, int n, char *buf, size_t len)
{
	for (; n > 0 && s; n--)
		s = (s = strchr(s, '\n')) ? s + 1 : NULL;
	assert_non_null(s);
	size_t l = strcspn(s, "\n");
	assert_true(l < len);
	memcpy(buf, s, l);
	buf[l] = 0;
	return buf;
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- CSV --------------------------------------------------------------- */

static void test_csv_interval(void **state)
{
	fx *f = *state;
	sl_predict_stats st = write_out(f, SL_PER_INTERVAL, SL_FMT_CSV);
	char b[256];
	assert_string_equal(line(f->out, 0, b, sizeof b),
			    "ghz,interval,phase,instance,instructions,time_s,power_w,energy_j");
	assert_int_equal(count_lines(f->out), 1 + 2 * 3);
	assert_int_equal(st.predictions, 6);
	/* row 5: 1.6 GHz, interval 1 (phase 1, instance 1) */
	double ghz, t, p, e;
	unsigned iv, ph, in;
	unsigned long long ins;
	assert_int_equal(sscanf(line(f->out, 5, b, sizeof b), "%lf,%u,%u,%u,%llu,%lf,%lf,%lf",
				&ghz, &iv, &ph, &in, &ins, &t, &p, &e), 8);
	sl_pred pr;
	sl_model_predict(&f->md, &f->ops[1], 1, &pr);
	assert_near(ghz, 1.6, 0);
	assert_int_equal(iv, 1);
	assert_int_equal(ph, 1);
	assert_int_equal(in, 1);
	assert_int_equal(ins, 200000000);
	assert_near(t, pr.time_s, 1e-8 * pr.time_s);
	assert_near(p, pr.power_w, 1e-8 * pr.power_w);
	assert_near(e, pr.energy_j, 1e-8 * pr.energy_j);
	assert_true(strncmp(line(f->out, 1, b, sizeof b), "2.666,0,0,0,800000000,", 22) == 0);
}

static void test_csv_instance_phase(void **state)
{
	fx *f = *state;
	write_out(f, SL_PER_INSTANCE, SL_FMT_CSV);
	char b[256];
	assert_string_equal(line(f->out, 0, b, sizeof b),
			    "ghz,instance,phase,first_interval,intervals,instructions,"
			    "time_s,power_w,energy_j");
	assert_int_equal(count_lines(f->out), 1 + 2 * 3);
	assert_true(strncmp(line(f->out, 6, b, sizeof b), "1.6,2,0,2,1,800000000,", 22) == 0);

	write_out(f, SL_PER_PHASE, SL_FMT_CSV);
	assert_string_equal(line(f->out, 0, b, sizeof b),
			    "ghz,phase,intervals,instances,instructions,time_s,power_w,energy_j");
	assert_int_equal(count_lines(f->out), 1 + 2 * 2);
	assert_true(strncmp(line(f->out, 1, b, sizeof b), "2.666,0,2,2,1600000000,", 23) == 0);
	assert_true(strncmp(line(f->out, 4, b, sizeof b), "1.6,1,1,1,200000000,", 20) == 0);
	/* the phase's power is its energy over its time */
	double t, p, e;
	assert_int_equal(sscanf(b, "%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%lf,%lf,%lf", &t, &p, &e),
			 3);
	assert_near(p, e / t, 1e-7 * p);
}

/* ---- JSON -------------------------------------------------------------- */

static void test_json(void **state)
{
	fx *f = *state;
	write_out(f, SL_PER_PHASE, SL_FMT_JSON);
	assert_non_null(strstr(f->out, "\"per\": \"phase\""));
	assert_non_null(strstr(f->out, "\"time_model\": \"stall\""));
	assert_non_null(strstr(f->out, "\"machine\": \"nehalem-i7-920\""));
	assert_non_null(strstr(f->out, "\"interpolation\": {\"measured\": 1, "));
	assert_non_null(strstr(f->out, "  {\"ghz\": 2.666, \"phase\": 0, \"intervals\": 2, "
					"\"instances\": 2, \"instructions\": 1600000000, "
					"\"time_s\": "));
	assert_non_null(strstr(f->out, "\"clamped\": {\"predictions\": 6, \"idle\": 0, "
					"\"peak\": 0}"));
	int rows = 0;
	for (const char *s = f->out; (s = strstr(s, "{\"ghz\"")); s++)
		rows++;
	assert_int_equal(rows, 4);
}

/* ---- the table --------------------------------------------------------- */

static void test_table(void **state)
{
	fx *f = *state;
	write_out(f, SL_PER_PHASE, SL_FMT_TABLE);
	char b[512];
	for (int i = 0, n = count_lines(f->out); i < n; i++)
		if (strlen(line(f->out, i, b, sizeof b)) > 80)
			fail_msg("line %d is %zu columns: %s", i, strlen(b), b);
	assert_non_null(strstr(f->out, "Predictions for app.prof: 3 intervals, 2 phases, "
					"3 instances"));
	assert_non_null(strstr(f->out, "2.666 GHz"));
	assert_non_null(strstr(f->out, "1.6 GHz"));
	/* sources that hold no value are left out */
	assert_non_null(strstr(f->out, "counts: 100.0% measured\n"));
	/* phase 0 (two compute-bound intervals) ranks first by time and energy */
	const char *r0 = strstr(f->out, "\n    0 ");
	assert_non_null(r0);
	assert_non_null(strstr(line(r0 + 1, 0, b, sizeof b), " 1/1 "));
	/* sensitivity: phase 0 slows nearly 2.666/1.6, phase 1 much less */
	double t[2][2];
	sl_agg ph[2];
	for (int k = 0; k < 2; k++) {
		sl_model_aggregate(&f->md, &f->ops[k], ph, NULL, NULL);
		t[k][0] = ph[0].time_s;
		t[k][1] = ph[1].time_s;
	}
	char want[16];
	snprintf(want, sizeof want, " %6.3f", t[1][0] / t[0][0]);
	assert_non_null(strstr(b, want));
	assert_true(t[1][0] / t[0][0] > 1.6);
	assert_true(t[1][1] / t[0][1] < 1.3);
	assert_non_null(strstr(f->out, "clamped: interval predictions whose power was "
					"clamped to idle or peak:\n         0 of 6"));
}

/* Time only: power and energy are absent, not zero. */
static void test_time_only(void **state)
{
	fx *f = *state;
	sl_model_free(&f->md);
	f->m.has_constant = 0;
	assert_int_equal(sl_model_init(&f->md, &f->p, &f->m, SL_TIME_STALL,
				       SL_MODEL_TIME_ONLY), 0);
	write_out(f, SL_PER_INTERVAL, SL_FMT_CSV);
	char b[256];
	line(f->out, 1, b, sizeof b);
	assert_int_equal(b[strlen(b) - 1], ',');
	assert_int_equal(b[strlen(b) - 2], ',');
	write_out(f, SL_PER_PHASE, SL_FMT_JSON);
	assert_non_null(strstr(f->out, "\"power_w\": null, \"energy_j\": null"));
	write_out(f, SL_PER_PHASE, SL_FMT_TABLE);
	assert_non_null(strstr(f->out, "time only"));
	assert_non_null(strstr(f->out, "1/-"));
}

/* Clamps are reported, in every format. */
static void test_clamp_report(void **state)
{
	fx *f = *state;
	sl_model_free(&f->md);
	f->m.constant = -5;
	assert_int_equal(sl_model_init(&f->md, &f->p, &f->m, SL_TIME_STALL, 0), 0);
	sl_predict_stats st = write_out(f, SL_PER_PHASE, SL_FMT_JSON);
	assert_int_equal(st.clamped_idle, 6);
	assert_non_null(strstr(f->out, "\"clamped\": {\"predictions\": 6, \"idle\": 6, "
					"\"peak\": 0}"));
	write_out(f, SL_PER_PHASE, SL_FMT_TABLE);
	assert_non_null(strstr(f->out, "idle or peak:\n         6 of 6 (6 idle, 0 peak)"));
	assert_non_null(strstr(f->out, "       4\n")); /* phase 0: 2 intervals x 2 */
}

static void test_parse(void **state)
{
	(void)state;
	sl_per per;
	sl_fmt fmt;
	assert_int_equal(sl_per_parse("instance", &per), 0);
	assert_int_equal(per, SL_PER_INSTANCE);
	assert_int_equal(sl_per_parse("phases", &per), -1);
	assert_int_equal(sl_fmt_parse("json", &fmt), 0);
	assert_int_equal(fmt, SL_FMT_JSON);
	assert_int_equal(sl_fmt_parse("xml", &fmt), -1);
	assert_string_equal(sl_per_name(SL_PER_PHASE), "phase");
}

/* sl_model_open: profile -> its machine -> the models, and each refusal. */
static void test_model_open(void **state)
{
	fx *f = *state;
	char dir[] = "/tmp/sleuth-open-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *prof = sl_xasprintf("%s/app.prof", dir), *mach = sl_xasprintf("%s/m.yaml", dir);
	assert_int_equal(sl_machine_write(mach, &f->m, NULL), 0);
	sl_phase_info ph[2] = {{.id = 0}, {.id = 1}};
	f->p.phases = ph;
	f->p.n_phases = 2;
	if (sl_profile_write(prof, &f->p) < 0)
		fail_msg("%s", sl_error());

	sl_model_set s;
	/* no machine embedded and none given */
	assert_int_equal(sl_model_open(&s, prof, NULL, SL_TIME_STALL, 0), -1);
	assert_null(s.machine_origin);
	sl_model_close(&s);
	/* the machine given */
	assert_int_equal(sl_model_open(&s, prof, mach, SL_TIME_STALL, 0), 0);
	assert_string_equal(s.machine_origin, mach);
	assert_ptr_equal(s.model.prof, &s.prof);
	assert_ptr_equal(s.model.mach, &s.mach);
	assert_int_equal(s.prof.n_intervals, 3);
	sl_opoint op;
	assert_int_equal(sl_model_opoint(&s.model, 1.6, &op), 0);
	sl_agg a, b;
	sl_model_aggregate(&s.model, &op, NULL, NULL, &a);
	sl_model_aggregate(&f->md, &f->ops[1], NULL, NULL, &b);
	assert_near(a.energy_j, b.energy_j, 1e-9 * b.energy_j);
	sl_model_close(&s);
	/* a profile without counts is refused with its path */
	f->p.has_counts = 0;
	assert_int_equal(sl_profile_write(prof, &f->p), 0);
	f->p.has_counts = 1;
	f->p.phases = NULL;
	f->p.n_phases = 0;
	assert_int_equal(sl_model_open(&s, prof, mach, SL_TIME_STALL, 0), -1);
	assert_non_null(strstr(sl_error(), "app.prof: the profile has no event counts"));
	sl_model_close(&s);
	/* no such profile */
	assert_int_equal(sl_model_open(&s, "/nonexistent/x.prof", mach, SL_TIME_STALL, 0), -1);
	assert_non_null(strstr(sl_error(), "x.prof"));
	sl_model_close(&s);

	unlink(prof);
	unlink(mach);
	rmdir(dir);
	free(prof);
	free(mach);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_sig),
		cmocka_unit_test(test_fmt_u64),
		cmocka_unit_test(test_parse),
		cmocka_unit_test_setup_teardown(test_csv_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_csv_instance_phase, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clamp_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_open, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
