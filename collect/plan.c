/*
 * The counter plan (collect/plan.h).  Counts come from libpfm4's PMU tables
 * (pfm_get_pmu_info: num_cntrs, num_fixed_cntrs) and are corrected for what
 * the kernel says of this machine:
 *  - SMT: from Sandy Bridge on, Intel's 8 general-purpose counters per core
 *    are split between the two hyper-threads (4 each) when SMT is active;
 *    libpfm4 lists the SMT-off count.  Ice Lake and later have 8 per
 *    logical CPU, which libpfm4 lists as 16; no Intel core gives perf more
 *    than 8 per logical CPU.  Nehalem/Westmere have 4 per thread either way.
 *  - the NMI watchdog (kernel.nmi_watchdog) pins a cycles event on every
 *    CPU: on Intel it takes fixed counter 1, so sleuth's cycles needs a GP
 *    counter; on AMD (no fixed counters) it takes a GP counter; on Arm it
 *    takes the cycle counter, and cycles then needs a GP counter.
 * Beside them: instructions (Intel: fixed counter 0; else GP), cycles
 * (Intel: fixed 1; Arm: the cycle counter; AMD: GP) and the branch sampler
 * (always GP: PEBS needs one).  The kernel schedules a group all or
 * nothing, so what is left is the most events the group may hold and still
 * run beside the sampler the whole time.
 */
#include <stdio.h>
#include <string.h>

#include "perf-sys.h"
#include "plan.h"
#include "sleuth/collect.h"
#include "sleuth/common.h"
#include <perfmon/pfmlib.h>

sl_pmu_vendor sl_pmu_vendor_of(const char *pmu)
{
	if (!strncmp(pmu, "amd64", 5))
		return SL_PMU_AMD;
	if (!strncmp(pmu, "arm", 3))
		return SL_PMU_ARM;
	return SL_PMU_INTEL;
}

int sl_counter_plan_for(const char *pmu, int smt, int watchdog, sl_counter_plan *p)
{
	memset(p, 0, sizeof *p);
	if (sl_pfm_init() < 0)
		return -1;
	pfm_pmu_t id;
	pfm_pmu_info_t pi;
	int found = 0;
	pfm_for_all_pmus(id) {
		memset(&pi, 0, sizeof pi);
		pi.size = sizeof pi;
		if (pfm_get_pmu_info(id, &pi) == PFM_SUCCESS && pi.name &&
		    !strcmp(pi.name, pmu)) {
			found = 1;
			break;
		}
	}
	if (!found) {
		sl_error_set("libpfm4 does not know PMU '%s'", pmu);
		return -1;
	}
	snprintf(p->pmu, sizeof p->pmu, "%s", pmu);
	p->vendor = sl_pmu_vendor_of(pmu);
	p->lib_gp = pi.num_cntrs;
	p->lib_fixed = pi.num_fixed_cntrs;
	p->smt = smt > 0;
	p->watchdog = watchdog > 0;
	p->gp = p->lib_gp;
	if (p->vendor == SL_PMU_INTEL) {
		if (p->smt && p->gp >= 8)
			p->gp /= 2;
		if (p->gp > 8)
			p->gp = 8;
		p->instr_gp = p->lib_fixed < 1;
		p->cycles_gp = p->lib_fixed < 2 || p->watchdog;
	} else if (p->vendor == SL_PMU_AMD) {
		p->instr_gp = 1;
		p->cycles_gp = 1;
		p->watchdog_gp = p->watchdog;
	} else {
		p->instr_gp = 1;
		p->cycles_gp = p->watchdog; /* the cycle counter is the watchdog's */
	}
	p->sampler_gp = 1;
	p->programmable = p->gp - p->instr_gp - p->cycles_gp - p->sampler_gp - p->watchdog_gp;
	return 0;
}

int sl_counter_plan_host(sl_counter_plan *p)
{
	const char *pmu, *desc;
	if (sl_pfm_host_pmu(&pmu, &desc) < 0)
		return -1;
	const sl_perf_sys *sys = sl_perf_sys_get();
	return sl_counter_plan_for(pmu, (int)sys->knob(SL_KNOB_SMT, 0),
				   (int)sys->knob(SL_KNOB_WATCHDOG, 0), p);
}

int sl_pmu_hybrid(void)
{
	if (sl_perf_sys_get()->knob(SL_KNOB_HYBRID, -1) < 0)
		return 0;
	const char *pmu = "none", *desc;
	sl_pfm_host_pmu(&pmu, &desc);
	sl_error_set("hybrid CPU (P- and E-cores: cpu_core and cpu_atom PMUs, libpfm4 "
		     "PMU %s): sleuth's perf backend does not open events per core "
		     "type yet, and events of one type fail on the other's cores; "
		     "use --backend timer", pmu);
	return 1;
}

void sl_counter_plan_describe(const sl_counter_plan *p, char *buf, size_t len)
{
	char gp[96];
	if (p->gp == p->lib_gp)
		snprintf(gp, sizeof gp, "%d GP counters per CPU", p->gp);
	else
		snprintf(gp, sizeof gp, "%d GP counters per CPU (libpfm4 lists %d%s)", p->gp,
			 p->lib_gp, p->smt && p->vendor == SL_PMU_INTEL ? "; SMT is on" : "");
	snprintf(buf, len,
		 "%s: %s, %d fixed; instructions %s, cycles %s, the branch sampler 1 GP%s "
		 "-> %d programmable event%s per interval",
		 p->pmu, gp, p->lib_fixed, p->instr_gp ? "1 GP" : "fixed",
		 p->cycles_gp ? (p->watchdog && p->vendor != SL_PMU_AMD
					 ? "1 GP (the NMI watchdog holds the fixed one)"
					 : "1 GP")
			      : "fixed",
		 p->watchdog_gp ? ", the NMI watchdog 1 GP" : "", p->programmable,
		 p->programmable == 1 ? "" : "s");
}
