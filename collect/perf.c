/*
 * The perf (hardware) backend: the Power-Sleuth measurement.  Retired
 * conditional branches are sampled (PEBS where the PMU has it) for the
 * phase vectors; an instructions counter cuts intervals every
 * interval_instructions; the group {instructions, cycles, the machine
 * model's events} is read at each boundary, with only the events the
 * collector programs for the next interval switched on.  All events are
 * opened up front (disabled) and switched with ioctls, because events
 * opened later would not be inherited by threads that already exist.
 * An inherited event cannot be re-armed with PERF_EVENT_IOC_REFRESH, so the
 * boundary counter simply keeps its period and the kernel re-arms it at
 * each overflow.  The model's uncore events (sl_pfm_uncore) stay out of the
 * group and the counter plan: the session counts them system-wide on their
 * own PMU in every interval (collect/session.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "perf-sys.h"
#include "counter-plan.h"
#include "sleuth/common.h"

int sl_perf_probe(uint32_t type, uint64_t config, const char *name)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = sl_perf_open(&a, 0, -1, -1, name);
	if (fd < 0)
		return 0;
	sl_perf_sys_get()->close(fd);
	return 1;
}

/* The counter plan checked on this machine at start-up: the group
 * {instructions, cycles, the first k events} and the sampler, opened on
 * sleuth itself and run for a few milliseconds of CPU, must both run the
 * whole time (for one task's events on any CPU, time_enabled ==
 * time_running unless the kernel multiplexed them).  Catches what the plan
 * cannot know: another perf user holding counters, per-event counter
 * constraints.  1 fits, 0 does not, -1 could not be checked. */
static int probe_fit(const struct perf_event_attr *lead,
		     const struct perf_event_attr *members, size_t k,
		     const struct perf_event_attr *smp)
{
	const sl_perf_sys *sys = sl_perf_sys_get();
	int fds[72], rc = -1;
	size_t nfd = 0;
	uint64_t g[3 + 66], sv[3];
	struct perf_event_attr a = *lead;
	a.sample_period = 0;
	a.disabled = 1;
	a.inherit = 0;
	a.enable_on_exec = 0;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (k + 1 > 64 || (fds[nfd] = sys->open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)) < 0)
		return -1;
	nfd++;
	for (size_t i = 0; i <= k; i++) {
		struct perf_event_attr m = members[i];
		m.disabled = 0;
		m.inherit = 0;
		m.read_format = 0;
		m.sample_period = 0;
		if ((fds[nfd] = sys->open(&m, 0, -1, fds[0], PERF_FLAG_FD_CLOEXEC)) < 0) {
			rc = errno == EINVAL ? 0 : -1; /* EINVAL: can never fit */
			goto out;
		}
		nfd++;
	}
	struct perf_event_attr s = *smp;
	s.disabled = 1;
	s.inherit = 0;
	s.enable_on_exec = 0;
	s.sample_type = PERF_SAMPLE_IP;
	s.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	while ((fds[nfd] = sys->open(&s, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)) < 0 &&
	       s.precise_ip && (errno == EINVAL || errno == EOPNOTSUPP))
		s.precise_ip--;
	if (fds[nfd] < 0)
		goto out;
	nfd++;
	if (sys->ioctl(fds[0], PERF_EVENT_IOC_ENABLE, 0) < 0 ||
	    sys->ioctl(fds[nfd - 1], PERF_EVENT_IOC_ENABLE, 0) < 0)
		goto out;
	/* 3 ms of sleuth's own CPU (at most 200 ms of wall time) */
	struct timespec c0, c, w0, w;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	clock_gettime(CLOCK_MONOTONIC, &w0);
	volatile uint64_t x = 1;
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		sys->read(fds[0], g, sizeof g); /* the fake PMU keeps pace here */
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
		clock_gettime(CLOCK_MONOTONIC, &w);
	} while ((c.tv_sec - c0.tv_sec) * 1000000000L + (c.tv_nsec - c0.tv_nsec) < 3000000 &&
		 (w.tv_sec - w0.tv_sec) * 1000000000L + (w.tv_nsec - w0.tv_nsec) < 200000000);
	sys->ioctl(fds[0], PERF_EVENT_IOC_DISABLE, 0);
	sys->ioctl(fds[nfd - 1], PERF_EVENT_IOC_DISABLE, 0);
	if (sys->read(fds[0], g, sizeof g) < (ssize_t)(3 * sizeof(uint64_t)) ||
	    sys->read(fds[nfd - 1], sv, sizeof sv) < (ssize_t)(3 * sizeof(uint64_t)) ||
	    !g[1] || !sv[1])
		goto out;
	rc = (double)g[2] >= 0.99 * (double)g[1] && (double)sv[2] >= 0.99 * (double)sv[1];
out:
	while (nfd)
		sys->close(fds[--nfd]);
	return rc;
}

int sl_hw_available(void)
{
	return sl_perf_probe(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles");
}

sl_backend *sl_perf_backend_new(const sl_live_opts *o)
{
	if (!sl_hw_available() || sl_pmu_hybrid())
		return NULL;
	const char *pmu, *pmu_desc;
	if (sl_pfm_host_pmu(&pmu, &pmu_desc) < 0)
		return NULL;
	/* The model knows this CPU's event better (e.g. BR_RETIRED on Arm,
	 * which sleuth's guess does not know); whether sampling may be precise
	 * comes from the PMU's family (not on AMD or Arm). */
	int precise;
	const char *branch = o->branch_event ? o->branch_event
					     : sl_pfm_branch_event(&precise);
	if (!branch)
		return NULL;
	precise = sl_pfm_precise_for(pmu);
	sl_counter_plan plan;
	char desc[512];
	if (sl_counter_plan_host(&plan) < 0)
		return NULL;
	sl_counter_plan_describe(&plan, desc, sizeof desc);
	if (plan.programmable < 1) {
		sl_error_set("counter plan %s: no counter is left for the machine "
			     "model's events%s", desc,
			     plan.watchdog ? "; free one with 'sudo sysctl "
					     "kernel.nmi_watchdog=0'" : "");
		return NULL;
	}
	size_t k = o->k ? o->k : (size_t)plan.programmable;
	if (k > (size_t)plan.programmable) {
		sl_info("counter plan %s; programming %d of the %zu asked for",
			desc, plan.programmable, k);
		k = (size_t)plan.programmable;
	} else {
		sl_info("counter plan %s", desc);
	}
	const char *const *events = o->events;
	size_t n = o->n_events, n_core = 0, n_unc = 0;
	sl_session_cfg cfg;
	memset(&cfg, 0, sizeof cfg);
	struct perf_event_attr *members = sl_xcalloc(n + 1, sizeof *members);
	struct perf_event_attr *unc = NULL;
	size_t n_attr = 0, cap_attr = 0, *unc_boxes = sl_xcalloc(n + 1, sizeof *unc_boxes);
	const char **names = sl_xcalloc(n + 1, sizeof *names);
	const char **unc_names = sl_xcalloc(n + 1, sizeof *unc_names);
	char **unc_problem = sl_xcalloc(n + 1, sizeof *unc_problem);
	sl_backend *b = NULL;
	if (sl_pfm_encode("instructions", &cfg.boundary) < 0 ||
	    sl_pfm_encode("cycles", &members[0]) < 0 ||
	    sl_pfm_encode(branch, &cfg.sampler) < 0)
		goto out;
	names[0] = "cycles";
	for (size_t i = 0; i < n; i++) {
		if (sl_pfm_uncore(events[i])) {
			/* beside the group, on their own PMU (live.h) */
			unc_problem[n_unc] = sl_pfm_encode_controller(events[i], &unc, &n_attr,
								      &cap_attr, &unc_boxes[n_unc]);
			unc_names[n_unc++] = events[i];
			continue;
		}
		if (sl_pfm_encode(events[i], &members[1 + n_core]) < 0)
			goto out;
		members[1 + n_core].disabled = 1;
		names[1 + n_core++] = events[i];
	}
	/* check the plan on this machine; fewer events while they do not fit */
	size_t k0 = k;
	int fit;
	while (k > 0 && (fit = probe_fit(&cfg.boundary, members, SL_MIN(k, n_core), &cfg.sampler)) == 0)
		k--;
	if (k == 0) {
		sl_error_set("the counter group and the branch sampler do not run "
			     "together on this PMU even with one event (counter plan %s); "
			     "another perf user holds counters? run 'sleuth doctor'", desc);
		goto out;
	}
	if (k < k0)
		sl_info("start-up check: %zu events and the sampler did not fit together "
			"here (another perf user holds counters?); programming %zu", k0, k);
	cfg.argv = o->argv;
	cfg.boundary.sample_period = o->interval_instructions
					     ? o->interval_instructions
					     : SL_DEFAULT_INTERVAL_INSTRUCTIONS;
	cfg.sampler.sample_period = o->branch_period ? o->branch_period
						     : SL_DEFAULT_BRANCH_PERIOD;
	cfg.sampler.precise_ip = (unsigned)precise;
	cfg.sampler_precise_fallback = 1;
	cfg.members = members;
	cfg.n_members = n_core + 1;
	cfg.member_names = names;
	cfg.uncore = unc;
	cfg.uncore_boxes = unc_boxes;
	cfg.n_uncore = n_unc;
	cfg.uncore_names = unc_names;
	cfg.uncore_problem = (const char *const *)unc_problem;
	cfg.energy = o->energy;
	cfg.sysfs_root = o->sysfs_root;
	b = sl_live_backend_new("perf", o, &cfg, 1, events, n, k);
	if (b) {
		char buf[256];
		struct utsname u;
		b->pmu = sl_xstrdup(pmu);
		b->kernel = sl_xstrdup(uname(&u) == 0 ? u.release : "unknown");
		b->sampling = sl_xstrdup(
			sl_pfm_sampling_desc(pmu, sl_live_precise(b), buf, sizeof buf));
		b->counter_plan = sl_xstrdup(desc);
		b->sample_event = sl_xstrdup(branch);
		b->sample_period = cfg.sampler.sample_period;
	}
out:
	for (size_t i = 0; i < n_unc; i++)
		free(unc_problem[i]);
	free(unc_problem);
	free(unc_names);
	free(unc);
	free(unc_boxes);
	free(members);
	free(names);
	return b;
}
