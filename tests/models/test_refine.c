/*
 * Unit tests of the refinement by a short second run (models/refine.c):
 * the levels (interval, instance, phase, none) and the carry in f against
 * hand computations on the linear time model (whose prediction is the
 * profiled cycles at every f, so every ratio is plain), and each refusal
 * of a profile that is not the same program at another frequency; then
 * the parameter rule on the mlp and stall models: a known pollution of the
 * miss stalls (and a known factor on the off-chip stalls) recovered from
 * the short run and carried to a drifted instance's own counts, clipping
 * to the parameter's range, and the ratio where the model is insensitive.
 */
#include <string.h>

#include "fixture.h"
#include "sleuth/common.h"
#include "sleuth/model.h"
#include "../../models/predict_int.h"

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

/*
 * The parameter rule.  Events: branches, offcore cycles O, LLC misses X,
 * miss-stall cycles M, stall cycles S.  Phases 0 0 | 1 | 0 0 (instances A,
 * B, C), 1000 instructions and 10000 cycles each at F0.  A: O = 4000,
 * M = 2500 of which 1500 are dependency stalls (a pollution of 0.6: the
 * stall on the misses is 1000, the ROB hides 3000).  B: no miss stalls
 * (M = S = 0: the model cannot move).  C, drifted: O = 4400, M = 2750,
 * S = 2200, behaving like A (a distance of 0.16).
 */
static char *par_events[] = {"BR_INST_RETIRED:CONDITIONAL", "OFFCORE", "LLC_MISSES",
			     "MISS_STALLS", "STALLS"};
static sl_prof_interval par_iv[] = {
	{0, 0, 1, 10000, 1000, NAN}, {0, 0, 1, 10000, 1000, NAN}, {1, 0, 1, 10000, 1000, NAN},
	{0, 0, 1, 10000, 1000, NAN}, {0, 0, 1, 10000, 1000, NAN},
};
static uint64_t par_counts[] = {
	100, 4000, 100, 2500, 2000, 100, 4000, 100, 2500, 2000, 100, 10, 1, 0, 0,
	100, 4400, 100, 2750, 2200, 100, 4400, 100, 2750, 2200,
};
/* the short run: A and B at F2 */
static sl_prof_interval par_short[3];
static sl_role par_roles[] = {
	{"branch_sample", "BR_INST_RETIRED:CONDITIONAL"},
	{"offcore_cycles", "OFFCORE"},
	{"llc_misses", "LLC_MISSES"},
	{"miss_stall_cycles", "MISS_STALLS"},
	{"stall_cycles", "STALLS"},
};

typedef struct pfx {
	sl_profile p;
	sl_machine m;
	sl_model md;
	sl_refine_info ri;
} pfx;

/* Refine `t`'s model of the profile above by `rule` with A's intervals at
 * F2 taking `a` cycles and B's 9500; 0 or -1. */
static int par_refine(pfx *x, sl_time_model t, sl_refine_rule rule, double a)
{
	sl_profile p2, *p = &x->p;
	sl_machine *m = &x->m;
	sl_model *md = &x->md;
	mkprof(p, SL_ARRAY_LEN(par_iv), par_iv, SL_ARRAY_LEN(par_events), par_events,
	       par_counts, F0);
	memcpy(par_short, par_iv, sizeof par_short);
	par_short[0].cycles = par_short[1].cycles = (uint64_t)a;
	par_short[2].cycles = 9500;
	mkprof(&p2, SL_ARRAY_LEN(par_short), par_short, SL_ARRAY_LEN(par_events), par_events,
	       par_counts, F2);
	mknhm(m);
	m->roles = par_roles;
	m->n_roles = SL_ARRAY_LEN(par_roles);
	if (sl_model_init(md, p, m, t, SL_MODEL_TIME_ONLY) < 0)
		return -1;
	md->refine_rule = rule;
	return sl_model_refine(md, &p2, "short.prof", &x->ri);
}

static void test_param_mlp(void **state)
{
	(void)state;
	pfx x;
	double r = F2 / F0;
	/* the mlp model at F2: c - M' + max(0, O r - (O - M')), M' = M (1 - pol);
	 * A with its true stall (pol 0.6, M' = 1000): 9000; as counted (pol 0):
	 * 10000 - 4000 + 4000 r */
	double a_true = 9000, a_model = 10000 - 4000 + 4000 * r;
	assert_int_equal(par_refine(&x, SL_TIME_MLP, SL_REFINE_PARAM, a_true), 0);
	assert_int_equal(x.ri.rule, SL_REFINE_PARAM);
	assert_int_equal(x.ri.by_level[SL_REFINE_PARAM_OWN], 1);  /* A */
	assert_int_equal(x.ri.by_level[SL_REFINE_RATIO_OWN], 1);  /* B: insensitive */
	assert_int_equal(x.ri.by_level[SL_REFINE_PARAM_LIKE], 1); /* C */
	assert_near(sl_refine_param(&x.md, 0), 0.6, 1e-9);
	assert_near(sl_model_cycles(&x.md, 0, F2), a_true, 1e-6);
	/* B: the ratio, 9500 / 10000 */
	assert_true(isnan(sl_refine_param(&x.md, 2)));
	assert_near(sl_model_cycles(&x.md, 2, F2), 9500, 1e-6);
	/* C from its own counts: M' = 2750 * 0.4 = 1100, O r < O - M': the
	 * ROB clips, 10000 - 1100 */
	assert_near(sl_model_cycles(&x.md, 3, F2), 8900, 1e-6);
	/* at F0 the model is exact still */
	assert_near(sl_model_cycles(&x.md, 3, F0), 10000, 1e-6);
	/* at 2.133 GHz: O r' = 3520 > O - M' = 3300: 8900 + 220 */
	assert_near(sl_model_cycles(&x.md, 3, 2.133), 8900 + 4400 * 2.133 / F0 - 3300, 1e-6);
	sl_model_free(&x.md);

	/* the ratio rule carries A's ratio to C's unclipped prediction */
	assert_int_equal(par_refine(&x, SL_TIME_MLP, SL_REFINE_DEFAULT, a_true), 0);
	assert_int_equal(x.ri.rule, SL_REFINE_RATIO);
	assert_int_equal(x.ri.by_level[SL_REFINE_RATIO_LIKE], 1);
	assert_int_equal(x.ri.by_level[SL_REFINE_PARAM_OWN] + x.ri.by_level[SL_REFINE_PARAM_LIKE], 0);
	assert_near(sl_model_cycles(&x.md, 3, F2), (10000 - 4400 + 4400 * r) * a_true / a_model,
		    1e-6);
	sl_model_free(&x.md);

	/* clipped to [0, 1]: more cycles than even a wholly polluted M
	 * explains (all stalls hidden: 10000), fewer than an unpolluted one */
	assert_int_equal(par_refine(&x, SL_TIME_MLP, SL_REFINE_PARAM, 11000), 0);
	assert_near(sl_refine_param(&x.md, 0), 1, 1e-12);
	assert_near(sl_model_cycles(&x.md, 0, F2), 10000, 1e-6);
	sl_model_free(&x.md);
	assert_int_equal(par_refine(&x, SL_TIME_MLP, SL_REFINE_PARAM, 8000), 0);
	assert_near(sl_refine_param(&x.md, 0), 0, 1e-12);
	assert_near(sl_model_cycles(&x.md, 0, F2), a_model, 1e-6);
	sl_model_free(&x.md);
}

static void test_param_stall(void **state)
{
	(void)state;
	pfx x;
	double r = F2 / F0;
	/* the stall model at F2: c - k st (1 - r), st = min(S, X * 56.3 ns *
	 * F0) = S; A measured at 8400: k st (1 - r) = 1600, k = 2.0008 */
	double a = 8400;
	assert_int_equal(par_refine(&x, SL_TIME_STALL, SL_REFINE_PARAM, a), 0);
	assert_near(sl_refine_param(&x.md, 0), 1600 / (2000 * (1 - r)), 1e-9);
	assert_near(sl_model_cycles(&x.md, 0, F2), a, 1e-6);
	assert_int_equal(x.ri.by_level[SL_REFINE_RATIO_OWN], 1); /* B: st = 0 */
	assert_near(sl_model_cycles(&x.md, 2, F2), 9500, 1e-6);
	/* C: k times its own stalls, 10000 - 1600 * 2200 / 2000 */
	assert_near(sl_model_cycles(&x.md, 3, F2), 8240, 1e-6);
	sl_model_free(&x.md);
	/* the ratio carries A's relative change to C's prediction instead */
	assert_int_equal(par_refine(&x, SL_TIME_STALL, SL_REFINE_RATIO, a), 0);
	assert_near(sl_model_cycles(&x.md, 3, F2),
		    (10000 - 2200 * (1 - r)) * a / (10000 - 2000 * (1 - r)), 1e-6);
	sl_model_free(&x.md);
	/* the linear model has no parameter: the ratio everywhere */
	assert_int_equal(par_refine(&x, SL_TIME_LINEAR, SL_REFINE_PARAM, a), 0);
	assert_int_equal(x.ri.by_level[SL_REFINE_RATIO_OWN], 2);
	assert_int_equal(x.ri.by_level[SL_REFINE_RATIO_LIKE], 1);
	assert_near(sl_model_cycles(&x.md, 0, F2), a, 1e-6);
	sl_model_free(&x.md);
}

static void test_rule_parse(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		int rc;
		sl_refine_rule r; /* after it (unchanged when refused) */
		const char *name;
	} cases[] = {
		{"param", 0, SL_REFINE_PARAM, "param"},
		{"ratio", 0, SL_REFINE_RATIO, "ratio"},
		{"pollution", -1, SL_REFINE_RATIO, "ratio"},
	};
	sl_refine_rule r = SL_REFINE_DEFAULT;
	for (size_t k = 0; k < SL_ARRAY_LEN(cases); k++) {
		assert_int_equal(sl_refine_rule_parse(cases[k].s, &r), cases[k].rc);
		assert_int_equal(r, cases[k].r);
		assert_string_equal(sl_refine_rule_name(r), cases[k].name);
	}
	assert_non_null(strstr(sl_error(), "use 'ratio' or 'param'"));
	assert_string_equal(sl_refine_rule_name(SL_REFINE_DEFAULT), "ratio");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_levels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unlike, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_last, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_program, setup, teardown),
		cmocka_unit_test(test_param_mlp),
		cmocka_unit_test(test_param_stall),
		cmocka_unit_test(test_rule_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
