/*
 * gen-profile: write a synthetic profile through sl_profile_write, for the
 * predict CLI tests (small ones, and the refusals: timer profiles, other
 * machines) and for bench/predict.sh (a million intervals).  Nehalem-like
 * per-phase event rates with noise; 4 programmable counters rotated over
 * the 8 model events of data/machines/nehalem-i7-920.yaml, so most values are
 * interpolated, as in a real multiplexed run.  Instances are short enough
 * that every phase appears, from compute- to memory-bound.  Random numbers:
 * GSL's generator, seeded (--seed), so a run is reproducible.
 *
 *   gen-profile OUT INTERVALS [--timer] [--machine FILE | --no-machine]
 *               [--freq GHZ] [--seed N]
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sleuth/common.h"
#include "sleuth/profile.h"

#define N_PHASES 7
#define N_EVENTS 8
#define K 4

static const char *const events[N_EVENTS] = {
	"UOPS_EXECUTED:PORT015_STALL_CYCLES", "LLC_MISSES",
	"UOPS_EXECUTED:PORT234_CORE", "L2_RQSTS:MISS", "L2_RQSTS:REFERENCES",
	"RESOURCE_STALLS:ANY", "FP_COMP_OPS_EXE:SSE_FP", "BR_MISP_EXEC:ANY",
};

/* GSL's Mersenne Twister (--seed N, default 1): the same profile for the
 * same arguments. */
static gsl_rng *rng;

/* Per-instruction behaviour of a phase: compute-bound phases first,
 * memory-bound ones last. */
typedef struct phase_rates {
	double cpi_core;     /* cycles per instruction with no off-chip stalls */
	double llc_pki;      /* LLC misses per kilo-instruction */
	double per_ins[N_EVENTS];
} phase_rates;

static void make_phases(phase_rates *ph, double f0)
{
	for (int p = 0; p < N_PHASES; p++) {
		double mem = (double)p / (N_PHASES - 1); /* 0 .. 1 */
		phase_rates *r = &ph[p];
		r->cpi_core = 0.6 + 0.4 * gsl_rng_uniform(rng);
		r->llc_pki = 0.05 + 20 * mem * mem;
		double llc = r->llc_pki / 1000;
		double offchip = llc * 65 * f0 / 2.0; /* misses overlap in pairs */
		r->per_ins[0] = 0.2 * r->cpi_core + offchip * 1.1; /* stall cycles */
		r->per_ins[1] = llc;
		r->per_ins[2] = 0.35 + 0.1 * gsl_rng_uniform(rng);
		r->per_ins[3] = llc * 1.5;
		r->per_ins[4] = llc * 4 + 0.01;
		r->per_ins[5] = 0.05 * r->cpi_core + offchip * 0.15;
		r->per_ins[6] = (1 - mem) * 0.3 * gsl_rng_uniform(rng);
		r->per_ins[7] = 0.002 + 0.01 * gsl_rng_uniform(rng);
	}
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *s = sl_xmalloc(cap);
	size_t got;
	while ((got = fread(s + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap)
			s = sl_xrealloc(s, cap *= 2);
	}
	fclose(f);
	s[n] = 0;
	return s;
}

int main(int argc, char **argv)
{
	int timer = 0, no_machine = 0;
	unsigned long seed = 1;
	const char *machine = NULL;
	double f0 = 2.666;
	static const struct option lo[] = {
		{"timer", no_argument, NULL, 't'}, {"machine", required_argument, NULL, 'm'},
		{"no-machine", no_argument, NULL, 'n'}, {"freq", required_argument, NULL, 'f'},
		{"seed", required_argument, NULL, 's'}, {NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 't')
			timer = 1;
		else if (c == 'm')
			machine = optarg;
		else if (c == 'n')
			no_machine = 1;
		else if (c == 'f')
			f0 = atof(optarg);
		else if (c == 's')
			seed = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: gen-profile OUT INTERVALS [--timer] "
				"[--machine FILE | --no-machine] [--freq GHZ] [--seed N]\n");
		return 2;
	}
	const char *out = argv[optind];
	size_t n = strtoull(argv[optind + 1], NULL, 10);

	sl_profile p;
	sl_profile_init(&p);
	p.command = sl_xstrdup("gen-profile (synthetic)");
	p.backend = sl_xstrdup(timer ? "timer" : "replay");
	p.workload = sl_xstrdup("synthetic");
	p.freq_ghz = f0;
	p.interval_instructions = timer ? 0 : 100000000;
	p.interval_s = timer ? 0.01 : 0;
	p.has_counts = !timer;
	if (!no_machine) {
		char *def = NULL;
		if (!machine)
			machine = def = sl_xasprintf("%s/data/machines/nehalem-i7-920.yaml", SLEUTH_SRCDIR);
		p.machine_text = slurp(machine);
		if (!p.machine_text) {
			fprintf(stderr, "gen-profile: cannot read %s\n", machine);
			return 1;
		}
		p.machine_path = sl_xstrdup(machine);
		free(def);
	}
	p.n_phases = N_PHASES;
	p.phases = sl_xcalloc(N_PHASES, sizeof *p.phases);
	for (uint32_t i = 0; i < N_PHASES; i++)
		p.phases[i].id = i;
	p.n_events = timer ? 0 : N_EVENTS;
	p.events = sl_xcalloc(N_EVENTS, sizeof *p.events);
	for (size_t k = 0; k < p.n_events; k++)
		p.events[k] = sl_xstrdup(events[k]);
	p.n_intervals = n;
	p.iv = sl_xcalloc(n + 1, sizeof *p.iv);
	p.counts = timer ? NULL : sl_xmalloc((n + 1) * N_EVENTS * sizeof *p.counts);

	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	phase_rates ph[N_PHASES];
	make_phases(ph, f0);
	/* Instances of 1..max_len intervals, short enough that even a small
	 * profile visits every phase; their phases go round a shuffled cycle
	 * of all phases, reshuffled each time round. */
	size_t max_len = SL_MIN(SL_MAX(n / (2 * N_PHASES), (size_t)1), (size_t)200);
	uint32_t order[N_PHASES];
	for (uint32_t k = 0; k < N_PHASES; k++)
		order[k] = k;
	uint32_t cur = 0;
	size_t left = 0, next = N_PHASES;
	double t = 0;
	for (size_t i = 0; i < n; i++) {
		if (!left) {
			if (next == N_PHASES) {
				gsl_ran_shuffle(rng, order, N_PHASES, sizeof *order);
				next = 0;
			}
			cur = order[next++];
			left = 1 + (size_t)(gsl_rng_uniform(rng) * (double)max_len);
		}
		left--;
		const phase_rates *r = &ph[cur];
		double ins = 1e8;
		double noise = 0.95 + 0.1 * gsl_rng_uniform(rng);
		double offchip = r->llc_pki / 1000 * ins * 65 * f0 / 2.0;
		double cyc = (r->cpi_core * ins + offchip) * noise;
		sl_prof_interval *v = &p.iv[i];
		v->phase = cur;
		v->start_s = t;
		v->time_s = cyc / (f0 * 1e9);
		v->cycles = timer ? 0 : (uint64_t)cyc;
		v->instructions = timer ? 0 : (uint64_t)ins;
		v->energy_j = NAN;
		t += v->time_s;
		for (size_t k = 0; k < p.n_events; k++) {
			int on = ((k + N_EVENTS - (i * K) % N_EVENTS) % N_EVENTS) < K;
			p.counts[i * N_EVENTS + k] =
				on ? (uint64_t)(r->per_ins[k] * ins * noise) : SL_MISSING;
		}
	}
	int rc = sl_profile_write(out, &p);
	if (rc < 0)
		fprintf(stderr, "gen-profile: %s\n", sl_error());
	sl_profile_free(&p);
	gsl_rng_free(rng);
	return rc < 0 ? 1 : 0;
}
