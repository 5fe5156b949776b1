/*
 * Per-phase state indexed by phase ID (predictor history, multiplexer
 * queues): phases appear one by one during the run, so such arrays grow on
 * demand, new slots zero-filled.  Internal to phases/.
 */
#ifndef SLEUTH_PHASES_SLOTS_H
#define SLEUTH_PHASES_SLOTS_H

#include <stddef.h>
#include <stdint.h>

/* The slot of `phase` in the array *arr of *n elements of `size` bytes,
 * grown (at least doubling) and zero-filled as needed. */
void *sl_phase_slot(void *arr_p, size_t *n, uint32_t phase, size_t size);

#endif
