/*
 * Shared between builtin-run.c (options, replay, reporting) and run-live.c
 * (choosing and building the perf or timer backend for a real program).
 */
#ifndef SLEUTH_RUN_H
#define SLEUTH_RUN_H

#include <stdint.h>

#include "sleuth/backend.h"
#include "sleuth/collector.h"
#include "sleuth/machine.h"

typedef struct sl_run_opts {
	const char *output;
	const char *replay;
	const char *backend;   /* NULL: auto */
	int auto_perf;         /* auto chose perf; timer if perf cannot run */
	const char *machine;
	const char *interval;  /* as given; parsed by the backend chosen */
	int counters;          /* -1: the machine's */
	uint64_t sample_period;
	double sample_hz;      /* timer: cpu-clock samples/s; 0: default */
	double freq_ghz;       /* vpmu: the virtual clock; 0: its fastest */
	const char *vpmu_machine; /* vpmu: its machine file; NULL: default */
	uint64_t seed;
	int power;
	int score;
	int help;              /* --help was given and answered */
	const char *pin;       /* --pin: none, time or ROLE[,ROLE...] */
	char **argv;           /* the program and its arguments */
	int argc;
	sl_collect_opts copts;
} sl_run_opts;

/* Resolve --backend auto to "perf" or "timer", saying which and why on
 * stderr.  Sets o->backend. */
void sl_run_pick_backend(sl_run_opts *o);
/* When auto chose perf and perf cannot run (sl_error() says why): switch
 * to timer, saying so in one line, and return 1; else 0. */
int sl_run_fallback(sl_run_opts *o);
/* The default machine model of a live run: for perf, the model under
 * models/ matching the host PMU (malloc'd path), for timer none (*path
 * NULL).  -1 with sl_error() naming --machine when there is none. */
int sl_run_default_machine(const sl_run_opts *o, char **path);
/* The perf or timer backend for o->argv; NULL with sl_error().  *events
 * (NULL or malloc'd) lists the events offered; free it after the backend. */
sl_backend *sl_run_live_backend(const sl_run_opts *o, const sl_machine *m,
				const char ***events);

#endif
