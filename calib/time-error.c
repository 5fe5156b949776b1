/*
 * How wrong the time models are, measured where sleuth may measure it: on
 * the training runs `sleuth calibrate` is given.  Those are the same
 * workloads profiled at several P-states, so each workload's fastest
 * profile can predict the others through every time model the machine
 * supports, and the per-phase error against the slower runs' measured time
 * is a residual of the model on data it was not fitted to (the time models
 * have no fitted constant).  Recorded in the machine as time_error:
 * (docs/formats.md), it is what `sleuth schedule --confidence` allows for:
 * a schedule's bound must hold in truth, not only in the prediction.
 *
 * Intervals are matched by position, which is exact when intervals are cut
 * by instruction count and the program is deterministic (replayed or
 * simulated runs, `sleuth run` with its default intervals); a pair whose
 * interval count or instructions differ by more than 1% is not compared.
 */
#include "sleuth/calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/model.h"

#define GHZ_EPS 0.0005
#define INSN_TOL 0.01

typedef struct bucket {
	sl_time_model model;
	double from, to;
	size_t n;
	double w, s1, s2, worst;
} bucket;

static int is_profile(const char *path)
{
	char head[8];
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t got = fread(head, 1, sizeof head, f);
	fclose(f);
	return got == 8 && !memcmp(head, "SLEUTHPF", 8);
}

/* Whether interval i of a and of b are the same work. */
static int aligned(const sl_profile *a, const sl_profile *b)
{
	if (a->n_intervals != b->n_intervals || !a->n_intervals)
		return 0;
	for (size_t i = 0; i < a->n_intervals; i++) {
		double x = (double)a->iv[i].instructions, y = (double)b->iv[i].instructions;
		if (fabs(x - y) > INSN_TOL * SL_MAX(x, y) || !(b->iv[i].time_s > 0))
			return 0;
	}
	return 1;
}

static bucket *find_bucket(bucket **bs, size_t *nb, size_t *cap, sl_time_model t,
			   double from, double to)
{
	for (size_t i = 0; i < *nb; i++)
		if ((*bs)[i].model == t && fabs((*bs)[i].from - from) < GHZ_EPS &&
		    fabs((*bs)[i].to - to) < GHZ_EPS)
			return &(*bs)[i];
	SL_GROW(*bs, *nb, *cap);
	bucket *b = &(*bs)[(*nb)++];
	memset(b, 0, sizeof *b);
	b->model = t;
	b->from = from;
	b->to = to;
	return b;
}

/* Every time model the machine supports predicts run b from run ref. */
static void compare(const sl_profile *ref, const sl_profile *b, const sl_machine *m,
		    bucket **bs, size_t *nb, size_t *cap)
{
	static const sl_time_model models[] = {SL_TIME_STALL, SL_TIME_MLP, SL_TIME_LINEAR};
	size_t K = 1;
	for (size_t i = 0; i < ref->n_intervals; i++)
		K = SL_MAX(K, (size_t)ref->iv[i].phase + 1);
	double *pred = sl_xmalloc(K * sizeof *pred), *truth = sl_xmalloc(K * sizeof *truth);
	for (size_t mi = 0; mi < SL_ARRAY_LEN(models); mi++) {
		sl_model md;
		if (sl_model_init(&md, ref, m, models[mi], SL_MODEL_TIME_ONLY) < 0)
			continue; /* the machine names no events for this model */
		memset(pred, 0, K * sizeof *pred);
		memset(truth, 0, K * sizeof *truth);
		for (size_t i = 0; i < ref->n_intervals; i++) {
			uint32_t ph = ref->iv[i].phase;
			pred[ph] += sl_model_cycles(&md, i, b->freq_ghz) / (b->freq_ghz * 1e9);
			truth[ph] += b->iv[i].time_s;
		}
		sl_model_free(&md);
		bucket *bk = find_bucket(bs, nb, cap, models[mi], ref->freq_ghz, b->freq_ghz);
		for (size_t k = 0; k < K; k++) {
			if (!(truth[k] > 0) || !isfinite(pred[k]))
				continue;
			double e = pred[k] / truth[k] - 1;
			bk->n++;
			bk->w += truth[k];
			bk->s1 += truth[k] * e;
			bk->s2 += truth[k] * e * e;
			bk->worst = SL_MAX(bk->worst, fabs(e));
		}
	}
	free(pred);
	free(truth);
}

static int cmp_te(const void *a, const void *b)
{
	const sl_time_error *x = a, *y = b;
	int c = strcmp(x->model, y->model);
	if (c)
		return c;
	if (x->from_ghz != y->from_ghz)
		return x->from_ghz < y->from_ghz ? 1 : -1;
	return (x->ghz < y->ghz) - (x->ghz > y->ghz);
}

size_t sl_calib_time_error(sl_machine *m, const sl_calib_run *runs, size_t n_runs)
{
	unsigned char *done = sl_xcalloc(n_runs + 1, 1);
	bucket *bs = NULL;
	size_t nb = 0, cap = 0, pairs = 0;
	for (size_t i = 0; i < n_runs; i++) {
		if (done[i])
			continue;
		/* the group of runs of this workload; its fastest profile is the
		 * reference */
		size_t ref = SIZE_MAX;
		for (size_t j = i; j < n_runs; j++) {
			if (strcmp(runs[j].workload, runs[i].workload))
				continue;
			done[j] = 1;
			if (is_profile(runs[j].input) &&
			    (ref == SIZE_MAX || runs[j].ghz > runs[ref].ghz + GHZ_EPS))
				ref = j;
		}
		if (ref == SIZE_MAX)
			continue;
		sl_profile rp;
		sl_profile_init(&rp);
		if (sl_profile_read(runs[ref].input, &rp) < 0) {
			sl_profile_free(&rp);
			continue;
		}
		for (size_t j = i; j < n_runs; j++) {
			if (strcmp(runs[j].workload, runs[i].workload) ||
			    !(runs[j].ghz < runs[ref].ghz - GHZ_EPS) || !is_profile(runs[j].input))
				continue;
			sl_profile bp;
			sl_profile_init(&bp);
			if (sl_profile_read(runs[j].input, &bp) == 0 && bp.freq_ghz > 0 &&
			    aligned(&rp, &bp)) {
				compare(&rp, &bp, m, &bs, &nb, &cap);
				pairs++;
			}
			sl_profile_free(&bp);
		}
		sl_profile_free(&rp);
	}
	free(done);
	m->n_time_error = 0;
	m->time_error = sl_xcalloc(nb + 1, sizeof *m->time_error);
	for (size_t b = 0; b < nb; b++) {
		if (!bs[b].n || !(bs[b].w > 0))
			continue;
		sl_time_error *e = &m->time_error[m->n_time_error++];
		e->model = sl_xstrdup(sl_time_model_name(bs[b].model));
		e->from_ghz = bs[b].from;
		e->ghz = bs[b].to;
		e->phases = bs[b].n;
		e->mean = bs[b].s1 / bs[b].w;
		e->rms = sqrt(bs[b].s2 / bs[b].w);
		e->worst = bs[b].worst;
	}
	qsort(m->time_error, m->n_time_error, sizeof *m->time_error, cmp_te);
	free(bs);
	return pairs;
}

void sl_calib_time_error_free(sl_machine *m)
{
	for (size_t i = 0; i < m->n_time_error; i++)
		free(m->time_error[i].model);
	free(m->time_error);
	m->time_error = NULL;
	m->n_time_error = 0;
}
