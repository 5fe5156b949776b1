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
	"  -m, --machine FILE     simulated machine (default " DEFAULT_MACHINE ")\n"
	"  -f, --freq FREQ        a P-state of the machine: 2.66GHz, 2660MHz or 2.66\n"
	"                         (default: its highest)\n"
	"      --seed N           random seed (default 1); the same seed at any\n"
	"                         frequency runs the same program\n"
	"      --power-log FILE   also write the power meter's log (CSV time_s,power_w)\n"
	"      --idle-log FILE    also write the idle power of every P-state (CSV ghz,power_w)\n"
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
	"                         transition_us, else 0)\n";

enum { OPT_SEED = 256, OPT_POWER_LOG, OPT_IDLE_LOG, OPT_TRUTH, OPT_INTERVALS,
       OPT_TRANSITION };

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
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
		{NULL, 0, NULL, 0},
	};
	const char *machine_path = NULL, *freq = NULL;
	char *default_machine = NULL;
	uint64_t seed = 1, intervals = 0;
	sl_sim_run_opts ro = {0};
	sl_simsched_opts so = {NULL, NULL, -1};
	sl_sim_totals tot;
	int *plan = NULL;
	sl_sim_machine m;
	sl_sim_workload w;
	sl_sim s;
	double ghz;
	int c, rc = SL_EXIT_ERROR;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:m:f:qs:p:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': ro.trace_path = optarg; break;
		case 'm': machine_path = optarg; break;
		case 'f': freq = optarg; break;
		case 'q': sl_quiet = 1; break;
		case 's': so.schedule = optarg; break;
		case 'p': so.profile = optarg; break;
		case OPT_TRANSITION:
			if (sl_parse_double(optarg, &so.transition_us) < 0 ||
			    so.transition_us < 0)
				return sl_usage_error("simulate", "--transition-us: '%s' is not "
						      "a time >= 0 in microseconds", optarg);
			break;
		case OPT_SEED:
			if (sl_parse_u64(optarg, &seed) < 0)
				return sl_usage_error("simulate", "--seed: %s", sl_error());
			break;
		case OPT_POWER_LOG: ro.power_log = optarg; break;
		case OPT_IDLE_LOG: ro.idle_log = optarg; break;
		case OPT_TRUTH: ro.truth = 1; break;
		case OPT_INTERVALS:
			if (sl_parse_u64(optarg, &intervals) < 0 || !intervals ||
			    intervals > 100000000)
				return sl_usage_error("simulate",
						      "--intervals: '%s' is not a count from 1 "
						      "to 100000000", optarg);
			break;
		default: return sl_bad_option("simulate", c, argv);
		}
	}
	if (optind >= argc)
		return sl_usage_error("simulate", "give the workload to run (WORKLOAD.yaml)");
	if (optind + 1 < argc)
		return sl_usage_error("simulate", "one workload only; unexpected '%s'",
				      argv[optind + 1]);
	if (!ro.trace_path)
		return sl_usage_error("simulate", "give the trace to write with -o FILE");
	/* Two outputs to one file would leave only the last (or interleave
	 * both on stdout). */
	const char *outs[] = {ro.trace_path, ro.power_log, ro.idle_log};
	for (size_t i = 0; i < SL_ARRAY_LEN(outs); i++)
		for (size_t j = i + 1; j < SL_ARRAY_LEN(outs); j++)
			if (outs[i] && outs[j] && !strcmp(outs[i], outs[j]))
				return sl_usage_error("simulate", "-o, --power-log and --idle-log "
						      "must name different files; '%s' is given "
						      "twice", outs[i]);
	if (!so.schedule && (so.profile || so.transition_us >= 0))
		return sl_usage_error("simulate", "--profile and --transition-us go with "
				      "--schedule");
	if (so.schedule && freq)
		return sl_usage_error("simulate", "--freq and --schedule exclude each other: "
				      "the schedule gives the frequencies");
	if (freq && sl_parse_freq(freq, &ghz) < 0)
		return sl_usage_error("simulate", "--freq: %s", sl_error());
	if (!machine_path) {
		default_machine = sl_data_path(DEFAULT_MACHINE);
		if (!default_machine) {
			sl_error_set("cannot find %s in the source tree or the installed data; "
				     "give --machine FILE", DEFAULT_MACHINE);
			return sl_fail();
		}
		machine_path = default_machine;
	}
	if (sl_sim_machine_load(machine_path, &m) < 0) {
		free(default_machine);
		return sl_fail();
	}
	if (sl_sim_workload_load(argv[optind], &w) < 0)
		goto out_m;
	ro.ghz = freq ? ghz : m.ghz[0];
	if (sl_sim_machine_pstate(&m, ro.ghz) < 0)
		goto out_w;
	sl_sim_prepare(&s, &m, &w, seed, (size_t)intervals);
	if (so.schedule && sl_simsched_plan(&so, &s, &ro, &plan) < 0)
		goto out_w;
	ro.totals = &tot;
	double t0 = sl_now();
	if (sl_sim_run(&s, &ro) < 0)
		goto out_w;
	if (so.schedule)
		sl_info("simulated %zu intervals of %s under %s in %.2f s: %.6g s, %.6g J, "
			"EDP %.6g J*s, %zu frequency changes", s.n_intervals, w.name,
			so.schedule, sl_now() - t0, tot.time_s, tot.energy_j,
			tot.time_s * tot.energy_j, tot.switches);
	else
		sl_info("simulated %zu intervals of %s at %.2f GHz in %.2f s", s.n_intervals,
			w.name, ro.ghz, sl_now() - t0);
	rc = SL_EXIT_OK;
out_w:
	free(plan);
	sl_sim_workload_free(&w);
out_m:
	sl_sim_machine_free(&m);
	free(default_machine);
	return rc == SL_EXIT_OK ? rc : sl_fail();
}

const struct sl_cmd sl_cmd_simulate = {
	.name = "simulate",
	.fn = run,
	.summary = "Run a workload on the simulated machine and write its trace",
	.usage = usage,
};
