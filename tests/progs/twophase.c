/*
 * A program with two clearly different phases in two functions, for the
 * live backends' tests: an integer hash loop and a floating-point array
 * loop, each running ~0.3 s of CPU time, alternating three times (~2 s).
 * Phases are timed by the process's own CPU clock, so a busy machine
 * stretches the run but not the phases.  Exits 3 when given an argument,
 * 0 otherwise, so tests can check that the exit status is passed on.
 * Optional: TWOPHASE_SECONDS=S sets each phase's length.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cputime.h"

/* Phase A: integer hashing, branchy, no memory traffic. */
uint64_t phase_hash(double seconds)
{
	uint64_t h = 1469598103934665603ull;
	double end = cpu_now() + seconds;
	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++) {
			h ^= (uint64_t)i;
			h *= 1099511628211ull;
			if (h & 1)
				h = (h >> 7) | (h << 57);
		}
	return h;
}

/* Phase B: floating point over an array. */
double phase_float(double seconds)
{
	enum { N = 1 << 14 };
	static double a[N];
	double s = 0;
	double end = cpu_now() + seconds;
	for (int i = 0; i < N; i++)
		a[i] = i * 0.5;
	while (cpu_now() < end)
		for (int i = 0; i < N; i++) {
			a[i] = a[i] * 1.0000001 + 0.25;
			s += a[i] * 0.5;
		}
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	double len = 0.3;
	const char *e = getenv("TWOPHASE_SECONDS");
	if (e)
		len = atof(e);
	uint64_t h = 0;
	double s = 0;
	for (int round = 0; round < 3; round++) {
		h += phase_hash(len);
		s += phase_float(len);
	}
	/* Use the results so the loops are not optimised away. */
	if (h == 42 && s < 0)
		puts("unlikely");
	return argc > 1 ? 3 : 0;
}
