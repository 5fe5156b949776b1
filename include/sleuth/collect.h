/*
 * Collection from a live program: the hardware ("perf") and software
 * ("timer") backends, the probe behind `--backend auto`, and reference
 * energy from RAPL.  The engine under both backends (libpfm4 encoding, the
 * perf ring reader, the session that starts the target and cuts intervals)
 * is internal: collect/session.h.
 */
#ifndef SLEUTH_COLLECT_H
#define SLEUTH_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include "sleuth/backend.h"
#include "sleuth/machine.h"

/* ---- the host's PMU (libpfm4) ------------------------------------------ */

/* Initialise libpfm4 once (honours LIBPFM_FORCE_PMU); 0 or -1. */
int sl_pfm_init(void);
/* Release libpfm4; the next call initialises it again (tests switch
 * LIBPFM_FORCE_PMU between calls). */
void sl_pfm_terminate(void);
/* The host's core PMU as libpfm4 detects it: 0 with its short name (e.g.
 * "nhm") and description ("Intel Nehalem"), or -1 with sl_error() when
 * libpfm4 knows no PMU for this CPU. */
int sl_pfm_host_pmu(const char **name, const char **desc);

/* 1 when event names an uncore PMU of libpfm4 by its prefix
 * ("nhm_unc::UNC_QMC_NORMAL_READS:ANY", "skx_unc_imc0::UNC_M_CAS_COUNT:RD"),
 * present on this host or not: such an event is counted by its own PMU,
 * beside the core's programmable counters, in every interval
 * (docs/hardware.md, "Uncore events"); 0 otherwise. */
int sl_pfm_uncore(const char *event);

/* ---- backends ----------------------------------------------------------- */

typedef struct sl_live_opts {
	char *const *argv;              /* program and arguments */
	/* perf: the events the models need (sl_machine_model_events), the
	 * programmable counters (machine.programmable) and, if the model names
	 * one, its branch_sample event (NULL: chosen by PMU). */
	const char *const *events;
	size_t n_events;
	size_t k;
	const char *branch_event;
	uint64_t interval_instructions; /* perf: 0 = 100M */
	uint64_t branch_period;         /* perf: 0 = SL_DEFAULT_BRANCH_PERIOD */
	double interval_s;              /* timer: task-clock per interval; 0 = 10 ms */
	double sample_hz;               /* timer: cpu-clock samples/s; 0 = default */
	int energy;                     /* record RAPL energy per interval, and
					 * the die temperature (hwmon) with it */
	const char *sysfs_root;         /* energy: RAPL and hwmon under this
					 * sysfs tree (tests: a fake one), no
					 * PAPI; NULL: /sys, PAPI first */
} sl_live_opts;

#define SL_DEFAULT_INTERVAL_INSTRUCTIONS 100000000ULL
#define SL_DEFAULT_BRANCH_PERIOD 20011ULL
#define SL_DEFAULT_TIMER_INTERVAL_S 0.010
#define SL_DEFAULT_TIMER_HZ 2000.0

/* NULL with sl_error() (e.g. no PMU, paranoid too high, unknown event,
 * program not found).  The target is not started until the first next(). */
sl_backend *sl_perf_backend_new(const sl_live_opts *o);
sl_backend *sl_timer_backend_new(const sl_live_opts *o);

/* Whether an event of this type and config opens on ourselves (user space
 * only): 1, or 0 with the reason (and what to do instead) in sl_error(). */
int sl_perf_probe(uint32_t type, uint64_t config, const char *name);
/* Whether hardware events open here (cycles): sl_perf_probe's answer. */
int sl_hw_available(void);

/* ---- reference energy (RAPL) ------------------------------------------ */

typedef struct sl_energy sl_energy;

/* Package (and where present core, DRAM) energy through PAPI's powercap or
 * rapl component, else /sys/class/powercap/intel-rapl:*.  NULL with
 * sl_error() when neither is readable. */
sl_energy *sl_energy_open(void);
/* The same with another powercap root (tests use a fake tree) and PAPI
 * optional. */
sl_energy *sl_energy_open_at(const char *powercap_root, int use_papi);
/* Cumulative joules since open, summed over packages (and DRAM when
 * present); wrap-around handled.  0 or -1. */
int sl_energy_read(sl_energy *e, double *joules);
/* "papi:powercap", "sysfs:intel-rapl" ... and the zones read. */
const char *sl_energy_source(const sl_energy *e);
void sl_energy_close(sl_energy *e);

#endif
