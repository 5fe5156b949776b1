/*
 * Reference power logs (docs/formats.md): a meter's, RAPL's or the
 * simulator's power time series in CSV, and the idle log that gives static
 * power per P-state.  `sleuth calibrate` integrates a log over each profiled
 * interval to get the interval's measured energy.
 */
#ifndef SLEUTH_POWERLOG_H
#define SLEUTH_POWERLOG_H

#include <stddef.h>

/* The column read when none is named. */
#define SL_POWERLOG_DEFAULT_COLUMN "power_w"
/* The optional die-temperature column, degrees C. */
#define SL_POWERLOG_TEMP_COLUMN "temp_c"

typedef struct sl_powerlog {
	char *path;
	char *column;   /* the power column used */
	size_t n;       /* rows, >= 2 */
	double *t;      /* seconds on the profile's clock (offset applied),
			 * strictly increasing */
	double *p;      /* watts */
	double *temp_c; /* die temperature per row, degrees C; NULL when the log
			 * has no temp_c column */
	double *cum;    /* cum[i]: joules from t[0] to t[i] (trapezoids) */
	double spacing; /* median time between rows, seconds */
} sl_powerlog;

/*
 * Read a power log.  `column` is the power column (NULL: power_w); `offset`
 * is the log's time at which the profiled run started (--log-offset): a row
 * at log time x is at profile time x - offset.  Every bad row is an error
 * "FILE:LINE: ...".  0, or -1 with sl_error() set.
 */
int sl_powerlog_read(sl_powerlog *log, const char *path, const char *column,
		     double offset);
/* The same from a buffer; `name` is used in messages. */
int sl_powerlog_read_mem(sl_powerlog *log, const char *name, const char *text,
			 size_t len, const char *column, double offset);
void sl_powerlog_free(sl_powerlog *log);

/*
 * Energy in joules over [a, b] (profile clock, a <= b): the exact integral
 * of the piecewise-linear series, end points interpolated.  Returns 1 with
 * *joules set, or 0 if the log does not cover all of [a, b].
 */
int sl_powerlog_energy(const sl_powerlog *log, double a, double b, double *joules);
/* The mean die temperature over [a, b] the same way (the value at a when
 * a == b): 1 with *temp_c set, 0 if the log has no temp_c column or does
 * not cover [a, b]. */
int sl_powerlog_temp(const sl_powerlog *log, double a, double b, double *temp_c);

/* Idle log: `ghz,power_w` rows, averaged per P-state. */
typedef struct sl_idlelog {
	char *path;
	size_t n;        /* distinct P-states, fastest first */
	double *ghz;
	double *power_w; /* mean of the rows of this P-state */
	int *line;       /* first row of this P-state, for messages */
} sl_idlelog;

int sl_idlelog_read(sl_idlelog *il, const char *path, const char *column);
int sl_idlelog_read_mem(sl_idlelog *il, const char *name, const char *text,
			size_t len, const char *column);
void sl_idlelog_free(sl_idlelog *il);

#endif
