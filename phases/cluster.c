/*
 * Online leader-follower clustering of branch vectors into phases: a vector
 * joins the nearest phase whose centroid lies within the threshold
 * (Manhattan distance) and pulls that centroid toward itself; otherwise it
 * founds a new phase.  One pass, no look-ahead, so it runs while the program
 * does, and IDs are handed out in order of first appearance.
 *
 * The centroid is the running mean of its members by default (alpha 0); an
 * exponentially weighted mean (alpha in (0,1]) can follow slow drift
 * instead.  docs/phases.md records which separates better and why the
 * default is what it is.
 *
 * At the end of a run, sl_code_merge finds the phases that are one code:
 * a phase whose code drifted past the threshold, or one founded by a noisy
 * early interval, ends up beside its original with centroids closer than
 * the sampling noise, and the two share its intervals.
 *
 * With few samples an interval (below the ~289 that keep the worst-case
 * noise bound under the collector's cap) the capped threshold cannot hold
 * the intervals of one code: a floor from the phase's own distribution
 * (sl_expected_noise, the binomial noise rather than the uniform worst
 * case) lets them join, and sl_code_merge folds the copies that remain.
 */
#include "sleuth/phases.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"

struct sl_cluster {
	unsigned dims;
	double threshold;
	double alpha;     /* 0: running mean */
	double floor_n, floor_margin; /* sl_cluster_set_noise_floor */
	double *cent;     /* count * dims */
	uint64_t *members;
	size_t count, cap;
};

sl_cluster *sl_cluster_new(unsigned dims, double threshold)
{
	sl_cluster *c = sl_xcalloc(1, sizeof *c);
	c->dims = dims;
	c->threshold = threshold;
	return c;
}

void sl_cluster_set_threshold(sl_cluster *c, double threshold)
{
	c->threshold = threshold;
}

/* Sampling noise: with n samples of a distribution p over `dims` bins,
 * each bin's share is off by about sqrt(p (1 - p) / n), and the expected
 * absolute error of a normal deviate is sqrt(2 / pi) times that; summed
 * over bins it is largest for the uniform p, sqrt(2 (dims - 1) / (pi n)).
 * A fixed threshold is either too tight for small samples (phases split)
 * or too loose for large ones (similar phases merge); this one follows the
 * noise and keeps a constant margin above it. */
double sl_threshold_for(unsigned dims, size_t n_samples)
{
	double n = n_samples ? (double)n_samples : 1;
	double free_bins = dims > 1 ? dims - 1 : 0;
	return SL_THRESHOLD_MARGIN + sqrt(2.0 * free_bins / (M_PI * n));
}

size_t sl_samples_for(unsigned dims, double margin, double cap)
{
	double room = cap - margin, free_bins = dims > 1 ? dims - 1 : 0;
	if (!(room > 0))
		return SIZE_MAX;
	return (size_t)ceil(2.0 * free_bins / (M_PI * room * room));
}

/* The expected L1 distance between a distribution p and its estimate from
 * n samples: per bin, the mean absolute deviation of a binomial (De
 * Moivre: 2 k C(n,k) p^k (1-p)^(n-k+1) / n, k = floor(n p) + 1).  Unlike
 * the worst-case bound it follows p: a bin of p n << 1 adds about 2 p,
 * not sqrt(p / n), so it never exceeds 2 and needs no cap. */
double sl_expected_noise(const double *p, unsigned dims, double n)
{
	double sum = 0;
	if (!(n >= 1))
		return 2;
	n = floor(n);
	for (unsigned b = 0; b < dims; b++) {
		double q = p[b];
		if (!(q > 0) || q >= 1)
			continue;
		double k = floor(n * q) + 1;
		if (k > n)
			continue;
		double lc = lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
		sum += 2 * k * exp(lc + k * log(q) + (n - k + 1) * log1p(-q)) / n;
	}
	return sum;
}

void sl_cluster_set_noise_floor(sl_cluster *c, double n_samples, double margin)
{
	c->floor_n = n_samples;
	c->floor_margin = margin;
}

void sl_cluster_set_alpha(sl_cluster *c, double alpha)
{
	c->alpha = alpha;
}

uint32_t sl_cluster_assign(sl_cluster *c, const double *vec)
{
	size_t best = c->count;
	double best_d = 0;
	for (size_t i = 0; i < c->count; i++) {
		double d = sl_bv_distance(&c->cent[i * c->dims], vec, c->dims);
		double t = c->threshold;
		if (d > t && c->floor_n > 0) {
			/* the centroid is itself an estimate, from its members'
			 * samples: the variances of the two add */
			double m = (double)c->members[i];
			double f = c->floor_margin +
				   sl_expected_noise(&c->cent[i * c->dims], c->dims,
						     c->floor_n * m / (m + 1));
			/* at least the margin's half of it where the phase's is */
			f = f < 2 - c->floor_margin ? f : 2 - c->floor_margin;
			t = f > t ? f : t;
		}
		/* strict <: on a tie the older phase wins */
		if (d <= t && (best == c->count || d < best_d)) {
			best = i;
			best_d = d;
		}
	}
	if (best == c->count) {
		if (c->count >= c->cap) {
			c->cap = c->cap ? 2 * c->cap : 16;
			c->cent = sl_xreallocarray(c->cent, c->cap * c->dims,
						   sizeof *c->cent);
			c->members = sl_xreallocarray(c->members, c->cap,
						      sizeof *c->members);
		}
		memcpy(&c->cent[best * c->dims], vec, c->dims * sizeof *vec);
		c->members[best] = 1;
		c->count++;
		return (uint32_t)best;
	}
	double *ce = &c->cent[best * c->dims];
	double w = c->alpha > 0 ? c->alpha : 1.0 / (double)++c->members[best];
	if (c->alpha > 0)
		c->members[best]++;
	for (unsigned d = 0; d < c->dims; d++)
		ce[d] += w * (vec[d] - ce[d]);
	return (uint32_t)best;
}

size_t sl_cluster_count(const sl_cluster *c)
{
	return c->count;
}

const double *sl_cluster_centroid(const sl_cluster *c, uint32_t id)
{
	return id < c->count ? &c->cent[(size_t)id * c->dims] : NULL;
}

void sl_cluster_free(sl_cluster *c)
{
	if (!c)
		return;
	free(c->cent);
	free(c->members);
	free(c);
}

/* The sampling noise of the L1 distance between two estimates of one
 * distribution from n samples, capped as the collector's threshold is. */
static double noise(const sl_cluster *c, double n, double cap)
{
	double t = sl_threshold_for(c->dims, n >= 1 ? (size_t)n : 1) - SL_THRESHOLD_MARGIN;
	return t < cap ? t : cap;
}

void sl_code_merge(const sl_cluster *c, const sl_code_stat *st, size_t n, double cap,
		   uint32_t *root)
{
	/* the collector caps its threshold, margin + noise, at the cap */
	double margin = SL_THRESHOLD_CAP - cap;
	unsigned dims = c->dims;
	n = n < c->count ? n : c->count;
	/* each root's code with all it took in: centroid and samples */
	double *pool = sl_xcalloc(n * dims + 1, sizeof *pool);
	double *pool_s = sl_xcalloc(n + 1, sizeof *pool_s);
	for (size_t j = 0; j < n; j++) {
		const sl_code_stat *b = &st[j];
		const double *cb = &c->cent[j * dims];
		int brief = b->n < SL_BEHAVE_MIN_RUN * b->runs;
		size_t near = j;
		double near_r = 0;
		root[j] = (uint32_t)j;
		for (size_t i = 0; i < j; i++) {
			const sl_code_stat *a = &st[i];
			if (root[i] != i || !(a->samples > 0 && b->samples > 0))
				continue;
			/* one interval of each; for a brief phase, all of both
			 * (the variances of the two means add) */
			double samples = brief ? a->samples * b->samples / (a->samples + b->samples)
					       : (a->samples + b->samples) / (a->n + b->n);
			if (sl_bv_distance(&c->cent[i * dims], cb, dims) <= noise(c, samples, cap)) {
				root[j] = (uint32_t)i;
				break;
			}
			/* Few samples an interval (the worst-case noise of one
			 * is above the cap): the collector's threshold could not
			 * hold the intervals of one code, and its copies last.
			 * A copy is one with the root whose code, with all the
			 * samples that root took in, lies within the collector's
			 * margin over the noise of the two (sl_expected_noise,
			 * at the root's own distribution); the nearest such. */
			double per = (a->samples + b->samples) / (a->n + b->n);
			if (sl_threshold_for(dims, per >= 1 ? (size_t)per : 1) <= SL_THRESHOLD_CAP)
				continue;
			const double *pa = &pool[i * dims];
			double d = sl_bv_distance(pa, cb, dims);
			double t = margin + sl_expected_noise(pa, dims,
							      pool_s[i] * b->samples /
								      (pool_s[i] + b->samples));
			if (d <= t && (near == j || d / t < near_r)) {
				near = i;
				near_r = d / t;
			}
		}
		if (root[j] == j && near != j)
			root[j] = (uint32_t)near;
		size_t r = root[j];
		double *pr = &pool[r * dims], w = b->samples > 0 ? b->samples : 0;
		if (pool_s[r] + w > 0)
			for (unsigned k = 0; k < dims; k++)
				pr[k] = (pr[k] * pool_s[r] + cb[k] * w) / (pool_s[r] + w);
		pool_s[r] += w;
	}
	free(pool);
	free(pool_s);
}
