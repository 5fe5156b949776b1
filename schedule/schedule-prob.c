/*
 * The schedule problem in decomposed form: from the instance sequence to
 * unary costs per live phase and switch-cost edges between phases (the
 * definitions are in schedule-int.h and docs/schedule.md), and the cost of
 * a map or of moving one phase, computed from them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schedule-int.h"

typedef struct bnd {
	uint32_t a, b;
	size_t i;        /* boundary between instance i and i + 1 */
	int flip;        /* the later instance belongs to phase a */
} bnd;

static int bnd_cmp(const void *x, const void *y)
{
	const bnd *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

static void build_edges(prob *pr, bnd *b, size_t nb)
{
	const sl_sched_table *t = pr->t;
	size_t P = pr->P;
	double tau = pr->o->transition_s;
	qsort(b, nb, sizeof *b, bnd_cmp);
	for (size_t i = 0; i < nb; i++) {
		if (!pr->ne || pr->e[pr->ne - 1].a != b[i].a || pr->e[pr->ne - 1].b != b[i].b) {
			edge *e = &pr->e[pr->ne++];
			e->a = b[i].a;
			e->b = b[i].b;
			e->cnt = 0;
			e->de = sl_xcalloc(P * P, sizeof *e->de);
		}
		edge *e = &pr->e[pr->ne - 1];
		e->cnt += 1;
		/* instance x runs at phase a's frequency, instance y at b's */
		size_t x = b[i].flip ? b[i].i + 1 : b[i].i;
		size_t y = b[i].flip ? b[i].i : b[i].i + 1;
		for (size_t pa = 0; pa < P; pa++)
			for (size_t pb = 0; pb < P; pb++)
				if (pa != pb)
					e->de[pa * P + pb] += tau * SL_MAX(mean_w(t, x, pa),
									   mean_w(t, y, pb));
	}
	pr->adj_off = sl_xcalloc(pr->K + 1, sizeof *pr->adj_off);
	for (size_t i = 0; i < pr->ne; i++) {
		pr->adj_off[pr->e[i].a + 1]++;
		pr->adj_off[pr->e[i].b + 1]++;
	}
	for (size_t k = 0; k < pr->K; k++)
		pr->adj_off[k + 1] += pr->adj_off[k];
	pr->adj = sl_xmalloc((2 * pr->ne + 1) * sizeof *pr->adj);
	size_t *fill = sl_xcalloc(pr->K, sizeof *fill);
	for (size_t i = 0; i < pr->ne; i++) {
		uint32_t a = pr->e[i].a, bb = pr->e[i].b;
		pr->adj[pr->adj_off[a] + fill[a]++] = (adj){bb, (uint32_t)i};
		pr->adj[pr->adj_off[bb] + fill[bb]++] = (adj){a, (uint32_t)i};
	}
	free(fill);
}

void sl_sched_prob_free(prob *pr)
{
	free(pr->ut);
	free(pr->ue);
	free(pr->upk);
	free(pr->live);
	free(pr->opt);
	free(pr->nopt);
	for (size_t i = 0; i < pr->ne; i++)
		free(pr->e[i].de);
	free(pr->e);
	free(pr->adj);
	free(pr->adj_off);
}

/* Decompose the sequence into unary costs and edges (see above). */
void sl_sched_prob_build(prob *pr, const sl_sched_table *t, const sl_sched_opts *o)
{
	size_t P = t->n_pstates, K = t->n_phases, N = t->n_inst;
	memset(pr, 0, sizeof *pr);
	pr->t = t;
	pr->o = o;
	pr->P = P;
	pr->K = K;
	pr->N = N;
	pr->k = o->objective == SL_OBJ_ENERGY ? 0 : o->objective == SL_OBJ_EDP ? 1 : 2;
	pr->ut = sl_xcalloc(K * P, sizeof *pr->ut);
	pr->ue = sl_xcalloc(K * P, sizeof *pr->ue);
	pr->upk = sl_xcalloc(K * P, sizeof *pr->upk);
	pr->live = sl_xcalloc(K, 1);
	bnd *b = sl_xmalloc(N * sizeof *b);
	size_t nb = 0;
	double tau = o->transition_s;
	long anchor = -1; /* last long instance */
	for (size_t i = 0; i < N; i++) {
		if (is_long(t, o, i)) {
			uint32_t k = t->phase[i];
			pr->live[k] = 1;
			if (i > 0 && anchor < 0) {
				/* first long instance after short ones at the baseline */
				for (size_t p = 0; p < P; p++)
					if (p != t->baseline) {
						pr->ut[k * P + p] += tau;
						pr->ue[k * P + p] += tau * SL_MAX(
							mean_w(t, i - 1, t->baseline), mean_w(t, i, p));
					}
			} else if (i > 0 && tau > 0 && t->phase[anchor] != k) {
				/* free switches couple nothing */
				uint32_t a = t->phase[anchor];
				b[nb++] = (bnd){SL_MIN(a, k), SL_MAX(a, k), i - 1, a > k};
			}
			anchor = (long)i;
		}
		if (anchor < 0) {
			size_t p = t->baseline;
			pr->T0 += cell(t, t->time_s, i, p);
			pr->E0 += cell(t, t->energy_j, i, p);
			pr->peak0 = SL_MAX(pr->peak0, peak_w(t, i, p));
			continue;
		}
		uint32_t k = t->phase[anchor];
		for (size_t p = 0; p < P; p++) {
			pr->ut[k * P + p] += cell(t, t->time_s, i, p);
			pr->ue[k * P + p] += cell(t, t->energy_j, i, p);
			pr->upk[k * P + p] = SL_MAX(pr->upk[k * P + p], peak_w(t, i, p));
		}
	}
	pr->e = sl_xmalloc((nb + 1) * sizeof *pr->e);
	build_edges(pr, b, nb);
	free(b);
	pr->opt = sl_xmalloc(K * P * sizeof *pr->opt);
	pr->nopt = sl_xcalloc(K, sizeof *pr->nopt);
	double cap = o->power_cap_w;
	for (size_t k = 0; k < K; k++)
		for (size_t p = 0; p < P; p++)
			if (!(cap > 0) || pr->upk[k * P + p] <= cap)
				pr->opt[k * P + pr->nopt[k]++] = (int)p;
}

void sl_sched_edge_cost(const prob *pr, const edge *e, int pa, int pb, double *dt,
		      double *de)
{
	if (pa == pb) {
		*dt = *de = 0;
		return;
	}
	*dt = e->cnt * pr->o->transition_s;
	*de = e->de[(size_t)pa * pr->P + (size_t)pb];
}

void sl_sched_prob_eval(const prob *pr, const int *x, double *T, double *E)
{
	*T = pr->T0;
	*E = pr->E0;
	for (size_t k = 0; k < pr->K; k++)
		if (pr->live[k]) {
			*T += pr->ut[k * pr->P + (size_t)x[k]];
			*E += pr->ue[k * pr->P + (size_t)x[k]];
		}
	for (size_t i = 0; i < pr->ne; i++) {
		double dt, de;
		sl_sched_edge_cost(pr, &pr->e[i], x[pr->e[i].a], x[pr->e[i].b], &dt, &de);
		*T += dt;
		*E += de;
	}
}

void sl_sched_phase_delta(const prob *pr, const int *x, size_t k, int pnew,
			double *dT, double *dE)
{
	size_t P = pr->P;
	int pold = x[k];
	*dT = pr->ut[k * P + (size_t)pnew] - pr->ut[k * P + (size_t)pold];
	*dE = pr->ue[k * P + (size_t)pnew] - pr->ue[k * P + (size_t)pold];
	for (size_t j = pr->adj_off[k]; j < pr->adj_off[k + 1]; j++) {
		const edge *e = &pr->e[pr->adj[j].e];
		int xo = x[pr->adj[j].other];
		double t0, e0, t1, e1;
		if (e->a == k) {
			sl_sched_edge_cost(pr, e, pold, xo, &t0, &e0);
			sl_sched_edge_cost(pr, e, pnew, xo, &t1, &e1);
		} else {
			sl_sched_edge_cost(pr, e, xo, pold, &t0, &e0);
			sl_sched_edge_cost(pr, e, xo, pnew, &t1, &e1);
		}
		*dT += t1 - t0;
		*dE += e1 - e0;
	}
}

