/*
 * Synthetic phase workloads for the phase tests and the threshold
 * experiment (bench/phases-threshold.c): per phase a set of hot branch
 * addresses with Zipf weights, partly shared with the other phases, and
 * phase sequences shaped like real programs (many short phases; two
 * alternating phases with fixed or jittered lengths).
 */
#ifndef SLEUTH_TEST_SYNTH_H
#define SLEUTH_TEST_SYNTH_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

typedef struct synth_params {
	unsigned n_phases;
	unsigned hot;      /* hot branch addresses per phase */
	double overlap;    /* fraction of them shared with the other phases */
	double zipf_s;     /* Zipf exponent of their weights */
	unsigned samples;  /* mean samples per interval (Poisson) */
	int mix_first;     /* first interval of an instance mixes in the previous phase */
} synth_params;

typedef struct synth_code {
	synth_params p;
	uint64_t **addr;              /* [phase][hot] */
	gsl_ran_discrete_t **weights; /* [phase] */
} synth_code;

synth_code *synth_code_new(const synth_params *p, gsl_rng *r);
void synth_code_free(synth_code *c);

/* Samples of one interval of `phase`; when mix is in (0,1) that fraction of
 * them comes from `prev` instead.  Returns the count written to out (which
 * must hold 4 * samples + 64). */
size_t synth_interval(const synth_code *c, gsl_rng *r, uint32_t phase,
		      uint32_t prev, double mix, uint64_t *out);

/* Phase sequences of n intervals into labels[]. */
/* Random phase order (never the same twice in a row), run lengths uniform
 * in [min_len, max_len]. */
void synth_seq_runs(gsl_rng *r, unsigned n_phases, unsigned min_len,
		    unsigned max_len, uint32_t *labels, size_t n);
/* Two phases alternating with run lengths len0 and len1, each +- jitter. */
void synth_seq_alternate(gsl_rng *r, unsigned len0, unsigned len1,
			 unsigned jitter, uint32_t *labels, size_t n);

/* How to cluster: a fixed threshold, or (adaptive) sl_threshold_for() per
 * interval with its margin replaced by `margin`; centroid alpha. */
typedef struct synth_how {
	double threshold;
	int adaptive;
	double margin;
	double alpha;
} synth_how;

/* Cluster the intervals of labels[] (generated from `c`); returns the ARI
 * against labels over the intervals that are not the mixed first interval
 * of an instance; *n_found gets the number of phases found (may be NULL). */
double synth_cluster_ari(const synth_code *c, gsl_rng *r, const uint32_t *labels,
			 size_t n, const synth_how *how, size_t *n_found);

#endif
