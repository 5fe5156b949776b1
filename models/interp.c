/*
 * Phase-guided interpolation: with K counters and more events than K, each
 * interval measured only some events.  The others are filled from the
 * intervals most likely to behave alike: the measured intervals of the
 * same phase that behave most like the instance (the two nearest, found
 * among the measured ones close to it in time; an instance's own measured
 * intervals are among them when they are alike), then the phase that
 * behaves most like it among those that measured the event, then the
 * whole program.  "Behaves like" is judged on what every interval has:
 * CPI and the events counted in every interval (the pinned ones), in log
 * space as phase detection's behaviour split judges it.  A phase's
 * intervals are not all alike -- the ones where it hands over to another
 * phase, the ones whose data drifted -- and a phase mean would hand each
 * of them an average of the others; the nearest ones hand each the rates
 * of intervals like it.  A small phase that never held the event in its
 * counters borrows from its nearest neighbour phase instead of an average
 * over unlike phases -- nearest also in how branchy its code is, where
 * the profile counted the branch samples' event.  Rates are per
 * instruction so that intervals of unequal length average fairly -- or
 * per count of a pinned event that counts work (not cycles), when the
 * event's counts are steadier against it within phases: LLC misses per
 * LLC reference of the same code vary less between its intervals than
 * per instruction, and the interval's own reference count then scales
 * them -- as far as that count is like theirs: an instance whose count
 * of the pinned event per instruction is more than twice or under half
 * its sources' (a one-interval instance unlike the rest of its phase)
 * takes the geometric mean of the count per pinned event and the count
 * per instruction.  An event steadiest per instruction is hedged the
 * same way towards the pinned event nearly as steady for it, for a
 * whole instance and for one interval inside an instance (a rescan of
 * a cached list inside a scan reads a third of the DRAM lines, and
 * misses about as much less, as the scan's intervals).
 *
 * An interval that straddles a phase change ran part of the phase before
 * and part of the one after, and its detected phase is often one of
 * intervals like it (each straddle a mix in its own proportion), whose
 * other intervals hand it rates of other mixes.  A one-interval instance
 * that lies on the line between its two neighbours' behaviours takes the
 * mix of their rates for the events where the mix rests on nearer
 * evidence than its own value (the mix's fit, and the distance to their
 * evidence of the values a one-interval neighbour filled itself).
 *
 * Nothing per interval and event is stored: the view keeps, per instance
 * and event, the rate its unmeasured intervals take; sl_interp_count()
 * computes a value on access, so the view's memory follows the instances,
 * not the run's length (the search's scratch is freed after the build).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

#include "sleuth/common.h"
#include "sleuth/model.h"
#include "sleuth/phases.h"
#include "predict_int.h"

const char *sl_src_name(sl_src s)
{
	static const char *const names[SL_SRC_N] = {
		"measured", "instance", "phase", "program", "none", "similar", "mixed",
	};
	return (unsigned)s < SL_SRC_N ? names[s] : "?";
}

sl_src sl_src_by_rank(int rank)
{
	static const sl_src order[SL_SRC_N] = {
		SL_SRC_MEASURED, SL_SRC_INSTANCE, SL_SRC_PHASE,
		SL_SRC_SIMILAR,  SL_SRC_MIXED,    SL_SRC_PROGRAM, SL_SRC_NONE,
	};
	return rank >= 0 && rank < SL_SRC_N ? order[rank] : SL_SRC_N;
}

/* Running mean of per-instruction rates. */
typedef struct acc {
	double sum;
	uint64_t n;
} acc;

static void acc_add(acc *a, double r)
{
	a->sum += r;
	a->n++;
}

/* The profile's phase instances, and the map from interval to instance
 * that the interpolation needs. */
static void build_instances(sl_interp *v, const sl_profile *p)
{
	v->n_instances = sl_profile_instances(p, &v->inst);
	v->inst_of = sl_xmalloc(p->n_intervals * sizeof *v->inst_of);
	for (size_t j = 0; j < v->n_instances; j++) {
		const sl_instance *in = &v->inst[j];
		if (in->phase + 1 > v->n_phase_ids)
			v->n_phase_ids = in->phase + 1;
		for (size_t i = in->first; i < in->first + in->n; i++)
			v->inst_of[i] = (uint32_t)j;
	}
}

/* The mean rate of the nearest level (instance; its phase; the phase most
 * like its phase; program) that measured the event, and which level that
 * was. */
static double pick(const acc *inst, const acc *phase, const acc *similar, const acc *prog,
		   sl_src *src)
{
	if (inst->n) {
		*src = SL_SRC_INSTANCE;
		return inst->sum / (double)inst->n;
	}
	if (phase->n) {
		*src = SL_SRC_PHASE;
		return phase->sum / (double)phase->n;
	}
	if (similar && similar->n) {
		*src = SL_SRC_SIMILAR;
		return similar->sum / (double)similar->n;
	}
	if (prog->n) {
		*src = SL_SRC_PROGRAM;
		return prog->sum / (double)prog->n;
	}
	*src = SL_SRC_NONE;
	return NAN;
}

int sl_interp_features(const sl_interp *v, size_t i, double *x)
{
	const sl_profile *p = v->prof;
	return sl_behave_features(p->iv[i].cycles, p->iv[i].instructions,
				  p->counts + i * p->n_events, v->pinned, v->n_feat - 1, x);
}

/*
 * The branch samples' count (the profile's sample_event column: samples
 * times the period) per phase, v->code_feat, as log(1 + count per 1000
 * instructions); its column, or -1 when the profile has none.  It is a
 * term of the distance between phases a "similar" value is borrowed
 * across, not a feature of an interval's behaviour: how branchy the code
 * is tells a phase that mispredicts from a loop that does not (a
 * one-interval phase of a pointer chase borrowed another memory-bound
 * phase's mispredicts, 14 times too few, and was predicted 7% too slow:
 * docs/benchmarks.md, "Borrowing from the phase whose code is alike"),
 * while within a phase it follows the code, not the data, and as a
 * feature it only moved the nearest intervals and the straddles' mixes
 * (worse on the tuning split).
 */
static int code_features(sl_interp *v)
{
	const sl_profile *p = v->prof;
	int sc = p->sample_event ? sl_profile_event_index(p, p->sample_event) : -1;
	if (sc < 0)
		return -1;
	size_t np = v->n_phase_ids;
	double *f = v->code_feat = sl_xcalloc(np + 1, sizeof *f);
	size_t *n = sl_xcalloc(np + 1, sizeof *n);
	for (size_t i = 0; i < p->n_intervals; i++) {
		uint64_t c = sl_prof_count(p, i, (size_t)sc), ins = p->iv[i].instructions;
		if (c == SL_MISSING || !ins)
			continue;
		f[p->iv[i].phase] += sl_behave_rate((double)c, (double)ins);
		n[p->iv[i].phase]++;
	}
	for (size_t ph = 0; ph < np; ph++)
		f[ph] = n[ph] ? f[ph] / (double)n[ph] : NAN;
	free(n);
	return sc;
}

/* The pinned events (counted in every interval) and each phase's
 * behaviour, the mean of its intervals': v->pinned, v->n_feat and v->feat
 * (row-major, n_phase_ids x n_feat; NAN for a phase without cycles).  x is
 * scratch of n_events + 1. */
static void phase_features(sl_interp *v, double *x)
{
	const sl_profile *p = v->prof;
	size_t np = v->n_phase_ids, n_pinned = 0;
	v->pinned = sl_xcalloc(p->n_events ? p->n_events : 1, sizeof *v->pinned);
	int sc = code_features(v);
	/* an interval without cycles has no behaviour (a dithered one,
	 * models/dither.c): it does not decide what is pinned; and a column
	 * that is the cycles themselves (a dithered profile's cycles at f0)
	 * repeats the CPI */
	for (size_t j = 0; j < p->n_events; j++) {
		size_t i = 0, same = 0, with = 0;
		for (; i < p->n_intervals; i++) {
			uint64_t c = sl_prof_count(p, i, j);
			if (!p->iv[i].cycles)
				continue;
			if (c == SL_MISSING)
				break;
			same += c == p->iv[i].cycles;
			with++;
		}
		if (i == p->n_intervals && !(with && same == with) && (int)j != sc)
			v->pinned[n_pinned++] = j;
	}
	size_t nf = v->n_feat = 1 + n_pinned;
	double *f = v->feat = sl_xcalloc(np * nf, sizeof *f);
	uint64_t *n = sl_xcalloc(np, sizeof *n);
	for (size_t i = 0; i < p->n_intervals; i++) {
		if (!sl_interp_features(v, i, x))
			continue;
		for (size_t j = 0; j < nf; j++)
			f[p->iv[i].phase * nf + j] += x[j];
		n[p->iv[i].phase]++;
	}
	for (size_t ph = 0; ph < np; ph++)
		for (size_t j = 0; j < nf; j++)
			f[ph * nf + j] = n[ph] ? f[ph * nf + j] / (double)n[ph] : NAN;
	free(n);
}

double sl_feat_dist2(const double *a, const double *b, size_t n)
{
	double d = 0;
	for (size_t j = 0; j < n; j++)
		d += (a[j] - b[j]) * (a[j] - b[j]);
	return d;
}

/* For every phase that did not measure the event (ap[ph].n == 0), the
 * nearest phase by behaviour and by how branchy its code is (code_feat)
 * that did, when two or more did (with one, the program mean is that
 * phase's); else -1. */
static void nearest_measured(const sl_interp *v, const acc *ap, int64_t *near)
{
	size_t np = v->n_phase_ids, nf = v->n_feat, with = 0;
	for (size_t q = 0; q < np; q++)
		with += ap[q].n > 0;
	for (size_t ph = 0; ph < np; ph++) {
		near[ph] = -1;
		if (ap[ph].n || with < 2 || isnan(v->feat[ph * nf]))
			continue;
		double best = INFINITY;
		for (size_t q = 0; q < np; q++) {
			if (!ap[q].n || isnan(v->feat[q * nf]))
				continue;
			double d = sl_feat_dist2(v->feat + ph * nf, v->feat + q * nf, nf);
			if (v->code_feat && !isnan(v->code_feat[ph]) && !isnan(v->code_feat[q]))
				d += (v->code_feat[ph] - v->code_feat[q]) *
				     (v->code_feat[ph] - v->code_feat[q]);
			if (d < best) {
				best = d;
				near[ph] = (int64_t)q;
			}
		}
	}
}

/* The measured intervals nearest an instance by behaviour: how many are
 * averaged, and how far in time (measured intervals of the phase on each
 * side of the instance) they are looked for.  K chosen on the tuning split
 * (docs/benchmarks.md, "Power: the nearest measured intervals"); the
 * window keeps the search linear in the run's length. */
enum { NEAR_K = 2, NEAR_WINDOW = 16 };

/* Scratch of the nearest-interval search, built once per view: each
 * interval's and each instance's behaviour (float, NAN where unknown),
 * and per event the measured intervals grouped by phase in time order. */
typedef struct near_scratch {
	float *ifeat;    /* n_intervals x n_feat */
	float *jfeat;    /* n_instances x n_feat: the mean of its intervals' */
	uint32_t *meas;  /* measured intervals, by phase then time */
	size_t *start;   /* n_phase_ids + 1 offsets into meas */
	/* The events of one counter set are measured in the same intervals:
	 * the neighbours an instance found for an event serve the next events
	 * with the same measured intervals (meas and start compared with the
	 * previous event's; set counts the changes). */
	uint32_t *prev_meas;
	size_t *prev_start;
	uint32_t set;    /* 1 + the number of changes of measured intervals */
	uint32_t *nbr;   /* n_instances x NEAR_K: the neighbours found */
	uint8_t *n_nbr;  /* n_instances: how many */
	uint32_t *nbr_set; /* n_instances: the set they were found in; 0 none */
} near_scratch;

static void near_init(near_scratch *ns, const sl_interp *v, double *x)
{
	const sl_profile *p = v->prof;
	size_t nf = v->n_feat, ni = v->n_instances;
	ns->ifeat = sl_xmalloc((p->n_intervals * nf + 1) * sizeof *ns->ifeat);
	ns->jfeat = sl_xcalloc(ni * nf + 1, sizeof *ns->jfeat);
	ns->meas = sl_xmalloc((p->n_intervals ? p->n_intervals : 1) * sizeof *ns->meas);
	ns->start = sl_xcalloc(v->n_phase_ids + 1, sizeof *ns->start);
	ns->prev_meas = sl_xmalloc((p->n_intervals ? p->n_intervals : 1) * sizeof *ns->prev_meas);
	ns->prev_start = sl_xcalloc(v->n_phase_ids + 1, sizeof *ns->prev_start);
	ns->nbr = sl_xmalloc((ni ? ni : 1) * NEAR_K * sizeof *ns->nbr);
	ns->n_nbr = sl_xcalloc(ni ? ni : 1, 1);
	ns->nbr_set = sl_xcalloc(ni ? ni : 1, sizeof *ns->nbr_set);
	ns->set = 0;
	/* an interval's behaviour is known whole (its CPI and the pinned
	 * events, counted in every interval) or not at all: NAN in feature 0 */
	for (size_t i = 0; i < p->n_intervals; i++) {
		int ok = sl_interp_features(v, i, x);
		for (size_t j = 0; j < nf; j++)
			ns->ifeat[i * nf + j] = ok ? (float)x[j] : NAN;
	}
	for (size_t j = 0; j < ni; j++) {
		const sl_instance *in = &v->inst[j];
		for (size_t f = 0; f < nf; f++) {
			double sum = 0;
			size_t n = 0;
			for (size_t i = in->first; i < in->first + in->n; i++)
				if (!isnan(ns->ifeat[i * nf]))
					sum += ns->ifeat[i * nf + f], n++;
			ns->jfeat[j * nf + f] = n ? (float)(sum / (double)n) : NAN;
		}
	}
}

static void near_free(near_scratch *ns)
{
	free(ns->jfeat);
	free(ns->meas);
	free(ns->start);
	free(ns->prev_meas);
	free(ns->prev_start);
	free(ns->nbr);
	free(ns->n_nbr);
	free(ns->nbr_set);
}

/*
 * A counting sort of the intervals by phase, in time order within each:
 * those `keep` accepts (ctx its argument; a NULL keep keeps none).
 * order[start[ph] .. start[ph + 1]) (start: n_phase_ids + 1), and,
 * when place is not NULL, each kept interval's index in order.  Serves
 * the nearest-interval search (the intervals that measured an event) and
 * the straddles' kin (every interval).
 */
static void sort_by_phase(const sl_interp *v, int (*keep)(const void *ctx, size_t i),
			  const void *ctx, uint32_t *order, size_t *start, uint32_t *place)
{
	const sl_profile *p = v->prof;
	size_t np = v->n_phase_ids;
	memset(start, 0, (np + 1) * sizeof *start);
	for (size_t i = 0; keep && i < p->n_intervals; i++)
		if (keep(ctx, i))
			start[p->iv[i].phase + 1]++;
	for (size_t ph = 0; ph < np; ph++)
		start[ph + 1] += start[ph];
	size_t *pos = sl_xmalloc((np + 1) * sizeof *pos);
	memcpy(pos, start, (np + 1) * sizeof *pos);
	for (size_t i = 0; keep && i < p->n_intervals; i++)
		if (keep(ctx, i)) {
			uint32_t ph = p->iv[i].phase;
			if (place)
				place[i] = (uint32_t)pos[ph];
			order[pos[ph]++] = (uint32_t)i;
		}
	free(pos);
}

/* The nearest-interval search's candidates for an event: measured, with
 * instructions and a behaviour. */
typedef struct near_candidate {
	const sl_interp *v;
	const near_scratch *ns;
	int col;
} near_candidate;

static int is_candidate(const void *ctx, size_t i)
{
	const near_candidate *c = ctx;
	const sl_profile *p = c->v->prof;
	return sl_prof_count(p, i, (size_t)c->col) != SL_MISSING && p->iv[i].instructions &&
	       !isnan(c->ns->ifeat[i * c->v->n_feat]);
}

static int every_interval(const void *ctx, size_t i)
{
	(void)ctx, (void)i;
	return 1;
}

/* Group the intervals that measured view event k by phase, in time order. */
static void near_group(near_scratch *ns, const sl_interp *v, size_t k)
{
	int col = v->col[k];
	size_t np = v->n_phase_ids;
	/* keep the previous event's grouping to compare */
	uint32_t *tm = ns->prev_meas;
	size_t *ts = ns->prev_start;
	ns->prev_meas = ns->meas, ns->prev_start = ns->start;
	ns->meas = tm, ns->start = ts;
	near_candidate c = {v, ns, col};
	sort_by_phase(v, col >= 0 ? is_candidate : NULL, &c, ns->meas, ns->start, NULL);
	if (!ns->set || memcmp(ns->start, ns->prev_start, (np + 1) * sizeof *ns->start) ||
	    memcmp(ns->meas, ns->prev_meas, ns->start[np] * sizeof *ns->meas))
		ns->set++;
}

static size_t near_search(const near_scratch *ns, const sl_interp *v, size_t j, uint32_t *best_i);

/* The mean rate of event k over the NEAR_K measured intervals of instance
 * j's phase that behave most like the instance (Euclidean distance in the
 * behaviour features), among the NEAR_WINDOW measured ones on each side of
 * it in time; NAN when its phase measured none. */
static double near_rate(near_scratch *ns, const sl_interp *v, size_t k, size_t j, int *own,
			double *rpi)
{
	const sl_profile *p = v->prof;
	const sl_instance *in = &v->inst[j];
	uint32_t *best_i = ns->nbr + j * NEAR_K;
	if (ns->nbr_set[j] != ns->set) {
		ns->n_nbr[j] = (uint8_t)near_search(ns, v, j, best_i);
		ns->nbr_set[j] = ns->set;
	}
	size_t nb = ns->n_nbr[j];
	if (!nb)
		return NAN;
	double sum = 0, sr = 0;
	*own = 1;
	for (size_t q = 0; q < nb; q++) {
		size_t i = best_i[q];
		double c = (double)sl_prof_count(p, i, (size_t)v->col[k]);
		double ins = (double)p->iv[i].instructions;
		sum += c / sl_interp_base(v, i, k), sr += c / ins;
		*own &= i >= in->first && i < in->first + in->n;
	}
	/* rpi: the neighbours' count of the event per instruction */
	*rpi = sr / (double)nb;
	return sum / (double)nb;
}

/* The search of near_rate: instance j's neighbours into best_i, nearest
 * first; how many (0 when its phase measured nothing). */
static size_t near_search(const near_scratch *ns, const sl_interp *v, size_t j, uint32_t *best_i)
{
	const sl_instance *in = &v->inst[j];
	size_t nf = v->n_feat;
	const uint32_t *m = ns->meas + ns->start[in->phase];
	size_t nm = ns->start[in->phase + 1] - ns->start[in->phase];
	if (!nm)
		return 0;
	size_t lo = 0, hi = nm; /* the first measured interval at or after the instance */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m[mid] < in->first)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t a = lo > NEAR_WINDOW ? lo - NEAR_WINDOW : 0;
	size_t b = SL_MIN(nm, lo + NEAR_WINDOW);
	float best_d[NEAR_K] = {0};
	size_t nb = 0;
	const float *fj = ns->jfeat + j * nf;
	if (isnan(fj[0])) /* no interval of the instance has a behaviour */
		return 0;
	for (size_t c = a; c < b; c++) {
		const float *fi = ns->ifeat + (size_t)m[c] * nf;
		float d = 0;
		for (size_t f = 0; f < nf; f++)
			d += (fj[f] - fi[f]) * (fj[f] - fi[f]);
		/* insert into the sorted list of the best */
		size_t q = nb < NEAR_K ? nb++ : NEAR_K;
		while (q > 0 && d < best_d[q - 1]) {
			if (q < NEAR_K)
				best_d[q] = best_d[q - 1], best_i[q] = best_i[q - 1];
			q--;
		}
		if (q < NEAR_K)
			best_d[q] = d, best_i[q] = m[c];
	}
	return nb;
}

/* The behaviour distance from instance j to the nearest measured interval
 * near_rate found for it. */
static float near_dist(const near_scratch *ns, const sl_interp *v, size_t j)
{
	size_t nf = v->n_feat;
	const float *fj = ns->jfeat + j * nf, *fi = ns->ifeat + (size_t)ns->nbr[j * NEAR_K] * nf;
	float d = 0;
	for (size_t f = 0; f < nf; f++)
		d += (fj[f] - fi[f]) * (fj[f] - fi[f]);
	return d;
}

/* The behaviour distance from instance j to phase q's mean behaviour (the
 * phase a "similar" value was borrowed from); INFINITY when either has
 * none. */
static float similar_dist(const near_scratch *ns, const sl_interp *v, size_t j, size_t q)
{
	size_t nf = v->n_feat;
	const float *fj = ns->jfeat + j * nf;
	const double *fq = v->feat + q * nf;
	if (isnan(fj[0]) || isnan(fq[0]))
		return INFINITY;
	double d = 0;
	for (size_t f = 0; f < nf; f++)
		d += ((double)fj[f] - fq[f]) * ((double)fj[f] - fq[f]);
	return (float)d;
}

/* How much less steady (the ratio of the rms deviations) than per
 * instruction an event's rates per a pinned event may be for the pinned
 * event to hedge a count per instruction (norm_far) -- chosen on the
 * tuning split (docs/benchmarks.md, "Rates per instruction, far from
 * their sources"). */
#define ALT_NEAR 1.25

/*
 * What event k's rates are taken per: instructions, or the count of a
 * pinned event (one counted, and not zero, in every interval with
 * instructions) -- whichever its measured counts are steadiest against
 * within phases (the smallest pooled squared relative deviation from the
 * phase's mean ratio).  An event that follows a pinned one (LLC misses
 * the LLC references of the same code) is then carried as its share of
 * it, which the interval's own count scales.  *spread: the square root of
 * that deviation, how far an interval's rate strays from its phase's
 * (NAN when no phase measured the event twice): what an interpolated
 * count may be off by (the anchor weighs its residual by it).  *alt:
 * for an event steadiest per instruction, the pinned event it is next
 * steadiest against when that is nearly as steady (within ALT_NEAR), the
 * base its counts are hedged towards where an instance or interval lies
 * far from its evidence in it (norm_far); -1 else.
 */
static int choose_norm(const sl_interp *v, size_t k, const uint8_t *cyc, double *spread,
		       int *alt)
{
	const sl_profile *p = v->prof;
	size_t np = v->n_phase_ids, npin = v->n_feat - 1;
	int col = v->col[k], best = -1;
	*spread = NAN;
	*alt = -1;
	if (col < 0)
		return -1;
	double best_dev = INFINITY, alt_dev = INFINITY;
	double *sum = sl_xmalloc((np + 1) * sizeof *sum);
	uint64_t *n = sl_xmalloc((np + 1) * sizeof *n);
	for (size_t c = 0; c <= npin; c++) {
		int base = c < npin ? (int)v->pinned[c] : -1;
		if (base == col || (base >= 0 && cyc[base]))
			continue;
		int usable = 1;
		for (size_t i = 0; base >= 0 && usable && i < p->n_intervals; i++) {
			uint64_t b = sl_prof_count(p, i, (size_t)base);
			usable = !p->iv[i].instructions || (b != SL_MISSING && b > 0);
		}
		if (!usable)
			continue;
		memset(sum, 0, (np + 1) * sizeof *sum);
		memset(n, 0, (np + 1) * sizeof *n);
		double dev = 0;
		uint64_t dof = 0;
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < p->n_intervals; i++) {
				uint64_t x = sl_prof_count(p, i, (size_t)col);
				if (x == SL_MISSING || !p->iv[i].instructions)
					continue;
				double b = base >= 0 ? (double)sl_prof_count(p, i, (size_t)base)
						     : (double)p->iv[i].instructions;
				double r = (double)x / b;
				size_t ph = p->iv[i].phase;
				if (!pass) {
					sum[ph] += r, n[ph]++;
				} else if (n[ph] > 1 && sum[ph] > 0) {
					double d = r * (double)n[ph] / sum[ph] - 1;
					dev += d * d, dof++;
				}
			}
		if (dof && base >= 0 && dev / (double)dof < alt_dev)
			alt_dev = dev / (double)dof, *alt = base;
		if (dof && dev / (double)dof < best_dev)
			best_dev = dev / (double)dof, best = base;
	}
	/* the second is a proportion too only when nearly as steady */
	if (best >= 0 || !(alt_dev <= ALT_NEAR * ALT_NEAR * best_dev))
		*alt = -1;
	free(sum);
	free(n);
	if (isfinite(best_dev))
		*spread = sqrt(best_dev);
	return best;
}

/* How far (a factor) an instance's own count per instruction of the
 * pinned event an event's rates are per may lie from its source
 * intervals' before the proportion is no longer trusted whole (chosen on
 * the tuning split, docs/benchmarks.md "Rates per a pinned event, far
 * from their sources"). */
#define NORM_FAR 2.0

/*
 * Instance j takes an event per instruction or per a pinned event, from
 * source intervals whose count of the pinned event `base` per instruction
 * averages bpi.  1 when the instance's own lies more than NORM_FAR from
 * it: *scale is then the square root of the ratio, the factor that takes
 * the sources' rate per instruction to the geometric mean of the count
 * per instruction and the count per `base`.  A proportion was chosen on
 * intervals of a phase, which differ from each other by a little; an
 * instance whose count of the pinned event is several times its
 * sources' (a one-interval instance unlike the rest of its phase) is
 * outside what it was chosen on, and neither the count per pinned event
 * nor per instruction can be told right from the profile.  For an event
 * whose rates are per a pinned event, `base` is that event (the instance
 * then takes its rate per instruction, scaled); for one whose rates are
 * per instruction, the pinned event it is next steadiest against
 * (choose_norm's alt: LLC misses per instruction, then per DRAM read, of
 * a scan whose one-interval rescan of a cache-resident list reads a
 * third of the lines per instruction -- unseen23's chem-screen;
 * docs/benchmarks.md, "Rates per instruction, far from their sources").
 */
static int norm_far(const sl_interp *v, size_t j, int base, double bpi, double *scale)
{
	const sl_profile *p = v->prof;
	const sl_instance *in = &v->inst[j];
	double b = 0, ins = 0;
	*scale = 1;
	for (size_t i = in->first; i < in->first + in->n; i++)
		if (p->iv[i].instructions)
			b += (double)sl_prof_count(p, i, (size_t)base),
				ins += (double)p->iv[i].instructions;
	if (!(ins > 0 && bpi > 0 && b > 0))
		return 0;
	double x = b / ins / bpi;
	*scale = sqrt(x);
	return x > NORM_FAR || x < 1 / NORM_FAR;
}

/* The mean count per instruction of profile column `col` over the
 * measured intervals near_rate took instance j's rate from (NAN when one
 * had no instructions): the evidence's count of the pinned event an
 * event's count is judged far from it in (norm_far, v->ihb). */
static double nbr_per_ins(const near_scratch *ns, const sl_interp *v, size_t j, int col)
{
	const sl_profile *p = v->prof;
	size_t nb = ns->n_nbr[j];
	double s = 0;
	for (size_t q = 0; q < nb; q++) {
		size_t i = ns->nbr[j * NEAR_K + q];
		double ins = (double)p->iv[i].instructions;
		if (!(ins > 0))
			return NAN;
		s += (double)sl_prof_count(p, i, (size_t)col) / ins;
	}
	return nb ? s / (double)nb : NAN;
}

double sl_interp_hedge(const sl_interp *v, size_t i, size_t k)
{
	const sl_profile *p = v->prof;
	double hb = v->ihb[(size_t)v->inst_of[i] * v->n_events + k];
	double ins = (double)p->iv[i].instructions;
	uint64_t b = sl_prof_count(p, i, (size_t)v->hcol[k]);
	if (!(ins > 0 && hb > 0) || b == SL_MISSING || !b)
		return 1;
	double x = (double)b / ins / hb;
	/* per the pinned event the interval's count would follow it whole,
	 * per instruction not at all: the geometric mean is half-way */
	return x > NORM_FAR || x < 1 / NORM_FAR ? sqrt(x) : 1;
}

/*
 * How an event's rate follows the behaviour within a phase.  Intervals of
 * one phase differ -- its data drift, an instance runs a lighter or a
 * heavier part of it, two behaviours of one code share the phase -- and
 * the events counted in every interval show how: an unmeasured interval
 * whose stall and miss rates lie above its evidence's likely stalls more
 * in what it did not measure, too.  Per event, the slopes of its log rate
 * (per its norm) on the behaviour features are fitted over the measured
 * intervals as deviations from their phase's means, pooled over the
 * phases (a fixed-effects least-squares fit, ridge-regularised on
 * standardised features): what varies together within phases, not what
 * tells phases apart.  The slopes are used only when they predict a
 * left-out interval better than its phase's mean alone: their
 * leave-one-out squared error (PRESS) under TILT_GAIN of the mean's, and
 * none steeper than TILT_SLOPE_MAX (a rate changing as more than the
 * cube of a feature's ratio is a few rows' overfit: amr-hydro's
 * prefetches at -7.5 on log CPI doubled a coarse sweep's).  A tilt
 * never moves a rate by more than a factor of TILT_MAX either way,
 * and only rates taken from the nearest measured intervals of the
 * instance's own phase are tilted (another phase's mean, or a mix of
 * neighbours, is not evidence the within-phase slopes speak for).
 * Constants chosen on the tuning split (docs/benchmarks.md,
 * "Interpolation that follows the behaviour").
 */
#define TILT_GAIN 0.8
#define TILT_RIDGE 0.1
#define TILT_MAX 2.0
#define TILT_SLOPE_MAX 3.0
enum { TILT_FEAT_MAX = 16 };

static void fit_tilt(const sl_interp *v, const near_scratch *ns, size_t k, double *b)
{
	const sl_profile *p = v->prof;
	size_t nf = v->n_feat, np = v->n_phase_ids;
	int col = v->col[k];
	memset(b, 0, nf * sizeof *b);
	if (col < 0 || nf > TILT_FEAT_MAX || !np)
		return;
	double *sy = sl_xcalloc(np, sizeof *sy), *sx = sl_xcalloc(np * nf, sizeof *sx);
	size_t *n = sl_xcalloc(np, sizeof *n);
	/* the rows, as deviations from their phase's means: dx (nf), dy, and
	 * the phase's count */
	double *row = sl_xmalloc((p->n_intervals + 1) * (nf + 2) * sizeof *row);
	double a[TILT_FEAT_MAX * TILT_FEAT_MAX] = {0}, g[TILT_FEAT_MAX] = {0};
	size_t rows = 0, groups = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < p->n_intervals; i++) {
			uint64_t c = sl_prof_count(p, i, (size_t)col);
			const float *x = ns->ifeat + i * nf;
			double base = p->iv[i].instructions ? sl_interp_base(v, i, k) : 0;
			if (c == SL_MISSING || !c || !(base > 0) || isnan(x[0]))
				continue;
			double y = log((double)c / base);
			size_t ph = p->iv[i].phase;
			if (!pass) {
				sy[ph] += y, n[ph]++;
				for (size_t f = 0; f < nf; f++)
					sx[ph * nf + f] += x[f];
				continue;
			}
			if (n[ph] < 2)
				continue;
			double *r = row + rows++ * (nf + 2);
			for (size_t f = 0; f < nf; f++)
				r[f] = x[f] - sx[ph * nf + f] / (double)n[ph];
			r[nf] = y - sy[ph] / (double)n[ph];
			r[nf + 1] = (double)n[ph];
			for (size_t f = 0; f < nf; f++) {
				g[f] += r[f] * r[nf];
				for (size_t h = 0; h < nf; h++)
					a[f * nf + h] += r[f] * r[h];
			}
		}
	for (size_t ph = 0; ph < np; ph++)
		groups += n[ph] >= 2;
	free(sy);
	free(sx);
	free(n);
	if (rows < groups + 3 * nf) {
		free(row);
		return;
	}
	/* standardised: (A / s s' + ridge rows I) bt = g / s, b = bt / s */
	double s[TILT_FEAT_MAX], m[TILT_FEAT_MAX * TILT_FEAT_MAX], bt[TILT_FEAT_MAX];
	for (size_t f = 0; f < nf; f++)
		s[f] = a[f * nf + f] > 0 ? sqrt(a[f * nf + f] / (double)rows) : 1;
	for (size_t f = 0; f < nf; f++) {
		for (size_t h = 0; h < nf; h++)
			m[f * nf + h] = a[f * nf + h] / (s[f] * s[h]) +
					(f == h ? TILT_RIDGE * (double)rows : 0);
		bt[f] = g[f] / s[f];
	}
	gsl_matrix_view mv = gsl_matrix_view_array(m, nf, nf);
	gsl_vector_view bv = gsl_vector_view_array(bt, nf);
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int bad = gsl_linalg_cholesky_decomp1(&mv.matrix) ||
		  gsl_linalg_cholesky_svx(&mv.matrix, &bv.vector);
	/* leave-one-out errors (PRESS) of the phase means alone and with the
	 * slopes: each row's residual over 1 - its leverage */
	double press0 = 0, press = 0, z[TILT_FEAT_MAX];
	gsl_vector_view zv = gsl_vector_view_array(z, nf);
	for (size_t q = 0; !bad && q < rows; q++) {
		const double *r = row + q * (nf + 2);
		double ng = r[nf + 1], e = r[nf];
		for (size_t f = 0; f < nf; f++)
			z[f] = r[f] / s[f], e -= bt[f] * z[f];
		double h = 1 / ng, zz[TILT_FEAT_MAX];
		memcpy(zz, z, nf * sizeof *z);
		bad = gsl_linalg_cholesky_svx(&mv.matrix, &zv.vector);
		for (size_t f = 0; f < nf; f++)
			h += zz[f] * z[f];
		press0 += r[nf] * r[nf] * (ng / (ng - 1)) * (ng / (ng - 1));
		press += h < 1 ? e * e / ((1 - h) * (1 - h)) : INFINITY;
	}
	gsl_set_error_handler(old);
	free(row);
	if (bad || !(press < TILT_GAIN * press0))
		return;
	for (size_t f = 0; f < nf; f++)
		b[f] = bt[f] / s[f];
	/* an elasticity beyond TILT_SLOPE_MAX is the fit's, not the event's */
	for (size_t f = 0; f < nf; f++)
		if (fabs(b[f]) > TILT_SLOPE_MAX)
			memset(b, 0, nf * sizeof *b);
}

/* b . the mean features of the evidence instance j's rate of an event
 * came from: its nearest measured intervals (near_rate's). */
static double tilt_at_nbrs(const near_scratch *ns, const sl_interp *v, size_t j, const double *b)
{
	size_t nf = v->n_feat, nb = ns->n_nbr[j];
	double d = 0;
	for (size_t q = 0; q < nb; q++)
		for (size_t f = 0; f < nf; f++)
			d += b[f] * ns->ifeat[(size_t)ns->nbr[j * NEAR_K + q] * nf + f];
	return nb ? d / (double)nb : NAN;
}

double sl_interp_tilt(const sl_interp *v, size_t i, size_t k)
{
	size_t nf = v->n_feat;
	double off = v->ioff ? v->ioff[(size_t)v->inst_of[i] * v->n_events + k] : NAN;
	if (isnan(off) || !v->ifeat || isnan(v->ifeat[i * nf]))
		return 1;
	const double *b = v->tilt + k * nf;
	const float *x = v->ifeat + i * nf;
	double d = -off;
	for (size_t f = 0; f < nf; f++)
		d += b[f] * x[f];
	return exp(SL_MAX(-log(TILT_MAX), SL_MIN(log(TILT_MAX), d)));
}

/* One event: its means at each level, then the value every instance's
 * unmeasured intervals take (the nearest measured intervals of its phase,
 * else the nearest level's mean rate), and the cell tallies.  Nothing per
 * interval is stored (the file's head).  dn: per instance, the behaviour
 * distance to the evidence it took the event from: the nearest measured
 * interval, or the mean of the phase it borrowed from ("similar");
 * INFINITY for the program's mean. */
static void fill_event(sl_interp *v, size_t k, acc *ai, acc *ap, uint64_t *unmeasured,
		       int64_t *near, near_scratch *ns, float *dn)
{
	const sl_profile *p = v->prof;
	size_t ne = v->n_events;
	int col = v->col[k];
	acc prog = {0, 0};

	memset(ai, 0, v->n_instances * sizeof *ai);
	memset(ap, 0, v->n_phase_ids * sizeof *ap);
	memset(unmeasured, 0, v->n_instances * sizeof *unmeasured);
	for (size_t i = 0; i < p->n_intervals; i++) {
		uint64_t c = col >= 0 ? sl_prof_count(p, i, (size_t)col) : SL_MISSING;
		if (c == SL_MISSING)
			continue;
		v->cells[SL_SRC_MEASURED]++;
		v->ev_cells[k * SL_SRC_N + SL_SRC_MEASURED]++;
		uint64_t ins = p->iv[i].instructions;
		if (!ins)
			continue;
		double r = (double)c / sl_interp_base(v, i, k);
		acc_add(&ai[v->inst_of[i]], r);
		acc_add(&ap[p->iv[i].phase], r);
		acc_add(&prog, r);
	}
	for (size_t i = 0; i < p->n_intervals; i++)
		if (col < 0 || sl_prof_count(p, i, (size_t)col) == SL_MISSING)
			unmeasured[v->inst_of[i]]++;
	nearest_measured(v, ap, near);
	near_group(ns, v, k);
	double *b = v->tilt + k * v->n_feat;
	fit_tilt(v, ns, k, b);
	int tilted = 0;
	for (size_t f = 0; f < v->n_feat; f++)
		tilted |= b[f] != 0;
	for (size_t j = 0; j < v->n_instances; j++) {
		sl_src s;
		int64_t q = near[v->inst[j].phase];
		double r = pick(&ai[j], &ap[v->inst[j].phase], q >= 0 ? &ap[q] : NULL, &prog, &s);
		/* when its phase measured the event: the measured intervals of
		 * the phase that behave most like the instance, "instance" when
		 * they all lie in it; per instruction in part when the
		 * instance's count of the event's norm is far from theirs */
		int own = 0;
		double rpi = NAN;
		double rn = unmeasured[j] && (s == SL_SRC_INSTANCE || s == SL_SRC_PHASE)
				    ? near_rate(ns, v, k, j, &own, &rpi)
				    : NAN;
		dn[j * ne + k] = s == SL_SRC_SIMILAR ? similar_dist(ns, v, j, (size_t)q) : INFINITY;
		v->ioff[j * ne + k] = NAN;
		v->ihb[j * ne + k] = NAN;
		if (!isnan(rn)) {
			r = rn;
			s = own ? SL_SRC_INSTANCE : SL_SRC_PHASE;
			dn[j * ne + k] = near_dist(ns, v, j);
			double sc;
			double hb = v->hcol[k] < 0 ? NAN : nbr_per_ins(ns, v, j, v->hcol[k]);
			if (v->hcol[k] >= 0 && norm_far(v, j, v->hcol[k], hb, &sc)) {
				/* far as a whole: the geometric mean, per instruction */
				if (v->norm[k] >= 0)
					r = rpi * sc, v->iins[j * ne + k] = 1;
				else
					r = rn * sc;
			} else if (tilted) {
				v->ioff[j * ne + k] = tilt_at_nbrs(ns, v, j, b);
			} else if (v->norm[k] < 0) {
				v->ihb[j * ne + k] = hb;
			}
		}
		v->imean[j * ne + k] = r;
		v->isrc[j * ne + k] = (uint8_t)s;
		v->cells[s] += unmeasured[j];
		v->ev_cells[k * SL_SRC_N + s] += unmeasured[j];
	}
}

/* Interval i's rate of view event k: measured, else its instance's. */
static double rate_of(const sl_interp *v, size_t i, size_t k)
{
	const sl_profile *p = v->prof;
	if (!p->iv[i].instructions)
		return NAN;
	return sl_interp_count(v, i, k) / (double)p->iv[i].instructions;
}

/* How many steps of the share alpha in [0, 1] the mix is tried at; and
 * how near the line between its neighbours an interval must lie to be
 * taken as a straddle (squared behaviour distance to the mix over that
 * between the neighbours: a tenth of their distance). */
enum { MIX_STEPS = 200 };
#define MIX_NEAR_LINE 0.01

/* How far (squared behaviour distance) interval i's value of event k lies
 * from its evidence, as a neighbour handing it to a mix: 0 when measured,
 * or when its instance has more intervals (its value is its instance's,
 * and the distance of their mean says nothing about this one interval);
 * a one-interval instance's own distance to its evidence (dn) else. */
static double nbr_dist(const sl_interp *v, const float *dn, size_t i, size_t k)
{
	if (sl_interp_src(v, i, k) == SL_SRC_MEASURED || v->inst[v->inst_of[i]].n > 1)
		return 0;
	return dn[(size_t)v->inst_of[i] * v->n_events + k];
}

/* Every interval by phase, in time order within each (sort_by_phase):
 * order[start[ph] .. start[ph + 1]), and each interval's place there. */
typedef struct by_phase {
	uint32_t *order, *place;
	size_t *start;
} by_phase;

static void by_phase_build(by_phase *bp, const sl_interp *v)
{
	size_t n = v->prof->n_intervals;
	bp->order = sl_xmalloc((n + 1) * sizeof *bp->order);
	bp->place = sl_xmalloc((n + 1) * sizeof *bp->place);
	bp->start = sl_xmalloc((v->n_phase_ids + 1) * sizeof *bp->start);
	sort_by_phase(v, every_interval, NULL, bp->order, bp->start, bp->place);
}

static void by_phase_free(by_phase *bp)
{
	free(bp->order);
	free(bp->place);
	free(bp->start);
}

/* The sides of an interval where its phase changes (same_edge). */
enum { EDGE_BEFORE = 1, EDGE_AFTER = 2 };

/* Whether interval q sits at the same edge as interval i on one of
 * `sides`: after an interval of the phase before i, or before one of the
 * phase after i.  Such an interval may straddle the same change (a burst
 * running into a frame copy is, at its last interval, a share of the
 * copy whatever the burst's length). */
static int same_edge(const sl_interp *v, size_t i, size_t q, int sides)
{
	const sl_profile *p = v->prof;
	return ((sides & EDGE_BEFORE) && q > 0 && p->iv[q - 1].phase == p->iv[i - 1].phase) ||
	       ((sides & EDGE_AFTER) && q + 1 < p->n_intervals &&
		p->iv[q + 1].phase == p->iv[i + 1].phase);
}

/* The squared behaviour distance from interval i (at a change of phase
 * on `sides`: a one-interval instance between two others on both) to the
 * nearest other interval of its phase, among the NEAR_WINDOW on each side
 * of it in time, leaving out those at the same edges (a straddle that
 * recurs is no evidence of a phase of its own); INFINITY when there is
 * none. */
static double nearest_member(const by_phase *bp, const near_scratch *ns, const sl_interp *v,
			     size_t i, int sides)
{
	size_t nf = v->n_feat, ph = v->prof->iv[i].phase;
	size_t lo = bp->start[ph], hi = bp->start[ph + 1], at = bp->place[i];
	size_t a = at > lo + NEAR_WINDOW ? at - NEAR_WINDOW : lo;
	size_t b = SL_MIN(hi, at + NEAR_WINDOW + 1);
	const float *fi = ns->ifeat + i * nf;
	double best = INFINITY;
	for (size_t c = a; c < b; c++) {
		const float *fq = ns->ifeat + (size_t)bp->order[c] * nf;
		if (c == at || isnan(fq[0]) || same_edge(v, i, bp->order[c], sides))
			continue;
		double d = 0;
		for (size_t f = 0; f < nf; f++)
			d += ((double)fi[f] - fq[f]) * ((double)fi[f] - fq[f]);
		best = SL_MIN(best, d);
	}
	return best;
}

/*
 * The share alpha of interval i + 1 whose mix (1 - alpha) a + alpha b with
 * a and b the intervals before and after i behaves most like i, in the
 * behaviour features the nearest-interval search uses (CPI and the pinned
 * events' rates mix linearly with the share of instructions; the features
 * are their logs), and that distance *d.  Returns 1 if i lies near the
 * line between its neighbours (*d under MIX_NEAR_LINE of their own
 * distance): a mix by the shape of its behaviour; 0 otherwise, or where
 * i has no neighbour on either side or any of the three no features.
 * `scratch` holds 2 n_feat doubles.
 */
static int mix_fit(const sl_interp *v, const near_scratch *ns, size_t i, double *scratch,
		   double *alpha, double *d)
{
	size_t nf = v->n_feat;
	if (i == 0 || i + 1 >= v->prof->n_intervals)
		return 0;
	const float *fi = ns->ifeat + i * nf, *fa = fi - nf, *fb = fi + nf;
	if (isnan(fi[0]) || isnan(fa[0]) || isnan(fb[0]))
		return 0;
	/* back from the features to CPI and rates per 1000 instructions */
	double *xa = scratch, *xb = scratch + nf;
	for (size_t f = 0; f < nf; f++) {
		xa[f] = f ? expm1(fa[f]) : exp(fa[f]);
		xb[f] = f ? expm1(fb[f]) : exp(fb[f]);
	}
	double best = INFINITY, al = 0, sep = 0;
	for (int s = 0; s <= MIX_STEPS; s++) {
		double x = (double)s / MIX_STEPS, e2 = 0;
		for (size_t f = 0; f < nf; f++) {
			double m = (1 - x) * xa[f] + x * xb[f];
			double e = (f ? log1p(m) : log(m)) - fi[f];
			e2 += e * e;
		}
		if (e2 < best)
			best = e2, al = x;
	}
	for (size_t f = 0; f < nf; f++)
		sep += (fa[f] - fb[f]) * (fa[f] - fb[f]);
	*alpha = al;
	*d = best;
	return best < MIX_NEAR_LINE * sep;
}

/*
 * Straddling intervals (the file's head).  For each one-interval instance
 * between two others, with a and b the intervals before and after it: the
 * share alpha of b whose mix (1 - alpha) a + alpha b behaves most like the
 * interval, in the behaviour features the nearest-interval search uses
 * (CPI and the pinned events' rates mix linearly with the share of
 * instructions; the features are their logs), and that distance d.  Only
 * an interval near the line between its neighbours (d under
 * MIX_NEAR_LINE of their own distance) is a straddle by the shape of its
 * behaviour: a phase of its own lies off the line, however near a mix
 * comes to it.  Nor is an interval that another interval of its phase
 * behaves as much like as the mix does (nearest_member, within the
 * search's window, leaving out intervals next to the same phases as its
 * neighbours, which may straddle the same change): a one-interval phase that recurs between other phases (a
 * backup's pack write, an inference's element-wise layer) may lie on the
 * line between the two it happens to sit between, but its kin say what
 * it is (docs/benchmarks.md, "Straddles that are members").  An
 * unmeasured event of a straddle takes the mix of a's
 * and b's rates (as measured, or as filled) when the mix's evidence lies
 * nearer than that of its own value (dn).  The mix's evidence is the mix
 * itself, at d, and what its neighbours' values rest on: a neighbour that
 * is a one-interval instance hands over a value of its own filled from
 * evidence at its own distance (nbr_dist), and by the triangle inequality
 * the mix's value lies within
 *     e = (sqrt(d) + wa sqrt(ea) + wb sqrt(eb))^2
 * of its evidence, wa and wb the neighbours' shares of the mixed count.
 * Chosen on the tuning split, docs/benchmarks.md "Straddling intervals"
 * and "Mixes off the line, and mixes of filled values".  The values are
 * computed before any is stored, so that a neighbour's own mix does not
 * feed another's.  Each straddle's alpha is kept (v->mix_alpha): the mlp
 * time model runs a straddle in two parts (models/model.c,
 * straddle_parts).
 */
static void mix_straddles(sl_interp *v, const near_scratch *ns, const by_phase *bp,
			  const float *dn)
{
	const sl_profile *p = v->prof;
	size_t nf = v->n_feat, ne = v->n_events, ni = v->n_instances;
	double *xa = sl_xmalloc(2 * (nf + 1) * sizeof *xa); /* mix_fit's scratch */
	double *alpha = sl_xmalloc((ni + 1) * sizeof *alpha); /* kept: v->mix_alpha */
	double *dmix = sl_xmalloc((ni + 1) * sizeof *dmix); /* the mix's distance d */
	for (size_t j = 0; j < ni; j++) {
		const sl_instance *in = &v->inst[j];
		double al, best;
		alpha[j] = NAN;
		if (in->n != 1 || !mix_fit(v, ns, in->first, xa, &al, &best))
			continue;
		if (!(nearest_member(bp, ns, v, in->first, EDGE_BEFORE | EDGE_AFTER) <= best))
			alpha[j] = al, dmix[j] = best;
	}
	double *out = sl_xmalloc((ni * ne + 1) * sizeof *out);
	for (size_t j = 0; j < ni; j++)
		for (size_t k = 0; k < ne; k++) {
			size_t i = v->inst[j].first;
			out[j * ne + k] = NAN;
			if (isnan(alpha[j]) || sl_interp_src(v, i, k) == SL_SRC_MEASURED)
				continue;
			double ra = rate_of(v, i - 1, k), rb = rate_of(v, i + 1, k);
			double ca = (1 - alpha[j]) * ra, cb = alpha[j] * rb;
			double wa = ca + cb > 0 ? ca / (ca + cb) : 1 - alpha[j], wb = 1 - wa;
			/* a neighbour with no share adds nothing, whatever its distance */
			double e = sqrt(dmix[j]) + (wa > 0 ? wa * sqrt(nbr_dist(v, dn, i - 1, k)) : 0) +
				   (wb > 0 ? wb * sqrt(nbr_dist(v, dn, i + 1, k)) : 0);
			if (!(e * e < dn[j * ne + k]))
				continue;
			out[j * ne + k] = (ca + cb) * (double)p->iv[i].instructions /
					  sl_interp_fill_base(v, i, k);
		}
	for (size_t j = 0; j < ni; j++)
		for (size_t k = 0; k < ne; k++) {
			size_t c = j * ne + k;
			if (isnan(out[c]))
				continue;
			/* one unmeasured interval: move its cell to the new source */
			sl_src was = (sl_src)v->isrc[c];
			v->cells[was]--, v->ev_cells[k * SL_SRC_N + was]--;
			v->cells[SL_SRC_MIXED]++, v->ev_cells[k * SL_SRC_N + SL_SRC_MIXED]++;
			v->imean[c] = out[c];
			v->ioff[c] = NAN;
			v->ihb[c] = NAN;
			v->isrc[c] = SL_SRC_MIXED;
		}
	free(out);
	v->mix_alpha = alpha;
	free(dmix);
	free(xa);
}

/*
 * The edges of longer instances.  A program changes phase inside an
 * interval, so the first interval of an instance may hold the end of the
 * phase before and the last the start of the one after (dense-lu's last
 * panel interval with the row swaps that follow it).  Such an interval,
 * near the line between its neighbours (mix_fit), gets its share alpha of
 * the interval after it in v->edge_alpha, for the time model's two parts
 * (models/model.c, straddle_parts), unless another interval of its
 * phase, away from the same change, behaves as much like it as the mix
 * does (nearest_member on that side): then it is its phase's behaviour,
 * which may lie on the line between two others (raw-develop's resize
 * between a colour table and the thumbnails that share its code).  Its
 * counts are not touched: it is a member of its instance, whose own
 * intervals rate its events.  An edge that is no mix fits at an end of
 * the line (alpha 0 or 1 towards its own instance), and its two parts
 * are one.
 */
static void mix_edges(sl_interp *v, const near_scratch *ns, const by_phase *bp)
{
	size_t n = v->prof->n_intervals;
	double *scratch = sl_xmalloc(2 * (v->n_feat + 1) * sizeof *scratch);
	v->edge_alpha = sl_xmalloc((n + 1) * sizeof *v->edge_alpha);
	for (size_t i = 0; i < n; i++)
		v->edge_alpha[i] = NAN;
	for (size_t j = 0; j < v->n_instances; j++) {
		const sl_instance *in = &v->inst[j];
		if (in->n < 2)
			continue;
		size_t ends[2] = {in->first, in->first + in->n - 1};
		int sides[2] = {EDGE_BEFORE, EDGE_AFTER};
		for (int e = 0; e < 2; e++) {
			double al, d;
			if (mix_fit(v, ns, ends[e], scratch, &al, &d) &&
			    !(nearest_member(bp, ns, v, ends[e], sides[e]) <= d))
				v->edge_alpha[ends[e]] = al;
		}
	}
	free(scratch);
}

/*
 * A filled count bounded by a count of a superset measured in the same
 * interval.  Level 3 borrows a rate from another phase, per a base of
 * its own; where that phase's misses per reference were far above this
 * one's, the borrowed LLC misses came out more than the interval's own
 * measured LLC references (unseen8's dbt-emulate at seed 1: 4.9 million
 * misses of 2.3 million references, 2.1 million true; its power 5.7%
 * too high at 1.60 GHz: docs/benchmarks.md, "A miss is a reference").
 */
void sl_interp_cap(sl_interp *v, size_t k, const char *bound)
{
	if (k >= v->n_events || !bound)
		return;
	int col = sl_profile_event_index(v->prof, bound);
	if (col < 0 || col == v->col[k])
		return;
	if (!v->cap_col) {
		v->cap_col = sl_xmalloc((v->n_events ? v->n_events : 1) * sizeof *v->cap_col);
		for (size_t j = 0; j < v->n_events; j++)
			v->cap_col[j] = -1;
	}
	v->cap_col[k] = col;
}

int sl_interp_build(sl_interp *v, const sl_profile *p, const char *const *events,
		    size_t n_events)
{
	return sl_interp_build_cycles(v, p, events, n_events, NULL, 0);
}

int sl_interp_build_cycles(sl_interp *v, const sl_profile *p, const char *const *events,
			   size_t n_events, const char *const *cycles, size_t n_cycles)
{
	memset(v, 0, sizeof *v);
	if (!p->n_intervals) {
		sl_error_set("the profile has no intervals; profile a run that "
			     "lasts at least one interval");
		return -1;
	}
	if (!p->has_counts && n_events) {
		sl_error_set("the profile has no event counts (backend '%s'); "
			     "profile with the perf backend, or --backend vpmu where there "
			     "is no PMU",
			     p->backend ? p->backend : "?");
		return -1;
	}
	v->prof = p;
	v->n_events = n_events;
	v->events = sl_xcalloc(n_events ? n_events : 1, sizeof *v->events);
	v->col = sl_xcalloc(n_events ? n_events : 1, sizeof *v->col);
	for (size_t k = 0; k < n_events; k++) {
		v->events[k] = sl_xstrdup(events[k]);
		v->col[k] = sl_profile_event_index(p, events[k]);
	}
	v->ev_cells = sl_xcalloc((n_events ? n_events : 1) * SL_SRC_N,
				 sizeof *v->ev_cells);
	build_instances(v, p);
	size_t ne = n_events ? n_events : 1;
	v->imean = sl_xcalloc(v->n_instances * ne, sizeof *v->imean);
	v->isrc = sl_xcalloc(v->n_instances * ne, 1);
	v->iins = sl_xcalloc(v->n_instances * ne, 1);
	v->ioff = sl_xmalloc((v->n_instances * ne + 1) * sizeof *v->ioff);
	v->ihb = sl_xmalloc((v->n_instances * ne + 1) * sizeof *v->ihb);
	double *x = sl_xmalloc((p->n_events + 1) * sizeof *x);
	phase_features(v, x);
	near_scratch ns;
	near_init(&ns, v, x);
	free(x);
	v->tilt = sl_xcalloc(ne * v->n_feat, sizeof *v->tilt);

	acc *ai = sl_xmalloc(v->n_instances * sizeof *ai);
	acc *ap = sl_xmalloc(v->n_phase_ids * sizeof *ap);
	uint64_t *unmeasured = sl_xmalloc(v->n_instances * sizeof *unmeasured);
	int64_t *near = sl_xmalloc(v->n_phase_ids * sizeof *near);
	float *dn = sl_xmalloc((v->n_instances * ne + 1) * sizeof *dn);
	v->norm = sl_xmalloc(ne * sizeof *v->norm);
	v->spread = sl_xmalloc(ne * sizeof *v->spread);
	for (size_t k = 0; k < ne; k++)
		v->norm[k] = -1, v->spread[k] = NAN;
	uint8_t *cyc = sl_xcalloc(p->n_events + 1, 1);
	for (size_t c = 0; c < n_cycles; c++)
		for (size_t j = 0; cycles[c] && j < p->n_events; j++)
			cyc[j] |= !strcmp(p->events[j], cycles[c]);
	v->hcol = sl_xmalloc(ne * sizeof *v->hcol);
	for (size_t k = 0; k < ne; k++)
		v->hcol[k] = -1;
	for (size_t k = 0; k < n_events; k++) {
		int alt;
		v->norm[k] = choose_norm(v, k, cyc, &v->spread[k], &alt);
		v->hcol[k] = v->norm[k] >= 0 ? v->norm[k] : alt;
	}
	free(cyc);
	for (size_t k = 0; k < n_events; k++)
		fill_event(v, k, ai, ap, unmeasured, near, &ns, dn);
	/* the intervals by phase, for both mixes' search of a phase's members */
	by_phase bp;
	by_phase_build(&bp, v);
	mix_straddles(v, &ns, &bp, dn);
	mix_edges(v, &ns, &bp);
	by_phase_free(&bp);
	free(dn);
	/* the intervals' behaviour stays with the view where a tilt reads it */
	int any = 0;
	for (size_t c = 0; c < v->n_instances * n_events && !any; c++)
		any = !isnan(v->ioff[c]);
	if (any)
		v->ifeat = ns.ifeat;
	else
		free(ns.ifeat);
	near_free(&ns);
	free(ai);
	free(ap);
	free(unmeasured);
	free(near);
	return 0;
}

void sl_interp_free(sl_interp *v)
{
	for (size_t k = 0; k < v->n_events; k++)
		free(v->events[k]);
	free(v->events);
	free(v->col);
	free(v->imean);
	free(v->norm);
	free(v->spread);
	free(v->isrc);
	free(v->iins);
	free(v->hcol);
	free(v->ihb);
	free(v->feat);
	free(v->code_feat);
	free(v->cap_col);
	free(v->pinned);
	free(v->ev_cells);
	free(v->inst);
	free(v->inst_of);
	free(v->mix_alpha);
	free(v->edge_alpha);
	free(v->tilt);
	free(v->ioff);
	free(v->ifeat);
	memset(v, 0, sizeof *v);
}

double sl_interp_share(const sl_interp *v, sl_src s)
{
	uint64_t all = 0;
	for (int i = 0; i < SL_SRC_N; i++)
		all += v->cells[i];
	return all ? (double)v->cells[s] / (double)all : 0.0;
}

int sl_interp_event(const sl_interp *v, const char *event)
{
	for (size_t k = 0; k < v->n_events; k++)
		if (!strcmp(v->events[k], event))
			return (int)k;
	return -1;
}

void sl_interp_phase_shares(const sl_interp *v, double (*share)[SL_SRC_N])
{
	const sl_profile *p = v->prof;
	uint64_t *n = sl_xcalloc((size_t)v->n_phase_ids * SL_SRC_N, sizeof *n);
	for (size_t i = 0; i < p->n_intervals; i++) {
		uint64_t *row = n + (size_t)p->iv[i].phase * SL_SRC_N;
		for (size_t k = 0; k < v->n_events; k++)
			row[sl_interp_src(v, i, k)]++;
	}
	for (uint32_t ph = 0; ph < v->n_phase_ids; ph++) {
		uint64_t all = 0, *row = n + (size_t)ph * SL_SRC_N;
		for (int s = 0; s < SL_SRC_N; s++)
			all += row[s];
		for (int s = 0; s < SL_SRC_N; s++)
			share[ph][s] = all ? (double)row[s] / (double)all : 0.0;
	}
	free(n);
}

uint32_t *sl_phase_order(const sl_interp *v, size_t *n)
{
	uint32_t *order = sl_xmalloc((v->n_phase_ids + 1) * sizeof *order);
	char *seen = sl_xcalloc(v->n_phase_ids + 1, 1);
	*n = 0;
	for (size_t j = 0; j < v->n_instances; j++) {
		uint32_t ph = v->inst[j].phase;
		if (!seen[ph]) {
			seen[ph] = 1;
			order[(*n)++] = ph;
		}
	}
	free(seen);
	return order;
}
