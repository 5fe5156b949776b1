/*
 * A program outside the project, built against an installed libsleuth with
 * nothing but `pkg-config --cflags --libs sleuth`: the install check
 * (tests/install/install-check.sh) compiles it with every installed header
 * included before it (all-headers.h, generated there), so a public header
 * that needs an internal one, or a symbol the archive lacks, fails here.
 */
#include "all-headers.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: consumer MACHINE.yaml\n");
		return 2;
	}
	sl_machine m;
	if (sl_machine_load(argv[1], &m) < 0) {
		fprintf(stderr, "consumer: %s\n", sl_error());
		return 1;
	}
	printf("%s: %zu P-states, fmax %.2f GHz\n", m.name, m.n_pstates,
	       m.pstates[0].ghz);
	sl_machine_free(&m);
	return 0;
}
