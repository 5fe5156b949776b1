/*
 * Branch vectors (ScarPhase's "basic block vectors" of sampled branches):
 * each sampled address lands in one of `dims` bins chosen by a keyed hash,
 * which acts as a fixed random projection of the (huge, sparse) space of
 * code addresses onto a few dimensions.  Vectors are L1-normalised so that
 * intervals with different sample counts compare on their code mix alone.
 */
#include "sleuth/phases.h"

#include <math.h>
#include <string.h>

/* splitmix64's finaliser: every input bit affects every output bit, so
 * nearby addresses (branches in one loop) still scatter over the bins. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

unsigned sl_bv_bin(uint64_t addr, unsigned dims, uint64_t seed)
{
	uint64_t h = mix64(addr ^ mix64(seed));
	/* Multiply-shift instead of %: unbiased for any dims. */
	return (unsigned)(((unsigned __int128)h * dims) >> 64);
}

void sl_bv_build(const uint64_t *addrs, size_t n, unsigned dims, uint64_t seed,
		 double *out)
{
	memset(out, 0, dims * sizeof *out);
	if (n == 0 || dims == 0)
		return;
	for (size_t i = 0; i < n; i++)
		out[sl_bv_bin(addrs[i], dims, seed)] += 1.0;
	for (unsigned d = 0; d < dims; d++)
		out[d] /= (double)n;
}

double sl_bv_distance(const double *a, const double *b, unsigned dims)
{
	double s = 0;
	for (unsigned d = 0; d < dims; d++)
		s += fabs(a[d] - b[d]);
	return s;
}
