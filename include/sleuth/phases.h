/*
 * Phase detection and phase-guided multiplexing (after ScarPhase):
 * sampled addresses -> hashed, normalised vectors -> online leader-follower
 * clusters (phases) -> a predictor of the next interval's phase -> per-phase
 * round-robin choice of the events to program.  Pure computation: nothing
 * here knows where samples come from.
 */
#ifndef SLEUTH_PHASES_H
#define SLEUTH_PHASES_H

#include <stddef.h>
#include <stdint.h>

#define SL_BV_DIMS_DEFAULT 32
/* Manhattan distance within which a vector joins a phase: the best fixed
 * threshold over 50-500 samples per interval (docs/phases.md). */
#define SL_THRESHOLD_DEFAULT 0.8
/* Better: widen the threshold by the expected sampling noise of the
 * interval, sl_threshold_for(); this is its margin above that noise. */
#define SL_THRESHOLD_MARGIN 0.25

/* Build the normalised (L1 = 1) vector of `n` sampled addresses into
 * out[dims].  The projection is fixed by `seed`.  All-zero if n == 0. */
void sl_bv_build(const uint64_t *addrs, size_t n, unsigned dims, uint64_t seed,
		 double *out);
/* The bin (0..dims-1) an address hashes to under the projection `seed`. */
unsigned sl_bv_bin(uint64_t addr, unsigned dims, uint64_t seed);
/* Manhattan distance, in [0, 2] for normalised vectors. */
double sl_bv_distance(const double *a, const double *b, unsigned dims);
/* The threshold for an interval of n_samples samples: SL_THRESHOLD_MARGIN
 * plus sqrt(2 (dims - 1) / (pi n)), the expected L1 distance between n
 * samples and a uniform distribution over dims bins (the noisiest case).
 * Set it with sl_cluster_set_threshold() before each sl_cluster_assign(). */
double sl_threshold_for(unsigned dims, size_t n_samples);
/* The collector never lets the noise-aware threshold exceed this: at L1
 * distance < 1 more than half of an interval's samples fall where its
 * phase's do (docs/phases.md). */
#define SL_THRESHOLD_CAP 1.0
/* The fewest samples per interval for which `margin` over the noise bound
 * stays within `cap`: below it, two intervals of the same code can be
 * farther apart than the threshold and found phases of their own.  The
 * inverse of sl_threshold_for: 2 (dims - 1) / (pi (cap - margin)^2); 289
 * for 256 dimensions, margin 0.25 and cap 1. */
size_t sl_samples_for(unsigned dims, double margin, double cap);

/* Online leader-follower clustering. */
typedef struct sl_cluster sl_cluster;
sl_cluster *sl_cluster_new(unsigned dims, double threshold);
/* The phase of this vector: the nearest centroid within `threshold`, whose
 * centroid then moves toward it, or a new phase.  IDs count from 0 in order
 * of first appearance. */
uint32_t sl_cluster_assign(sl_cluster *c, const double *vec);
/* Change the threshold for the following assignments. */
void sl_cluster_set_threshold(sl_cluster *c, double threshold);
/* The expected L1 distance between the distribution p (dims bins) and its
 * estimate from n samples (the binomial mean absolute deviation, summed
 * over bins); at most 2. */
double sl_expected_noise(const double *p, unsigned dims, double n);
/* For the following assignments: a vector of n_samples samples joins a
 * phase also when it lies within `margin` plus the expected noise of
 * n_samples samples of that phase's centroid (sl_expected_noise), even if
 * that is above the threshold, though never above 2 - margin; the
 * centroid's own noise adds: its m members count as n_samples m / (m + 1)
 * samples for the two.  n_samples 0 turns this off (the default). */
void sl_cluster_set_noise_floor(sl_cluster *c, double n_samples, double margin);
/* Centroid update: 0 (the default) = running mean of the members; alpha in
 * (0, 1] = exponentially weighted mean, centroid += alpha * (vec - centroid). */
void sl_cluster_set_alpha(sl_cluster *c, double alpha);
size_t sl_cluster_count(const sl_cluster *c);
const double *sl_cluster_centroid(const sl_cluster *c, uint32_t id);
void sl_cluster_free(sl_cluster *c);
/* What a run saw of a code phase: its samples, intervals and runs of
 * consecutive intervals. */
typedef struct sl_code_stat {
	double samples, n, runs;
} sl_code_stat;
/* At the end of a run, the code phases (clusters 0..n-1 of `c`, seen as
 * st[0..n-1]) one cannot tell apart: root[j] is the older phase that
 * phase j is one with, or j.  A phase met in runs of SL_BEHAVE_MIN_RUN
 * intervals or more on average is one with the first older phase (itself
 * a root) whose centroid lies within the sampling noise of one interval of
 * theirs (sl_threshold_for at their mean samples per interval, without the
 * margin); a phase met in shorter runs (a transition's mixed intervals)
 * only within the noise of the two centroids themselves (at the samples of
 * both: a mix of two codes is another distribution, a copy is not).  The
 * noise is capped at `cap` (the collector's cap less its margin).  With
 * few samples an interval (sl_threshold_for at the two phases' mean above
 * SL_THRESHOLD_CAP), a phase that matches none so is one with the older
 * root nearest (relative to the bound) whose pooled code -- its centroid
 * with those of the phases already merged into it, weighted by samples --
 * lies within the margin (SL_THRESHOLD_CAP - cap) plus sl_expected_noise
 * of that pooled distribution at Sa Sb / (Sa + Sb) samples (Sa pooled). */
void sl_code_merge(const sl_cluster *c, const sl_code_stat *st, size_t n, double cap,
		   uint32_t *root);

/* Next-phase prediction. */
typedef enum { SL_PRED_LAST, SL_PRED_MARKOV } sl_pred_kind;
/* The more accurate one measured (docs/phases.md). */
#define SL_PRED_DEFAULT SL_PRED_MARKOV
typedef struct sl_predictor sl_predictor;
sl_predictor *sl_pred_new(sl_pred_kind kind);
/* Tell the predictor the phase the last interval really had. */
void sl_pred_update(sl_predictor *p, uint32_t actual);
/* The predicted phase of the next interval (0 before any update). */
uint32_t sl_pred_next(const sl_predictor *p);
const char *sl_pred_name(sl_pred_kind kind);
int sl_pred_parse(const char *name, sl_pred_kind *kind);
void sl_pred_free(sl_predictor *p);

/* Phase-guided multiplexing over `n_events` events with `k` counters
 * (k >= n_events, uncore ones not counted, means every event every
 * interval). */
typedef struct sl_mux sl_mux;
sl_mux *sl_mux_new(size_t n_events, size_t k);
/* Events to program for the next interval, predicted to be of `phase`:
 * writes up to k (and the uncore events) event indices to out, returns
 * how many. */
size_t sl_mux_select(sl_mux *m, uint32_t phase, size_t *out);
/* After the interval: it was really of `phase` and measured these events. */
/* A misprediction credits the actual phase with what was measured; the
 * predicted phase's queue is left as it was (see phases/mux.c). */
void sl_mux_commit(sl_mux *m, uint32_t phase, const size_t *measured, size_t n);
/* How many committed intervals of `phase` measured event `ev`. */
uint64_t sl_mux_times(const sl_mux *m, uint32_t phase, size_t ev);
/* Pin events (indices; duplicates and out-of-range ones ignored): they are
 * programmed in every interval, the other k - p
 * counters rotating over the rest.  Replaces any earlier pin set.  A phase
 * with ceil((n - p)/(k - p)) correctly predicted intervals has measured
 * every event (see phases/mux.c). */
void sl_mux_pin(sl_mux *m, const size_t *events, size_t n);
/* The number of pinned events in effect: 0 when k <= p (pinning would
 * starve the other events) or k >= n (everything is measured anyway). */
size_t sl_mux_pinned(const sl_mux *m);
/* Events counted by an uncore PMU beside the k counters (sl_pfm_uncore):
 * programmed in every interval after the core's, taking no counter, so
 * sl_mux_select writes up to k + u indices.  Replaces any earlier set. */
void sl_mux_uncore(sl_mux *m, const size_t *events, size_t n);
void sl_mux_free(sl_mux *m);

/* Adjusted Rand index of two labelings of n items (1: same partition). */
double sl_ari(const uint32_t *a, const uint32_t *b, size_t n);

/* ---- behaviour phases (phases/behave.c) ------------------------------- */

/* A code phase split by the behaviour of its intervals: features in log
 * space (log CPI, log(1 + events per 1000 instructions) of the events
 * counted in every interval; NAN = not available), leader-follower within
 * each code phase with a Chebyshev threshold, groups merged when their
 * centroids come within half of it; a centroid follows the group's last
 * SL_BEHAVE_WINDOW intervals or so.  Phase ids 0, 1, ... in order of
 * appearance; a merged id maps to its survivor with sl_behave_final(). */
#define SL_BEHAVE_DEFAULT 0.85
#define SL_BEHAVE_WINDOW 10.0
typedef struct sl_behave sl_behave;
sl_behave *sl_behave_new(size_t n_features, double threshold);
void sl_behave_free(sl_behave *b);
uint32_t sl_behave_assign(sl_behave *b, uint32_t code, const double *x);
/* The scale every rate of a behaviour feature is judged on: log(1 + the
 * count per 1000 instructions). */
double sl_behave_rate(double count, double instructions);
/* An interval's features, as the split and the interpolation's "similar"
 * level (models/interp.c) judge behaviour: x[0] = log CPI, x[1 + j] =
 * sl_behave_rate(counts[pinned[j]], instructions); NAN where not known
 * (no cycles or instructions, counts NULL, a count SL_MISSING).  1 when
 * the CPI is known, else 0. */
int sl_behave_features(uint64_t cycles, uint64_t instructions, const uint64_t *counts,
		       const size_t *pinned, size_t n_pinned, double *x);
uint32_t sl_behave_final(const sl_behave *b, uint32_t id);
/* At the end of the run: merge each transient group (younger than its
 * code phase's first, met in runs shorter than SL_BEHAVE_MIN_RUN intervals
 * on average: the intervals of a transition) into the nearest lasting
 * group of its code phase, if it comes in at least half of its runs of
 * that code phase with that group (one that comes in runs of its own is a
 * behaviour met in short instances); each ramp (a younger group whose every run
 * goes from one group to another, each interval within half the threshold
 * of the segment between them and no nearer the first than the interval
 * before: a gradual transition) into the one of those two of its code
 * phase; then each successor -- a group founded by an interval within the
 * threshold of an older group's range of features, after which the older
 * group was given nothing beyond half the threshold of the successor's
 * range but first intervals after a change of code: one behaviour that
 * drifted while other code ran -- into that older group; last, of two
 * groups of one code phase whose core ranges (their own intervals but
 * those at a change of code, not the transitions merged into them) overlap
 * in every feature (or, both met in runs of SL_BEHAVE_MIN_RUN or more on
 * average, lie within half the threshold of each other) and that come
 * together in fewer than half of the runs of the code phase either comes
 * in, the younger into the older -- unless the younger comes with the
 * older in every run of its own, in 4 runs or more (a stage of the code's
 * runs); a group without a core range takes no turns.
 * sl_behave_final() then maps their ids there.  Then a group whose runs
 * of its code phase (its own core intervals, not those of a transition
 * merged into it) split in two sides lying at least
 * SL_BEHAVE_SEPARATION pooled standard deviations and more than half the
 * threshold apart in some feature, which take turns (the runs in order
 * change side at least SL_BEHAVE_ALTERNATION standard deviations more
 * often than a random order would: the Wald-Wolfowitz runs test) or lie
 * SL_BEHAVE_BLOCK_SEPARATION apart whatever their order, is split (and,
 * closer than half the threshold, when they take turns at least
 * SL_BEHAVE_STRONG_ALTERNATION standard deviations more often): the side
 * cut off becomes a new phase (two behaviours of one code closer than the
 * threshold; sl_behave_origin).  Last, each interval goes
 * to the group of its code phase whose mean over the run is nearest
 * (sl_behave_interval). */
void sl_behave_finish(sl_behave *b);
/* The phase of the t-th interval given to sl_behave_assign (from 0): after
 * sl_behave_finish the group it was reassigned to, before it the survivor
 * of the group it joined. */
uint32_t sl_behave_interval(const sl_behave *b, size_t t);
/* The phase that phase `id` was split off at the end of the run (two
 * behaviours of one code that take turns or one a stage inside the runs
 * of the other, sl_behave_finish), else `id`:
 * the code it runs is that phase's. */
uint32_t sl_behave_origin(const sl_behave *b, uint32_t id);
/* The code phase that phase `id` (the group it ended in) runs, after the
 * code phases merged (sl_behave_merge_code); UINT32_MAX for an id that
 * never was a group.  Phases of one code phase run the same code and
 * behave apart (their event rates). */
uint32_t sl_behave_code(const sl_behave *b, uint32_t id);
/* Code phase `from` is code phase `into` (their branch vectors could not
 * be told apart): its groups become `into`'s, and groups that behave
 * alike (centroids within half the threshold) are merged. */
void sl_behave_merge_code(sl_behave *b, uint32_t from, uint32_t into);
#define SL_BEHAVE_MIN_RUN 2.0
/* the end-of-run split of two behaviours that take turns (docs/phases.md,
 * "Two behaviours that take turns"); the alternation also keeps two
 * groups that take turns run by run from being merged as a drift ("Groups
 * that take turns run by run are no drift") */
#define SL_BEHAVE_SEPARATION 3.5
#define SL_BEHAVE_ALTERNATION 1.0
/* ... or that come in blocks (the same code on one data set, then on
 * another) lying this many pooled standard deviations apart: drift fills
 * the space between its sides, two data sets leave it empty
 * (docs/phases.md, "Two behaviours in blocks") */
#define SL_BEHAVE_BLOCK_SEPARATION 4.5
/* ... or that take turns this many standard deviations more often than a
 * random order of their runs would (a one-sided chance of 1%), however
 * close: regular turns are two inputs of one code, not a drift or noise
 * (docs/phases.md, "Two behaviours that take turns closely") */
#define SL_BEHAVE_STRONG_ALTERNATION 2.33
/* a second behaviour met as a stage inside the runs of its code, closer
 * than the threshold: a cut of a group's intervals this many pooled
 * standard deviations apart in one feature, whose smaller side holds
 * flat -- its stretches moving by no more than SL_BEHAVE_STAGE_FLAT of
 * the gap between the sides -- in most runs of the code
 * (docs/phases.md, "A stage inside the runs of a code") */
#define SL_BEHAVE_STAGE_SEPARATION 4.2
#define SL_BEHAVE_STAGE_FLAT (1.0 / 3)

#endif
