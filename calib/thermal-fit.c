/*
 * The die's thermal block (sleuth-machine/1 thermal:), measured from runs
 * of a steady load that warm the die: how far above its surroundings the
 * die settles per watt, how fast it gets there, and how much static power
 * the warmer die leaks per degree.  A power model fitted on training runs
 * cannot tell the last apart from activity (a program warms the die as it
 * works), so it is measured where activity does not change: in the
 * steady phase of one run, power rises only as the die warms.
 *
 * The die is a first-order RC: with R degrees C per watt, time constant
 * tau, the run's surroundings a and the sensor's readings e_i at each
 * interval's end (t_i seconds at power P_i, d_i = exp(-t_i / tau)),
 *
 *     e_i - d_i e_{i-1} = (1 - d_i) a + (1 - d_i) P_i R.
 *
 * For each tau of a logarithmic grid the rest is linear: a and R by least
 * squares (gsl_multifit_linear), one a for all the runs -- a probe's runs
 * follow one another in one room, and within a run the power hardly
 * changes, so only the runs' different powers tell R from a; the tau with
 * the least sum of squares is kept.  The leakage grows exponentially with
 * temperature: in a run's steady phase (the phase with most of its time),
 * where nothing else changes, power = c + L exp(k (T - ref)), with k the
 * silicon's own (one for all runs, by a grid) and L the leakage at ref at
 * that P-state (gsl_fit_linear per run, averaged over its runs).
 */
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>

#include "sleuth/calib.h"
#include "sleuth/common.h"

/* tau from 1 ms to 10^4 s, 20 points a decade */
#define TAU_LO (-3.0)
#define TAU_HI 4.0
#define TAU_STEPS 140
/* a run warms the die enough to measure from when its steady phase spans
 * this many degrees (several steps of a sensor that reads whole degrees) */
#define THERMAL_MIN_SPAN 3.0
/* the leakage's rise per degree, relative: searched up to 10%, in 0.05%
 * steps (silicon's is a few percent) */
#define LEAK_MAX_PER_C 0.1
#define LEAK_STEPS 200

/* Interval i of r has a temperature reading, measured energy and time. */
static int measured(const sl_calib_run *r, size_t i)
{
	return r->temp_c && isfinite(r->temp_c[i]) && isfinite(r->energy_j[i]) &&
	       r->energy_j[i] >= 0 && r->time_s[i] > 0;
}

/* Interval i of r as a recurrence row: measured, after a reading. */
static int usable(const sl_calib_run *r, size_t i)
{
	return i > 0 && measured(r, i) && isfinite(r->temp_c[i - 1]);
}

/* The sum of squares of the recurrence at tau, with R in *R: least
 * squares of y = (1 - d) a + (1 - d) P R over every run's rows. */
static double fit_at(const sl_calib_run *runs, size_t n_runs, double tau, size_t rows,
		     double *R)
{
	gsl_matrix *X = gsl_matrix_alloc(rows, 2), *cov = gsl_matrix_alloc(2, 2);
	gsl_vector *y = gsl_vector_alloc(rows), *c = gsl_vector_alloc(2);
	gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(rows, 2);
	size_t n = 0;
	for (size_t k = 0; k < n_runs; k++)
		for (size_t i = 0; i < runs[k].n; i++) {
			const sl_calib_run *r = &runs[k];
			if (!usable(r, i))
				continue;
			double d = exp(-r->time_s[i] / tau), w = 1 - d;
			gsl_vector_set(y, n, r->temp_c[i] - d * r->temp_c[i - 1]);
			gsl_matrix_set(X, n, 0, w);
			gsl_matrix_set(X, n, 1, w * r->energy_j[i] / r->time_s[i]);
			n++;
		}
	double chisq = HUGE_VAL;
	if (gsl_multifit_linear(X, y, c, cov, &chisq, ws) != 0)
		chisq = HUGE_VAL;
	*R = gsl_vector_get(c, 1);
	gsl_multifit_linear_free(ws);
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(c);
	return chisq;
}

/* Run r's steady phase (the phase with most of its time): its intervals'
 * temperatures and powers into t and p (r->n each), their number; 0 when
 * the temperatures span less than THERMAL_MIN_SPAN. */
static size_t steady_rows(const sl_calib_run *r, double *t, double *p)
{
	uint32_t top = 0, n_ph = 0;
	for (size_t i = 0; i < r->n; i++)
		n_ph = SL_MAX(n_ph, r->phase[i] + 1);
	double *t_ph = sl_xcalloc(n_ph + 1, sizeof *t_ph);
	for (size_t i = 0; i < r->n; i++)
		t_ph[r->phase[i]] += r->time_s[i];
	for (uint32_t k = 1; k < n_ph; k++)
		if (t_ph[k] > t_ph[top])
			top = k;
	free(t_ph);
	size_t n = 0;
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < r->n; i++)
		if (r->phase[i] == top && measured(r, i)) {
			t[n] = r->temp_c[i];
			p[n] = r->energy_j[i] / r->time_s[i];
			lo = SL_MIN(lo, t[n]), hi = SL_MAX(hi, t[n]);
			n++;
		}
	return n >= 3 && hi - lo >= THERMAL_MIN_SPAN ? n : 0;
}

/* One run's steady rows fitted as p = c + L exp(k (t - ref)) (x: n of
 * scratch): the sum of squares, L in *L; HUGE_VAL when the fit fails. */
static double fit_run(const double *t, const double *p, size_t n, double k, double ref,
		      double *x, double *L)
{
	double c0, c00, c01, c11, sumsq;
	for (size_t i = 0; i < n; i++)
		x[i] = exp(k * (t[i] - ref));
	return gsl_fit_linear(x, 1, p, 1, n, &c0, L, &c00, &c01, &c11, &sumsq) ? HUGE_VAL : sumsq;
}

/* The leakage: in each run's steady phase power = c + L exp(k (T - ref)),
 * one k for every run (the silicon's), L and c per run; k by a grid, the
 * rest by least squares (gsl_fit_linear).  Fills m's leakage block; the
 * number of P-states measured. */
static size_t fit_leakage(sl_machine *m, const sl_calib_run *runs, size_t n_runs)
{
	double **t = sl_xcalloc(n_runs, sizeof *t), **p = sl_xcalloc(n_runs, sizeof *p);
	size_t *n = sl_xcalloc(n_runs, sizeof *n), rows = 0;
	double sum_t = 0;
	for (size_t k = 0; k < n_runs; k++) {
		t[k] = sl_xmalloc((runs[k].n + 1) * sizeof **t);
		p[k] = sl_xmalloc((runs[k].n + 1) * sizeof **p);
		n[k] = steady_rows(&runs[k], t[k], p[k]);
		for (size_t i = 0; i < n[k]; i++)
			sum_t += t[k][i];
		rows += n[k];
	}
	size_t n_leak = 0;
	if (rows) {
		double ref = round(sum_t / (double)rows), best = HUGE_VAL, kbest = NAN;
		double *x = sl_xmalloc(rows * sizeof *x);
		for (int s = 1; s <= LEAK_STEPS; s++) {
			double kk = LEAK_MAX_PER_C * s / LEAK_STEPS, ss = 0;
			for (size_t r = 0; r < n_runs && ss < HUGE_VAL; r++) {
				double L;
				if (n[r])
					ss += fit_run(t[r], p[r], n[r], kk, ref, x, &L);
			}
			if (ss < best)
				best = ss, kbest = kk;
		}
		double *sum = sl_xcalloc(m->n_pstates, sizeof *sum);
		size_t *cnt = sl_xcalloc(m->n_pstates, sizeof *cnt);
		for (size_t r = 0; isfinite(kbest) && r < n_runs; r++) {
			double L;
			int s = sl_machine_pstate(m, runs[r].ghz);
			if (!n[r] || s < 0 || fit_run(t[r], p[r], n[r], kbest, ref, x, &L) == HUGE_VAL)
				continue;
			sum[s] += SL_MAX(0, L);
			cnt[s]++;
		}
		free(m->leak_ghz);
		free(m->leak_w);
		m->leak_ghz = sl_xcalloc(m->n_pstates, sizeof *m->leak_ghz);
		m->leak_w = sl_xcalloc(m->n_pstates, sizeof *m->leak_w);
		for (size_t s = 0; s < m->n_pstates; s++)
			if (cnt[s]) {
				m->leak_ghz[n_leak] = m->pstates[s].ghz;
				m->leak_w[n_leak++] = sum[s] / (double)cnt[s];
			}
		m->leak_per_c = isfinite(kbest) ? kbest : 0;
		m->leak_ref_c = ref;
		free(sum);
		free(cnt);
		free(x);
	}
	for (size_t k = 0; k < n_runs; k++)
		free(t[k]), free(p[k]);
	free(t);
	free(p);
	free(n);
	m->n_leak = n_leak;
	return n_leak;
}

int sl_calib_thermal(sl_machine *m, const sl_calib_run *runs, size_t n_runs, FILE *rep)
{
	size_t rows = 0;
	double lo = INFINITY, hi = -INFINITY;
	for (size_t k = 0; k < n_runs; k++)
		for (size_t i = 0; i < runs[k].n; i++)
			if (usable(&runs[k], i)) {
				rows++;
				lo = SL_MIN(lo, runs[k].temp_c[i]);
				hi = SL_MAX(hi, runs[k].temp_c[i]);
			}
	if (rows < 3) {
		sl_error_set("the inputs hold %zu intervals with the die's temperature and "
			     "measured energy; profile a steady load with a power meter and a "
			     "temperature sensor (sleuth run --power rapl, or --backend vpmu)",
			     rows);
		return -1;
	}
	if (hi - lo < THERMAL_MIN_SPAN) {
		sl_error_set("the die's temperature spans only %.1f to %.1f C in the inputs; "
			     "run the steady load long enough to warm the die (%.0f C at least)",
			     lo, hi, THERMAL_MIN_SPAN);
		return -1;
	}
	double best = HUGE_VAL, tau = NAN, R = NAN;
	for (int s = 0; s <= TAU_STEPS; s++) {
		double t = pow(10, TAU_LO + (TAU_HI - TAU_LO) * s / TAU_STEPS), r = NAN;
		double ss = fit_at(runs, n_runs, t, rows, &r);
		if (ss < best && r > 0)
			best = ss, tau = t, R = r;
	}
	if (!isfinite(tau)) {
		sl_error_set("no thermal time constant from 1 ms to 10^4 s explains the "
			     "temperatures as warming with power; check that the inputs "
			     "measured energy and temperature of the same die");
		return -1;
	}
	size_t n_leak = fit_leakage(m, runs, n_runs);
	m->has_thermal = 1;
	m->thermal_k_per_w = R;
	m->thermal_tau_s = tau;
	fprintf(rep, "thermal: %zu intervals of %zu runs, %.1f to %.1f C: %.4g C per W at "
		"steady state, time constant %.4g s (rms %.3g C)\n", rows, n_runs, lo, hi, R, tau,
		sqrt(best / (double)rows));
	for (size_t j = 0; j < n_leak; j++)
		fprintf(rep, "  leakage at %g GHz: %.4g W at %.0f C, +%.3g%% per C (steady "
			"phase)\n", m->leak_ghz[j], m->leak_w[j], m->leak_ref_c,
			100 * m->leak_per_c);
	if (!n_leak)
		fprintf(rep, "  no run's steady phase spans %.0f C: leakage not measured (static "
			"power keeps the power model's temperature term, if any)\n",
			THERMAL_MIN_SPAN);
	return 0;
}
