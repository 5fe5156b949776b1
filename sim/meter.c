/*
 * The simulated power meter (see sim-int.h for its contract) and the idle
 * log.  Values are rounded to what the CSV shows before they are
 * integrated, so the default trace energy equals the log's own integral.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "sim-int.h"
#include "sleuth/sim.h"

/* The CSV's resolution: microseconds and 0.1 mW. */
static double round_to(double v, double scale)
{
	return round(v * scale) / scale;
}

void sl_meter_init(sl_meter *m, double rate, double sigma, uint64_t seed, FILE *f)
{
	memset(m, 0, sizeof *m);
	m->rate = rate;
	m->sigma = sigma;
	m->f = f;
	m->r = gsl_rng_alloc(gsl_rng_taus2);
	gsl_rng_set(m->r, (unsigned long)sl_sim_key_hash(seed, SL_STREAM_METER, 0, 0, 0));
}

void sl_meter_free(sl_meter *m)
{
	if (m->r)
		gsl_rng_free(m->r);
	free(m->seg);
	free(m->pend);
	memset(m, 0, sizeof *m);
}

void sl_meter_add(sl_meter *m, double seconds, double watts)
{
	/* drop segments the samples have passed (power_at keeps the last) */
	if (m->seg_head > 64 && m->seg_head * 2 > m->n_seg) {
		m->n_seg -= m->seg_head;
		memmove(m->seg, m->seg + m->seg_head, m->n_seg * sizeof *m->seg);
		m->seg_head = 0;
	}
	SL_GROW(m->seg, m->n_seg, m->cap_seg);
	m->seg[m->n_seg++] = (sl_meter_seg){m->t_end, m->t_end + seconds, watts};
	m->t_end += seconds;
}

void sl_meter_interval(sl_meter *m, double a, double b)
{
	if (m->pend_head && m->pend_head * 2 >= m->n_pend) {
		m->n_pend -= m->pend_head;
		memmove(m->pend, m->pend + m->pend_head, m->n_pend * sizeof *m->pend);
		m->pend_head = 0;
	}
	SL_GROW(m->pend, m->n_pend, m->cap_pend);
	m->pend[m->n_pend++] = (sl_meter_pend){a, b, 0};
}

/* True power at t: the segment with t0 <= t < t1, else the last one. */
static double power_at(sl_meter *m, double t)
{
	while (m->seg_head + 1 < m->n_seg && m->seg[m->seg_head].t1 <= t)
		m->seg_head++;
	return m->seg[m->seg_head].w;
}

/* Add the linear piece (t0,y0)-(t1,y1) to every pending interval it meets. */
static void integrate(sl_meter *m, double t0, double y0, double t1, double y1)
{
	for (size_t i = m->pend_head; i < m->n_pend; i++) {
		sl_meter_pend *p = &m->pend[i];
		double lo = SL_MAX(t0, p->a), hi = SL_MIN(t1, p->b);
		if (p->a >= t1)
			break;
		if (hi <= lo || t1 <= t0)
			continue;
		double ylo = y0 + (y1 - y0) * (lo - t0) / (t1 - t0);
		double yhi = y0 + (y1 - y0) * (hi - t0) / (t1 - t0);
		p->e += (hi - lo) * (ylo + yhi) / 2;
	}
}

static void sample(sl_meter *m)
{
	double t = round_to((double)m->k / m->rate, 1e6);
	double y = power_at(m, t) + (m->sigma > 0 ? gsl_ran_gaussian(m->r, m->sigma) : 0);
	y = round_to(y, 1e4);
	if (m->f)
		fprintf(m->f, "%.6f,%.4f\n", t, y);
	if (m->have_prev)
		integrate(m, m->tp, m->yp, t, y);
	m->have_prev = 1;
	m->tp = t;
	m->yp = y;
	m->k++;
}

void sl_meter_advance(sl_meter *m, int final)
{
	if (!m->n_seg)
		return;
	while ((double)m->k / m->rate < m->t_end)
		sample(m);
	if (final && (!m->have_prev || m->tp < m->t_end))
		sample(m);
}

int sl_meter_pop(sl_meter *m, double *e)
{
	if (m->pend_head == m->n_pend || !m->have_prev ||
	    m->tp < m->pend[m->pend_head].b)
		return 0;
	*e = m->pend[m->pend_head++].e;
	return 1;
}

void sl_sim_idle_rows(const sl_sim_machine *m, uint64_t seed, FILE *f)
{
	const sl_sim_truth *t = &m->truth;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
	gsl_rng_set(r, (unsigned long)sl_sim_key_hash(seed, SL_STREAM_IDLE, 0, 0, 0));
	size_t n = (size_t)SL_MAX(1.0, round(t->idle_seconds * t->meter_hz));
	fprintf(f, "# idle power of %s: %zu meter samples per P-state at %g Hz\n", m->name,
		n, t->meter_hz);
	fprintf(f, "ghz,power_w\n");
	for (size_t p = 0; p < m->n_pstates; p++) {
		char g[40];
		double idle = sl_sim_idle_w(m, m->ghz[p], m->volts[p]);
		sl_fmt_double(g, sizeof g, m->ghz[p]);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s,%.4f\n", g,
				idle + (t->meter_noise_w > 0
						? gsl_ran_gaussian(r, t->meter_noise_w) : 0));
	}
	gsl_rng_free(r);
}

int sl_sim_write_idle_log(const sl_sim_machine *m, uint64_t seed, const char *path)
{
	sl_afile af;
	FILE *f = sl_afile_open(&af, path);
	if (!f)
		return -1;
	sl_sim_idle_rows(m, seed, f);
	return sl_afile_commit(&af);
}
