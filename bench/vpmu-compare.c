/*
 * bench/vpmu.sh's scorer: compares sleuth's prediction for frequency f
 * (predict --per interval CSV from the fmax profile) with the vPMU's own
 * run at f (its profile: measured time and meter energy per interval).
 * A deterministic program retires the same instructions in both runs, so
 * interval i of one is interval i of the other; runs whose intervals'
 * times do not line up (another interleaving of threads) are refused.  Prints, in percent:
 *   whole-program time error, phase-instance time error (mean weighted by
 *   the instance's true time, and worst), mean power error, energy error.
 *
 *   vpmu-compare FMAX.prof PREDICTION.csv TRUTH.prof
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/profile.h"

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: vpmu-compare FMAX.prof PREDICTION.csv TRUTH.prof\n");
		return 2;
	}
	sl_profile hi, lo;
	sl_profile_init(&hi);
	sl_profile_init(&lo);
	if (sl_profile_read(argv[1], &hi) < 0 || sl_profile_read(argv[3], &lo) < 0) {
		fprintf(stderr, "vpmu-compare: %s\n", sl_error());
		return 1;
	}
	if (hi.n_intervals != lo.n_intervals) {
		fprintf(stderr, "vpmu-compare: %s has %zu intervals, %s %zu: not the same "
			"deterministic run\n", argv[1], hi.n_intervals, argv[3], lo.n_intervals);
		return 1;
	}
	size_t n = hi.n_intervals;
	/* the same count of intervals is not enough: a program whose threads
	 * interleave differently from run to run (GNU sort's) retires other
	 * work in interval i.  The physics bounds an interval's time at the
	 * lower frequency f to [1, fmax/f] times its time at fmax (the core's
	 * cycles stretch, the memory's ns do not); margins for the DRAM queue
	 * and the last, partial interval.  (A few instructions more or less in
	 * all, as sqlite3's from run to run, shift nothing.) */
	size_t odd = 0;
	double bound = hi.freq_ghz > 0 && lo.freq_ghz > 0 ? hi.freq_ghz / lo.freq_ghz : 0;
	for (size_t i = 0; bound && i < n; i++) {
		double r = lo.iv[i].time_s / hi.iv[i].time_s;
		odd += r < 0.95 || r > 1.05 * bound;
	}
	if (odd > n / 100 + 1) {
		fprintf(stderr, "vpmu-compare: %zu of %zu intervals of %s are not within 1 to "
			"fmax/f times as long as %s's: not the same deterministic run\n",
			odd, n, argv[3], argv[1]);
		return 1;
	}
	double *pt = calloc(n, sizeof *pt), *pe = calloc(n, sizeof *pe);
	FILE *f = fopen(argv[2], "r");
	char line[512];
	size_t got = 0;
	while (f && fgets(line, sizeof line, f)) {
		double ghz, t, w, e;
		size_t i;
		unsigned ph, inst;
		unsigned long long ins;
		if (sscanf(line, "%lf,%zu,%u,%u,%llu,%lf,%lf,%lf", &ghz, &i, &ph, &inst, &ins, &t,
			   &w, &e) == 8 && i < n) {
			pt[i] = t;
			pe[i] = e;
			got++;
		}
	}
	if (f)
		fclose(f);
	if (got != n) {
		fprintf(stderr, "vpmu-compare: %s: %zu of %zu intervals with time and energy\n",
			argv[2], got, n);
		return 1;
	}
	double tp = 0, tt = 0, ep = 0, et = 0;
	for (size_t i = 0; i < n; i++) {
		tp += pt[i];
		tt += lo.iv[i].time_s;
		ep += pe[i];
		et += lo.iv[i].energy_j;
	}
	sl_instance *in;
	size_t ni = sl_profile_instances(&hi, &in);
	double wsum = 0, werr = 0, worst = 0;
	for (size_t k = 0; k < ni; k++) {
		double a = 0, b = 0;
		for (size_t i = in[k].first; i < in[k].first + in[k].n; i++) {
			a += pt[i];
			b += lo.iv[i].time_s;
		}
		double err = fabs(a - b) / b;
		werr += err * b;
		wsum += b;
		worst = SL_MAX(worst, err);
	}
	printf("%.2f %.2f %.2f %.2f %.2f\n", 100 * (tp - tt) / tt, 100 * werr / wsum, 100 * worst,
	       100 * (ep / tp - et / tt) / (et / tt), 100 * (ep - et) / et);
	free(in);
	free(pt);
	free(pe);
	sl_profile_free(&hi);
	sl_profile_free(&lo);
	return 0;
}
