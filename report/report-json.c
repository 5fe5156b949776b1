/*
 * `sleuth report --format json`: everything the HTML page shows, for other
 * tools to plot.  Unknown values are null.  Power series are exported as
 * the page draws them (minimum and maximum per 1/1110 of the run, so peaks
 * survive); numbers have 8 significant digits.  Layout: docs/report.md;
 * commas and quoting: util/json.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "sleuth/common.h"
#include "util/json.h"
#include "report/svg.h"

/* A number to 8 significant digits: beyond any model's accuracy, and a
 * third the size of exact round-trip output on long runs. */
static size_t num8(char *out, double v)
{
	return (size_t)snprintf(out, 40, "%.8g", v);
}

static void kstr(sl_json *w, const char *k, const char *v)
{
	sl_json_key(w, k);
	sl_json_string(w, v);
}

static void knum(sl_json *w, const char *k, double v)
{
	sl_json_key(w, k);
	sl_json_number(w, v);
}

static void kint(sl_json *w, const char *k, uint64_t v)
{
	sl_json_key(w, k);
	sl_json_uint(w, v);
}

/* A key on a line of its own (after the comma), indented by `ws`. */
static void kline(sl_json *w, const char *ws, const char *k)
{
	sl_json_break(w, ws);
	sl_json_key(w, k);
}

static void narray(sl_json *w, const double *v, size_t n)
{
	sl_json_open(w, '[', "");
	for (size_t i = 0; i < n; i++)
		sl_json_number(w, v ? v[i] : NAN);
	sl_json_close(w, "");
}

/* ,\n     "key": [numbers] */
static void karray(sl_json *w, const char *k, const double *v, size_t n)
{
	kline(w, "\n     ", k);
	narray(w, v, n);
}

static void code(sl_json *w, const sl_codeloc *c, size_t n)
{
	sl_json_open(w, '[', "");
	for (size_t i = 0; i < n; i++) {
		sl_json_break(w, "\n      ");
		sl_json_open(w, '{', " ");
		kstr(w, "function", c[i].function);
		kstr(w, "file", c[i].file);
		kint(w, "line", (uint64_t)(c[i].line > 0 ? c[i].line : 0));
		kint(w, "addr", c[i].addr);
		knum(w, "share", c[i].share);
		sl_json_close(w, "");
	}
	sl_json_close(w, "");
}

static void meta(sl_json *w, const sl_report *r)
{
	const sl_profile *p = r->prof;
	kstr(w, "title", r->title);
	kstr(w, "profile", r->profile_path);
	kstr(w, "command", p->command);
	kstr(w, "workload", p->workload);
	kstr(w, "backend", p->backend);
	kstr(w, "host_cpu", p->host_cpu);
	knum(w, "profiled_ghz", p->freq_ghz > 0 ? p->freq_ghz : NAN);
	kstr(w, "machine", r->machine_name);
	kstr(w, "machine_origin", r->machine_origin);
	kstr(w, "model", r->model);
	kstr(w, "schedule", r->schedule_path);
	kint(w, "intervals", p->n_intervals);
	kint(w, "interval_instructions", p->interval_instructions);
	knum(w, "run_time_s", r->run_time_s);
	knum(w, "run_energy_j", r->run_energy_j);
	kint(w, "samples", p->samples);
	kint(w, "lost_samples", p->lost_samples);
	kstr(w, "predictor", p->predictor);
	knum(w, "predictor_accuracy", p->predictor ? p->predictor_accuracy : NAN);
	kstr(w, "energy_source", p->energy_source);
	kline(w, "\n  ", "events");
	sl_json_open(w, '[', " ");
	for (size_t k = 0; k < p->n_events; k++)
		sl_json_string(w, p->events[k]);
	sl_json_close(w, "");
	kline(w, "\n  ", "notes");
	sl_json_open(w, '[', "");
	for (size_t i = 0; i < r->n_notes; i++) {
		sl_json_break(w, "\n    ");
		sl_json_string(w, r->notes[i]);
	}
	sl_json_close(w, "");
	kline(w, "\n  ", "model_event_data");
	sl_json_open(w, '{', " ");
	knum(w, "measured", r->cells[0]);
	knum(w, "interpolated", r->cells[1]);
	knum(w, "missing", r->cells[2]);
	sl_json_close(w, "");
	kline(w, "\n  ", "time_predictions");
	sl_json_bool(w, r->have_time);
	sl_json_key(w, "power_predictions");
	sl_json_bool(w, r->have_power);
}

static void phases(sl_json *w, const sl_report *r)
{
	size_t *col = sl_rep_colours(r);
	kline(w, "\n  ", "frequencies_ghz");
	narray(w, r->sweep_ghz, r->n_sweep);
	kline(w, "\n  ", "fmin_ghz");
	sl_json_number(w, r->n_sweep ? r->sweep_ghz[r->fmin] : NAN);
	knum(w, "fmax_ghz", r->n_sweep ? r->sweep_ghz[r->fmax] : NAN);
	kline(w, "\n  ", "phases");
	sl_json_open(w, '[', "");
	for (size_t i = 0; i < r->n_phases; i++) {
		const sl_rep_phase *ph = &r->phases[r->rank[i]];
		sl_json_break(w, "\n    ");
		sl_json_open(w, '{', " ");
		kint(w, "phase", ph->id);
		kint(w, "rank", i);
		kstr(w, "name", ph->name);
		kstr(w, "colour", sl_svg_phase_colour(col[r->rank[i]]));
		kint(w, "intervals", ph->intervals);
		kint(w, "instances", ph->instances);
		kint(w, "instructions", ph->instructions);
		knum(w, "measured_time_s", ph->time_s);
		knum(w, "share", ph->share);
		knum(w, "data_measured", ph->measured);
		knum(w, "data_interpolated", ph->interpolated);
		knum(w, "data_missing", ph->missing);
		knum(w, "time_fmin_over_fmax", ph->mem_bound);
		karray(w, "time_s", ph->time_at, r->n_sweep);
		karray(w, "energy_j", ph->energy_at, r->n_sweep);
		if (r->have_schedule) {
			int k = ph->sched_k != SIZE_MAX;
			kline(w, "\n     ", "scheduled_ghz");
			sl_json_number(w, ph->sched_ghz);
			knum(w, "scheduled_time_s", k ? ph->time_at[ph->sched_k] : NAN);
			knum(w, "scheduled_energy_j", k ? ph->energy_at[ph->sched_k] : NAN);
		}
		if (ph->same_code != ph->id)
			kint(w, "same_code_as", ph->same_code);
		kline(w, "\n     ", "functions");
		code(w, ph->funcs, ph->n_funcs);
		kline(w, "\n     ", "lines");
		code(w, ph->lines, ph->n_lines);
		sl_json_close(w, "");
	}
	sl_json_close(w, "");
	free(col);
	if (!r->have_schedule)
		return;
	int fx = r->sched_fixed != SIZE_MAX;
	kline(w, "\n  ", "schedule_summary");
	sl_json_open(w, '{', " ");
	kstr(w, "objective", r->sched_objective);
	knum(w, "max_slowdown", r->sched_max_slowdown);
	knum(w, "time_s", r->sched_time_s);
	knum(w, "energy_j", r->sched_energy_j);
	knum(w, "best_fixed_ghz", fx ? r->sweep_ghz[r->sched_fixed] : NAN);
	sl_json_close(w, "");
}

static void instances(sl_json *w, const sl_report *r)
{
	kline(w, "\n  ", "instances");
	sl_json_open(w, '{', " ");
	sl_json_key(w, "phase");
	sl_json_open(w, '[', "");
	for (size_t i = 0; i < r->n_inst; i++)
		sl_json_uint(w, r->inst[i].phase);
	sl_json_close(w, "");
	kline(w, "\n    ", "first_interval");
	sl_json_open(w, '[', "");
	for (size_t i = 0; i < r->n_inst; i++)
		sl_json_uint(w, r->inst[i].first);
	sl_json_close(w, "");
	kline(w, "\n    ", "intervals");
	sl_json_open(w, '[', "");
	for (size_t i = 0; i < r->n_inst; i++)
		sl_json_uint(w, r->inst[i].n);
	sl_json_close(w, "");
	double *v = sl_xmalloc((r->n_inst + 1) * sizeof *v);
	for (size_t i = 0; i < r->n_inst; i++)
		v[i] = r->inst[i].start_s;
	kline(w, "\n    ", "start_s");
	narray(w, v, r->n_inst);
	for (size_t i = 0; i < r->n_inst; i++)
		v[i] = r->inst[i].time_s;
	kline(w, "\n    ", "time_s");
	narray(w, v, r->n_inst);
	sl_json_close(w, "");
	free(v);
}

/* A power series as drawn: two arrays, times and values. */
static void points(sl_json *w, const sl_rep_series *s, const double *y, const char *kt,
		   const char *ky)
{
	double *t, *p;
	size_t n = sl_rep_series_points(s, y, &t, &p);
	karray(w, kt, t, n);
	karray(w, ky, p, n);
	free(t);
	free(p);
}

static void series(sl_json *w, const sl_report *r)
{
	kline(w, "\n  ", "power_over_time");
	sl_json_open(w, '[', "");
	for (size_t k = 0; k < r->n_series; k++) {
		const sl_rep_series *s = &r->series[k];
		sl_json_break(w, "\n    ");
		sl_json_open(w, '{', " ");
		kstr(w, "label", s->label);
		knum(w, "ghz", s->ghz > 0 ? s->ghz : NAN);
		knum(w, "time_s", s->time_s);
		knum(w, "energy_j", s->energy_j);
		points(w, s, s->power_w, "t_s", "power_w");
		if (s->measured_w)
			points(w, s, s->measured_w, "measured_t_s", "measured_power_w");
		karray(w, "instance_start_s", s->inst_start, r->n_inst);
		karray(w, "instance_end_s", s->inst_end, r->n_inst);
		sl_json_close(w, "");
	}
	sl_json_close(w, "");
}

int sl_report_json(FILE *f, const sl_report *r)
{
	sl_json w;
	sl_json_init_file(&w, f, num8);
	sl_json_open(&w, '{', " ");
	kstr(&w, "format", "sleuth-report/1");
	meta(&w, r);
	phases(&w, r);
	instances(&w, r);
	series(&w, r);
	sl_json_close(&w, "\n");
	fputc('\n', f);
	if (ferror(f)) {
		sl_error_set("cannot write the report: %s", strerror(errno));
		return -1;
	}
	return 0;
}
