/*
 * The exact search of the global scope: an incumbent from the Lagrangian
 * hull walk, lower bounds from an envelope of Lagrangian relaxations,
 * reduction of options, and dynamic programming over Pareto frontiers of
 * (time, energy) keyed by the open phases' options; when switch costs
 * couple too many phases, local search instead.  docs/schedule.md explains
 * the method and what is exact.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schedule-int.h"

/* ---- incumbent and bounds ----------------------------------------------
 * Walking down the lower convex hulls of the phases' (time, energy) options,
 * best savings rate first, visits every Lagrangian (supported) solution; the
 * best of them within the bound is a strong starting incumbent, and the rate
 * where the walk crosses the bound is the LP relaxation's multiplier. */

typedef struct step {
	double rate;     /* energy saved per second added */
	uint32_t k;
	int p;           /* the P-state the phase moves to */
	double dt;       /* unary time added */
} step;

static int step_cmp(const void *x, const void *y)
{
	const step *a = x, *b = y;
	if (a->rate != b->rate)
		return a->rate > b->rate ? -1 : 1;
	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	return a->dt < b->dt ? -1 : a->dt > b->dt;
}

/* Multipliers for the Lagrangian bounds: a spread around the relevant
 * slope, so that the envelope of their tangents follows the relaxation's
 * hull over the whole range of total time a partial schedule can reach. */
#define NLAM 24
static const double lam_spread[NLAM - 1] = {
	0.3, 0.6, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999, 0.9995, 1,
	1.0005, 1.001, 1.002, 1.005, 1.01, 1.02, 1.05, 1.1, 1.2, 1.4, 2};

typedef struct search {
	int *x;          /* current best (incumbent) map */
	double f;        /* its objective, INFINITY if none */
	double T, E;
	double lam[NLAM]; /* multipliers, descending and distinct */
	size_t nlam;
	double lam_budget; /* where the hull walk crosses the time bound */
} search;

static int dbl_desc(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a < b) - (a > b);
}

/*
 * The LP's multiplier for the time bound, and a spread around the slope
 * that matters: for EDP and ED2P the slope k E / T of the objective's level
 * line at the incumbent (where the relaxed optimum touches the hull), for
 * energy the bound's own.
 */
static void set_lambdas(const prob *pr, search *s)
{
	double c = s->lam_budget;
	if (pr->k > 0 && isfinite(s->f))
		c = SL_MAX(c, pr->k * s->E / s->T);
	double l[NLAM];
	size_t n = 0;
	l[n++] = s->lam_budget;
	if (c > 0)
		for (size_t i = 0; i < NLAM - 1; i++)
			l[n++] = c * lam_spread[i];
	qsort(l, n, sizeof *l, dbl_desc);
	s->nlam = 0;
	for (size_t i = 0; i < n; i++)
		if (!s->nlam || l[i] < s->lam[s->nlam - 1])
			s->lam[s->nlam++] = l[i];
}

static void consider(const prob *pr, search *s, const int *x, double T, double E)
{
	double f = fobj(pr, T, E);
	if (T <= pr->B && f < s->f) {
		s->f = f;
		s->T = T;
		s->E = E;
		memcpy(s->x, x, pr->K * sizeof *x);
	}
}

/* Sort a phase's options by time and keep the lower-left convex hull. */
static size_t phase_hull(const prob *pr, size_t k, int *h)
{
	size_t P = pr->P, n = 0;
	const double *ut = pr->ut + k * P, *ue = pr->ue + k * P;
	int *o = sl_xmalloc(P * sizeof *o);
	size_t no = pr->nopt[k];
	memcpy(o, pr->opt + k * P, no * sizeof *o);
	/* insertion sort by (time, energy): P is small */
	for (size_t i = 1; i < no; i++)
		for (size_t j = i; j > 0; j--) {
			int a = o[j - 1], b = o[j];
			if (ut[a] < ut[b] || (ut[a] == ut[b] && ue[a] <= ue[b]))
				break;
			o[j - 1] = b;
			o[j] = a;
		}
	for (size_t i = 0; i < no; i++) {
		int q = o[i];
		if (n && ue[q] >= ue[h[n - 1]])
			continue; /* dominated */
		while (n >= 2) {
			int a = h[n - 2], b = h[n - 1];
			double cr = (ut[b] - ut[a]) * (ue[q] - ue[a]) -
				    (ue[b] - ue[a]) * (ut[q] - ut[a]);
			if (cr > 0)
				break;
			n--;
		}
		h[n++] = q;
	}
	free(o);
	return n;
}

/* Incumbent from the hull walk and from every uniform frequency; sets the
 * multipliers.  Returns the least unary time (for the infeasibility test). */
static double hull_walk(const prob *pr, search *s)
{
	size_t P = pr->P, K = pr->K;
	int *x = sl_xmalloc(K * sizeof *x);
	int *h = sl_xmalloc(P * sizeof *h);
	step *st = NULL;
	size_t nst = 0, cst = 0;
	double Tu = pr->T0;
	for (size_t k = 0; k < K; k++) {
		x[k] = (int)pr->t->baseline;
		if (!pr->live[k])
			continue;
		size_t n = phase_hull(pr, k, h);
		x[k] = h[0];
		Tu += pr->ut[k * P + (size_t)h[0]];
		for (size_t j = 1; j < n; j++) {
			double dt = pr->ut[k * P + (size_t)h[j]] - pr->ut[k * P + (size_t)h[j - 1]];
			double de = pr->ue[k * P + (size_t)h[j]] - pr->ue[k * P + (size_t)h[j - 1]];
			SL_GROW(st, nst, cst);
			st[nst++] = (step){-de / dt, (uint32_t)k, h[j], dt};
		}
	}
	double Tmin = Tu;
	if (nst)
		qsort(st, nst, sizeof *st, step_cmp);
	double T, E;
	sl_sched_prob_eval(pr, x, &T, &E);
	consider(pr, s, x, T, E);
	double lam_budget = 0;
	int crossed = Tu > pr->B;
	for (size_t i = 0; i < nst; i++) {
		double dT, dE;
		sl_sched_phase_delta(pr, x, st[i].k, st[i].p, &dT, &dE);
		x[st[i].k] = st[i].p;
		T += dT;
		E += dE;
		Tu += st[i].dt;
		if (!crossed && Tu > pr->B) {
			crossed = 1;
			lam_budget = st[i].rate;
		}
		consider(pr, s, x, T, E);
	}
	/* uniform frequencies: often best when switches cost much */
	for (size_t p = 0; p < P; p++) {
		int ok = 1;
		for (size_t k = 0; k < K && ok; k++) {
			x[k] = (int)p;
			if (pr->live[k] && (pr->o->power_cap_w > 0) &&
			    pr->upk[k * P + p] > pr->o->power_cap_w)
				ok = 0;
		}
		if (ok) {
			sl_sched_prob_eval(pr, x, &T, &E);
			consider(pr, s, x, T, E);
		}
	}
	s->lam_budget = lam_budget;
	set_lambdas(pr, s);
	free(st);
	free(h);
	free(x);
	return Tmin;
}

/* Suffix sums over the assignment order: least time, least energy and the
 * Lagrangian values D(lambda) = sum min(e + lambda t) of phases not yet set. */
typedef struct suffix {
	double *tmin, *emin, *d[NLAM];
} suffix;

static void suffix_build(const prob *pr, const search *s, const uint32_t *order,
			 size_t L, suffix *sf)
{
	size_t P = pr->P;
	sf->tmin = sl_xcalloc(L + 1, sizeof(double));
	sf->emin = sl_xcalloc(L + 1, sizeof(double));
	for (size_t l = 0; l < NLAM; l++)
		sf->d[l] = sl_xcalloc(L + 1, sizeof(double));
	for (size_t j = L; j-- > 0;) {
		size_t k = order[j];
		double tm = INFINITY, em = INFINITY, dm[NLAM];
		for (size_t l = 0; l < NLAM; l++)
			dm[l] = INFINITY;
		for (size_t i = 0; i < pr->nopt[k]; i++) {
			size_t p = (size_t)pr->opt[k * P + i];
			double t = pr->ut[k * P + p], e = pr->ue[k * P + p];
			tm = SL_MIN(tm, t);
			em = SL_MIN(em, e);
			for (size_t l = 0; l < s->nlam; l++)
				dm[l] = SL_MIN(dm[l], e + s->lam[l] * t);
		}
		sf->tmin[j] = sf->tmin[j + 1] + tm;
		sf->emin[j] = sf->emin[j + 1] + em;
		for (size_t l = 0; l < s->nlam; l++)
			sf->d[l][j] = sf->d[l][j + 1] + dm[l];
	}
}

static void suffix_free(suffix *sf)
{
	free(sf->tmin);
	free(sf->emin);
	for (size_t l = 0; l < NLAM; l++)
		free(sf->d[l]);
}

static double powk(double x, int k)
{
	return k == 0 ? 1 : k == 1 ? x : x * x;
}

/* What the phases still free contribute at least: least time, least energy,
 * and the Lagrangian values D(lambda) = sum of min(e + lambda t). */
typedef struct rest {
	double tmin, emin, d[NLAM];
} rest;

static rest suffix_at(const suffix *sf, size_t j)
{
	rest r = {sf->tmin[j], sf->emin[j], {0}};
	for (size_t l = 0; l < NLAM; l++)
		r.d[l] = sf->d[l][j];
	return r;
}

/*
 * A lower bound on the objective of any completion of a partial schedule
 * (T, E) whose other phases are still free (their least contributions in
 * `r`).  Switches still to come cost >= 0, so the unary relaxation is valid.
 * With X the total unary time, X in [lo, B]: for every multiplier lambda,
 * E_total >= C - lambda X with C = E + lambda T + D(lambda), and
 * E_total >= F.  So E_total >= g(X), the upper envelope of these lines, and
 * the objective >= min over X of g(X) X^k.  On each piece of the envelope
 * (c - lambda X) X^k rises then falls (or only rises), so the minimum is at
 * lo, at B or at a breakpoint: a handful of evaluations.
 */
static double lower_bound(const prob *pr, const search *s, const rest *r,
			  double T, double E)
{
	double lo = T + r->tmin, F = E + r->emin, B = pr->B;
	if (lo > B)
		return INFINITY;
	/* lines y = q - lam X by decreasing lam (increasing slope), the floor
	 * F last; the envelope from left to right uses them in this order */
	double q[NLAM + 1], m[NLAM + 1];
	size_t n = 0;
	for (size_t l = 0; l <= s->nlam; l++) {
		double lam = l < s->nlam ? s->lam[l] : 0;
		double ql = l < s->nlam ? E + lam * T + r->d[l] : F;
		if (l < s->nlam && lam == 0)
			ql = SL_MAX(ql, F); /* merges with the floor */
		if (l == s->nlam && n && m[n - 1] == 0) {
			q[n - 1] = SL_MAX(q[n - 1], F);
			continue;
		}
		/* a line below the envelope at B and steeper adds nothing
		 * right of it; the standard hull pop handles the rest */
		while (n >= 2) {
			/* middle line n-1 is useless if (n-2, l) meet left of
			 * where (n-2, n-1) meet */
			double x1 = (q[n - 2] - q[n - 1]) / (m[n - 1] - m[n - 2]);
			double x2 = (q[n - 2] - ql) / (-lam - m[n - 2]);
			if (x2 > x1)
				break;
			n--;
		}
		q[n] = ql;
		m[n] = -lam;
		n++;
	}
	int k = pr->k;
	double best = INFINITY;
	size_t a = 0;
	/* the piece active at lo */
	while (a + 1 < n && (q[a] - q[a + 1]) / (m[a + 1] - m[a]) <= lo)
		a++;
	double x = lo;
	for (;;) {
		best = SL_MIN(best, (q[a] + m[a] * x) * powk(x, k));
		if (a + 1 >= n)
			break;
		double nx = (q[a] - q[a + 1]) / (m[a + 1] - m[a]);
		if (nx >= B)
			break;
		x = nx;
		a++;
	}
	return SL_MIN(best, (q[a] + m[a] * B) * powk(B, k));
}

/*
 * Reduction: an option whose best conceivable schedule (that phase forced to
 * it, every other phase relaxed) cannot beat the incumbent is dropped.  With
 * a good incumbent this leaves a small core of phases with more than one
 * option, and the DP's frontiers stay small.  The incumbent's own options
 * always survive.  Returns the relaxation's bound on the whole problem.
 */
static double reduce_options(prob *pr, const search *s, double *score)
{
	size_t P = pr->P, K = pr->K;
	rest all = {0, 0, {0}};
	rest *own = sl_xcalloc(K, sizeof *own);
	for (size_t k = 0; k < K; k++) {
		if (!pr->live[k])
			continue;
		rest *o = &own[k];
		o->tmin = o->emin = INFINITY;
		for (size_t l = 0; l < NLAM; l++)
			o->d[l] = INFINITY;
		for (size_t i = 0; i < pr->nopt[k]; i++) {
			size_t p = (size_t)pr->opt[k * P + i];
			double t = pr->ut[k * P + p], e = pr->ue[k * P + p];
			o->tmin = SL_MIN(o->tmin, t);
			o->emin = SL_MIN(o->emin, e);
			for (size_t l = 0; l < s->nlam; l++)
				o->d[l] = SL_MIN(o->d[l], e + s->lam[l] * t);
		}
		all.tmin += o->tmin;
		all.emin += o->emin;
		for (size_t l = 0; l < s->nlam; l++)
			all.d[l] += o->d[l];
	}
	double cutoff = s->f * (1 + 1e-9);
	for (size_t k = 0; k < K; k++) {
		if (!pr->live[k])
			continue;
		rest r = all;
		r.tmin -= own[k].tmin;
		r.emin -= own[k].emin;
		for (size_t l = 0; l < s->nlam; l++)
			r.d[l] -= own[k].d[l];
		size_t n = 0;
		score[k] = INFINITY;
		for (size_t i = 0; i < pr->nopt[k]; i++) {
			int p = pr->opt[k * P + i];
			double T = pr->T0 + pr->ut[k * P + (size_t)p];
			double E = pr->E0 + pr->ue[k * P + (size_t)p];
			double lb = lower_bound(pr, s, &r, T, E);
			if (p != s->x[k])
				score[k] = SL_MIN(score[k], lb);
			if (p == s->x[k] || lb <= cutoff)
				pr->opt[k * P + n++] = p;
		}
		pr->nopt[k] = n;
	}
	free(own);
	return lower_bound(pr, s, &all, pr->T0, pr->E0);
}

/* ---- exact DP ---------------------------------------------------------- */

typedef struct state {
	double T, E;
	uint32_t key;     /* options of the open phases, mixed radix */
	int32_t parent;   /* index in the previous stage's range */
	uint16_t opt;     /* option index of this stage's phase */
} state;

static int state_cmp(const void *x, const void *y)
{
	const state *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->T != b->T)
		return a->T < b->T ? -1 : 1;
	return (a->E > b->E) - (a->E < b->E);
}

/* The largest key count (product of option counts of phases set but still
 * adjacent to unset ones) the DP meets with this order. */
static double order_width(const prob *pr, const uint32_t *order, size_t L)
{
	size_t K = pr->K;
	size_t *rem = sl_xcalloc(K, sizeof *rem);
	unsigned char *open = sl_xcalloc(K, 1);
	double worst = 1, sz = 1;
	for (size_t k = 0; k < K; k++)
		rem[k] = pr->adj_off[k + 1] - pr->adj_off[k];
	for (size_t j = 0; j < L; j++) {
		uint32_t v = order[j];
		for (size_t q = pr->adj_off[v]; q < pr->adj_off[v + 1]; q++) {
			uint32_t u = pr->adj[q].other;
			if (--rem[u] == 0 && open[u]) {
				open[u] = 0;
				sz /= (double)pr->nopt[u];
			}
		}
		if (rem[v]) {
			open[v] = 1;
			sz *= (double)pr->nopt[v];
		}
		worst = SL_MAX(worst, sz);
	}
	free(rem);
	free(open);
	return worst;
}

/*
 * Greedy order: at each step the phase that leaves the fewest keys, ties to
 * the one with fewest unset neighbours (so that a chain is walked from an
 * end).
 */
static void greedy_order(const prob *pr, uint32_t *order, size_t L, size_t nf)
{
	size_t K = pr->K;
	unsigned char *set = sl_xcalloc(K, 1), *mark = sl_xcalloc(K, 1);
	size_t *rem = sl_xcalloc(K, sizeof *rem);
	uint32_t *act = sl_xmalloc((K + 1) * sizeof *act);
	size_t na = 0;
	for (size_t k = 0; k < K; k++)
		rem[k] = pr->adj_off[k + 1] - pr->adj_off[k];
	for (size_t j = 0; j < L; j++) {
		double bestsz = INFINITY;
		size_t bv = j < nf ? order[j] : 0;
		for (size_t v = 0; v < K && j >= nf; v++) {
			if (!pr->live[v] || set[v])
				continue;
			for (size_t q = pr->adj_off[v]; q < pr->adj_off[v + 1]; q++)
				mark[pr->adj[q].other] = 1;
			double sz = rem[v] ? (double)pr->nopt[v] : 1;
			for (size_t a = 0; a < na; a++)
				if (rem[act[a]] - mark[act[a]] > 0)
					sz *= (double)pr->nopt[act[a]];
			for (size_t q = pr->adj_off[v]; q < pr->adj_off[v + 1]; q++)
				mark[pr->adj[q].other] = 0;
			if (sz < bestsz || (sz == bestsz && rem[v] < rem[bv])) {
				bestsz = sz;
				bv = v;
			}
			if (!na && !rem[v])
				break; /* an isolated phase: nothing is cheaper */
		}
		order[j] = (uint32_t)bv;
		set[bv] = 1;
		for (size_t q = pr->adj_off[bv]; q < pr->adj_off[bv + 1]; q++)
			rem[pr->adj[q].other]--;
		size_t m = 0;
		for (size_t a = 0; a < na; a++)
			if (rem[act[a]])
				act[m++] = act[a];
		if (rem[bv])
			act[m++] = (uint32_t)bv;
		na = m;
	}
	free(set);
	free(mark);
	free(rem);
	free(act);
}

/*
 * The order in which the DP fixes phases: first those left with one option
 * (they never multiply states), then the order of first appearance in the
 * run (right for loops and chains of phases) or the greedy one, whichever
 * keeps fewer keys.  Returns that key count, which decides
 * whether the exact DP is attempted.
 */
static double choose_order(const prob *pr, uint32_t *order, size_t L)
{
	size_t n = 0, nf = 0;
	unsigned char *seen = sl_xcalloc(pr->K, 1);
	for (size_t k = 0; k < pr->K; k++)
		if (pr->live[k] && pr->nopt[k] == 1) {
			seen[k] = 1;
			order[n++] = (uint32_t)k;
		}
	nf = n;
	for (size_t i = 0; i < pr->N; i++) {
		uint32_t k = pr->t->phase[i];
		if (pr->live[k] && !seen[k]) {
			seen[k] = 1;
			order[n++] = k;
		}
	}
	free(seen);
	double w = order_width(pr, order, L);
	if (w <= 1 || !pr->ne)
		return w;
	uint32_t *g = sl_xmalloc((L + 1) * sizeof *g);
	memcpy(g, order, nf * sizeof *g);
	greedy_order(pr, g, L, nf);
	double wg = order_width(pr, g, L);
	if (wg < w) {
		memcpy(order, g, L * sizeof *g);
		w = wg;
	}
	free(g);
	return w;
}

/* Open phases after each stage, replayed from the order. */
typedef struct openset {
	uint32_t *ph;
	uint32_t *mult;
	size_t n;
} openset;

/*
 * The DP proper.  1: solved, s->x holds the optimum (or the incumbent was
 * already optimal); 0: the state limit was hit (caller falls back).
 */
static int dp_solve(const prob *pr, search *s, const uint32_t *order, size_t L)
{
	size_t P = pr->P, K = pr->K;
	suffix sf;
	suffix_build(pr, s, order, L, &sf);
	state *all = NULL;
	size_t nall = 0, call = 0;
	size_t *stage_off = sl_xmalloc((L + 2) * sizeof *stage_off);
	SL_GROW(all, nall, call);
	all[nall++] = (state){pr->T0, pr->E0, 0, -1, 0};
	stage_off[0] = 0;
	stage_off[1] = 1;
	size_t *rem = sl_xcalloc(K, sizeof *rem);
	for (size_t k = 0; k < K; k++)
		rem[k] = pr->adj_off[k + 1] - pr->adj_off[k];
	openset cur = {sl_xmalloc((K + 1) * sizeof(uint32_t)),
		       sl_xmalloc((K + 1) * sizeof(uint32_t)), 0};
	openset nxt = {sl_xmalloc((K + 1) * sizeof(uint32_t)),
		       sl_xmalloc((K + 1) * sizeof(uint32_t)), 0};
	int *src = sl_xmalloc((K + 1) * sizeof *src);
	uint32_t *dig = sl_xmalloc((K + 1) * sizeof *dig);
	long *pos_of = sl_xmalloc(K * sizeof *pos_of);
	for (size_t k = 0; k < K; k++)
		pos_of[k] = -1;
	struct vedge { size_t pos; const edge *e; int v_is_a; } *ve =
		sl_xmalloc((K + 1) * sizeof *ve);
	state *cand = NULL;
	size_t ccap = 0;
	int ok = 1;
	size_t work = 0;
	double cutoff = s->f * (1 + 1e-9);
	for (size_t j = 0; j < L && ok; j++) {
		uint32_t v = order[j];
		for (size_t a = 0; a < cur.n; a++)
			pos_of[cur.ph[a]] = (long)a;
		size_t nve = 0;
		for (size_t q = pr->adj_off[v]; q < pr->adj_off[v + 1]; q++) {
			uint32_t u = pr->adj[q].other;
			if (pos_of[u] >= 0)
				ve[nve++] = (struct vedge){(size_t)pos_of[u],
							   &pr->e[pr->adj[q].e], pr->e[pr->adj[q].e].a == v};
			rem[u]--;
		}
		for (size_t a = 0; a < cur.n; a++)
			pos_of[cur.ph[a]] = -1;
		nxt.n = 0;
		uint32_t mult = 1;
		for (size_t a = 0; a < cur.n; a++)
			if (rem[cur.ph[a]]) {
				src[nxt.n] = (int)a;
				nxt.ph[nxt.n] = cur.ph[a];
				nxt.mult[nxt.n++] = mult;
				mult *= (uint32_t)pr->nopt[cur.ph[a]];
			}
		if (rem[v]) {
			src[nxt.n] = -1;
			nxt.ph[nxt.n] = v;
			nxt.mult[nxt.n++] = mult;
			mult *= (uint32_t)pr->nopt[v];
		}
		size_t nc = 0;
		rest rj = suffix_at(&sf, j + 1);
		for (size_t si = stage_off[j]; si < stage_off[j + 1] && ok; si++) {
			const state *ps = &all[si];
			for (size_t a = 0; a < cur.n; a++)
				dig[a] = ps->key / cur.mult[a] % (uint32_t)pr->nopt[cur.ph[a]];
			uint32_t base_key = 0;
			for (size_t a = 0; a < nxt.n; a++)
				if (src[a] >= 0)
					base_key += dig[src[a]] * nxt.mult[a];
			for (size_t jo = 0; jo < pr->nopt[v]; jo++) {
				int p = pr->opt[v * P + jo];
				double T = ps->T + pr->ut[v * P + (size_t)p];
				double E = ps->E + pr->ue[v * P + (size_t)p];
				for (size_t q = 0; q < nve; q++) {
					const uint32_t u = cur.ph[ve[q].pos];
					int pu = pr->opt[u * P + dig[ve[q].pos]];
					double dt, de;
					if (ve[q].v_is_a)
						sl_sched_edge_cost(pr, ve[q].e, p, pu, &dt, &de);
					else
						sl_sched_edge_cost(pr, ve[q].e, pu, p, &dt, &de);
					T += dt;
					E += de;
				}
				if (T + sf.tmin[j + 1] > pr->B ||
				    lower_bound(pr, s, &rj, T, E) > cutoff)
					continue;
				uint32_t key = base_key;
				if (nxt.n && src[nxt.n - 1] < 0)
					key += (uint32_t)jo * nxt.mult[nxt.n - 1];
				if (work + nc >= WORK_LIMIT) {
					ok = 0; /* stop before the candidates outgrow memory */
					break;
				}
				SL_GROW(cand, nc, ccap);
				cand[nc++] = (state){T, E, key, (int32_t)(si - stage_off[j]),
						     (uint16_t)jo};
			}
		}
		work += nc;
		if (nc)
			qsort(cand, nc, sizeof *cand, state_cmp);
		stage_off[j + 2] = stage_off[j + 1];
		for (size_t c = 0; c < nc; c++) {
			state *last = nall > stage_off[j + 1] ? &all[nall - 1] : NULL;
			if (last && last->key == cand[c].key && last->E <= cand[c].E)
				continue; /* dominated within its key */
			SL_GROW(all, nall, call);
			all[nall++] = cand[c];
		}
		stage_off[j + 2] = nall;
		if (nall > STATE_LIMIT || work > WORK_LIMIT)
			ok = 0;
		openset tmp = cur;
		cur = nxt;
		nxt = tmp;
	}
	if (ok) {
		/* the last stage: every phase set, no key left */
		size_t best = SIZE_MAX;
		double bf = s->f;
		for (size_t si = stage_off[L]; si < stage_off[L + 1]; si++) {
			double f = fobj(pr, all[si].T, all[si].E);
			if (all[si].T <= pr->B && f < bf) {
				bf = f;
				best = si;
			}
		}
		if (best != SIZE_MAX) {
			size_t si = best;
			for (size_t j = L; j-- > 0;) {
				uint32_t v = order[j];
				s->x[v] = pr->opt[v * P + all[si].opt];
				si = stage_off[j] + (size_t)all[si].parent;
			}
			s->f = bf;
			s->T = all[best].T;
			s->E = all[best].E;
		}
	}
	free(all);
	free(cand);
	free(stage_off);
	free(rem);
	free(cur.ph);
	free(cur.mult);
	free(nxt.ph);
	free(nxt.mult);
	free(src);
	free(dig);
	free(pos_of);
	free(ve);
	suffix_free(&sf);
	return ok;
}

/* ---- heuristic for wide coupling --------------------------------------
 * First improvement over single-phase moves and, when switches couple
 * phases, over moves of both phases of an edge at once (two neighbours
 * moving to one frequency together is what saves a switch), each move
 * priced exactly (unary and incident switch costs): a local optimum. */

/* Try moving phase a to pa and then b to pb (b == SIZE_MAX: a alone);
 * apply the move if it is feasible and improves.  Returns 1 if applied. */
static int try_move(const prob *pr, int *x, double *T, double *E, size_t a, int pa,
		    size_t b, int pb)
{
	double dT, dE, dT2 = 0, dE2 = 0;
	int old = x[a];
	sl_sched_phase_delta(pr, x, a, pa, &dT, &dE);
	if (b != SIZE_MAX) {
		x[a] = pa;
		sl_sched_phase_delta(pr, x, b, pb, &dT2, &dE2);
		x[a] = old;
	}
	double nT = *T + dT + dT2, nE = *E + dE + dE2;
	if (nT > pr->B || !(fobj(pr, nT, nE) < fobj(pr, *T, *E) * (1 - 1e-12)))
		return 0;
	x[a] = pa;
	if (b != SIZE_MAX)
		x[b] = pb;
	*T = nT;
	*E = nE;
	return 1;
}

static void local_search(const prob *pr, search *s)
{
	size_t P = pr->P, K = pr->K;
	int *x = sl_xmalloc(K * sizeof *x);
	memcpy(x, s->x, K * sizeof *x);
	double T = s->T, E = s->E;
	for (int pass = 0, improved = 1; improved && pass < 100; pass++) {
		improved = 0;
		for (size_t k = 0; k < K; k++) {
			if (!pr->live[k])
				continue;
			for (size_t i = 0; i < pr->nopt[k]; i++)
				if (pr->opt[k * P + i] != x[k])
					improved |= try_move(pr, x, &T, &E, k, pr->opt[k * P + i],
							     SIZE_MAX, 0);
		}
		for (size_t q = 0; q < pr->ne && !improved; q++) {
			size_t a = pr->e[q].a, b = pr->e[q].b;
			for (size_t i = 0; i < pr->nopt[a]; i++)
				for (size_t j = 0; j < pr->nopt[b]; j++) {
					int pa = pr->opt[a * P + i], pb = pr->opt[b * P + j];
					if (pa != x[a] && pb != x[b])
						improved |= try_move(pr, x, &T, &E, a, pa, b, pb);
				}
		}
	}
	consider(pr, s, x, T, E);
	free(x);
}

/* ---- a better incumbent ------------------------------------------------
 * The tighter the incumbent, the more options the reduction drops.  The DP
 * restricted to the `core` most promising phases (least bound when moved off
 * the incumbent's choice; every other phase held at it) finds the best
 * schedule in that neighbourhood cheaply. */

typedef struct by_score {
	double score;
	uint32_t k;
} by_score;

static int score_cmp(const void *x, const void *y)
{
	const by_score *a = x, *b = y;
	if (a->score != b->score)
		return a->score < b->score ? -1 : 1;
	return (a->k > b->k) - (a->k < b->k);
}

static void improve_in_core(prob *pr, search *s, const double *score, size_t core,
			    uint32_t *order, size_t L)
{
	size_t P = pr->P, K = pr->K, n = 0;
	by_score *b = sl_xmalloc((K + 1) * sizeof *b);
	for (size_t k = 0; k < K; k++)
		if (pr->live[k] && pr->nopt[k] > 1)
			b[n++] = (by_score){score[k], (uint32_t)k};
	qsort(b, n, sizeof *b, score_cmp);
	size_t *nopt = sl_xmalloc(K * sizeof *nopt);
	int *opt = sl_xmalloc(K * P * sizeof *opt);
	memcpy(nopt, pr->nopt, K * sizeof *nopt);
	memcpy(opt, pr->opt, K * P * sizeof *opt);
	for (size_t i = core; i < n; i++) {
		size_t k = b[i].k;
		pr->opt[k * P] = s->x[k];
		pr->nopt[k] = 1;
	}
	if (choose_order(pr, order, L) <= KEY_LIMIT)
		dp_solve(pr, s, order, L);
	memcpy(pr->nopt, nopt, K * sizeof *nopt);
	memcpy(pr->opt, opt, K * P * sizeof *opt);
	free(nopt);
	free(opt);
	free(b);
}

static size_t core_size(const prob *pr)
{
	size_t n = 0;
	for (size_t k = 0; k < pr->K; k++)
		n += pr->live[k] && pr->nopt[k] > 1;
	return n;
}

static int cap_error_global(const prob *pr)
{
	const sl_sched_table *t = pr->t;
	double low = pr->peak0;
	long where = -1;
	int wp = -1;
	for (size_t k = 0; k < pr->K; k++) {
		if (!pr->live[k])
			continue;
		double m = INFINITY;
		int mp = 0;
		for (size_t p = 0; p < pr->P; p++)
			if (pr->upk[k * pr->P + p] < m) {
				m = pr->upk[k * pr->P + p];
				mp = (int)p;
			}
		if (m > low) {
			low = m;
			where = (long)k;
			wp = mp;
		}
	}
	if (where < 0)
		sl_error_set("power cap %g W is infeasible: the instances before the first "
			     "one long enough to get its own frequency run at the baseline "
			     "%.2f GHz and peak at %.4g W; raise --power-cap",
			     pr->o->power_cap_w, t->ghz[t->baseline], low);
	else
		sl_error_set("power cap %g W is infeasible: the lowest achievable peak is "
			     "%.4g W (phase %ld at %.2f GHz); raise --power-cap to at least that",
			     pr->o->power_cap_w, low, where, t->ghz[wp]);
	return -1;
}

int sl_sched_solve_global(prob *pr, sl_sched_result *r, int *x)
{
	size_t K = pr->K;
	double cap = pr->o->power_cap_w;
	if (cap > 0 && pr->peak0 > cap)
		return cap_error_global(pr);
	size_t L = 0;
	for (size_t k = 0; k < K; k++)
		if (pr->live[k]) {
			if (!pr->nopt[k])
				return cap_error_global(pr);
			L++;
		}
	search s = {x, INFINITY, 0, 0, {0}, 0, 0};
	for (size_t k = 0; k < K; k++)
		x[k] = (int)pr->t->baseline;
	double tmin = hull_walk(pr, &s);
	/* with a confidence, the times the bound sees include the margin */
	int conf = pr->o->z > 0 && pr->t->sigma;
	if (tmin > pr->B) {
		sl_error_set("no schedule keeps the slowdown%s within %g%% under the %g W "
			     "power cap: the cap alone costs at least %.2f%%; raise "
			     "--max-slowdown or --power-cap%s",
			     conf ? " (with its confidence margin)" : "",
			     100 * pr->o->max_slowdown, cap, 100 * (tmin / r->base.time_s - 1),
			     conf ? ", or lower --confidence" : "");
		return -1;
	}
	uint32_t *order = sl_xmalloc((L + 1) * sizeof *order);
	double *score = sl_xmalloc(K * sizeof *score);
	/* a proven lower bound on the optimum: min(incumbent, relaxation over
	 * the options that survive), the best of every round */
	double lb = 0;
	if (isfinite(s.f)) {
		local_search(pr, &s);
		set_lambdas(pr, &s);
		lb = SL_MIN(s.f, reduce_options(pr, &s, score));
		size_t maxcore = pr->ne ? 16 : 256;
		for (size_t core = 16; core <= maxcore && core_size(pr) > core; core *= 4) {
			improve_in_core(pr, &s, score, core, order, L);
			set_lambdas(pr, &s);
			lb = SL_MAX(lb, SL_MIN(s.f, reduce_options(pr, &s, score)));
		}
	}
	free(score);
	double width = choose_order(pr, order, L);
	r->exact = 0;
	if (width <= KEY_LIMIT && (!pr->ne || core_size(pr) <= COUPLED_CORE))
		r->exact = dp_solve(pr, &s, order, L);
	if (!r->exact && isfinite(s.f))
		local_search(pr, &s);
	r->lower_bound = r->exact ? s.f : SL_MIN(lb, s.f);
	free(order);
	if (!isfinite(s.f)) {
		sl_error_set("no schedule keeps the slowdown%s within %g%% once frequency "
			     "switches are charged%s; raise --max-slowdown%s%s",
			     conf ? " (with its confidence margin)" : "",
			     100 * pr->o->max_slowdown, cap > 0 ? " under the power cap" : "",
			     cap > 0 ? " or --power-cap" : "", conf ? ", or lower --confidence" : "");
		return -1;
	}
	return 0;
}

