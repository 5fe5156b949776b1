/*
 * Glue between the session engine and the sl_backend interface, shared by
 * the perf and timer backends (which differ only in the events they open).
 */
#ifndef SLEUTH_COLLECT_LIVE_H
#define SLEUTH_COLLECT_LIVE_H

#include "session.h"

/*
 * A backend over a session started with cfg.  With counts, cfg's members
 * are: [0] cycles, [1 + i] events[i] (all opened disabled; program()
 * enables at most k of them); the leader counts instructions.  Without
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
