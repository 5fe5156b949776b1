/*
 * What `sleuth schedule` shows and writes.  The human table puts the
 * schedule next to the best single fixed frequency and the baseline, so the
 * user sees what per-phase DVFS adds over simply picking one frequency.
 */
#include "schedule-print.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "sleuth/common.h"
#include "util/json.h"

static double ghz_of(const sched_report *r, int p)
{
	return r->tab->ghz[p];
}

/* Why one fixed frequency was kept (malloc'd), or NULL. */
static char *fallback_line(const sched_report *r)
{
	const sl_sched_result *s = r->res;
	if (!s->fell_back)
		return NULL;
	double of = sl_objective_value(r->opts->objective, s->fixed.time_s, s->fixed.energy_j);
	return sl_xasprintf("per-phase DVFS would gain %.2f%% over %.3f GHz for every phase, "
			    "not more than its uncertainty (%.2f%% at %g%% confidence): "
			    "%.3f GHz kept", 100 * s->gain / of,
			    ghz_of(r, s->fixed_pstate), 100 * s->gain_uncertainty / of,
			    100 * r->confidence, ghz_of(r, s->fixed_pstate));
}

void sched_to_file(const sched_report *r, sl_schedule_file *f)
{
	const sl_sched_result *s = r->res;
	const sl_sched_opts *o = r->opts;
	memset(f, 0, sizeof *f);
	f->profile = sl_xstrdup(r->profile);
	f->machine = sl_xstrdup(r->machine);
	f->objective = o->objective;
	f->max_slowdown = o->max_slowdown;
	f->scope = o->scope;
	f->base_ghz = ghz_of(r, (int)r->tab->baseline);
	f->base_time_s = s->base.time_s;
	f->base_energy_j = s->base.energy_j;
	f->time_s = s->total.time_s;
	f->energy_j = s->total.energy_j;
	f->edp = s->total.time_s * s->total.energy_j;
	f->slowdown = s->total.time_s / s->base.time_s - 1;
	f->power_cap_w = o->power_cap_w;
	f->transition_us = r->transition_us;
	f->min_instance_ms = r->min_instance_ms;
	f->confidence = r->confidence;
	f->margin_s = s->margin_s;
	f->margin_slowdown = s->margin_s / s->base.time_s;
	f->fallback = fallback_line(r);
	f->phases = sl_xcalloc(s->n_phases + 1, sizeof *f->phases);
	for (size_t k = 0; k < s->n_phases; k++) {
		if (!(r->base_phase_s[k] > 0))
			continue; /* a phase id without instances */
		f->phases[f->n_phases++] = (sl_sched_phase){(uint32_t)k,
			ghz_of(r, s->pstate[k]), s->phase_time_s[k], s->phase_energy_j[k]};
	}
}

static double pct(double a, double b)
{
	return 100 * (a / b - 1);
}

static void total_row(FILE *out, const char *name, const sl_sched_eval *e,
		      const sl_sched_eval *base)
{
	fprintf(out, "%-16s %10.4f %10.4g %10.4g %+8.2f%% %+8.2f%% %+8.2f%%\n", name,
		e->time_s, e->energy_j, e->time_s * e->energy_j,
		pct(e->time_s, base->time_s), pct(e->energy_j, base->energy_j),
		pct(e->time_s * e->energy_j, base->time_s * base->energy_j));
}

void sched_print_table(FILE *out, const sched_report *r)
{
	const sl_sched_result *s = r->res;
	const sl_sched_opts *o = r->opts;
	fprintf(out, "Schedule for %s (machine %s)\n%s, %s scope, slowdown <= %g%%",
		r->profile, r->machine, sl_objective_name(o->objective),
		sl_scope_name(o->scope), 100 * o->max_slowdown);
	if (o->power_cap_w > 0)
		fprintf(out, ", power <= %g W", o->power_cap_w);
	if (o->transition_s > 0)
		fprintf(out, ", switch %g us", r->transition_us);
	if (o->min_instance_s > 0)
		fprintf(out, ", instances >= %g ms", r->min_instance_ms);
	fprintf(out, "\n\n%5s %7s %11s %11s %11s %9s\n", "phase", "GHz", "time_s",
		"energy_j", "EDP", "slowdown");
	size_t ninh = 0;
	for (size_t k = 0; k < s->n_phases; k++) {
		if (!(r->base_phase_s[k] > 0))
			continue;
		double t = s->phase_time_s[k], e = s->phase_energy_j[k];
		fprintf(out, "%5zu %6.3f%c %11.4f %11.4g %11.4g %+8.2f%%\n", k,
			ghz_of(r, s->pstate[k]), s->inherits[k] ? '*' : ' ', t, e, t * e,
			pct(t, r->base_phase_s[k]));
		ninh += s->inherits[k];
	}
	if (ninh)
		fprintf(out, "* every instance shorter than %g ms: runs at the frequency of the\n"
			"  instance before it (GHz shown: where most of its time runs)\n",
			r->min_instance_ms);
	if (s->total.switches && o->transition_s > 0)
		fprintf(out, "frequency switches: %zu, costing %.4g s and %.4g J\n",
			s->total.switches, s->total.switch_time_s, s->total.switch_energy_j);
	else if (s->total.switches)
		fprintf(out, "frequency switches: %zu (no cost charged; see --transition-us)\n",
			s->total.switches);
	fprintf(out, "\n%-16s %10s %10s %10s %9s %9s %9s\n", "", "time_s", "energy_j",
		"EDP", "time", "energy", "EDP");
	total_row(out, "per-phase DVFS", &s->total, &s->base);
	char g[32];
	if (s->fixed_pstate >= 0) {
		snprintf(g, sizeof g, "fixed %.3f GHz", ghz_of(r, s->fixed_pstate));
		total_row(out, g, &s->fixed, &s->base);
	}
	snprintf(g, sizeof g, "fmax %.3f GHz", ghz_of(r, (int)r->tab->baseline));
	total_row(out, g, &s->base, &s->base);
	fprintf(out, "peak power %.4g W (baseline %.4g W)\n", s->total.peak_w, s->base.peak_w);
	if (r->confidence > 0)
		fprintf(out, "margin for the models' error at %g%% confidence: %.2f%% of the "
			"baseline time (predicted slowdown %+.2f%% + margin <= %g%%); error "
			"from %s\n", 100 * r->confidence, 100 * s->margin_s / s->base.time_s,
			pct(s->total.time_s, s->base.time_s), 100 * o->max_slowdown,
			r->sigma_from);
	else
		fprintf(out, "no margin for the models' error (--confidence off): the bound "
			"holds for the point prediction\n");
	if (r->has_point) {
		double op = sl_objective_value(o->objective, r->point.time_s, r->point.energy_j);
		double os = sl_objective_value(o->objective, s->total.time_s, s->total.energy_j);
		fprintf(out, "the margin's price: %s %+.2f%% against the point prediction's "
			"optimum (slowdown %+.2f%%, no margin)\n",
			o->objective == SL_OBJ_ENERGY ? "energy" : o->objective == SL_OBJ_EDP
			? "EDP" : "ED2P", pct(os, op), pct(r->point.time_s, s->base.time_s));
	}
	if (s->fixed_pstate >= 0) {
		const sl_sched_eval *f = &s->fixed;
		fprintf(out, "per-phase DVFS vs fixed %.3f GHz: time %+.2f%%, energy %+.2f%%, "
			"EDP %+.2f%%\n", ghz_of(r, s->fixed_pstate), pct(s->total.time_s, f->time_s),
			pct(s->total.energy_j, f->energy_j),
			pct(s->total.time_s * s->total.energy_j, f->time_s * f->energy_j));
	} else {
		fprintf(out, "no single fixed frequency meets the same bound%s\n",
			o->power_cap_w > 0 ? " and cap" : "");
	}
	char *fb = fallback_line(r);
	if (fb) {
		fprintf(out, "fallback: %s\n", fb);
		free(fb);
	} else if (o->scope == SL_SCOPE_PHASE) {
		fprintf(out, "each phase at its own best frequency within the bound (the "
			"per-phase rule)\n");
	} else if (s->exact) {
		fprintf(out, "proven optimal for this objective and bound\n");
	} else {
		double f = sl_objective_value(o->objective, s->total.time_s, s->total.energy_j);
		fprintf(out, "heuristic (switch costs couple too many phases to prove the\n"
			"optimum, docs/schedule.md): within %.3g%% of it\n",
			100 * (f / s->lower_bound - 1));
	}
}

static void jnum(sl_json *w, const char *key, double v)
{
	sl_json_key(w, key);
	sl_json_number(w, v);
}

/* key: an evaluation's object, or null when e is NULL. */
static void jeval(sl_json *w, const char *key, double ghz, const sl_sched_eval *e)
{
	sl_json_break(w, "\n  ");
	sl_json_key(w, key);
	if (!e) {
		sl_json_null(w);
		return;
	}
	sl_json_open(w, '{', " ");
	if (ghz > 0)
		jnum(w, "ghz", ghz);
	jnum(w, "time_s", e->time_s);
	jnum(w, "energy_j", e->energy_j);
	jnum(w, "edp", e->time_s * e->energy_j);
	jnum(w, "peak_w", e->peak_w);
	sl_json_close(w, "");
}

void sched_print_json(FILE *out, const sched_report *r)
{
	const sl_sched_result *s = r->res;
	const sl_sched_opts *o = r->opts;
	sl_schedule_file f;
	sl_json w;
	sched_to_file(r, &f);
	sl_json_init_file(&w, out, NULL);
	sl_json_open(&w, '{', " ");
	sl_json_break(&w, "\n  ");
	sl_json_key(&w, "format");
	sl_json_string(&w, "sleuth-schedule/1");
	sl_json_key(&w, "profile");
	sl_json_string(&w, f.profile);
	sl_json_key(&w, "machine");
	sl_json_string(&w, f.machine);
	sl_json_break(&w, "\n  ");
	sl_json_key(&w, "objective");
	sl_json_string(&w, sl_objective_name(f.objective));
	jnum(&w, "max_slowdown", f.max_slowdown);
	sl_json_key(&w, "scope");
	sl_json_string(&w, sl_scope_name(f.scope));
	jnum(&w, "power_cap_w", f.power_cap_w);
	jnum(&w, "transition_us", f.transition_us);
	jnum(&w, "min_instance_ms", f.min_instance_ms);
	sl_json_key(&w, "exact");
	sl_json_bool(&w, s->exact);
	/* a bound exists only for the global scope */
	jnum(&w, "objective_lower_bound", o->scope == SL_SCOPE_GLOBAL ? s->lower_bound : NAN);
	jnum(&w, "confidence", f.confidence);
	sl_json_break(&w, "\n  ");
	sl_json_key(&w, "margin");
	sl_json_open(&w, '{', " ");
	jnum(&w, "slowdown", f.margin_slowdown);
	jnum(&w, "time_s", f.margin_s);
	jnum(&w, "best_fixed_time_s", s->fixed_pstate >= 0 ? s->fixed_margin_s : NAN);
	sl_json_key(&w, "error_from");
	sl_json_string(&w, r->sigma_from);
	sl_json_close(&w, "");
	jeval(&w, "point_optimum", 0, r->has_point ? &r->point : NULL);
	sl_json_break(&w, "\n  ");
	sl_json_key(&w, "gain_over_fixed");
	sl_json_open(&w, '{', " ");
	jnum(&w, "objective", s->fixed_pstate >= 0 ? s->gain : NAN);
	jnum(&w, "uncertainty", s->fixed_pstate >= 0 ? s->gain_uncertainty : NAN);
	sl_json_close(&w, "");
	sl_json_break(&w, "\n  ");
	sl_json_key(&w, "fallback");
	if (f.fallback)
		sl_json_string(&w, f.fallback);
	else
		sl_json_null(&w);
	jeval(&w, "baseline", f.base_ghz, &s->base);
	sl_json_break(&w, "\n  ");
	sl_json_key(&w, "predicted");
	sl_json_open(&w, '{', " ");
	jnum(&w, "time_s", f.time_s);
	jnum(&w, "energy_j", f.energy_j);
	jnum(&w, "edp", f.edp);
	jnum(&w, "slowdown", f.slowdown);
	jnum(&w, "peak_w", s->total.peak_w);
	sl_json_key(&w, "switches");
	sl_json_uint(&w, s->total.switches);
	jnum(&w, "switch_time_s", s->total.switch_time_s);
	jnum(&w, "switch_energy_j", s->total.switch_energy_j);
	sl_json_close(&w, "");
	jeval(&w, "best_fixed", s->fixed_pstate >= 0 ? ghz_of(r, s->fixed_pstate) : 0,
	      s->fixed_pstate >= 0 ? &s->fixed : NULL);
	sl_json_break(&w, "\n  ");
	sl_json_key(&w, "phases");
	sl_json_open(&w, '[', "");
	for (size_t i = 0; i < f.n_phases; i++) {
		const sl_sched_phase *p = &f.phases[i];
		sl_json_break(&w, "\n    ");
		sl_json_open(&w, '{', " ");
		sl_json_key(&w, "phase");
		sl_json_uint(&w, p->phase);
		jnum(&w, "ghz", p->ghz);
		jnum(&w, "time_s", p->time_s);
		jnum(&w, "energy_j", p->energy_j);
		jnum(&w, "edp", p->time_s * p->energy_j);
		sl_json_key(&w, "inherits");
		sl_json_bool(&w, s->inherits[p->phase]);
		sl_json_close(&w, "");
	}
	sl_json_close(&w, "\n  ");
	sl_json_close(&w, "\n");
	fputc('\n', out);
	sl_schedule_file_free(&f);
}

/* GEOPM hashes a region name with CRC-32 (IEEE 802.3), which zlib's crc32()
 * computes: the same bytes, the same number. */
uint32_t sched_geopm_hash(const char *name)
{
	return (uint32_t)crc32(0L, (const Bytef *)name, (uInt)strlen(name));
}

/*
 * A GEOPM frequency_map agent policy: FREQ_CPU_DEFAULT is the baseline, and
 * each phase is the region named "sleuth-phase-N" (see docs/schedule.md),
 * HASH_i its hash and FREQ_i its frequency, in Hz.
 */
/* Frequencies in Hz, whole numbers. */
static size_t num_hz(char *out, double v)
{
	return (size_t)snprintf(out, 40, "%.0f", v);
}

void sched_print_geopm(FILE *out, const sched_report *r)
{
	const sl_sched_result *s = r->res;
	sl_json w;
	sl_json_init_file(&w, out, num_hz);
	sl_json_open(&w, '{', " ");
	sl_json_break(&w, "\n  ");
	sl_json_key(&w, "FREQ_CPU_DEFAULT");
	sl_json_number(&w, ghz_of(r, (int)r->tab->baseline) * 1e9);
	size_t i = 0;
	for (size_t k = 0; k < s->n_phases; k++) {
		if (!(r->base_phase_s[k] > 0))
			continue;
		char name[48], key[32];
		snprintf(name, sizeof name, "sleuth-phase-%zu", k);
		snprintf(key, sizeof key, "HASH_%zu", i);
		sl_json_break(&w, "\n  ");
		sl_json_key(&w, key);
		sl_json_uint(&w, sched_geopm_hash(name));
		snprintf(key, sizeof key, "FREQ_%zu", i);
		sl_json_break(&w, "\n  ");
		sl_json_key(&w, key);
		sl_json_number(&w, ghz_of(r, s->pstate[k]) * 1e9);
		i++;
	}
	sl_json_close(&w, "\n");
	fputc('\n', out);
}
