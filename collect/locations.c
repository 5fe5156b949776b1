/*
 * Per-phase address histograms and their resolution to functions and
 * source lines, done once at the end of a run so that the profile stays
 * readable after the binary changes.  Open addressing keeps the per-sample
 * cost to a hash and a probe, which matters for the live backends.
 */
#include "locations.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"

static size_t slot_of(uint64_t addr, size_t cap)
{
	uint64_t x = addr * 0x9e3779b97f4a7c15ull; /* Fibonacci hashing */
	return (size_t)(x >> 17) & (cap - 1);
}

static void rehash(sl_addrhist *h)
{
	size_t cap = h->cap ? h->cap * 2 : 64;
	uint64_t *a = sl_xcalloc(cap, sizeof *a), *c = sl_xcalloc(cap, sizeof *c);
	for (size_t i = 0; i < h->cap; i++) {
		if (!h->count[i])
			continue;
		size_t s = slot_of(h->addr[i], cap);
		while (c[s])
			s = (s + 1) & (cap - 1);
		a[s] = h->addr[i];
		c[s] = h->count[i];
	}
	free(h->addr);
	free(h->count);
	h->addr = a;
	h->count = c;
	h->cap = cap;
}

void sl_addrhist_add(sl_addrhist *h, uint64_t addr, uint64_t n)
{
	if (!n)
		return;
	if (2 * (h->used + 1) > h->cap)
		rehash(h);
	size_t s = slot_of(addr, h->cap);
	while (h->count[s] && h->addr[s] != addr)
		s = (s + 1) & (h->cap - 1);
	if (!h->count[s]) {
		h->addr[s] = addr;
		h->used++;
	}
	h->count[s] += n;
	h->total += n;
}

void sl_addrhist_add_all(sl_addrhist *to, const sl_addrhist *from)
{
	for (size_t k = 0; k < from->cap; k++)
		if (from->count[k])
			sl_addrhist_add(to, from->addr[k], from->count[k]);
}

uint64_t sl_addrhist_get(const sl_addrhist *h, uint64_t addr)
{
	if (!h->cap)
		return 0;
	size_t s = slot_of(addr, h->cap);
	while (h->count[s] && h->addr[s] != addr)
		s = (s + 1) & (h->cap - 1);
	return h->count[s];
}

void sl_addrhist_free(sl_addrhist *h)
{
	free(h->addr);
	free(h->count);
	memset(h, 0, sizeof *h);
}

/* One resolved address, and the groups (functions, lines) built from them. */
typedef struct named {
	char *function;
	char *file;
	int line;
	uint64_t addr, count;  /* addr: the group's most sampled address */
	uint64_t best;         /* that address's count */
} named;

static int by_function(const void *a, const void *b)
{
	return strcmp(((const named *)a)->function, ((const named *)b)->function);
}

static int by_line(const void *a, const void *b)
{
	const named *x = a, *y = b;
	int c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->function, y->function);
}

static int by_count(const void *a, const void *b)
{
	const named *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Merge runs of equal keys (v sorted by cmp) into groups, most sampled
 * first; returns the number of groups, written over v. */
static size_t group(named *v, size_t n, int (*cmp)(const void *, const void *))
{
	size_t g = 0;
	for (size_t i = 0; i < n; i++) {
		if (g && !cmp(&v[g - 1], &v[i])) {
			v[g - 1].count += v[i].count;
			if (v[i].best > v[g - 1].best) {
				v[g - 1].best = v[i].best;
				v[g - 1].addr = v[i].addr;
				v[g - 1].file = v[i].file; /* strings owned by the caller */
			}
			continue;
		}
		v[g++] = v[i];
	}
	qsort(v, g, sizeof *v, by_count);
	return g;
}

static sl_codeloc *top_locs(const named *v, size_t n, size_t top, uint64_t total,
			    size_t *out_n)
{
	size_t k = SL_MIN(n, top);
	sl_codeloc *l = sl_xcalloc(k, sizeof *l);
	for (size_t i = 0; i < k; i++) {
		l[i].function = sl_xstrdup(v[i].function);
		l[i].file = v[i].file ? sl_xstrdup(v[i].file) : NULL;
		l[i].line = v[i].line;
		l[i].addr = v[i].addr;
		l[i].share = total ? (double)v[i].count / (double)total : 0;
	}
	*out_n = k;
	return l;
}

void sl_locations_resolve(const sl_addrhist *h, size_t top, sl_resolve_fn resolve,
			  void *ctx, sl_phase_info *ph)
{
	named *v = sl_xcalloc(h->used, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < h->cap; i++) {
		if (!h->count[i])
			continue;
		const char *func = NULL, *file = NULL;
		int line = 0;
		named *x = &v[n++];
		if (resolve && resolve(ctx, h->addr[i], &func, &file, &line) == 0 && func) {
			x->function = sl_xstrdup(func);
			x->file = file ? sl_xstrdup(file) : NULL;
			x->line = file ? line : 0;
		} else {
			x->function = sl_xasprintf("0x%" PRIx64, h->addr[i]);
		}
		x->addr = h->addr[i];
		x->count = x->best = h->count[i];
	}
	/* lines: only addresses with a known source position */
	named *lines = sl_xcalloc(n, sizeof *lines);
	size_t nl = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].file)
			lines[nl++] = v[i];
	qsort(lines, nl, sizeof *lines, by_line);
	nl = group(lines, nl, by_line);
	ph->lines = top_locs(lines, nl, top, h->total, &ph->n_lines);
	free(lines); /* the strings belong to v */

	named *funcs = sl_xcalloc(n, sizeof *funcs);
	memcpy(funcs, v, n * sizeof *v);
	qsort(funcs, n, sizeof *funcs, by_function);
	size_t nf = group(funcs, n, by_function);
	/* a function's file is that of its most sampled address; no line */
	for (size_t i = 0; i < nf; i++)
		funcs[i].line = 0;
	ph->funcs = top_locs(funcs, nf, top, h->total, &ph->n_funcs);
	free(funcs);
	for (size_t i = 0; i < n; i++) {
		free(v[i].function);
		free(v[i].file);
	}
	free(v);
}
