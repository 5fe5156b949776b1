/*
 * Scoring detected phases against true labels with the adjusted Rand index
 * (Hubert & Arabie): 1 for identical partitions whatever the IDs, about 0
 * for chance agreement.  The contingency table is never built densely:
 * sorting the (a, b) label pairs with GSL makes its non-zero cells and the
 * row sums runs of equal keys, so any label values and any n are fine.
 */
#include "sleuth/phases.h"

#include <gsl/gsl_sort.h>
#include <stdlib.h>

#include "sleuth/common.h"

static double pairs(double x)
{
	return x * (x - 1) / 2;
}

/* Sum of C(run, 2) over the runs of equal values of key >> shift in a
 * sorted array. */
static double sum_run_pairs(const unsigned long *key, size_t n, unsigned shift)
{
	double s = 0;
	size_t i = 0;
	while (i < n) {
		size_t j = i + 1;
		while (j < n && (key[j] >> shift) == (key[i] >> shift))
			j++;
		s += pairs((double)(j - i));
		i = j;
	}
	return s;
}

double sl_ari(const uint32_t *a, const uint32_t *b, size_t n)
{
	if (n < 2)
		return 1.0;
	unsigned long *ab = sl_xmalloc(n * sizeof *ab);
	unsigned long *bb = sl_xmalloc(n * sizeof *bb);
	for (size_t i = 0; i < n; i++) {
		ab[i] = ((unsigned long)a[i] << 32) | b[i];
		bb[i] = b[i];
	}
	gsl_sort_ulong(ab, 1, n);
	gsl_sort_ulong(bb, 1, n);
	double cells = sum_run_pairs(ab, n, 0);
	double rows = sum_run_pairs(ab, n, 32);
	double cols = sum_run_pairs(bb, n, 0);
	free(ab);
	free(bb);
	double expected = rows * cols / pairs((double)n);
	double max = (rows + cols) / 2;
	/* Both partitions trivial in the same way (one cluster each, or all
	 * singletons): they agree perfectly. */
	if (max == expected)
		return 1.0;
	return (cells - expected) / (max - expected);
}
