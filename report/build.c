/*
 * Computing a report (see include/sleuth/report.h): what the profile
 * measured (phases, instances, code), then what the models predict at every
 * P-state, at the requested frequencies and under a schedule.  Whatever
 * cannot be predicted becomes a note, so a profile without counts (timer
 * backend) or without a power model still gets the report of what it has.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "sleuth/common.h"
#include "sleuth/machine.h"
#include "sleuth/model.h"
#include "sleuth/schedule.h"

/* Phases: every id that has intervals, with the profile's code. */
static void build_phases(sl_report *r, const sl_profile *p)
{
	uint32_t n_ids = 0;
	for (size_t i = 0; i < p->n_intervals; i++)
		n_ids = SL_MAX(n_ids, p->iv[i].phase + 1);
	size_t *at = sl_xmalloc((n_ids + 1) * sizeof *at);
	size_t *cnt = sl_xcalloc(n_ids + 1, sizeof *cnt);
	for (size_t i = 0; i < p->n_intervals; i++)
		cnt[p->iv[i].phase]++;
	for (uint32_t id = 0; id < n_ids; id++)
		if (cnt[id])
			r->n_phases++;
	r->phases = sl_xcalloc(r->n_phases + 1, sizeof *r->phases);
	size_t k = 0;
	for (uint32_t id = 0; id < n_ids; id++) {
		at[id] = k;
		if (cnt[id]) {
			r->phases[k].id = r->phases[k].same_code = id;
			k++;
		}
	}
	for (size_t i = 0; i < p->n_intervals; i++) {
		sl_rep_phase *ph = &r->phases[at[p->iv[i].phase]];
		ph->intervals++;
		ph->instructions += p->iv[i].instructions;
	}
	for (size_t i = 0; i < r->n_inst; i++)
		r->phases[at[r->inst[i].phase]].instances++;
	for (size_t i = 0; i < p->n_phases; i++) {
		const sl_phase_info *pi = &p->phases[i];
		if (pi->id >= n_ids || !cnt[pi->id])
			continue;
		sl_rep_phase *ph = &r->phases[at[pi->id]];
		ph->funcs = pi->funcs;
		ph->n_funcs = pi->n_funcs;
		ph->lines = pi->lines;
		ph->n_lines = pi->n_lines;
		ph->same_code = p->same_code ? p->same_code[i] : pi->id;
	}
	for (size_t i = 0; i < r->n_phases; i++) {
		sl_rep_phase *ph = &r->phases[i];
		ph->measured = ph->interpolated = ph->missing = NAN;
		ph->mem_bound = NAN;
		ph->sched_ghz = NAN;
		ph->sched_k = SIZE_MAX;
		/* Named after its top function, shortened: C++ names can fill a
		 * line, and the name labels legends and table rows. */
		const char *fn = ph->n_funcs ? ph->funcs[0].function : NULL;
		if (fn && strcmp(fn, "?") && strlen(fn) > 32)
			ph->name = sl_xasprintf("phase %u (%.31s\xe2\x80\xa6)", ph->id, fn);
		else if (fn && strcmp(fn, "?"))
			ph->name = sl_xasprintf("phase %u (%s)", ph->id, fn);
		else
			ph->name = sl_xasprintf("phase %u", ph->id);
	}
	free(at);
	free(cnt);
}

static void build_instances(sl_report *r, const sl_profile *p)
{
	sl_instance *in = NULL;
	r->n_inst = sl_profile_instances(p, &in);
	r->inst = sl_xcalloc(r->n_inst + 1, sizeof *r->inst);
	for (size_t i = 0; i < r->n_inst; i++) {
		sl_rep_inst *ri = &r->inst[i];
		ri->phase = in[i].phase;
		ri->first = in[i].first;
		ri->n = in[i].n;
		ri->start_s = p->iv[in[i].first].start_s;
	}
	free(in);
}

/* The times of the instances, phases and run, and the run's energy, at
 * the profiled frequency: the profile's (for a dithered one, the model's
 * profile at f0, whose dithered intervals' times are predicted and whose
 * energies there unknown: models/dither.c). */
static void set_times(sl_report *r, const sl_profile *meas, const sl_profile *p)
{
	double total = 0, e = 0, total_meas = 0;
	/* a phase id's place in r->phases */
	uint32_t n_ids = 0;
	for (size_t i = 0; i < r->n_phases; i++) {
		r->phases[i].time_s = 0;
		n_ids = SL_MAX(n_ids, r->phases[i].id + 1);
	}
	size_t *at = sl_xmalloc((n_ids + 1) * sizeof *at);
	for (size_t i = 0; i < r->n_phases; i++)
		at[r->phases[i].id] = i;
	for (size_t i = 0; i < r->n_inst; i++) {
		sl_rep_inst *ri = &r->inst[i];
		ri->time_s = 0;
		for (size_t j = ri->first; j < ri->first + ri->n; j++)
			ri->time_s += p->iv[j].time_s;
		r->phases[at[ri->phase]].time_s += ri->time_s;
		total += ri->time_s;
	}
	free(at);
	for (size_t i = 0; i < r->n_phases; i++)
		r->phases[i].share = total > 0 ? r->phases[i].time_s / total : NAN;
	for (size_t i = 0; i < p->n_intervals; i++) {
		e += p->iv[i].energy_j; /* NAN if any is unmeasured */
		total_meas += meas->iv[i].time_s;
	}
	r->run_energy_j = p->n_intervals ? e : 0;
	/* the run's span as measured (gaps between intervals too), less what
	 * the dithered intervals took over their predicted times */
	if (p->n_intervals) {
		const sl_prof_interval *last = &meas->iv[meas->n_intervals - 1];
		r->run_time_s = last->start_s + last->time_s + (total - total_meas);
	}
}

/* Larger key first; ties in index order. */
static int by_key(const void *a, const void *b, void *key)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = ((const double *)key)[i], y = ((const double *)key)[j];
	if (isnan(x))
		x = -1;
	if (isnan(y))
		y = -1;
	return x < y ? 1 : x > y ? -1 : (i > j) - (i < j);
}

/* Rank phases by predicted time at fmax, or measured time without
 * predictions. */
static void build_rank(sl_report *r)
{
	double *key = sl_xmalloc((r->n_phases + 1) * sizeof *key);
	r->rank = sl_xmalloc((r->n_phases + 1) * sizeof *r->rank);
	for (size_t i = 0; i < r->n_phases; i++) {
		r->rank[i] = i;
		key[i] = r->have_time && r->n_sweep ? r->phases[i].time_at[r->fmax]
						    : r->phases[i].time_s;
	}
	qsort_r(r->rank, r->n_phases, sizeof *r->rank, by_key, key);
	free(key);
}

/* Every P-state: per-phase time and energy; memory-boundness. */
static int build_sweep(sl_report *r, const sl_model *md, const sl_machine *m)
{
	r->n_sweep = m->n_pstates;
	r->sweep_ghz = sl_xmalloc((r->n_sweep + 1) * sizeof *r->sweep_ghz);
	for (size_t k = 0; k < r->n_sweep; k++)
		r->sweep_ghz[k] = m->pstates[m->n_pstates - 1 - k].ghz;
	r->fmin = 0;
	r->fmax = r->n_sweep - 1;
	for (size_t i = 0; i < r->n_phases; i++) {
		r->phases[i].time_at = sl_xmalloc((r->n_sweep + 1) * sizeof(double));
		r->phases[i].energy_at = sl_xmalloc((r->n_sweep + 1) * sizeof(double));
	}
	sl_agg *agg = sl_xcalloc(md->view.n_phase_ids + 1, sizeof *agg);
	for (size_t k = 0; k < r->n_sweep; k++) {
		sl_opoint op;
		if (sl_model_opoint(md, r->sweep_ghz[k], &op) < 0) {
			free(agg);
			return -1;
		}
		sl_model_aggregate(md, &op, agg, NULL, NULL);
		for (size_t i = 0; i < r->n_phases; i++) {
			const sl_agg *a = &agg[r->phases[i].id];
			r->phases[i].time_at[k] = a->time_s;
			r->phases[i].energy_at[k] = r->have_power ? a->energy_j : NAN;
		}
	}
	free(agg);
	for (size_t i = 0; i < r->n_phases; i++) {
		sl_rep_phase *ph = &r->phases[i];
		if (ph->time_at[r->fmax] > 0)
			ph->mem_bound = ph->time_at[r->fmin] / ph->time_at[r->fmax];
	}
	return 0;
}

/* Measured / interpolated / missing shares of the model's event cells. */
static void build_cells(sl_report *r, const sl_model *md)
{
	const sl_interp *v = &md->view;
	r->cells[0] = sl_interp_share(v, SL_SRC_MEASURED);
	r->cells[1] = sl_interp_share(v, SL_SRC_INSTANCE) + sl_interp_share(v, SL_SRC_PHASE) +
		      sl_interp_share(v, SL_SRC_MIXED) + sl_interp_share(v, SL_SRC_SIMILAR) +
		      sl_interp_share(v, SL_SRC_PROGRAM);
	r->cells[2] = sl_interp_share(v, SL_SRC_NONE);
	double (*sh)[SL_SRC_N] = sl_xcalloc(v->n_phase_ids + 1, sizeof *sh);
	sl_interp_phase_shares(v, sh);
	for (size_t i = 0; i < r->n_phases; i++) {
		const double *s = sh[r->phases[i].id];
		r->phases[i].measured = s[SL_SRC_MEASURED];
		r->phases[i].interpolated = s[SL_SRC_INSTANCE] + s[SL_SRC_PHASE] +
					    s[SL_SRC_MIXED] + s[SL_SRC_SIMILAR] + s[SL_SRC_PROGRAM];
		r->phases[i].missing = s[SL_SRC_NONE];
	}
	free(sh);
}

/* Predicted power over time, interval i at operating point op_of[i] (an
 * index into ops). */
static void build_series(sl_report *r, const sl_model *md, const sl_opoint *ops,
			 const size_t *op_of, char *label, double ghz)
{
	const sl_profile *p = r->prof;
	r->series = sl_xreallocarray(r->series, r->n_series + 1, sizeof *r->series);
	sl_rep_series *s = &r->series[r->n_series++];
	memset(s, 0, sizeof *s);
	s->label = label;
	s->ghz = ghz;
	s->n = p->n_intervals;
	s->t = sl_xmalloc((s->n + 1) * sizeof *s->t);
	s->power_w = sl_xmalloc((s->n + 1) * sizeof *s->power_w);
	s->inst_start = sl_xmalloc((r->n_inst + 1) * sizeof *s->inst_start);
	s->inst_end = sl_xmalloc((r->n_inst + 1) * sizeof *s->inst_end);
	double t = 0, e = 0;
	for (size_t i = 0; i < s->n; i++) {
		sl_pred pr;
		sl_model_predict(md, &ops[op_of ? op_of[i] : 0], i, &pr);
		s->t[i] = t;
		s->power_w[i] = pr.power_w;
		t += pr.time_s;
		e += pr.energy_j;
	}
	for (size_t i = 0; i < r->n_inst; i++) {
		const sl_rep_inst *in = &r->inst[i];
		s->inst_start[i] = s->t[in->first];
		size_t next = in->first + in->n;
		s->inst_end[i] = next < s->n ? s->t[next] : t;
	}
	s->time_s = t;
	s->energy_j = e;
}

/* The measured power of the profiled run, if the profile has energies. */
static void attach_measured(sl_rep_series *s, const sl_profile *p)
{
	size_t have = 0;
	for (size_t i = 0; i < p->n_intervals; i++)
		have += isfinite(p->iv[i].energy_j);
	if (!have)
		return;
	s->measured_w = sl_xmalloc((s->n + 1) * sizeof *s->measured_w);
	for (size_t i = 0; i < s->n; i++) {
		const sl_prof_interval *iv = &p->iv[i];
		s->measured_w[i] = isfinite(iv->energy_j) && iv->time_s > 0
					   ? iv->energy_j / iv->time_s : NAN;
	}
}

static int same_ghz(double a, double b)
{
	return fabs(a - b) < 0.0005;
}

/* The power series: the profiled frequency, the requested ones (default
 * fmax and fmin) and the schedule. */
static int build_all_series(sl_report *r, const sl_model *md, const sl_report_opts *o,
			    const sl_schedule_file *sched)
{
	const sl_profile *p = r->prof;
	sl_opoint op;
	if (p->freq_ghz > 0) {
		if (sl_model_opoint(md, p->freq_ghz, &op) < 0) {
			sl_report_note(r, "no prediction at the profiled frequency: %s",
				       sl_error());
		} else {
			const char *also = same_ghz(p->freq_ghz, r->sweep_ghz[r->fmax]) ? ", fmax"
					   : same_ghz(p->freq_ghz, r->sweep_ghz[r->fmin]) ? ", fmin" : "";
			build_series(r, md, &op, NULL,
				     sl_xasprintf("%.3g GHz (profiled%s)", p->freq_ghz, also),
				     p->freq_ghz);
			attach_measured(&r->series[r->n_series - 1], md->prof);
		}
	}
	double dflt[2] = {r->sweep_ghz[r->fmax], r->sweep_ghz[r->fmin]};
	const double *ghz = o->n_ghz ? o->ghz : dflt;
	size_t n = o->n_ghz ? o->n_ghz : (r->n_sweep > 1 ? 2 : 1);
	for (size_t k = 0; k < n; k++) {
		int dup = p->freq_ghz > 0 && same_ghz(ghz[k], p->freq_ghz);
		for (size_t j = 0; j < k; j++)
			dup |= same_ghz(ghz[k], ghz[j]);
		if (dup)
			continue;
		if (sl_model_opoint(md, ghz[k], &op) < 0)
			return -1;
		const char *tag = same_ghz(ghz[k], dflt[0]) ? " (fmax)"
				  : same_ghz(ghz[k], dflt[1]) ? " (fmin)" : "";
		build_series(r, md, &op, NULL, sl_xasprintf("%.3g GHz%s", ghz[k], tag), ghz[k]);
	}
	if (!sched)
		return 0;
	/* One operating point per distinct scheduled frequency (at most one
	 * per phase). */
	sl_opoint *ops = sl_xcalloc(r->n_phases + 1, sizeof *ops);
	size_t n_ops = 0;
	size_t *op_of = sl_xmalloc((p->n_intervals + 1) * sizeof *op_of);
	size_t *op_of_phase = sl_xcalloc(r->n_phases + 1, sizeof *op_of_phase);
	for (size_t i = 0; i < r->n_phases; i++) {
		/* As sleuth predict --schedule: a schedule made for another
		 * profile is refused, not drawn with guesses for its gaps. */
		double g = sl_schedule_ghz(sched, r->phases[i].id);
		if (!(g > 0)) {
			sl_error_set("phase %u of the profile is not in the schedule; was "
				     "the schedule made for this profile?", r->phases[i].id);
			goto fail;
		}
		size_t j = 0;
		while (j < n_ops && !same_ghz(ops[j].ghz, g))
			j++;
		if (j == n_ops && sl_model_opoint(md, g, &ops[n_ops++]) < 0)
			goto fail;
		op_of_phase[i] = j;
	}
	for (size_t i = 0; i < p->n_intervals; i++)
		op_of[i] = op_of_phase[sl_rep_phase_index(r, p->iv[i].phase)];
	build_series(r, md, ops, op_of,
		     sl_xasprintf("schedule (%s, at most %.0f%% slower)",
				  sl_objective_name(sched->objective), 100 * sched->max_slowdown),
		     0);
	if (sched->transition_us > 0)
		sl_report_note(r, "the schedule's power over time leaves out its frequency "
				  "switch costs (%.3g us each)", sched->transition_us);
	if (sched->min_instance_ms > 0)
		sl_report_note(r, "the schedule's power over time runs every instance at its "
				  "phase's frequency: instances shorter than its min_instance_ms "
				  "(%.3g ms) keep the previous frequency in sleuth predict "
				  "--schedule", sched->min_instance_ms);
	free(ops);
	free(op_of);
	free(op_of_phase);
	return 0;
fail:
	sl_error_prefix("schedule %s: ", o->schedule_path);
	free(ops);
	free(op_of);
	free(op_of_phase);
	return -1;
}

/* Under a schedule: each phase's frequency, and with predictions its
 * place in the sweep, the schedule's totals and the best single P-state
 * within the same slowdown bound (by the schedule's objective). */
static void build_schedule(sl_report *r, const sl_schedule_file *s)
{
	r->have_schedule = 1;
	r->sched_objective = sl_objective_name(s->objective);
	r->sched_max_slowdown = s->max_slowdown;
	r->sched_time_s = r->sched_energy_j = NAN;
	r->sched_fixed = SIZE_MAX;
	int all = r->n_sweep > 0;
	for (size_t i = 0; i < r->n_phases; i++) {
		sl_rep_phase *ph = &r->phases[i];
		double g = sl_schedule_ghz(s, ph->id);
		ph->sched_ghz = g > 0 ? g : NAN;
		for (size_t k = 0; k < r->n_sweep; k++)
			if (same_ghz(r->sweep_ghz[k], g))
				ph->sched_k = k;
		all &= ph->sched_k != SIZE_MAX;
	}
	if (!all)
		return;
	double t = 0, e = 0, *tk = sl_xcalloc(r->n_sweep, sizeof *tk),
	       *ek = sl_xcalloc(r->n_sweep, sizeof *ek);
	for (size_t i = 0; i < r->n_phases; i++) {
		const sl_rep_phase *ph = &r->phases[i];
		t += ph->time_at[ph->sched_k];
		e += ph->energy_at[ph->sched_k];
		for (size_t k = 0; k < r->n_sweep; k++) {
			tk[k] += ph->time_at[k];
			ek[k] += ph->energy_at[k];
		}
	}
	r->sched_time_s = t;
	r->sched_energy_j = r->have_power ? e : NAN;
	double best = INFINITY, bound = (1 + s->max_slowdown) * tk[r->fmax];
	for (size_t k = 0; r->have_power && k < r->n_sweep; k++) {
		double v = sl_objective_value(s->objective, tk[k], ek[k]);
		if (tk[k] <= bound * (1 + 1e-12) && v < best) {
			best = v;
			r->sched_fixed = k;
		}
	}
	free(tk);
	free(ek);
}

/* Every requested frequency must be one the model can predict, whether
 * or not there is a power model to draw it with. */
static int check_freqs(const sl_model *md, const sl_report_opts *o)
{
	sl_opoint op;
	for (size_t k = 0; k < o->n_ghz; k++)
		if (sl_model_opoint(md, o->ghz[k], &op) < 0) {
			sl_error_prefix("--freq %.4g GHz: ", o->ghz[k]);
			return -1;
		}
	return 0;
}

/* Load the machine model: --machine, else the one embedded in the profile.
 * 1 loaded, 0 none (noted), -1 error. */
static int load_machine(sl_report *r, const sl_profile *p, const sl_report_opts *o,
			sl_machine *m)
{
	const char *origin;
	if (!o->machine_path && !p->machine_text) {
		sl_report_note(r, "predictions unavailable: the profile has no machine "
				  "model; give --machine FILE");
		return 0;
	}
	if (sl_profile_machine(p, "the profile", o->machine_path, m, &origin) < 0) {
		if (o->machine_path)
			return -1;
		sl_report_note(r, "predictions unavailable: %s; give --machine FILE",
			       sl_error());
		return 0;
	}
	r->machine_origin = sl_xstrdup(origin);
	r->machine_name = sl_xstrdup(m->name ? m->name : "?");
	return 1;
}

/* The models, with the power model when the machine has one, refined by
 * `refine_path` when given, anchored on the profile's measured energy
 * unless `anchor` is 0: 1, or 0 without a model (a note says why), or -1
 * with sl_error() when the refining profile cannot be used. */
static int init_model(sl_report *r, sl_model *md, const sl_profile *p, const sl_machine *m,
		      sl_time_model tm, int extrapolate, int anchor, const char *refine_path)
{
	int flags = 0, ex = extrapolate ? SL_MODEL_EXTRAPOLATE : 0;
	if (!sl_machine_complete(m)) {
		sl_report_note(r, "power and energy unavailable: %s", sl_error());
		flags = SL_MODEL_TIME_ONLY;
	}
	if (sl_model_init(md, p, m, tm, flags | ex) < 0) {
		char *why = sl_xstrdup(sl_error());
		if (flags || sl_model_init(md, p, m, tm, SL_MODEL_TIME_ONLY | ex) < 0) {
			sl_report_note(r, "predictions unavailable: %s", why);
			free(why);
			return 0;
		}
		sl_report_note(r, "power and energy unavailable: %s", why);
		free(why);
		flags = SL_MODEL_TIME_ONLY;
	}
	char *refined = NULL;
	sl_refine_info ri;
	int rr = sl_model_refine_by(md, refine_path, &ri);
	if (rr < 0) {
		sl_model_free(md);
		return -1;
	}
	if (rr > 0)
		refined = sl_xasprintf(", refined by %s at %.2f GHz (%zu of %zu intervals)",
				       refine_path ? refine_path : "its dithered intervals",
				       ri.f2_ghz, ri.intervals, ri.n_intervals);
	r->have_time = 1;
	r->have_power = !(flags & SL_MODEL_TIME_ONLY);
	int anchored = r->have_power && anchor ? sl_model_anchor(md) : 0;
	if (anchored < 0)
		sl_report_note(r, "power from the counters alone: %s", sl_error());
	r->model = sl_xasprintf("%s time model%s%s%s%s", sl_time_model_name(tm),
				refined ? refined : "",
				r->have_power ? ", effective-capacitance power model" : "",
				anchored > 0 ? " anchored on the measured power of " : "",
				anchored > 0 ? md->anchor->source : "");
	free(refined);
	return 1;
}

int sl_report_build(sl_report *r, const sl_profile *p, const sl_report_opts *o)
{
	r->prof = p;
	r->profile_path = o->profile_path ? sl_xstrdup(o->profile_path) : NULL;
	r->title = sl_xstrdup(p->workload ? p->workload
			      : p->command ? p->command
			      : o->profile_path ? o->profile_path : "profile");
	for (size_t i = 0; i < p->n_notes; i++)
		sl_report_note(r, "%s", p->notes[i]);
	build_instances(r, p);
	build_phases(r, p);
	set_times(r, p, p);

	sl_schedule_file sched;
	int have_sched = 0;
	if (o->schedule_path) {
		memset(&sched, 0, sizeof sched);
		if (sl_schedule_read(o->schedule_path, &sched) < 0)
			return -1;
		have_sched = 1;
		r->schedule_path = sl_xstrdup(o->schedule_path);
	}
	sl_machine m;
	memset(&m, 0, sizeof m);
	int rc = 0;
	int got = 0;
	if (!p->has_counts)
		sl_report_note(r, "predictions unavailable: the profile has no event counts "
				  "(%s backend); for time, power and energy at every frequency, "
				  "record where there is a PMU (sleuth run --backend perf) or "
				  "through the virtual PMU (vPMU)", p->backend ? p->backend : "?");
	else
		got = load_machine(r, p, o, &m);
	if (got < 0) {
		rc = -1;
		goto out;
	}
	sl_model md;
	int have_model = got ? init_model(r, &md, p, &m, (sl_time_model)o->time_model,
					  o->extrapolate, !o->anchor_off, o->refine_path) : 0;
	if (have_model < 0) {
		rc = -1;
		goto out;
	}
	if (have_model) {
		if (md.dither)
			set_times(r, p, md.prof);
		if (check_freqs(&md, o) < 0 || build_sweep(r, &md, &m) < 0 ||
		    (build_cells(r, &md), 0) ||
		    (r->have_power && build_all_series(r, &md, o, have_sched ? &sched : NULL) < 0))
			rc = -1;
		else if (!r->have_power && (o->n_ghz || have_sched))
			sl_report_note(r, "power over time at the requested frequencies and "
					  "under the schedule needs a power model");
		if (rc == 0 && have_sched)
			build_schedule(r, &sched);
		sl_model_free(&md);
	} else if (o->n_ghz || have_sched) {
		sl_report_note(r, "--freq and --schedule were ignored: no predictions");
	}
	if (rc == 0 && have_sched && !r->have_schedule)
		build_schedule(r, &sched); /* the frequencies, without predictions */
	build_rank(r);
out:
	if (got > 0)
		sl_machine_free(&m);
	if (have_sched)
		sl_schedule_file_free(&sched);
	return rc;
}
