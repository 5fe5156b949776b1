/*
 * The replay backend: a sleuth-trace/1 file played back as if it were a PMU
 * with K programmable counters, so that phase detection, prediction and
 * multiplexing run exactly as they would on hardware.  The trace's true
 * phase labels are kept apart, for scoring only (sl_replay_truth).
 */
#ifndef SLEUTH_REPLAY_H
#define SLEUTH_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "sleuth/backend.h"
#include "sleuth/machine.h"

/*
 * Default conditional-branch sampling period: a prime near 50k gives a few
 * hundred samples per 100M-instruction interval at the 10-20 % conditional
 * branch share of typical code (docs/phases.md).  A trace with shorter
 * intervals is sampled in proportion (sl_sample_period_for()).
 */
#define SL_REPLAY_DEFAULT_PERIOD 49999ULL

typedef struct sl_replay_opts {
	const char *trace;
	const sl_machine *machine; /* its model events are what is offered */
	int counters;              /* -1: the machine's; 0: unlimited; else K */
	uint64_t sample_period;    /* 0: SL_REPLAY_DEFAULT_PERIOD, for the
				      trace's intervals (sl_sample_period_for) */
	uint64_t seed;             /* sampling start offset and positions */
} sl_replay_opts;

/* NULL with sl_error() (unreadable trace, a model event the trace lacks). */
sl_backend *sl_replay_backend_new(const sl_replay_opts *o);

/* For scoring, never for collecting: the true label of every interval
 * replayed so far as a small id (UINT32_MAX: unlabelled), and the name of
 * an id.  `b` must be a replay backend. */
const uint32_t *sl_replay_truth(const sl_backend *b, size_t *n);
const char *sl_replay_label_name(const sl_backend *b, uint32_t id);

#endif
