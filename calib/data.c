/*
 * The training table: one row per interval whose energy was measured, with
 * its P-state, power and event rates.  Everything downstream (fit,
 * cross-validation, selection) reads only this table.
 *
 * Multiplexed profiles measure each event in some intervals only.  Dropping
 * every interval that lacks one of the model's events would leave nothing
 * when the model needs more events than there are counters, so a missing
 * count is filled with its phase's mean rate: the premise of phase-guided
 * multiplexing is exactly that intervals of one phase behave alike.
 */
#include "sleuth/calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"

static size_t intern(char ***names, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*names)[i], s))
			return i;
	*names = sl_xreallocarray(*names, *n + 1, sizeof **names);
	(*names)[*n] = sl_xstrdup(s);
	return (*n)++;
}

int sl_calib_data_event(const sl_calib_data *d, const char *name)
{
	for (size_t k = 0; k < d->n_events; k++)
		if (!strcmp(d->events[k], name))
			return (int)k;
	return -1;
}

static int run_pstate(const sl_machine *m, const sl_calib_run *r)
{
	int ps = sl_machine_pstate(m, r->ghz);
	if (ps < 0) {
		char list[512] = "";
		size_t len = 0;
		for (size_t j = 0; j < m->n_pstates && len < sizeof list - 16; j++)
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%g",
						j ? ", " : "", m->pstates[j].ghz);
		sl_error_set("%s ran at %g GHz, which is not a P-state of machine %s "
			     "(%s GHz); add it to the skeleton's pstates",
			     r->input, r->ghz, m->name, list);
	}
	return ps;
}

/* Per (phase, event) sums of counts and cycles over measured intervals, for
 * filling multiplexed gaps with the phase's mean rate. */
static void phase_means(const sl_calib_run *r, double **sum_c, double **sum_cy,
			size_t *n_ph)
{
	uint32_t maxph = 0;
	for (size_t i = 0; i < r->n; i++)
		maxph = SL_MAX(maxph, r->phase[i]);
	size_t np = (size_t)maxph + 1, ne = r->n_events;
	*n_ph = np;
	*sum_c = sl_xcalloc(np * (ne ? ne : 1), sizeof **sum_c);
	*sum_cy = sl_xcalloc(np * (ne ? ne : 1), sizeof **sum_cy);
	for (size_t i = 0; i < r->n; i++) {
		if (!r->cycles[i])
			continue;
		for (size_t k = 0; k < ne; k++) {
			uint64_t c = r->counts[i * ne + k];
			if (c == SL_MISSING)
				continue;
			(*sum_c)[r->phase[i] * ne + k] += (double)c;
			(*sum_cy)[r->phase[i] * ne + k] += (double)r->cycles[i];
		}
	}
}

static void add_row(sl_calib_data *d, size_t *cap)
{
	if (d->n < *cap)
		return;
	*cap = *cap ? 2 * *cap : 256;
	d->wl = sl_xreallocarray(d->wl, *cap, sizeof *d->wl);
	d->ps = sl_xreallocarray(d->ps, *cap, sizeof *d->ps);
	d->f = sl_xreallocarray(d->f, *cap, sizeof *d->f);
	d->v = sl_xreallocarray(d->v, *cap, sizeof *d->v);
	d->power = sl_xreallocarray(d->power, *cap, sizeof *d->power);
	d->temp = sl_xreallocarray(d->temp, *cap, sizeof *d->temp);
	size_t ne = d->n_events ? d->n_events : 1;
	d->rate = sl_xreallocarray(d->rate, *cap * ne, sizeof *d->rate);
	d->filled = sl_xreallocarray(d->filled, *cap * ne, sizeof *d->filled);
}

int sl_calib_data_build(sl_calib_data *d, const sl_machine *m,
			const sl_calib_run *runs, size_t n_runs)
{
	memset(d, 0, sizeof *d);
	for (size_t r = 0; r < n_runs; r++) {
		if (run_pstate(m, &runs[r]) < 0)
			return -1;
		for (size_t k = 0; k < runs[r].n_events; k++)
			intern(&d->events, &d->n_events, runs[r].events[k]);
		intern(&d->workloads, &d->n_workloads, runs[r].workload);
	}
	size_t cap = 0, ne = d->n_events;
	for (size_t ri = 0; ri < n_runs; ri++) {
		const sl_calib_run *r = &runs[ri];
		int ps = run_pstate(m, r);
		size_t wl = intern(&d->workloads, &d->n_workloads, r->workload);
		int *col = sl_xmalloc((ne ? ne : 1) * sizeof *col); /* data -> run event */
		for (size_t k = 0; k < ne; k++) {
			col[k] = -1;
			for (size_t j = 0; j < r->n_events; j++)
				if (!strcmp(r->events[j], d->events[k]))
					col[k] = (int)j;
		}
		double *sum_c, *sum_cy;
		size_t n_ph;
		phase_means(r, &sum_c, &sum_cy, &n_ph);
		for (size_t i = 0; i < r->n; i++) {
			if (!isfinite(r->energy_j[i]) || !(r->time_s[i] > 0)) {
				d->no_energy++;
				continue;
			}
			if (!r->cycles[i]) {
				d->no_cycles++;
				continue;
			}
			/* Zero or negative power is a wrong column or unit, never
			 * data: it would make every relative error infinite. */
			if (!(r->energy_j[i] > 0)) {
				sl_error_set("%s: interval %zu: measured energy %g J; power must "
					     "be > 0 W (is --column the power rail, in watts?)",
					     r->input, i, r->energy_j[i]);
				free(sum_c);
				free(sum_cy);
				free(col);
				return -1;
			}
			add_row(d, &cap);
			size_t row = d->n++;
			d->wl[row] = wl;
			d->ps[row] = ps;
			/* Dynamic energy is spent per clocked cycle: f is the
			 * rate the core was clocked at over the interval, below
			 * the P-state's when it idled part of the interval (a
			 * timed sample of a program that waits for I/O). */
			d->f[row] = (double)r->cycles[i] / r->time_s[i] / 1e9;
			d->v[row] = m->pstates[ps].volts;
			d->power[row] = r->energy_j[i] / r->time_s[i];
			d->temp[row] = r->temp_c[i];
			for (size_t k = 0; k < ne; k++) {
				double *rate = &d->rate[row * ne + k];
				unsigned char *fl = &d->filled[row * ne + k];
				*rate = NAN;
				*fl = 0;
				if (col[k] < 0)
					continue;
				size_t j = (size_t)col[k];
				uint64_t c = r->counts[i * r->n_events + j];
				size_t pk = r->phase[i] * r->n_events + j;
				if (c != SL_MISSING) {
					*rate = (double)c / (double)r->cycles[i];
				} else if (sum_cy[pk] > 0) {
					*rate = sum_c[pk] / sum_cy[pk];
					*fl = 1;
				}
			}
		}
		free(sum_c);
		free(sum_cy);
		free(col);
	}
	return 0;
}

int sl_calib_data_temps(const sl_calib_data *d, double *mean, double *range)
{
	double sum = 0, lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < d->n; i++) {
		if (!isfinite(d->temp[i]))
			return -1;
		sum += d->temp[i];
		lo = SL_MIN(lo, d->temp[i]);
		hi = SL_MAX(hi, d->temp[i]);
	}
	if (!d->n)
		return -1;
	*mean = sum / (double)d->n;
	*range = hi - lo;
	return 0;
}

void sl_calib_data_free(sl_calib_data *d)
{
	for (size_t k = 0; k < d->n_events; k++)
		free(d->events[k]);
	for (size_t w = 0; w < d->n_workloads; w++)
		free(d->workloads[w]);
	free(d->events);
	free(d->workloads);
	free(d->wl);
	free(d->ps);
	free(d->f);
	free(d->v);
	free(d->power);
	free(d->temp);
	free(d->rate);
	free(d->filled);
	memset(d, 0, sizeof *d);
}
