/*
 * Anchoring the power model on the run's own measured power.
 *
 * The counter model, P = static_w(V) + Ceff * f * V^2 with Ceff linear in
 * event rates, is what sleuth can say about power from counts alone.  But
 * a profile often carries the energy a meter measured for every interval
 * (a replayed trace's, RAPL's, the virtual PMU's), and at the profiled
 * frequency f0 that measurement is the truth up to the meter's noise.
 * Whatever the counters did not explain there -- activity no event spans,
 * a term calibrated on other programs, events interpolated from other
 * intervals, power the machine model has no place for -- is a residual
 * R = P_measured - P_model(f0).  Predicting at f1 with the counters alone
 * throws that knowledge away; anchoring carries R over:
 *
 *   P(f1) = P_model(f1) + R * [ (1 - s) * f1 V1^2 / (f0 V0^2)
 *                               + s * static_w(V1) / static_w(V0) ]
 *
 * the share 1 - s of the residual taken as effective capacitance, the share
 * s as static power (with the machine's own leakage curve; V1 / V0 when it
 * has no static power).  R is taken per phase instance (the measured
 * energy of its intervals less the model's, over their measured time):
 * an interval's meter reading carries the meter's noise and the sampling
 * error at its edges, which an instance's sum averages out, and a
 * residual per instance costs memory per instance, not per interval, as the
 * interpolated view does.  An instance with no measured interval borrows
 * its phase's residual, then the program's, as interpolation borrows
 * rates.  The model's power there is taken over the cycles the interval
 * measured, not the time model's at f0: a time model need not give them
 * back (the mlp model's bandwidth bound on an instance whose misses were
 * filled high), and power over a time the interval did not take is an
 * error of time that a residual would carry to f1 as one of power.
 * docs/models.md ("Anchoring on measured power") gives the choice
 * of s and of the unit, and the figures behind them.
 *
 * A machine with terms of kind energy (nJ per event at a fixed voltage:
 * the uncore, DRAM) has counter power of two forms, and the residual is
 * split as the model's own is: the share u of the instance's modelled
 * power above static at f0 that its energy terms account for keeps its
 * energy (scaled by t0 / t1, the interval's time at f0 over that at f1),
 * the rest scales as f V^2.  Without energy terms u = 0 and nothing
 * changes.
 *
 * That split holds for the error the counter model makes on a behaviour,
 * which the instance's phase shares: the phase's residual.  An instance's
 * departure from it is mostly what its interpolated counts got wrong (a
 * short instance whose unmeasured LLC misses were taken from unlike
 * intervals), and an error in a count of kind energy is energy.  So the
 * departure is split by where that uncertainty lies: each interpolated
 * term's energy at f0 times its event's spread within phases (the view's
 * spread), the energy terms' share of the summed variance keeping its
 * energy.  An instance with every term measured keeps the model's split.
 *
 * Ceff * f * V^2 with Ceff linear in events per cycle is, term by term,
 * energy per event at V^2 over the time: coeff * N * V^2 / t.  Only the
 * constant is capacitance per cycle.  A count that is wrong is then wrong
 * energy per event at V^2 (scaled by V1^2 / V0^2 * t0 / t1 at f1, not by
 * f1 V1^2 / (f0 V0^2)): the departure's capacitance share is carried so,
 * and so is the share of the phase's residual that the model's
 * capacitance event terms account for where the phase borrowed such a
 * term's counts from other phases (levels similar and program of the
 * interpolation: llm-generate's model load, its FP operations taken from
 * a phase that computes); a phase that counted its own keeps the model's
 * split, its residual being the model's error on its behaviour.
 *
 * `sleuth calibrate` fits the model against that very energy, so nothing
 * here runs unless a caller asks for it (sl_model_anchor, or
 * SL_MODEL_ANCHOR to sl_model_open): sl_model_init alone never anchors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/model.h"
#include "predict_int.h"
#include "thermal.h"

/* The share s of the residual taken as static power, the rest as
 * effective capacitance.  Chosen on the tuning split (seed 1) of the
 * simulated suites, docs/benchmarks.md "Power: anchored on the measured
 * power". */
#define STATIC_SHARE 0.0

int sl_anchor_mode_parse(const char *s, sl_anchor_mode *m)
{
	if (!strcmp(s, "auto"))
		*m = SL_ANCHOR_AUTO;
	else if (!strcmp(s, "off"))
		*m = SL_ANCHOR_OFF;
	else {
		sl_error_set("unknown anchoring '%s'; use 'auto' (anchor power on the "
			     "profile's measured energy when it carries some) or 'off' "
			     "(the counters alone)", s);
		return -1;
	}
	return 0;
}

/* Residual sums of one unit (instance, phase or program). */
typedef struct rsum {
	double resid_j; /* measured energy less the model's at f0 */
	double time_s;  /* the measured time they cover */
	double fixed_j; /* the model's energy there from its energy terms */
	double count_j; /* and from its capacitance event terms */
	double active_j; /* the model's energy there above static power */
} rsum;

/* The share of a unit's residual carried as energy per event: the counter
 * model's own fixed-voltage share of its power above static, in [0, 1];
 * NAN when the unit has no measured time. */
static double rsum_fixed(const rsum *s)
{
	if (!(s->time_s > 0))
		return NAN;
	return s->active_j > 0 ? SL_MAX(0.0, SL_MIN(1.0, s->fixed_j / s->active_j)) : 0;
}

/* The capacitance event terms' share of s's active energy, at most what
 * the energy terms leave. */
static double rsum_count(const rsum *s)
{
	if (!(s->active_j > 0))
		return 0;
	return SL_MAX(0.0, SL_MIN(1.0 - rsum_fixed(s), s->count_j / s->active_j));
}

/* Whether each phase borrowed a capacitance term's counts from other
 * phases (the interpolation's levels similar and program). */
static unsigned char *borrowed_phases(const sl_model *md)
{
	const sl_interp *v = &md->view;
	const sl_profile *p = md->prof;
	unsigned char *b = sl_xcalloc((size_t)v->n_phase_ids + 1, 1);
	for (size_t i = 0; i < p->n_intervals; i++) {
		if (p->iv[i].phase >= v->n_phase_ids)
			continue;
		for (size_t t = 0; t < md->n_terms; t++) {
			int src = sl_interp_src(v, i, (size_t)md->k_term[t]);
			if (!md->term_energy[t] && (src == SL_SRC_SIMILAR || src == SL_SRC_PROGRAM))
				b[p->iv[i].phase] = 1;
		}
	}
	return b;
}

static double rsum_w(const rsum *s)
{
	return s->time_s > 0 ? s->resid_j / s->time_s : NAN;
}

/* The share of instance j's departure from its phase's residual carried as
 * energy per event (the file's head): of the variance of its interpolated
 * terms' energy at f0 (volts: V0), the energy terms' share; `model` (the
 * model's own split) when no term was interpolated, or one was from an
 * event with no known spread. */
static double departure_fixed(const sl_model *md, size_t j, double volts, double model)
{
	const sl_interp *v = &md->view;
	const sl_instance *in = &v->inst[j];
	double var[2] = {0, 0}; /* capacitance, energy */
	for (size_t t = 0; t < md->n_terms; t++) {
		size_t k = (size_t)md->k_term[t];
		double nj = 0;
		for (size_t i = in->first; i < in->first + in->n; i++)
			if (sl_interp_src(v, i, k) != SL_SRC_MEASURED) {
				double n = sl_interp_count(v, i, k);
				nj += isfinite(n) ? fabs(md->coeff[t]) * n : 0;
			}
		if (!(nj > 0))
			continue;
		double s = v->spread ? v->spread[k] : NAN;
		if (!isfinite(s))
			return model;
		/* nF x V^2 is nJ */
		double e = nj * s * (md->term_energy[t] ? 1 : volts * volts);
		var[md->term_energy[t] != 0] += e * e;
	}
	return var[0] + var[1] > 0 ? var[1] / (var[0] + var[1]) : model;
}

int sl_model_anchor(sl_model *md)
{
	const sl_profile *p = md->prof;
	const sl_interp *v = &md->view;
	if (md->anchor || !md->power)
		return md->anchor != NULL;
	sl_opoint op0;
	if (sl_model_opoint(md, md->f0_ghz, &op0) < 0) {
		sl_error_prefix("cannot anchor power on the measured energy at the "
				"profiled %.4g GHz: ", md->f0_ghz);
		return -1;
	}
	/* the residual at the intervals' profiled temperatures, whatever
	 * temperature the predictions will be asked at */
	double temp = md->temp_c;
	md->temp_c = NAN;
	rsum *inst = sl_xcalloc(v->n_instances + 1, sizeof *inst);
	rsum *phase = sl_xcalloc((size_t)v->n_phase_ids + 1, sizeof *phase);
	rsum all = {0};
	double model_j = 0;
	uint64_t measured = 0;
	for (size_t i = 0; i < p->n_intervals; i++) {
		double e = p->iv[i].energy_j, t = p->iv[i].time_s;
		if (!isfinite(e) || e < 0 || !(t > 0) || !isfinite(t))
			continue;
		sl_pred pr;
		sl_model_predict_measured(md, &op0, i, &pr);
		double r = e - pr.power_w * t;
		double act = (pr.power_w - op0.static_w) * t;
		/* Ceff less its constant, at f0: the capacitance event terms */
		double cnt = (pr.ceff_nf - md->constant) * op0.ghz * op0.volts * op0.volts * t;
		rsum *u[] = {&inst[v->inst_of[i]], &phase[p->iv[i].phase], &all};
		for (size_t k = 0; k < SL_ARRAY_LEN(u); k++) {
			u[k]->resid_j += r;
			u[k]->time_s += t;
			u[k]->fixed_j += pr.fixed_w * t;
			u[k]->count_j += isfinite(cnt) ? cnt : 0;
			u[k]->active_j += act;
		}
		model_j += pr.power_w * t;
		measured++;
	}
	md->temp_c = temp;
	int rc = 0;
	if (measured) {
		sl_anchor *a = sl_xcalloc(1, sizeof *a);
		a->source = p->energy_source ? p->energy_source : "measured energy";
		a->f0v2 = op0.ghz * op0.volts * op0.volts;
		a->v0 = op0.volts;
		a->static0 = op0.static_w;
		a->static_share = STATIC_SHARE;
		a->intervals_measured = measured;
		a->resid_w = rsum_w(&all);
		a->model_w = model_j / all.time_s;
		a->inst_w = sl_xcalloc(v->n_instances + 1, sizeof *a->inst_w);
		a->inst_fixed = sl_xcalloc(v->n_instances + 1, sizeof *a->inst_fixed);
		a->phase_w = sl_xcalloc(v->n_instances + 1, sizeof *a->phase_w);
		a->dep_fixed = sl_xcalloc(v->n_instances + 1, sizeof *a->dep_fixed);
		a->inst_count = sl_xcalloc(v->n_instances + 1, sizeof *a->inst_count);
		unsigned char *borrowed = borrowed_phases(md);
		for (size_t j = 0; j < v->n_instances; j++) {
			const rsum *from = &inst[j];
			if (isfinite(rsum_w(from)))
				a->inst_own++;
			else if (isfinite(rsum_w(from = &phase[v->inst[j].phase])))
				a->inst_phase++;
			else
				from = &all, a->inst_program++;
			a->inst_w[j] = rsum_w(from);
			a->inst_fixed[j] = rsum_fixed(from);
			if (borrowed[v->inst[j].phase])
				a->inst_count[j] = rsum_count(from);
			a->phase_w[j] = rsum_w(&phase[v->inst[j].phase]);
			if (!isfinite(a->phase_w[j]))
				a->phase_w[j] = a->inst_w[j];
			a->dep_fixed[j] = departure_fixed(md, j, op0.volts, a->inst_fixed[j]);
		}
		free(borrowed);
		md->anchor = a;
		sl_thermal_reset(md);
		rc = 1;
	}
	free(inst);
	free(phase);
	return rc;
}

void sl_anchor_apply(const sl_model *md, const sl_opoint *op, size_t i, sl_pred *out)
{
	const sl_anchor *a = md->anchor;
	size_t j = md->view.inst_of[i];
	double r = a->inst_w[j], rp = a->phase_w[j];
	double fv2 = op->ghz * op->volts * op->volts / a->f0v2;
	/* a share u of it is energy per event, the same energy over the
	 * interval's time at f1 rather than at f0 */
	double t01 = out->time_s > 0 ? (double)md->prof->iv[i].cycles / (md->f0_ghz * 1e9) /
					       out->time_s
				     : 0;
	double u = out->time_s > 0 ? a->inst_fixed[j] : 0;
	double ud = out->time_s > 0 ? a->dep_fixed[j] : 0;
	double k = out->time_s > 0 ? a->inst_count[j] : 0;
	/* energy per event at V^2: the same count's energy over the time */
	double vt = op->volts * op->volts / (a->v0 * a->v0) * t01;
	/* the phase's residual split as the model's power (its capacitance
	 * event terms' share as counts where the phase borrowed such
	 * counts), the instance's departure from it as its interpolation's
	 * uncertainty, which lies in counts */
	double dyn = rp * ((1 - u - k) * fv2 + k * vt + u * t01) +
		     (r - rp) * ((1 - ud) * (out->time_s > 0 ? vt : fv2) + ud * t01);
	double stat = a->static0 > 0 && op->static_w > 0 ? op->static_w / a->static0
							  : op->volts / a->v0;
	double p = out->power_w + (1 - a->static_share) * dyn + a->static_share * r * stat;
	/* a residual can only take the power down to nothing: below that the
	 * meter and the model disagree beyond what a residual can mean */
	if (!(p >= 0)) {
		p = 0;
		out->clamped = SL_CLAMP_IDLE;
	}
	out->power_w = p;
	out->energy_j = p * out->time_s;
}

void sl_anchor_free(sl_anchor *a)
{
	if (!a)
		return;
	free(a->inst_w);
	free(a->inst_fixed);
	free(a->phase_w);
	free(a->dep_fixed);
	free(a->inst_count);
	free(a);
}
