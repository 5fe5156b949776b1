/* Synthetic traces for the collect tests (see synth_trace.h). */
#include "synth_trace.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/trace.h"

const char *const synth_events[] = {
	"UOPS_EXECUTED:PORT015_STALL_CYCLES", "LLC_MISSES", "RESOURCE_STALLS:ANY",
	"UOPS_EXECUTED:PORT234_CORE", "L2_RQSTS:MISS", "L2_RQSTS:REFERENCES",
	"FP_COMP_OPS_EXE:SSE_FP", "BR_MISP_EXEC:ANY", "BR_INST_RETIRED:CONDITIONAL",
};
const size_t synth_n_events = sizeof synth_events / sizeof synth_events[0];

const char synth_machine[] =
	"format: sleuth-machine/1\n"
	"name: synth-nehalem\n"
	"counters: {programmable: 4}\n"
	"memory_latency_ns: 65\n"
	"pstates:\n"
	"  - {ghz: 2.66, volts: 1.26}\n"
	"  - {ghz: 1.60, volts: 1.02}\n"
	"events:\n"
	"  branch_sample: BR_INST_RETIRED:CONDITIONAL\n"
	"  stall_cycles: UOPS_EXECUTED:PORT015_STALL_CYCLES\n"
	"  llc_misses: LLC_MISSES\n"
	"  resource_stalls: RESOURCE_STALLS:ANY\n"
	"power:\n"
	"  terms:\n"
	"    - {event: UOPS_EXECUTED:PORT234_CORE}\n"
	"    - {event: L2_RQSTS:MISS}\n"
	"    - {event: L2_RQSTS:REFERENCES}\n"
	"    - {event: FP_COMP_OPS_EXE:SSE_FP}\n"
	"    - {event: BR_MISP_EXEC:ANY}\n";

#define N_PHASES 3
#define IV_INSTR 100000000ULL

/* The schedule: A x 12, then `repeats` x (B x 5, C x 3), then A x 6.
 * Returns the number of intervals; fills phase[] and first[] if given. */
static size_t schedule(const synth_opts *o, uint32_t *phase, int *first)
{
	size_t n = 0, nr = 2 + 2 * o->repeats;
	for (size_t r = 0; r < nr; r++) {
		uint32_t ph = r == 0 || r == nr - 1 ? 0 : r % 2 ? 1 : 2;
		size_t len = r == 0 ? 12 : r == nr - 1 ? 6 : ph == 1 ? 5 : 3;
		for (size_t j = 0; j < len; j++, n++)
			if (phase) {
				phase[n] = ph;
				first[n] = r > 0 && j == 0;
			}
	}
	return n;
}

uint64_t synth_count(const synth_opts *o, size_t i, size_t col)
{
	(void)o;
	if (col == 1)
		return IV_INSTR + i;
	/* deterministic and distinct per (interval, column) */
	return 1000003ULL * (col + 1) + 7919ULL * i;
}

long synth_trace(const synth_opts *o, uint32_t **labels, int **mixed)
{
	size_t n = schedule(o, NULL, NULL);
	uint32_t *phase = sl_xcalloc(n, sizeof *phase);
	int *first = sl_xcalloc(n, sizeof *first);
	schedule(o, phase, first);

	sl_trace_header h = {0};
	char *ev[64];
	size_t ne = 0;
	ev[ne++] = "cycles";
	ev[ne++] = "instructions";
	for (size_t k = 0; k < synth_n_events; k++)
		if ((int)k != o->drop_event)
			ev[ne++] = (char *)synth_events[k];
	h.workload = "synthetic-abc";
	h.frequency_ghz = 2.66;
	h.interval_instructions = IV_INSTR;
	h.events = ev;
	h.n_events = ne;

	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, (unsigned long)o->seed + 1);
	size_t nb = o->branches;
	/* Zipf(1) weights; phase p's addresses in its own range, the hottest
	 * few shared with the next phase */
	double *w = sl_xcalloc(nb, sizeof *w), wsum = 0;
	for (size_t j = 0; j < nb; j++)
		wsum += w[j] = 1.0 / (double)(j + 1);
	sl_branch *br = sl_xcalloc(2 * nb, sizeof *br);
	uint64_t *cnt = sl_xcalloc(ne, sizeof *cnt);
	sl_trace_writer *tw = sl_trace_create(o->path, &h);
	static const char *const names[N_PHASES] = {"A", "B", "C"};
	long rc = tw ? (long)n : -1;
	for (size_t i = 0; tw && i < n; i++) {
		double mix = first[i] ? gsl_rng_uniform(rng) * 0.5 : 0;
		uint32_t prev = first[i] ? phase[i - 1] : phase[i];
		size_t m = 0;
		for (int side = 0; side < 2; side++) {
			uint32_t p = side ? prev : phase[i];
			double share = side ? mix : 1 - mix;
			if (o->density[p] > 0)
				share *= o->density[p];
			uint32_t code = p == 2 && o->c_runs_b ? 1 : p;
			if (share <= 0)
				continue;
			for (size_t j = 0; j < nb; j++) {
				double noise = exp(0.1 * gsl_ran_gaussian(rng, 1.0));
				uint64_t base = 0x400000 + 0x10000 * (uint64_t)code;
				if (j % 5 == 4) /* a fifth of the code is shared */
					base = 0x400000 + 0x10000 * (uint64_t)((code + 1) % N_PHASES);
				uint64_t addr = base + 16 * j, c = (uint64_t)((double)o->cond_per_iv *
									    share * w[j] / wsum * noise) + 1;
				size_t at = 0; /* the two sides of a mix may run one code */
				while (at < m && br[at].addr != addr)
					at++;
				if (at == m)
					br[m++] = (sl_branch){.addr = addr, .count = 0};
				br[at].count += c;
			}
		}
		for (size_t c = 0, k = 0; c < ne; c++) {
			size_t col = c;
			if (c >= 2) { /* map back to synth_events numbering */
				while ((int)k == o->drop_event)
					k++;
				col = 2 + k++;
			}
			cnt[c] = synth_count(o, i, col);
		}
		sl_trace_interval iv = {
			.t = 0.03 + 0.01 * phase[i],
			.n = cnt,
			.br = br,
			.n_br = m,
			.has_e = 1,
			.e = 1.5 + phase[i],
			.label = (char *)names[phase[i]],
		};
		if (sl_trace_write(tw, &iv) < 0) {
			sl_trace_abort(tw);
			tw = NULL;
			rc = -1;
		}
	}
	if (tw && sl_trace_commit(tw) < 0)
		rc = -1;
	gsl_rng_free(rng);
	free(w);
	free(br);
	free(cnt);
	if (labels)
		*labels = phase;
	else
		free(phase);
	if (mixed)
		*mixed = first;
	else
		free(first);
	return rc;
}
