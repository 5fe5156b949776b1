/*
 * Phase-guided interpolation: with K counters and more events than K, each
 * interval measured only some events.  The others are filled from the
 * intervals most likely to behave alike: the rest of the same phase
 * instance, then every instance of the same phase, then the whole program.
 * Rates are per instruction so that intervals of unequal length average
 * fairly.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/model.h"
#include "predict_int.h"

const char *sl_src_name(sl_src s)
{
	static const char *const names[SL_SRC_N] = {
		"measured", "instance", "phase", "program", "none",
	};
	return (unsigned)s < SL_SRC_N ? names[s] : "?";
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

/* The mean rate of the nearest level (instance, phase, program) that
 * measured the event, and which level that was. */
static double pick(const acc *inst, const acc *phase, const acc *prog, sl_src *src)
{
	if (inst->n) {
		*src = SL_SRC_INSTANCE;
		return inst->sum / (double)inst->n;
	}
	if (phase->n) {
		*src = SL_SRC_PHASE;
		return phase->sum / (double)phase->n;
	}
	if (prog->n) {
		*src = SL_SRC_PROGRAM;
		return prog->sum / (double)prog->n;
	}
	*src = SL_SRC_NONE;
	return NAN;
}

/* One event: its means at each level, then the value every instance's
 * unmeasured intervals take (the nearest level's mean rate), and the cell
 * tallies.  Nothing per interval is stored: sl_interp_count() reads a
 * measured count from the profile and multiplies the instance's rate by
 * the interval's instructions, so the view's memory follows the instances,
 * not the run's length. */
static void fill_event(sl_interp *v, size_t k, acc *ai, acc *ap, uint64_t *unmeasured)
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
		if (c == SL_MISSING) {
			unmeasured[v->inst_of[i]]++;
			continue;
		}
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
	for (size_t j = 0; j < v->n_instances; j++) {
		sl_src s;
		double r = pick(&ai[j], &ap[v->inst[j].phase], &prog, &s);
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

	acc *ai = sl_xmalloc(v->n_instances * sizeof *ai);
	acc *ap = sl_xmalloc(v->n_phase_ids * sizeof *ap);
	uint64_t *unmeasured = sl_xmalloc(v->n_instances * sizeof *unmeasured);
	for (size_t k = 0; k < n_events; k++)
		fill_event(v, k, ai, ap, unmeasured);
	free(ai);
	free(ap);
	free(unmeasured);
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
