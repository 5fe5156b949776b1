/*
 * bench-accuracy: how well does a profile predict another frequency?
 * Predicts a (replay) profile at the frequency of a truth trace of the same
 * program (`sleuth simulate` at that frequency) and compares each phase
 * instance's time with the truth: the paper's metric, the relative error of
 * each instance's time averaged weighted by its intervals.  For the linear
 * and the stall model.  bench/accuracy (the suite over every workload) is
 * built on it.
 *
 *   bench-accuracy PROFILE TRUTH_TRACE [--machine FILE]
 * prints: model  instances  avg_err  worst_err  total_err
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/machine.h"
#include "sleuth/model.h"
#include "sleuth/profile.h"
#include "sleuth/trace.h"

typedef struct acc_result {
	size_t instances;
	double avg;   /* interval-weighted mean relative error of instance times */
	double worst; /* the largest instance error */
	double total; /* relative error of the whole run's time */
} acc_result;

/* Per-interval times of a trace, checked to match the profile's length. */
static double *truth_times(const char *path, size_t n, double *ghz)
{
	sl_trace_reader *r = sl_trace_open(path);
	if (!r)
		return NULL;
	*ghz = sl_trace_header_of(r)->frequency_ghz;
	double *t = sl_xmalloc((n + 1) * sizeof *t);
	size_t i = 0;
	sl_trace_interval iv;
	int rc;
	while ((rc = sl_trace_next(r, &iv)) == 1) {
		if (i < n)
			t[i] = iv.t;
		i++;
	}
	sl_trace_close(r);
	if (rc < 0 || i != n) {
		if (rc >= 0)
			sl_error_set("%s has %zu intervals but the profile %zu: not a trace of "
				     "the same program", path, i, n);
		free(t);
		return NULL;
	}
	return t;
}

/* Compare the model's per-instance times at `ghz` with the truth. */
static int instance_error(const sl_model *md, double ghz, const double *truth,
			  acc_result *res)
{
	sl_opoint op;
	if (sl_model_opoint(md, ghz, &op) < 0)
		return -1;
	const sl_interp *v = &md->view;
	double wsum = 0, tp = 0, tt = 0;
	memset(res, 0, sizeof *res);
	for (size_t j = 0; j < v->n_instances; j++) {
		const sl_instance *in = &v->inst[j];
		double p = 0, t = 0;
		for (size_t i = in->first; i < in->first + in->n; i++) {
			p += sl_model_cycles(md, i, ghz) / (ghz * 1e9);
			t += truth[i];
		}
		double e = fabs(p - t) / t;
		res->avg += e * (double)in->n;
		wsum += (double)in->n;
		if (e > res->worst)
			res->worst = e;
		tp += p;
		tt += t;
	}
	res->instances = v->n_instances;
	res->avg /= wsum;
	res->total = fabs(tp - tt) / tt;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 && !(argc == 5 && !strcmp(argv[3], "--machine"))) {
		fprintf(stderr, "usage: bench-accuracy PROFILE TRUTH_TRACE [--machine FILE]\n");
		return 2;
	}
	sl_profile p;
	sl_machine m = {0};
	sl_profile_init(&p);
	double ghz = 0, *truth = NULL;
	int rc = 1;
	if (sl_profile_read(argv[1], &p) < 0)
		goto out;
	if (argc == 5 ? sl_machine_load(argv[4], &m) < 0
		      : !p.machine_text ||
				sl_machine_load_mem(argv[1], p.machine_text,
						    strlen(p.machine_text), &m) < 0)
		goto out;
	if (!(truth = truth_times(argv[2], p.n_intervals, &ghz)))
		goto out;
	printf("model   instances  avg_err  worst_err  total_err  (%.3g -> %.3g GHz)\n",
	       p.freq_ghz, ghz);
	for (int t = SL_TIME_STALL; t <= SL_TIME_LINEAR; t++) {
		sl_model md;
		acc_result r;
		if (sl_model_init(&md, &p, &m, (sl_time_model)t,
				  SL_MODEL_TIME_ONLY | SL_MODEL_EXTRAPOLATE) < 0)
			goto out;
		int e = instance_error(&md, ghz, truth, &r);
		sl_model_free(&md);
		if (e < 0)
			goto out;
		printf("%-7s %9zu  %6.2f%%  %8.2f%%  %8.2f%%\n", sl_time_model_name((sl_time_model)t),
		       r.instances, 100 * r.avg, 100 * r.worst, 100 * r.total);
	}
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "bench-accuracy: %s\n", sl_error());
	free(truth);
	sl_machine_free(&m);
	sl_profile_free(&p);
	return rc;
}
