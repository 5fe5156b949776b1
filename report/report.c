/*
 * The report structure's life cycle and the small helpers its writers share
 * (see include/sleuth/report.h and report-int.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "sleuth/common.h"
#include "report/svg.h"

void sl_report_init(sl_report *r)
{
	memset(r, 0, sizeof *r);
	r->cells[0] = r->cells[1] = r->cells[2] = NAN;
	r->run_energy_j = NAN;
}

void sl_report_free(sl_report *r)
{
	free(r->title);
	free(r->profile_path);
	free(r->machine_name);
	free(r->machine_origin);
	free(r->model);
	free(r->schedule_path);
	for (size_t i = 0; i < r->n_notes; i++)
		free(r->notes[i]);
	free(r->notes);
	for (size_t i = 0; i < r->n_phases; i++) {
		free(r->phases[i].name);
		free(r->phases[i].time_at);
		free(r->phases[i].energy_at);
	}
	free(r->phases);
	free(r->rank);
	free(r->inst);
	free(r->sweep_ghz);
	for (size_t k = 0; k < r->n_series; k++) {
		sl_rep_series *s = &r->series[k];
		free(s->label);
		free(s->t);
		free(s->power_w);
		free(s->inst_start);
		free(s->inst_end);
		free(s->measured_w);
	}
	free(r->series);
	memset(r, 0, sizeof *r);
}

void sl_report_note(sl_report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = sl_xstrdup("(note lost: out of memory)");
	va_end(ap);
	r->notes = sl_xreallocarray(r->notes, r->n_notes + 1, sizeof *r->notes);
	r->notes[r->n_notes++] = s;
}

size_t sl_report_major(const sl_report *r, double frac, size_t max)
{
	double acc = 0;
	size_t n = 0;
	while (n < r->n_phases && n < max && acc < frac) {
		acc += r->phases[r->rank[n]].share;
		n++;
	}
	return n;
}

size_t *sl_rep_colours(const sl_report *r)
{
	size_t *key = sl_xmalloc((r->n_phases + 1) * sizeof *key);
	for (size_t i = 0; i < r->n_phases; i++)
		key[r->rank[i]] = SL_MIN(i, (size_t)REP_OWN_COLOURS);
	return key;
}

long sl_rep_phase_index(const sl_report *r, uint32_t id)
{
	size_t lo = 0, hi = r->n_phases;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (r->phases[m].id < id)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < r->n_phases && r->phases[lo].id == id ? (long)lo : -1;
}

void sl_rep_where(char *buf, size_t len, const sl_codeloc *c)
{
	if (c->file && c->line > 0)
		snprintf(buf, len, "%s:%d", c->file, c->line);
	else if (c->file)
		snprintf(buf, len, "%s", c->file);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)c->addr);
}

void sl_rep_ghz_label(char *buf, size_t len, const sl_report *r, size_t k)
{
	snprintf(buf, len, "%.3g GHz%s", r->sweep_ghz[k],
		 k == r->fmax ? " (fmax)" : k == r->fmin ? " (fmin)" : "");
}

size_t sl_rep_series_points(const sl_rep_series *s, const double *y, double **t,
			 double **p)
{
	size_t cap = SL_MIN(s->n, 4 * (size_t)REP_PLOT_COLUMNS) + 1;
	*t = sl_xmalloc(cap * sizeof **t);
	*p = sl_xmalloc(cap * sizeof **p);
	return sl_svg_downsample(s->t, y, s->n, 0, s->time_s, REP_PLOT_COLUMNS, *t, *p);
}

int sl_rep_is_timer(const sl_report *r)
{
	return r->prof && r->prof->backend && !strcmp(r->prof->backend, "timer");
}

const char *sl_rep_sample_kind(const sl_report *r)
{
	return sl_rep_is_timer(r) ? "IP samples" : "branch samples";
}

const char *sl_rep_no_prediction_text(const sl_report *r)
{
	static const char pre[] = "predictions unavailable: ";
	for (size_t i = 0; i < r->n_notes; i++)
		if (!strncmp(r->notes[i], pre, sizeof pre - 1))
			return r->notes[i] + sizeof pre - 1;
	return "no predictions (see the notes above)";
}
