/*
 * vPMU benchmark: sorting (branchy, data-dependent).  Stages: generate keys,
 * quicksort (libc qsort, unpredictable compares), merge sort of the same
 * keys into a buffer (streaming), verify.  Deterministic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1u << 18)

static uint32_t *keys, *work, *tmp;

void so_generate(void)
{
	uint64_t s = 42;
	for (uint32_t i = 0; i < N; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		keys[i] = (uint32_t)(s >> 33);
	}
}

static int cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

void so_quick(void)
{
	memcpy(work, keys, N * sizeof *work);
	qsort(work, N, sizeof *work, cmp);
}

void so_merge(void)
{
	memcpy(work, keys, N * sizeof *work);
	for (uint32_t w = 1; w < N; w *= 2) {
		for (uint32_t lo = 0; lo < N; lo += 2 * w) {
			uint32_t mid = lo + w < N ? lo + w : N, hi = lo + 2 * w < N ? lo + 2 * w : N;
			uint32_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = work[i] <= work[j] ? work[i++] : work[j++];
			while (i < mid)
				tmp[k++] = work[i++];
			while (j < hi)
				tmp[k++] = work[j++];
		}
		uint32_t *t = work;
		work = tmp;
		tmp = t;
	}
}

int main(void)
{
	keys = malloc(N * sizeof *keys);
	work = malloc(N * sizeof *work);
	tmp = malloc(N * sizeof *tmp);
	if (!keys || !work || !tmp)
		return 1;
	so_generate();
	so_quick();
	so_merge();
	for (uint32_t i = 1; i < N; i++)
		if (work[i - 1] > work[i])
			return 2;
	printf("%u\n", work[N / 2]);
	free(keys);
	free(work);
	free(tmp);
	return 0;
}
