/*
 * Table-driven loading of named numeric parameters, so the machine's truth
 * and the phases' behaviour are validated the same way (range, integer,
 * required) with messages naming file, line and key.
 */
#include "sim-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sl_sim_read_keys(sl_yparser *yp, const sl_ynode *map, const sl_sim_key *keys,
		     size_t n, void *base, int *set)
{
	return sl_sim_read_keys_but(yp, map, keys, n, base, set, NULL);
}

int sl_sim_read_keys_but(sl_yparser *yp, const sl_ynode *map, const sl_sim_key *keys,
			 size_t n, void *base, int *set, const char *const *other)
{
	size_t no = 0;
	while (other && other[no])
		no++;
	const char **known = sl_xcalloc(n + no + 1, sizeof *known);
	for (size_t i = 0; i < n; i++)
		known[i] = keys[i].key;
	for (size_t i = 0; i < no; i++)
		known[n + i] = other[i];
	sl_ywarn_unknown(yp, map, known);
	free(known);
	for (size_t i = 0; i < n; i++) {
		const sl_ynode *v = sl_ymap_get(map, keys[i].key);
		double d;
		if (!v)
			continue;
		if (sl_yget_double(yp, v, keys[i].key, &d) < 0)
			return -1;
		if (keys[i].integer && d != floor(d))
			return sl_yerr(yp, v->line, keys[i].key,
				       "expected a whole number, found %s", v->str);
		if (d < keys[i].min || d > keys[i].max)
			return sl_yerr(yp, v->line, keys[i].key,
				       "%s is out of range; it must be between %g and %g",
				       v->str, keys[i].min, keys[i].max);
		memcpy((char *)base + keys[i].off, &d, sizeof d);
		set[i] = 1;
	}
	return 0;
}

int sl_sim_finish_keys(sl_yparser *yp, int line, const char *where,
		       const sl_sim_key *keys, size_t n, void *base, int *set)
{
	for (size_t i = 0; i < n; i++) {
		if (set[i])
			continue;
		if (isnan(keys[i].def))
			return sl_yerr(yp, line, keys[i].key, "missing required key in %s",
				       where);
		memcpy((char *)base + keys[i].off, &keys[i].def, sizeof(double));
		set[i] = 1;
	}
	return 0;
}

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t sl_sim_key_hash(uint64_t seed, enum sl_sim_stream stream, uint64_t a, uint64_t b,
			 uint64_t c)
{
	return mix(mix(mix(mix(mix(seed) ^ (uint64_t)stream) ^ a) ^ b) ^ c);
}

int sl_sim_load_doc(const char *path, const char *format, const char *const *top,
		    int (*body)(sl_yparser *yp, const sl_ynode *root, void *obj),
		    void *obj)
{
	sl_yparser yp;
	sl_ynode *root;
	const sl_ynode *n;
	const char *s;
	int rc = -1;
	if (sl_yp_open(&yp, path) < 0)
		return -1;
	if (sl_yp_load_document(&yp, &root) < 0 ||
	    !(n = sl_yreq(&yp, root, "format", NULL)) || sl_yget_str(&yp, n, "format", &s) < 0)
		goto out;
	if (strcmp(s, format)) {
		sl_yerr(&yp, n->line, "format", "expected %s, found '%s'", format, s);
		goto out;
	}
	sl_ywarn_unknown(&yp, root, top);
	rc = body(&yp, root, obj);
out:
	sl_yp_close(&yp);
	return rc;
}
