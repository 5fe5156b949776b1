/*
 * Drive the timer backend directly on a program, as `sleuth run --backend
 * timer` will, for the overhead benchmark (bench/overhead.sh): intervals
 * are consumed and dropped, so what is measured is collection alone.
 * Usage: bench_timer [--hz N] [--interval SECONDS] -- PROGRAM [ARGS]
 * Prints "intervals N samples N lost N" on stderr; exits with the
 * program's status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/collect.h"
#include "sleuth/common.h"

int main(int argc, char **argv)
{
	sl_live_opts o = {0};
	int i = 1;
	for (; i < argc && strcmp(argv[i], "--"); i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--hz") &&
		    sl_parse_double(argv[i + 1], &o.sample_hz) == 0)
			i++;
		else if (i + 1 < argc && !strcmp(argv[i], "--interval") &&
			 sl_parse_double(argv[i + 1], &o.interval_s) == 0)
			i++;
		else {
			fprintf(stderr, "usage: bench_timer [--hz N] [--interval S] -- PROGRAM [ARGS]\n");
			return 2;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: bench_timer [--hz N] [--interval S] -- PROGRAM [ARGS]\n");
		return 2;
	}
	o.argv = argv + i + 1;
	sl_backend *b = sl_timer_backend_new(&o);
	if (!b) {
		fprintf(stderr, "bench_timer: %s\n", sl_error());
		return 1;
	}
	sl_obs ob;
	int r;
	size_t n = 0, samples = 0;
	uint64_t lost = 0;
	while ((r = b->next(b, &ob)) == 1) {
		n++;
		samples += ob.n_samples;
		lost += ob.lost;
	}
	if (r < 0)
		fprintf(stderr, "bench_timer: %s\n", sl_error());
	int status = b->finish(b);
	fprintf(stderr, "intervals %zu samples %zu lost %llu\n", n, samples,
		(unsigned long long)lost);
	b->destroy(b);
	return r < 0 ? 1 : status;
}
