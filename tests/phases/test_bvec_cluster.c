/* Unit tests of branch vectors and leader-follower clustering: the hash is
 * deterministic and spreads, vectors are normalised, distances are right,
 * and synthetic phases (separated and overlapping) are recovered with
 * stable IDs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/phases.h"
#include "synth.h"

enum { D = SL_BV_DIMS_DEFAULT };

static void test_hash_deterministic(void **state)
{
	(void)state;
	int differs = 0;
	for (uint64_t a = 0x400000; a < 0x400000 + 4 * 1000; a += 4) {
		unsigned b = sl_bv_bin(a, D, 1);
		assert_true(b < D);
		assert_int_equal(b, sl_bv_bin(a, D, 1));
		differs += b != sl_bv_bin(a, D, 2);
	}
	/* Another seed is another projection: most addresses move. */
	assert_true(differs > 900);
	/* Any dims, not only powers of two. */
	for (uint64_t a = 0; a < 1000; a++)
		assert_true(sl_bv_bin(a * 8, 7, 3) < 7);
}

static void test_hash_spreads(void **state)
{
	(void)state;
	/* Consecutive branch addresses (one hot loop) must not pile up. */
	unsigned hist[D] = {0};
	const unsigned n = 32000;
	for (unsigned i = 0; i < n; i++)
		hist[sl_bv_bin(0x401000 + 2 * (uint64_t)i, D, 7)]++;
	double chi2 = 0, e = (double)n / D;
	for (unsigned d = 0; d < D; d++) {
		assert_true(hist[d] > 0.85 * e && hist[d] < 1.15 * e);
		chi2 += (hist[d] - e) * (hist[d] - e) / e;
	}
	/* 31 degrees of freedom: 99.9th percentile is about 61. */
	assert_true(chi2 < 61);
}

static void test_normalise(void **state)
{
	(void)state;
	double v[D];
	uint64_t a[] = {0x401000, 0x401000, 0x401000, 0x402340};
	assert_int_not_equal(sl_bv_bin(a[0], D, 5), sl_bv_bin(a[3], D, 5));
	sl_bv_build(a, 4, D, 5, v);
	double sum = 0;
	for (unsigned d = 0; d < D; d++)
		sum += v[d];
	assert_true(fabs(sum - 1) < 1e-12);
	assert_true(fabs(v[sl_bv_bin(a[0], D, 5)] - 0.75) < 1e-12);
	assert_true(fabs(v[sl_bv_bin(a[3], D, 5)] - 0.25) < 1e-12);
	/* No samples: all zero, not NaN. */
	sl_bv_build(a, 0, D, 5, v);
	for (unsigned d = 0; d < D; d++)
		assert_true(v[d] == 0);
}

static void test_distance(void **state)
{
	(void)state;
	double a[4] = {0.5, 0.5, 0, 0}, b[4] = {0, 0, 0.25, 0.75};
	double c[4] = {0.25, 0.5, 0.25, 0};
	assert_true(sl_bv_distance(a, a, 4) == 0);
	assert_true(fabs(sl_bv_distance(a, b, 4) - 2) < 1e-12);
	assert_true(fabs(sl_bv_distance(a, c, 4) - 0.5) < 1e-12);
	assert_true(fabs(sl_bv_distance(c, a, 4) - 0.5) < 1e-12);
}

/* Assign the vector with weight wi in bin i and wj in bin j. */
static uint32_t put(sl_cluster *c, unsigned i, double wi, unsigned j, double wj)
{
	double v[D] = {0};
	v[i] += wi;
	v[j] += wj;
	return sl_cluster_assign(c, v);
}

/* A vector with weight wi in bin i and wj in bin j, and the phase it must
 * get. */
typedef struct step {
	unsigned i;
	double wi;
	unsigned j;
	double wj;
	uint32_t want;
} step;

static void expect_ids(sl_cluster *c, const step *s, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (put(c, s[k].i, s[k].wi, s[k].j, s[k].wj) != s[k].want)
			fail_msg("step %zu: not phase %u", k, s[k].want);
}

static void test_stable_ids_and_centroid(void **state)
{
	(void)state;
	sl_cluster *c = sl_cluster_new(D, 0.5);
	/* IDs in order of first appearance; the last vector is 0.4 from
	 * phase 1 (unit 3): it joins it and the running mean moves. */
	const step s[] = {{9, 1, 0, 0, 0}, {3, 1, 0, 0, 1}, {9, 1, 0, 0, 0},
			  {20, 1, 0, 0, 2}, {3, 0.8, 4, 0.2, 1}};
	expect_ids(c, s, SL_ARRAY_LEN(s));
	assert_int_equal(sl_cluster_count(c), 3);
	const double *ce = sl_cluster_centroid(c, 1);
	assert_true(fabs(ce[3] - 0.9) < 1e-12 && fabs(ce[4] - 0.1) < 1e-12);
	ce = sl_cluster_centroid(c, 0);
	assert_true(ce[9] == 1);
	assert_null(sl_cluster_centroid(c, 3));
	sl_cluster_free(c);

	/* Exponentially weighted: the centroid moves by alpha, not 1/n. */
	c = sl_cluster_new(D, 0.5);
	sl_cluster_set_alpha(c, 0.25);
	const step e[] = {{3, 1, 0, 0, 0}, {3, 1, 0, 0, 0}, {3, 0.8, 4, 0.2, 0}};
	expect_ids(c, e, SL_ARRAY_LEN(e));
	ce = sl_cluster_centroid(c, 0);
	assert_true(fabs(ce[3] - 0.95) < 1e-12 && fabs(ce[4] - 0.05) < 1e-12);
	sl_cluster_free(c);
}

static void test_nearest_wins(void **state)
{
	(void)state;
	/* A vector 2.0 away founds a new phase even with a loose threshold;
	 * one 1.2 from phase 0 and 0.8 from phase 1 joins the nearer. */
	const step s[] = {{0, 1, 1, 0, 0}, {1, 1, 0, 0, 1}, {0, 0.4, 1, 0.6, 1}};
	/* Equidistant (1.0 from both): the older phase. */
	const step t[] = {{0, 1, 1, 0, 0}, {1, 1, 0, 0, 1}, {0, 0.5, 1, 0.5, 0}};
	sl_cluster *c = sl_cluster_new(D, 1.5);
	expect_ids(c, s, SL_ARRAY_LEN(s));
	sl_cluster_free(c);
	c = sl_cluster_new(D, 1.5);
	expect_ids(c, t, SL_ARRAY_LEN(t));
	sl_cluster_free(c);
}

/* Recover synthetic phases: ARI >= 0.9 for every seed, with the fixed
 * default threshold and with the noise-aware one. */
static void check_synthetic(double overlap, unsigned samples, int mix)
{
	const synth_how how[2] = {{SL_THRESHOLD_DEFAULT, 0, 0, 0},
				  {0, 1, SL_THRESHOLD_MARGIN, 0}};
	enum { N = 400 };
	uint32_t labels[N];
	for (unsigned seed = 1; seed <= 8; seed++) {
		gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
		gsl_rng_set(r, seed);
		synth_params p = {5, 64, overlap, 1.0, samples, mix};
		synth_code *c = synth_code_new(&p, r);
		synth_seq_runs(r, 5, 2, 15, labels, N);
		size_t found;
		const synth_how *h = &how[seed % 2];
		double ari = synth_cluster_ari(c, r, labels, N, h, &found);
		if (ari < 0.9)
			fail_msg("overlap %.2f, %u samples, seed %u, %s threshold: "
				 "ARI %.3f, %zu phases", overlap, samples, seed,
				 h->adaptive ? "adaptive" : "fixed", ari, found);
		if (overlap == 0 && !mix)
			assert_int_equal(found, 5);
		synth_code_free(c);
		gsl_rng_free(r);
	}
}

static void test_threshold_for(void **state)
{
	(void)state;
	/* margin + sqrt(2 * 31 / (pi * n)) */
	assert_true(fabs(sl_threshold_for(32, 100) - (SL_THRESHOLD_MARGIN +
			 0.444243)) < 1e-6);
	assert_true(sl_threshold_for(32, 50) > sl_threshold_for(32, 500));
	assert_true(isfinite(sl_threshold_for(32, 0)));
	assert_true(sl_threshold_for(1, 10) == SL_THRESHOLD_MARGIN);
	/* its inverse: the fewest samples that keep the threshold within a cap */
	size_t n = sl_samples_for(256, SL_THRESHOLD_MARGIN, 1.0);
	assert_int_equal(n, 289);
	assert_true(sl_threshold_for(256, n) <= 1.0);
	assert_true(sl_threshold_for(256, n - 1) > 1.0);
	assert_int_equal(sl_samples_for(256, 1.0, 1.0), SIZE_MAX);
	sl_cluster *c = sl_cluster_new(D, 0.1);
	const step s[] = {{0, 1, 0, 0, 0}, {0, 0.7, 1, 0.3, 1}};
	expect_ids(c, s, SL_ARRAY_LEN(s));
	/* Widened: a vector 0.4 from phase 0 (and 0.6 from phase 1) joins it. */
	sl_cluster_set_threshold(c, 0.7);
	const step t[] = {{0, 0.8, 2, 0.2, 0}};
	expect_ids(c, t, SL_ARRAY_LEN(t));
	sl_cluster_free(c);
}

/* Add the uniform distribution over bins [lo, lo + n), weighted w, to v. */
static void flat(double *v, unsigned lo, unsigned n, double w)
{
	for (unsigned d = lo; d < lo + n; d++)
		v[d] += w / n;
}

/* End-of-run merging of code phases (sl_code_merge): a lasting copy within
 * one interval's noise, or a brief one within the noise of the two
 * centroids, is one code with its original; a brief phase of mixed
 * intervals, apart from either side by more than the noise of the two
 * centroids, stays apart where a lasting one would merge. */
static void test_code_merge(void **state)
{
	(void)state;
	enum { DD = 256 };
	static double v[5][DD];
	flat(v[0], 0, 100, 1);          /* dslash */
	flat(v[1], 0, 91, 1);           /* a copy: 0.18 away */
	flat(v[2], 100, 100, 1);        /* update: 2 from dslash */
	flat(v[3], 100, 100, 0.68);     /* their boundary: 0.64 from update */
	flat(v[3], 0, 100, 0.32);
	flat(v[4], 100, 100, 0.75);     /* update's code drifted: 0.5 away */
	flat(v[4], 200, 4, 0.25);
	sl_cluster *c = sl_cluster_new(DD, 0.01);
	for (uint32_t k = 0; k < 5; k++)
		assert_int_equal(sl_cluster_assign(c, v[k]), k);
	assert_true(fabs(sl_bv_distance(v[0], v[1], DD) - 0.18) < 1e-9);
	assert_true(fabs(sl_bv_distance(v[2], v[3], DD) - 0.64) < 1e-9);
	assert_true(fabs(sl_bv_distance(v[2], v[4], DD) - 0.5) < 1e-9);
	/* samples, intervals, runs (as milc-like's at seeds 14 and 1) */
	sl_code_stat st[5] = {
		{238 * 80, 238, 57}, /* lasting */
		{55 * 80, 55, 37},   /* brief; noise of the two means 0.21 */
		{186 * 120, 186, 30},
		{26 * 100, 26, 26},  /* brief; noise of the means 0.26 */
		{40 * 120, 40, 5},   /* lasting; one interval's noise, capped */
	};
	double cap = SL_THRESHOLD_CAP - SL_THRESHOLD_MARGIN;
	uint32_t root[5];
	sl_code_merge(c, st, 5, cap, root);
	const uint32_t want[5] = {0, 0, 2, 3, 2};
	for (size_t k = 0; k < 5; k++)
		assert_int_equal(root[k], want[k]);
	/* With 4 times the samples the means' noise is 0.11: 0.18 is then
	 * another distribution. */
	st[0].samples *= 4;
	st[1].samples *= 4;
	sl_code_merge(c, st, 5, cap, root);
	assert_int_equal(root[1], 1);
	/* A brief phase of one interval: that interval's noise, capped. */
	st[3] = (sl_code_stat){100, 1, 1};
	sl_code_merge(c, st, 5, cap, root);
	assert_int_equal(root[3], 2);
	st[3].samples = 2000; /* noise 0.29 */
	sl_code_merge(c, st, 5, cap, root);
	assert_int_equal(root[3], 3);
	/* fewer phases than clusters: only those */
	root[4] = 99;
	sl_code_merge(c, st, 4, cap, root);
	assert_int_equal(root[4], 99);
	sl_cluster_free(c);
}

/* Assign vecs[0..k) at a threshold of 0.75 with the noise floor at n
 * samples (0: none) and the margin: their phases are want[0..k). */
static void floor_ids(unsigned dims, double n, const double *const *vecs,
		      const uint32_t *want, size_t k)
{
	sl_cluster *c = sl_cluster_new(dims, 0.75);
	sl_cluster_set_noise_floor(c, n, SL_THRESHOLD_MARGIN);
	for (size_t i = 0; i < k; i++)
		assert_int_equal(sl_cluster_assign(c, vecs[i]), want[i]);
	sl_cluster_free(c);
}

/* The expected noise of n samples of a distribution (sl_expected_noise),
 * the noise floor it sets on the clustering threshold, and the end-of-run
 * merge of copies when intervals hold few samples (docs/phases.md, "Few
 * samples an interval"). */
static void test_few_samples(void **state)
{
	(void)state;
	enum { DD = 256 };
	static double v[4][DD];
	/* one sample of a fair coin is always 1 away; a certain bin, never */
	flat(v[0], 0, 2, 1);
	assert_true(fabs(sl_expected_noise(v[0], DD, 1) - 1.0) < 1e-9);
	memset(v[0], 0, sizeof v[0]);
	v[0][7] = 1;
	assert_true(sl_expected_noise(v[0], DD, 50) == 0);
	/* many samples: the normal bound, sqrt(2 (dims - 1) / (pi n)) for
	 * the uniform distribution; few: about 2 p per bin, never above 2 */
	memset(v[0], 0, sizeof v[0]);
	flat(v[0], 0, 4, 1);
	double e = sl_expected_noise(v[0], DD, 1000), w = sqrt(6 / (M_PI * 1000));
	assert_true(fabs(e - w) < 0.05 * w);
	memset(v[0], 0, sizeof v[0]);
	flat(v[0], 0, 100, 1);
	e = sl_expected_noise(v[0], DD, 10);
	assert_true(e > 1.7 && e <= 2.0);

	/* The floor: a vector 1.2 from a phase of 100 flat bins joins it at
	 * 40 samples (20 for the two: the centroid is one vector yet; noise
	 * 1.64 plus the margin), a disjoint one does not; without it, both
	 * found phases above the threshold of 0.75. */
	flat(v[1], 0, 40, 1);
	flat(v[2], 100, 100, 1);
	assert_true(fabs(sl_bv_distance(v[0], v[1], DD) - 1.2) < 1e-9);
	floor_ids(DD, 0, (const double *[]){v[0], v[1]}, (const uint32_t[]){0, 1}, 2);
	floor_ids(DD, 40, (const double *[]){v[0], v[1], v[2]}, (const uint32_t[]){0, 0, 1}, 3);
	/* At 20 samples (10 for the two) the noise plus the margin, 2.06,
	 * would reach the 2 of disjoint code: the floor stays at 2 - margin. */
	floor_ids(DD, 20, (const double *[]){v[0], v[2], v[1]}, (const uint32_t[]){0, 1, 0}, 3);

	/* The merge: a brief copy 0.36 from its code, at 40 samples an
	 * interval, is past the capped noise of the two centroids (0.30) but
	 * within the margin over their expected noise (0.25 + 0.18); a mix
	 * 0.64 away stays apart; at 400 samples an interval the rule is off. */
	memset(v, 0, sizeof v);
	flat(v[0], 0, 100, 1);
	flat(v[1], 0, 100, 0.7);
	flat(v[1], 0, 40, 0.3);
	flat(v[2], 100, 100, 1);
	flat(v[3], 0, 100, 0.68);
	flat(v[3], 100, 100, 0.32);
	assert_true(fabs(sl_bv_distance(v[0], v[1], DD) - 0.36) < 1e-9);
	sl_cluster *c = sl_cluster_new(DD, 0.01);
	for (uint32_t k = 0; k < 4; k++)
		assert_int_equal(sl_cluster_assign(c, v[k]), k);
	sl_code_stat st[4] = {
		{200 * 40, 200, 50}, /* lasting */
		{60 * 40, 60, 40},   /* brief: a copy */
		{150 * 40, 150, 40},
		{30 * 40, 30, 30},   /* brief: a mix */
	};
	double cap = SL_THRESHOLD_CAP - SL_THRESHOLD_MARGIN;
	uint32_t root[4];
	sl_code_merge(c, st, 4, cap, root);
	const uint32_t want[4] = {0, 0, 2, 3};
	for (size_t k = 0; k < 4; k++)
		assert_int_equal(root[k], want[k]);
	for (size_t k = 0; k < 4; k++)
		st[k].samples *= 10;
	sl_code_merge(c, st, 4, cap, root);
	assert_int_equal(root[1], 1);
	sl_cluster_free(c);
}

static void test_separated_phases(void **state)
{
	(void)state;
	check_synthetic(0, 100, 0);
	check_synthetic(0, 500, 1);
}

static void test_overlapping_phases(void **state)
{
	(void)state;
	check_synthetic(0.5, 100, 1);
	check_synthetic(0.5, 300, 1);
	check_synthetic(0.75, 200, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_deterministic),
		cmocka_unit_test(test_hash_spreads),
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_stable_ids_and_centroid),
		cmocka_unit_test(test_nearest_wins),
		cmocka_unit_test(test_threshold_for),
		cmocka_unit_test(test_code_merge),
		cmocka_unit_test(test_few_samples),
		cmocka_unit_test(test_separated_phases),
		cmocka_unit_test(test_overlapping_phases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
