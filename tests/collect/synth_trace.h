/*
 * Synthetic sleuth-trace/1 files for the replay and collector tests: a few
 * phases with their own branch addresses and event rates, a schedule of
 * instances whose first interval mixes the previous phase in, labels and
 * energy, written with the trace writer.  Independent of the simulator, so
 * these tests know the truth exactly.
 */
#ifndef SLEUTH_TEST_SYNTH_TRACE_H
#define SLEUTH_TEST_SYNTH_TRACE_H

#include <stddef.h>
#include <stdint.h>

/* The Nehalem events the machine below needs, after cycles and
 * instructions. */
extern const char *const synth_events[];
extern const size_t synth_n_events;
/* A sleuth-machine/1 text with 4 programmable counters using them. */
extern const char synth_machine[];

typedef struct synth_opts {
	const char *path;
	size_t repeats;        /* times the B,C pattern repeats */
	size_t branches;       /* hot branch addresses per phase */
	uint64_t cond_per_iv;  /* conditional branches per interval */
	int drop_event;        /* >= 0: leave synth_events[i] out of the trace */
	double density[3];     /* per phase, its conditional branches per
				  instruction as a multiple of cond_per_iv's
				  (0: 1) */
	int c_runs_b;          /* C runs B's code: B's branch addresses */
	uint64_t seed;
} synth_opts;

/* Write the trace; returns its number of intervals (-1 on error).
 * labels[] (malloc'd, optional) receives the true phase (0 = A, 1 = B, 2 = C)
 * of each interval and mixed[] whether it is an instance's first. */
long synth_trace(const synth_opts *o, uint32_t **labels, int **mixed);
/* The count of event column `col` (0 = cycles, 1 = instructions, 2.. =
 * synth_events) that interval i of the trace written with `o` has. */
uint64_t synth_count(const synth_opts *o, size_t i, size_t col);

#endif
