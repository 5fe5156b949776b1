/*
 * Fixtures shared by the models' unit tests (see fixture.h).
 */
#include <string.h>

#include "fixture.h"
#include "sleuth/common.h"

void near_(double a, double b, double eps, const char *file, int line)
{
	if (!(fabs(a - b) <= eps)) {
		print_error("%.17g != %.17g (tolerance %g)\n", a, b, eps);
		_fail(file, line);
	}
}

void mkprof(sl_profile *p, size_t n, sl_prof_interval *iv, size_t ne, char **events,
	    uint64_t *counts, double f0)
{
	memset(p, 0, sizeof *p);
	p->backend = "replay";
	p->has_counts = 1;
	p->freq_ghz = f0;
	p->n_intervals = n;
	p->iv = iv;
	p->n_events = ne;
	p->events = events;
	p->counts = counts;
}

static sl_pstate nhm_ps[] = {
	{2.666, 1.26318, 1, 20.6754}, {2.533, 1.23259, 1, 19.1879},
	{2.400, 1.20200, 1, 17.7004}, {2.266, 1.17118, 1, 16.2017},
	{2.133, 1.14059, 1, 14.7142}, {2.000, 1.11000, 1, 13.2267},
	{1.866, 1.07918, 1, 11.7280}, {1.733, 1.04859, 1, 10.2405},
	{1.600, 1.01800, 1, 8.7530},
};
static sl_role nhm_roles[] = {
	{"branch_sample", "BR_INST_RETIRED:CONDITIONAL"},
	{"stall_cycles", "UOPS_EXECUTED:PORT015_STALL_CYCLES"},
	{"llc_misses", "LLC_MISSES"},
	{"resource_stalls", "RESOURCE_STALLS:ANY"},
};
static sl_power_term nhm_terms[] = {
	{"UOPS_EXECUTED:PORT234_CORE", 1, 0.7464, 0, 0},
	{"L2_RQSTS:MISS", 1, 4.5096, 0, 0},
	{"L2_RQSTS:REFERENCES", 1, 3.0845, 0, 0},
	{"RESOURCE_STALLS:ANY", 1, -1.3846, 0, 0},
	{"FP_COMP_OPS_EXE:SSE_FP", 1, 0.9415, 0, 0},
	{"BR_MISP_EXEC:ANY", 1, 0.3467, 0, 0},
};

void mknhm(sl_machine *m)
{
	memset(m, 0, sizeof *m);
	m->name = "nehalem-i7-920";
	m->programmable = 4;
	m->memory_latency_ns = 56.3;
	m->pstates = nhm_ps;
	m->n_pstates = SL_ARRAY_LEN(nhm_ps);
	m->roles = nhm_roles;
	m->n_roles = SL_ARRAY_LEN(nhm_roles);
	m->has_power = m->has_constant = 1;
	m->constant = 0;
	m->terms = nhm_terms;
	m->n_terms = SL_ARRAY_LEN(nhm_terms);
}

char *nhm_events[8] = {
	"UOPS_EXECUTED:PORT015_STALL_CYCLES", "LLC_MISSES",
	"UOPS_EXECUTED:PORT234_CORE", "L2_RQSTS:MISS", "L2_RQSTS:REFERENCES",
	"RESOURCE_STALLS:ANY", "FP_COMP_OPS_EXE:SSE_FP", "BR_MISP_EXEC:ANY",
};

