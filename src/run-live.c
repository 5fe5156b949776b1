/*
 * The live side of `sleuth run`: choose perf or timer, find the machine
 * model for the host's PMU, parse --interval for the backend chosen, and
 * build the backend (collect/ does the measuring).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "collect/counter-plan.h"
#include "sleuth/collect.h"
#include "sleuth/common.h"
#include "sleuth/hw.h"
#include "sleuth/phases.h"
#include "vpmu/vpmu.h"

void sl_run_pick_backend(sl_run_opts *o)
{
	if (o->backend && strcmp(o->backend, "auto"))
		return;
	if (sl_hw_available() && !sl_pmu_hybrid()) {
		/* tentative: sl_run_fallback() takes timer if perf cannot run */
		o->backend = "perf";
		o->auto_perf = 1;
	} else {
		sl_info("backend timer: %s (for counts, time and energy without a PMU: "
			"--backend vpmu)", sl_error());
		o->backend = "timer";
	}
}

int sl_run_fallback(sl_run_opts *o)
{
	if (!o->auto_perf)
		return 0;
	o->auto_perf = 0;
	o->backend = "timer";
	sl_info("backend timer: the perf backend cannot run here (%s)", sl_error());
	return 1;
}

/* libpfm4 PMU names (matched by prefix: "amd64_fam19h" is also
 * "amd64_fam19h_zen3", "nhm" also "nhm_ex") and the file-name prefix of
 * their models. */
static const struct {
	const char *pmu, *family;
} families[] = {
	{"nhm", "nehalem"},       {"wsm", "westmere"},
	{"snb", "sandybridge"},   {"ivb", "ivybridge"},
	{"hsw", "haswell"},       {"bdw", "broadwell"},    {"skl", "skylake"},
	{"icl", "icelake"},       {"spr", "sapphirerapids"}, {"amd64_fam17h", "zen"},
	{"amd64_fam19h", "zen"},
};

/* The first data/machines/FAMILY*.yaml (simulated machines excluded), or NULL. */
static char *find_model(const char *family)
{
	char *dir = sl_data_path("data/machines");
	char *best = dir ? sl_machine_find_in(dir, family) : NULL;
	free(dir);
	return best;
}

/* sleuth's model of the virtual PMU (calibrated from vPMU runs), or its
 * skeleton before calibration. */
#define VPMU_MODEL "data/machines/vpmu-nehalem-i7-920.yaml"
#define VPMU_SKELETON "data/machines/vpmu-nehalem-i7-920.skeleton.yaml"

int sl_run_default_machine(const sl_run_opts *o, char **path)
{
	*path = NULL;
	if (!strcmp(o->backend, "timer"))
		return 0;
	if (!strcmp(o->backend, "vpmu")) {
		if ((*path = sl_data_path(VPMU_MODEL)) || (*path = sl_data_path(VPMU_SKELETON)))
			return 0;
		sl_error_set("cannot find %s; give --machine FILE", VPMU_MODEL);
		return -1;
	}
	const char *pmu, *desc;
	if (sl_pfm_init() < 0 || sl_pfm_host_pmu(&pmu, &desc) < 0) {
		char *why = sl_xstrdup(sl_error());
		sl_error_set("no machine model for this CPU (%s); give --machine FILE", why);
		free(why);
		return -1;
	}
	for (size_t i = 0; i < SL_ARRAY_LEN(families); i++)
		if (!strncmp(pmu, families[i].pmu, strlen(families[i].pmu)) &&
		    (*path = find_model(families[i].family)))
			return 0;
	sl_error_set("no machine model under data/machines/ for this CPU (PMU %s, %s); give "
		     "--machine FILE (write one from data/machines/nehalem-i7-920.yaml)", pmu,
		     desc);
	return -1;
}

/* "10ms", "0.5s", "500us" -> seconds; -1 if not a time. */
static int parse_time(const char *s, double *out)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"ms", 1e-3}, {"us", 1e-6}, {"s", 1.0}};
	size_t n = strlen(s);
	for (size_t i = 0; i < SL_ARRAY_LEN(units); i++) {
		size_t u = strlen(units[i].unit);
		char num[64];
		if (n <= u || n - u >= sizeof num || strcmp(s + n - u, units[i].unit))
			continue;
		memcpy(num, s, n - u);
		num[n - u] = 0;
		if (sl_parse_double(num, out) < 0 || *out <= 0)
			return -1;
		*out *= units[i].scale;
		return 0;
	}
	return -1;
}

/* "100M", "1G", "5000000" -> instructions; -1 if not a count. */
static int parse_count(const char *s, uint64_t *out)
{
	char num[64];
	size_t n = strlen(s);
	uint64_t scale = 1;
	if (!n || n >= sizeof num)
		return -1;
	memcpy(num, s, n + 1);
	const char *suf = strchr("KkMmGg", s[n - 1]);
	if (suf && s[n - 1]) {
		scale = strchr("Kk", s[n - 1]) ? 1000ull : strchr("Mm", s[n - 1]) ? 1000000ull
										: 1000000000ull;
		num[n - 1] = 0;
	}
	if (sl_parse_u64(num, out) < 0 || !*out || *out > UINT64_MAX / scale)
		return -1;
	*out *= scale;
	return 0;
}

/*
 * The timer backend's interval when none is given: long enough for the
 * samples the noise-aware threshold needs (sl_samples_for: 289 at 256
 * dimensions), at the sampling rate.  With the old fixed 10 ms (20
 * samples at 2000 Hz) two intervals of the same code were farther apart
 * than any threshold that keeps phases apart, and real programs got
 * hundreds of phases (xz compress + decompress: 402); measured in
 * docs/benchmarks.md, "Phases of real programs".
 */
static double timer_interval(const sl_run_opts *o)
{
	unsigned dims = o->copts.dims ? o->copts.dims : SL_RUN_DIMS_DEFAULT;
	double margin = o->copts.margin > 0 ? o->copts.margin : SL_THRESHOLD_MARGIN;
	double hz = o->sample_hz > 0 ? o->sample_hz : SL_DEFAULT_TIMER_HZ;
	size_t n = sl_samples_for(dims, margin, SL_THRESHOLD_CAP);
	return SL_MIN(SL_MAX((double)n / hz, SL_DEFAULT_TIMER_INTERVAL_S), 10.0);
}

sl_backend *sl_run_live_backend(const sl_run_opts *o, const sl_machine *m,
				const char ***events)
{
	sl_live_opts lo = {.argv = o->argv, .energy = o->power,
			   .branch_period = o->sample_period, .sample_hz = o->sample_hz};
	int perf = !strcmp(o->backend, "perf") || !strcmp(o->backend, "vpmu");
	if (o->interval && perf && parse_count(o->interval, &lo.interval_instructions) < 0) {
		sl_error_set("--interval '%s' is not a number of instructions (the perf "
			     "backend cuts intervals by instructions, e.g. 100M)", o->interval);
		return NULL;
	}
	if (o->interval && !perf && parse_time(o->interval, &lo.interval_s) < 0) {
		sl_error_set("--interval '%s' is not a time (the timer backend cuts "
			     "intervals by CPU time, e.g. 10ms)", o->interval);
		return NULL;
	}
	if (o->power) {
		sl_energy *e = sl_energy_open();
		if (!e) {
			sl_error_prefix("--power rapl: ");
			return NULL;
		}
		sl_energy_close(e);
	}
	if (!perf) {
		if (o->sample_period || o->counters >= 0)
			sl_warn("--sample-period and --counters do not apply to the timer "
				"backend (it samples IPs by time and counts no events)");
		if (o->interval)
			return sl_timer_backend_new(&lo);
		lo.interval_s = timer_interval(o);
		/* said once the program runs: an error (no such program) is
		 * then the only line */
		sl_backend *b = sl_timer_backend_new(&lo);
		double hz = o->sample_hz > 0 ? o->sample_hz : SL_DEFAULT_TIMER_HZ;
		if (b)
			sl_info("timer backend: %.0f ms intervals (%.0f samples each at %.0f "
				"Hz, what phases of %u-dimension vectors need; --interval "
				"overrides)", lo.interval_s * 1e3, lo.interval_s * hz, hz,
				o->copts.dims ? o->copts.dims : SL_RUN_DIMS_DEFAULT);
		return b;
	}
	if (o->sample_hz)
		sl_warn("--sample-rate applies to the timer backend; the perf backend "
			"samples every --sample-period branches");
	if (!m) {
		sl_error_set("the perf backend needs a machine model; give --machine FILE");
		return NULL;
	}
	if (o->counters == 0) {
		sl_error_set("--counters 0 (unlimited) only applies to --replay; the "
			     "PMU has %d programmable counters", m->programmable);
		return NULL;
	}
	lo.n_events = sl_machine_model_events(m, events);
	lo.events = *events;
	/* fewer counters than the hardware has may be asked for, not more */
	if (o->counters > m->programmable)
		sl_warn("--counters %d: machine '%s' has %d programmable counters; "
			"using %d", o->counters, m->name, m->programmable, m->programmable);
	lo.k = (size_t)(o->counters > 0 && o->counters < m->programmable ? o->counters
									 : m->programmable);
	lo.branch_event = sl_machine_role(m, "branch_sample");
	if (!strcmp(o->backend, "vpmu")) {
		sl_vpmu_opts vo = {.argv = o->argv, .events = lo.events, .n_events = lo.n_events,
				   .k = lo.k, .freq_ghz = o->freq_ghz,
				   .interval = lo.interval_instructions,
				   .period = lo.branch_period, .machine = o->vpmu_machine};
		return sl_vpmu_backend_new(&vo);
	}
	return sl_perf_backend_new(&lo);
}
