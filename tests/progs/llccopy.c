/*
 * Records copied out of a table that fits the LLC but not L2: 256-byte
 * rows at random places in a 4 MiB table, each copied word by word into a
 * small ring (a database's row copies, sqlite3's memcpy).  Each row's four
 * lines are LLC hits that overlap one another and the copying around them,
 * so the ROB hides most of each epoch's latency and its stall is a few
 * cycles, which fall away at a lower frequency faster than the latency
 * does (tests/vpmu/cli-vpmu-llc.sh: the mlp model's stall episodes).
 *
 *   llccopy [ROWS]     (default 400000)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TABLE_BYTES (4u << 20)
#define ROW_WORDS 32 /* 256 bytes */
#define RING_ROWS 16

int main(int argc, char **argv)
{
	unsigned long long rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 400000;
	size_t words = TABLE_BYTES / sizeof(uint64_t), n = words / ROW_WORDS;
	uint64_t *t = malloc(TABLE_BYTES);
	static uint64_t ring[RING_ROWS * ROW_WORDS];
	if (!t) {
		fprintf(stderr, "llccopy: out of memory\n");
		return 1;
	}
	uint64_t sum = 0, x = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < words; i++) /* data the compiler cannot know */
		t[i] = i ^ (uintptr_t)argv;
	for (size_t i = 0; i < words; i += 8) /* warm: every line into the LLC */
		sum += t[i];
	for (unsigned long long s = 0; s < rows; s++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		const uint64_t *src = t + (x % n) * ROW_WORDS;
		uint64_t *dst = ring + (s % RING_ROWS) * ROW_WORDS;
		for (unsigned w = 0; w < ROW_WORDS; w++)
			dst[w] = src[w];
		sum += dst[s % ROW_WORDS];
	}
	printf("%llu\n", (unsigned long long)sum);
	free(t);
	return 0;
}
