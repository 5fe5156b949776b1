/*
 * From a fit to the complete sleuth-machine/1: static power at every
 * P-state (known, fitted, or interpolated in voltage) and the power section.
 */
#include "sleuth/calib.h"

#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/model.h"

typedef struct vw {
	double v, w;
} vw;

static int cmp_v(const void *a, const void *b)
{
	double x = ((const vw *)a)->v, y = ((const vw *)b)->v;
	return (x > y) - (x < y);
}

void sl_calib_static_interp(const sl_machine *m, const int *known_ps,
			    const double *known_w, size_t n_known, double *out)
{
	/* Known points by voltage; P-states sharing a voltage are averaged. */
	vw *pt = sl_xmalloc((n_known ? n_known : 1) * sizeof *pt);
	size_t np = 0;
	for (size_t j = 0; j < n_known; j++)
		pt[np++] = (vw){m->pstates[known_ps[j]].volts, known_w[j]};
	qsort(pt, np, sizeof *pt, cmp_v);
	size_t u = 0;
	for (size_t j = 0; j < np;) {
		size_t e = j;
		double sum = 0;
		while (e < np && pt[e].v == pt[j].v)
			sum += pt[e++].w;
		pt[u++] = (vw){pt[j].v, sum / (double)(e - j)};
		j = e;
	}
	np = u;
	for (size_t s = 0; s < m->n_pstates; s++) {
		size_t j = 0;
		while (j < n_known && known_ps[j] != (int)s)
			j++;
		if (j < n_known) {
			out[s] = known_w[j];
			continue;
		}
		double v = m->pstates[s].volts;
		if (np == 1) {
			out[s] = pt[0].w;
			continue;
		}
		/* The segment around v, or the end segment nearest to it. */
		size_t hi = 1;
		while (hi < np - 1 && pt[hi].v < v)
			hi++;
		vw a = pt[hi - 1], b = pt[hi];
		double w = a.w + (b.w - a.w) * (v - a.v) / (b.v - a.v);
		out[s] = w > 0 ? w : 0;
	}
	free(pt);
}

void sl_calib_model(sl_machine *out, const sl_machine *skeleton,
		    const sl_calib_data *d, const sl_calib_fit *fit)
{
	*out = *skeleton;
	out->pstates = sl_xmalloc(skeleton->n_pstates * sizeof *out->pstates);
	for (size_t s = 0; s < skeleton->n_pstates; s++) {
		out->pstates[s] = skeleton->pstates[s];
		out->pstates[s].has_static = 1;
		out->pstates[s].static_w = fit->static_w[s];
	}
	out->n_time_error = 0; /* the skeleton's, if any, are not this fit's */
	out->time_error = NULL;
	out->has_power = 1;
	out->has_constant = 1;
	out->constant = fit->constant;
	out->has_temp = fit->has_temp;
	out->temp_ref_c = fit->temp_ref;
	out->temp_coeff = fit->temp_coeff;
	out->n_terms = fit->n_terms;
	out->terms = sl_xcalloc(fit->n_terms ? fit->n_terms : 1, sizeof *out->terms);
	for (size_t k = 0; k < fit->n_terms; k++) {
		out->terms[k].event = d->events[sl_calib_term_event(d, fit->term[k])];
		out->terms[k].energy = sl_calib_term_energy(d, fit->term[k]);
		out->terms[k].has_coeff = 1;
		out->terms[k].coeff = fit->coeff[k];
	}
	/* a stalled core may fall below static_w when the fit says so
	 * (sl_model_ceff_floor), whatever the skeleton said */
	out->floor_stalled = sl_model_ceff_floor(out) < 0;
}

void sl_calib_model_free(sl_machine *out)
{
	free(out->pstates);
	free(out->terms);
	memset(out, 0, sizeof *out);
}
