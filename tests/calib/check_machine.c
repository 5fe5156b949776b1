/* Test helper for the CLI tests: exits 0 if a file loads as a complete
 * sleuth-machine/1 model (static power everywhere, fitted power section),
 * else prints why and exits 1. */
#include <stdio.h>

#include "sleuth/common.h"
#include "sleuth/machine.h"

int main(int argc, char **argv)
{
	sl_machine m;
	if (argc != 2) {
		fprintf(stderr, "usage: check-machine MODEL.yaml\n");
		return 2;
	}
	if (sl_machine_load(argv[1], &m) < 0) {
		fprintf(stderr, "check-machine: %s\n", sl_error());
		return 1;
	}
	if (!sl_machine_complete(&m)) {
		fprintf(stderr, "check-machine: %s\n", sl_error());
		sl_machine_free(&m);
		return 1;
	}
	printf("%s: %zu P-states, %zu power terms\n", m.name, m.n_pstates, m.n_terms);
	sl_machine_free(&m);
	return 0;
}
