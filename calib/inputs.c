/*
 * Training runs from files: profiles written by `sleuth run` and
 * sleuth-trace/1 files (so that a dataset of real measurements, written by
 * any tool, can be used directly).
 */
#include "sleuth/calib.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/trace.h"

/* "dir/astar.prof" -> "astar" */
static char *file_label(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	char *s = sl_xstrdup(b);
	char *dot = strrchr(s, '.');
	if (dot && dot != s)
		*dot = 0;
	return s;
}

static const char *label_or(const char *label, const char *path, char **tmp)
{
	*tmp = NULL;
	if (label && *label)
		return label;
	return *tmp = file_label(path);
}

int sl_calib_run_from_profile(sl_calib_run *r, const char *path, const sl_profile *p)
{
	if (!p->has_counts || !p->n_events) {
		sl_error_set("%s has no event counts (recorded by the %s backend); "
			     "calibration needs counted events: record it with the "
			     "perf or replay backend", path, p->backend ? p->backend : "?");
		return -1;
	}
	if (!(p->freq_ghz > 0)) {
		sl_error_set("%s does not record its core frequency; record it at a "
			     "fixed P-state so that calibration knows f and V", path);
		return -1;
	}
	if (sl_profile_one_freq(p, path, "calibrate from runs at one fixed P-state") < 0)
		return -1;
	char *tmp;
	sl_calib_run_init(r, path, label_or(p->workload, path, &tmp), p->freq_ghz,
			  p->n_events, (const char *const *)p->events);
	free(tmp);
	for (size_t i = 0; i < p->n_intervals; i++) {
		const sl_prof_interval *iv = &p->iv[i];
		sl_calib_run_add(r, iv->start_s, iv->time_s, iv->energy_j, iv->cycles,
				 p->counts + i * p->n_events, iv->phase);
		if (p->temp_c && isfinite(p->temp_c[i]))
			sl_calib_run_set_temp(r, p->temp_c[i]);
	}
	return 0;
}

int sl_calib_run_from_trace(sl_calib_run *r, const char *path)
{
	sl_trace_reader *tr = sl_trace_open(path);
	if (!tr)
		return -1;
	const sl_trace_header *h = sl_trace_header_of(tr);
	int cyc = sl_trace_event_index(h, "cycles");
	int ins = sl_trace_event_index(h, "instructions");
	if (cyc < 0) {
		sl_error_set("%s: events: no 'cycles'; a trace must count core cycles",
			     path);
		sl_trace_close(tr);
		return -1;
	}
	/* The counted events but the fixed counters, and where each is in n[]. */
	const char **ev = sl_xcalloc(h->n_events, sizeof *ev);
	size_t *src = sl_xcalloc(h->n_events, sizeof *src), ne = 0;
	for (size_t k = 0; k < h->n_events; k++)
		if ((int)k != cyc && (int)k != ins) {
			src[ne] = k;
			ev[ne++] = h->events[k];
		}
	char *tmp;
	sl_calib_run_init(r, path, label_or(h->workload, path, &tmp), h->frequency_ghz,
			  ne, ev);
	free(tmp);
	free(ev);
	uint64_t *row = sl_xcalloc(ne ? ne : 1, sizeof *row);
	sl_trace_interval iv;
	double t = 0;
	int rc;
	size_t i = 0;
	while ((rc = sl_trace_next(tr, &iv)) == 1) {
		if (sl_interval_one_freq(path, i++, iv.ghz, h->frequency_ghz,
					 "calibrate from runs at one fixed P-state") < 0) {
			rc = -1;
			break;
		}
		for (size_t k = 0; k < ne; k++)
			row[k] = iv.n[src[k]];
		sl_calib_run_add(r, t, iv.t, iv.has_e ? iv.e : NAN, iv.n[cyc], row, 0);
		if (iv.has_temp)
			sl_calib_run_set_temp(r, iv.temp);
		t += iv.t;
	}
	free(row);
	free(src);
	sl_trace_close(tr);
	if (rc < 0)
		sl_calib_run_free(r);
	return rc < 0 ? -1 : 0;
}

int sl_calib_run_load(sl_calib_run *r, const char *path)
{
	char head[4096];
	FILE *f = fopen(path, "rb");
	if (!f) {
		sl_error_set("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	size_t got = fread(head, 1, sizeof head, f);
	fclose(f);
	if (got < 8 || memcmp(head, "SLEUTHPF", 8)) {
		/* Not a profile: a trace names its format near the top. */
		if (!memmem(head, got, "sleuth-trace/1", 14)) {
			sl_error_set("%s is neither a sleuth profile nor a sleuth-trace/1 "
				     "file; an input is PROFILE, TRACE or PROFILE:LOG.csv",
				     path);
			return -1;
		}
		return sl_calib_run_from_trace(r, path);
	}
	sl_profile p;
	sl_profile_init(&p);
	int rc = sl_profile_read(path, &p);
	if (rc == 0)
		rc = sl_calib_run_from_profile(r, path, &p);
	sl_profile_free(&p);
	return rc;
}
