/*
 * sleuth schedule: which frequency each phase should run at, what that
 * saves, and what it costs -- with the slowdown bound and power cap held
 * exactly by the predictions.  The solver is schedule/schedule.c; this file
 * reads the options and the inputs and writes the outputs.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "builtin.h"
#include "model-opts.h"
#include "schedule-print.h"
#include "sleuth/common.h"
#include "sleuth/machine.h"
#include "sleuth/model.h"
#include "sleuth/profile.h"
#include "sleuth/schedule-model.h"
#include "sleuth/schedule.h"

#define CMD "schedule"

enum { F_TABLE, F_YAML, F_JSON, F_GEOPM };
static const char *const formats[] = {"table", "yaml", "json", "geopm"};

typedef struct args {
	const char *profile, *predictions, *out;
	sl_model_opts m;  /* --machine, --model, --anchor, --refine, --refine-rule */
	int format;       /* -1: the default (table, or yaml with -o) */
	int objective;    /* -1: not given */
	double transition_us, min_instance_ms; /* as given */
	double confidence; /* 0: plan on the point prediction */
	sl_sched_opts o;
} args;

enum { O_ENERGY = 256, O_EDP, O_ED2P, O_SLOW, O_SCOPE, O_CAP, O_TRANS, O_MININST,
       O_FORMAT, O_PRED, O_CONF };

static const struct option longopts[] = {
	{"min-energy", no_argument, NULL, O_ENERGY},
	{"min-edp", no_argument, NULL, O_EDP},
	{"min-ed2p", no_argument, NULL, O_ED2P},
	{"max-slowdown", required_argument, NULL, O_SLOW},
	{"scope", required_argument, NULL, O_SCOPE},
	{"power-cap", required_argument, NULL, O_CAP},
	{"transition-us", required_argument, NULL, O_TRANS},
	{"min-instance-ms", required_argument, NULL, O_MININST},
	{"confidence", required_argument, NULL, O_CONF},
	SL_LONGOPT_MACHINE,
	{"predictions", required_argument, NULL, O_PRED},
	SL_LONGOPT_MODEL,
	SL_LONGOPT_ANCHOR,
	SL_LONGOPT_REFINE,
	SL_LONGOPT_REFINE_RULE,
	{"format", required_argument, NULL, O_FORMAT},
	{"output", required_argument, NULL, 'o'},
	{NULL, 0, NULL, 0},
};

/* A number >= 0 (> 0 if `positive`) for option `opt`; 0, or the usage exit. */
static int num_opt(const char *opt, const char *s, int positive, double *out)
{
	if (sl_parse_double(s, out) < 0 || (positive ? !(*out > 0) : *out < 0))
		return sl_usage_error(CMD, "%s wants a number %s, not '%s'", opt,
				      positive ? "> 0" : ">= 0", s);
	return 0;
}

/* Parse the command line; SL_EXIT_OK or SL_EXIT_USAGE (already reported). */
static int parse(int argc, char **argv, args *a)
{
	memset(a, 0, sizeof *a);
	a->format = -1;
	a->objective = -1;
	a->o.max_slowdown = 0.10;
	a->o.scope = SL_SCOPE_GLOBAL;
	a->confidence = SL_SCHED_CONFIDENCE;
	optind = 1;
	int c, rc = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, ":o:m:", longopts, NULL)) != -1) {
		if ((rc = sl_model_opts_take(CMD, &a->m, c, optarg)) >= 0)
			continue;
		rc = 0;
		switch (c) {
		case O_ENERGY:
		case O_EDP:
		case O_ED2P:
			if (a->objective >= 0 && a->objective != c - O_ENERGY)
				return sl_usage_error(CMD, "give one objective: --min-energy, "
						      "--min-edp or --min-ed2p");
			a->objective = c - O_ENERGY;
			break;
		case O_SLOW:
			if (sl_parse_fraction(optarg, &a->o.max_slowdown) < 0)
				return sl_usage_error(CMD, "--max-slowdown: %s", sl_error());
			break;
		case O_SCOPE:
			if (sl_scope_parse(optarg, &a->o.scope) < 0)
				return sl_usage_error(CMD, "--scope: %s", sl_error());
			break;
		case O_CAP:
			rc = num_opt("--power-cap", optarg, 1, &a->o.power_cap_w);
			break;
		case O_TRANS:
			rc = num_opt("--transition-us", optarg, 0, &a->transition_us);
			a->o.transition_s = a->transition_us / 1e6;
			break;
		case O_MININST:
			rc = num_opt("--min-instance-ms", optarg, 0, &a->min_instance_ms);
			a->o.min_instance_s = a->min_instance_ms / 1e3;
			break;
		case O_PRED:
			a->predictions = optarg;
			break;
		case O_CONF:
			if (!strcmp(optarg, "off"))
				a->confidence = 0;
			else if (sl_parse_fraction(optarg, &a->confidence) < 0 ||
				 !(a->confidence >= 0 && a->confidence < 1) ||
				 (a->confidence > 0 && a->confidence < 0.5))
				return sl_usage_error(CMD, "--confidence wants 0 or off, or a "
						      "probability from 50%% to below 100%% "
						      "(e.g. 95%%), not '%s'", optarg);
			break;
		case O_FORMAT:
			a->format = -1; /* the last --format counts, and must be known */
			for (size_t i = 0; i < SL_ARRAY_LEN(formats); i++)
				if (!strcmp(optarg, formats[i]))
					a->format = (int)i;
			if (a->format < 0)
				return sl_usage_error(CMD, "unknown format '%s'; use table, yaml, "
						      "json or geopm", optarg);
			break;
		case 'o':
			a->out = optarg;
			break;
		default:
			return sl_bad_option(CMD, c, argv);
		}
	}
	if (rc)
		return rc;
	if (optind < argc)
		a->profile = argv[optind++];
	if (optind < argc)
		return sl_usage_error(CMD, "one profile at most; '%s' is extra", argv[optind]);
	if (a->objective < 0)
		return sl_usage_error(CMD, "give an objective: --min-energy, --min-edp or "
				      "--min-ed2p");
	if (a->profile && a->predictions)
		return sl_usage_error(CMD, "give a PROFILE or --predictions CSV, not both");
	if (a->predictions && a->m.model_given)
		return sl_usage_error(CMD, "--model chooses how a profile is predicted; "
				      "--predictions are predicted already (give --model "
				      "to sleuth predict)");
	if (a->predictions && a->m.anchor_given)
		return sl_usage_error(CMD, "--anchor chooses how a profile's power is "
				      "predicted; --predictions are predicted already (give "
				      "--anchor to sleuth predict)");
	if (a->predictions && a->m.refine)
		return sl_usage_error(CMD, "--refine corrects how a profile is predicted; "
				      "--predictions are predicted already (give --refine "
				      "to sleuth predict)");
	if (!a->predictions && !a->profile)
		a->profile = "sleuth.prof";
	if (a->o.scope == SL_SCOPE_PHASE && (a->o.transition_s > 0 || a->o.min_instance_s > 0))
		return sl_usage_error(CMD, "--transition-us and --min-instance-ms couple "
				      "phases, which the per-phase rule cannot honour; use "
				      "--scope global");
	a->o.objective = (sl_objective)a->objective;
	/* one-sided: the bound is broken only by a time above the prediction */
	a->o.z = a->confidence > 0 ? gsl_cdf_ugaussian_Pinv(a->confidence) : 0;
	if (a->format < 0)
		a->format = a->out ? F_YAML : F_TABLE;
	return 0;
}

/* The machine's name for the outputs, and a check that its P-states are the
 * table's (when scheduling from a prediction table). */
static int machine_name(const args *a, const sl_sched_table *t, char **name)
{
	*name = NULL;
	if (!a->m.machine) {
		*name = sl_xstrdup("-");
		return 0;
	}
	sl_machine m;
	if (sl_machine_load(a->m.machine, &m) < 0)
		return -1;
	for (size_t p = 0; p < t->n_pstates; p++)
		if (sl_machine_pstate(&m, t->ghz[p]) < 0) {
			sl_error_set("%.3f GHz in the predictions is not a P-state of %s (%s); "
				     "use the machine the predictions were made for",
				     t->ghz[p], m.name, a->m.machine);
			sl_machine_free(&m);
			return -1;
		}
	*name = sl_xstrdup(m.name);
	sl_machine_free(&m);
	return 0;
}

/*
 * The table from a profile: the machine given with --machine, else the one
 * the profile embeds; every interval predicted at every P-state.
 */
static int table_from_profile(const args *a, sl_sched_data *d, char **name)
{
	sl_model_set s;
	int rc = -1;
	*name = NULL;
	if (sl_model_open(&s, a->profile, a->m.machine, a->m.model,
			  SL_MODEL_OPTS_ANCHOR(&a->m)) < 0) {
		/* without a power model, say why scheduling needs one (and not
		 * predict's --time-only, which cannot help here) */
		if (s.machine_origin && !sl_machine_complete(&s.mach))
			sl_error_prefix("scheduling needs energy predictions: ");
	} else if (sl_model_opts_refine(&a->m, &s.model) == 0 &&
		   sl_sched_data_from_model(&s.model, d) == 0) {
		*name = sl_xstrdup(s.mach.name);
		rc = 0;
	}
	sl_model_close(&s);
	return rc;
}

static int write_output(const args *a, const sched_report *r)
{
	if (a->format == F_YAML) {
		sl_schedule_file f;
		sched_to_file(r, &f);
		char *comment = sl_xasprintf("written by sleuth schedule %s", SLEUTH_VERSION);
		int rc = sl_schedule_write(a->out ? a->out : "-", &f, comment);
		free(comment);
		sl_schedule_file_free(&f);
		return rc;
	}
	sl_afile af;
	FILE *f = sl_afile_open(&af, a->out ? a->out : "-");
	if (!f)
		return -1;
	if (a->format == F_JSON)
		sched_print_json(f, r);
	else if (a->format == F_GEOPM)
		sched_print_geopm(f, r);
	else
		sched_print_table(f, r);
	return sl_afile_commit(&af);
}

/* Solve and write; -1 with sl_error() on failure. */
static int run(const args *a)
{
	sl_sched_data d;
	char *mname = NULL;
	if (a->profile) {
		if (table_from_profile(a, &d, &mname) < 0)
			return -1;
	} else {
		if (sl_sched_data_from_csv(a->predictions, &d) < 0)
			return -1;
		if (machine_name(a, &d.tab, &mname) < 0) {
			sl_sched_data_free(&d);
			return -1;
		}
	}
	sl_sched_result res;
	int rc = -1;
	if (sl_schedule_solve(&d.tab, &a->o, &res) == 0) {
		size_t K = d.tab.n_phases;
		sched_report r = {&d.tab, &a->o, &res, a->profile ? a->profile : a->predictions,
				  mname, a->transition_us, a->min_instance_ms,
				  sl_xcalloc(K, sizeof(double)), sl_xcalloc(K, sizeof(double)),
				  a->confidence, d.sigma_from ? d.sigma_from
				  : "none: a prediction table carries no error estimate", 0, {0, 0, 0, 0, 0, 0}};
		int *base = sl_xmalloc(K * sizeof *base);
		sl_sched_eval ev;
		for (size_t k = 0; k < K; k++)
			base[k] = (int)d.tab.baseline;
		sl_sched_evaluate(&d.tab, &a->o, base, &ev, NULL, r.base_phase_s, r.base_phase_j);
		/* what the margin costs: the optimum of the point prediction */
		sl_sched_result pres;
		sl_sched_opts po = a->o;
		po.z = 0;
		if (a->o.z > 0 && d.tab.sigma && sl_schedule_solve(&d.tab, &po, &pres) == 0) {
			r.point = pres.total;
			r.has_point = 1;
			sl_sched_result_free(&pres);
		}
		if (write_output(a, &r) == 0) {
			rc = 0;
			/* the file written, the table on the terminal */
			if (a->out && strcmp(a->out, "-") && a->format != F_TABLE)
				sched_print_table(stdout, &r);
		}
		free(base);
		free(r.base_phase_s);
		free(r.base_phase_j);
		sl_sched_result_free(&res);
	}
	free(mname);
	sl_sched_data_free(&d);
	return rc;
}

static int cmd_schedule(int argc, char **argv)
{
	args a;
	int rc = parse(argc, argv, &a);
	if (rc == SL_EXIT_OK)
		rc = run(&a) < 0 ? sl_fail() : SL_EXIT_OK;
	sl_model_opts_free(&a.m);
	return rc;
}

const struct sl_cmd sl_cmd_schedule = {
	.name = CMD,
	.fn = cmd_schedule,
	.summary = "Choose each phase's frequency under a slowdown bound",
	.usage =
	"usage: sleuth schedule [PROFILE] (--min-energy | --min-edp | --min-ed2p)\n"
	"                       [--max-slowdown 10%] [--scope global|phase]\n"
	"                       [--power-cap W] [--transition-us T] [--min-instance-ms M]\n"
	"                       [--confidence 99.9%|off]\n"
	"                       [--machine FILE] [--model stall|mlp|linear]\n"
	"                       [--anchor auto|off]\n"
	"                       [--refine PROFILE [--refine-rule ratio|param]]\n"
	"                       [--predictions CSV]\n"
	"                       [-o FILE] [--format table|yaml|json|geopm]\n\n"
	"Choose the P-state of every phase so that the run's energy, EDP or ED2P is\n"
	"least while the predicted slowdown against the baseline (the fastest\n"
	"P-state) stays within the bound, and compare with the best single fixed\n"
	"frequency under the same bound.  The bound is kept with a margin for the\n"
	"models' error (--confidence), and one fixed frequency is kept instead when\n"
	"per-phase DVFS does not gain more than its uncertainty.\n\n"
	"  PROFILE              the profile (default sleuth.prof)\n"
	"  --max-slowdown X     bound on the slowdown (default 10%): predicted slowdown\n"
	"                       plus the margin of --confidence\n"
	"  --scope global       the whole run within the bound, phases trade (default;\n"
	"                       solved exactly, see docs/schedule.md)\n"
	"  --scope phase        every phase within the bound on its own (the paper's)\n"
	"  --confidence P       keep the bound in truth with probability P (default\n"
	"                       99.9%): plan on each time plus z_P x its estimated error\n"
	"                       (the machine's time_error:, the profile, a more accurate\n"
	"                       model's longer prediction); 0 or off:\n"
	"                       plan on the point prediction, no fallback\n"
	"  --power-cap W        no instance's predicted power above W watts\n"
	"  --transition-us T    a frequency switch costs T us (and T x the higher power)\n"
	"  --min-instance-ms M  instances shorter than M ms keep the previous frequency\n"
	"  -m, --machine FILE   the sleuth-machine/1 model (default: the profile's)\n"
	"  --model M            time model: stall (default), mlp or linear\n"
	"                       (sleuth predict)\n"
	"  --anchor A           auto (default) or off: anchor power on the profile's\n"
	"                       measured energy when it has some (sleuth predict)\n"
	"  --refine PROFILE     a short run of the same program at another frequency:\n"
	"                       corrects the time model (sleuth predict --refine);\n"
	"                       off: a dithered profile does not refine itself\n"
	"  --refine-rule R      what it corrects: ratio (default) or param (sleuth\n"
	"                       predict --refine-rule)\n"
	"  --predictions CSV    schedule from `sleuth predict --per instance --all\n"
	"                       --format csv` instead of a profile ('-': stdin)\n"
	"  -o, --output FILE    write there (default format then yaml; the table still\n"
	"                       goes to stdout)\n"
	"  --format F           table (default), yaml (sleuth-schedule/1), json, or\n"
	"                       geopm (a GEOPM frequency_map agent policy)\n",
};
