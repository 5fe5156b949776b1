/*
 * sleuth-schedule/1 (docs/formats.md, sleuth-schedule/1): the file `sleuth schedule`
 * writes and `sleuth predict --schedule` / `sleuth simulate --schedule`
 * read.  The optional keys power_cap_w, transition_us and min_instance_ms
 * are written only when the schedule was made with them, because a reader
 * needs them to replay the schedule as it was predicted (docs/schedule.md).
 */
#include "sleuth/schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "formats/yamlio.h"

#define SCHEDULE_FORMAT "sleuth-schedule/1"

/* A required number, >= 0 (or > 0 if `positive`). */
static int get_num(sl_yparser *yp, const sl_ynode *map, const char *key,
		   const char *where, int positive, double *out)
{
	const sl_ynode *v = sl_yreq(yp, map, key, where);
	if (!v || sl_yget_double(yp, v, key, out) < 0)
		return -1;
	if (positive ? !(*out > 0) : !(*out >= 0))
		return sl_yerr(yp, v->line, key, "must be %s, found %s",
			       positive ? "> 0" : ">= 0", v->str);
	return 0;
}

/* An optional number >= 0; stays 0 when absent. */
static int get_opt(sl_yparser *yp, const sl_ynode *map, const char *key, double *out)
{
	*out = 0;
	return sl_ymap_get(map, key) ? get_num(yp, map, key, NULL, 0, out) : 0;
}

static int get_str(sl_yparser *yp, const sl_ynode *map, const char *key, char **out)
{
	const sl_ynode *v = sl_yreq(yp, map, key, NULL);
	const char *s;
	if (!v || sl_yget_str(yp, v, key, &s) < 0)
		return -1;
	*out = sl_xstrdup(s);
	return 0;
}

/*
 * A required nested map.  Unknown keys inside it are not warned about (the
 * format asks that only of the top level, docs/formats.md): every key sleuth reads there is
 * required, so a misspelt one is an error anyway, and the extra fields of
 * `sleuth schedule --format json` read back without a warning per phase.
 */
static const sl_ynode *get_map(sl_yparser *yp, const sl_ynode *map, const char *key)
{
	const sl_ynode *v = sl_yreq(yp, map, key, NULL);
	if (!v || sl_yexpect(yp, v, SL_YMAP, key) < 0)
		return NULL;
	return v;
}

static int read_phases(sl_yparser *yp, const sl_ynode *v, sl_schedule_file *s)
{
	if (sl_yexpect(yp, v, SL_YSEQ, "phases") < 0)
		return -1;
	s->phases = sl_xcalloc(v->n + 1, sizeof *s->phases);
	for (size_t i = 0; i < v->n; i++) {
		const sl_ynode *p = v->kid[i], *id;
		sl_sched_phase *ph = &s->phases[i];
		uint64_t u;
		if (sl_yexpect(yp, p, SL_YMAP, "phases") < 0)
			return -1;
		if (!(id = sl_yreq(yp, p, "phase", "a phase entry")) ||
		    sl_yget_u64(yp, id, "phase", &u) < 0)
			return -1;
		if (u > UINT32_MAX)
			return sl_yerr(yp, id->line, "phase", "phase id %s is too large", id->str);
		for (size_t j = 0; j < i; j++)
			if (s->phases[j].phase == u)
				return sl_yerr(yp, id->line, "phase",
					       "phase %s is listed twice", id->str);
		ph->phase = (uint32_t)u;
		if (get_num(yp, p, "ghz", "a phase entry", 1, &ph->ghz) < 0 ||
		    get_num(yp, p, "time_s", "a phase entry", 0, &ph->time_s) < 0 ||
		    get_num(yp, p, "energy_j", "a phase entry", 0, &ph->energy_j) < 0)
			return -1;
		s->n_phases++;
	}
	return 0;
}

static int read_schedule(sl_yparser *yp, const sl_ynode *root, sl_schedule_file *s)
{
	static const char *const known[] = {"format", "profile", "machine", "objective",
		"max_slowdown", "scope", "baseline", "predicted", "phases", "power_cap_w",
		"transition_us", "min_instance_ms", "confidence", "margin", "fallback", "gain_over_fixed", "point_optimum", NULL};
	const sl_ynode *v;
	const char *str;
	if (!(v = sl_yreq(yp, root, "format", NULL)) || sl_yget_str(yp, v, "format", &str) < 0)
		return -1;
	if (strcmp(str, SCHEDULE_FORMAT))
		return sl_yerr(yp, v->line, "format",
			       "'%s' is not a sleuth schedule format; expected '%s'", str,
			       SCHEDULE_FORMAT);
	/* after the format: another kind of file is one line, not a warning
	 * per key */
	sl_ywarn_unknown(yp, root, known);
	if (get_str(yp, root, "profile", &s->profile) < 0 ||
	    get_str(yp, root, "machine", &s->machine) < 0)
		return -1;
	if (!(v = sl_yreq(yp, root, "objective", NULL)) ||
	    sl_yget_str(yp, v, "objective", &str) < 0)
		return -1;
	if (sl_objective_parse(str, &s->objective) < 0)
		return sl_yerr(yp, v->line, "objective", "%s", sl_error());
	if (!(v = sl_yreq(yp, root, "scope", NULL)) || sl_yget_str(yp, v, "scope", &str) < 0)
		return -1;
	if (sl_scope_parse(str, &s->scope) < 0)
		return sl_yerr(yp, v->line, "scope", "%s", sl_error());
	if (get_num(yp, root, "max_slowdown", NULL, 0, &s->max_slowdown) < 0)
		return -1;
	if (!(v = get_map(yp, root, "baseline")) ||
	    get_num(yp, v, "ghz", "baseline", 1, &s->base_ghz) < 0 ||
	    get_num(yp, v, "time_s", "baseline", 0, &s->base_time_s) < 0 ||
	    get_num(yp, v, "energy_j", "baseline", 0, &s->base_energy_j) < 0)
		return -1;
	if (!(v = get_map(yp, root, "predicted")) ||
	    get_num(yp, v, "time_s", "predicted", 0, &s->time_s) < 0 ||
	    get_num(yp, v, "energy_j", "predicted", 0, &s->energy_j) < 0 ||
	    get_num(yp, v, "edp", "predicted", 0, &s->edp) < 0)
		return -1;
	/* a schedule may be faster than the baseline: slowdown may be < 0 */
	const sl_ynode *sd = sl_yreq(yp, v, "slowdown", "predicted");
	if (!sd || sl_yget_double(yp, sd, "slowdown", &s->slowdown) < 0)
		return -1;
	if (!(v = sl_yreq(yp, root, "phases", NULL)) || read_phases(yp, v, s) < 0)
		return -1;
	if (get_opt(yp, root, "power_cap_w", &s->power_cap_w) < 0 ||
	    get_opt(yp, root, "transition_us", &s->transition_us) < 0 ||
	    get_opt(yp, root, "min_instance_ms", &s->min_instance_ms) < 0 ||
	    get_opt(yp, root, "confidence", &s->confidence) < 0)
		return -1;
	if (!(s->confidence < 1))
		return sl_yerr(yp, sl_ymap_get(root, "confidence")->line, "confidence",
			       "must be below 1 (a probability)");
	if ((v = sl_ymap_get(root, "margin"))) {
		if (sl_yexpect(yp, v, SL_YMAP, "margin") < 0 ||
		    get_num(yp, v, "slowdown", "margin", 0, &s->margin_slowdown) < 0 ||
		    get_num(yp, v, "time_s", "margin", 0, &s->margin_s) < 0)
			return -1;
	}
	/* JSON writes null for no fallback */
	if ((v = sl_ymap_get(root, "fallback")) && !(v->type == SL_YSCALAR && v->plain && !strcmp(v->str, "null")) &&
	    get_str(yp, root, "fallback", &s->fallback) < 0)
		return -1;
	return 0;
}

int sl_schedule_read(const char *path, sl_schedule_file *s)
{
	sl_yparser yp;
	sl_ynode *root;
	int rc = -1;
	memset(s, 0, sizeof *s);
	if (sl_yp_open(&yp, path) < 0)
		return -1;
	if (sl_yp_load_document(&yp, &root) == 0 && read_schedule(&yp, root, s) == 0)
		rc = 0;
	sl_yp_close(&yp);
	if (rc < 0)
		sl_schedule_file_free(s);
	return rc;
}

static void kv_map(sl_ywriter *w, const char *key)
{
	sl_yw_str(w, key);
	sl_yw_map(w, 1);
}

int sl_schedule_write(const char *path, const sl_schedule_file *s, const char *comment)
{
	sl_ywriter w;
	if (sl_yw_open(&w, path, comment) < 0)
		return -1;
	sl_yw_map(&w, 0);
	sl_yw_kstr(&w, "format", SCHEDULE_FORMAT);
	sl_yw_kstr(&w, "profile", s->profile ? s->profile : "-");
	sl_yw_kstr(&w, "machine", s->machine ? s->machine : "-");
	sl_yw_kstr(&w, "objective", sl_objective_name(s->objective));
	sl_yw_kdouble(&w, "max_slowdown", s->max_slowdown);
	sl_yw_kstr(&w, "scope", sl_scope_name(s->scope));
	kv_map(&w, "baseline");
	sl_yw_kdouble(&w, "ghz", s->base_ghz);
	sl_yw_kdouble(&w, "time_s", s->base_time_s);
	sl_yw_kdouble(&w, "energy_j", s->base_energy_j);
	sl_yw_end_map(&w);
	kv_map(&w, "predicted");
	sl_yw_kdouble(&w, "time_s", s->time_s);
	sl_yw_kdouble(&w, "energy_j", s->energy_j);
	sl_yw_kdouble(&w, "edp", s->edp);
	sl_yw_kdouble(&w, "slowdown", s->slowdown);
	sl_yw_end_map(&w);
	if (s->power_cap_w > 0)
		sl_yw_kdouble(&w, "power_cap_w", s->power_cap_w);
	if (s->transition_us > 0)
		sl_yw_kdouble(&w, "transition_us", s->transition_us);
	if (s->min_instance_ms > 0)
		sl_yw_kdouble(&w, "min_instance_ms", s->min_instance_ms);
	if (s->confidence > 0) {
		sl_yw_kdouble(&w, "confidence", s->confidence);
		kv_map(&w, "margin");
		sl_yw_kdouble(&w, "slowdown", s->margin_slowdown);
		sl_yw_kdouble(&w, "time_s", s->margin_s);
		sl_yw_end_map(&w);
	}
	if (s->fallback)
		sl_yw_kstr(&w, "fallback", s->fallback);
	sl_yw_str(&w, "phases");
	sl_yw_seq(&w, 0);
	for (size_t i = 0; i < s->n_phases; i++) {
		const sl_sched_phase *p = &s->phases[i];
		sl_yw_map(&w, 1);
		sl_yw_ku64(&w, "phase", p->phase);
		sl_yw_kdouble(&w, "ghz", p->ghz);
		sl_yw_kdouble(&w, "time_s", p->time_s);
		sl_yw_kdouble(&w, "energy_j", p->energy_j);
		sl_yw_end_map(&w);
	}
	sl_yw_end_seq(&w);
	sl_yw_end_map(&w);
	return sl_yw_commit(&w);
}

void sl_schedule_file_free(sl_schedule_file *s)
{
	free(s->profile);
	free(s->machine);
	free(s->phases);
	free(s->fallback);
	memset(s, 0, sizeof *s);
}

double sl_schedule_ghz(const sl_schedule_file *s, uint32_t phase)
{
	for (size_t i = 0; i < s->n_phases; i++)
		if (s->phases[i].phase == phase)
			return s->phases[i].ghz;
	return 0;
}
