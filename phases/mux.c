/*
 * Phase-guided counter multiplexing: with k counters and n > k events, each
 * interval measures only k events, and the counts are later filled in per
 * phase (intervals of a phase behave alike).  So what matters is that each
 * phase, not the run as a whole, gets every event measured, and as evenly
 * as possible.
 *
 * Each phase keeps its own queue over the events: how often it has measured
 * each one, and a round-robin cursor.  The events for the next interval are
 * the k least-measured ones of the predicted phase, ties broken in
 * round-robin order from its cursor; when every interval is predicted
 * correctly this is exactly per-phase round robin.
 *
 * Misprediction: the interval really belonged to another phase, so the
 * events measured are credited to that actual phase (its counts go up and
 * it will not ask for them again before the others); the predicted phase is
 * left untouched and still wants the same events next time.  Hence: a phase
 * with at least ceil(n/k) correctly predicted intervals has measured every
 * event, because each such interval measures min(k, still unmeasured) new
 * events, and credited mispredicted intervals only ever add coverage.
 *
 * Pinning (sl_mux_pin): p events the models cannot do without (the time
 * model's stall cycles and LLC misses) are programmed in every interval,
 * the other k - p counters rotating as above over the other n - p events:
 * a phase with ceil((n - p)/(k - p)) correctly predicted intervals has
 * measured every event (the pinned ones in the first).  With k <= p
 * pinning would starve the rest: it is ignored, and the bound is the
 * unpinned ceil(n/k).
 *
 * Uncore events (sl_mux_uncore): an uncore PMU (the memory controller's
 * read counter) counts beside the core's k counters, so its events are
 * programmed in every interval and take no counter: n and p above count
 * the core's events only, and out holds up to k + u indices.
 */
#include "sleuth/phases.h"

#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "slots.h"

typedef struct phase_q {
	uint64_t *times; /* n_events: how often each event was measured */
	size_t cursor;
} phase_q;

struct sl_mux {
	size_t n_events, k;
	unsigned char *pinned; /* n_events flags */
	size_t n_pinned;       /* distinct pinned events, < k when used */
	unsigned char *uncore; /* n_events flags: counted beside the k */
	size_t n_uncore;
	phase_q *q;
	size_t n_q;
};

sl_mux *sl_mux_new(size_t n_events, size_t k)
{
	sl_mux *m = sl_xcalloc(1, sizeof *m);
	m->n_events = n_events;
	m->k = k;
	m->pinned = sl_xcalloc(n_events ? n_events : 1, 1);
	m->uncore = sl_xcalloc(n_events ? n_events : 1, 1);
	return m;
}

/* Set flags for the listed events (duplicates and out-of-range ones
 * ignored); *count the distinct ones flagged. */
static void flag_events(const sl_mux *m, unsigned char *flags, size_t *count,
			const size_t *events, size_t n)
{
	memset(flags, 0, m->n_events ? m->n_events : 1);
	*count = 0;
	for (size_t i = 0; i < n; i++)
		if (events[i] < m->n_events && !flags[events[i]]) {
			flags[events[i]] = 1;
			++*count;
		}
}

/* The pinned events that take a core counter. */
static size_t core_pinned(const sl_mux *m)
{
	size_t n = 0;
	for (size_t e = 0; e < m->n_events; e++)
		n += m->pinned[e] && !m->uncore[e];
	return n;
}

void sl_mux_pin(sl_mux *m, const size_t *events, size_t n)
{
	flag_events(m, m->pinned, &m->n_pinned, events, n);
}

void sl_mux_uncore(sl_mux *m, const size_t *events, size_t n)
{
	flag_events(m, m->uncore, &m->n_uncore, events, n);
}

size_t sl_mux_pinned(const sl_mux *m)
{
	size_t p = core_pinned(m);
	return p < m->k && m->k < m->n_events - m->n_uncore ? p : 0;
}

static phase_q *queue_of(sl_mux *m, uint32_t phase)
{
	phase_q *q = sl_phase_slot(&m->q, &m->n_q, phase, sizeof *m->q);
	if (!q->times)
		q->times = sl_xcalloc(m->n_events ? m->n_events : 1,
				      sizeof *q->times);
	return q;
}

size_t sl_mux_select(sl_mux *m, uint32_t phase, size_t *out)
{
	size_t n = m->n_events;
	if (m->k >= n - m->n_uncore) {
		for (size_t e = 0; e < n; e++)
			out[e] = e;
		return n;
	}
	phase_q *q = queue_of(m, phase);
	size_t got = 0;
	int pinning = sl_mux_pinned(m) > 0;
	if (pinning)
		for (size_t e = 0; e < n; e++)
			if (m->pinned[e] && !m->uncore[e])
				out[got++] = e;
	/* k passes of a selection scan: n is a dozen events, k a handful.
	 * Pinned events come first in out, so the last one is a rotating one
	 * (the cursor follows it in sl_mux_commit). */
	while (got < m->k) {
		size_t best = n;
		for (size_t off = 0; off < n; off++) {
			size_t e = (q->cursor + off) % n;
			int taken = (pinning && m->pinned[e]) || m->uncore[e];
			for (size_t j = 0; j < got && !taken; j++)
				taken = out[j] == e;
			if (!taken && (best == n || q->times[e] < q->times[best]))
				best = e;
		}
		out[got++] = best;
	}
	/* the uncore events last: sl_mux_commit's cursor follows the last
	 * rotating one */
	for (size_t e = 0; e < n; e++)
		if (m->uncore[e])
			out[got++] = e;
	return got;
}

void sl_mux_commit(sl_mux *m, uint32_t phase, const size_t *measured, size_t n)
{
	if (m->n_events == 0)
		return;
	phase_q *q = queue_of(m, phase);
	for (size_t i = 0; i < n; i++)
		if (measured[i] < m->n_events)
			q->times[measured[i]]++;
	while (n > 0 && measured[n - 1] < m->n_events && m->uncore[measured[n - 1]])
		n--;
	if (n > 0 && measured[n - 1] < m->n_events)
		q->cursor = (measured[n - 1] + 1) % m->n_events;
}

uint64_t sl_mux_times(const sl_mux *m, uint32_t phase, size_t ev)
{
	if (phase >= m->n_q || ev >= m->n_events || !m->q[phase].times)
		return 0;
	return m->q[phase].times[ev];
}

void sl_mux_free(sl_mux *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_q; i++)
		free(m->q[i].times);
	free(m->q);
	free(m->pinned);
	free(m->uncore);
	free(m);
}
