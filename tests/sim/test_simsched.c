/* Unit tests of a run under a frequency plan (`simulate --schedule`): a
 * plan with every interval at one P-state is the fixed-frequency run, byte
 * for byte in t, e, counts and branches; a two-frequency plan is, interval
 * by interval, the fixed runs at those frequencies; switch costs; and
 * sl_sim_plan's inheritance rule and refusals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sleuth/common.h"
#include "sleuth/sim.h"
#include "sleuth/trace.h"

#define MACHINE TEST_SRCDIR "/data/sim/nehalem-i7-920.yaml"
#define WORKLOAD TEST_SRCDIR "/data/workloads/astar-like.yaml"
#define N_IV 80 /* intervals simulated: instances of both phases, 14 switches */

/* One interval of a trace as read back. */
typedef struct rec {
	double t, e;
	uint64_t n[32];
	uint64_t br_sum, br_hash;
	size_t n_br;
	char label[32];
} rec;

typedef struct world {
	sl_sim_machine m;
	sl_sim_workload w;
	sl_sim s;
	char path[64];
} world;

static void world_load(world *x)
{
	if (sl_sim_machine_load(MACHINE, &x->m) < 0 || sl_sim_workload_load(WORKLOAD, &x->w) < 0)
		fail_msg("%s", sl_error());
	sl_sim_prepare(&x->s, &x->m, &x->w, 5, N_IV);
	strcpy(x->path, "/tmp/sleuth-test-simsched.XXXXXX");
	int fd = mkstemp(x->path);
	assert_true(fd >= 0);
	close(fd);
}

static void world_free(world *x)
{
	unlink(x->path);
	sl_sim_workload_free(&x->w);
	sl_sim_machine_free(&x->m);
}

/* Runs the simulation under opts and reads the trace back into r[N_IV]. */
static void run_read(world *x, sl_sim_run_opts *o, rec *r, sl_sim_totals *tot)
{
	o->trace_path = x->path;
	o->totals = tot;
	if (sl_sim_run(&x->s, o) < 0)
		fail_msg("%s", sl_error());
	sl_trace_reader *tr = sl_trace_open(x->path);
	assert_non_null(tr);
	const sl_trace_header *h = sl_trace_header_of(tr);
	assert_true(h->n_events <= 32);
	sl_trace_interval iv;
	size_t i = 0;
	int rc;
	while ((rc = sl_trace_next(tr, &iv)) == 1) {
		assert_true(i < N_IV);
		memset(&r[i], 0, sizeof r[i]);
		r[i].t = iv.t;
		r[i].e = iv.e;
		memcpy(r[i].n, iv.n, h->n_events * sizeof *iv.n);
		r[i].n_br = iv.n_br;
		for (size_t k = 0; k < iv.n_br; k++) {
			r[i].br_sum += iv.br[k].count;
			r[i].br_hash = r[i].br_hash * 1000003 + iv.br[k].addr * 31 + iv.br[k].count;
		}
		snprintf(r[i].label, sizeof r[i].label, "%s", iv.label ? iv.label : "");
		i++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(i, N_IV);
	sl_trace_close(tr);
}

static void same_rec(const rec *a, const rec *b)
{
	assert_true(a->t == b->t);
	assert_true(a->e == b->e);
	assert_memory_equal(a->n, b->n, sizeof a->n);
	assert_true(a->br_sum == b->br_sum && a->br_hash == b->br_hash && a->n_br == b->n_br);
	assert_string_equal(a->label, b->label);
}

/* The true phases as "detected" ones: interval i's phase index. */
static uint32_t *true_phases(const world *x)
{
	uint32_t *ph = sl_xcalloc(N_IV, sizeof *ph);
	for (size_t i = 0; i < N_IV; i++)
		ph[i] = x->w.phase_of[i % x->w.n_intervals];
	return ph;
}

/* Every phase at one P-state: the fixed-frequency run exactly, with the
 * meter and with --truth, at every P-state; no switch is charged. */
static void test_uniform_plan(void **state)
{
	(void)state;
	world x;
	static rec fixed[N_IV], sched[N_IV];
	int plan[N_IV];
	world_load(&x);
	for (size_t ps = 0; ps < x.m.n_pstates; ps += 4) {
		for (int truth = 0; truth < 2; truth++) {
			sl_sim_run_opts fo = {.ghz = x.m.ghz[ps], .truth = truth};
			sl_sim_totals ft, st;
			run_read(&x, &fo, fixed, &ft);
			for (size_t i = 0; i < N_IV; i++)
				plan[i] = (int)ps;
			sl_sim_run_opts so = {.ghz = x.m.ghz[0], .truth = truth,
					      .pstate_of = plan, .switch_s = 20e-6};
			run_read(&x, &so, sched, &st);
			for (size_t i = 0; i < N_IV; i++)
				same_rec(&fixed[i], &sched[i]);
			assert_true(ft.time_s == st.time_s && ft.energy_j == st.energy_j);
			assert_int_equal(st.switches, 0);
		}
	}
	world_free(&x);
}

/* Phase 0 at fmax, phase 1 at fmin: each interval is that of the fixed run at
 * its frequency (mixed first intervals included: the whole interval runs at
 * the frequency of its phase), so the total time is the sum of those; with
 * a switch cost, each change adds switch_s and switch_s times the higher of
 * the neighbouring intervals' powers. */
static void test_two_frequencies(void **state)
{
	(void)state;
	world x;
	static rec hi[N_IV], lo[N_IV], sched[N_IV], costed[N_IV];
	int plan[N_IV];
	world_load(&x);
	size_t fmin = x.m.n_pstates - 1;
	uint32_t *ph = true_phases(&x);
	double ghz[2] = {x.m.ghz[0], x.m.ghz[fmin]};
	assert_int_equal(sl_sim_plan(&x.m, ph, NULL, N_IV, ghz, 2, x.m.ghz[0], 0, plan), 0);

	sl_sim_totals th, tl, ts, tc;
	sl_sim_run_opts o = {.ghz = x.m.ghz[0], .truth = 1};
	run_read(&x, &o, hi, &th);
	o.ghz = x.m.ghz[fmin];
	run_read(&x, &o, lo, &tl);
	o.ghz = x.m.ghz[0];
	o.pstate_of = plan;
	run_read(&x, &o, sched, &ts);
	o.switch_s = 50e-6;
	run_read(&x, &o, costed, &tc);

	double want_t = 0, want_e = 0, cost_t = 0, cost_e = 0;
	size_t changes = 0, n_lo = 0, mixed_lo = 0;
	for (size_t i = 0; i < N_IV; i++) {
		const rec *f = ph[i] ? &lo[i] : &hi[i];
		assert_int_equal(plan[i], ph[i] ? (int)fmin : 0);
		same_rec(f, &sched[i]);
		want_t += f->t;
		want_e += f->e;
		n_lo += ph[i] == 1;
		if (i && ph[i] != ph[i - 1]) {
			const rec *p = ph[i - 1] ? &lo[i - 1] : &hi[i - 1];
			double w = fmax(p->e / p->t, f->e / f->t);
			changes++;
			mixed_lo += ph[i] == 1;
			assert_true(fabs(costed[i].t - (f->t + 50e-6)) <= 1e-12 * f->t);
			assert_true(fabs(costed[i].e - (f->e + 50e-6 * w)) <= 1e-12 * f->e);
			cost_t += 50e-6;
			cost_e += 50e-6 * w;
		} else {
			same_rec(f, &costed[i]);
		}
	}
	assert_true(n_lo > 10 && mixed_lo > 3); /* both phases, several switches */
	assert_true(fabs(ts.time_s - want_t) <= 1e-12 * want_t);
	assert_true(fabs(ts.energy_j - want_e) <= 1e-12 * want_e);
	assert_true(ts.time_s > th.time_s && ts.time_s < tl.time_s);
	assert_int_equal(ts.switches, changes);
	assert_int_equal(tc.switches, changes);
	assert_true(fabs(tc.time_s - (want_t + cost_t)) <= 1e-12 * want_t);
	assert_true(fabs(tc.energy_j - (want_e + cost_e)) <= 1e-12 * want_e);

	/* the meter sees the same run: its total within noise of the truth */
	o.truth = 0;
	run_read(&x, &o, costed, &tc);
	assert_true(fabs(tc.energy_j - (want_e + cost_e)) < 0.002 * want_e);
	free(ph);
	world_free(&x);
}

/* Instances shorter than the minimum keep the frequency before them; at the
 * start of the run, the baseline's. */
static void test_plan_min_instance(void **state)
{
	(void)state;
	world x;
	world_load(&x);
	/* phases: 1 1 | 0 | 2 2 2 | 1 | 0 0 ; each interval 1 ms */
	uint32_t ph[] = {1, 1, 0, 2, 2, 2, 1, 0, 0};
	double t[9], ghz[3] = {x.m.ghz[0], x.m.ghz[4], x.m.ghz[8]};
	int plan[9];
	for (size_t i = 0; i < 9; i++)
		t[i] = 1e-3;
	assert_int_equal(sl_sim_plan(&x.m, ph, t, 9, ghz, 3, x.m.ghz[0], 0, plan), 0);
	int own[] = {4, 4, 0, 8, 8, 8, 4, 0, 0};
	assert_memory_equal(plan, own, sizeof own);
	/* 2 ms minimum: the first instance (2 ms) is long enough, 0 and 1 alone are not */
	assert_int_equal(sl_sim_plan(&x.m, ph, t, 9, ghz, 3, x.m.ghz[0], 2e-3, plan), 0);
	int inh[] = {4, 4, 4, 8, 8, 8, 8, 0, 0};
	assert_memory_equal(plan, inh, sizeof inh);
	/* 3 ms: only phase 2's instance; before it the baseline (index 0) */
	assert_int_equal(sl_sim_plan(&x.m, ph, t, 9, ghz, 3, x.m.ghz[0], 3e-3, plan), 0);
	int inh3[] = {0, 0, 0, 8, 8, 8, 8, 8, 8};
	assert_memory_equal(plan, inh3, sizeof inh3);
	world_free(&x);
}

static void test_plan_refusals(void **state)
{
	(void)state;
	world x;
	world_load(&x);
	uint32_t ph[] = {0, 0, 1, 3};
	double ghz[4] = {2.66, 1.6, 2.0, 0};
	int plan[4];
	/* phase 3 has no frequency (0); phase 1 is beyond a table of one */
	assert_int_equal(sl_sim_plan(&x.m, ph, NULL, 4, ghz, 4, 2.66, 0, plan), -1);
	assert_non_null(strstr(sl_error(), "phase 3 (interval 3) has no frequency"));
	assert_int_equal(sl_sim_plan(&x.m, ph, NULL, 4, ghz, 1, 2.66, 0, plan), -1);
	assert_non_null(strstr(sl_error(), "phase 1 (interval 2) has no frequency"));
	/* 2.1 GHz is not a P-state of the Nehalem; 2.13 is */
	ghz[3] = 1.6;
	ghz[1] = 2.1;
	assert_int_equal(sl_sim_plan(&x.m, ph, NULL, 4, ghz, 4, 2.66, 0, plan), -1);
	assert_non_null(strstr(sl_error(), "phase 1: 2.1 GHz is not a P-state"));
	ghz[1] = 2.13;
	assert_int_equal(sl_sim_plan(&x.m, ph, NULL, 4, ghz, 4, 2.66, 0, plan), 0);
	assert_int_equal(plan[2], 4);
	assert_int_equal(sl_sim_plan(&x.m, ph, NULL, 4, ghz, 4, 2.7, 0, plan), -1);
	assert_non_null(strstr(sl_error(), "baseline frequency: 2.7 GHz is not a P-state"));
	world_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uniform_plan),
		cmocka_unit_test(test_two_frequencies),
		cmocka_unit_test(test_plan_min_instance),
		cmocka_unit_test(test_plan_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
