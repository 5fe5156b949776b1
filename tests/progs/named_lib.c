/* The shared-library stage of tests/progs/named.cc: a loop in a library,
 * to be named "named_lib_spin (libnamed-lib.so)". */
#include <stdint.h>

#include "cputime.h"

uint64_t named_lib_spin(double seconds);

uint64_t named_lib_spin(double seconds)
{
	uint64_t h = 1469598103934665603ull;
	double end = cpu_now() + seconds;
	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++) {
			h ^= (uint64_t)i;
			h *= 1099511628211ull;
		}
	return h;
}
