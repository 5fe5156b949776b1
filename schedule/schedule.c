/*
 * The schedule solver: which P-state each phase should run at so that the
 * run's energy, EDP or ED2P is least while the predicted slowdown stays
 * within a bound and no phase exceeds a power cap.
 *
 * It works on a table (sl_sched_table: every phase instance at every
 * P-state), never on a profile, so that it can be tested exactly against
 * brute force.  The global problem is a multiple-choice knapsack, solved
 * exactly by dynamic programming over Pareto frontiers of (time, energy)
 * with dominance and Lagrangian bound pruning; switch costs couple phases
 * that follow one another, and the DP then keys its frontiers by the
 * frequencies of the phases still "open".  docs/schedule.md has the
 * definitions, the method and its complexity.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schedule-int.h"

static const char *const obj_names[] = {"min-energy", "min-edp", "min-ed2p"};
static const char *const scope_names[] = {"global", "phase"};

const char *sl_objective_name(sl_objective o)
{
	return obj_names[o];
}

/* Index of s in names[n], or -1. */
static int name_index(const char *s, const char *const *names, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

int sl_objective_parse(const char *s, sl_objective *o)
{
	int i = name_index(s, obj_names, SL_ARRAY_LEN(obj_names));
	if (i < 0) {
		sl_error_set("unknown objective '%s'; use min-energy, min-edp or min-ed2p",
			     s ? s : "");
		return -1;
	}
	*o = (sl_objective)i;
	return 0;
}

const char *sl_scope_name(sl_scope s)
{
	return scope_names[s];
}

int sl_scope_parse(const char *s, sl_scope *o)
{
	int i = name_index(s, scope_names, SL_ARRAY_LEN(scope_names));
	if (i < 0) {
		sl_error_set("unknown scope '%s'; use phase or global", s ? s : "");
		return -1;
	}
	*o = (sl_scope)i;
	return 0;
}

double sl_objective_value(sl_objective o, double t, double e)
{
	switch (o) {
	case SL_OBJ_EDP:
		return e * t;
	case SL_OBJ_ED2P:
		return e * t * t;
	default:
		return e;
	}
}

static int good(double v)
{
	return isfinite(v) && v > 0;
}

int sl_sched_table_check(const sl_sched_table *t)
{
	if (!t->n_pstates || !t->ghz) {
		sl_error_set("schedule table has no P-states");
		return -1;
	}
	if (t->n_pstates > 65535) {
		sl_error_set("schedule table has %zu P-states; at most 65535 are supported",
			     t->n_pstates);
		return -1;
	}
	if (t->baseline >= t->n_pstates) {
		sl_error_set("baseline P-state %zu out of range (%zu P-states)",
			     t->baseline, t->n_pstates);
		return -1;
	}
	if (!t->n_inst || !t->n_phases) {
		sl_error_set("schedule table has no phase instances; nothing to schedule");
		return -1;
	}
	for (size_t i = 0; i < t->n_inst; i++) {
		if (t->phase[i] >= t->n_phases) {
			sl_error_set("instance %zu names phase %u but there are %zu phases",
				     i, t->phase[i], t->n_phases);
			return -1;
		}
		for (size_t p = 0; p < t->n_pstates; p++) {
			size_t k = i * t->n_pstates + p;
			if (!good(t->time_s[k]) || !good(t->energy_j[k]) ||
			    (t->peak_w && !good(t->peak_w[k])) ||
			    (t->sigma && !(t->sigma[k] >= 0 && t->sigma[k] < 1e3))) {
				sl_error_set("instance %zu at %.3f GHz: predicted time, energy "
					     "and power must be finite and positive (and their "
					     "error finite and >= 0)", i,
					     t->ghz[p]);
				return -1;
			}
		}
	}
	return 0;
}

double sl_sched_switch_energy(const sl_sched_table *t, const sl_sched_opts *o,
			      size_t i, size_t from, size_t to)
{
	return o->transition_s * SL_MAX(mean_w(t, i - 1, from), mean_w(t, i, to));
}

/*
 * The definition of a schedule's cost, instance by instance: what the DP's
 * decomposition must reproduce and what the tests compare against.
 */
void sl_sched_evaluate(const sl_sched_table *t, const sl_sched_opts *o,
		       const int *pstate, sl_sched_eval *ev, int *inst_pstate,
		       double *phase_time_s, double *phase_energy_j)
{
	memset(ev, 0, sizeof *ev);
	if (phase_time_s)
		memset(phase_time_s, 0, t->n_phases * sizeof *phase_time_s);
	if (phase_energy_j)
		memset(phase_energy_j, 0, t->n_phases * sizeof *phase_energy_j);
	size_t cur = t->baseline;
	for (size_t i = 0; i < t->n_inst; i++) {
		size_t e = is_long(t, o, i) ? (size_t)pstate[t->phase[i]] : cur;
		double ti = cell(t, t->time_s, i, e), ei = cell(t, t->energy_j, i, e);
		ev->time_s += ti;
		ev->energy_j += ei;
		ev->peak_w = SL_MAX(ev->peak_w, peak_w(t, i, e));
		if (phase_time_s)
			phase_time_s[t->phase[i]] += ti;
		if (phase_energy_j)
			phase_energy_j[t->phase[i]] += ei;
		if (i > 0 && e != cur) {
			ev->switches++;
			ev->switch_time_s += o->transition_s;
			ev->switch_energy_j += sl_sched_switch_energy(t, o, i, cur, e);
		}
		if (inst_pstate)
			inst_pstate[i] = (int)e;
		cur = e;
	}
	ev->time_s += ev->switch_time_s;
	ev->energy_j += ev->switch_energy_j;
}

/* ---- the per-phase scope, the best fixed frequency, the entry -------- */

/* The paper's rule: each phase alone, within the bound on its own time. */
static int solve_phase(const prob *pr, sl_sched_result *r, int *x)
{
	size_t P = pr->P, base = pr->t->baseline;
	double cap = pr->o->power_cap_w, low = 0;
	long worst = -1;
	int worst_p = 0;
	for (size_t k = 0; k < pr->K; k++) {
		x[k] = (int)base;
		if (!pr->live[k])
			continue;
		double bound = (1 + pr->o->max_slowdown) * pr->ut[k * P + base];
		double bf = INFINITY, m = INFINITY;
		int mp = 0;
		for (size_t p = 0; p < P; p++) {
			double t = pr->ut[k * P + p], pk = pr->upk[k * P + p];
			if (t > bound)
				continue;
			if (pk < m) {
				m = pk;
				mp = (int)p;
			}
			double f = fobj(pr, t, pr->ue[k * P + p]);
			if ((!(cap > 0) || pk <= cap) && f < bf) {
				bf = f;
				x[k] = (int)p;
			}
		}
		if (m > low) {
			low = m;
			worst = (long)k;
			worst_p = mp;
		}
	}
	if (cap > 0 && low > cap) {
		sl_error_set("power cap %g W is infeasible with every phase within %g%% "
			     "of its baseline time: the lowest achievable peak is %.4g W "
			     "(phase %ld at %.2f GHz); raise --power-cap or --max-slowdown",
			     cap, 100 * pr->o->max_slowdown, low, worst,
			     pr->t->ghz[worst_p]);
		return -1;
	}
	r->exact = 1;
	return 0;
}

/* Whether the map x meets the bound and cap under the scope's rule. */
static int meets(const prob *pr, const sl_sched_result *r, const int *x,
		 const sl_sched_eval *ev)
{
	double cap = pr->o->power_cap_w;
	if (cap > 0 && ev->peak_w > cap)
		return 0;
	if (pr->o->scope == SL_SCOPE_GLOBAL)
		return ev->time_s <= r->budget_s * (1 + BUDGET_TOL);
	size_t P = pr->P, base = pr->t->baseline;
	for (size_t k = 0; k < pr->K; k++)
		if (pr->live[k] && pr->ut[k * P + (size_t)x[k]] >
		    (1 + pr->o->max_slowdown) * pr->ut[k * P + base])
			return 0;
	return 1;
}

static void best_fixed(const prob *pr, sl_sched_result *r, int *x)
{
	r->fixed_pstate = -1;
	double bf = INFINITY;
	for (size_t p = 0; p < pr->P; p++) {
		sl_sched_eval ev;
		for (size_t k = 0; k < pr->K; k++)
			x[k] = (int)p;
		sl_sched_evaluate(pr->t, pr->o, x, &ev, NULL, NULL, NULL);
		double f = fobj(pr, ev.time_s, ev.energy_j);
		if (meets(pr, r, x, &ev) && f < bf) {
			bf = f;
			r->fixed_pstate = (int)p;
			r->fixed = ev;
		}
	}
}

/* Phases without a long instance: report where their time mostly runs. */
static void name_inheritors(const prob *pr, sl_sched_result *r)
{
	const sl_sched_table *t = pr->t;
	int *ip = sl_xmalloc(t->n_inst * sizeof *ip);
	double *share = sl_xcalloc(pr->K * pr->P, sizeof *share);
	sl_sched_eval ev;
	sl_sched_evaluate(t, pr->o, r->pstate, &ev, ip, NULL, NULL);
	for (size_t i = 0; i < t->n_inst; i++)
		share[t->phase[i] * pr->P + (size_t)ip[i]] += cell(t, t->time_s, i, (size_t)ip[i]);
	for (size_t k = 0; k < pr->K; k++) {
		r->inherits[k] = 0;
		if (pr->live[k])
			continue;
		double m = 0;
		for (size_t p = 0; p < pr->P; p++)
			if (share[k * pr->P + p] > m) {
				m = share[k * pr->P + p];
				r->pstate[k] = (int)p;
				r->inherits[k] = 1;
			}
	}
	free(ip);
	free(share);
}

/* The planning table: with a confidence, every time is the point prediction
 * plus z sigma of it, for the bound and for the delay of EDP and ED2P
 * (docs/schedule.md).  *tp and *pk are what to free. */
static void plan_table(const sl_sched_table *t, const sl_sched_opts *o, sl_sched_table *pt,
		       double **tp, double **pk)
{
	*pt = *t;
	*tp = *pk = NULL;
	if (!(o->z > 0) || !t->sigma)
		return;
	size_t n = t->n_inst * t->n_pstates;
	*tp = sl_xmalloc(n * sizeof **tp);
	for (size_t c = 0; c < n; c++)
		(*tp)[c] = t->time_s[c] * (1 + o->z * t->sigma[c]);
	pt->time_s = *tp;
	if (!t->peak_w) { /* the power the point prediction has, not diluted */
		*pk = sl_xmalloc(n * sizeof **pk);
		for (size_t c = 0; c < n; c++)
			(*pk)[c] = t->energy_j[c] / t->time_s[c];
		pt->peak_w = *pk;
	}
}

/*
 * The uncertainty of per-phase DVFS's gain over the fixed map xf: only the
 * instances that run at other P-states under the two maps differ.  Within
 * a phase their errors are taken as one (correlated: the same behaviour,
 * the same model), between phases and between the two maps as independent:
 * z times the root sum of squares over phases of sigma times the
 * instances' share of the objective (energy share + k x time share).
 */
static double gain_uncertainty(const sl_sched_table *t, const sl_sched_opts *o, int k,
			       const int *xs, const int *xf, const sl_sched_eval *es,
			       const sl_sched_eval *ef)
{
	if (!(o->z > 0) || !t->sigma)
		return 0;
	size_t N = t->n_inst, P = t->n_pstates, K = t->n_phases;
	int *is = sl_xmalloc(N * sizeof *is), *jf = sl_xmalloc(N * sizeof *jf);
	double *as = sl_xcalloc(K, sizeof *as), *af = sl_xcalloc(K, sizeof *af);
	sl_sched_evaluate(t, o, xs, &(sl_sched_eval){0}, is, NULL, NULL);
	sl_sched_evaluate(t, o, xf, &(sl_sched_eval){0}, jf, NULL, NULL);
	double os = sl_objective_value(o->objective, es->time_s, es->energy_j);
	double of = sl_objective_value(o->objective, ef->time_s, ef->energy_j);
	for (size_t i = 0; i < N; i++) {
		if (is[i] == jf[i])
			continue;
		size_t cs = i * P + (size_t)is[i], cf = i * P + (size_t)jf[i];
		as[t->phase[i]] += t->sigma[cs] * (t->energy_j[cs] / es->energy_j +
						   k * t->time_s[cs] / es->time_s);
		af[t->phase[i]] += t->sigma[cf] * (t->energy_j[cf] / ef->energy_j +
						   k * t->time_s[cf] / ef->time_s);
	}
	double u2 = 0;
	for (size_t p = 0; p < K; p++)
		u2 += os * os * as[p] * as[p] + of * of * af[p] * af[p];
	free(is);
	free(jf);
	free(as);
	free(af);
	return o->z * sqrt(u2);
}

/*
 * The result in point predictions, the margins the plan took, and the
 * fallback: per-phase DVFS must gain more than its uncertainty over the
 * best fixed frequency, else that frequency is the schedule.
 */
static void finish(const prob *pr, const sl_sched_table *t, sl_sched_result *r, int *xf)
{
	const sl_sched_opts *o = pr->o;
	size_t K = t->n_phases;
	sl_sched_eval plan;
	sl_sched_evaluate(t, o, r->pstate, &r->total, NULL, r->phase_time_s, r->phase_energy_j);
	sl_sched_evaluate(pr->t, o, r->pstate, &plan, NULL, NULL, NULL);
	r->margin_s = plan.time_s - r->total.time_s;
	if (r->fixed_pstate < 0)
		return;
	for (size_t k = 0; k < K; k++)
		xf[k] = r->fixed_pstate;
	sl_sched_evaluate(t, o, xf, &r->fixed, NULL, NULL, NULL);
	sl_sched_evaluate(pr->t, o, xf, &plan, NULL, NULL, NULL);
	r->fixed_margin_s = plan.time_s - r->fixed.time_s;
	r->gain = fobj(pr, r->fixed.time_s, r->fixed.energy_j) -
		  fobj(pr, r->total.time_s, r->total.energy_j);
	int differs = 0;
	for (size_t k = 0; k < K; k++)
		differs |= r->pstate[k] != r->fixed_pstate;
	if (!differs || !(o->z > 0) || !t->sigma)
		return; /* on the point prediction the optimum stands */
	r->gain_uncertainty = gain_uncertainty(t, o, pr->k, r->pstate, xf, &r->total, &r->fixed);
	if (r->gain > r->gain_uncertainty)
		return;
	r->fell_back = 1;
	r->exact = 0;
	memcpy(r->pstate, xf, K * sizeof *xf);
	memset(r->inherits, 0, K);
	r->margin_s = r->fixed_margin_s;
	sl_sched_evaluate(t, o, r->pstate, &r->total, NULL, r->phase_time_s, r->phase_energy_j);
}

int sl_schedule_solve(const sl_sched_table *t, const sl_sched_opts *o,
		      sl_sched_result *r)
{
	memset(r, 0, sizeof *r);
	if (sl_sched_table_check(t) < 0)
		return -1;
	if (!(o->max_slowdown >= 0) || !isfinite(o->max_slowdown) ||
	    !(o->power_cap_w >= 0) || !(o->transition_s >= 0) ||
	    !(o->min_instance_s >= 0) || !(o->z >= 0) || !isfinite(o->z)) {
		sl_error_set("slowdown bound, power cap, switch cost, minimum instance "
			     "length and confidence must be finite and non-negative");
		return -1;
	}
	if (o->scope == SL_SCOPE_PHASE && (o->transition_s > 0 || o->min_instance_s > 0)) {
		sl_error_set("switch costs and a minimum instance length couple phases, "
			     "which the per-phase rule cannot honour; use --scope global");
		return -1;
	}
	size_t K = t->n_phases;
	sl_sched_table pt;
	double *tp, *pk;
	plan_table(t, o, &pt, &tp, &pk);
	prob pr;
	sl_sched_prob_build(&pr, &pt, o);
	int *base = sl_xmalloc(K * sizeof *base);
	for (size_t k = 0; k < K; k++)
		base[k] = (int)t->baseline;
	/* the bound is on the true time against the baseline's point
	 * prediction (measured, when the profile ran at the baseline) */
	sl_sched_evaluate(t, o, base, &r->base, NULL, NULL, NULL);
	r->budget_s = (1 + o->max_slowdown) * r->base.time_s;
	pr.B = r->budget_s * (1 + BUDGET_TOL);
	r->n_phases = K;
	r->pstate = sl_xmalloc(K * sizeof *r->pstate);
	r->inherits = sl_xcalloc(K, 1);
	r->phase_time_s = sl_xcalloc(K, sizeof(double));
	r->phase_energy_j = sl_xcalloc(K, sizeof(double));
	int rc = o->scope == SL_SCOPE_PHASE ? solve_phase(&pr, r, r->pstate)
					    : sl_sched_solve_global(&pr, r, r->pstate);
	if (rc == 0) {
		name_inheritors(&pr, r);
		best_fixed(&pr, r, base);
		finish(&pr, t, r, base);
	}
	free(base);
	sl_sched_prob_free(&pr);
	free(tp);
	free(pk);
	if (rc < 0)
		sl_sched_result_free(r);
	return rc;
}

void sl_sched_result_free(sl_sched_result *r)
{
	free(r->pstate);
	free(r->inherits);
	free(r->phase_time_s);
	free(r->phase_energy_j);
	memset(r, 0, sizeof *r);
}
