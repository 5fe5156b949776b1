/*
 * A CPU-bound program for the overhead benchmark: spins for the given
 * number of seconds of work (default 10), fixed work, not fixed time, so
 * any slow-down from profiling shows up as a longer run.
 * Usage: spin [SECONDS]   (about 6e8 iterations per second of work)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	uint64_t n = (uint64_t)(secs * 6e8), h = 1;
	for (uint64_t i = 0; i < n; i++) {
		h ^= i;
		h *= 0x9E3779B97F4A7C15ull;
		h ^= h >> 29;
	}
	printf("%llu\n", (unsigned long long)(h & 0xff));
	return 0;
}
