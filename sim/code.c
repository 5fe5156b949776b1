/*
 * The workload's code: which conditional branches each phase executes and
 * how hot each one is.  Laid out once per seed so that every interval (at
 * any frequency) sees the same program.
 *
 * Addresses grow from 0x400000 with random gaps: first a pool shared by all
 * phases, then each phase's own.  A phase takes `shared` of its branches
 * from the pool, so phases overlap in code as real ones do; each phase
 * ranks its branches in a random order and weights rank r by 1/r^zipf.
 */
#include "sleuth/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim-int.h"

#define CODE_BASE 0x400000u

static uint64_t next_addr(gsl_rng *r, uint64_t a)
{
	/* 2-byte aligned, 6 to 96 bytes apart: compiled code's branch density */
	return a + 2 * (3 + gsl_rng_uniform_int(r, 46));
}

struct pair {
	uint64_t addr;
	double w;
};

static int by_addr(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

void sl_sim_prepare(sl_sim *s, const sl_sim_machine *m, sl_sim_workload *w,
		    uint64_t seed, size_t n_intervals)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
	uint64_t a = CODE_BASE;
	size_t npool = w->shared_branches;
	uint64_t *pool = sl_xcalloc(npool ? npool : 1, sizeof *pool);
	uint64_t *chosen = sl_xcalloc(npool ? npool : 1, sizeof *chosen);

	s->m = m;
	s->w = w;
	s->seed = seed;
	s->n_intervals = n_intervals ? n_intervals : w->n_intervals;
	gsl_rng_set(r, (unsigned long)sl_sim_key_hash(seed, SL_STREAM_CODE, 0, 0, 0));
	for (size_t i = 0; i < npool; i++)
		pool[i] = a = next_addr(r, a);
	for (size_t p = 0; p < w->n_phases; p++) {
		sl_sim_phase *ph = &w->phases[p];
		if (ph->code_of >= 0)
			continue; /* laid out below, as its code's phase */
		size_t n = (size_t)ph->p[SL_P_BRANCHES];
		size_t nshared = (size_t)llround(ph->p[SL_P_SHARED] * (double)n);
		struct pair *pr = sl_xcalloc(n, sizeof *pr);
		size_t *rank = sl_xcalloc(n, sizeof *rank);
		if (nshared > npool)
			nshared = npool;
		if (nshared)
			gsl_ran_choose(r, chosen, nshared, pool, npool, sizeof *pool);
		for (size_t i = 0; i < nshared; i++)
			pr[i].addr = chosen[i];
		a += 0x1000; /* each phase's own code starts on a new page */
		for (size_t i = nshared; i < n; i++)
			pr[i].addr = a = next_addr(r, a);
		for (size_t i = 0; i < n; i++)
			rank[i] = i + 1;
		gsl_ran_shuffle(r, rank, n, sizeof *rank);
		for (size_t i = 0; i < n; i++)
			pr[i].w = pow((double)rank[i], -ph->p[SL_P_ZIPF]);
		qsort(pr, n, sizeof *pr, by_addr);
		free(ph->addr);
		free(ph->weight);
		ph->addr = sl_xcalloc(n, sizeof *ph->addr);
		ph->weight = sl_xcalloc(n, sizeof *ph->weight);
		for (size_t i = 0; i < n; i++) {
			ph->addr[i] = pr[i].addr;
			ph->weight[i] = pr[i].w;
		}
		ph->n_br = n;
		free(pr);
		free(rank);
	}
	/* Same code on other data: the other phase's branches and weights. */
	for (size_t p = 0; p < w->n_phases; p++) {
		sl_sim_phase *ph = &w->phases[p];
		if (ph->code_of < 0)
			continue;
		const sl_sim_phase *src = &w->phases[ph->code_of];
		free(ph->addr);
		free(ph->weight);
		ph->n_br = src->n_br;
		ph->addr = sl_xcalloc(ph->n_br, sizeof *ph->addr);
		ph->weight = sl_xcalloc(ph->n_br, sizeof *ph->weight);
		memcpy(ph->addr, src->addr, ph->n_br * sizeof *ph->addr);
		memcpy(ph->weight, src->weight, ph->n_br * sizeof *ph->weight);
	}
	/* Code drift: each branch's weight drifts with its own fixed normal
	 * z_k times the phase's slow drift g(i) (a stream of its own, so the
	 * layout above is what it was without code drift). */
	for (size_t p = 0; p < w->n_phases; p++) {
		sl_sim_phase *ph = &w->phases[p];
		free(ph->zcode);
		ph->zcode = NULL;
		if (!(ph->p[SL_P_CODE_DRIFT] > 0))
			continue;
		gsl_rng_set(r, (unsigned long)sl_sim_key_hash(seed, SL_STREAM_CODE, 1, p, 0));
		ph->zcode = sl_xcalloc(ph->n_br, sizeof *ph->zcode);
		for (size_t k = 0; k < ph->n_br; k++)
			ph->zcode[k] = gsl_ran_gaussian(r, 1.0);
	}
	free(pool);
	free(chosen);
	gsl_rng_free(r);
}
