/*
 * The per-PMU event map, data/pmus/pmus.yaml (sleuth-pmus/1): which events
 * of each microarchitecture play sleuth's model roles.  Kept as data rather
 * than C so that adding a CPU is an edit of one table that the tests encode
 * through libpfm4, not a rebuild of the tool's logic.
 */
#include "sleuth/hw.h"

#include <stdlib.h>
#include <string.h>

#include "formats/yamlio.h"

#define PMUMAP_FORMAT "sleuth-pmus/1"

/* A sequence of strings (flow or block) into a malloc'd array. */
static int str_list(sl_yparser *yp, const sl_ynode *v, const char *key, char ***out,
		    size_t *n)
{
	if (sl_yexpect(yp, v, SL_YSEQ, key) < 0)
		return -1;
	*out = sl_xcalloc(v->n + 1, sizeof **out);
	for (size_t i = 0; i < v->n; i++) {
		const char *s;
		if (sl_yget_str(yp, v->kid[i], key, &s) < 0)
			return -1;
		(*out)[(*n)++] = sl_xstrdup(s);
	}
	return 0;
}

static int read_entry(sl_yparser *yp, const sl_ynode *p, sl_pmu_entry *e)
{
	static const char *const known[] = {"pmus", "family", "counters", "branch_sample",
		"precise", "events", "prefetch", "power", "dram_reads", NULL};
	const sl_ynode *v;
	const char *s;
	int64_t k;
	if (sl_yexpect(yp, p, SL_YMAP, "pmus") < 0)
		return -1;
	sl_ywarn_unknown(yp, p, known);
	if (!(v = sl_yreq(yp, p, "pmus", "a PMU entry")) ||
	    str_list(yp, v, "pmus", &e->pmus, &e->n_pmus) < 0)
		return -1;
	if (!e->n_pmus)
		return sl_yerr(yp, v->line, "pmus", "name at least one libpfm4 PMU");
	if (!(v = sl_yreq(yp, p, "family", "a PMU entry")) ||
	    sl_yget_str(yp, v, "family", &s) < 0)
		return -1;
	e->family = sl_xstrdup(s);
	if (!(v = sl_yreq(yp, p, "counters", "a PMU entry")) ||
	    sl_yget_int(yp, v, "counters", &k) < 0)
		return -1;
	if (k < 1 || k > 64)
		return sl_yerr(yp, v->line, "counters", "must be between 1 and 64");
	e->counters = (int)k;
	if (!(v = sl_yreq(yp, p, "branch_sample", "a PMU entry")) ||
	    sl_yget_str(yp, v, "branch_sample", &s) < 0)
		return -1;
	e->branch_sample = sl_xstrdup(s);
	if (!(v = sl_yreq(yp, p, "precise", "a PMU entry")) ||
	    sl_yget_int(yp, v, "precise", &k) < 0)
		return -1;
	if (k < 0 || k > 3)
		return sl_yerr(yp, v->line, "precise", "must be 0 to 3 (perf's precise_ip)");
	e->precise = (int)k;
	if (!(v = sl_yreq(yp, p, "events", "a PMU entry")) ||
	    sl_yexpect(yp, v, SL_YMAP, "events") < 0)
		return -1;
	e->roles = sl_xcalloc(v->n / 2 + 1, sizeof *e->roles);
	for (size_t i = 0; i + 1 < v->n; i += 2) {
		const char *role = v->kid[i]->str;
		if (!sl_machine_known_role(role) || !strcmp(role, "branch_sample"))
			return sl_yerr(yp, v->kid[i]->line, role, "not a model role "
				       "(stall_cycles, llc_misses, resource_stalls, "
				       "memory_stall_cycles)");
		if (sl_yget_str(yp, v->kid[i + 1], role, &s) < 0)
			return -1;
		e->roles[e->n_roles].role = sl_xstrdup(role);
		e->roles[e->n_roles++].event = sl_xstrdup(s);
	}
	if (!(v = sl_yreq(yp, p, "prefetch", "a PMU entry")) ||
	    str_list(yp, v, "prefetch", &e->prefetch, &e->n_prefetch) < 0)
		return -1;
	if (!(v = sl_yreq(yp, p, "power", "a PMU entry")) ||
	    str_list(yp, v, "power", &e->power, &e->n_power) < 0)
		return -1;
	/* optional: the memory controller's reads, uncore events to try in
	 * order (machine init names the first present on the host) */
	if ((v = sl_ymap_get(p, "dram_reads"))) {
		if (str_list(yp, v, "dram_reads", &e->dram_reads, &e->n_dram_reads) < 0)
			return -1;
		for (size_t i = 0; i < e->n_dram_reads; i++) {
			const char *sep = strstr(e->dram_reads[i], "::");
			if (!sep || sep == e->dram_reads[i] || !sep[2])
				return sl_yerr(yp, v->kid[i]->line, "dram_reads",
					       "'%s' is not an uncore event: write "
					       "PMU::EVENT (nhm_unc::UNC_QMC_NORMAL_READS:ANY)",
					       e->dram_reads[i]);
		}
	}
	return 0;
}

static int read_map(sl_yparser *yp, const sl_ynode *root, sl_pmumap *map)
{
	static const char *const known[] = {"format", "pmus", NULL};
	const sl_ynode *v;
	const char *s;
	sl_ywarn_unknown(yp, root, known);
	if (!(v = sl_yreq(yp, root, "format", NULL)) || sl_yget_str(yp, v, "format", &s) < 0)
		return -1;
	if (strcmp(s, PMUMAP_FORMAT))
		return sl_yerr(yp, v->line, "format", "'%s' is not '%s'", s, PMUMAP_FORMAT);
	if (!(v = sl_yreq(yp, root, "pmus", NULL)) || sl_yexpect(yp, v, SL_YSEQ, "pmus") < 0)
		return -1;
	map->e = sl_xcalloc(v->n + 1, sizeof *map->e);
	for (size_t i = 0; i < v->n; i++) {
		if (read_entry(yp, v->kid[i], &map->e[map->n++]) < 0)
			return -1;
		const sl_pmu_entry *e = &map->e[map->n - 1];
		for (size_t j = 0; j < e->n_pmus; j++)
			for (size_t q = 0; q + 1 < map->n; q++)
				for (size_t r = 0; r < map->e[q].n_pmus; r++)
					if (!strcmp(map->e[q].pmus[r], e->pmus[j]))
						return sl_yerr(yp, v->kid[i]->line, "pmus",
							       "%s is listed twice",
							       e->pmus[j]);
	}
	return 0;
}

/* Read the document yp was opened on; closes yp.  map->path is set. */
static int load(sl_yparser *yp, sl_pmumap *map)
{
	sl_ynode *root;
	int rc = sl_yp_load_document(yp, &root) == 0 && read_map(yp, root, map) == 0 ? 0 : -1;
	sl_yp_close(yp);
	if (rc < 0)
		sl_pmumap_free(map);
	return rc;
}

int sl_pmumap_load_mem(const char *name, const char *text, size_t len, sl_pmumap *map)
{
	sl_yparser yp;
	memset(map, 0, sizeof *map);
	map->path = sl_xstrdup(name);
	if (sl_yp_open_mem(&yp, name, text, len) < 0) {
		sl_pmumap_free(map);
		return -1;
	}
	return load(&yp, map);
}

int sl_pmumap_load(const char *path, sl_pmumap *map)
{
	sl_yparser yp;
	memset(map, 0, sizeof *map);
	map->path = path ? sl_xstrdup(path) : sl_data_path("data/pmus/pmus.yaml");
	if (!map->path) {
		sl_error_set("cannot find data/pmus/pmus.yaml; set SLEUTH_DATADIR to the "
			     "directory holding sleuth's data/");
		return -1;
	}
	if (sl_yp_open(&yp, map->path) < 0) {
		sl_pmumap_free(map);
		return -1;
	}
	return load(&yp, map);
}

const sl_pmu_entry *sl_pmumap_find(const sl_pmumap *map, const char *pmu)
{
	for (size_t i = 0; i < map->n; i++)
		for (size_t j = 0; j < map->e[i].n_pmus; j++)
			if (!strcmp(map->e[i].pmus[j], pmu))
				return &map->e[i];
	char known[1024] = "";
	size_t len = 0;
	for (size_t i = 0; i < map->n; i++)
		for (size_t j = 0; j < map->e[i].n_pmus && len + 32 < sizeof known; j++)
			len += (size_t)snprintf(known + len, sizeof known - len, "%s%s",
						len ? " " : "", map->e[i].pmus[j]);
	sl_error_set("sleuth has no event map for PMU %s (it knows: %s); add an entry "
		     "to %s", pmu, known, map->path ? map->path : "data/pmus/pmus.yaml");
	return NULL;
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void sl_pmumap_free(sl_pmumap *map)
{
	for (size_t i = 0; i < map->n; i++) {
		sl_pmu_entry *e = &map->e[i];
		free_strs(e->pmus, e->n_pmus);
		free(e->family);
		free(e->branch_sample);
		for (size_t r = 0; r < e->n_roles; r++) {
			free(e->roles[r].role);
			free(e->roles[r].event);
		}
		free(e->roles);
		free_strs(e->prefetch, e->n_prefetch);
		free_strs(e->power, e->n_power);
		free_strs(e->dram_reads, e->n_dram_reads);
	}
	free(map->e);
	free(map->path);
	memset(map, 0, sizeof *map);
}
