/*
 * The timer backend: phases without a PMU.  Intervals are cut by the
 * target's task-clock (its CPU time), and user-space instruction pointers
 * are sampled by cpu-clock; both are software events every Linux has.  It
 * counts no hardware events (has_counts = 0), so profiles from it carry
 * phases and code locations but nothing to predict from.
 *
 * Default rate: 2000 samples/s gives 20 samples in a 10 ms interval (enough
 * for a 32-bin phase vector) at well under 1% overhead (docs/benchmarks.md,
 * "Collection overhead").
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
	cfg.boundary.sample_period = (uint64_t)(interval * 1e9 + 0.5);
	cfg.sampler.type = PERF_TYPE_SOFTWARE;
	cfg.sampler.config = PERF_COUNT_SW_CPU_CLOCK;
	cfg.sampler.sample_period = (uint64_t)(1e9 / hz + 0.5);
	cfg.energy = o->energy;
	return sl_live_backend_new("timer", o, &cfg, 0, NULL, 0, 0);
}
