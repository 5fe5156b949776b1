/*
 * The counter plan: how many of a machine model's events fit in the PMU
 * beside what sleuth always keeps counting (the instructions leader and
 * cycles) and the branch sampler, on this PMU, with what the NMI watchdog
 * and SMT take.  The perf backend programs at most that many events per
 * interval, so the group and the sampler run together the whole time;
 * `sleuth doctor` prints it.
 */
#ifndef SLEUTH_COLLECT_PLAN_H
#define SLEUTH_COLLECT_PLAN_H

typedef enum sl_pmu_vendor { SL_PMU_INTEL, SL_PMU_AMD, SL_PMU_ARM } sl_pmu_vendor;

typedef struct sl_counter_plan {
	char pmu[64];         /* libpfm4 PMU name */
	sl_pmu_vendor vendor;
	int lib_gp, lib_fixed; /* libpfm4's num_cntrs, num_fixed_cntrs */
	int smt, watchdog;     /* as the kernel says */
	int gp;                /* GP counters per logical CPU */
	int instr_gp, cycles_gp, sampler_gp, watchdog_gp; /* GP counters each takes */
	int programmable;      /* what is left for the model's events (may be <= 0) */
} sl_counter_plan;

/* The vendor of a libpfm4 PMU name, by family prefix. */
sl_pmu_vendor sl_pmu_vendor_of(const char *pmu);
/* The plan for PMU pmu (a libpfm4 name, e.g. "skl") given SMT and the
 * watchdog; -1 with sl_error() if libpfm4 does not know the PMU. */
int sl_counter_plan_for(const char *pmu, int smt, int watchdog, sl_counter_plan *p);
/* The plan for this host: its PMU (libpfm4), SMT and the watchdog read
 * from the kernel (through collect/perf-sys.h). */
int sl_counter_plan_host(sl_counter_plan *p);
/* 1 (with the reason in sl_error()) on a hybrid Intel CPU (cpu_core and
 * cpu_atom PMUs): sleuth's perf backend does not open events per core
 * type, so it cannot run there. */
int sl_pmu_hybrid(void);
/* One line: "skl: 4 GP counters per thread (8, halved by SMT), 3 fixed;
 * ... -> 2 programmable" */
void sl_counter_plan_describe(const sl_counter_plan *p, char *buf, size_t len);

#endif
