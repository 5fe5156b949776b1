/*
 * The DVFS time model and the effective-capacitance power model of
 * Power-Sleuth, evaluated interval by interval on an interpolated profile.
 * docs/models.md gives the equations and the reasoning behind each choice;
 * the comments here only point at them.
 */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/model.h"
#include "predict_int.h"
#include "thermal.h"

const char *sl_time_model_name(sl_time_model t)
{
	return t == SL_TIME_LINEAR ? "linear" : t == SL_TIME_MLP ? "mlp" : "stall";
}

int sl_time_model_parse(const char *s, sl_time_model *t)
{
	if (!strcmp(s, "stall"))
		*t = SL_TIME_STALL;
	else if (!strcmp(s, "linear"))
		*t = SL_TIME_LINEAR;
	else if (!strcmp(s, "mlp"))
		*t = SL_TIME_MLP;
	else {
		sl_error_set("unknown time model '%s'; use 'stall', 'mlp' or 'linear'", s);
		return -1;
	}
	return 0;
}

/* bytes a miss or a prefetch moves */
#define SL_LINE_BYTES 64.0

int sl_model_add_event(const char ***list, size_t *n, size_t *cap, const char *ev)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*list)[i], ev))
			return (int)i;
	SL_GROW(*list, *n, *cap);
	(*list)[*n] = ev;
	return (int)(*n)++;
}

/* Refuse an event the model cannot do without when no interval of the
 * profile measured it (nothing to interpolate from).  Two causes, two
 * fixes: the run was not programmed with the event at all, or it was but
 * ended before the rotation reached it (a short program, few intervals). */
static int need_measured(const sl_model *md, int k, const char *role)
{
	/* role: the machine's name for the event, which --pin takes; NULL for
	 * a power-model term (pinned by no role) */
	const char *what = role ? role : "a power-model term";
	if (k < 0)
		return 0;
	const sl_interp *v = &md->view;
	if (!v->ev_cells[(size_t)k * SL_SRC_N + SL_SRC_NONE])
		return 0;
	const sl_profile *p = md->prof;
	for (size_t j = 0; j < p->n_events; j++)
		if (!strcmp(p->events[j], v->events[k])) {
			sl_error_set("the profile never measured %s (%s), which the model "
				     "needs: its %zu interval%s ended before the counters "
				     "rotated to it; record again with a shorter --interval%s%s",
				     v->events[k], what, p->n_intervals,
				     p->n_intervals == 1 ? "" : "s", role ? ", or with --pin " : "",
				     role ? role : "");
			return -1;
		}
	sl_error_set("the profile never measured %s (%s), which the model needs; "
		     "profile with a machine model that lists it", v->events[k], what);
	return -1;
}

int sl_model_check_profile(const sl_profile *p)
{
	if (!p->has_counts) {
		sl_error_set("the profile has no event counts (backend '%s'): the models "
			     "need cycles and PMU events; profile with the perf backend, or "
			     "--backend vpmu where there is no PMU", p->backend ? p->backend : "?");
		return -1;
	}
	if (!(p->freq_ghz > 0)) {
		sl_error_set("the profile does not record the frequency it ran at; "
			     "profile at a fixed frequency");
		return -1;
	}
	return sl_dither_check(p);
}

static int check_inputs(const sl_profile *p, const sl_machine *m, sl_time_model t,
			int flags)
{
	if (sl_model_check_profile(p) < 0)
		return -1;
	if (t == SL_TIME_STALL && !sl_machine_role(m, "memory_stall_cycles") &&
	    (!sl_machine_role(m, "stall_cycles") || !sl_machine_role(m, "llc_misses"))) {
		sl_error_set("machine %s names no stall_cycles and llc_misses events "
			     "(nor memory_stall_cycles) for the stall model; add them "
			     "or use --model linear", m->name);
		return -1;
	}
	if (t == SL_TIME_STALL && !sl_machine_role(m, "memory_stall_cycles") &&
	    !(m->memory_latency_ns > 0)) {
		sl_error_set("machine %s has no memory_latency_ns for the stall model; "
			     "add it or use --model linear", m->name);
		return -1;
	}
	if (t == SL_TIME_MLP &&
	    (!sl_machine_role(m, "offcore_cycles") || !sl_machine_role(m, "llc_misses"))) {
		sl_error_set("machine %s names no offcore_cycles and llc_misses events "
			     "for the mlp model; record the profile with a machine that names "
			     "them (data/machines/*-mlp.yaml) or use --model stall", m->name);
		return -1;
	}
	if (!(flags & SL_MODEL_TIME_ONLY) && !sl_machine_complete(m)) {
		char *why = sl_xstrdup(sl_error());
		sl_error_set("%s, or predict time only with --time-only", why);
		free(why);
		return -1;
	}
	return 0;
}

static void other_stalls_begin(sl_model *md);
static void llc_expose_begin(sl_model *md);

/* Cycle counts that overlap memory stalls scale with them (docs/models.md,
 * "Event rates at the target"): is the event one of the machine's? */
static int scaled_cycles(const sl_machine *m, const char *ev)
{
	static const char *const cycle_roles[] = {"stall_cycles", "resource_stalls",
						  "memory_stall_cycles", "miss_stall_cycles",
						  "l2_miss_stall_cycles"};
	return sl_machine_role_in(m, ev, cycle_roles, SL_ARRAY_LEN(cycle_roles));
}

double sl_model_ceff_floor(const sl_machine *m)
{
	/* a cycle count is at most one per cycle: the least the model can
	 * mean is every cycle stalled */
	double neg = 0;
	for (size_t j = 0; j < m->n_terms; j++)
		if (!m->terms[j].energy && m->terms[j].coeff < 0 &&
		    scaled_cycles(m, m->terms[j].event))
			neg += m->terms[j].coeff;
	/* What a stall can gate is what switches while the core runs idle:
	 * the constant's capacitance (a negative constant means nothing), or
	 * with the constant fixed at 0 (no idle log) the clock tree static_w
	 * carries.  With no negative cycle count, idle is static power, as
	 * always. */
	return neg < 0 ? SL_MIN(0.0, SL_MAX(0.0, m->constant) + neg) : 0;
}

int sl_model_init(sl_model *md, const sl_profile *p, const sl_machine *m,
		  sl_time_model t, int flags)
{
	memset(md, 0, sizeof *md);
	md->temp_c = NAN;
	md->k_stall = md->k_llc = md->k_memstall = -1;
	md->k_ocyc = md->k_occ = md->k_pf = md->k_llcref = md->k_mst = md->k_misp = -1;
	md->k_l2st = md->k_l2ep = md->k_mep = md->k_dram = -1;
	md->p_pf = md->p_dram = md->p_llc = -1;
	md->k_c0 = -1;
	if (check_inputs(p, m, t, flags) < 0)
		return -1;
	md->prof = p;
	md->mach = m;
	md->time = t;
	md->flags = flags;
	md->f0_ghz = p->freq_ghz;
	md->mem_ns = m->memory_latency_ns;
	md->power = !(flags & SL_MODEL_TIME_ONLY);

	/* The view holds only the events this model evaluates, so that the
	 * interpolation shares describe what the prediction rests on. */
	const char **evs = NULL;
	size_t n = 0, cap = 0;
	const char *memstall = sl_machine_role(m, "memory_stall_cycles");
	if (t == SL_TIME_STALL && memstall)
		md->k_memstall = sl_model_add_event(&evs, &n, &cap, memstall);
	else if (t == SL_TIME_STALL) {
		md->k_stall = sl_model_add_event(&evs, &n, &cap, sl_machine_role(m, "stall_cycles"));
		md->k_llc = sl_model_add_event(&evs, &n, &cap, sl_machine_role(m, "llc_misses"));
	} else if (t == SL_TIME_MLP) {
		const char *ev;
		md->k_ocyc = sl_model_add_event(&evs, &n, &cap, sl_machine_role(m, "offcore_cycles"));
		md->k_llc = sl_model_add_event(&evs, &n, &cap, sl_machine_role(m, "llc_misses"));
		if ((ev = sl_machine_role(m, "offcore_occupancy")))
			md->k_occ = sl_model_add_event(&evs, &n, &cap, ev);
		if ((ev = sl_machine_role(m, "prefetches")))
			md->k_pf = sl_model_add_event(&evs, &n, &cap, ev);
		if ((ev = sl_machine_role(m, "llc_references")) &&
		    sl_machine_llc_hit(m, sl_machine_fmax(m)) > 0)
			md->k_llcref = sl_model_add_event(&evs, &n, &cap, ev);
		if ((ev = sl_machine_role(m, "miss_stall_cycles"))) {
			md->k_mst = sl_model_add_event(&evs, &n, &cap, ev);
			/* the stall cycles and mispredicts tell how much of
			 * M is other stalls (other_stalls_begin) */
			if (m->has_stall_probe && (ev = sl_machine_role(m, "stall_cycles")) &&
			    sl_machine_role(m, "mispredicts")) {
				md->k_stall = sl_model_add_event(&evs, &n, &cap, ev);
				md->k_misp = sl_model_add_event(&evs, &n, &cap,
								sl_machine_role(m, "mispredicts"));
			}
		}
		/* the LLC hits' exposure: stall cycles behind an L2 miss less
		 * M, scaled as the probe's exposed hit (llc_expose_begin) */
		if (md->k_llcref >= 0 && md->k_mst >= 0 &&
		    sl_machine_llc_chase(m, sl_machine_fmax(m)) > 0 &&
		    (ev = sl_machine_role(m, "l2_miss_stall_cycles"))) {
			md->k_l2st = sl_model_add_event(&evs, &n, &cap, ev);
			/* and how many stalls that exposure came in: each
			 * one's stall falls by a hit's latency drop */
			const char *ea = sl_machine_role(m, "l2_miss_stall_episodes"),
				   *ed = sl_machine_role(m, "miss_stall_episodes");
			if (ea && ed) {
				md->k_l2ep = sl_model_add_event(&evs, &n, &cap, ea);
				md->k_mep = sl_model_add_event(&evs, &n, &cap, ed);
			}
		}
		/* the traffic as the memory controller counted it: every line
		 * read, prefetches included, in every interval (an uncore
		 * event takes no counter) */
		if ((ev = sl_machine_role(m, "dram_reads")))
			md->k_dram = sl_model_add_event(&evs, &n, &cap, ev);
		/* the most traffic any probe achieved */
		md->bw_gbps = m->mem_bandwidth_gbps;
		if (m->n_mem_loaded)
			md->bw_gbps = SL_MAX(md->bw_gbps, m->mem_loaded_gbps[m->n_mem_loaded - 1]);
	}
	if (md->power) {
		md->n_terms = m->n_terms;
		md->k_term = sl_xcalloc(m->n_terms + 1, sizeof *md->k_term);
		md->coeff = sl_xcalloc(m->n_terms + 1, sizeof *md->coeff);
		md->k_scaled = sl_xcalloc(m->n_terms + 1, sizeof *md->k_scaled);
		md->term_energy = sl_xcalloc(m->n_terms + 1, sizeof *md->term_energy);
		md->constant = m->constant;
		md->ceff_peak = m->constant;
		md->ceff_floor = m->floor_stalled ? sl_model_ceff_floor(m) : 0;
		const char *pf = sl_machine_role(m, "prefetches");
		const char *dr = sl_machine_role(m, "dram_reads");
		const char *lm = sl_machine_role(m, "llc_misses");
		if (pf && dr && lm) {
			md->p_pf = sl_model_add_event(&evs, &n, &cap, pf);
			md->p_dram = sl_model_add_event(&evs, &n, &cap, dr);
			md->p_llc = sl_model_add_event(&evs, &n, &cap, lm);
		}
		for (size_t j = 0; j < m->n_terms; j++) {
			const char *ev = m->terms[j].event;
			md->k_term[j] = sl_model_add_event(&evs, &n, &cap, ev);
			md->coeff[j] = m->terms[j].coeff;
			md->k_scaled[j] = scaled_cycles(m, ev);
			md->term_energy[j] = m->terms[j].energy;
			if (m->terms[j].coeff > 0)
				*(md->term_energy[j] ? &md->energy_peak : &md->ceff_peak) +=
					m->terms[j].coeff * SL_PEAK_RATE_PER_CYCLE;
		}
	}
	int rc = sl_dither_begin(md, p, &evs, &n, &cap);
	if (rc == 0) {
		/* the events that count cycles, not work (sl_interp_build_cycles) */
		const char **cyc = sl_xcalloc(m->n_roles + 1, sizeof *cyc);
		size_t nc = 0;
		for (size_t r = 0; r < m->n_roles; r++)
			if (sl_machine_counts_cycles(m, m->roles[r].event))
				cyc[nc++] = m->roles[r].event;
		rc = sl_interp_build_cycles(&md->view, md->prof, evs, n, cyc, nc);
		free(cyc);
	}
	free(evs);
	if (rc < 0)
		goto fail;
	/* an LLC miss is an LLC reference: a borrowed miss count is at most
	 * the interval's measured references (sl_interp_cap) */
	const char *llcm = sl_machine_role(m, "llc_misses");
	int kl = llcm ? sl_interp_event(&md->view, llcm) : -1;
	if (kl >= 0)
		sl_interp_cap(&md->view, (size_t)kl, sl_machine_role(m, "llc_references"));
	/* the model's events settle before the dithered intervals are filled
	 * through it (sl_dither_end inverts the model that will predict) */
	if (t == SL_TIME_STALL) {
		if (md->k_memstall >= 0)
			rc = need_measured(md, md->k_memstall, "memory_stall_cycles");
		else if (need_measured(md, md->k_stall, "stall_cycles") < 0 ||
			 need_measured(md, md->k_llc, "llc_misses") < 0)
			rc = -1;
		if (rc < 0)
			goto fail;
	}
	if (t == SL_TIME_MLP) {
		/* the optional ones only matter when measured somewhere */
		if (need_measured(md, md->k_ocyc, "offcore_cycles") < 0 ||
		    need_measured(md, md->k_llc, "llc_misses") < 0)
			goto fail;
		int *opt[] = {&md->k_occ, &md->k_pf, &md->k_llcref, &md->k_mst, &md->k_stall,
			      &md->k_misp, &md->k_l2st, &md->k_l2ep, &md->k_mep, &md->k_dram};
		for (size_t j = 0; j < SL_ARRAY_LEN(opt); j++)
			if (*opt[j] >= 0 &&
			    md->view.ev_cells[(size_t)*opt[j] * SL_SRC_N + SL_SRC_NONE])
				*opt[j] = -1;
	}
	if (t == SL_TIME_MLP) {
		llc_expose_begin(md);
		other_stalls_begin(md);
	}
	if (sl_dither_end(md) < 0)
		goto fail;
	for (size_t j = 0; md->power && j < md->n_terms; j++)
		if (need_measured(md, md->k_term[j], NULL) < 0)
			goto fail;
	sl_thermal_init(md);
	return 0;
fail:
	sl_model_free(md);
	return -1;
}

void sl_model_free(sl_model *md)
{
	sl_interp_free(&md->view);
	sl_refine_free(md->refine);
	sl_dither_free(md->dither);
	sl_thermal_free(md->thermal);
	free(md->k_term);
	free(md->coeff);
	free(md->term_energy);
	free(md->k_scaled);
	sl_anchor_free(md->anchor);
	free(md->other_stalls);
	free(md->other_stalls_rmax);
	free(md->llc_expose);
	free(md->llc_episodes);
	memset(md, 0, sizeof *md);
}

void sl_model_set_temp(sl_model *md, double temp_c)
{
	md->temp_c = temp_c;
}

int sl_model_opoint(const sl_model *md, double ghz, sl_opoint *op)
{
	const sl_machine *m = md->mach;
	if (sl_machine_opoint(m, ghz, md->flags & SL_MODEL_EXTRAPOLATE, op) < 0)
		return -1;
	/* leakage at another die temperature than calibrated */
	if (m->has_temp && isfinite(md->temp_c) && isfinite(op->static_w))
		op->static_w = SL_MAX(0, op->static_w + sl_machine_static_temp(m, op->ghz, op->volts,
										md->temp_c));
	return 0;
}

/* Off-chip stall cycles of interval i at the profiled frequency: the
 * direct count when the machine has one, else Power-Sleuth's estimate
 * min(stall cycles, LLC misses x latency); never more than the cycles. */
static double offchip_stalls(const sl_model *md, size_t i, double c)
{
	const sl_interp *v = &md->view;
	double st;
	if (md->k_memstall >= 0)
		st = sl_interp_count(v, i, (size_t)md->k_memstall);
	else
		st = SL_MIN(sl_interp_count(v, i, (size_t)md->k_stall),
			    sl_interp_count(v, i, (size_t)md->k_llc) * md->mem_ns *
				    md->f0_ghz);
	return st < 0 ? 0 : st > c ? c : st;
}

/* The fewest intervals that counted S, M and O together of the phase
 * whose rate of other stalls a phase that counted none borrows
 * (other_stalls_begin, nearest_rated). */
#define MLP_OTHER_STALLS_MIN 3

static double count_or0(const sl_model *md, size_t i, int k);

/* Interval i's LLC hits: its LLC references less its misses. */
static double llc_hits(const sl_model *md, size_t i)
{
	return SL_MAX(0.0, count_or0(md, i, md->k_llcref) - count_or0(md, i, md->k_llc));
}

/* The LLC hits' cycles at f0 of interval i (mlp_cycles' fh), given its
 * hits (llc_hits), c and O: the hits times their phase's counted stall
 * cycles per hit, at most an exposed hit's latency each
 * (llc_expose_begin), else times the llc probe's cost per hit. */
static double llc_hit_cycles(const sl_model *md, size_t i, double hits, double c, double o)
{
	const sl_machine *m = md->mach;
	double f0 = md->f0_ghz;
	uint32_t ph = md->prof->iv[i].phase;
	double per = md->llc_expose && ph < md->view.n_phase_ids
			     ? SL_MIN(md->llc_expose[ph], sl_machine_llc_chase(m, f0) * f0)
			     : sl_machine_llc_hit(m, f0) * f0;
	return SL_MAX(0.0, SL_MIN(hits * per, c - o));
}

/* What the LLC hits' cycles at f0 become at f1: as an exposed hit's
 * latency in cycles (the llcchase probe) when their stall cycles are
 * counted, else as the llc probe's cost per hit. */
static double llc_hit_scale(const sl_model *md, double f1)
{
	const sl_machine *m = md->mach;
	double f0 = md->f0_ghz;
	if (md->llc_expose)
		return sl_machine_llc_chase(m, f1) * f1 / (sl_machine_llc_chase(m, f0) * f0);
	return sl_machine_llc_hit(m, f1) * f1 / (sl_machine_llc_hit(m, f0) * f0);
}

/* Per phase id: the count a less the count b (at least 0) per LLC hit,
 * summed over the phase's intervals that counted a, b and the hits
 * together, else over all of its intervals (their interpolated counts);
 * 0 for a phase with no hit, and with `own`, for a phase none of whose
 * intervals counted a or none b (a rate borrowed from other phases, per a
 * base of their own, says nothing of this phase's hits). */
static double *per_hit(const sl_model *md, int ka, int kb, int own)
{
	const sl_profile *p = md->prof;
	const sl_interp *v = &md->view;
	size_t np = v->n_phase_ids;
	/* [0]: intervals that counted all three, [1]: every interval */
	double *se = sl_xcalloc(2 * np, sizeof *se), *sh = sl_xcalloc(2 * np, sizeof *sh);
	unsigned char *seen = sl_xcalloc(np + 1, 1); /* bit 0: a counted, bit 1: b */
	for (size_t i = 0; i < p->n_intervals; i++) {
		uint32_t ph = p->iv[i].phase;
		if (ph >= np)
			continue;
		double hits = llc_hits(md, i);
		double e = count_or0(md, i, ka) - count_or0(md, i, kb);
		int ks[] = {ka, kb, md->k_llcref};
		int all = 1;
		for (size_t j = 0; j < SL_ARRAY_LEN(ks) && all; j++)
			all = sl_interp_src(v, i, (size_t)ks[j]) == SL_SRC_MEASURED;
		seen[ph] |= (sl_interp_src(v, i, (size_t)ka) == SL_SRC_MEASURED) |
			    (sl_interp_src(v, i, (size_t)kb) == SL_SRC_MEASURED) << 1;
		for (int k = !all; k < 2; k++) {
			se[k * np + ph] += e;
			sh[k * np + ph] += hits;
		}
	}
	double *r = sl_xcalloc(np, sizeof *r);
	for (size_t ph = 0; ph < np; ph++) {
		int k = sh[ph] > 0 ? 0 : 1;
		if (sh[k * np + ph] > 0 && (!own || seen[ph] == 3))
			r[ph] = SL_MAX(0.0, se[k * np + ph] / sh[k * np + ph]);
	}
	free(seen);
	free(se);
	free(sh);
	return r;
}

/*
 * The LLC hits' stall cycles per hit of each phase (docs/models.md, "The
 * LLC hits' exposure"): the stall cycles behind an L2 miss (S2) less those
 * behind a DRAM miss (M) are the stalls that LLC hits left exposed, which
 * the hits' overlap decides (a dependent walk waits for every hit, a
 * streaming loop overlaps ten), per hit (per_hit).  Rotating S2 is a
 * phase rate: a one-interval instance takes its phase's exposure times its
 * own hits.  Where the machine counts stall episodes, the episodes behind
 * L2 misses less those behind DRAM misses are the stalls the hits' exposure
 * came in, per hit the same way, from a phase's own counts only
 * (mlp_part_cycles).
 */
static void llc_expose_begin(sl_model *md)
{
	if (md->k_l2st < 0 || md->k_mst < 0 || md->k_llcref < 0 || !md->view.n_phase_ids)
		return;
	md->llc_expose = per_hit(md, md->k_l2st, md->k_mst, 0);
	if (md->k_l2ep >= 0 && md->k_mep >= 0)
		md->llc_episodes = per_hit(md, md->k_l2ep, md->k_mep, 1);
}

/* The phase nearest ph in behaviour (the view's phase features) among
 * those whose intervals measured a rate of other stalls in at least
 * MLP_OTHER_STALLS_MIN (cnt[q]); -1: none, or ph without features. */
static int64_t nearest_rated(const sl_model *md, const size_t *cnt, size_t ph)
{
	const sl_interp *v = &md->view;
	size_t nf = v->n_feat;
	int64_t best_q = -1;
	double best = INFINITY;
	if (isnan(v->feat[ph * nf]))
		return -1;
	for (size_t q = 0; q < v->n_phase_ids; q++) {
		if (cnt[q] < MLP_OTHER_STALLS_MIN || isnan(v->feat[q * nf]))
			continue;
		double d = sl_feat_dist2(v->feat + ph * nf, v->feat + q * nf, nf);
		if (d < best) {
			best = d;
			best_q = (int64_t)q;
		}
	}
	return best_q;
}

/*
 * The stalls with other causes under a miss (docs/models.md, "Stalls
 * with other causes under a miss").  M, the cycles stalled while a miss
 * is out, also counts the dependency and resource stalls that happen to
 * fall while one is out.  Taken as independent of the misses, N such
 * stall cycles fall under a miss in the share r = O / c of the cycles
 * that have one out: M = Mown + r N.  The stall cycles S count every
 * stall: S = Mown + N + a fh + b mispredicts, with a (the share of an LLC
 * hit's cycles S counts) and b (S's cycles per mispredict) what the
 * machine's probes measured (memory: stall_llc_share,
 * stall_per_mispredict).  So N = (S - M - a fh - b mispredicts) / (1 - r)
 * in an interval that counted S, M and O together and is not a
 * one-interval instance.  Per cycle of work w = c - Mown - fh (the
 * dependency and resource stalls are a share of the work that waits on
 * them, and grow with it when a phase's CPI drifts; per instruction, a
 * drifting phase's early intervals say too little for its late ones:
 * docs/benchmarks.md, "Other stalls per cycle of work"), its
 * median over such intervals of each phase, however few (the stall
 * counter rotates: a phase of short instances may measure it once), is
 * the phase's rate nu, and every interval of the phase sheds r N = r nu w
 * of its M, r its own (mlp_part_of solves for Mown, since w depends on
 * it).  Its own intervals, not a rate pooled with the phases nearest it:
 * a dependency-bound phase of short instances among phases that wait on
 * memory stalls unlike them, and the smaller of its own and the pooled
 * rate, kept before, shed too little there (docs/benchmarks.md, "Other
 * stalls: a phase's own intervals, however few").  A phase that measured
 * it in none (one made of one-interval instances, the straddles between
 * two phases) takes the rate of the phase nearest it in behaviour among
 * those rated in at least MLP_OTHER_STALLS_MIN (nearest_rated), and its
 * largest r for the cap at an instance's edge (other_stalls_share).
 * Left unset (no correction) without the roles or the probes.
 */
static void other_stalls_begin(sl_model *md)
{
	const sl_profile *p = md->prof;
	const sl_interp *v = &md->view;
	const sl_machine *m = md->mach;
	size_t np = v->n_phase_ids;
	if (md->k_mst < 0 || md->k_stall < 0 || md->k_misp < 0 || !m->has_stall_probe || !np)
		return;
	double *x = sl_xmalloc((p->n_intervals + 1) * sizeof *x);
	double *vals = sl_xmalloc((p->n_intervals + 1) * sizeof *vals);
	double *rate = sl_xcalloc(np, sizeof *rate);
	double *rmax = sl_xmalloc(np * sizeof *rmax);
	for (size_t ph = 0; ph < np; ph++)
		rmax[ph] = -INFINITY;
	for (size_t i = 0; i < p->n_intervals; i++) {
		x[i] = NAN;
		double c = (double)p->iv[i].cycles;
		int ks[] = {md->k_mst, md->k_stall, md->k_ocyc};
		int all = c > 0 && p->iv[i].instructions;
		for (size_t j = 0; j < SL_ARRAY_LEN(ks) && all; j++)
			all = sl_interp_src(v, i, (size_t)ks[j]) == SL_SRC_MEASURED;
		/* nor a one-interval instance: a straddle of the phases either
		 * side, more often than not (models/interp.c, "mixed") */
		uint32_t ph = p->iv[i].phase;
		all = all && ((i > 0 && p->iv[i - 1].phase == ph) ||
			      (i + 1 < p->n_intervals && p->iv[i + 1].phase == ph));
		if (!all)
			continue;
		double o = SL_MIN(count_or0(md, i, md->k_ocyc), c);
		double mst = SL_MIN(count_or0(md, i, md->k_mst), o);
		double st = count_or0(md, i, md->k_stall);
		double fh = llc_hit_cycles(md, i, llc_hits(md, i), c, o);
		double other = st - mst - m->mem_stall_llc_share * fh -
			       m->mem_stall_mispredict * count_or0(md, i, md->k_misp);
		if (o < c) {
			/* per cycle of work w = c - Mown - fh, Mown = M - r N */
			double r = o / c, n = SL_MAX(0.0, other) / (1 - r);
			double w = c - SL_MAX(0.0, mst - r * n) - fh;
			if (!(w > 0))
				continue;
			x[i] = n / w;
			rmax[ph] = SL_MAX(rmax[ph], r);
		}
	}
	for (size_t ph = 0; ph < np; ph++)
		if (rmax[ph] < 0)
			rmax[ph] = INFINITY;
	/* the median over the phase's rated intervals, however few */
	size_t *cnt = sl_xcalloc(np, sizeof *cnt);
	for (size_t ph = 0; ph < np; ph++) {
		size_t k = 0;
		for (size_t i = 0; i < p->n_intervals; i++)
			if (p->iv[i].phase == ph && !isnan(x[i]))
				vals[k++] = x[i];
		cnt[ph] = k;
		gsl_sort(vals, 1, k);
		rate[ph] = k ? gsl_stats_median_from_sorted_data(vals, 1, k) : 0;
	}
	for (size_t ph = 0; ph < np; ph++)
		if (!cnt[ph]) {
			/* none of its own: the nearest's rate, shed under no larger
			 * a share at its edges than the nearest measured it under */
			int64_t q = nearest_rated(md, cnt, ph);
			if (q >= 0) {
				rate[ph] = rate[q];
				rmax[ph] = rmax[q];
			}
		}
	md->other_stalls = rate;
	md->other_stalls_rmax = rmax;
	free(cnt);
	free(x);
	free(vals);
}

/*
 * The share of interval i's cycles under which its phase's other stalls
 * fall (mlp_cycles), given r = O / c, its share of cycles with a miss
 * out.  The first or last interval of an instance may straddle a phase
 * change: its misses may be the other side's, whose cycles carry none of
 * this phase's other stalls (video-encode's entropy coding ending in a
 * rate-control burst with five times its misses).  There r is taken at
 * most as large as in the intervals the phase's rate was measured in
 * (other_stalls_rmax); inside an instance it stands (docs/models.md,
 * "Stalls with other causes under a miss").
 */
static double other_stalls_share(const sl_model *md, size_t i, double r)
{
	const uint32_t *inst = md->view.inst_of;
	int edge = i == 0 || inst[i - 1] != inst[i] || i + 1 == md->prof->n_intervals ||
		   inst[i + 1] != inst[i];
	return edge ? SL_MIN(r, md->other_stalls_rmax[md->prof->iv[i].phase]) : r;
}

static double count_or0(const sl_model *md, size_t i, int k)
{
	if (k < 0)
		return 0;
	double x = sl_interp_count(&md->view, i, (size_t)k);
	return isfinite(x) && x > 0 ? x : 0;
}

/* The lines the memory controller (view event k, role dram_reads: an
 * uncore event, counted in every interval beside the core's counters)
 * read in interval i, less the socket's other readers over the interval
 * (memory: background_gbps); NAN where it was not counted. */
static double controller_lines(const sl_model *md, size_t i, int k)
{
	if (k < 0 || sl_interp_src(&md->view, i, (size_t)k) != SL_SRC_MEASURED)
		return NAN;
	double other = md->mach->mem_background_gbps * 1e9 / SL_LINE_BYTES * md->prof->iv[i].time_s;
	return SL_MAX(0.0, count_or0(md, i, k) - other);
}

/* Interval i's lines read from DRAM: the controller's, where it counted
 * the interval; else the misses and prefetches, either of which may be
 * borrowed from other intervals.  The misses and prefetches are not
 * reconciled with the count (their share of the lines): the background's
 * noise then moves the LLC hits, the small difference of two large
 * counts (docs/models.md, "DRAM reads"). */
static double mlp_lines(const sl_model *md, size_t i)
{
	double l = controller_lines(md, i, md->k_dram);
	return !isnan(l) ? l : count_or0(md, i, md->k_llc) + count_or0(md, i, md->k_pf);
}

/* Interval i's count of view event k as a power term.  Prefetches
 * borrowed from another phase (similar, program: rates of other code)
 * are at least what the controller read in the interval less its misses:
 * a line read is a miss or a prefetch (docs/models.md, "Prefetches from
 * another phase").  Not for an instance's own or its phase's rates,
 * where the background's noise in the controller's count would outweigh
 * them. */
static double term_count(const sl_model *md, size_t i, size_t k)
{
	double n = sl_interp_count(&md->view, i, k);
	if ((int)k != md->p_pf)
		return n;
	sl_src s = sl_interp_src(&md->view, i, k);
	if (s != SL_SRC_SIMILAR && s != SL_SRC_PROGRAM)
		return n;
	double l = controller_lines(md, i, md->p_dram);
	return isnan(l) ? n : SL_MAX(n, l - count_or0(md, i, md->p_llc));
}

/* One stretch of execution as the mlp model sees it (mlp_cycles): its
 * cycles c at f0, offcore cycles O, DRAM bytes (misses and prefetches),
 * LLC hits' cycles fh, and miss stall cycles M (NAN: not counted with O). */
typedef struct {
	double c, o, bytes, fh, mst;
	double eh; /* the stall episodes fh came in (0: not counted) */
} mlp_part;

/* Interval i's counts as one stretch, M less its other stalls and the
 * refined share pol (mlp_cycles). */
static mlp_part mlp_part_of(const sl_model *md, size_t i, double pol)
{
	mlp_part q;
	q.c = (double)md->prof->iv[i].cycles;
	q.o = SL_MIN(count_or0(md, i, md->k_ocyc), q.c);
	q.bytes = mlp_lines(md, i) * SL_LINE_BYTES;
	double hits = llc_hits(md, i);
	q.fh = llc_hit_cycles(md, i, hits, q.c, q.o);
	/* an episode the hits' drop applies to holds one at least (the rest
	 * stalled on L2 hits, whose latency is cycles) */
	q.eh = md->llc_episodes && md->prof->iv[i].phase < md->view.n_phase_ids && q.fh > 0
		       ? hits * SL_MIN(1.0, md->llc_episodes[md->prof->iv[i].phase])
		       : 0;
	/* the hidden work: O - M when M is counted (0..O), else taken as
	 * never clipped (the cycles less O are all work) */
	/* M and O must come from the same interval: O - M from a measured O
	 * and a phase-mean M is noise */
	q.mst = NAN;
	if (md->k_mst >= 0 &&
	    sl_interp_src(&md->view, i, (size_t)md->k_mst) ==
		    sl_interp_src(&md->view, i, (size_t)md->k_ocyc)) {
		/* less the other stalls under its misses (other_stalls_begin):
		 * Mown = M - s nu w with the work w = c - Mown - fh, so
		 * Mown = (M - s nu (c - fh)) / (1 - s nu) */
		q.mst = SL_MIN(count_or0(md, i, md->k_mst), q.o);
		if (md->other_stalls && q.c > 0) {
			double sn = other_stalls_share(md, i, q.o / q.c) *
				    md->other_stalls[md->prof->iv[i].phase];
			q.mst = sn < 1 ? SL_MIN(q.mst, SL_MAX(0.0, (q.mst - sn * (q.c - q.fh)) /
								   (1 - sn)))
				       : 0;
		}
		q.mst *= 1 - pol;
	}
	return q;
}

/* The cycles at f1 of one stretch (mlp_cycles); *w its work cycles. */
static double mlp_part_cycles(const sl_model *md, const mlp_part *q, double f1, double *w)
{
	const sl_machine *m = md->mach;
	double f0 = md->f0_ghz;
	double lr = sl_machine_mem_latency(m, f1) / sl_machine_mem_latency(m, f0);
	double fh1 = q->fh > 0 ? q->fh * llc_hit_scale(md, f1) : 0;
	/* the ROB fill hides the same cycles of each episode at f1: the
	 * episode's stall falls by at least a hit's latency drop (in cycles,
	 * the dependent walk's), however little of the hit it exposed */
	if (q->eh > 0 && fh1 > 0) {
		const sl_machine *mm = md->mach;
		double drop = sl_machine_llc_chase(mm, f0) * f0 - sl_machine_llc_chase(mm, f1) * f1;
		fh1 = SL_MAX(0.0, SL_MIN(fh1, q->fh - q->eh * drop));
	}
	double bytes = q->bytes, t0 = q->c / (f0 * 1e9);
	double hidden = isnan(q->mst) ? 0 : q->o - q->mst;
	*w = isnan(q->mst) ? q->c - q->o - q->fh : q->c - q->mst - q->fh;
	/* the offcore cycles at f1 without queueing */
	double ou = t0 > 0 ? q->o / sl_machine_mem_queueing(m, bytes / t0 / 1e9) * lr * f1 / f0 : 0;
	double t_bw = md->bw_gbps > 0 ? bytes / (md->bw_gbps * 1e9) : 0;
#define CYC1(t) (*w + SL_MAX(0.0, ou * sl_machine_mem_queueing(m, bytes / (t) / 1e9) - hidden) + fh1)
	double hz = f1 * 1e9;
	double lo = SL_MAX(t_bw, CYC1(HUGE_VAL) / hz), hi = lo;
	if (bytes > 0 && m->n_mem_loaded) {
		/* cycles1(t) / f1 falls as t grows (less traffic per second,
		 * less queueing): bisect for the fixed point */
		while (CYC1(hi) / hz > hi)
			hi *= 2;
		for (int it = 0; it < 60 && hi - lo > 1e-9 * hi; it++) {
			double mid = 0.5 * (lo + hi);
			if (CYC1(mid) / hz > mid)
				lo = mid;
			else
				hi = mid;
		}
	}
#undef CYC1
	return SL_MAX(t_bw, hi) * hz;
}

/* The share of a straddle's count x that its part before the change ran:
 * the interval's share 1 - alpha of its instructions at the rate of the
 * interval before (xa per ia instructions), against alpha at the rate
 * after (xb per ib); 1 - alpha where neither side has any. */
static double part_share(double alpha, double xa, double ia, double xb, double ib)
{
	double a = (1 - alpha) * xa / ia, b = alpha * xb / ib;
	return a + b > 0 ? a / (a + b) : 1 - alpha;
}

/*
 * A straddling interval in two parts (docs/models.md, "Straddles in two
 * parts").  An interval the interpolation took for a straddle ("mixed":
 * a one-interval instance near the line between its neighbours, alpha
 * the share of its instructions the side after it ran) ran part of one
 * behaviour and part of another, and the model's terms are not linear:
 * one part's ROB may hide its misses at f1 while the other's stall, one
 * part may saturate the DRAM while the mean traffic does not.  Each of
 * its counts is split between the parts as the neighbours' rates say
 * (part_share), so the parts add up to the interval's own counts, and
 * each part goes through the model alone.  Returns 0 (q untouched) for
 * an interval that is not a straddle.
 */
static int straddle_parts(const sl_model *md, size_t i, double pol, const mlp_part *q,
			  mlp_part *pa, mlp_part *pb)
{
	const sl_interp *v = &md->view;
	const sl_profile *p = md->prof;
	if (!v->mix_alpha || i == 0 || i + 1 >= p->n_intervals)
		return 0;
	double al = v->mix_alpha[v->inst_of[i]];
	if (isnan(al) && v->edge_alpha)
		al = v->edge_alpha[i];
	if (isnan(al))
		return 0;
	double ia = (double)p->iv[i - 1].instructions, ib = (double)p->iv[i + 1].instructions;
	if (!(ia > 0 && ib > 0))
		return 0;
	mlp_part a = mlp_part_of(md, i - 1, pol), b = mlp_part_of(md, i + 1, pol);
	double s[5] = {part_share(al, a.c, ia, b.c, ib), part_share(al, a.o, ia, b.o, ib),
		       part_share(al, a.bytes, ia, b.bytes, ib), part_share(al, a.fh, ia, b.fh, ib),
		       /* a side without M: its misses stall whole */
		       part_share(al, isnan(a.mst) ? a.o : a.mst, ia, isnan(b.mst) ? b.o : b.mst,
				  ib)};
	*pa = (mlp_part){q->c * s[0], q->o * s[1], q->bytes * s[2], q->fh * s[3], q->mst * s[4],
			 q->eh * s[3]};
	*pb = (mlp_part){q->c - pa->c, q->o - pa->o, q->bytes - pa->bytes, q->fh - pa->fh,
			 q->mst - pa->mst, q->eh - pa->eh};
	mlp_part *both[] = {pa, pb};
	for (int k = 0; k < 2; k++) {
		mlp_part *r = both[k];
		r->o = SL_MIN(r->o, r->c);
		r->fh = SL_MIN(r->fh, r->c - r->o);
		if (!isnan(r->mst))
			r->mst = SL_MIN(r->mst, r->o);
	}
	return 1;
}

/*
 * The mlp model (docs/models.md).  Of the cycles c at f0:
 *   - the LLC hits' cost fh = hits * llc_ns(f0) * f0 is time, measured per
 *     P-state (memory: latency:);
 *   - the offcore cycles O (at least one demand miss outstanding) are the
 *     misses' latency, overlapped misses counted once: time, at the
 *     latency L(f) * q(B) a chase measured at f and the loaded-latency
 *     probe at the traffic B = (misses + prefetches) * 64 B / time;
 *   - the rest, c - O - fh, is work in cycles, less the work the ROB did
 *     under the misses: with a count of the cycles stalled on misses M,
 *     that hidden work is O - M, and at f1 a miss's latency hides at most
 *     that much (mem1 = max(0, O1 - (O - M)));
 * and the interval can never be shorter than its traffic over the most
 * bandwidth a probe achieved.  t1 solves t = cycles1(B(t)) / f1 (the
 * queueing depends on the traffic per second, which depends on t).  A
 * straddling interval is the sum of its two parts (straddle_parts), each
 * scaled so that at f0 it takes the cycles it was given.
 * `pol` is the share of M taken as dependency and resource stalls rather
 * than stalls on the miss (M' = M (1 - pol); 0 unless refined, see
 * sl_model_cycles_par).
 * Returns the cycles at f1; *st and *scale as for the stall model.
 */
static double mlp_cycles(const sl_model *md, size_t i, double c, double f1, double pol,
			 double *st, double *scale)
{
	mlp_part q = mlp_part_of(md, i, pol), pa, pb; /* q.c is c */
	double w, c1;
	if (straddle_parts(md, i, pol, &q, &pa, &pb)) {
		/* each part at f0 must take the cycles it was given: a part
		 * given more traffic than its cycles carry at the bandwidth
		 * floor (the split takes each count at its neighbour's rate)
		 * would lengthen the interval even at f0.  A part's model
		 * sets its ratio from f0 to f1; its counted cycles, the
		 * scale. */
		double wb, a0 = mlp_part_cycles(md, &pa, md->f0_ghz, &w),
			   b0 = mlp_part_cycles(md, &pb, md->f0_ghz, &wb);
		double a1 = mlp_part_cycles(md, &pa, f1, &w), b1 = mlp_part_cycles(md, &pb, f1, &wb);
		c1 = (a0 > 0 ? a1 * pa.c / a0 : a1) + (b0 > 0 ? b1 * pb.c / b0 : b1);
		w += wb;
	} else {
		c1 = mlp_part_cycles(md, &q, f1, &w);
	}
	*st = c - w;
	*scale = *st > 0 ? (c1 - w) / *st : 1;
	return c1;
}

/* Predicted cycles of interval i at f1 before refinement, with the
 * parameter `par` (sl_model_cycles_par), the off-chip stall cycles `st` at
 * f0 and the factor `scale` (f1/f0) they scale by. */
static double model_cycles(const sl_model *md, size_t i, double f1, double par, double *st,
			   double *scale)
{
	double c = (double)md->prof->iv[i].cycles;
	*st = 0;
	*scale = 1;
	if (md->time == SL_TIME_MLP)
		return mlp_cycles(md, i, c, f1, isnan(par) ? 0 : par, st, scale);
	if (md->time == SL_TIME_STALL) {
		*st = offchip_stalls(md, i, c);
		if (!isnan(par))
			*st = SL_MIN(*st * par, c);
		*scale = f1 / md->f0_ghz;
	}
	return (c - *st) + *st * *scale;
}

double sl_model_cycles_par(const sl_model *md, size_t i, double f1_ghz, double par)
{
	double st, scale;
	return model_cycles(md, i, f1_ghz, par, &st, &scale);
}

/* The same, refined when the model is (models/refine.c). */
static double refined_cycles(const sl_model *md, size_t i, double f1, double *st,
			     double *scale)
{
	double par = md->refine ? sl_refine_param(md, i) : NAN;
	double c1 = model_cycles(md, i, f1, par, st, scale);
	return md->refine ? sl_refine_cycles(md, i, f1, c1) : c1;
}

double sl_model_cycles_refined(const sl_model *md, size_t i, double f1_ghz)
{
	double st, scale;
	return refined_cycles(md, i, f1_ghz, &st, &scale);
}

/* The same, a dithered interval's held to what it measured
 * (models/dither.c). */
static double target_cycles(const sl_model *md, size_t i, double f1, double *st,
			    double *scale)
{
	double c1 = refined_cycles(md, i, f1, st, scale);
	return md->dither ? sl_dither_cycles(md, i, c1) : c1;
}

double sl_model_cycles(const sl_model *md, size_t i, double f1_ghz)
{
	double st, scale;
	return target_cycles(md, i, f1_ghz, &st, &scale);
}

double sl_model_idle_w(const sl_model *md, const sl_opoint *op)
{
	double w = op->static_w + md->ceff_floor * op->ghz * op->volts * op->volts;
	/* a stalled core's floor (floor: stalled) below static_w, never below
	 * 0 W: power is positive, whatever a fit's stall terms say */
	return md->ceff_floor < 0 ? SL_MAX(0.0, w) : w;
}

double sl_model_peak_w(const sl_model *md, const sl_opoint *op)
{
	return op->static_w + md->ceff_peak * op->ghz * op->volts * op->volts +
	       md->energy_peak * op->ghz;
}

/* The power model over interval i taking c1 cycles at op, its off-chip
 * stall cycles st at f0 scaling by `scale` (sl_model_predict). */
static void predict_at(const sl_model *md, const sl_opoint *op, size_t i, double c1,
		       double st, double scale, sl_pred *out)
{
	double f1 = op->ghz;
	out->cycles = c1;
	out->time_s = c1 / (f1 * 1e9);
	out->clamped = SL_CLAMP_NONE;
	if (!md->power) {
		out->power_w = out->energy_j = out->ceff_nf = out->fixed_w = NAN;
		return;
	}
	double ceff = md->constant, nj = 0;
	for (size_t j = 0; c1 > 0 && j < md->n_terms; j++) {
		double n = term_count(md, i, (size_t)md->k_term[j]);
		if (md->k_scaled[j]) {
			double ov = SL_MIN(n, st);
			n = (n - ov) + ov * scale;
		}
		if (md->term_energy[j])
			nj += md->coeff[j] * n;
		else
			ceff += md->coeff[j] * n / c1;
	}
	out->fixed_w = out->time_s > 0 ? nj * 1e-9 / out->time_s : 0;
	/* leakage at the interval's profiled temperature, unless one was
	 * asked for (sl_model_set_temp) */
	double sw = op->static_w;
	const sl_machine *m = md->mach;
	if (m->has_temp && isnan(md->temp_c) && md->prof->temp_c &&
	    isfinite(md->prof->temp_c[i]) && isfinite(sw))
		sw = SL_MAX(0, sw + sl_machine_static_temp(m, op->ghz, op->volts,
							     md->prof->temp_c[i]));
	double p = sw + ceff * f1 * op->volts * op->volts + out->fixed_w;
	double lo = sl_model_idle_w(md, op) + (sw - op->static_w);
	double hi = sl_model_peak_w(md, op) + (sw - op->static_w);
	if (p < lo) {
		p = lo;
		out->clamped = SL_CLAMP_IDLE;
	} else if (p > hi) {
		p = hi;
		out->clamped = SL_CLAMP_PEAK;
	}
	out->ceff_nf = ceff;
	out->power_w = p;
	out->energy_j = p * out->time_s;
}

void sl_model_predict_base(const sl_model *md, const sl_opoint *op, size_t i, sl_pred *out)
{
	double st, scale;
	double c1 = target_cycles(md, i, op->ghz, &st, &scale);
	predict_at(md, op, i, c1, st, scale, out);
	if (md->anchor)
		sl_anchor_apply(md, op, i, out);
}

void sl_model_predict(const sl_model *md, const sl_opoint *op, size_t i, sl_pred *out)
{
	sl_model_predict_base(md, op, i, out);
	/* leakage at the die's temperature at op rather than the profiled one */
	double dp = md->thermal ? sl_thermal_dpower(md, op, i) : 0;
	if (dp != 0 && isfinite(out->power_w)) {
		out->power_w = SL_MAX(0, out->power_w + dp);
		out->energy_j = out->power_w * out->time_s;
	}
}

void sl_model_predict_measured(const sl_model *md, const sl_opoint *op, size_t i, sl_pred *out)
{
	predict_at(md, op, i, (double)md->prof->iv[i].cycles, 0, 1, out);
}

void sl_agg_add(sl_agg *a, const sl_pred *p, uint64_t instructions)
{
	a->intervals++;
	a->instructions += instructions;
	a->time_s += p->time_s;
	a->energy_j += p->energy_j;
	a->clamped_idle += p->clamped == SL_CLAMP_IDLE;
	a->clamped_peak += p->clamped == SL_CLAMP_PEAK;
}

double sl_agg_power(const sl_agg *a)
{
	return a->time_s > 0 ? a->energy_j / a->time_s : NAN;
}

void sl_model_aggregate(const sl_model *md, const sl_opoint *op, sl_agg *per_phase,
			sl_agg *per_instance, sl_agg *total)
{
	const sl_interp *v = &md->view;
	const sl_profile *p = md->prof;
	if (per_phase)
		memset(per_phase, 0, v->n_phase_ids * sizeof *per_phase);
	if (per_instance)
		memset(per_instance, 0, v->n_instances * sizeof *per_instance);
	if (total)
		memset(total, 0, sizeof *total);
	for (size_t i = 0; i < p->n_intervals; i++) {
		sl_pred pr;
		sl_model_predict(md, op, i, &pr);
		uint64_t ins = p->iv[i].instructions;
		if (per_phase)
			sl_agg_add(&per_phase[p->iv[i].phase], &pr, ins);
		if (per_instance)
			sl_agg_add(&per_instance[v->inst_of[i]], &pr, ins);
		if (total)
			sl_agg_add(total, &pr, ins);
	}
	for (size_t j = 0; j < v->n_instances; j++) {
		if (per_phase)
			per_phase[v->inst[j].phase].instances++;
		if (per_instance)
			per_instance[j].instances = 1;
	}
	if (total)
		total->instances = v->n_instances;
}

void sl_stats_add(sl_predict_stats *st, const sl_agg *a)
{
	st->predictions += a->intervals;
	st->clamped_idle += a->clamped_idle;
	st->clamped_peak += a->clamped_peak;
}
