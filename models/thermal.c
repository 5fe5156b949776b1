/*
 * The die's temperature at the target frequency.  Leakage, and so static
 * power, rises with the die's temperature, and the temperature follows
 * the power: a program profiled at fmax runs hotter than it will at fmin.
 * Evaluating static power at the temperatures the profile recorded, as
 * the power model alone does, overstates the leakage at a lower P-state
 * (and the anchor's residual at f0 holds the leakage of the profiled
 * temperatures, which it would carry as capacitance).  Where the machine
 * has a thermal block (the die as a first-order RC, measured by sleuth
 * calibrate --thermal-only) and a temperature term, and the profile
 * carries the die temperature of each interval, this replays the run's
 * heating at the target: with R the steady rise per watt, tau the time
 * constant, a the surroundings and d = exp(-t / tau) over an interval of
 * t seconds at power P, the die's temperature at the interval's end is
 *
 *     T_i = d T_{i-1} + (1 - d) (a + R P_i).
 *
 * Two replays start from the same temperature: one at f0 with the
 * measured power and times, one at the target with the predicted ones
 * (the target's power taking its own temperature: the two are solved
 * together by a few fixed-point steps).  The target's temperature is the
 * profiled one plus the difference of the two, so that what the RC does
 * not capture cancels and f0 gives the profiled temperatures back; static
 * power then changes as the machine's temperature term says
 * (sl_machine_static_temp) from the profiled temperature to that one.  The surroundings a are
 * fitted to the profile's own temperatures (least squares on the
 * recurrence), the starting temperature is taken back from the first
 * interval.  One table per operating point, built on first use; a
 * schedule that mixes frequencies reads each interval from the table of
 * its own frequency, as if the whole run were there (docs/models.md,
 * "The die's temperature at the target").
 */
#include <math.h>
#include <stdlib.h>

#include "sleuth/common.h"
#include "sleuth/model.h"

#include "thermal.h"

#define N_TABLES 12 /* operating points remembered: a machine's P-states */

typedef struct tab {
	double ghz;  /* 0: unused */
	float *dt;   /* per interval: target's temperature less the profiled */
	float *dp;   /* per interval: static power's change by it, W (floats:
		      * twelve tables of a long run's intervals) */
} tab;

struct sl_thermal {
	double a, start;  /* surroundings and starting temperature, C */
	double *p0;       /* power at f0 per interval, W */
	tab t[N_TABLES];
	size_t next;      /* the table to reuse next */
};

/* 1 if the machine has a thermal block and a temperature term, and the
 * profile recorded the die's temperature in some interval. */
static int applies(const sl_model *md)
{
	const sl_machine *m = md->mach;
	const sl_profile *p = md->prof;
	if (!md->power || !m->has_thermal || !m->has_temp || !p->temp_c || !p->n_intervals)
		return 0;
	for (size_t i = 0; i < p->n_intervals; i++)
		if (isfinite(p->temp_c[i]))
			return 1;
	return 0;
}

void sl_thermal_init(sl_model *md)
{
	if (applies(md))
		md->thermal = sl_xcalloc(1, sizeof *md->thermal);
}

/* Forget the tables and the f0 side, to be built again on first use. */
static void drop(struct sl_thermal *th)
{
	for (size_t k = 0; k < N_TABLES; k++) {
		free(th->t[k].dt);
		free(th->t[k].dp);
		th->t[k] = (tab){0};
	}
	free(th->p0);
	th->p0 = NULL;
}

void sl_thermal_reset(sl_model *md)
{
	if (md->thermal)
		drop(md->thermal);
}

void sl_thermal_free(struct sl_thermal *th)
{
	if (!th)
		return;
	drop(th);
	free(th);
}

/* The f0 side: each interval's power (the meter's where it read one, else
 * the model's), the surroundings and the starting temperature. */
static void setup(const sl_model *md, struct sl_thermal *th)
{
	const sl_profile *p = md->prof;
	const sl_machine *m = md->mach;
	double R = m->thermal_k_per_w, tau = m->thermal_tau_s;
	const double *e = p->temp_c;
	sl_opoint op0;
	int have_op0 = sl_model_opoint(md, md->f0_ghz, &op0) == 0;
	th->p0 = sl_xmalloc(p->n_intervals * sizeof *th->p0);
	for (size_t i = 0; i < p->n_intervals; i++) {
		double E = p->iv[i].energy_j, t = p->iv[i].time_s;
		if (isfinite(E) && E >= 0 && t > 0) {
			th->p0[i] = E / t;
		} else if (have_op0) {
			sl_pred pr;
			sl_model_predict_base(md, &op0, i, &pr);
			th->p0[i] = isfinite(pr.power_w) ? pr.power_w : 0;
		} else {
			th->p0[i] = 0;
		}
	}
	/* a: least squares of e_i - d e_{i-1} - (1 - d) R P_i = (1 - d) a */
	double sxy = 0, sxx = 0;
	for (size_t i = 1; i < p->n_intervals; i++) {
		if (!isfinite(e[i]) || !isfinite(e[i - 1]))
			continue;
		double d = exp(-p->iv[i].time_s / tau), w = 1 - d;
		sxy += w * (e[i] - d * e[i - 1] - w * R * th->p0[i]);
		sxx += w * w;
	}
	size_t f = 0;
	while (!isfinite(e[f]))
		f++; /* applies(): one is finite */
	th->a = sxx > 0 ? sxy / sxx : e[f] - R * th->p0[f];
	/* the temperature before the first interval, from the first reading */
	double d0 = exp(-p->iv[f].time_s / tau);
	th->start = f == 0 && d0 >= 0.5 ? (e[0] - (1 - d0) * (th->a + R * th->p0[0])) / d0 : e[f];
}

/* The target's table: for each interval, its temperature at op less the
 * profiled one, and static power's change by it. */
static void build(const sl_model *md, struct sl_thermal *th, const sl_opoint *op, tab *t)
{
	const sl_profile *p = md->prof;
	const sl_machine *m = md->mach;
	double R = m->thermal_k_per_w, tau = m->thermal_tau_s;
	double s0 = th->start, s1 = th->start;
	for (size_t i = 0; i < p->n_intervals; i++) {
		double d0 = exp(-p->iv[i].time_s / tau);
		s0 = d0 * s0 + (1 - d0) * (th->a + R * th->p0[i]);
		sl_pred pr;
		sl_model_predict_base(md, op, i, &pr);
		double P1 = isfinite(pr.power_w) ? pr.power_w : th->p0[i];
		double d1 = exp(-(pr.time_s > 0 ? pr.time_s : p->iv[i].time_s) / tau);
		/* the target's power takes its own temperature, which takes the
		 * power: a few fixed-point steps (the loop gain R (1 - d1)
		 * dP/dT is far below 1 for any die that does not run away) */
		double e0 = isfinite(p->temp_c[i]) ? p->temp_c[i] : s0;
		double base = sl_machine_static_temp(m, op->ghz, op->volts, e0);
		double prev = s1, dp = 0;
		for (int it = 0; it < 4; it++) {
			s1 = d1 * prev + (1 - d1) * (th->a + R * (P1 + dp));
			dp = sl_machine_static_temp(m, op->ghz, op->volts, e0 + s1 - s0) - base;
		}
		t->dt[i] = (float)(s1 - s0);
		t->dp[i] = (float)dp;
	}
}

/* The table of op, built on first use. */
static const tab *table(const sl_model *md, const sl_opoint *op)
{
	struct sl_thermal *th = md->thermal;
	if (!th->p0)
		setup(md, th);
	for (size_t k = 0; k < N_TABLES; k++)
		if (th->t[k].ghz == op->ghz && th->t[k].dt)
			return &th->t[k];
	tab *t = &th->t[th->next];
	th->next = (th->next + 1) % N_TABLES;
	free(t->dt);
	free(t->dp);
	t->ghz = op->ghz;
	t->dt = sl_xmalloc(md->prof->n_intervals * sizeof *t->dt);
	t->dp = sl_xmalloc(md->prof->n_intervals * sizeof *t->dp);
	build(md, th, op, t);
	return t;
}

static int off(const sl_model *md, const sl_opoint *op)
{
	return !md->thermal || isfinite(md->temp_c) || fabs(op->ghz - md->f0_ghz) < 1e-9;
}

double sl_thermal_dtemp(const sl_model *md, const sl_opoint *op, size_t i)
{
	return off(md, op) ? 0 : table(md, op)->dt[i];
}

double sl_thermal_dpower(const sl_model *md, const sl_opoint *op, size_t i)
{
	return off(md, op) ? 0 : table(md, op)->dp[i];
}
