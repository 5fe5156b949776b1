/*
 * The least-squares fit of the power model on the training table, and its
 * leave-one-workload-out cross-validation.
 *
 * With an idle log the static power of each row is known and the fit is
 *   P - static = fV^2 * constant + sum_k coeff_k * fV^2 * rate_k.
 * Without one, each P-state present gets its own activity-independent
 * column (an indicator), fitted jointly with the coefficients.  fV^2 is the
 * same for every row of a P-state, so a Ceff constant would be an exact
 * combination of those indicators: it cannot be told apart from static
 * power, and is fixed at 0 (its power is carried by the per-P-state terms).
 */
#include "sleuth/calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit.h>

#include "sleuth/common.h"

/* Rows whose rates for all `terms` are known, excluding workload `excl`
 * (-1: none).  Returns how many; rows[] must hold d->n. */
static size_t usable_rows(const sl_calib_data *d, const size_t *terms, size_t nt,
			  long excl, size_t *rows)
{
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++) {
		if ((long)d->wl[i] == excl)
			continue;
		size_t k = 0;
		while (k < nt &&
		       isfinite(d->rate[i * d->n_events + sl_calib_term_event(d, terms[k])]))
			k++;
		if (k == nt)
			rows[n++] = i;
	}
	return n;
}

static void fit_alloc(sl_calib_fit *fit, const sl_calib_data *d, const sl_machine *m,
		      const size_t *terms, size_t nt)
{
	memset(fit, 0, sizeof *fit);
	fit->n_terms = nt;
	fit->term = sl_xmalloc((nt ? nt : 1) * sizeof *fit->term);
	if (nt)
		memcpy(fit->term, terms, nt * sizeof *terms);
	fit->coeff = sl_xcalloc(nt ? nt : 1, sizeof *fit->coeff);
	fit->coeff_se = sl_xcalloc(nt ? nt : 1, sizeof *fit->coeff_se);
	fit->n_ps = m->n_pstates;
	fit->static_w = sl_xcalloc(m->n_pstates, sizeof *fit->static_w);
	fit->fitted_ps = sl_xcalloc(m->n_pstates, sizeof *fit->fitted_ps);
	fit->fitted_w = sl_xcalloc(m->n_pstates, sizeof *fit->fitted_w);
	fit->fitted_se = sl_xcalloc(m->n_pstates, sizeof *fit->fitted_se);
	fit->wl_mape = sl_xcalloc(d->n_workloads ? d->n_workloads : 1, sizeof *fit->wl_mape);
	fit->wl_n = sl_xcalloc(d->n_workloads ? d->n_workloads : 1, sizeof *fit->wl_n);
	fit->wl_cv_mape = sl_xcalloc(d->n_workloads ? d->n_workloads : 1,
				     sizeof *fit->wl_cv_mape);
}

void sl_calib_fit_free(sl_calib_fit *fit)
{
	free(fit->term);
	free(fit->coeff);
	free(fit->coeff_se);
	free(fit->fitted_ps);
	free(fit->fitted_w);
	free(fit->fitted_se);
	free(fit->static_w);
	free(fit->collinear);
	free(fit->wl_mape);
	free(fit->wl_n);
	free(fit->wl_cv_mape);
	memset(fit, 0, sizeof *fit);
}

/* The rate of a fit's k-th term in row i. */
static double term_rate(const sl_calib_fit *fit, const sl_calib_data *d, size_t i, size_t k)
{
	return d->rate[i * d->n_events + sl_calib_term_event(d, fit->term[k])];
}

double sl_calib_ceff(const sl_calib_fit *fit, const sl_calib_data *d, size_t i)
{
	double c = fit->constant;
	for (size_t k = 0; k < fit->n_terms; k++)
		if (!sl_calib_term_energy(d, fit->term[k]))
			c += fit->coeff[k] * term_rate(fit, d, i, k);
	return c;
}

double sl_calib_fixed_w(const sl_calib_fit *fit, const sl_calib_data *d, size_t i)
{
	double w = 0;
	for (size_t k = 0; k < fit->n_terms; k++)
		if (sl_calib_term_energy(d, fit->term[k]))
			w += fit->coeff[k] * term_rate(fit, d, i, k) * d->f[i];
	return w;
}

/* The temperature term of row i: W above the static power at temp_ref. */
static double temp_term(const sl_calib_fit *fit, const sl_calib_data *d, size_t i)
{
	return fit->has_temp ? fit->temp_coeff * d->v[i] * (d->temp[i] - fit->temp_ref) : 0;
}

double sl_calib_predict(const sl_calib_fit *fit, const sl_calib_data *d, size_t i)
{
	return fit->static_w[d->ps[i]] + temp_term(fit, d, i) +
	       d->f[i] * d->v[i] * d->v[i] * sl_calib_ceff(fit, d, i) +
	       sl_calib_fixed_w(fit, d, i);
}

char *sl_calib_term_name(const sl_calib_data *d, size_t term)
{
	return sl_xasprintf("%s%s", d->events[sl_calib_term_event(d, term)],
			    sl_calib_term_energy(d, term) ? " (energy, nJ)" : "");
}

/* Design matrix columns: their meaning, for collinearity messages. */
static char *col_name(const sl_calib_fit *fit, const sl_calib_data *d,
		      const sl_machine *m, int idle, size_t j)
{
	if (idle && j == 0)
		return sl_xstrdup("constant");
	size_t k = j - (idle ? 1 : 0);
	if (k < fit->n_terms)
		return sl_calib_term_name(d, fit->term[k]);
	if (fit->has_temp && k == fit->n_terms + (idle ? 0 : fit->n_fitted_ps))
		return sl_xstrdup("temperature");
	return sl_xasprintf("static@%gGHz", m->pstates[fit->fitted_ps[k - fit->n_terms]].ghz);
}

/*
 * Condition number of X with unit-length columns (Belsley's scaling), and
 * when large, the columns that carry the smallest singular vector: those
 * are the near-collinear ones.
 */
static void conditioning(sl_calib_fit *fit, const sl_calib_data *d, const sl_machine *m,
			 int idle, const gsl_matrix *X)
{
	size_t n = X->size1, p = X->size2;
	gsl_matrix *A = gsl_matrix_alloc(n, p);
	gsl_matrix *V = gsl_matrix_alloc(p, p);
	gsl_vector *S = gsl_vector_alloc(p), *work = gsl_vector_alloc(p);
	gsl_matrix_memcpy(A, X);
	int zero = 0;
	for (size_t j = 0; j < p; j++) {
		gsl_vector_view c = gsl_matrix_column(A, j);
		double norm = gsl_blas_dnrm2(&c.vector);
		if (norm > 0)
			gsl_vector_scale(&c.vector, 1.0 / norm);
		else
			zero = 1;
	}
	gsl_linalg_SV_decomp(A, V, S, work);
	double smin = gsl_vector_get(S, p - 1);
	fit->cond = zero || smin <= 0 ? INFINITY : gsl_vector_get(S, 0) / smin;
	if (fit->cond > SL_CALIB_COND_WARN) {
		char buf[1024] = "";
		size_t len = 0;
		for (size_t j = 0; j < p; j++)
			if (fabs(gsl_matrix_get(V, j, p - 1)) >= 0.3 && len < sizeof buf - 1) {
				char *name = col_name(fit, d, m, idle, j);
				len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
							len ? ", " : "", name);
				free(name);
			}
		fit->collinear = sl_xstrdup(buf);
	}
	gsl_matrix_free(A);
	gsl_matrix_free(V);
	gsl_vector_free(S);
	gsl_vector_free(work);
}

/* Interval-weighted mean absolute percentage error, overall and per
 * workload, of `fit` on `rows`. */
static double ape_sums(const sl_calib_fit *fit, const sl_calib_data *d,
		       const size_t *rows, size_t nr, double *wl_sum, size_t *wl_n)
{
	double sum = 0;
	for (size_t r = 0; r < nr; r++) {
		size_t i = rows[r];
		double e = fabs(sl_calib_predict(fit, d, i) - d->power[i]) / fabs(d->power[i]);
		sum += e;
		wl_sum[d->wl[i]] += e;
		wl_n[d->wl[i]]++;
	}
	return sum;
}

/* Statistics of a fit on its own training rows. */
static void train_stats(sl_calib_fit *fit, const sl_calib_data *d,
			const size_t *rows, size_t nr)
{
	double mean = 0, ss_res = 0, ss_tot = 0;
	for (size_t r = 0; r < nr; r++)
		mean += d->power[rows[r]];
	mean /= (double)nr;
	fit->min_ceff = INFINITY;
	for (size_t r = 0; r < nr; r++) {
		size_t i = rows[r];
		double res = d->power[i] - sl_calib_predict(fit, d, i);
		ss_res += res * res;
		ss_tot += (d->power[i] - mean) * (d->power[i] - mean);
		double ceff = sl_calib_ceff(fit, d, i);
		if (ceff < 0)
			fit->n_neg_ceff++;
		fit->min_ceff = SL_MIN(fit->min_ceff, ceff);
		for (size_t k = 0; k < fit->n_terms; k++)
			if (d->filled[i * d->n_events + sl_calib_term_event(d, fit->term[k])]) {
				fit->n_filled++;
				break;
			}
	}
	/* Power that does not vary (beyond rounding) leaves nothing to explain. */
	fit->r2 = ss_tot > 1e-20 * mean * mean * (double)nr ? 1 - ss_res / ss_tot : 1;
	double *wl_sum = sl_xcalloc(d->n_workloads, sizeof *wl_sum);
	fit->mape = ape_sums(fit, d, rows, nr, wl_sum, fit->wl_n) / (double)nr;
	for (size_t w = 0; w < d->n_workloads; w++)
		fit->wl_mape[w] = fit->wl_n[w] ? wl_sum[w] / (double)fit->wl_n[w] : NAN;
	free(wl_sum);
}

/* The first fitted number a machine file could not hold (beyond
 * SL_MACHINE_MAX_COEFF): a term's index, n_terms for the constant or the
 * temperature coefficient; -1 when all fit. */
static long out_of_range(const sl_calib_fit *f)
{
	for (size_t k = 0; k < f->n_terms; k++)
		if (!(fabs(f->coeff[k]) <= SL_MACHINE_MAX_COEFF))
			return (long)k;
	if (!(fabs(f->constant) <= SL_MACHINE_MAX_COEFF) ||
	    (f->has_temp && !(fabs(f->temp_coeff) <= SL_MACHINE_MAX_COEFF)))
		return (long)f->n_terms;
	return -1;
}

/* Run OLS or robust regression; 0, or -1 with sl_error(). */
static int regress(const gsl_matrix *X, const gsl_vector *y, gsl_vector *c,
		   gsl_matrix *cov, int robust)
{
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int st;
	if (robust) {
		gsl_multifit_robust_workspace *w =
			gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare,
						  X->size1, X->size2);
		st = gsl_multifit_robust(X, y, c, cov, w);
		gsl_multifit_robust_free(w);
	} else {
		double chisq;
		gsl_multifit_linear_workspace *w =
			gsl_multifit_linear_alloc(X->size1, X->size2);
		st = gsl_multifit_linear(X, y, c, cov, &chisq, w);
		gsl_multifit_linear_free(w);
	}
	gsl_set_error_handler(old);
	for (size_t j = 0; st == 0 && j < c->size; j++)
		if (!isfinite(gsl_vector_get(c, j))) {
			sl_error_set("the model's columns are linearly dependent (an event "
				     "that never varies, or two that always move "
				     "together); fit other events");
			return -1;
		}
	if (st) {
		sl_error_set("%s regression failed: %s%s", robust ? "robust" : "least-squares",
			     gsl_strerror(st),
			     robust ? "; try without --robust" : "");
		return -1;
	}
	return 0;
}

/*
 * Fit `terms` on `rows`.  `strict`: the model is final, so static power must
 * be inferable at every P-state (else a single fitted P-state is used
 * everywhere, as is fine for a cross-validation fold).  `stats`: also
 * compute conditioning and training errors.
 */
static int solve(sl_calib_fit *fit, const sl_calib_data *d, const sl_machine *m,
		 const size_t *rows, size_t nr, const sl_calib_opts *o, int strict,
		 int stats)
{
	int idle = o->static_w != NULL;
	size_t nt = fit->n_terms;
	if (!idle) {
		for (size_t r = 0; r < nr; r++) {
			size_t j = 0;
			while (j < fit->n_fitted_ps && fit->fitted_ps[j] != d->ps[rows[r]])
				j++;
			if (j == fit->n_fitted_ps)
				fit->fitted_ps[fit->n_fitted_ps++] = d->ps[rows[r]];
		}
		if (strict && fit->n_fitted_ps == 1 && m->n_pstates > 1) {
			sl_error_set("without an idle log, static power is fitted per "
				     "P-state, but the training data has only %g GHz; "
				     "give --idle-log or train at two or more P-states",
				     m->pstates[fit->fitted_ps[0]].ghz);
			return -1;
		}
	}
	fit->has_temp = o->temp;
	fit->temp_ref = o->temp_ref;
	size_t p = (idle ? 1 : 0) + nt + (idle ? 0 : fit->n_fitted_ps) + (o->temp ? 1 : 0);
	if (nr <= p) {
		sl_error_set("only %zu usable intervals for %zu model parameters; add "
			     "training runs or fit fewer events", nr, p);
		return -1;
	}
	gsl_matrix *X = gsl_matrix_alloc(nr, p), *cov = gsl_matrix_alloc(p, p);
	gsl_vector *y = gsl_vector_alloc(nr), *c = gsl_vector_alloc(p);
	for (size_t r = 0; r < nr; r++) {
		size_t i = rows[r], j = 0;
		double fv2 = d->f[i] * d->v[i] * d->v[i];
		gsl_vector_set(y, r, d->power[i] - (idle ? o->static_w[d->ps[i]] : 0));
		if (idle)
			gsl_matrix_set(X, r, j++, fv2);
		for (size_t k = 0; k < nt; k++)
			gsl_matrix_set(X, r, j++,
				       term_rate(fit, d, i, k) *
					       (sl_calib_term_energy(d, fit->term[k]) ? d->f[i]
										      : fv2));
		for (size_t s = 0; !idle && s < fit->n_fitted_ps; s++)
			gsl_matrix_set(X, r, j++, d->ps[i] == fit->fitted_ps[s]);
		if (o->temp) /* leakage: V * I(T), I linear in T near temp_ref */
			gsl_matrix_set(X, r, j++, d->v[i] * (d->temp[i] - o->temp_ref));
	}
	int rc = regress(X, y, c, cov, o->robust);
	if (rc == 0) {
		size_t j = 0;
		if (idle) {
			fit->constant = gsl_vector_get(c, 0);
			fit->constant_se = sqrt(gsl_matrix_get(cov, 0, 0));
			j = 1;
		}
		for (size_t k = 0; k < nt; k++, j++) {
			fit->coeff[k] = gsl_vector_get(c, j);
			fit->coeff_se[k] = sqrt(gsl_matrix_get(cov, j, j));
		}
		for (size_t s = 0; !idle && s < fit->n_fitted_ps; s++, j++) {
			fit->fitted_w[s] = gsl_vector_get(c, j);
			fit->fitted_se[s] = sqrt(gsl_matrix_get(cov, j, j));
		}
		if (o->temp) {
			fit->temp_coeff = gsl_vector_get(c, j);
			fit->temp_coeff_se = sqrt(gsl_matrix_get(cov, j, j));
		}
		if (idle)
			memcpy(fit->static_w, o->static_w, m->n_pstates * sizeof *fit->static_w);
		else
			sl_calib_static_interp(m, fit->fitted_ps, fit->fitted_w,
					       fit->n_fitted_ps, fit->static_w);
		fit->n_used = nr;
		long bad = strict ? out_of_range(fit) : -1;
		if (bad >= 0 && (size_t)bad < nt) {
			sl_error_set("the fitted coefficient of %s is %g %s, beyond what a "
				     "machine file holds (%g): the event is too rare to fit; "
				     "leave it out",
				     d->events[sl_calib_term_event(d, fit->term[bad])],
				     fit->coeff[bad],
				     sl_calib_term_energy(d, fit->term[bad])
					     ? "nJ per event"
					     : "nF per event per cycle",
				     SL_MACHINE_MAX_COEFF);
			rc = -1;
		} else if (bad >= 0) {
			sl_error_set("the fitted Ceff constant or temperature coefficient is "
				     "beyond what a machine file holds (%g); check the "
				     "power column and its units", SL_MACHINE_MAX_COEFF);
			rc = -1;
		}
		if (rc == 0 && stats) {
			conditioning(fit, d, m, idle, X);
			train_stats(fit, d, rows, nr);
		}
	}
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(c);
	return rc;
}

int sl_calib_fit_run(sl_calib_fit *fit, const sl_calib_data *d, const sl_machine *m,
		     const size_t *terms, size_t n_terms, const sl_calib_opts *o)
{
	fit_alloc(fit, d, m, terms, n_terms);
	size_t *rows = sl_xmalloc((d->n ? d->n : 1) * sizeof *rows);
	size_t nr = usable_rows(d, terms, n_terms, -1, rows);
	int rc = solve(fit, d, m, rows, nr, o, 1, 1);
	free(rows);
	return rc;
}

/* Leave-one-workload-out: the summed APE over all rows, each predicted by a
 * fit without its workload; per-workload sums and counts too. */
static int cv_sums(const sl_calib_data *d, const sl_machine *m, const size_t *terms,
		   size_t nt, const sl_calib_opts *o, double *sum, size_t *n,
		   double *wl_sum, size_t *wl_n)
{
	if (d->n_workloads < 2) {
		sl_error_set("cross-validation leaves one workload out and needs at "
			     "least two; the training data has %zu", d->n_workloads);
		return -1;
	}
	size_t *rows = sl_xmalloc((d->n ? d->n : 1) * sizeof *rows);
	size_t *all = sl_xmalloc((d->n ? d->n : 1) * sizeof *all);
	size_t n_all = usable_rows(d, terms, nt, -1, all);
	int rc = 0;
	*sum = 0;
	*n = 0;
	for (size_t w = 0; w < d->n_workloads && rc == 0; w++) {
		size_t nr = usable_rows(d, terms, nt, (long)w, rows);
		if (nr == n_all)
			continue; /* no row of this workload */
		sl_calib_fit fold;
		fit_alloc(&fold, d, m, terms, nt);
		rc = solve(&fold, d, m, rows, nr, o, 0, 0);
		if (rc == 0) {
			size_t nh = 0;
			for (size_t r = 0; r < n_all; r++)
				if (d->wl[all[r]] == w)
					rows[nh++] = all[r];
			*sum += ape_sums(&fold, d, rows, nh, wl_sum, wl_n);
			*n += nh;
		} else {
			sl_error_prefix("leaving out workload '%s': ", d->workloads[w]);
		}
		sl_calib_fit_free(&fold);
	}
	free(rows);
	free(all);
	return rc;
}

int sl_calib_cv(sl_calib_fit *fit, const sl_calib_data *d, const sl_machine *m,
		const sl_calib_opts *o)
{
	double sum, *wl_sum = sl_xcalloc(d->n_workloads ? d->n_workloads : 1, sizeof *wl_sum);
	size_t n, *wl_n = sl_xcalloc(d->n_workloads ? d->n_workloads : 1, sizeof *wl_n);
	int rc = cv_sums(d, m, fit->term, fit->n_terms, o, &sum, &n, wl_sum, wl_n);
	if (rc == 0) {
		fit->has_cv = 1;
		fit->cv_mape = n ? sum / (double)n : NAN;
		for (size_t w = 0; w < d->n_workloads; w++)
			fit->wl_cv_mape[w] = wl_n[w] ? wl_sum[w] / (double)wl_n[w] : NAN;
	}
	free(wl_sum);
	free(wl_n);
	return rc;
}

int sl_calib_select(const sl_calib_data *d, const sl_machine *m, size_t k,
		    const sl_calib_opts *o, size_t *terms, double *cv)
{
	/* Candidates: events known in every row, so that every candidate model
	 * is judged on the same intervals, and whose rate varies: a rate that
	 * never changes (an event that never counts, e.g. a software
	 * increment no program writes) is a multiple of the static terms.
	 * Cycle counts (stalls) only when asked: a share of time in which
	 * nothing switches, they stand in for activity only as far as the
	 * training runs' stalls have the same causes as a program's. */
	size_t *cand = sl_xmalloc((d->n_events ? 2 * d->n_events : 1) * sizeof *cand), nc = 0;
	for (size_t e = 0; e < d->n_events; e++) {
		if (!o->select_cycles && sl_machine_counts_cycles(m, d->events[e]))
			continue;
		size_t i = 0;
		double lo = INFINITY, hi = -INFINITY;
		for (; i < d->n && isfinite(d->rate[i * d->n_events + e]); i++) {
			lo = SL_MIN(lo, d->rate[i * d->n_events + e]);
			hi = SL_MAX(hi, d->rate[i * d->n_events + e]);
		}
		if (i == d->n && hi > lo) {
			cand[nc++] = e;
			/* an event count may also be energy at a fixed voltage */
			if (o->select_energy && !sl_machine_counts_cycles(m, d->events[e]))
				cand[nc++] = e + d->n_events;
		}
	}
	if (k > nc) {
		if (nc)
			sl_error_set("--select %zu: only %zu events are known in every "
				     "training interval and vary; give --select %zu or fewer",
				     k, nc, nc);
		else
			sl_error_set("--select %zu: no event is known in every training "
				     "interval; select from traces, or from profiles whose "
				     "phases measured every event", k);
		free(cand);
		return -1;
	}
	double *wl_sum = sl_xcalloc(d->n_workloads ? d->n_workloads : 1, sizeof *wl_sum);
	size_t *wl_n = sl_xcalloc(d->n_workloads ? d->n_workloads : 1, sizeof *wl_n);
	size_t *rows = sl_xmalloc((d->n ? d->n : 1) * sizeof *rows);
	int rc = 0;
	for (size_t step = 0; step < k && rc == 0; step++) {
		double best = INFINITY;
		size_t best_c = nc;
		for (size_t c = 0; c < nc; c++) {
			size_t j = 0;
			while (j < step && terms[j] != cand[c])
				j++;
			if (j < step)
				continue; /* already chosen */
			terms[step] = cand[c];
			double sum;
			size_t n;
			if (cv_sums(d, m, terms, step + 1, o, &sum, &n, wl_sum, wl_n) < 0) {
				if (d->n_workloads < 2) {
					rc = -1;
					break;
				}
				continue; /* this candidate cannot be fitted */
			}
			/* a model a machine file cannot hold is no choice */
			size_t nr = usable_rows(d, terms, step + 1, -1, rows);
			sl_calib_fit full;
			fit_alloc(&full, d, m, terms, step + 1);
			int bad = solve(&full, d, m, rows, nr, o, 0, 0) < 0 ||
				  out_of_range(&full) >= 0;
			sl_calib_fit_free(&full);
			if (bad)
				continue;
			if (n && sum / (double)n < best) {
				best = sum / (double)n;
				best_c = c;
			}
		}
		if (rc == 0 && best_c == nc) {
			sl_error_set("--select: no event can be added as term %zu; "
				     "the training data is too small", step + 1);
			rc = -1;
		}
		if (rc == 0) {
			terms[step] = cand[best_c];
			cv[step] = best;
		}
	}
	free(wl_sum);
	free(wl_n);
	free(rows);
	free(cand);
	return rc;
}

int sl_calib_terms_cv(const sl_calib_data *d, const sl_machine *m, const size_t *terms,
		      size_t n_terms, const sl_calib_opts *o, double *cv)
{
	sl_calib_fit f;
	int rc = sl_calib_fit_run(&f, d, m, terms, n_terms, o);
	if (rc == 0)
		rc = sl_calib_cv(&f, d, m, o);
	if (rc == 0)
		*cv = f.cv_mape;
	sl_calib_fit_free(&f);
	return rc;
}

/*
 * A term can fit the training runs and still predict other programs worse
 * (a stall count standing in for activity, an event only one program
 * exercises), which leaving a program out shows: keep: auto terms are
 * added only while one lowers that error, greedily as sl_calib_select.
 */
int sl_calib_keep_auto(const sl_calib_data *d, const sl_machine *m, const size_t *terms,
		       const sl_calib_opts *o, int *kept, double *cv_with, double *cv_without)
{
	size_t *set = sl_xcalloc(m->n_terms + 1, sizeof *set), n = 0;
	double cur = NAN;
	for (size_t k = 0; k < m->n_terms; k++) {
		kept[k] = 0;
		cv_with[k] = cv_without[k] = NAN;
		if (!m->terms[k].keep_auto)
			set[n++] = terms[k];
	}
	if (sl_calib_terms_cv(d, m, set, n, o, &cur) < 0) {
		free(set);
		return -1;
	}
	for (;;) {
		size_t best = m->n_terms;
		double best_cv = cur;
		for (size_t k = 0; k < m->n_terms; k++) {
			if (!m->terms[k].keep_auto || kept[k] > 0)
				continue;
			set[n] = terms[k];
			kept[k] = -1;
			cv_with[k] = NAN;
			cv_without[k] = cur;
			if (sl_calib_terms_cv(d, m, set, n + 1, o, &cv_with[k]) == 0 && cv_with[k] < best_cv) {
				best = k;
				best_cv = cv_with[k];
			}
		}
		if (best == m->n_terms)
			break;
		set[n++] = terms[best];
		kept[best] = 1;
		cur = best_cv;
	}
	free(set);
	return 0;
}
