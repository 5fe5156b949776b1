/*
 * What sleuth learns about the machine it runs on, to write a
 * sleuth-machine/1 for it (`sleuth machine init`): the per-PMU event map
 * (data/pmus/pmus.yaml), cpufreq P-states and voltages from sysfs (or a copy
 * of it: tests use fake trees), and the memory latency measured by a
 * pointer chase.  Code in hw/.
 */
#ifndef SLEUTH_HW_H
#define SLEUTH_HW_H

#include <stddef.h>
#include <stdint.h>

#include "sleuth/machine.h"

/* ---- the event map (data/pmus/pmus.yaml, format sleuth-pmus/1) --------- */

typedef struct sl_pmu_entry {
	char **pmus;          /* libpfm4 PMU names */
	size_t n_pmus;
	char *family;         /* e.g. "skylake" */
	int counters;         /* programmable, per hardware thread */
	char *branch_sample;
	int precise;          /* highest precise_ip for branch_sample */
	sl_role *roles;       /* model roles other than branch_sample */
	size_t n_roles;
	char **prefetch;
	size_t n_prefetch;
	char **power;         /* candidate power terms */
	size_t n_power;
	char **dram_reads;    /* candidate uncore events for role dram_reads,
			       * first present first (optional, added
			       * 2026-11-26) */
	size_t n_dram_reads;
} sl_pmu_entry;

typedef struct sl_pmumap {
	sl_pmu_entry *e;
	size_t n;
	char *path;
} sl_pmumap;

/* path NULL: the shipped data/pmus/pmus.yaml. */
int sl_pmumap_load(const char *path, sl_pmumap *map);
/* The same from a buffer (`name` for messages): for fuzzing and tests. */
int sl_pmumap_load_mem(const char *name, const char *text, size_t len, sl_pmumap *map);
/* The entry listing `pmu`, or NULL (with sl_error() naming the PMUs known). */
const sl_pmu_entry *sl_pmumap_find(const sl_pmumap *map, const char *pmu);
void sl_pmumap_free(sl_pmumap *map);

/* ---- cpufreq, voltages, temperature from sysfs ------------------------- */

typedef struct sl_cpufreq {
	char *driver;      /* scaling_driver, or NULL */
	char *governor;    /* scaling_governor, or NULL */
	double *ghz;       /* P-states, descending */
	double *volts;     /* per P-state, or NULL when the platform exposes none */
	size_t n;
	const char *how;   /* where the P-states came from, for comments */
} sl_cpufreq;

/* The first line of ROOT/REL without its newline (malloc'd), or NULL. */
char *sl_sysfs_line(const char *root, const char *rel);
/* Reads ROOT/devices/system/cpu/cpu0/cpufreq (root "/sys" or a copy). */
int sl_cpufreq_read(const char *sysfs_root, sl_cpufreq *cf);
void sl_cpufreq_free(sl_cpufreq *cf);

/* Setting the frequency for a sweep.  open() saves every CPU's cpufreq
 * settings and arms SIGINT/SIGTERM/SIGHUP handlers that restore them;
 * restore() writes them back and disarms (call it on every path). */
typedef struct sl_cpufreq_ctl {
	char **dirs;     /* ROOT/devices/system/cpu/cpuN/cpufreq */
	size_t n;
	int userspace;   /* the userspace governor and scaling_setspeed exist */
	int active;
} sl_cpufreq_ctl;

int sl_cpufreq_ctl_open(sl_cpufreq_ctl *c, const char *sysfs_root);
int sl_cpufreq_ctl_set(sl_cpufreq_ctl *c, double ghz);
/* The frequency cpu0 reports (scaling_cur_freq, else what was set), GHz. */
double sl_cpufreq_ctl_current(const sl_cpufreq_ctl *c);
void sl_cpufreq_ctl_restore(sl_cpufreq_ctl *c);

/* Die temperature (deg C) of the first CPU hwmon sensor under ROOT/class/hwmon
 * (coretemp, k10temp, zenpower, cpu_thermal), NAN if none; *sensor (may be
 * NULL) gets its name, malloc'd. */
double sl_hwmon_temp_c(const char *sysfs_root, char **sensor);
/* The same in two steps, for reading often: the sensor's hwmon directory
 * (malloc'd; NULL if none), and its temperature now (NAN if unreadable). */
char *sl_hwmon_dir(const char *sysfs_root, char **sensor);
double sl_hwmon_read_c(const char *hwmon_dir);

/* The native training kernels of the sweep: run `name` for `seconds`
 * (0, or -1 for an unknown name); names by index, NULL past the last. */
int sl_train_kernel(const char *name, double seconds);
const char *sl_train_kernel_name(size_t i);

/* ---- memory latency ---------------------------------------------------- */

/* Mean latency of a dependent load chain through `bytes` of randomly linked
 * cache lines (each line visited once per round), in ns.  -1 on failure. */
double sl_chase_latency_ns(size_t bytes, double min_seconds);
/* A buffer size well beyond the last-level cache of ROOT's cpu0. */
size_t sl_chase_default_bytes(const char *sysfs_root);

/* ---- calibrate --sweep (hw/sweep.c) --------------------------------- */

typedef struct sl_sweep_opts {
	const char *sysfs_root;   /* NULL: /sys */
	const char *sim_machine;  /* sleuth-sim-machine/1: the simulator is the CPU;
				   * NULL: this machine (native kernels, perf) */
	const char *workdir;      /* runs and the idle log are written here */
	size_t intervals;         /* simulator: per run; 0: each workload's length */
	uint64_t seed;
	double seconds;           /* native: per kernel run; 0: 2 s */
	double idle_s;            /* native: idle pause per P-state; 0: 1 s */
} sl_sweep_opts;

typedef struct sl_sweep_run {
	char *workload;
	double ghz, ghz_read;     /* P-state set, and what cpufreq then reported */
	char *trace;              /* the run, with e per interval */
	double time_s, energy_j;  /* measured over the run */
	double rapl_j;            /* RAPL's count over the run, NAN without RAPL */
	double temp_c;            /* die temperature over it (mean of its ends),
				   * NAN without hwmon */
	int is_profile;           /* `trace` is a profile (native runs) */
} sl_sweep_run;

typedef struct sl_sweep {
	sl_sweep_run *runs;       /* P-state by P-state, the suite in order */
	size_t n;
	char *idle_log;           /* idle power per P-state */
	char *rapl_source;        /* NULL without RAPL */
	char *temp_sensor;        /* NULL without hwmon */
	int userspace;            /* set with the userspace governor (else min/max) */
} sl_sweep;

/* Run the training suite at every P-state of `skel`; cpufreq's settings are
 * restored before returning, and on SIGINT/SIGTERM/SIGHUP.  -1 with
 * sl_error(). */
int sl_sweep_run_all(const sl_machine *skel, const sl_sweep_opts *o, sl_sweep *out);
void sl_sweep_free(sl_sweep *s);
/* The time model against the sweep: each workload's run at m's fastest
 * P-state, replayed with m's events, predicts its time at every P-state;
 * mean_err[s] / worst_err[s] (m->n_pstates each) are the relative errors
 * against the runs measured there (NAN where none ran). */
int sl_sweep_check_time(const sl_sweep *sw, const sl_machine *m, uint64_t seed,
			double *mean_err, double *worst_err);

/* ---- a machine file for this CPU --------------------------------------- */

typedef struct sl_machine_init_opts {
	const char *sysfs_root; /* NULL: /sys */
	const char *pmu;        /* NULL: the PMU libpfm4 detects */
	const char *pmumap;     /* NULL: data/pmus/pmus.yaml */
	size_t chase_bytes;     /* 0: sl_chase_default_bytes() */
	const char *cpu_name;   /* NULL: /proc/cpuinfo's model name */
} sl_machine_init_opts;

/* Build a skeleton sleuth-machine/1 for this CPU in *m (free with
 * sl_machine_free); *comment (malloc'd) says where each part came from. */
int sl_machine_init(sl_machine *m, char **comment, const sl_machine_init_opts *o);
/* The same, loaded as if read from the file it would write (m->text set). */
int sl_machine_init_loaded(sl_machine *m, const sl_machine_init_opts *o);

/* Where `machine init` keeps the user's models: $XDG_DATA_HOME/sleuth/machines,
 * else ~/.local/share/sleuth/machines (malloc'd; NULL without HOME). */
char *sl_user_machines_dir(void);
/* The first (by name) FAMILY*.yaml in dir (case-blind prefix), malloc'd,
 * or NULL. */
char *sl_machine_find_in(const char *dir, const char *family);
/* The user's model for PMU `pmu`: the first (by name) FAMILY-*.yaml there,
 * FAMILY from the event map; NULL when none (no error set). */
char *sl_user_machine_find(const char *pmu);

#endif
