/*
 * Power logs and idle logs (docs/formats.md).  Both are small
 * numeric CSV files with '#' comments and a header row naming the columns;
 * one reader serves both, keeping only the columns asked for so that other
 * rails in the file may hold anything.  A power log keeps a running integral
 * so that the energy of any interval costs two binary searches.
 */
#include "sleuth/powerlog.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "formats/csv.h"
#include "sleuth/common.h"

typedef struct csv_cols {
	const char *want[3];     /* column names to keep */
	size_t n_want;
	size_t n_required;       /* the first n_required of them must be there */
	const char *hint;        /* appended when a column is missing */
	double **col;            /* out: n_want arrays of nrows (NULL: an optional
				  * column not in the file) */
	int *lines;              /* out: line of each row */
	size_t nrows;
} csv_cols;

#define CSV_MAX_FIELDS 256
#define MAX_IDLE_PSTATES 1024

/*
 * Read the wanted numeric columns of a CSV stream.  Errors name the file and
 * line; the caller owns the arrays (also on error, after csv_free).
 */
static int csv_read(FILE *f, const char *name, csv_cols *c)
{
	char *buf = NULL, *fld[CSV_MAX_FIELDS];
	size_t cap = 0, rcap = 0, nhead = 0, idx[SL_ARRAY_LEN(c->want)];
	int lineno = 0, rc = -1;
	ssize_t len;

	c->col = sl_xcalloc(c->n_want, sizeof *c->col);
	c->lines = NULL;
	c->nrows = 0;
	while ((len = getline(&buf, &cap, f)) >= 0) {
		lineno++;
		char *s = buf;
		/* A UTF-8 byte-order mark, as spreadsheets write: not data. */
		if (lineno == 1 && !strncmp(s, "\xef\xbb\xbf", 3))
			s += 3;
		s = sl_csv_trim(s, 0);
		if (!*s || *s == '#')
			continue;
		if (!nhead) {
			nhead = sl_csv_split(s, fld, CSV_MAX_FIELDS, 1);
			if (nhead > CSV_MAX_FIELDS) {
				sl_error_set("%s:%d: more than %d columns", name, lineno,
					     CSV_MAX_FIELDS);
				goto out;
			}
			for (size_t w = 0; w < c->n_want; w++) {
				size_t k = 0;
				while (k < nhead && strcmp(fld[k], c->want[w]))
					k++;
				if (k == nhead && w >= c->n_required) {
					idx[w] = SIZE_MAX;
					continue;
				}
				if (k == nhead) {
					sl_error_set("%s:%d: the header row has no column '%s'%s",
						     name, lineno, c->want[w], c->hint);
					goto out;
				}
				idx[w] = k;
			}
			continue;
		}
		size_t nf = sl_csv_split(s, fld, CSV_MAX_FIELDS, 0);
		if (nf != nhead) {
			sl_error_set("%s:%d: %zu fields, but the header row has %zu; "
				     "every row needs one value per column",
				     name, lineno, nf, nhead);
			goto out;
		}
		if (c->nrows == rcap) {
			rcap = rcap ? 2 * rcap : 1024;
			for (size_t w = 0; w < c->n_want; w++)
				if (idx[w] != SIZE_MAX)
					c->col[w] = sl_xreallocarray(c->col[w], rcap,
								     sizeof(double));
			c->lines = sl_xreallocarray(c->lines, rcap, sizeof(int));
		}
		for (size_t w = 0; w < c->n_want; w++)
			if (idx[w] != SIZE_MAX &&
			    sl_parse_double(fld[idx[w]], &c->col[w][c->nrows]) < 0) {
				sl_error_prefix("%s:%d: column '%s': ", name, lineno,
						c->want[w]);
				goto out;
			}
		c->lines[c->nrows++] = lineno;
	}
	if (ferror(f)) {
		sl_error_set("%s: read error: %s", name, strerror(errno));
		goto out;
	}
	if (!nhead) {
		sl_error_set("%s: no header row; the first line that is not a '#' "
			     "comment must name the columns, e.g. time_s,power_w", name);
		goto out;
	}
	if (!c->nrows) {
		sl_error_set("%s: no data rows after the header", name);
		goto out;
	}
	rc = 0;
out:
	free(buf);
	return rc;
}

static void csv_free(csv_cols *c)
{
	if (c->col)
		for (size_t w = 0; w < c->n_want; w++)
			free(c->col[w]);
	free(c->col);
	free(c->lines);
	c->col = NULL;
	c->lines = NULL;
}

/* Open a file or an in-memory buffer as a stream. */
static FILE *open_src(const char *path, const char *text, size_t len)
{
	FILE *f = text ? fmemopen((void *)text, len, "r") : fopen(path, "r");
	if (!f)
		sl_error_set("cannot open %s: %s", path, strerror(errno));
	else if (!text)
		sl_input_note(f);
	return f;
}

/* Read a key column, a power column and, when the file has it, the
 * temperature column from a file or buffer. */
static int read_cols(const char *path, const char *text, size_t len, const char *key,
		     const char *column, const char *what, csv_cols *c)
{
	char hint[160];
	snprintf(hint, sizeof hint, "; %s needs %s and the power column (power_w, "
		 "or the one named with --column)", what, key);
	*c = (csv_cols){{key, column, SL_POWERLOG_TEMP_COLUMN}, 3, 2, hint, NULL, NULL, 0};
	FILE *f = open_src(path, text, len);
	if (!f)
		return -1;
	int rc = csv_read(f, path, c);
	fclose(f);
	return rc;
}

static int powerlog_load(sl_powerlog *log, const char *path, const char *text,
			 size_t len, const char *column, double offset)
{
	memset(log, 0, sizeof *log);
	if (!column)
		column = SL_POWERLOG_DEFAULT_COLUMN;
	csv_cols c;
	int rc = read_cols(path, text, len, "time_s", column, "a power log", &c);
	if (rc == 0 && c.nrows < 2) {
		sl_error_set("%s: only one data row; a power log needs at least two "
			     "to integrate", path);
		rc = -1;
	}
	for (size_t i = 0; rc == 0 && c.col[2] && i < c.nrows; i++)
		if (!(c.col[2][i] > -273.15)) {
			sl_error_set("%s:%d: column '%s': %g is below absolute zero; "
				     "temperatures are in degrees C", path, c.lines[i],
				     SL_POWERLOG_TEMP_COLUMN, c.col[2][i]);
			rc = -1;
		}
	for (size_t i = 1; rc == 0 && i < c.nrows; i++)
		if (!(c.col[0][i] > c.col[0][i - 1])) {
			sl_error_set("%s:%d: time_s %g does not come after the previous "
				     "row's %g; rows must be in strictly increasing time",
				     path, c.lines[i], c.col[0][i], c.col[0][i - 1]);
			rc = -1;
		}
	if (rc < 0) {
		csv_free(&c);
		return -1;
	}
	log->path = sl_xstrdup(path);
	log->column = sl_xstrdup(column);
	log->n = c.nrows;
	log->t = c.col[0];
	log->p = c.col[1];
	log->temp_c = c.col[2];
	free(c.col);
	free(c.lines);
	log->cum = sl_xmalloc(log->n * sizeof *log->cum);
	double *dt = sl_xmalloc((log->n - 1) * sizeof *dt);
	log->cum[0] = 0;
	for (size_t i = 0; i < log->n; i++) {
		log->t[i] -= offset;
		if (i) {
			dt[i - 1] = log->t[i] - log->t[i - 1];
			log->cum[i] = log->cum[i - 1] +
				      0.5 * dt[i - 1] * (log->p[i] + log->p[i - 1]);
		}
	}
	gsl_sort(dt, 1, log->n - 1);
	log->spacing = gsl_stats_median_from_sorted_data(dt, 1, log->n - 1);
	free(dt);
	return 0;
}

int sl_powerlog_read(sl_powerlog *log, const char *path, const char *column,
		     double offset)
{
	return powerlog_load(log, path, NULL, 0, column, offset);
}

int sl_powerlog_read_mem(sl_powerlog *log, const char *name, const char *text,
			 size_t len, const char *column, double offset)
{
	return powerlog_load(log, name, text, len, column, offset);
}

void sl_powerlog_free(sl_powerlog *log)
{
	free(log->path);
	free(log->column);
	free(log->t);
	free(log->p);
	free(log->temp_c);
	free(log->cum);
	memset(log, 0, sizeof *log);
}

/* The row lo with t[lo] <= x <= t[lo + 1] (t[0] <= x <= t[n-1]). */
static size_t row_before(const sl_powerlog *log, double x)
{
	size_t lo = 0, hi = log->n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (log->t[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Integral from t[0] to x (t[0] <= x <= t[n-1]): the running sum up to the
 * row before x plus the trapezoid to x's interpolated power. */
static double integral_to(const sl_powerlog *log, double x)
{
	size_t lo = row_before(log, x), hi = lo + 1;
	double t0 = log->t[lo], p0 = log->p[lo];
	double px = p0 + (log->p[hi] - p0) * (x - t0) / (log->t[hi] - t0);
	return log->cum[lo] + 0.5 * (x - t0) * (p0 + px);
}

int sl_powerlog_energy(const sl_powerlog *log, double a, double b, double *joules)
{
	/* End points computed as start + duration may overshoot the log's
	 * ends by rounding: a nanosecond is forgiven. */
	double lo = log->t[0], hi = log->t[log->n - 1];
	if (!(a >= lo - 1e-9 && b <= hi + 1e-9 && a <= b))
		return 0;
	a = SL_MAX(a, lo);
	b = SL_MIN(b, hi);
	*joules = integral_to(log, b) - integral_to(log, a);
	return 1;
}

/* The temperature series at x (linear between rows); *row: the row at or
 * before x. */
static double temp_at(const sl_powerlog *log, double x, size_t *row)
{
	size_t lo = row_before(log, x), hi = lo + 1;
	*row = lo;
	double t0 = log->t[lo], v0 = log->temp_c[lo];
	return v0 + (log->temp_c[hi] - v0) * (x - t0) / (log->t[hi] - t0);
}

int sl_powerlog_temp(const sl_powerlog *log, double a, double b, double *temp_c)
{
	double lo = log->t[0], hi = log->t[log->n - 1];
	if (!log->temp_c || !(a >= lo - 1e-9 && b <= hi + 1e-9 && a <= b))
		return 0;
	a = SL_MAX(a, lo);
	b = SL_MIN(b, hi);
	size_t r;
	double va = temp_at(log, a, &r);
	if (b - a <= 0) {
		*temp_c = va;
		return 1;
	}
	/* trapezoids from a through the rows inside (a, b) to b */
	double sum = 0, x = a, v = va;
	for (size_t i = r + 1; i < log->n && log->t[i] < b; i++) {
		sum += 0.5 * (log->t[i] - x) * (v + log->temp_c[i]);
		x = log->t[i];
		v = log->temp_c[i];
	}
	size_t rb;
	double vb = temp_at(log, b, &rb);
	sum += 0.5 * (b - x) * (v + vb);
	*temp_c = sum / (b - a);
	return 1;
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

static int idlelog_load(sl_idlelog *il, const char *path, const char *text,
			size_t len, const char *column)
{
	memset(il, 0, sizeof *il);
	if (!column)
		column = SL_POWERLOG_DEFAULT_COLUMN;
	csv_cols c;
	int rc = read_cols(path, text, len, "ghz", column, "an idle log", &c);
	for (size_t i = 0; rc == 0 && i < c.nrows; i++)
		if (!(c.col[0][i] > 0)) {
			sl_error_set("%s:%d: column 'ghz': %g is not a positive frequency",
				     path, c.lines[i], c.col[0][i]);
			rc = -1;
		} else if (!(c.col[1][i] >= 0)) { /* a power reading is never < 0 */
			sl_error_set("%s:%d: column '%s': %g W is negative; an idle power "
				     "reading is >= 0", path, c.lines[i], column, c.col[1][i]);
			rc = -1;
		}
	if (rc < 0) {
		csv_free(&c);
		return -1;
	}
	/* Group rows by P-state (same frequency within 0.5 MHz). */
	il->path = sl_xstrdup(path);
	il->ghz = sl_xmalloc(c.nrows * sizeof *il->ghz);
	il->power_w = sl_xmalloc(c.nrows * sizeof *il->power_w);
	il->line = sl_xmalloc(c.nrows * sizeof *il->line);
	size_t *rows = sl_xcalloc(c.nrows, sizeof *rows);
	for (size_t i = 0; i < c.nrows; i++) {
		size_t k = 0;
		while (k < il->n && fabs(il->ghz[k] - c.col[0][i]) >= 0.0005)
			k++;
		if (k == il->n && k == MAX_IDLE_PSTATES) { /* grouping is pairwise */
			sl_error_set("%s:%d: more than %d frequencies; an idle log has a "
				     "few rows per P-state", path, c.lines[i], MAX_IDLE_PSTATES);
			free(rows);
			csv_free(&c);
			sl_idlelog_free(il);
			return -1;
		}
		if (k == il->n) {
			il->ghz[k] = c.col[0][i];
			il->power_w[k] = 0;
			il->line[k] = c.lines[i];
			il->n++;
		}
		il->power_w[k] += c.col[1][i];
		rows[k]++;
	}
	for (size_t k = 0; k < il->n; k++)
		il->power_w[k] /= (double)rows[k];
	free(rows);
	csv_free(&c);
	/* Fastest first, like a machine's pstates (sort the triples). */
	struct ps { double ghz, w; int line; } *t = sl_xmalloc(il->n * sizeof *t);
	for (size_t k = 0; k < il->n; k++)
		t[k] = (struct ps){il->ghz[k], il->power_w[k], il->line[k]};
	qsort(t, il->n, sizeof *t, cmp_desc); /* ghz is the first member */
	for (size_t k = 0; k < il->n; k++) {
		il->ghz[k] = t[k].ghz;
		il->power_w[k] = t[k].w;
		il->line[k] = t[k].line;
	}
	free(t);
	return 0;
}

int sl_idlelog_read(sl_idlelog *il, const char *path, const char *column)
{
	return idlelog_load(il, path, NULL, 0, column);
}

int sl_idlelog_read_mem(sl_idlelog *il, const char *name, const char *text,
			size_t len, const char *column)
{
	return idlelog_load(il, name, text, len, column);
}

void sl_idlelog_free(sl_idlelog *il)
{
	free(il->path);
	free(il->ghz);
	free(il->power_w);
	free(il->line);
	memset(il, 0, sizeof *il);
}
