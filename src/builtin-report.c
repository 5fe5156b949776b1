/*
 * `sleuth report`: one self-contained HTML page (or JSON) of a profile's
 * phases, code and predictions, for people to look at.  Parsing options and
 * files only; the report is computed and written by src/report/.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "sleuth/common.h"
#include "sleuth/model.h"
#include "sleuth/profile.h"
#include "sleuth/report.h"

#define CMD "report"

static int report(int argc, char **argv)
{
	static const struct option lo[] = {
		{"output", required_argument, NULL, 'o'},
		{"freq", required_argument, NULL, 'f'},
		{"schedule", required_argument, NULL, 's'},
		{"machine", required_argument, NULL, 'm'},
		{"model", required_argument, NULL, 'M'},
		{"format", required_argument, NULL, 'F'},
		{"quiet", no_argument, NULL, 'q'},
		{"extrapolate", no_argument, NULL, 'X'},
		{0},
	};
	sl_report_opts o = {.time_model = SL_TIME_STALL};
	sl_time_model tm;
	const char *out = NULL, *format = "html";
	double *ghz = NULL;
	size_t n_ghz = 0, cap = 0;
	int c, rc = SL_EXIT_OK;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:q", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 's': o.schedule_path = optarg; break;
		case 'm': o.machine_path = optarg; break;
		case 'F': format = optarg; break;
		case 'q': sl_quiet = 1; break;
		case 'X': o.extrapolate = 1; break;
		case 'M':
			if (sl_time_model_parse(optarg, &tm) < 0) {
				rc = sl_usage_error(CMD, "--model: %s", sl_error());
				goto done;
			}
			o.time_model = tm;
			break;
		case 'f':
			SL_GROW(ghz, n_ghz, cap);
			if (sl_parse_freq(optarg, &ghz[n_ghz]) < 0) {
				rc = sl_usage_error(CMD, "--freq: %s", sl_error());
				goto done;
			}
			n_ghz++;
			break;
		default:
			rc = sl_bad_option(CMD, c, argv);
			goto done;
		}
	}
	int json = !strcmp(format, "json");
	if (!json && strcmp(format, "html")) {
		rc = sl_usage_error(CMD, "--format must be html or json, not '%s'", format);
		goto done;
	}
	if (argc - optind > 1) {
		rc = sl_usage_error(CMD, "give at most one profile");
		goto done;
	}
	o.profile_path = optind < argc ? argv[optind] : "sleuth.prof";
	o.ghz = ghz;
	o.n_ghz = n_ghz;
	if (!out)
		out = json ? "report.json" : "report.html";

	sl_profile p;
	sl_profile_init(&p);
	if (sl_profile_read(o.profile_path, &p) < 0) {
		rc = sl_fail();
		sl_profile_free(&p);
		goto done;
	}
	sl_report r;
	sl_report_init(&r);
	sl_afile af;
	FILE *f;
	if (sl_report_build(&r, &p, &o) < 0 || !(f = sl_afile_open(&af, out))) {
		rc = sl_fail();
	} else if ((json ? sl_report_json(f, &r) : sl_report_html(f, &r)) < 0) {
		sl_afile_abort(&af);
		rc = sl_fail();
	} else if (sl_afile_commit(&af) < 0) {
		rc = sl_fail();
	} else if (strcmp(out, "-")) {
		sl_info("wrote %s: %zu phases, %s", out, r.n_phases,
			r.have_power ? "time, power and energy predictions"
			: r.have_time ? "time predictions only" : "no predictions");
	}
	sl_report_free(&r);
	sl_profile_free(&p);
done:
	free(ghz);
	return rc;
}

const struct sl_cmd sl_cmd_report = {
	.name = CMD,
	.fn = report,
	.summary = "Write an HTML (or JSON) report of a profile with charts",
	.usage =
	"usage: sleuth report [PROFILE] [--freq F ...] [--schedule S] [--machine FILE]\n"
	"                     [--model stall|mlp|linear] [--extrapolate] [-o FILE]\n"
	"                     [--format html|json] [-q]\n\n"
	"One self-contained HTML page of PROFILE (default sleuth.prof): the phase\n"
	"timeline, predicted power over time at the profiled frequency, at each\n"
	"--freq (default: fmax and fmin) and under a schedule, per-phase time and\n"
	"energy at fmax and fmin, each major phase against frequency, and each\n"
	"phase's code, memory-boundness and share of measured data.  The page has\n"
	"no scripts and fetches nothing; it prints.\n\n"
	"  -o, --output FILE   where to write (default report.html, or report.json;\n"
	"                      - for stdout)\n"
	"  --freq F            a frequency to predict (2.4GHz, 2400MHz, 2.4); repeat\n"
	"  --schedule S        a sleuth-schedule/1 file to predict power under\n"
	"  --machine FILE      machine model (default: the one in the profile)\n"
	"  --model M           time model: stall (default) or linear\n"
	"  --extrapolate       allow --freq outside the machine's P-states\n"
	"  --format F          html (default) or json (everything the page shows)\n"
	"  -q, --quiet         no summary line on stderr\n\n"
	"A profile without event counts (timer backend) gets a report of its\n"
	"phases and code, with a note that predictions are unavailable.\n",
};
