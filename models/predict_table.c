/*
 * The table `sleuth predict` shows a person: per phase, time, power and
 * energy at each requested frequency, the phase's rank by time and by
 * energy there (which phases matter most), its sensitivity to frequency,
 * and how much of what the prediction rests on was measured rather than
 * inferred.  80 columns for up to two frequencies.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict_int.h"
#include "sleuth/common.h"
#include "util/term.h"

/* About four significant digits, never in exponent notation; "-" for a
 * value not predicted. */
static const char *num(char *b, size_t len, double v)
{
	if (!isfinite(v)) {
		snprintf(b, len, "-");
		return b;
	}
	double a = fabs(v);
	int dec = a < 10 ? 3 : a < 100 ? 2 : a < 1000 ? 1 : 0;
	snprintf(b, len, "%.*f", dec, v);
	return b;
}

/* Rank of phase `ph` by `key` among `order` (1 = largest). */
static int rank(const sl_agg *agg, const uint32_t *order, size_t n, uint32_t ph,
		int by_energy)
{
	double mine = by_energy ? agg[ph].energy_j : agg[ph].time_s;
	int r = 1;
	for (size_t j = 0; j < n; j++) {
		double other = by_energy ? agg[order[j]].energy_j : agg[order[j]].time_s;
		r += other > mine;
	}
	return r;
}

/* Time of every phase (and the total, at index n_phase_ids) at `ghz`. */
static double *phase_times(const sl_model *md, double ghz)
{
	uint32_t np = md->view.n_phase_ids;
	double *t = sl_xcalloc(np + 1, sizeof *t);
	const sl_profile *p = md->prof;
	for (size_t i = 0; i < p->n_intervals; i++) {
		double s = sl_model_cycles(md, i, ghz) / (ghz * 1e9);
		t[p->iv[i].phase] += s;
		t[np] += s;
	}
	return t;
}

static void header(FILE *f, const sl_model *md, const sl_predict_info *info)
{
	const sl_profile *p = md->prof;
	const sl_interp *v = &md->view;
	size_t n_order = 0;
	free(sl_phase_order(v, &n_order));
	fprintf(f, "Predictions for %s: %zu intervals, %zu phases, %zu instances\n",
		info && info->profile_path ? info->profile_path : "the profile",
		p->n_intervals, n_order, v->n_instances);
	fprintf(f, "  profiled at %.4g GHz (%s backend); %s time model\n", md->f0_ghz,
		p->backend ? p->backend : "?", sl_time_model_name(md->time));
	fprintf(f, "  machine %s (%s)\n", md->mach->name,
		info && info->machine_origin ? info->machine_origin : "given");
	if (md->anchor)
		fprintf(f, "  power anchored on the measured power (%s): %+.3g W over the "
			"counters at %.4g GHz\n", md->anchor->source, md->anchor->resid_w,
			md->f0_ghz);
	fprintf(f, "  counts:");
	/* measured always; the other sources when they hold any value */
	for (int rank = 0; rank < SL_SRC_N; rank++) {
		double sh = sl_interp_share(v, sl_src_by_rank(rank));
		if (rank && !sh)
			continue;
		fprintf(f, "%s %.1f%% %s", rank ? "," : "", 100 * sh,
			sl_src_name(sl_src_by_rank(rank)));
	}
	char *strip = sl_term_profile_strip(p, 64, sl_term_colour(f));
	fprintf(f, "\n  phases |%s|\n\n", strip);
	free(strip);
}

/* The main table: one block of columns per frequency, two frequencies
 * side by side at most, so that a line fits 100 columns however many are
 * asked for (--all: every P-state); sens closes each row of the last. */
#define OPS_PER_ROW 2

static void main_block(FILE *f, const sl_model *md, const sl_opoint *ops, size_t k0,
		       size_t k1, int last, sl_agg *const *agg, const sl_agg *tot,
		       const uint32_t *order, size_t n_order, const double *tmin,
		       const double *tmax)
{
	uint32_t np = md->view.n_phase_ids;
	char b1[32], b2[32], b3[32];
	int colour = sl_term_colour(f);
	fprintf(f, "     ");
	for (size_t k = k0; k < k1; k++) {
		char g[40];
		int n = snprintf(g, sizeof g, "%.4g GHz%s", ops[k].ghz,
				 ops[k].extrapolated ? " (extrapolated)" : "");
		int pad = n < 31 ? (31 - n) / 2 : 0;
		fprintf(f, " %*s%s", pad, "", g);
		if (k + 1 < k1)
			fprintf(f, "%*s", 31 - pad - n, "");
	}
	fprintf(f, "\nphase");
	for (size_t k = k0; k < k1; k++)
		fprintf(f, " %8s %7s %8s %5s", "time s", "power W", "energy J", "t/e");
	fprintf(f, last ? "   sens\n" : "\n");
	for (size_t j = 0; j <= n_order; j++) {
		int is_tot = j == n_order;
		uint32_t ph = is_tot ? 0 : order[j];
		if (is_tot)
			fprintf(f, "total");
		else
			sl_term_phase_id(f, ph, 5, colour);
		for (size_t k = k0; k < k1; k++) {
			const sl_agg *a = is_tot ? &tot[k] : &agg[k][ph];
			char rk[32] = "";
			if (!is_tot && md->power)
				snprintf(rk, sizeof rk, "%d/%d", rank(agg[k], order, n_order, ph, 0),
					 rank(agg[k], order, n_order, ph, 1));
			else if (!is_tot)
				snprintf(rk, sizeof rk, "%d/-", rank(agg[k], order, n_order, ph, 0));
			fprintf(f, " %8s %7s %8s %5s", num(b1, sizeof b1, a->time_s),
				num(b2, sizeof b2, sl_agg_power(a)),
				num(b3, sizeof b3, a->energy_j), rk);
		}
		size_t at = is_tot ? np : ph;
		if (last)
			fprintf(f, " %6.3f", tmax[at] > 0 ? tmin[at] / tmax[at] : NAN);
		fputc('\n', f);
	}
}

static void main_table(FILE *f, const sl_model *md, const sl_opoint *ops, size_t n_ops,
		       sl_agg *const *agg, const sl_agg *tot, const uint32_t *order,
		       size_t n_order, const double *tmin, const double *tmax)
{
	for (size_t k0 = 0; k0 < n_ops; k0 += OPS_PER_ROW) {
		size_t k1 = SL_MIN(n_ops, k0 + OPS_PER_ROW);
		if (k0)
			fputc('\n', f);
		main_block(f, md, ops, k0, k1, k1 == n_ops, agg, tot, order, n_order, tmin,
			   tmax);
	}
}

/* Where each phase's event values came from, and its clamps. */
static void shares_table(FILE *f, const sl_model *md, sl_agg *const *agg, size_t n_ops,
			 const uint32_t *order, size_t n_order)
{
	const sl_interp *v = &md->view;
	double (*sh)[SL_SRC_N] = sl_xcalloc(v->n_phase_ids + 1, sizeof *sh);
	sl_interp_phase_shares(v, sh);
	fprintf(f, "\nphase  ivls insts measured instance  phase similar  mixed program"
		   "  none clamped\n");
	for (size_t j = 0; j < n_order; j++) {
		uint32_t ph = order[j];
		size_t cl = 0;
		for (size_t k = 0; k < n_ops; k++)
			cl += agg[k][ph].clamped_idle + agg[k][ph].clamped_peak;
		fprintf(f, "%5u %5zu %5zu", ph, agg[0][ph].intervals, agg[0][ph].instances);
		fprintf(f, " %7.1f%% %7.1f%% %5.1f%% %6.1f%% %5.1f%% %6.1f%% %4.1f%% %7zu\n",
			100 * sh[ph][SL_SRC_MEASURED], 100 * sh[ph][SL_SRC_INSTANCE],
			100 * sh[ph][SL_SRC_PHASE], 100 * sh[ph][SL_SRC_SIMILAR],
			100 * sh[ph][SL_SRC_MIXED],
			100 * sh[ph][SL_SRC_PROGRAM], 100 * sh[ph][SL_SRC_NONE], cl);
	}
	free(sh);
}

static void footer(FILE *f, const sl_model *md, const sl_predict_stats *st)
{
	double lo = sl_machine_fmin(md->mach), hi = sl_machine_fmax(md->mach);
	fprintf(f, "\nt/e: rank by time / by energy at that frequency (1 = the largest).\n"
		   "sens: time at %.4g GHz / time at %.4g GHz: %.2f if compute-bound,\n"
		   "      near 1 if memory-bound.\n", lo, hi, hi / lo);
	if (md->power)
		fprintf(f, "clamped: interval predictions whose power was clamped to idle "
			   "or peak:\n         %llu of %llu (%llu idle, %llu peak).\n",
			(unsigned long long)(st->clamped_idle + st->clamped_peak),
			(unsigned long long)st->predictions,
			(unsigned long long)st->clamped_idle,
			(unsigned long long)st->clamped_peak);
	else if (!sl_machine_complete(md->mach))
		fprintf(f, "time only: the machine has no fitted power model.\n");
	else
		fprintf(f, "time only: --time-only, or a power-model event the profile "
			   "never measured.\n");
}

/* `e`, or the errno of a write that failed since (EIO when stdio kept
 * none). */
static int write_errno(FILE *f, int e)
{
	return e ? e : !ferror(f) ? 0 : errno ? errno : EIO;
}

int sl_predict_table(FILE *f, const sl_model *md, const sl_opoint *ops, size_t n_ops,
		     const sl_predict_info *info, sl_predict_stats *stats)
{
	const sl_interp *v = &md->view;
	size_t n_order = 0;
	uint32_t *order = sl_phase_order(v, &n_order);
	sl_agg **agg = sl_xcalloc(n_ops + 1, sizeof *agg);
	sl_agg *tot = sl_xcalloc(n_ops + 1, sizeof *tot);
	for (size_t k = 0; k < n_ops; k++) {
		agg[k] = sl_xcalloc(v->n_phase_ids + 1, sizeof **agg);
		sl_model_aggregate(md, &ops[k], agg[k], NULL, &tot[k]);
		sl_stats_add(stats, &tot[k]);
	}
	double *tmin = phase_times(md, sl_machine_fmin(md->mach));
	double *tmax = phase_times(md, sl_machine_fmax(md->mach));

	/* the error of the first failed write: stdio keeps only the flag, and
	 * a last fflush with nothing left to write says nothing */
	header(f, md, info);
	int e = write_errno(f, 0);
	main_table(f, md, ops, n_ops, agg, tot, order, n_order, tmin, tmax);
	e = write_errno(f, e);
	if (n_ops)
		shares_table(f, md, agg, n_ops, order, n_order);
	e = write_errno(f, e);
	footer(f, md, stats);

	for (size_t k = 0; k < n_ops; k++)
		free(agg[k]);
	free(agg);
	free(tot);
	free(order);
	free(tmin);
	free(tmax);
	if (fflush(f) != 0 && !e)
		e = errno;
	e = write_errno(f, e);
	if (e) {
		sl_error_set("cannot write the predictions: %s", strerror(e ? e : EIO));
		return -1;
	}
	return 0;
}
