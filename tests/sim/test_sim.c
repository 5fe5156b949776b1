/* Unit tests of the simulator: the physics against a hand computation,
 * determinism, frequency invariance of the program, the memory-bound vs
 * CPU-bound slowdown, phase mixing and shared code, the meter's integral,
 * and the loaders' rejections. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/sim-int.h"
#include "sleuth/common.h"
#include "sleuth/sim.h"

#define SHIPPED_MACHINE TEST_SRCDIR "/data/sim/nehalem-i7-920.yaml"

/* A machine with round numbers and no power noise, for hand computation. */
static const char test_machine[] =
	"format: sleuth-sim-machine/1\n"
	"name: hand\n"
	"counters: {programmable: 4}\n"
	"pstates: [{ghz: 1.6, volts: 0.95}, {ghz: 2.5, volts: 1.2}]\n"
	"events:\n"
	"  - {name: cycles, counts: cycles}\n"
	"  - {name: instructions, counts: instructions}\n"
	"  - {name: STALLS, counts: stall_cycles}\n"
	"  - {name: LLC_MISSES, counts: llc_misses}\n"
	"truth:\n"
	"  mispredict_penalty_cycles: 20\n"
	"  llc_hit_core_cycles: 10\n"
	"  llc_hit_uncore_ns: 8\n"
	"  llc_hit_exposed: 0.5\n"
	"  memory_ns: 60\n"
	"  rob_fill_cycles: 30\n"
	"  stall_mispredict_share: 0.5\n"
	"  stall_llc_hit_share: 0.8\n"
	"  resource_memory_share: 0.7\n"
	"  resource_llc_hit_share: 0.4\n"
	"  resource_dep_share: 0.3\n"
	"  static_base_w: 10\n"
	"  leak_w: 10\n"
	"  leak_vref: 1.2\n"
	"  leak_per_volt: 2\n"
	"  ceff_base_nf: 5\n"
	"  ceff_uops_nf: 4\n"
	"  uops_saturation: 2\n"
	"  ceff_l2_nf: 30\n"
	"  ceff_llc_nf: 60\n"
	"  ceff_fp_nf: 2\n"
	"  ceff_mispredict_nf: 20\n"
	"  ceff_noise: 0\n"
	"  idle_ceff_nf: 1\n"
	"  meter_noise_w: 0\n";

static const char test_workload[] =
	"format: sleuth-workload/1\n"
	"name: hand\n"
	"interval_instructions: 1000000\n"
	"shared_branches: 8\n"
	"defaults: {noise: 0, drift: 0, branch_noise: 0, branches: 20, shared: 0.5}\n"
	"phases:\n"
	"  A: {cpi_core: 0.5, branch_fraction: 0.1, mispredict_rate: 0.05, fp_fraction: 0.2,\n"
	"      memory_fraction: 0.3, uops_per_instruction: 1.2, l2_pki: 40, llc_hits_pki: 10,\n"
	"      llc_misses_pki: 5, mlp: 2, dep_stall_fraction: 0.2}\n"
	"  B: {cpi_core: 0.9, branch_fraction: 0.2, mispredict_rate: 0.01, fp_fraction: 0,\n"
	"      memory_fraction: 0.4, uops_per_instruction: 1.1, l2_pki: 10, llc_hits_pki: 1,\n"
	"      llc_misses_pki: 0.5, mlp: 1}\n"
	"  C: {cpi_core: 0.7, branch_fraction: 0.1, mispredict_rate: 0.02, fp_fraction: 0,\n"
	"      memory_fraction: 0.3, uops_per_instruction: 1.0, l2_pki: 10, llc_hits_pki: 1,\n"
	"      llc_misses_pki: 1, mlp: 1}\n"
	"sequence:\n"
	"  - {phase: A, for: 4}\n"
	"  - repeat: 5\n"
	"    sequence: [{phase: B, for: 3}, {phase: C, for: 2}]\n";

static char *write_tmp(const char *text)
{
	char *path = sl_xstrdup("/tmp/sleuth-test-sim.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

typedef struct world {
	sl_sim_machine m;
	sl_sim_workload w;
	sl_sim s;
	sl_sim_ctx *c;
} world;

static void world_load(world *x, const char *mpath, const char *wpath, size_t n)
{
	if (sl_sim_machine_load(mpath, &x->m) < 0)
		fail_msg("%s", sl_error());
	if (sl_sim_workload_load(wpath, &x->w) < 0)
		fail_msg("%s", sl_error());
	sl_sim_prepare(&x->s, &x->m, &x->w, 7, n);
	x->c = sl_sim_ctx_new(&x->s);
}

static void world_hand(world *x)
{
	char *m = write_tmp(test_machine), *w = write_tmp(test_workload);
	world_load(x, m, w, 0);
	unlink(m);
	unlink(w);
	free(m);
	free(w);
}

static void world_free(world *x)
{
	sl_sim_ctx_free(x->c);
	sl_sim_workload_free(&x->w);
	sl_sim_machine_free(&x->m);
}

/* world_free, and the temporary machine and workload files removed. */
static void world_drop(world *x, char *mpath, char *wpath)
{
	world_free(x);
	unlink(mpath);
	unlink(wpath);
	free(mpath);
	free(wpath);
}

static void close_to(double got, double want, double rel)
{
	if (fabs(got - want) > rel * fabs(want))
		fail_msg("got %.17g, want %.17g", got, want);
}

/* Interval 0 of phase A (no noise): time and power by hand. */
static void test_hand_computation(void **state)
{
	(void)state;
	world x;
	sl_sim_interval iv = {0};
	const double f[2] = {2.5, 1.6}, V[2] = {1.2, 0.95};
	world_hand(&x);
	for (int k = 0; k < 2; k++) {
		sl_sim_interval_run(&x.s, x.c, 0, f[k], V[k], &iv);
		double N = (double)iv.q[SL_Q_INSTRUCTIONS];
		assert_true(N >= 1000000 && N < 1000064); /* the skid */
		assert_int_equal(iv.n_parts, 1);
		assert_string_equal(iv.label, "A");
		/* counts follow the rates */
		double cond = round(N * 0.1), mp = round(cond * 0.05);
		double hits = round(N * 10 / 1000), miss = round(N * 5 / 1000);
		double uops = round(N * 1.2), fp = round(N * 0.2), l2 = round(N * 40 / 1000);
		assert_int_equal(iv.q[SL_Q_COND_BRANCHES], cond);
		assert_int_equal(iv.q[SL_Q_MISPREDICTS], mp);
		assert_int_equal(iv.q[SL_Q_LLC_MISSES], miss);
		assert_int_equal(iv.q[SL_Q_L2_MISSES], hits + miss);
		assert_int_equal(iv.q[SL_Q_L2_REFERENCES], l2);
		assert_int_equal(iv.q[SL_Q_UOPS], uops);
		assert_int_equal(iv.q[SL_Q_FP_OPS], fp);
		uint64_t hsum = 0;
		for (size_t i = 0; i < iv.n_br; i++)
			hsum += iv.br[i].count;
		assert_int_equal(hsum, cond);
		/* time: the equations of docs/simulator.md */
		double core = N * 0.5;
		double branch = mp * 20;
		double hit = hits * 0.5 * (10 + 8 * f[k]);
		double clusters = miss / 2;
		double hidden = fmin(30, core / clusters);
		double mem = clusters * fmax(0, 60 * f[k] - hidden);
		double cycles = core + branch + hit + mem;
		assert_int_equal(iv.q[SL_Q_CYCLES], llround(cycles));
		close_to(iv.t, cycles / (f[k] * 1e9), 1e-12);
		double stall = 0.2 * core + 0.5 * branch + 0.8 * hit + mem;
		assert_int_equal(iv.q[SL_Q_STALL_CYCLES], llround(stall));
		assert_int_equal(iv.q[SL_Q_RESOURCE_STALLS],
				 llround(0.7 * mem + 0.4 * hit + 0.3 * 0.2 * core));
		/* power */
		double ceff = 5 + 4 * 2 * (1 - exp(-(uops / cycles) / 2)) + 30 * l2 / cycles +
			      60 * miss / cycles + 2 * fp / cycles + 20 * mp / cycles;
		double stat = 10 + 10 * (V[k] / 1.2) * exp(2 * (V[k] - 1.2));
		double P = stat + ceff * f[k] * V[k] * V[k];
		close_to(iv.e / iv.t, P, 1e-12);
		close_to(sl_sim_idle_w(&x.m, f[k], V[k]), stat + 1 * f[k] * V[k] * V[k], 1e-12);
	}
	sl_sim_interval_free(&iv);
	world_free(&x);
}

static void same_interval(const sl_sim_interval *a, const sl_sim_interval *b, int all)
{
	assert_string_equal(a->label, b->label);
	assert_int_equal(a->n_br, b->n_br);
	assert_memory_equal(a->br, b->br, a->n_br * sizeof *a->br);
	for (int q = 0; q < SL_Q_N; q++) {
		if (!all && (q == SL_Q_CYCLES || q == SL_Q_STALL_CYCLES ||
			     q == SL_Q_RESOURCE_STALLS || q == SL_Q_OFFCORE_CYCLES ||
			     q == SL_Q_OFFCORE_OCCUPANCY || q == SL_Q_MISS_STALLS))
			continue;
		assert_int_equal(a->q[q], b->q[q]);
	}
	if (all) {
		assert_true(a->t == b->t);
		assert_true(a->e == b->e);
	}
}

/* Same inputs and seed: the same interval, whatever ran before it. */
static void test_determinism(void **state)
{
	(void)state;
	world x;
	sl_sim_interval a = {0}, b = {0};
	world_load(&x, SHIPPED_MACHINE, TEST_SRCDIR "/data/workloads/gcc-like.yaml", 0);
	sl_sim_ctx *c2 = sl_sim_ctx_new(&x.s);
	for (size_t i = 0; i < x.s.n_intervals; i++)
		sl_sim_interval_run(&x.s, x.c, i, 2.66, 1.2, &a);
	for (size_t i = 0; i < 60; i++) {
		sl_sim_interval_run(&x.s, x.c, i, 2.66, 1.2, &a);
		sl_sim_interval_run(&x.s, c2, 59 - i, 2.66, 1.2, &b); /* other order */
		sl_sim_interval_run(&x.s, c2, i, 2.66, 1.2, &b);
		same_interval(&a, &b, 1);
	}
	/* a different seed is a different run */
	sl_sim s2;
	sl_sim_prepare(&s2, &x.m, &x.w, 8, 0);
	sl_sim_interval_run(&s2, c2, 5, 2.66, 1.2, &b);
	sl_sim_prepare(&x.s, &x.m, &x.w, 7, 0);
	sl_sim_interval_run(&x.s, x.c, 5, 2.66, 1.2, &a);
	assert_true(a.t != b.t);
	sl_sim_ctx_free(c2);
	sl_sim_interval_free(&a);
	sl_sim_interval_free(&b);
	world_free(&x);
}

/* Same seed at 2.66 and 1.60 GHz: the same program. */
static void test_frequency_invariance(void **state)
{
	(void)state;
	const char *wl[] = {"astar-like", "soplex-like", "mcf-like"};
	for (size_t k = 0; k < SL_ARRAY_LEN(wl); k++) {
		world x;
		sl_sim_interval a = {0}, b = {0};
		char *p = sl_xasprintf("%s/data/workloads/%s.yaml", TEST_SRCDIR, wl[k]);
		world_load(&x, SHIPPED_MACHINE, p, 0);
		free(p);
		for (size_t i = 0; i < x.s.n_intervals; i++) {
			sl_sim_interval_run(&x.s, x.c, i, 2.66, 1.2, &a);
			sl_sim_interval_run(&x.s, x.c, i, 1.60, 0.944, &b);
			same_interval(&a, &b, 0);
			assert_true(a.t < b.t);
			assert_true(a.q[SL_Q_CYCLES] != b.q[SL_Q_CYCLES]);
		}
		sl_sim_interval_free(&a);
		sl_sim_interval_free(&b);
		world_free(&x);
	}
}

static double total_time(const char *name, double ghz, double volts)
{
	world x;
	sl_sim_interval iv = {0};
	double t = 0;
	char *p = sl_xasprintf("%s/data/workloads/%s.yaml", TEST_SRCDIR, name);
	world_load(&x, SHIPPED_MACHINE, p, 0);
	free(p);
	for (size_t i = 0; i < x.s.n_intervals; i++) {
		sl_sim_interval_run(&x.s, x.c, i, ghz, volts, &iv);
		t += iv.t;
	}
	sl_sim_interval_free(&iv);
	world_free(&x);
	return t;
}

/* From 2.66 to 1.60 GHz a memory-bound program slows down less than a
 * CPU-bound one, which slows down by nearly the frequency ratio. */
static void test_memory_bound_slowdown(void **state)
{
	(void)state;
	double cpu = total_time("hmmer-like", 1.6, 0.944) / total_time("hmmer-like", 2.66, 1.2);
	double mem = total_time("mcf-like", 1.6, 0.944) / total_time("mcf-like", 2.66, 1.2);
	assert_true(mem >= 1.0);
	assert_true(mem < cpu);
	assert_true(cpu > 1.5 && cpu <= 2.66 / 1.6 + 1e-9);
	assert_true(mem < 1.2);
}

/* The first interval of an instance mixes the previous phase and the new
 * one, in its branches and its counts; phases share some addresses. */
/* The harder physics (docs/simulator.md, "Harder physics") against a hand
 * computation: the uncore clock, a ROB of rob_entries, a bandwidth bound
 * that binds at 2.5 GHz and not at 1.6, the offcore counters; then the
 * queueing fixed point, same code on other data, and a gradual ramp. */
static void test_harder_physics(void **state)
{
	(void)state;
	char mtext[sizeof test_machine + 256];
	snprintf(mtext, sizeof mtext, "%s  dram_gbps: 8\n  rob_entries: 100\n"
		 "  uncore_ratio: 1\n  uncore_max_ghz: 2\n  memory_uncore_ns: 10\n"
		 "  queue_gain: %s\n", test_machine, "0");
	static const char wtext[] =
		"format: sleuth-workload/1\nname: hard\ninterval_instructions: 1000000\n"
		"defaults: {noise: 0, drift: 0, branch_noise: 0, branches: 20,"
		" dep_stall_fraction: 0}\n"
		"phases:\n"
		"  D: {cpi_core: 0.5, branch_fraction: 0.1, mispredict_rate: 0, fp_fraction: 0,"
		" memory_fraction: 0.3, uops_per_instruction: 1, l2_pki: 60, llc_hits_pki: 0,"
		" llc_misses_pki: 10, mlp: 4, prefetch_pki: 40}\n"
		"  E: {code: D, cpi_core: 0.8, branch_fraction: 0.1, mispredict_rate: 0,"
		" fp_fraction: 0, memory_fraction: 0.3, uops_per_instruction: 1, l2_pki: 10,"
		" llc_hits_pki: 0, llc_misses_pki: 1, mlp: 1, ramp: 4}\n"
		"sequence: [{phase: D, for: 3}, {phase: E, for: 6}]\n";
	char *m = write_tmp(mtext), *w = write_tmp(wtext);
	world x;
	world_load(&x, m, w, 0);
	sl_sim_interval iv = {0};
	const double f[2] = {2.5, 1.6}, V[2] = {1.2, 0.95};
	int bound[2];
	for (int k = 0; k < 2; k++) {
		sl_sim_interval_run(&x.s, x.c, 1, f[k], V[k], &iv);
		double n = (double)iv.q[SL_Q_INSTRUCTIONS];
		double X = (double)llround(n * 10 / 1000), P = (double)llround(n * 40 / 1000);
		double Cc = n * 0.5, K = X / 4, h = SL_MIN(100 * 0.5, Cc / K);
		double lat = 60 + 10 * 2.0 / SL_MIN(2.0, f[k]);
		double mem = K * SL_MAX(0, lat * f[k] - h);
		double t_lat = (Cc + mem) / (f[k] * 1e9), t_bw = (X + P) * 64 / 8e9;
		double E = t_bw > t_lat ? (t_bw - t_lat) * f[k] * 1e9 : 0;
		bound[k] = t_bw > t_lat;
		close_to(iv.t, SL_MAX(t_lat, t_bw), 1e-9);
		assert_int_equal(iv.q[SL_Q_PREFETCHES], (uint64_t)P);
		close_to((double)iv.q[SL_Q_OFFCORE_CYCLES], K * lat * f[k] + E, 1e-6);
		close_to((double)iv.q[SL_Q_OFFCORE_OCCUPANCY], X * lat * f[k] + E * 4, 1e-6);
		close_to((double)iv.q[SL_Q_MISS_STALLS], mem + E, 1e-6);
	}
	assert_true(bound[0] && !bound[1]);
	/* same code on other data: E's branches are D's */
	assert_int_equal(x.w.phases[1].n_br, x.w.phases[0].n_br);
	assert_memory_equal(x.w.phases[1].addr, x.w.phases[0].addr,
			    x.w.phases[0].n_br * sizeof *x.w.phases[0].addr);
	/* the ramp: E's first 4 intervals (3..6) mix D in, E's share growing */
	double prev_share = 0;
	for (size_t i = 3; i < 9; i++) {
		sl_sim_interval_run(&x.s, x.c, i, 2.5, 1.2, &iv);
		if (i < 7) {
			assert_int_equal(iv.n_parts, 2);
			double share = (double)iv.part[1].instructions /
				       (double)(iv.part[0].instructions + iv.part[1].instructions);
			assert_true(share > (double)(i - 3) / 4 - 1e-9 &&
				    share < (double)(i - 2) / 4 + 1e-9);
			assert_true(share > prev_share);
			prev_share = share;
		} else {
			assert_int_equal(iv.n_parts, 1);
		}
	}
	sl_sim_interval_free(&iv);
	world_free(&x);
	unlink(m);
	free(m);

	/* queueing: the time solves t = max(t_lat(lat(u)), t_bw), u = t_bw/t */
	snprintf(mtext, sizeof mtext, "%s  dram_gbps: 8\n  queue_gain: 0.5\n", test_machine);
	m = write_tmp(mtext);
	world_load(&x, m, w, 0);
	memset(&iv, 0, sizeof iv);
	sl_sim_interval_run(&x.s, x.c, 1, 1.6, 0.95, &iv);
	double n = (double)iv.q[SL_Q_INSTRUCTIONS];
	double X = (double)llround(n * 10 / 1000), P = (double)llround(n * 40 / 1000);
	double Cc = n * 0.5, K = X / 4, h = SL_MIN(30, Cc / K);
	double t_bw = (X + P) * 64 / 8e9, u = SL_MIN(0.95, t_bw / iv.t);
	double lat = 60 * (1 + 0.5 * u / (1 - u));
	double t_lat = (Cc + K * SL_MAX(0, lat * 1.6 - h)) / 1.6e9;
	close_to(iv.t, SL_MAX(t_lat, t_bw), 1e-8);
	assert_true(lat > 60 * 1.2); /* the queue matters here */
	sl_sim_interval_free(&iv);
	world_drop(&x, m, w);
}

/* Power that does not scale with f*V^2, by hand (interval 0 of phase A, no
 * noise): the uncore's static power on its own clock, LLC and DRAM energy
 * per access at a fixed voltage, and a core gated while stalled. */
static void test_fixed_voltage_power(void **state)
{
	(void)state;
	char mtext[sizeof test_machine + 256];
	snprintf(mtext, sizeof mtext,
		 "%s  uncore_ratio: 1\n  uncore_max_ghz: 2\n  uncore_static_w: 6\n"
		 "  llc_access_nj: 2\n  dram_line_nj: 20\n  writeback_share: 0.25\n"
		 "  stall_gate_share: 0.5\n", test_machine);
	char *m = write_tmp(mtext), *w = write_tmp(test_workload);
	world x;
	world_load(&x, m, w, 0);
	sl_sim_interval iv = {0};
	const double f[2] = {2.5, 1.6}, V[2] = {1.2, 0.95};
	for (int k = 0; k < 2; k++) {
		sl_sim_interval_run(&x.s, x.c, 0, f[k], V[k], &iv);
		double N = (double)iv.q[SL_Q_INSTRUCTIONS];
		double cond = round(N * 0.1), mp = round(cond * 0.05);
		double hits = round(N * 10 / 1000), miss = round(N * 5 / 1000);
		double uops = round(N * 1.2), fp = round(N * 0.2), l2 = round(N * 40 / 1000);
		double core = N * 0.5, branch = mp * 20;
		/* the uncore at min(2, f): an LLC hit's 8 ns stretch below 2 GHz */
		double u = SL_MIN(2.0, f[k]);
		double hit = hits * 0.5 * (10 + 8 * (2 / u) * f[k]);
		double clusters = miss / 2, hidden = fmin(30, core / clusters);
		double mem = clusters * fmax(0, 60 * f[k] - hidden);
		double cycles = core + branch + hit + mem, t = cycles / (f[k] * 1e9);
		close_to(iv.t, t, 1e-12);
		double ceff = 5 + 4 * 2 * (1 - exp(-(uops / cycles) / 2)) + 30 * l2 / cycles +
			      60 * miss / cycles + 2 * fp / cycles + 20 * mp / cycles;
		double stat = 10 + 10 * (V[k] / 1.2) * exp(2 * (V[k] - 1.2));
		double unc = 6 * u / 2;
		double nj = 2 * (hits + miss) + 20 * miss * 1.25;
		double P = stat + unc + ceff * f[k] * V[k] * V[k] * (1 - 0.5 * mem / cycles) +
			   nj * 1e-9 / t;
		close_to(iv.e / iv.t, P, 1e-12);
		close_to(sl_sim_uncore_w(&x.m, f[k]), unc, 1e-15);
		close_to(sl_sim_idle_w(&x.m, f[k], V[k]), stat + unc + 1 * f[k] * V[k] * V[k],
			 1e-12);
	}
	sl_sim_interval_free(&iv);
	world_drop(&x, m, w);
}

static void test_mixing_and_shared_code(void **state)
{
	(void)state;
	world x;
	sl_sim_interval iv = {0};
	world_hand(&x);
	/* the flattened sequence: A x4, then 5 x (B x3, C x2) */
	assert_int_equal(x.w.n_intervals, 4 + 5 * 5);
	const char *want = "AAAABBBCCBBBCCBBBCCBBBCCBBBCC";
	for (size_t i = 0; i < x.w.n_intervals; i++)
		assert_int_equal(x.w.phases[x.w.phase_of[i]].name[0], want[i]);
	const sl_sim_phase *A = &x.w.phases[0], *B = &x.w.phases[1];
	size_t shared = 0;
	for (size_t i = 0; i < A->n_br; i++)
		for (size_t j = 0; j < B->n_br; j++)
			shared += A->addr[i] == B->addr[j];
	assert_true(shared > 0 && shared < A->n_br);
	sl_sim_interval_run(&x.s, x.c, 4, 2.5, 1.2, &iv); /* first of B */
	assert_int_equal(iv.n_parts, 2);
	assert_int_equal(iv.part[0].phase, 0);
	assert_int_equal(iv.part[1].phase, 1);
	assert_true(iv.part[0].instructions > 0 && iv.part[1].instructions > 0);
	assert_int_equal(iv.part[0].instructions + iv.part[1].instructions,
			 iv.q[SL_Q_INSTRUCTIONS]);
	assert_string_equal(iv.label, iv.part[0].instructions > iv.part[1].instructions
					      ? "A" : "B");
	/* branches of both phases, and A's private ones among them */
	size_t fromA = 0, fromB = 0;
	for (size_t i = 0; i < iv.n_br; i++) {
		for (size_t j = 0; j < A->n_br; j++)
			fromA += A->addr[j] == iv.br[i].addr;
		for (size_t j = 0; j < B->n_br; j++)
			fromB += B->addr[j] == iv.br[i].addr;
		if (i)
			assert_true(iv.br[i].addr > iv.br[i - 1].addr);
	}
	assert_true(fromA > shared && fromB > shared);
	/* counts between those of the pure phases */
	double fa = (double)iv.part[0].instructions / (double)iv.q[SL_Q_INSTRUCTIONS];
	double want_cond = fa * 0.1 + (1 - fa) * 0.2;
	close_to((double)iv.q[SL_Q_COND_BRANCHES] / (double)iv.q[SL_Q_INSTRUCTIONS],
		 want_cond, 1e-4);
	sl_sim_interval_run(&x.s, x.c, 5, 2.5, 1.2, &iv); /* inside B */
	assert_int_equal(iv.n_parts, 1);
	/* --intervals beyond the sequence repeats it */
	sl_sim_prepare(&x.s, &x.m, &x.w, 7, 100);
	assert_int_equal(x.s.n_intervals, 100);
	sl_sim_interval_run(&x.s, x.c, 29, 2.5, 1.2, &iv); /* C -> A again */
	assert_int_equal(iv.n_parts, 2);
	assert_int_equal(iv.part[1].phase, 0);
	sl_sim_interval_free(&iv);
	world_free(&x);
}

/* The meter integrates its own samples: constant power, no noise -> P*t. */
static void test_meter(void **state)
{
	(void)state;
	sl_meter mt;
	double e;
	sl_meter_init(&mt, 1000, 0, 1, NULL);
	sl_meter_add(&mt, 0.0105, 40);
	sl_meter_interval(&mt, 0, 0.0105);
	sl_meter_advance(&mt, 0);
	assert_int_equal(sl_meter_pop(&mt, &e), 0); /* no sample after 10.5 ms yet */
	sl_meter_add(&mt, 0.02, 60);
	sl_meter_interval(&mt, 0.0105, 0.0305);
	sl_meter_advance(&mt, 0);
	assert_int_equal(sl_meter_pop(&mt, &e), 1);
	/* samples at 10 ms (40 W) and 11 ms (60 W): the ramp between them */
	close_to(e, 0.010 * 40 + 0.0005 * (40 + 50) / 2, 1e-9);
	assert_int_equal(sl_meter_pop(&mt, &e), 0);
	sl_meter_advance(&mt, 1);
	assert_int_equal(sl_meter_pop(&mt, &e), 1);
	close_to(e, 0.0005 * (50 + 60) / 2 + 0.0195 * 60, 1e-9);
	sl_meter_free(&mt);
}

static void expect_load_error(const char *machine, const char *workload, const char *msg)
{
	char *path = write_tmp(machine ? machine : workload);
	sl_sim_machine m;
	sl_sim_workload w;
	int rc = machine ? sl_sim_machine_load(path, &m) : sl_sim_workload_load(path, &w);
	unlink(path);
	if (rc != -1 || !strstr(sl_error(), msg) || !strstr(sl_error(), path))
		fail_msg("want an error with '%s', got rc %d: %s", msg, rc, sl_error());
	free(path);
}

static char *edit(const char *text, const char *from, const char *to)
{
	const char *p = strstr(text, from);
	assert_non_null(p);
	return sl_xasprintf("%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
}

static void test_rejections(void **state)
{
	(void)state;
	static const struct {
		int machine;
		const char *from, *to, *msg;
	} cases[] = {
		{0, "cpi_core: 0.5, ", "", ":7: key 'cpi_core': missing required key in phase A"},
		{0, "mlp: 2,", "mlp: 0.5,", ":9: key 'mlp': 0.5 is out of range"},
		{0, "mlp: 2,", "mlp: x,", "key 'mlp': expected a number, found 'x'"},
		{0, "phase: C, for: 2", "phase: D, for: 2", "key 'phase': no phase named 'D'"},
		{0, "for: 4", "for: 0", "key 'for': 0 is not an interval count"},
		{0, "repeat: 5", "repeat: -5", "key 'repeat': expected a non-negative count"},
		{0, "l2_pki: 40", "l2_pki: 4", "key 'l2_pki': phase A: L2 references"},
		{0, "sleuth-workload/1", "sleuth-workload/2", "key 'format': expected sleuth-workload/1"},
		{0, "branches: 20,", "branches: 2.5,", "key 'branches': expected a whole number"},
		{0, "sequence:\n  - {phase: A, for: 4}", "sequence:\n  - {phase: A}",
		 "key 'for': missing required key"},
		{0, "interval_instructions: 1000000", "interval_instructions: 10",
		 "key 'interval_instructions'"},
		{1, "  memory_ns: 60\n", "", "key 'memory_ns': missing required key in truth"},
		{1, "counts: stall_cycles", "counts: stalls", "unknown quantity 'stalls'"},
		{1, "  - {name: cycles, counts: cycles}\n", "", "key 'events': must begin with"},
		{1, "{ghz: 1.6, volts: 0.95}", "{ghz: 2.5, volts: 0.95}", "listed twice"},
		{1, "volts: 0.95", "volts: .nan", "key 'volts': NaN is not allowed"},
		{1, "programmable: 4", "programmable: 0", "key 'programmable'"},
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
		const char *base = cases[i].machine ? test_machine : test_workload;
		char *text = edit(base, cases[i].from, cases[i].to);
		expect_load_error(cases[i].machine ? text : NULL, cases[i].machine ? NULL : text,
				  cases[i].msg);
		free(text);
	}
	sl_sim_machine m;
	assert_int_equal(sl_sim_machine_load("/nonexistent/m.yaml", &m), -1);
	assert_non_null(strstr(sl_error(), "cannot open /nonexistent/m.yaml"));
	assert_int_equal(sl_sim_machine_load(SHIPPED_MACHINE, &m), 0);
	assert_int_equal(m.n_pstates, 9);
	assert_int_equal(m.n_events, 12);
	assert_int_equal(sl_sim_machine_pstate(&m, 2.0), 5);
	assert_int_equal(sl_sim_machine_pstate(&m, 3.0), -1);
	assert_non_null(strstr(sl_error(), "use one of 2.66, 2.53,"));
	sl_sim_machine_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_computation),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_frequency_invariance),
		cmocka_unit_test(test_memory_bound_slowdown),
		cmocka_unit_test(test_mixing_and_shared_code),
		cmocka_unit_test(test_harder_physics),
		cmocka_unit_test(test_fixed_voltage_power),
		cmocka_unit_test(test_meter),
		cmocka_unit_test(test_rejections),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
