/*
 * `sleuth simulate`: run a workload on the simulated machine at one
 * P-state and write what the hardware would show (a sleuth-trace/1 with
 * every counter, the branch histograms, labels and energies), plus an
 * optional power-meter log and idle log.  The physics is in sim/.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "sim/sim-schedule.h"
#include "sleuth/common.h"
#include "sleuth/sim.h"

#define CMD "simulate"

#define DEFAULT_MACHINE "data/sim/nehalem-i7-920.yaml"

static const char usage[] =
	"usage: sleuth simulate WORKLOAD.yaml -o TRACE.yaml [options]\n"
	"       sleuth simulate WORKLOAD.yaml -o TRACE.yaml --schedule S.yaml [options]\n"
	"\n"
	"Run a simulated workload on a simulated machine at one P-state, or each\n"
	"phase at the frequency a schedule gives it, and write its interval trace\n"
	"(sleuth-trace/1); see docs/simulator.md.\n"
	"\n"
	"  -o, --output FILE      the trace to write ('-' for stdout)\n"
	"  -m, --machine FILE     simulated machine\n"
	"                         (default " DEFAULT_MACHINE ")\n"
	"  -f, --freq FREQ        a P-state of the machine: 2.66GHz, 2660MHz or 2.66\n"
	"                         (default: its highest)\n"
	"      --seed N           random seed (default 1); the same seed at any\n"
	"                         frequency runs the same program\n"
	"      --power-log FILE   also write the power meter's log (CSV time_s,power_w)\n"
	"      --idle-log FILE    also write the idle power of every P-state\n"
	"                         (CSV ghz,power_w)\n"
	"      --truth            per-interval e is the exact energy, not the meter's\n"
	"      --intervals N      run N intervals (the workload's sequence truncated or\n"
	"                         repeated); default: the sequence once\n"
	"  -q, --quiet            no summary line on stderr\n"
	"\n"
	"  -s, --schedule FILE    run each interval at the frequency a sleuth-schedule/1\n"
	"                         gives the phase its profile detected there\n"
	"  -p, --profile FILE     the profile the schedule was made from (default: the\n"
	"                         schedule's profile:, next to the schedule file)\n"
	"      --transition-us T  time of one frequency switch (default: the schedule's\n"
	"                         transition_us, else 0)\n"
	"\n"
	"      --dither N:FREQ    run every Nth interval at the P-state FREQ, the rest at\n"
	"                         --freq: one run measured at two frequencies\n"
	"                         (docs/models.md, \"Dithering\"); --transition-us applies\n";

enum { OPT_SEED = 256, OPT_POWER_LOG, OPT_IDLE_LOG, OPT_TRUTH, OPT_INTERVALS,
       OPT_TRANSITION, OPT_DITHER };

typedef struct opts {
	const char *workload;
	const char *machine;     /* -m, NULL: DEFAULT_MACHINE */
	const char *freq;        /* -f as given, NULL: fmax */
	double ghz;              /* -f parsed */
	uint64_t seed, intervals;
	unsigned dither_n;       /* --dither N:FREQ, 0: none */
	double dither_ghz;
	sl_sim_run_opts ro;      /* outputs and --truth */
	sl_simsched_opts so;     /* --schedule, --profile, --transition-us */
} opts;

/* Parse the command line; SL_EXIT_OK or SL_EXIT_USAGE (already reported). */
static int parse(int argc, char **argv, opts *o)
{
	static const struct option lo[] = {
		{"output", required_argument, NULL, 'o'},
		{"machine", required_argument, NULL, 'm'},
		{"freq", required_argument, NULL, 'f'},
		{"seed", required_argument, NULL, OPT_SEED},
		{"power-log", required_argument, NULL, OPT_POWER_LOG},
		{"idle-log", required_argument, NULL, OPT_IDLE_LOG},
		{"truth", no_argument, NULL, OPT_TRUTH},
		{"intervals", required_argument, NULL, OPT_INTERVALS},
		{"quiet", no_argument, NULL, 'q'},
		{"schedule", required_argument, NULL, 's'},
		{"profile", required_argument, NULL, 'p'},
		{"transition-us", required_argument, NULL, OPT_TRANSITION},
		{"dither", required_argument, NULL, OPT_DITHER},
		{NULL, 0, NULL, 0},
	};
	sl_sim_run_opts *ro = &o->ro;
	sl_simsched_opts *so = &o->so;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:m:f:qs:p:", lo, NULL)) != -1) {
		switch (c) {
		case 'o': ro->trace_path = optarg; break;
		case 'm': o->machine = optarg; break;
		case 'f': o->freq = optarg; break;
		case 'q': sl_quiet = 1; break;
		case 's': so->schedule = optarg; break;
		case 'p': so->profile = optarg; break;
		case OPT_TRANSITION:
			if (sl_parse_double(optarg, &so->transition_us) < 0 ||
			    so->transition_us < 0)
				return sl_usage_error(CMD, "--transition-us: '%s' is not "
						      "a time >= 0 in microseconds", optarg);
			break;
		case OPT_SEED:
			if (sl_parse_u64(optarg, &o->seed) < 0)
				return sl_usage_error(CMD, "--seed: %s", sl_error());
			break;
		case OPT_DITHER:
			if (sl_parse_dither(optarg, &o->dither_n, &o->dither_ghz) < 0)
				return sl_usage_error(CMD, "--dither: %s", sl_error());
			break;
		case OPT_POWER_LOG: ro->power_log = optarg; break;
		case OPT_IDLE_LOG: ro->idle_log = optarg; break;
		case OPT_TRUTH: ro->truth = 1; break;
		case OPT_INTERVALS:
			if (sl_parse_u64(optarg, &o->intervals) < 0 || !o->intervals ||
			    o->intervals > 100000000)
				return sl_usage_error(CMD,
						      "--intervals: '%s' is not a count from 1 "
						      "to 100000000", optarg);
			break;
		default: return sl_bad_option(CMD, c, argv);
		}
	}
	if (optind >= argc)
		return sl_usage_error(CMD, "give the workload to run (WORKLOAD.yaml)");
	if (optind + 1 < argc)
		return sl_usage_error(CMD, "one workload only; unexpected '%s'",
				      argv[optind + 1]);
	o->workload = argv[optind];
	if (!ro->trace_path)
		return sl_usage_error(CMD, "give the trace to write with -o FILE");
	/* Two outputs to one file would leave only the last (or interleave
	 * both on stdout). */
	const char *outs[] = {ro->trace_path, ro->power_log, ro->idle_log};
	for (size_t i = 0; i < SL_ARRAY_LEN(outs); i++)
		for (size_t j = i + 1; j < SL_ARRAY_LEN(outs); j++)
			if (outs[i] && outs[j] && !strcmp(outs[i], outs[j]))
				return sl_usage_error(CMD, "-o, --power-log and --idle-log "
						      "must name different files; '%s' is given "
						      "twice", outs[i]);
	if (so->schedule && o->dither_n)
		return sl_usage_error(CMD, "--dither and --schedule exclude each other: "
				      "both set each interval's frequency");
	if (!so->schedule && so->profile)
		return sl_usage_error(CMD, "--profile goes with --schedule");
	if (!so->schedule && !o->dither_n && so->transition_us >= 0)
		return sl_usage_error(CMD, "--transition-us goes with --schedule or --dither");
	if (so->schedule && o->freq)
		return sl_usage_error(CMD, "--freq and --schedule exclude each other: "
				      "the schedule gives the frequencies");
	if (o->freq && sl_parse_freq(o->freq, &o->ghz) < 0)
		return sl_usage_error(CMD, "--freq: %s", sl_error());
	return SL_EXIT_OK;
}

/* Simulate and write; -1 with sl_error(). */
static int run(opts *o)
{
	sl_sim_run_opts *ro = &o->ro;
	sl_simsched_opts *so = &o->so;
	const char *machine_path = o->machine;
	char *default_machine = NULL;
	sl_sim_totals tot;
	int *plan = NULL;
	sl_sim_machine m;
	sl_sim_workload w;
	sl_sim s;
	int rc = -1;

	if (!machine_path) {
		default_machine = sl_data_path(DEFAULT_MACHINE);
		if (!default_machine) {
			sl_error_set("cannot find %s in the source tree or the installed data; "
				     "give --machine FILE", DEFAULT_MACHINE);
			return -1;
		}
		machine_path = default_machine;
	}
	if (sl_sim_machine_load(machine_path, &m) < 0) {
		free(default_machine);
		return -1;
	}
	if (sl_sim_workload_load(o->workload, &w) < 0)
		goto out_m;
	ro->ghz = o->freq ? o->ghz : m.ghz[0];
	if (sl_sim_machine_pstate(&m, ro->ghz) < 0)
		goto out_w;
	sl_sim_prepare(&s, &m, &w, o->seed, (size_t)o->intervals);
	if (so->schedule && sl_simsched_plan(so, &s, ro, &plan) < 0)
		goto out_w;
	if (o->dither_n) {
		if (sl_simdither_plan(&s, o->dither_n, o->dither_ghz, ro, &plan) < 0)
			goto out_w;
		ro->switch_s = (so->transition_us > 0 ? so->transition_us : 0) * 1e-6;
	}
	ro->totals = &tot;
	double t0 = sl_now();
	if (sl_sim_run(&s, ro) < 0)
		goto out_w;
	if (so->schedule)
		sl_info("simulated %zu intervals of %s under %s in %.2f s: %.6g s, %.6g J, "
			"EDP %.6g J*s, %zu frequency changes", s.n_intervals, w.name,
			so->schedule, sl_now() - t0, tot.time_s, tot.energy_j,
			tot.time_s * tot.energy_j, tot.switches);
	else if (o->dither_n)
		sl_info("simulated %zu intervals of %s at %.2f GHz, every %u%s at %.2f GHz, "
			"in %.2f s: %.6g s, %.6g J, %zu frequency changes", s.n_intervals, w.name,
			ro->ghz, o->dither_n, o->dither_n == 2 ? "nd" : o->dither_n == 3 ? "rd" : "th",
			o->dither_ghz, sl_now() - t0, tot.time_s, tot.energy_j, tot.switches);
	else
		sl_info("simulated %zu intervals of %s at %.2f GHz in %.2f s", s.n_intervals,
			w.name, ro->ghz, sl_now() - t0);
	rc = 0;
out_w:
	free(plan);
	sl_sim_workload_free(&w);
out_m:
	sl_sim_machine_free(&m);
	free(default_machine);
	return rc;
}

static int cmd_simulate(int argc, char **argv)
{
	opts o = {.seed = 1, .so = {NULL, NULL, -1}};
	int rc = parse(argc, argv, &o);
	if (rc == SL_EXIT_OK)
		rc = run(&o) < 0 ? sl_fail() : SL_EXIT_OK;
	return rc;
}

const struct sl_cmd sl_cmd_simulate = {
	.name = CMD,
	.fn = cmd_simulate,
	.summary = "Run a workload on the simulated machine and write its trace",
	.usage = usage,
};
