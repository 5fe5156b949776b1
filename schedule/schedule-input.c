/*
 * Where the schedule solver's table comes from.  `sleuth schedule` builds it
 * from a profile through the models; it also reads the per-instance
 * prediction table of `sleuth predict --per instance --all --format csv`
 * (docs/formats.md, prediction table), so that predictions made elsewhere, or
 * edited by hand, can be scheduled too.
 */
#include "sleuth/schedule.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/csv.h"
#include "sleuth/common.h"

#define CSV_HEADER "ghz,instance,phase,first_interval,intervals,instructions," \
		   "time_s,power_w,energy_j"
#define CSV_FIELDS 9
#define MAX_PHASE_ID 1000000

void sl_sched_data_free(sl_sched_data *d)
{
	free(d->ghz);
	free(d->phase);
	free(d->time_s);
	free(d->energy_j);
	free(d->peak_w);
	free(d->sigma);
	free(d->sigma_from);
	memset(d, 0, sizeof *d);
}

/* Allocate the arrays for n instances at p P-states and point the table at
 * them. */
void sl_sched_data_alloc(sl_sched_data *d, size_t n_pstates, size_t n_inst,
			 size_t n_phases)
{
	memset(d, 0, sizeof *d);
	d->ghz = sl_xcalloc(n_pstates, sizeof *d->ghz);
	d->phase = sl_xcalloc(n_inst, sizeof *d->phase);
	d->time_s = sl_xcalloc(n_inst * n_pstates, sizeof(double));
	d->energy_j = sl_xcalloc(n_inst * n_pstates, sizeof(double));
	d->peak_w = sl_xcalloc(n_inst * n_pstates, sizeof(double));
	d->tab = (sl_sched_table){n_pstates, d->ghz, 0, n_phases, n_inst, d->phase,
				  d->time_s, d->energy_j, d->peak_w, NULL};
}

typedef struct row {
	double ghz, time_s, energy_j, power_w;
	uint64_t inst, phase;
	int line;
} row;

static int parse_row(const char *path, int line, char *s, row *r)
{
	char *f[CSV_FIELDS];
	uint64_t u;
	if (sl_csv_split(s, f, CSV_FIELDS, 0) != CSV_FIELDS) {
		sl_error_set("%s:%d: expected %d comma-separated fields (%s)", path, line,
			     CSV_FIELDS, CSV_HEADER);
		return -1;
	}
	r->line = line;
	if (!f[6][0] || !f[8][0]) {
		sl_error_set("%s:%d: no time or energy prediction; predictions need a "
			     "calibrated power model (run sleuth calibrate)", path, line);
		return -1;
	}
	if (sl_parse_double(f[0], &r->ghz) < 0 || sl_parse_u64(f[1], &r->inst) < 0 ||
	    sl_parse_u64(f[2], &r->phase) < 0 || sl_parse_u64(f[4], &u) < 0 ||
	    sl_parse_double(f[6], &r->time_s) < 0 || sl_parse_double(f[8], &r->energy_j) < 0) {
		sl_error_prefix("%s:%d: ", path, line);
		return -1;
	}
	r->power_w = r->energy_j / r->time_s;
	if (f[7][0] && sl_parse_double(f[7], &r->power_w) < 0) {
		sl_error_prefix("%s:%d: ", path, line);
		return -1;
	}
	if (!(r->ghz > 0) || !(r->time_s > 0) || !(r->energy_j > 0)) {
		sl_error_set("%s:%d: frequency, time and energy must be > 0", path, line);
		return -1;
	}
	/* The solver keeps arrays per phase id: a stray huge id must not
	 * become an allocation of gigabytes. */
	if (r->phase >= MAX_PHASE_ID) {
		sl_error_set("%s:%d: phase %llu: phase ids must be below %d; number the "
			     "phases from 0", path, line, (unsigned long long)r->phase,
			     MAX_PHASE_ID);
		return -1;
	}
	return 0;
}

static int cmp_ghz_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

static int read_rows(const char *path, FILE *f, row **out, size_t *n)
{
	char *buf = NULL;
	size_t cap = 0, rcap = 0;
	int line = 0, rc = 0;
	*out = NULL;
	*n = 0;
	while (getline(&buf, &cap, f) > 0) {
		line++;
		buf[strcspn(buf, "\r\n")] = 0;
		if (line == 1) {
			if (strcmp(buf, CSV_HEADER)) {
				sl_error_set("%s:1: not a per-instance prediction table; expected "
					     "the header '%s' (sleuth predict --per instance "
					     "--all --format csv)", path, CSV_HEADER);
				rc = -1;
				break;
			}
			continue;
		}
		if (!buf[0])
			continue;
		SL_GROW(*out, *n, rcap);
		if (parse_row(path, line, buf, &(*out)[*n]) < 0) {
			rc = -1;
			break;
		}
		(*n)++;
	}
	free(buf);
	if (rc == 0 && !line) {
		sl_error_set("%s: empty file; expected a per-instance prediction table", path);
		rc = -1;
	}
	return rc;
}

int sl_sched_data_from_csv(const char *path, sl_sched_data *d)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	row *r = NULL;
	size_t n = 0;
	memset(d, 0, sizeof *d);
	if (!f) {
		sl_error_set("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	sl_input_note(f);
	int rc = read_rows(path, f, &r, &n);
	if (f != stdin)
		fclose(f);
	if (rc < 0 || !n) {
		if (rc == 0)
			sl_error_set("%s: no predictions in the table", path);
		free(r);
		return -1;
	}
	/* the P-states: distinct frequencies, fastest first */
	double *g = sl_xmalloc(n * sizeof *g);
	size_t np = 0;
	uint64_t ninst = 0, nph = 0;
	for (size_t i = 0; i < n; i++) {
		/* Every instance has a row at every frequency, so an id is below
		 * the row count; a larger one (2^64-1 would wrap inst + 1) is
		 * refused before it sizes or indexes anything. */
		if (r[i].inst >= n) {
			sl_error_set("%s:%d: instance %llu, but the table has only %zu rows; "
				     "number the instances from 0", path, r[i].line,
				     (unsigned long long)r[i].inst, n);
			free(g);
			free(r);
			return -1;
		}
		g[i] = r[i].ghz;
		ninst = SL_MAX(ninst, r[i].inst + 1);
		nph = SL_MAX(nph, r[i].phase + 1);
	}
	qsort(g, n, sizeof *g, cmp_ghz_desc);
	for (size_t i = 0; i < n; i++)
		if (!np || g[i] != g[np - 1])
			g[np++] = g[i];
	uint64_t cells;
	if (sl_mul_u64(ninst, np, &cells) < 0 || cells != n) {
		sl_error_set("%s: %zu rows for %zu frequencies and %llu instances; every "
			     "instance must be predicted once at every frequency", path, n, np,
			     (unsigned long long)ninst);
		free(g);
		free(r);
		return -1;
	}
	sl_sched_data_alloc(d, np, (size_t)ninst, (size_t)nph);
	memcpy(d->ghz, g, np * sizeof *g);
	unsigned char *seen = sl_xcalloc(n, 1), *has_phase = sl_xcalloc(ninst, 1);
	for (size_t i = 0; i < n && rc == 0; i++) {
		size_t p = 0;
		while (d->ghz[p] != r[i].ghz)
			p++;
		size_t j = (size_t)r[i].inst, c = j * np + p;
		if (seen[c] || (has_phase[j] && d->phase[j] != r[i].phase)) {
			sl_error_set("%s:%d: instance %zu at %g GHz is listed twice or with "
				     "another phase", path, r[i].line, j, r[i].ghz);
			rc = -1;
		}
		seen[c] = 1;
		has_phase[j] = 1;
		d->phase[j] = (uint32_t)r[i].phase;
		d->time_s[c] = r[i].time_s;
		d->energy_j[c] = r[i].energy_j;
		d->peak_w[c] = r[i].power_w;
	}
	free(seen);
	free(has_phase);
	free(g);
	free(r);
	if (rc < 0)
		sl_sched_data_free(d);
	return rc;
}
