/*
 * The profile `sleuth run` writes and every later stage reads (predict,
 * schedule, calibrate, report).  Its on-disk layout is sleuth's own, in
 * docs/profile-format.md; this is the in-memory form.
 */
#ifndef SLEUTH_PROFILE_H
#define SLEUTH_PROFILE_H

#include <stddef.h>
#include <stdint.h>

/* The newest on-disk version this library writes and reads (it reads 1
 * and 2). */
#define SL_PROFILE_VERSION 2
/* A profile is written as version 1 unless an interval ran at another
 * frequency than freq_ghz (ghz set): a version-1 reader would take those
 * intervals' times as measured at freq_ghz (docs/profile-format.md). */
#define SL_PROFILE_VERSION_PLAIN 1

/* A count that was not measured in an interval (its event not programmed). */
#define SL_MISSING UINT64_MAX

typedef struct sl_codeloc {
	char *function;    /* "?" when unknown */
	char *file;        /* NULL when unknown */
	int line;          /* 0 when unknown */
	uint64_t addr;     /* a representative address */
	double share;      /* share of the phase's samples, 0..1 */
} sl_codeloc;

typedef struct sl_phase_info {
	uint32_t id;
	sl_codeloc *funcs;  /* top functions, by share */
	size_t n_funcs;
	sl_codeloc *lines;  /* top source lines (or addresses), by share */
	size_t n_lines;
} sl_phase_info;

typedef struct sl_prof_interval {
	uint32_t phase;
	double start_s;       /* since the start of the run (power logs align here) */
	double time_s;
	uint64_t cycles;      /* 0 when not known (timer backend) */
	uint64_t instructions;
	double energy_j;      /* NAN when not measured */
} sl_prof_interval;

typedef struct sl_profile {
	char *command;        /* what was profiled, as typed, or "replay TRACE" */
	char *host_cpu;
	char *backend;        /* "replay", "perf" or "timer" */
	char *workload;       /* replay: the trace's label */
	char *machine_text;   /* the sleuth-machine/1 text used (NULL: none) */
	char *machine_path;
	double freq_ghz;      /* frequency of the run, 0 when unknown */
	uint64_t interval_instructions; /* 0 when intervals are timed */
	double interval_s;    /* timer backend's interval length */
	int has_counts;       /* 0: no event counts (timer backend) */
	char *energy_source;  /* NULL, "trace", "rapl:package", ... */
	/* perf backend: the PMU (libpfm4 name), kernel release, the branch
	 * samples' precision, the counter plan (NULL: not recorded), and how
	 * often sampling was throttled, intervals merged or counts scaled */
	char *pmu, *kernel, *sampling, *counter_plan;
	uint64_t throttles, merged_intervals, scaled_intervals;
	char **notes;         /* what could not be done, one line each */
	size_t n_notes;
	uint64_t samples, lost_samples;
	char *predictor;      /* phase predictor used for multiplexing */
	double predictor_accuracy;
	unsigned bv_dims;
	double threshold;     /* fixed clustering threshold, 0 when noise-aware */
	double threshold_margin; /* noise-aware: margin over the sampling noise */

	size_t n_events;      /* the programmable events, counts[] columns */
	char **events;
	size_t n_intervals;
	sl_prof_interval *iv;
	uint64_t *counts;     /* n_intervals x n_events, SL_MISSING if unmeasured */
	double *temp_c;       /* n_intervals die temperatures, deg C (NAN: not
			       * measured), or NULL when none was */
	double *ghz;          /* n_intervals core frequencies, GHz, or NULL when
			       * every interval ran at freq_ghz (a dithered
			       * run: sleuth run --dither, docs/models.md) */

	size_t n_phases;
	sl_phase_info *phases;
	/* The events column that is the branch samples' count, samples times
	 * sample_period (collect/collector.c), known in every interval the
	 * sampler lost nothing; NULL when none (the timer backend, profiles
	 * before 2026-11-27). */
	char *sample_event;
	uint64_t sample_period;
	/* n_phases entries, or NULL when every phase runs code of its own (no
	 * behaviour phases, profiles before 2026-11-27): phase k runs the same
	 * code as phase same_code[k], the lowest phase with intervals that
	 * runs it (k itself when none lower does; behaviour phases of one
	 * code phase, docs/phases.md) */
	uint32_t *same_code;
} sl_profile;

/* One run of consecutive intervals of the same phase. */
typedef struct sl_instance {
	uint32_t phase;
	size_t first;  /* first interval */
	size_t n;      /* intervals */
} sl_instance;

void sl_profile_init(sl_profile *p);
void sl_profile_free(sl_profile *p);
int sl_profile_write(const char *path, const sl_profile *p); /* atomic */
/* Frequencies closer than this (GHz) are the same P-state. */
#define SL_SAME_GHZ 1e-3
/* The frequency interval i ran at: ghz[i], else freq_ghz. */
static inline double sl_profile_ghz(const sl_profile *p, size_t i)
{
	return p->ghz ? p->ghz[i] : p->freq_ghz;
}
/* Whether interval i ran at another frequency than the run's freq_ghz (a
 * dithered interval). */
int sl_profile_dithered(const sl_profile *p, size_t i);
/* -1 with sl_error() ("PATH: interval I ran at F GHz, the run at F0 GHz
 * (a dithered or scheduled run); USE") when some interval ran at another
 * frequency than the run's; 0 when all ran at one. */
int sl_profile_one_freq(const sl_profile *p, const char *path, const char *use);
/* The same for one interval i that ran at ghz (0: not recorded, the
 * run's) of a run at run_ghz: a trace's, read one interval at a time. */
int sl_interval_one_freq(const char *path, size_t i, double ghz, double run_ghz,
			 const char *use);
int sl_profile_read(const char *path, sl_profile *p);
/* "markov predictor 97.1% right", or "markov predictor: nothing to
 * predict" when the run had a single interval; in buf, returned. */
const char *sl_profile_predictor_text(const sl_profile *p, char *buf, size_t len);
/* How many phases, largest measured time first, cover `frac` of the run's
 * time ("3 phases cover 90% of the time"): what a reader has to look at. */
size_t sl_profile_phases_covering(const sl_profile *p, double frac);
/* The phases with at least one interval: a phase the collector merged into
 * another at the end of the run keeps its id, and no interval. */
size_t sl_profile_phases_used(const sl_profile *p);
/* 1 when the phases look like sampling noise: at least 20 intervals, and
 * more phases with intervals (sl_profile_phases_used) than half of them. */
int sl_profile_phases_noisy(const sl_profile *p);
void sl_profile_add_note(sl_profile *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int sl_profile_event_index(const sl_profile *p, const char *name);
static inline uint64_t sl_prof_count(const sl_profile *p, size_t i, size_t k)
{
	return p->counts[i * p->n_events + k];
}
/* Phase instances in execution order; *out malloc'd. */
size_t sl_profile_instances(const sl_profile *p, sl_instance **out);

struct sl_machine;
/*
 * The machine model to use with a profile: the file `path` when given
 * (--machine), else the one the profile embeds.  `prof_path` names the
 * profile in messages; *origin (may be NULL) is set to `path` or
 * "embedded in the profile".  -1 with sl_error() if neither loads.
 */
int sl_profile_machine(const sl_profile *p, const char *prof_path, const char *path,
		       struct sl_machine *m, const char **origin);

#endif
