/*
 * Replay backend: a sleuth-trace/1 played back as a PMU.  The collector
 * sees only what hardware would show it: cycles and instructions always
 * (fixed counters), the K events it programmed for the interval (the others
 * SL_MISSING), and conditional-branch samples taken as PEBS takes them.
 * The true labels are stored aside for scoring and never reach sl_obs.
 */
#include "sleuth/replay.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/profile.h"
#include "sleuth/trace.h"

typedef struct replay {
	sl_trace_reader *r;
	char *path;
	size_t *col;          /* trace column of each offered event */
	int cyc, ins;         /* trace columns of cycles and instructions */
	int *programmed;      /* per offered event: programmed now */
	uint64_t *counts;
	uint64_t *samples;
	size_t samples_cap;
	uint64_t *cum;        /* cumulative branch counts of the interval */
	size_t cum_cap;
	uint64_t period, left; /* executions left until the next sample */
	gsl_rng *rng;
	double clock;         /* start of the next interval */
	volatile sig_atomic_t stop;
	/* scoring only */
	uint32_t *truth;
	size_t n_truth, truth_cap;
	char **labels;
	size_t n_labels, labels_cap;
} replay;

static int replay_program(sl_backend *b, const size_t *ev, size_t n)
{
	replay *x = b->priv;
	if (sl_backend_check_program(b, ev, n) < 0)
		return -1;
	memset(x->programmed, 0, b->n_events * sizeof *x->programmed);
	for (size_t i = 0; i < n; i++)
		x->programmed[ev[i]] = 1;
	return 0;
}

/* Small, stable ids for the labels (a workload has a handful of phases). */
static void keep_label(replay *x, const char *label)
{
	uint32_t id = UINT32_MAX;
	if (label) {
		for (size_t i = 0; i < x->n_labels && id == UINT32_MAX; i++)
			if (!strcmp(x->labels[i], label))
				id = (uint32_t)i;
		if (id == UINT32_MAX) {
			SL_GROW(x->labels, x->n_labels, x->labels_cap);
			x->labels[x->n_labels] = sl_xstrdup(label);
			id = (uint32_t)x->n_labels++;
		}
	}
	SL_GROW(x->truth, x->n_truth, x->truth_cap);
	x->truth[x->n_truth++] = id;
}

/*
 * PEBS-style sampling of the interval's conditional branches: a countdown
 * of `period` executions, carried across intervals like a real counter,
 * fixes how many samples fall in the interval.  The trace has a histogram,
 * not the execution order, so which branch each sample hits is drawn
 * uniformly among the interval's executions (binary search on cumulative
 * counts): in interleaved code the Nth execution lands on each branch in
 * proportion to its count.
 */
#define MAX_SAMPLES (1ull << 26) /* per interval: 512 MiB of addresses */

static int sample_branches(replay *x, const sl_trace_interval *iv, sl_obs *o)
{
	if (iv->n_br > x->cum_cap) {
		x->cum_cap = iv->n_br;
		x->cum = sl_xreallocarray(x->cum, x->cum_cap, sizeof *x->cum);
	}
	uint64_t total = 0;
	for (size_t i = 0; i < iv->n_br; i++) {
		if (iv->br[i].count > UINT64_MAX - total) {
			sl_error_set("%s: interval %zu: branch counts overflow", x->path,
				     x->n_truth);
			return -1;
		}
		total += iv->br[i].count;
		x->cum[i] = total;
	}
	uint64_t n = 0;
	if (total >= x->left) {
		uint64_t after = total - x->left; /* executions after the first sample */
		n = 1 + after / x->period;
		x->left = x->period - after % x->period;
	} else {
		x->left -= total;
	}
	if (n > MAX_SAMPLES) {
		sl_error_set("%s: interval %zu would take %llu samples (%llu branches "
			     "every %llu); give a longer --sample-period", x->path,
			     x->n_truth, (unsigned long long)n, (unsigned long long)total,
			     (unsigned long long)x->period);
		return -1;
	}
	if (n > x->samples_cap) {
		x->samples_cap = n;
		x->samples = sl_xreallocarray(x->samples, n, sizeof *x->samples);
	}
	for (size_t s = 0; s < n; s++) {
		uint64_t pos = (uint64_t)(gsl_rng_uniform(x->rng) * (double)total);
		if (pos >= total)
			pos = total - 1;
		size_t lo = 0, hi = iv->n_br - 1; /* first i with cum[i] > pos */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (x->cum[mid] > pos)
				hi = mid;
			else
				lo = mid + 1;
		}
		x->samples[s] = iv->br[lo].addr;
	}
	o->samples = x->samples;
	o->n_samples = n;
	return 0;
}

static int replay_next(sl_backend *b, sl_obs *o)
{
	replay *x = b->priv;
	sl_trace_interval iv;
	if (x->stop)
		return 0;
	int rc = sl_trace_next(x->r, &iv);
	if (rc <= 0)
		return rc;
	memset(o, 0, sizeof *o);
	o->start_s = x->clock;
	o->time_s = iv.t;
	x->clock += iv.t;
	o->cycles = iv.n[x->cyc];
	o->instructions = iv.n[x->ins];
	for (size_t i = 0; i < b->n_events; i++)
		x->counts[i] = x->programmed[i] ? iv.n[x->col[i]] : SL_MISSING;
	o->counts = x->counts;
	o->energy_j = iv.has_e ? iv.e : NAN;
	o->has_temp = iv.has_temp;
	o->temp_c = iv.temp;
	o->ghz = iv.ghz;
	if (sample_branches(x, &iv, o) < 0)
		return -1;
	keep_label(x, iv.label);
	return 1;
}

static uint64_t replay_progress(sl_backend *b, uint64_t *total)
{
	replay *x = b->priv;
	uint64_t done;
	sl_trace_progress(x->r, &done, total);
	return done;
}

static int replay_finish(sl_backend *b)
{
	(void)b;
	return 0;
}

static void replay_interrupt(sl_backend *b)
{
	((replay *)b->priv)->stop = 1;
}

static void replay_destroy(sl_backend *b)
{
	if (!b)
		return;
	replay *x = b->priv;
	if (x) {
		if (x->r)
			sl_trace_close(x->r);
		free(x->path);
		free(x->col);
		free(x->programmed);
		free(x->counts);
		free(x->samples);
		free(x->cum);
		if (x->rng)
			gsl_rng_free(x->rng);
		free(x->truth);
		for (size_t i = 0; i < x->n_labels; i++)
			free(x->labels[i]);
		free(x->labels);
		free(x);
	}
	free(b->events);
	sl_backend_free(b);
}

/* The offered events: the machine's model events, each of which the trace
 * must have (a model event the trace lacks could never be measured). */
static int map_events(sl_backend *b, replay *x, const sl_trace_header *h,
		      const sl_machine *m)
{
	const char **ev;
	size_t n = sl_machine_model_events(m, &ev);
	b->events = ev;
	b->n_events = n;
	x->col = sl_xcalloc(n, sizeof *x->col);
	for (size_t i = 0; i < n; i++) {
		int c = sl_trace_event_index(h, ev[i]);
		if (c < 0) {
			sl_error_set("%s: the trace has no event '%s', which machine model "
				     "'%s' needs; simulate with a machine that exposes it "
				     "or give another --machine", x->path, ev[i], m->name);
			return -1;
		}
		x->col[i] = (size_t)c;
	}
	x->cyc = sl_trace_event_index(h, "cycles");
	x->ins = sl_trace_event_index(h, "instructions");
	if (x->cyc < 0 || x->ins < 0) {
		sl_error_set("%s: the trace lacks 'cycles' or 'instructions'", x->path);
		return -1;
	}
	return 0;
}

sl_backend *sl_replay_backend_new(const sl_replay_opts *o)
{
	sl_backend *b = sl_xcalloc(1, sizeof *b);
	replay *x = sl_xcalloc(1, sizeof *x);
	b->priv = x;
	b->name = "replay";
	b->program = replay_program;
	b->next = replay_next;
	b->finish = replay_finish;
	b->progress = replay_progress;
	b->interrupt = replay_interrupt;
	b->destroy = replay_destroy;
	x->path = sl_xstrdup(o->trace);
	x->r = sl_trace_open(o->trace);
	if (!x->r)
		goto fail;
	const sl_trace_header *h = sl_trace_header_of(x->r);
	if (map_events(b, x, h, o->machine) < 0)
		goto fail;
	b->k = o->counters < 0 ? (size_t)(o->machine->programmable > 0
						  ? o->machine->programmable : 0)
	       : o->counters == 0 ? b->n_events
				  : (size_t)o->counters;
	if (b->k > b->n_events)
		b->k = b->n_events;
	b->has_counts = 1;
	b->freq_ghz = h->frequency_ghz;
	b->interval_instructions = h->interval_instructions;
	b->host_cpu = sl_xasprintf("none (replayed trace, machine '%s')",
				   o->machine->name ? o->machine->name : "?");
	b->workload = h->workload ? sl_xstrdup(h->workload) : NULL;
	b->energy_source = sl_xstrdup("trace");
	x->programmed = sl_xcalloc(b->n_events, sizeof *x->programmed);
	sl_backend_find_uncore(b);
	x->counts = sl_xcalloc(b->n_events, sizeof *x->counts);
	x->period = o->sample_period ? o->sample_period
				     : sl_sample_period_for(SL_REPLAY_DEFAULT_PERIOD,
							    h->interval_instructions);
	const char *br = sl_machine_role(o->machine, "branch_sample");
	b->sample_event = br ? sl_xstrdup(br) : NULL;
	b->sample_period = x->period;
	x->rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(x->rng, (unsigned long)(o->seed ^ (o->seed >> 32)));
	/* the counter starts at a random point of its period */
	x->left = 1 + (uint64_t)(gsl_rng_uniform(x->rng) * (double)x->period);
	if (x->left > x->period)
		x->left = x->period;
	return b;
fail:
	replay_destroy(b);
	return NULL;
}

const uint32_t *sl_replay_truth(const sl_backend *b, size_t *n)
{
	const replay *x = b->priv;
	*n = x->n_truth;
	return x->truth;
}

const char *sl_replay_label_name(const sl_backend *b, uint32_t id)
{
	const replay *x = b->priv;
	return id < x->n_labels ? x->labels[id] : NULL;
}
