/*
 * Refining the time model with a short second run at another frequency.
 *
 * One profile cannot tell every time model what it needs: a reorder buffer
 * that hides whole misses at low frequency, behind stall counters that also
 * count dependency stalls, looks the same at f0 whether it will clip or not
 * (docs/benchmarks.md, "Where the remaining error is").  A second profile
 * of the same program recorded at another frequency f2 measures what the
 * model had to guess, for the intervals it covers.  A deterministic program
 * retires the same instructions at every frequency and intervals are fixed
 * instruction counts, so interval i of the short run is interval i of the
 * main run; we check that (instructions, the program's name, its branch
 * counts), compare the measured cycles at f2 with the model's prediction at
 * f2, and carry the ratio to every target frequency: per interval where
 * measured, else per phase instance, else from the measured instances of
 * its phase (the main profile's) that behave like it, else not at all --
 * a phase's data drifts, and a ratio measured where it clipped corrects
 * its later instances that do not the wrong way.  A dithered profile
 * (models/dither.c) measured every Nth interval of the one run at f2:
 * those intervals feed the same ratios (sl_model_refine_dither), spread
 * over the whole run instead of its prefix.  At f0 the model is exact
 * already (it predicts the cycles counted) and at f2 the measured
 * intervals are then exact; between and beyond, the correction follows a
 * line in f (docs/models.md, "Refinement by a second run").  Only profiles
 * are read, never the simulator.
 *
 * The parameter rule (--refine-rule param) carries instead what the model
 * had to guess: per measured instance, the mlp model's share of its miss
 * stalls that are dependency stalls (or the stall model's factor on its
 * off-chip stall estimate) that makes the model reproduce the cycles at
 * f2, pooled over the like-behaved instances as the ratio is; the model
 * then recomputes each instance from its own counts with it, so a clip
 * follows the instance's own offcore and miss-stall counts.  Where the
 * parameter has no solution (the model barely moves with it) the ratio
 * stands.  It is not the default: on the tuning split it did not beat the
 * ratio (docs/models.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/model.h"
#include "predict_int.h"

/* Aligned intervals must retire the same instructions within this share
 * (the perf backend stops an interval a few instructions late). */
#define REFINE_INS_TOL 0.01
/* The programs' retired conditional branches over the aligned intervals
 * that counted them in both runs must agree within this share. */
#define REFINE_BR_TOL 0.02
/* The carry g(f) is a line through g(f0) = 0 and g(f2) = 1, kept within
 * these bounds beyond f2 and beyond f0 (at most once more the distance). */
#define REFINE_G_MIN (-1.0)
#define REFINE_G_MAX 2.0
/* An unmeasured instance takes the ratio of the measured instances of its
 * phase within SL_LIKE_DIST of its behaviour (see like_measured), among
 * the last this many. */
#define REFINE_LIKE_MAX 64
/* The parameter rule: the parameter's range (the mlp model's pollution
 * share of M, the stall model's factor on its off-chip stall estimate), and
 * the least change of the predicted cycles at f2 across that range, as a
 * share of the measured cycles, for the parameter to have a solution. */
#define REFINE_POL_MAX 1.0
#define REFINE_STALL_MAX 10.0
#define REFINE_PAR_SENS 1e-3
/* A dithered profile's pooled ratio departs from 1 only by what is more
 * than this many standard errors of its intervals' fills.  Chosen on the
 * tuning split (1 and 2 tried, docs/benchmarks.md). */
#define DITHER_Z 2.0
/* The default rule */
#define REFINE_RULE_DEFAULT SL_REFINE_RATIO

/* The cycles at f2 of the measured intervals of one interval or instance,
 * or of the instances like one: measured, and as the model predicts them;
 * and the parameters solved on them, sum of parameter x weight and the
 * weight (0: none solved).  meas = 0: nothing measured. */
typedef struct rsum {
	double meas, pred;
	double par_s, par_w;
	double rn;          /* the measured intervals counted */
} rsum;

static void rsum_add(rsum *a, const rsum *b)
{
	a->meas += b->meas;
	a->pred += b->pred;
	a->par_s += b->par_s;
	a->par_w += b->par_w;
	a->rn += b->rn;
}

struct sl_refine {
	double f2_ghz;
	size_t n_aligned;   /* intervals 0..n_aligned-1 measured at f2 */
	rsum *iv;           /* n_aligned */
	rsum *inst;         /* n_instances */
	rsum *like;         /* n_instances: for an instance none of whose
			       intervals was measured, the measured instances
			       of its phase that behave like it */
	double *par;        /* n_instances: the parameter it takes, NAN: a
			       ratio or nothing */
	int pool;           /* every instance takes its like-behaved measured
			       instances' (its own among them), none its own
			       alone, the departure shrunk by its noise */
	double noise;       /* pool: the fill's relative noise, one interval's */
};

void sl_refine_free(struct sl_refine *r)
{
	if (!r)
		return;
	free(r->iv);
	free(r->inst);
	free(r->like);
	free(r->par);
	free(r);
}

int sl_refine_rule_parse(const char *s, sl_refine_rule *r)
{
	if (!strcmp(s, "ratio"))
		*r = SL_REFINE_RATIO;
	else if (!strcmp(s, "param"))
		*r = SL_REFINE_PARAM;
	else {
		sl_error_set("unknown refinement rule '%s'; use 'ratio' or 'param'", s);
		return -1;
	}
	return 0;
}

const char *sl_refine_rule_name(sl_refine_rule r)
{
	if (r == SL_REFINE_DEFAULT)
		r = REFINE_RULE_DEFAULT;
	return r == SL_REFINE_PARAM ? "param" : "ratio";
}

double sl_refine_param(const sl_model *md, size_t i)
{
	return md->refine->par[md->view.inst_of[i]];
}

/* The carry: 0 at f0, 1 at f2, linear in f between, bounded outside. */
static double carry(double f0, double f2, double f1)
{
	double g = (f1 - f0) / (f2 - f0);
	return g < REFINE_G_MIN ? REFINE_G_MIN : g > REFINE_G_MAX ? REFINE_G_MAX : g;
}

/* The ratio's departure from 1 that a pool of intervals carries: in full
 * from one run's prefix, where each ratio is the model's own error; for a
 * dithered profile, whose intervals' cycles at f0 are filled from their
 * neighbours', shrunk by how much of it the noise of those fills could
 * explain (its standard error over the pool: the whole departure when it
 * is many standard errors, none when it is within DITHER_Z of them). */
static double departure(const struct sl_refine *r, const rsum *x)
{
	double d = x->meas / x->pred - 1;
	if (!r->pool || d == 0)
		return d;
	if (isnan(r->noise))
		return 0;
	double z = DITHER_Z * r->noise / sqrt(x->rn);
	return d * SL_MAX(0.0, 1 - z * z / (d * d));
}

double sl_refine_cycles(const sl_model *md, size_t i, double f1_ghz, double c1)
{
	const struct sl_refine *r = md->refine;
	const sl_interp *v = &md->view;
	const rsum *x = NULL;
	/* the parameter's model (c1) stands */
	if (!isnan(r->par[v->inst_of[i]]))
		return c1;
	/* a dithered interval takes its pool's curve: its own measurement
	 * holds it (sl_dither_cycles) */
	if (!r->pool && i < r->n_aligned && r->iv[i].meas > 0)
		x = &r->iv[i];
	if (!x && !r->pool && r->inst[v->inst_of[i]].meas > 0)
		x = &r->inst[v->inst_of[i]];
	if (!x && r->like[v->inst_of[i]].meas > 0)
		x = &r->like[v->inst_of[i]];
	if (!x)
		return c1;
	double dep = x == &r->iv[i] ? x->meas / x->pred - 1 : departure(r, x);
	double k = 1 + dep * carry(md->f0_ghz, r->f2_ghz, f1_ghz);
	return c1 * SL_MAX(k, 0.0);
}

/* Add interval i's behaviour features to the row `f` (n_feat + a count). */
static void feat_add(const sl_interp *v, size_t i, double *f, double *x)
{
	size_t nf = v->n_feat;
	if (!sl_interp_features(v, i, x))
		return;
	for (size_t j = 0; j < nf; j++)
		if (isnan(x[j]))
			return;
	for (size_t j = 0; j < nf; j++)
		f[j] += x[j];
	f[nf]++;
}

/*
 * r->like: for every instance without a measured interval, the sums of
 * the measured instances of its phase (the last REFINE_LIKE_MAX of them)
 * whose behaviour is within SL_LIKE_DIST of its own.  Behaviour is the
 * interpolation's (log CPI and the pinned events' log rates, mean over the
 * instance's intervals; over its measured ones for a measured instance).
 * A phase's later instances need not behave like its early ones (its data
 * drifts, a second behaviour of the same code appears), and a ratio
 * measured on unlike intervals corrects the wrong way.
 */
static void like_measured(const sl_model *md, struct sl_refine *r)
{
	const sl_interp *v = &md->view;
	size_t ni = v->n_instances, nf = v->n_feat, w = nf + 1, np = v->n_phase_ids;
	double *fa = sl_xcalloc(ni * w, sizeof *fa), *fm = sl_xcalloc(ni * w, sizeof *fm);
	double *x = sl_xcalloc(nf, sizeof *x);
	for (size_t i = 0; i < md->prof->n_intervals; i++) {
		feat_add(v, i, fa + v->inst_of[i] * w, x);
		if (i < r->n_aligned && r->iv[i].meas > 0)
			feat_add(v, i, fm + v->inst_of[i] * w, x);
	}
	for (size_t j = 0; j < ni * 2; j++) {
		double *row = (j < ni ? fa : fm) + (j % ni) * w;
		for (size_t k = 0; row[nf] > 0 && k < nf; k++)
			row[k] /= row[nf];
	}
	/* a measured instance whose measured intervals have no behaviour at
	 * f0 of their own (dithered ones: their cycles at f0 are filled) is
	 * judged by its instance's */
	for (size_t j = 0; j < ni; j++)
		if (r->inst[j].meas > 0 && !(fm[j * w + nf] > 0))
			memcpy(fm + j * w, fa + j * w, w * sizeof *fm);
	/* the measured instances of each phase, the last REFINE_LIKE_MAX */
	size_t *first = sl_xcalloc(np + 1, sizeof *first), *list = sl_xcalloc(ni + 1, sizeof *list);
	for (size_t j = 0; j < ni; j++)
		first[v->inst[j].phase + 1] += r->inst[j].meas > 0 && fm[j * w + nf] > 0;
	for (size_t ph = 0; ph < np; ph++)
		first[ph + 1] += first[ph];
	size_t *fill = sl_xcalloc(np, sizeof *fill);
	for (size_t j = 0; j < ni; j++)
		if (r->inst[j].meas > 0 && fm[j * w + nf] > 0) {
			uint32_t ph = v->inst[j].phase;
			list[first[ph] + fill[ph]++] = j;
		}
	r->like = sl_xcalloc(ni, sizeof *r->like);
	for (size_t j = 0; j < ni; j++) {
		uint32_t ph = v->inst[j].phase;
		if ((!r->pool && r->inst[j].meas > 0) || !(fa[j * w + nf] > 0))
			continue;
		size_t a = first[ph], b = first[ph + 1];
		if (b - a > REFINE_LIKE_MAX)
			a = b - REFINE_LIKE_MAX;
		for (size_t q = a; q < b; q++) {
			size_t k = list[q];
			if (sl_feat_dist2(fa + j * w, fm + k * w, nf) >
			    SL_LIKE_DIST * SL_LIKE_DIST)
				continue;
			rsum_add(&r->like[j], &r->inst[k]);
		}
	}
	free(fa);
	free(fm);
	free(x);
	free(first);
	free(list);
	free(fill);
}

/*
 * The parameter rule: the time model's uncertain parameter (the mlp
 * model's pollution share of M, the stall model's factor on its off-chip
 * stall estimate) that makes the model reproduce the cycles measured at
 * f2 over the measured intervals [a, b), through the model's own code
 * (sl_model_cycles_par).  The predicted cycles are monotone in it
 * (docs/models.md), so bisect; a measurement beyond the range takes its
 * bound.  NAN when the model has no parameter or its prediction barely
 * moves across the range (the mlp model where the ROB never clips at
 * f2); *w the change across the range, the solution's weight.
 */
static double solve_param(const sl_model *md, const struct sl_refine *r, size_t a, size_t b,
			  double *w)
{
	double lo = 0, hi = md->time == SL_TIME_MLP ? REFINE_POL_MAX : REFINE_STALL_MAX;
	double meas = 0, plo = 0, phi = 0;
	if (md->time == SL_TIME_LINEAR)
		return NAN;
	for (size_t i = a; i < b; i++)
		if (r->iv[i].meas > 0) {
			meas += r->iv[i].meas;
			plo += sl_model_cycles_par(md, i, r->f2_ghz, lo);
			phi += sl_model_cycles_par(md, i, r->f2_ghz, hi);
		}
	*w = fabs(phi - plo);
	if (!(meas > 0) || !(*w > REFINE_PAR_SENS * meas))
		return NAN;
	double dir = phi > plo ? 1 : -1;
	if (dir * (meas - plo) <= 0)
		return lo;
	if (dir * (meas - phi) >= 0)
		return hi;
	for (int it = 0; it < 50; it++) {
		double mid = 0.5 * (lo + hi), pm = 0;
		for (size_t i = a; i < b; i++)
			if (r->iv[i].meas > 0)
				pm += sl_model_cycles_par(md, i, r->f2_ghz, mid);
		if (dir * (pm - meas) < 0)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* Solve the parameter of every measured instance (its measured intervals
 * are a run of the prefix). */
static void solve_instances(const sl_model *md, struct sl_refine *r)
{
	const sl_interp *v = &md->view;
	for (size_t a = 0, b; a < r->n_aligned; a = b) {
		size_t j = v->inst_of[a];
		for (b = a + 1; b < r->n_aligned && v->inst_of[b] == j; b++)
			;
		double w, x = solve_param(md, r, a, b, &w);
		if (!isnan(x)) {
			r->inst[j].par_s = x * w;
			r->inst[j].par_w = w;
		}
	}
}

/* Which level corrects each instance, and its parameter (r->par). */
static void assign_levels(const sl_model *md, struct sl_refine *r, sl_refine_info *info)
{
	const sl_interp *v = &md->view;
	r->par = sl_xcalloc(v->n_instances, sizeof *r->par);
	for (size_t j = 0; j < v->n_instances; j++) {
		int own = !r->pool && r->inst[j].meas > 0;
		const rsum *x = own ? &r->inst[j] : &r->like[j];
		sl_refine_level l;
		r->par[j] = NAN;
		if (x->par_w > 0) {
			r->par[j] = x->par_s / x->par_w;
			l = own ? SL_REFINE_PARAM_OWN : SL_REFINE_PARAM_LIKE;
		} else if (x->meas > 0)
			l = own ? SL_REFINE_RATIO_OWN : SL_REFINE_RATIO_LIKE;
		else
			l = SL_REFINE_NONE;
		info->by_level[l]++;
	}
}

/* The two runs' program names, when both carry one: the trace's label for
 * replays, the command otherwise. */
static const char *program_name(const sl_profile *p)
{
	return p->workload && *p->workload ? p->workload : p->command;
}

/* Refuse a short run that is not the same program at another frequency;
 * *n the intervals to use. */
static int check_alignment(const sl_model *md, const sl_profile *p2, const char *path,
			   size_t *n)
{
	const sl_profile *p = md->prof;
	if (sl_model_check_profile(p2) < 0) {
		sl_error_prefix("--refine %s: ", path);
		return -1;
	}
	char *where = sl_xasprintf("--refine %s", path);
	int one = sl_profile_one_freq(p2, where, "record the short run at one fixed P-state");
	free(where);
	if (one < 0)
		return -1;
	if (fabs(p2->freq_ghz - p->freq_ghz) < SL_SAME_GHZ) {
		sl_error_set("--refine %s was recorded at %.2f GHz, the profile's own frequency: "
			     "it measures nothing new; record the short run at another P-state",
			     path, p2->freq_ghz);
		return -1;
	}
	const char *a = program_name(p), *b = program_name(p2);
	int replay = p->workload && *p->workload && p2->workload && *p2->workload;
	if (replay && strcmp(a, b)) {
		sl_error_set("--refine %s is a run of '%s', the profile one of '%s'; record the "
			     "short run of the same program", path, b, a);
		return -1;
	}
	if (p2->n_intervals == 0 || p2->n_intervals > p->n_intervals) {
		sl_error_set("--refine %s has %zu intervals, the profile %zu: not a shorter run "
			     "of the same program; record the short run of the same program "
			     "with the same interval length", path, p2->n_intervals, p->n_intervals);
		return -1;
	}
	*n = p2->n_intervals;
	for (size_t i = 0; i < *n; i++) {
		double x = (double)p->iv[i].instructions, y = (double)p2->iv[i].instructions;
		if (fabs(x - y) <= REFINE_INS_TOL * x)
			continue;
		/* a run stopped early ends with a partial interval */
		if (i == *n - 1 && y < x && i > 0) {
			(*n)--;
			break;
		}
		sl_error_set("--refine %s: interval %zu retired %.0f instructions, the profile's "
			     "%.0f: not the same program with the same interval length; record "
			     "the short run of the same program with the same interval length",
			     path, i, y, x);
		return -1;
	}
	/* the same instruction counts with fixed intervals say little: the
	 * branches retired, where both counted them, must agree too */
	const char *br = sl_machine_role(md->mach, "branch_sample");
	int k0 = br ? sl_profile_event_index(p, br) : -1;
	int k2 = br ? sl_profile_event_index(p2, br) : -1;
	double s0 = 0, s2 = 0;
	for (size_t i = 0; k0 >= 0 && k2 >= 0 && i < *n; i++) {
		uint64_t x = sl_prof_count(p, i, (size_t)k0), y = sl_prof_count(p2, i, (size_t)k2);
		if (x != SL_MISSING && y != SL_MISSING) {
			s0 += (double)x;
			s2 += (double)y;
		}
	}
	if (fabs(s2 - s0) > REFINE_BR_TOL * s0) {
		sl_error_set("--refine %s retired %.0f conditional branches where the profile "
			     "retired %.0f in the same intervals: not the same program; record "
			     "the short run of the same program", path, s2, s0);
		return -1;
	}
	return 0;
}

/*
 * The refinement from the cycles measured at f2 in intervals 0..n-1
 * (meas[i], 0: not measured): those of a short second run's prefix, or
 * a dithered profile's own intervals at f2.  Everything after this point
 * is the same for both.
 */
static void refine_build(sl_model *md, double f2, const uint64_t *meas, const uint8_t *alone,
			 double noise, size_t n, sl_refine_info *info)
{
	const sl_interp *v = &md->view;
	const sl_profile *p = md->prof;
	struct sl_refine *r = sl_xcalloc(1, sizeof *r);
	r->f2_ghz = f2;
	r->n_aligned = n;
	r->pool = alone != NULL;
	r->noise = noise;
	r->iv = sl_xcalloc(n, sizeof *r->iv);
	r->inst = sl_xcalloc(v->n_instances, sizeof *r->inst);
	memset(info, 0, sizeof *info);
	for (size_t i = 0; i < n; i++) {
		if (!meas[i])
			continue;
		rsum x = {(double)meas[i], sl_model_cycles_par(md, i, f2, NAN), 0, 0, 1};
		if (!(x.meas > 0 && x.pred > 0))
			continue;
		r->iv[i] = x;
		info->intervals++;
		/* an interval unlike its instance corrects itself alone */
		if (!alone || !alone[i])
			rsum_add(&r->inst[v->inst_of[i]], &x);
	}
	info->f2_ghz = f2;
	info->n_intervals = p->n_intervals;
	info->n_instances = v->n_instances;
	/* phases with intervals (ids can have gaps: seen 1), and with a
	 * measured one (seen 2) */
	uint8_t *seen = sl_xcalloc(v->n_phase_ids, 1);
	for (size_t j = 0; j < v->n_instances; j++) {
		uint8_t *s = &seen[v->inst[j].phase];
		int m = r->inst[j].meas > 0;
		info->instances += m;
		info->n_phases += !*s;
		info->phases += m && *s < 2;
		*s = SL_MAX(*s, 1 + m);
	}
	free(seen);
	info->rule = md->refine_rule ? md->refine_rule : REFINE_RULE_DEFAULT;
	if (info->rule == SL_REFINE_PARAM)
		solve_instances(md, r);
	like_measured(md, r);
	assign_levels(md, r, info);
	md->refine = r;
}

static int refine_once(const sl_model *md)
{
	if (!md->refine)
		return 0;
	sl_error_set("the model is refined already; give --refine once");
	return -1;
}

int sl_model_refine(sl_model *md, const sl_profile *p2, const char *path,
		    sl_refine_info *info)
{
	size_t n;
	if (refine_once(md) < 0)
		return -1;
	if (md->dither) {
		sl_error_set("the profile is dithered: it refines itself with its own "
			     "intervals at another frequency, not with %s; leave out --refine "
			     "(--refine off: not refined at all)", path);
		return -1;
	}
	if (check_alignment(md, p2, path, &n) < 0)
		return -1;
	uint64_t *meas = sl_xcalloc(n + 1, sizeof *meas);
	for (size_t i = 0; i < n; i++)
		meas[i] = p2->iv[i].cycles;
	refine_build(md, p2->freq_ghz, meas, NULL, 0, n, info);
	free(meas);
	return 0;
}

int sl_model_refine_dither(sl_model *md, sl_refine_info *info)
{
	double f2;
	size_t nd;
	const uint8_t *alone;
	double noise;
	const uint64_t *meas = sl_dither_measured(md, &f2, &nd, &alone, &noise);
	if (!meas)
		return 0;
	if (refine_once(md) < 0)
		return -1;
	refine_build(md, f2, meas, alone, noise, md->prof->n_intervals, info);
	return 1;
}

int sl_model_refine_by(sl_model *md, const char *by, sl_refine_info *info)
{
	if (by && !strcmp(by, "off"))
		return 0;
	if (!by)
		return sl_model_refine_dither(md, info);
	return sl_model_refine_file(md, by, info) < 0 ? -1 : 1;
}

int sl_model_refine_file(sl_model *md, const char *path, sl_refine_info *info)
{
	sl_profile p2;
	sl_profile_init(&p2);
	int rc = sl_profile_read(path, &p2);
	if (rc < 0)
		sl_error_prefix("--refine: ");
	if (rc == 0)
		rc = sl_model_refine(md, &p2, path, info);
	sl_profile_free(&p2);
	return rc;
}
