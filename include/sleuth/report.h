/*
 * `sleuth report`: everything a report shows, computed once from a profile
 * (and a machine model and optionally a schedule), then written as one
 * self-contained HTML page or as JSON.  The writers see only this plain
 * structure, so they are testable without profiles or models, and the
 * two formats cannot disagree.
 */
#ifndef SLEUTH_REPORT_H
#define SLEUTH_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sleuth/profile.h"

/* One phase: what was measured, its code, and its predictions. */
typedef struct sl_rep_phase {
	uint32_t id;
	char *name;              /* "phase 3 (matmul)" */
	size_t intervals, instances;
	uint64_t instructions;
	double time_s;           /* measured (profiled run) */
	double share;            /* of the run's measured time */
	const sl_codeloc *funcs; /* into the profile */
	size_t n_funcs;
	const sl_codeloc *lines;
	size_t n_lines;
	/* the lowest phase that runs the same code (and behaves apart: the
	 * profile's same_code), or id itself */
	uint32_t same_code;
	/* Model event cells of this phase's intervals: counted in the
	 * interval, interpolated from elsewhere, or never measured. NAN when
	 * the profile has no counts. */
	double measured, interpolated, missing;
	/* Per sweep frequency (sl_report.sweep_ghz); NAN when unavailable. */
	double *time_at, *energy_at;
	double mem_bound;        /* time at fmin / time at fmax; NAN if unknown */
	/* Under --schedule: the phase's frequency (NAN without a schedule)
	 * and its index in the sweep (SIZE_MAX when not predicted). */
	double sched_ghz;
	size_t sched_k;
} sl_rep_phase;

/* A run of consecutive intervals of one phase, on the measured timeline. */
typedef struct sl_rep_inst {
	uint32_t phase;
	size_t first, n;
	double start_s, time_s;
} sl_rep_inst;

/* Predicted power over time at one operating point (or under a
 * schedule).  Points are per interval, x = predicted start time. */
typedef struct sl_rep_series {
	char *label;             /* "2.66 GHz (fmax)", "schedule (min-edp)" */
	double ghz;              /* 0 under a schedule */
	size_t n;
	double *t, *power_w;
	double *inst_start, *inst_end; /* per instance (sl_report.inst) */
	double time_s, energy_j; /* totals */
	/* Measured power at the profiled frequency (NULL when none). */
	double *measured_w;
} sl_rep_series;

typedef struct sl_report {
	/* metadata */
	char *title;             /* workload or command */
	const sl_profile *prof;  /* not owned */
	char *profile_path;
	char *machine_name;      /* NULL when none */
	char *machine_origin;    /* "embedded in the profile" or a path */
	char *model;             /* "stall time model, Ceff power model" or NULL */
	char *schedule_path;
	double run_time_s;       /* measured */
	double run_energy_j;     /* measured; NAN unless every interval has it */
	char **notes;            /* what is unavailable, profile's notes first */
	size_t n_notes;
	double cells[3];         /* measured, interpolated, missing: whole run */

	int have_time;           /* time predictions exist */
	int have_power;          /* power and energy predictions exist */

	size_t n_phases;         /* sorted by id */
	sl_rep_phase *phases;
	size_t *rank;            /* phase indices by predicted time at fmax (or
				  * measured time), largest first */
	size_t n_inst;
	sl_rep_inst *inst;

	size_t n_sweep;          /* P-states, ascending */
	double *sweep_ghz;
	size_t fmin, fmax;       /* indices into sweep */

	size_t n_series;
	sl_rep_series *series;

	/* The schedule (--schedule): what it optimises and its bound; its
	 * predicted totals from the sweep (frequency switches left out, NAN
	 * unless every phase is predicted), and the best single P-state under
	 * the same bound and objective (index into sweep; SIZE_MAX: none). */
	int have_schedule;
	const char *sched_objective; /* "min-edp" */
	double sched_max_slowdown;
	double sched_time_s, sched_energy_j;
	size_t sched_fixed;
} sl_report;

void sl_report_init(sl_report *r);
void sl_report_free(sl_report *r);
void sl_report_note(sl_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Phases covering `frac` of the run time, at most `max`, from r->rank. */
size_t sl_report_major(const sl_report *r, double frac, size_t max);

/* What to build from. */
typedef struct sl_report_opts {
	const char *profile_path;
	const char *machine_path;  /* NULL: the machine embedded in the profile */
	const char *schedule_path; /* NULL: none */
	const double *ghz;         /* requested frequencies; none: fmax and fmin */
	size_t n_ghz;
	int time_model;            /* sl_time_model (sleuth/model.h) */
	int extrapolate;           /* allow --freq outside the P-state table */
	int anchor_off;            /* power from the counters alone, not anchored
				    * on the profile's measured energy */
	const char *refine_path;   /* a short run at another frequency refining the
				    * time model (sl_model_refine_file); NULL: none */
} sl_report_opts;

/*
 * Read what the options name and compute the report.  Predictions that
 * cannot be made (no counts, no machine, no power model) become notes;
 * -1 with sl_error() only when there is nothing to report (unreadable
 * profile or files, a frequency outside the machine's range).  The report
 * points into *prof, which must outlive it.
 */
int sl_report_build(sl_report *r, const sl_profile *prof, const sl_report_opts *o);

/* Writers: 0, or -1 with sl_error() on a write error. */
int sl_report_html(FILE *f, const sl_report *r);
int sl_report_json(FILE *f, const sl_report *r);

#endif
