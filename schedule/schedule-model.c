/*
 * The schedule solver's table from a profile: every interval predicted at
 * every P-state of the machine by the models, summed per phase instance;
 * an instance's peak power is its highest predicted interval power, which
 * is what --power-cap bounds.
 *
 * And how far each of those predictions may be from the truth (the table's
 * sigma, what `sleuth schedule --confidence` plans with), from what sleuth
 * legitimately knows (docs/schedule.md, "Confidence"): the time model's
 * residuals on the training runs, recorded by `sleuth calibrate` in the
 * machine (time_error:), and per phase the profile's own evidence -- how
 * much of the time model's input was interpolated rather than counted, how
 * far filling moves the slowdown where those inputs were counted (measured
 * by hiding them), and how widely the phase's intervals disagree about the
 * slowdown.
 */
#include "sleuth/schedule-model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"

/*
 * The calibrated relative error of model `name` at stretch x = f0/f - 1:
 * linear in x between (0, 0) and the recorded points (each from_ghz/ghz -
 * 1 with its rms; the largest where two share a stretch), proportional to
 * x beyond the last.  -1 when the machine records none for the model.
 */
static double cal_sigma(const sl_machine *m, const char *name, double x)
{
	double lo_x = 0, lo_s = 0, hi_x = INFINITY, hi_s = 0, last_x = 0, last_s = 0;
	int any = 0;
	x = fabs(x);
	for (size_t i = 0; i < m->n_time_error; i++) {
		const sl_time_error *e = &m->time_error[i];
		if (strcmp(e->model, name) || !(e->ghz < e->from_ghz))
			continue;
		double xe = e->from_ghz / e->ghz - 1;
		any = 1;
		if (xe > last_x || (xe == last_x && e->rms > last_s)) {
			last_x = xe;
			last_s = e->rms;
		}
		if (xe <= x && (xe > lo_x || (xe == lo_x && e->rms > lo_s))) {
			lo_x = xe;
			lo_s = e->rms;
		}
		if (xe >= x && (xe < hi_x || (xe == hi_x && e->rms > hi_s))) {
			hi_x = xe;
			hi_s = e->rms;
		}
	}
	if (!any)
		return -1;
	if (!isfinite(hi_x))
		return last_s * x / last_x;
	if (hi_x == lo_x)
		return SL_MAX(lo_s, hi_s);
	return lo_s + (hi_s - lo_s) * (x - lo_x) / (hi_x - lo_x);
}

/* The view indices of md's time-model events, -1 for those it lacks, into
 * ks[TIME_EVENTS]. */
enum { TIME_EVENTS = 8 };
static size_t time_events(const sl_model *md, int *ks)
{
	int all[] = {md->k_stall, md->k_llc, md->k_memstall, md->k_ocyc, md->k_occ,
		     md->k_pf, md->k_llcref, md->k_mst};
	_Static_assert(SL_ARRAY_LEN(all) == TIME_EVENTS, "ks[TIME_EVENTS] holds them all");
	memcpy(ks, all, sizeof all);
	return TIME_EVENTS;
}

/* Per phase: the share of the time model's (interval, event) cells that
 * were not counted in the interval. */
static void interpolated_share(const sl_model *md, double *u)
{
	const sl_interp *v = &md->view;
	int ks[TIME_EVENTS];
	size_t nk = time_events(md, ks);
	double *all = sl_xcalloc(v->n_phase_ids, sizeof *all);
	memset(u, 0, v->n_phase_ids * sizeof *u);
	for (size_t i = 0; i < md->prof->n_intervals; i++) {
		uint32_t ph = md->prof->iv[i].phase;
		for (size_t j = 0; j < nk; j++) {
			if (ks[j] < 0)
				continue;
			all[ph]++;
			u[ph] += sl_interp_src(v, i, (size_t)ks[j]) != SL_SRC_MEASURED;
		}
	}
	for (size_t k = 0; k < v->n_phase_ids; k++)
		u[k] = all[k] > 0 ? u[k] / all[k] : 0;
	free(all);
}

/*
 * Per phase k and P-state p, how far an interval's predicted slowdown
 * t(p)/t(fmax) moves when one of its time-model inputs is filled instead
 * of counted, measured on the intervals where such inputs were counted:
 * two folds, each hiding the counts of the events interpolated somewhere
 * in every other such interval of each phase (alternately), rebuilding
 * the time model on that profile and comparing the hidden intervals'
 * slowdown with the one from the counts.  r[k*P+p] is the rms over phase
 * k's hidden intervals of that relative difference per input hidden (x /
 * sqrt(h), h inputs hidden: independent errors add in quadrature); NAN
 * where the phase has fewer than two or a fold's model cannot be built
 * (the caller then takes the phase's spread, docs/schedule.md,
 * "Confidence").
 */
static void interp_error(const sl_model *md, const sl_sched_data *d, double *r)
{
	const sl_profile *pr = md->prof;
	size_t P = d->tab.n_pstates, K = md->view.n_phase_ids, NI = pr->n_intervals;
	size_t E = pr->n_events;
	for (size_t c = 0; c < K * P; c++)
		r[c] = NAN;
	sl_model full;
	if (sl_model_init(&full, pr, md->mach, md->time, SL_MODEL_TIME_ONLY) < 0)
		return;
	/* the profile columns the time model interpolates somewhere */
	int ks[TIME_EVENTS];
	size_t nk = time_events(&full, ks);
	uint8_t *hide = sl_xcalloc(E + 1, 1);
	int any = 0;
	for (size_t j = 0; j < nk; j++) {
		if (ks[j] < 0 || full.view.col[ks[j]] < 0)
			continue;
		for (size_t i = 0; i < NI && !hide[full.view.col[ks[j]]]; i++)
			hide[full.view.col[ks[j]]] =
				sl_interp_src(&full.view, i, (size_t)ks[j]) != SL_SRC_MEASURED;
		any |= hide[full.view.col[ks[j]]];
	}
	/* fold of each interval that counted one of them: alternate per phase
	 * and first such event counted (counters rotate through groups, and
	 * each group must keep counts in both folds) */
	int *fold = sl_xmalloc((NI + 1) * sizeof *fold);
	size_t *seen = sl_xcalloc(K * E + 1, sizeof *seen);
	for (size_t i = 0; i < NI; i++) {
		fold[i] = -1;
		for (size_t e = 0; e < E && fold[i] < 0; e++)
			if (hide[e] && sl_prof_count(pr, i, e) != SL_MISSING)
				fold[i] = (int)(seen[pr->iv[i].phase * E + e]++ % 2);
	}
	double *s0 = sl_xmalloc((NI * P + 1) * sizeof *s0);
	for (size_t i = 0; i < NI; i++)
		for (size_t p = 0; p < P; p++)
			s0[i * P + p] = sl_model_cycles(&full, i, d->ghz[p]) / d->ghz[p];
	sl_model_free(&full);
	double *sum = sl_xcalloc(K * P + 1, sizeof *sum);
	size_t *cnt = sl_xcalloc(K + 1, sizeof *cnt);
	sl_profile q = *pr;
	q.counts = sl_xmalloc((NI * E + 1) * sizeof *q.counts);
	for (int f = 0; any && f < 2; f++) {
		memcpy(q.counts, pr->counts, NI * E * sizeof *q.counts);
		for (size_t i = 0; i < NI; i++)
			for (size_t e = 0; e < E && fold[i] == f; e++)
				if (hide[e])
					q.counts[i * E + e] = SL_MISSING;
		sl_model cv;
		if (sl_model_init(&cv, &q, md->mach, md->time, SL_MODEL_TIME_ONLY) < 0) {
			memset(cnt, 0, (K + 1) * sizeof *cnt);
			break;
		}
		for (size_t i = 0; i < NI; i++) {
			if (fold[i] != f)
				continue;
			size_t k = pr->iv[i].phase, h = 0;
			for (size_t e = 0; e < E; e++)
				h += hide[e] && sl_prof_count(pr, i, e) != SL_MISSING;
			double b0 = s0[i * P], b1 = sl_model_cycles(&cv, i, d->ghz[0]) / d->ghz[0];
			int ok = b0 > 0 && b1 > 0;
			for (size_t p = 0; p < P && ok; p++) {
				double a0 = s0[i * P + p] / b0;
				double a1 = sl_model_cycles(&cv, i, d->ghz[p]) / d->ghz[p] / b1;
				double x = a1 / a0 - 1;
				ok = isfinite(x);
				sum[k * P + p] += ok ? x * x / (double)h : 0;
			}
			cnt[k] += ok;
		}
		sl_model_free(&cv);
	}
	for (size_t k = 0; k < K; k++)
		for (size_t p = 0; p < P && cnt[k] >= 2; p++)
			r[k * P + p] = sqrt(sum[k * P + p] / (double)cnt[k]);
	free(q.counts);
	free(sum);
	free(cnt);
	free(s0);
	free(seen);
	free(fold);
	free(hide);
}

/* The machine's other time model beside t: stall and mlp each other's,
 * the linear model none (SL_TIME_LINEAR). */
static sl_time_model other_time(sl_time_model t)
{
	return t == SL_TIME_STALL ? SL_TIME_MLP : t == SL_TIME_MLP ? SL_TIME_STALL : SL_TIME_LINEAR;
}

/*
 * Per phase k and P-state p, how much longer the machine's other time
 * model, when its training residuals are smaller at p (time_error:),
 * predicts the phase than md does: g = max(0, S'/S - 1), S and S' the
 * phase's predicted slowdown t(p)/t(fmax) by md and by the other model.
 * One-sided, because only a time above the prediction breaks the bound;
 * and only from a model the machine's own residuals call more accurate,
 * because a disagreement says that one model is wrong, not which.  Zero
 * where there is no such model (docs/schedule.md, "Confidence").
 */
static void disagreement(const sl_model *md, const sl_sched_data *d, const double *cal,
			 double *g)
{
	size_t P = d->tab.n_pstates, K = md->view.n_phase_ids;
	memset(g, 0, K * P * sizeof *g);
	sl_time_model ot = other_time(md->time);
	if (ot == SL_TIME_LINEAR)
		return;
	double *oc = sl_xmalloc(P * sizeof *oc);
	int better = 0;
	for (size_t p = 0; p < P; p++) {
		oc[p] = cal_sigma(md->mach, sl_time_model_name(ot), md->f0_ghz / d->ghz[p] - 1);
		better |= oc[p] >= 0 && oc[p] < cal[p];
	}
	sl_model alt;
	if (!better || sl_model_init(&alt, md->prof, md->mach, ot, SL_MODEL_TIME_ONLY) < 0) {
		free(oc);
		return;
	}
	double *a = sl_xcalloc(K * P + 1, sizeof *a), *b = sl_xcalloc(K * P + 1, sizeof *b);
	for (size_t i = 0; i < md->prof->n_intervals; i++) {
		size_t k = md->prof->iv[i].phase;
		for (size_t p = 0; p < P; p++) {
			a[k * P + p] += sl_model_cycles(md, i, d->ghz[p]) / d->ghz[p];
			b[k * P + p] += sl_model_cycles(&alt, i, d->ghz[p]) / d->ghz[p];
		}
	}
	sl_model_free(&alt);
	for (size_t k = 0; k < K; k++)
		for (size_t p = 0; p < P; p++) {
			if (!(oc[p] >= 0 && oc[p] < cal[p]))
				continue;
			double sa = a[k * P + p] / a[k * P], sb = b[k * P + p] / b[k * P];
			if (sa > 0 && sb > 0 && isfinite(sa) && isfinite(sb))
				g[k * P + p] = SL_MAX(0, sb / sa - 1);
		}
	free(a);
	free(b);
	free(oc);
}

/*
 * sigma of every instance at every P-state, given the per-phase moments of
 * the intervals' predicted slowdown against the baseline (n, mean, M2 per
 * phase x P-state).
 */
static void fill_sigma(const sl_model *md, sl_sched_data *d, const size_t *n,
		       const double *mean, const double *m2)
{
	const sl_interp *v = &md->view;
	size_t P = d->tab.n_pstates, K = v->n_phase_ids;
	const char *name = sl_time_model_name(md->time);
	double *u = sl_xmalloc((K + 1) * sizeof *u);
	double *cal = sl_xmalloc(P * sizeof *cal);
	interpolated_share(md, u);
	for (size_t p = 0; p < P; p++)
		cal[p] = cal_sigma(md->mach, name, md->f0_ghz / d->ghz[p] - 1);
	double *g = sl_xmalloc((K * P + 1) * sizeof *g);
	disagreement(md, d, cal, g);
	double *r = sl_xmalloc((K * P + 1) * sizeof *r);
	interp_error(md, d, r);
	int ks[TIME_EVENTS];
	size_t nk = time_events(md, ks), nev = 0;
	for (size_t j = 0; j < nk; j++)
		nev += ks[j] >= 0;
	d->sigma = sl_xmalloc(v->n_instances * P * sizeof *d->sigma);
	for (size_t j = 0; j < v->n_instances; j++) {
		size_t k = v->inst[j].phase;
		for (size_t p = 0; p < P; p++) {
			size_t c = k * P + p;
			double cv = n[c] > 1 && mean[c] > 0 ? sqrt(m2[c] / (double)(n[c] - 1)) / mean[c]
							  : 0;
			/* the filled inputs of an interval, each off by r; or, not
			 * measured, the interval off by the phase's spread */
			double fill = isnan(r[c]) ? u[k] * cv * cv : u[k] * (double)nev * r[c] * r[c];
			double dk = sqrt(fill + cv * cv / (double)SL_MAX(n[c], (size_t)1));
			double ck = cal[p] > 0 ? cal[p] : 0;
			d->sigma[j * P + p] = sqrt(ck * ck + dk * dk + g[c] * g[c]);
		}
	}
	int longer = 0;
	for (size_t c = 0; c < K * P; c++)
		longer |= g[c] > 0;
	if (cal[P - 1] >= 0)
		d->sigma_from = sl_xasprintf(
			"the %s model's residuals on the training runs (machine time_error:)%s%s%s "
			"and the profile's evidence", name,
			longer ? ", the " : "",
			longer ? sl_time_model_name(other_time(md->time)) : "",
			longer ? " model's longer predictions (its residuals are smaller)," : "");
	else
		d->sigma_from = sl_xasprintf("the profile's evidence only: machine %s records "
					     "no time_error for the %s model (calibrate with "
					     "runs at several frequencies)", md->mach->name, name);
	free(u);
	free(cal);
	free(g);
	free(r);
}

int sl_sched_data_from_model(const sl_model *md, sl_sched_data *d)
{
	const sl_machine *m = md->mach;
	const sl_interp *v = &md->view;
	size_t P = m->n_pstates, N = v->n_instances, NI = md->prof->n_intervals;
	if (!md->power) {
		sl_error_set("scheduling needs energy predictions, and the machine model "
			     "has no fitted power model; run sleuth calibrate first");
		return -1;
	}
	if (!N || !P) {
		sl_error_set("the profile has no phase instances to schedule");
		return -1;
	}
	sl_sched_data_alloc(d, P, N, v->n_phase_ids);
	for (size_t j = 0; j < N; j++)
		d->phase[j] = v->inst[j].phase;
	/* per phase and P-state: moments of the intervals' slowdown t(p)/t(0) */
	size_t KP = (size_t)v->n_phase_ids * P;
	size_t *n = sl_xcalloc(KP, sizeof *n);
	double *mean = sl_xcalloc(KP, sizeof *mean), *m2 = sl_xcalloc(KP, sizeof *m2);
	double *t0 = sl_xcalloc(NI + 1, sizeof *t0);
	/* P-states come fastest first: the first is the baseline */
	for (size_t p = 0; p < P; p++) {
		sl_opoint op;
		d->ghz[p] = m->pstates[p].ghz;
		if (sl_model_opoint(md, d->ghz[p], &op) < 0) {
			sl_sched_data_free(d);
			free(n);
			free(mean);
			free(m2);
			free(t0);
			return -1;
		}
		for (size_t i = 0; i < NI; i++) {
			sl_pred pr;
			sl_model_predict(md, &op, i, &pr);
			size_t c = (size_t)v->inst_of[i] * P + p;
			d->time_s[c] += pr.time_s;
			d->energy_j[c] += pr.energy_j;
			d->peak_w[c] = SL_MAX(d->peak_w[c], pr.power_w);
			if (p == 0)
				t0[i] = pr.time_s;
			if (!(t0[i] > 0) || !isfinite(pr.time_s))
				continue;
			size_t kc = (size_t)md->prof->iv[i].phase * P + p;
			double s = pr.time_s / t0[i], dl = s - mean[kc];
			n[kc]++;
			mean[kc] += dl / (double)n[kc];
			m2[kc] += dl * (s - mean[kc]);
		}
	}
	d->tab.baseline = 0;
	fill_sigma(md, d, n, mean, m2);
	d->tab.sigma = d->sigma;
	free(n);
	free(mean);
	free(m2);
	free(t0);
	if (sl_sched_table_check(&d->tab) < 0) {
		sl_sched_data_free(d);
		return -1;
	}
	return 0;
}
