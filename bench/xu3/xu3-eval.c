/*
 * Held-out interval power error of calibrated sleuth models on real
 * measurements (bench/xu3/xu3-bench.sh, docs/benchmarks.md "Real data:
 * ODROID-XU3 Cortex-A15"), against the two baselines of the literature:
 *
 *   - per-frequency OLS: at each frequency its own linear regression of
 *     power on the event rates per second (the model's events and cycles);
 *   - Ceff per P-state: one static term per P-state plus Ceff linear in the
 *     events per cycle, times the P-state's f V^2 (the classic form, with
 *     the nominal frequency).
 *
 *   xu3-eval TRAIN.lst TEST.lst MODEL.yaml...
 *
 * The lists name sleuth-trace/1 files (one per line), read as calibrate
 * reads them (sl_calib_run_load).  Each MODEL (written by sleuth calibrate
 * from the TRAIN traces) predicts every TEST interval through the models'
 * own code, sl_model_predict at the interval's frequency with the linear
 * time model, at the interval's measured temperature (sl_model_set_temp;
 * models without a temperature term ignore it).  Intervals of the data are
 * timed samples: a core that idled for part of one clocked fewer cycles
 * than f * t, so the predicted energy is sl_model_predict's (the busy
 * cycles at f) plus static power over the rest of the interval.  The
 * baselines use the events of the first MODEL and are fitted here, with
 * GSL, on the TRAIN traces.  Bench code: not part of sleuth.
 *
 * Prints, per method, the mean absolute error of interval power over the
 * held-out intervals, per frequency and overall, and the worst held-out
 * benchmark (its mean error at one frequency).  Then the error of each
 * held-out run's mean power predicted from the same benchmark's same run
 * at another frequency (its counts, temperatures and idle time), which a
 * per-frequency OLS cannot do.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include "sleuth/calib.h"
#include "sleuth/common.h"
#include "sleuth/machine.h"
#include "sleuth/model.h"
#include "sleuth/profile.h"

#define MAXF 16

typedef struct runs {
	sl_calib_run *r;
	size_t n;
} runs;

static void die(const char *what)
{
	fprintf(stderr, "xu3-eval: %s\n", what);
	exit(1);
}

static void load_list(const char *list, runs *out)
{
	FILE *f = fopen(list, "r");
	if (!f) {
		fprintf(stderr, "xu3-eval: cannot open %s: %s\n", list, strerror(errno));
		exit(1);
	}
	char line[4096];
	size_t cap = 0;
	memset(out, 0, sizeof *out);
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (!*line)
			continue;
		if (out->n == cap) {
			cap = cap ? 2 * cap : 64;
			out->r = sl_xreallocarray(out->r, cap, sizeof *out->r);
		}
		if (sl_calib_run_load(&out->r[out->n], line) < 0)
			die(sl_error());
		out->n++;
	}
	fclose(f);
	if (!out->n)
		die("an empty list");
}

static int event_of(const sl_calib_run *r, const char *name)
{
	for (size_t k = 0; k < r->n_events; k++)
		if (!strcmp(r->events[k], name))
			return (int)k;
	fprintf(stderr, "xu3-eval: %s has no event %s\n", r->input, name);
	exit(1);
}

/* Errors of one method: per frequency, and per (run's workload, frequency). */
typedef struct score {
	const char *name;
	double f[MAXF];
	double sum[MAXF];
	size_t n[MAXF];
	double worst;
	char worst_at[160];
	size_t clamped;
} score;

static size_t freq_slot(score *s, double ghz)
{
	for (size_t j = 0; j < MAXF; j++) {
		if (s->n[j] && fabs(s->f[j] - ghz) < 1e-6)
			return j;
		if (!s->n[j] && s->f[j] == 0) {
			s->f[j] = ghz;
			return j;
		}
	}
	die("too many frequencies");
	return 0;
}

/* Add one run's predictions pred[] (W) against its measured power. */
static void add_run(score *s, const sl_calib_run *r, const double *pred)
{
	size_t j = freq_slot(s, r->ghz);
	for (size_t i = 0; i < r->n; i++) {
		double p = r->energy_j[i] / r->time_s[i];
		s->sum[j] += fabs(pred[i] - p) / p;
		s->n[j]++;
	}
}

static void finish(score *s, const runs *test, double *const *preds)
{
	/* worst benchmark at one frequency */
	for (size_t a = 0; a < test->n; a++) {
		const sl_calib_run *ra = &test->r[a];
		size_t first = a;
		for (size_t b = 0; b < a; b++)
			if (!strcmp(test->r[b].workload, ra->workload) &&
			    fabs(test->r[b].ghz - ra->ghz) < 1e-6)
				first = b;
		if (first != a)
			continue; /* counted with its first run */
		double sum = 0;
		size_t n = 0;
		for (size_t b = a; b < test->n; b++) {
			const sl_calib_run *rb = &test->r[b];
			if (strcmp(rb->workload, ra->workload) || fabs(rb->ghz - ra->ghz) > 1e-6)
				continue;
			for (size_t i = 0; i < rb->n; i++) {
				double p = rb->energy_j[i] / rb->time_s[i];
				sum += fabs(preds[b][i] - p) / p;
				n++;
			}
		}
		if (n && sum / (double)n > s->worst) {
			s->worst = sum / (double)n;
			snprintf(s->worst_at, sizeof s->worst_at, "%s@%g", ra->workload, ra->ghz);
		}
	}
}

static void print_score(const score *s, int header)
{
	size_t order[MAXF], nf = 0;
	for (size_t j = 0; j < MAXF; j++)
		if (s->n[j])
			order[nf++] = j;
	for (size_t a = 1; a < nf; a++) /* by frequency */
		for (size_t b = a; b > 0 && s->f[order[b]] < s->f[order[b - 1]]; b--) {
			size_t t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	if (header) {
		printf("%-34s %8s", "method", "all");
		for (size_t a = 0; a < nf; a++)
			printf(" %7gGHz", s->f[order[a]]);
		printf("  %-8s %s\n", "worst", "(benchmark@GHz)");
	}
	double sum = 0;
	size_t n = 0;
	for (size_t a = 0; a < nf; a++) {
		sum += s->sum[order[a]];
		n += s->n[order[a]];
	}
	printf("%-34s %7.2f%%", s->name, 100 * sum / (double)n);
	for (size_t a = 0; a < nf; a++)
		printf(" %9.2f%%", 100 * s->sum[order[a]] / (double)s->n[order[a]]);
	printf("  %6.2f%%  %s", 100 * s->worst, s->worst_at);
	if (s->clamped)
		printf("  (%zu clamped)", s->clamped);
	printf("\n");
}

/* An in-memory profile of a trace run: every event measured, one phase. */
static void run_profile(sl_profile *p, const sl_calib_run *r, int ins)
{
	sl_profile_init(p);
	p->backend = sl_xstrdup("replay");
	p->workload = sl_xstrdup(r->workload);
	p->freq_ghz = r->ghz;
	p->has_counts = 1;
	p->n_events = r->n_events;
	p->events = sl_xcalloc(r->n_events, sizeof *p->events);
	for (size_t k = 0; k < r->n_events; k++)
		p->events[k] = sl_xstrdup(r->events[k]);
	p->n_intervals = r->n;
	p->iv = sl_xcalloc(r->n, sizeof *p->iv);
	p->counts = sl_xcalloc(r->n * r->n_events, sizeof *p->counts);
	memcpy(p->counts, r->counts, r->n * r->n_events * sizeof *p->counts);
	for (size_t i = 0; i < r->n; i++)
		p->iv[i] = (sl_prof_interval){.phase = 0, .start_s = r->start_s[i],
					      .time_s = r->time_s[i], .cycles = r->cycles[i],
					      .instructions = r->counts[i * r->n_events + (size_t)ins],
					      .energy_j = r->energy_j[i]};
}

static void eval_model(const char *path, runs *test, score *s, double **preds)
{
	sl_machine m;
	if (sl_machine_load(path, &m) < 0)
		die(sl_error());
	for (size_t t = 0; t < test->n; t++) {
		const sl_calib_run *r = &test->r[t];
		sl_profile p;
		run_profile(&p, r, event_of(r, "INST_RETIRED"));
		sl_model md;
		if (sl_model_init(&md, &p, &m, SL_TIME_LINEAR, 0) < 0)
			die(sl_error());
		for (size_t i = 0; i < r->n; i++) {
			sl_model_set_temp(&md, r->temp_c[i]);
			sl_opoint op;
			if (sl_model_opoint(&md, r->ghz, &op) < 0)
				die(sl_error());
			sl_pred pr;
			sl_model_predict(&md, &op, i, &pr);
			s->clamped += pr.clamped != SL_CLAMP_NONE;
			double idle = SL_MAX(0.0, r->time_s[i] - pr.time_s);
			preds[t][i] = (pr.energy_j + op.static_w * idle) / r->time_s[i];
		}
		sl_model_free(&md);
		sl_profile_free(&p);
	}
	sl_machine_free(&m);
}

/* Least squares y ~ X; dies on failure. */
static void ols(const gsl_matrix *X, const gsl_vector *y, gsl_vector *c)
{
	gsl_matrix *cov = gsl_matrix_alloc(X->size2, X->size2);
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(X->size1, X->size2);
	double chisq;
	if (gsl_multifit_linear(X, y, c, cov, &chisq, w))
		die("a baseline fit failed");
	gsl_multifit_linear_free(w);
	gsl_matrix_free(cov);
}

/* Rows of `rs` at frequency ghz (all when ghz <= 0). */
static size_t count_rows(const runs *rs, double ghz)
{
	size_t n = 0;
	for (size_t t = 0; t < rs->n; t++)
		if (ghz <= 0 || fabs(rs->r[t].ghz - ghz) < 1e-6)
			n += rs->r[t].n;
	return n;
}

/* Per-frequency OLS on rates per second: [1, cycles/t, count_k/t]. */
static void ols_row(const sl_calib_run *r, size_t i, const int *ev, size_t ne, double *x)
{
	double t = r->time_s[i];
	x[0] = 1;
	x[1] = (double)r->cycles[i] / t / 1e9;
	for (size_t k = 0; k < ne; k++)
		x[2 + k] = (double)r->counts[i * r->n_events + (size_t)ev[k]] / t / 1e9;
}

static void baseline_ols(const runs *train, runs *test, const char *const *names,
			 size_t ne, double **preds)
{
	size_t p = 2 + ne;
	double *x = sl_xcalloc(p, sizeof *x);
	int *ev = sl_xcalloc(ne, sizeof *ev);
	for (size_t t = 0; t < test->n; t++) {
		double f = test->r[t].ghz;
		size_t nr = count_rows(train, f);
		if (nr <= p)
			die("too few training rows at a frequency for the OLS baseline");
		gsl_matrix *X = gsl_matrix_alloc(nr, p);
		gsl_vector *y = gsl_vector_alloc(nr), *c = gsl_vector_alloc(p);
		size_t row = 0;
		for (size_t a = 0; a < train->n; a++) {
			const sl_calib_run *r = &train->r[a];
			if (fabs(r->ghz - f) > 1e-6)
				continue;
			for (size_t k = 0; k < ne; k++)
				ev[k] = event_of(r, names[k]);
			for (size_t i = 0; i < r->n; i++, row++) {
				ols_row(r, i, ev, ne, x);
				for (size_t j = 0; j < p; j++)
					gsl_matrix_set(X, row, j, x[j]);
				gsl_vector_set(y, row, r->energy_j[i] / r->time_s[i]);
			}
		}
		ols(X, y, c);
		const sl_calib_run *r = &test->r[t];
		for (size_t k = 0; k < ne; k++)
			ev[k] = event_of(r, names[k]);
		for (size_t i = 0; i < r->n; i++) {
			ols_row(r, i, ev, ne, x);
			double s = 0;
			for (size_t j = 0; j < p; j++)
				s += x[j] * gsl_vector_get(c, j);
			preds[t][i] = s;
		}
		gsl_matrix_free(X);
		gsl_vector_free(y);
		gsl_vector_free(c);
	}
	free(x);
	free(ev);
}

/* Ceff per P-state: [indicator of each P-state, f V^2 count_k/cycles].
 * Returns the fitted coefficients (static per P-state, then per event). */
static gsl_vector *baseline_ceff(const runs *train, runs *test, const sl_machine *m,
			  const char *const *names, size_t ne, double **preds)
{
	size_t np = m->n_pstates, p = np + ne, nr = count_rows(train, 0);
	gsl_matrix *X = gsl_matrix_calloc(nr, p);
	gsl_vector *y = gsl_vector_alloc(nr), *c = gsl_vector_alloc(p);
	int *ev = sl_xcalloc(ne, sizeof *ev);
	size_t row = 0;
	for (int pass = 0; pass < 2; pass++) {
		runs *rs = pass ? test : (runs *)train;
		for (size_t a = 0; a < rs->n; a++) {
			const sl_calib_run *r = &rs->r[a];
			int ps = sl_machine_pstate(m, r->ghz);
			if (ps < 0)
				die("a run at a frequency that is no P-state of the model");
			double fv2 = r->ghz * m->pstates[ps].volts * m->pstates[ps].volts;
			for (size_t k = 0; k < ne; k++)
				ev[k] = event_of(r, names[k]);
			for (size_t i = 0; i < r->n; i++) {
				double cyc = (double)r->cycles[i];
				if (!pass) {
					gsl_matrix_set(X, row, (size_t)ps, 1);
					for (size_t k = 0; k < ne; k++)
						gsl_matrix_set(X, row, np + k,
							       fv2 * (double)r->counts[i * r->n_events + (size_t)ev[k]] / cyc);
					gsl_vector_set(y, row++, r->energy_j[i] / r->time_s[i]);
					continue;
				}
				double s = gsl_vector_get(c, (size_t)ps);
				for (size_t k = 0; k < ne; k++)
					s += gsl_vector_get(c, np + k) * fv2 *
					     (double)r->counts[i * r->n_events + (size_t)ev[k]] / cyc;
				preds[a][i] = s;
			}
		}
		if (!pass) /* a P-state never trained has a zero column: GSL's SVD
			    * gives it 0 (no held-out run may use it) */
			ols(X, y, c);
	}
	gsl_matrix_free(X);
	gsl_vector_free(y);
	free(ev);
	return c;
}

/* ---- another frequency -------------------------------------------------- */

/* The run number of a converted trace (BENCH@MHZ-rRUN.yaml), or -1. */
static int run_number(const sl_calib_run *r)
{
	const char *p = strstr(r->input, "@"), *q = NULL;
	while (p && (p = strstr(p, "-r")))
		q = p++;
	return q ? atoi(q + 2) : -1;
}

/* The measured idle time of interval i: its time beyond its cycles at the
 * run's frequency (a timed sample of a program that waited).  Kept as it
 * is at another frequency, spent at that P-state's static power. */
static double idle_s(const sl_calib_run *r, size_t i)
{
	return SL_MAX(0.0, r->time_s[i] - (double)r->cycles[i] / (r->ghz * 1e9));
}

/* Mean power of run `src` predicted at `ghz` by a calibrated model: every
 * interval through sl_model_predict (linear time model) at its own
 * temperature, plus static power over its idle time. */
static double sleuth_at(const sl_machine *m, const sl_calib_run *src, double ghz)
{
	sl_profile p;
	run_profile(&p, src, event_of(src, "INST_RETIRED"));
	sl_model md;
	if (sl_model_init(&md, &p, m, SL_TIME_LINEAR, 0) < 0)
		die(sl_error());
	double e = 0, t = 0;
	for (size_t i = 0; i < src->n; i++) {
		sl_model_set_temp(&md, src->temp_c[i]);
		sl_opoint op;
		if (sl_model_opoint(&md, ghz, &op) < 0)
			die(sl_error());
		sl_pred pr;
		sl_model_predict(&md, &op, i, &pr);
		e += pr.energy_j + op.static_w * idle_s(src, i);
		t += pr.time_s + idle_s(src, i);
	}
	sl_model_free(&md);
	sl_profile_free(&p);
	return e / t;
}

/* The same by the Ceff-per-P-state baseline's coefficients c. */
static double ceff_at(const gsl_vector *c, const sl_machine *m, const char *const *names,
		      size_t ne, const sl_calib_run *src, double ghz)
{
	int ps = sl_machine_pstate(m, ghz);
	double v = m->pstates[ps].volts, st = gsl_vector_get(c, (size_t)ps);
	double e = 0, t = 0;
	for (size_t i = 0; i < src->n; i++) {
		double cyc = (double)src->cycles[i], ceff = 0;
		for (size_t k = 0; k < ne; k++)
			ceff += gsl_vector_get(c, m->n_pstates + k) *
				(double)src->counts[i * src->n_events + (size_t)event_of(src, names[k])] /
				cyc;
		double busy = cyc / (ghz * 1e9);
		e += (st + ceff * ghz * v * v) * busy + st * idle_s(src, i);
		t += busy + idle_s(src, i);
	}
	return e / t;
}

/* Every held-out run predicted from the same benchmark's same run at each
 * other frequency: the error of its mean power, over all such pairs, for
 * frequency going down and up, and the worst. */
static void cross(const char *name, const runs *test, const sl_machine *m,
		  const gsl_vector *c, const char *const *names, size_t ne)
{
	double sum[2] = {0, 0}, worst = 0;
	size_t n[2] = {0, 0};
	char at[200] = "";
	for (size_t a = 0; a < test->n; a++)
		for (size_t b = 0; b < test->n; b++) {
			const sl_calib_run *src = &test->r[a], *dst = &test->r[b];
			if (a == b || strcmp(src->workload, dst->workload) ||
			    run_number(src) != run_number(dst) || fabs(src->ghz - dst->ghz) < 1e-6)
				continue;
			double pe = 0, pt = 0;
			for (size_t i = 0; i < dst->n; i++) {
				pe += dst->energy_j[i];
				pt += dst->time_s[i];
			}
			double pred = c ? ceff_at(c, m, names, ne, src, dst->ghz)
					: sleuth_at(m, src, dst->ghz);
			double err = fabs(pred / (pe / pt) - 1);
			int up = dst->ghz > src->ghz;
			sum[up] += err;
			n[up]++;
			if (err > worst) {
				worst = err;
				snprintf(at, sizeof at, "%s r%d %g->%g", src->workload,
					 run_number(src), src->ghz, dst->ghz);
			}
		}
	printf("%-34s %7.2f%% %9.2f%% %9.2f%%  %6.2f%%  %s\n", name,
	       100 * (sum[0] + sum[1]) / (double)(n[0] + n[1]), 100 * sum[0] / (double)n[0],
	       100 * sum[1] / (double)n[1], 100 * worst, at);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: xu3-eval TRAIN.lst TEST.lst MODEL.yaml...\n");
		return 2;
	}
	gsl_set_error_handler_off();
	runs train, test;
	load_list(argv[1], &train);
	load_list(argv[2], &test);
	double **preds = sl_xcalloc(test.n, sizeof *preds);
	for (size_t t = 0; t < test.n; t++)
		preds[t] = sl_xcalloc(test.r[t].n ? test.r[t].n : 1, sizeof **preds);
	size_t held = 0, ivs = 0;
	for (size_t t = 0; t < test.n; t++) {
		size_t first = 1;
		for (size_t b = 0; b < t; b++)
			first &= strcmp(test.r[b].workload, test.r[t].workload) != 0;
		held += first;
		ivs += test.r[t].n;
	}
	printf("held out: %zu intervals of %zu benchmarks (%zu runs); training: %zu "
	       "intervals of %zu runs\n\n", ivs, held, test.n, count_rows(&train, 0), train.n);
	int header = 1;
	sl_machine m0;
	if (sl_machine_load(argv[3], &m0) < 0)
		die(sl_error());
	for (int a = 3; a < argc; a++) {
		score s = {.name = argv[a]};
		const char *b = strrchr(argv[a], '/');
		s.name = b ? b + 1 : argv[a];
		eval_model(argv[a], &test, &s, preds);
		for (size_t t = 0; t < test.n; t++)
			add_run(&s, &test.r[t], preds[t]);
		finish(&s, &test, preds);
		print_score(&s, header);
		header = 0;
	}
	const char **names = sl_xcalloc(m0.n_terms ? m0.n_terms : 1, sizeof *names);
	for (size_t k = 0; k < m0.n_terms; k++)
		names[k] = m0.terms[k].event;
	score so = {.name = "baseline: per-frequency OLS"};
	baseline_ols(&train, &test, names, m0.n_terms, preds);
	for (size_t t = 0; t < test.n; t++)
		add_run(&so, &test.r[t], preds[t]);
	finish(&so, &test, preds);
	print_score(&so, 0);
	score sc = {.name = "baseline: Ceff per P-state"};
	gsl_vector *cc = baseline_ceff(&train, &test, &m0, names, m0.n_terms, preds);
	for (size_t t = 0; t < test.n; t++)
		add_run(&sc, &test.r[t], preds[t]);
	finish(&sc, &test, preds);
	print_score(&sc, 0);
	printf("\nbaselines on the events of %s:", argv[3]);
	for (size_t k = 0; k < m0.n_terms; k++)
		printf(" %s", names[k]);
	printf(" (OLS: per second, with cycles per second)\n");
	/* to another frequency: what a per-frequency model cannot do */
	printf("\nmean power of each held-out run predicted from the same run at another "
	       "frequency\n%-34s %8s %10s %10s  %-8s %s\n", "method", "all", "to lower f",
	       "to higher f", "worst", "(benchmark run from->to GHz)");
	for (int a = 3; a < argc; a++) {
		sl_machine m;
		if (sl_machine_load(argv[a], &m) < 0)
			die(sl_error());
		const char *b = strrchr(argv[a], '/');
		cross(b ? b + 1 : argv[a], &test, &m, NULL, NULL, 0);
		sl_machine_free(&m);
	}
	cross("baseline: Ceff per P-state", &test, &m0, cc, names, m0.n_terms);
	gsl_vector_free(cc);
	free(names);
	sl_machine_free(&m0);
	for (size_t t = 0; t < test.n; t++)
		free(preds[t]);
	free(preds);
	for (size_t t = 0; t < train.n; t++)
		sl_calib_run_free(&train.r[t]);
	for (size_t t = 0; t < test.n; t++)
		sl_calib_run_free(&test.r[t]);
	free(train.r);
	free(test.r);
	return 0;
}
