/*
 * The collector: one loop, the same for every backend, that turns a run
 * into a profile.  Per interval: the multiplexer picks the events for the
 * predicted phase, the backend measures, the branch samples become a
 * vector, the vector a phase, and the interval is recorded; the predictor
 * and the multiplexer learn what really happened.  At the end each phase's
 * most sampled code is named.
 */
#ifndef SLEUTH_COLLECTOR_H
#define SLEUTH_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "sleuth/backend.h"
#include "sleuth/phases.h"
#include "sleuth/profile.h"

/*
 * Defaults of `sleuth run`, measured on replayed traces of the shipped
 * simulated suite (docs/phases.md, "Defaults of sleuth run").
 */
#define SL_RUN_DIMS_DEFAULT 256
/* `sleuth run --pin`: none, time or ROLE[,ROLE...] (docs/phases.md,
 * "Pinning the time model's events"). */
#define SL_RUN_PIN_DEFAULT "time"

typedef struct sl_collect_opts {
	unsigned dims;          /* branch vector dimensions; 0: SL_RUN_DIMS_DEFAULT */
	/* > 0: a fixed clustering threshold; 0: noise-aware, per interval
	 * margin + the sampling noise of its n samples (sl_threshold_for) */
	double threshold;
	double margin;          /* noise-aware margin; 0: SL_THRESHOLD_MARGIN */
	sl_pred_kind predictor;
	uint64_t bv_seed;       /* the random projection of addresses */
	size_t top;             /* code locations kept per phase; 0: 5 */
	/* Events programmed in every interval (sl_mux_pin), by name; names
	 * the backend does not offer are ignored.  NULL/0: none. */
	const char *const *pin;
	size_t n_pin;
	/* behaviour split of code phases (sl_behave, docs/phases.md): its
	 * threshold; 0: SL_BEHAVE_DEFAULT; < 0: off */
	double behave;
} sl_collect_opts;

/* What the collector measured about itself (also stored in the profile). */
typedef struct sl_collect_stats {
	size_t predictions, correct; /* intervals after the first */
	uint64_t samples, lost;
	size_t empty;                /* intervals without a sample */
} sl_collect_stats;

void sl_collect_opts_init(sl_collect_opts *o);

/*
 * Drive `b` to the end of the run, appending to `p` (initialised by the
 * caller, who fills the command, machine and notes).  On return 0 the
 * profile holds every interval delivered, also after b->interrupt().
 * -1 with sl_error() on a backend error; *p is then still freeable.
 */
int sl_collect(sl_backend *b, const sl_collect_opts *o, sl_profile *p,
	       sl_collect_stats *st);

#endif
