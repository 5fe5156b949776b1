/*
 * bench/memprobe-vpmu.sh's reader: the sums over a vPMU profile that the
 * memory probes need, as hardware probes read their counters at the end of
 * a run.  Prints the run's time (s), its cycles and the sum of each named
 * event, -1 for an event some interval did not count (the probe pins its
 * events, so all are counted in every interval), on one line.
 *
 *   vpmu-sums [-r FIRST:N] PROFILE EVENT...
 *
 * -r sums only the N intervals from FIRST on (a phase instance:
 * bench/vpmu-worst.sh); -1 also when the profile has fewer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/profile.h"

int main(int argc, char **argv)
{
	size_t first = 0, n = SIZE_MAX;
	int a0 = 1;
	if (argc > 2 && !strcmp(argv[1], "-r")) {
		char *end;
		first = strtoul(argv[2], &end, 10);
		if (*end != ':' || !end[1]) {
			fprintf(stderr, "vpmu-sums: -r takes FIRST:N, not '%s'\n", argv[2]);
			return 2;
		}
		n = strtoul(end + 1, NULL, 10);
		a0 = 3;
	}
	if (argc <= a0) {
		fprintf(stderr, "usage: vpmu-sums [-r FIRST:N] PROFILE EVENT...\n");
		return 2;
	}
	sl_profile p;
	sl_profile_init(&p);
	if (sl_profile_read(argv[a0], &p) < 0) {
		fprintf(stderr, "vpmu-sums: %s\n", sl_error());
		return 1;
	}
	size_t last = n == SIZE_MAX ? p.n_intervals : first + n;
	int short_run = last > p.n_intervals;
	if (short_run)
		last = p.n_intervals;
	double t = 0, c = 0;
	for (size_t i = first; i < last; i++) {
		t += p.iv[i].time_s;
		c += (double)p.iv[i].cycles;
	}
	printf("%.9g %.0f", t, c);
	for (int a = a0 + 1; a < argc; a++) {
		int k = sl_profile_event_index(&p, argv[a]);
		double s = k < 0 || short_run ? -1 : 0;
		for (size_t i = first; s >= 0 && i < last; i++) {
			uint64_t v = sl_prof_count(&p, i, (size_t)k);
			if (v == SL_MISSING) {
				s = -1;
				break;
			}
			s += (double)v;
		}
		printf(" %.0f", s);
	}
	printf("\n");
	sl_profile_free(&p);
	return 0;
}
