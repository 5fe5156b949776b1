/*
 * The outputs of `sleuth schedule`: the human table, JSON, the
 * sleuth-schedule/1 file and a GEOPM frequency_map policy.
 */
#ifndef SLEUTH_SCHEDULE_PRINT_H
#define SLEUTH_SCHEDULE_PRINT_H

#include <stdio.h>

#include "sleuth/schedule.h"

typedef struct sched_report {
	const sl_sched_table *tab;
	const sl_sched_opts *opts;
	const sl_sched_result *res;
	const char *profile;      /* as given on the command line */
	const char *machine;      /* the machine's name, "-" if unknown */
	double transition_us;     /* as given (exact in the file) */
	double min_instance_ms;
	double *base_phase_s;     /* per phase at the baseline */
	double *base_phase_j;
	double confidence;        /* 0: planned on the point prediction */
	const char *sigma_from;   /* where the error estimate came from */
	int has_point;            /* point: the schedule planned without a margin */
	sl_sched_eval point;
} sched_report;

/* Fill `f` (arrays malloc'd; free with sl_schedule_file_free). */
void sched_to_file(const sched_report *r, sl_schedule_file *f);
void sched_print_table(FILE *out, const sched_report *r);
void sched_print_json(FILE *out, const sched_report *r);
void sched_print_geopm(FILE *out, const sched_report *r);
/* GEOPM's region hash of a name: CRC-32 (as zlib's crc32) of its bytes. */
uint32_t sched_geopm_hash(const char *name);

#endif
