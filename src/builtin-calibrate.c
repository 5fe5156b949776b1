/*
 * `sleuth calibrate`: fit a machine's power model to reference power
 * measurements and write the complete sleuth-machine/1 file.  The fitting
 * itself is in calib/ (include/sleuth/calib.h); this file turns the command
 * line into training runs, prints the report and writes the model.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "sleuth/calib.h"
#include "sleuth/common.h"
#include "sleuth/hw.h"
#include "sleuth/machine.h"
#include "sleuth/model.h"
#include "sleuth/powerlog.h"
#include "util/term.h"

#define CMD "calibrate"
/* The least spread of training temperatures (deg C) to fit leakage on. */
#define TEMP_MIN_RANGE 2.0

/* --temp-term: fit static power's temperature dependence when the data
 * allows and it lowers the leave-one-workload-out error (auto), whenever
 * the data allows (on: an error when it does not), or never (off). */
enum { TT_AUTO = 0, TT_ON, TT_OFF };

typedef struct cal_opts {
	const char *machine, *out, *idle, *column;
	int sweep;          /* --sweep: run the training suite at every P-state */
	const char *sim, *sysfs, *keep;
	uint64_t intervals;
	double seconds;
	size_t select;    /* 0: the skeleton's power terms */
	int select_cycles; /* --select-cycles */
	int select_energy; /* --select-energy */
	int robust;
	int temp_term;    /* TT_* */
	double offset;
	int time_error_only; /* --time-error-only: only the machine's time_error: */
	int thermal_only;    /* --thermal-only: only the machine's thermal: */
	const char *fit_opt; /* the last option about the power fit, for the error */
	char **inputs;
	size_t n_inputs;
} cal_opts;

/* What the command did, for the report and the model's comment. */
typedef struct cal_state {
	sl_machine m;
	sl_calib_run *runs;
	size_t n_runs;
	size_t uncovered, too_short;
	double max_spacing;
	double *static_w;      /* idle log: per machine P-state */
	unsigned char *idle_measured;
	sl_calib_data d;
	size_t *terms, n_terms;
	double *select_cv;
	sl_calib_fit fit;
	int cv_ok;
	char cv_why[512];
	int novolts, volt_iters; /* the machine gave no volts: fitted */
	double temp_lo, temp_hi; /* range of the training temperatures */
	double *run_temp;        /* --sweep: each input's temperature, or NULL */
	int temp_known;          /* every interval had one */
	/* the skeleton's thermal block measured the leakage per degree: taken
	 * out of the training power at leak_ref_c, where static_w then holds */
	int leak_removed;
	double leak_ref_c;
	/* --temp-term auto judged the term by cross-validation: the errors
	 * with and without it, and whether it was left out */
	int temp_judged, temp_dropped;
	double temp_cv_with, temp_cv_without;
	/* the skeleton's keep: auto terms, judged the same way: per skeleton
	 * term, 1 kept, -1 left out, 0 not judged (keep: always, or no
	 * cross-validation), and the errors with and without it */
	int *auto_kept;
	double *auto_cv_with, *auto_cv_without;
	FILE *rep;             /* the report: stdout, or stderr when the model is */
} cal_state;

static int parse(int argc, char **argv, cal_opts *o)
{
	static const struct option lo[] = {
		{"machine", required_argument, 0, 'm'},
		{"output", required_argument, 0, 'o'},
		{"idle-log", required_argument, 0, 'i'},
		{"select", required_argument, 0, 's'},
		{"select-cycles", no_argument, 0, 'y'},
		{"select-energy", no_argument, 0, 'J'},
		{"robust", no_argument, 0, 'r'},
		{"log-offset", required_argument, 0, 'L'},
		{"column", required_argument, 0, 'c'},
		{"quiet", no_argument, 0, 'q'},
		{"sweep", no_argument, 0, 'S'},
		{"sim", required_argument, 0, 'M'},
		{"sysfs", required_argument, 0, 'Y'},
		{"keep", required_argument, 0, 'K'},
		{"intervals", required_argument, 0, 'N'},
		{"seconds", required_argument, 0, 'T'},
		{"temp-term", required_argument, 0, 'E'},
		{"time-error-only", no_argument, 0, 'X'},
		{"thermal-only", no_argument, 0, 'H'},
		{0, 0, 0, 0}};
	int c;
	uint64_t k;
	memset(o, 0, sizeof *o);
	optind = 1;
	while ((c = getopt_long(argc, argv, ":m:o:q", lo, NULL)) != -1) {
		if (c > 0 && strchr("isyJrLcSE", c)) /* about the power fit (or --sweep) */
			for (const struct option *l = lo; l->name; l++)
				if (l->val == c)
					o->fit_opt = l->name;
		switch (c) {
		case 'X': o->time_error_only = 1; break;
		case 'H': o->thermal_only = 1; break;
		case 'm': o->machine = optarg; break;
		case 'o': o->out = optarg; break;
		case 'i': o->idle = optarg; break;
		case 'c': o->column = optarg; break;
		case 'r': o->robust = 1; break;
		case 'y': o->select_cycles = 1; break;
		case 'J': o->select_energy = 1; break;
		case 'q': sl_quiet = 1; break;
		case 'S': o->sweep = 1; break;
		case 'E':
			if (!strcmp(optarg, "auto"))
				o->temp_term = TT_AUTO;
			else if (!strcmp(optarg, "on"))
				o->temp_term = TT_ON;
			else if (!strcmp(optarg, "off"))
				o->temp_term = TT_OFF;
			else
				return sl_usage_error(CMD, "--temp-term '%s': give auto, on or "
						      "off", optarg);
			break;
		case 'M': o->sim = optarg; break;
		case 'Y': o->sysfs = optarg; break;
		case 'K': o->keep = optarg; break;
		case 'T':
			if (sl_parse_double(optarg, &o->seconds) < 0 || !(o->seconds > 0))
				return sl_usage_error(CMD, "--seconds '%s': give the seconds of "
						      "each training run, e.g. 2", optarg);
			break;
		case 'N':
			if (sl_parse_u64(optarg, &o->intervals) < 0 || !o->intervals)
				return sl_usage_error(CMD, "--intervals '%s': give a number of "
						      "intervals per run", optarg);
			break;
		case 's':
			if (sl_parse_u64(optarg, &k) < 0 || k < 1 || k > 64)
				return sl_usage_error(CMD, "--select '%s': give a number of "
						      "events from 1 to 64", optarg);
			o->select = (size_t)k;
			break;
		case 'L':
			if (sl_parse_double(optarg, &o->offset) < 0)
				return sl_usage_error(CMD, "--log-offset '%s': give seconds, "
						      "e.g. 12.5 or -0.25", optarg);
			break;
		default:
			return sl_bad_option(CMD, c, argv);
		}
	}
	if (!o->machine)
		return sl_usage_error(CMD, "no machine skeleton; give --machine SKELETON.yaml");
	if (!o->out)
		return sl_usage_error(CMD, "no output file; give -o MODEL.yaml");
	if (!o->sweep && (o->sim || o->sysfs || o->keep || o->intervals || o->seconds))
		return sl_usage_error(CMD, "--sim, --sysfs, --keep, --intervals and --seconds "
				      "go with --sweep");
	if (o->sweep && optind < argc)
		return sl_usage_error(CMD, "--sweep makes its own training runs; drop the "
				      "inputs ('%s')", argv[optind]);
	if (o->time_error_only && o->thermal_only)
		return sl_usage_error(CMD, "--time-error-only and --thermal-only measure "
				      "different runs; give one of them");
	if ((o->time_error_only || o->thermal_only) && (o->fit_opt || o->sweep))
		return sl_usage_error(CMD, "--%s fits no power model; drop --%s",
				      o->thermal_only ? "thermal-only" : "time-error-only",
				      o->sweep ? "sweep" : o->fit_opt);
	if (o->sweep)
		return 0;
	if (optind >= argc && o->time_error_only)
		return sl_usage_error(CMD, "no profiles; give each training workload's "
				      "profiles at several frequencies");
	if (optind >= argc && o->thermal_only)
		return sl_usage_error(CMD, "no profiles; give profiles of a steady load that "
				      "warms the die, at two P-states or more");
	if (optind >= argc)
		return sl_usage_error(CMD, "no training inputs; give PROFILE:LOG.csv, "
				      "PROFILE or TRACE arguments, or --sweep");
	o->inputs = argv + optind;
	o->n_inputs = (size_t)(argc - optind);
	return 0;
}

/*
 * One INPUT: "FILE" when such a file exists, else "FILE:LOG.csv" split at
 * the last colon.  Its energies come from the log when one is given, else
 * from the file itself.
 */
static int load_input(const cal_opts *o, cal_state *st, const char *input)
{
	sl_calib_run *r = &st->runs[st->n_runs];
	char *path = sl_xstrdup(input), *log = NULL;
	char *colon = strrchr(path, ':');
	if (access(path, F_OK) != 0 && colon && colon != path && colon[1]) {
		*colon = 0;
		log = colon + 1;
	}
	int rc = sl_calib_run_load(r, path);
	if (rc == 0)
		st->n_runs++;
	/* a sweep knows each run's die temperature (hwmon): every interval
	 * that did not record its own gets it, so that static power can be
	 * fitted against temperature */
	if (rc == 0 && st->run_temp && isfinite(st->run_temp[st->n_runs - 1]))
		for (size_t i = 0; i < r->n; i++)
			if (isnan(r->temp_c[i]))
				r->temp_c[i] = st->run_temp[st->n_runs - 1];
	if (rc == 0 && log) {
		sl_powerlog pl;
		sl_calib_align al;
		rc = sl_powerlog_read(&pl, log, o->column, o->offset);
		if (rc == 0) {
			rc = sl_calib_attach_log(r, &pl, &al);
			st->uncovered += al.uncovered;
			st->too_short += al.too_short;
			if (al.too_short)
				st->max_spacing = SL_MAX(st->max_spacing, pl.spacing);
			sl_powerlog_free(&pl);
		}
	} else if (rc == 0) {
		size_t i = 0;
		while (i < r->n && isnan(r->energy_j[i]))
			i++;
		if (i == r->n) {
			sl_error_set("%s carries no reference energy (no 'e' in a trace, "
				     "no --power in a profile); pair it with a power log: "
				     "%s:LOG.csv", path, path);
			rc = -1;
		}
	}
	free(path);
	return rc;
}

/* Static power per machine P-state from the idle log: measured where the
 * log has the P-state, interpolated in voltage elsewhere. */
static int idle_static(const cal_opts *o, cal_state *st)
{
	sl_idlelog il;
	if (sl_idlelog_read(&il, o->idle, o->column) < 0)
		return -1;
	const sl_machine *m = &st->m;
	int *ps = sl_xcalloc(il.n, sizeof *ps);
	int rc = 0;
	for (size_t j = 0; j < il.n && rc == 0; j++) {
		ps[j] = sl_machine_pstate(m, il.ghz[j]);
		if (ps[j] < 0) {
			sl_error_set("%s:%d: %g GHz is not a P-state of machine %s; "
				     "idle rows must be at the skeleton's frequencies",
				     o->idle, il.line[j], il.ghz[j], m->name);
			rc = -1;
		}
	}
	for (size_t s = 0; rc == 0 && st->novolts && s < m->n_pstates; s++) {
		size_t j = 0;
		while (j < il.n && ps[j] != (int)s)
			j++;
		if (j == il.n) {
			sl_error_set("%s has no row at %g GHz, and machine %s gives no volts to "
				     "interpolate by; log idle power at every P-state", o->idle,
				     m->pstates[s].ghz, m->name);
			rc = -1;
		}
	}
	if (rc == 0) {
		st->static_w = sl_xcalloc(m->n_pstates, sizeof *st->static_w);
		st->idle_measured = sl_xcalloc(m->n_pstates, 1);
		sl_calib_static_interp(m, ps, il.power_w, il.n, st->static_w);
		for (size_t j = 0; j < il.n; j++)
			st->idle_measured[ps[j]] = 1;
	}
	free(ps);
	sl_idlelog_free(&il);
	return rc;
}

/* The events to fit: the skeleton's power terms, or --select K of them. */
static int choose_terms(const cal_opts *o, cal_state *st, const sl_calib_opts *co)
{
	const sl_machine *m = &st->m;
	if (o->select) {
		free(st->terms);
		free(st->select_cv);
		st->n_terms = o->select;
		st->terms = sl_xcalloc(o->select, sizeof *st->terms);
		st->select_cv = sl_xcalloc(o->select, sizeof *st->select_cv);
		if (sl_calib_select(&st->d, m, o->select, co, st->terms, st->select_cv) < 0)
			return -1;
		return 0;
	}
	if (!m->n_terms) {
		sl_error_set("%s lists no power terms; list the events to fit under "
			     "power: {terms: [{event: ...}]}, or let --select K choose",
			     o->machine);
		return -1;
	}
	st->n_terms = m->n_terms;
	st->terms = sl_xcalloc(m->n_terms, sizeof *st->terms);
	for (size_t k = 0; k < m->n_terms; k++) {
		int e = sl_calib_data_event(&st->d, m->terms[k].event);
		if (e < 0) {
			sl_error_set("power term '%s' of %s was not counted in any training "
				     "input; count it, or let --select K choose the events",
				     m->terms[k].event, o->machine);
			return -1;
		}
		st->terms[k] = (size_t)e + (m->terms[k].energy ? st->d.n_events : 0);
	}
	return 0;
}

/* "2.66, 1.6" for the P-states whose flag is (not) set. */
static void ghz_list(char *buf, size_t len, const sl_machine *m,
		     const unsigned char *flag, int want)
{
	size_t n = 0;
	buf[0] = 0;
	for (size_t s = 0; s < m->n_pstates && n + 16 < len; s++)
		if (!!flag[s] == want)
			n += (size_t)snprintf(buf + n, len - n, "%s%g", n ? ", " : "",
					      m->pstates[s].ghz);
}

static void static_flags(const cal_state *st, unsigned char *flag)
{
	const sl_machine *m = &st->m;
	memset(flag, 0, m->n_pstates);
	if (st->idle_measured)
		memcpy(flag, st->idle_measured, m->n_pstates);
	else
		for (size_t j = 0; j < st->fit.n_fitted_ps; j++)
			flag[st->fit.fitted_ps[j]] = 1;
}

/* One line on where static power came from (report and model comment). */
static char *static_line(const cal_opts *o, const cal_state *st)
{
	const sl_machine *m = &st->m;
	unsigned char *flag = sl_xmalloc(m->n_pstates);
	char got[512], other[512];
	static_flags(st, flag);
	ghz_list(got, sizeof got, m, flag, 1);
	ghz_list(other, sizeof other, m, flag, 0);
	free(flag);
	char *s;
	if (o->idle)
		s = sl_xasprintf("static power: idle log %s at %s GHz%s%s%s", o->idle, got,
				 *other ? "; interpolated in voltage at " : "", other,
				 *other ? " GHz" : "");
	else
		s = sl_xasprintf("static power: no idle log, so one activity-independent "
				 "term per P-state was fitted (%s GHz)%s%s%s; the Ceff constant "
				 "is fixed at 0, its power is in these terms", got,
				 *other ? "; interpolated in voltage at " : "", other,
				 *other ? " GHz" : "");
	return s;
}

static void pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f%%", 100 * v);
}

/* Which input never counted which model event: the usual reason for the
 * drop above (a profile recorded with another machine's events). */
static void never_counted(const cal_state *st)
{
	for (size_t r = 0; r < st->n_runs; r++) {
		const sl_calib_run *run = &st->runs[r];
		for (size_t k = 0; k < st->n_terms; k++) {
			const char *ev = st->d.events[sl_calib_term_event(&st->d, st->terms[k])];
			size_t j = 0;
			while (j < run->n_events && strcmp(run->events[j], ev))
				j++;
			if (j == run->n_events)
				fprintf(st->rep, "    %s never counted %s\n", run->input, ev);
		}
	}
}

/* The report's lines on the keep: auto terms. */
static void auto_terms_report(const cal_state *st)
{
	for (size_t k = 0; st->auto_kept && k < st->m.n_terms; k++) {
		if (!st->auto_kept[k])
			continue;
		const sl_power_term *t = &st->m.terms[k];
		char with[64];
		/* NAN: its fit could not be cross-validated (too few workloads
		 * count the event, say), so it was left out */
		if (isnan(st->auto_cv_with[k]))
			snprintf(with, sizeof with, "none with it (not computable)");
		else
			snprintf(with, sizeof with, "%.2f%% with it", 100 * st->auto_cv_with[k]);
		fprintf(st->rep, "term %s (%skeep: auto): %s, leave-one-workload-out error "
			"%s, %.2f%% without\n", t->event, t->energy ? "energy, " : "",
			st->auto_kept[k] > 0 ? "kept" : "left out", with,
			100 * st->auto_cv_without[k]);
	}
}

static void report(const cal_opts *o, const cal_state *st)
{
	const sl_calib_data *d = &st->d;
	const sl_calib_fit *f = &st->fit;
	const sl_machine *m = &st->m;
	fprintf(st->rep, "machine %s: %zu training intervals used, from %zu inputs of %zu "
	       "workloads\n", m->name, f->n_used, st->n_runs, d->n_workloads);
	if (st->uncovered)
		fprintf(st->rep, "  %zu intervals not fully covered by their power log: dropped\n",
		       st->uncovered);
	if (st->too_short)
		fprintf(st->rep, "  %zu intervals shorter than their log's sample spacing: dropped\n",
		       st->too_short);
	if (d->no_energy > st->uncovered + st->too_short)
		fprintf(st->rep, "  %zu intervals without measured energy: dropped\n",
		       d->no_energy - st->uncovered - st->too_short);
	if (d->no_cycles)
		fprintf(st->rep, "  %zu intervals without a cycle count: dropped\n", d->no_cycles);
	if (d->n > f->n_used)
		fprintf(st->rep, "  %zu intervals without a rate for a model event (not counted in "
		       "their run, or never in their phase): dropped\n",
		       d->n - f->n_used);
	if (d->n > f->n_used)
		never_counted(st);
	if (f->n_filled)
		fprintf(st->rep, "  %zu intervals with a multiplexed (unmeasured) model event use "
		       "its mean rate over the measured intervals of their phase\n",
		       f->n_filled);
	char *sl = static_line(o, st);
	fprintf(st->rep, "%s\n", sl);
	free(sl);
	auto_terms_report(st);
	if (st->temp_dropped)
		fprintf(st->rep, "temperature: a term fitted on %.1f to %.1f C did not lower the "
			"leave-one-workload-out error (%.2f%% with it, %.2f%% without): left "
			"out (--temp-term on keeps it)\n", st->temp_lo, st->temp_hi,
			100 * st->temp_cv_with, 100 * st->temp_cv_without);
	else if (st->leak_removed)
		fprintf(st->rep, "temperature: static_w at %.0f C; static power + the leakage's "
			"change from it that the thermal: block measured (training %.1f to %.1f "
			"C)\n", st->leak_ref_c, st->temp_lo, st->temp_hi);
	else if (st->temp_known && !f->has_temp && o->temp_term == TT_OFF)
		fprintf(st->rep, "temperature: %.1f to %.1f C in training; not fitted "
			"(--temp-term off)\n", st->temp_lo, st->temp_hi);
	else if (st->temp_known && !f->has_temp)
		fprintf(st->rep, "temperature: %.1f to %.1f C in training, too narrow a spread "
			"to fit its effect on static power (%.0f C needed)\n", st->temp_lo,
			st->temp_hi, TEMP_MIN_RANGE);
	else if (f->has_temp) {
		fprintf(st->rep, "temperature: static power + %.4g W per volt per C above "
			"%.0f C (+- %.2g), fitted on %.1f to %.1f C\n", f->temp_coeff,
			f->temp_ref, f->temp_coeff_se, st->temp_lo, st->temp_hi);
		if (st->temp_judged)
			fprintf(st->rep, "  (leave-one-workload-out error %.2f%% with the term, "
				"%.2f%% without)\n", 100 * st->temp_cv_with,
				100 * st->temp_cv_without);
	}
	else
		fprintf(st->rep, "temperature: not in the inputs, so static power does not "
			"depend on it\n");
	if (st->novolts)
		fprintf(st->rep, "voltages: %s gives none, so each P-state's relative V was fitted "
			"(V^2 folded into one number per P-state; %d alternating least-squares "
			"iterations); volts below are relative to the fastest trained P-state\n",
			o->machine, st->volt_iters);
	if (o->select) {
		fprintf(st->rep, "events chosen by greedy forward selection on leave-one-workload-out "
		       "error:\n");
		size_t best = 0;
		for (size_t k = 0; k < st->n_terms; k++) {
			char *name = sl_calib_term_name(d, st->terms[k]);
			fprintf(st->rep, "  %zu. %-36s CV error %.2f%%\n", k + 1, name,
				100 * st->select_cv[k]);
			free(name);
			if (st->select_cv[k] < st->select_cv[best])
				best = k;
		}
		if (best + 1 < st->n_terms)
			fprintf(st->rep, "  (the cross-validated error is lowest with the first %zu: "
			       "--select %zu would generalise better)\n", best + 1, best + 1);
	}
	fprintf(st->rep, "\nCeff (nF) = constant + sum of coeff * count/cycles; terms marked "
		"energy add coeff (nJ) * count/time%s\n",
	       o->robust ? " (robust bisquare regression)" : " (least squares)");
	fprintf(st->rep, "  %-36s %12s %12s\n", "term", "coeff", "std. error");
	if (o->idle)
		fprintf(st->rep, "  %-36s %12.6g %12.3g\n", "constant", f->constant, f->constant_se);
	else
		fprintf(st->rep, "  %-36s %12.6g %12s\n", "constant", 0.0, "(fixed)");
	for (size_t k = 0; k < f->n_terms; k++) {
		char *name = sl_calib_term_name(d, f->term[k]);
		fprintf(st->rep, "  %-36s %12.6g %12.3g\n", name, f->coeff[k], f->coeff_se[k]);
		free(name);
	}
	fprintf(st->rep, "static_w (W):\n");
	for (size_t s = 0; s < m->n_pstates; s++) {
		size_t j = 0;
		while (j < f->n_fitted_ps && f->fitted_ps[j] != (int)s)
			j++;
		const char *how = o->idle ? (st->idle_measured[s] ? "idle log" : "interpolated")
					  : (j < f->n_fitted_ps ? "fitted" : "interpolated");
		fprintf(st->rep, "  %6g GHz %7.4f V %10.4f  %s", m->pstates[s].ghz, m->pstates[s].volts,
		       f->static_w[s], how);
		if (!o->idle && j < f->n_fitted_ps)
			fprintf(st->rep, " +- %.3g", f->fitted_se[j]);
		fprintf(st->rep, "\n");
	}
	fprintf(st->rep, "\nR^2 of interval power %.6f, condition number %.3g\n", f->r2, f->cond);
	fprintf(st->rep, "mean absolute error of interval power, per workload:\n");
	fprintf(st->rep, "  %-24s %9s %10s %12s\n", "workload", "intervals", "fit", "LOWO CV");
	char a[32], b[32];
	for (size_t w = 0; w < d->n_workloads; w++) {
		pct(a, sizeof a, f->wl_mape[w]);
		pct(b, sizeof b, st->cv_ok ? f->wl_cv_mape[w] : NAN);
		fprintf(st->rep, "  %-24s %9zu %10s %12s\n", d->workloads[w], f->wl_n[w], a, b);
	}
	pct(a, sizeof a, f->mape);
	pct(b, sizeof b, st->cv_ok ? f->cv_mape : NAN);
	fprintf(st->rep, "  %-24s %9zu %10s %12s\n", "all (interval-weighted)", f->n_used, a, b);
	if (!st->cv_ok)
		fprintf(st->rep, "  no leave-one-workload-out error: %s\n", st->cv_why);
}

/* (floor: the model's least Ceff, sl_model_ceff_floor: a core stalled in
 * every cycle when negative cycle-count terms let it fall below 0) */
static void warnings(const cal_state *st, double floor)
{
	const sl_calib_fit *f = &st->fit;
	if (st->too_short)
		sl_warn("%zu intervals were shorter than their power log's sample "
			"spacing (up to %.3g s) and were dropped; log faster or use "
			"longer intervals", st->too_short, st->max_spacing);
	if (f->cond > SL_CALIB_COND_WARN)
		sl_warn("the fit is ill-conditioned (condition number %.3g): "
			"near-collinear columns %s; their coefficients are unreliable, "
			"fit fewer or other events", f->cond,
			f->collinear ? f->collinear : "(unknown)");
	/* below 0 down to the floor is a stalled core gating its clock, which
	 * static_w holds: what the model means, and predict keeps */
	if (f->n_neg_ceff && f->min_ceff < floor)
		sl_warn("the model predicts a negative Ceff (down to %.4g nF) for %zu of "
			"%zu training intervals", f->min_ceff, f->n_neg_ceff, f->n_used);
}

/* The model's leading comment: from what and when it was fitted. */
static char *model_comment(const cal_opts *o, const cal_state *st)
{
	char when[32], ins[600] = "";
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	size_t n = 0;
	for (size_t i = 0; i < o->n_inputs; i++) {
		if (n + strlen(o->inputs[i]) + 16 >= sizeof ins) {
			snprintf(ins + n, sizeof ins - n, " ... (%zu in all)", o->n_inputs);
			break;
		}
		n += (size_t)snprintf(ins + n, sizeof ins - n, "%s%s", i ? " " : "",
				      o->inputs[i]);
	}
	char *sl = static_line(o, st);
	char tl[160] = "";
	if (st->fit.has_temp)
		snprintf(tl, sizeof tl, "temperature: static_w holds at %.0f C; +%.4g W per volt "
			 "per C above it (fitted on %.1f to %.1f C)\n", st->fit.temp_ref,
			 st->fit.temp_coeff, st->temp_lo, st->temp_hi);
	else if (st->leak_removed)
		snprintf(tl, sizeof tl, "temperature: static_w holds at %.0f C; the thermal: "
			 "block's measured leakage taken out of the training power (%.1f to "
			 "%.1f C)\n", st->leak_ref_c, st->temp_lo, st->temp_hi);
	char cv[64] = "no cross-validation", *at = NULL;
	/* every judged term, however long its event's name */
	for (size_t k = 0; st->auto_kept && k < st->m.n_terms; k++)
		if (st->auto_kept[k]) {
			char *a = sl_xasprintf("%s%s%s%s %s", at ? at : " (keep: auto: ",
					       at ? ", " : "", st->m.terms[k].event,
					       st->m.terms[k].energy ? " (energy)" : "",
					       st->auto_kept[k] > 0 ? "kept" : "left out");
			free(at);
			at = a;
		}
	if (st->cv_ok)
		snprintf(cv, sizeof cv, "leave-one-workload-out error %.2f%%",
			 100 * st->fit.cv_mape);
	char *s = sl_xasprintf(
		"fitted by sleuth calibrate %s on %s\n"
		"skeleton: %s\n"
		"training: %zu intervals of %zu workloads: %s\n"
		"%s\n%s%s"
		"events: %s%s%s; %s fit: R^2 %.4f, mean abs. error of interval power "
		"%.2f%%, %s",
		SLEUTH_VERSION, when, o->machine, st->fit.n_used, st->d.n_workloads, ins,
		sl, st->novolts ? "volts: RELATIVE (the skeleton gave none): each P-state's V "
				  "fitted, 1 at the fastest trained one\n" : "", tl, o->select ? "chosen by --select (greedy, leave-one-workload-out)"
			      : "from the skeleton", at ? at : "", at ? ")" : "",
		o->robust ? "robust" : "least-squares", st->fit.r2, 100 * st->fit.mape, cv);
	free(sl);
	free(at);
	return s;
}

/* Leave-one-workload-out error of the chosen events with or without the
 * temperature term; -1 when it cannot be computed. */
static int temp_cv(const cal_state *st, const sl_calib_opts *co, int temp, double *cv)
{
	sl_calib_opts c = *co;
	c.temp = temp;
	return sl_calib_terms_cv(&st->d, &st->m, st->terms, st->n_terms, &c, cv);
}

/*
 * The skeleton's keep: auto terms, each kept only if it lowers the
 * leave-one-workload-out error (sl_calib_keep_auto); the kept terms replace
 * st->terms in the skeleton's order.  Unjudgeable (one workload) every term
 * is kept.
 */
static void judge_terms(const cal_opts *o, cal_state *st, const sl_calib_opts *co)
{
	const sl_machine *m = &st->m;
	size_t n_auto = 0, n = 0;
	for (size_t k = 0; k < m->n_terms; k++)
		n_auto += m->terms[k].keep_auto;
	if (o->select || !n_auto)
		return;
	int *kept = sl_xcalloc(m->n_terms, sizeof *kept);
	double *with = sl_xcalloc(m->n_terms, sizeof *with);
	double *without = sl_xcalloc(m->n_terms, sizeof *without);
	if (sl_calib_keep_auto(&st->d, m, st->terms, co, kept, with, without) < 0) {
		free(kept);
		free(with);
		free(without);
		return;
	}
	st->auto_kept = kept;
	st->auto_cv_with = with;
	st->auto_cv_without = without;
	for (size_t k = 0; k < m->n_terms; k++)
		if (kept[k] >= 0)
			st->terms[n++] = st->terms[k];
	st->n_terms = n;
}

/*
 * --temp-term auto: keep the temperature term only if it lowers the
 * leave-one-workload-out error.  Within a P-state, temperature often
 * follows activity (the die warms as a program runs), so a term can fit
 * the training set and still predict other programs worse; unjudgeable
 * (one workload) it is kept.  With fitted relative voltages, they are held
 * at their values for both.
 */
static void judge_temp(cal_state *st, sl_calib_opts *co)
{
	double with = NAN, without = NAN; /* set by temp_cv when it succeeds */
	if (temp_cv(st, co, 1, &with) < 0 || temp_cv(st, co, 0, &without) < 0)
		return;
	st->temp_judged = 1;
	st->temp_cv_with = with;
	st->temp_cv_without = without;
	if (!(with < without)) {
		co->temp = 0;
		st->temp_dropped = 1;
	}
}

/* The time models' residuals measured on tpairs runs (time_error:). */
static void time_error_report(FILE *f, const sl_machine *m, size_t tpairs)
{
	if (tpairs)
		fprintf(f, "time models, per-phase error predicting %zu slower runs from each "
			"workload's fastest (time_error:)\n", tpairs);
	for (size_t i = 0; i < m->n_time_error; i++) {
		const sl_time_error *e = &m->time_error[i];
		fprintf(f, "  %-7s %g -> %g GHz: rms %.2f%%, mean %+.2f%%, worst %.2f%% "
			"(%zu phases)\n", e->model, e->from_ghz, e->ghz, 100 * e->rms,
			100 * e->mean, 100 * e->worst, e->phases);
	}
}

static int run(const cal_opts *o, cal_state *st)
{
	if (sl_machine_load(o->machine, &st->m) < 0)
		return -1;
	if (!sl_machine_has_volts(&st->m)) {
		/* fitted below (calib/novolts.c); 1 V until then */
		st->novolts = 1;
		for (size_t s = 0; s < st->m.n_pstates; s++)
			st->m.pstates[s].volts = 1;
	}
	if (o->idle && idle_static(o, st) < 0)
		return -1;
	st->runs = sl_xcalloc(o->n_inputs, sizeof *st->runs);
	sl_progress pg; /* reading large traces takes a while */
	sl_progress_start(&pg, o->n_inputs, "reading training inputs");
	for (size_t i = 0; i < o->n_inputs; i++) {
		sl_progress_update(&pg, i);
		if (load_input(o, st, o->inputs[i]) < 0) {
			sl_progress_finish(&pg);
			return -1;
		}
	}
	sl_progress_finish(&pg);
	if (sl_calib_data_build(&st->d, &st->m, st->runs, st->n_runs) < 0)
		return -1;
	sl_calib_opts co = {.static_w = st->static_w, .robust = o->robust,
			    .select_cycles = o->select_cycles,
			    .select_energy = o->select_energy};
	double tmean, trange;
	if (sl_calib_data_temps(&st->d, &tmean, &trange) == 0) {
		st->temp_known = 1;
		st->temp_lo = INFINITY;
		st->temp_hi = -INFINITY;
		for (size_t i = 0; i < st->d.n; i++) {
			st->temp_lo = SL_MIN(st->temp_lo, st->d.temp[i]);
			st->temp_hi = SL_MAX(st->temp_hi, st->d.temp[i]);
		}
		/* a term needs temperatures that vary beyond a sensor's steps */
		co.temp = trange >= TEMP_MIN_RANGE && o->temp_term != TT_OFF;
		co.temp_ref = round(tmean);
		if (st->m.n_leak && o->temp_term != TT_OFF) {
			/* measured (calibrate --thermal-only), not fitted: a
			 * coefficient fitted here would take the activity that
			 * warms the die for leakage */
			co.temp = 0;
			st->leak_removed = 1;
			st->leak_ref_c = co.temp_ref;
			for (size_t i = 0; i < st->d.n; i++) {
				double g = st->m.pstates[st->d.ps[i]].ghz, v = st->d.v[i];
				st->d.power[i] -= sl_machine_leakage(&st->m, g, v, st->d.temp[i]) -
						  sl_machine_leakage(&st->m, g, v, st->leak_ref_c);
			}
		}
		if (o->temp_term == TT_ON && !co.temp) {
			sl_error_set("--temp-term on: the training temperatures span only "
				     "%.1f to %.1f C; at least %.0f C is needed to fit the term",
				     st->temp_lo, st->temp_hi, TEMP_MIN_RANGE);
			return -1;
		}
	} else if (o->temp_term == TT_ON) {
		sl_error_set("--temp-term on: not every training interval has a die "
			     "temperature (temp in traces); give traces that record it");
		return -1;
	}
	if (choose_terms(o, st, &co) < 0)
		return -1;
	if (o->select && st->m.n_terms) /* after the checks: an error is one line */
		sl_warn("--select %zu: ignoring the %zu power terms listed in %s", o->select,
			st->m.n_terms, o->machine);
	/* Without volts, --select first chooses at V = 1; it chooses again with
	 * the fitted voltages, which are then fitted again for those events. */
	for (int round = 0; st->novolts && round < (o->select ? 2 : 1); round++)
		if ((round && choose_terms(o, st, &co) < 0) ||
		    sl_calib_relative_volts(&st->d, &st->m, st->terms, st->n_terms, &co,
					    &st->volt_iters) < 0)
			return -1;
	judge_terms(o, st, &co);
	/* fitted relative voltages are fitted again for the terms kept */
	if (st->novolts && st->auto_kept &&
	    sl_calib_relative_volts(&st->d, &st->m, st->terms, st->n_terms, &co,
				    &st->volt_iters) < 0)
		return -1;
	if (o->temp_term == TT_AUTO && co.temp)
		judge_temp(st, &co);
	if (sl_calib_fit_run(&st->fit, &st->d, &st->m, st->terms, st->n_terms, &co) < 0)
		return -1;
	st->cv_ok = (st->novolts ? sl_calib_cv_novolts(&st->fit, &st->d, &st->m, &co)
				 : sl_calib_cv(&st->fit, &st->d, &st->m, &co)) == 0;
	if (!st->cv_ok)
		snprintf(st->cv_why, sizeof st->cv_why, "%s", sl_error());
	st->rep = strcmp(o->out, "-") ? stdout : stderr;
	report(o, st);
	sl_machine out;
	sl_calib_model(&out, &st->m, &st->d, &st->fit);
	if (st->leak_removed) {
		out.has_temp = 1;
		out.temp_ref_c = st->leak_ref_c;
		out.temp_coeff = 0;
	}
	warnings(st, sl_model_ceff_floor(&out));
	size_t tpairs = sl_calib_time_error(&out, st->runs, st->n_runs);
	if (tpairs)
		fprintf(st->rep, "\n");
	time_error_report(st->rep, &out, tpairs);
	char *comment = model_comment(o, st);
	int rc = sl_machine_write(o->out, &out, comment);
	free(comment);
	sl_calib_time_error_free(&out);
	sl_calib_model_free(&out);
	if (rc == 0)
		sl_info("wrote %s", o->out);
	return rc;
}

/* The leading '#' lines of a machine file, without their "# ", or NULL;
 * but the lines that say where its block `drop` (e.g. "time_error: ")
 * came from, which --time-error-only or --thermal-only replaces with its
 * own (they piled up, one a run). */
static char *leading_comment(const char *path, const char *drop)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *out = NULL, *line = NULL;
	size_t cap = 0, len = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0 && line[0] == '#') {
		const char *t = line + 1 + (line[1] == ' ');
		if (!strncmp(t, drop, strlen(drop)))
			continue;
		size_t tl = strlen(t);
		out = sl_xrealloc(out, len + tl + 2);
		memcpy(out + len, t, tl + 1);
		len += tl;
		if (!len || out[len - 1] != '\n')
			out[len++] = '\n';
		out[len] = 0;
	}
	free(line);
	fclose(f);
	return out;
}

/*
 * --time-error-only and --thermal-only: the machine as given (its power
 * model, events, memory: and comment kept), with one block measured anew
 * on these profiles.  time_error: the errors its time models make, as
 * after a fit (calib/time-error.c); for a machine whose power was fitted
 * on runs recorded with other pins, its own pins' profiles measure the
 * time models it is used with.  thermal: the die's RC and leakage per
 * degree from runs of a steady load (calib/thermal-fit.c); a skeleton takes
 * it before its power fit, which then takes the measured leakage out.
 */
static int measure_only(const cal_opts *o, cal_state *st)
{
	if (sl_machine_load(o->machine, &st->m) < 0)
		return -1;
	st->runs = sl_xcalloc(o->n_inputs, sizeof *st->runs);
	for (size_t i = 0; i < o->n_inputs; i++) {
		if (sl_calib_run_load(&st->runs[st->n_runs], o->inputs[i]) < 0)
			return -1;
		st->n_runs++;
	}
	FILE *rep = strcmp(o->out, "-") ? stdout : stderr;
	const char *block = o->thermal_only ? "thermal: " : "time_error: ";
	char *what;
	if (o->thermal_only) {
		if (sl_calib_thermal(&st->m, st->runs, st->n_runs, rep) < 0)
			return -1;
		what = sl_xstrdup("");
	} else {
		sl_calib_time_error_free(&st->m); /* the machine's own, if any, are replaced */
		size_t tpairs = sl_calib_time_error(&st->m, st->runs, st->n_runs);
		if (!st->m.n_time_error) {
			sl_error_set("no workload has profiles at two frequencies whose intervals "
				     "match; give each one's profiles (sleuth run, same program and "
				     "interval) at several P-states");
			return -1;
		}
		time_error_report(rep, &st->m, tpairs);
		what = sl_xasprintf(" (%zu slower runs predicted)", tpairs);
	}
	char *kept = leading_comment(o->machine, block);
	char *comment = sl_xasprintf("%s%ssleuth calibrate %s --%s on %zu profiles: %s ...%s",
				     kept ? kept : "", block, SLEUTH_VERSION,
				     o->thermal_only ? "thermal-only" : "time-error-only",
				     o->n_inputs, o->inputs[0], what);
	int rc = sl_machine_write(o->out, &st->m, comment);
	free(comment);
	free(kept);
	free(what);
	if (rc == 0)
		sl_info("wrote %s", o->out);
	return rc;
}

/* The sweep's runs: where cpufreq, RAPL and hwmon said what. */
static void sweep_report(const cal_opts *o, const sl_sweep *sw, FILE *f)
{
	fprintf(f, "sweep on %s: frequency set with %s; energy from %s; temperature from "
		"%s\n", o->sysfs ? o->sysfs : "/sys",
		sw->userspace ? "the userspace governor" : "scaling_min/max_freq",
		sw->rapl_source ? sw->rapl_source : "the runs only (no RAPL)",
		sw->temp_sensor ? sw->temp_sensor : "nowhere (no hwmon sensor)");
	fprintf(f, "  %-8s %-20s %10s %10s %10s %8s\n", "GHz", "workload", "time s",
		"energy J", "RAPL J", "temp C");
	for (size_t i = 0; i < sw->n; i++) {
		const sl_sweep_run *r = &sw->runs[i];
		fprintf(f, "  %-8g %-20s %10.4f %10.4f %10.4f %8.1f\n", r->ghz_read, r->workload,
			r->time_s, r->energy_j, r->rapl_j, r->temp_c);
	}
	fprintf(f, "\n");
}

/* The time model checked against the sweep's measured times. */
static int time_check(const sl_sweep *sw, const cal_state *st, FILE *f)
{
	const sl_machine *m = &st->m;
	double *mean = sl_xcalloc(m->n_pstates, sizeof *mean);
	double *worst = sl_xcalloc(m->n_pstates, sizeof *worst);
	int rc = sl_sweep_check_time(sw, m, 1, mean, worst);
	if (rc == 0) {
		fprintf(f, "\ntime model (each workload's %g GHz run predicts the others):\n",
			m->pstates[0].ghz);
		fprintf(f, "  %-8s %12s %12s\n", "GHz", "mean error", "worst");
		for (size_t s = 0; s < m->n_pstates; s++)
			if (!isnan(mean[s]))
				fprintf(f, "  %-8g %11.2f%% %11.2f%%\n", m->pstates[s].ghz,
					100 * mean[s], 100 * worst[s]);
	}
	free(mean);
	free(worst);
	return rc;
}

static void remove_runs(const sl_sweep *sw, const char *dir)
{
	for (size_t i = 0; i < sw->n; i++)
		if (sw->runs[i].trace)
			unlink(sw->runs[i].trace);
	if (sw->idle_log)
		unlink(sw->idle_log);
	rmdir(dir);
}

/* --sweep: the runs, then calibrate on them as on given inputs. */
static int calibrate_sweep(cal_opts *o, cal_state *st)
{
	char *dir = o->keep ? sl_xstrdup(o->keep) : NULL;
	if (!dir) {
		const char *t = getenv("TMPDIR");
		dir = sl_xasprintf("%s/sleuth-sweep-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir)) {
			sl_error_set("cannot create a directory for the sweep's runs: %s",
				     strerror(errno));
			free(dir);
			return -1;
		}
	} else if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		sl_error_set("--keep %s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	sl_machine skel;
	sl_sweep sw;
	memset(&sw, 0, sizeof sw);
	int rc = sl_machine_load(o->machine, &skel);
	if (rc == 0 && !o->select && !skel.n_terms) { /* know it before a long sweep */
		sl_error_set("%s lists no power terms; list the events to fit under power: "
			     "{terms: [{event: ...}]}, or let --select K choose", o->machine);
		sl_machine_free(&skel);
		rc = -1;
	}
	if (rc == 0) {
		sl_sweep_opts so = {.sysfs_root = o->sysfs, .sim_machine = o->sim,
				    .workdir = dir, .intervals = (size_t)o->intervals, .seed = 1,
				    .seconds = o->seconds};
		rc = sl_sweep_run_all(&skel, &so, &sw);
		sl_machine_free(&skel);
	}
	char **inputs = NULL;
	if (rc == 0) {
		sweep_report(o, &sw, strcmp(o->out, "-") ? stdout : stderr);
		inputs = sl_xcalloc(sw.n + 1, sizeof *inputs);
		for (size_t i = 0; i < sw.n; i++)
			inputs[i] = sw.runs[i].trace;
		o->inputs = inputs;
		o->n_inputs = sw.n;
		st->run_temp = sl_xcalloc(sw.n + 1, sizeof *st->run_temp);
		for (size_t i = 0; i < sw.n; i++)
			st->run_temp[i] = sw.runs[i].temp_c;
		if (!o->idle)
			o->idle = sw.idle_log;
		rc = run(o, st);
	}
	if (rc == 0)
		rc = time_check(&sw, st, st->rep);
	free(inputs);
	if (!o->keep)
		remove_runs(&sw, dir);
	sl_sweep_free(&sw);
	free(dir);
	return rc;
}

static int cmd_calibrate(int argc, char **argv)
{
	/* `calibrate --kernel NAME SECONDS`: a training run of the sweep, in the
	 * child process the perf backend profiles (internal) */
	if (argc == 4 && !strcmp(argv[1], "--kernel")) {
		double s;
		if (sl_parse_double(argv[3], &s) < 0 || s < 0)
			return sl_usage_error(CMD, "--kernel: '%s' is not seconds", argv[3]);
		return sl_train_kernel(argv[2], s) < 0 ? sl_fail() : SL_EXIT_OK;
	}
	cal_opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	cal_state st;
	memset(&st, 0, sizeof st);
	rc = (o.time_error_only || o.thermal_only ? measure_only(&o, &st)
	      : o.sweep		? calibrate_sweep(&o, &st)
				: run(&o, &st)) < 0
		     ? sl_fail()
		     : SL_EXIT_OK;
	sl_calib_fit_free(&st.fit);
	sl_calib_data_free(&st.d);
	for (size_t i = 0; i < st.n_runs; i++)
		sl_calib_run_free(&st.runs[i]);
	free(st.runs);
	free(st.static_w);
	free(st.idle_measured);
	free(st.terms);
	free(st.select_cv);
	free(st.auto_kept);
	free(st.auto_cv_with);
	free(st.auto_cv_without);
	free(st.run_temp);
	sl_machine_free(&st.m);
	return rc;
}

const struct sl_cmd sl_cmd_calibrate = {
	.name = CMD,
	.fn = cmd_calibrate,
	.summary = "Fit a machine's power model to measured power",
	.usage =
	"usage: sleuth calibrate --machine SKELETON.yaml -o MODEL.yaml [options] INPUT...\n"
	"       sleuth calibrate --time-error-only --machine MODEL.yaml -o OUT.yaml\n"
	"                        PROFILE...\n"
	"       sleuth calibrate --thermal-only --machine MACHINE.yaml -o OUT.yaml\n"
	"                        PROFILE...\n"
	"       sleuth calibrate --sweep --machine SKELETON.yaml -o MODEL.yaml\n"
	"                        [--select K] [--sysfs ROOT] [--keep DIR] [--seconds S]\n"
	"                        [--sim SIMMACHINE [--intervals N]]\n"
	"\n"
	"Fit the power model P = static_w(V) + Ceff*f*V^2, Ceff = constant +\n"
	"sum of coeff * count/cycles, interval by interval, to measured power, and\n"
	"write the complete sleuth-machine/1 file.\n"
	"\n"
	"Each INPUT is one training run at one P-state:\n"
	"  PROFILE:LOG.csv  a profile (or trace) and a power log (time_s,power_w)\n"
	"  PROFILE          a profile with its own energy (sleuth run --power)\n"
	"  TRACE            a sleuth-trace/1 file with e per interval\n"
	"Runs with the same workload label are held out together in\n"
	"cross-validation.\n"
	"\n"
	"Options:\n"
	"  -m, --machine FILE   the machine skeleton (P-states with volts; power:\n"
	"                       terms lists the events to fit; a term with keep: auto\n"
	"                       is kept only if it lowers the leave-one-workload-out\n"
	"                       error)\n"
	"  -o, --output FILE    the model to write\n"
	"  --idle-log FILE      static power per P-state (ghz,power_w rows, averaged);\n"
	"                       without it one activity-independent term per trained\n"
	"                       P-state is fitted and the Ceff constant is fixed at 0\n"
	"  --select K           choose K events among all counted ones by greedy\n"
	"                       forward selection on leave-one-workload-out error;\n"
	"                       not the machine's cycle counts (stall, offcore\n"
	"                       cycles) unless --select-cycles\n"
	"  --select-cycles      let --select choose cycle counts too\n"
	"  --select-energy      let --select choose event counts as energy terms too\n"
	"                       (nJ per event at a fixed voltage: uncore, DRAM)\n"
	"  --robust             robust (bisquare) regression instead of least squares\n"
	"  --log-offset S       the power logs' time at which the runs started\n"
	"  --column NAME        the power column of the logs (default power_w)\n"
	"  --temp-term T        static power's dependence on die temperature, when\n"
	"                       every interval has one: auto (default; kept if it\n"
	"                       lowers the leave-one-workload-out error), on, off\n"
	"  -q, --quiet          no progress messages\n"
	"  --time-error-only    fit nothing: write the machine given with --machine (a\n"
	"                       complete model), its time_error: measured anew on the\n"
	"                       PROFILE inputs (each workload at several P-states,\n"
	"                       recorded with the pins its time models are used with)\n"
	"  --thermal-only       fit no power model: write the machine given with\n"
	"                       --machine with its thermal: block measured on the\n"
	"                       PROFILE inputs, runs of a steady load that warm the\n"
	"                       die (energy and temperature per interval) at two\n"
	"                       P-states or more; a skeleton with it has the measured\n"
	"                       leakage taken out of its power fit\n"
	"  --sweep              run a training suite at every P-state of the skeleton,\n"
	"                       setting the frequency through cpufreq (restored\n"
	"                       afterwards, Ctrl-C included), reading RAPL and hwmon,\n"
	"                       then fit and check the time model.  The suite: native\n"
	"                       kernels (int, fp, branchy, stream, chase, mixed; perf\n"
	"                       backend, RAPL per interval) and idle; with --sim FILE\n"
	"                       the simulator runs data/workloads/train instead\n"
	"  --sysfs ROOT         the sysfs tree to set and read (default /sys)\n"
	"  --keep DIR           keep the sweep's runs in DIR\n"
	"  --seconds S          seconds of each native training run (default 2)\n"
	"  --intervals N        intervals per simulated run (default: the workload's)\n"
	"\n"
	"Intervals not fully covered by their log, or shorter than its sample\n"
	"spacing, are dropped.  A count missing from a multiplexed interval is\n"
	"taken as its phase's mean rate.\n",
};
