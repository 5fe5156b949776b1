/*
 * bench/schedule: how long the global solver takes on a large generated
 * table (default 1,000 phases x 32 P-states, one instance per phase, 10%
 * bound) -- the target is under 0.5 s.  Prints one line per
 * objective: seconds, whether the result is proven optimal, and the saving.
 *
 * usage: bench-schedule [PHASES [PSTATES [INSTANCES_PER_PHASE [TRANSITION_US [BOUND [SEED]]]]]]
 *
 * The solver's time depends on the table (how many phases sit near the
 * bound's trade-off), so SEED (default 1) draws other tables of the same
 * shape.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_rng.h>

#include "sleuth/common.h"
#include "sleuth/schedule.h"

/* GSL's Mersenne Twister, seeded once: the same table on every run. */
static gsl_rng *rng;

static double urand(void)
{
	return gsl_rng_uniform(rng);
}

int main(int argc, char **argv)
{
	size_t K = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	size_t P = argc > 2 ? strtoul(argv[2], NULL, 10) : 32;
	size_t R = argc > 3 ? strtoul(argv[3], NULL, 10) : 1;
	double tus = argc > 4 ? strtod(argv[4], NULL) : 0;
	double bound = argc > 5 ? strtod(argv[5], NULL) : 0.10;
	unsigned long seed = argc > 6 ? strtoul(argv[6], NULL, 10) : 1;
	if (!K || !P || !R) {
		fprintf(stderr, "usage: bench-schedule [PHASES [PSTATES [REPEATS [TRANSITION_US "
				"[BOUND [SEED]]]]]]\n");
		return 2;
	}
	size_t N = K * R;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	double *ghz = sl_xmalloc(P * sizeof *ghz);
	for (size_t p = 0; p < P; p++)
		ghz[p] = 3.5 - (P > 1 ? 2.3 * (double)p / (double)(P - 1) : 0);
	uint32_t *ph = sl_xmalloc(N * sizeof *ph);
	double *t = sl_xmalloc(N * P * sizeof *t), *e = sl_xmalloc(N * P * sizeof *e);
	double *mem = sl_xmalloc(K * sizeof *mem), *cef = sl_xmalloc(K * sizeof *cef);
	for (size_t k = 0; k < K; k++) {
		mem[k] = urand();          /* memory-bound share of time at fmax */
		cef[k] = 4 + 8 * urand();  /* effective capacitance, nF */
	}
	/* the stall-based time model and P = Pstatic(V) + Ceff f V^2 */
	for (size_t i = 0; i < N; i++) {
		/* phases repeat in a loop: 0 1 2 ... K-1 0 1 2 ... */
		size_t k = i % K;
		ph[i] = (uint32_t)k;
		double len = 0.001 + 0.05 * urand();
		for (size_t p = 0; p < P; p++) {
			double f = ghz[p], v = 0.7 + 0.16 * f;
			double w = 8 * v * v * v + cef[k] * f * v * v;
			t[i * P + p] = len * (mem[k] + (1 - mem[k]) * ghz[0] / f);
			e[i * P + p] = w * t[i * P + p] * (0.97 + 0.06 * urand());
		}
	}
	sl_sched_table tab = {P, ghz, 0, K, N, ph, t, e, NULL, NULL};
	printf("# %zu phases x %zu P-states, %zu instances, bound %g%%, switch %g us, seed %lu\n",
	       K, P, N, 100 * bound, tus, seed);
	for (int obj = 0; obj < 3; obj++) {
		sl_sched_opts o = {.objective = (sl_objective)obj, .max_slowdown = bound,
				   .transition_s = tus * 1e-6};
		sl_sched_result r;
		double t0 = sl_now();
		if (sl_schedule_solve(&tab, &o, &r) < 0) {
			fprintf(stderr, "bench-schedule: %s\n", sl_error());
			return 1;
		}
		double dt = sl_now() - t0;
		double f = sl_objective_value(o.objective, r.total.time_s, r.total.energy_j);
		double fb = sl_objective_value(o.objective, r.base.time_s, r.base.energy_j);
		double ff = sl_objective_value(o.objective, r.fixed.time_s, r.fixed.energy_j);
		char how[48];
		if (r.exact)
			snprintf(how, sizeof how, "optimal");
		else
			snprintf(how, sizeof how, "within %.2g%% of optimal",
				 100 * (f / r.lower_bound - 1));
		printf("%-10s %.3f s  %-24s  slowdown %.4f  objective -%.2f%% vs fmax, "
		       "-%.2f%% vs best fixed %.2f GHz\n", sl_objective_name(o.objective),
		       dt, how, r.total.time_s / r.base.time_s - 1,
		       100 * (1 - f / fb), 100 * (1 - f / ff),
		       r.fixed_pstate >= 0 ? ghz[r.fixed_pstate] : 0.0);
		sl_sched_result_free(&r);
	}
	free(ghz);
	free(ph);
	free(t);
	free(e);
	free(mem);
	free(cef);
	gsl_rng_free(rng);
	return 0;
}
