/*
 * Behaviour phases: a code phase (one branch-vector cluster) split by what
 * its intervals do.  Branch vectors cannot tell the same code on other data
 * apart (a solver on a cache-resident block and on one that streams from
 * DRAM); the events counted in every interval can.  Each interval of code
 * phase c is described by features in log space -- log CPI and, for each
 * event counted in every interval, log(1 + count per 1000 instructions) --
 * and clustered online, leader-follower, among c's behaviour groups: join
 * the nearest group whose centroid is within the threshold in every feature
 * (Chebyshev distance), else found a group (a new phase) -- except the
 * first interval after a change of code phase, which mixes two phases and
 * joins its nearest group.  A centroid is the mean of the group's last
 * SL_BEHAVE_WINDOW intervals or so (a running mean that turns into an
 * exponential one): a phase whose behaviour drifts is followed, so the
 * threshold can sit below the gap between two behaviours of one code
 * without cutting a slow drift into pieces.  The events counted in every
 * interval are the pinned ones and the uncore ones (the memory
 * controller's reads: the same code on data that streams from DRAM and on
 * data in the caches can stall alike in the core).
 * When two groups of one code phase converge (centroids within half the
 * threshold) the younger is merged into the older; at the end of the run
 * (sl_behave_finish) a transient group -- met only in runs of about one
 * interval, the intervals of a transition, as the online pass left the
 * groups (not as earlier merges made them) -- is merged into the nearest
 * lasting group of its code phase if it comes in the same runs of its code
 * as that group (the edges of them, both groups as the online pass left
 * them; a second behaviour met in short instances of its own does not)
 * and is no excursion (met in
 * EXCURSION_RUNS runs or more, each beyond both of its neighbours, more
 * than half the threshold off the segment between them: a second
 * behaviour visited inside runs of its code, where a transition's
 * intervals lie between what came before and what comes after), a ramp
 * -- a group whose every run moves
 * from the group before it towards the group after it, a gradual
 * transition of any length -- into the one of those of its code phase,
 * and a successor -- a group that took over from an older one of its code
 * phase, starting within the threshold of what the older one did, the
 * older one given nothing since that the successor would not have taken:
 * a drift that went on while other code ran and left the older centroid
 * behind -- into the group it succeeded, and of two groups that take turns
 * -- core ranges (without the intervals at a change of code, either of
 * which may hold a change of phase, nor the first after a change of group
 * inside a run of the code, a ramp's first) that overlap (or, lasting groups,
 * leave a gap of less than half the threshold), rarely in one run of
 * their code phase: a drift wider than the threshold, back and forth --
 * the younger into the older, unless the younger comes with the older in
 * every run of its own, in EXCURSION_RUNS runs or more, or leaves a gap
 * to its range and comes after it in each of those runs, the older one
 * opening the run (a stage of the code's runs), or the two change places
 * from run to run of their code more often than a random order of those
 * runs would (take_turns: one code on two data sets in turn, where a
 * drift stays on one side for a while).  Last, a group whose
 * runs of its code (its own intervals, not a transition merged into it:
 * a ramp's mixed intervals at the edge of some runs would make two
 * sides of one behaviour) fall in two tight clusters -- lying
 * SL_BEHAVE_SEPARATION pooled standard deviations and more than half
 * the threshold apart -- that take turns
 * (the runs change cluster more often than a random order would), or lie
 * SL_BEHAVE_BLOCK_SEPARATION apart in blocks, is split in two: two
 * behaviours of one code closer than the threshold, which the program
 * alternates with or takes one after the other (a drift moves across its
 * range in order, leaving no such gap); two that take turns beyond any
 * chance order (SL_BEHAVE_STRONG_ALTERNATION) are split however close.
 * After each interval went to the nearest group of its code, a group
 * whose own intervals hold a second behaviour as a stage inside most
 * runs of its code -- two sides of one feature
 * SL_BEHAVE_STAGE_SEPARATION pooled standard deviations apart, the
 * smaller flat for three intervals or more in a row in four runs or
 * more (split_stage) -- is split too: runs that each hold both
 * behaviours give split_two nothing to cut.
 * Each interval is kept (group, features) for these end-of-run tests.
 * sl_behave_merge_code() makes one code phase of two that the branch
 * vectors could not tell apart.
 * sl_behave_final() maps any phase id to the one it ended in.
 * docs/phases.md has the measurements.
 */
#include "sleuth/phases.h"

#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/profile.h"

/* the runs an excursion (a second behaviour visited inside runs of its
 * code) or a stage of its code's runs (met in every run of its own
 * after the older group) must be met in before it keeps a phase of its
 * own: as many as split_two asks of a group */
#define EXCURSION_RUNS 4

typedef struct group {
	uint32_t code;   /* the code phase */
	uint32_t id;     /* the phase id handed out */
	double n;        /* intervals joined */
	double runs;     /* runs of consecutive intervals it was given */
	double *mu;      /* centroid (recent mean), nf features */
	double *lo, *hi; /* the range of its intervals' features, first
			    intervals after a code change left out */
	double *clo, *chi; /* its core range (core_ranges, at the end of the
			      run): without the intervals at a change of
			      code, nor the transitions (transient groups
			      and ramps) merged into it */
	double *x0;      /* the interval that founded it */
	size_t first, last; /* sequence numbers of its first and last interval */
	int alive;       /* 0 once merged into another */
	uint32_t from;   /* the group it was split off (split_two),
			    else its own id */
	int transition;  /* merged into another as a transition (a
			    transient group, a ramp) */
} group;

struct sl_behave {
	double thr;
	size_t nf;
	group *g;
	size_t n_g, cap_g;
	uint32_t *parent; /* phase id -> id it was merged into (itself if none) */
	uint32_t last_code;
	uint32_t last_id;  /* the group the interval before joined */
	size_t n_seen;
	/* every interval: the group it joined (as handed out), whether it
	 * was the first after a change of code, and its nf features --
	 * what sl_behave_finish reads to tell ramps, successors and groups
	 * that take turns */
	uint32_t *log_id;
	unsigned char *log_first;
	double *log_x;
	size_t cap_log;
	uint32_t *log_fin; /* each interval's phase at the end (sl_behave_finish) */
	size_t n_fin;      /* the intervals log_fin covers */
};

sl_behave *sl_behave_new(size_t n_features, double threshold)
{
	sl_behave *b = sl_xcalloc(1, sizeof *b);
	b->nf = n_features;
	b->thr = threshold;
	return b;
}

void sl_behave_free(sl_behave *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n_g; i++)
		free(b->g[i].mu);
	free(b->g);
	free(b->parent);
	free(b->log_id);
	free(b->log_first);
	free(b->log_x);
	free(b->log_fin);
	free(b);
}

static double dist(const sl_behave *b, const double *mu, const double *x)
{
	double d = 0;
	for (size_t k = 0; k < b->nf; k++)
		if (isfinite(x[k]) && isfinite(mu[k]))
			d = SL_MAX(d, fabs(mu[k] - x[k]));
	return d;
}

double sl_behave_rate(double count, double instructions)
{
	return log1p(1000.0 * count / instructions);
}

int sl_behave_features(uint64_t cycles, uint64_t instructions, const uint64_t *counts,
		       const size_t *pinned, size_t n_pinned, double *x)
{
	double ins = (double)instructions;
	x[0] = cycles && instructions ? log((double)cycles / ins) : NAN;
	for (size_t j = 0; j < n_pinned; j++) {
		uint64_t v = counts ? counts[pinned[j]] : SL_MISSING;
		x[1 + j] = v != SL_MISSING && instructions ? sl_behave_rate((double)v, ins) : NAN;
	}
	return !isnan(x[0]);
}

uint32_t sl_behave_final(const sl_behave *b, uint32_t id)
{
	while (id < b->n_g && b->parent[id] != id)
		id = b->parent[id];
	return id;
}

/* Merge group `from` into `into`; `transition`: `from` is a transition
 * (a transient group or a ramp), whose range is not `into`'s core. */
static void merge_as(sl_behave *b, group *into, group *from, int transition)
{
	for (size_t k = 0; k < b->nf; k++)
		into->mu[k] = isnan(from->mu[k]) ? into->mu[k]
			    : isnan(into->mu[k]) ? from->mu[k]
			    : (into->mu[k] * into->n + from->mu[k] * from->n) / (into->n + from->n);
	for (size_t k = 0; k < b->nf; k++) {
		into->lo[k] = SL_MIN(into->lo[k], from->lo[k]);
		into->hi[k] = SL_MAX(into->hi[k], from->hi[k]);
		if (!transition) {
			into->clo[k] = SL_MIN(into->clo[k], from->clo[k]);
			into->chi[k] = SL_MAX(into->chi[k], from->chi[k]);
		}
	}
	into->first = SL_MIN(into->first, from->first);
	into->last = SL_MAX(into->last, from->last);
	into->n += from->n;
	into->runs += from->runs;
	from->alive = 0;
	from->transition = transition;
	b->parent[from->id] = into->id;
}

static void merge(sl_behave *b, group *into, group *from)
{
	merge_as(b, into, from, 0);
}

/* Merge groups of code phase c that came within half the threshold. */
static void merge_close(sl_behave *b, uint32_t c)
{
	for (size_t i = 0; i < b->n_g; i++) {
		group *gi = &b->g[i];
		if (!gi->alive || gi->code != c)
			continue;
		for (size_t j = i + 1; j < b->n_g; j++) {
			group *gj = &b->g[j];
			if (!gj->alive || gj->code != c || dist(b, gi->mu, gj->mu) > b->thr / 2)
				continue;
			merge(b, gi, gj);
		}
	}
}

/* A new group of code phase `code` (phase id b->n_g), split off group
 * `from` (its own id if founded by an interval); the caller sets its
 * features. */
static group *new_group(sl_behave *b, uint32_t code, uint32_t from)
{
	SL_GROW(b->g, b->n_g, b->cap_g);
	b->parent = sl_xreallocarray(b->parent, b->cap_g, sizeof *b->parent);
	group *g = &b->g[b->n_g];
	size_t nf = b->nf;
	/* one block: mu, lo, hi, x0, clo, chi */
	double *m = sl_xcalloc(6 * nf + 1, sizeof *m);
	*g = (group){.code = code, .id = (uint32_t)b->n_g, .from = from, .alive = 1, .mu = m,
		     .lo = m + nf, .hi = m + 2 * nf, .x0 = m + 3 * nf, .clo = m + 4 * nf,
		     .chi = m + 5 * nf, .first = b->n_seen};
	b->parent[b->n_g] = (uint32_t)b->n_g;
	b->n_g++;
	return g;
}

uint32_t sl_behave_assign(sl_behave *b, uint32_t code, const double *x)
{
	/* The first interval after a change of code phase mixes two phases'
	 * behaviour: it joins the nearest group of its code phase, whatever
	 * the distance, and founds one only if there is none. */
	int first = !b->n_seen || code != b->last_code;
	b->last_code = code;
	group *best = NULL;
	double bd = HUGE_VAL;
	for (size_t i = 0; i < b->n_g; i++) {
		group *g = &b->g[i];
		if (!g->alive || g->code != code)
			continue;
		double d = dist(b, g->mu, x);
		if (d < bd)
			bd = d, best = g;
	}
	if (!best || (bd > b->thr && !first)) {
		best = new_group(b, code, (uint32_t)b->n_g);
		for (size_t k = 0; k < b->nf; k++) {
			/* NaN until an interval shows the feature (one at
			 * another clock shows none) */
			best->mu[k] = isfinite(x[k]) ? x[k] : NAN;
			best->x0[k] = x[k];
			best->lo[k] = best->clo[k] = HUGE_VAL;
			best->hi[k] = best->chi[k] = -HUGE_VAL;
		}
	}
	if (b->n_seen >= b->cap_log) {
		b->cap_log = b->cap_log ? 2 * b->cap_log : 64;
		b->log_id = sl_xreallocarray(b->log_id, b->cap_log, sizeof *b->log_id);
		b->log_first = sl_xreallocarray(b->log_first, b->cap_log, sizeof *b->log_first);
		b->log_x = sl_xreallocarray(b->log_x, b->cap_log * b->nf, sizeof *b->log_x);
	}
	b->log_id[b->n_seen] = best->id;
	b->log_first[b->n_seen] = (unsigned char)first;
	memcpy(&b->log_x[b->n_seen * b->nf], x, b->nf * sizeof *x);
	best->n++;
	if (!b->n_seen || best->id != b->last_id || first)
		best->runs++;
	b->last_id = best->id;
	best->last = b->n_seen++;
	for (size_t k = 0; k < b->nf; k++) {
		if (!isfinite(x[k]))
			continue;
		if (isnan(best->mu[k]))
			best->mu[k] = x[k];
		else
			best->mu[k] += (x[k] - best->mu[k]) / SL_MIN(best->n, SL_BEHAVE_WINDOW);
		if (!first) {
			best->lo[k] = SL_MIN(best->lo[k], x[k]);
			best->hi[k] = SL_MAX(best->hi[k], x[k]);
		}
	}
	uint32_t id = best->id;
	merge_close(b, code);
	return sl_behave_final(b, id);
}

void sl_behave_merge_code(sl_behave *b, uint32_t from, uint32_t into)
{
	for (size_t i = 0; i < b->n_g; i++)
		if (b->g[i].code == from)
			b->g[i].code = into;
	merge_close(b, into);
}

/* Whether g is younger than the oldest living group of its code phase. */
static int younger(const sl_behave *b, const group *g)
{
	for (size_t i = 0; i < b->n_g && &b->g[i] != g; i++)
		if (b->g[i].alive && b->g[i].code == g->code)
			return 1;
	return 0; /* the oldest group of its code phase */
}

/* A transient group: younger than its code phase's first, and met in runs
 * shorter than SL_BEHAVE_MIN_RUN intervals on average -- the intervals of a
 * transition, where behaviour ramps from one phase to the next under the
 * new phase's code, or where one phase hands over to another within an
 * interval.  Behaviour that is a phase of its own lasts. */
static int transient(const sl_behave *b, const group *g)
{
	return younger(b, g) && g->n < SL_BEHAVE_MIN_RUN * g->runs;
}

/* Distance from x to the range [lo, hi] of a group's intervals (Chebyshev,
 * over the features both know).  A group made only of first intervals
 * after a change of code (mixed ones) has no range: 0, as it showed no
 * behaviour of its own that a successor could be told apart from. */
static double range_dist(const sl_behave *b, const group *g, const double *x)
{
	double d = 0;
	for (size_t k = 0; k < b->nf; k++)
		if (isfinite(x[k]) && g->lo[k] <= g->hi[k])
			d = SL_MAX(d, SL_MAX(g->lo[k] - x[k], x[k] - g->hi[k]));
	return d;
}

/* A successor of group a: a younger group of its code phase founded by an
 * interval within the threshold of the behaviour a had shown, after which
 * a was given nothing that g would not have taken -- only first intervals
 * after a change of code (which join the nearest group whatever they are)
 * and intervals within half the threshold of g's range, a drift that came
 * back near a's left-behind centroid.  That is one behaviour that moved
 * on -- drift that went on while other code ran, so that the group's
 * centroid, left behind, no longer reached it -- not a second behaviour,
 * which a program comes back to between visits of the first, beyond g's
 * range, or which starts out beyond what the first ever did.  `late` is
 * the farthest that a's intervals after g's founding lie from g's range
 * (0 if none), as successors() computed it. */
static int successor(const sl_behave *b, const group *a, const group *g, double late)
{
	return g->code == a->code && g->first > a->first && late <= b->thr / 2 &&
	       range_dist(b, a, g->x0) <= b->thr;
}

/* Merge every successor into the group it took over from.  For each group
 * g, one pass over the intervals from g's founding on gives, per older
 * group a of its code, how far a's later intervals lie from g's range. */
static void successors(sl_behave *b)
{
	double *late = sl_xcalloc(b->n_g ? b->n_g : 1, sizeof *late);
	for (size_t j = 0; j < b->n_g; j++) {
		group *g = &b->g[j];
		if (!g->alive)
			continue;
		for (size_t i = 0; i < j; i++)
			late[i] = 0;
		for (size_t t = g->first + 1; t < b->n_seen; t++) {
			uint32_t a = sl_behave_final(b, b->log_id[t]);
			if (a < j && !b->log_first[t])
				late[a] = SL_MAX(late[a], range_dist(b, g, &b->log_x[t * b->nf]));
		}
		for (size_t i = 0; i < j && g->alive; i++)
			if (b->g[i].alive && successor(b, &b->g[i], g, late[i]))
				merge(b, &b->g[i], g);
	}
	free(late);
}

/* Chebyshev distance from x to the segment between p and q (over the
 * features all three know), the least over 101 points along it; *at is
 * where along it (0 at p, 1 at q). */
static double seg_dist(const sl_behave *b, const double *p, const double *q, const double *x,
		       double *at)
{
	double best = HUGE_VAL;
	for (int s = 0; s <= 100; s++) {
		double t = s / 100.0, d = 0;
		for (size_t k = 0; k < b->nf; k++)
			if (isfinite(x[k]) && isfinite(p[k]) && isfinite(q[k]))
				d = SL_MAX(d, fabs(p[k] + t * (q[k] - p[k]) - x[k]));
		if (d < best)
			best = d, *at = t;
	}
	return best;
}

/* A ramp: a group younger than its code phase's first whose every run
 * goes between two other groups, each interval of the run within half the
 * threshold of the segment between those two and no nearer the first than
 * the interval before -- behaviour that moves from the phase before to the
 * one after, a gradual transition, however many intervals it takes (one
 * that stays between two others jitters back and forth along the
 * segment).  Returns the group of its code phase it belongs to (the
 * nearer of the two of its code, else none). */
static group *ramp_into(sl_behave *b, const group *g)
{
	size_t runs = 0;
	group *near = NULL;
	double nd = HUGE_VAL;
	for (size_t t = g->first; t <= g->last; t++) {
		if (sl_behave_final(b, b->log_id[t]) != g->id ||
		    (t > g->first && sl_behave_final(b, b->log_id[t - 1]) == g->id))
			continue;
		size_t e = t;
		while (e + 1 < b->n_seen && sl_behave_final(b, b->log_id[e + 1]) == g->id)
			e++;
		if (!t || e + 1 >= b->n_seen)
			return NULL;
		group *p = &b->g[sl_behave_final(b, b->log_id[t - 1])];
		group *q = &b->g[sl_behave_final(b, b->log_id[e + 1])];
		if (p == q)
			return NULL;
		double prev = 0, at = 0;
		for (size_t u = t; u <= e; u++, prev = at)
			if (seg_dist(b, p->mu, q->mu, &b->log_x[u * b->nf], &at) > b->thr / 2 ||
			    at < prev)
				return NULL;
		group *ends[2] = {p, q};
		for (int k = 0; k < 2; k++) {
			double d = dist(b, ends[k]->mu, g->mu);
			if (ends[k]->code == g->code && d < nd)
				nd = d, near = ends[k];
		}
		runs++;
	}
	return runs ? near : NULL;
}

/* Runs of a code phase (from one change of code to the next) in which a
 * was given an interval (*in_a), a or g (*either), and both (*both).  With
 * `edges` 0, a run's first and last intervals are left out (the mixed
 * ones; the run's last is mixed only when a change of code follows, so
 * the run that ends the log keeps its last); with 1, every interval
 * counts. */
static void run_counts(const sl_behave *b, const group *a, const group *g, int edges,
		       size_t *in_a, size_t *either, size_t *both)
{
	int sa = 0, sg = 0;
	*in_a = *either = *both = 0;
	for (size_t t = 0; t <= b->n_seen; t++) {
		if (t == b->n_seen || b->log_first[t]) {
			*in_a += sa;
			*either += sa || sg;
			*both += sa && sg;
			sa = sg = 0;
			if (t == b->n_seen || !edges)
				continue;
		} else if (!edges && t + 1 < b->n_seen && b->log_first[t + 1]) {
			continue; /* the last of its run */
		}
		uint32_t f = sl_behave_final(b, b->log_id[t]);
		sa |= f == a->id;
		sg |= f == g->id;
	}
}

/* Whether the core ranges of a and g overlap in every feature both
 * showed; a group without a core range (all its intervals at a change of
 * code) overlaps nothing. */
static int overlap(const sl_behave *b, const group *a, const group *g)
{
	int ra = 0, rg = 0;
	for (size_t k = 0; k < b->nf; k++)
		ra |= a->clo[k] <= a->chi[k], rg |= g->clo[k] <= g->chi[k];
	if (!ra || !rg)
		return 0; /* no behaviour of its own: a transition's intervals */
	for (size_t k = 0; k < b->nf; k++)
		if (a->clo[k] <= a->chi[k] && g->clo[k] <= g->chi[k] &&
		    (a->clo[k] > g->chi[k] || g->clo[k] > a->chi[k]))
			return 0;
	return 1;
}

/* A group met in runs of SL_BEHAVE_MIN_RUN intervals or more on average
 * (not a transition's, as transient groups are). */
static int lasting(const group *g)
{
	return g->n >= SL_BEHAVE_MIN_RUN * g->runs;
}

/* The gap between the core ranges of a and g: the widest, over the
 * features both showed, of the distance between their ranges (0 where
 * they overlap). */
static double range_gap(const sl_behave *b, const group *a, const group *g)
{
	double d = 0;
	const double *alo = a->clo, *ahi = a->chi, *glo = g->clo, *ghi = g->chi;
	for (size_t k = 0; k < b->nf; k++)
		if (alo[k] <= ahi[k] && glo[k] <= ghi[k])
			d = SL_MAX(d, SL_MAX(alo[k] - ghi[k], glo[k] - ahi[k]));
	return d;
}

/* Each interval to the group of its code phase whose mean over the run is
 * nearest.  The groups are found online, leader-follower, with a centroid
 * that follows drift, so an interval stays with the group it joined even
 * when a group founded later holds its behaviour: two behaviours of one
 * code less than the threshold apart (graph-bfs's frontier and edges, 0.6
 * in log CPI, at some seeds) share one group until one of them drifts
 * away and founds its own, which then takes only the later intervals.
 * Once the groups are final, each interval goes to the nearest mean: one
 * pass of k-means over the groups the run found.  The means are over the
 * groups' intervals other than first ones (mixed); a group that has none
 * keeps its intervals and takes no others.  A first interval after a change
 * of code joined its nearest group online whatever the distance, with the
 * groups of that moment; it goes to the nearest final mean as the others
 * do (its group's first interval may be pure: the mixed one before it was
 * classified as other code -- nn-infer's GEMM on weights that miss the
 * LLC, whose first intervals sat in GEMM's group). */
static void reassign(sl_behave *b)
{
	size_t nf = b->nf;
	double *mean = sl_xcalloc(b->n_g * nf + 1, sizeof *mean);
	double *cnt = sl_xcalloc(b->n_g * nf + 1, sizeof *cnt);
	for (size_t t = 0; t < b->n_seen; t++) {
		uint32_t f = sl_behave_final(b, b->log_id[t]);
		for (size_t k = 0; k < nf && !b->log_first[t]; k++)
			if (isfinite(b->log_x[t * nf + k]))
				mean[f * nf + k] += b->log_x[t * nf + k], cnt[f * nf + k]++;
	}
	for (size_t i = 0; i < b->n_g * nf; i++)
		mean[i] = cnt[i] ? mean[i] / cnt[i] : NAN;
	b->log_fin = sl_xreallocarray(b->log_fin, b->n_seen + 1, sizeof *b->log_fin);
	b->n_fin = b->n_seen;
	for (size_t t = 0; t < b->n_seen; t++) {
		uint32_t f = sl_behave_final(b, b->log_id[t]);
		const double *x = &b->log_x[t * nf];
		b->log_fin[t] = f;
		if (!cnt[f * nf])
			continue;
		double best = dist(b, &mean[f * nf], x);
		for (size_t h = 0; h < b->n_g; h++) {
			double d;
			if (h != f && b->g[h].alive && b->g[h].code == b->g[f].code &&
			    cnt[h * nf] && (d = dist(b, &mean[h * nf], x)) < best)
				best = d, b->log_fin[t] = (uint32_t)h;
		}
	}
	free(mean);
	free(cnt);
}

uint32_t sl_behave_origin(const sl_behave *b, uint32_t id)
{
	return id < b->n_g ? b->g[id].from : id;
}

uint32_t sl_behave_code(const sl_behave *b, uint32_t id)
{
	id = sl_behave_final(b, id);
	return id < b->n_g ? b->g[id].code : UINT32_MAX;
}

uint32_t sl_behave_interval(const sl_behave *b, size_t t)
{
	if (t >= b->n_seen)
		return 0;
	return t < b->n_fin ? b->log_fin[t] : sl_behave_final(b, b->log_id[t]);
}

/* Whether the t-th interval is a core one: neither the first after a
 * change of code nor the last before one (the last of the log has no
 * change after it and is). */
static int core(const sl_behave *b, size_t t)
{
	return !b->log_first[t] && !(t + 1 < b->n_seen && b->log_first[t + 1]);
}

/* Each group's core range, from the log, as the online pass, the merges
 * of converging groups and the code merge left the groups: its intervals
 * but those at a change of code -- the first after it and the last before
 * it, either of which may hold the boundary (a program, and the simulator,
 * changes phase inside an interval); the last interval of the log has no
 * change after it and counts -- and but the first after a change of group
 * inside a run of the code, which may hold a change of phase as well (the
 * first of a ramp from the group before: msa-align's profile alignments
 * near the root, whose ramps bridged the gap to those at the leaves).
 * The transitions merged later (transient groups, ramps) do not widen
 * it. */
static void core_ranges(sl_behave *b)
{
	size_t nf = b->nf;
	for (size_t i = 0; i < b->n_g; i++)
		for (size_t k = 0; k < nf; k++) {
			b->g[i].clo[k] = HUGE_VAL;
			b->g[i].chi[k] = -HUGE_VAL;
		}
	for (size_t t = 0; t < b->n_seen; t++) {
		if (!core(b, t))
			continue;
		uint32_t id = sl_behave_final(b, b->log_id[t]);
		if (t && sl_behave_final(b, b->log_id[t - 1]) != id)
			continue; /* the first after a change of group */
		group *g = &b->g[id];
		for (size_t k = 0; k < nf; k++) {
			double x = b->log_x[t * nf + k];
			if (isfinite(x)) {
				g->clo[k] = SL_MIN(g->clo[k], x);
				g->chi[k] = SL_MAX(g->chi[k], x);
			}
		}
	}
}

/* Whether g comes with `to` in at least half of the runs of its code phase
 * (from one change of code to the next) that g comes in, every interval
 * counted.  A transition's intervals sit at the edges of the runs of the
 * behaviour it opens or closes; a second behaviour of the same code
 * met in short instances of its own (nn-infer's GEMM on weights that miss
 * the LLC, two intervals an instance, other code before and after) comes
 * in runs of its own. */
static int comes_with(const sl_behave *b, const group *g, const group *to)
{
	size_t runs, either, with;
	run_counts(b, g, to, 1, &runs, &either, &with);
	return 2 * with >= runs;
}

/* An excursion: a group met in at least EXCURSION_RUNS runs of
 * consecutive intervals, each between two intervals of the log (not at
 * its ends), whose mean lies more than half the threshold from the
 * segment between the interval before the run (the one before that if it
 * is the first after a change of code, which mixes two phases) and the
 * interval after it.
 * A transition's intervals mix what came before and what comes after, so
 * they lie on (or near) that segment, however far they are from the group
 * whose runs they open or close; a second behaviour that the program
 * visits inside a run of its code (amr-hydro's smoother on the small
 * multigrid levels, one interval after the full-level sweeps) lies beyond
 * both of its neighbours every time.  `to`, the group it would be merged
 * into, must show a behaviour of its own (core intervals, not only the
 * mixed ones at changes of code): else g holds the only pure behaviour
 * of its code, one or two intervals an instance, and the mixed intervals
 * belong with it. */
static int excursion(const sl_behave *b, const group *g, const group *to)
{
	size_t nf = b->nf, runs = 0;
	int own = 0;
	for (size_t k = 0; k < nf; k++)
		own |= to->clo[k] <= to->chi[k];
	if (!own)
		return 0;
	double *m = sl_xcalloc(2 * nf, sizeof *m), *c = m + nf;
	int ok = 1;
	for (size_t t = g->first, u; ok && t <= g->last; t = u + 1) {
		u = t;
		if (sl_behave_final(b, b->log_id[t]) != g->id)
			continue;
		while (u + 1 < b->n_seen && sl_behave_final(b, b->log_id[u + 1]) == g->id)
			u++;
		if (!t || u + 1 >= b->n_seen)
			continue;
		memset(m, 0, 2 * nf * sizeof *m);
		for (size_t i = t; i <= u; i++)
			for (size_t k = 0; k < nf; k++)
				if (isfinite(b->log_x[i * nf + k]))
					m[k] += b->log_x[i * nf + k], c[k]++;
		for (size_t k = 0; k < nf; k++)
			m[k] = c[k] ? m[k] / c[k] : NAN;
		/* the interval before: if it is the first after a change of
		 * code (a mix of two phases), the one before it */
		size_t p = t - 1 - (t > 1 && b->log_first[t - 1]);
		double at;
		ok = seg_dist(b, &b->log_x[p * nf], &b->log_x[(u + 1) * nf], m, &at) > b->thr / 2;
		runs++;
	}
	free(m);
	return ok && runs >= EXCURSION_RUNS;
}

/* Whether the t-th interval joined a group later merged as a transition
 * (on its way to the group it ends in): a transition's intervals are not
 * that group's behaviour. */
static int in_transition(const sl_behave *b, size_t t)
{
	for (uint32_t id = b->log_id[t]; id < b->n_g && b->parent[id] != id; id = b->parent[id])
		if (b->g[id].transition)
			return 1;
	return 0;
}

/* One run of a code phase (from one change of code to the next) holding
 * core intervals of a group (not the first after the change nor the last
 * before the next, either of which may hold the boundary), its own (not
 * those of a transition merged into it): per feature the count, sum and
 * sum of squares of those intervals; the log span [t0, t1] of the run;
 * `key`, the mean of the feature the runs are sorted on. */
typedef struct brun {
	size_t t0, t1;
	double *cnt, *sum, *sq;
	double key;
	size_t pos; /* its place among the runs in log order */
} brun;

static int brun_key(const void *a, const void *b)
{
	double x = ((const brun *)a)->key, y = ((const brun *)b)->key;
	return (x > y) - (x < y);
}

/* The runs of its code phase in which group g has core intervals with a
 * CPI, in log order; their sums live in *blk (the caller frees r, *blk). */
static brun *group_runs(const sl_behave *b, uint32_t g, size_t *n_out, double **blk)
{
	size_t nf = b->nf, n = 0;
	brun *r = sl_xcalloc(b->n_seen + 1, sizeof *r);
	*blk = sl_xcalloc(3 * nf * (b->n_seen + 1), sizeof **blk);
	for (size_t t0 = 0, t1; t0 < b->n_seen; t0 = t1 + 1) {
		for (t1 = t0; t1 + 1 < b->n_seen && !b->log_first[t1 + 1]; t1++)
			;
		brun *u = &r[n];
		*u = (brun){.t0 = t0, .t1 = t1, .cnt = *blk + 3 * nf * n};
		u->sum = u->cnt + nf;
		u->sq = u->sum + nf;
		memset(u->cnt, 0, 3 * nf * sizeof *u->cnt); /* a run left out before */
		for (size_t t = t0; t <= t1; t++) {
			if (!core(b, t) || sl_behave_final(b, b->log_id[t]) != g ||
			    in_transition(b, t))
				continue;
			for (size_t k = 0; k < nf; k++) {
				double x = b->log_x[t * nf + k];
				if (isfinite(x))
					u->cnt[k]++, u->sum[k] += x, u->sq[k] += x * x;
			}
		}
		n += u->cnt[0] > 0;
	}
	*n_out = n;
	return r;
}

/* The pooled standard deviation of two samples given each one's count,
 * mean and sum of squares: what split_two and split_stage measure the
 * gap between two sides in. */
static double pooled_sd(double na, double ma, double qa, double nb, double mb, double qb)
{
	double ss = qa - na * ma * ma + qb - nb * mb * mb;
	return sqrt(SL_MAX(ss, 0) / (na + nb - 2));
}

/* The best split of g's runs in two (runs sorted by one feature's mean, cut
 * once): the one whose two sides lie the most pooled standard deviations
 * apart (over their intervals) in some feature, each side at least two runs
 * and 2 SL_BEHAVE_MIN_RUN intervals.  Returns that separation (0 if no
 * split is allowed), *gap the widest difference of the two sides' means,
 * side[i] (runs in log order) 1 for the runs of the side cut off. */
static double best_split(const sl_behave *b, brun *r, size_t n, double *gap, unsigned char *side)
{
	size_t nf = b->nf;
	double best = 0;
	brun *s = sl_xcalloc(n + 1, sizeof *s);
	double *acc = sl_xcalloc(6 * nf, sizeof *acc);
	for (size_t k = 0; k < nf; k++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (r[i].cnt[k] > 0) {
				s[m] = r[i];
				s[m].key = r[i].sum[k] / r[i].cnt[k];
				s[m++].pos = i;
			}
		qsort(s, m, sizeof *s, brun_key);
		for (size_t c = 2; c + 2 <= m; c++) {
			/* side A: s[0..c), side B: s[c..m) */
			memset(acc, 0, 6 * nf * sizeof *acc);
			for (size_t i = 0; i < m; i++)
				for (size_t j = 0; j < nf; j++) {
					double *a = acc + 6 * j + 3 * (i >= c);
					a[0] += s[i].cnt[j], a[1] += s[i].sum[j], a[2] += s[i].sq[j];
				}
			if (acc[0] < 2 * SL_BEHAVE_MIN_RUN || acc[3] < 2 * SL_BEHAVE_MIN_RUN)
				continue;
			double f = 0, d = 0;
			for (size_t j = 0; j < nf; j++) {
				double *a = acc + 6 * j, *q = a + 3;
				if (a[0] < 2 || q[0] < 2)
					continue;
				double ma = a[1] / a[0], mq = q[1] / q[0];
				double sp = pooled_sd(a[0], ma, a[2], q[0], mq, q[2]);
				f = SL_MAX(f, sp > 0 ? fabs(ma - mq) / sp : HUGE_VAL);
				d = SL_MAX(d, fabs(ma - mq));
			}
			if (f > best) {
				best = f, *gap = d;
				memset(side, 0, n);
				for (size_t i = c; i < m; i++)
					side[s[i].pos] = 1;
			}
		}
	}
	free(s);
	free(acc);
	return best;
}

/* How many standard deviations more changes of side the runs in log order
 * make than a random order of them would (the Wald-Wolfowitz runs test):
 * two behaviours a program takes turns with alternate, a drift moves
 * from one side to the other and stays. */
static double alternation(const unsigned char *side, size_t n)
{
	double na = 0, nb = 0, sw = 0;
	for (size_t i = 0; i < n; i++) {
		na += !side[i], nb += side[i];
		sw += i && side[i] != side[i - 1];
	}
	double m = na + nb, e = 2 * na * nb / m;
	double v = 2 * na * nb * (2 * na * nb - m) / (m * m * (m - 1));
	return v > 0 ? (sw - e) / sqrt(v) : 0;
}

/* Whether a and g take turns by run of their code phase more regularly
 * than chance (alternation() at least SL_BEHAVE_ALTERNATION): in
 * log order, the runs (from one change of code to the next) that hold
 * either, each on the side of the one with more of its intervals, each
 * side EXCURSION_RUNS runs or more (what a behaviour must be met in to
 * keep a phase of its own).  A drift back and forth moves from one side
 * to the other and stays for a while; one code run in turn on two data
 * sets (a tensor's modes, one after the other in every iteration) changes
 * side at almost every run. */
static int take_turns(const sl_behave *b, const group *a, const group *g)
{
	unsigned char *side = sl_xcalloc(b->n_seen + 1, 1);
	size_t n = 0, na = 0, ng = 0, on_g = 0;
	for (size_t t = 0; t <= b->n_seen; t++) {
		if (t == b->n_seen || b->log_first[t]) {
			if (na || ng)
				on_g += side[n++] = ng > na;
			na = ng = 0;
			if (t == b->n_seen)
				break;
		}
		uint32_t f = sl_behave_final(b, b->log_id[t]);
		na += f == a->id;
		ng += f == g->id;
	}
	int turns = on_g >= EXCURSION_RUNS && n - on_g >= EXCURSION_RUNS &&
		    alternation(side, n) >= SL_BEHAVE_ALTERNATION;
	free(side);
	return turns;
}

/* Two behaviours of one code closer than the threshold: a group whose
 * runs of its code phase split in two sides that lie SL_BEHAVE_SEPARATION
 * pooled standard deviations apart in some feature, more than half the
 * threshold apart (what merge_close would not merge again), and that take
 * turns (alternation() at least SL_BEHAVE_ALTERNATION), or that lie
 * SL_BEHAVE_BLOCK_SEPARATION apart in whatever order they come, is split;
 * so is one whose sides lie closer than half the threshold but take turns
 * too regularly for chance (alternation() at least
 * SL_BEHAVE_STRONG_ALTERNATION: one code run on two inputs in turn, each
 * tight, as a bundler's parse of its own and its vendored modules), its
 * separation finite (a feature constant on both sides, a count that is
 * always 0, tells nothing however regular the turns):
 * the side cut off becomes a new group of the code phase, all its
 * intervals in those runs with it.  A drift spreads its runs over the
 * range and moves across it in order; two behaviours sit in two tight
 * clusters and alternate, or come in blocks (the same code on one data
 * set, then on another) with an empty gap between them wider than a
 * drift's steps leave. */
static void split_two(sl_behave *b)
{
	size_t n_old = b->n_g;
	for (size_t j = 0; j < n_old; j++) {
		if (!b->g[j].alive)
			continue;
		size_t n;
		double *blk, gap = 0;
		brun *r = group_runs(b, (uint32_t)j, &n, &blk);
		unsigned char *side = sl_xcalloc(n + 1, 1);
		double sep = n >= 4 ? best_split(b, r, n, &gap, side) : 0;
		double alt = alternation(side, n);
		if (sep >= SL_BEHAVE_SEPARATION &&
		    (gap > b->thr / 2 || (alt >= SL_BEHAVE_STRONG_ALTERNATION && isfinite(sep))) &&
		    (alt >= SL_BEHAVE_ALTERNATION || sep >= SL_BEHAVE_BLOCK_SEPARATION)) {
			group *h = new_group(b, b->g[j].code, (uint32_t)j);
			uint32_t id = h->id;
			for (size_t i = 0; i < n; i++) {
				if (!side[i])
					continue;
				for (size_t t = r[i].t0; t <= r[i].t1; t++)
					if (sl_behave_final(b, b->log_id[t]) == j) {
						b->log_id[t] = id;
						h->first = SL_MIN(h->first, t);
						h->last = SL_MAX(h->last, t);
						h->n++;
					}
				h->runs++;
			}
		}
		free(side);
		free(blk);
		free(r);
	}
}

/* Whether a opens every run of their code phase (from one change of code
 * to the next) in which g has a core interval: some interval of a, the
 * run's first (a mix of the phase before and this one) included, comes
 * before g's first in that run.  A stage that follows the older
 * behaviour in each run of its code may have nothing of the older one in
 * the run's core: the run opens with a mixed interval, which joins the
 * older group, and ramps straight into the stage (ad-auction's CVR
 * forest after two intervals of the CTR forest). */
static int opens(const sl_behave *b, const group *a, const group *g)
{
	int seen_a = 0, seen_g = 0, opened = 0;
	for (size_t t = 0; t < b->n_seen; t++) {
		if (b->log_first[t])
			seen_a = seen_g = 0;
		uint32_t f = sl_behave_final(b, b->log_id[t]);
		if (f == g->id && !seen_g)
			seen_g = 1, opened = seen_a;
		if (f == g->id && core(b, t) && !opened)
			return 0;
		seen_a |= f == a->id;
	}
	return 1;
}

/* the stretches of a second behaviour inside the runs of its code that
 * split_stage() reads: this many consecutive intervals or more */
#define STAGE_STRETCH 3

/* The best cut of g's intervals ts[0..n) (in log order) in one feature:
 * the one whose two sides lie the most pooled standard deviations apart
 * in it, each side at least 2 SL_BEHAVE_MIN_RUN intervals, a finite
 * separation (a feature constant on a side tells nothing).  Returns the
 * separation (0 if none), *k the feature, *cut the value between the
 * sides, *gap the difference of their means, *upper whether the side
 * above the cut is the smaller; v is scratch for n values. */
static double best_cut(const sl_behave *b, const size_t *ts, size_t n, double *v, size_t *k,
		       double *cut, double *gap, int *upper)
{
	size_t nf = b->nf;
	double best = 0;
	for (size_t j = 0; j < nf; j++) {
		size_t m = 0;
		double S = 0, Q = 0, s = 0, q = 0;
		for (size_t i = 0; i < n; i++) {
			double x = b->log_x[ts[i] * nf + j];
			if (isfinite(x))
				v[m++] = x, S += x, Q += x * x;
		}
		gsl_sort(v, 1, m);
		for (size_t c = 1; c + 1 <= m; c++) {
			s += v[c - 1], q += v[c - 1] * v[c - 1];
			if (c < 2 * SL_BEHAVE_MIN_RUN || m - c < 2 * SL_BEHAVE_MIN_RUN || v[c - 1] == v[c])
				continue;
			double ma = s / (double)c, mb = (S - s) / (double)(m - c);
			double sp = pooled_sd((double)c, ma, q, (double)(m - c), mb, Q - q);
			if (sp > 0 && (mb - ma) / sp > best) {
				best = (mb - ma) / sp, *k = j, *gap = mb - ma;
				*cut = (v[c - 1] + v[c]) / 2;
				*upper = 2 * (m - c) <= m;
			}
		}
	}
	return best;
}

/* Whether the smaller side of a cut (minor[i] for ts[i]) is a stage of
 * the runs of g's code: it comes with the other side in at least half of
 * the runs g has core intervals in, and holds flat in stretches --
 * EXCURSION_RUNS or more of STAGE_STRETCH consecutive intervals or more,
 * the median of them moving (least-squares slope over the stretch) by
 * no more than SL_BEHAVE_STAGE_FLAT of the gap between the sides.  A
 * drift moves from one side to the other once, or in blocks, not in
 * most runs; a ramp at the edges of the runs comes in one or two
 * intervals, or moves across the gap; noise seldom keeps to the far
 * side for three intervals in a row, run after run. */
static int stage_of_runs(const sl_behave *b, const size_t *ts, const unsigned char *minor,
			 size_t n, size_t k, double gap)
{
	size_t nf = b->nf, runs = 0, both = 0, n_tr = 0, run = 0;
	size_t *rid = sl_xcalloc(n + 1, sizeof *rid);
	double *tr = sl_xcalloc(n + 1, sizeof *tr);
	for (size_t t = 0, i = 0; t < b->n_seen && i < n; t++) {
		run += t && b->log_first[t];
		if (t == ts[i])
			rid[i++] = run;
	}
	int has[2] = {0, 0};
	for (size_t i = 0, len = 0; i < n; i++) {
		has[minor[i]] = 1;
		if (i + 1 == n || rid[i + 1] != rid[i]) {
			runs++, both += has[0] && has[1];
			has[0] = has[1] = 0;
		}
		/* a stretch of the smaller side: consecutive intervals */
		len = !minor[i] ? 0 : len && ts[i] == ts[i - 1] + 1 ? len + 1 : 1;
		if (!len || (i + 1 < n && minor[i + 1] && ts[i + 1] == ts[i] + 1) ||
		    len < STAGE_STRETCH)
			continue;
		double xb = 0, ib = (double)(len - 1) / 2, sxy = 0, sxx = 0;
		for (size_t u = i + 1 - len; u <= i; u++)
			xb += b->log_x[ts[u] * nf + k] / (double)len;
		for (size_t u = i + 1 - len; u <= i; u++) {
			double d = (double)(u - (i + 1 - len)) - ib;
			sxy += d * (b->log_x[ts[u] * nf + k] - xb), sxx += d * d;
		}
		tr[n_tr++] = fabs(sxy / sxx * (double)(len - 1)) / gap;
	}
	gsl_sort(tr, 1, n_tr);
	int ok = n_tr >= EXCURSION_RUNS && tr[n_tr / 2] <= SL_BEHAVE_STAGE_FLAT && 2 * both >= runs;
	free(tr);
	free(rid);
	return ok;
}

/* A second behaviour of one code closer than the threshold, met as a
 * stage inside the runs of its code (a simulation loop's synchronous
 * bursts after each recording, the same code at the top of the range
 * the loop drifts over): the runs hold both behaviours, so split_two's
 * cut of whole runs cannot part them; a cut of the group's own core
 * intervals in one feature, SL_BEHAVE_STAGE_SEPARATION pooled standard
 * deviations apart, whose smaller side is a stage of the runs
 * (stage_of_runs), makes that side a new group of the code phase: every
 * interval of the group on its side of the cut. */
static void split_stage(sl_behave *b)
{
	size_t nf = b->nf, n_old = b->n_g;
	size_t *ts = sl_xcalloc(b->n_seen + 1, sizeof *ts);
	double *v = sl_xcalloc(b->n_seen + 1, sizeof *v);
	unsigned char *minor = sl_xcalloc(b->n_seen + 1, 1);
	for (size_t j = 0; j < n_old; j++) {
		size_t n = 0, k = 0;
		double cut = 0, gap = 0;
		int upper = 0;
		for (size_t t = 0; t < b->n_seen && b->g[j].alive; t++)
			if (core(b, t) && b->log_fin[t] == j && !in_transition(b, t))
				ts[n++] = t;
		if (n < 4 * SL_BEHAVE_MIN_RUN ||
		    best_cut(b, ts, n, v, &k, &cut, &gap, &upper) < SL_BEHAVE_STAGE_SEPARATION)
			continue;
		for (size_t i = 0; i < n; i++)
			minor[i] = (b->log_x[ts[i] * nf + k] > cut) == upper;
		if (!stage_of_runs(b, ts, minor, n, k, gap))
			continue;
		group *h = new_group(b, b->g[j].code, (uint32_t)j);
		uint32_t id = h->id;
		for (size_t t = 0; t < b->n_seen; t++) {
			double x = b->log_x[t * nf + k];
			if (b->log_fin[t] != j || !isfinite(x) || (x > cut) != upper)
				continue;
			b->log_fin[t] = id;
			h->first = SL_MIN(h->first, t);
			h->last = SL_MAX(h->last, t);
			h->n++;
			h->runs += !t || b->log_first[t] || b->log_fin[t - 1] != id;
		}
	}
	free(minor);
	free(v);
	free(ts);
}

void sl_behave_finish(sl_behave *b)
{
	core_ranges(b);
	/* which groups are transient, and where each goes, is decided before
	 * any is merged: a transition's intervals merged into a lasting group
	 * add their runs to its own (one run each, at the edges of its runs),
	 * which would make it look transient in turn and merge it into
	 * another; and they would make a short behaviour of runs of its own
	 * (dns-resolver's cold-cache lookups, whose runs' mixed first
	 * intervals joined a transition's group) come with that group */
	unsigned char *tr = sl_xcalloc(b->n_g + 1, 1);
	group **into = sl_xcalloc(b->n_g + 1, sizeof *into);
	for (size_t j = 0; j < b->n_g; j++)
		tr[j] = b->g[j].alive && transient(b, &b->g[j]);
	for (size_t j = 0; j < b->n_g; j++) {
		group *g = &b->g[j];
		if (!g->alive || !tr[j])
			continue;
		group *to = NULL;
		double bd = HUGE_VAL;
		for (size_t i = 0; i < b->n_g; i++) {
			group *h = &b->g[i];
			if (h == g || !h->alive || h->code != g->code || tr[i])
				continue;
			double d = dist(b, h->mu, g->mu);
			if (d < bd)
				bd = d, to = h;
		}
		if (to && comes_with(b, g, to) && !excursion(b, g, to))
			into[j] = to;
	}
	for (size_t j = 0; j < b->n_g; j++)
		if (into[j])
			merge_as(b, into[j], &b->g[j], 1);
	free(into);
	free(tr);
	for (size_t j = 0; j < b->n_g; j++) {
		group *g = &b->g[j], *to;
		if (g->alive && younger(b, g) && (to = ramp_into(b, g)))
			merge_as(b, to, g, 1);
	}
	successors(b);
	/* Turn-takers: two groups of one code phase whose ranges overlap in
	 * every feature, or, if both last (runs of SL_BEHAVE_MIN_RUN or more
	 * on average), whose core ranges (their own intervals, not the
	 * transitions merged into them) lie within half the threshold of each
	 * other in every feature -- what counts as alike for converging
	 * groups -- and that come together in fewer than half of the runs
	 * either comes in are one behaviour that drifts over more than the
	 * threshold and back, each group holding a stretch of it; two
	 * behaviours of one code have a wider gap between their ranges or
	 * come in the same runs (one after the other: frontier then edges).
	 * So a younger group that comes with the older one in every run of
	 * its own, in EXCURSION_RUNS runs or more, is a stage of their code's
	 * runs and no turn-taker, however many runs the older one has alone
	 * (a tree walk that goes on past the LLC in the later steps of an
	 * N-body run); so is one whose range leaves a gap to the older
	 * one's, however small, and whose every run the older one opens
	 * (opens(): its only interval in the run may be the mixed first).
	 * A transition merged into a group may reach across that gap
	 * (server-mix's compress ramp), so it does not count; nor does a
	 * group of a transition's intervals (a code phase's first intervals,
	 * one a run) take turns with the phase it leads into. */
	for (size_t j = 0; j < b->n_g; j++)
		for (size_t i = 0; i < j && b->g[j].alive; i++) {
			group *a = &b->g[i], *g = &b->g[j];
			size_t in_a, either, both;
			if (!a->alive || a->code != g->code)
				continue;
			if (!overlap(b, a, g) &&
			    (!lasting(a) || !lasting(g) || range_gap(b, a, g) > b->thr / 2))
				continue;
			run_counts(b, a, g, 0, &in_a, &either, &both);
			if (2 * both >= either)
				continue; /* they come together: no turn-takers */
			size_t in_g = either - in_a + both; /* runs g comes in */
			int stage = (both == in_g || (!overlap(b, a, g) && opens(b, a, g))) &&
				    in_g >= EXCURSION_RUNS;
			if (!stage && !take_turns(b, a, g))
				merge(b, a, g);
		}
	split_two(b);
	reassign(b);
	split_stage(b);
}
