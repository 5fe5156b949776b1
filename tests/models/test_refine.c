/*
 * Unit tests of the refinement by a short second run (models/refine.c):
 * the levels (interval, instance, phase, none) and the carry in f against
 * hand computations on the linear time model (whose prediction is the
 * profiled cycles at every f, so every ratio is plain), and each refusal
 * of a profile that is not the same program at another frequency.
 */
#include <string.h>

#include "fixture.h"
#include "sleuth/common.h"
#include "sleuth/model.h"

#define F0 2.666
#define F2 1.600

/* Phases 0 0 | 1 1 | 0 0 | 2 (instances 0..3), 1000 instructions and 2000
 * cycles each, 100 branches retired in each. */
static sl_prof_interval main_iv[] = {
	{0, 0, 1, 2000, 1000, NAN}, {0, 0, 1, 2000, 1000, NAN}, {1, 0, 1, 2000, 1000, NAN},
	{1, 0, 1, 2000, 1000, NAN}, {0, 0, 1, 2000, 1000, NAN}, {0, 0, 1, 2000, 1000, NAN},
	{2, 0, 1, 2000, 1000, NAN},
};
static char *br_event[] = {"BR_INST_RETIRED:CONDITIONAL"};
static uint64_t main_br[] = {100, 100, 100, 100, 100, 100, 100};

/* The short run at F2: the first three intervals, 1800, 1600, 1500 cycles. */
static sl_prof_interval short_iv[3];
static uint64_t short_br[] = {100, 100, 100};

typedef struct fx {
	sl_profile p, p2;
	sl_machine m;
	sl_model md;
} fx;

static int setup(void **state)
{
	fx *x = test_calloc(1, sizeof *x);
	mkprof(&x->p, SL_ARRAY_LEN(main_iv), main_iv, 1, br_event, main_br, F0);
	memcpy(short_iv, main_iv, sizeof short_iv);
	short_iv[0].cycles = 1800;
	short_iv[1].cycles = 1600;
	short_iv[2].cycles = 1500;
	short_br[0] = 100;
	mkprof(&x->p2, SL_ARRAY_LEN(short_iv), short_iv, 1, br_event, short_br, F2);
	mknhm(&x->m);
	*state = x;
	return sl_model_init(&x->md, &x->p, &x->m, SL_TIME_LINEAR, SL_MODEL_TIME_ONLY);
}

static int teardown(void **state)
{
	fx *x = *state;
	sl_model_free(&x->md);
	test_free(x);
	return 0;
}

static void test_levels(void **state)
{
	fx *x = *state;
	sl_refine_info ri;
	assert_int_equal(sl_model_refine(&x->md, &x->p2, "short.prof", &ri), 0);
	assert_near(ri.f2_ghz, F2, 1e-12);
	assert_int_equal(ri.intervals, 3);
	assert_int_equal(ri.n_intervals, 7);
	assert_int_equal(ri.instances, 2);
	assert_int_equal(ri.n_instances, 4);
	assert_int_equal(ri.phases, 2);
	assert_int_equal(ri.n_phases, 3);
	/* at f2: measured intervals exact; interval 3 takes its instance's
	 * ratio (1500 / 2000), 4 and 5 their phase's ((1800 + 1600) / 4000),
	 * 6 (phase 2, never measured) stays */
	double want[] = {1800, 1600, 1500, 1500, 1700, 1700, 2000};
	for (size_t i = 0; i < SL_ARRAY_LEN(want); i++)
		assert_near(sl_model_cycles(&x->md, i, F2), want[i], 1e-9);
	/* at f0 nothing changes: the model predicts the counted cycles */
	for (size_t i = 0; i < SL_ARRAY_LEN(want); i++)
		assert_near(sl_model_cycles(&x->md, i, F0), 2000, 1e-9);
	/* halfway in f, half the correction */
	double mid = (F0 + F2) / 2;
	assert_near(sl_model_cycles(&x->md, 0, mid), 1900, 1e-9);
	assert_near(sl_model_cycles(&x->md, 4, mid), 1850, 1e-9);
	/* beyond f2 the line goes on (1.5 times the distance: 1.5 times the
	 * correction), up to twice it */
	assert_near(sl_model_cycles(&x->md, 0, F0 + 1.5 * (F2 - F0)), 1700, 1e-9);
	assert_near(sl_model_cycles(&x->md, 0, 0.1), 1600, 1e-9);
	/* and above f0 the other way, down to minus once */
	assert_near(sl_model_cycles(&x->md, 0, F0 + 0.5 * (F0 - F2)), 2100, 1e-9);
	assert_near(sl_model_cycles(&x->md, 0, 10), 2200, 1e-9);
	/* the prediction's time is the refined cycles over f */
	sl_opoint op;
	sl_pred pr;
	assert_int_equal(sl_model_opoint(&x->md, F2, &op), 0);
	sl_model_predict(&x->md, &op, 1, &pr);
	assert_near(pr.time_s, 1600 / (F2 * 1e9), 1e-18);
	/* once only */
	assert_int_equal(sl_model_refine(&x->md, &x->p2, "short.prof", &ri), -1);
}

/* An unmeasured instance that behaves unlike every measured instance of
 * its phase (three times the branches per instruction: a behaviour
 * distance of log(301 / 101) = 1.09) keeps the model's prediction; one
 * that behaves like them (a CPI 1.2 times theirs: 0.18) takes theirs. */
static void test_unlike(void **state)
{
	fx *x = *state;
	sl_refine_info ri;
	main_br[4] = main_br[5] = 300;
	sl_model_free(&x->md);
	assert_int_equal(sl_model_init(&x->md, &x->p, &x->m, SL_TIME_LINEAR,
				       SL_MODEL_TIME_ONLY), 0);
	int rc = sl_model_refine(&x->md, &x->p2, "short.prof", &ri);
	double c4 = sl_model_cycles(&x->md, 4, F2);
	main_br[4] = main_br[5] = 100;
	assert_int_equal(rc, 0);
	assert_near(c4, 2000, 1e-9);
	main_iv[4].cycles = main_iv[5].cycles = 2400;
	sl_model_free(&x->md);
	assert_int_equal(sl_model_init(&x->md, &x->p, &x->m, SL_TIME_LINEAR,
				       SL_MODEL_TIME_ONLY), 0);
	rc = sl_model_refine(&x->md, &x->p2, "short.prof", &ri);
	c4 = sl_model_cycles(&x->md, 4, F2);
	main_iv[4].cycles = main_iv[5].cycles = 2000;
	assert_int_equal(rc, 0);
	assert_near(c4, 2400 * 0.85, 1e-9);
}

/* A short run stopped inside an interval: its partial last interval is
 * left out, the others are used. */
static void test_partial_last(void **state)
{
	fx *x = *state;
	sl_refine_info ri;
	short_iv[2].instructions = 400;
	int rc = sl_model_refine(&x->md, &x->p2, "short.prof", &ri);
	short_iv[2].instructions = 1000;
	assert_int_equal(rc, 0);
	assert_int_equal(ri.intervals, 2);
	assert_near(sl_model_cycles(&x->md, 2, F2), 2000, 1e-9);
}

/* Refuse `p2` with an error naming `path` and containing `why`. */
static void refused(fx *x, const char *why)
{
	sl_refine_info ri;
	assert_int_equal(sl_model_refine(&x->md, &x->p2, "short.prof", &ri), -1);
	if (!strstr(sl_error(), why) || !strstr(sl_error(), "short.prof")) {
		print_error("'%s' does not say '%s'\n", sl_error(), why);
		fail();
	}
	assert_null(x->md.refine);
	assert_near(sl_model_cycles(&x->md, 0, F2), 2000, 1e-9);
}

static void test_refusals(void **state)
{
	fx *x = *state;
	x->p2.freq_ghz = F0 + 1e-4;
	refused(x, "the profile's own frequency");
	x->p2.freq_ghz = F2;

	x->p2.n_intervals = 8;
	refused(x, "not a shorter run");
	x->p2.n_intervals = 3;

	short_iv[1].instructions = 1020;
	refused(x, "interval 1 retired 1020 instructions");
	short_iv[1].instructions = 1000;
	short_iv[1].instructions = 1009; /* within 1% */
	sl_refine_info ri;
	assert_int_equal(sl_model_refine(&x->md, &x->p2, "short.prof", &ri), 0);
}

static void test_other_program(void **state)
{
	fx *x = *state;
	short_br[0] = 130; /* 330 branches against 300 */
	refused(x, "conditional branches");
	short_br[0] = 100;

	x->p.workload = "rob-clip";
	x->p2.workload = "dep-mix";
	refused(x, "is a run of 'dep-mix'");
	x->p2.workload = "rob-clip";

	x->p2.has_counts = 0;
	sl_refine_info ri;
	assert_int_equal(sl_model_refine(&x->md, &x->p2, "short.prof", &ri), -1);
	assert_non_null(strstr(sl_error(), "no event counts"));
	x->p2.has_counts = 1;
	assert_int_equal(sl_model_refine_file(&x->md, "/nonexistent/short.prof", &ri), -1);
	assert_non_null(strstr(sl_error(), "/nonexistent/short.prof"));
	assert_int_equal(sl_model_refine(&x->md, &x->p2, "short.prof", &ri), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_levels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unlike, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_last, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_program, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
