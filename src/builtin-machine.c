/*
 * `sleuth machine`: write a machine model for this CPU (init) and tell what
 * a machine file says and what it can predict (show).  The knowledge is in
 * libsleuth (hw/, include/sleuth/hw.h); this file is the command line.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "sleuth/collect.h"
#include "sleuth/common.h"
#include "sleuth/hw.h"
#include "sleuth/machine.h"
#include "sleuth/model.h"

#define CMD "machine"

/* mkdir -p */
static int mkdir_p(const char *dir)
{
	char *p = sl_xstrdup(dir);
	int rc = 0;
	for (char *s = p + 1; rc == 0; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;
		*s = 0;
		if (mkdir(p, 0777) < 0 && errno != EEXIST)
			rc = -1;
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return rc;
}

typedef struct opts {
	int show;                       /* show FILE; else init */
	const char *file;               /* show: the machine file */
	const char *out;                /* init: -o FILE, NULL: the user's directory */
	sl_machine_init_opts init;
} opts;

/* Parse the command line; SL_EXIT_OK or SL_EXIT_USAGE (already reported). */
static int parse(int argc, char **argv, opts *o)
{
	enum { O_SYSFS = 256, O_PMU, O_NAME, O_CHASE, O_MAP };
	static const struct option lo[] = {
		{"output", required_argument, NULL, 'o'},
		{"sysfs", required_argument, NULL, O_SYSFS},
		{"pmu", required_argument, NULL, O_PMU},
		{"cpu-name", required_argument, NULL, O_NAME},
		{"chase-mb", required_argument, NULL, O_CHASE},
		{"pmu-map", required_argument, NULL, O_MAP},
		{"quiet", no_argument, NULL, 'q'},
		{NULL, 0, NULL, 0},
	};
	if (argc < 2)
		return sl_usage_error(CMD, "give init or show");
	if (argv[1][0] == '-') {
		fprintf(stderr, "sleuth %s: unknown option '%s'\nTry 'sleuth help %s'.\n", CMD,
			argv[1], CMD);
		return SL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "show")) {
		if (argc != 3)
			return sl_usage_error(CMD, "show: give one machine file");
		o->show = 1;
		o->file = argv[2];
		return SL_EXIT_OK;
	}
	if (strcmp(argv[1], "init"))
		return sl_usage_error(CMD, "unknown subcommand '%s'; give init or show", argv[1]);
	argc--;
	argv++;
	uint64_t mb;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:q", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'q': sl_quiet = 1; break;
		case O_SYSFS: o->init.sysfs_root = optarg; break;
		case O_PMU: o->init.pmu = optarg; break;
		case O_NAME: o->init.cpu_name = optarg; break;
		case O_MAP: o->init.pmumap = optarg; break;
		case O_CHASE:
			if (sl_parse_u64(optarg, &mb) < 0 || mb < 1 || mb > 65536)
				return sl_usage_error(CMD, "--chase-mb '%s': give megabytes, "
						      "1 to 65536", optarg);
			o->init.chase_bytes = (size_t)mb << 20;
			break;
		default:
			return sl_bad_option(CMD " init", c, argv);
		}
	}
	if (optind < argc)
		return sl_usage_error(CMD, "init: unexpected argument '%s'", argv[optind]);
	return SL_EXIT_OK;
}

/* init: the skeleton for this CPU, written; -1 with sl_error(). */
static int init(const opts *o)
{
	sl_machine m;
	char *comment;
	if (sl_machine_init(&m, &comment, &o->init) < 0)
		return -1;
	char *dir = o->out ? NULL : sl_user_machines_dir();
	if (!o->out && dir && mkdir_p(dir) < 0) {
		sl_error_set("cannot create %s: %s; give -o FILE", dir, strerror(errno));
		free(dir);
		free(comment);
		sl_machine_free(&m);
		return -1;
	}
	char *path = o->out ? sl_xstrdup(o->out)
			    : dir ? sl_xasprintf("%s/%s.yaml", dir, m.name)
				  : sl_xasprintf("%s.yaml", m.name);
	free(dir);
	int rc = sl_machine_write(path, &m, comment);
	if (rc == 0 && strcmp(path, "-"))
		sl_info("wrote %s (a skeleton: time predictions now; run 'sleuth calibrate' "
			"for power); %s", path, o->out ? "use it with 'sleuth run --machine FILE'"
						       : "'sleuth run' finds it there");
	free(path);
	free(comment);
	sl_machine_free(&m);
	return rc;
}

/* One line per model: can it run on this file, and if not why. */
static void can_predict(const sl_machine *m)
{
	const char *mem = sl_machine_role(m, "memory_stall_cycles");
	int stall = mem || (sl_machine_role(m, "stall_cycles") &&
			    sl_machine_role(m, "llc_misses") && m->memory_latency_ns > 0);
	printf("can predict:\n");
	if (mem)
		printf("  time (stall model)    yes: off-chip stall cycles counted by %s\n", mem);
	else if (stall)
		printf("  time (stall model)    yes: min(%s, %s x %g ns)\n",
		       sl_machine_role(m, "stall_cycles"), sl_machine_role(m, "llc_misses"),
		       m->memory_latency_ns);
	else
		printf("  time (stall model)    no: needs stall_cycles and llc_misses "
		       "(or memory_stall_cycles)\n");
	const char *ocyc = sl_machine_role(m, "offcore_cycles");
	if (!ocyc || !sl_machine_role(m, "llc_misses"))
		printf("  time (mlp model)      no: needs offcore_cycles and llc_misses\n");
	else if (!m->has_stall_probe)
		printf("  time (mlp model)      yes: misses outstanding counted by %s\n", ocyc);
	else
		/* the other stalls under a miss (docs/models.md) */
		printf("  time (mlp model)      yes: misses outstanding counted by %s; other "
		       "stalls under a miss %s (memory: stall_llc_share %g, "
		       "stall_per_mispredict %g)\n", ocyc,
		       sl_machine_role(m, "miss_stall_cycles") && sl_machine_role(m, "stall_cycles") &&
				       sl_machine_role(m, "mispredicts")
			       ? "separated"
			       : "not separated: needs the roles miss_stall_cycles, stall_cycles "
				 "and mispredicts",
		       m->mem_stall_llc_share, m->mem_stall_mispredict);
	/* the mlp model's DRAM traffic (docs/models.md, "DRAM reads from the
	 * memory controller") */
	const char *dram = sl_machine_role(m, "dram_reads");
	if (ocyc && dram)
		printf("  DRAM traffic (mlp)    %s in every interval (%s); less "
		       "%g GB/s of other readers (memory: background_gbps)\n", dram,
		       sl_pfm_uncore(dram) ? "an uncore event, beside the counters"
					   : "a core event: it takes a counter",
		       m->mem_background_gbps);
	else if (ocyc)
		printf("  DRAM traffic (mlp)    from %s and %s (name dram_reads, the memory "
		       "controller's reads, to count it in every interval)\n",
		       sl_machine_role(m, "llc_misses") ? sl_machine_role(m, "llc_misses") : "?",
		       sl_machine_role(m, "prefetches") ? sl_machine_role(m, "prefetches")
							: "no prefetches");
	/* the LLC hits' term of the mlp model (docs/models.md, "The LLC hits'
	 * exposure") */
	if (ocyc && sl_machine_llc_chase(m, sl_machine_fmax(m)) > 0) {
		int counted = sl_machine_role(m, "l2_miss_stall_cycles") &&
			      sl_machine_role(m, "miss_stall_cycles") &&
			      sl_machine_role(m, "llc_references");
		int episodes = sl_machine_role(m, "l2_miss_stall_episodes") &&
			       sl_machine_role(m, "miss_stall_episodes");
		printf("  LLC hits (mlp model)  %s%s\n",
		       counted ? "exposure counted (l2_miss_stall_cycles less miss_stall_cycles), "
				 "scaled by memory: llc_chase_ns"
			       : "cost per hit of the llc probe: counting the exposure needs the "
				 "roles l2_miss_stall_cycles, miss_stall_cycles and llc_references",
		       counted && episodes ? ", each stall episode less a hit's latency drop" : "");
	}
	printf("  time (linear model)   yes\n");
	if (sl_machine_complete(m))
		printf("  power and energy      yes: fitted model, %zu terms\n", m->n_terms);
	else
		printf("  power and energy      no: %s\n", sl_error());
	if (m->n_pstates == 1)
		printf("  frequencies           %g GHz only (other ones need --extrapolate)\n",
		       m->pstates[0].ghz);
	else
		printf("  frequencies           %g to %g GHz (%zu P-states; between them "
		       "interpolated)\n", sl_machine_fmin(m), sl_machine_fmax(m), m->n_pstates);
	const char *br = sl_machine_role(m, "branch_sample");
	printf("  phases (perf backend) %s\n",
	       br ? "yes: samples branch_sample" : "no branch_sample event: timer backend only");
}

/* show: what FILE says and what it can predict; -1 with sl_error(). */
static int show(const char *file)
{
	sl_machine m;
	if (sl_machine_load(file, &m) < 0)
		return -1;
	printf("machine %s (%s)\n", m.name, file);
	printf("counters: %d programmable; memory latency %g ns\n", m.programmable,
	       m.memory_latency_ns);
	printf("P-states (%zu):\n", m.n_pstates);
	for (size_t i = 0; i < m.n_pstates; i++) {
		const sl_pstate *p = &m.pstates[i];
		printf("  %8.3f GHz", p->ghz);
		if (p->volts > 0)
			printf("  %6.3f V", p->volts);
		if (p->has_static)
			printf("  static %.3f W", p->static_w);
		printf("\n");
	}
	if (!sl_machine_has_volts(&m))
		printf("  (no voltages: the platform exposes none)\n");
	else if (m.text && strstr(m.text, "# volts: RELATIVE"))
		printf("  (volts relative to the fastest trained P-state, fitted by calibrate: "
		       "the platform exposes none)\n");
	printf("events:\n");
	for (size_t i = 0; i < m.n_roles; i++)
		printf("  %-20s %s\n", m.roles[i].role, m.roles[i].event);
	if (!m.has_power)
		printf("power: none (calibrate --select K chooses the events)\n");
	else if (!m.has_constant)
		printf("power: skeleton, %zu candidate terms, not fitted:\n", m.n_terms);
	else
		printf("power: fitted, Ceff (nF) = %g + sum of coeff x count/cycle:\n",
		       m.constant);
	if (m.has_temp && !m.n_leak)
		printf("  static power at %g C; +%g W per volt per C above it\n", m.temp_ref_c,
		       m.temp_coeff);
	else if (m.has_temp)
		printf("  static power at %g C; + the leakage's change from it (thermal:)\n",
		       m.temp_ref_c);
	for (size_t i = 0; i < m.n_terms; i++) {
		printf("  %-44s", m.terms[i].event);
		if (m.terms[i].has_coeff)
			printf(" %g", m.terms[i].coeff);
		/* energy per event at a fixed voltage, not capacitance */
		printf("%s%s\n", m.terms[i].energy ? " (energy, nJ per event)" : "",
		       m.terms[i].keep_auto ? " (keep: auto)" : "");
	}
	double floor = m.floor_stalled && m.has_constant ? sl_model_ceff_floor(&m) : 0;
	if (floor < 0)
		printf("  idle clamp: a core stalled in every cycle, Ceff %g nF (floor: stalled)\n",
		       floor);
	if (m.has_thermal) {
		printf("thermal: %g C per W at steady state, time constant %g s\n",
		       m.thermal_k_per_w, m.thermal_tau_s);
		for (size_t i = 0; i < m.n_leak; i++)
			printf("  leakage at %g GHz: %g W at %g C, times exp(%g (T - %g))\n",
			       m.leak_ghz[i], m.leak_w[i], m.leak_ref_c, m.leak_per_c, m.leak_ref_c);
	}
	can_predict(&m);
	sl_machine_free(&m);
	return 0;
}

static int run(const opts *o)
{
	if (o->show)
		return show(o->file);
	int rc = init(o);
	sl_pfm_terminate();
	return rc;
}

static int cmd_machine(int argc, char **argv)
{
	opts o = {0};
	int rc = parse(argc, argv, &o);
	if (rc == SL_EXIT_OK)
		rc = run(&o) < 0 ? sl_fail() : SL_EXIT_OK;
	return rc;
}

const struct sl_cmd sl_cmd_machine = {
	.name = CMD,
	.fn = cmd_machine,
	.summary = "Write a machine model for this CPU, or show one",
	.usage =
	"usage: sleuth machine init [-o FILE] [--sysfs ROOT] [--pmu NAME] [options]\n"
	"       sleuth machine show FILE\n"
	"\n"
	"init writes a sleuth-machine/1 skeleton for this CPU: the PMU libpfm4\n"
	"detects and sleuth's events for it (data/pmus/pmus.yaml; every event is\n"
	"encoded by libpfm4 first; the memory controller's reads, dram_reads, only\n"
	"where its uncore PMU is present), the P-states of the cpufreq driver,\n"
	"voltages where the platform exposes them, and the memory latency\n"
	"measured by a pointer chase.  The skeleton predicts time; 'sleuth\n"
	"calibrate' adds power.\n"
	"\n"
	"  -o, --output FILE  the file to write (- for stdout); default\n"
	"                     ~/.local/share/sleuth/machines/NAME.yaml (or under\n"
	"                     $XDG_DATA_HOME), where 'sleuth run' and 'doctor' look\n"
	"  --sysfs ROOT       read cpufreq from ROOT instead of /sys (a copy)\n"
	"  --pmu NAME         write for this libpfm4 PMU (e.g. skl, amd64_fam19h_zen4)\n"
	"                     instead of the detected one (LIBPFM_FORCE_PMU also works)\n"
	"  --cpu-name S       the CPU's name for the machine name (default: from\n"
	"                     /proc/cpuinfo)\n"
	"  --chase-mb N       pointer-chase buffer in MB (default 4x the last-level\n"
	"                     cache, 64 to 512)\n"
	"  --pmu-map FILE     another event map than data/pmus/pmus.yaml\n"
	"  -q, --quiet        no progress messages\n"
	"\n"
	"show prints what FILE says and which predictions it supports.\n",
};
