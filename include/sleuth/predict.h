/*
 * Writing predictions: the tables of `sleuth predict` (CSV and JSON as in
 * docs/formats.md, prediction table, and the human table).  Rows are streamed: one
 * frequency at a time, so a million-interval profile at every P-state
 * never holds more than one frequency's predictions.
 */
#ifndef SLEUTH_PREDICT_H
#define SLEUTH_PREDICT_H

#include <stdio.h>

#include "sleuth/model.h"

typedef enum { SL_PER_INTERVAL, SL_PER_INSTANCE, SL_PER_PHASE } sl_per;
typedef enum { SL_FMT_TABLE, SL_FMT_CSV, SL_FMT_JSON } sl_fmt;

int sl_per_parse(const char *s, sl_per *per);   /* -1 with sl_error() */
int sl_fmt_parse(const char *s, sl_fmt *fmt);   /* -1 with sl_error() */
const char *sl_per_name(sl_per per);

/* What the header of the human table names (any may be NULL). */
typedef struct sl_predict_info {
	const char *profile_path;
	const char *machine_origin; /* "embedded in the profile" or a path */
} sl_predict_info;

/* Clamps over everything written, for the caller to report. */
typedef struct sl_predict_stats {
	uint64_t predictions;    /* interval predictions made */
	uint64_t clamped_idle;
	uint64_t clamped_peak;
} sl_predict_stats;

/*
 * Predict at each operating point and write the rows.  Without a power
 * model (SL_MODEL_TIME_ONLY) power and energy are empty (CSV), null (JSON)
 * or "-" (table).  -1 with sl_error() on a write error.
 */
int sl_predict_write(FILE *f, const sl_model *md, const sl_opoint *ops, size_t n_ops,
		     sl_per per, sl_fmt fmt, const sl_predict_info *info,
		     sl_predict_stats *stats);

#endif
