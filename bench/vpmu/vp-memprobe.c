/*
 * The vPMU's memory probes (bench/memprobe-vpmu.sh): small loops that
 * measure its memory system the way one measures a real machine's, with
 * the PMU's counts, never its parameters.  Every mode first sets up (and
 * warms) its data, then runs STEPS thousand steps; the script runs each
 * mode at two step counts and takes the difference, so that set-up,
 * warm-up and start-up cancel.
 *
 *   vp-memprobe chase STEPS_K      a dependent random walk over 32 MiB
 *                                  (4x the LLC: every step a DRAM miss,
 *                                  none overlapping: the latency)
 *   vp-memprobe llcchase STEPS_K   a dependent random walk over 4 MiB (in the
 *                                  LLC, beyond L2: every step waits for
 *                                  the LLC hit before it, none overlap):
 *                                  the latency of an exposed LLC hit
 *   vp-memprobe llc STEPS_K        a loop of independent loads over 4 MiB,
 *                                  one word every second line (the streamer
 *                                  follows only +-1-line steps): LLC hits
 *   vp-memprobe core STEPS_K       the same loop over 128 KiB (L2 hits):
 *                                  llc - core is what an LLC hit costs a
 *                                  loop
 *   vp-memprobe branch STEPS_K     the core loop with a branch on a random
 *                                  bit of each word (half of them
 *                                  mispredicted): branch - core, in stall
 *                                  cycles per mispredict, is what the stall
 *                                  counter counts for one
 *   vp-memprobe copy STEPS_K       copies 64-byte lines between two 32 MiB
 *                                  arrays (traffic far beyond DRAM's)
 *   vp-memprobe fill STEPS_K       stores a word into each line of a 32 MiB
 *                                  array (stores never wait: the most
 *                                  traffic a program can make)
 *   vp-memprobe loaded K STEPS_K   the 32 MiB walk with K more lines read
 *                                  per step (one word each, in order: the
 *                                  streamer fetches them): the latency
 *                                  under K's traffic (reads only: every
 *                                  demand miss is a load, as occupancy
 *                                  counts loads)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	struct node *next;
	uint64_t pad[7];
};

/* a random cycle through n 64-byte nodes (xorshift, fixed seed) */
static struct node *cycle(size_t n)
{
	struct node *v = malloc(n * sizeof *v);
	uint32_t *perm = malloc(n * sizeof *perm);
	uint64_t s = 0x9e3779b97f4a7c15ull;
	if (!v || !perm) {
		fprintf(stderr, "vp-memprobe: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		size_t j = s % (i + 1);
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		v[perm[i]].next = &v[perm[(i + 1) % n]];
	free(perm);
	return v;
}

static struct node *walk(struct node *p, uint64_t steps)
{
	while (steps--)
		p = p->next;
	return p;
}

/* read a word of each of k lines of src from line *at (wrapping at n) */
static uint64_t read_lines(const uint64_t *src, size_t n, size_t *at, unsigned k)
{
	uint64_t s = 0;
	for (unsigned j = 0; j < k; j++) {
		s += src[*at * 8];
		*at = *at + 1 == n ? 0 : *at + 1;
	}
	return s;
}

/* sum one word of every second line of the n lines of a, steps times */
static uint64_t stride_sum(const uint64_t *a, size_t n, uint64_t steps)
{
	uint64_t s = 0;
	size_t at = 0;
	while (steps--) {
		s += a[at * 8];
		at = at + 2 >= n ? 0 : at + 2;
	}
	return s;
}

/* stride_sum with a branch on a random bit of each word: random data
 * cannot be predicted (the empty asm keeps the branch a branch, not a
 * conditional move) */
static uint64_t stride_branch(const uint64_t *a, size_t n, uint64_t steps)
{
	uint64_t s = 0, odd = 0;
	size_t at = 0;
	while (steps--) {
		uint64_t v = a[at * 8];
		if (v & 1) {
			__asm__ volatile("" ::: "memory");
			odd++;
		}
		s += v;
		at = at + 2 >= n ? 0 : at + 2;
	}
	return s + odd;
}

/* copy k lines from src to dst at line *at (wrapping at n lines) */
static void copy_lines(uint64_t *dst, const uint64_t *src, size_t n, size_t *at, unsigned k)
{
	for (unsigned j = 0; j < k; j++) {
		size_t o = *at * 8;
		for (unsigned w = 0; w < 8; w++)
			dst[o + w] = src[o + w];
		*at = *at + 1 == n ? 0 : *at + 1;
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int loaded = !strcmp(mode, "loaded");
	if (argc != 3 + loaded) {
		fprintf(stderr, "usage: vp-memprobe chase|llcchase|llc|core|branch|copy|fill STEPS_K | "
			"loaded K STEPS_K\n");
		return 2;
	}
	unsigned k = loaded ? (unsigned)atoi(argv[2]) : 0;
	uint64_t steps = strtoull(argv[2 + loaded], NULL, 10) * 1000;
	size_t big = (32u << 20) / sizeof(struct node);
	struct node *v = NULL, *p = NULL;
	uint64_t sum = 0;
	int fill = !strcmp(mode, "fill");
	if (!strcmp(mode, "copy") || fill || loaded) {
		size_t lines = (32u << 20) / 64, at = 0;
		uint64_t *a = calloc(lines * 8, 8), *b = calloc(lines * 8, 8);
		if (!a || !b)
			return 1;
		for (size_t i = 0; i < lines * 8; i++) /* data the compiler cannot know */
			a[i] = i ^ (uintptr_t)argv;
		if (loaded) {
			v = cycle(big);
			p = walk(v, big); /* warm: one whole pass */
			for (uint64_t i = 0; i < steps; i++) {
				p = p->next;
				sum += read_lines(a, lines, &at, k);
			}
		} else if (fill)
			for (size_t i = 0; i < steps && i < lines; i++)
				b[i * 8] = i;
		else
			copy_lines(b, a, lines, &at, (unsigned)(steps < lines ? steps : lines));
		sum += b[steps % lines];
		free(a);
		free(b);
	} else if (!strcmp(mode, "llc") || !strcmp(mode, "core")) {
		size_t lines = (mode[0] == 'l' ? 4u << 20 : 128u << 10) / 64;
		uint64_t *a = malloc(lines * 64);
		if (!a)
			return 1;
		for (size_t i = 0; i < lines * 8; i++)
			a[i] = i ^ (uintptr_t)argv;
		sum = stride_sum(a, lines, lines); /* warm: two whole passes */
		sum += stride_sum(a, lines, steps);
		free(a);
	} else if (!strcmp(mode, "branch")) {
		size_t lines = (128u << 10) / 64;
		uint64_t *a = malloc(lines * 64), r = 0x9e3779b97f4a7c15ull;
		if (!a)
			return 1;
		for (size_t i = 0; i < lines * 8; i++) { /* xorshift: random bits */
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			a[i] = r;
		}
		sum = stride_branch(a, lines, lines); /* warm: two whole passes */
		sum += stride_branch(a, lines, steps);
		free(a);
	} else if (!strcmp(mode, "chase") || !strcmp(mode, "llcchase")) {
		if (mode[0] == 'l')
			big = (4u << 20) / sizeof(struct node);
		v = cycle(big);
		p = walk(v, 2 * big); /* warm: two whole passes */
		p = walk(p, steps);
	} else {
		fprintf(stderr, "vp-memprobe: unknown mode '%s'; use chase, llcchase, llc, core, branch, "
			"copy, fill or loaded\n", mode);
		return 2;
	}
	printf("%llu\n", (unsigned long long)(sum + (uintptr_t)p % 2));
	free(v);
	return 0;
}
