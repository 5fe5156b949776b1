/*
 * Workloads (sleuth-workload/1, docs/simulator.md): named phases with their
 * behaviour parameters, and a sequence of phase instances with nested
 * repetition, flattened here into the phase of every interval.
 */
#include "sleuth/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim-int.h"

#define FORMAT "sleuth-workload/1"
#define MAX_INTERVALS 50000000u
#define MAX_PHASES 1024 /* looked up by name for every sequence item */
#define P(k, idx, lo, hi, d, i) {k, (idx) * sizeof(double), lo, hi, d, i}
#define REQ NAN

static const sl_sim_key phase_keys[SL_P_N] = {
	P("cpi_core", SL_P_CPI_CORE, 0.05, 50, REQ, 0),
	P("branch_fraction", SL_P_BRANCH_FRACTION, 0, 0.5, REQ, 0),
	P("mispredict_rate", SL_P_MISPREDICT_RATE, 0, 1, REQ, 0),
	P("fp_fraction", SL_P_FP_FRACTION, 0, 4, REQ, 0),
	P("memory_fraction", SL_P_MEMORY_FRACTION, 0, 4, REQ, 0),
	P("uops_per_instruction", SL_P_UOPS_PER_INSTRUCTION, 0.1, 8, REQ, 0),
	P("l2_pki", SL_P_L2_PKI, 0, 1000, REQ, 0),
	P("llc_hits_pki", SL_P_LLC_HITS_PKI, 0, 1000, REQ, 0),
	P("llc_misses_pki", SL_P_LLC_MISSES_PKI, 0, 1000, REQ, 0),
	P("mlp", SL_P_MLP, 1, 64, REQ, 0),
	P("dep_stall_fraction", SL_P_DEP_STALL_FRACTION, 0, 1, 0.1, 0),
	P("noise", SL_P_NOISE, 0, 2, 0.03, 0),
	P("drift", SL_P_DRIFT, 0, 2, 0.05, 0),
	P("drift_period", SL_P_DRIFT_PERIOD, 1, 1e6, 50, 1),
	P("branches", SL_P_BRANCHES, 1, 100000, 100, 1),
	P("zipf", SL_P_ZIPF, 0, 5, 1.0, 0),
	P("shared", SL_P_SHARED, 0, 1, 0.25, 0),
	P("branch_noise", SL_P_BRANCH_NOISE, 0, 2, 0.1, 0),
	P("prefetch_pki", SL_P_PREFETCH_PKI, 0, 1000, 0, 0),
	P("resource_stall_fraction", SL_P_RESOURCE_STALL_FRACTION, 0, 1, 0, 0),
	P("code_drift", SL_P_CODE_DRIFT, 0, 2, 0, 0),
	P("ramp", SL_P_RAMP, 0, 1000, 0, 1),
};

const char *sl_sim_param_name(int p)
{
	return p >= 0 && p < SL_P_N ? phase_keys[p].key : NULL;
}

static int load_phase(sl_yparser *yp, const sl_ynode *key, const sl_ynode *val,
		      const sl_ynode *defaults, sl_sim_phase *ph)
{
	int set[SL_P_N] = {0};
	char *where;
	int rc;
	ph->name = sl_xstrdup(key->str);
	if (!ph->name[0])
		return sl_yerr(yp, key->line, "phases", "a phase needs a non-empty name");
	if (sl_yexpect(yp, val, SL_YMAP, ph->name) < 0)
		return -1;
	static const char *const other[] = {"code", NULL};
	ph->code_of = -1;
	if (defaults && sl_sim_read_keys(yp, defaults, phase_keys, SL_P_N, ph->p, set) < 0)
		return -1;
	if (sl_sim_read_keys_but(yp, val, phase_keys, SL_P_N, ph->p, set, other) < 0)
		return -1;
	where = sl_xasprintf("phase %s (or defaults)", ph->name);
	rc = sl_sim_finish_keys(yp, val->line, where, phase_keys, SL_P_N, ph->p, set);
	free(where);
	if (rc < 0)
		return -1;
	if (ph->p[SL_P_L2_PKI] < ph->p[SL_P_LLC_HITS_PKI] + ph->p[SL_P_LLC_MISSES_PKI]) {
		const sl_ynode *l2 = sl_ymap_get(val, "l2_pki");
		return sl_yerr(yp, l2 ? l2->line : val->line, "l2_pki",
			       "phase %s: L2 references (%g) must be at least LLC hits + "
			       "misses (%g) per kilo-instruction", ph->name,
			       ph->p[SL_P_L2_PKI],
			       ph->p[SL_P_LLC_HITS_PKI] + ph->p[SL_P_LLC_MISSES_PKI]);
	}
	return 0;
}

static int find_phase(const sl_sim_workload *w, const char *name)
{
	for (size_t i = 0; i < w->n_phases; i++)
		if (!strcmp(w->phases[i].name, name))
			return (int)i;
	return -1;
}

static void append(sl_sim_workload *w, size_t *cap, uint32_t phase, uint64_t count)
{
	for (uint64_t i = 0; i < count; i++) {
		SL_GROW(w->phase_of, w->n_intervals, *cap);
		w->phase_of[w->n_intervals++] = phase;
	}
}

/* A sequence item is {phase: NAME, for: N} or {repeat: K, sequence: [...]}. */
static int flatten(sl_yparser *yp, const sl_ynode *seq, sl_sim_workload *w, size_t *cap)
{
	static const char *const inst_keys[] = {"phase", "for", NULL};
	static const char *const rep_keys[] = {"repeat", "sequence", NULL};
	if (sl_yexpect(yp, seq, SL_YSEQ, "sequence") < 0)
		return -1;
	for (size_t i = 0; i < seq->n; i++) {
		const sl_ynode *it = seq->kid[i], *a, *b;
		uint64_t k;
		if (sl_yexpect(yp, it, SL_YMAP, "sequence") < 0)
			return -1;
		if (sl_ymap_get(it, "repeat")) {
			sl_ywarn_unknown(yp, it, rep_keys);
			if (!(a = sl_yreq(yp, it, "repeat", NULL)) ||
			    sl_yget_u64(yp, a, "repeat", &k) < 0 ||
			    !(b = sl_yreq(yp, it, "sequence", "a repeat")))
				return -1;
			if (k == 0 || k > MAX_INTERVALS)
				return sl_yerr(yp, a->line, "repeat",
					       "%s is not a repetition count; give 1 to %u",
					       a->str, MAX_INTERVALS);
			size_t start = w->n_intervals;
			if (flatten(yp, b, w, cap) < 0)
				return -1;
			uint64_t len = w->n_intervals - start, total;
			if (sl_mul_u64(len, k - 1, &total) < 0 ||
			    sl_add_u64(total, w->n_intervals, &total) < 0 ||
			    total > MAX_INTERVALS)
				return sl_yerr(yp, a->line, "repeat",
					       "the sequence would exceed %u intervals",
					       MAX_INTERVALS);
			for (uint64_t r = 1; r < k; r++)
				for (size_t j = 0; j < len; j++)
					append(w, cap, w->phase_of[start + j], 1);
			continue;
		}
		sl_ywarn_unknown(yp, it, inst_keys);
		const char *name;
		int ph;
		if (!(a = sl_yreq(yp, it, "phase", "a sequence item (or give repeat:)")) ||
		    sl_yget_str(yp, a, "phase", &name) < 0 ||
		    !(b = sl_yreq(yp, it, "for", "a sequence item")) ||
		    sl_yget_u64(yp, b, "for", &k) < 0)
			return -1;
		if ((ph = find_phase(w, name)) < 0)
			return sl_yerr(yp, a->line, "phase",
				       "no phase named '%s' under phases:", name);
		/* k comes from the file: compare without adding (2^64-1 would
		 * wrap the sum and pass) */
		if (k == 0 || k > MAX_INTERVALS - w->n_intervals)
			return sl_yerr(yp, b->line, "for",
				       "%s is not an interval count; give 1 to %u in all",
				       b->str, MAX_INTERVALS);
		append(w, cap, (uint32_t)ph, k);
	}
	return 0;
}

static const char *const top[] = {"format", "name", "interval_instructions",
				   "shared_branches", "defaults", "phases",
				   "sequence", NULL};

static int load(sl_yparser *yp, const sl_ynode *root, void *obj)
{
	sl_sim_workload *w = obj;
	const sl_ynode *n, *defaults, *phases;
	const char *s;
	uint64_t u;
	size_t cap = 0;

	if (!(n = sl_yreq(yp, root, "name", NULL)) || sl_yget_str(yp, n, "name", &s) < 0)
		return -1;
	w->name = sl_xstrdup(s);
	w->interval_instructions = 100000000;
	if ((n = sl_ymap_get(root, "interval_instructions"))) {
		if (sl_yget_u64(yp, n, "interval_instructions", &u) < 0)
			return -1;
		/* at most 0.5 branches per instruction must fit GSL's
		 * unsigned multinomial count */
		if (u < 1000 || u > 8000000000ULL)
			return sl_yerr(yp, n->line, "interval_instructions",
				       "%s is not plausible; give 1000 to 8e9", n->str);
		w->interval_instructions = u;
	}
	w->shared_branches = 32;
	if ((n = sl_ymap_get(root, "shared_branches"))) {
		if (sl_yget_u64(yp, n, "shared_branches", &u) < 0)
			return -1;
		if (u > 100000)
			return sl_yerr(yp, n->line, "shared_branches",
				       "%s is too many; give 0 to 100000", n->str);
		w->shared_branches = u;
	}
	defaults = sl_ymap_get(root, "defaults");
	if (defaults && sl_yexpect(yp, defaults, SL_YMAP, "defaults") < 0)
		return -1;
	if (!(phases = sl_yreq(yp, root, "phases", NULL)) ||
	    sl_yexpect(yp, phases, SL_YMAP, "phases") < 0)
		return -1;
	if (!phases->n)
		return sl_yerr(yp, phases->line, "phases", "needs at least one phase");
	if (phases->n / 2 > MAX_PHASES)
		return sl_yerr(yp, phases->line, "phases", "%zu phases; give at most %d",
			       phases->n / 2, MAX_PHASES);
	w->phases = sl_xcalloc(phases->n / 2, sizeof *w->phases);
	for (size_t i = 0; i + 1 < phases->n; i += 2) {
		w->n_phases++;
		if (load_phase(yp, phases->kid[i], phases->kid[i + 1], defaults,
			       &w->phases[i / 2]) < 0)
			return -1;
	}
	/* `code: NAME` runs another phase's code (same branches, same weights)
	 * with this phase's behaviour: same code on other data */
	for (size_t i = 0; i + 1 < phases->n; i += 2) {
		const sl_ynode *c = sl_ymap_get(phases->kid[i + 1], "code");
		const char *name;
		sl_sim_phase *ph = &w->phases[i / 2];
		if (!c)
			continue;
		if (sl_yget_str(yp, c, "code", &name) < 0)
			return -1;
		int q = find_phase(w, name);
		if (q < 0)
			return sl_yerr(yp, c->line, "code",
				       "no phase named '%s' under phases:", name);
		if (w->phases[q].code_of >= 0 || (size_t)q == i / 2)
			return sl_yerr(yp, c->line, "code",
				       "phase %s has no code of its own to share; name "
				       "a phase without code:", name);
		ph->code_of = q;
		ph->p[SL_P_BRANCHES] = w->phases[q].p[SL_P_BRANCHES];
	}
	for (size_t i = 0; i < w->n_phases; i++)
		if (w->phases[i].code_of >= 0 && w->phases[w->phases[i].code_of].code_of >= 0)
			return sl_yerr(yp, phases->line, "code",
				       "phase %s shares code with a phase that itself "
				       "has code:", w->phases[i].name);
	if (!(n = sl_yreq(yp, root, "sequence", NULL)) || flatten(yp, n, w, &cap) < 0)
		return -1;
	if (!w->n_intervals)
		return sl_yerr(yp, n->line, "sequence", "needs at least one interval");
	return 0;
}

int sl_sim_workload_load(const char *path, sl_sim_workload *w)
{
	memset(w, 0, sizeof *w);
	if (sl_sim_load_doc(path, FORMAT, top, load, w) < 0) {
		sl_sim_workload_free(w);
		return -1;
	}
	return 0;
}

void sl_sim_workload_free(sl_sim_workload *w)
{
	for (size_t i = 0; i < w->n_phases; i++) {
		free(w->phases[i].name);
		free(w->phases[i].addr);
		free(w->phases[i].weight);
		free(w->phases[i].zcode);
	}
	free(w->phases);
	free(w->phase_of);
	free(w->name);
	memset(w, 0, sizeof *w);
}
