/*
 * What every backend's destroy() ends with: the strings the sl_backend
 * fields own (host, workload, energy source, and what the perf path
 * records) and the backend itself.  One place, so that a field added to
 * sl_backend is freed by every backend (three had their own list).  And
 * what every backend's program() checks, with the uncore events it is
 * asked for beside its counters, found once; and the default sampling
 * period the simulated backends (replay, vPMU) take for an interval
 * length.
 */
#include <stdlib.h>

#include "sleuth/backend.h"
#include "sleuth/collect.h"
#include "sleuth/common.h"

void sl_backend_find_uncore(sl_backend *b)
{
	free(b->uncore);
	b->uncore = sl_xcalloc(b->n_events + 1, 1);
	for (size_t e = 0; e < b->n_events; e++)
		b->uncore[e] = (unsigned char)sl_pfm_uncore(b->events[e]);
}

int sl_backend_check_program(const sl_backend *b, const size_t *ev, size_t n)
{
	size_t core = 0;
	for (size_t i = 0; i < n; i++) {
		if (ev[i] >= b->n_events) {
			sl_error_set("event index %zu out of range (%zu events)", ev[i],
				     b->n_events);
			return -1;
		}
		core += !b->uncore || !b->uncore[ev[i]];
	}
	if (core > b->k) {
		sl_error_set("%zu events asked for one interval but the %s backend has "
			     "%zu counters", core, b->name, b->k);
		return -1;
	}
	return 0;
}

uint64_t sl_sample_period_for(uint64_t period, uint64_t interval)
{
	if (!interval || interval >= SL_DEFAULT_INTERVAL_INSTRUCTIONS)
		return period;
	uint64_t p = (uint64_t)((double)period * (double)interval /
				(double)SL_DEFAULT_INTERVAL_INSTRUCTIONS + 0.5);
	return p ? p : 1;
}

void sl_backend_free(sl_backend *b)
{
	free(b->host_cpu);
	free(b->workload);
	free(b->energy_source);
	free(b->pmu);
	free(b->kernel);
	free(b->sampling);
	free(b->counter_plan);
	free(b->note);
	free(b->uncore);
	free(b->sample_event);
	free(b);
}
