/*
 * Glue between the session engine and the sl_backend interface, shared by
 * the perf and timer backends (which differ only in the events they open).
 */
#ifndef SLEUTH_COLLECT_LIVE_H
#define SLEUTH_COLLECT_LIVE_H

#include "session.h"

/*
 * A backend over a session started with cfg.  With counts, cfg's members
 * are: [0] cycles, then the events that are not uncore ones (sl_pfm_uncore)
 * in their order (all opened disabled; program() enables at most k of
 * them); the leader counts instructions.  cfg's uncore events are the
 * uncore ones in their order, reported in every interval; one the session
 * could not open is said on stderr and in the backend's note.  Without
 * counts the session only cuts intervals and samples addresses.
 * Takes ownership of nothing; copies what it keeps.  NULL with sl_error().
 */
sl_backend *sl_live_backend_new(const char *name, const sl_live_opts *o,
				const sl_session_cfg *cfg, int has_counts,
				const char *const *events, size_t n_events, size_t k);

/* The precise_ip the live backend's sampler was opened with. */
int sl_live_precise(const sl_backend *b);

/* The host CPU's model name from /proc/cpuinfo (malloc'd; "unknown"). */
char *sl_host_cpu_name(void);

#endif
