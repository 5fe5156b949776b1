/*
 * A dithered profile: one run that measured every Nth interval at a second
 * frequency f2 (`sleuth simulate --dither`, replayed by `sleuth run`).  The
 * models predict from f0, the run's frequency, so they see the profile at
 * f0 only: a dithered interval's cycles, time and energy at f0, and its
 * events that count cycles (the stall, offcore and miss-stall cycles of
 * the machine's roles), were never measured and are filled the way an
 * unmeasured event is -- from the nearest measured intervals of its
 * instance, then its phase, then the program (models/interp.c) -- while
 * its counts of what the program does (instructions, branches, misses,
 * uops) stand: they do not depend on the clock.  The cycles at f0 are the
 * interpolation's too, through a column of its own in the view: the f0
 * intervals' cycles, missing in the dithered ones.  What the dithered
 * intervals measured at f2 is then what a second run would have measured
 * (models/refine.c takes it from here, docs/models.md "Dithering"), spread
 * over the whole run instead of its first tenth.
 *
 * The fill has levels (docs/models.md, "Dithering"): an interval between
 * two f0 intervals of its instance takes their mean rates (fill_between);
 * any other is "alone": its events that count the memory's time carried
 * from what it counted at f2 (carry_clock), the other cycle-counting
 * events from the view, scaled by its own LLC misses (scale_by_misses),
 * and its cycles at f0 the time model inverted on what it measured at f2
 * (invert) -- as is one whose clock-free behaviour is unlike its
 * instance's (mark_alone).  An alone interval's ratio corrects itself
 * only.  Whatever its fill, a dithered interval's prediction at every
 * frequency is then held to its own measurement at f2 (sl_dither_cycles).
 *
 * The model's profile is a copy owned here (the intervals and counts; the
 * rest is the caller's), so that the caller's profile stays as read.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/model.h"
#include "predict_int.h"

/* The view's name for the f0 cycles column: no PMU event has spaces. */
#define F0_CYCLES "(cycles at the profiled frequency)"

/* The bisection that inverts the time model: steps. */
#define DITHER_INVERT_STEPS 60

struct sl_dither {
	sl_profile f0;     /* the model's profile: shares the caller's strings */
	const sl_profile *run; /* the caller's: the dithered intervals' counts at f2 */
	double f2_ghz;
	uint64_t *cyc2;    /* n_intervals: cycles measured at f2, 0: an f0 interval */
	uint8_t *alone;    /* n_intervals: a dithered interval unlike its instance */
	int *cyc_col;      /* per column of f0: 1 if it counts cycles */
	double noise;      /* the relative error of fill_between's cycles, its
			      standard deviation over the f0 intervals */
	size_t n_dithered;
};

void sl_dither_free(struct sl_dither *d)
{
	if (!d)
		return;
	free(d->f0.iv);
	free(d->f0.counts);
	free(d->f0.events);
	free(d->cyc2);
	free(d->alone);
	free(d->cyc_col);
	free(d);
}

/* The one frequency of the dithered intervals; -1 when there are two. */
static int dither_freq(const sl_profile *p, double *f2, size_t *n)
{
	*f2 = 0;
	*n = 0;
	for (size_t i = 0; i < p->n_intervals; i++) {
		if (!sl_profile_dithered(p, i))
			continue;
		if (*n && fabs(p->ghz[i] - *f2) >= SL_SAME_GHZ) {
			sl_error_set("the profile's intervals ran at %.2f, %.2f and %.2f GHz "
				     "(a scheduled run?); the models take the run's frequency "
				     "and at most one other: profile at one fixed P-state, or "
				     "with one --dither N:FREQ", p->freq_ghz, *f2, p->ghz[i]);
			return -1;
		}
		*f2 = p->ghz[i];
		(*n)++;
	}
	return 0;
}

int sl_dither_check(const sl_profile *p)
{
	double f2;
	size_t nd;
	if (dither_freq(p, &f2, &nd) < 0)
		return -1;
	if (nd && nd == p->n_intervals) {
		sl_error_set("every interval of the profile ran at %.2f GHz, none at its "
			     "frequency %.2f GHz; record with --dither N:FREQ, N >= 2", f2,
			     p->freq_ghz);
		return -1;
	}
	/* dithering moves one interval in N >= 2: two neighbours off the run's
	 * frequency are a scheduled run, whose phases at the other P-state
	 * have no interval at f0 to fill theirs from */
	for (size_t i = 1; i < p->n_intervals; i++)
		if (sl_profile_dithered(p, i - 1) && sl_profile_dithered(p, i)) {
			sl_error_set("intervals %zu and %zu both ran at %.2f GHz, the run at "
				     "%.2f GHz (a scheduled run?); the models take a run "
				     "dithered one interval in N: profile at one fixed P-state, "
				     "or with one --dither N:FREQ", i - 1, i, f2, p->freq_ghz);
			return -1;
		}
	return 0;
}

int sl_dither_begin(sl_model *md, const sl_profile *p, const char ***evs, size_t *n,
		    size_t *cap)
{
	double f2;
	size_t nd;
	/* (the shape was checked with the profile, sl_dither_check) */
	if (dither_freq(p, &f2, &nd) < 0)
		return -1;
	if (!nd)
		return 0;
	struct sl_dither *d = sl_xcalloc(1, sizeof *d);
	size_t ne = p->n_events + 1, ni = p->n_intervals;
	d->f2_ghz = f2;
	d->run = p;
	d->n_dithered = nd;
	d->f0 = *p;
	d->f0.ghz = NULL;
	d->f0.n_events = ne;
	d->f0.events = sl_xcalloc(ne, sizeof *d->f0.events);
	memcpy(d->f0.events, p->events, p->n_events * sizeof *p->events);
	d->f0.events[ne - 1] = (char *)F0_CYCLES;
	d->f0.iv = sl_xmalloc(ni * sizeof *d->f0.iv);
	memcpy(d->f0.iv, p->iv, ni * sizeof *p->iv);
	d->f0.counts = sl_xmalloc(ni * ne * sizeof *d->f0.counts);
	d->cyc2 = sl_xcalloc(ni, sizeof *d->cyc2);
	int *cyc_col = sl_xcalloc(ne, sizeof *cyc_col);
	for (size_t k = 0; k < p->n_events; k++)
		cyc_col[k] = sl_machine_counts_cycles(md->mach, p->events[k]);
	for (size_t i = 0; i < ni; i++) {
		uint64_t *row = d->f0.counts + i * ne;
		int dith = sl_profile_dithered(p, i);
		for (size_t k = 0; k < p->n_events; k++)
			row[k] = dith && cyc_col[k] ? SL_MISSING : sl_prof_count(p, i, k);
		row[ne - 1] = dith || !p->iv[i].cycles ? SL_MISSING : p->iv[i].cycles;
		if (dith) {
			/* no behaviour at f0 until filled (sl_dither_end) */
			d->cyc2[i] = p->iv[i].cycles;
			d->f0.iv[i].cycles = 0;
			d->f0.iv[i].energy_j = NAN;
		}
	}
	d->cyc_col = cyc_col;
	md->dither = d;
	md->prof = &d->f0;
	md->k_c0 = sl_model_add_event(evs, n, cap, F0_CYCLES);
	return 0;
}

/* Which dithered intervals are unlike their instance (d->alone): one
 * whose behaviour on the events that do not depend on the clock (the
 * view's pinned ones: log(1 + rate per 1000 instructions)) is farther
 * than SL_LIKE_DIST (Euclidean) from the mean of its instance's
 * intervals at f0 (a phase's first interval, handing over from the phase
 * before), and one whose instance has no interval at f0: the
 * refinement's like-behaviour distance, not tuned again.  Features that
 * are NAN in a dithered interval (events that count cycles) are left out
 * of both. */
static void mark_alone(const sl_model *md, struct sl_dither *d)
{
	const sl_interp *v = &md->view;
	const sl_profile *p = &d->f0;
	size_t nf = v->n_feat, ni = v->n_instances;
	double *mean = sl_xcalloc((ni + 1) * nf, sizeof *mean), *x = sl_xcalloc(nf, sizeof *x);
	size_t *cnt = sl_xcalloc(ni + 1, sizeof *cnt);
	for (size_t i = 0; i < p->n_intervals; i++) {
		if (d->cyc2[i] || !sl_interp_features(v, i, x))
			continue;
		size_t j = v->inst_of[i], ok = 1;
		for (size_t k = 1; k < nf; k++)
			ok &= !isnan(x[k]);
		for (size_t k = 1; ok && k < nf; k++)
			mean[j * nf + k] += x[k];
		cnt[j] += ok;
	}
	d->alone = sl_xcalloc(p->n_intervals, 1);
	for (size_t i = 0; i < p->n_intervals; i++) {
		size_t j = v->inst_of[i];
		if (!d->cyc2[i])
			continue;
		/* an instance without f0 intervals has nothing to be like */
		d->alone[i] = 1;
		if (!cnt[j] || !sl_interp_features(v, i, x))
			continue;
		double d2 = 0;
		for (size_t k = 1; k < nf; k++)
			if (!isnan(x[k])) {
				double e = x[k] - mean[j * nf + k] / (double)cnt[j];
				d2 += e * e;
			}
		d->alone[i] = d2 > SL_LIKE_DIST * SL_LIKE_DIST;
	}
	free(mean);
	free(x);
	free(cnt);
}

/* A count made from a model's double: 0 below zero (a carry down in
 * frequency can take more than there was) or NaN, at most 2^63, never
 * SL_MISSING. */
static uint64_t to_count(double x)
{
	if (!(x > 0))
		return 0;
	return x >= 0x1p63 ? (uint64_t)1 << 63 : (uint64_t)llround(x);
}

/*
 * An alone interval's cycle-counting events, filled by the view at its
 * instance's (or phase's) rate per instruction, follow its own misses
 * instead: scaled by its LLC misses' rate (counted: they do not depend on
 * the clock) over the rate the fill came with, both on the base the view
 * keeps the misses' rates on.  A phase's first interval often misses half
 * as often as the rest, and stalls on misses half as long.  An event
 * whose rates the view keeps per a pinned event follows the interval's
 * own count of that event already, and is left as filled.
 */
static void scale_by_misses(const sl_model *md, struct sl_dither *d, size_t i)
{
	const sl_interp *v = &md->view;
	sl_profile *p = &d->f0;
	if (md->k_llc < 0 || sl_interp_src(v, i, (size_t)md->k_llc) != SL_SRC_MEASURED)
		return;
	/* the misses' rate on the base the view keeps their rates on */
	double base = sl_interp_fill_base(v, i, (size_t)md->k_llc);
	double own = sl_interp_count(v, i, (size_t)md->k_llc) / base;
	double fill = sl_interp_fill_rate(v, i, (size_t)md->k_llc);
	if (!(own >= 0 && fill > 0 && base > 0 && isfinite(own)))
		return;
	uint64_t *row = p->counts + i * p->n_events;
	for (size_t k = 0; k < v->n_events; k++) {
		int col = v->col[k];
		/* an event whose rates are per a pinned event already follows
		 * the interval's own count of it */
		if (col < 0 || !d->cyc_col[col] || row[col] != SL_MISSING ||
		    (v->norm && v->norm[k] >= 0))
			continue;
		double x = sl_interp_count(v, i, k);
		if (isfinite(x))
			row[col] = to_count(x * own / fill);
	}
}

/* The count at f2 of view event k in dithered interval i; NAN when the
 * run did not measure it there. */
static double at_f2(const sl_model *md, const struct sl_dither *d, size_t i, int k)
{
	int col = k >= 0 ? md->view.col[k] : -1;
	uint64_t c = col >= 0 ? sl_prof_count(d->run, i, (size_t)col) : SL_MISSING;
	return c == SL_MISSING ? NAN : (double)c;
}

/*
 * An alone interval's events that count the memory's time, measured at
 * f2, carried to f0 instead of filled from its instance: the fill gives
 * it its instance's stalls per instruction, and its cycles at f0 inverted
 * through them miss its own (soplex-like: 10% at f0, 6% at 2.13 GHz).
 * Misses outstanding (the offcore cycles and occupancy) and the memory
 * stalls are time: times f0/f2 and the memory latency's change.  The
 * cycles stalled on misses at f2 gain what the offcore cycles gain (the
 * work the ROB does under a miss is cycles, the same at either clock);
 * the stall cycles what their off-chip share, as the stall model reads it
 * (at most the misses times the memory's latency), gains.
 */
static void carry_clock(const sl_model *md, struct sl_dither *d, size_t i)
{
	const sl_machine *m = md->mach;
	const int *col = md->view.col;
	double k = md->f0_ghz / d->f2_ghz * sl_machine_mem_latency(m, md->f0_ghz) /
		   sl_machine_mem_latency(m, d->f2_ghz);
	double o2 = at_f2(md, d, i, md->k_ocyc), m2 = at_f2(md, d, i, md->k_mst);
	double q2 = at_f2(md, d, i, md->k_occ), ms2 = at_f2(md, d, i, md->k_memstall);
	double s2 = at_f2(md, d, i, md->k_stall);
	double x = md->k_llc >= 0 ? sl_interp_count(&md->view, i, (size_t)md->k_llc) : NAN;
	uint64_t *row = d->f0.counts + i * d->f0.n_events;
	if (!isnan(q2))
		row[col[md->k_occ]] = to_count(q2 * k);
	if (!isnan(ms2))
		row[col[md->k_memstall]] = to_count(ms2 * k);
	if (!isnan(s2) && isfinite(x) && md->k_memstall < 0)
		row[col[md->k_stall]] =
			to_count(s2 + SL_MIN(s2, x * md->mem_ns * d->f2_ghz) * (k - 1));
	if (isnan(o2))
		return;
	row[col[md->k_ocyc]] = to_count(o2 * k);
	if (!isnan(m2))
		row[col[md->k_mst]] = to_count(m2 + o2 * (k - 1));
}

/* The cycles at f0 of dithered interval i with which the time model
 * predicts what it measured at f2: the model inverted (its cycles at f2
 * grow with those at f0), by bisection. */
static double invert(const sl_model *md, struct sl_dither *d, size_t i)
{
	double meas = (double)d->cyc2[i], lo = 0;
	double hi = 2 * meas * SL_MAX(1.0, md->f0_ghz / d->f2_ghz);
	for (int it = 0; it < DITHER_INVERT_STEPS; it++) {
		double mid = 0.5 * (lo + hi);
		d->f0.iv[i].cycles = to_count(mid);
		if (sl_model_cycles_par(md, i, d->f2_ghz, NAN) < meas)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* Whether interval j is at f0 in the instance of interval i. */
static int f0_beside(const struct sl_dither *d, size_t i, size_t j)
{
	return j < d->f0.n_intervals && !d->cyc2[j] && d->f0.iv[j].cycles &&
	       d->f0.iv[j].phase == d->f0.iv[i].phase;
}

/* Whether interval i lies between two intervals at f0 of its instance,
 * neither of them its instance's first or last (those hand over from or
 * to another phase). */
static int between_f0(const struct sl_dither *d, size_t i)
{
	const sl_prof_interval *iv = d->f0.iv;
	return i >= 2 && i + 2 < d->f0.n_intervals && f0_beside(d, i, i - 1) &&
	       f0_beside(d, i, i + 1) && iv[i - 2].phase == iv[i].phase &&
	       iv[i + 2].phase == iv[i].phase && iv[i - 1].instructions &&
	       iv[i + 1].instructions;
}

/* The cycles of interval i as the mean rate per instruction of the two
 * beside it. */
static double cycles_between(const sl_profile *p, size_t i)
{
	return 0.5 * (double)p->iv[i].instructions *
	       ((double)p->iv[i - 1].cycles / (double)p->iv[i - 1].instructions +
		(double)p->iv[i + 1].cycles / (double)p->iv[i + 1].instructions);
}

/* How well fill_between does where it can be checked: its relative error
 * on the cycles of every f0 interval it could fill, the standard
 * deviation.  It is the noise in a dithered interval's ratio that is the
 * fill's, not the model's (models/refine.c shrinks ratios by it). */
static double fill_noise(const struct sl_dither *d)
{
	double s2 = 0;
	size_t n = 0;
	for (size_t i = 0; i < d->f0.n_intervals; i++) {
		if (d->cyc2[i] || !d->f0.iv[i].cycles || !between_f0(d, i))
			continue;
		double e = cycles_between(&d->f0, i) / (double)d->f0.iv[i].cycles - 1;
		s2 += e * e;
		n++;
	}
	return n ? sqrt(s2 / (double)n) : NAN;
}

/*
 * The first level of the fill: a dithered interval between two intervals
 * at f0 of its own instance takes their mean rates per instruction of
 * the cycles and of each event that counts cycles (where both counted
 * it): a phase's behaviour drifts within an instance, and the intervals
 * on either side follow it closer than the instance's mean.  The rest is
 * left to the view (instance, then phase).
 */
static int fill_between(struct sl_dither *d, size_t i)
{
	sl_profile *p = &d->f0;
	if (!between_f0(d, i))
		return 0;
	double ins = (double)p->iv[i].instructions;
	double a = (double)p->iv[i - 1].instructions, b = (double)p->iv[i + 1].instructions;
	size_t ne = p->n_events;
	uint64_t *row = p->counts + i * ne;
	const uint64_t *ra = row - ne, *rb = row + ne;
	for (size_t k = 0; k + 1 < ne; k++)
		if (d->cyc_col[k] && ra[k] != SL_MISSING && rb[k] != SL_MISSING)
			row[k] = to_count(0.5 * ins * ((double)ra[k] / a + (double)rb[k] / b));
	p->iv[i].cycles = to_count(cycles_between(p, i));
	return 1;
}

int sl_dither_end(sl_model *md)
{
	struct sl_dither *d = md->dither;
	if (!d)
		return 0;
	const sl_interp *v = &md->view;
	uint8_t *between = sl_xcalloc(d->f0.n_intervals + 1, 1);
	d->noise = fill_noise(d);
	for (size_t i = 0; i < d->f0.n_intervals; i++) {
		if (!d->cyc2[i])
			continue;
		between[i] = fill_between(d, i);
		if (between[i])
			continue;
		double c = sl_interp_count(v, i, (size_t)md->k_c0);
		if (!(c > 0) || !isfinite(c)) {
			sl_error_set("no interval of the profile measured cycles at %.2f GHz "
				     "to fill its dithered ones from; record again", md->f0_ghz);
			free(between);
			return -1;
		}
		d->f0.iv[i].cycles = to_count(c);
	}
	/* an interval unlike its instance does not take its instance's CPI:
	 * its own measurement at f2, through the model, says more */
	mark_alone(md, d);
	for (size_t i = 0; i < d->f0.n_intervals; i++) {
		d->alone[i] = d->alone[i] || (d->cyc2[i] && !between[i]);
		if (d->alone[i]) {
			carry_clock(md, d, i);
			scale_by_misses(md, d, i);
			d->f0.iv[i].cycles = to_count(invert(md, d, i));
		}
		if (d->cyc2[i])
			d->f0.iv[i].time_s = (double)d->f0.iv[i].cycles / (md->f0_ghz * 1e9);
	}
	free(between);
	return 0;
}

/*
 * A dithered interval's prediction at every frequency follows its own
 * measurement at f2, carried by the model's frequency curve: c1 (the
 * model's cycles at f1, refined) times its cycles measured at f2 over the
 * model's at f2.  At f2 it is exact, and at f0 and between, the error of
 * its filled cycles at f0 -- a neighbour's CPI, not its own -- cancels;
 * what is left is the error of the model's curve, which the refinement
 * (its pooled ratio, models/refine.c) is for.
 */
double sl_dither_cycles(const sl_model *md, size_t i, double c1)
{
	const struct sl_dither *d = md->dither;
	if (!d->cyc2[i])
		return c1;
	double c2 = sl_model_cycles_refined(md, i, d->f2_ghz);
	return c2 > 0 ? c1 * (double)d->cyc2[i] / c2 : c1;
}

const uint64_t *sl_dither_measured(const sl_model *md, double *f2_ghz, size_t *n_dithered,
				   const uint8_t **alone, double *noise)
{
	const struct sl_dither *d = md->dither;
	if (!d)
		return NULL;
	*noise = d->noise;
	*f2_ghz = d->f2_ghz;
	*n_dithered = d->n_dithered;
	*alone = d->alone;
	return d->cyc2;
}
