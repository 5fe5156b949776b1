/*
 * The experiment behind SL_THRESHOLD_DEFAULT, the centroid update and
 * SL_PRED_DEFAULT (docs/phases.md): cluster synthetic phase workloads over a
 * sweep of thresholds, sample counts, code overlaps and centroid updates,
 * report the adjusted Rand index against the true labels; then the accuracy
 * of both next-phase predictors on program-shaped phase sequences.
 * Usage: phases-threshold [seeds]
 */
#include <stdio.h>
#include <stdlib.h>

#include "sleuth/common.h"
#include "sleuth/phases.h"
#include "synth.h"

#define N_INTERVALS 600

static const unsigned samples[] = {50, 100, 200, 500};
static const double overlaps[] = {0.25, 0.5, 0.75};
static const unsigned hots[] = {32, 128};
static const double alphas[] = {0, 0.1, 0.3};

static void sweep(unsigned seeds)
{
	printf("# ARI (mean over %u seeds, %d intervals, 6 phases, runs 1-20,"
	       " Zipf s=1, mixed first intervals excluded)\n",
	       seeds, N_INTERVALS);
	printf("alpha thr  ");
	for (size_t s = 0; s < SL_ARRAY_LEN(samples); s++)
		printf(" S=%-4u", samples[s]);
	printf("  mean   worst  phases(S=50/500)\n");
	uint32_t labels[N_INTERVALS];
	for (size_t a = 0; a < SL_ARRAY_LEN(alphas); a++) {
		for (int ti = 6; ti <= 24; ti++) {
			double thr = ti * 0.05;
			double all = 0, worst = 1, found_lo = 0, found_hi = 0;
			int n_all = 0;
			printf("%-5.2g %-4.2f", alphas[a], thr);
			for (size_t s = 0; s < SL_ARRAY_LEN(samples); s++) {
				double sum = 0;
				int cnt = 0;
				for (size_t o = 0; o < SL_ARRAY_LEN(overlaps); o++)
				for (size_t h = 0; h < SL_ARRAY_LEN(hots); h++)
				for (unsigned seed = 1; seed <= seeds; seed++) {
					gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
					gsl_rng_set(r, seed * 7919 + o * 31 + h);
					synth_params p = {6, hots[h], overlaps[o], 1.0,
							  samples[s], 1};
					synth_code *c = synth_code_new(&p, r);
					synth_seq_runs(r, 6, 1, 20, labels, N_INTERVALS);
					size_t nf;
					double ari = synth_cluster_ari(c, r, labels,
						N_INTERVALS, thr, alphas[a], &nf);
					sum += ari;
					cnt++;
					if (ari < worst)
						worst = ari;
					if (s == 0)
						found_lo += nf;
					if (s == SL_ARRAY_LEN(samples) - 1)
						found_hi += nf;
					synth_code_free(c);
					gsl_rng_free(r);
				}
				printf("  %.3f", sum / cnt);
				all += sum;
				n_all += cnt;
			}
			int per_s = n_all / (int)SL_ARRAY_LEN(samples);
			printf("  %.3f  %.3f  %.1f/%.1f\n", all / n_all, worst,
			       found_lo / per_s, found_hi / per_s);
		}
	}
}

static double accuracy(sl_pred_kind kind, const uint32_t *l, size_t n)
{
	sl_predictor *p = sl_pred_new(kind);
	size_t ok = 0;
	for (size_t i = 0; i < n; i++) {
		ok += sl_pred_next(p) == l[i];
		sl_pred_update(p, l[i]);
	}
	sl_pred_free(p);
	return (double)ok / (double)n;
}

static void predictors(void)
{
	enum { N = 20000 };
	static uint32_t l[N];
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct {
		const char *name;
		int kind; /* 0 runs, 1 alternate */
		unsigned a, b, c;
	} seqs[] = {
		{"gcc-like: 8 phases, runs 1-4", 0, 8, 1, 4},
		{"gcc-like: 8 phases, runs 1-2", 0, 8, 1, 2},
		{"astar-like: 2 phases, runs 5/3 fixed", 1, 5, 3, 0},
		{"astar-like: 2 phases, runs 5/3 +-1", 1, 5, 3, 1},
		{"astar-like: 2 phases, runs 20/10 +-2", 1, 20, 10, 2},
		{"long: 4 phases, runs 5-30", 0, 4, 5, 30},
	};
	printf("\n# next-phase prediction accuracy (%d intervals)\n", N);
	printf("%-40s %8s %8s\n", "sequence", "last", "markov");
	for (size_t i = 0; i < SL_ARRAY_LEN(seqs); i++) {
		gsl_rng_set(r, 42 + i);
		if (seqs[i].kind == 0)
			synth_seq_runs(r, seqs[i].a, seqs[i].b, seqs[i].c, l, N);
		else
			synth_seq_alternate(r, seqs[i].a, seqs[i].b, seqs[i].c, l, N);
		printf("%-40s %8.3f %8.3f\n", seqs[i].name,
		       accuracy(SL_PRED_LAST, l, N), accuracy(SL_PRED_MARKOV, l, N));
	}
	gsl_rng_free(r);
}

int main(int argc, char **argv)
{
	unsigned seeds = argc > 1 ? (unsigned)atoi(argv[1]) : 3;
	sweep(seeds);
	predictors();
	return 0;
}
