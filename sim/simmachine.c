/*
 * The simulated machine (sleuth-sim-machine/1, docs/simulator.md): the
 * P-states, the PMU events it exposes and the truth parameters of its
 * physics.  Distinct from sleuth-machine/1, which is what sleuth *believes*
 * about a processor; this file is what the simulated processor *is*.
 */
#include "sleuth/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim-int.h"

#define FORMAT "sleuth-sim-machine/1"
#define T(k, field, lo, hi, d) {k, offsetof(sl_sim_truth, field), lo, hi, d, 0}
#define REQ NAN

static const sl_sim_key truth_keys[] = {
	T("mispredict_penalty_cycles", mispredict_penalty, 0, 1000, REQ),
	T("llc_hit_core_cycles", llc_hit_core_cycles, 0, 1000, REQ),
	T("llc_hit_uncore_ns", llc_hit_uncore_ns, 0, 1000, REQ),
	T("llc_hit_exposed", llc_hit_exposed, 0, 1, REQ),
	T("memory_ns", memory_ns, 0, 10000, REQ),
	T("rob_fill_cycles", rob_fill_cycles, 0, 10000, REQ),
	T("stall_mispredict_share", stall_mispredict_share, 0, 1, REQ),
	T("stall_llc_hit_share", stall_llc_hit_share, 0, 1, REQ),
	T("resource_memory_share", resource_memory_share, 0, 1, REQ),
	T("resource_llc_hit_share", resource_llc_hit_share, 0, 1, REQ),
	T("resource_dep_share", resource_dep_share, 0, 1, REQ),
	T("static_base_w", static_base_w, 0, 1000, REQ),
	T("leak_w", leak_w, 0, 1000, REQ),
	T("leak_vref", leak_vref, 0.1, 5, REQ),
	T("leak_per_volt", leak_per_volt, 0, 100, REQ),
	T("ceff_base_nf", ceff_base_nf, 0, 1000, REQ),
	T("ceff_uops_nf", ceff_uops_nf, 0, 1000, REQ),
	T("uops_saturation", uops_saturation, 0.01, 100, REQ),
	T("ceff_l2_nf", ceff_l2_nf, -1000, 1000, REQ),
	T("ceff_llc_nf", ceff_llc_nf, -1000, 1000, REQ),
	T("ceff_fp_nf", ceff_fp_nf, -1000, 1000, REQ),
	T("ceff_mispredict_nf", ceff_mispredict_nf, -1000, 1000, REQ),
	T("ceff_noise", ceff_noise, 0, 1, 0.01),
	T("idle_ceff_nf", idle_ceff_nf, 0, 1000, REQ),
	T("meter_hz", meter_hz, 1, 1e6, 1000),
	T("meter_noise_w", meter_noise_w, 0, 1000, 0.5),
	T("idle_seconds", idle_seconds, 0.001, 100, 0.2),
	T("dram_gbps", dram_gbps, 0, 10000, 0),
	T("line_bytes", line_bytes, 1, 4096, 64),
	T("queue_gain", queue_gain, 0, 100, 0),
	T("uncore_ratio", uncore_ratio, 0, 10, 0),
	T("uncore_max_ghz", uncore_max_ghz, 0, 100, 0),
	T("memory_uncore_ns", memory_uncore_ns, 0, 10000, 0),
	T("rob_entries", rob_entries, 0, 100000, 0),
	T("uncore_static_w", uncore_static_w, 0, 1000, 0),
	T("llc_access_nj", llc_access_nj, 0, 1000, 0),
	T("dram_line_nj", dram_line_nj, 0, 10000, 0),
	T("writeback_share", writeback_share, 0, 1, 0),
	T("dram_background_gbps", dram_background_gbps, 0, 1000, 0),
	T("stall_gate_share", stall_gate_share, 0, 1, 0),
};

static const char *const qty_names[SL_Q_N] = {
	[SL_Q_CYCLES] = "cycles",
	[SL_Q_INSTRUCTIONS] = "instructions",
	[SL_Q_STALL_CYCLES] = "stall_cycles",
	[SL_Q_LLC_MISSES] = "llc_misses",
	[SL_Q_L2_MISSES] = "l2_misses",
	[SL_Q_L2_REFERENCES] = "l2_references",
	[SL_Q_RESOURCE_STALLS] = "resource_stalls",
	[SL_Q_MEMORY_UOPS] = "memory_uops",
	[SL_Q_FP_OPS] = "fp_ops",
	[SL_Q_MISPREDICTS] = "mispredicts",
	[SL_Q_COND_BRANCHES] = "conditional_branches",
	[SL_Q_UOPS] = "uops",
	[SL_Q_PREFETCHES] = "prefetches",
	[SL_Q_OFFCORE_CYCLES] = "offcore_cycles",
	[SL_Q_OFFCORE_OCCUPANCY] = "offcore_occupancy",
	[SL_Q_MISS_STALLS] = "miss_stall_cycles",
	[SL_Q_DRAM_READS] = "dram_reads",
};

const char *sl_sim_qty_name(int q)
{
	return q >= 0 && q < SL_Q_N ? qty_names[q] : NULL;
}

static int load_pstates(sl_yparser *yp, const sl_ynode *seq, sl_sim_machine *m)
{
	if (sl_yexpect(yp, seq, SL_YSEQ, "pstates") < 0)
		return -1;
	if (!seq->n)
		return sl_yerr(yp, seq->line, "pstates", "needs at least one P-state");
	m->ghz = sl_xcalloc(seq->n, sizeof *m->ghz);
	m->volts = sl_xcalloc(seq->n, sizeof *m->volts);
	for (size_t i = 0; i < seq->n; i++) {
		const sl_ynode *ps = seq->kid[i], *g, *v;
		double ghz, volts;
		if (sl_yexpect(yp, ps, SL_YMAP, "pstates") < 0 ||
		    !(g = sl_yreq(yp, ps, "ghz", "a P-state")) ||
		    !(v = sl_yreq(yp, ps, "volts", "a P-state")) ||
		    sl_yget_double(yp, g, "ghz", &ghz) < 0 ||
		    sl_yget_double(yp, v, "volts", &volts) < 0)
			return -1;
		if (ghz <= 0 || ghz > 100)
			return sl_yerr(yp, g->line, "ghz", "%s is not a plausible frequency in GHz",
				       g->str);
		if (volts <= 0 || volts > 5)
			return sl_yerr(yp, v->line, "volts", "%s is not a plausible voltage",
				       v->str);
		/* insertion into descending order, rejecting duplicates */
		size_t j = m->n_pstates;
		for (size_t k = 0; k < m->n_pstates; k++)
			if (fabs(m->ghz[k] - ghz) < 0.0005)
				return sl_yerr(yp, g->line, "ghz", "P-state %s GHz is listed twice",
					       g->str);
		while (j > 0 && m->ghz[j - 1] < ghz) {
			m->ghz[j] = m->ghz[j - 1];
			m->volts[j] = m->volts[j - 1];
			j--;
		}
		m->ghz[j] = ghz;
		m->volts[j] = volts;
		m->n_pstates++;
	}
	return 0;
}

static int load_events(sl_yparser *yp, const sl_ynode *seq, sl_sim_machine *m)
{
	if (sl_yexpect(yp, seq, SL_YSEQ, "events") < 0)
		return -1;
	m->events = sl_xcalloc(seq->n ? seq->n : 1, sizeof *m->events);
	for (size_t i = 0; i < seq->n; i++) {
		const sl_ynode *e = seq->kid[i], *nm, *c;
		const char *name, *counts;
		int q;
		if (sl_yexpect(yp, e, SL_YMAP, "events") < 0 ||
		    !(nm = sl_yreq(yp, e, "name", "an event")) ||
		    !(c = sl_yreq(yp, e, "counts", "an event")) ||
		    sl_yget_str(yp, nm, "name", &name) < 0 ||
		    sl_yget_str(yp, c, "counts", &counts) < 0)
			return -1;
		for (q = 0; q < SL_Q_N; q++)
			if (!strcmp(qty_names[q], counts))
				break;
		if (q == SL_Q_N) {
			char list[512] = "";
			for (int k = 0; k < SL_Q_N; k++)
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
					 k ? ", " : "", qty_names[k]);
			return sl_yerr(yp, c->line, "counts",
				       "unknown quantity '%s'; use one of %s", counts, list);
		}
		for (size_t k = 0; k < m->n_events; k++)
			if (!strcmp(m->events[k].name, name))
				return sl_yerr(yp, nm->line, "name", "event %s is listed twice",
					       name);
		m->events[m->n_events].name = sl_xstrdup(name);
		m->events[m->n_events].qty = q;
		m->n_events++;
	}
	/* The trace format requires cycles and instructions first. */
	if (m->n_events < 2 || m->events[0].qty != SL_Q_CYCLES ||
	    m->events[1].qty != SL_Q_INSTRUCTIONS || strcmp(m->events[0].name, "cycles") ||
	    strcmp(m->events[1].name, "instructions"))
		return sl_yerr(yp, seq->line, "events",
			       "must begin with {name: cycles, counts: cycles} and "
			       "{name: instructions, counts: instructions}");
	return 0;
}

static const char *const top[] = {"format", "name", "counters", "pstates",
				   "events", "truth", NULL};

static int load(sl_yparser *yp, const sl_ynode *root, void *obj)
{
	sl_sim_machine *m = obj;
	const sl_ynode *n, *c, *prog;
	const char *s;
	uint64_t k;
	int set[SL_ARRAY_LEN(truth_keys)] = {0};

	if (!(n = sl_yreq(yp, root, "name", NULL)) || sl_yget_str(yp, n, "name", &s) < 0)
		return -1;
	m->name = sl_xstrdup(s);
	if (!(c = sl_yreq(yp, root, "counters", NULL)) ||
	    sl_yexpect(yp, c, SL_YMAP, "counters") < 0 ||
	    !(prog = sl_yreq(yp, c, "programmable", "counters")) ||
	    sl_yget_u64(yp, prog, "programmable", &k) < 0)
		return -1;
	if (k < 1 || k > 64)
		return sl_yerr(yp, prog->line, "programmable",
			       "%s counters is not plausible; give 1 to 64", prog->str);
	m->programmable = (int)k;
	if (!(n = sl_yreq(yp, root, "pstates", NULL)) || load_pstates(yp, n, m) < 0)
		return -1;
	if (!(n = sl_yreq(yp, root, "events", NULL)) || load_events(yp, n, m) < 0)
		return -1;
	if (!(n = sl_yreq(yp, root, "truth", NULL)) ||
	    sl_yexpect(yp, n, SL_YMAP, "truth") < 0 ||
	    sl_sim_read_keys(yp, n, truth_keys, SL_ARRAY_LEN(truth_keys), &m->truth, set) < 0 ||
	    sl_sim_finish_keys(yp, n->line, "truth", truth_keys, SL_ARRAY_LEN(truth_keys),
			       &m->truth, set) < 0)
		return -1;
	if (m->truth.uncore_ratio > 0 && !(m->truth.uncore_max_ghz > 0))
		return sl_yerr(yp, n->line, "uncore_max_ghz",
			       "uncore_ratio needs uncore_max_ghz (the uncore clock "
			       "its *_uncore_ns are given at)");
	return 0;
}

int sl_sim_machine_load(const char *path, sl_sim_machine *m)
{
	memset(m, 0, sizeof *m);
	if (sl_sim_load_doc(path, FORMAT, top, load, m) < 0) {
		sl_sim_machine_free(m);
		return -1;
	}
	return 0;
}

void sl_sim_machine_free(sl_sim_machine *m)
{
	for (size_t i = 0; i < m->n_events; i++)
		free(m->events[i].name);
	free(m->events);
	free(m->ghz);
	free(m->volts);
	free(m->name);
	memset(m, 0, sizeof *m);
}

int sl_sim_machine_pstate(const sl_sim_machine *m, double ghz)
{
	char list[512] = "";
	for (size_t i = 0; i < m->n_pstates; i++)
		if (fabs(m->ghz[i] - ghz) < 0.0005)
			return (int)i;
	for (size_t i = 0; i < m->n_pstates; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%.2f",
			 i ? ", " : "", m->ghz[i]);
	sl_error_set("%g GHz is not a P-state of %s; use one of %s (GHz)", ghz, m->name,
		     list);
	return -1;
}

double sl_sim_static_w(const sl_sim_machine *m, double volts)
{
	const sl_sim_truth *t = &m->truth;
	return t->static_base_w + t->leak_w * (volts / t->leak_vref) *
					  exp(t->leak_per_volt * (volts - t->leak_vref));
}

double sl_sim_uncore_w(const sl_sim_machine *m, double ghz)
{
	const sl_sim_truth *t = &m->truth;
	if (!(t->uncore_static_w > 0))
		return 0;
	if (t->uncore_ratio > 0 && t->uncore_max_ghz > 0)
		return t->uncore_static_w * SL_MIN(t->uncore_max_ghz, t->uncore_ratio * ghz) /
		       t->uncore_max_ghz;
	return t->uncore_static_w;
}

double sl_sim_idle_w(const sl_sim_machine *m, double ghz, double volts)
{
	double w = sl_sim_static_w(m, volts) + m->truth.idle_ceff_nf * ghz * volts * volts;
	if (m->truth.uncore_static_w > 0)
		w += sl_sim_uncore_w(m, ghz);
	return w;
}
