/*
 * Memory latency by pointer chasing: every cache line of a buffer much
 * larger than the last-level cache holds the index of the next line in a
 * random cyclic order, so each load depends on the previous one and misses
 * every cache.  The stall model needs this latency (memory_latency_ns); it is
 * measured on the machine, never assumed.
 *
 * Caveats: it is the latency of an idle memory system, and of a loaded
 * VM's nested page walks where the windows below do not hide them.
 */
#include "sleuth/hw.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sleuth/common.h"

/* Nodes 128 bytes apart, so that the adjacent-line prefetcher (which
 * fetches a line's 128-byte buddy) never brings in the next node; windows
 * of 64 KB (16 small pages) visited whole in random order, so that a page
 * walk is paid once per window rather than once per load when transparent
 * huge pages are not granted. */
#define NODE 128
#define WINDOW 512 /* nodes */
#define HUGE (2u << 20)

/* xorshift64*: a fixed seed keeps runs comparable */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static void shuffle(uint32_t *v, size_t n, uint64_t *seed)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(next_rand(seed) % i);
		uint32_t t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

double sl_chase_latency_ns(size_t bytes, double min_seconds)
{
	size_t nw = bytes / ((size_t)NODE * WINDOW), n = nw * WINDOW;
	if (nw < 2) {
		sl_error_set("pointer chase over %zu bytes: give at least %d KB", bytes,
			     2 * NODE * WINDOW / 1024);
		return -1;
	}
	/* 2 MB aligned, so that huge pages can back it */
	size_t len = n * NODE + HUGE;
	void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		sl_error_set("cannot map %zu MB for the pointer chase; give a smaller size",
			     bytes >> 20);
		return -1;
	}
	char *base = (char *)(((uintptr_t)mem + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	madvise(base, n * NODE, MADV_HUGEPAGE);
	/* The visiting order: windows shuffled, nodes shuffled within each. */
	uint32_t *win = sl_xmalloc(nw * sizeof *win), *in = sl_xmalloc(WINDOW * sizeof *in);
	uint32_t *order = sl_xmalloc(n * sizeof *order);
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (size_t w = 0; w < nw; w++)
		win[w] = (uint32_t)w;
	shuffle(win, nw, &seed);
	for (size_t w = 0, k = 0; w < nw; w++) {
		for (size_t i = 0; i < WINDOW; i++)
			in[i] = (uint32_t)i;
		shuffle(in, WINDOW, &seed);
		for (size_t i = 0; i < WINDOW; i++)
			order[k++] = win[w] * WINDOW + in[i];
	}
	for (size_t i = 0; i < n; i++)
		*(uintptr_t *)(base + (size_t)order[i] * NODE) =
			(uintptr_t)(base + (size_t)order[(i + 1) % n] * NODE);
	free(win);
	free(in);
	free(order);
	/* Every page is mapped now.  Rounds of a fixed number of hops (a whole
	 * cycle through 1 GB would take seconds) until min_seconds; the best
	 * round is kept, since interference only adds time. */
	size_t hops = SL_MIN(n, (size_t)1 << 22);
	volatile uintptr_t sink;
	uintptr_t p = (uintptr_t)base;
	for (size_t i = 0; i < SL_MIN(n, (size_t)1 << 16); i++)
		p = *(uintptr_t *)p;
	double best = -1, start = sl_now();
	int rounds = 0;
	do {
		double t0 = sl_now();
		for (size_t i = 0; i < hops; i++)
			p = *(uintptr_t *)p;
		double ns = (sl_now() - t0) * 1e9 / (double)hops;
		if (best < 0 || ns < best)
			best = ns;
		rounds++;
	} while (rounds < 3 || sl_now() - start < min_seconds);
	sink = p;
	(void)sink;
	munmap(mem, len);
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
	/* 4x the LLC (a random line then hits the LLC a quarter of the time at
	 * most), at least 64 MB (the LLC may be hidden from a VM), at most 512 MB
	 * (a few seconds to build on a loaded machine) */
	size_t b = SL_MAX((size_t)64 << 20, 4 * llc);
	return SL_MIN(b, (size_t)512 << 20);
}
