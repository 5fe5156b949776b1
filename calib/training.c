/*
 * Training runs in one in-memory form whatever they came from (profile,
 * trace, or either paired with a power log), and their alignment to a power
 * log: an interval's energy is the log's integral over its time span.
 */
#include "sleuth/calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"

void sl_calib_run_init(sl_calib_run *r, const char *input, const char *workload,
		       double ghz, size_t n_events, const char *const *events)
{
	memset(r, 0, sizeof *r);
	r->input = sl_xstrdup(input);
	r->workload = sl_xstrdup(workload);
	r->ghz = ghz;
	r->n_events = n_events;
	r->events = sl_xcalloc(n_events ? n_events : 1, sizeof *r->events);
	for (size_t k = 0; k < n_events; k++)
		r->events[k] = sl_xstrdup(events[k]);
}

void sl_calib_run_add(sl_calib_run *r, double start_s, double time_s,
		      double energy_j, uint64_t cycles, const uint64_t *counts,
		      uint32_t phase)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->start_s = sl_xreallocarray(r->start_s, r->cap, sizeof *r->start_s);
		r->time_s = sl_xreallocarray(r->time_s, r->cap, sizeof *r->time_s);
		r->energy_j = sl_xreallocarray(r->energy_j, r->cap, sizeof *r->energy_j);
		r->cycles = sl_xreallocarray(r->cycles, r->cap, sizeof *r->cycles);
		r->phase = sl_xreallocarray(r->phase, r->cap, sizeof *r->phase);
		r->temp_c = sl_xreallocarray(r->temp_c, r->cap, sizeof *r->temp_c);
		r->counts = sl_xreallocarray(r->counts, r->cap * (r->n_events ? r->n_events : 1),
					     sizeof *r->counts);
	}
	size_t i = r->n++;
	r->start_s[i] = start_s;
	r->time_s[i] = time_s;
	r->energy_j[i] = energy_j;
	r->cycles[i] = cycles;
	r->phase[i] = phase;
	r->temp_c[i] = NAN;
	if (r->n_events)
		memcpy(r->counts + i * r->n_events, counts, r->n_events * sizeof *counts);
}

void sl_calib_run_free(sl_calib_run *r)
{
	free(r->input);
	free(r->workload);
	for (size_t k = 0; k < r->n_events; k++)
		free(r->events[k]);
	free(r->events);
	free(r->start_s);
	free(r->time_s);
	free(r->energy_j);
	free(r->cycles);
	free(r->counts);
	free(r->phase);
	free(r->temp_c);
	memset(r, 0, sizeof *r);
}

void sl_calib_run_set_temp(sl_calib_run *r, double temp_c)
{
	if (r->n)
		r->temp_c[r->n - 1] = temp_c;
}

int sl_calib_attach_log(sl_calib_run *r, const sl_powerlog *log, sl_calib_align *st)
{
	size_t covered = 0;
	st->uncovered = st->too_short = 0;
	for (size_t i = 0; i < r->n; i++) {
		double a = r->start_s[i], b = a + r->time_s[i], e;
		r->energy_j[i] = NAN;
		if (!sl_powerlog_energy(log, a, b, &e)) {
			st->uncovered++;
			continue;
		}
		covered++;
		/* Shorter than a sample step, the "integral" is an interpolation
		 * between two readings, not a measurement. */
		if (r->time_s[i] < log->spacing) {
			st->too_short++;
			continue;
		}
		r->energy_j[i] = e;
		/* the log's temperature, unless the run measured its own */
		double tc;
		if (isnan(r->temp_c[i]) && sl_powerlog_temp(log, a, b, &tc))
			r->temp_c[i] = tc;
	}
	if (r->n && !covered) {
		double end = r->start_s[r->n - 1] + r->time_s[r->n - 1];
		sl_error_set("%s (%.6g s to %.6g s on the run's clock) does not overlap "
			     "%s (%.6g s to %.6g s); check the file pairing and "
			     "--log-offset",
			     log->path, log->t[0], log->t[log->n - 1], r->input,
			     r->start_s[0], end);
		return -1;
	}
	return 0;
}
