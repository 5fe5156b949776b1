/*
 * `sleuth report`: one self-contained HTML page (or JSON) of a profile's
 * phases, code and predictions, for people to look at.  Parsing options and
 * files only; the report is computed and written by report/.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "model-opts.h"
#include "sleuth/common.h"
#include "sleuth/model.h"
#include "sleuth/profile.h"
#include "sleuth/report.h"

#define CMD "report"

typedef struct opts {
	const char *profile;
	const char *out;       /* NULL: report.html or report.json */
	const char *schedule;
	sl_model_opts m;       /* --freq, --machine, --model, --extrapolate, --anchor,
				* --refine */
	int json;
} opts;

enum { O_FORMAT = 256 };

/* Parse the command line; SL_EXIT_OK or SL_EXIT_USAGE (already reported). */
static int parse(int argc, char **argv, opts *o)
{
	static const struct option lo[] = {
		{"output", required_argument, NULL, 'o'},
		SL_LONGOPT_FREQ,
		{"schedule", required_argument, NULL, 's'},
		SL_LONGOPT_MACHINE,
		SL_LONGOPT_MODEL,
		{"format", required_argument, NULL, O_FORMAT},
		{"quiet", no_argument, NULL, 'q'},
		SL_LONGOPT_EXTRAPOLATE,
		SL_LONGOPT_ANCHOR,
		SL_LONGOPT_REFINE,
		{0},
	};
	const char *format = "html";
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:qf:s:m:", lo, NULL)) != -1) {
		if ((rc = sl_model_opts_take(CMD, &o->m, c, optarg)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'o': o->out = optarg; break;
		case 's': o->schedule = optarg; break;
		case O_FORMAT: format = optarg; break;
		case 'q': sl_quiet = 1; break;
		default: return sl_bad_option(CMD, c, argv);
		}
	}
	o->json = !strcmp(format, "json");
	if (!o->json && strcmp(format, "html"))
		return sl_usage_error(CMD, "--format must be html or json, not '%s'", format);
	if (argc - optind > 1)
		return sl_usage_error(CMD, "give at most one profile");
	if (optind < argc)
		o->profile = argv[optind];
	if (!o->out)
		o->out = o->json ? "report.json" : "report.html";
	return SL_EXIT_OK;
}

/* Build the report and write it; -1 with sl_error() on failure. */
static int run(const opts *o, sl_profile *p, sl_report *r)
{
	sl_report_opts ro = {
		.profile_path = o->profile,
		.machine_path = o->m.machine,
		.schedule_path = o->schedule,
		.ghz = o->m.freqs,
		.n_ghz = o->m.n_freqs,
		.time_model = o->m.model,
		.extrapolate = o->m.extrapolate,
		.anchor_off = o->m.anchor == SL_ANCHOR_OFF,
		.refine_path = o->m.refine,
	};
	sl_afile af;
	FILE *f;
	if (sl_profile_read(o->profile, p) < 0 || sl_report_build(r, p, &ro) < 0 ||
	    !(f = sl_afile_open(&af, o->out)))
		return -1;
	if ((o->json ? sl_report_json(f, r) : sl_report_html(f, r)) < 0) {
		sl_afile_abort(&af);
		return -1;
	}
	if (sl_afile_commit(&af) < 0)
		return -1;
	if (strcmp(o->out, "-"))
		sl_info("wrote %s: %zu phases, %s", o->out, r->n_phases,
			r->have_power ? "time, power and energy predictions"
			: r->have_time ? "time predictions only" : "no predictions");
	return 0;
}

static int cmd_report(int argc, char **argv)
{
	opts o = {.profile = "sleuth.prof"};
	int rc = parse(argc, argv, &o);
	if (rc == SL_EXIT_OK) {
		sl_profile p;
		sl_report r;
		sl_profile_init(&p);
		sl_report_init(&r);
		rc = run(&o, &p, &r) < 0 ? sl_fail() : SL_EXIT_OK;
		sl_report_free(&r);
		sl_profile_free(&p);
	}
	sl_model_opts_free(&o.m);
	return rc;
}

const struct sl_cmd sl_cmd_report = {
	.name = CMD,
	.fn = cmd_report,
	.summary = "Write an HTML (or JSON) report of a profile with charts",
	.usage =
	"usage: sleuth report [PROFILE] [--freq F ...] [--schedule S] [--machine FILE]\n"
	"                     [--model stall|mlp|linear] [--extrapolate]\n"
	"                     [--anchor auto|off]\n"
	"                     [--refine PROFILE] [-o FILE]\n"
	"                     [--format html|json] [-q]\n\n"
	"One self-contained HTML page of PROFILE (default sleuth.prof): the phase\n"
	"timeline, predicted power over time at the profiled frequency, at each\n"
	"--freq (default: fmax and fmin) and under a schedule, per-phase time and\n"
	"energy at fmax and fmin, each major phase against frequency, and each\n"
	"phase's code, memory-boundness and share of measured data.  The page has\n"
	"no scripts and fetches nothing; it prints.\n\n"
	"  -o, --output FILE   where to write (default report.html, or report.json;\n"
	"                      - for stdout)\n"
	"  -f, --freq F        a frequency to predict (2.4GHz, 2400MHz, 2.4); repeat\n"
	"  -s, --schedule S    a sleuth-schedule/1 file: its frequency per phase and\n"
	"                      predicted power under it\n"
	"  -m, --machine FILE  machine model (default: the one in the profile)\n"
	"  --model M           time model: stall (default) or linear\n"
	"  --extrapolate       allow --freq outside the machine's P-states\n"
	"  --anchor A          auto (default) or off: anchor power on the profile's\n"
	"                      measured energy when it has some (sleuth predict)\n"
	"  --refine PROFILE    a short run of the same program at another frequency:\n"
	"                      corrects the time model (sleuth predict --refine);\n"
	"                      off: a dithered profile does not refine itself\n"
	"  --format F          html (default) or json (everything the page shows)\n"
	"  -q, --quiet         no summary line on stderr\n\n"
	"A profile without event counts (timer backend) gets a report of its\n"
	"phases and code, with a note that predictions are unavailable.\n",
};
