/*
 * Unit tests of the die's temperature at the target (models/thermal.c):
 * a run profiled hot at 2.0 GHz on a die that obeys the thermal block's
 * own RC and exponential leakage, predicted at 1.6 GHz, must come out at
 * the temperatures and power that die has at 1.6 GHz (computed here as a
 * truth); without the thermal block the prediction keeps the profiled
 * temperatures and its leakage, and is too high by what the cooler die
 * saves; the profiled frequency and an asked-for temperature
 * (sl_model_set_temp) are left as they were.
 */
#include <math.h>
#include <string.h>

#include "fixture.h"
#include "sleuth/common.h"
#include "sleuth/model.h"

#include "models/thermal.h"

#define N 60
#define T0 0.05     /* s per interval at 2.0 GHz */
#define R_TH 2.0    /* C per W */
#define TAU 0.4     /* s */
#define AMB 40.0
#define START 45.0
#define PER_C 0.02
#define LREF 60.0
#define TREF 50.0

static char *x_events[] = {"X"};
static sl_role x_roles[] = {{"branch_sample", "B"}};
static sl_power_term x_term = {"X", 1, 1.0, 0, 0};
static double leak_ghz[] = {2.0, 1.6};
static double leak_w[] = {10.0, 4.0}; /* W at LREF: a leaky part */

typedef struct fx {
	sl_prof_interval iv[N];
	uint64_t counts[N];
	double temp[N];
	sl_profile p;
	sl_machine m;
	sl_model md;
} fx;

/* The truth: static_w(V) at TREF plus the leakage's change, the die an
 * RC; the sensor reads each interval's end, where the power is taken. */
static double leak(const sl_machine *m, double ghz, double t)
{
	double w = ghz > 1.8 ? leak_w[0] : leak_w[1];
	(void)m;
	return w * exp(PER_C * (t - LREF));
}

static void truth(const sl_machine *m, double ghz, double st, double dt_s, double *temp,
		  double *power)
{
	double prev = START;
	for (size_t i = 0; i < N; i++) {
		double d = exp(-dt_s / TAU), e = prev, p = 0;
		for (int it = 0; it < 50; it++) {
			p = st + leak(m, ghz, e) - leak(m, ghz, TREF);
			e = d * prev + (1 - d) * (AMB + R_TH * p);
		}
		temp[i] = e;
		power[i] = p;
		prev = e;
	}
}

static void mk(fx *f, int thermal)
{
	memset(f, 0, sizeof *f);
	mknhm(&f->m);
	f->m.roles = x_roles;
	f->m.n_roles = 1;
	f->m.terms = &x_term;
	f->m.n_terms = 1;
	f->m.has_temp = 1;
	f->m.temp_ref_c = TREF;
	f->m.has_thermal = thermal;
	f->m.thermal_k_per_w = R_TH;
	f->m.thermal_tau_s = TAU;
	f->m.n_leak = 2;
	f->m.leak_ghz = leak_ghz;
	f->m.leak_w = leak_w;
	f->m.leak_per_c = PER_C;
	f->m.leak_ref_c = LREF;
	double power[N];
	truth(&f->m, 2.0, 13.2267, T0, f->temp, power);
	for (size_t i = 0; i < N; i++) {
		f->iv[i] = (sl_prof_interval){0, T0 * (double)i, T0, (uint64_t)(2e9 * T0), 1000,
					      power[i] * T0};
		f->counts[i] = 0;
	}
	mkprof(&f->p, N, f->iv, 1, x_events, f->counts, 2.0);
	f->p.energy_source = "trace";
	f->p.temp_c = f->temp;
	assert_int_equal(sl_model_init(&f->md, &f->p, &f->m, SL_TIME_LINEAR, 0), 0);
	assert_int_equal(sl_model_anchor(&f->md), 1);
}

static double predict(const sl_model *md, double ghz, size_t i)
{
	sl_opoint op;
	sl_pred pr;
	assert_int_equal(sl_model_opoint(md, ghz, &op), 0);
	sl_model_predict(md, &op, i, &pr);
	assert_near(pr.energy_j, pr.power_w * pr.time_s, 1e-9);
	return pr.power_w;
}

/* The leaky fixture warms from 45 C towards 40 + 2 P; at 1.6 GHz the
 * intervals last 1.25 times longer at 8.75 W of static power. */
static void test_cooler_target(void **state)
{
	(void)state;
	fx f;
	mk(&f, 1);
	assert_true(f.temp[N - 1] > f.temp[0] + 3); /* the run warms the die */
	double t1[N], p1[N];
	truth(&f.m, 1.6, 8.7530, T0 * 2.0 / 1.6, t1, p1);
	sl_opoint op;
	assert_int_equal(sl_model_opoint(&f.md, 1.6, &op), 0);
	for (size_t i = 0; i < N; i++) {
		assert_near(f.temp[i] + sl_thermal_dtemp(&f.md, &op, i), t1[i], 0.05);
		assert_near(predict(&f.md, 1.6, i), p1[i], 0.005 * p1[i]);
		/* the profiled frequency gives the measured power back */
		assert_near(predict(&f.md, 2.0, i), f.iv[i].energy_j / T0, 1e-9);
	}
	sl_model_free(&f.md);
}

/* Without the thermal block the leakage stays at the profiled (hotter)
 * temperatures: too high at 1.6 GHz by what the cooler die saves. */
static void test_without_thermal(void **state)
{
	(void)state;
	fx f;
	mk(&f, 0);
	double t1[N], p1[N];
	truth(&f.m, 1.6, 8.7530, T0 * 2.0 / 1.6, t1, p1);
	size_t i = N - 1;
	double saved = leak(&f.m, 1.6, f.temp[i]) - leak(&f.m, 1.6, t1[i]);
	assert_true(saved > 0.1);
	assert_near(predict(&f.md, 1.6, i), p1[i] + saved, 0.005 * p1[i]);
	sl_model_free(&f.md);
}

/* An asked-for temperature holds whatever the RC says. */
static void test_set_temp(void **state)
{
	(void)state;
	fx f;
	mk(&f, 1);
	sl_model_set_temp(&f.md, 70);
	sl_opoint op;
	assert_int_equal(sl_model_opoint(&f.md, 1.6, &op), 0);
	assert_near(sl_thermal_dtemp(&f.md, &op, N - 1), 0, 0);
	assert_near(sl_thermal_dpower(&f.md, &op, N - 1), 0, 0);
	sl_model_free(&f.md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cooler_target),
		cmocka_unit_test(test_without_thermal),
		cmocka_unit_test(test_set_temp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
