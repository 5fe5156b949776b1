/*
 * What every backend's destroy() ends with: the strings the sl_backend
 * fields own (host, workload, energy source, and what the perf path
 * records) and the backend itself.  One place, so that a field added to
 * sl_backend is freed by every backend (three had their own list).
 */
#include <stdlib.h>

#include "sleuth/backend.h"

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
	free(b);
}
