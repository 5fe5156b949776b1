/*
 * Collection backends.  The collector drives a backend interval by
 * interval: it says which events to program for the next interval, then
 * receives that interval's counts, time and samples.  Phase detection,
 * prediction and multiplexing above this interface are identical for the
 * replayed trace, the hardware PMU and the timer fallback.
 */
#ifndef SLEUTH_BACKEND_H
#define SLEUTH_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "sleuth/machine.h"

typedef struct sl_obs {
	double start_s;       /* since the start of the run */
	double time_s;
	uint64_t cycles;      /* 0 when unknown */
	uint64_t instructions;
	uint64_t *counts;     /* n_events entries; SL_MISSING unless programmed */
	uint64_t *samples;    /* sampled addresses (conditional branches or IPs) */
	size_t n_samples;
	double energy_j;      /* NAN unless measured */
	uint64_t lost;        /* samples lost in this interval */
	uint64_t throttled;   /* times the kernel throttled sampling in this
				 interval (perf): samples are missing */
	int has_temp;         /* temp_c was measured */
	double temp_c;        /* die temperature over the interval, deg C */
	double ghz;           /* the core frequency of the interval; 0: the
				 backend's freq_ghz (a dithered run sets it) */
} sl_obs;

/* An executable mapping of the profiled process, for symbolisation. */
typedef struct sl_mapping {
	uint64_t start, end, pgoff;
	char *path;
} sl_mapping;

typedef struct sl_backend sl_backend;
struct sl_backend {
	const char *name;        /* "replay", "perf", "timer" */
	size_t n_events;         /* the programmable events the collector may ask for */
	const char **events;
	size_t k;                /* programmable counters available */
	int has_counts;          /* 0: the timer backend counts nothing */
	double freq_ghz;         /* 0 when unknown */
	uint64_t interval_instructions; /* 0 when intervals are timed */
	double interval_s;
	char *host_cpu;
	char *workload;
	char *energy_source;     /* NULL when no reference energy */
	/* perf: what the hardware gave (NULL / 0 elsewhere) */
	char *pmu;               /* libpfm4 PMU name */
	char *kernel;            /* uname release */
	char *sampling;          /* "precise_ip=2 (PEBS)", "imprecise (...)" */
	char *counter_plan;      /* the counter plan, one line */
	uint64_t throttles;      /* THROTTLE records: sampling stopped a tick */
	uint64_t merged_intervals; /* intervals merged into the next one */
	uint64_t scaled_intervals; /* intervals whose group was multiplexed */
	sl_mapping *maps;        /* executable mappings seen (perf, timer) */
	size_t n_maps;

	/* Program these events for the next interval (indices into events). */
	int (*program)(sl_backend *b, const size_t *ev, size_t n);
	/* 1: *o filled (storage owned by the backend until the next call);
	 * 0: the run ended; -1: error. */
	int (*next)(sl_backend *b, sl_obs *o);
	/* After the end: the target's exit status as a shell reports it
	 * (0..255, 128+signal), or 0 for replay. */
	int (*finish)(sl_backend *b);
	/* Optional (NULL: unknown): how far the run is, in units of *total,
	 * e.g. bytes of a replayed trace; *total 0 when unknown. */
	uint64_t (*progress)(sl_backend *b, uint64_t *total);
	/* Ask the run to stop soon (Ctrl-C); async-signal-safe. */
	void (*interrupt)(sl_backend *b);
	void (*destroy)(sl_backend *b);
	void *priv;
	/* Optional (NULL: interrupt() is used): pass signal sig (SIGINT,
	 * SIGTERM, SIGHUP) on to the profiled program, which then ends the run
	 * as it would have ended without sleuth; async-signal-safe. */
	void (*signal)(sl_backend *b, int sig);
	/* What was asked for and could not be measured (one line: why, the
	 * fix), for the profile's notes; NULL: nothing.  Owned (freed by
	 * sl_backend_free).  Last, so that older backends' layout holds. */
	char *note;
	/* n_events flags (sl_backend_find_uncore): 1 for an event an uncore
	 * PMU counts beside the k counters (sl_pfm_uncore), programmed in every
	 * interval; NULL until found.  Owned (freed by sl_backend_free). */
	unsigned char *uncore;
	/* The event the samples count, one sample every sample_period of it
	 * (the machine's branch_sample), so that an interval's samples times
	 * the period is its count to within a period; NULL when the samples
	 * count time (the timer backend).  Owned (freed by sl_backend_free). */
	char *sample_event;
	uint64_t sample_period;
};

/* The end of every destroy(): frees the strings the fields above own
 * (host_cpu, workload, energy_source, pmu, kernel, sampling, counter_plan,
 * note, uncore, sample_event)
 * and b.  The events and maps are the backend's to free before. */
void sl_backend_free(sl_backend *b);
/* The default sampling period for intervals of `interval` instructions:
 * `period`, the default at SL_DEFAULT_INTERVAL_INSTRUCTIONS, in proportion
 * for a shorter interval (at least 1), so that an interval keeps the
 * samples phase detection was tuned with (docs/phases.md, "The replay's
 * period follows the interval"); `period` for longer or timed (0)
 * intervals.  The replay and vPMU backends' default; not perf's, whose
 * limit is samples per second. */
uint64_t sl_sample_period_for(uint64_t period, uint64_t interval);
/* Set b->uncore from b->events (once they are set). */
void sl_backend_find_uncore(sl_backend *b);
/* What every program() checks of the events asked for: each an index
 * below n_events, and at most k of them core events (an uncore one takes
 * no counter; b->uncore found).  0, or -1 with sl_error(). */
int sl_backend_check_program(const sl_backend *b, const size_t *ev, size_t n);

#endif
