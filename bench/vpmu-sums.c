/*
 * bench/memprobe-vpmu.sh's reader: the sums over a vPMU profile that the
 * memory probes need, as hardware probes read their counters at the end of
 * a run.  Prints the run's time (s), its cycles and the sum of each named
 * event, -1 for an event some interval did not count (the probe pins its
 * events, so all are counted in every interval), on one line.
 *
 *   vpmu-sums PROFILE EVENT...
 */
#include <stdio.h>

#include "sleuth/common.h"
#include "sleuth/profile.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: vpmu-sums PROFILE EVENT...\n");
		return 2;
	}
	sl_profile p;
	sl_profile_init(&p);
	if (sl_profile_read(argv[1], &p) < 0) {
		fprintf(stderr, "vpmu-sums: %s\n", sl_error());
		return 1;
	}
	double t = 0, c = 0;
	for (size_t i = 0; i < p.n_intervals; i++) {
		t += p.iv[i].time_s;
		c += (double)p.iv[i].cycles;
	}
	printf("%.9g %.0f", t, c);
	for (int a = 2; a < argc; a++) {
		int k = sl_profile_event_index(&p, argv[a]);
		double s = k < 0 ? -1 : 0;
		for (size_t i = 0; k >= 0 && i < p.n_intervals; i++) {
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
