/*
 * Speed and memory of the sleuth-trace/1 writer and reader at the size the
 * simulator must handle: N intervals (default 100k) of B branch addresses
 * (default 200).  Prints seconds, MB/s and peak RSS for docs/benchmarks.md.
 * Usage: bench-trace [FILE [INTERVALS [BRANCHES [write|read]]]]
 * (`write`: skip reading, e.g. to profile the writer alone; `read`: only
 * read an existing FILE written by `write`, so that its peak RSS and
 * profile are the reader's alone)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "sleuth/common.h"
#include "sleuth/trace.h"

static double peak_rss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024.0;
}

/* User + system CPU seconds of all threads so far: with the trace's I/O
 * threads, wall time alone no longer shows the work done. */
static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Write nint pseudo-random intervals of nbr branches; 0 or 1. */
static int write_trace(const char *path, size_t nint, size_t nbr)
{
	char *events[] = {"cycles", "instructions", "UOPS_EXECUTED:PORT015_STALL_CYCLES",
			  "LLC_MISSES", "RESOURCE_STALLS:ANY", "L2_RQSTS:MISS"};
	sl_trace_header h = {.workload = "bench", .frequency_ghz = 2.66,
			     .interval_instructions = 100000000,
			     .events = events, .n_events = SL_ARRAY_LEN(events)};
	uint64_t n[SL_ARRAY_LEN(events)];
	uint64_t x = 88172645463325252ull;
	sl_trace_writer *w = sl_trace_create(path, &h);
	if (!w) {
		fprintf(stderr, "bench-trace: %s\n", sl_error());
		return 1;
	}
	sl_branch *br = sl_xcalloc(nbr ? nbr : 1, sizeof *br);
	for (size_t i = 0; i < nint; i++) {
		for (size_t k = 0; k < SL_ARRAY_LEN(n); k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			n[k] = 100000000 + x % 50000000;
		}
		for (size_t b = 0; b < nbr; b++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			br[b].addr = 0x401000 + 4 * b;
			br[b].count = x % 6000000;
		}
		sl_trace_interval iv = {.t = 0.0376 + (double)(x % 1000) * 1e-6,
					.n = n, .br = br, .n_br = nbr, .has_e = 1,
					.e = 1.873 + (double)(x % 777) * 1e-4,
					.label = i % 2 ? "p1" : "p0"};
		if (sl_trace_write(w, &iv) < 0) {
			fprintf(stderr, "bench-trace: %s\n", sl_error());
			sl_trace_abort(w);
			free(br);
			return 1;
		}
	}
	free(br);
	if (sl_trace_commit(w) < 0) {
		fprintf(stderr, "bench-trace: %s\n", sl_error());
		return 1;
	}
	return 0;
}

/* Read the trace back, expecting nint intervals; 0 or 1. */
static int read_trace(const char *path, size_t nint, uint64_t *sum)
{
	sl_trace_reader *r = sl_trace_open(path);
	if (!r) {
		fprintf(stderr, "bench-trace: %s\n", sl_error());
		return 1;
	}
	sl_trace_interval iv;
	size_t got = 0;
	int rc;
	*sum = 0;
	while ((rc = sl_trace_next(r, &iv)) > 0) {
		got++;
		*sum += iv.n_br ? iv.br[iv.n_br - 1].count : 0;
	}
	if (rc < 0 || got != nint) {
		fprintf(stderr, "bench-trace: read back %zu of %zu intervals: %s\n", got,
			nint, rc < 0 ? sl_error() : "");
		sl_trace_close(r);
		return 1;
	}
	sl_trace_close(r);
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "bench-trace.yaml";
	size_t nint = argc > 2 ? strtoul(argv[2], NULL, 10) : 100000;
	size_t nbr = argc > 3 ? strtoul(argv[3], NULL, 10) : 200;
	const char *mode = argc > 4 ? argv[4] : "both";
	struct stat st;
	uint64_t sum;
	double t0, c0;

	if (strcmp(mode, "read")) {
		t0 = sl_now(), c0 = cpu_s();
		if (write_trace(path, nint, nbr))
			return 1;
		double tw = sl_now() - t0, cw = cpu_s() - c0;
		stat(path, &st);
		double mb = st.st_size / 1e6;
		printf("trace: %zu intervals x %zu branches, %.1f MB\n", nint, nbr, mb);
		printf("write: %.2f s wall, %.2f s CPU (%.1f MB/s), peak RSS %.1f MB\n",
		       tw, cw, mb / tw, peak_rss_mb());
	}
	if (strcmp(mode, "write")) {
		t0 = sl_now(), c0 = cpu_s();
		if (read_trace(path, nint, &sum))
			return 1;
		double tr = sl_now() - t0, cr = cpu_s() - c0;
		stat(path, &st);
		double mb = st.st_size / 1e6;
		printf("read:  %.2f s wall, %.2f s CPU (%.1f MB/s), peak RSS %.1f MB "
		       "(checksum %llu)\n", tr, cr, mb / tr, peak_rss_mb(),
		       (unsigned long long)sum);
	}
	return 0;
}
