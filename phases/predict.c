/*
 * Next-phase prediction, so that the multiplexer can program the events the
 * coming interval's phase still needs before the interval starts.
 *
 * last-value: the next interval has the phase of the last one.
 * markov (run-length): phases recur with similar run lengths, so remember,
 * per phase, how long its last run was and which phase followed it; when
 * the current run reaches that length, predict that follower, otherwise
 * the current phase.  This is a first-order Markov predictor over runs
 * (not intervals), which is what lets it foresee a change at all.
 */
#include "sleuth/phases.h"

#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "slots.h"

/* How many times a run (same length, same follower) must have repeated
 * before a change is predicted.  Trusting a single run (0) bets on every
 * jittered or random run length and loses to last-value by 1-13 points;
 * with 2 it is never measurably worse than last-value and still learns a
 * fixed pattern after three runs (docs/phases.md). */
#define MARKOV_CONFIDENCE 2

typedef struct run_hist {
	uint64_t last_len; /* 0: no finished run yet */
	uint32_t next;     /* the phase that followed it */
	unsigned repeats;  /* how many runs in a row had that same length and follower */
} run_hist;

struct sl_predictor {
	sl_pred_kind kind;
	int started;
	uint32_t cur;      /* phase of the current run */
	uint64_t run;      /* its length so far */
	run_hist *hist;
	size_t n_hist;
};

sl_predictor *sl_pred_new(sl_pred_kind kind)
{
	sl_predictor *p = sl_xcalloc(1, sizeof *p);
	p->kind = kind;
	return p;
}

static run_hist *hist_of(sl_predictor *p, uint32_t phase)
{
	return sl_phase_slot(&p->hist, &p->n_hist, phase, sizeof *p->hist);
}

void sl_pred_update(sl_predictor *p, uint32_t actual)
{
	if (p->started && actual == p->cur) {
		p->run++;
		return;
	}
	if (p->started) {
		run_hist *h = hist_of(p, p->cur);
		if (h->last_len == p->run && h->next == actual)
			h->repeats++;
		else
			h->repeats = 0;
		h->last_len = p->run;
		h->next = actual;
	}
	hist_of(p, actual);
	p->started = 1;
	p->cur = actual;
	p->run = 1;
}

uint32_t sl_pred_next(const sl_predictor *p)
{
	if (!p->started)
		return 0;
	if (p->kind == SL_PRED_MARKOV) {
		const run_hist *h = &p->hist[p->cur];
		if (h->repeats >= MARKOV_CONFIDENCE && p->run == h->last_len)
			return h->next;
	}
	return p->cur;
}

static const char *const pred_names[] = {
	[SL_PRED_LAST] = "last",
	[SL_PRED_MARKOV] = "markov",
};

const char *sl_pred_name(sl_pred_kind kind)
{
	return (size_t)kind < SL_ARRAY_LEN(pred_names) ? pred_names[kind] : "?";
}

int sl_pred_parse(const char *name, sl_pred_kind *kind)
{
	for (size_t i = 0; i < SL_ARRAY_LEN(pred_names); i++) {
		if (strcmp(name, pred_names[i]) == 0) {
			*kind = (sl_pred_kind)i;
			return 0;
		}
	}
	sl_error_set("unknown phase predictor '%s'; use 'last' or 'markov'", name);
	return -1;
}

void sl_pred_free(sl_predictor *p)
{
	if (!p)
		return;
	free(p->hist);
	free(p);
}
