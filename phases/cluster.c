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
		/* strict <: on a tie the older phase wins */
		if (d <= c->threshold && (best == c->count || d < best_d)) {
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
	n = n < c->count ? n : c->count;
	for (size_t j = 0; j < n; j++) {
		const sl_code_stat *b = &st[j];
		int brief = b->n < SL_BEHAVE_MIN_RUN * b->runs;
		root[j] = (uint32_t)j;
		for (size_t i = 0; i < j; i++) {
			const sl_code_stat *a = &st[i];
			if (root[i] != i || !(a->samples > 0 && b->samples > 0))
				continue;
			/* one interval of each; for a brief phase, all of both
			 * (the variances of the two means add) */
			double samples = brief ? a->samples * b->samples / (a->samples + b->samples)
					       : (a->samples + b->samples) / (a->n + b->n);
			if (sl_bv_distance(&c->cent[i * c->dims], &c->cent[j * c->dims], c->dims) <=
			    noise(c, samples, cap)) {
				root[j] = (uint32_t)i;
				break;
			}
		}
	}
}
