/*
 * `sleuth doctor`: what this machine offers sleuth and what follows from
 * it.  Each check tries the real thing (opens the event, reads the file)
 * rather than guessing from names, and each line ends with what works and
 * what does not, so a user on a VM learns at once that the perf backend is
 * out but timer phases, replay, simulate and predict are not.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "collect/live.h"
#include "collect/perf-sys.h"
#include "collect/counter-plan.h"
#include "collect/session.h"
#include "run.h"
#include "sleuth/collect.h"
#include "sleuth/common.h"
#include "sleuth/hw.h"
#include "sleuth/machine.h"
#include "util/term.h"
#include "vpmu/vpmu.h"

/* Doctor's lines fit 100 columns: long reasons wrap under the value. */
#define WIDTH 100

#define CMD "doctor"

static void line(const char *what, const char *state, const char *follows)
{
	char lead[32], *text = sl_xasprintf("%s — %s", state, follows);
	snprintf(lead, sizeof lead, "%-20s ", what);
	sl_term_wrap(stdout, lead, text, 21, WIDTH);
	free(text);
}

static char *read_line(const char *path)
{
	return sl_sysfs_line("/", path);
}

static int check_pmu(const char **pmu)
{
	const char *desc;
	*pmu = NULL;
	if (sl_pfm_host_pmu(pmu, &desc) == 0) {
		char *s = sl_xasprintf("%s (%s)", *pmu, desc);
		line("pmu (libpfm4):", s, "event names of this CPU can be encoded");
		free(s);
		return 1;
	}
	line("pmu (libpfm4):", "none detected",
	     "libpfm4 knows no core PMU for this CPU: model events cannot be encoded "
	     "here (encodings can still be checked with LIBPFM_FORCE_PMU=nhm)");
	return 0;
}

/* Open a software event on ourselves: what the timer backend needs. */
static int check_software(void)
{
	if (!sl_perf_probe(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock")) {
		char *st = sl_xasprintf("no (%s)", sl_error());
		line("software events:", st, "the timer backend cannot run either; only "
		     "--replay, simulate and predict work");
		free(st);
		return 0;
	}
	line("software events:", "yes",
	     "task-clock and cpu-clock open: the timer backend works (phases and code "
	     "locations, no event counts)");
	return 1;
}

/* Try the branch-sample event at precise_ip 2, 1, 0 as the perf backend
 * will. */
static void check_pebs(void)
{
	int precise;
	const char *ev = sl_pfm_branch_event(&precise);
	struct perf_event_attr a;
	if (!ev || sl_pfm_encode(ev, &a) < 0) {
		char *st = sl_xasprintf("unknown (%s)", sl_error());
		line("precise sampling:", st, "the perf backend cannot sample branches");
		free(st);
		return;
	}
	a.disabled = 1;
	a.sample_period = SL_DEFAULT_BRANCH_PERIOD;
	a.sample_type = PERF_SAMPLE_IP;
	for (int p = precise ? 2 : 0; p >= 0; p--) {
		a.precise_ip = (unsigned)p;
		int fd = sl_perf_open(&a, 0, -1, -1, ev);
		if (fd < 0)
			continue;
		sl_perf_sys_get()->close(fd);
		char *s = sl_xasprintf("%s with precise_ip=%d", ev, p);
		line("precise sampling:", s,
		     p ? "branch samples are precise (PEBS): sharp phase vectors"
		       : "branch samples are not precise: phases still work, with "
			 "some skid in the addresses");
		free(s);
		return;
	}
	char *st = sl_xasprintf("no (%s)", sl_error());
	line("precise sampling:", st, "the perf backend cannot sample branches");
	free(st);
}

/* How many of a model's events fit beside the leader and the sampler. */
static void check_plan(void)
{
	sl_counter_plan p;
	if (sl_counter_plan_host(&p) < 0) {
		char *st = sl_xasprintf("unknown (%s)", sl_error());
		line("counter plan:", st, "the perf backend cannot size its groups");
		free(st);
		return;
	}
	char desc[512];
	sl_counter_plan_describe(&p, desc, sizeof desc);
	char *f = p.programmable < 1
			  ? sl_xstrdup("no counter left for a model's events: the perf "
				       "backend refuses to run; free one with 'sudo sysctl "
				       "kernel.nmi_watchdog=0'")
			  : sl_xasprintf("the perf backend counts up to %d model events per "
					 "interval and rotates the rest by phase%s",
					 p.programmable,
					 p.watchdog ? " ('sudo sysctl kernel.nmi_watchdog=0' "
						      "frees a counter)" : "");
	line("counter plan:", desc, f);
	free(f);
}

static void check_paranoid(void)
{
	long pv = sl_perf_sys_get()->knob(SL_KNOB_PARANOID, -99);
	char *v = pv == -99 ? NULL : sl_xasprintf("%ld", pv);
	if (!v) {
		line("perf_event_paranoid:", "unreadable", "perf events may not exist in "
		     "this kernel; only --replay and simulate work");
		return;
	}
	long p = strtol(v, NULL, 10);
	const char *f =
		p <= 2 ? "user-space profiling of your own programs is allowed: enough "
			 "for sleuth (it never samples the kernel)"
		       : "perf events are closed to users: run 'sudo sysctl "
			 "kernel.perf_event_paranoid=2' to let sleuth profile your programs";
	line("perf_event_paranoid:", v, f);
	free(v);
}

static void check_rapl(void)
{
	sl_energy *e = sl_energy_open();
	if (!e) {
		char *st = sl_xasprintf("no (%s)", sl_error());
		line("rapl energy:", st,
		     "'sleuth run --power rapl' cannot record energy here; calibrate "
		     "from an external power log (PROFILE:LOG.csv) instead");
		free(st);
		return;
	}
	double j;
	int ok = sl_energy_read(e, &j) == 0;
	line("rapl energy:", sl_energy_source(e),
	     ok ? "'sleuth run --power rapl' records package energy per interval"
		: "zones found but unreadable (permissions?); run as a user who may "
		  "read energy_uj");
	sl_energy_close(e);
}

static void check_cpufreq(void)
{
	const char *dir = "/sys/devices/system/cpu/cpu0/cpufreq";
	char *gov = read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	if (!gov) {
		char *s = sl_xasprintf("no (%s absent)", dir);
		line("cpufreq:", s,
		     "the frequency can be neither read nor set here; predictions for "
		     "the machine model's P-states still work, measuring at another "
		     "frequency does not");
		free(s);
		return;
	}
	char *freqs = read_line(
		"/sys/devices/system/cpu/cpu0/cpufreq/scaling_available_frequencies");
	char *govs = read_line(
		"/sys/devices/system/cpu/cpu0/cpufreq/scaling_available_governors");
	int can_set = govs && strstr(govs, "userspace") &&
		      access("/sys/devices/system/cpu/cpu0/cpufreq/scaling_setspeed", W_OK) == 0;
	char *s = sl_xasprintf("governor %s, frequencies (kHz): %s", gov,
			       freqs ? freqs : "not listed by the driver");
	line("cpufreq:", s,
	     can_set ? "sleuth may set frequencies (userspace governor, writable)"
		     : "sleuth may not set frequencies (needs the userspace governor and "
		       "write access to scaling_setspeed, usually root)");
	free(s);
	free(gov);
	free(freqs);
	free(govs);
}

/* What calibration a model still lacks, as "state — what to do". */
static void check_calibration(const sl_machine *m)
{
	if (sl_machine_complete(m))
		line("calibration:", m->has_temp ? "power model fitted, with temperature"
						 : "power model fitted",
		     "time, power and energy predictions");
	else if (!sl_machine_has_volts(m))
		line("calibration:", "no P-state voltages",
		     "time only; add volts: per P-state, then calibrate");
	else
		line("calibration:", "skeleton (no power fit)",
		     "time only; 'sleuth calibrate' fits power");
}

/* Open uncore event ev system-wide on the first CPU of its PMU's cpumask
 * (of a controller's first channel here), as 'sleuth run' will, and close it:
 * 0, the errno of the refusal, or -1 when it is not here (libpfm4 cannot
 * encode it, or its PMU has no sysfs device). */
static int uncore_open_errno(const char *ev)
{
	const sl_perf_sys *sys = sl_perf_sys_get();
	struct perf_event_attr *a = NULL;
	size_t n = 0, cap = 0, boxes;
	char *why = sl_pfm_encode_controller(ev, &a, &n, &cap, &boxes);
	int err = -1;
	char dev[256], mask[1024];
	/* the first channel the kernel exports */
	for (size_t c = 0; !why && c < n && err < 0; c++) {
		if (sys->pmu_device(a[c].type, dev, sizeof dev, mask, sizeof mask) < 0)
			continue;
		a[c].disabled = 1;
		int fd = sys->open(&a[c], -1, atoi(mask), -1, PERF_FLAG_FD_CLOEXEC);
		err = fd < 0 ? errno : 0;
		if (fd >= 0)
			sys->close(fd);
	}
	free(why);
	free(a);
	return err;
}

/* The memory controller's read counter (role dram_reads, an uncore event:
 * docs/hardware.md, "Uncore events"): the first of the event map's
 * candidates whose PMU is here, and whether this user may count it
 * system-wide. */
static void check_memctl(const sl_pmu_entry *e)
{
	if (!e->n_dram_reads) {
		line("memory controller:", "none in the event map",
		     "the mlp model takes DRAM traffic from the core counters");
		return;
	}
	for (size_t i = 0; i < e->n_dram_reads; i++) {
		int e_open = sl_pfm_uncore(e->dram_reads[i]) ? uncore_open_errno(e->dram_reads[i]) : -1;
		if (e_open < 0)
			continue;
		line("memory controller:", e->dram_reads[i],
		     !e_open ? "opens system-wide: counted in every interval beside the "
			       "counters (DRAM traffic)"
		     : e_open == EACCES || e_open == EPERM
			     ? "present, but counting it system-wide needs "
			       "kernel.perf_event_paranoid <= 0 or CAP_PERFMON: 'sudo sysctl "
			       "kernel.perf_event_paranoid=0'; else the core counters stand in"
			     : "present, but the kernel refuses to open it; the core counters "
			       "stand in");
		return;
	}
	char *st = sl_xasprintf("none here (the event map names %s%s)", e->dram_reads[0],
				e->n_dram_reads > 1 ? ", ..." : "");
	line("memory controller:", st,
	     "the mlp model takes DRAM traffic from the core counters");
	free(st);
}

/* The event map and machine model for this PMU: what 'sleuth run' will use.
 * Short lines (<= 100 columns): the fix is a command to run. */
static void check_model(const char *pmu)
{
	if (!pmu) {
		line("machine model:", "not needed", "no PMU: the timer backend needs none");
		return;
	}
	sl_pmumap map;
	const sl_pmu_entry *e = NULL;
	if (sl_pmumap_load(NULL, &map) == 0) {
		e = sl_pmumap_find(&map, pmu);
		char *s = e ? sl_xasprintf("%s (family %s)", pmu, e->family)
			    : sl_xasprintf("none for %s", pmu);
		line("event map:", s, e ? "'sleuth machine init' can write a model"
					: "add the PMU to data/pmus/pmus.yaml");
		free(s);
		if (e)
			check_memctl(e);
		sl_pmumap_free(&map);
	} else {
		line("event map:", "unreadable", "reinstall sleuth (data/pmus/pmus.yaml)");
	}
	sl_run_opts ro = {.backend = "perf"};
	char *path = NULL;
	sl_machine m;
	if (sl_run_default_machine(&ro, &path) < 0 || !path)
		path = sl_user_machine_find(pmu); /* 'sleuth machine init' wrote it */
	if (!path) {
		line("machine model:", "none for this CPU",
		     "run 'sleuth machine init' ('sleuth run' then finds it)");
	} else if (sl_machine_load(path, &m) < 0) {
		line("machine model:", "unreadable", "fix it or write one: 'sleuth machine init'");
	} else {
		const char *base = strrchr(path, '/');
		line("machine model:", base ? base + 1 : path, "'sleuth run' uses it");
		check_calibration(&m);
		sl_machine_free(&m);
	}
	free(path);
}

/* Whether the virtual PMU runs here (a trivial program under the tool). */
static int check_vpmu(void)
{
	if (sl_vpmu_probe() < 0) {
		char *st = sl_xasprintf("no (%s)", sl_error());
		line("virtual PMU:", st, "'sleuth run --backend vpmu' cannot run here");
		free(st);
		return 0;
	}
	const char *const *ev = sl_vpmu_event_names();
	size_t len = 1;
	for (size_t i = 0; i < VPMU_N_EVENTS; i++)
		len += strlen(ev[i]) + 1;
	char *list = sl_xcalloc(1, len), *e = list;
	for (size_t i = 0; i < VPMU_N_EVENTS; i++)
		e += sprintf(e, "%s%s", i ? " " : "", ev[i]);
	line("virtual PMU:", "yes", "'sleuth run --backend vpmu' runs programs on a "
	     "virtual CPU with counters, P-states and an energy meter (docs/vpmu.md)");
	sl_term_wrap(stdout, "vPMU events:         ", list, 21, WIDTH);
	free(list);
	return 1;
}

/* Parse the command line (no options); SL_EXIT_OK or SL_EXIT_USAGE. */
static int parse(int argc, char **argv)
{
	static const struct option opts[] = {{0, 0, 0, 0}};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1)
		return sl_bad_option(CMD, c, argv);
	if (optind < argc)
		return sl_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
	return SL_EXIT_OK;
}

/* Check and print; what fails is reported, not an error. */
static void run(void)
{
	char *cpu = sl_host_cpu_name();
	line("cpu:", cpu, "from /proc/cpuinfo");
	free(cpu);
	const char *pmu;
	int have_pmu = check_pmu(&pmu);
	/* before check_rapl: PAPI terminates the libpfm4 it shares with us */
	check_model(have_pmu ? pmu : NULL);
	int hw = sl_hw_available();
	if (hw) {
		line("hardware events:", "yes", "cycles opens: the perf backend works");
	} else {
		char *st = sl_xasprintf("no (%s)", sl_error());
		line("hardware events:", st, "the perf backend cannot run here: no event "
		     "counts, so no predictions from runs on this machine");
		free(st);
	}
	if (sl_pmu_hybrid())
		line("hybrid cpu:", "yes", sl_error());
	if (have_pmu)
		check_plan();
	if (hw && have_pmu)
		check_pebs();
	else
		line("precise sampling:", "not tried", "needs hardware events and a PMU "
		     "libpfm4 knows");
	int sw = check_software();
	check_paranoid();
	check_rapl();
	check_cpufreq();
	int vpmu = check_vpmu();
	printf("\n");
	if (hw && have_pmu)
		sl_term_wrap(stdout, "sleuth can: ", "record profiles with the perf backend "
			     "(phases, event counts, predictions), plus everything below.", 12,
			     WIDTH);
	else if (!hw)
		sl_term_wrap(stdout, "sleuth cannot: ", "measure hardware events on this machine "
			     "(no PMU), so 'sleuth run' cannot count events for predictions "
			     "here.", 15, WIDTH);
	else
		sl_term_wrap(stdout, "sleuth cannot: ", "encode this CPU's events (libpfm4 does "
			     "not know its PMU), so the perf backend cannot run; a newer "
			     "libpfm4 may.", 15, WIDTH);
	char *can = sl_xasprintf("%s'sleuth run --replay TRACE', 'sleuth simulate', and "
				 "predict/schedule from profiles or traces recorded elsewhere.",
				 sw ? "find phases of a real program with 'sleuth run --backend "
				      "timer', " : "");
	sl_term_wrap(stdout, "sleuth can: ", can, 12, WIDTH);
	free(can);
	if (vpmu)
		sl_term_wrap(stdout, "sleuth can: ", "profile real programs on the virtual PMU "
			     "('sleuth run --backend vpmu -- PROGRAM'): phases, counts, time, "
			     "power and energy predictions.", 12, WIDTH);
	sl_pfm_terminate();
}

static int cmd_doctor(int argc, char **argv)
{
	int rc = parse(argc, argv);
	if (rc == SL_EXIT_OK)
		run();
	return rc;
}

const struct sl_cmd sl_cmd_doctor = {
	.name = CMD,
	.fn = cmd_doctor,
	.summary = "Tell what this machine offers sleuth (PMU, PEBS, RAPL, cpufreq)",
	.usage = "usage: sleuth doctor\n\n"
		 "Check what this machine offers sleuth: the CPU and the PMU libpfm4\n"
		 "detects, whether its memory controller's read counter opens\n"
		 "system-wide, whether hardware events open, whether precise (PEBS) branch\n"
		 "sampling is accepted, perf_event_paranoid, RAPL energy (PAPI or\n"
		 "powercap), cpufreq and whether the virtual PMU (Valgrind) runs, with\n"
		 "its event table.  Each line ends with what works and what does not.\n"
		 "Always exits 0.\n",
};
