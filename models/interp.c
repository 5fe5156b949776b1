/*
 * Phase-guided interpolation: with K counters and more events than K, each
 * interval measured only some events.  The others are filled from the
 * intervals most likely to behave alike: the rest of the same phase
 * instance, then every instance of the same phase, then the phase that
 * behaves most like it among those that measured the event, then the whole
 * program.  "Behaves like" is judged on what every interval has: CPI and
 * the events counted in every interval (the pinned ones), in log space as
 * phase detection's behaviour split judges it.  A small phase that never
 * held the event in its counters -- a handful of one-interval instances
 * where one phase hands over to another -- then borrows from its nearest
 * neighbour instead of an average over unlike phases; and a stray
 * interval, one that behaves clearly like another phase than its own,
 * borrows from that phase before its own instance.  Rates are per
 * instruction so that intervals of unequal length average fairly.
 *
 * Nothing per interval and event is stored: the view keeps, per instance
 * and event, the rate its unmeasured intervals take, per phase and event
 * the rate a stray borrows, and per interval the phase it strays to;
 * sl_interp_count() computes a value on access, so the view's memory
 * follows the instances and the run's length only by four bytes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/model.h"
#include "sleuth/phases.h"
#include "predict_int.h"

const char *sl_src_name(sl_src s)
{
	static const char *const names[SL_SRC_N] = {
		"measured", "instance", "phase", "program", "none", "similar",
	};
	return (unsigned)s < SL_SRC_N ? names[s] : "?";
}

sl_src sl_src_by_rank(int rank)
{
	static const sl_src order[SL_SRC_N] = {
		SL_SRC_MEASURED, SL_SRC_INSTANCE, SL_SRC_PHASE,
		SL_SRC_SIMILAR,  SL_SRC_PROGRAM,  SL_SRC_NONE,
	};
	return rank >= 0 && rank < SL_SRC_N ? order[rank] : SL_SRC_N;
}

/* Running mean of per-instruction rates. */
typedef struct acc {
	double sum;
	uint64_t n;
} acc;

static void acc_add(acc *a, double r)
{
	a->sum += r;
	a->n++;
}

/* The profile's phase instances, and the map from interval to instance
 * that the interpolation needs. */
static void build_instances(sl_interp *v, const sl_profile *p)
{
	v->n_instances = sl_profile_instances(p, &v->inst);
	v->inst_of = sl_xmalloc(p->n_intervals * sizeof *v->inst_of);
	for (size_t j = 0; j < v->n_instances; j++) {
		const sl_instance *in = &v->inst[j];
		if (in->phase + 1 > v->n_phase_ids)
			v->n_phase_ids = in->phase + 1;
		for (size_t i = in->first; i < in->first + in->n; i++)
			v->inst_of[i] = (uint32_t)j;
	}
}

/* The mean rate of the nearest level (instance; its phase; the phase most
 * like its phase; program) that measured the event, and which level that
 * was. */
static double pick(const acc *inst, const acc *phase, const acc *similar, const acc *prog,
		   sl_src *src)
{
	if (inst->n) {
		*src = SL_SRC_INSTANCE;
		return inst->sum / (double)inst->n;
	}
	if (phase->n) {
		*src = SL_SRC_PHASE;
		return phase->sum / (double)phase->n;
	}
	if (similar && similar->n) {
		*src = SL_SRC_SIMILAR;
		return similar->sum / (double)similar->n;
	}
	if (prog->n) {
		*src = SL_SRC_PROGRAM;
		return prog->sum / (double)prog->n;
	}
	*src = SL_SRC_NONE;
	return NAN;
}

/* An interval's behaviour (sl_behave_features over the pinned events);
 * 0 when it has no cycles. */
static int interval_features(const sl_interp *v, size_t i, double *x)
{
	const sl_profile *p = v->prof;
	return sl_behave_features(p->iv[i].cycles, p->iv[i].instructions,
				  p->counts + i * p->n_events, v->pinned, v->n_feat - 1, x);
}

/* The pinned events (counted in every interval) and each phase's
 * behaviour, the mean of its intervals': v->pinned, v->n_feat and v->feat
 * (row-major, n_phase_ids x n_feat; NAN for a phase without cycles).  x is
 * scratch of n_events + 1. */
static void phase_features(sl_interp *v, double *x)
{
	const sl_profile *p = v->prof;
	size_t np = v->n_phase_ids, n_pinned = 0;
	v->pinned = sl_xcalloc(p->n_events ? p->n_events : 1, sizeof *v->pinned);
	for (size_t j = 0; j < p->n_events; j++) {
		size_t i = 0;
		while (i < p->n_intervals && sl_prof_count(p, i, j) != SL_MISSING)
			i++;
		if (i == p->n_intervals)
			v->pinned[n_pinned++] = j;
	}
	size_t nf = v->n_feat = 1 + n_pinned;
	double *f = v->feat = sl_xcalloc(np * nf, sizeof *f);
	uint64_t *n = sl_xcalloc(np, sizeof *n);
	for (size_t i = 0; i < p->n_intervals; i++) {
		if (!interval_features(v, i, x))
			continue;
		for (size_t j = 0; j < nf; j++)
			f[p->iv[i].phase * nf + j] += x[j];
		n[p->iv[i].phase]++;
	}
	for (size_t ph = 0; ph < np; ph++)
		for (size_t j = 0; j < nf; j++)
			f[ph * nf + j] = n[ph] ? f[ph * nf + j] / (double)n[ph] : NAN;
	free(n);
}

static double dist2(const double *a, const double *b, size_t n)
{
	double d = 0;
	for (size_t j = 0; j < n; j++)
		d += (a[j] - b[j]) * (a[j] - b[j]);
	return d;
}

/* A stray's squared distance to the phase it behaves like is at most
 * 1/STRAY_RATIO2 of that to its own phase (chosen on the tuning split:
 * docs/benchmarks.md, "Power on the hard suite"). */
enum { STRAY_RATIO2 = 2 };

/* A stray interval: one that behaves clearly more like another phase than
 * like its own (at most 1/sqrt(2) of the distance) -- an interval where
 * one phase hands over to another, classified by its code as the one it
 * leaves, or a transition merged into the phase it ramps into.  Sets
 * v->stray[i] to the phase it behaves like, or -1, for every interval.  A
 * phase whose nearest other phase lies farther than (1 + 1/sqrt(2)) times
 * an interval's distance from it cannot lose that interval (triangle
 * inequality), so most intervals cost one distance.  x: scratch of
 * n_feat. */
static void find_strays(sl_interp *v, double *x)
{
	const sl_profile *p = v->prof;
	size_t nf = v->n_feat, np = v->n_phase_ids;
	double *gap = sl_xmalloc((np ? np : 1) * sizeof *gap); /* to the nearest other */
	for (size_t a = 0; a < np; a++) {
		gap[a] = INFINITY;
		for (size_t b = 0; b < np && !isnan(v->feat[a * nf]); b++)
			if (b != a && !isnan(v->feat[b * nf]))
				gap[a] = SL_MIN(gap[a], sqrt(dist2(v->feat + a * nf, v->feat + b * nf, nf)));
	}
	const double k = 1.0 + 1.0 / sqrt((double)STRAY_RATIO2);
	v->stray = sl_xmalloc(p->n_intervals * sizeof *v->stray);
	for (size_t i = 0; i < p->n_intervals; i++) {
		uint32_t own = p->iv[i].phase;
		v->stray[i] = -1;
		if (isnan(v->feat[own * nf]) || !interval_features(v, i, x))
			continue;
		double d_own = dist2(x, v->feat + own * nf, nf);
		if (k * sqrt(d_own) <= gap[own])
			continue;
		double best = d_own / STRAY_RATIO2;
		for (size_t q = 0; q < np; q++) {
			if (q == own || isnan(v->feat[q * nf]))
				continue;
			double d = dist2(x, v->feat + q * nf, nf);
			if (d < best) {
				best = d;
				v->stray[i] = (int32_t)q;
			}
		}
	}
	free(gap);
}

/* For every phase that did not measure the event (ap[ph].n == 0), the
 * nearest phase by behaviour that did, when two or more did (with one, the
 * program mean is that phase's); else -1. */
static void nearest_measured(const sl_interp *v, const acc *ap, int64_t *near)
{
	size_t np = v->n_phase_ids, nf = v->n_feat, with = 0;
	for (size_t q = 0; q < np; q++)
		with += ap[q].n > 0;
	for (size_t ph = 0; ph < np; ph++) {
		near[ph] = -1;
		if (ap[ph].n || with < 2 || isnan(v->feat[ph * nf]))
			continue;
		double best = INFINITY;
		for (size_t q = 0; q < np; q++) {
			if (!ap[q].n || isnan(v->feat[q * nf]))
				continue;
			double d = dist2(v->feat + ph * nf, v->feat + q * nf, nf);
			if (d < best) {
				best = d;
				near[ph] = (int64_t)q;
			}
		}
	}
}

/* One event: its means at each level, then the value every instance's
 * unmeasured intervals take (the nearest level's mean rate), the rate a
 * stray borrows from each phase, and the cell tallies.  Nothing per
 * interval is stored (the file's head). */
static void fill_event(sl_interp *v, size_t k, acc *ai, acc *ap, uint64_t *unmeasured,
		       int64_t *near)
{
	const sl_profile *p = v->prof;
	size_t ne = v->n_events;
	int col = v->col[k];
	acc prog = {0, 0};

	memset(ai, 0, v->n_instances * sizeof *ai);
	memset(ap, 0, v->n_phase_ids * sizeof *ap);
	memset(unmeasured, 0, v->n_instances * sizeof *unmeasured);
	for (size_t i = 0; i < p->n_intervals; i++) {
		uint64_t c = col >= 0 ? sl_prof_count(p, i, (size_t)col) : SL_MISSING;
		if (c == SL_MISSING)
			continue;
		v->cells[SL_SRC_MEASURED]++;
		v->ev_cells[k * SL_SRC_N + SL_SRC_MEASURED]++;
		uint64_t ins = p->iv[i].instructions;
		if (!ins)
			continue;
		double r = (double)c / (double)ins;
		acc_add(&ai[v->inst_of[i]], r);
		acc_add(&ap[p->iv[i].phase], r);
		acc_add(&prog, r);
	}
	for (size_t ph = 0; ph < v->n_phase_ids; ph++)
		v->pmean[ph * ne + k] = ap[ph].n ? ap[ph].sum / (double)ap[ph].n : NAN;
	for (size_t i = 0; i < p->n_intervals; i++) {
		if (col >= 0 && sl_prof_count(p, i, (size_t)col) != SL_MISSING)
			continue;
		if (v->stray[i] >= 0 && ap[v->stray[i]].n) {
			v->cells[SL_SRC_SIMILAR]++;
			v->ev_cells[k * SL_SRC_N + SL_SRC_SIMILAR]++;
		} else {
			unmeasured[v->inst_of[i]]++;
		}
	}
	nearest_measured(v, ap, near);
	for (size_t j = 0; j < v->n_instances; j++) {
		sl_src s;
		int64_t q = near[v->inst[j].phase];
		double r = pick(&ai[j], &ap[v->inst[j].phase], q >= 0 ? &ap[q] : NULL, &prog, &s);
		v->imean[j * ne + k] = r;
		v->isrc[j * ne + k] = (uint8_t)s;
		v->cells[s] += unmeasured[j];
		v->ev_cells[k * SL_SRC_N + s] += unmeasured[j];
	}
}

int sl_interp_build(sl_interp *v, const sl_profile *p, const char *const *events,
		    size_t n_events)
{
	memset(v, 0, sizeof *v);
	if (!p->n_intervals) {
		sl_error_set("the profile has no intervals; profile a run that "
			     "lasts at least one interval");
		return -1;
	}
	if (!p->has_counts && n_events) {
		sl_error_set("the profile has no event counts (backend '%s'); "
			     "profile with the perf backend, or --backend vpmu where there "
			     "is no PMU",
			     p->backend ? p->backend : "?");
		return -1;
	}
	v->prof = p;
	v->n_events = n_events;
	v->events = sl_xcalloc(n_events ? n_events : 1, sizeof *v->events);
	v->col = sl_xcalloc(n_events ? n_events : 1, sizeof *v->col);
	for (size_t k = 0; k < n_events; k++) {
		v->events[k] = sl_xstrdup(events[k]);
		v->col[k] = -1;
		for (size_t j = 0; j < p->n_events; j++)
			if (!strcmp(p->events[j], events[k]))
				v->col[k] = (int)j;
	}
	v->ev_cells = sl_xcalloc((n_events ? n_events : 1) * SL_SRC_N,
				 sizeof *v->ev_cells);
	build_instances(v, p);
	size_t ne = n_events ? n_events : 1;
	v->imean = sl_xcalloc(v->n_instances * ne, sizeof *v->imean);
	v->isrc = sl_xcalloc(v->n_instances * ne, 1);
	v->pmean = sl_xcalloc((size_t)v->n_phase_ids * ne, sizeof *v->pmean);
	double *x = sl_xmalloc((p->n_events + 1) * sizeof *x);
	phase_features(v, x);
	find_strays(v, x);
	free(x);

	acc *ai = sl_xmalloc(v->n_instances * sizeof *ai);
	acc *ap = sl_xmalloc(v->n_phase_ids * sizeof *ap);
	uint64_t *unmeasured = sl_xmalloc(v->n_instances * sizeof *unmeasured);
	int64_t *near = sl_xmalloc(v->n_phase_ids * sizeof *near);
	for (size_t k = 0; k < n_events; k++)
		fill_event(v, k, ai, ap, unmeasured, near);
	free(ai);
	free(ap);
	free(unmeasured);
	free(near);
	return 0;
}

void sl_interp_free(sl_interp *v)
{
	for (size_t k = 0; k < v->n_events; k++)
		free(v->events[k]);
	free(v->events);
	free(v->col);
	free(v->imean);
	free(v->isrc);
	free(v->pmean);
	free(v->feat);
	free(v->pinned);
	free(v->stray);
	free(v->ev_cells);
	free(v->inst);
	free(v->inst_of);
	memset(v, 0, sizeof *v);
}

double sl_interp_share(const sl_interp *v, sl_src s)
{
	uint64_t all = 0;
	for (int i = 0; i < SL_SRC_N; i++)
		all += v->cells[i];
	return all ? (double)v->cells[s] / (double)all : 0.0;
}

int sl_interp_event(const sl_interp *v, const char *event)
{
	for (size_t k = 0; k < v->n_events; k++)
		if (!strcmp(v->events[k], event))
			return (int)k;
	return -1;
}

void sl_interp_phase_shares(const sl_interp *v, double (*share)[SL_SRC_N])
{
	const sl_profile *p = v->prof;
	uint64_t *n = sl_xcalloc((size_t)v->n_phase_ids * SL_SRC_N, sizeof *n);
	for (size_t i = 0; i < p->n_intervals; i++) {
		uint64_t *row = n + (size_t)p->iv[i].phase * SL_SRC_N;
		for (size_t k = 0; k < v->n_events; k++)
			row[sl_interp_src(v, i, k)]++;
	}
	for (uint32_t ph = 0; ph < v->n_phase_ids; ph++) {
		uint64_t all = 0, *row = n + (size_t)ph * SL_SRC_N;
		for (int s = 0; s < SL_SRC_N; s++)
			all += row[s];
		for (int s = 0; s < SL_SRC_N; s++)
			share[ph][s] = all ? (double)row[s] / (double)all : 0.0;
	}
	free(n);
}

uint32_t *sl_phase_order(const sl_interp *v, size_t *n)
{
	uint32_t *order = sl_xmalloc((v->n_phase_ids + 1) * sizeof *order);
	char *seen = sl_xcalloc(v->n_phase_ids + 1, 1);
	*n = 0;
	for (size_t j = 0; j < v->n_instances; j++) {
		uint32_t ph = v->inst[j].phase;
		if (!seen[ph]) {
			seen[ph] = 1;
			order[(*n)++] = ph;
		}
	}
	free(seen);
	return order;
}
