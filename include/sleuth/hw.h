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
} sl_pmu_entry;

typedef struct sl_pmumap {
	sl_pmu_entry *e;
	size_t n;
	char *path;
} sl_pmumap;

/* path NULL: the shipped data/pmus/pmus.yaml. */
int sl_pmumap_load(const char *path, sl_pmumap *map);
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

/* ---- memory latency ---------------------------------------------------- */

/* Mean latency of a dependent load chain through `bytes` of randomly linked
 * cache lines (each line visited once per round), in ns.  -1 on failure. */
double sl_chase_latency_ns(size_t bytes, double min_seconds);
/* A buffer size well beyond the last-level cache of ROOT's cpu0. */
size_t sl_chase_default_bytes(const char *sysfs_root);

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

#endif
