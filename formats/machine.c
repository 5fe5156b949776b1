/*
 * sleuth-machine/1 reader and writer (docs/formats.md, sleuth-machine/1).
 *
 * A machine file is small, so it is loaded as one tree.  Skeletons (no
 * static_w, power: absent or without coefficients) load fine: calibrate
 * starts from them.  Whether the power model can be evaluated is a separate
 * question, answered by sl_machine_complete().
 */
#include "sleuth/machine.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/yamlio.h"

#define MACHINE_FORMAT "sleuth-machine/1"
#define GHZ_EPS 0.0005 /* P-states closer than 0.5 MHz are the same one */

static const char *const known_roles[] = {
	"branch_sample", "stall_cycles", "llc_misses", "resource_stalls",
	"memory_stall_cycles", "offcore_cycles", "offcore_occupancy", "prefetches",
	"llc_references", "miss_stall_cycles", "mispredicts", "l2_miss_stall_cycles",
	"dram_reads", "l2_miss_stall_episodes", "miss_stall_episodes", NULL,
};

/*
 * Limits on the numbers of a machine, far beyond any real one, so that
 * every product the models form (coeff x rate x f x V^2) stays finite: a
 * coeff of 1e308 would otherwise predict an infinite power, printed as an
 * empty field, silently.
 */
#define MAX_GHZ 100.0
#define MAX_VOLTS 10.0
#define MAX_WATTS 1e5
#define MAX_COEFF SL_MACHINE_MAX_COEFF
#define MAX_RATE 1e6 /* GB/s, ns */
/* and on their number (each list is checked for duplicates pairwise) */
#define MAX_PSTATES 1024
#define MAX_TERMS 4096

/* A number of node v within [lo, hi]. */
static int get_bounded(sl_yparser *yp, const sl_ynode *v, const char *key, double lo,
		       double hi, double *out)
{
	if (sl_yget_double(yp, v, key, out) < 0)
		return -1;
	if (*out < lo || *out > hi)
		return sl_yerr(yp, v->line, key, "%s is out of range; give %g to %g",
			       v->str, lo, hi);
	return 0;
}

int sl_machine_known_role(const char *role)
{
	for (size_t i = 0; known_roles[i]; i++)
		if (!strcmp(known_roles[i], role))
			return 1;
	return 0;
}

/* A required number that must be > 0 and at most hi. */
static int get_positive(sl_yparser *yp, const sl_ynode *map, const char *key,
			const char *where, double hi, double *out)
{
	const sl_ynode *v = sl_yreq(yp, map, key, where);
	if (!v || get_bounded(yp, v, key, -INFINITY, hi, out) < 0)
		return -1;
	if (*out <= 0)
		return sl_yerr(yp, v->line, key, "must be > 0, found %s", v->str);
	return 0;
}

static int cmp_pstate_desc(const void *a, const void *b)
{
	double x = ((const sl_pstate *)a)->ghz, y = ((const sl_pstate *)b)->ghz;
	return x < y ? 1 : x > y ? -1 : 0;
}

static int read_pstates(sl_yparser *yp, const sl_ynode *v, sl_machine *m)
{
	static const char *const known[] = {"ghz", "volts", "static_w", NULL};
	size_t with_static = 0, with_volts = 0;
	if (sl_yexpect(yp, v, SL_YSEQ, "pstates") < 0)
		return -1;
	if (!v->n)
		return sl_yerr(yp, v->line, "pstates", "at least one P-state is needed");
	if (v->n > MAX_PSTATES)
		return sl_yerr(yp, v->line, "pstates", "%zu P-states; give at most %d",
			       v->n, MAX_PSTATES);
	m->pstates = sl_xcalloc(v->n, sizeof *m->pstates);
	for (size_t i = 0; i < v->n; i++) {
		const sl_ynode *p = v->kid[i];
		sl_pstate *ps = &m->pstates[i];
		char where[32];
		snprintf(where, sizeof where, "P-state %zu", i + 1);
		if (sl_yexpect(yp, p, SL_YMAP, "pstates") < 0)
			return -1;
		sl_ywarn_unknown(yp, p, known);
		if (get_positive(yp, p, "ghz", where, MAX_GHZ, &ps->ghz) < 0)
			return -1;
		/* Most platforms do not expose voltages: then none is given and
		 * f*V^2 is folded into per-P-state terms (sl_machine_has_volts). */
		if (sl_ymap_get(p, "volts")) {
			if (get_positive(yp, p, "volts", where, MAX_VOLTS, &ps->volts) < 0)
				return -1;
			with_volts++;
		}
		const sl_ynode *s = sl_ymap_get(p, "static_w");
		if (s) {
			if (sl_yget_double(yp, s, "static_w", &ps->static_w) < 0)
				return -1;
			if (ps->static_w < 0)
				return sl_yerr(yp, s->line, "static_w",
					       "must be >= 0, found %s", s->str);
			if (get_bounded(yp, s, "static_w", 0, MAX_WATTS, &ps->static_w) < 0)
				return -1;
			ps->has_static = 1;
			with_static++;
		}
		for (size_t j = 0; j < i; j++)
			if (fabs(m->pstates[j].ghz - ps->ghz) < GHZ_EPS)
				return sl_yerr(yp, p->line, "ghz",
					       "%g GHz is the same P-state as %g GHz "
					       "(listed twice)", ps->ghz, m->pstates[j].ghz);
		m->n_pstates++;
	}
	for (size_t i = 0; with_volts && i < m->n_pstates; i++)
		if (!(m->pstates[i].volts > 0))
			return sl_yerr(yp, v->kid[i]->line, "volts",
				       "missing here but given for %zu of %zu P-states; "
				       "give it for all or for none", with_volts, m->n_pstates);
	for (size_t i = 0; with_static && i < m->n_pstates; i++)
		if (!m->pstates[i].has_static)
			return sl_yerr(yp, v->kid[i]->line, "static_w",
				       "missing here but given for %zu of %zu P-states; "
				       "give it for all (run sleuth calibrate) or for "
				       "none (a skeleton)", with_static, m->n_pstates);
	qsort(m->pstates, m->n_pstates, sizeof *m->pstates, cmp_pstate_desc);
	return 0;
}

static int read_roles(sl_yparser *yp, const sl_ynode *v, sl_machine *m)
{
	if (sl_yexpect(yp, v, SL_YMAP, "events") < 0)
		return -1;
	sl_ywarn_unknown(yp, v, known_roles);
	m->roles = sl_xcalloc(v->n / 2 + 1, sizeof *m->roles);
	for (size_t i = 0; i + 1 < v->n; i += 2) {
		const char *ev;
		if (sl_yget_str(yp, v->kid[i + 1], v->kid[i]->str, &ev) < 0)
			return -1;
		m->roles[m->n_roles].role = sl_xstrdup(v->kid[i]->str);
		m->roles[m->n_roles].event = sl_xstrdup(ev);
		m->n_roles++;
	}
	return 0;
}

/* A key of two values (value, explanation, value, explanation: the first
 * the default) in a mapping: *second = 1 when it says the second. */
static int choice(sl_yparser *yp, const sl_ynode *map, const char *key, const char *what,
		  const char *const v[4], int *second)
{
	const sl_ynode *k = sl_ymap_get(map, key);
	const char *s;
	if (!k)
		return 0;
	if (sl_yget_str(yp, k, key, &s) < 0)
		return -1;
	if (strcmp(s, v[0]) && strcmp(s, v[2]))
		return sl_yerr(yp, k->line, key, "unknown %s '%s'; use '%s' (%s) or '%s' (%s)",
			       what, s, v[0], v[1], v[2], v[3]);
	*second = !strcmp(s, v[2]);
	return 0;
}

/*
 * power: is absent, a skeleton (terms without coeff, no constant) or a
 * fitted model (constant and every coeff).  Anything in between is a file
 * someone edited by hand and got wrong, so it is refused.
 */
static int read_power(sl_yparser *yp, const sl_ynode *v, sl_machine *m)
{
	static const char *const known[] = {"constant", "terms", "temp_ref_c", "temp_coeff",
					    "floor", NULL};
	static const char *const floors[] = {
		"static", "the idle clamp is static_w, the default",
		"stalled", ("a core stalled in every cycle, when negative cycle-count "
			    "terms outweigh the constant")};
	static const char *const known_term[] = {"event", "coeff", "kind", "keep", NULL};
	size_t with_coeff = 0;
	const sl_ynode *c, *t;
	if (sl_yexpect(yp, v, SL_YMAP, "power") < 0)
		return -1;
	sl_ywarn_unknown(yp, v, known);
	m->has_power = 1;
	if ((c = sl_ymap_get(v, "constant"))) {
		if (get_bounded(yp, c, "constant", -MAX_COEFF, MAX_COEFF, &m->constant) < 0)
			return -1;
		m->has_constant = 1;
	}
	/* the temperature term: temp_ref_c with temp_coeff, or with the
	 * thermal block's measured leakage (read before power:) */
	const sl_ynode *tr = sl_ymap_get(v, "temp_ref_c"), *tc = sl_ymap_get(v, "temp_coeff");
	if (tc && !tr)
		return sl_yerr(yp, tc->line, "temp_ref_c",
			       "missing while temp_coeff is given; the temperature term needs both");
	if (tr && !tc && !m->n_leak)
		return sl_yerr(yp, tr->line, "temp_coeff",
			       "missing while temp_ref_c is given; give temp_coeff, or thermal: "
			       "leakage (sleuth calibrate --thermal-only)");
	if ((tr && get_bounded(yp, tr, "temp_ref_c", -273.15, 1000, &m->temp_ref_c) < 0) ||
	    (tc && get_bounded(yp, tc, "temp_coeff", -MAX_COEFF, MAX_COEFF, &m->temp_coeff) < 0))
		return -1;
	m->has_temp = tr != NULL;
	if (choice(yp, v, "floor", "floor", floors, &m->floor_stalled) < 0)
		return -1;
	if (!(t = sl_yreq(yp, v, "terms", "power")) || sl_yexpect(yp, t, SL_YSEQ, "terms") < 0)
		return -1;
	if (t->n > MAX_TERMS)
		return sl_yerr(yp, t->line, "terms", "%zu power terms; give at most %d",
			       t->n, MAX_TERMS);
	m->terms = sl_xcalloc(t->n + 1, sizeof *m->terms);
	for (size_t i = 0; i < t->n; i++) {
		const sl_ynode *p = t->kid[i], *e, *k;
		sl_power_term *term = &m->terms[i];
		const char *ev;
		if (sl_yexpect(yp, p, SL_YMAP, "terms") < 0)
			return -1;
		sl_ywarn_unknown(yp, p, known_term);
		if (!(e = sl_yreq(yp, p, "event", "a power term")) ||
		    sl_yget_str(yp, e, "event", &ev) < 0)
			return -1;
		static const char *const kinds[] = {
			"ceff", "effective capacitance, the default",
			"energy", "nJ per event at a fixed voltage"};
		static const char *const keeps[] = {
			"always", "the default",
			"auto", ("calibrate keeps the term only if it lowers the "
				 "leave-one-workload-out error")};
		if (choice(yp, p, "kind", "power term kind", kinds, &term->energy) < 0 ||
		    choice(yp, p, "keep", "value", keeps, &term->keep_auto) < 0)
			return -1;
		/* one event may be a term of each kind, not twice of one */
		for (size_t j = 0; j < i; j++)
			if (!strcmp(m->terms[j].event, ev) && m->terms[j].energy == term->energy)
				return sl_yerr(yp, e->line, "event",
					       "%s is a power term of kind %s twice", ev,
					       term->energy ? "energy" : "ceff");
		term->event = sl_xstrdup(ev);
		m->n_terms++;
		if ((k = sl_ymap_get(p, "coeff"))) {
			if (get_bounded(yp, k, "coeff", -MAX_COEFF, MAX_COEFF, &term->coeff) < 0)
				return -1;
			term->has_coeff = 1;
			with_coeff++;
		}
	}
	if (with_coeff && with_coeff != m->n_terms)
		return sl_yerr(yp, t->line, "coeff",
			       "given for %zu of %zu power terms; give it for all "
			       "(run sleuth calibrate) or for none (a skeleton)",
			       with_coeff, m->n_terms);
	if (m->n_terms && m->has_constant != (with_coeff > 0))
		return sl_yerr(yp, c ? c->line : v->line, "constant",
			       m->has_constant ? "given but the terms have no coeff; a "
						 "skeleton has neither (run sleuth calibrate)"
					       : "missing while the terms have coeff; "
						 "a fitted model has both (run sleuth calibrate)");
	return 0;
}

/* memory: {bandwidth_gbps: B, latency: [{ghz: F, ns: L, llc_ns: H, llc_chase_ns: K}, ...],
 * stall_llc_share: S, stall_per_mispredict: P, background_gbps: G}, every key optional but
 * ghz and ns; latency points sorted by ghz. */
static int read_memory(sl_yparser *yp, const sl_ynode *v, sl_machine *m)
{
	static const char *const known[] = {"bandwidth_gbps", "latency", "loaded",
					    "stall_llc_share", "stall_per_mispredict",
					    "background_gbps", NULL};
	static const char *const known_ld[] = {"gbps", "ns", NULL};
	static const char *const known_pt[] = {"ghz", "ns", "llc_ns", "llc_chase_ns", NULL};
	const sl_ynode *x;
	if (sl_yexpect(yp, v, SL_YMAP, "memory") < 0)
		return -1;
	sl_ywarn_unknown(yp, v, known);
	m->has_memory = 1;
	if (sl_ymap_get(v, "bandwidth_gbps") &&
	    get_positive(yp, v, "bandwidth_gbps", NULL, MAX_RATE, &m->mem_bandwidth_gbps) < 0)
		return -1;
	/* what the stall_cycles event counts of other stalls: both or neither */
	const sl_ynode *sh = sl_ymap_get(v, "stall_llc_share");
	const sl_ynode *sp = sl_ymap_get(v, "stall_per_mispredict");
	if (!sh != !sp)
		return sl_yerr(yp, (sh ? sh : sp)->line, sh ? "stall_llc_share" : "stall_per_mispredict",
			       "comes with %s (both are measured by bench/memprobe-sim.sh); give both or neither",
			       sh ? "stall_per_mispredict" : "stall_llc_share");
	if (sh && (get_bounded(yp, sh, "stall_llc_share", 0, 2, &m->mem_stall_llc_share) < 0 ||
		   get_bounded(yp, sp, "stall_per_mispredict", 0, 1e4, &m->mem_stall_mispredict) < 0))
		return -1;
	m->has_stall_probe = sh != NULL;
	if ((x = sl_ymap_get(v, "background_gbps")) &&
	    get_bounded(yp, x, "background_gbps", 0, MAX_RATE, &m->mem_background_gbps) < 0)
		return -1;
	if ((x = sl_ymap_get(v, "loaded"))) {
		if (sl_yexpect(yp, x, SL_YSEQ, "loaded") < 0)
			return -1;
		m->mem_loaded_gbps = sl_xcalloc(x->n + 1, sizeof *m->mem_loaded_gbps);
		m->mem_loaded_ns = sl_xcalloc(x->n + 1, sizeof *m->mem_loaded_ns);
		for (size_t i = 0; i < x->n; i++) {
			const sl_ynode *p = x->kid[i];
			double g, ns;
			if (sl_yexpect(yp, p, SL_YMAP, "loaded") < 0)
				return -1;
			sl_ywarn_unknown(yp, p, known_ld);
			if (get_positive(yp, p, "gbps", "a loaded-latency point", MAX_RATE, &g) < 0 ||
			    get_positive(yp, p, "ns", "a loaded-latency point", MAX_RATE, &ns) < 0)
				return -1;
			size_t n = m->n_mem_loaded;
			if (n && !(g > m->mem_loaded_gbps[n - 1]))
				return sl_yerr(yp, p->line, "gbps",
					       "loaded-latency points must be in ascending gbps");
			m->mem_loaded_gbps[n] = g;
			m->mem_loaded_ns[n] = ns;
			m->n_mem_loaded++;
		}
	}
	if (!(x = sl_ymap_get(v, "latency")))
		return 0;
	if (sl_yexpect(yp, x, SL_YSEQ, "latency") < 0)
		return -1;
	m->mem_latency_ghz = sl_xcalloc(x->n + 1, sizeof *m->mem_latency_ghz);
	m->mem_latency_ns = sl_xcalloc(x->n + 1, sizeof *m->mem_latency_ns);
	m->mem_llc_ns = sl_xcalloc(x->n + 1, sizeof *m->mem_llc_ns);
	m->mem_llc_chase_ns = sl_xcalloc(x->n + 1, sizeof *m->mem_llc_chase_ns);
	for (size_t i = 0; i < x->n; i++) {
		const sl_ynode *p = x->kid[i], *h;
		double g, ns, llc = 0, chase = 0;
		if (sl_yexpect(yp, p, SL_YMAP, "latency") < 0)
			return -1;
		sl_ywarn_unknown(yp, p, known_pt);
		if (get_positive(yp, p, "ghz", "a latency point", MAX_GHZ, &g) < 0 ||
		    get_positive(yp, p, "ns", "a latency point", MAX_RATE, &ns) < 0)
			return -1;
		const char *const hkeys[] = {"llc_ns", "llc_chase_ns"};
		double *hval[] = {&llc, &chase};
		for (size_t k = 0; k < SL_ARRAY_LEN(hkeys); k++) {
			if (!(h = sl_ymap_get(p, hkeys[k])))
				continue;
			if (sl_yget_double(yp, h, hkeys[k], hval[k]) < 0)
				return -1;
			if (!(*hval[k] >= 0 && *hval[k] < 1e4))
				return sl_yerr(yp, h->line, hkeys[k],
					       "must be between 0 and 10000 ns, found %s", h->str);
		}
		size_t j = m->n_mem_latency;
		for (size_t k = 0; k < j; k++)
			if (fabs(m->mem_latency_ghz[k] - g) < GHZ_EPS)
				return sl_yerr(yp, p->line, "ghz",
					       "%g GHz has two latency points", g);
		while (j > 0 && m->mem_latency_ghz[j - 1] > g) {
			m->mem_latency_ghz[j] = m->mem_latency_ghz[j - 1];
			m->mem_latency_ns[j] = m->mem_latency_ns[j - 1];
			m->mem_llc_ns[j] = m->mem_llc_ns[j - 1];
			m->mem_llc_chase_ns[j] = m->mem_llc_chase_ns[j - 1];
			j--;
		}
		m->mem_latency_ghz[j] = g;
		m->mem_latency_ns[j] = ns;
		m->mem_llc_ns[j] = llc;
		m->mem_llc_chase_ns[j] = chase;
		m->n_mem_latency++;
	}
	return 0;
}

/* time_error: [{model: M, from_ghz: F0, ghz: F, phases: N, rms: R, mean: B,
 * worst: W}, ...] (calibrate's record of the time models' residuals); a
 * model name sleuth does not know is kept, and simply never looked up. */
/*
 * thermal: {k_per_w, tau_s, leakage: {per_c, ref_c, at: [{ghz, w}...]}}:
 * what a steady load's runs measured of the die (docs/formats.md).  Each
 * leakage point is at one of the machine's P-states, none twice.
 */
static int read_leakage(sl_yparser *yp, const sl_ynode *l, sl_machine *m)
{
	static const char *const known[] = {"per_c", "ref_c", "at", NULL};
	static const char *const known_pt[] = {"ghz", "w", NULL};
	const sl_ynode *at;
	if (sl_yexpect(yp, l, SL_YMAP, "leakage") < 0)
		return -1;
	sl_ywarn_unknown(yp, l, known);
	const sl_ynode *pc = sl_yreq(yp, l, "per_c", "leakage"), *rc;
	if (!pc || get_bounded(yp, pc, "per_c", 0, 1, &m->leak_per_c) < 0 ||
	    !(rc = sl_yreq(yp, l, "ref_c", "leakage")) ||
	    get_bounded(yp, rc, "ref_c", -273.15, 1000, &m->leak_ref_c) < 0 ||
	    !(at = sl_yreq(yp, l, "at", "leakage")) || sl_yexpect(yp, at, SL_YSEQ, "at") < 0)
		return -1;
	if (!at->n || at->n > m->n_pstates)
		return sl_yerr(yp, at->line, "at", "%zu points; give 1 to %zu, one per "
			       "P-state measured", at->n, m->n_pstates);
	m->leak_ghz = sl_xcalloc(at->n, sizeof *m->leak_ghz);
	m->leak_w = sl_xcalloc(at->n, sizeof *m->leak_w);
	for (size_t i = 0; i < at->n; i++) {
		const sl_ynode *p = at->kid[i], *w;
		double g;
		if (sl_yexpect(yp, p, SL_YMAP, "at") < 0)
			return -1;
		sl_ywarn_unknown(yp, p, known_pt);
		if (get_positive(yp, p, "ghz", "leakage", MAX_GHZ, &g) < 0 ||
		    !(w = sl_yreq(yp, p, "w", "leakage")) ||
		    get_bounded(yp, w, "w", 0, MAX_WATTS, &m->leak_w[i]) < 0)
			return -1;
		int k = sl_machine_pstate(m, g);
		if (k < 0)
			return sl_yerr(yp, p->line, "ghz", "%g GHz is no P-state of this machine; "
				       "measure leakage at its P-states", g);
		for (size_t j = 0; j < i; j++)
			if (fabs(m->leak_ghz[j] - g) < GHZ_EPS)
				return sl_yerr(yp, p->line, "ghz", "%g GHz listed twice", g);
		m->leak_ghz[i] = m->pstates[k].ghz;
		m->n_leak++;
	}
	/* descending ghz, as the P-states */
	for (size_t i = 1; i < m->n_leak; i++)
		for (size_t j = i; j > 0 && m->leak_ghz[j] > m->leak_ghz[j - 1]; j--) {
			double t = m->leak_ghz[j];
			m->leak_ghz[j] = m->leak_ghz[j - 1], m->leak_ghz[j - 1] = t;
			t = m->leak_w[j];
			m->leak_w[j] = m->leak_w[j - 1], m->leak_w[j - 1] = t;
		}
	return 0;
}

static int read_thermal(sl_yparser *yp, const sl_ynode *v, sl_machine *m)
{
	static const char *const known[] = {"k_per_w", "tau_s", "leakage", NULL};
	const sl_ynode *l;
	if (sl_yexpect(yp, v, SL_YMAP, "thermal") < 0)
		return -1;
	sl_ywarn_unknown(yp, v, known);
	if (get_positive(yp, v, "k_per_w", "thermal", 100, &m->thermal_k_per_w) < 0 ||
	    get_positive(yp, v, "tau_s", "thermal", 1e5, &m->thermal_tau_s) < 0)
		return -1;
	m->has_thermal = 1;
	return (l = sl_ymap_get(v, "leakage")) ? read_leakage(yp, l, m) : 0;
}

/* The voltage of P-state `ghz` (its frequency when the machine has none). */
static double leak_x(const sl_machine *m, double ghz)
{
	int k = sl_machine_pstate(m, ghz);
	return k >= 0 && m->pstates[k].volts > 0 ? m->pstates[k].volts : ghz;
}

double sl_machine_leakage(const sl_machine *m, double ghz, double volts, double temp_c)
{
	if (!m->n_leak)
		return 0;
	double w = m->leak_w[0];
	if (m->n_leak > 1) {
		/* leakage grows exponentially in V: its log is taken linear in
		 * V between the two nearest points (linear where one is 0) */
		double x = volts > 0 ? volts : ghz;
		size_t a = 0;
		while (a + 2 < m->n_leak && x < leak_x(m, m->leak_ghz[a + 1]))
			a++;
		double xa = leak_x(m, m->leak_ghz[a]), xb = leak_x(m, m->leak_ghz[a + 1]);
		double wa = m->leak_w[a], wb = m->leak_w[a + 1];
		double u = xa == xb ? 1 : (x - xb) / (xa - xb);
		w = wa > 0 && wb > 0 ? exp(log(wb) + u * (log(wa) - log(wb)))
				     : SL_MAX(0, wb + u * (wa - wb));
	}
	return w * exp(m->leak_per_c * (temp_c - m->leak_ref_c));
}

double sl_machine_static_temp(const sl_machine *m, double ghz, double volts, double temp_c)
{
	if (!m->has_temp)
		return 0;
	if (!m->n_leak)
		return m->temp_coeff * volts * (temp_c - m->temp_ref_c);
	return sl_machine_leakage(m, ghz, volts, temp_c) -
	       sl_machine_leakage(m, ghz, volts, m->temp_ref_c);
}

static int read_time_error(sl_yparser *yp, const sl_ynode *v, sl_machine *m)
{
	static const char *const known[] = {"model", "from_ghz", "ghz", "phases", "rms",
		"mean", "worst", NULL};
	if (sl_yexpect(yp, v, SL_YSEQ, "time_error") < 0)
		return -1;
	m->time_error = sl_xcalloc(v->n + 1, sizeof *m->time_error);
	for (size_t i = 0; i < v->n; i++) {
		const sl_ynode *p = v->kid[i], *x;
		sl_time_error *e = &m->time_error[i];
		const char *s;
		uint64_t n;
		if (sl_yexpect(yp, p, SL_YMAP, "time_error") < 0)
			return -1;
		sl_ywarn_unknown(yp, p, known);
		if (!(x = sl_yreq(yp, p, "model", "a time_error entry")) ||
		    sl_yget_str(yp, x, "model", &s) < 0)
			return -1;
		e->model = sl_xstrdup(s);
		m->n_time_error++;
		if (get_positive(yp, p, "from_ghz", "a time_error entry", MAX_GHZ, &e->from_ghz) < 0 ||
		    get_positive(yp, p, "ghz", "a time_error entry", MAX_GHZ, &e->ghz) < 0 ||
		    !(x = sl_yreq(yp, p, "rms", "a time_error entry")) ||
		    get_bounded(yp, x, "rms", 0, 100, &e->rms) < 0 ||
		    !(x = sl_yreq(yp, p, "worst", "a time_error entry")) ||
		    get_bounded(yp, x, "worst", 0, 100, &e->worst) < 0 ||
		    !(x = sl_yreq(yp, p, "mean", "a time_error entry")) ||
		    get_bounded(yp, x, "mean", -100, 100, &e->mean) < 0)
			return -1;
		if (!(x = sl_yreq(yp, p, "phases", "a time_error entry")) ||
		    sl_yget_u64(yp, x, "phases", &n) < 0)
			return -1;
		e->phases = (size_t)n;
	}
	return 0;
}

static int read_machine(sl_yparser *yp, const sl_ynode *root, sl_machine *m)
{
	static const char *const known[] = {"format", "name", "counters",
		"memory_latency_ns", "pstates", "events", "power", "memory", "time_error",
		"thermal", NULL};
	const sl_ynode *v;
	const char *s;
	int64_t k;
	if (!(v = sl_yreq(yp, root, "format", NULL)) || sl_yget_str(yp, v, "format", &s) < 0)
		return -1;
	if (strcmp(s, MACHINE_FORMAT))
		return sl_yerr(yp, v->line, "format",
			       "'%s' is not a sleuth machine format; expected '%s'", s,
			       MACHINE_FORMAT);
	sl_ywarn_unknown(yp, root, known); /* after the format, as schedules */
	if (!(v = sl_yreq(yp, root, "name", NULL)) || sl_yget_str(yp, v, "name", &s) < 0)
		return -1;
	m->name = sl_xstrdup(s);
	if (!(v = sl_yreq(yp, root, "counters", NULL)) ||
	    sl_yexpect(yp, v, SL_YMAP, "counters") < 0)
		return -1;
	static const char *const known_counters[] = {"programmable", NULL};
	sl_ywarn_unknown(yp, v, known_counters);
	if (!(v = sl_yreq(yp, v, "programmable", "counters")) ||
	    sl_yget_int(yp, v, "programmable", &k) < 0)
		return -1;
	if (k < 1 || k > 64)
		return sl_yerr(yp, v->line, "programmable",
			       "must be between 1 and 64, found %s", v->str);
	m->programmable = (int)k;
	if (get_positive(yp, root, "memory_latency_ns", NULL, 1e6, &m->memory_latency_ns) < 0)
		return -1;
	if (!(v = sl_yreq(yp, root, "pstates", NULL)) || read_pstates(yp, v, m) < 0)
		return -1;
	if (!(v = sl_yreq(yp, root, "events", NULL)) || read_roles(yp, v, m) < 0)
		return -1;
	if ((v = sl_ymap_get(root, "thermal")) && read_thermal(yp, v, m) < 0)
		return -1;
	if ((v = sl_ymap_get(root, "power")) && read_power(yp, v, m) < 0)
		return -1;
	if ((v = sl_ymap_get(root, "memory")) && read_memory(yp, v, m) < 0)
		return -1;
	if ((v = sl_ymap_get(root, "time_error")) && read_time_error(yp, v, m) < 0)
		return -1;
	return 0;
}

int sl_machine_load_mem(const char *name, const char *text, size_t len, sl_machine *m)
{
	sl_yparser yp;
	sl_ynode *root;
	int rc = -1;
	memset(m, 0, sizeof *m);
	m->text = sl_xmalloc(len + 1);
	memcpy(m->text, text, len);
	m->text[len] = 0;
	if (sl_yp_open_mem(&yp, name, m->text, len) < 0)
		goto out;
	if (sl_yp_load_document(&yp, &root) == 0 && read_machine(&yp, root, m) == 0)
		rc = 0;
	sl_yp_close(&yp);
out:
	if (rc < 0)
		sl_machine_free(m);
	return rc;
}

int sl_machine_load(const char *path, sl_machine *m)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	memset(m, 0, sizeof *m);
	if (!f) {
		sl_error_set("cannot open machine %s: %s", path, strerror(errno));
		return -1;
	}
	sl_input_note(f);
	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 8192;
			buf = sl_xrealloc(buf, cap);
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	if (ferror(f)) {
		sl_error_set("cannot read machine %s: %s", path, strerror(errno));
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	int rc = sl_machine_load_mem(path, buf, len, m);
	free(buf);
	return rc;
}

int sl_machine_complete(const sl_machine *m)
{
	const char *missing = NULL;
	if (!sl_machine_has_volts(m))
		missing = "the P-states have no volts, which the power model needs";
	for (size_t i = 0; i < m->n_pstates && !missing; i++)
		if (!m->pstates[i].has_static)
			missing = "the P-states have no static_w";
	if (!missing && !m->has_power)
		missing = "there is no power: section";
	if (!missing && !m->has_constant)
		missing = "power: has no constant";
	for (size_t i = 0; i < m->n_terms && !missing; i++)
		if (!m->terms[i].has_coeff)
			missing = "the power terms have no coeff";
	if (!missing)
		return 1;
	sl_error_set("machine %s has no fitted power model (%s); "
		     "run sleuth calibrate to complete it", m->name ? m->name : "?",
		     missing);
	return 0;
}

int sl_machine_write(const char *path, const sl_machine *m, const char *comment)
{
	sl_ywriter w;
	if (sl_yw_open(&w, path, comment) < 0)
		return -1;
	sl_yw_map(&w, 0);
	sl_yw_kstr(&w, "format", MACHINE_FORMAT);
	sl_yw_kstr(&w, "name", m->name);
	sl_yw_plain(&w, "counters");
	sl_yw_map(&w, 1);
	sl_yw_ku64(&w, "programmable", (uint64_t)m->programmable);
	sl_yw_end_map(&w);
	sl_yw_kdouble(&w, "memory_latency_ns", m->memory_latency_ns);
	sl_yw_plain(&w, "pstates");
	sl_yw_seq(&w, 0);
	for (size_t i = 0; i < m->n_pstates; i++) {
		const sl_pstate *p = &m->pstates[i];
		sl_yw_map(&w, 1);
		sl_yw_kdouble(&w, "ghz", p->ghz);
		if (p->volts > 0)
			sl_yw_kdouble(&w, "volts", p->volts);
		if (p->has_static)
			sl_yw_kdouble(&w, "static_w", p->static_w);
		sl_yw_end_map(&w);
	}
	sl_yw_end_seq(&w);
	sl_yw_plain(&w, "events");
	sl_yw_map(&w, 0);
	for (size_t i = 0; i < m->n_roles; i++)
		sl_yw_kstr(&w, m->roles[i].role, m->roles[i].event);
	sl_yw_end_map(&w);
	if (m->has_power) {
		sl_yw_plain(&w, "power");
		sl_yw_map(&w, 0);
		if (m->has_constant)
			sl_yw_kdouble(&w, "constant", m->constant);
		if (m->has_temp) {
			sl_yw_kdouble(&w, "temp_ref_c", m->temp_ref_c);
			if (!m->n_leak)
				sl_yw_kdouble(&w, "temp_coeff", m->temp_coeff);
		}
		if (m->floor_stalled)
			sl_yw_kstr(&w, "floor", "stalled");
		sl_yw_plain(&w, "terms");
		sl_yw_seq(&w, 0);
		for (size_t i = 0; i < m->n_terms; i++) {
			sl_yw_map(&w, 1);
			sl_yw_kstr(&w, "event", m->terms[i].event);
			if (m->terms[i].energy)
				sl_yw_kstr(&w, "kind", "energy");
			if (m->terms[i].keep_auto)
				sl_yw_kstr(&w, "keep", "auto");
			if (m->terms[i].has_coeff)
				sl_yw_kdouble(&w, "coeff", m->terms[i].coeff);
			sl_yw_end_map(&w);
		}
		sl_yw_end_seq(&w);
		sl_yw_end_map(&w);
	}
	if (m->has_memory) {
		sl_yw_plain(&w, "memory");
		sl_yw_map(&w, 0);
		if (m->mem_bandwidth_gbps > 0)
			sl_yw_kdouble(&w, "bandwidth_gbps", m->mem_bandwidth_gbps);
		if (m->n_mem_loaded) {
			sl_yw_plain(&w, "loaded");
			sl_yw_seq(&w, 0);
			for (size_t i = 0; i < m->n_mem_loaded; i++) {
				sl_yw_map(&w, 1);
				sl_yw_kdouble(&w, "gbps", m->mem_loaded_gbps[i]);
				sl_yw_kdouble(&w, "ns", m->mem_loaded_ns[i]);
				sl_yw_end_map(&w);
			}
			sl_yw_end_seq(&w);
		}
		if (m->n_mem_latency) {
			sl_yw_plain(&w, "latency");
			sl_yw_seq(&w, 0);
			for (size_t i = 0; i < m->n_mem_latency; i++) {
				sl_yw_map(&w, 1);
				sl_yw_kdouble(&w, "ghz", m->mem_latency_ghz[i]);
				sl_yw_kdouble(&w, "ns", m->mem_latency_ns[i]);
				sl_yw_kdouble(&w, "llc_ns", m->mem_llc_ns[i]);
				if (m->mem_llc_chase_ns[i] > 0)
					sl_yw_kdouble(&w, "llc_chase_ns", m->mem_llc_chase_ns[i]);
				sl_yw_end_map(&w);
			}
			sl_yw_end_seq(&w);
		}
		if (m->has_stall_probe) {
			sl_yw_kdouble(&w, "stall_llc_share", m->mem_stall_llc_share);
			sl_yw_kdouble(&w, "stall_per_mispredict", m->mem_stall_mispredict);
		}
		if (m->mem_background_gbps > 0)
			sl_yw_kdouble(&w, "background_gbps", m->mem_background_gbps);
		sl_yw_end_map(&w);
	}
	if (m->has_thermal) {
		sl_yw_plain(&w, "thermal");
		sl_yw_map(&w, 0);
		sl_yw_kdouble(&w, "k_per_w", m->thermal_k_per_w);
		sl_yw_kdouble(&w, "tau_s", m->thermal_tau_s);
		if (m->n_leak) {
			sl_yw_plain(&w, "leakage");
			sl_yw_map(&w, 0);
			sl_yw_kdouble(&w, "per_c", m->leak_per_c);
			sl_yw_kdouble(&w, "ref_c", m->leak_ref_c);
			sl_yw_plain(&w, "at");
			sl_yw_seq(&w, 0);
			for (size_t i = 0; i < m->n_leak; i++) {
				sl_yw_map(&w, 1);
				sl_yw_kdouble(&w, "ghz", m->leak_ghz[i]);
				sl_yw_kdouble(&w, "w", m->leak_w[i]);
				sl_yw_end_map(&w);
			}
			sl_yw_end_seq(&w);
			sl_yw_end_map(&w);
		}
		sl_yw_end_map(&w);
	}
	if (m->n_time_error) {
		sl_yw_plain(&w, "time_error");
		sl_yw_seq(&w, 0);
		for (size_t i = 0; i < m->n_time_error; i++) {
			const sl_time_error *e = &m->time_error[i];
			sl_yw_map(&w, 1);
			sl_yw_kstr(&w, "model", e->model);
			sl_yw_kdouble(&w, "from_ghz", e->from_ghz);
			sl_yw_kdouble(&w, "ghz", e->ghz);
			sl_yw_ku64(&w, "phases", e->phases);
			sl_yw_kdouble(&w, "rms", e->rms);
			sl_yw_kdouble(&w, "mean", e->mean);
			sl_yw_kdouble(&w, "worst", e->worst);
			sl_yw_end_map(&w);
		}
		sl_yw_end_seq(&w);
	}
	sl_yw_end_map(&w);
	return sl_yw_commit(&w);
}

void sl_machine_free(sl_machine *m)
{
	for (size_t i = 0; i < m->n_roles; i++) {
		free(m->roles[i].role);
		free(m->roles[i].event);
	}
	for (size_t i = 0; i < m->n_terms; i++)
		free(m->terms[i].event);
	free(m->roles);
	free(m->terms);
	free(m->pstates);
	free(m->name);
	free(m->text);
	free(m->mem_latency_ghz);
	free(m->leak_ghz);
	free(m->leak_w);
	free(m->mem_latency_ns);
	free(m->mem_llc_ns);
	free(m->mem_llc_chase_ns);
	free(m->mem_loaded_gbps);
	free(m->mem_loaded_ns);
	for (size_t i = 0; i < m->n_time_error; i++)
		free(m->time_error[i].model);
	free(m->time_error);
	memset(m, 0, sizeof *m);
}

int sl_machine_has_volts(const sl_machine *m)
{
	return m->n_pstates && m->pstates[0].volts > 0;
}

const char *sl_machine_role(const sl_machine *m, const char *role)
{
	for (size_t i = 0; i < m->n_roles; i++)
		if (!strcmp(m->roles[i].role, role))
			return m->roles[i].event;
	return NULL;
}

int sl_machine_role_in(const sl_machine *m, const char *event, const char *const *roles,
		       size_t n_roles)
{
	for (size_t r = 0; r < n_roles; r++) {
		const char *ev = sl_machine_role(m, roles[r]);
		if (ev && !strcmp(ev, event))
			return 1;
	}
	return 0;
}

int sl_machine_counts_cycles(const sl_machine *m, const char *event)
{
	static const char *const cycle_roles[] = {
		"stall_cycles", "resource_stalls", "memory_stall_cycles",
		"offcore_cycles", "offcore_occupancy", "miss_stall_cycles", "l2_miss_stall_cycles",
	};
	return sl_machine_role_in(m, event, cycle_roles, SL_ARRAY_LEN(cycle_roles));
}

static int has_str(const char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

size_t sl_machine_model_events(const sl_machine *m, const char ***out)
{
	const char **v = sl_xcalloc(m->n_roles + m->n_terms + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < m->n_roles; i++)
		if (strcmp(m->roles[i].role, "branch_sample") &&
		    !has_str(v, n, m->roles[i].event))
			v[n++] = m->roles[i].event;
	for (size_t i = 0; i < m->n_terms; i++)
		if (!has_str(v, n, m->terms[i].event))
			v[n++] = m->terms[i].event;
	*out = v;
	return n;
}

int sl_machine_pstate(const sl_machine *m, double ghz)
{
	for (size_t i = 0; i < m->n_pstates; i++)
		if (fabs(m->pstates[i].ghz - ghz) < GHZ_EPS)
			return (int)i;
	return -1;
}

double sl_machine_fmax(const sl_machine *m)
{
	return m->n_pstates ? m->pstates[0].ghz : 0;
}

double sl_machine_fmin(const sl_machine *m)
{
	return m->n_pstates ? m->pstates[m->n_pstates - 1].ghz : 0;
}

/* Linear interpolation of y over ascending g, constant beyond. */
static double interp(const double *g, const double *y, size_t n, double ghz)
{
	if (ghz <= g[0])
		return y[0];
	if (ghz >= g[n - 1])
		return y[n - 1];
	size_t i = 1;
	while (g[i] < ghz)
		i++;
	return y[i - 1] + (y[i] - y[i - 1]) * (ghz - g[i - 1]) / (g[i] - g[i - 1]);
}

double sl_machine_mem_latency(const sl_machine *m, double ghz)
{
	return m->n_mem_latency
		       ? interp(m->mem_latency_ghz, m->mem_latency_ns, m->n_mem_latency, ghz)
		       : m->memory_latency_ns;
}

double sl_machine_llc_hit(const sl_machine *m, double ghz)
{
	return m->n_mem_latency
		       ? interp(m->mem_latency_ghz, m->mem_llc_ns, m->n_mem_latency, ghz)
		       : 0;
}

double sl_machine_llc_chase(const sl_machine *m, double ghz)
{
	for (size_t i = 0; i < m->n_mem_latency; i++)
		if (!(m->mem_llc_chase_ns[i] > 0))
			return 0; /* measured at every point or not at all */
	return m->n_mem_latency
		       ? interp(m->mem_latency_ghz, m->mem_llc_chase_ns, m->n_mem_latency, ghz)
		       : 0;
}

double sl_machine_mem_queueing(const sl_machine *m, double gbps)
{
	if (!m->n_mem_loaded)
		return 1;
	return interp(m->mem_loaded_gbps, m->mem_loaded_ns, m->n_mem_loaded, gbps) /
	       m->mem_loaded_ns[0];
}
