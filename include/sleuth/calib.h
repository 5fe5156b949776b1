/*
 * Power-model calibration (`sleuth calibrate`): fit the effective
 * capacitance model of sleuth-machine/1 (docs/formats.md) to measured
 * power, interval by interval:
 *
 *   P - static(V) = f * V^2 * (constant + sum_k coeff_k * count_k / cycles)
 *
 * Training runs (profiles or traces, each at one P-state) are first brought
 * into one in-memory form, sl_calib_run, with each interval's measured
 * energy (from the run itself or from a power log).  sl_calib_data then
 * turns the runs into one row per usable interval; the fit, its
 * leave-one-workload-out cross-validation and the greedy event selection
 * all work on that table, so they can be tested on synthetic data alone.
 */
#ifndef SLEUTH_CALIB_H
#define SLEUTH_CALIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sleuth/machine.h"
#include "sleuth/powerlog.h"
#include "sleuth/profile.h"

/* One training run at one frequency. */
typedef struct sl_calib_run {
	char *input;       /* as named on the command line, for messages */
	char *workload;    /* grouping for leave-one-workload-out */
	double ghz;
	size_t n_events;
	char **events;     /* counted events; cycles are kept apart */
	size_t n, cap;     /* intervals */
	double *start_s;   /* since the start of the run */
	double *time_s;
	double *energy_j;  /* NAN: not measured */
	uint64_t *cycles;  /* 0: unknown */
	uint64_t *counts;  /* n x n_events; SL_MISSING: not measured */
	uint32_t *phase;   /* for filling multiplexed counts; all 0 for traces */
	double *temp_c;    /* die temperature per interval; NAN: not measured */
} sl_calib_run;

void sl_calib_run_init(sl_calib_run *r, const char *input, const char *workload,
		       double ghz, size_t n_events, const char *const *events);
/* Append an interval; `counts` has n_events entries. */
void sl_calib_run_add(sl_calib_run *r, double start_s, double time_s,
		      double energy_j, uint64_t cycles, const uint64_t *counts,
		      uint32_t phase);
void sl_calib_run_free(sl_calib_run *r);
/* Set the die temperature of the last interval added. */
void sl_calib_run_set_temp(sl_calib_run *r, double temp_c);

/*
 * A training run from a file: a profile written by `sleuth run` (its
 * energy_j, if any, is kept) or a sleuth-trace/1 file (every event counted,
 * energy from `e`), told apart by the profile's magic.  The workload is the
 * file's label, else its name without directory and extension.  Only
 * programmable events become model candidates: the fixed counters (cycles,
 * instructions) are not events of a profile, so sleuth predict could not
 * evaluate a term on them.  -1 with sl_error() on a bad file, one without
 * counts or frequency, or a trace without a `cycles` event.
 */
int sl_calib_run_load(sl_calib_run *r, const char *path);
int sl_calib_run_from_profile(sl_calib_run *r, const char *path, const sl_profile *p);
int sl_calib_run_from_trace(sl_calib_run *r, const char *path);

/* What aligning a run to a power log did. */
typedef struct sl_calib_align {
	size_t uncovered;  /* intervals not fully inside the log: dropped */
	size_t too_short;  /* intervals shorter than the log's spacing: dropped */
} sl_calib_align;

/*
 * Replace the run's energies by the integral of `log` over each interval.
 * -1 with sl_error() if the log covers no interval at all (it does not
 * overlap the run: wrong file or --log-offset).
 */
int sl_calib_attach_log(sl_calib_run *r, const sl_powerlog *log, sl_calib_align *st);

/* The training table: one row per interval with measured energy. */
typedef struct sl_calib_data {
	size_t n_events;
	char **events;     /* every event some run counted (the candidates) */
	size_t n_workloads;
	char **workloads;
	size_t n;          /* rows */
	size_t *wl;        /* workload of each row */
	int *ps;           /* machine P-state of each row */
	double *f;         /* GHz the core was clocked at: cycles / time (the
			    * P-state's frequency when it never idled) */
	double *v;         /* volts */
	double *power;     /* measured mean power, W */
	double *temp;      /* die temperature, deg C; NAN when unknown */
	double *rate;      /* n x n_events: count / cycles; NAN when unknown */
	unsigned char *filled; /* n x n_events: rate taken from the phase mean */
	size_t no_energy;  /* intervals without measured energy: not rows */
	size_t no_cycles;  /* intervals without a cycle count: not rows */
} sl_calib_data;

/*
 * Build the table.  A count missing from a multiplexed interval is filled
 * with the mean rate (sum of counts / sum of cycles) of that event over the
 * measured intervals of the same phase of the same run; when the phase
 * never measured it, the rate stays NAN and fits needing that event skip
 * the row.  -1 with sl_error() when a run's frequency is not a P-state of
 * the machine, or an interval's measured energy is not positive.
 */
int sl_calib_data_build(sl_calib_data *d, const sl_machine *m,
			const sl_calib_run *runs, size_t n_runs);
void sl_calib_data_free(sl_calib_data *d);
int sl_calib_data_event(const sl_calib_data *d, const char *name);
/* Mean and range of the temperatures known in every row, or -1 when a row
 * has none; for deciding whether a temperature term can be fitted. */
int sl_calib_data_temps(const sl_calib_data *d, double *mean, double *range);

typedef struct sl_calib_opts {
	/* Static power per machine P-state (from an idle log), or NULL: fit one
	 * activity-independent term per P-state present in the data. */
	const double *static_w;
	int robust;        /* GSL robust (bisquare) regression instead of OLS */
	/* Fit static power's temperature dependence (a term V * (T - temp_ref)
	 * in watts) when every row has a temperature. */
	int temp;
	double temp_ref;   /* deg C */
	/* sl_calib_select may choose events the machine names as cycle counts
	 * (sl_machine_counts_cycles); by default it chooses among event
	 * counts only (docs/models.md, "Choosing the events") */
	int select_cycles;
	/* sl_calib_select may also choose an event count as a term of kind
	 * energy (nJ per event at a fixed voltage, docs/models.md) */
	int select_energy;
} sl_calib_opts;

/* A fit's term is an index into the data's events, plus n_events for a
 * term of kind energy: its column is f * rate (W per nJ), not f V^2 * rate. */
static inline size_t sl_calib_term_event(const sl_calib_data *d, size_t term)
{
	return term % d->n_events;
}
static inline int sl_calib_term_energy(const sl_calib_data *d, size_t term)
{
	return term >= d->n_events;
}

/* Condition number of the column-scaled design above which a fit is
 * reported as ill-conditioned (Belsley's "strong collinearity"). */
#define SL_CALIB_COND_WARN 100.0

typedef struct sl_calib_fit {
	size_t n_terms;
	size_t *term;        /* indices into data events (+ n_events: energy) */
	double constant, constant_se; /* nF; 0 +- 0 when not fitted (no idle log) */
	double *coeff, *coeff_se;     /* nF per event/cycle */
	/* Without an idle log: the fitted activity-independent power (W) of
	 * each P-state present in the rows. */
	size_t n_fitted_ps;
	int *fitted_ps;      /* machine P-state indices */
	double *fitted_w, *fitted_se;
	double *static_w;    /* every machine P-state, fitted or interpolated */
	int has_temp;        /* the temperature term was fitted */
	double temp_coeff, temp_coeff_se; /* W per volt per deg C above temp_ref */
	double temp_ref;
	size_t n_ps;         /* machine P-states */
	size_t n_used;       /* rows used */
	size_t n_filled;     /* of which with some rate filled from the phase */
	double r2;           /* of interval power */
	double cond;         /* of the column-scaled design matrix */
	char *collinear;     /* when cond is large: the columns involved */
	size_t n_neg_ceff;   /* training rows with predicted Ceff < 0 */
	double min_ceff;
	double mape;         /* mean |pred - meas| / meas over rows used */
	double *wl_mape;     /* per workload, NAN when no row */
	size_t *wl_n;
	/* Leave-one-workload-out cross-validation (sl_calib_cv). */
	int has_cv;
	double cv_mape;      /* over all rows, each predicted by the fit
			      * without its workload */
	double *wl_cv_mape;
} sl_calib_fit;

/* Fit the given terms on all usable rows.  -1 with sl_error() when there
 * are too few rows, or too few P-states to interpolate static power. */
int sl_calib_fit_run(sl_calib_fit *fit, const sl_calib_data *d, const sl_machine *m,
		     const size_t *terms, size_t n_terms, const sl_calib_opts *o);
/* Add leave-one-workload-out errors to a fit (needs two workloads). */
int sl_calib_cv(sl_calib_fit *fit, const sl_calib_data *d, const sl_machine *m,
		const sl_calib_opts *o);
void sl_calib_fit_free(sl_calib_fit *fit);
/* Predicted Ceff (nF) and power (W) of row i under a fit. */
double sl_calib_ceff(const sl_calib_fit *fit, const sl_calib_data *d, size_t i);
/* A term's event, with " (energy, nJ)" for a term of kind energy
 * (malloc'd). */
char *sl_calib_term_name(const sl_calib_data *d, size_t term);
/* The power of row i's energy terms (W): sum of nJ * rate * f. */
double sl_calib_fixed_w(const sl_calib_fit *fit, const sl_calib_data *d, size_t i);
double sl_calib_predict(const sl_calib_fit *fit, const sl_calib_data *d, size_t i);

/*
 * For a machine that gives no volts: fit each trained P-state's relative
 * V^2 (1 at the fastest) jointly with the model by alternating least
 * squares, and set the P-states' volts (and d->v) to the relative voltages
 * (untrained P-states: V linear in f).  The machine's volts must be set to
 * 1 before sl_calib_data_build.  *iters: iterations used.  -1 with
 * sl_error() when fewer than two P-states are trained or a P-state's power
 * does not grow with activity.
 */
int sl_calib_relative_volts(sl_calib_data *d, sl_machine *m, const size_t *terms,
			    size_t n_terms, const sl_calib_opts *o, int *iters);
/* sl_calib_cv for such a machine: each fold fits the relative voltages
 * again without its workload, as well as the model. */
int sl_calib_cv_novolts(sl_calib_fit *fit, const sl_calib_data *d, const sl_machine *m,
			const sl_calib_opts *o);

/*
 * Greedy forward selection of `k` events by leave-one-workload-out error,
 * among the events whose rate is known in every row.  terms[k] gets the
 * chosen events in order of choice, cv[k] the error after each step.
 */
int sl_calib_select(const sl_calib_data *d, const sl_machine *m, size_t k,
		    const sl_calib_opts *o, size_t *terms, double *cv);

/* The leave-one-workload-out error of a fit of these terms (sl_calib_fit_run
 * and sl_calib_cv); -1 with sl_error() when it cannot be computed. */
int sl_calib_terms_cv(const sl_calib_data *d, const sl_machine *m, const size_t *terms,
		      size_t n_terms, const sl_calib_opts *o, double *cv);

/*
 * A skeleton's keep: auto terms (docs/calibration.md, "Terms kept if they
 * help"): terms[j] is m->terms[j]'s fit term.  From the terms without the
 * key, the keep: auto term that lowers the leave-one-workload-out error
 * most is added while one does (greedy).  kept[j]: 1 kept, -1 left out, 0
 * keep: always; cv_with[j] and cv_without[j] the errors with and without
 * it when last judged (cv_with NAN: it could not be cross-validated).  -1
 * with sl_error() when the terms without the key cannot be (one
 * workload): nothing judged.
 */
int sl_calib_keep_auto(const sl_calib_data *d, const sl_machine *m, const size_t *terms,
		       const sl_calib_opts *o, int *kept, double *cv_with, double *cv_without);

/*
 * Static power of every machine P-state from known values at some of them:
 * linear in voltage between neighbours, the end segments extended beyond
 * (never below 0); one known value is used everywhere.  `known_ps` are
 * machine P-state indices; out has m->n_pstates entries.
 */
void sl_calib_static_interp(const sl_machine *m, const int *known_ps,
			    const double *known_w, size_t n_known, double *out);

/* The complete machine: the skeleton with static_w on every P-state and the
 * fitted power section, with floor: stalled when the fit's negative
 * cycle-count terms outweigh its constant (sl_model_ceff_floor).  Free with
 * sl_calib_model_free (strings are borrowed from the skeleton and the
 * data). */
void sl_calib_model(sl_machine *out, const sl_machine *skeleton,
		    const sl_calib_data *d, const sl_calib_fit *fit);
void sl_calib_model_free(sl_machine *out);

/*
 * The time models' residuals on the training runs (sleuth-machine/1
 * time_error:, docs/formats.md): for every workload with profiles at
 * several frequencies, each time model m supports predicts the slower
 * profiles from the fastest one; the per-phase errors are summarised by
 * (model, from, to) into m's time_error (replacing it; free it with
 * sl_calib_time_error_free, or sl_machine_free for a loaded machine).
 * Inputs that are not profiles, and pairs whose intervals do not match, are
 * skipped.  Returns the number of (fastest, slower) pairs compared.
 */
size_t sl_calib_time_error(sl_machine *m, const sl_calib_run *runs, size_t n_runs);
void sl_calib_time_error_free(sl_machine *m);

/*
 * The die's thermal block (sleuth-machine/1 thermal:, docs/formats.md) from
 * runs of a steady load with energy and the die's temperature per interval:
 * the steady rise per watt and time constant of a first-order RC, and the
 * leakage per degree at each P-state whose run's steady phase warmed by 3 C
 * or more.  Replaces m's block; reports what it measured on `rep`.  -1 with
 * sl_error() when the runs hold too few such intervals, or warm too little.
 */
int sl_calib_thermal(sl_machine *m, const sl_calib_run *runs, size_t n_runs, FILE *rep);

#endif
