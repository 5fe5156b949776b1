/*
 * The HTML report: one self-contained page (inline CSS and SVG, no scripts,
 * no fonts or images fetched) that reads on a 1280 px screen and prints.
 * Sections in the order a reader asks: what ran, what its phases were and
 * when, what power it draws at other frequencies, which phases gain or
 * lose from a lower frequency, and where each phase's code is.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "sleuth/common.h"
#include "report/svg.h"

/* No '>' in the CSS: the page is checked for stray '>' like any text. */
static const char css[] =
	"body{font:14px/1.45 sans-serif;color:#222;max-width:1220px;margin:0 auto;"
	"padding:12px 20px 40px}\n"
	"h1{font-size:24px;margin:8px 0 2px}h2{font-size:19px;margin:28px 0 8px;"
	"border-bottom:2px solid #ddd;padding-bottom:3px}h3{font-size:15px;margin:18px 0 6px}\n"
	".sub{color:#555;margin:0 0 10px}\n"
	"table{border-collapse:collapse;margin:6px 0}td,th{padding:3px 7px;text-align:left;"
	"vertical-align:top}\n"
	"table.grid td,table.grid th{border-bottom:1px solid #e3e3e3}table.grid th{white-space:nowrap}table.grid{font-size:13px}"
	"table.grid th{background:#f3f3f3}\n"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	"td.n,td.nm{white-space:nowrap}\n"
	"table.meta th{color:#555;font-weight:normal;padding-left:0;white-space:nowrap}\n"
	".notes{background:#fff6e0;border-left:4px solid #E69F00;padding:6px 14px;margin:10px 0}\n"
	".notes ul{margin:4px 0;padding-left:20px}\n"
	".na{color:#8a5a00;font-style:italic}\n"
	".sw{display:inline-block;width:12px;height:12px;border:1px solid #555;"
	"vertical-align:-1px;margin-right:6px}\n"
	".share{display:inline-block;height:10px;background:#0072B2;vertical-align:0}\n"
	".code{font-family:monospace;font-size:13px}\n"
	".phase{display:inline-block;vertical-align:top;width:590px;margin-right:10px}\n"
	"svg{display:block;margin:6px 0 14px;max-width:100%;height:auto}\n"
	".hint{color:#555;font-size:13px;margin:2px 0 6px}\n"
	"@media print{body{max-width:none}section{break-inside:avoid}"
	".phase{break-inside:avoid}}\n";

static void esc(FILE *f, const char *s)
{
	sl_xml_puts(f, s ? s : "");
}

/* A number for tables: 4 significant digits, en dash when unknown. */
static void num(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("\xe2\x80\x93", f);
	else if (fabs(v) >= 1e4 && fabs(v) < 1e9)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.4g", v);
}

static void pct(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("\xe2\x80\x93", f);
	else
		fprintf(f, "%.1f%%", 100 * v);
}

static void meta_row(FILE *f, const char *k, const char *v)
{
	if (!v)
		return;
	fprintf(f, "<tr><th>%s</th><td>", k);
	esc(f, v);
	fputs("</td></tr>\n", f);
}

static void run_section(FILE *f, const sl_report *r)
{
	const sl_profile *p = r->prof;
	char buf[256];
	fputs("<section id=\"run\"><h2>Run</h2>\n<table class=\"meta\">\n", f);
	meta_row(f, "command", p->command);
	meta_row(f, "workload", p->workload);
	meta_row(f, "profile", r->profile_path);
	meta_row(f, "backend", p->backend);
	meta_row(f, "recorded on", p->host_cpu);
	if (p->freq_ghz > 0) {
		snprintf(buf, sizeof buf, "%.3g GHz", p->freq_ghz);
		meta_row(f, "profiled at", buf);
	}
	if (r->machine_name) {
		snprintf(buf, sizeof buf, "%s (%s)", r->machine_name,
			 r->machine_origin ? r->machine_origin : "?");
		meta_row(f, "machine", buf);
	}
	meta_row(f, "model", r->model);
	meta_row(f, "schedule", r->schedule_path);
	snprintf(buf, sizeof buf, "%zu intervals, %zu phases, %zu instances, %.4g s",
		 p->n_intervals, r->n_phases, r->n_inst, r->run_time_s);
	meta_row(f, "run", buf);
	if (p->interval_instructions)
		snprintf(buf, sizeof buf, "%llu instructions",
			 (unsigned long long)p->interval_instructions);
	else
		snprintf(buf, sizeof buf, "%.3g s (timed)", p->interval_s);
	meta_row(f, "interval", buf);
	if (p->samples || sl_rep_is_timer(r)) {
		snprintf(buf, sizeof buf, "%llu (%llu lost)", (unsigned long long)p->samples,
			 (unsigned long long)p->lost_samples);
		meta_row(f, sl_rep_sample_kind(r), buf);
	}
	if (p->predictor) {
		char pred[96];
		int n = snprintf(buf, sizeof buf, "%s; %u-dimension %s vectors",
				 sl_profile_predictor_text(p, pred, sizeof pred), p->bv_dims,
				 sl_rep_is_timer(r) ? "IP" : "branch");
		if (p->threshold > 0 && n > 0 && (size_t)n < sizeof buf)
			snprintf(buf + n, sizeof buf - (size_t)n, ", threshold %.3g", p->threshold);
		meta_row(f, "phase predictor", buf);
	}
	if (p->n_events) {
		fputs("<tr><th>events</th><td class=\"code\">", f);
		for (size_t k = 0; k < p->n_events; k++) {
			if (k)
				fputs(", ", f);
			esc(f, p->events[k]);
		}
		fputs("</td></tr>\n", f);
	}
	if (isfinite(r->cells[0])) {
		snprintf(buf, sizeof buf, "%.1f%% measured, %.1f%% interpolated, %.1f%% missing",
			 100 * r->cells[0], 100 * r->cells[1], 100 * r->cells[2]);
		meta_row(f, "model event data", buf);
	}
	meta_row(f, "reference energy", p->energy_source);
	fputs("</table>\n", f);
	if (r->n_notes) {
		fputs("<div class=\"notes\"><b>Not available / notes</b><ul>\n", f);
		for (size_t i = 0; i < r->n_notes; i++) {
			fputs("<li>", f);
			esc(f, r->notes[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul></div>\n", f);
	}
	fputs("</section>\n", f);
}

/* What every chart needs to colour phases: the key of each phase index
 * and the legend (the own-coloured phases, then "other phases"). */
typedef struct colours {
	size_t *key;
	sl_svg_keys legend;
	size_t *lkey;
	const char **lname;
	char *other;
} colours;

static void colours_init(colours *c, const sl_report *r)
{
	c->key = sl_rep_colours(r);
	size_t n = SL_MIN(r->n_phases, (size_t)REP_OWN_COLOURS);
	c->lkey = sl_xmalloc((n + 2) * sizeof *c->lkey);
	c->lname = sl_xmalloc((n + 2) * sizeof *c->lname);
	c->other = NULL;
	for (size_t i = 0; i < n; i++) {
		c->lkey[i] = i;
		c->lname[i] = r->phases[r->rank[i]].name;
	}
	if (r->n_phases > n) {
		c->other = sl_xasprintf("%zu other phases", r->n_phases - n);
		c->lkey[n] = REP_OWN_COLOURS;
		c->lname[n++] = c->other;
	}
	c->legend = (sl_svg_keys){n, c->lkey, c->lname, NULL};
}

static void colours_free(colours *c)
{
	free(c->key);
	free(c->lkey);
	free(c->lname);
	free(c->other);
}

static const sl_rep_phase *phase_of(const sl_report *r, uint32_t id)
{
	long k = sl_rep_phase_index(r, id);
	return k < 0 ? NULL : &r->phases[k];
}

/* Segments of the instances between start[] and end[]; titles only for
 * those wide enough to be drawn alone (the rest are merged). */
static sl_svg_segment *segments(const sl_report *r, const colours *col, const double *start,
				const double *end, double total)
{
	sl_svg_segment *seg = sl_xcalloc(r->n_inst + 1, sizeof *seg);
	for (size_t i = 0; i < r->n_inst; i++) {
		const sl_rep_inst *in = &r->inst[i];
		seg[i].x0 = start[i];
		seg[i].x1 = end[i];
		seg[i].key = col->key[sl_rep_phase_index(r, in->phase)];
		if (end[i] - start[i] >= total / 2400) {
			const sl_rep_phase *ph = phase_of(r, in->phase);
			seg[i].title = sl_xasprintf(
				"%s, instance %zu: %.4g\xe2\x80\x93%.4g s (%.3g s, %zu interval%s)",
				ph ? ph->name : "?", i, start[i], end[i], end[i] - start[i], in->n,
				in->n == 1 ? "" : "s");
		}
	}
	return seg;
}

static void free_segments(sl_svg_segment *seg, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)seg[i].title);
	free(seg);
}

static void timeline_section(FILE *f, const sl_report *r, const colours *col)
{
	fputs("<section id=\"timeline\"><h2>Phase timeline</h2>\n"
	      "<p class=\"hint\">The measured run, one colour per phase; hover an instance "
	      "for its times.</p>\n", f);
	double *s = sl_xmalloc((r->n_inst + 1) * sizeof *s);
	double *e = sl_xmalloc((r->n_inst + 1) * sizeof *e);
	for (size_t i = 0; i < r->n_inst; i++) {
		s[i] = r->inst[i].start_s;
		e[i] = r->inst[i].start_s + r->inst[i].time_s;
	}
	sl_svg_segment *seg = segments(r, col, s, e, r->run_time_s);
	sl_svg_timeline t = {
		.title = "Phases over the profiled run", .width = REP_CHART_W,
		.xlabel = "time (s)", .total = r->run_time_s, .seg = seg, .n_seg = r->n_inst,
		.keys = col->legend,
	};
	sl_svg_timeline_draw(f, &t);
	free_segments(seg, r->n_inst);
	free(s);
	free(e);
	fputs("</section>\n", f);
}

static void swatch(FILE *f, size_t key)
{
	fprintf(f, "<span class=\"sw\" style=\"background:%s\"></span>",
		sl_svg_phase_colour(key));
}

/* "+3.2%" / "-12.0%": a against b, en dash when unknown. */
static void rel(FILE *f, double a, double b)
{
	if (!isfinite(a) || !isfinite(b) || !(b > 0))
		fputs("\xe2\x80\x93", f);
	else
		fprintf(f, "%+.1f%%", 100 * (a / b - 1));
}

/* One row of the schedule table: time and energy at the schedule and
 * against fmax and the best fixed frequency (fx, SIZE_MAX: none). */
static void sched_cells(FILE *f, const sl_report *r, double t, double e, double t_max,
			double e_max, double t_fx, double e_fx)
{
	double v[2] = {t, e};
	for (int k = 0; k < 2; k++) {
		fputs("<td class=\"n\">", f);
		num(f, v[k]);
		fputs("</td>", f);
	}
	double cmp[4][2] = {{t, t_max}, {e, e_max}, {t, t_fx}, {e, e_fx}};
	for (int k = 0; k < (r->sched_fixed != SIZE_MAX ? 4 : 2); k++) {
		fputs("<td class=\"n\">", f);
		rel(f, cmp[k][0], cmp[k][1]);
		fputs("</td>", f);
	}
	fputs("</tr>\n", f);
}

/* The run coloured by each instance's scheduled frequency, slowest first
 * in the legend. */
static void sched_strip(FILE *f, const sl_report *r)
{
	double *ghz = sl_xmalloc((r->n_phases + 1) * sizeof *ghz);
	size_t n = 0;
	for (size_t i = 0; i < r->n_phases; i++) {
		double g = r->phases[i].sched_ghz;
		size_t j = 0;
		while (j < n && fabs(ghz[j] - g) >= 0.0005)
			j++;
		if (j == n && isfinite(g)) {
			while (j > 0 && ghz[j - 1] > g) { /* insertion: ascending */
				ghz[j] = ghz[j - 1];
				j--;
			}
			ghz[j] = g;
			n++;
		}
	}
	/* slowest darkest, fastest lightest, spread over the palette */
	char **name = sl_xmalloc((n + 1) * sizeof *name);
	size_t *key = sl_xmalloc((n + 1) * sizeof *key);
	for (size_t j = 0; j < n; j++) {
		name[j] = sl_xasprintf("%.2f GHz", ghz[j]);
		key[j] = n > 1 ? j * 9 / (n - 1) : 9;
	}
	sl_svg_segment *seg = sl_xcalloc(r->n_inst + 1, sizeof *seg);
	for (size_t i = 0; i < r->n_inst; i++) {
		const sl_rep_phase *ph = phase_of(r, r->inst[i].phase);
		double g = ph ? ph->sched_ghz : NAN;
		seg[i].x0 = r->inst[i].start_s;
		seg[i].x1 = r->inst[i].start_s + r->inst[i].time_s;
		seg[i].key = 10; /* not in the schedule: grey */
		for (size_t j = 0; j < n; j++)
			if (fabs(ghz[j] - g) < 0.0005)
				seg[i].key = key[j];
	}
	sl_svg_timeline t = {
		.title = "Scheduled frequency over the profiled run", .width = REP_CHART_W,
		.xlabel = "time (s)", .total = r->run_time_s, .seg = seg, .n_seg = r->n_inst,
		.keys = {n, key, (const char *const *)name, sl_svg_level_colour},
	};
	sl_svg_timeline_draw(f, &t);
	for (size_t j = 0; j < n; j++)
		free(name[j]);
	free(name);
	free(key);
	free(seg);
	free(ghz);
}

/* The schedule's answer, first thing after the run: which frequency each
 * phase gets and what that buys, against fmax and against the best
 * single frequency under the same bound. */
static void schedule_section(FILE *f, const sl_report *r, const colours *col)
{
	if (!r->have_schedule)
		return;
	int pred = r->n_sweep && r->have_time;
	int fx = r->sched_fixed != SIZE_MAX;
	fputs("<section id=\"schedule\"><h2>Schedule</h2>\n<p class=\"sub\">", f);
	fprintf(f, "%s, at most %.3g%% slower than fmax", r->sched_objective,
		100 * r->sched_max_slowdown);
	if (fx)
		fprintf(f, "; the best single frequency under the same bound is %.3g GHz",
			r->sweep_ghz[r->sched_fixed]);
	fputs(".</p>\n<table class=\"grid\"><tr><th>phase</th><th>code</th>"
	      "<th class=\"n\">frequency</th>", f);
	if (pred) {
		fputs("<th class=\"n\">time (s)</th><th class=\"n\">energy (J)</th>"
		      "<th class=\"n\">time<br>vs fmax</th><th class=\"n\">energy<br>vs fmax</th>",
		      f);
		if (fx)
			fprintf(f, "<th class=\"n\">time<br>vs %.3g GHz</th>"
				   "<th class=\"n\">energy<br>vs %.3g GHz</th>",
				r->sweep_ghz[r->sched_fixed], r->sweep_ghz[r->sched_fixed]);
	}
	fputs("</tr>\n", f);
	double t_max = 0, e_max = 0, t_fx = 0, e_fx = 0;
	for (size_t i = 0; i < r->n_phases; i++) {
		const sl_rep_phase *ph = &r->phases[r->rank[i]];
		fputs("<tr><td class=\"nm\">", f);
		swatch(f, col->key[r->rank[i]]);
		esc(f, ph->name);
		fputs("</td><td class=\"code\">", f);
		esc(f, ph->n_funcs ? ph->funcs[0].function : "");
		fputs("</td><td class=\"n\">", f);
		if (isfinite(ph->sched_ghz))
			fprintf(f, "%.2f GHz", ph->sched_ghz);
		else
			num(f, NAN);
		fputs("</td>", f);
		if (!pred) {
			fputs("</tr>\n", f);
			continue;
		}
		size_t k = ph->sched_k, m = r->fmax, b = fx ? r->sched_fixed : m;
		t_max += ph->time_at[m];
		e_max += ph->energy_at[m];
		t_fx += ph->time_at[b];
		e_fx += ph->energy_at[b];
		sched_cells(f, r, k != SIZE_MAX ? ph->time_at[k] : NAN,
			    k != SIZE_MAX ? ph->energy_at[k] : NAN, ph->time_at[m],
			    ph->energy_at[m], ph->time_at[b], ph->energy_at[b]);
	}
	if (pred) {
		fputs("<tr><th>whole run</th><th></th><th></th>", f);
		sched_cells(f, r, r->sched_time_s, r->sched_energy_j, t_max,
			    r->have_power ? e_max : NAN, t_fx, r->have_power ? e_fx : NAN);
	}
	fputs("</table>\n<p class=\"hint\">Predicted time and energy of each phase at "
	      "its scheduled frequency; frequency switch costs are left out.  A phase "
	      "may be slower than the bound when others make up for it (scope global).</p>\n",
	      f);
	sched_strip(f, r);
	fputs("</section>\n", f);
}

/* The whole run at each operating point, relative to fmax when shown. */
static void totals_table(FILE *f, const sl_report *r)
{
	const sl_rep_series *ref = NULL;
	for (size_t k = 0; k < r->n_series && !ref; k++)
		if (r->n_sweep && fabs(r->series[k].ghz - r->sweep_ghz[r->fmax]) < 0.0005)
			ref = &r->series[k];
	fputs("<table class=\"grid\"><tr><th>predicted run</th><th class=\"n\">time (s)</th>"
	      "<th class=\"n\">energy (J)</th><th class=\"n\">mean power (W)</th>", f);
	if (ref)
		fputs("<th class=\"n\">time vs fmax</th><th class=\"n\">energy vs fmax</th>", f);
	fputs("</tr>\n", f);
	/* The measured run first, when its energy is known: the reference the
	 * profiled-frequency prediction should match. */
	int measured = isfinite(r->run_energy_j) && r->run_time_s > 0;
	for (size_t k = !measured; k <= r->n_series; k++) {
		const sl_rep_series *s = k ? &r->series[k - 1] : NULL;
		double t = s ? s->time_s : r->run_time_s, e = s ? s->energy_j : r->run_energy_j;
		double v[5] = {t, e, t > 0 ? e / t : NAN, ref ? t / ref->time_s - 1 : NAN,
			       ref ? e / ref->energy_j - 1 : NAN};
		fputs("<tr><td class=\"nm\">", f);
		esc(f, s ? s->label : "measured (the profiled run)");
		fputs("</td>", f);
		for (int i = 0; i < (ref ? 5 : 3); i++) {
			fputs("<td class=\"n\">", f);
			if (i < 3)
				num(f, v[i]);
			else /* no "-0.0%" for a difference that rounds away */
				fprintf(f, "%+.1f%%", fabs(v[i]) < 0.0005 ? 0.0 : 100 * v[i]);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void power_section(FILE *f, const sl_report *r, const colours *col)
{
	fputs("<section id=\"power\"><h2>Predicted power over time</h2>\n", f);
	if (!r->have_power || !r->n_series) {
		fputs("<p class=\"na\">Power predictions are unavailable (see the notes "
		      "above).</p></section>\n", f);
		return;
	}
	fputs("<p class=\"hint\">One chart per frequency, on the same axes: a lower "
	      "frequency draws less power for longer.  Shaded bands and the strip "
	      "under each chart are the phase instances.</p>\n", f);
	totals_table(f, r);
	double tmax = 0, pmax = 0;
	for (size_t k = 0; k < r->n_series; k++) {
		const sl_rep_series *s = &r->series[k];
		tmax = SL_MAX(tmax, s->time_s);
		for (size_t i = 0; i < s->n; i++) {
			if (isfinite(s->power_w[i]))
				pmax = SL_MAX(pmax, s->power_w[i]);
			if (s->measured_w && isfinite(s->measured_w[i]))
				pmax = SL_MAX(pmax, s->measured_w[i]);
		}
	}
	for (size_t k = 0; k < r->n_series; k++) {
		const sl_rep_series *s = &r->series[k];
		char *title = sl_xasprintf("%s: %.4g s, %.4g J, mean %.3g W", s->label,
					   s->time_s, s->energy_j,
					   s->time_s > 0 ? s->energy_j / s->time_s : NAN);
		sl_svg_series ser[2] = {
			{.name = "predicted", .x = s->t, .y = s->power_w, .n = s->n},
			{.name = "measured", .x = s->t, .y = s->measured_w, .n = s->n},
		};
		sl_svg_segment *seg = segments(r, col, s->inst_start, s->inst_end, tmax);
		sl_svg_line_chart c = {
			.title = title, .width = REP_CHART_W, .height = 300,
			.axes = {"time (s)", "power (W)", 0, tmax, 0, pmax * 1.05},
			.series = ser, .n_series = s->measured_w ? 2 : 1,
			.bands = seg, .n_bands = r->n_inst, .keys = col->legend,
		};
		sl_svg_line(f, &c);
		free_segments(seg, r->n_inst);
		free(title);
	}
	fputs("</section>\n", f);
}

/* Short group label of a phase for bar charts: "3 matmul". */
static char *short_name(const sl_rep_phase *ph)
{
	const char *fn = ph->n_funcs ? ph->funcs[0].function : NULL;
	return fn ? sl_xasprintf("%u %s", ph->id, fn) : sl_xasprintf("phase %u", ph->id);
}

static void bars(FILE *f, const sl_report *r, size_t n, int energy)
{
	const char **groups = sl_xmalloc((n + 1) * sizeof *groups);
	double *v = sl_xmalloc((2 * n + 1) * sizeof *v);
	char fmax[64], fmin[64];
	sl_rep_ghz_label(fmax, sizeof fmax, r, r->fmax);
	sl_rep_ghz_label(fmin, sizeof fmin, r, r->fmin);
	const char *series[2] = {fmax, fmin};
	for (size_t i = 0; i < n; i++) {
		const sl_rep_phase *ph = &r->phases[r->rank[i]];
		groups[i] = short_name(ph);
		const double *at = energy ? ph->energy_at : ph->time_at;
		v[2 * i] = at[r->fmax];
		v[2 * i + 1] = at[r->fmin];
	}
	sl_svg_bar_chart c = {
		.title = energy ? "Predicted energy per phase" : "Predicted time per phase",
		.width = REP_CHART_W, .height = 320,
		.ylabel = energy ? "energy (J)" : "time (s)", .n_groups = n, .n_series = 2,
		.group_names = groups, .series_names = series, .values = v,
	};
	sl_svg_bars(f, &c);
	for (size_t i = 0; i < n; i++)
		free((char *)groups[i]);
	free(groups);
	free(v);
}

static void per_phase_section(FILE *f, const sl_report *r)
{
	fputs("<section id=\"per-phase\"><h2>Time and energy per phase at fmax and fmin</h2>\n",
	      f);
	if (!r->have_time || !r->n_sweep) {
		fputs("<p class=\"na\">Predictions are unavailable (see the notes above).</p>"
		      "</section>\n", f);
		return;
	}
	size_t n = SL_MIN(r->n_phases, (size_t)REP_MAX_BARS);
	fprintf(f, "<p class=\"hint\">Phases ranked by predicted time at fmax%s.</p>\n",
		n < r->n_phases ? "; the smaller ones are in the table below" : "");
	bars(f, r, n, 0);
	if (r->have_power)
		bars(f, r, n, 1);
	else
		fputs("<p class=\"na\">Energy is unavailable (see the notes above).</p>\n", f);
	fputs("</section>\n", f);
}

static void sweep_section(FILE *f, const sl_report *r)
{
	fputs("<section id=\"sweep\"><h2>Major phases against frequency</h2>\n", f);
	if (!r->have_time || r->n_sweep < 2) {
		fputs("<p class=\"na\">Predictions at several frequencies are unavailable "
		      "(see the notes above).</p></section>\n", f);
		return;
	}
	fputs("<p class=\"hint\">Predicted time and energy of each phase relative to its "
	      "value at fmax.  A memory-bound phase keeps its time as the frequency falls; "
	      "a compute-bound one slows in proportion, along the dashed line "
	      "fmax / f.</p>\n", f);
	size_t n = sl_report_major(r, 0.95, REP_MAX_PANELS);
	size_t ns = r->have_power ? 3 : 2;
	sl_svg_panel *pn = sl_xcalloc(n + 1, sizeof *pn);
	sl_svg_series *ser = sl_xcalloc(ns * n + 1, sizeof *ser);
	double *rel = sl_xmalloc((2 * n * r->n_sweep + 1) * sizeof *rel);
	double *cpu = sl_xmalloc((r->n_sweep + 1) * sizeof *cpu);
	/* One y range for every panel, so that panels compare at a glance. */
	double ylo = 1, yhi = 1;
	for (size_t k = 0; k < r->n_sweep; k++) {
		cpu[k] = r->sweep_ghz[r->fmax] / r->sweep_ghz[k];
		ylo = SL_MIN(ylo, cpu[k]);
		yhi = SL_MAX(yhi, cpu[k]);
	}
	for (size_t i = 0; i < n; i++) {
		const sl_rep_phase *ph = &r->phases[r->rank[i]];
		double *rt = rel + 2 * i * r->n_sweep, *re = rt + r->n_sweep;
		for (size_t k = 0; k < r->n_sweep; k++) {
			rt[k] = ph->time_at[k] / ph->time_at[r->fmax];
			re[k] = ph->energy_at[k] / ph->energy_at[r->fmax];
			for (int j = 0; j < (r->have_power ? 2 : 1); j++) {
				double v = j ? re[k] : rt[k];
				if (isfinite(v)) {
					ylo = SL_MIN(ylo, v);
					yhi = SL_MAX(yhi, v);
				}
			}
		}
		sl_svg_series *ps = ser + ns * i;
		ps[0] = (sl_svg_series){"time", r->sweep_ghz, rt, r->n_sweep, 1, 0,
					sl_svg_series_colour(0)};
		ps[1] = (sl_svg_series){"time if compute-bound", r->sweep_ghz, cpu, r->n_sweep,
					0, 1, "#888888"};
		if (r->have_power)
			ps[2] = (sl_svg_series){"energy", r->sweep_ghz, re, r->n_sweep, 1, 0,
						sl_svg_series_colour(1)};
		pn[i].title = sl_xasprintf("%s, %.0f%% of time", ph->name, 100 * ph->share);
		pn[i].axes = (sl_svg_axes){"frequency (GHz)", "relative to fmax", NAN, NAN,
					   0, 0};
		pn[i].series = ps;
		pn[i].n_series = ns;
	}
	for (size_t i = 0; i < n; i++) {
		pn[i].axes.ymin = ylo;
		pn[i].axes.ymax = yhi;
	}
	sl_svg_multiples m = {
		.title = "Time and energy against frequency", .width = REP_CHART_W,
		.columns = 4, .panel_height = 240, .panels = pn, .n_panels = n,
	};
	sl_svg_multiples_draw(f, &m);
	for (size_t i = 0; i < n; i++)
		free((char *)pn[i].title);
	free(pn);
	free(ser);
	free(rel);
	free(cpu);
	fputs("</section>\n", f);
}

static void phase_table(FILE *f, const sl_report *r, const colours *col)
{
	char fmax[64], fmin[64];
	int pred = r->have_time && r->n_sweep;
	fputs("<table class=\"grid\"><tr><th>phase</th><th class=\"n\">intervals</th>"
	      "<th class=\"n\">instances</th><th class=\"n\">time (s)<br>measured</th>", f);
	if (pred) {
		sl_rep_ghz_label(fmax, sizeof fmax, r, r->fmax);
		sl_rep_ghz_label(fmin, sizeof fmin, r, r->fmin);
		fprintf(f, "<th class=\"n\">time (s)<br>%s</th><th class=\"n\">time (s)<br>%s</th>",
			fmax, fmin);
		if (r->have_power)
			fprintf(f, "<th class=\"n\">energy (J)<br>%s</th>"
				   "<th class=\"n\">energy (J)<br>%s</th>", fmax, fmin);
		fputs("<th class=\"n\">time<br>fmin / fmax</th>", f);
	}
	if (isfinite(r->cells[0]))
		fputs("<th class=\"n\">data<br>measured</th>", f);
	fputs("</tr>\n", f);
	for (size_t i = 0; i < r->n_phases; i++) {
		const sl_rep_phase *ph = &r->phases[r->rank[i]];
		fputs("<tr><td class=\"nm\">", f);
		swatch(f, col->key[r->rank[i]]);
		esc(f, ph->name);
		fprintf(f, "</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td><td class=\"n\">",
			ph->intervals, ph->instances);
		num(f, ph->time_s);
		fputs(" (", f);
		pct(f, ph->share);
		fputs(")</td>", f);
		if (pred) {
			double v[4] = {ph->time_at[r->fmax], ph->time_at[r->fmin],
				       ph->energy_at[r->fmax], ph->energy_at[r->fmin]};
			for (int k = 0; k < (r->have_power ? 4 : 2); k++) {
				fputs("<td class=\"n\">", f);
				num(f, v[k]);
				fputs("</td>", f);
			}
			fputs("<td class=\"n\">", f);
			if (isfinite(ph->mem_bound))
				fprintf(f, "%.2f", ph->mem_bound);
			else
				num(f, NAN);
			fputs("</td>", f);
		}
		if (isfinite(r->cells[0])) {
			fputs("<td class=\"n\">", f);
			pct(f, ph->measured);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	if (pred)
		fprintf(f, "<p class=\"hint\">Time fmin / fmax is the memory-boundness: 1.00 "
			   "for a phase whose time does not depend on the frequency, %.2f "
			   "(= fmax / fmin) for one that scales fully with it.  Data measured: "
			   "the share of the model's event counts of the phase that were "
			   "counted in their own interval rather than interpolated.</p>\n",
			r->sweep_ghz[r->fmax] / r->sweep_ghz[r->fmin]);
}

/* Rows of code locations, each with a bar scaled to the largest share. */
static void code_rows(FILE *f, const sl_codeloc *c, size_t n, int lines)
{
	char where[512];
	double top = 0;
	for (size_t i = 0; i < n; i++)
		top = SL_MAX(top, c[i].share);
	for (size_t i = 0; i < n; i++) {
		fputs("<tr><td class=\"code\">", f);
		if (lines) {
			sl_rep_where(where, sizeof where, &c[i]);
			esc(f, where);
			if (c[i].function) {
				fputs(" <span class=\"sub\">", f);
				esc(f, c[i].function);
				fputs("</span>", f);
			}
		} else {
			esc(f, c[i].function ? c[i].function : "?");
		}
		fprintf(f, "</td><td class=\"n\">%.1f%%</td><td><span class=\"share\" "
			   "style=\"width:%.0fpx\"></span></td></tr>\n",
			100 * c[i].share, top > 0 ? 120 * c[i].share / top : 0);
	}
}

static void code_section(FILE *f, const sl_report *r, const colours *col)
{
	fputs("<section id=\"phases\"><h2>Phases</h2>\n", f);
	phase_table(f, r, col);
	fprintf(f, "<h3>Code of each phase</h3><p class=\"hint\">Shares of the phase's "
		"%s.</p>\n", sl_rep_sample_kind(r));
	for (size_t i = 0; i < r->n_phases; i++) {
		const sl_rep_phase *ph = &r->phases[r->rank[i]];
		fputs("<div class=\"phase\"><h3>", f);
		swatch(f, col->key[r->rank[i]]);
		esc(f, ph->name);
		fputs("</h3>\n", f);
		if (ph->same_code != ph->id)
			fprintf(f, "<p class=\"hint\">The code of phase %u, run with other "
				"event rates (the data it works on).</p>\n", ph->same_code);
		if (!ph->n_funcs && !ph->n_lines) {
			fputs("<p class=\"na\">No samples fell in this phase.</p></div>\n", f);
			continue;
		}
		if (ph->n_funcs) {
			fputs("<table class=\"grid\"><tr><th>function</th>"
			      "<th class=\"n\">share</th><th></th></tr>\n", f);
			code_rows(f, ph->funcs, ph->n_funcs, 0);
			fputs("</table>\n", f);
		}
		if (ph->n_lines) {
			fputs("<table class=\"grid\"><tr><th>source line</th>"
			      "<th class=\"n\">share</th><th></th></tr>\n", f);
			code_rows(f, ph->lines, ph->n_lines, 1);
			fputs("</table>\n", f);
		} else {
			fputs("<p class=\"na\">No source lines (no debug information).</p>\n", f);
		}
		fputs("</div>\n", f);
	}
	fputs("</section>\n", f);
}

int sl_report_html(FILE *f, const sl_report *r)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n", f);
	fputs("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", f);
	fputs("<title>sleuth report: ", f);
	esc(f, r->title);
	fprintf(f, "</title>\n<style>\n%s</style></head><body>\n<header><h1>", css);
	esc(f, r->title);
	fputs("</h1><p class=\"sub\">", f);
	fprintf(f, "%zu phases over %.4g s (%zu cover 90%% of the time)", r->n_phases,
		r->run_time_s, sl_profile_phases_covering(r->prof, 0.9));
	if (r->have_time && r->n_sweep) {
		fprintf(f, "; predictions from %.3g to %.3g GHz", r->sweep_ghz[r->fmin],
			r->sweep_ghz[r->fmax]);
		if (r->machine_name) {
			fputs(" on ", f);
			esc(f, r->machine_name);
		}
	} else {
		fputs("; <span class=\"na\">no predictions</span>", f);
	}
	fputs("</p>", f);
	if (sl_profile_phases_noisy(r->prof))
		fprintf(f, "<p class=\"notes\" id=\"noise\"><b>Warning:</b> %zu phases in %zu "
			   "intervals look like sampling noise, not the program's stages: too "
			   "few samples per interval for this program's code.  Record again "
			   "with a longer <code>--interval</code> (see the notes below).</p>",
			r->n_phases, r->prof->n_intervals);
	fputs("</header>\n", f);
	colours col;
	colours_init(&col, r);
	run_section(f, r);
	schedule_section(f, r, &col);
	timeline_section(f, r, &col);
	if (r->have_time && r->n_sweep) {
		power_section(f, r, &col);
		per_phase_section(f, r);
		sweep_section(f, r);
	} else {
		/* one line, not three empty sections: why, and how to get them */
		fputs("<section id=\"predictions\"><h2>Predictions</h2>\n<p class=\"na\">", f);
		esc(f, sl_rep_no_prediction_text(r));
		fputs("</p></section>\n", f);
	}
	code_section(f, r, &col);
	colours_free(&col);
	fprintf(f, "<footer class=\"hint\">Written by sleuth %s.</footer>\n</body></html>\n",
		SLEUTH_VERSION);
	if (ferror(f)) {
		sl_error_set("cannot write the report: %s", strerror(errno));
		return -1;
	}
	return 0;
}
