/*
 * Growable per-phase arrays: see slots.h.
 */
#include "slots.h"

#include <string.h>

#include "sleuth/common.h"

void *sl_phase_slot(void *arr_p, size_t *n, uint32_t phase, size_t size)
{
	char **arr = arr_p;
	if (phase >= *n) {
		size_t m = SL_MAX((size_t)phase + 1, 2 * *n);
		*arr = sl_xreallocarray(*arr, m, size);
		memset(*arr + *n * size, 0, (m - *n) * size);
		*n = m;
	}
	return *arr + (size_t)phase * size;
}
