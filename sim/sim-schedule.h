/*
 * `sleuth simulate --schedule`: from a sleuth-schedule/1 and the profile it
 * was made from to the simulator's per-interval frequency plan.  Apart from
 * builtin-simulate.c so the command's option handling stays small.
 */
#ifndef SLEUTH_SIMULATE_SCHEDULE_H
#define SLEUTH_SIMULATE_SCHEDULE_H

#include "sleuth/sim.h"

typedef struct sl_simsched_opts {
	const char *schedule;  /* the sleuth-schedule/1 file */
	const char *profile;   /* NULL: the schedule's `profile:` */
	double transition_us; /* < 0: the schedule's own (0 if it has none) */
} sl_simsched_opts;

/* Fill ro->pstate_of (malloc'd, *plan owns it), ro->switch_s and ro->ghz
 * (the schedule's baseline, written as the trace header's frequency) for the
 * run s.  0, or -1 with one line in sl_error(). */
int sl_simsched_plan(const sl_simsched_opts *so, const sl_sim *s, sl_sim_run_opts *ro,
		     int **plan);

/* `sleuth simulate --dither N:FREQ`: every Nth interval (sl_dither_at)
 * at the P-state FREQ, the others at ro->ghz; ro->pstate_of (malloc'd,
 * *plan owns it) for the run s.  0, or -1 with sl_error(). */
int sl_simdither_plan(const sl_sim *s, unsigned n, double ghz, sl_sim_run_opts *ro,
		      int **plan);

#endif
