/*
 * The experiment behind SL_THRESHOLD_DEFAULT, SL_THRESHOLD_MARGIN, the
 * centroid update and SL_PRED_DEFAULT (docs/phases.md): cluster synthetic
 * phase workloads over a sweep of thresholds, sample counts, code overlaps
 * and centroid updates, report the adjusted Rand index against the true
 * labels, check the choice on differently shaped workloads it was not
 * tuned on, then the accuracy of both next-phase predictors on
 * program-shaped phase sequences, and the clustering speed.
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
#define N_S SL_ARRAY_LEN(samples)

/* A family of workloads: Zipf exponent, phase count, two sizes of the hot
 * code; every overlap and seed is run for each. */
typedef struct world {
	const char *name;
	double zipf_s;
	unsigned n_phases;
	unsigned hot[2];
} world;

static const world tuning = {"tuning", 1.0, 6, {32, 128}};
static const world checks[] = {
	{"s=0.8, 4 phases, 32/256 hot", 0.8, 4, {32, 256}},
	{"s=1.3, 10 phases, 32/64 hot", 1.3, 10, {32, 64}},
	{"s=1.0, 3 phases, 32/512 hot", 1.0, 3, {32, 512}},
	{"s=1.5, 8 phases, 32 hot", 1.5, 8, {32, 32}},
};

typedef struct result {
	double mean[N_S], all, worst, found[N_S];
} result;

static result run(const world *w, const synth_how *how, unsigned seeds)
{
	result res = {.worst = 1};
	uint32_t labels[N_INTERVALS];
	int n_all = 0;
	for (size_t s = 0; s < N_S; s++) {
		int cnt = 0;
		for (size_t o = 0; o < SL_ARRAY_LEN(overlaps); o++)
		for (size_t h = 0; h < 2; h++)
		for (unsigned seed = 1; seed <= seeds; seed++) {
			gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
			gsl_rng_set(r, (w == &tuning ? 0 : 1000) + seed * 7919 +
					       o * 31 + h);
			synth_params p = {w->n_phases, w->hot[h], overlaps[o],
					  w->zipf_s, samples[s], 1};
			synth_code *c = synth_code_new(&p, r);
			synth_seq_runs(r, w->n_phases, 1, 20, labels, N_INTERVALS);
			size_t nf;
			double ari = synth_cluster_ari(c, r, labels, N_INTERVALS,
						       how, &nf);
			res.mean[s] += ari;
			res.found[s] += nf;
			cnt++;
			if (ari < res.worst)
				res.worst = ari;
			synth_code_free(c);
			gsl_rng_free(r);
		}
		res.all += res.mean[s];
		n_all += cnt;
		res.mean[s] /= cnt;
		res.found[s] /= cnt;
	}
	res.all /= n_all;
	return res;
}

static void row(const char *label, const result *r)
{
	printf("%-22s", label);
	for (size_t s = 0; s < N_S; s++)
		printf("  %.3f", r->mean[s]);
	printf("  %.3f  %.3f  %.1f/%.1f\n", r->all, r->worst, r->found[0],
	       r->found[N_S - 1]);
}

static void header(const char *title, unsigned seeds)
{
	printf("\n# %s (mean ARI over %u seeds x 3 overlaps x 2 code sizes,"
	       " %d intervals, runs 1-20, mixed first intervals excluded)\n",
	       title, seeds, N_INTERVALS);
	printf("%-22s", "");
	for (size_t s = 0; s < N_S; s++)
		printf("  S=%-4u", samples[s]);
	printf("  mean   worst  phases(S=50/500)\n");
}

static void sweep(unsigned seeds)
{
	static const double alphas[] = {0, 0.1, 0.3};
	char label[64];
	header("fixed threshold, centroid alpha (0: running mean)", seeds);
	for (size_t a = 0; a < SL_ARRAY_LEN(alphas); a++) {
		for (int ti = 10; ti <= 20; ti++) {
			synth_how how = {ti * 0.05, 0, 0, alphas[a]};
			result r = run(&tuning, &how, seeds);
			snprintf(label, sizeof label, "alpha %.1f thr %.2f",
				 alphas[a], how.threshold);
			row(label, &r);
		}
	}
	header("noise-aware threshold: margin + sqrt(2 (dims-1) / (pi n))", seeds);
	for (int mi = 2; mi <= 8; mi++) {
		synth_how how = {0, 1, mi * 0.05, 0};
		result r = run(&tuning, &how, seeds);
		snprintf(label, sizeof label, "margin %.2f", how.margin);
		row(label, &r);
	}
	for (int ai = 1; ai <= 3; ai += 2) {
		synth_how how = {0, 1, SL_THRESHOLD_MARGIN, ai * 0.1};
		result r = run(&tuning, &how, seeds);
		snprintf(label, sizeof label, "margin %.2f alpha %.1f", how.margin,
			 how.alpha);
		row(label, &r);
	}
	for (size_t w = 0; w < SL_ARRAY_LEN(checks); w++) {
		header(checks[w].name, seeds);
		const synth_how hows[] = {
			{SL_THRESHOLD_DEFAULT, 0, 0, 0},
			{0, 1, SL_THRESHOLD_MARGIN, 0},
		};
		for (size_t h = 0; h < SL_ARRAY_LEN(hows); h++) {
			result r = run(&checks[w], &hows[h], seeds);
			snprintf(label, sizeof label, h ? "margin %.2f" : "fixed %.2f",
				 h ? hows[h].margin : hows[h].threshold);
			row(label, &r);
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

/* Cost per interval of what the collector does online: build the vector,
 * assign it, predict, choose events.  Samples are generated beforehand. */
static void speed(void)
{
	enum { N = 100000, S = 200, PH = 8, EV = 12, K = 4 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 7);
	synth_params p = {PH, 64, 0.5, 1.0, S, 1};
	synth_code *c = synth_code_new(&p, r);
	uint32_t *labels = sl_xmalloc(N * sizeof *labels);
	synth_seq_runs(r, PH, 1, 20, labels, N);
	uint64_t *smp = sl_xmalloc((size_t)N * (4 * S + 64) * sizeof *smp);
	size_t *cnt = sl_xmalloc(N * sizeof *cnt);
	size_t off = 0;
	for (size_t i = 0; i < N; i++) {
		cnt[i] = synth_interval(c, r, labels[i], i ? labels[i - 1] : 0, 0,
					smp + off);
		off += cnt[i];
	}
	double t0 = sl_now();
	sl_cluster *cl = sl_cluster_new(SL_BV_DIMS_DEFAULT, 0);
	sl_predictor *pr = sl_pred_new(SL_PRED_DEFAULT);
	sl_mux *m = sl_mux_new(EV, K);
	double vec[SL_BV_DIMS_DEFAULT];
	size_t ev[K];
	off = 0;
	for (size_t i = 0; i < N; i++) {
		size_t n = sl_mux_select(m, sl_pred_next(pr), ev);
		sl_bv_build(smp + off, cnt[i], SL_BV_DIMS_DEFAULT, 1, vec);
		off += cnt[i];
		sl_cluster_set_threshold(cl, sl_threshold_for(SL_BV_DIMS_DEFAULT,
							      cnt[i]));
		uint32_t id = sl_cluster_assign(cl, vec);
		sl_pred_update(pr, id);
		sl_mux_commit(m, id, ev, n);
	}
	double dt = sl_now() - t0;
	printf("\n# speed: %d intervals of ~%d samples, %zu phases found: "
	       "%.2f us per interval (%.0f ns per sample)\n",
	       N, S, sl_cluster_count(cl), dt / N * 1e6, dt / off * 1e9);
	sl_cluster_free(cl);
	sl_pred_free(pr);
	sl_mux_free(m);
	free(smp);
	free(cnt);
	free(labels);
	synth_code_free(c);
	gsl_rng_free(r);
}

int main(int argc, char **argv)
{
	unsigned seeds = argc > 1 ? (unsigned)atoi(argv[1]) : 3;
	sweep(seeds);
	predictors();
	speed();
	return 0;
}
