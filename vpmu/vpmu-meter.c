/*
 * The virtual machine's description and its energy meter.  The meter is
 * the vPMU's ground truth for power: it reads the activity the simulated
 * core produced in an interval (including activity no counter exposes:
 * IR-level ALU work, wrong-path fetch, write-backs, DRAM traffic), turns
 * it into an effective capacitance with clock gating and a sub-linear
 * issue term, adds uncore energy per access and per byte at a fixed
 * uncore voltage, and leakage that grows exponentially with voltage and
 * temperature, the temperature following a first-order thermal RC.
 * docs/vpmu.md has the equations.  sleuth's models never read this file.
 */
#include "vpmu/vpmu.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "formats/yamlio.h"
#include "sleuth/common.h"

#define OFF(f) offsetof(sl_vpmu_machine, f)

static const struct {
	const char *section, *key;
	size_t off;
} keys[] = {
	{"core", "width", OFF(width)},
	{"core", "rob", OFF(rob)},
	{"core", "mshr", OFF(mshr)},
	{"core", "mispredict_penalty", OFF(mispredict_penalty)},
	{"core", "gshare_bits", OFF(gshare_bits)},
	{"l1d", "size", OFF(l1_size)},
	{"l1d", "assoc", OFF(l1_assoc)},
	{"l1d", "line", OFF(l1_line)},
	{"l2", "size", OFF(l2_size)},
	{"l2", "assoc", OFF(l2_assoc)},
	{"l2", "line", OFF(l2_line)},
	{"l2", "cycles", OFF(l2_cycles)},
	{"llc", "size", OFF(llc_size)},
	{"llc", "assoc", OFF(llc_assoc)},
	{"llc", "line", OFF(llc_line)},
	{"llc", "cycles", OFF(llc_cycles)},
	{"llc", "uncore_ns", OFF(llc_uncore_ns)},
	{"memory", "latency_ns", OFF(dram_ns)},
	{"memory", "bandwidth_mbps", OFF(dram_mbps)},
	{"memory", "prefetch_degree", OFF(prefetch_degree)},
	{"power", "base_w", OFF(base_w)},
	{"power", "uncore_w", OFF(uncore_w)},
	{"power", "leak_w", OFF(leak_w)},
	{"power", "leak_vref", OFF(leak_vref)},
	{"power", "leak_per_volt", OFF(leak_per_volt)},
	{"power", "leak_tref_c", OFF(leak_tref_c)},
	{"power", "leak_per_kelvin", OFF(leak_per_kelvin)},
	{"power", "c_clock_nf", OFF(c_clock_nf)},
	{"power", "clock_gated_share", OFF(clock_gated_share)},
	{"power", "c_issue_nf", OFF(c_issue_nf)},
	{"power", "issue_exponent", OFF(issue_exponent)},
	{"power", "c_irop_nf", OFF(c_irop_nf)},
	{"power", "c_load_nf", OFF(c_load_nf)},
	{"power", "c_store_nf", OFF(c_store_nf)},
	{"power", "c_l1_miss_nf", OFF(c_l1_miss_nf)},
	{"power", "c_l2_miss_nf", OFF(c_l2_miss_nf)},
	{"power", "c_fp_nf", OFF(c_fp_nf)},
	{"power", "c_muldiv_nf", OFF(c_muldiv_nf)},
	{"power", "c_branch_nf", OFF(c_branch_nf)},
	{"power", "c_wrong_path_nf", OFF(c_wrong_path_nf)},
	{"power", "llc_access_nj", OFF(llc_access_nj)},
	{"power", "dram_nj_per_byte", OFF(dram_nj_per_byte)},
	{"thermal", "ambient_c", OFF(ambient_c)},
	{"thermal", "start_c", OFF(start_c)},
	{"thermal", "r_k_per_w", OFF(thermal_r_k_per_w)},
	{"thermal", "tau_s", OFF(thermal_tau_s)},
};

static int load_pstates(sl_yparser *yp, const sl_ynode *root, sl_vpmu_machine *m)
{
	const sl_ynode *ps = sl_yreq(yp, root, "pstates", "the machine");
	if (!ps || sl_yexpect(yp, ps, SL_YSEQ, "pstates") < 0)
		return -1;
	if (!ps->n)
		return sl_yerr(yp, ps->line, "pstates", "no P-states; list {ghz, volts} pairs");
	m->pstates = sl_xcalloc(ps->n, sizeof *m->pstates);
	for (size_t i = 0; i < ps->n; i++) {
		const sl_ynode *e = ps->kid[i], *g, *v;
		if (sl_yexpect(yp, e, SL_YMAP, "pstates") < 0 ||
		    !(g = sl_yreq(yp, e, "ghz", "a P-state")) ||
		    !(v = sl_yreq(yp, e, "volts", "a P-state")) ||
		    sl_yget_double(yp, g, "ghz", &m->pstates[i].ghz) < 0 ||
		    sl_yget_double(yp, v, "volts", &m->pstates[i].volts) < 0)
			return -1;
		if (!(m->pstates[i].ghz > 0) || !(m->pstates[i].volts > 0))
			return sl_yerr(yp, e->line, "pstates", "ghz and volts must be positive");
		if (i && m->pstates[i].ghz >= m->pstates[i - 1].ghz)
			return sl_yerr(yp, e->line, "pstates", "list P-states fastest first");
		m->n_pstates++;
	}
	return 0;
}

int sl_vpmu_machine_load(const char *path, sl_vpmu_machine *m)
{
	memset(m, 0, sizeof *m);
	sl_yparser yp;
	sl_ynode *root;
	if (sl_yp_open(&yp, path) < 0)
		return -1;
	int rc = -1;
	if (sl_yp_load_document(&yp, &root) < 0 || sl_yexpect(&yp, root, SL_YMAP, "document") < 0)
		goto out;
	const sl_ynode *fmt = sl_yreq(&yp, root, "format", "the machine"), *name;
	const char *s;
	if (!fmt || sl_yget_str(&yp, fmt, "format", &s) < 0)
		goto out;
	if (strcmp(s, "sleuth-vpmu-machine/1")) {
		sl_yerr(&yp, fmt->line, "format", "'%s' is not sleuth-vpmu-machine/1", s);
		goto out;
	}
	if (!(name = sl_yreq(&yp, root, "name", "the machine")) ||
	    sl_yget_str(&yp, name, "name", &s) < 0)
		goto out;
	m->name = sl_xstrdup(s);
	for (size_t i = 0; i < SL_ARRAY_LEN(keys); i++) {
		const sl_ynode *sec = sl_yreq(&yp, root, keys[i].section, "the machine"), *v;
		double *dst = (double *)((char *)m + keys[i].off);
		if (!sec || sl_yexpect(&yp, sec, SL_YMAP, keys[i].section) < 0 ||
		    !(v = sl_yreq(&yp, sec, keys[i].key, keys[i].section)) ||
		    sl_yget_double(&yp, v, keys[i].key, dst) < 0)
			goto out;
		if (*dst < 0) {
			sl_yerr(&yp, v->line, keys[i].key, "must not be negative");
			goto out;
		}
	}
	if (load_pstates(&yp, root, m) < 0)
		goto out;
	rc = 0;
out:
	sl_yp_close(&yp);
	if (rc < 0)
		sl_vpmu_machine_free(m);
	return rc;
}

void sl_vpmu_machine_free(sl_vpmu_machine *m)
{
	free(m->name);
	free(m->pstates);
	memset(m, 0, sizeof *m);
}

int sl_vpmu_volts(const sl_vpmu_machine *m, double ghz, double *volts)
{
	const sl_vpmu_pstate *p = m->pstates;
	size_t n = m->n_pstates;
	double tol = 1e-6;
	if (ghz > p[0].ghz + tol || ghz < p[n - 1].ghz - tol) {
		sl_error_set("--freq %.3f GHz is outside the vPMU machine's P-states "
			     "(%.2f-%.2f GHz)", ghz, p[n - 1].ghz, p[0].ghz);
		return -1;
	}
	for (size_t i = 0; i + 1 < n; i++)
		if (ghz >= p[i + 1].ghz - tol) {
			double t = (ghz - p[i + 1].ghz) / (p[i].ghz - p[i + 1].ghz);
			*volts = p[i + 1].volts + SL_MAX(0.0, SL_MIN(1.0, t)) *
							  (p[i].volts - p[i + 1].volts);
			return 0;
		}
	*volts = p[n - 1].volts;
	return 0;
}

void sl_vpmu_meter_init(sl_vpmu_meter *mt, const sl_vpmu_machine *m, double ghz, double volts)
{
	mt->m = m;
	mt->ghz = ghz;
	mt->volts = volts;
	mt->temp_c = m->start_c;
}

/* Leakage: exponential in V about leak_vref and in T about leak_tref_c. */
static double leakage(const sl_vpmu_machine *m, double v, double t)
{
	return m->leak_w * (v / m->leak_vref) * exp(m->leak_per_volt * (v - m->leak_vref)) *
	       exp(m->leak_per_kelvin * (t - m->leak_tref_c));
}

double sl_vpmu_meter_step(sl_vpmu_meter *mt, const struct vpmu_interval *iv, double *watts)
{
	const sl_vpmu_machine *m = mt->m;
	double t = iv->time_ns * 1e-9;
	double c = (double)iv->cycles;
	if (!(t > 0) || !(c > 0)) {
		*watts = 0;
		return 0;
	}
	const unsigned long long *ev = iv->ev, *act = iv->act;
	double busy = 1.0 - SL_MIN(1.0, (double)ev[VPMU_EV_STALL_CYCLES] / c);
	double ipc = (double)iv->instructions / c;
	double ceff = m->c_clock_nf * (1.0 - m->clock_gated_share * (1.0 - busy)) +
		      m->c_issue_nf * pow(ipc, m->issue_exponent) +
		      (m->c_irop_nf * (double)act[VPMU_ACT_IR_OPS] +
		       m->c_load_nf * (double)ev[VPMU_EV_LOADS] +
		       m->c_store_nf * (double)ev[VPMU_EV_STORES] +
		       m->c_l1_miss_nf * (double)ev[VPMU_EV_L1D_MISS] +
		       m->c_l2_miss_nf * (double)ev[VPMU_EV_L2_MISS] +
		       m->c_fp_nf * (double)ev[VPMU_EV_FP_OPS] +
		       m->c_muldiv_nf * (double)act[VPMU_ACT_MULDIV] +
		       m->c_branch_nf * (double)ev[VPMU_EV_BR_COND] +
		       m->c_wrong_path_nf * (double)act[VPMU_ACT_WRONG_PATH]) / c;
	double dyn = ceff * mt->volts * mt->volts * mt->ghz;
	double llc = (double)(ev[VPMU_EV_L2_MISS] + ev[VPMU_EV_PREFETCH] + act[VPMU_ACT_WRITEBACKS]);
	double uncore = m->uncore_w + (m->llc_access_nj * llc +
				       m->dram_nj_per_byte * (double)act[VPMU_ACT_DRAM_BYTES]) * 1e-9 / t;
	/* leakage at the mean temperature of the interval: one fixed-point step */
	double t0 = mt->temp_c, tm = t0, p = 0, t1 = t0;
	double decay = exp(-t / m->thermal_tau_s);
	for (int it = 0; it < 2; it++) {
		p = m->base_w + dyn + uncore + leakage(m, mt->volts, tm);
		double ss = m->ambient_c + m->thermal_r_k_per_w * p;
		t1 = ss + (t0 - ss) * decay;
		tm = 0.5 * (t0 + t1);
	}
	mt->temp_c = t1;
	*watts = p;
	return p * t;
}
