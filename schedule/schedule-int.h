/*
 * Inside the schedule solver: the problem in decomposed form (unary costs
 * per phase, switch costs on edges between phases), shared by the three
 * modules -- schedule.c (definitions, evaluation, scopes), schedule-prob.c
 * (the decomposition) and schedule-search.c (the exact search and its
 * heuristic fallback).  Not a public interface.
 */
#ifndef SLEUTH_SCHEDULE_INT_H
#define SLEUTH_SCHEDULE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "sleuth/common.h"
#include "sleuth/schedule.h"

/* Keys (frequency tuples of open phases) and frontier points the exact DP
 * may hold before it gives way to the heuristic. */
#define KEY_LIMIT (1u << 24)
#define STATE_LIMIT (1u << 20)
/* Candidate states the DP may generate (its work) before it gives way. */
#define WORK_LIMIT (1u << 21)
/* With switch costs the bound ignores future switches and prunes less: the
 * exact DP is tried only on cores up to this many phases. */
#define COUPLED_CORE 256
/* Sums of the same times in another order differ in the last bits: a time
 * within this relative tolerance of the bound meets it (so that the baseline
 * always meets a zero slowdown bound). */
#define BUDGET_TOL 1e-12

static inline double cell(const sl_sched_table *t, const double *a, size_t i, size_t p)
{
	return a[i * t->n_pstates + p];
}

static inline double mean_w(const sl_sched_table *t, size_t i, size_t p)
{
	return cell(t, t->energy_j, i, p) / cell(t, t->time_s, i, p);
}

static inline double peak_w(const sl_sched_table *t, size_t i, size_t p)
{
	return t->peak_w ? cell(t, t->peak_w, i, p) : mean_w(t, i, p);
}

/* Whether instance i gets its own frequency (is not shorter than the
 * minimum, measured at the baseline). */
static inline int is_long(const sl_sched_table *t, const sl_sched_opts *o, size_t i)
{
	return cell(t, t->time_s, i, t->baseline) >= o->min_instance_s;
}

/* ---- the problem in decomposed form ------------------------------------
 * Each "live" phase (one with a long instance) chooses a P-state; its unary
 * cost covers its long instances, the short ones that inherit from them and
 * the switch out of the baseline at the run's start.  An edge joins two
 * phases whose instances meet at a boundary where a switch can happen. */

typedef struct edge {
	uint32_t a, b;   /* a < b */
	double cnt;      /* boundaries between them */
	double *de;      /* P x P: switch energy, [pa * P + pb] */
} edge;

typedef struct adj {
	uint32_t other, e;
} adj;

typedef struct prob {
	const sl_sched_table *t;
	const sl_sched_opts *o;
	size_t P, K, N;
	double B;              /* time bound, with the tolerance */
	int k;                 /* objective: E * T^k */
	double T0, E0, peak0;  /* instances before the first long one */
	double *ut, *ue, *upk; /* K x P */
	unsigned char *live;
	int *opt;              /* K x P: the P-states under the cap */
	size_t *nopt;
	edge *e;
	size_t ne;
	adj *adj;
	size_t *adj_off;       /* K + 1 */
} prob;

static inline double fobj(const prob *pr, double T, double E)
{
	return pr->k == 0 ? E : pr->k == 1 ? E * T : E * T * T;
}

void sl_sched_prob_build(prob *pr, const sl_sched_table *t, const sl_sched_opts *o);
void sl_sched_prob_free(prob *pr);
/* Switch cost of edge e when its phases run at pa and pb. */
void sl_sched_edge_cost(const prob *pr, const edge *e, int pa, int pb, double *dt, double *de);
/* (T, E) of the map x (one P-state per phase). */
void sl_sched_prob_eval(const prob *pr, const int *x, double *T, double *E);
/* Change in (T, E) when phase k moves from x[k] to pnew. */
void sl_sched_phase_delta(const prob *pr, const int *x, size_t k, int pnew, double *dT,
		 double *dE);
/* The global scope: the best map into x (the optimum, or the heuristic's
 * result with r->exact = 0), or -1 with sl_error() when none is feasible. */
int sl_sched_solve_global(prob *pr, sl_sched_result *r, int *x);

#endif
