/*
 * Where each phase spends its samples: a histogram of sampled addresses per
 * phase, turned at the end of a run into the phase's top functions and
 * source lines (internal to the collector).
 */
#ifndef SLEUTH_COLLECT_LOCATIONS_H
#define SLEUTH_COLLECT_LOCATIONS_H

#include <stddef.h>
#include <stdint.h>

#include "sleuth/profile.h"

typedef struct sl_addrhist {
	uint64_t *addr;
	uint64_t *count; /* 0: empty slot */
	size_t used, cap; /* cap is a power of two */
	uint64_t total;
} sl_addrhist;

void sl_addrhist_add(sl_addrhist *h, uint64_t addr, uint64_t n);
/* Add every address of `from` (another histogram) to `to`. */
void sl_addrhist_add_all(sl_addrhist *to, const sl_addrhist *from);
/* addr's count, 0 if never added (also a small address -> index map). */
uint64_t sl_addrhist_get(const sl_addrhist *h, uint64_t addr);
void sl_addrhist_free(sl_addrhist *h);

/* Name an address: 0 with *func (and, when known, *file and *line) set,
 * the strings valid until the next call; -1 when it cannot be named. */
typedef int (*sl_resolve_fn)(void *ctx, uint64_t addr, const char **func,
			     const char **file, int *line);

/* Fill *ph with the `top` functions and source lines of the histogram,
 * shares relative to all its samples.  Unresolved addresses (or resolve ==
 * NULL, as for a replayed trace) are named by their address, "0x401a2c",
 * with no source line. */
void sl_locations_resolve(const sl_addrhist *h, size_t top, sl_resolve_fn resolve,
			  void *ctx, sl_phase_info *ph);

#endif
