/*
 * The machine-readable prediction tables (docs/formats.md, prediction table): CSV
 * and JSON carry the same rows, built once as a list of fields and written
 * by format.  Predictions are made and written one frequency at a time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outbuf.h"
#include "predict_int.h"
#include "sleuth/common.h"
#include "util/json.h"
#include "sleuth/predict.h"

/* Significant digits of times, powers and energies in CSV and JSON. */
#define SIG 9

int sl_per_parse(const char *s, sl_per *per)
{
	static const char *const names[] = {"interval", "instance", "phase"};
	for (size_t i = 0; i < SL_ARRAY_LEN(names); i++)
		if (!strcmp(s, names[i])) {
			*per = (sl_per)i;
			return 0;
		}
	sl_error_set("unknown unit '%s'; use interval, instance or phase", s);
	return -1;
}

const char *sl_per_name(sl_per per)
{
	return per == SL_PER_INTERVAL ? "interval" :
	       per == SL_PER_INSTANCE ? "instance" : "phase";
}

int sl_fmt_parse(const char *s, sl_fmt *fmt)
{
	static const char *const names[] = {"table", "csv", "json"};
	for (size_t i = 0; i < SL_ARRAY_LEN(names); i++)
		if (!strcmp(s, names[i])) {
			*fmt = (sl_fmt)i;
			return 0;
		}
	sl_error_set("unknown format '%s'; use table, csv or json", s);
	return -1;
}

/* One field of a row. */
typedef struct fv {
	enum { FV_U, FV_D, FV_S } kind;
	uint64_t u;
	double d;
	const char *s;
} fv;

#define U(x) ((fv){.kind = FV_U, .u = (x)})
#define D(x) ((fv){.kind = FV_D, .d = (x)})
#define S(x) ((fv){.kind = FV_S, .s = (x)->s, .u = (x)->len})

/* A preformatted value (the frequency of every row). */
typedef struct pre {
	char s[40];
	size_t len;
} pre;

#define MAX_FIELDS 9

typedef struct rows {
	sl_obuf ob;
	sl_json jw;    /* JSON: writes through ob */
	sl_fmt fmt;
	const char *const *names;
	size_t n;
	char key[MAX_FIELDS][24]; /* JSON: each name as `"name": ` */
	size_t key_len[MAX_FIELDS];
} rows;

static void put_json(rows *r, const fv *v)
{
	switch (v->kind) {
	case FV_U:
		sl_json_uint(&r->jw, v->u);
		break;
	case FV_S:
		sl_json_number_text(&r->jw, v->s, (size_t)v->u);
		break;
	case FV_D:
		sl_json_number(&r->jw, v->d); /* null when not predicted */
		break;
	}
}

/* Room for one CSV field: a separator and at most 40 characters (a
 * preformatted value, 20 digits, or sl_fmt_sig's 31 and terminator). */
#define CSV_FIELD 48
_Static_assert(sizeof(((pre *)0)->s) < CSV_FIELD, "a preformatted value fits a field");

/* A CSV row formatted straight into the output buffer: a million-interval
 * run writes millions of these (docs/benchmarks.md, #15). */
static void csv_row(rows *r, const fv *v)
{
	char *o = sl_ob_room(&r->ob, r->n * CSV_FIELD + 1), *start = o;
	for (size_t i = 0; i < r->n; i++) {
		if (i)
			*o++ = ',';
		switch (v[i].kind) {
		case FV_U:
			o += sl_fmt_u64(o, v[i].u);
			break;
		case FV_S:
			memcpy(o, v[i].s, (size_t)v[i].u);
			o += v[i].u;
			break;
		case FV_D:
			if (isfinite(v[i].d)) /* else an empty field (time only) */
				o += sl_fmt_sig(o, v[i].d, SIG);
			break;
		}
	}
	*o++ = '\n';
	r->ob.len += (size_t)(o - start);
}

static void row(rows *r, const fv *v)
{
	if (r->fmt == SL_FMT_CSV) {
		csv_row(r, v);
		return;
	}
	sl_json_break(&r->jw, "\n  ");
	sl_json_open(&r->jw, '{', " ");
	for (size_t i = 0; i < r->n; i++) {
		if (r->key_len[i])
			sl_json_key_text(&r->jw, r->key[i], r->key_len[i]);
		else
			sl_json_key(&r->jw, r->names[i]);
		put_json(r, &v[i]);
	}
	sl_json_close(&r->jw, "");
}

static const char *const interval_fields[] = {
	"ghz", "interval", "phase", "instance", "instructions",
	"time_s", "power_w", "energy_j"};
static const char *const instance_fields[] = {
	"ghz", "instance", "phase", "first_interval", "intervals",
	"instructions", "time_s", "power_w", "energy_j"};
static const char *const phase_fields[] = {
	"ghz", "phase", "intervals", "instances", "instructions",
	"time_s", "power_w", "energy_j"};

_Static_assert(SL_ARRAY_LEN(instance_fields) <= MAX_FIELDS &&
	       SL_ARRAY_LEN(interval_fields) <= MAX_FIELDS &&
	       SL_ARRAY_LEN(phase_fields) <= MAX_FIELDS, "rows.key is too small");

static void ob_put(void *ob, const char *bytes, size_t n)
{
	sl_ob_mem(ob, bytes, n);
}

static size_t num_sig(char *out, double v)
{
	return sl_fmt_sig(out, v, SIG);
}

/* The head of the JSON document, up to the rows' array. */
static void json_head(rows *r, const sl_model *md, sl_per per)
{
	sl_json *w = &r->jw;
	sl_json_open(w, '{', " ");
	sl_json_break(w, "\n");
	sl_json_key(w, "per");
	sl_json_string(w, sl_per_name(per));
	sl_json_break(w, "\n");
	sl_json_key(w, "time_model");
	sl_json_string(w, sl_time_model_name(md->time));
	sl_json_break(w, "\n");
	sl_json_key(w, "machine");
	sl_json_string(w, md->mach->name ? md->mach->name : "");
	sl_json_break(w, "\n");
	sl_json_key(w, "profiled_ghz");
	sl_json_number(w, md->f0_ghz);
	sl_json_break(w, "\n");
	sl_json_key(w, "interpolation");
	sl_json_open(w, '{', " ");
	for (int rank = 0; rank < SL_SRC_N; rank++) {
		sl_src s = sl_src_by_rank(rank);
		sl_json_key(w, sl_src_name(s));
		sl_json_number(w, sl_interp_share(&md->view, s));
	}
	sl_json_close(w, "");
	sl_json_break(w, "\n");
	/* null: power from the counters alone */
	sl_json_key(w, "anchor");
	if (md->anchor) {
		sl_json_open(w, '{', " ");
		sl_json_key(w, "source");
		sl_json_string(w, md->anchor->source);
		sl_json_key(w, "intervals_measured");
		sl_json_uint(w, md->anchor->intervals_measured);
		sl_json_key(w, "model_w");
		sl_json_number(w, md->anchor->model_w);
		sl_json_key(w, "residual_w");
		sl_json_number(w, md->anchor->resid_w);
		sl_json_close(w, "");
	} else
		sl_json_null(w);
	sl_json_break(w, "\n");
	sl_json_key(w, "rows");
	sl_json_open(w, '[', "");
}

static void json_tail(rows *r, const sl_predict_stats *st)
{
	sl_json *w = &r->jw;
	sl_json_close(w, "\n");
	sl_json_break(w, "\n");
	sl_json_key(w, "clamped");
	sl_json_open(w, '{', " ");
	sl_json_key(w, "predictions");
	sl_json_uint(w, st->predictions);
	sl_json_key(w, "idle");
	sl_json_uint(w, st->clamped_idle);
	sl_json_key(w, "peak");
	sl_json_uint(w, st->clamped_peak);
	sl_json_close(w, "");
	sl_json_close(w, "\n");
	sl_ob_char(&r->ob, '\n');
}

/* Every interval at one frequency, streamed. */
static void interval_rows(rows *r, const sl_model *md, const sl_opoint *op,
			  const pre *ghz, sl_predict_stats *st)
{
	const sl_profile *p = md->prof;
	sl_agg all = {0};
	for (size_t i = 0; i < p->n_intervals; i++) {
		sl_pred pr;
		sl_model_predict(md, op, i, &pr);
		sl_agg_add(&all, &pr, 0);
		fv v[] = {S(ghz), U(i), U(p->iv[i].phase), U(md->view.inst_of[i]),
			  U(p->iv[i].instructions), D(pr.time_s), D(pr.power_w),
			  D(pr.energy_j)};
		row(r, v);
	}
	sl_stats_add(st, &all);
}

static void instance_rows(rows *r, const sl_model *md, const sl_opoint *op,
			  const pre *ghz, sl_agg *agg, sl_predict_stats *st)
{
	const sl_interp *vw = &md->view;
	sl_model_aggregate(md, op, NULL, agg, NULL);
	for (size_t j = 0; j < vw->n_instances; j++) {
		const sl_agg *a = &agg[j];
		fv v[] = {S(ghz), U(j), U(vw->inst[j].phase), U(vw->inst[j].first),
			  U(a->intervals), U(a->instructions), D(a->time_s),
			  D(sl_agg_power(a)), D(a->energy_j)};
		row(r, v);
		sl_stats_add(st, a);
	}
}

static void phase_rows(rows *r, const sl_model *md, const sl_opoint *op,
		       const pre *ghz, sl_agg *agg, const uint32_t *order, size_t n_order,
		       sl_predict_stats *st)
{
	sl_model_aggregate(md, op, agg, NULL, NULL);
	for (size_t j = 0; j < n_order; j++) {
		const sl_agg *a = &agg[order[j]];
		fv v[] = {S(ghz), U(order[j]), U(a->intervals), U(a->instances),
			  U(a->instructions), D(a->time_s), D(sl_agg_power(a)),
			  D(a->energy_j)};
		row(r, v);
		sl_stats_add(st, a);
	}
}

int sl_predict_write(FILE *f, const sl_model *md, const sl_opoint *ops, size_t n_ops,
		     sl_per per, sl_fmt fmt, const sl_predict_info *info,
		     sl_predict_stats *stats)
{
	memset(stats, 0, sizeof *stats);
	if (fmt == SL_FMT_TABLE)
		return sl_predict_table(f, md, ops, n_ops, info, stats);

	rows r = {.fmt = fmt};
	sl_ob_init(&r.ob, f);
	sl_json_init(&r.jw, ob_put, &r.ob, num_sig);
	if (per == SL_PER_INTERVAL) {
		r.names = interval_fields;
		r.n = SL_ARRAY_LEN(interval_fields);
	} else if (per == SL_PER_INSTANCE) {
		r.names = instance_fields;
		r.n = SL_ARRAY_LEN(instance_fields);
	} else {
		r.names = phase_fields;
		r.n = SL_ARRAY_LEN(phase_fields);
	}
	if (fmt == SL_FMT_CSV) {
		for (size_t i = 0; i < r.n; i++) {
			if (i)
				sl_ob_char(&r.ob, ',');
			sl_ob_str(&r.ob, r.names[i]);
		}
		sl_ob_char(&r.ob, '\n');
	} else {
		for (size_t i = 0; i < r.n; i++)
			r.key_len[i] = sl_json_quote_key(r.key[i], sizeof r.key[i], r.names[i]);
		json_head(&r, md, per);
	}

	size_t n_order = 0;
	uint32_t *order = sl_phase_order(&md->view, &n_order);
	size_t n_agg = per == SL_PER_INSTANCE ? md->view.n_instances : md->view.n_phase_ids;
	sl_agg *agg = sl_xcalloc(n_agg + 1, sizeof *agg);
	for (size_t k = 0; k < n_ops && !r.ob.err; k++) {
		pre ghz;
		ghz.len = sl_fmt_sig(ghz.s, ops[k].ghz, 6);
		if (per == SL_PER_INTERVAL)
			interval_rows(&r, md, &ops[k], &ghz, stats);
		else if (per == SL_PER_INSTANCE)
			instance_rows(&r, md, &ops[k], &ghz, agg, stats);
		else
			phase_rows(&r, md, &ops[k], &ghz, agg, order, n_order, stats);
	}
	free(agg);
	free(order);
	if (fmt == SL_FMT_JSON)
		json_tail(&r, stats);
	return sl_ob_finish(&r.ob);
}
