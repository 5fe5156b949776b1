/*
 * The training kernels of `calibrate --sweep` on a real machine: small
 * loops that each stress one part of the core or memory system, run for a
 * given time in a child process that the perf backend profiles.  Together
 * they spread the event rates the power model is fitted on: integer and
 * floating-point work, unpredictable branches, streaming through memory,
 * dependent misses (the pointer chase), and a mix that changes phase.
 */
#include "sleuth/hw.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"

#define STREAM_BYTES ((size_t)128 << 20)
#define SLICE_S 0.05 /* mixed: time per part */

static volatile uint64_t sink_u;
static volatile double sink_d;

static void k_int(double until)
{
	uint64_t a = 1, b = 2, c = 3, d = 4;
	while (sl_now() < until)
		for (int i = 0; i < 100000; i++) {
			a = a * 6364136223846793005ull + b;
			b ^= a >> 13;
			c += d * 3 + (a & 7);
			d = (d << 1) ^ c;
		}
	sink_u = a + b + c + d;
}

static void k_fp(double until)
{
	double a = 1.0, b = 1.1, c = 1.2, d = 1.3;
	while (sl_now() < until)
		for (int i = 0; i < 100000; i++) {
			a = a * 0.999999 + 0.5;
			b = b * 1.000001 - 0.25;
			c = c * 0.9999995 + b * 1e-9;
			d = d * 1.0000005 - a * 1e-9;
		}
	sink_d = a + b + c + d;
}

static void k_branchy(double until)
{
	uint64_t x = 0x9e3779b97f4a7c15ull, n = 0;
	while (sl_now() < until)
		for (int i = 0; i < 100000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (x & 1) /* a coin toss: the predictor cannot learn it */
				n += x >> 60;
			else
				n ^= x;
		}
	sink_u = n;
}

static void k_stream(double until)
{
	size_t n = STREAM_BYTES / 3 / sizeof(double);
	double *a = sl_xmalloc(n * sizeof *a), *b = sl_xmalloc(n * sizeof *b),
	       *c = sl_xmalloc(n * sizeof *c);
	for (size_t i = 0; i < n; i++) {
		b[i] = (double)i;
		c[i] = 1.0;
	}
	do /* the STREAM triad */
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] + 3.0 * c[i];
	while (sl_now() < until);
	sink_d = a[n / 2];
	free(a);
	free(b);
	free(c);
}

static void k_chase(double until)
{
	double left = until - sl_now();
	if (left > 0)
		sink_d = sl_chase_latency_ns(sl_chase_default_bytes(NULL), left);
}

static const struct {
	const char *name;
	void (*fn)(double until);
} kernels[] = {
	{"int", k_int}, {"fp", k_fp}, {"branchy", k_branchy},
	{"stream", k_stream}, {"chase", k_chase}, {"mixed", NULL},
};

const char *sl_train_kernel_name(size_t i)
{
	return i < SL_ARRAY_LEN(kernels) ? kernels[i].name : NULL;
}

int sl_train_kernel(const char *name, double seconds)
{
	double until = sl_now() + seconds;
	for (size_t i = 0; i < SL_ARRAY_LEN(kernels); i++) {
		if (strcmp(name, kernels[i].name))
			continue;
		if (kernels[i].fn) {
			kernels[i].fn(until);
			return 0;
		}
		/* mixed: the compute kernels in turn, so phases change */
		for (size_t k = 0; sl_now() < until; k = (k + 1) % 3)
			kernels[k].fn(SL_MIN(until, sl_now() + SLICE_S));
		return 0;
	}
	sl_error_set("no training kernel '%s' (int, fp, branchy, stream, chase, mixed)", name);
	return -1;
}
