/*
 * Per-phase DVFS schedules with guarantees (`sleuth schedule`), and the
 * sleuth-schedule/1 file that carries one (docs/formats.md, sleuth-schedule/1).
 *
 * The solver works on a plain table of predictions -- every phase instance
 * at every P-state -- so that it is independent of how the predictions were
 * made, and exactly testable against brute force.  Method, definitions and
 * complexity: docs/schedule.md.
 */
#ifndef SLEUTH_SCHEDULE_H
#define SLEUTH_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { SL_OBJ_ENERGY, SL_OBJ_EDP, SL_OBJ_ED2P } sl_objective;
typedef enum { SL_SCOPE_GLOBAL, SL_SCOPE_PHASE } sl_scope;

/* "min-energy" | "min-edp" | "min-ed2p"; "phase" | "global". */
const char *sl_objective_name(sl_objective o);
int sl_objective_parse(const char *s, sl_objective *o); /* 0 or -1 */
const char *sl_scope_name(sl_scope s);
int sl_scope_parse(const char *s, sl_scope *o);
/* The objective's value: E, E*T or E*T^2. */
double sl_objective_value(sl_objective o, double time_s, double energy_j);

/*
 * Predictions for every phase instance (a run of consecutive intervals of one
 * phase, in execution order) at every P-state.  Arrays of n_inst x n_pstates
 * are row-major by instance.
 */
typedef struct sl_sched_table {
	size_t n_pstates;
	const double *ghz;       /* n_pstates */
	size_t baseline;         /* the reference P-state (fmax) */
	size_t n_phases;
	size_t n_inst;
	const uint32_t *phase;   /* n_inst, each < n_phases */
	const double *time_s;    /* > 0 */
	const double *energy_j;  /* > 0 */
	const double *peak_w;    /* highest power within the instance; NULL:
				  * the mean power energy/time */
	const double *sigma;     /* relative 1-sigma error of time_s (and of
				  * energy_j), >= 0; NULL: predictions taken
				  * as exact (docs/schedule.md, confidence) */
} sl_sched_table;

/* sleuth schedule's default --confidence: the smallest of 95, 97.5, 99, 99.5
 * and 99.9% whose margin covered the true slowdown of every schedule of the
 * tuning split (docs/schedule.md, "Confidence") */
#define SL_SCHED_CONFIDENCE 0.999

typedef struct sl_sched_opts {
	sl_objective objective;
	sl_scope scope;
	double max_slowdown;   /* >= 0 (0.10 = 10%) */
	double power_cap_w;    /* 0: no cap */
	double transition_s;   /* cost of one frequency switch (global only) */
	double min_instance_s; /* shorter instances inherit (global only) */
	double z;              /* confidence: plan on time_s * (1 + z * sigma)
				* (one-sided normal quantile of the confidence;
				* 0: on the point prediction) */
} sl_sched_opts;

/* A schedule's predicted totals. */
typedef struct sl_sched_eval {
	double time_s, energy_j;   /* including switches */
	double peak_w;             /* highest instance peak */
	size_t switches;
	double switch_time_s, switch_energy_j;
} sl_sched_eval;

typedef struct sl_sched_result {
	size_t n_phases;
	int *pstate;          /* per phase: its P-state index */
	unsigned char *inherits; /* 1: every instance of the phase is shorter
				  * than min_instance and inherits; pstate is then
				  * where most of its time runs */
	double *phase_time_s, *phase_energy_j; /* per phase, switches excluded */
	double budget_s;      /* global: the time bound (1 + max_slowdown) * base */
	sl_sched_eval total;  /* the schedule */
	sl_sched_eval base;   /* every instance at the baseline P-state */
	int fixed_pstate;     /* best single frequency meeting the same bound and
			       * cap, -1 if none does */
	sl_sched_eval fixed;
	int exact;            /* 1: proven optimal; 0: heuristic (docs/schedule.md) */
	double lower_bound;   /* global: a proven lower bound on the optimal
			       * objective (the objective itself when exact) */
	/* With z > 0 and a table with sigma: the time the plan allowed for
	 * the model's error, sum of z * sigma * time over its instances
	 * (total and fixed are point predictions; total + margin_s is within
	 * the bound) */
	double margin_s, fixed_margin_s;
	/* Per-phase DVFS against the best fixed frequency: the objective's
	 * gain (fixed - schedule, point predictions) and its uncertainty
	 * (docs/schedule.md); 1 in fell_back when the gain did not exceed the
	 * uncertainty and the result is that fixed frequency instead */
	double gain, gain_uncertainty;
	int fell_back;
} sl_sched_result;

/* Solve.  -1 with sl_error() for invalid input or an infeasible cap/bound. */
int sl_schedule_solve(const sl_sched_table *t, const sl_sched_opts *o,
		      sl_sched_result *r);
void sl_sched_result_free(sl_sched_result *r);

/*
 * Evaluate the frequency map `pstate` (one P-state index per phase) along
 * the instance sequence, with the inheritance and switch costs of `o`.
 * inst_pstate (n_inst, may be NULL) receives each instance's effective
 * P-state; phase_time/phase_energy (n_phases, may be NULL) the per-phase sums.
 */
void sl_sched_evaluate(const sl_sched_table *t, const sl_sched_opts *o,
		       const int *pstate, sl_sched_eval *ev, int *inst_pstate,
		       double *phase_time_s, double *phase_energy_j);

/* Energy of the switch into instance i (> 0) from P-state `from` (that of
 * instance i - 1) to `to`: the switch time times the higher of the two
 * instances' mean powers. */
double sl_sched_switch_energy(const sl_sched_table *t, const sl_sched_opts *o,
			      size_t i, size_t from, size_t to);

/* Check a table's shape and values: 0, or -1 with sl_error(). */
int sl_sched_table_check(const sl_sched_table *t);

/* A table with its own storage (what the inputs below fill). */
typedef struct sl_sched_data {
	sl_sched_table tab;  /* points into the arrays below */
	double *ghz;
	uint32_t *phase;
	double *time_s, *energy_j, *peak_w;
	double *sigma;       /* NULL until an error estimate is attached */
	char *sigma_from;    /* where sigma came from, one line (NULL: none) */
} sl_sched_data;

void sl_sched_data_alloc(sl_sched_data *d, size_t n_pstates, size_t n_inst,
			 size_t n_phases);
void sl_sched_data_free(sl_sched_data *d);
/* From `sleuth predict --per instance --all --format csv` (docs/formats.md,
 * prediction table; "-" is stdin).  The peak power of an instance is then
 * its mean power. */
int sl_sched_data_from_csv(const char *path, sl_sched_data *d);

/* ---- sleuth-schedule/1 ---------------------------------------------- */

typedef struct sl_sched_phase {
	uint32_t phase;
	double ghz, time_s, energy_j;
} sl_sched_phase;

typedef struct sl_schedule_file {
	char *profile;
	char *machine;
	sl_objective objective;
	double max_slowdown;
	sl_scope scope;
	double base_ghz, base_time_s, base_energy_j;
	double time_s, energy_j, edp, slowdown;
	sl_sched_phase *phases;
	size_t n_phases;
	/* Optional keys, written only when used (docs/schedule.md). */
	double power_cap_w;      /* 0: none */
	double transition_us;    /* 0: none */
	double min_instance_ms;  /* 0: none */
	double confidence;       /* 0: planned on the point prediction */
	double margin_slowdown;  /* the margin taken, as a share of base_time_s */
	double margin_s;
	char *fallback;          /* why one frequency was kept, or NULL */
} sl_schedule_file;

int sl_schedule_read(const char *path, sl_schedule_file *s);
/* Atomic: the file appears whole or not at all. */
int sl_schedule_write(const char *path, const sl_schedule_file *s,
		      const char *comment);
void sl_schedule_file_free(sl_schedule_file *s);
/* The frequency of `phase`, or 0 when the schedule does not list it. */
double sl_schedule_ghz(const sl_schedule_file *s, uint32_t phase);

/*
 * Apply a schedule to a table (made from the same profile): the P-state of
 * every phase, and the options (switch cost, minimum instance) it was made
 * with.  -1 with sl_error() when a phase is missing or a frequency is not
 * one of the table's P-states.
 */
int sl_schedule_apply(const sl_sched_table *t, const sl_schedule_file *s, int *pstate,
		      sl_sched_opts *o);
/* CSV, one row per instance along the run: instance, phase, the frequency it
 * runs at, its start time, predicted time, mean power and energy, and the
 * time and energy of the switch into it. */
int sl_schedule_write_run(FILE *f, const sl_sched_table *t, const sl_sched_opts *o,
			  const int *pstate);

#endif
