/*
 * sleuth demo: the whole what-if pipeline on a shipped simulated workload,
 * as a user would type it — simulate → run --replay → phases → predict →
 * schedule → report — and then the check no real machine offers: the
 * predictions against the simulator's truth, at fmin and under the
 * schedule.
 *
 * Each step runs this same binary (/proc/self/exe) with the subcommand's
 * ordinary arguments, printed before it runs, so the demo doubles as a
 * walkthrough a user can copy.  On a machine with a PMU the real job is
 * `sleuth run ./app`; the demo says so.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "sleuth/collect.h"
#include "sleuth/common.h"
#include "util/term.h"
#include "sleuth/machine.h"
#include "sleuth/model.h"
#include "sleuth/profile.h"
#include "sleuth/schedule.h"
#include "sleuth/trace.h"

#define CMD "demo"
/* milc-like: phases that want different frequencies, so per-phase DVFS
 * visibly beats the best single frequency (docs/benchmarks.md). */
#define DEFAULT_WORKLOAD "data/workloads/milc-like.yaml"
#define SIM_MACHINE "data/sim/nehalem-i7-920.yaml"

/* Run `sleuth ARGV...` (this binary), echoing the command line first. */
static int step(char *const argv[])
{
	/* as a shell takes it: long lines continue with a backslash, so that
	 * nothing is wider than 100 columns and it still pastes */
	size_t col = printf("\n$ sleuth") - 1;
	for (size_t i = 1; argv[i]; i++) {
		if (col + 1 + strlen(argv[i]) + 2 > 100) {
			printf(" \\\n   ");
			col = 3;
		}
		col += printf(" %s", argv[i]);
	}
	printf("\n");
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		sl_error_set("cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		execv("/proc/self/exe", argv);
		fprintf(stderr, "sleuth: cannot run /proc/self/exe: %s\n", strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			sl_error_set("waitpid: %s", strerror(errno));
			return -1;
		}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		sl_error_set("demo step 'sleuth %s' failed (%s %d); see its message above",
			     argv[1], WIFEXITED(st) ? "exit" : "signal",
			     WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		return -1;
	}
	return 0;
}

#define STEP(...)                                                       \
	do {                                                            \
		char *argv_[] = {"sleuth", __VA_ARGS__, NULL};          \
		if (step(argv_) < 0)                                    \
			goto fail;                                      \
	} while (0)

/* Total time and energy of a trace (the simulator's truth). */
static int trace_totals(const char *path, double *time_s, double *energy_j)
{
	sl_trace_reader *r = sl_trace_open(path);
	if (!r)
		return -1;
	sl_trace_interval iv;
	int rc;
	*time_s = *energy_j = 0;
	while ((rc = sl_trace_next(r, &iv)) == 1) {
		*time_s += iv.t;
		*energy_j += iv.has_e ? iv.e : NAN;
	}
	sl_trace_close(r);
	return rc;
}

/* The predicted totals of a profile at `ghz` with its embedded machine, as
 * `sleuth predict` makes them (anchored on the measured energy it carries). */
static int predict_totals(const char *prof_path, double ghz, double *time_s,
			  double *energy_j)
{
	sl_model_set s;
	sl_opoint op;
	int rc = -1;
	if (sl_model_open(&s, prof_path, NULL, SL_TIME_STALL, SL_MODEL_ANCHOR) == 0 &&
	    sl_model_opoint(&s.model, ghz, &op) == 0) {
		sl_agg total;
		sl_model_aggregate(&s.model, &op, NULL, NULL, &total);
		*time_s = total.time_s;
		*energy_j = total.energy_j;
		rc = 0;
	}
	sl_model_close(&s);
	return rc;
}

/* The measured totals of a profile (the vPMU's own run: its truth). */
static int profile_totals(const char *path, double *time_s, double *energy_j)
{
	sl_profile p;
	sl_profile_init(&p);
	int rc = sl_profile_read(path, &p);
	*time_s = *energy_j = 0;
	for (size_t i = 0; rc == 0 && i < p.n_intervals; i++) {
		*time_s += p.iv[i].time_s;
		*energy_j += p.iv[i].energy_j;
	}
	sl_profile_free(&p);
	return rc;
}

/*
 * --real: a real program (gzip on the demo's trace, deterministic) on the
 * virtual PMU at fmax and at fmin, and sleuth's prediction for fmin from
 * the fmax run against the vPMU's own fmin run.  Opt-in: it takes seconds
 * (Valgrind), the rest of the demo a fraction of one.
 */
static int real_part(const char *dir, const char *trace, const char *fmin, double fmin_ghz)
{
	char *hi = sl_xasprintf("%s/gzip.prof", dir), *lo = sl_xasprintf("%s/gzip-fmin.prof", dir);
	int rc = -1;
	double pt, pe, tt, te;
	printf("\nA real program on the virtual PMU (Valgrind; docs/vpmu.md): gzip, at "
	       "fmax and, for the truth, at %s.\n", fmin);
	STEP("run", "--backend", "vpmu", "--interval", "5M", "--sample-period", "2003", "-o", hi,
	     "--", "gzip", "-k", "-f", (char *)trace);
	STEP("run", "--backend", "vpmu", "--freq", (char *)fmin, "--interval", "5M",
	     "--sample-period", "2003", "-o", lo, "--", "gzip", "-k", "-f", (char *)trace);
	STEP("phases", hi);
	STEP("predict", hi, "--freq", (char *)fmin);
	if (predict_totals(hi, fmin_ghz, &pt, &pe) < 0 || profile_totals(lo, &tt, &te) < 0)
		goto fail;
	printf("\ngzip: predictions from the run at fmax against the vPMU's run at %s:\n"
	       "  time   predicted %8.4f s   true %8.4f s   error %+.1f%%\n"
	       "  energy predicted %8.3f J   true %8.3f J   error %+.1f%%\n",
	       fmin, pt, tt, 100 * (pt - tt) / tt, pe, te, 100 * (pe - te) / te);
	rc = 0;
fail:
	free(hi);
	free(lo);
	return rc;
}

typedef struct opts {
	const char *dir;       /* -o DIR */
	const char *workload;  /* --workload FILE, NULL: the default */
	int real;              /* --real: add a real program on the vPMU */
} opts;

/* Parse the command line; SL_EXIT_OK or SL_EXIT_USAGE (already reported). */
static int parse(int argc, char **argv, opts *o)
{
	static const struct option lo[] = {
		{"output", required_argument, NULL, 'o'},
		{"workload", required_argument, NULL, 'w'},
		{"real", no_argument, NULL, 'r'},
		{NULL, 0, NULL, 0},
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:w:", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->dir = optarg; break;
		case 'w': o->workload = optarg; break;
		case 'r': o->real = 1; break;
		default: return sl_bad_option(CMD, c, argv);
		}
	}
	if (optind < argc)
		return sl_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
	return SL_EXIT_OK;
}

/* Every step, then the predictions against the truth; -1 with sl_error(). */
static int run(const opts *o)
{
	const char *dir = o->dir;
	char *workload = o->workload ? sl_xstrdup(o->workload) : sl_data_path(DEFAULT_WORKLOAD);
	char *simmach = sl_data_path(SIM_MACHINE);
	char *trace = NULL, *power = NULL, *truth = NULL, *prof = NULL, *sched = NULL,
	     *report = NULL, *scheduled = NULL;
	sl_machine sm = {0};
	int rc = -1;
	if (!workload || access(workload, R_OK) < 0) {
		sl_error_set("cannot find the workload %s; give one with --workload FILE",
			     workload ? workload : DEFAULT_WORKLOAD);
		goto fail;
	}
	if (!simmach) {
		sl_error_set("cannot find %s: is sleuth installed, or SLEUTH_DATADIR set?",
			     SIM_MACHINE);
		goto fail;
	}
	struct stat dst;
	if (mkdir(dir, 0777) < 0 && (errno != EEXIST || stat(dir, &dst) < 0 ||
				     !S_ISDIR(dst.st_mode))) {
		sl_error_set("cannot create the directory %s: %s; give another with -o DIR",
			     dir, errno == EEXIST ? "a file of that name exists"
						  : strerror(errno));
		goto fail;
	}
	/* fmax and fmin of the simulated machine, from the model file the
	 * replay embeds (same P-states as the simulator: a test checks it). */
	char *model_path = sl_data_path("data/machines/sim-nehalem-i7-920.yaml");
	int lm = model_path ? sl_machine_load(model_path, &sm) : -1;
	if (!model_path)
		sl_error_set("cannot find data/machines/sim-nehalem-i7-920.yaml");
	free(model_path);
	if (lm < 0)
		goto fail;
	char fmax[32], fmin[32];
	snprintf(fmax, sizeof fmax, "%gGHz", sl_machine_fmax(&sm));
	snprintf(fmin, sizeof fmin, "%gGHz", sl_machine_fmin(&sm));

	trace = sl_xasprintf("%s/trace.yaml", dir);
	power = sl_xasprintf("%s/power.csv", dir);
	truth = sl_xasprintf("%s/truth-fmin.yaml", dir);
	prof = sl_xasprintf("%s/sleuth.prof", dir);
	sched = sl_xasprintf("%s/schedule.yaml", dir);
	report = sl_xasprintf("%s/report.html", dir);
	scheduled = sl_xasprintf("%s/scheduled.yaml", dir);

	if (sl_hw_available()) {
		printf("This machine has a hardware PMU: profile a real program with "
		       "'sleuth run ./app'.\nThe demo below uses the simulator.\n");
	} else {
		char *why = sl_xasprintf("(%s).", sl_error());
		sl_term_wrap(stdout, "No hardware PMU here ", why, 2, 100);
		free(why);
		printf("The demo runs sleuth's pipeline on a simulated workload instead.\n");
	}

	STEP("simulate", workload, "--machine", simmach, "--freq", fmax, "-o", trace,
	     "--power-log", power);
	STEP("run", "--replay", trace, "-o", prof);
	STEP("phases", prof);
	STEP("predict", prof, "--freq", fmax, "--freq", fmin);
	STEP("schedule", prof, "--min-edp", "--max-slowdown", "10%", "-o", sched);
	STEP("report", prof, "--schedule", sched, "-o", report);

	/* What no real machine can show from one run: the truth at fmin. */
	STEP("simulate", workload, "--machine", simmach, "--freq", fmin, "--truth",
	     "-o", truth);
	/* ... and the schedule applied to the same program. */
	STEP("simulate", workload, "--machine", simmach, "--schedule", sched,
	     "--profile", prof, "--truth", "-o", scheduled);
	double pt, pe, tt, te, st, se;
	sl_schedule_file sf = {0};
	if (predict_totals(prof, sl_machine_fmin(&sm), &pt, &pe) < 0 ||
	    trace_totals(truth, &tt, &te) < 0 || trace_totals(scheduled, &st, &se) < 0 ||
	    sl_schedule_read(sched, &sf) < 0)
		goto fail;
	printf("\nPredictions from the one run at %s against the simulator's truth:\n"
	       "  at %-9s time   predicted %8.3f s   true %8.3f s   error %+.1f%%\n"
	       "               energy predicted %8.1f J   true %8.1f J   error %+.1f%%\n"
	       "  scheduled    time   predicted %8.3f s   true %8.3f s   error %+.1f%%\n"
	       "               energy predicted %8.1f J   true %8.1f J   error %+.1f%%\n",
	       fmax, fmin, pt, tt, 100 * (pt - tt) / tt, pe, te, 100 * (pe - te) / te,
	       sf.time_s, st, 100 * (sf.time_s - st) / st,
	       sf.energy_j, se, 100 * (sf.energy_j - se) / se);
	sl_schedule_file_free(&sf);
	if (o->real && real_part(dir, trace, fmin, sl_machine_fmin(&sm)) < 0)
		goto fail;
	char *outs = sl_xasprintf("%s/: trace.yaml, power.csv, sleuth.prof, schedule.yaml, "
				  "report.html, truth-fmin.yaml, scheduled.yaml%s", dir,
				  o->real ? ", gzip.prof, gzip-fmin.prof" : "");
	sl_term_wrap(stdout, "\nOutputs in ", outs, 2, 100);
	free(outs);
	if (!o->real)
		printf("With Valgrind installed, 'sleuth demo --real' adds a real program "
		       "profiled on the virtual PMU.\n");
	rc = 0;
fail:
	sl_machine_free(&sm);
	free(workload);
	free(simmach);
	free(trace);
	free(power);
	free(truth);
	free(prof);
	free(sched);
	free(report);
	free(scheduled);
	return rc;
}

static int cmd_demo(int argc, char **argv)
{
	opts o = {.dir = "sleuth-demo"};
	int rc = parse(argc, argv, &o);
	if (rc == SL_EXIT_OK)
		rc = run(&o) < 0 ? sl_fail() : SL_EXIT_OK;
	return rc;
}

const struct sl_cmd sl_cmd_demo = {
	.name = "demo",
	.fn = cmd_demo,
	.summary = "Run the whole what-if pipeline on a shipped simulated workload",
	.usage =
	"usage: sleuth demo [-o DIR] [--workload FILE] [--real]\n\n"
	"Simulate a shipped workload at fmax, replay it into a profile, show its\n"
	"phases, predict time/power/energy at fmax and fmin, pick a frequency per\n"
	"phase (min EDP within 10% slowdown), write an HTML report, and check the\n"
	"predictions against the simulator's truth: the same program at fmin, and\n"
	"under the schedule.  Each step is printed as the sleuth command it runs.\n\n"
	"  -o, --output DIR   where to write the outputs (default sleuth-demo)\n"
	"  --workload FILE    a sleuth-workload/1 (default " DEFAULT_WORKLOAD ")\n"
	"  --real             also profile a real program (gzip) on the virtual\n"
	"                     PMU at fmax and fmin and check the prediction\n"
	"                     (needs Valgrind; takes seconds)\n",
};
