/*
 * The timer backend: phases without a PMU.  User-space instruction
 * pointers are sampled by cpu-clock, a software event every Linux has, and
 * intervals are cut by the target's CPU time: each sample stands for one
 * sampling period of it, so an interval is interval_s * hz samples
 * (the task-clock group leader only counts).  It
 * counts no hardware events (has_counts = 0), so profiles from it carry
 * phases and code locations but nothing to predict from.
 *
 * Default rate: 2000 samples/s gives 20 samples in a 10 ms interval, at
 * about 4% of the target's CPU in a VM where each cpu-clock interrupt is a
 * VM exit, less than `perf record` at the same rate (docs/benchmarks.md,
 * "Collection overhead").  20 samples tell apart programs whose hot code is
 * a few loops; code spread over many addresses needs a longer --interval.
 */
#include <string.h>

#include "live.h"
#include "sleuth/common.h"

sl_backend *sl_timer_backend_new(const sl_live_opts *o)
{
	double interval = o->interval_s > 0 ? o->interval_s : SL_DEFAULT_TIMER_INTERVAL_S;
	double hz = o->sample_hz > 0 ? o->sample_hz : SL_DEFAULT_TIMER_HZ;
	if (interval < 1e-4 || interval > 3600) {
		sl_error_set("timer interval %gs is out of range (0.1 ms to 1 h)", interval);
		return NULL;
	}
	if (hz < 1 || hz > 100000) {
		sl_error_set("sampling rate %g Hz is out of range (1 to 100000)", hz);
		return NULL;
	}
	sl_session_cfg cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.argv = o->argv;
	cfg.boundary.type = PERF_TYPE_SOFTWARE;
	cfg.boundary.config = PERF_COUNT_SW_TASK_CLOCK;
	cfg.sampler.type = PERF_TYPE_SOFTWARE;
	cfg.sampler.config = PERF_COUNT_SW_CPU_CLOCK;
	cfg.sampler.sample_period = (uint64_t)(1e9 / hz + 0.5);
	cfg.samples_per_interval = (uint64_t)SL_MAX(interval * hz + 0.5, 1.0);
	cfg.energy = o->energy;
	cfg.sysfs_root = o->sysfs_root;
	return sl_live_backend_new("timer", o, &cfg, 0, NULL, 0, 0);
}
