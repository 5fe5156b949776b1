/*
 * The models that turn one profile into time, power and energy at any
 * frequency (after Power-Sleuth): phase-guided interpolation of the events
 * multiplexing left unmeasured, the stall-based DVFS time model and the
 * effective-capacitance power model.  docs/models.md states the models and
 * their assumptions.  Pure computation: nothing here reads files, except
 * sl_model_open(), which reads a profile and its machine and builds the
 * models over them in one call.
 *
 * Typical use (predict, schedule, report):
 *
 *     sl_model md;
 *     if (sl_model_init(&md, prof, mach, SL_TIME_STALL, 0) < 0) fail;
 *     sl_opoint op;
 *     if (sl_model_opoint(&md, 2.0, &op) < 0) fail;   // V, static at 2 GHz
 *     for (size_t i = 0; i < prof->n_intervals; i++) {
 *             sl_pred pr;
 *             sl_model_predict(&md, &op, i, &pr);
 *             ...
 *     }
 *     // or, per phase / per instance:
 *     sl_agg *ph = sl_xcalloc(md.view.n_phase_ids, sizeof *ph);
 *     sl_model_aggregate(&md, &op, ph, NULL, &total);
 *     sl_model_free(&md);
 */
#ifndef SLEUTH_MODEL_H
#define SLEUTH_MODEL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "sleuth/machine.h"
#include "sleuth/profile.h"

/* ---- interpolation ------------------------------------------------------ */

/* Where an interval's value of an event came from, in order of preference. */
typedef enum {
	SL_SRC_MEASURED = 0, /* counted in this interval */
	SL_SRC_INSTANCE,     /* mean rate over the rest of its phase instance */
	SL_SRC_PHASE,        /* mean rate over every instance of its phase */
	SL_SRC_PROGRAM,      /* mean rate over the whole program */
	SL_SRC_NONE,         /* never measured anywhere: no value */
	/* mean rate over the phase most like its own (by CPI and the events
	 * counted in every interval) among the phases that measured it: used
	 * before "program" when two or more phases did.  Last so that the
	 * values above keep their numbers. */
	SL_SRC_SIMILAR,
	/* an interval straddling a phase change (a one-interval instance):
	 * the mix of its two neighbours' rates that behaves most like it */
	SL_SRC_MIXED,
	SL_SRC_N
} sl_src;

const char *sl_src_name(sl_src s); /* "measured", "instance", ... */
/* The sources in order of preference (rank 0: measured ... last: none),
 * the order reports list them in; SL_SRC_N for a rank out of range. */
sl_src sl_src_by_rank(int rank);

/*
 * An interpolated view of a profile: for every interval and every model
 * event, the count used by the models and where it came from.  Rates are
 * per instruction; a mean is the mean of per-interval rates (intervals with
 * no instructions are left out of means), and an inferred count is that
 * mean times the interval's instructions.  The view stores, per instance
 * and event, the mean rate its unmeasured intervals take; an interval's
 * value is computed on access (sl_interp_count), so the view costs memory
 * per instance, not per interval (docs/benchmarks.md, #15).
 */
typedef struct sl_interp {
	const sl_profile *prof;   /* not owned; must outlive the view */
	size_t n_events;
	char **events;            /* owned copies of the model event names */
	int *col;                 /* profile column of each event, -1 if absent */
	double *imean;            /* n_instances x n_events: the rate an unmeasured
				     interval of the instance takes; NAN: none */
	int *norm;                /* per event: the profile column its rates are
				     per count of (a pinned event), -1: per
				     instruction */
	double *spread;           /* per event: the relative rms deviation of its
				     measured rates (per norm) from their phase's
				     mean, pooled over phases; NAN: no phase
				     measured it twice */
	uint8_t *isrc;            /* n_instances x n_events: its level (sl_src) */
	uint8_t *iins;            /* n_instances x n_events, or NULL: 1 when the
				     instance's rate is per instruction although
				     the event's norm is a pinned event (its own
				     count of that event far from its sources') */
	uint64_t cells[SL_SRC_N]; /* (interval, event) cells per source */
	uint64_t *ev_cells;       /* n_events x SL_SRC_N: the same per event */

	/* Phase instances (consecutive intervals of one phase), in order. */
	size_t n_instances;
	sl_instance *inst;
	uint32_t *inst_of;        /* interval -> instance index */
	uint32_t n_phase_ids;     /* 1 + the largest phase id in the profile */

	/* Each phase's behaviour (log CPI, then log(1 + per-1000-instruction
	 * rate) of each event counted in every interval): n_phase_ids x
	 * n_feat, NAN for a phase without cycles.  SL_SRC_SIMILAR's measure. */
	size_t n_feat;
	double *feat;
	size_t *pinned;           /* profile columns counted in every interval */
	double *mix_alpha;        /* n_instances: a straddling one-interval
				     instance's share of the interval after it
				     ("mixed"); NAN: not a straddle */
	double *edge_alpha;       /* n_intervals: the same for the first or
				     last interval of a longer instance that
				     lies on the line between its neighbours
				     (a change of phase inside it); NAN
				     elsewhere.  Its counts stay as they are:
				     only the time model reads it */
	/* How an event's rate follows the behaviour within a phase: per
	 * event, n_feat slopes of its log rate on the features (all 0: it
	 * does not follow them); per instance and event, the slopes' value
	 * at the features of the evidence its rate came from (NAN: its
	 * unmeasured intervals take the rate as it is).  Interval i then
	 * takes the rate times exp(slope . (features(i) - evidence)),
	 * sl_interp_tilt. */
	double *tilt;             /* n_events x n_feat */
	double *ioff;             /* n_instances x n_events */
	float *ifeat;             /* n_intervals x n_feat: each interval's
				     features (NAN: none), or NULL when no
				     rate is tilted */
	/* Each phase's log(1 + branch samples' count per 1000 instructions)
	 * (the profile's sample_event column), a term of the distance
	 * between phases only: n_phase_ids, NAN where unknown; NULL when
	 * the profile has no such column. */
	double *code_feat;
	/* A count far from its evidence in a pinned event is hedged
	 * between per instruction and per that event (models/interp.c,
	 * norm_far).  Per view event, the profile column of that pinned
	 * event -- the event's norm, or for an event per instruction the
	 * pinned event next steadiest against it -- and -1 for none.  Per
	 * instance and event, for an event per instruction, the count of
	 * that column per instruction of the evidence its rate came from,
	 * against which each unmeasured interval of the instance is judged
	 * on its own (a one-interval rescan inside a scan's instance:
	 * sl_interp_hedge); NAN: not hedged per interval (a rate per a
	 * pinned event, tilted, mixed, or hedged whole). */
	int *hcol;                /* n_events */
	double *ihb;              /* n_instances x n_events */
	/* Per view event: the profile column whose count, where measured,
	 * bounds the event's filled count from above (an LLC miss is an LLC
	 * reference: sl_interp_cap); -1: none.  NULL: no bounds. */
	int *cap_col;
} sl_interp;

/* Build the view of `events` (names as in the profile's event list).
 * -1 with sl_error() only for a profile that cannot be used at all (no
 * intervals, no event counts). */
int sl_interp_build(sl_interp *v, const sl_profile *p, const char *const *events,
		    size_t n_events);
/* The same, naming the profile's events that count cycles (stall and
 * occupancy cycles): their counts follow the time, not the work, and no
 * other event's rates are taken per them. */
int sl_interp_build_cycles(sl_interp *v, const sl_profile *p, const char *const *events,
			   size_t n_events, const char *const *cycles, size_t n_cycles);
void sl_interp_free(sl_interp *v);
/* Bound view event k's filled counts by the profile's count of `bound`
 * where that was measured: an event that counts a subset of another's
 * (LLC misses of LLC references).  No effect when either is missing. */
void sl_interp_cap(sl_interp *v, size_t k, const char *bound);

/* What event k's rates are per in interval i: its instructions, or the
 * count of the pinned event v->norm[k]. */
static inline double sl_interp_base(const sl_interp *v, size_t i, size_t k)
{
	return v->norm && v->norm[k] >= 0 ? (double)sl_prof_count(v->prof, i, (size_t)v->norm[k])
					   : (double)v->prof->iv[i].instructions;
}

/* What the rate an unmeasured interval i takes of event k (imean) is per:
 * sl_interp_base, or its instructions where the view said so (iins). */
static inline double sl_interp_fill_base(const sl_interp *v, size_t i, size_t k)
{
	return v->iins && v->iins[(size_t)v->inst_of[i] * v->n_events + k]
		       ? (double)v->prof->iv[i].instructions
		       : sl_interp_base(v, i, k);
}

/* The factor on the rate unmeasured interval i takes of event k for how
 * its own behaviour differs from its evidence's (1 when the event does
 * not follow the behaviour, or the rate is not from like intervals). */
double sl_interp_tilt(const sl_interp *v, size_t i, size_t k);

/* The factor on the rate per instruction unmeasured interval i takes of
 * event k when its own count of the pinned event v->hcol[k] per
 * instruction lies more than twice or under half its evidence's
 * (v->ihb; 1 else): the geometric mean of the count per that event and
 * per instruction. */
double sl_interp_hedge(const sl_interp *v, size_t i, size_t k);

/* The rate per sl_interp_fill_base an unmeasured interval i takes of
 * event k: its instance's, tilted by its own behaviour, or hedged where
 * its own count of a pinned event is far from its evidence's. */
static inline double sl_interp_fill_rate(const sl_interp *v, size_t i, size_t k)
{
	size_t c = (size_t)v->inst_of[i] * v->n_events + k;
	if (v->ioff && !isnan(v->ioff[c]))
		return v->imean[c] * sl_interp_tilt(v, i, k);
	return v->ihb && !isnan(v->ihb[c]) ? v->imean[c] * sl_interp_hedge(v, i, k) : v->imean[c];
}

/* The count of event k in interval i (NAN for SL_SRC_NONE), and where it
 * came from.  A filled count is at most its bound's count measured in the
 * same interval (sl_interp_cap). */
static inline double sl_interp_count(const sl_interp *v, size_t i, size_t k)
{
	int col = v->col[k];
	if (col >= 0) {
		uint64_t c = sl_prof_count(v->prof, i, (size_t)col);
		if (c != SL_MISSING)
			return (double)c;
	}
	double x = sl_interp_fill_rate(v, i, k) * sl_interp_fill_base(v, i, k);
	if (v->cap_col && v->cap_col[k] >= 0) {
		uint64_t b = sl_prof_count(v->prof, i, (size_t)v->cap_col[k]);
		if (b != SL_MISSING && x > (double)b)
			x = (double)b;
	}
	return x;
}
static inline sl_src sl_interp_src(const sl_interp *v, size_t i, size_t k)
{
	int col = v->col[k];
	if (col >= 0 && sl_prof_count(v->prof, i, (size_t)col) != SL_MISSING)
		return SL_SRC_MEASURED;
	return (sl_src)v->isrc[(size_t)v->inst_of[i] * v->n_events + k];
}
/* Share (0..1) of all cells whose value came from `s`. */
double sl_interp_share(const sl_interp *v, sl_src s);
/* Index of `event` in the view, or -1. */
int sl_interp_event(const sl_interp *v, const char *event);
/* Shares per source over the cells of each phase's intervals, in one
 * pass: share[ph][s] for every phase id ph < n_phase_ids. */
void sl_interp_phase_shares(const sl_interp *v, double (*share)[SL_SRC_N]);

/* ---- voltage and static power between P-states ------------------------ */

/* An operating point: frequency with its (interpolated) voltage and static
 * power. */
typedef struct sl_opoint {
	double ghz;
	double volts;
	double static_w;     /* NAN when the machine has no static power */
	int pstate;          /* index in m->pstates, -1 when interpolated */
	int extrapolated;    /* outside the table (only with SL_MODEL_EXTRAPOLATE) */
} sl_opoint;

/* Voltage and static power at `ghz`: exact at a P-state, linear (GSL)
 * between neighbours, linear from the two nearest outside the table if
 * `extrapolate`, else -1 with sl_error() naming the table's range. */
int sl_machine_opoint(const sl_machine *m, double ghz, int extrapolate,
		      sl_opoint *op);

/* ---- time and power models -------------------------------------------- */

typedef enum {
	SL_TIME_STALL = 0, /* Power-Sleuth: off-chip stalls do not scale with f */
	SL_TIME_LINEAR,    /* time proportional to 1/f */
	SL_TIME_MLP,       /* offcore occupancy: overlapped misses, bandwidth bound */
} sl_time_model;

const char *sl_time_model_name(sl_time_model t);
int sl_time_model_parse(const char *s, sl_time_model *t); /* -1, sl_error() */

/* sl_model_init() flags */
enum {
	SL_MODEL_EXTRAPOLATE = 1, /* allow frequencies outside the P-state table */
	SL_MODEL_TIME_ONLY = 2,   /* no power model needed (power_w = NAN) */
	/* sl_model_open() only: degrade instead of refusing, with a warning.
	 * DEGRADE_POWER: a machine without a fitted power model predicts time
	 * only.  DEGRADE_TIME: a machine without the stall model's events uses
	 * the linear model, and no machine at all (none given, none embedded)
	 * predicts time only with the linear model on a stand-in machine whose
	 * P-states span 0.1-10 GHz. */
	SL_MODEL_DEGRADE_POWER = 4,
	SL_MODEL_DEGRADE_TIME = 8,
	/* sl_model_open() only: anchor power on the profile's measured energy
	 * when it carries some (sl_model_anchor); when that cannot be done, a
	 * warning and the counters alone */
	SL_MODEL_ANCHOR = 16,
};

/* Rates no model event exceeds per cycle on the cores we model (the issue
 * width of a 4-wide core): the peak clamp's Ceff sets every
 * positive-coefficient event to this rate and every negative one to 0. */
#define SL_PEAK_RATE_PER_CYCLE 4.0

/* What a refinement by a short second run carries to the instances
 * (docs/models.md, "Refinement by a second run"): the default rule
 * (SL_REFINE_DEFAULT, 0), a ratio of cycles, or the time model's uncertain
 * parameter solved from the short run (the ratio where it has none). */
typedef enum sl_refine_rule {
	SL_REFINE_DEFAULT = 0,
	SL_REFINE_RATIO,
	SL_REFINE_PARAM,
} sl_refine_rule;

typedef struct sl_model {
	const sl_profile *prof;   /* not owned (a dithered profile's f0 copy:
				   * owned by dither) */
	const sl_machine *mach;   /* not owned */
	sl_time_model time;
	int flags;
	double f0_ghz;            /* the profiled frequency */
	double mem_ns;            /* memory latency */
	sl_interp view;           /* owned: every event the models use */
	/* view indices of the time model's roles, -1 when unused */
	int k_stall, k_llc, k_memstall;
	/* the mlp model's: offcore cycles and occupancy, prefetches, LLC
	 * references (-1 when unused), and the machine's measured memory */
	int k_ocyc, k_occ, k_pf, k_llcref, k_mst, k_misp;
	int k_l2st;               /* mlp: stall cycles behind an L2 miss */
	int k_l2ep, k_mep;        /* mlp: stall episodes behind an L2 miss,
				   * and behind a DRAM miss */
	int k_dram;               /* mlp: the memory controller's reads */
	/* the power model's prefetches, memory controller's reads and LLC
	 * misses (roles prefetches, dram_reads, llc_misses), -1 unless the
	 * machine names all three: a borrowed prefetch count is at least the
	 * lines read less the misses (term_count in models/model.c) */
	int p_pf, p_dram, p_llc;
	double bw_gbps;
	double *llc_expose;       /* mlp: per phase id, the LLC hits' stall
				   * cycles per hit (llc_expose_begin); NULL:
				   * the llc probe's cost per hit instead */
	double *llc_episodes;     /* mlp: per phase id, the episodes of stall
				   * behind LLC hits alone per hit
				   * (llc_expose_begin); NULL: not counted */
	double *other_stalls;     /* mlp: per phase id, stall cycles with other
				   * causes per cycle of work (models/model.c,
				   * other_stalls_begin); NULL: not separated */
	double *other_stalls_rmax; /* per phase id: the largest share of cycles
				    * with a miss out among the intervals that
				    * measured its rate (INFINITY: none) */
	int power;                /* the power model is evaluated */
	size_t n_terms;
	int *k_term;              /* view index of each power term */
	double *coeff;
	int *k_scaled;            /* per term: 1 if a cycle count that scales */
	double constant;
	double ceff_peak;         /* nF, see SL_PEAK_RATE_PER_CYCLE */
	double ceff_floor;        /* nF, <= 0: a core stalled every cycle with
				   * nothing else switching (sl_model_idle_w;
				   * 0 unless the machine says floor: stalled) */
	double temp_c;            /* die temperature for static power; NAN: the
				   * machine's temp_ref_c (set with sl_model_set_temp) */
	struct sl_anchor *anchor; /* owned; NULL: power from the counters alone
				   * (see sl_model_anchor) */
	struct sl_refine *refine; /* owned; NULL unless sl_model_refine() */
	struct sl_thermal *thermal; /* owned; the die's temperature at each
				     * target, built on first use; NULL when
				     * the machine or profile has none
				     * (models/thermal.c) */
	struct sl_dither *dither; /* owned; NULL unless the profile is dithered:
				   * then prof is its f0 copy (models/dither.c) */
	int k_c0;                 /* dithered: the view's f0 cycles column */
	int *term_energy;         /* per term: 1 if kind: energy (nJ per event) */
	double energy_peak;       /* nJ per cycle of the energy terms at the peak */
	sl_refine_rule refine_rule; /* what sl_model_refine() carries; set before it */
} sl_model;

/*
 * Check that the profile and machine can be modelled and build the view.
 * Refusals (-1, one line in sl_error()): a profile without event counts
 * (timer backend) or without a known frequency; the stall model without
 * counts of its roles (use --model linear); a machine without a fitted
 * power model unless SL_MODEL_TIME_ONLY ("run sleuth calibrate"); a power
 * term never measured.
 */
int sl_model_init(sl_model *md, const sl_profile *p, const sl_machine *m,
		  sl_time_model t, int flags);
/* The profile's part of those checks alone (before loading a machine). */
int sl_model_check_profile(const sl_profile *p);
/* Predict at die temperature `temp_c` (NAN: the machine's reference, i.e.
 * static power as calibrated); only machines with a temperature term
 * (power: temp_coeff) change. */
void sl_model_set_temp(sl_model *md, double temp_c);
void sl_model_free(sl_model *md);

/* The operating point at `ghz` under the model's flags (see
 * sl_machine_opoint). */
int sl_model_opoint(const sl_model *md, double ghz, sl_opoint *op);

/* Clamp outcomes. */
enum { SL_CLAMP_NONE = 0, SL_CLAMP_IDLE = 1, SL_CLAMP_PEAK = 2 };

/* The prediction for one interval at one operating point. */
typedef struct sl_pred {
	double cycles;    /* predicted core cycles */
	double time_s;
	double power_w;   /* NAN when time only */
	double energy_j;  /* NAN when time only */
	double ceff_nf;   /* before clamping; NAN when time only */
	int clamped;      /* SL_CLAMP_* */
	double fixed_w;   /* of power_w (before clamping), the energy terms' part
			   * at a fixed voltage; NAN when time only */
} sl_pred;

void sl_model_predict(const sl_model *md, const sl_opoint *op, size_t i,
		      sl_pred *out);

/* Predicted cycles of interval i at f1 (the time model alone). */
double sl_model_cycles(const sl_model *md, size_t i, double f1_ghz);
/* Idle power (the lower clamp): static power at the point's voltage, plus
 * ceff_floor * f * V^2 when the machine says floor: stalled and its
 * negative cycle-count terms (a stalled core gating its clock) outweigh its
 * constant: a core stalled in every cycle, its static_w fitted without an
 * idle log and so holding the clock a stall gates; never below 0 W (a
 * fit whose stall terms outweigh static_w must not predict negative power).
 * Peak power (the upper clamp): static + ceff_peak * f * V^2 +
 * energy_peak * f. */
double sl_model_idle_w(const sl_model *md, const sl_opoint *op);
/* A fitted machine's ceff_floor (nF, <= 0; sl_model_idle_w) when its
 * power: says floor: stalled (the model uses 0 otherwise, as files without
 * the key always did). */
double sl_model_ceff_floor(const sl_machine *m);
double sl_model_peak_w(const sl_model *md, const sl_opoint *op);

/* ---- anchoring on the measured power ---------------------------------- */

/* --anchor: auto (when the profile carries measured energy) or off. */
typedef enum { SL_ANCHOR_AUTO = 0, SL_ANCHOR_OFF } sl_anchor_mode;
int sl_anchor_mode_parse(const char *s, sl_anchor_mode *m); /* -1, sl_error() */

/*
 * The residual of the counter model against the profile's measured power
 * at the profiled frequency, carried to every other frequency
 * (docs/models.md, "Anchoring on measured power").  Built by
 * sl_model_anchor; read-only afterwards.
 */
typedef struct sl_anchor {
	const char *source;          /* the profile's energy_source (not owned) */
	double f0v2;                 /* f0 * V0^2 at the profiled point */
	double v0, static0;          /* its voltage and static power */
	double static_share;         /* share of the residual taken as static power */
	uint64_t intervals_measured; /* intervals with measured energy */
	double resid_w;              /* over the measured time: measured - model, W */
	double model_w;              /* the counter model's mean power there */
	double *inst_w;              /* per instance: the residual it carries, W */
	size_t inst_own, inst_phase, inst_program; /* instances whose residual is
				      * their own, their phase's, the program's */
	double *inst_fixed;          /* per instance: the share of the residual
				      * carried as energy per event, as the counter
				      * model's own fixed-voltage share at f0 */
	double *phase_w;             /* per instance: its phase's residual, W (its
				      * own when the phase's is unknown) */
	double *dep_fixed;           /* per instance: the share of its departure
				      * from the phase's residual carried as
				      * energy per event, as its interpolated
				      * energy terms' share of the uncertainty of
				      * its interpolated counts (the rest as
				      * energy per event at V^2: capacitance
				      * terms' counts) */
	double *inst_count;          /* per instance: the share of the residual
				      * carried as energy per event at V^2, the
				      * model's capacitance event terms' share at
				      * f0, where its phase borrowed such a term's
				      * counts from other phases (else 0) */
} sl_anchor;

/*
 * Anchor the model's power on the profile's measured energy: 1 anchored,
 * 0 nothing to anchor on (no interval with measured energy, or time only),
 * -1 with sl_error() when the profiled frequency has no operating point.
 * After it sl_model_predict adds the carried residual.  sl_model_init
 * never anchors (calibrate fits against that same energy).
 */
int sl_model_anchor(sl_model *md);
/* Add the anchor's residual to a counter prediction of interval i at op. */
void sl_anchor_apply(const sl_model *md, const sl_opoint *op, size_t i, sl_pred *out);
void sl_anchor_free(sl_anchor *a);
/* ---- refinement by a short second run at another frequency ------------- */

/* What corrects an instance: the parameter solved on its own measured
 * intervals or on the measured instances of its phase like it, a ratio of
 * cycles of its own or of those, nothing. */
typedef enum sl_refine_level {
	SL_REFINE_PARAM_OWN = 0,
	SL_REFINE_PARAM_LIKE,
	SL_REFINE_RATIO_OWN,
	SL_REFINE_RATIO_LIKE,
	SL_REFINE_NONE,
	SL_REFINE_LEVELS
} sl_refine_level;

/* What a refinement covers, for the caller to report. */
typedef struct sl_refine_info {
	double f2_ghz;        /* the short run's frequency */
	size_t intervals;     /* intervals of the profile measured at f2 (a
			       * prefix, or a dithered profile's own) */
	size_t n_intervals;   /* of the profile */
	size_t instances;     /* instances with an interval measured at f2 */
	size_t n_instances;
	size_t phases;        /* phases with an interval measured at f2 */
	size_t n_phases;      /* phases with intervals */
	sl_refine_rule rule;  /* the rule applied (never SL_REFINE_DEFAULT) */
	/* instances by what corrects them (sl_refine_level) */
	size_t by_level[SL_REFINE_LEVELS];
} sl_refine_info;

/* "ratio" or "param" (-1, one line in sl_error(), for anything else);
 * the rule's name. */
int sl_refine_rule_parse(const char *s, sl_refine_rule *r);
const char *sl_refine_rule_name(sl_refine_rule r);

/*
 * Refine the time model with `p2`, a profile of the same program recorded
 * at another frequency f2, usually a short prefix of the run: interval i of
 * p2 is interval i of the model's profile.  Every later prediction's cycles
 * are multiplied by 1 + (rho - 1) g(f), rho = measured / predicted cycles at
 * f2 of the interval (when measured), else of its instance, else of the
 * measured instances of its phase that behave like it (the interpolation's
 * behaviour, within a distance of 0.35), and g the line through g(f0) = 0
 * and g(f2) = 1, kept within [-1, 2] (docs/models.md, "Refinement by a
 * second run").  With md->refine_rule SL_REFINE_PARAM the model's uncertain
 * parameter (sl_refine_rule) is solved per measured instance instead,
 * pooled over the like-behaved ones, and each instance recomputed from its
 * own counts with it; the ratio where it has no solution.  info->by_level
 * counts the instances by what corrected them.  -1 with one line
 * in sl_error() (naming `path`) when p2 is not the same program at another
 * frequency: another frequency, no more intervals than the profile, the
 * same instructions per interval (1%), the same program name and retired
 * branches (2%).  The model must outlive nothing of p2.
 */
int sl_model_refine(sl_model *md, const sl_profile *p2, const char *path,
		    sl_refine_info *info);
/* The same, reading the profile at `path`. */
int sl_model_refine_file(sl_model *md, const char *path, sl_refine_info *info);
/* A dithered profile's own refinement: its intervals measured at the
 * dither frequency play the second run's (docs/models.md, "Dithering").
 * 1 refined, 0 the profile is not dithered, -1 with sl_error(). */
int sl_model_refine_dither(sl_model *md, sl_refine_info *info);
/* What --refine asks for: `by` a short run's profile (sl_model_refine_file),
 * "off" (no refinement), or NULL (a dithered profile's own, else none).
 * 1 refined, 0 not, -1 with sl_error(). */
int sl_model_refine_by(sl_model *md, const char *by, sl_refine_info *info);

/* ---- aggregation ------------------------------------------------------ */

typedef struct sl_agg {
	size_t intervals;
	size_t instances;
	uint64_t instructions;
	double time_s;
	double energy_j;
	size_t clamped_idle, clamped_peak; /* intervals clamped */
} sl_agg;

void sl_agg_add(sl_agg *a, const sl_pred *p, uint64_t instructions);
double sl_agg_power(const sl_agg *a); /* energy / time: the mean power */

/*
 * Predict every interval at `op` and sum: per phase id (per_phase has
 * view.n_phase_ids entries), per instance (view.n_instances entries) and in
 * total.  Any of the three may be NULL.  Arrays are zeroed first.
 */
void sl_model_aggregate(const sl_model *md, const sl_opoint *op,
			sl_agg *per_phase, sl_agg *per_instance, sl_agg *total);

/* ---- a profile, its machine and the models, in one call ----------------- */

typedef struct sl_model_set {
	sl_profile prof;
	sl_machine mach;
	sl_model model;              /* over prof and mach */
	const char *machine_origin;  /* the --machine path or "embedded in the
				      * profile"; NULL until the machine loads */
	int degraded;                /* SL_MODEL_DEGRADE_* taken: what was lost
				      * is in a warning already printed */
} sl_model_set;

/*
 * Read the profile at `profile`, check that it can be modelled, load the
 * machine (the file `machine`, or the one the profile embeds when NULL) and
 * build the models (`t`, `flags` as for sl_model_init).  -1 with one line
 * in sl_error() naming what failed.  Free with sl_model_close() whatever it
 * returned; the set must not move while open (the model points into it).
 */
int sl_model_open(sl_model_set *s, const char *profile, const char *machine,
		  sl_time_model t, int flags);
void sl_model_close(sl_model_set *s);

#endif
