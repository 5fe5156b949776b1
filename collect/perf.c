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
 * each overflow.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live.h"
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
	close(fd);
	return 1;
}

int sl_hw_available(void)
{
	return sl_perf_probe(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles");
}

sl_backend *sl_perf_backend_new(const sl_live_opts *o)
{
	if (!sl_hw_available())
		return NULL;
	/* The model knows this CPU's event better (e.g. BR_RETIRED on Arm, which
	 * the guess does not know); the guess still says whether to try precise
	 * sampling (not on AMD), and where it knows nothing it is tried and
	 * stepped down if refused. */
	int precise = 1;
	const char *guess = sl_pfm_branch_event(&precise);
	const char *branch = o->branch_event ? o->branch_event : guess;
	if (!branch)
		return NULL;
	const char *const *events = o->events;
	size_t n = o->n_events;
	sl_session_cfg cfg;
	memset(&cfg, 0, sizeof cfg);
	struct perf_event_attr *members = sl_xcalloc(n + 1, sizeof *members);
	const char **names = sl_xcalloc(n + 1, sizeof *names);
	sl_backend *b = NULL;
	if (sl_pfm_encode("instructions", &cfg.boundary) < 0 ||
	    sl_pfm_encode("cycles", &members[0]) < 0 ||
	    sl_pfm_encode(branch, &cfg.sampler) < 0)
		goto out;
	names[0] = "cycles";
	for (size_t i = 0; i < n; i++) {
		if (sl_pfm_encode(events[i], &members[1 + i]) < 0)
			goto out;
		members[1 + i].disabled = 1;
		names[1 + i] = events[i];
	}
	cfg.argv = o->argv;
	cfg.boundary.sample_period = o->interval_instructions
					     ? o->interval_instructions
					     : SL_DEFAULT_INTERVAL_INSTRUCTIONS;
	cfg.sampler.sample_period = o->branch_period ? o->branch_period
						     : SL_DEFAULT_BRANCH_PERIOD;
	cfg.sampler.precise_ip = precise ? 2 : 0;
	cfg.sampler_precise_fallback = 1;
	cfg.members = members;
	cfg.n_members = n + 1;
	cfg.member_names = names;
	cfg.energy = o->energy;
	b = sl_live_backend_new("perf", o, &cfg, 1, events, n, o->k ? o->k : 4);
out:
	free(members);
	free(names);
	return b;
}
