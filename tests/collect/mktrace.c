/* mktrace TRACE MACHINE [REPEATS [BRANCHES]]: write a synthetic 3-phase trace and the
 * machine model it fits, for the CLI tests of `sleuth run --replay`
 * (independent of the simulator), and for bench/replay.sh.  The trace has
 * 18 + 8 * REPEATS intervals of BRANCHES hot branches (twice that in the
 * first interval of an instance, which mixes two phases). */
#include <stdio.h>
#include <stdlib.h>

#include "sleuth/common.h"
#include "synth_trace.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: mktrace TRACE MACHINE [REPEATS [BRANCHES]]\n");
		return 2;
	}
	synth_opts o = {.path = argv[1], .repeats = argc > 3 ? strtoul(argv[3], NULL, 10) : 8,
			.branches = argc > 4 ? strtoul(argv[4], NULL, 10) : 40, .cond_per_iv = 15000000, .drop_event = -1,
			.seed = 3};
	FILE *f = fopen(argv[2], "w");
	if (!f || fputs(synth_machine, f) < 0 || fclose(f) != 0) {
		perror(argv[2]);
		return 1;
	}
	if (synth_trace(&o, NULL, NULL) < 0) {
		fprintf(stderr, "mktrace: %s\n", sl_error());
		return 1;
	}
	return 0;
}
