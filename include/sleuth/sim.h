/*
 * The simulator (`sleuth simulate`): sleuth's stand-in for PMU hardware.
 *
 * A workload (named phases with code and behaviour, and a sequence of phase
 * instances) runs on a simulated machine (P-states, truth parameters, the PMU
 * events it exposes).  The physics is deliberately richer than sleuth's own
 * models (docs/simulator.md), so that prediction
 * errors measured against it mean something.
 *
 * Every interval is a pure function of (machine, workload, seed, interval
 * index, frequency): random draws are keyed by (seed, interval), never by
 * frequency, so the same seed at two frequencies runs the same program and a
 * later schedule can run every interval at its own frequency.
 */
#ifndef SLEUTH_SIM_H
#define SLEUTH_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "sleuth/trace.h"

/* The quantities the physics produces; a machine's exposed PMU events each
 * count one of them. */
enum sl_sim_qty {
	SL_Q_CYCLES,          /* unhalted core cycles */
	SL_Q_INSTRUCTIONS,    /* retired instructions */
	SL_Q_STALL_CYCLES,    /* cycles without uop dispatch (memory and other) */
	SL_Q_LLC_MISSES,      /* last-level cache misses (off-chip accesses) */
	SL_Q_L2_MISSES,       /* L2 misses = LLC references (LLC hits + misses) */
	SL_Q_L2_REFERENCES,   /* L2 references */
	SL_Q_RESOURCE_STALLS, /* cycles stalled on a full ROB/RS/load/store buffer */
	SL_Q_MEMORY_UOPS,     /* executed load and store uops */
	SL_Q_FP_OPS,          /* floating-point operations */
	SL_Q_MISPREDICTS,     /* mispredicted branches */
	SL_Q_COND_BRANCHES,   /* retired conditional branches */
	SL_Q_UOPS,            /* retired uops */
	/* optional (docs/simulator.md, "Harder physics"); zero unless the
	 * machine and workload enable the effects that produce them */
	SL_Q_PREFETCHES,      /* hardware prefetches sent to DRAM (not LLC misses) */
	SL_Q_OFFCORE_CYCLES,  /* cycles with at least one demand miss outstanding */
	SL_Q_OFFCORE_OCCUPANCY, /* demand misses outstanding, summed over cycles */
	SL_Q_MISS_STALLS,     /* cycles stalled with a demand miss outstanding */
	SL_Q_DRAM_READS,      /* lines the memory controller read (uncore):
			       * demand misses, prefetches, other agents' */
	SL_Q_N
};

/* The name of a quantity as written in a simulated machine's `events:`. */
const char *sl_sim_qty_name(int q);

/* ---- simulated machine (sleuth-sim-machine/1) --------------------------- */

typedef struct sl_sim_truth {
	double mispredict_penalty;  /* cycles per mispredicted branch */
	double llc_hit_core_cycles; /* core-clock part of an LLC hit's latency */
	double llc_hit_uncore_ns;   /* uncore-clock part (fixed time) */
	double llc_hit_exposed;     /* fraction of LLC-hit latency not overlapped */
	double memory_ns;           /* DRAM latency of one miss cluster */
	double rob_fill_cycles;     /* cycles of work the ROB hides per cluster */
	/* stall counter: shares of other stall sources it also counts */
	double stall_mispredict_share;
	double stall_llc_hit_share;
	/* resource-stall counter: shares of each stall source it sees */
	double resource_memory_share;
	double resource_llc_hit_share;
	double resource_dep_share;
	/* static power: base_w + leak_w * (V/leak_vref) * exp(leak_per_volt*(V-leak_vref)) */
	double static_base_w;
	double leak_w;
	double leak_vref;
	double leak_per_volt;
	/* effective capacitance (nF), activity rates per cycle */
	double ceff_base_nf;
	double ceff_uops_nf;        /* times uops_saturation*(1-exp(-u/uops_saturation)) */
	double uops_saturation;     /* uops per cycle at which the uop term saturates */
	double ceff_l2_nf;          /* per L2 reference per cycle */
	double ceff_llc_nf;         /* per LLC miss per cycle */
	double ceff_fp_nf;          /* per FP op per cycle */
	double ceff_mispredict_nf;  /* per mispredict per cycle */
	double ceff_noise;          /* lognormal sigma of Ceff per interval part */
	double idle_ceff_nf;        /* Ceff of an idle core (idle log) */
	/* the power meter */
	double meter_hz;            /* samples per second */
	double meter_noise_w;       /* Gaussian noise sigma per sample */
	double idle_seconds;        /* length of the idle log per P-state */
	/* harder physics, all optional: the defaults (0) turn each effect off */
	double dram_gbps;           /* sustained DRAM bandwidth, GB/s (0: unlimited) */
	double line_bytes;          /* bytes per miss or prefetch (64) */
	double queue_gain;          /* latency growth with DRAM utilisation */
	double uncore_ratio;        /* uncore clock = min(uncore_max_ghz, ratio*f); 0: fixed */
	double uncore_max_ghz;      /* the uncore clock the *_uncore_ns are given at */
	double memory_uncore_ns;    /* part of the DRAM latency on the uncore clock */
	double rob_entries;         /* ROB size: hidden work = entries*cpi_core (0: rob_fill_cycles) */
	/* power that does not scale with f*V^2 (docs/simulator.md, "Harder
	 * physics"), all optional, 0 = off: the uncore and DRAM at a fixed
	 * voltage, and a core that clock-gates while stalled on memory */
	double uncore_static_w;     /* uncore static power at uncore_max_ghz (W) */
	double llc_access_nj;       /* energy per LLC access (hit or miss), nJ */
	double dram_line_nj;        /* energy per line moved to or from DRAM, nJ */
	double writeback_share;     /* dirty lines written back per line read */
	double dram_background_gbps; /* other agents' DRAM reads on the socket */
	double stall_gate_share;    /* share of dynamic core power gated while stalled on memory */
} sl_sim_truth;

typedef struct sl_sim_event {
	char *name; /* PMU event name written to the trace */
	int qty;    /* enum sl_sim_qty */
} sl_sim_event;

typedef struct sl_sim_machine {
	char *name;
	int programmable;
	double *ghz;        /* P-states, descending */
	double *volts;
	size_t n_pstates;
	sl_sim_event *events; /* trace order */
	size_t n_events;
	sl_sim_truth truth;
} sl_sim_machine;

int sl_sim_machine_load(const char *path, sl_sim_machine *m);
void sl_sim_machine_free(sl_sim_machine *m);
/* Index of the P-state at `ghz` (within 0.5 MHz), or -1 with sl_error()
 * listing the available ones. */
int sl_sim_machine_pstate(const sl_sim_machine *m, double ghz);
/* Static power and idle power (W) at a voltage / P-state. */
double sl_sim_static_w(const sl_sim_machine *m, double volts);
/* The uncore's static power at core frequency `ghz` (W): uncore_static_w,
 * following the uncore clock when it has one; 0 when off. */
double sl_sim_uncore_w(const sl_sim_machine *m, double ghz);
double sl_sim_idle_w(const sl_sim_machine *m, double ghz, double volts);

/* ---- workload (sleuth-workload/1) --------------------------------------- */

/* Behaviour parameters of a phase (docs/simulator.md lists their meaning). */
enum sl_sim_param {
	SL_P_CPI_CORE,
	SL_P_BRANCH_FRACTION,
	SL_P_MISPREDICT_RATE,
	SL_P_FP_FRACTION,
	SL_P_MEMORY_FRACTION,
	SL_P_UOPS_PER_INSTRUCTION,
	SL_P_L2_PKI,
	SL_P_LLC_HITS_PKI,
	SL_P_LLC_MISSES_PKI,
	SL_P_MLP,
	SL_P_DEP_STALL_FRACTION,
	SL_P_NOISE,
	SL_P_DRIFT,
	SL_P_DRIFT_PERIOD,
	SL_P_BRANCHES,
	SL_P_ZIPF,
	SL_P_SHARED,
	SL_P_BRANCH_NOISE,
	/* optional, docs/simulator.md "Harder physics"; defaults keep the
	 * basic physics */
	SL_P_PREFETCH_PKI,
	SL_P_RESOURCE_STALL_FRACTION,
	SL_P_CODE_DRIFT,
	SL_P_RAMP,
	SL_P_N
};
const char *sl_sim_param_name(int p);

typedef struct sl_sim_phase {
	char *name;
	double p[SL_P_N];
	/* code, laid out by sl_sim_prepare(): branch addresses ascending, with
	 * their Zipf-like weights */
	uint64_t *addr;
	double *weight;
	double *zcode;      /* per-branch normal scaling the code drift (or NULL) */
	size_t n_br;
	int code_of;        /* `code: NAME`: runs that phase's code (-1: its own) */
} sl_sim_phase;

typedef struct sl_sim_workload {
	char *name;
	uint64_t interval_instructions;
	size_t shared_branches;   /* size of the pool phases share addresses from */
	sl_sim_phase *phases;
	size_t n_phases;
	uint32_t *phase_of;       /* the flattened sequence: phase of each interval */
	size_t n_intervals;
} sl_sim_workload;

int sl_sim_workload_load(const char *path, sl_sim_workload *w);
void sl_sim_workload_free(sl_sim_workload *w);

/* ---- the physics ----------------------------------------------------------- */

typedef struct sl_sim {
	const sl_sim_machine *m;
	sl_sim_workload *w;  /* its phases' code is laid out for `seed` */
	uint64_t seed;
	size_t n_intervals;  /* run length; the sequence repeats to fill it */
} sl_sim;

/* Lays out the workload's code for this seed (branch addresses, shared
 * ones, Zipf weights).  n_intervals 0 means the workload's own length. */
void sl_sim_prepare(sl_sim *s, const sl_sim_machine *m, sl_sim_workload *w,
		    uint64_t seed, size_t n_intervals);

/* One phase's share of an interval (the first interval of an instance has
 * two: the end of the previous phase, then the start of the new one). */
typedef struct sl_sim_part {
	size_t phase;
	uint64_t instructions;
	double seconds;
	double watts;       /* true mean power over the part */
	/* cycle breakdown (truth) */
	double core_cycles, branch_cycles, llc_hit_cycles, memory_cycles;
	double ceff_nf;
} sl_sim_part;

typedef struct sl_sim_interval {
	const char *label;  /* phase holding most of the interval's instructions */
	size_t phase;
	uint64_t q[SL_Q_N];
	double t;           /* true seconds */
	double e;           /* true joules */
	sl_sim_part part[2];
	int n_parts;
	sl_branch *br;      /* histogram, addresses ascending */
	size_t n_br;
	size_t cap_br;      /* owned storage */
} sl_sim_interval;

/* Scratch that makes sl_sim_interval() allocation-free; its contents never
 * influence the result. */
typedef struct sl_sim_ctx sl_sim_ctx;
sl_sim_ctx *sl_sim_ctx_new(const sl_sim *s);
void sl_sim_ctx_free(sl_sim_ctx *c);

/* Simulate interval `index` at `ghz` (volts from the machine's P-state).
 * Pure: the result depends only on (s, index, ghz). */
void sl_sim_interval_run(const sl_sim *s, sl_sim_ctx *c, size_t index, double ghz,
			 double volts, sl_sim_interval *out);
void sl_sim_interval_free(sl_sim_interval *iv);
/* Deep copy (for queues). */
void sl_sim_interval_copy(sl_sim_interval *dst, const sl_sim_interval *src);

/* ---- a whole run ----------------------------------------------------------- */

struct sl_sim_totals;
typedef struct sl_sim_run_opts {
	double ghz;                 /* the run's frequency (a P-state) */
	const char *trace_path;     /* sleuth-trace/1 output */
	const char *power_log;      /* CSV, or NULL */
	const char *idle_log;       /* CSV, or NULL */
	int truth;                  /* e = exact energy instead of the meter's */
	/* A frequency per interval (`simulate --schedule`): n_intervals P-state
	 * indices of the machine, from sl_sim_plan(); NULL: all at ghz, which
	 * the trace's header keeps either way.  With a plan every interval also
	 * carries its own `ghz:` (docs/simulator.md, "Schedules"). */
	const int *pstate_of;
	double switch_s;            /* time of one frequency switch (0: free) */
	struct sl_sim_totals *totals; /* filled when not NULL */
} sl_sim_run_opts;

/* What a run wrote, summed: the trace's t and e (switches included), and
 * the number of frequency changes along the plan. */
typedef struct sl_sim_totals {
	double time_s, energy_j;
	size_t switches;
} sl_sim_totals;

/* Simulates every interval and writes the outputs; all appear whole or
 * not at all.  0 or -1 with sl_error(). */
int sl_sim_run(const sl_sim *s, const sl_sim_run_opts *o);

/* The P-state of every interval when phase p runs at phase_ghz[p] (0: not
 * scheduled, an error); phase[i] is interval i's phase.  Instances shorter
 * than min_instance_s (time_s summed; time_s may be NULL if that is 0) keep
 * the previous instance's frequency, base_ghz at the start.  0, or -1 with
 * sl_error() naming the phase or the frequency that is not a P-state. */
int sl_sim_plan(const sl_sim_machine *m, const uint32_t *phase, const double *time_s,
		size_t n, const double *phase_ghz, size_t n_phase_ghz, double base_ghz,
		double min_instance_s, int *pstate_of);

/* Write the idle log (docs/formats.md, power log) alone. */
int sl_sim_write_idle_log(const sl_sim_machine *m, uint64_t seed, const char *path);

#endif
