/*
 * `sleuth predict`: time, power and energy of every interval, phase
 * instance and phase of a profile at any frequency.  Parses options, loads
 * the profile and the machine (the one embedded in the profile unless
 * --machine), checks every frequency before writing anything, and hands
 * the rest to the models and the writers.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "model-opts.h"
#include "sleuth/common.h"
#include "sleuth/machine.h"
#include "sleuth/model.h"
#include "sleuth/predict.h"
#include "sleuth/profile.h"
#include "sleuth/schedule-model.h"

#define CMD "predict"

static const char usage[] =
	"usage: sleuth predict [PROFILE] (--freq F [--freq F2 ...] | --all)\n"
	"                      [--machine FILE] [--model stall|mlp|linear]\n"
	"                      [--per phase|instance|interval] [--format table|csv|json]\n"
	"                      [--extrapolate] [--time-only] [--temp C]\n"
	"                      [--anchor auto|off]\n"
	"                      [--refine PROFILE [--refine-rule ratio|param]] [-o FILE]\n"
	"       sleuth predict [PROFILE] --schedule FILE [--machine FILE] [--model M]\n"
	"                      [--anchor auto|off]\n"
	"\n"
	"Predict time, power and energy at other frequencies from one profile.\n"
	"\n"
	"  PROFILE          the profile (default sleuth.prof)\n"
	"  -f, --freq F     a target frequency (2.4, 2.4GHz, 2400MHz); repeatable\n"
	"  --all            every P-state of the machine\n"
	"  -m, --machine FILE  machine model (default: the one in the profile)\n"
	"  --model M        time model: stall (default; off-chip stalls do not scale\n"
	"                   with frequency), mlp (offcore occupancy, bandwidth and\n"
	"                   queueing; needs a machine naming offcore_cycles) or\n"
	"                   linear (time proportional to 1/f)\n"
	"  --anchor A       auto (default): when the profile carries measured energy\n"
	"                   (a replayed trace, RAPL, the virtual PMU), carry the\n"
	"                   power the counters leave unexplained at the profiled\n"
	"                   frequency to every other one; off: the counters alone\n"
	"                   (docs/models.md, \"Anchoring on measured power\")\n"
	"  --per U          rows per phase (default), instance or interval\n"
	"  --format F       table (default for --per phase), csv (default otherwise)\n"
	"                   or json; the table shows phases only\n"
	"  --extrapolate    allow frequencies outside the machine's P-states\n"
	"  --temp C         die temperature for static power (machines calibrated\n"
	"                   with temperatures; default: each interval's profiled\n"
	"                   temperature, else as calibrated)\n"
	"  --refine PROFILE a short run of the same program at another frequency\n"
	"                   (its first intervals): the time model is corrected by\n"
	"                   the cycles it measured, per interval, else instance,\n"
	"                   else from the like-behaved instances of its phase\n"
	"                   (docs/models.md, \"Refinement by a second run\");\n"
	"                   a dithered profile (simulate --dither) refines\n"
	"                   itself from its intervals at the second frequency\n"
	"                   (docs/models.md, \"Dithering\"); --refine off: not\n"
	"  --refine-rule R  what the short run corrects: ratio (default): the\n"
	"                   cycles, by their measured / predicted ratio; param:\n"
	"                   the time model's uncertain parameter (mlp: the share\n"
	"                   of miss stalls that are dependency stalls; stall: a\n"
	"                   factor on the off-chip stalls), solved per instance\n"
	"                   and applied to each instance's own counts; the ratio\n"
	"                   where it has no solution\n"
	"  --time-only      predict time only (automatic, with a warning, for a\n"
	"                   machine without a fitted power model)\n"
	"  -o FILE          write to FILE (atomically) instead of stdout\n"
	"  --schedule FILE  the run under a sleuth-schedule/1 schedule: CSV, one row\n"
	"                   per phase instance along the run with the frequency it\n"
	"                   runs at and its time, power and energy (docs/schedule.md)\n"
	"\n"
	"Without a machine model (none embedded, no --machine) time is predicted\n"
	"with the linear model; without the stall model's events, too (unless\n"
	"--model stall is given).  Each fallback is announced on stderr.\n"
	"Power predictions outside [idle, peak] are clamped and the clamps counted\n"
	"(docs/models.md).  A profile without event counts (timer backend) cannot\n"
	"be predicted.\n";

typedef struct opts {
	const char *profile;
	const char *out;
	const char *schedule;
	sl_model_opts m;  /* --freq, --machine, --model, --extrapolate, --anchor,
			   * --refine, --refine-rule */
	int all, time_only;
	sl_per per;
	sl_fmt fmt;
	int fmt_given, per_given;
	double temp_c;  /* --temp; NAN: as calibrated */
} opts;

enum { O_ALL = 256, O_PER, O_FORMAT, O_TIMEONLY, O_SCHEDULE, O_TEMP };

/* Parse the command line; SL_EXIT_OK or SL_EXIT_USAGE (already reported). */
static int parse(int argc, char **argv, opts *o)
{
	static const struct option lo[] = {
		SL_LONGOPT_FREQ,
		{"all", no_argument, NULL, O_ALL},
		SL_LONGOPT_MACHINE,
		SL_LONGOPT_MODEL,
		{"per", required_argument, NULL, O_PER},
		{"format", required_argument, NULL, O_FORMAT},
		SL_LONGOPT_EXTRAPOLATE,
		SL_LONGOPT_ANCHOR,
		SL_LONGOPT_REFINE,
		SL_LONGOPT_REFINE_RULE,
		{"time-only", no_argument, NULL, O_TIMEONLY},
		{"schedule", required_argument, NULL, O_SCHEDULE},
		{"temp", required_argument, NULL, O_TEMP},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:f:m:", lo, NULL)) != -1) {
		if ((rc = sl_model_opts_take(CMD, &o->m, c, optarg)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case O_ALL:
			o->all = 1;
			break;
		case O_PER:
			if (sl_per_parse(optarg, &o->per) < 0)
				return sl_usage_error(CMD, "--per: %s", sl_error());
			o->per_given = 1;
			break;
		case O_FORMAT:
			if (sl_fmt_parse(optarg, &o->fmt) < 0)
				return sl_usage_error(CMD, "--format: %s", sl_error());
			o->fmt_given = 1;
			break;
		case O_SCHEDULE:
			o->schedule = optarg;
			break;
		case O_TEMP:
			if (sl_parse_double(optarg, &o->temp_c) < 0 || o->temp_c < -273.15 ||
			    o->temp_c > 500)
				return sl_usage_error(CMD, "--temp '%s': give the die temperature "
						      "in degrees C, e.g. 70", optarg);
			break;
		case O_TIMEONLY:
			o->time_only = 1;
			break;
		case 'o':
			o->out = optarg;
			break;
		default:
			return sl_bad_option(CMD, c, argv);
		}
	}
	if (optind < argc)
		o->profile = argv[optind++];
	if (optind < argc)
		return sl_usage_error(CMD, "unexpected argument '%s' (one profile at a time)",
				      argv[optind]);
	if (o->schedule && (o->m.n_freqs || o->all || o->fmt_given || o->per_given ||
			    o->time_only))
		return sl_usage_error(CMD, "--schedule sets the frequencies and the output; "
				      "drop --freq, --all, --per, --format and --time-only");
	if (o->schedule)
		return SL_EXIT_OK;
	if (!o->m.n_freqs && !o->all)
		return sl_usage_error(CMD, "no frequency: give --freq F (repeatable) or --all");
	if (o->m.n_freqs && o->all)
		return sl_usage_error(CMD, "--freq and --all exclude each other");
	if (!o->fmt_given)
		o->fmt = o->per == SL_PER_PHASE ? SL_FMT_TABLE : SL_FMT_CSV;
	if (o->fmt == SL_FMT_TABLE && o->per != SL_PER_PHASE)
		return sl_usage_error(CMD, "the table shows phases; use --format csv or json "
				      "with --per %s", sl_per_name(o->per));
	return SL_EXIT_OK;
}

/* Every operating point, checked before any output is written. */
static sl_opoint *operating_points(const opts *o, const sl_model *md, size_t *n)
{
	const sl_machine *m = md->mach;
	*n = o->all ? m->n_pstates : o->m.n_freqs;
	sl_opoint *ops = sl_xcalloc(*n + 1, sizeof *ops);
	for (size_t k = 0; k < *n; k++) {
		double ghz = o->all ? m->pstates[k].ghz : o->m.freqs[k];
		if (sl_model_opoint(md, ghz, &ops[k]) < 0) {
			free(ops);
			return NULL;
		}
	}
	return ops;
}

/* Clamps are never silent: a summary on stderr unless the output is the
 * table (which reports them itself). */
static void report_clamps(const opts *o, const sl_predict_stats *st)
{
	uint64_t n = st->clamped_idle + st->clamped_peak;
	if (o->fmt == SL_FMT_TABLE || !n)
		return;
	sl_warn("power clamped in %llu of %llu interval predictions (%llu to idle, "
		"%llu to peak); see docs/models.md",
		(unsigned long long)n, (unsigned long long)st->predictions,
		(unsigned long long)st->clamped_idle, (unsigned long long)st->clamped_peak);
}

/* --schedule: the run instance by instance at the schedule's frequencies. */
static int predict_schedule(const opts *o, const sl_model *md)
{
	sl_schedule_file s;
	sl_sched_data d;
	if (sl_schedule_read(o->schedule, &s) < 0)
		return -1;
	int rc = -1;
	if (sl_sched_data_from_model(md, &d) == 0) {
		int *ps = sl_xmalloc((d.tab.n_phases + 1) * sizeof *ps);
		sl_sched_opts so;
		sl_afile af;
		FILE *f;
		if (sl_schedule_apply(&d.tab, &s, ps, &so) == 0 &&
		    (f = sl_afile_open(&af, o->out ? o->out : "-"))) {
			if (sl_schedule_write_run(f, &d.tab, &so, ps) < 0)
				sl_afile_abort(&af);
			else
				rc = sl_afile_commit(&af);
		}
		free(ps);
		sl_sched_data_free(&d);
	}
	sl_schedule_file_free(&s);
	return rc;
}

static int run(const opts *o, sl_model_set *set)
{
	int flags = (o->m.extrapolate ? SL_MODEL_EXTRAPOLATE : 0) |
		    (o->time_only ? SL_MODEL_TIME_ONLY : 0) | SL_MODEL_OPTS_ANCHOR(&o->m);
	/* No dead ends: time only before calibration, the linear model without
	 * the stall model's events or without any machine -- unless the user
	 * asked for a model, or a schedule that needs power, or every P-state
	 * of a machine there is none of. */
	if (!o->schedule)
		flags |= SL_MODEL_DEGRADE_POWER;
	if (!o->schedule && !o->all && !o->m.model_given)
		flags |= SL_MODEL_DEGRADE_TIME;
	if (sl_model_open(set, o->profile, o->m.machine, o->m.model, flags) < 0 ||
	    sl_model_opts_refine(&o->m, &set->model) < 0)
		return -1;
	if (!isnan(o->temp_c) && !set->mach.has_temp)
		sl_warn("--temp: machine %s has no temperature term (calibrate it on runs "
			"that record temperature); static power stays as calibrated",
			set->mach.name);
	sl_model_set_temp(&set->model, o->temp_c);
	const sl_model *md = &set->model;
	if (o->schedule)
		return predict_schedule(o, md);
	size_t n_ops;
	sl_opoint *ops = operating_points(o, md, &n_ops);
	if (!ops)
		return -1;

	sl_afile af;
	FILE *f = sl_afile_open(&af, o->out ? o->out : "-");
	int rc = -1;
	if (f) {
		sl_predict_info info = {o->profile, set->machine_origin};
		sl_predict_stats st;
		rc = sl_predict_write(f, md, ops, n_ops, o->per, o->fmt, &info, &st);
		if (rc < 0)
			sl_afile_abort(&af);
		else
			rc = sl_afile_commit(&af);
		if (rc == 0)
			report_clamps(o, &st);
		/* the table and JSON say it themselves; a CSV has no place for
		 * it that its readers (schedule --predictions) would skip */
		if (rc == 0 && o->fmt == SL_FMT_CSV && md->anchor)
			sl_info("power anchored on the measured power (%s); --anchor off "
				"for the counters alone", md->anchor->source);
	}
	free(ops);
	return rc;
}

static int cmd_predict(int argc, char **argv)
{
	opts o = {.profile = "sleuth.prof", .per = SL_PER_PHASE, .temp_c = NAN};
	int rc = parse(argc, argv, &o);
	if (rc == SL_EXIT_OK) {
		sl_model_set set;
		rc = run(&o, &set) < 0 ? sl_fail() : SL_EXIT_OK;
		sl_model_close(&set);
	}
	sl_model_opts_free(&o.m);
	return rc;
}

const struct sl_cmd sl_cmd_predict = {
	.name = CMD,
	.fn = cmd_predict,
	.summary = "Predict time, power and energy per phase at other frequencies",
	.usage = usage,
};
