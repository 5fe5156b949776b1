/*
 * Unit tests of anchoring (models/anchor.c) against hand computations on a
 * profile built in memory: the residual per instance, borrowed from the
 * phase and then the program when an instance measured no energy, carried
 * to another frequency as effective capacitance (or as static power), an
 * instance's departure from its phase's residual split by where its
 * interpolated counts are uncertain, the residual taken over the time the
 * interval measured (not the time model's at f0), the clamp at zero, the
 * cases where nothing is anchored, and that
 * sl_model_init alone never anchors (what calibrate relies on).
 */
#include <math.h>
#include <string.h>

#include "fixture.h"
#include "sleuth/common.h"
#include "sleuth/model.h"

/* On the Nehalem fixture: 2.0 GHz at 1.11 V and 13.2267 W static, 1.6 GHz
 * at 1.018 V and 8.7530 W. */
#define S20 13.2267
#define S16 8.7530
#define DYN16 (1.6 * 1.018 * 1.018)
#define RATIO (DYN16 / (2.0 * 1.11 * 1.11))

static char *x_events[] = {"X"};
static sl_role x_roles[] = {{"branch_sample", "B"}};
static sl_power_term x_term = {"X", 1, 1.0, 0, 0};

/*
 * Phases 0 1 0 0 (instances 0, 1, 2 = intervals 2 and 3) at 2.0 GHz, the
 * linear model, Ceff = X per cycle (1 nF in interval 1, 0 elsewhere), so
 * the counter model's power at 2.0 GHz is 13.2267 W, and 13.2267 + 2 x
 * 1.11^2 in interval 1.  Energies are set per test (NAN: not measured).
 */
typedef struct fx {
	sl_prof_interval iv[4];
	uint64_t counts[4];
	sl_profile p;
	sl_machine m;
	sl_model md;
} fx;

static void mk(fx *f, const double *energy)
{
	static const sl_prof_interval iv[] = {{0, 0, 1.0, 2000000000, 1000, NAN},
					      {1, 1, 0.5, 1000000000, 2000, NAN},
					      {0, 1.5, 1.0, 2000000000, 3000, NAN},
					      {0, 2.5, 1.5, 3000000000, 4000, NAN}};
	static const uint64_t counts[] = {0, 1000000000, 0, 0};
	memcpy(f->iv, iv, sizeof iv);
	memcpy(f->counts, counts, sizeof counts);
	for (size_t i = 0; i < 4; i++)
		f->iv[i].energy_j = energy[i];
	mkprof(&f->p, 4, f->iv, 1, x_events, f->counts, 2.0);
	f->p.energy_source = "trace";
	mknhm(&f->m);
	f->m.roles = x_roles;
	f->m.n_roles = 1;
	f->m.terms = &x_term;
	f->m.n_terms = 1;
	assert_int_equal(sl_model_init(&f->md, &f->p, &f->m, SL_TIME_LINEAR, 0), 0);
}

static double power_at(const sl_model *md, double ghz, size_t i, int *clamped)
{
	sl_opoint op;
	sl_pred pr;
	assert_int_equal(sl_model_opoint(md, ghz, &op), 0);
	sl_model_predict(md, &op, i, &pr);
	assert_near(pr.energy_j, pr.power_w * pr.time_s, 1e-9);
	if (clamped)
		*clamped = pr.clamped;
	return pr.power_w;
}

/* Instance 0 measured +2 W over the model, instance 2 +1 W in its first
 * interval only (its second takes the instance's), instance 1 measured
 * nothing and its phase neither: the program's +1.5 W (3 J over 2 s). */
static void test_residuals(void **state)
{
	(void)state;
	fx *f = test_malloc(sizeof *f);
	double e[] = {S20 + 2, NAN, S20 + 1, NAN};
	mk(f, e);
	/* sl_model_init alone: the counters only (calibrate's view) */
	assert_null(f->md.anchor);
	assert_near(power_at(&f->md, 1.6, 0, NULL), S16, 1e-9);

	assert_int_equal(sl_model_anchor(&f->md), 1);
	sl_anchor *a = f->md.anchor;
	assert_non_null(a);
	assert_string_equal(a->source, "trace");
	assert_int_equal(a->intervals_measured, 2);
	assert_near(a->resid_w, 1.5, 1e-9);
	assert_near(a->model_w, S20, 1e-9);
	assert_int_equal(a->inst_own, 2);
	assert_int_equal(a->inst_phase, 0);
	assert_int_equal(a->inst_program, 1);
	assert_near(a->inst_w[0], 2, 1e-9);
	assert_near(a->inst_w[1], 1.5, 1e-9);
	assert_near(a->inst_w[2], 1, 1e-9);
	/* anchoring twice changes nothing */
	assert_int_equal(sl_model_anchor(&f->md), 1);
	assert_ptr_equal(f->md.anchor, a);

	/* at f0 the measured power; at 1.6 GHz the residual as Ceff */
	assert_near(power_at(&f->md, 2.0, 0, NULL), S20 + 2, 1e-9);
	assert_near(power_at(&f->md, 1.6, 0, NULL), S16 + 2 * RATIO, 1e-9);
	assert_near(power_at(&f->md, 1.6, 1, NULL), S16 + DYN16 + 1.5 * RATIO, 1e-9);
	assert_near(power_at(&f->md, 1.6, 3, NULL), S16 + 1 * RATIO, 1e-9);

	/* the share taken as static power scales with the machine's static
	 * power (8.753 / 13.2267 W from 2.0 to 1.6 GHz) */
	a->static_share = 1;
	assert_near(power_at(&f->md, 1.6, 0, NULL), S16 + 2 * S16 / S20, 1e-9);
	a->static_share = 0.5;
	assert_near(power_at(&f->md, 1.6, 0, NULL),
		    S16 + 2 * (0.5 * RATIO + 0.5 * S16 / S20), 1e-9);
	sl_model_free(&f->md);
	test_free(f);
}

/*
 * A term of kind energy: X also costs 10 nJ per event at a fixed voltage.
 * Interval 1 (1e9 X in 1e9 cycles, 0.5 s at 2.0 GHz, 0.625 s at 1.6) has
 * 20 W of it at f0 and 16 W at 1.6 GHz, not 20 x RATIO.  Anchored on a
 * measured +4 W, the residual is split as the counter model's own power
 * above static is: with X also as 1 nF of capacitance (2 x 1.11^2 W at
 * f0), the share u = 20 / (20 + 2.4642) of it keeps its energy (x 0.5 /
 * 0.625), the rest scales as f V^2.
 */
static void test_energy_term(void **state)
{
	(void)state;
	fx *f = test_malloc(sizeof *f);
	sl_power_term terms[] = {{"X", 1, 1.0, 0, 0}, {"X", 1, 10.0, 1, 0}};
	double dyn0 = 2.0 * 1.11 * 1.11;
	double e[] = {NAN, (S20 + dyn0 + 20 + 4) * 0.5, NAN, NAN};
	mk(f, e);
	sl_model_free(&f->md);
	f->m.terms = terms;
	f->m.n_terms = 2;
	assert_int_equal(sl_model_init(&f->md, &f->p, &f->m, SL_TIME_LINEAR, 0), 0);
	assert_near(power_at(&f->md, 2.0, 1, NULL), S20 + dyn0 + 20, 1e-9);
	assert_near(power_at(&f->md, 1.6, 1, NULL), S16 + DYN16 + 16, 1e-9);
	assert_near(power_at(&f->md, 1.6, 0, NULL), S16, 1e-9); /* no X */
	sl_opoint op;
	sl_pred pr;
	assert_int_equal(sl_model_opoint(&f->md, 1.6, &op), 0);
	sl_model_predict(&f->md, &op, 1, &pr);
	assert_near(pr.fixed_w, 16, 1e-9);
	assert_near(pr.ceff_nf, 1, 1e-12); /* the energy term is no capacitance */
	/* the peak: 10 nJ x 4 events per cycle at 1.6 GHz */
	assert_near(sl_model_peak_w(&f->md, &op), S16 + 1 * 4 * DYN16 + 10 * 4 * 1.6, 1e-9);

	assert_int_equal(sl_model_anchor(&f->md), 1);
	double u = 20 / (20 + dyn0);
	assert_near(f->md.anchor->inst_fixed[1], u, 1e-12);
	assert_near(power_at(&f->md, 2.0, 1, NULL), S20 + dyn0 + 24, 1e-9);
	assert_near(power_at(&f->md, 1.6, 1, NULL),
		    S16 + DYN16 + 16 + 4 * ((1 - u) * RATIO + u * 0.5 / 0.625), 1e-9);
	sl_model_free(&f->md);

	/* energy alone: the whole residual keeps its energy */
	f->m.terms = &terms[1];
	f->m.n_terms = 1;
	f->iv[1].energy_j = (S20 + 20 + 4) * 0.5;
	assert_int_equal(sl_model_init(&f->md, &f->p, &f->m, SL_TIME_LINEAR, 0), 0);
	assert_int_equal(sl_model_anchor(&f->md), 1);
	assert_near(f->md.anchor->inst_fixed[1], 1, 1e-12);
	assert_near(power_at(&f->md, 1.6, 1, NULL), S16 + 16 + 4 * 0.8, 1e-9);
	/* an instance without measured energy borrows the program's share too */
	assert_near(f->md.anchor->inst_fixed[0], 1, 1e-12); /* the program's */
	sl_model_free(&f->md);
	test_free(f);
}

/* An instance without energy borrows its phase's residual before the
 * program's: instance 2 (phase 0) takes instance 0's +2 W, not the
 * program's (2 + 4 x 0.5) / 1.5. */
static void test_phase_borrow(void **state)
{
	(void)state;
	fx *f = test_malloc(sizeof *f);
	double e[] = {S20 + 2, (S20 + 2 * 1.11 * 1.11 + 4) * 0.5, NAN, NAN};
	mk(f, e);
	assert_int_equal(sl_model_anchor(&f->md), 1);
	const sl_anchor *a = f->md.anchor;
	assert_int_equal(a->inst_own, 2);
	assert_int_equal(a->inst_phase, 1);
	assert_int_equal(a->inst_program, 0);
	assert_near(a->inst_w[1], 4, 1e-9);
	assert_near(a->inst_w[2], 2, 1e-9);
	assert_near(a->resid_w, 4.0 / 1.5, 1e-9);
	assert_near(power_at(&f->md, 1.6, 3, NULL), S16 + 2 * RATIO, 1e-9);
	sl_model_free(&f->md);
	test_free(f);
}

/*
 * A phase that borrowed a capacitance term's counts from another phase:
 * X (1 nF per event per cycle) counted in phase 0 only, and a memory
 * stall count M, the stall model.  Interval 2 (phase 1, 2e9 cycles, 1 s
 * at 2.0 GHz, half of them stalled on memory) takes X from the program
 * (1e9: the phase never counted it) and measured 1 W less than the model
 * there.  Ceff x f x V^2 with Ceff linear in X per cycle is X's energy at
 * V^2 over the time, so the borrowed count's error is carried as energy
 * per event at V^2: x (1.018 / 1.11)^2 x t0 / t1, with t1 = (1e9 + 1e9 x
 * 1.6 / 2.0) / 1.6e9 = 1.125 s -- not as f V^2 (x RATIO), which would
 * drop it by 0.8 where the time drops by 0.889.  Phase 0, which counted
 * X itself, keeps the model's split (its residual is the model's error
 * on its behaviour): f V^2.
 */
static void test_borrowed_count(void **state)
{
	(void)state;
	static char *evs[] = {"X", "M"};
	static sl_role roles[] = {{"memory_stall_cycles", "M"}};
	sl_prof_interval iv[] = {{0, 0, 1.0, 2000000000, 1000, S20 + 2.0 * 1.11 * 1.11 / 2 + 1},
				 {0, 1, 1.0, 2000000000, 1000, NAN},
				 {1, 2, 1.0, 2000000000, 1000, S20 + 2.0 * 1.11 * 1.11 / 2 - 1}};
	uint64_t counts[] = {1000000000, 0, 1000000000, 0, SL_MISSING, 1000000000};
	sl_power_term term = {"X", 1, 1.0, 0, 0};
	sl_profile p;
	sl_machine m;
	sl_model md;
	mkprof(&p, 3, iv, 2, evs, counts, 2.0);
	p.energy_source = "trace";
	mknhm(&m);
	m.roles = roles;
	m.n_roles = 1;
	m.terms = &term;
	m.n_terms = 1;
	assert_int_equal(sl_model_init(&md, &p, &m, SL_TIME_STALL, 0), 0);
	double base2 = power_at(&md, 1.6, 2, NULL), base0 = power_at(&md, 1.6, 0, NULL);
	sl_opoint op;
	sl_pred pr;
	assert_int_equal(sl_model_opoint(&md, 1.6, &op), 0);
	sl_model_predict(&md, &op, 2, &pr);
	assert_near(pr.time_s, 1.125, 1e-9);
	assert_int_equal(sl_model_anchor(&md), 1);
	const sl_anchor *a = md.anchor;
	size_t j2 = md.view.inst_of[2];
	assert_near(a->inst_w[j2], -1, 1e-9);
	assert_near(a->inst_count[j2], 1, 1e-9); /* all of Ceff is X's */
	assert_near(a->inst_count[md.view.inst_of[0]], 0, 0);
	double vt = 1.018 * 1.018 / (1.11 * 1.11) / 1.125;
	assert_near(power_at(&md, 1.6, 2, NULL), base2 - vt, 1e-9);
	assert_true(fabs(power_at(&md, 1.6, 2, NULL) - (base2 - RATIO)) > 0.05);
	assert_near(power_at(&md, 1.6, 0, NULL), base0 + RATIO, 1e-9);
	sl_model_free(&md);
}

/* A meter that read nothing: at f0 the model's whole 13.2267 W is
 * residual, which at 1.6 GHz (x 0.673) takes away more than the model's
 * 8.753 W: the power stops at zero, counted as an idle clamp. */
static void test_clamp(void **state)
{
	(void)state;
	fx *f = test_malloc(sizeof *f);
	double e[] = {0, NAN, NAN, NAN};
	mk(f, e);
	assert_int_equal(sl_model_anchor(&f->md), 1);
	int clamped;
	assert_near(power_at(&f->md, 2.0, 0, &clamped), 0, 1e-9);
	assert_near(power_at(&f->md, 1.6, 0, &clamped), 0, 0);
	assert_int_equal(clamped, SL_CLAMP_IDLE);
	sl_model_free(&f->md);
	test_free(f);
}

/* Nothing to anchor on: no energy, unusable energy, time only. */
static void test_nothing(void **state)
{
	(void)state;
	fx *f = test_malloc(sizeof *f);
	double none[] = {NAN, NAN, NAN, NAN};
	mk(f, none);
	assert_int_equal(sl_model_anchor(&f->md), 0);
	assert_null(f->md.anchor);
	sl_model_free(&f->md);

	double bad[] = {-1, INFINITY, NAN, NAN};
	mk(f, bad);
	assert_int_equal(sl_model_anchor(&f->md), 0);
	sl_model_free(&f->md);

	double e[] = {S20 + 2, NAN, NAN, NAN};
	mk(f, e);
	sl_model_free(&f->md);
	assert_int_equal(sl_model_init(&f->md, &f->p, &f->m, SL_TIME_LINEAR,
				       SL_MODEL_TIME_ONLY), 0);
	assert_int_equal(sl_model_anchor(&f->md), 0);
	assert_null(f->md.anchor);
	sl_model_free(&f->md);

	/* a profiled frequency outside the P-states: refused, saying why */
	mk(f, e);
	f->md.f0_ghz = 3.5;
	assert_int_equal(sl_model_anchor(&f->md), -1);
	assert_non_null(strstr(sl_error(), "cannot anchor power"));
	assert_null(f->md.anchor);
	sl_model_free(&f->md);
	test_free(f);
}

/*
 * Phases 0 0 1 0 1 at 2.0 GHz, each interval 1 s, 2e9 cycles and 1e9
 * instructions, measuring energy[i]; X (1 nF) and Y (10 nJ per event, of
 * kind energy) counted as counts[] (interval by interval, X then Y); the
 * model initialised, not anchored.  iv: the caller's 5 intervals.
 */
static fx *mk_xy(sl_prof_interval *iv, uint64_t *counts, const double *energy)
{
	static char *ev[] = {"X", "Y"};
	static sl_power_term terms[] = {{"X", 1, 1.0, 0, 0}, {"Y", 1, 10.0, 1, 0}};
	for (size_t i = 0; i < 5; i++)
		iv[i] = (sl_prof_interval){i == 2 || i == 4, (double)i, 1.0, 2000000000,
					   1000000000, energy[i]};
	fx *f = test_malloc(sizeof *f);
	mkprof(&f->p, 5, iv, 2, ev, counts, 2.0);
	mknhm(&f->m);
	f->m.roles = x_roles;
	f->m.n_roles = 1;
	f->m.terms = terms;
	f->m.n_terms = 2;
	assert_int_equal(sl_model_init(&f->md, &f->p, &f->m, SL_TIME_LINEAR, 0), 0);
	return f;
}

/*
 * The departure of an instance from its phase's residual, split by where
 * its interpolation is uncertain.  X (1 nF) is counted in every interval,
 * Y (10 nJ per event, a term of kind energy) in every interval but 3.
 * Phases 0 0 1 0 1, 1 s and 2e9 cycles each at 2.0 GHz: phase 0 has X =
 * 4e9 and Y = 1e8, 1.2e8 in its measured intervals, so interval 3 (its
 * own instance) takes Y = 1.1e8 from them; it really ran 4e8, and the
 * meter reads their 2.9 J more, all of it energy per event.  At 1.6 GHz
 * (1.25 s) that is 2.9 J / 1.25 s = 2.32 W more than the counters say.
 * The phase's residual (2.9 J over its 3 s) is split as the model's power
 * (u = 1.1 / (1.1 + 2 x 2 x 1.11^2)); the instance's departure from it is
 * an interpolated count of kind energy alone, and keeps its energy.
 * Carrying the whole residual as the model's split (before) put it at
 * 2.02 W, 0.30 W short; now within 0.1 W.
 */
static void test_departure(void **state)
{
	(void)state;
	sl_prof_interval iv[5];
	uint64_t counts[] = {4000000000, 100000000, 4000000000, 120000000, 0, 0,
			     4000000000, M,         0,          0};
	double dyn0 = 2.0 * 1.11 * 1.11, ceff0 = 2 * dyn0;
	double model0[] = {S20 + ceff0 + 1, S20 + ceff0 + 1.2, S20, S20 + ceff0 + 1.1, S20};
	double e[5];
	for (size_t i = 0; i < 5; i++)
		e[i] = model0[i] + (i == 3 ? 2.9 : 0);
	fx *f = mk_xy(iv, counts, e);
	assert_near(sl_interp_count(&f->md.view, 3, 1), 1.1e8, 1);
	/* Y's rates stray 1 / 11 from phase 0's mean (phase 1 never ran it) */
	assert_near(f->md.view.spread[1], 1.0 / 11, 1e-9);
	assert_near(power_at(&f->md, 2.0, 3, NULL), model0[3], 1e-9);
	assert_int_equal(sl_model_anchor(&f->md), 1);
	const sl_anchor *a = f->md.anchor;
	double u = 1.1 / (1.1 + ceff0);
	assert_near(a->inst_fixed[2], u, 1e-12);
	assert_near(a->inst_w[2], 2.9, 1e-9);
	assert_near(a->phase_w[2], 2.9 / 3, 1e-9);
	assert_near(a->dep_fixed[2], 1, 1e-12);
	/* measured everywhere, or with no energy term interpolated: the
	 * model's split */
	assert_near(a->dep_fixed[0], a->inst_fixed[0], 1e-12);
	assert_near(power_at(&f->md, 2.0, 3, NULL), model0[3] + 2.9, 1e-9);
	double counters = S16 + 2 * DYN16 + 1.1 / 1.25;
	double p = power_at(&f->md, 1.6, 3, NULL);
	assert_near(p, counters + 2.9 / 3 * ((1 - u) * RATIO + u * 0.8) + (2.9 - 2.9 / 3) * 0.8,
		    1e-9);
	assert_true(fabs(p - (counters + 2.32)) < 0.15);
	sl_model_free(&f->md);
	test_free(f);
}

/*
 * The departure's split weighs each interpolated term by its energy at f0
 * -- times V0^2 for capacitance -- and its event's spread.  Phases 0 0 1
 * 0 1 as in test_departure, X (1 nF) and Y (10 nJ) both unmeasured in
 * interval 3 (its own instance, number 2), taken from phase 0's measured
 * intervals: X 4.0e9 and 4.4e9 there (spread 0.2 / 4.2 = 1/21), Y 1e8 and
 * 1.2e8 (1/11).  So X weighs 4.2e9 x 1/21 x 1.11^2 nJ and Y 10 x 1.1e8 x
 * 1/11 = 1e8 nJ: the energy share of the summed squares is
 * 1 / (1 + 2.4642^2) = 0.1414 (0.2 without the V0^2).  With Y measured
 * once in phase 0, its spread is unknown, and instances that interpolated
 * it keep the model's split.
 */
static void departure_mixed(int y_once)
{
	sl_prof_interval iv[5];
	uint64_t counts[] = {4000000000, 100000000, 4400000000, y_once ? M : 120000000, 0, 0,
			     M,          M,         0,          0};
	double e[] = {S20 + 5, S20 + 5, S20 + 5, S20 + 5, S20 + 5};
	fx *f = mk_xy(iv, counts, e);
	assert_int_equal(sl_model_anchor(&f->md), 1);
	const sl_anchor *a = f->md.anchor;
	const sl_interp *v = &f->md.view;
	assert_near(v->spread[0], 1.0 / 21, 1e-9);
	if (y_once) {
		assert_true(isnan(v->spread[1]));
		assert_near(a->dep_fixed[0], a->inst_fixed[0], 1e-12);
		assert_near(a->dep_fixed[2], a->inst_fixed[2], 1e-12);
	} else {
		assert_near(v->spread[1], 1.0 / 11, 1e-9);
		assert_near(sl_interp_count(v, 3, 0), 4.2e9, 1);
		assert_near(sl_interp_count(v, 3, 1), 1.1e8, 1);
		double cap = 4.2e9 / 21 * 1.11 * 1.11, en = 1e8;
		assert_near(a->dep_fixed[2], en * en / (en * en + cap * cap), 1e-9);
		assert_near(a->dep_fixed[2], 0.1414, 1e-4);
		assert_near(a->dep_fixed[0], a->inst_fixed[0], 1e-12); /* all measured */
	}
	sl_model_free(&f->md);
	test_free(f);
}

static void test_departure_mixed(void **state)
{
	(void)state;
	departure_mixed(0);
	departure_mixed(1);
}

/*
 * The residual is the meter's power less the counter model's over the
 * time the interval measured, not the time model's at f0: the mlp model
 * need not give back the measured cycles at f0 (here its bandwidth bound,
 * 1e9 misses x 64 B at 32 GB/s: 2 s, twice the 1 s measured; in a real
 * profile, an instance's misses and prefetches filled high), and the
 * power over that longer time spreads X's switching thinner.  One
 * interval at 2.0 GHz, X = 1e9 (1 nF x 2e9 cycles / 2e9 cycles measured:
 * 0.5 nF), the meter 1 W above the model at the measured time: R = +1 W.
 * The time model's 4e9 cycles (0.25 nF) would give R = 1 + 0.25 x 2 x
 * 1.11^2 = 1.616 W.  At 1.6 GHz the time is the same 2 s (3.2e9 cycles,
 * 0.3125 nF) and the residual scales as f V^2.
 */
static void test_measured_time(void **state)
{
	(void)state;
	sl_prof_interval iv[] = {{0, 0, 1.0, 2000000000, 1000, NAN}};
	char *evs[] = {"X", "OFF", "LLC"};
	uint64_t counts[] = {1000000000, 0, 1000000000};
	sl_role roles[] = {{"branch_sample", "B"}, {"offcore_cycles", "OFF"},
			   {"llc_misses", "LLC"}};
	double dyn0 = 2.0 * 1.11 * 1.11;
	iv[0].energy_j = S20 + 0.5 * dyn0 + 1;
	sl_profile p;
	mkprof(&p, 1, iv, 3, evs, counts, 2.0);
	p.energy_source = "trace";
	sl_machine m;
	mknhm(&m);
	m.roles = roles;
	m.n_roles = SL_ARRAY_LEN(roles);
	m.terms = &x_term;
	m.n_terms = 1;
	m.has_memory = 1;
	m.mem_bandwidth_gbps = 32;
	sl_model md;
	assert_int_equal(sl_model_init(&md, &p, &m, SL_TIME_MLP, 0), 0);
	assert_near(sl_model_cycles(&md, 0, 2.0), 4e9, 1e3); /* not the 2e9 measured */
	assert_int_equal(sl_model_anchor(&md), 1);
	assert_near(md.anchor->inst_w[0], 1, 0.05);
	assert_near(power_at(&md, 1.6, 0, NULL), S16 + 0.3125 * DYN16 + RATIO, 0.05);
	sl_model_free(&md);
}

static void test_mode_parse(void **state)
{
	(void)state;
	sl_anchor_mode m = SL_ANCHOR_OFF;
	assert_int_equal(sl_anchor_mode_parse("auto", &m), 0);
	assert_int_equal(m, SL_ANCHOR_AUTO);
	assert_int_equal(sl_anchor_mode_parse("off", &m), 0);
	assert_int_equal(m, SL_ANCHOR_OFF);
	assert_int_equal(sl_anchor_mode_parse("on", &m), -1);
	assert_non_null(strstr(sl_error(), "'auto'"));
	assert_int_equal(m, SL_ANCHOR_OFF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_residuals),
		cmocka_unit_test(test_phase_borrow),
		cmocka_unit_test(test_borrowed_count),
		cmocka_unit_test(test_energy_term),
		cmocka_unit_test(test_departure),
		cmocka_unit_test(test_departure_mixed),
		cmocka_unit_test(test_measured_time),
		cmocka_unit_test(test_clamp),
		cmocka_unit_test(test_nothing),
		cmocka_unit_test(test_mode_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
