/* Unit tests of the report writers on an in-memory report: the HTML page is
 * well formed, self-contained (no scripts, nothing fetched), has every
 * chart with data and escapes what it shows; a report without predictions
 * still shows the timeline and code and says why; the JSON carries the
 * same content with nulls for unknowns. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/report.h"
#include "xmlcheck.h"

#define NIV 3000
#define NPH 3

typedef struct fixture {
	sl_profile prof;
	sl_prof_interval iv[NIV];
	sl_codeloc funcs[NPH][2], lines[NPH][1];
	sl_phase_info info[NPH];
	sl_report r;
} fixture;

/* A run of 3000 intervals cycling through phases 0, 1 (long) and 2
 * (short), profiled at 2.66 GHz, with predictions at 3 P-states and two
 * power series (the profiled frequency with measured power, and fmin). */
static void make(fixture *fx, int predictions)
{
	memset(fx, 0, sizeof *fx);
	sl_profile *p = &fx->prof;
	p->command = "./app <in.txt";
	p->backend = predictions ? "replay" : "timer";
	p->workload = "mix & match";
	p->freq_ghz = 2.66;
	p->interval_instructions = 100000000;
	p->n_intervals = NIV;
	p->iv = fx->iv;
	static char *events[] = {"LLC_MISSES", "UOPS_EXECUTED:PORT015_STALL_CYCLES"};
	p->events = events;
	p->n_events = predictions ? 2 : 0;
	p->has_counts = predictions;
	static const char *const fn[NPH] = {"matmul", "copy_<T>", "init"};
	for (int k = 0; k < NPH; k++) {
		fx->funcs[k][0] = (sl_codeloc){(char *)fn[k], "app.c", 10 + k, 0x400000u + k, 0.7};
		fx->funcs[k][1] = (sl_codeloc){"?", NULL, 0, 0x7f0000, 0.3};
		fx->lines[k][0] = (sl_codeloc){(char *)fn[k], "src/app.c", 42 + k, 0x401000, 0.5};
		fx->info[k] = (sl_phase_info){(uint32_t)k, fx->funcs[k], 2, fx->lines[k], 1};
	}
	p->phases = fx->info;
	p->n_phases = NPH;
	double t = 0;
	for (int i = 0; i < NIV; i++) {
		uint32_t ph = (i / 100) % 3;
		if (ph == 2 && i % 100 >= 5)
			ph = 0;
		fx->iv[i] = (sl_prof_interval){ph, t, 0.01 + 0.001 * ph, 2660000, 100000000,
					       predictions ? 0.5 + 0.1 * ph : NAN};
		t += fx->iv[i].time_s;
	}
	sl_report *r = &fx->r;
	sl_report_init(r);
	r->prof = p;
	r->title = sl_xstrdup("mix & match");
	r->profile_path = sl_xstrdup("app.prof");
	r->run_time_s = t;
	sl_report_note(r, "a note with <markup> & such");
	/* instances */
	for (int i = 0; i < NIV; i++)
		if (!r->n_inst || r->inst[r->n_inst - 1].phase != fx->iv[i].phase) {
			r->inst = sl_xreallocarray(r->inst, r->n_inst + 1, sizeof *r->inst);
			r->inst[r->n_inst++] = (sl_rep_inst){fx->iv[i].phase, (size_t)i, 0,
							     fx->iv[i].start_s, 0};
		}
	for (int i = 0; i < NIV; i++)
		for (size_t k = 0; k < r->n_inst; k++)
			if ((size_t)i >= r->inst[k].first &&
			    (k + 1 == r->n_inst || (size_t)i < r->inst[k + 1].first)) {
				r->inst[k].n++;
				r->inst[k].time_s += fx->iv[i].time_s;
			}
	r->n_phases = NPH;
	r->phases = sl_xcalloc(NPH, sizeof *r->phases);
	r->rank = sl_xmalloc(NPH * sizeof *r->rank);
	for (int k = 0; k < NPH; k++) {
		sl_rep_phase *ph = &r->phases[k];
		ph->id = (uint32_t)k;
		ph->name = sl_xasprintf("phase %d (%s)", k, fn[k]);
		ph->funcs = fx->funcs[k];
		ph->n_funcs = 2;
		ph->lines = fx->lines[k];
		ph->n_lines = 1;
		ph->intervals = 1000;
		ph->instances = 10;
		ph->time_s = 10.0 + k;
		ph->share = 1.0 / 3;
		ph->measured = predictions ? 0.6 : NAN;
		ph->interpolated = predictions ? 0.4 : NAN;
		ph->missing = predictions ? 0 : NAN;
		ph->mem_bound = NAN;
		r->rank[k] = (size_t)(2 - k);
	}
	if (!predictions)
		return;
	r->have_time = r->have_power = 1;
	r->run_energy_j = 1300; /* 4.5% above the prediction at fmax */
	r->model = sl_xstrdup("stall time model, effective-capacitance power model");
	r->machine_name = sl_xstrdup("nhm");
	r->machine_origin = sl_xstrdup("embedded in the profile");
	r->cells[0] = 0.6;
	r->cells[1] = 0.4;
	r->cells[2] = 0;
	r->n_sweep = 3;
	r->sweep_ghz = sl_xmalloc(3 * sizeof(double));
	r->sweep_ghz[0] = 1.6;
	r->sweep_ghz[1] = 2.13;
	r->sweep_ghz[2] = 2.66;
	r->fmin = 0;
	r->fmax = 2;
	for (int k = 0; k < NPH; k++) {
		sl_rep_phase *ph = &r->phases[k];
		ph->time_at = sl_xmalloc(3 * sizeof(double));
		ph->energy_at = sl_xmalloc(3 * sizeof(double));
		for (int j = 0; j < 3; j++) {
			ph->time_at[j] = (10.0 + k) * (k == 1 ? 1.05 : 2.66 / r->sweep_ghz[j]);
			ph->energy_at[j] = ph->time_at[j] * (20 + 10 * r->sweep_ghz[j]);
		}
		ph->mem_bound = ph->time_at[0] / ph->time_at[2];
	}
	r->n_series = 2;
	r->series = sl_xcalloc(2, sizeof *r->series);
	for (int s = 0; s < 2; s++) {
		sl_rep_series *se = &r->series[s];
		se->label = sl_xstrdup(s ? "1.6 GHz (fmin)" : "2.66 GHz (profiled)");
		se->ghz = s ? 1.6 : 2.66;
		se->n = NIV;
		se->t = sl_xmalloc(NIV * sizeof(double));
		se->power_w = sl_xmalloc(NIV * sizeof(double));
		if (!s)
			se->measured_w = sl_xmalloc(NIV * sizeof(double));
		double tt = 0;
		for (int i = 0; i < NIV; i++) {
			se->t[i] = tt;
			se->power_w[i] = 40 + 10 * fx->iv[i].phase - 15 * s;
			if (!s)
				se->measured_w[i] = se->power_w[i] + 1;
			tt += fx->iv[i].time_s * (s ? 1.5 : 1);
		}
		se->time_s = tt;
		se->energy_j = tt * 40;
		se->inst_start = sl_xmalloc(r->n_inst * sizeof(double));
		se->inst_end = sl_xmalloc(r->n_inst * sizeof(double));
		for (size_t k = 0; k < r->n_inst; k++) {
			size_t next = r->inst[k].first + r->inst[k].n;
			se->inst_start[k] = se->t[r->inst[k].first];
			se->inst_end[k] = next < NIV ? se->t[next] : tt;
		}
	}
}

static char *render(const sl_report *r, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(json ? sl_report_json(f, r) : sl_report_html(f, r), 0);
	fclose(f);
	return buf;
}

/* The SVG element of a section: from its id to the section's end. */
static size_t in_section(const char *html, const char *id, const char *needle)
{
	char open[64];
	snprintf(open, sizeof open, "<section id=\"%s\">", id);
	const char *a = strstr(html, open);
	assert_non_null(a);
	const char *b = strstr(a, "</section>");
	assert_non_null(b);
	char *part = strndup(a, (size_t)(b - a));
	size_t n = count_str(part, needle);
	free(part);
	return n;
}

/* Nothing the page refers to can be fetched. */
static void self_contained(const char *html)
{
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "src="));
	assert_null(strstr(html, "href="));
	assert_null(strstr(html, "url("));
	assert_null(strstr(html, "@import"));
	size_t http = count_str(html, "http"), ns = count_str(html,
		"xmlns=\"http://www.w3.org/2000/svg\"");
	assert_int_equal(http, ns);
}

static void test_html(void **state)
{
	(void)state;
	fixture *fx = malloc(sizeof *fx);
	make(fx, 1);
	char *h = render(&fx->r, 0);
	/* SLEUTH_TEST_HTML=FILE keeps the page, to look at it */
	const char *keep = getenv("SLEUTH_TEST_HTML");
	FILE *kf = keep ? fopen(keep, "w") : NULL;
	if (kf) {
		fputs(h, kf);
		fclose(kf);
	}
	assert_int_equal(xml_check(h), 0);
	self_contained(h);
	/* every chart present, with data */
	assert_int_equal(in_section(h, "timeline", "<svg"), 1);
	assert_true(in_section(h, "timeline", "<rect") > 30);
	assert_int_equal(in_section(h, "power", "<svg"), 2);
	assert_int_equal(in_section(h, "power", "<polyline"), 3); /* 2 predicted, 1 measured */
	assert_int_equal(in_section(h, "per-phase", "<svg"), 2);
	assert_int_equal(in_section(h, "per-phase", "class=\"bar\""), 2 * 2 * NPH);
	assert_int_equal(in_section(h, "sweep", "class=\"panel\""), NPH);
	assert_int_equal(in_section(h, "sweep", "<circle"), NPH * 2 * 3);
	/* escaped text */
	assert_non_null(strstr(h, "mix &amp; match"));
	assert_non_null(strstr(h, "a note with &lt;markup&gt; &amp; such"));
	assert_non_null(strstr(h, "copy_&lt;T&gt;"));
	assert_non_null(strstr(h, "src/app.c:42"));
	/* ranking: phase 2 first in the table */
	assert_true(strstr(h, "phase 2 (init)</td>") < strstr(h, "phase 0 (matmul)</td>"));
	/* totals: the fmin run takes 50% longer than the fmax (= profiled)
	 * one, and (at a constant 40 W in the fixture) 50% more energy */
	assert_int_equal(in_section(h, "power", "+50.0%"), 2);
	assert_int_equal(in_section(h, "power", "+0.0%"), 3); /* + measured time */
	assert_int_equal(in_section(h, "power", "measured (the profiled run)"), 1);
	assert_int_equal(in_section(h, "power", "+4.5%"), 1);
	/* memory-boundness of the memory-bound phase 1 is 1.00 */
	assert_non_null(strstr(h, "<td class=\"n\">1.00</td>"));
	free(h);
	sl_report_free(&fx->r);
	free(fx);
}

static void test_html_no_predictions(void **state)
{
	(void)state;
	fixture *fx = malloc(sizeof *fx);
	make(fx, 0);
	sl_report_note(&fx->r, "predictions unavailable: the timer backend has no counts");
	char *h = render(&fx->r, 0);
	assert_int_equal(xml_check(h), 0);
	self_contained(h);
	assert_int_equal(in_section(h, "timeline", "<svg"), 1);
	/* the three prediction sections fold into one line saying why */
	assert_null(strstr(h, "<section id=\"power\">"));
	assert_null(strstr(h, "<section id=\"sweep\">"));
	assert_int_equal(in_section(h, "predictions", "class=\"na\""), 1);
	assert_int_equal(in_section(h, "predictions", "the timer backend has no counts"), 1);
	assert_int_equal(in_section(h, "predictions", "<svg"), 0);
	/* a timer profile's samples are instruction pointers */
	assert_non_null(strstr(h, "IP samples"));
	assert_null(strstr(h, "branch samples"));
	assert_non_null(strstr(h, "matmul"));
	assert_non_null(strstr(h, "src/app.c:42"));
	free(h);
	sl_report_free(&fx->r);
	free(fx);
}

/* Brackets balance outside strings; strings are closed. */
static void json_balanced(const char *s)
{
	char stack[64];
	size_t d = 0;
	int in = 0;
	for (; *s; s++) {
		if (in) {
			if (*s == '\\')
				s++;
			else if (*s == '"')
				in = 0;
			else
				assert_true((unsigned char)*s >= 0x20);
			continue;
		}
		if (*s == '"')
			in = 1;
		else if (*s == '{' || *s == '[')
			stack[d++] = *s;
		else if (*s == '}')
			assert_true(d && stack[--d] == '{');
		else if (*s == ']')
			assert_true(d && stack[--d] == '[');
		assert_true(d < sizeof stack);
	}
	assert_int_equal(in, 0);
	assert_int_equal(d, 0);
}

/* Under a schedule: its section comes first, one row per phase with its
 * frequency and its time against fmax and the best fixed frequency, a
 * strip coloured by frequency; the JSON carries each phase's frequency. */
static void test_schedule(void **state)
{
	(void)state;
	fixture *fx = malloc(sizeof *fx);
	make(fx, 1);
	sl_report *r = &fx->r;
	r->have_schedule = 1;
	r->sched_objective = "min-edp";
	r->sched_max_slowdown = 0.1;
	r->sched_fixed = 1; /* 2.13 GHz */
	r->sched_time_s = r->sched_energy_j = 0;
	for (int k = 0; k < NPH; k++) {
		sl_rep_phase *ph = &r->phases[k];
		ph->sched_k = (size_t)k; /* phase 0 at 1.6, 1 at 2.13, 2 at 2.66 GHz */
		ph->sched_ghz = r->sweep_ghz[k];
		r->sched_time_s += ph->time_at[k];
		r->sched_energy_j += ph->energy_at[k];
	}
	char *h = render(r, 0);
	assert_int_equal(xml_check(h), 0);
	const char *sec = strstr(h, "<section id=\"schedule\">");
	assert_non_null(sec);
	assert_true(sec < strstr(h, "<section id=\"timeline\">"));
	assert_int_equal(in_section(h, "schedule", "<svg"), 1);
	assert_true(in_section(h, "schedule", "Scheduled frequency over") >= 1);
	/* coloured by frequency on a sequential scale, not the phase palette:
	 * 1.6 GHz the darkest, 2.66 GHz the lightest */
	assert_true(in_section(h, "schedule", "fill=\"#440154\"") >= 1);
	assert_true(in_section(h, "schedule", "fill=\"#FDE725\"") >= 1);
	assert_int_equal(in_section(h, "schedule", "<td class=\"n\">1.60 GHz</td>"), 1);
	assert_int_equal(in_section(h, "schedule", "<td class=\"n\">2.13 GHz</td>"), 1);
	/* phase 0 at 1.6 GHz: 10 s x 2.66 / 1.6 = 16.625 s, +66.3% on fmax's
	 * 10 s and +33.1% on 2.13 GHz's 12.488 s */
	assert_int_equal(in_section(h, "schedule", "<td class=\"n\">16.62</td>"), 1);
	assert_int_equal(in_section(h, "schedule", "+66.3%"), 1);
	assert_int_equal(in_section(h, "schedule", "+33.1%"), 1);
	assert_int_equal(in_section(h, "schedule", "the best single frequency under the "
				    "same bound is 2.13 GHz"), 1);
	free(h);
	char *j = render(r, 1);
	json_balanced(j);
	assert_non_null(strstr(j, "\"scheduled_ghz\": 1.6, \"scheduled_time_s\": 16.625,"));
	assert_non_null(strstr(j, "\"scheduled_ghz\": 2.13,"));
	assert_non_null(strstr(j, "\"best_fixed_ghz\": 2.13}"));
	free(j);
	sl_report_free(r);
	free(fx);
}

static void test_json(void **state)
{
	(void)state;
	fixture *fx = malloc(sizeof *fx);
	make(fx, 1);
	char *j = render(&fx->r, 1);
	json_balanced(j);
	assert_non_null(strstr(j, "\"format\": \"sleuth-report/1\""));
	assert_non_null(strstr(j, "\"title\": \"mix & match\""));
	assert_non_null(strstr(j, "\"command\": \"./app <in.txt\""));
	assert_non_null(strstr(j, "\"frequencies_ghz\": [1.6,2.13,2.66]"));
	assert_non_null(strstr(j, "\"function\": \"copy_<T>\""));
	assert_non_null(strstr(j, "\"file\": null"));
	assert_int_equal(count_str(j, "\"label\": "), 2);
	assert_int_equal(count_str(j, "\"measured_power_w\": "), 1);
	assert_non_null(strstr(j, "\"power_predictions\": true"));
	assert_null(strstr(j, "nan"));
	free(j);
	sl_report_free(&fx->r);
	make(fx, 0);
	fx->prof.workload = "caf\xc3\xa9 \xff\"q\"";
	j = render(&fx->r, 1);
	json_balanced(j);
	assert_non_null(strstr(j, "\"workload\": \"caf\xc3\xa9 \\ufffd\\\"q\\\"\""));
	assert_non_null(strstr(j, "\"time_predictions\": false"));
	assert_non_null(strstr(j, "\"data_measured\": null"));
	assert_non_null(strstr(j, "\"power_over_time\": []"));
	free(j);
	sl_report_free(&fx->r);
	free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_html_no_predictions),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_schedule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
