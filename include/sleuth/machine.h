/*
 * sleuth-machine/1 (docs/formats.md, sleuth-machine/1): what sleuth knows of a
 * processor.  Loaded whole (it is small); also parsed from a string because
 * profiles embed the machine model they were recorded with.
 */
#ifndef SLEUTH_MACHINE_H
#define SLEUTH_MACHINE_H

#include <stddef.h>

/* The largest |constant|, |coeff| or |temp_coeff| a machine file holds: a
 * power model beyond it is a fit gone wrong (an event too rare to carry a
 * coefficient), and calibrate never writes one. */
#define SL_MACHINE_MAX_COEFF 1e6

typedef struct sl_pstate {
	double ghz;
	double volts;      /* 0: not given (then none of the P-states has it) */
	int has_static;
	double static_w;
} sl_pstate;

typedef struct sl_role {
	char *role;   /* e.g. "stall_cycles" */
	char *event;  /* libpfm4 name, e.g. "UOPS_EXECUTED:CORE_STALL_CYCLES" */
} sl_role;

typedef struct sl_power_term {
	char *event;
	int has_coeff;
	double coeff; /* nF per (event count / cycle); nJ per event when energy */
	/* kind: energy (docs/formats.md): the term's energy is per event at a
	 * fixed voltage (the uncore, DRAM), P += coeff * 1e-9 * count / time,
	 * rather than effective capacitance switched at the core's f * V^2 */
	int energy;
	/* keep: auto (a skeleton's term, docs/formats.md): sleuth calibrate
	 * keeps it only if it lowers the leave-one-workload-out error */
	int keep_auto;
} sl_power_term;

/* time_error: (optional, written by sleuth calibrate) how far a time model's
 * per-phase time predicted from a run at from_ghz was from the time
 * measured at ghz, over the training runs: the root mean square and the
 * mean (signed, prediction / truth - 1) weighted by the phase's measured
 * time, and the worst |error|, over `phases` phases (docs/formats.md). */
typedef struct sl_time_error {
	char *model;  /* "stall", "mlp", "linear" */
	double from_ghz, ghz;
	size_t phases;
	double rms, mean, worst;
} sl_time_error;

typedef struct sl_machine {
	char *name;
	int programmable;          /* counters: {programmable: K} */
	double memory_latency_ns;
	sl_pstate *pstates;        /* sorted by ghz, descending (fmax first) */
	size_t n_pstates;
	sl_role *roles;            /* events: in file order */
	size_t n_roles;
	int has_power;             /* a power: section is present */
	int has_constant;          /* power.constant present (complete model) */
	double constant;           /* nF */
	sl_power_term *terms;
	size_t n_terms;
	char *text;                /* the file's text as loaded (for embedding) */
	/* Static power's temperature dependence (power: temp_ref_c, temp_coeff):
	 * static_w holds at temp_ref_c; at T it is static_w + temp_coeff * V *
	 * (T - temp_ref_c) (temp_coeff in W per volt per deg C), or, where the
	 * thermal block measured the leakage, static_w + L(T) - L(temp_ref_c).
	 * sl_machine_static_temp() gives the change. */
	int has_temp;
	double temp_ref_c, temp_coeff;
	/* thermal: (optional) the die as a first-order thermal RC and its
	 * leakage's rise per degree, measured from runs of a steady load
	 * (sleuth calibrate --thermal-only): at steady state the die lies
	 * k_per_w degrees C per watt above its surroundings, and approaches it
	 * with time constant tau_s; the leakage, at n_leak P-states
	 * (descending ghz) leak_w W at leak_ref_c, grows as exp(leak_per_c
	 * (T - leak_ref_c)). */
	int has_thermal;
	double thermal_k_per_w, thermal_tau_s;
	size_t n_leak;
	double leak_per_c, leak_ref_c;
	double *leak_ghz, *leak_w;
	/* power: floor: stalled (written by calibrate): the idle clamp is a
	 * core stalled in every cycle when negative cycle-count terms outweigh
	 * the constant (sl_model_ceff_floor); absent (static): static_w */
	int floor_stalled;
	/* memory: (optional) what probes measured of the memory system, for
	 * the mlp time model (docs/models.md): sustained bandwidth, and at
	 * some P-states (ascending ghz) the DRAM latency a pointer chase sees
	 * and the time an LLC hit costs; 0 / none when absent */
	int has_memory;
	double mem_bandwidth_gbps;
	size_t n_mem_latency;
	double *mem_latency_ghz, *mem_latency_ns, *mem_llc_ns;
	/* the latency of an exposed LLC hit (a dependent walk in the LLC) at
	 * each latency point; 0 when not measured */
	double *mem_llc_chase_ns;
	/* loaded latency at fmax: the latency demand misses see at a DRAM
	 * traffic (GB/s), ascending traffic */
	size_t n_mem_loaded;
	double *mem_loaded_gbps, *mem_loaded_ns;
	/* what the stall_cycles event counts besides the stalls on misses, as
	 * probes measured it (memory: stall_llc_share, stall_per_mispredict):
	 * the share of an LLC hit's cycles, and cycles per mispredict; the mlp
	 * model separates the other stalls under a miss with them */
	int has_stall_probe;
	double mem_stall_llc_share, mem_stall_mispredict;
	/* the DRAM reads of other agents on the socket that the memory
	 * controller's counter (role dram_reads) counts too, GB/s, as a probe
	 * that reads no DRAM measured them (memory: background_gbps); 0 when
	 * not measured */
	double mem_background_gbps;
	size_t n_time_error;
	sl_time_error *time_error;
} sl_machine;

int sl_machine_load(const char *path, sl_machine *m);
int sl_machine_load_mem(const char *name, const char *text, size_t len, sl_machine *m);
/* A skeleton is acceptable (no static_w, power absent or without coeffs);
 * sl_machine_complete() tells whether the power model can be evaluated. */
int sl_machine_complete(const sl_machine *m); /* 1 or 0 with sl_error() */
/* `comment` becomes leading '#' lines (e.g. "fitted by sleuth calibrate ..."). */
int sl_machine_write(const char *path, const sl_machine *m, const char *comment);
void sl_machine_free(sl_machine *m);

/* 1 if the P-states carry voltages (all do or none does). */
int sl_machine_has_volts(const sl_machine *m);
/* The thermal block's leakage at an operating point of `ghz` and `volts`
 * (0 when the machine has no voltages) and die temperature temp_c, W: its
 * points' leakage, log-linear in the voltage (the frequency without
 * voltages) between and beyond them, times exp(leak_per_c (temp_c -
 * leak_ref_c)); 0 without one. */
double sl_machine_leakage(const sl_machine *m, double ghz, double volts, double temp_c);
/* What static power gains from power: temp_ref_c to temp_c at that
 * operating point (W; negative below): the leakage's change where the
 * thermal block measured it, else temp_coeff * volts * (temp_c -
 * temp_ref_c); 0 without a temperature term. */
double sl_machine_static_temp(const sl_machine *m, double ghz, double volts, double temp_c);
/* 1 if `role` is a model role of sleuth-machine/1 events:. */
int sl_machine_known_role(const char *role);
/* The event playing `role`, or NULL. */
const char *sl_machine_role(const sl_machine *m, const char *role);
/* 1 if the machine names `event` in one of these roles. */
int sl_machine_role_in(const sl_machine *m, const char *event, const char *const *roles,
		       size_t n_roles);
/* 1 if the machine names `event` in a role that counts cycles in which
 * something holds (stalls, misses outstanding) rather than events. */
int sl_machine_counts_cycles(const sl_machine *m, const char *event);
/* Every distinct event the models need (roles except branch_sample, then
 * power terms), in a stable order.  Returns the count; *out is malloc'd
 * (the strings point into m). */
size_t sl_machine_model_events(const sl_machine *m, const char ***out);
/* Index of the P-state with this frequency (within 0.5 MHz), or -1. */
int sl_machine_pstate(const sl_machine *m, double ghz);
double sl_machine_fmax(const sl_machine *m);
double sl_machine_fmin(const sl_machine *m);
/* The DRAM latency (ns) at `ghz` from memory: latency: (linear between
 * the measured points, constant beyond them), else memory_latency_ns. */
double sl_machine_mem_latency(const sl_machine *m, double ghz);
/* The time (ns) an LLC hit costs at `ghz`, the same way; 0 when unknown. */
double sl_machine_llc_hit(const sl_machine *m, double ghz);
/* An exposed LLC hit's latency (ns) at ghz (memory: latency: llc_chase_ns,
 * interpolated); 0 unless every latency point has one. */
double sl_machine_llc_chase(const sl_machine *m, double ghz);
/* How much longer the DRAM latency is at `gbps` of traffic than at the
 * lightest load measured (memory: loaded:, linear between points,
 * constant beyond): 1 when unknown. */
double sl_machine_mem_queueing(const sl_machine *m, double gbps);

#endif
