/* Unit tests of calibration: power-log parsing and integration against hand
 * computations, alignment of runs to logs, the training table (with
 * multiplexed gaps), recovery of known coefficients from noise-free
 * synthetic data with and without an idle log, robust fitting, conditioning
 * and negative-Ceff diagnostics, and greedy event selection. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sleuth/calib.h"
#include "sleuth/common.h"
#include "sleuth/machine.h"
#include "sleuth/powerlog.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static int load_log(sl_powerlog *log, const char *text, const char *col, double off)
{
	return sl_powerlog_read_mem(log, "t.csv", text, strlen(text), col, off);
}

static void expect_log_error(const char *text, const char *col, const char *msg)
{
	sl_powerlog log;
	assert_int_equal(load_log(&log, text, col, 0), -1);
	if (!strstr(sl_error(), msg))
		fail_msg("error '%s' lacks '%s'", sl_error(), msg);
}

/* t: 0 1 2 4, P: 10 20 10 30 (a third column of anything). */
static const char *LOG4 = "# a meter\n"
			  "time_s, power_w ,rail2\n"
			  "\n"
			  "0.0,10,x\n"
			  "1.0,20,\n"
			  "# mid-file comment\n"
			  "2.0,10,7\n"
			  "4.0,30,7\r\n";

static void test_integral(void **state)
{
	(void)state;
	sl_powerlog log;
	double e;
	assert_int_equal(load_log(&log, LOG4, NULL, 0), 0);
	assert_int_equal(log.n, 4);
	NEAR(log.spacing, 1.0, 0);
	/* [0.5, 3]: 0.5*(15+20)/2 + (20+10)/2 + (10+20)/2 = 8.75 + 15 + 15 */
	assert_int_equal(sl_powerlog_energy(&log, 0.5, 3.0, &e), 1);
	NEAR(e, 38.75, 1e-12);
	/* inside one segment: [1.25, 1.75] at 17.5 .. 12.5 */
	assert_int_equal(sl_powerlog_energy(&log, 1.25, 1.75, &e), 1);
	NEAR(e, 7.5, 1e-12);
	/* the whole log, and a point */
	assert_int_equal(sl_powerlog_energy(&log, 0, 4, &e), 1);
	NEAR(e, 15 + 15 + 40, 1e-12);
	assert_int_equal(sl_powerlog_energy(&log, 2, 2, &e), 1);
	NEAR(e, 0, 1e-12);
	/* not covered */
	assert_int_equal(sl_powerlog_energy(&log, -0.1, 1, &e), 0);
	assert_int_equal(sl_powerlog_energy(&log, 3.5, 4.5, &e), 0);
	sl_powerlog_free(&log);

	/* a spreadsheet's UTF-8 byte-order mark before the header */
	assert_int_equal(load_log(&log, "\xef\xbb\xbftime_s,power_w\n0,5\n2,7\n", NULL, 0), 0);
	assert_int_equal(sl_powerlog_energy(&log, 0, 2, &e), 1);
	NEAR(e, 12, 1e-12);
	sl_powerlog_free(&log);

	/* --log-offset 1: the run started at log time 1 */
	assert_int_equal(load_log(&log, LOG4, NULL, 1.0), 0);
	assert_int_equal(sl_powerlog_energy(&log, -0.5, 2.0, &e), 1);
	NEAR(e, 38.75, 1e-12);
	sl_powerlog_free(&log);

	/* another column by name */
	assert_int_equal(load_log(&log, "time_s,pkg,core\n0,1,100\n2,3,100\n", "core", 0), 0);
	assert_int_equal(sl_powerlog_energy(&log, 0, 2, &e), 1);
	NEAR(e, 200, 1e-12);
	sl_powerlog_free(&log);
}

/* The optional temp_c column (docs/formats.md): kept per row when present,
 * NULL when not, checked like any number; an idle log accepts it too. */
static void test_log_temp(void **state)
{
	(void)state;
	sl_powerlog log;
	double e;
	assert_int_equal(load_log(&log, LOG4, NULL, 0), 0);
	assert_null(log.temp_c);
	sl_powerlog_free(&log);
	assert_int_equal(load_log(&log, "time_s,temp_c,power_w\n0,50,10\n1,51.5,20\n"
				  "2, -3 ,10\n", NULL, 0), 0);
	assert_non_null(log.temp_c);
	NEAR(log.temp_c[0], 50, 0);
	NEAR(log.temp_c[1], 51.5, 0);
	NEAR(log.temp_c[2], -3, 0);
	assert_int_equal(sl_powerlog_energy(&log, 0, 2, &e), 1);
	NEAR(e, 30, 1e-12);
	/* the mean temperature over a span: the integral of the series */
	double tc;
	assert_int_equal(sl_powerlog_temp(&log, 0, 1, &tc), 1);
	NEAR(tc, 50.75, 1e-12);
	assert_int_equal(sl_powerlog_temp(&log, 0.5, 2, &tc), 1);
	/* 0.5..1: mean of 50.75 and 51.5; 1..2: mean of 51.5 and -3 */
	NEAR(tc, (0.5 * 51.125 + 1 * 24.25) / 1.5, 1e-12);
	assert_int_equal(sl_powerlog_temp(&log, 1.5, 1.5, &tc), 1);
	NEAR(tc, 24.25, 1e-12);
	assert_int_equal(sl_powerlog_temp(&log, 1.5, 2.5, &tc), 0);
	/* a run's intervals take the log's temperature */
	const char *ev[1] = {"EV"};
	uint64_t n1[1] = {1};
	sl_calib_run r;
	sl_calib_run_init(&r, "r", "r", 2.66, 1, ev);
	sl_calib_run_add(&r, 0, 1, NAN, 1000, n1, 0);
	sl_calib_run_add(&r, 1, 1, NAN, 1000, n1, 0);
	sl_calib_run_set_temp(&r, 70); /* measured by the run itself: kept */
	sl_calib_align al;
	assert_int_equal(sl_calib_attach_log(&r, &log, &al), 0);
	NEAR(r.temp_c[0], 50.75, 1e-12);
	NEAR(r.temp_c[1], 70, 0);
	sl_calib_run_free(&r);
	sl_powerlog_free(&log);
	assert_int_equal(load_log(&log, LOG4, NULL, 0), 0);
	assert_int_equal(sl_powerlog_temp(&log, 0, 1, &tc), 0); /* no column */
	sl_powerlog_free(&log);
	expect_log_error("time_s,power_w,temp_c\n0,1,40\n1,2,-300\n", NULL,
			 "t.csv:3: column 'temp_c': -300 is below absolute zero");
	expect_log_error("time_s,power_w,temp_c\n0,1,hot\n1,2,40\n", NULL,
			 "t.csv:2: column 'temp_c': 'hot' is not a finite number");
	sl_idlelog il;
	const char *idle = "ghz,power_w,temp_c\n2.0,20,45\n1.0,10,40\n";
	assert_int_equal(sl_idlelog_read_mem(&il, "i.csv", idle, strlen(idle), NULL), 0);
	assert_int_equal(il.n, 2);
	sl_idlelog_free(&il);
}

static void test_log_errors(void **state)
{
	(void)state;
	expect_log_error("time_s,power_w\n0,1\n1,2\n1,3\n", NULL,
			 "t.csv:4: time_s 1 does not come after the previous row's 1");
	expect_log_error("# c\ntime_s,power_w\n0,1\n1,abc\n", NULL,
			 "t.csv:4: column 'power_w': 'abc' is not a finite number");
	expect_log_error("time_s,power_w\n0,1\n1,nan\n", NULL, "t.csv:3: column 'power_w'");
	expect_log_error("time_s,watts\n0,1\n", NULL,
			 "t.csv:1: the header row has no column 'power_w'");
	expect_log_error("time_s,power_w\n0,1\n", "pkg_w",
			 "t.csv:1: the header row has no column 'pkg_w'");
	expect_log_error("power_w\n0\n", NULL, "no column 'time_s'");
	expect_log_error("time_s,power_w,x\n0,1,2\n1,2\n", NULL,
			 "t.csv:3: 2 fields, but the header row has 3");
	expect_log_error("# only\n# comments\n", NULL, "t.csv: no header row");
	expect_log_error("time_s,power_w\n", NULL, "t.csv: no data rows");
	expect_log_error("time_s,power_w\n0,5\n", NULL, "only one data row");
	sl_powerlog log;
	assert_int_equal(sl_powerlog_read(&log, "/nonexistent/p.csv", NULL, 0), -1);
	assert_non_null(strstr(sl_error(), "cannot open /nonexistent/p.csv"));
}

static void test_idlelog(void **state)
{
	(void)state;
	sl_idlelog il;
	const char *t = "# idle\nghz,power_w\n1.6,10\n2.66,20\n2.66,22\n1.60,12\n";
	assert_int_equal(sl_idlelog_read_mem(&il, "i.csv", t, strlen(t), NULL), 0);
	assert_int_equal(il.n, 2);
	NEAR(il.ghz[0], 2.66, 0);
	NEAR(il.power_w[0], 21, 1e-12);
	assert_int_equal(il.line[0], 4);
	NEAR(il.ghz[1], 1.6, 0);
	NEAR(il.power_w[1], 11, 1e-12);
	sl_idlelog_free(&il);
	t = "ghz,power_w\n0,10\n";
	assert_int_equal(sl_idlelog_read_mem(&il, "i.csv", t, strlen(t), NULL), -1);
	assert_non_null(strstr(sl_error(), "i.csv:2: column 'ghz'"));
	t = "time_s,power_w\n1,10\n";
	assert_int_equal(sl_idlelog_read_mem(&il, "i.csv", t, strlen(t), NULL), -1);
	assert_non_null(strstr(sl_error(), "no column 'ghz'"));
}

/* ---- synthetic machine and training data ------------------------------ */

static const char *MACHINE =
	"format: sleuth-machine/1\n"
	"name: synth\n"
	"counters: {programmable: 4}\n"
	"memory_latency_ns: 65\n"
	"pstates:\n"
	"  - {ghz: 2.66, volts: 1.20}\n"
	"  - {ghz: 2.4, volts: 1.15}\n"
	"  - {ghz: 2.0, volts: 1.05}\n"
	"  - {ghz: 1.6, volts: 0.95}\n"
	"events:\n"
	"  branch_sample: BR_INST_RETIRED:CONDITIONAL\n"
	"  stall_cycles: UOPS_EXECUTED:PORT015_STALL_CYCLES\n"
	"  llc_misses: LLC_MISSES\n"
	"  resource_stalls: RESOURCE_STALLS:ANY\n";

static void load_machine(sl_machine *m)
{
	if (sl_machine_load_mem("synth.yaml", MACHINE, strlen(MACHINE), m) < 0)
		fail_msg("%s", sl_error());
}

/* Truth: static per machine P-state, Ceff = C0 + A*a + B*b (c, d distract). */
static const double TRUE_STATIC[4] = {21.3, 19.0, 16.2, 14.1};
#define C0 2.0
#define CA 0.75
#define CB -4.5
static const char *EVENTS[4] = {"EV_A", "EV_B", "EV_C", "EV_D"};

/*
 * Five workloads, each with its own typical rates, run at `n_ps` P-states
 * (indices `ps`), 30 intervals each; power exact unless `noise` > 0
 * (relative, Gaussian).  Every count measured.
 */
static size_t make_runs(sl_calib_run *runs, const sl_machine *m, const int *ps,
			size_t n_ps, double noise, unsigned long seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	size_t nr = 0;
	for (int w = 0; w < 5; w++) {
		char name[16];
		snprintf(name, sizeof name, "wl%d", w);
		double base[4] = {0.3 + 0.3 * w, 0.01 + 0.02 * ((w * 3) % 5), 0.5, 0.1};
		for (size_t s = 0; s < n_ps; s++) {
			sl_calib_run *r = &runs[nr++];
			const sl_pstate *p = &m->pstates[ps[s]];
			sl_calib_run_init(r, name, name, p->ghz, 4, EVENTS);
			double t0 = 0;
			for (int i = 0; i < 30; i++) {
				uint64_t cyc = 100000000, n[4];
				double rate[4];
				for (int k = 0; k < 4; k++) {
					rate[k] = base[k] * (0.6 + 0.8 * gsl_rng_uniform(rng));
					n[k] = (uint64_t)llround(rate[k] * (double)cyc);
					rate[k] = (double)n[k] / (double)cyc;
				}
				double ceff = C0 + CA * rate[0] + CB * rate[1];
				double pw = TRUE_STATIC[ps[s]] + ceff * p->ghz * p->volts * p->volts;
				if (noise > 0)
					pw *= 1 + gsl_ran_gaussian(rng, noise);
				double t = (double)cyc / (p->ghz * 1e9);
				sl_calib_run_add(r, t0, t, pw * t, cyc, n, 0);
				t0 += t;
			}
		}
	}
	gsl_rng_free(rng);
	return nr;
}

static void free_runs(sl_calib_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sl_calib_run_free(&runs[i]);
}

/* A synthetic training set: machine, runs, table, and the true terms. */
typedef struct synth {
	sl_machine m;
	sl_calib_run runs[20];
	size_t nr;
	sl_calib_data d;
	size_t terms[2]; /* EV_A, EV_B */
} synth;

/* `outlier` > 0 multiplies interval 7 of every run's energy by it. */
static void synth_setup(synth *s, const int *ps, size_t n_ps, double noise,
			unsigned long seed, double outlier)
{
	load_machine(&s->m);
	s->nr = make_runs(s->runs, &s->m, ps, n_ps, noise, seed);
	for (size_t i = 0; outlier > 0 && i < s->nr; i++)
		s->runs[i].energy_j[7] *= outlier;
	assert_int_equal(sl_calib_data_build(&s->d, &s->m, s->runs, s->nr), 0);
	assert_true(sl_calib_data_event(&s->d, "EV_A") >= 0);
	s->terms[0] = (size_t)sl_calib_data_event(&s->d, "EV_A");
	s->terms[1] = (size_t)sl_calib_data_event(&s->d, "EV_B");
}

/* The machine and exact runs at fmax and fmin, before the table is built
 * (for tests that change the runs first). */
static void synth_runs(synth *s, unsigned long seed)
{
	int ps[2] = {0, 3};
	load_machine(&s->m);
	s->nr = make_runs(s->runs, &s->m, ps, 2, 0, seed);
}

static void synth_free(synth *s)
{
	sl_calib_data_free(&s->d);
	free_runs(s->runs, s->nr);
	sl_machine_free(&s->m);
}

static void test_recover_idle(void **state)
{
	(void)state;
	synth s;
	int ps[2] = {0, 3};
	synth_setup(&s, ps, 2, 0, 1, 0);
	sl_calib_data *d = &s.d;
	assert_int_equal(d->n, 5 * 2 * 30);
	assert_int_equal(d->n_workloads, 5);
	sl_calib_opts o = {.static_w = TRUE_STATIC};
	sl_calib_fit fit;
	assert_int_equal(sl_calib_fit_run(&fit, d, &s.m, s.terms, 2, &o), 0);
	NEAR(fit.constant, C0, 1e-6);
	NEAR(fit.coeff[0], CA, 1e-6);
	NEAR(fit.coeff[1], CB, 1e-6);
	assert_true(fit.constant_se < 1e-6 && fit.coeff_se[1] < 1e-6);
	NEAR(fit.r2, 1, 1e-9);
	assert_true(fit.mape < 1e-9);
	assert_true(fit.cond < SL_CALIB_COND_WARN);
	assert_int_equal(fit.n_neg_ceff, 0);
	for (int p = 0; p < 4; p++)
		NEAR(fit.static_w[p], TRUE_STATIC[p], 0);
	assert_int_equal(sl_calib_cv(&fit, d, &s.m, &o), 0);
	assert_true(fit.has_cv && fit.cv_mape < 1e-9);
	for (int w = 0; w < 5; w++)
		assert_true(fit.wl_cv_mape[w] < 1e-9);

	/* The written model carries exactly this. */
	sl_machine out;
	s.m.floor_stalled = 1; /* the fit decides, not the skeleton */
	sl_calib_model(&out, &s.m, d, &fit);
	s.m.floor_stalled = 0;
	assert_int_equal(out.floor_stalled, 0);
	assert_int_equal(sl_machine_complete(&out), 1);
	assert_string_equal(out.terms[1].event, "EV_B");
	NEAR(out.pstates[1].static_w, 19.0, 0);
	sl_calib_model_free(&out);
	sl_calib_fit_free(&fit);

	/* robust regression recovers the same from clean data */
	o.robust = 1;
	assert_int_equal(sl_calib_fit_run(&fit, d, &s.m, s.terms, 2, &o), 0);
	NEAR(fit.coeff[0], CA, 1e-6);
	NEAR(fit.coeff[1], CB, 1e-6);
	sl_calib_fit_free(&fit);
	synth_free(&s);
}

/*
 * Timed samples of a program that waits part of the time: an interval
 * clocked for only u of its time spends dynamic energy on those cycles
 * alone, P = static + Ceff * f * V^2 * u.  The fit, which takes f as the
 * cycles per second clocked, recovers Ceff exactly; with the P-state's f
 * it could not.
 */
static void test_partly_idle(void **state)
{
	(void)state;
	synth s;
	synth_runs(&s, 4);
	for (size_t r = 0; r < s.nr; r++) {
		sl_calib_run *run = &s.runs[r];
		double st = TRUE_STATIC[r % 2 ? 3 : 0];
		assert_true(fabs(run->ghz - s.m.pstates[r % 2 ? 3 : 0].ghz) < 1e-9);
		for (size_t i = 0; i < run->n; i++) {
			double u = 0.5 + 0.5 * (double)(i % 5) / 4; /* 0.5 .. 1 */
			double pw = run->energy_j[i] / run->time_s[i];
			run->time_s[i] /= u;
			run->energy_j[i] = (st + (pw - st) * u) * run->time_s[i];
		}
	}
	assert_int_equal(sl_calib_data_build(&s.d, &s.m, s.runs, s.nr), 0);
	NEAR(s.d.f[0], 0.5 * s.m.pstates[0].ghz, 1e-9); /* interval 0: u = 1/2 */
	s.terms[0] = (size_t)sl_calib_data_event(&s.d, "EV_A");
	s.terms[1] = (size_t)sl_calib_data_event(&s.d, "EV_B");
	sl_calib_opts o = {.static_w = TRUE_STATIC};
	sl_calib_fit fit;
	assert_int_equal(sl_calib_fit_run(&fit, &s.d, &s.m, s.terms, 2, &o), 0);
	NEAR(fit.constant, C0, 1e-6);
	NEAR(fit.coeff[0], CA, 1e-6);
	NEAR(fit.coeff[1], CB, 1e-6);
	assert_true(fit.mape < 1e-9);
	sl_calib_fit_free(&fit);
	synth_free(&s);
}

static void test_recover_no_idle(void **state)
{
	(void)state;
	synth s;
	int ps[3] = {0, 2, 3}; /* 2.4 GHz never trained */
	synth_setup(&s, ps, 3, 0, 2, 0);
	sl_calib_opts o = {.static_w = NULL};
	sl_calib_fit fit;
	assert_int_equal(sl_calib_fit_run(&fit, &s.d, &s.m, s.terms, 2, &o), 0);
	NEAR(fit.coeff[0], CA, 1e-6);
	NEAR(fit.coeff[1], CB, 1e-6);
	assert_true(fit.constant == 0 && fit.constant_se == 0);
	/* each trained P-state's term: static plus the constant's power */
	assert_int_equal(fit.n_fitted_ps, 3);
	double act[4];
	for (int p = 0; p < 4; p++) {
		const sl_pstate *q = &s.m.pstates[p];
		act[p] = TRUE_STATIC[p] + C0 * q->ghz * q->volts * q->volts;
	}
	for (size_t j = 0; j < fit.n_fitted_ps; j++)
		NEAR(fit.fitted_w[j], act[fit.fitted_ps[j]], 1e-6);
	for (int p = 0; p < 4; p++)
		if (p != 1)
			NEAR(fit.static_w[p], act[p], 1e-6);
	/* 2.4 GHz / 1.15 V: linear in voltage between 2.66/1.20 and 2.0/1.05 */
	double lin = act[2] + (act[0] - act[2]) * (1.15 - 1.05) / (1.20 - 1.05);
	NEAR(fit.static_w[1], lin, 1e-6);
	assert_true(fit.mape < 1e-9);
	assert_int_equal(sl_calib_cv(&fit, &s.d, &s.m, &o), 0);
	assert_true(fit.cv_mape < 1e-9);
	sl_calib_fit_free(&fit);
	synth_free(&s);

	/* one P-state and no idle log: the other P-states cannot be inferred */
	synth_setup(&s, ps, 1, 0, 3, 0);
	assert_int_equal(sl_calib_fit_run(&fit, &s.d, &s.m, s.terms, 2, &o), -1);
	assert_non_null(strstr(sl_error(), "--idle-log"));
	sl_calib_fit_free(&fit);
	synth_free(&s);
}

/*
 * Power that does not scale with f V^2: every EV_C event also costs EC nJ
 * at a fixed voltage.  With EV_C as a term of kind energy (index +
 * n_events) the fit recovers the capacitances and EC exactly; as a
 * capacitance it cannot (the two P-states' V^2 differ); and selection
 * with select_energy picks EV_C's energy kind.
 */
#define EC 20.0
static void test_recover_energy(void **state)
{
	(void)state;
	synth s;
	synth_runs(&s, 5);
	/* EV_C is the third event counted */
	for (sl_calib_run *run = s.runs; run < s.runs + s.nr; run++)
		for (size_t i = 0; i < run->n; i++)
			run->energy_j[i] += EC * 1e-9 * (double)run->counts[i * run->n_events + 2];
	assert_int_equal(sl_calib_data_build(&s.d, &s.m, s.runs, s.nr), 0);
	sl_calib_data *d = &s.d;
	size_t ev_c = (size_t)sl_calib_data_event(d, "EV_C");
	size_t terms[3] = {(size_t)sl_calib_data_event(d, "EV_A"),
			   (size_t)sl_calib_data_event(d, "EV_B"), ev_c + d->n_events};
	assert_int_equal(sl_calib_term_event(d, terms[2]), ev_c);
	assert_true(sl_calib_term_energy(d, terms[2]) && !sl_calib_term_energy(d, terms[0]));
	sl_calib_opts o = {.static_w = TRUE_STATIC};
	sl_calib_fit fit;
	assert_int_equal(sl_calib_fit_run(&fit, d, &s.m, terms, 3, &o), 0);
	NEAR(fit.constant, C0, 1e-6);
	NEAR(fit.coeff[0], CA, 1e-6);
	NEAR(fit.coeff[1], CB, 1e-6);
	NEAR(fit.coeff[2], EC, 1e-5);
	assert_true(fit.mape < 1e-9);
	/* the energy term is no part of Ceff; its power is nJ * rate * f */
	double rc = d->rate[0 * d->n_events + ev_c];
	NEAR(sl_calib_fixed_w(&fit, d, 0), EC * rc * d->f[0], 1e-9);
	NEAR(sl_calib_ceff(&fit, d, 0),
	     C0 + CA * d->rate[terms[0]] + CB * d->rate[terms[1]], 1e-6);
	char *name = sl_calib_term_name(d, terms[2]);
	assert_string_equal(name, "EV_C (energy, nJ)");
	free(name);
	/* the machine written says so */
	sl_machine out;
	sl_calib_model(&out, &s.m, d, &fit);
	assert_string_equal(out.terms[2].event, "EV_C");
	assert_true(out.terms[2].energy && !out.terms[0].energy);
	sl_calib_model_free(&out);
	sl_calib_fit_free(&fit);

	/* as capacitance the same event leaves an error */
	terms[2] = ev_c;
	assert_int_equal(sl_calib_fit_run(&fit, d, &s.m, terms, 3, &o), 0);
	assert_true(fit.mape > 1e-4);
	sl_calib_fit_free(&fit);

	/* selection: with select_energy, EV_C's energy kind is among the three */
	o.select_energy = 1;
	size_t sel[3];
	double cv[3];
	assert_int_equal(sl_calib_select(d, &s.m, 3, &o, sel, cv), 0);
	int found = 0;
	for (int k = 0; k < 3; k++)
		found |= sel[k] == ev_c + d->n_events;
	assert_true(found);
	assert_true(cv[2] < 1e-6);
	synth_free(&s);
}

/* keep: auto (sl_calib_keep_auto): the true term EV_B, marked, is kept
 * because leaving a workload out predicts it far better with it; EV_A
 * (keep: always) is 0; a marked term is kept only if it lowered the
 * error. */
static void test_keep_auto(void **state)
{
	(void)state;
	synth s;
	int ps[2] = {0, 3};
	synth_setup(&s, ps, 2, 0.002, 4, 0);
	sl_calib_opts o = {.static_w = TRUE_STATIC};
	sl_power_term pt[3] = {{"EV_A", 0, 0, 0, 0}, {"EV_B", 0, 0, 0, 1}, {"EV_C", 0, 0, 0, 1}};
	size_t terms[3] = {s.terms[0], s.terms[1], (size_t)sl_calib_data_event(&s.d, "EV_C")};
	sl_power_term *own = s.m.terms;
	size_t n_own = s.m.n_terms;
	s.m.terms = pt;
	s.m.n_terms = 3;
	int kept[3];
	double with[3], without[3];
	assert_int_equal(sl_calib_keep_auto(&s.d, &s.m, terms, &o, kept, with, without), 0);
	assert_int_equal(kept[0], 0);
	assert_int_equal(kept[1], 1);
	assert_true(with[1] < 0.005 && without[1] > 10 * with[1]);
	assert_true(kept[2] == 1 ? with[2] < without[2] : !(with[2] < without[2]));
	double cv;
	size_t both[2] = {terms[0], terms[1]};
	assert_int_equal(sl_calib_terms_cv(&s.d, &s.m, both, 2, &o, &cv), 0);
	NEAR(cv, kept[2] == 1 ? without[2] : with[1], 1e-12);
	s.m.terms = own;
	s.m.n_terms = n_own;
	synth_free(&s);
}

/* Two true events among four: greedy selection finds both. */
static void test_select(void **state)
{
	(void)state;
	synth s;
	int ps[2] = {0, 3};
	synth_setup(&s, ps, 2, 0.002, 4, 0);
	sl_calib_opts o = {.static_w = TRUE_STATIC};
	size_t terms[2];
	double cv[2];
	assert_int_equal(sl_calib_select(&s.d, &s.m, 2, &o, terms, cv), 0);
	const char *a = s.d.events[terms[0]], *b = s.d.events[terms[1]];
	if (!((!strcmp(a, "EV_A") && !strcmp(b, "EV_B")) ||
	      (!strcmp(a, "EV_B") && !strcmp(b, "EV_A"))))
		fail_msg("selected %s, %s", a, b);
	assert_true(cv[1] < cv[0] && cv[1] < 0.005);
	assert_int_equal(sl_calib_select(&s.d, &s.m, 5, &o, terms, cv), -1);
	/* an event that never counts is no candidate */
	size_t ev_d = (size_t)sl_calib_data_event(&s.d, "EV_D");
	for (size_t i = 0; i < s.d.n; i++)
		s.d.rate[i * s.d.n_events + ev_d] = 0;
	size_t t3[4];
	double cv3[4];
	assert_int_equal(sl_calib_select(&s.d, &s.m, 4, &o, t3, cv3), -1);
	assert_non_null(strstr(sl_error(), "only 3 events"));
	assert_int_equal(sl_calib_select(&s.d, &s.m, 3, &o, t3, cv3), 0);
	for (int k = 0; k < 3; k++)
		assert_true(t3[k] != ev_d);
	synth_free(&s);
}

/* An event the machine names as a cycle count (here EV_A as stall_cycles)
 * is no candidate unless select_cycles: without it the selection takes
 * two others; with it, EV_A and EV_B. */
static void test_select_cycle_counts(void **state)
{
	(void)state;
	synth s;
	int ps[2] = {0, 3};
	synth_setup(&s, ps, 2, 0.002, 4, 0);
	const char *from = "UOPS_EXECUTED:PORT015_STALL_CYCLES";
	const char *at = strstr(MACHINE, from);
	assert_non_null(at);
	char yaml[1024];
	snprintf(yaml, sizeof yaml, "%.*sEV_A%s", (int)(at - MACHINE), MACHINE, at + strlen(from));
	sl_machine m2;
	if (sl_machine_load_mem("synth2.yaml", yaml, strlen(yaml), &m2) < 0)
		fail_msg("%s", sl_error());
	assert_true(sl_machine_counts_cycles(&m2, "EV_A"));
	assert_false(sl_machine_counts_cycles(&m2, "EV_B"));
	size_t ev_a = (size_t)sl_calib_data_event(&s.d, "EV_A");
	size_t ev_b = (size_t)sl_calib_data_event(&s.d, "EV_B");
	sl_calib_opts o = {.static_w = TRUE_STATIC};
	size_t terms[2];
	double cv[2];
	assert_int_equal(sl_calib_select(&s.d, &m2, 2, &o, terms, cv), 0);
	assert_true(terms[0] != ev_a && terms[1] != ev_a);
	o.select_cycles = 1;
	assert_int_equal(sl_calib_select(&s.d, &m2, 2, &o, terms, cv), 0);
	assert_true((terms[0] == ev_a && terms[1] == ev_b) ||
		    (terms[0] == ev_b && terms[1] == ev_a));
	/* three events are left to choose from without it */
	o.select_cycles = 0;
	size_t t4[4];
	double cv4[4];
	assert_int_equal(sl_calib_select(&s.d, &m2, 4, &o, t4, cv4), -1);
	assert_non_null(strstr(sl_error(), "only 3 events"));
	sl_machine_free(&m2);
	synth_free(&s);
}

/* Gross outliers pull least squares off; bisquare regression ignores them. */
static void test_robust(void **state)
{
	(void)state;
	synth s;
	int ps[2] = {0, 3};
	synth_setup(&s, ps, 2, 0, 5, 1.8);
	sl_calib_opts o = {.static_w = TRUE_STATIC};
	sl_calib_fit ols, rob;
	assert_int_equal(sl_calib_fit_run(&ols, &s.d, &s.m, s.terms, 2, &o), 0);
	o.robust = 1;
	assert_int_equal(sl_calib_fit_run(&rob, &s.d, &s.m, s.terms, 2, &o), 0);
	assert_true(fabs(ols.constant - C0) > 0.05);
	NEAR(rob.constant, C0, 1e-3);
	NEAR(rob.coeff[0], CA, 1e-3);
	NEAR(rob.coeff[1], CB, 1e-2);
	sl_calib_fit_free(&ols);
	sl_calib_fit_free(&rob);
	synth_free(&s);
}

/*
 * An event so rare that its coefficient is beyond what a machine file
 * holds: the final fit refuses it by name, and --select never picks it,
 * though here power really depends on it.
 */
static void test_rare_event(void **state)
{
	(void)state;
	sl_machine m;
	load_machine(&m);
	const char *ev[3] = {"EV_A", "EV_B", "EV_RARE"};
	sl_calib_run runs[8];
	int ps[2] = {0, 3};
	size_t nr = 0;
	for (int w = 0; w < 4; w++)
		for (int s = 0; s < 2; s++) {
			char name[8];
			snprintf(name, sizeof name, "w%d", w);
			const sl_pstate *p = &m.pstates[ps[s]];
			sl_calib_run *r = &runs[nr++];
			sl_calib_run_init(r, name, name, p->ghz, 3, ev);
			for (int i = 0; i < 20; i++) {
				uint64_t cyc = 100000000;
				double a = 0.2 + 0.05 * ((i * 7 + w * 3) % 11);
				double b = 0.01 * ((i * 5 + w) % 13);
				uint64_t rare = (uint64_t)((i * 3 + w) % 7); /* 0..6 per 1e8 */
				uint64_t n[3] = {(uint64_t)(a * 1e8), (uint64_t)(b * 1e8), rare};
				double ceff = C0 + CA * a + CB * b + 5e6 * (double)rare / 1e8;
				double pw = TRUE_STATIC[ps[s]] + ceff * p->ghz * p->volts * p->volts;
				double t = (double)cyc / (p->ghz * 1e9);
				sl_calib_run_add(r, i * t, t, pw * t, cyc, n, 0);
			}
		}
	sl_calib_data d;
	assert_int_equal(sl_calib_data_build(&d, &m, runs, nr), 0);
	sl_calib_opts o = {.static_w = TRUE_STATIC};
	size_t all[3] = {0, 1, 2};
	sl_calib_fit fit;
	assert_int_equal(sl_calib_fit_run(&fit, &d, &m, all, 3, &o), -1);
	assert_non_null(strstr(sl_error(), "coefficient of EV_RARE"));
	sl_calib_fit_free(&fit);
	size_t terms[3];
	double cv[3];
	assert_int_equal(sl_calib_select(&d, &m, 2, &o, terms, cv), 0);
	assert_true(terms[0] != 2 && terms[1] != 2);
	assert_int_equal(sl_calib_select(&d, &m, 3, &o, terms, cv), -1);
	sl_calib_data_free(&d);
	for (size_t r = 0; r < nr; r++)
		sl_calib_run_free(&runs[r]);
	sl_machine_free(&m);
}

/* Collinear events are named; negative Ceff is counted. */
static void test_diagnostics(void **state)
{
	(void)state;
	sl_machine m;
	load_machine(&m);
	const char *ev[3] = {"EV_A", "EV_A2", "EV_B"};
	sl_calib_run runs[4];
	for (int w = 0; w < 4; w++) {
		char name[8];
		snprintf(name, sizeof name, "w%d", w);
		sl_calib_run_init(&runs[w], name, name, 2.66, 3, ev);
		for (int i = 0; i < 20; i++) {
			double a = 0.1 + 0.05 * ((i * 7 + w * 3) % 11);
			double b = 0.01 * ((i * 5 + w) % 13);
			uint64_t n[3] = {(uint64_t)(a * 1e8), (uint64_t)(a * 2e8) + (uint64_t)(i % 3),
					 (uint64_t)(b * 1e8)};
			/* fully busy: 0.04 s at 2.66 GHz is 106.4 M cycles */
			/* Ceff = -0.5 + 1*a + 20*b: negative for small a and b */
			double pw = 21.3 + (-0.5 + a + 20 * b) * 2.66 * 1.44;
			sl_calib_run_add(&runs[w], i * 0.04, 0.04, pw * 0.04, 106400000, n, 0);
		}
	}
	sl_calib_data d;
	assert_int_equal(sl_calib_data_build(&d, &m, runs, 4), 0);
	double stat[4] = {21.3, 19.0, 16.2, 14.1};
	sl_calib_opts o = {.static_w = stat};
	size_t terms[3] = {0, 1, 2};
	sl_calib_fit fit;
	assert_int_equal(sl_calib_fit_run(&fit, &d, &m, terms, 3, &o), 0);
	assert_true(fit.cond > SL_CALIB_COND_WARN);
	assert_non_null(fit.collinear);
	assert_non_null(strstr(fit.collinear, "EV_A"));
	assert_non_null(strstr(fit.collinear, "EV_A2"));
	sl_calib_fit_free(&fit);
	size_t t2[2] = {0, 2};
	assert_int_equal(sl_calib_fit_run(&fit, &d, &m, t2, 2, &o), 0);
	assert_true(fit.cond < SL_CALIB_COND_WARN);
	assert_null(fit.collinear);
	assert_true(fit.n_neg_ceff > 0 && fit.min_ceff < 0);
	NEAR(fit.constant, -0.5, 1e-6);
	sl_calib_fit_free(&fit);
	sl_calib_data_free(&d);
	for (int w = 0; w < 4; w++)
		sl_calib_run_free(&runs[w]);
	sl_machine_free(&m);
}

/* Runs against logs; multiplexed gaps filled from the phase's mean rate. */
static void test_align_and_table(void **state)
{
	(void)state;
	sl_machine m;
	load_machine(&m);
	const char *ev[2] = {"EV_A", "EV_B"};
	sl_calib_run r;
	sl_calib_run_init(&r, "p.prof", "wl", 2.66, 2, ev);
	uint64_t n0[2] = {100, SL_MISSING}, n1[2] = {SL_MISSING, 40},
		 n2[2] = {300, SL_MISSING}, n3[2] = {SL_MISSING, SL_MISSING};
	sl_calib_run_add(&r, 0.5, 1.0, NAN, 1000, n0, 0);  /* [0.5,1.5] */
	sl_calib_run_add(&r, 1.5, 1.5, NAN, 1000, n1, 0);  /* [1.5,3] */
	sl_calib_run_add(&r, 3.0, 0.5, NAN, 2000, n2, 1);  /* shorter than 1 s */
	sl_calib_run_add(&r, 3.5, 1.0, NAN, 1000, n3, 1);  /* ends past 4 */
	sl_powerlog log;
	assert_int_equal(load_log(&log, LOG4, NULL, 0), 0);
	sl_calib_align st;
	assert_int_equal(sl_calib_attach_log(&r, &log, &st), 0);
	assert_int_equal(st.uncovered, 1);
	assert_int_equal(st.too_short, 1);
	NEAR(r.energy_j[0], 8.75 + 8.75, 1e-12); /* 15..20..15 */
	NEAR(r.energy_j[1], 6.25 + 15, 1e-12);  /* 15..10..20 */
	assert_true(isnan(r.energy_j[2]) && isnan(r.energy_j[3]));

	sl_calib_data d;
	assert_int_equal(sl_calib_data_build(&d, &m, &r, 1), 0);
	assert_int_equal(d.n, 2);
	assert_int_equal(d.no_energy, 2);
	NEAR(d.power[0], r.energy_j[0] / 1.0, 1e-12);
	NEAR(d.rate[0], 0.1, 1e-15);             /* measured A */
	NEAR(d.rate[1], 40.0 / 1000, 1e-15);     /* B: phase 0 mean */
	assert_true(d.filled[1] && !d.filled[0]);
	NEAR(d.rate[2], 100.0 / 1000, 1e-15);    /* A: phase 0 mean */
	assert_true(d.filled[2] && !d.filled[3]);
	sl_calib_data_free(&d);

	/* a log that does not overlap the run */
	sl_powerlog_free(&log);
	assert_int_equal(load_log(&log, LOG4, NULL, -10.0), 0); /* 10..14 s */
	assert_int_equal(sl_calib_attach_log(&r, &log, &st), -1);
	assert_non_null(strstr(sl_error(), "does not overlap p.prof"));
	assert_non_null(strstr(sl_error(), "--log-offset"));
	sl_powerlog_free(&log);

	/* a run at a frequency the machine does not have */
	sl_calib_run_free(&r);
	sl_calib_run_init(&r, "odd.prof", "wl", 2.5, 2, ev);
	assert_int_equal(sl_calib_data_build(&d, &m, &r, 1), -1);
	assert_non_null(strstr(sl_error(), "odd.prof ran at 2.5 GHz, which is not a P-state"));
	sl_calib_data_free(&d);
	sl_calib_run_free(&r);
	sl_machine_free(&m);
}

static void test_static_interp(void **state)
{
	(void)state;
	sl_machine m;
	load_machine(&m); /* volts 1.20 1.15 1.05 0.95 */
	int known[2] = {1, 2};
	double w[2] = {19.0, 16.0}, out[4];
	sl_calib_static_interp(&m, known, w, 2, out);
	NEAR(out[1], 19.0, 0);
	NEAR(out[2], 16.0, 0);
	NEAR(out[0], 19.0 + 3.0 * 0.05 / 0.10, 1e-12); /* extended upward */
	NEAR(out[3], 16.0 - 3.0 * 0.10 / 0.10, 1e-12); /* and downward */
	double one = 7;
	sl_calib_static_interp(&m, known, &one, 1, out);
	NEAR(out[0], 7, 0);
	NEAR(out[3], 7, 0);
	sl_machine_free(&m);
}

/* The machine loader rejects a P-state without its voltage: calibration
 * cannot do without it. */
static void test_missing_volts(void **state)
{
	(void)state;
	const char *t = "format: sleuth-machine/1\nname: x\ncounters: {programmable: 4}\n"
			"memory_latency_ns: 65\npstates:\n  - {ghz: 2.66, volts: 1.2}\n"
			"  - {ghz: 1.6}\nevents: {branch_sample: X}\n";
	sl_machine m;
	assert_int_equal(sl_machine_load_mem("sk.yaml", t, strlen(t), &m), -1);
	if (!strstr(sl_error(), "sk.yaml:7") || !strstr(sl_error(), "volts"))
		fail_msg("unexpected error: %s", sl_error());
}

/* Runs from files: a trace (events but the fixed counters, start times the
 * running sum of t, e when present), a profile, and what is neither. */
static void test_inputs(void **state)
{
	(void)state;
	char dir[] = "/tmp/sleuth-calib.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *tr = sl_xasprintf("%s/run.yaml", dir), *bad = sl_xasprintf("%s/x.csv", dir);
	FILE *f = fopen(tr, "w");
	fputs("format: sleuth-trace/1\nworkload: tw\nfrequency_ghz: 2.66\n"
	      "interval_instructions: 1000\nevents: [cycles, instructions, EV_A]\n"
	      "intervals:\n  - {t: 0.5, n: [1000, 1000, 10], br: [], e: 10}\n"
	      "  - {t: 0.25, n: [2000, 1000, 30], br: []}\n", f);
	fclose(f);
	f = fopen(bad, "w");
	fputs("time_s,power_w\n0,1\n", f);
	fclose(f);
	sl_calib_run r;
	assert_int_equal(sl_calib_run_load(&r, tr), 0);
	assert_string_equal(r.workload, "tw");
	NEAR(r.ghz, 2.66, 0);
	assert_int_equal(r.n_events, 1);
	assert_string_equal(r.events[0], "EV_A");
	assert_int_equal(r.n, 2);
	NEAR(r.start_s[1], 0.5, 0);
	NEAR(r.energy_j[0], 10, 0);
	assert_true(isnan(r.energy_j[1]));
	assert_int_equal(r.cycles[1], 2000);
	assert_int_equal(r.counts[1], 30);
	sl_calib_run_free(&r);
	assert_int_equal(sl_calib_run_load(&r, bad), -1);
	assert_non_null(strstr(sl_error(), "x.csv is neither a sleuth profile nor"));

	/* a profile (in memory): its events, energies and phases */
	char *evs[1] = {"EV_B"};
	uint64_t counts[2] = {5, SL_MISSING};
	sl_prof_interval iv[2] = {{.phase = 0, .start_s = 0, .time_s = 1, .cycles = 100,
				   .instructions = 50, .energy_j = 20},
				  {.phase = 1, .start_s = 1, .time_s = 1, .cycles = 100,
				   .instructions = 50, .energy_j = NAN}};
	sl_profile p = {.has_counts = 1, .freq_ghz = 1.6, .n_events = 1, .events = evs,
			.n_intervals = 2, .iv = iv, .counts = counts, .backend = "replay"};
	assert_int_equal(sl_calib_run_from_profile(&r, "dir/app.prof", &p), 0);
	assert_string_equal(r.workload, "app"); /* no label: the file name */
	assert_int_equal(r.phase[1], 1);
	assert_int_equal(r.counts[1], SL_MISSING);
	NEAR(r.energy_j[0], 20, 0);
	sl_calib_run_free(&r);
	p.freq_ghz = 0;
	assert_int_equal(sl_calib_run_from_profile(&r, "app.prof", &p), -1);
	assert_non_null(strstr(sl_error(), "app.prof does not record its core frequency"));
	p.has_counts = 0;
	assert_int_equal(sl_calib_run_from_profile(&r, "app.prof", &p), -1);
	assert_non_null(strstr(sl_error(), "app.prof has no event counts"));
	unlink(tr);
	unlink(bad);
	rmdir(dir);
	free(tr);
	free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integral),
		cmocka_unit_test(test_log_errors),
		cmocka_unit_test(test_log_temp),
		cmocka_unit_test(test_idlelog),
		cmocka_unit_test(test_align_and_table),
		cmocka_unit_test(test_static_interp),
		cmocka_unit_test(test_recover_idle),
		cmocka_unit_test(test_recover_no_idle),
		cmocka_unit_test(test_partly_idle),
		cmocka_unit_test(test_recover_energy),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_keep_auto),
		cmocka_unit_test(test_select_cycle_counts),
		cmocka_unit_test(test_robust),
		cmocka_unit_test(test_diagnostics),
		cmocka_unit_test(test_rare_event),
		cmocka_unit_test(test_missing_volts),
		cmocka_unit_test(test_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
