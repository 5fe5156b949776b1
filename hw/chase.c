/*
 * Memory latency by pointer chasing: every cache line of a buffer much
 * larger than the last-level cache holds the index of the next line in a
 * random cyclic order, so each load depends on the previous one and misses
 * every cache.  The stall model needs this latency (memory_latency_ns); it is
 * measured on the machine, never assumed.
 *
 * Caveats: without huge pages most loads also miss the TLB, so the figure
 * includes a page walk (transparent huge pages are asked for with madvise);
 * and it is the latency of an idle memory system.
 */
#include "sleuth/hw.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sleuth/common.h"

#define LINE 64

/* xorshift64*: a fixed seed keeps runs comparable */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

double sl_chase_latency_ns(size_t bytes, double min_seconds)
{
	size_t n = bytes / LINE;
	if (n < 2) {
		sl_error_set("pointer chase over %zu bytes: give at least %d", bytes, 2 * LINE);
		return -1;
	}
	void *mem = mmap(NULL, n * LINE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (mem == MAP_FAILED) {
		sl_error_set("cannot map %zu MB for the pointer chase; give a smaller size",
			     bytes >> 20);
		return -1;
	}
	madvise(mem, n * LINE, MADV_HUGEPAGE);
	/* A random cyclic permutation (Sattolo's algorithm): one cycle through
	 * every line. */
	uint32_t *perm = sl_xmalloc(n * sizeof *perm);
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(next_rand(&seed) % i);
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	char *base = mem;
	for (size_t i = 0; i < n; i++)
		*(uintptr_t *)(base + (size_t)i * LINE) = (uintptr_t)(base + (size_t)perm[i] * LINE);
	free(perm);
	/* One warm-up round (page faults, TLB), then rounds until min_seconds;
	 * the best round is kept (interference only adds time). */
	volatile uintptr_t sink;
	uintptr_t p = (uintptr_t)base;
	for (size_t i = 0; i < n; i++)
		p = *(uintptr_t *)p;
	sink = p;
	double best = -1, start = sl_now();
	int rounds = 0;
	do {
		double t0 = sl_now();
		for (size_t i = 0; i < n; i++)
			p = *(uintptr_t *)p;
		double ns = (sl_now() - t0) * 1e9 / (double)n;
		if (best < 0 || ns < best)
			best = ns;
		rounds++;
	} while (rounds < 3 || sl_now() - start < min_seconds);
	sink = p;
	(void)sink;
	munmap(mem, n * LINE);
	return best;
}

/* Largest cache of cpu0 in bytes (ROOT/devices/system/cpu/cpu0/cache), or 0. */
static size_t largest_cache(const char *root)
{
	size_t best = 0;
	for (int i = 0; i < 8; i++) {
		char *p = sl_xasprintf("%s/devices/system/cpu/cpu0/cache/index%d/size", root, i);
		FILE *f = fopen(p, "r");
		free(p);
		if (!f)
			continue;
		unsigned long long v = 0;
		char unit = 0;
		if (fscanf(f, "%llu%c", &v, &unit) >= 1) {
			size_t b = (size_t)v * (unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1);
			best = SL_MAX(best, b);
		}
		fclose(f);
	}
	return best;
}

size_t sl_chase_default_bytes(const char *root)
{
	size_t llc = largest_cache(root ? root : "/sys");
	/* 8x the LLC, at least 64 MB (the LLC may be hidden from a VM) and at
	 * most 1 GB */
	size_t b = SL_MAX((size_t)64 << 20, 8 * llc);
	return SL_MIN(b, (size_t)1 << 30);
}
