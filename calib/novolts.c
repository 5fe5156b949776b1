/*
 * Calibrating a machine whose platform exposes no voltages (most x86
 * machines: cpufreq lists frequencies only).  The power model is
 *   P = static_w(s) + Ceff * f * V(s)^2
 * with V(s) unknown: V^2 is folded into one fitted number per P-state, the
 * relative V^2 (1 at the fastest trained P-state; the absolute scale goes
 * into the Ceff coefficients).  The fit is bilinear, so it alternates:
 * with the relative voltages fixed, the usual linear fit gives the
 * coefficients and static power; with those fixed, each P-state's rows give
 * its static power and relative V^2 by a line through (f*Ceff, P).  The
 * relative voltages are then written as the P-states' volts, so everything
 * downstream (predict, interpolation between P-states) works unchanged.
 */
#include "sleuth/calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>

#include "sleuth/common.h"

#define ITERS 100
#define TOL 1e-6

/* Relative V^2 of untrained P-states: V linear in f between trained ones,
 * end segments extended (V never below a tenth of the fastest). */
static void fill_untrained(sl_machine *m, const unsigned char *trained)
{
	for (size_t s = 0; s < m->n_pstates; s++) {
		if (trained[s])
			continue;
		/* nearest trained P-states above (faster, lower index) and below */
		long hi = -1, lo = -1;
		for (long j = (long)s - 1; j >= 0 && hi < 0; j--)
			if (trained[j])
				hi = j;
		for (size_t j = s + 1; j < m->n_pstates && lo < 0; j++)
			if (trained[j])
				lo = (long)j;
		long a = hi >= 0 ? hi : lo, b = lo >= 0 ? lo : hi;
		if (hi < 0 || lo < 0) { /* extend the end segment */
			b = a;
			for (size_t j = 0; j < m->n_pstates; j++)
				if (trained[j] && (long)j != a &&
				    (b == a || labs((long)j - a) < labs(b - a)))
					b = (long)j;
		}
		const sl_pstate *pa = &m->pstates[a], *pb = &m->pstates[b];
		double v = pa->volts;
		if (a != b)
			v = pa->volts + (pb->volts - pa->volts) * (m->pstates[s].ghz - pa->ghz) /
						(pb->ghz - pa->ghz);
		m->pstates[s].volts = SL_MAX(v, 0.1);
	}
}

int sl_calib_relative_volts(sl_calib_data *d, sl_machine *m, const size_t *terms,
			    size_t n_terms, const sl_calib_opts *o, int *iters)
{
	size_t np = m->n_pstates;
	unsigned char *trained = sl_xcalloc(np, 1);
	for (size_t i = 0; i < d->n; i++)
		trained[d->ps[i]] = 1;
	size_t n_tr = 0, fastest = np;
	for (size_t s = 0; s < np; s++)
		if (trained[s]) {
			n_tr++;
			if (fastest == np)
				fastest = s; /* P-states are listed fastest first */
		}
	if (n_tr < 2) {
		sl_error_set("machine %s gives no volts, so the voltage of each P-state is "
			     "fitted, which needs training at two or more P-states (found "
			     "%zu); train at more, or add volts: to the P-states", m->name, n_tr);
		free(trained);
		return -1;
	}
	double *u = sl_xmalloc(np * sizeof *u); /* relative V^2 */
	double *x = sl_xmalloc((d->n ? d->n : 1) * sizeof *x);
	double *y = sl_xmalloc((d->n ? d->n : 1) * sizeof *y);
	for (size_t s = 0; s < np; s++)
		u[s] = 1;
	int rc = 0, it;
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	for (it = 0; it < ITERS && rc == 0; it++) {
		for (size_t s = 0; s < np; s++)
			m->pstates[s].volts = trained[s] ? sqrt(u[s]) : 0;
		fill_untrained(m, trained);
		for (size_t i = 0; i < d->n; i++)
			d->v[i] = m->pstates[d->ps[i]].volts;
		sl_calib_fit fit;
		if (sl_calib_fit_run(&fit, d, m, terms, n_terms, o) < 0) {
			rc = -1;
			break;
		}
		double change = 0, *nu = sl_xcalloc(np, sizeof *nu);
		for (size_t s = 0; s < np && rc == 0; s++) {
			if (!trained[s])
				continue;
			size_t n = 0;
			for (size_t i = 0; i < d->n; i++) {
				double c = sl_calib_ceff(&fit, d, i);
				if (d->ps[i] != (int)s || !isfinite(c))
					continue;
				x[n] = d->f[i] * c;
				y[n++] = d->power[i] - (o->static_w ? o->static_w[s] : 0) -
					 (fit.has_temp ? fit.temp_coeff * d->v[i] *
							 (d->temp[i] - fit.temp_ref)
						       : 0);
			}
			double c0 = 0, c1 = 0, c00, c01, c11, ss;
			int st = o->static_w ? gsl_fit_mul(x, 1, y, 1, n, &c1, &c11, &ss)
					     : gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &c00, &c01,
							      &c11, &ss);
			if (st || !(c1 > 0) || !isfinite(c1)) {
				sl_error_set("cannot fit the voltage of %g GHz (machine %s gives "
					     "no volts): its power does not grow with the "
					     "model's activity; train more varied workloads "
					     "there, or add volts: to the P-states",
					     m->pstates[s].ghz, m->name);
				rc = -1;
			}
			nu[s] = c1; /* slope of P on f*Ceff: V^2 */
		}
		for (size_t s = 0; s < np && rc == 0; s++)
			if (trained[s]) {
				double v = nu[s] / nu[fastest];
				change = SL_MAX(change, fabs(v - u[s]));
				u[s] = v;
			}
		free(nu);
		sl_calib_fit_free(&fit);
		if (rc == 0 && change < TOL)
			break;
	}
	gsl_set_error_handler(old);
	if (rc == 0) {
		for (size_t s = 0; s < np; s++)
			m->pstates[s].volts = trained[s] ? sqrt(u[s]) : 0;
		fill_untrained(m, trained);
		for (size_t i = 0; i < d->n; i++)
			d->v[i] = m->pstates[d->ps[i]].volts;
		*iters = it + 1;
	}
	free(u);
	free(x);
	free(y);
	free(trained);
	return rc;
}

/* The rows of d outside workload `excl`, in arrays of their own (event and
 * workload names shared with d). */
static void subset(const sl_calib_data *d, size_t excl, sl_calib_data *s)
{
	size_t ne = d->n_events ? d->n_events : 1, n = 0;
	*s = *d;
	s->wl = sl_xmalloc((d->n ? d->n : 1) * sizeof *s->wl);
	s->ps = sl_xmalloc((d->n ? d->n : 1) * sizeof *s->ps);
	s->f = sl_xmalloc((d->n ? d->n : 1) * sizeof *s->f);
	s->v = sl_xmalloc((d->n ? d->n : 1) * sizeof *s->v);
	s->power = sl_xmalloc((d->n ? d->n : 1) * sizeof *s->power);
	s->temp = sl_xmalloc((d->n ? d->n : 1) * sizeof *s->temp);
	s->rate = sl_xmalloc((d->n ? d->n : 1) * ne * sizeof *s->rate);
	s->filled = sl_xmalloc((d->n ? d->n : 1) * ne * sizeof *s->filled);
	for (size_t i = 0; i < d->n; i++) {
		if (d->wl[i] == excl)
			continue;
		s->wl[n] = d->wl[i];
		s->ps[n] = d->ps[i];
		s->f[n] = d->f[i];
		s->v[n] = d->v[i];
		s->power[n] = d->power[i];
		s->temp[n] = d->temp[i];
		memcpy(s->rate + n * ne, d->rate + i * ne, ne * sizeof *s->rate);
		memcpy(s->filled + n * ne, d->filled + i * ne, ne * sizeof *s->filled);
		n++;
	}
	s->n = n;
}

static void subset_free(sl_calib_data *s)
{
	free(s->wl);
	free(s->ps);
	free(s->f);
	free(s->v);
	free(s->power);
	free(s->temp);
	free(s->rate);
	free(s->filled);
}

int sl_calib_cv_novolts(sl_calib_fit *fit, const sl_calib_data *d, const sl_machine *m,
			const sl_calib_opts *o)
{
	if (d->n_workloads < 2) {
		sl_error_set("cross-validation leaves one workload out and needs at "
			     "least two; the training data has %zu", d->n_workloads);
		return -1;
	}
	double sum = 0;
	size_t n = 0;
	int rc = 0;
	for (size_t w = 0; w < d->n_workloads && rc == 0; w++) {
		sl_calib_data s;
		subset(d, w, &s);
		sl_machine m2 = *m;
		m2.pstates = sl_xmalloc(m->n_pstates * sizeof *m2.pstates);
		memcpy(m2.pstates, m->pstates, m->n_pstates * sizeof *m2.pstates);
		sl_calib_fit ff;
		int iters;
		memset(&ff, 0, sizeof ff);
		if (s.n == d->n) { /* no row of this workload */
			free(m2.pstates);
			subset_free(&s);
			continue;
		}
		rc = sl_calib_relative_volts(&s, &m2, fit->term, fit->n_terms, o, &iters);
		if (rc == 0)
			rc = sl_calib_fit_run(&ff, &s, &m2, fit->term, fit->n_terms, o);
		double wsum = 0;
		size_t wn = 0;
		for (size_t i = 0; rc == 0 && i < d->n; i++) {
			if (d->wl[i] != w)
				continue;
			size_t k = 0;
			while (k < ff.n_terms &&
			       isfinite(d->rate[i * d->n_events + sl_calib_term_event(d, ff.term[k])]))
				k++;
			if (k < ff.n_terms)
				continue;
			double v = m2.pstates[d->ps[i]].volts;
			double p = ff.static_w[d->ps[i]] +
				   (ff.has_temp ? ff.temp_coeff * v * (d->temp[i] - ff.temp_ref) : 0) +
				   d->f[i] * v * v * sl_calib_ceff(&ff, d, i) +
				   sl_calib_fixed_w(&ff, d, i);
			wsum += fabs(p - d->power[i]) / fabs(d->power[i]);
			wn++;
		}
		if (rc < 0)
			sl_error_prefix("leaving out workload '%s': ", d->workloads[w]);
		fit->wl_cv_mape[w] = wn ? wsum / (double)wn : NAN;
		sum += wsum;
		n += wn;
		if (ff.term)
			sl_calib_fit_free(&ff);
		free(m2.pstates);
		subset_free(&s);
	}
	if (rc == 0) {
		fit->has_cv = 1;
		fit->cv_mape = n ? sum / (double)n : NAN;
	}
	return rc;
}
