/*
 * Synthetic phase workloads: see synth.h.  Shared by tests/phases and the
 * threshold experiment in bench/ so both measure the same world.
 */
#include "synth.h"

#include <math.h>
#include <stdlib.h>

#include "sleuth/common.h"
#include "sleuth/phases.h"

synth_code *synth_code_new(const synth_params *p, gsl_rng *r)
{
	synth_code *c = sl_xcalloc(1, sizeof *c);
	c->p = *p;
	unsigned shared_n = (unsigned)lround(p->overlap * p->hot);
	/* The shared pool: code every phase runs some of (libraries, utility
	 * functions).  Each phase takes shared_n of its addresses from it. */
	size_t pool_n = SL_MAX(2 * (size_t)shared_n, 1);
	uint64_t *pool = sl_xmalloc(pool_n * sizeof *pool);
	for (size_t i = 0; i < pool_n; i++)
		pool[i] = 0x7f0000000000ULL + 4 * gsl_rng_uniform_int(r, 1u << 24);
	c->addr = sl_xcalloc(p->n_phases, sizeof *c->addr);
	c->weights = sl_xcalloc(p->n_phases, sizeof *c->weights);
	double *w = sl_xmalloc(p->hot * sizeof *w);
	for (unsigned ph = 0; ph < p->n_phases; ph++) {
		uint64_t *a = sl_xmalloc(p->hot * sizeof *a);
		uint64_t base = 0x400000 + (uint64_t)ph * 0x100000;
		for (unsigned i = 0; i < p->hot; i++)
			a[i] = i < shared_n
				       ? pool[gsl_rng_uniform_int(r, pool_n)]
				       : base + 4 * gsl_rng_uniform_int(r, 1u << 18);
		/* Hotness is unrelated to sharing: shuffle before ranking. */
		gsl_ran_shuffle(r, a, p->hot, sizeof *a);
		for (unsigned i = 0; i < p->hot; i++)
			w[i] = 1.0 / pow(i + 1, p->zipf_s);
		c->addr[ph] = a;
		c->weights[ph] = gsl_ran_discrete_preproc(p->hot, w);
	}
	free(w);
	free(pool);
	return c;
}

void synth_code_free(synth_code *c)
{
	if (!c)
		return;
	for (unsigned ph = 0; ph < c->p.n_phases; ph++) {
		free(c->addr[ph]);
		gsl_ran_discrete_free(c->weights[ph]);
	}
	free(c->addr);
	free(c->weights);
	free(c);
}

size_t synth_interval(const synth_code *c, gsl_rng *r, uint32_t phase,
		      uint32_t prev, double mix, uint64_t *out)
{
	size_t n = gsl_ran_poisson(r, c->p.samples);
	size_t cap = 4 * (size_t)c->p.samples + 64;
	if (n > cap)
		n = cap;
	for (size_t i = 0; i < n; i++) {
		uint32_t ph = gsl_rng_uniform(r) < mix ? prev : phase;
		out[i] = c->addr[ph][gsl_ran_discrete(r, c->weights[ph])];
	}
	return n;
}

void synth_seq_runs(gsl_rng *r, unsigned n_phases, unsigned min_len,
		    unsigned max_len, uint32_t *labels, size_t n)
{
	uint32_t cur = 0;
	size_t i = 0;
	while (i < n) {
		unsigned len = min_len + gsl_rng_uniform_int(r, max_len - min_len + 1);
		for (unsigned j = 0; j < len && i < n; j++)
			labels[i++] = cur;
		if (n_phases > 1)
			cur = (cur + 1 + gsl_rng_uniform_int(r, n_phases - 1)) % n_phases;
	}
}

void synth_seq_alternate(gsl_rng *r, unsigned len0, unsigned len1,
			 unsigned jitter, uint32_t *labels, size_t n)
{
	uint32_t cur = 0;
	size_t i = 0;
	while (i < n) {
		int len = (int)(cur ? len1 : len0);
		if (jitter)
			len += (int)gsl_rng_uniform_int(r, 2 * jitter + 1) - (int)jitter;
		if (len < 1)
			len = 1;
		for (int j = 0; j < len && i < n; j++)
			labels[i++] = cur;
		cur = !cur;
	}
}

double synth_cluster_ari(const synth_code *c, gsl_rng *r, const uint32_t *labels,
			 size_t n, const synth_how *how, size_t *n_found)
{
	const unsigned dims = SL_BV_DIMS_DEFAULT;
	uint64_t *s = sl_xmalloc((4 * (size_t)c->p.samples + 64) * sizeof *s);
	double vec[SL_BV_DIMS_DEFAULT];
	uint32_t *truth = sl_xmalloc(n * sizeof *truth);
	uint32_t *found = sl_xmalloc(n * sizeof *found);
	size_t m = 0;
	sl_cluster *cl = sl_cluster_new(dims, how->threshold);
	sl_cluster_set_alpha(cl, how->alpha);
	for (size_t i = 0; i < n; i++) {
		int first = i > 0 && labels[i] != labels[i - 1];
		double mix = first && c->p.mix_first ? gsl_rng_uniform(r) : 0;
		size_t k = synth_interval(c, r, labels[i], i ? labels[i - 1] : 0,
					  mix, s);
		sl_bv_build(s, k, dims, 0x5eed, vec);
		if (how->adaptive)
			sl_cluster_set_threshold(cl, sl_threshold_for(dims, k) -
							     SL_THRESHOLD_MARGIN +
							     how->margin);
		uint32_t id = sl_cluster_assign(cl, vec);
		if (!(first && c->p.mix_first)) {
			truth[m] = labels[i];
			found[m++] = id;
		}
	}
	double ari = sl_ari(truth, found, m);
	if (n_found)
		*n_found = sl_cluster_count(cl);
	sl_cluster_free(cl);
	free(s);
	free(truth);
	free(found);
	return ari;
}
