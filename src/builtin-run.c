/*
 * `sleuth run`: profile one run of a program (perf or timer backend) or
 * replay a simulated trace, and write the profile.  Everything between the
 * backend and the file is the collector's; this file only chooses the
 * backend and machine model, handles Ctrl-C and reports.
 */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "run.h"
#include "sleuth/collect.h"
#include "sleuth/collector.h"
#include "sleuth/common.h"
#include "sleuth/hw.h"
#include "sleuth/machine.h"
#include "sleuth/profile.h"
#include "sleuth/replay.h"

#define CMD "run"
#define DEFAULT_OUTPUT "sleuth.prof"
#define REPLAY_MACHINE "data/machines/sim-nehalem-i7-920.yaml"

/* The backend Ctrl-C (SIGTERM, SIGHUP) must reach; set while the collector
 * runs.  A live run passes the signal on to its program and still writes
 * the profile of what ran; a replay stops, writes nothing and exits 128+sig
 * (a replay interrupted is not a shorter trace's profile). */
static sl_backend *volatile running;
static volatile sig_atomic_t caught;
static const int run_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
	sl_backend *b = running;
	caught = sig;
	if (b && b->signal)
		b->signal(b, sig);
	else if (b && b->interrupt)
		b->interrupt(b);
}

static int parse(int argc, char **argv, sl_run_opts *o)
{
	enum { O_REPLAY = 256, O_BACKEND, O_MACHINE, O_INTERVAL, O_COUNTERS,
	       O_PERIOD, O_SEED, O_DIMS, O_THRESHOLD, O_PREDICTOR, O_POWER,
	       O_SCORE, O_RATE, O_PIN, O_SPLIT, O_FREQ, O_VPMU_MACHINE, O_DITHER };
	unsigned dither_n = 0;
	double dither_ghz = 0;
	static const struct option lo[] = {
		{"output", required_argument, 0, 'o'},
		{"replay", required_argument, 0, O_REPLAY},
		{"backend", required_argument, 0, O_BACKEND},
		{"machine", required_argument, 0, O_MACHINE},
		{"interval", required_argument, 0, O_INTERVAL},
		{"counters", required_argument, 0, O_COUNTERS},
		{"sample-period", required_argument, 0, O_PERIOD},
		{"sample-rate", required_argument, 0, O_RATE},
		{"seed", required_argument, 0, O_SEED},
		{"dims", required_argument, 0, O_DIMS},
		{"threshold", required_argument, 0, O_THRESHOLD},
		{"predictor", required_argument, 0, O_PREDICTOR},
		{"power", required_argument, 0, O_POWER},
		{"score", no_argument, 0, O_SCORE},
		{"pin", required_argument, 0, O_PIN},
		{"split", required_argument, 0, O_SPLIT},
		{"freq", required_argument, 0, O_FREQ},
		{"vpmu-machine", required_argument, 0, O_VPMU_MACHINE},
		{"dither", required_argument, 0, O_DITHER},
		{"quiet", no_argument, 0, 'q'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	uint64_t u;
	double d;
	int c;
	optind = 1;
	/* '+': options end at the program, whose own options are its own */
	while ((c = getopt_long(argc, argv, "+:o:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'h':
			/* here, not in main(): a -h after PROGRAM is PROGRAM's */
			printf("%s", sl_cmd_run.usage);
			o->help = 1;
			return 0;
		case 'o': o->output = optarg; break;
		case 'q': sl_quiet = 1; break;
		case O_REPLAY: o->replay = optarg; break;
		case O_MACHINE: o->machine = optarg; break;
		case O_BACKEND:
			if (strcmp(optarg, "auto") && strcmp(optarg, "perf") &&
			    strcmp(optarg, "timer") && strcmp(optarg, "vpmu"))
				return sl_usage_error(CMD, "unknown backend '%s'; use auto, "
						      "perf, timer or vpmu", optarg);
			o->backend = optarg;
			break;
		case O_INTERVAL: o->interval = optarg; break;
		case O_COUNTERS:
			if (sl_parse_u64(optarg, &u) < 0 || u > 64)
				return sl_usage_error(CMD, "--counters: '%s' is not a number "
						      "of counters (0 = unlimited, at most 64)",
						      optarg);
			o->counters = (int)u;
			break;
		case O_PERIOD:
			if (sl_parse_u64(optarg, &u) < 0 || u == 0)
				return sl_usage_error(CMD, "--sample-period: '%s' is not a "
						      "positive integer", optarg);
			o->sample_period = u;
			break;
		case O_RATE:
			if (sl_parse_double(optarg, &d) < 0 || d < 1 || d > 100000)
				return sl_usage_error(CMD, "--sample-rate: '%s' is not a "
						      "rate in 1..100000 Hz", optarg);
			o->sample_hz = d;
			break;
		case O_SEED:
			if (sl_parse_u64(optarg, &o->seed) < 0)
				return sl_usage_error(CMD, "--seed: %s", sl_error());
			break;
		case O_DIMS:
			if (sl_parse_u64(optarg, &u) < 0 || u < 2 || u > 4096)
				return sl_usage_error(CMD, "--dims: '%s' is not a number of "
						      "dimensions in 2..4096", optarg);
			o->copts.dims = (unsigned)u;
			break;
		case O_THRESHOLD:
			if (sl_parse_double(optarg, &d) < 0 || d <= 0 || d > 2)
				return sl_usage_error(CMD, "--threshold: '%s' is not a "
						      "distance in (0, 2]", optarg);
			o->copts.threshold = d;
			break;
		case O_SPLIT:
			if (!strcmp(optarg, "off"))
				o->copts.behave = -1;
			else if (sl_parse_double(optarg, &d) < 0 || d <= 0 || d > 10)
				return sl_usage_error(CMD, "--split: '%s' is neither off nor a "
						      "threshold in (0, 10]", optarg);
			else
				o->copts.behave = d;
			break;
		case O_PREDICTOR:
			if (sl_pred_parse(optarg, &o->copts.predictor) < 0)
				return sl_usage_error(CMD, "unknown predictor '%s'; use "
						      "last or markov", optarg);
			break;
		case O_POWER:
			if (strcmp(optarg, "rapl"))
				return sl_usage_error(CMD, "unknown power source '%s'; only "
						      "'rapl' is supported", optarg);
			o->power = 1;
			break;
		case O_SCORE: o->score = 1; break;
		case O_VPMU_MACHINE: o->vpmu_machine = optarg; break;
		case O_DITHER:
			if (sl_parse_dither(optarg, &dither_n, &dither_ghz) < 0)
				return sl_usage_error(CMD, "--dither: %s", sl_error());
			break;
		case O_FREQ:
			if (sl_parse_freq(optarg, &o->freq_ghz) < 0)
				return sl_usage_error(CMD, "--freq: %s", sl_error());
			break;
		case O_PIN:
			if (!*optarg)
				return sl_usage_error(CMD, "--pin: give none, time or "
						      "ROLE[,ROLE...]");
			o->pin = optarg;
			break;
		default: return sl_bad_option(CMD, c, argv);
		}
	}
	o->argv = argv + optind;
	o->argc = argc - optind;
	/* A dithered run is simulated for now (docs/models.md, "Dithering") */
	if (dither_n && o->replay)
		return sl_usage_error(CMD, "--dither does not apply to --replay: a trace's "
				      "intervals carry their own frequencies (make one with "
				      "'sleuth simulate --dither N:FREQ')");
	if (dither_n)
		return sl_usage_error(CMD, "--dither needs --replay for now: the perf and "
				      "vpmu backends do not switch the core frequency mid-run "
				      "yet; record a dithered run with 'sleuth simulate --dither "
				      "N:FREQ' and 'sleuth run --replay TRACE'");
	if ((o->freq_ghz > 0 || o->vpmu_machine) && (!o->backend || strcmp(o->backend, "vpmu")))
		return sl_usage_error(CMD, "--freq and --vpmu-machine set up the virtual "
				      "CPU; they need --backend vpmu");
	if (o->power && o->backend && !strcmp(o->backend, "vpmu"))
		return sl_usage_error(CMD, "--power does not apply to --backend vpmu (its "
				      "own meter records each interval's energy)");
	if (o->replay) {
		if (o->argc)
			return sl_usage_error(CMD, "give either --replay TRACE or a "
					      "program, not both");
		if (o->backend && strcmp(o->backend, "auto"))
			return sl_usage_error(CMD, "--replay is its own backend; drop "
					      "--backend %s", o->backend);
		if (o->interval)
			return sl_usage_error(CMD, "--interval does not apply to --replay "
					      "(the trace's intervals are replayed)");
		if (o->power)
			return sl_usage_error(CMD, "--power does not apply to --replay "
					      "(the trace carries its reference energy)");
		if (o->sample_hz)
			return sl_usage_error(CMD, "--sample-rate is the timer backend's; "
					      "--replay samples every --sample-period "
					      "branches");
	} else {
		if (!o->argc)
			return sl_usage_error(CMD, "no program to run; give "
					      "'sleuth run [OPTIONS] [--] PROGRAM [ARGS]' "
					      "or --replay TRACE");
		if (o->score)
			return sl_usage_error(CMD, "--score needs --replay (a trace's true "
					      "labels)");
	}
	return 0;
}

/* The command as a shell would show it (for the profile). */
static char *command_line(const sl_run_opts *o)
{
	if (o->replay)
		return sl_xasprintf("replay %s", o->replay);
	size_t len = 1;
	for (int i = 0; i < o->argc; i++)
		len += strlen(o->argv[i]) * 4 + 3;
	char *s = sl_xmalloc(len), *e = s;
	*e = 0;
	for (int i = 0; i < o->argc; i++) {
		const char *a = o->argv[i];
		int plain = *a && !a[strcspn(a, " \t\n'\"\\$`;&|<>()*?[]#~")];
		if (i)
			*e++ = ' ';
		if (plain) {
			e = stpcpy(e, a);
			continue;
		}
		*e++ = '\'';
		for (; *a; a++)
			e = *a == '\'' ? stpcpy(e, "'\\''") : (*e++ = *a, e);
		*e++ = '\'';
		*e = 0;
	}
	*e = 0;
	return s;
}

/*
 * Adjusted Rand index of the detected phases against the trace's labels,
 * leaving out the intervals where a phase change falls: the first interval
 * of an instance mixes two phases, and a simulator labels it with its
 * majority phase, so it is either the first interval of a new label or the
 * last of the old one.  Both intervals around each change of label are
 * left out.
 */
static void score(const sl_backend *b, const sl_profile *p)
{
	size_t n;
	const uint32_t *truth = sl_replay_truth(b, &n);
	uint32_t *t = sl_xcalloc(n, sizeof *t), *d = sl_xcalloc(n, sizeof *d);
	size_t m = 0, mixed = 0, unlabelled = 0;
	n = SL_MIN(n, p->n_intervals);
	for (size_t i = 0; i < n; i++) {
		if (truth[i] == UINT32_MAX) {
			unlabelled++;
			continue;
		}
		if ((i && truth[i] != truth[i - 1]) || (i + 1 < n && truth[i] != truth[i + 1])) {
			mixed++;
			continue;
		}
		t[m] = truth[i];
		d[m++] = p->iv[i].phase;
	}
	if (!m)
		printf("score: the trace has no labels\n");
	else
		printf("score: ari %.4f over %zu intervals (%zu at phase changes, %zu "
		       "unlabelled left out); predictor %s accuracy %.4f\n",
		       sl_ari(t, d, m), m, mixed, unlabelled, p->predictor,
		       isnan(p->predictor_accuracy) ? 0.0 : p->predictor_accuracy);
	free(t);
	free(d);
}

static void summary(const sl_profile *p, const sl_run_opts *o)
{
	char pred[96];
	/* two lines: each fits 100 columns */
	sl_info("%s: %zu intervals, %zu phases (%zu cover 90%% of the time)", o->output,
		p->n_intervals, sl_profile_phases_used(p), sl_profile_phases_covering(p, 0.9));
	sl_info("%llu samples (%llu lost), %s%s", (unsigned long long)p->samples,
		(unsigned long long)p->lost_samples,
		sl_profile_predictor_text(p, pred, sizeof pred),
		p->has_counts ? "" : "; no event counts (timer backend)");
	if (p->lost_samples)
		sl_warn("%llu of %llu samples were lost; a longer --sample-period "
			"loses fewer", (unsigned long long)p->lost_samples,
			(unsigned long long)(p->samples + p->lost_samples));
}

/*
 * Most intervals founding a phase of their own means the samples of one
 * interval are too few for this program's code to look alike twice (an
 * interpreter's hot code is spread over many addresses, and the timer
 * backend takes ~20 samples per interval): the phases are noise, and the
 * profile should say so and name the way out.
 */
static void check_phase_noise(sl_profile *p, const char *backend)
{
	if (!sl_profile_phases_noisy(p))
		return;
	char timer_fix[64];
	snprintf(timer_fix, sizeof timer_fix, "a longer --interval (e.g. %.0fms)",
		 SL_MAX(3e3 * p->interval_s, 100.0));
	const char *fix = !strcmp(backend, "timer")
				  ? timer_fix
				  : "a longer --interval or a shorter --sample-period";
	sl_profile_add_note(p, "%zu phases in %zu intervals: too few samples per "
			    "interval (%.0f on average) to tell this program's phases; "
			    "record again with %s", p->n_phases, p->n_intervals,
			    (double)p->samples / (double)p->n_intervals, fix);
	sl_warn("%s", p->notes[p->n_notes - 1]);
}

/*
 * No dead end without a machine model: the perf backend records with a
 * skeleton made from the event map for this PMU (what 'sleuth machine
 * init' writes: time predictions, no power); a PMU the map lacks records
 * with the timer backend when the backend was left to sleuth.
 */
static int no_model(sl_run_opts *o, sl_machine *m, char **path)
{
	char *why = sl_xstrdup(sl_error());
	sl_machine_init_opts mo = {0};
	int rc = -1;
	const char *pmu, *desc;
	/* A model from the map costs a pointer chase and a cpufreq read: first
	 * learn that the perf backend can count here at all (a VM whose CPUID
	 * names a PMU libpfm4 knows may still have no counters). */
	if (!sl_hw_available()) {
		free(why);
		return sl_run_fallback(o) ? 0 : -1;
	}
	char *user = sl_pfm_host_pmu(&pmu, &desc) == 0 ? sl_user_machine_find(pmu) : NULL;
	if (user) { /* written by 'sleuth machine init' */
		*path = user;
		free(why);
		if (sl_machine_load(user, m) < 0)
			return -1;
		sl_info("machine model %s", user);
		return 1;
	}
	if (sl_machine_init_loaded(m, &mo) == 0) {
		sl_info("no machine model for this CPU: recording with %s from sleuth's "
			"event map (time predictions; no power until calibrated); keep one "
			"with 'sleuth machine init -o m.yaml' (docs/hardware.md)", m->name);
		*path = sl_xasprintf("(sleuth machine init: %s)", m->name);
		rc = 1;
	} else {
		char *map = sl_xstrdup(sl_error());
		sl_error_set("%s; %s", why, map);
		if (sl_run_fallback(o)) /* the backend was sleuth's choice */
			rc = 0;
		free(map);
	}
	free(why);
	return rc;
}

static int load_machine(sl_run_opts *o, sl_machine *m, char **path)
{
	*path = NULL;
	if (o->machine) {
		*path = sl_xstrdup(o->machine);
	} else if (o->replay) {
		*path = sl_data_path(REPLAY_MACHINE);
		if (!*path) {
			sl_error_set("cannot find the default machine model %s; give "
				     "--machine FILE", REPLAY_MACHINE);
			return -1;
		}
	} else if (sl_run_default_machine(o, path) < 0) {
		return no_model(o, m, path);
	}
	if (!*path)
		return 0; /* the timer backend needs no model */
	if (sl_machine_load(*path, m) < 0)
		return -1;
	return 1;
}

/*
 * The events --pin names, from the machine model: "time" is what the mlp
 * time model reads where the machine names offcore_cycles (with
 * miss_stall_cycles and llc_references), else what the stall time model reads
 * (memory_stall_cycles where the machine has it, else
 * whichever of stall_cycles and llc_misses it names; none of them: no
 * pinning, as the default must work with any model), otherwise a comma
 * list of roles, each of which the machine must name.  Sets o->copts.pin
 * (malloc'd; the strings point into m).  -1 with sl_error().
 */
static int resolve_pin(sl_run_opts *o, const sl_machine *m)
{
	const char *spec = o->pin ? o->pin : SL_RUN_PIN_DEFAULT;
	int time = !strcmp(spec, "time");
	if (!strcmp(spec, "none"))
		return 0;
	if (time && sl_machine_role(m, "offcore_cycles"))
		spec = "offcore_cycles,miss_stall_cycles,llc_references"; /* the mlp model's */
	else if (time)
		spec = sl_machine_role(m, "memory_stall_cycles") ? "memory_stall_cycles"
								 : "stall_cycles,llc_misses";
	char *roles = sl_xstrdup(spec), *save = NULL;
	const char **ev = sl_xcalloc(strlen(spec) / 2 + 2, sizeof *ev);
	size_t n = 0;
	int rc = 0;
	for (char *r = strtok_r(roles, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		if ((ev[n] = sl_machine_role(m, r)))
			n++;
		else if (!time) {
			sl_error_set("--pin: machine %s names no '%s' event; use none, "
				     "time or roles listed under its 'events:'", m->name, r);
			rc = -1;
			break;
		}
	}
	free(roles);
	if (!rc && !n && !time) {
		sl_error_set("--pin: '%s' names no role; use none, time or "
			     "ROLE[,ROLE...]", spec);
		rc = -1;
	}
	if (rc < 0 || !n) {
		free(ev);
		return rc;
	}
	o->copts.pin = ev;
	o->copts.n_pin = n;
	return 0;
}

static int run(sl_run_opts *o)
{
	sl_machine m;
	memset(&m, 0, sizeof m);
	char *mpath = NULL;
	int have = 0;
	sl_backend *b = NULL;
	const char **live_events = NULL;
	sl_profile p;
	int status = SL_EXIT_ERROR;
	sl_profile_init(&p);

	/* Learn now, not after a long run, that the profile cannot be written. */
	sl_afile probe;
	if (!sl_afile_open(&probe, o->output))
		goto fail;
	sl_afile_abort(&probe);
	if (!o->replay)
		sl_run_pick_backend(o);
	have = load_machine(o, &m, &mpath);
	if (have < 0 && !o->machine && sl_run_fallback(o)) {
		free(mpath);
		have = load_machine(o, &m, &mpath);
	}
	if (have < 0)
		goto fail;
	if (have > 0 && resolve_pin(o, &m) < 0)
		goto fail;
	if (o->replay) {
		sl_replay_opts ro = {.trace = o->replay, .machine = &m,
				     .counters = o->counters, .sample_period = o->sample_period,
				     .seed = o->seed};
		b = sl_replay_backend_new(&ro);
	} else {
		b = sl_run_live_backend(o, have ? &m : NULL, &live_events);
		if (!b && sl_run_fallback(o)) {
			free(live_events);
			live_events = NULL;
			if (have > 0) { /* the timer backend takes no model */
				free((void *)o->copts.pin);
				o->copts.pin = NULL;
				o->copts.n_pin = 0;
				sl_machine_free(&m);
				have = 0;
			}
			b = sl_run_live_backend(o, NULL, &live_events);
		}
	}
	if (!b)
		goto fail;

	struct sigaction sa = {.sa_handler = on_signal}, old[SL_ARRAY_LEN(run_signals)];
	sigemptyset(&sa.sa_mask);
	running = b;
	for (size_t i = 0; i < SL_ARRAY_LEN(run_signals); i++)
		sigaction(run_signals[i], &sa, &old[i]);
	sl_collect_stats st;
	int rc = sl_collect(b, &o->copts, &p, &st);
	int exit_status = b->finish(b);
	running = NULL;
	for (size_t i = 0; i < SL_ARRAY_LEN(run_signals); i++)
		sigaction(run_signals[i], &old[i], NULL);
	if (o->replay && caught) {
		fprintf(stderr, "sleuth: interrupted; no profile written\n");
		status = 128 + caught;
		goto out;
	}
	if (rc < 0)
		goto fail;

	p.command = command_line(o);
	if (have) {
		p.machine_text = sl_xstrdup(m.text);
		p.machine_path = sl_xstrdup(mpath);
	}
	if (!p.has_counts)
		sl_profile_add_note(&p, "%s backend: no event counts, so no predictions; "
				    "record where there is a PMU (--backend perf) or "
				    "through the virtual PMU (vPMU) for them", b->name);
	if (st.empty)
		sl_profile_add_note(&p, "%zu intervals had no samples and took the "
				    "predicted phase", st.empty);
	if (p.lost_samples)
		sl_profile_add_note(&p, "%llu samples lost",
				    (unsigned long long)p.lost_samples);
	if (p.throttles)
		sl_profile_add_note(&p, "the kernel throttled sampling %llu times; "
				    "those ticks lack samples and counts",
				    (unsigned long long)p.throttles);
	if (p.merged_intervals)
		sl_profile_add_note(&p, "%llu intervals merged into the next (sleuth "
				    "fell behind)", (unsigned long long)p.merged_intervals);
	if (p.scaled_intervals)
		sl_profile_add_note(&p, "%llu intervals' counts scaled: the counter "
				    "group was multiplexed", (unsigned long long)p.scaled_intervals);
	check_phase_noise(&p, b->name);
	if (sl_profile_write(o->output, &p) < 0)
		goto fail;
	summary(&p, o);
	if (o->score)
		score(b, &p);
	status = exit_status;
	goto out;
fail:
	status = sl_fail();
out:
	if (b)
		b->destroy(b);
	free(live_events);
	sl_profile_free(&p);
	if (have > 0)
		sl_machine_free(&m);
	free((void *)o->copts.pin);
	free(mpath);
	return status;
}

static int cmd_run(int argc, char **argv)
{
	sl_run_opts o = {.output = DEFAULT_OUTPUT, .counters = -1, .seed = 1};
	sl_collect_opts_init(&o.copts);
	int rc = parse(argc, argv, &o);
	if (rc || o.help)
		return rc;
	return run(&o);
}

const struct sl_cmd sl_cmd_run = {
	.name = "run",
	.fn = cmd_run,
	.summary = "Profile one run of a program (or replay a trace) into phases",
	.usage =
	"usage: sleuth run [OPTIONS] [--] PROGRAM [ARGS]\n"
	"       sleuth run [OPTIONS] --replay TRACE\n\n"
	"Run PROGRAM once (or replay a sleuth-trace/1 as a PMU would see it),\n"
	"detect its phases from sampled branches, multiplex the machine model's\n"
	"events over them, and write a profile for predict, schedule and report.\n"
	"The program's exit status becomes sleuth's; Ctrl-C stops it and still\n"
	"writes the profile.\n\n"
	"  -o, --output FILE     profile to write (default sleuth.prof)\n"
	"  --replay TRACE        replay a sleuth-trace/1 instead of running\n"
	"  --backend B           auto (default), perf, timer or vpmu; auto uses\n"
	"                        perf if it can run here (hardware events, a\n"
	"                        machine model, counters), else timer, saying why;\n"
	"                        vpmu runs PROGRAM on the virtual PMU (Valgrind,\n"
	"                        docs/vpmu.md): one process; a PROGRAM that forks\n"
	"                        or execs (a shell, a wrapper) is refused\n"
	"  --freq F              vpmu: the virtual core clock (default its fastest\n"
	"                        P-state, 2.66GHz)\n"
	"  --vpmu-machine FILE   vpmu: the virtual machine (sleuth-vpmu-machine/1;\n"
	"                        default data/sim/vpmu-nehalem-i7-920.yaml)\n"
	"  --dither N:FREQ       every Nth interval at FREQ: not yet on perf or vpmu\n"
	"                        (refused); a replayed trace from 'sleuth simulate\n"
	"                        --dither N:FREQ' carries its own (docs/models.md)\n"
	"  --machine FILE        machine model (sleuth-machine/1); default: for\n"
	"                        replay " REPLAY_MACHINE ",\n"
	"                        for perf the model under data/machines/ matching\n"
	"                        the host PMU\n"
	"  --interval N          instructions per interval (perf, vpmu: default\n"
	"                        100M; K/M/G suffixes) or CPU time per interval\n"
	"                        (timer, s/ms/us suffixes; default: long enough for\n"
	"                        the samples phases need, 145ms at 2000 Hz)\n"
	"  --counters K          programmable counters (default: the machine's,\n"
	"                        at most what fits beside the sampler: 'sleuth\n"
	"                        doctor' prints the plan; 0 = unlimited, replay)\n"
	"  --sample-period N     sample every Nth conditional branch (default:\n"
	"                        replay 49999, vpmu and perf 20011 at intervals\n"
	"                        of 100M instructions or more; replay and vpmu\n"
	"                        shorter in proportion to a shorter interval)\n"
	"  --sample-rate HZ      timer: IP samples per second of CPU time\n"
	"                        (default 2000; 500 with --interval 40ms costs\n"
	"                        about a third of the overhead)\n"
	"  --seed N              seed of the replay's sampling (default 1)\n"
	"  --dims N              branch vector dimensions (default 256)\n"
	"  --threshold X         a fixed clustering distance threshold in (0, 2]\n"
	"                        (default: the sampling noise + 0.25, per interval;\n"
	"                        see docs/phases.md)\n"
	"  --split X|off         split a code phase whose rates of the events counted\n"
	"                        in every interval (pinned and uncore) differ by\n"
	"                        more than X in log space (default 0.85;\n"
	"                        docs/phases.md, \"Behaviour phases\")\n"
	"  --predictor P         last or markov (default markov)\n"
	"  --pin WHAT            events programmed in every interval, the other\n"
	"                        counters rotating: time (the stall model's\n"
	"                        events), none, or ROLE[,ROLE...] of the machine\n"
	"                        (default " SL_RUN_PIN_DEFAULT "; docs/phases.md)\n"

	"  --power rapl          record reference energy per interval from RAPL\n"
	"  --score               replay: print the adjusted Rand index of the\n"
	"                        phases against the trace's true labels\n"
	"  -q, --quiet           no summary on stderr\n",
};
