/*
 * Code to be named as perf names it, for tests/collect/cli-run.sh: three
 * stages of ~0.4 s of CPU each (NAMED_SECONDS), run one after the other:
 * a C++ method in a namespace (named demangled), a function of a shared
 * library (named with the library), and a loop the compiler inlines into
 * main (named as the inlined function).
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "cputime.h"

extern "C" uint64_t named_lib_spin(double seconds); /* libnamed-lib.so */

namespace demo {
struct Mixer {
	uint64_t state = 88172645463325252ull;
	__attribute__((noinline)) uint64_t churn(double seconds);
};

uint64_t Mixer::churn(double seconds)
{
	double end = cpu_now() + seconds;
	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++) {
			state ^= state << 13;
			state ^= state >> 7;
			state ^= state << 17;
		}
	return state;
}
} // namespace demo

static inline __attribute__((always_inline)) double inlined_kernel(double seconds)
{
	double x = 0.5, end = cpu_now() + seconds;
	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++)
			x = x * 1.000001 + 1e-9 / (x + 1.0);
	return x;
}

int main()
{
	const char *env = getenv("NAMED_SECONDS");
	double s = env ? atof(env) : 0.4;
	demo::Mixer m;
	uint64_t a = m.churn(s);
	uint64_t b = named_lib_spin(s);
	double c = inlined_kernel(s);
	printf("%llu %llu %g\n", (unsigned long long)a, (unsigned long long)b, c);
	return 0;
}
