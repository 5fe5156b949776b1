/*
 * `sleuth report --format json`: everything the HTML page shows, for other
 * tools to plot.  Unknown values are null.  Power series are exported as
 * the page draws them (minimum and maximum per 1/1110 of the run, so peaks
 * survive); numbers have 8 significant digits.  Layout: docs/report.md.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "sleuth/common.h"
#include "util/json.h"
#include "report/svg.h"

static void jstr(FILE *f, const char *s)
{
	sl_json_fputs(f, s);
}

/* A number to 8 significant digits (beyond any model's accuracy, and a
 * third the size of exact round-trip output on long runs), or null. */
static void jnum(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else
		fprintf(f, "%.8g", v);
}

/* `"key": ` with a separator unless first. */
static void key(FILE *f, int *first, const char *k)
{
	fprintf(f, "%s\"%s\": ", *first ? "" : ", ", k);
	*first = 0;
}

static void kstr(FILE *f, int *first, const char *k, const char *v)
{
	key(f, first, k);
	jstr(f, v);
}

static void knum(FILE *f, int *first, const char *k, double v)
{
	key(f, first, k);
	jnum(f, v);
}

static void kint(FILE *f, int *first, const char *k, uint64_t v)
{
	key(f, first, k);
	fprintf(f, "%llu", (unsigned long long)v);
}

static void narray(FILE *f, const double *v, size_t n)
{
	putc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			putc(',', f);
		jnum(f, v ? v[i] : NAN);
	}
	putc(']', f);
}

/* ,\n     "key": [numbers] */
static void karray(FILE *f, const char *k, const double *v, size_t n)
{
	fprintf(f, ",\n     \"%s\": ", k);
	narray(f, v, n);
}

static void code(FILE *f, const sl_codeloc *c, size_t n)
{
	putc('[', f);
	for (size_t i = 0; i < n; i++) {
		int first = 1;
		fputs(i ? ",\n      {" : "\n      {", f);
		kstr(f, &first, "function", c[i].function);
		kstr(f, &first, "file", c[i].file);
		kint(f, &first, "line", (uint64_t)(c[i].line > 0 ? c[i].line : 0));
		kint(f, &first, "addr", c[i].addr);
		knum(f, &first, "share", c[i].share);
		putc('}', f);
	}
	putc(']', f);
}

static void meta(FILE *f, const sl_report *r)
{
	const sl_profile *p = r->prof;
	int first = 0;
	kstr(f, &first, "title", r->title);
	kstr(f, &first, "profile", r->profile_path);
	kstr(f, &first, "command", p->command);
	kstr(f, &first, "workload", p->workload);
	kstr(f, &first, "backend", p->backend);
	kstr(f, &first, "host_cpu", p->host_cpu);
	knum(f, &first, "profiled_ghz", p->freq_ghz > 0 ? p->freq_ghz : NAN);
	kstr(f, &first, "machine", r->machine_name);
	kstr(f, &first, "machine_origin", r->machine_origin);
	kstr(f, &first, "model", r->model);
	kstr(f, &first, "schedule", r->schedule_path);
	kint(f, &first, "intervals", p->n_intervals);
	kint(f, &first, "interval_instructions", p->interval_instructions);
	knum(f, &first, "run_time_s", r->run_time_s);
	knum(f, &first, "run_energy_j", r->run_energy_j);
	kint(f, &first, "samples", p->samples);
	kint(f, &first, "lost_samples", p->lost_samples);
	kstr(f, &first, "predictor", p->predictor);
	knum(f, &first, "predictor_accuracy", p->predictor ? p->predictor_accuracy : NAN);
	kstr(f, &first, "energy_source", p->energy_source);
	fputs(",\n  \"events\": [", f);
	for (size_t k = 0; k < p->n_events; k++) {
		if (k)
			fputs(", ", f);
		jstr(f, p->events[k]);
	}
	fputs("],\n  \"notes\": [", f);
	for (size_t i = 0; i < r->n_notes; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		jstr(f, r->notes[i]);
	}
	fputs("],\n  \"model_event_data\": {", f);
	first = 1;
	knum(f, &first, "measured", r->cells[0]);
	knum(f, &first, "interpolated", r->cells[1]);
	knum(f, &first, "missing", r->cells[2]);
	fprintf(f, "},\n  \"time_predictions\": %s, \"power_predictions\": %s",
		r->have_time ? "true" : "false", r->have_power ? "true" : "false");
}

static void phases(FILE *f, const sl_report *r)
{
	size_t *col = sl_rep_colours(r);
	fputs(",\n  \"frequencies_ghz\": ", f);
	narray(f, r->sweep_ghz, r->n_sweep);
	fputs(",\n  \"fmin_ghz\": ", f);
	jnum(f, r->n_sweep ? r->sweep_ghz[r->fmin] : NAN);
	fputs(", \"fmax_ghz\": ", f);
	jnum(f, r->n_sweep ? r->sweep_ghz[r->fmax] : NAN);
	fputs(",\n  \"phases\": [", f);
	for (size_t i = 0; i < r->n_phases; i++) {
		const sl_rep_phase *ph = &r->phases[r->rank[i]];
		int first = 1;
		fputs(i ? ",\n    {" : "\n    {", f);
		kint(f, &first, "phase", ph->id);
		kint(f, &first, "rank", i);
		kstr(f, &first, "name", ph->name);
		kstr(f, &first, "colour", sl_svg_phase_colour(col[r->rank[i]]));
		kint(f, &first, "intervals", ph->intervals);
		kint(f, &first, "instances", ph->instances);
		kint(f, &first, "instructions", ph->instructions);
		knum(f, &first, "measured_time_s", ph->time_s);
		knum(f, &first, "share", ph->share);
		knum(f, &first, "data_measured", ph->measured);
		knum(f, &first, "data_interpolated", ph->interpolated);
		knum(f, &first, "data_missing", ph->missing);
		knum(f, &first, "time_fmin_over_fmax", ph->mem_bound);
		karray(f, "time_s", ph->time_at, r->n_sweep);
		karray(f, "energy_j", ph->energy_at, r->n_sweep);
		if (r->have_schedule) {
			int k = ph->sched_k != SIZE_MAX;
			fputs(",\n     ", f);
			first = 1;
			knum(f, &first, "scheduled_ghz", ph->sched_ghz);
			knum(f, &first, "scheduled_time_s", k ? ph->time_at[ph->sched_k] : NAN);
			knum(f, &first, "scheduled_energy_j",
			     k ? ph->energy_at[ph->sched_k] : NAN);
		}
		fputs(",\n     \"functions\": ", f);
		code(f, ph->funcs, ph->n_funcs);
		fputs(",\n     \"lines\": ", f);
		code(f, ph->lines, ph->n_lines);
		putc('}', f);
	}
	fputs("]", f);
	free(col);
	if (!r->have_schedule)
		return;
	int first = 1;
	int fx = r->sched_fixed != SIZE_MAX;
	fputs(",\n  \"schedule_summary\": {", f);
	kstr(f, &first, "objective", r->sched_objective);
	knum(f, &first, "max_slowdown", r->sched_max_slowdown);
	knum(f, &first, "time_s", r->sched_time_s);
	knum(f, &first, "energy_j", r->sched_energy_j);
	knum(f, &first, "best_fixed_ghz", fx ? r->sweep_ghz[r->sched_fixed] : NAN);
	putc('}', f);
}

static void instances(FILE *f, const sl_report *r)
{
	fputs(",\n  \"instances\": {\"phase\": [", f);
	for (size_t i = 0; i < r->n_inst; i++)
		fprintf(f, "%s%u", i ? "," : "", r->inst[i].phase);
	fputs("],\n    \"first_interval\": [", f);
	for (size_t i = 0; i < r->n_inst; i++)
		fprintf(f, "%s%zu", i ? "," : "", r->inst[i].first);
	fputs("],\n    \"intervals\": [", f);
	for (size_t i = 0; i < r->n_inst; i++)
		fprintf(f, "%s%zu", i ? "," : "", r->inst[i].n);
	double *v = sl_xmalloc((r->n_inst + 1) * sizeof *v);
	for (size_t i = 0; i < r->n_inst; i++)
		v[i] = r->inst[i].start_s;
	fputs("],\n    \"start_s\": ", f);
	narray(f, v, r->n_inst);
	for (size_t i = 0; i < r->n_inst; i++)
		v[i] = r->inst[i].time_s;
	fputs(",\n    \"time_s\": ", f);
	narray(f, v, r->n_inst);
	fputs("}", f);
	free(v);
}

/* A power series as drawn: two arrays, times and values. */
static void points(FILE *f, const sl_rep_series *s, const double *y, const char *kt,
		   const char *ky)
{
	double *t, *p;
	size_t n = sl_rep_series_points(s, y, &t, &p);
	karray(f, kt, t, n);
	karray(f, ky, p, n);
	free(t);
	free(p);
}

static void series(FILE *f, const sl_report *r)
{
	fputs(",\n  \"power_over_time\": [", f);
	for (size_t k = 0; k < r->n_series; k++) {
		const sl_rep_series *s = &r->series[k];
		int first = 1;
		fputs(k ? ",\n    {" : "\n    {", f);
		kstr(f, &first, "label", s->label);
		knum(f, &first, "ghz", s->ghz > 0 ? s->ghz : NAN);
		knum(f, &first, "time_s", s->time_s);
		knum(f, &first, "energy_j", s->energy_j);
		points(f, s, s->power_w, "t_s", "power_w");
		if (s->measured_w)
			points(f, s, s->measured_w, "measured_t_s", "measured_power_w");
		karray(f, "instance_start_s", s->inst_start, r->n_inst);
		karray(f, "instance_end_s", s->inst_end, r->n_inst);
		putc('}', f);
	}
	fputs("]", f);
}

int sl_report_json(FILE *f, const sl_report *r)
{
	fputs("{\"format\": \"sleuth-report/1\"", f);
	meta(f, r);
	phases(f, r);
	instances(f, r);
	series(f, r);
	fputs("\n}\n", f);
	if (ferror(f)) {
		sl_error_set("cannot write the report: %s", strerror(errno));
		return -1;
	}
	return 0;
}
