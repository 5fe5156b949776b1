/*
 * Reference energy from the machine itself (RAPL), so a profile can carry
 * measured energy per interval for `sleuth calibrate`.  PAPI's powercap
 * component is preferred (then its rapl component, which reads the MSRs);
 * without either, the powercap files in sysfs are read directly.  Package
 * zones and DRAM zones are summed (core zones are part of the package and
 * only named in the source).  Counters wrap at max_energy_range_uj; each
 * read adds the wrapped difference to a running total, so reads must come
 * more often than one wrap (minutes, even on big servers).
 */
#include <dirent.h>
#include <errno.h>
#include <papi.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/collect.h"
#include "sleuth/common.h"

typedef struct zone {
	char *path;          /* sysfs: the energy_uj file */
	uint64_t range;      /* wrap-around range in the counter's unit */
	uint64_t last;
} zone;

struct sl_energy {
	int papi_set;        /* PAPI event set, or PAPI_NULL for sysfs */
	long long *vals;
	double unit_j;       /* joules per counter unit */
	zone *zones;
	size_t n_zones;
	double total_j;
	char *source;
};

static int read_u64_file(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	unsigned long long x;
	int ok = fscanf(f, "%llu", &x) == 1;
	fclose(f);
	if (!ok)
		return -1;
	*v = x;
	return 0;
}

static void read_name(const char *dir, char *buf, size_t len)
{
	char *p = sl_xasprintf("%s/name", dir);
	FILE *f = fopen(p, "r");
	free(p);
	buf[0] = 0;
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
}

/* Add the zones of one PAPI component whose names match the package and
 * DRAM energy counters; returns how many were added. */
static size_t papi_add(sl_energy *e, int cid, const char *const *prefixes,
		       char *src, size_t srclen)
{
	int code = PAPI_NATIVE_MASK, r = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cid);
	size_t n = 0;
	for (; r == PAPI_OK; r = PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cid)) {
		char name[PAPI_MAX_STR_LEN];
		if (PAPI_event_code_to_name(code, name) != PAPI_OK)
			continue;
		for (size_t p = 0; prefixes[p]; p++)
			if (strstr(name, prefixes[p]) &&
			    PAPI_add_named_event(e->papi_set, name) == PAPI_OK) {
				size_t used = strlen(src);
				snprintf(src + used, srclen - used, "%s%s", n ? "," : " ", name);
				n++;
			}
	}
	return n;
}

/* PAPI: powercap zones ZONEn (packages) and their DRAM subzones, in uJ;
 * or the rapl component's PACKAGE_ENERGY / DRAM_ENERGY, in nJ. */
static int open_papi(sl_energy *e, char *why, size_t whylen)
{
	static const struct {
		const char *comp;
		double unit;
		const char *const prefixes[3];
	} comps[] = {
		{"powercap", 1e-6, {"ENERGY_UJ:ZONE", NULL, NULL}},
		{"rapl", 1e-9, {"PACKAGE_ENERGY:PACKAGE", "DRAM_ENERGY:PACKAGE", NULL}},
	};
	int r = PAPI_library_init(PAPI_VER_CURRENT);
	if (r != PAPI_VER_CURRENT) {
		snprintf(why, whylen, "PAPI failed to initialise (%s)", PAPI_strerror(r));
		return -1;
	}
	why[0] = 0;
	for (size_t c = 0; c < SL_ARRAY_LEN(comps); c++) {
		size_t used = strlen(why);
		int cid = PAPI_get_component_index(comps[c].comp);
		if (cid < 0) {
			snprintf(why + used, whylen - used, "%sPAPI has no %s component",
				 used ? ", " : "", comps[c].comp);
			continue;
		}
		const PAPI_component_info_t *ci = PAPI_get_component_info(cid);
		if (ci && ci->disabled) {
			snprintf(why + used, whylen - used, "PAPI's %s component is disabled (%.200s)",
				 comps[c].comp, ci->disabled_reason);
			continue;
		}
		e->papi_set = PAPI_NULL;
		if (PAPI_create_eventset(&e->papi_set) != PAPI_OK)
			continue;
		char src[1024];
		snprintf(src, sizeof src, "papi:%s", comps[c].comp);
		size_t n = papi_add(e, cid, comps[c].prefixes, src, sizeof src);
		if (n && PAPI_start(e->papi_set) == PAPI_OK) {
			e->vals = sl_xcalloc(n, sizeof *e->vals);
			e->zones = sl_xcalloc(n, sizeof *e->zones);
			e->n_zones = n;
			e->unit_j = comps[c].unit;
			e->source = sl_xstrdup(src);
			return 0;
		}
		PAPI_cleanup_eventset(e->papi_set);
		PAPI_destroy_eventset(&e->papi_set);
		e->papi_set = PAPI_NULL;
		snprintf(why + strlen(why), whylen - strlen(why),
			 "%sPAPI's %s component has no readable energy zone",
			 strlen(why) ? ", " : "", comps[c].comp);
	}
	PAPI_shutdown();
	return -1;
}

/* sysfs: top-level zones intel-rapl:N (packages) and subzones named dram. */
static int open_sysfs(sl_energy *e, const char *root)
{
	DIR *d = opendir(root);
	if (!d)
		return -1;
	struct dirent *de;
	char src[1024];
	snprintf(src, sizeof src, "sysfs:%s", root);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "intel-rapl:", 11))
			continue;
		int sub = strchr(de->d_name + 11, ':') != NULL;
		char *dir = sl_xasprintf("%s/%s", root, de->d_name), name[64];
		read_name(dir, name, sizeof name);
		if (!sub || !strcmp(name, "dram")) {
			zone z = {sl_xasprintf("%s/energy_uj", dir), 0, 0};
			char *mp = sl_xasprintf("%s/max_energy_range_uj", dir);
			if (read_u64_file(mp, &z.range) < 0)
				z.range = 0;
			free(mp);
			if (read_u64_file(z.path, &z.last) == 0) {
				e->zones = sl_xreallocarray(e->zones, e->n_zones + 1, sizeof *e->zones);
				e->zones[e->n_zones++] = z;
				size_t used = strlen(src);
				snprintf(src + used, sizeof src - used, "%s%s(%s)",
					 e->n_zones > 1 ? "," : " ", de->d_name, name);
			} else {
				free(z.path);
			}
		}
		free(dir);
	}
	closedir(d);
	if (!e->n_zones)
		return -1;
	e->unit_j = 1e-6;
	e->source = sl_xstrdup(src);
	return 0;
}

sl_energy *sl_energy_open_at(const char *powercap_root, int use_papi)
{
	sl_energy *e = sl_xcalloc(1, sizeof *e);
	e->papi_set = PAPI_NULL;
	char why[1024] = "PAPI not tried";
	if (use_papi && open_papi(e, why, sizeof why) == 0)
		return e;
	if (open_sysfs(e, powercap_root) == 0)
		return e;
	sl_error_set("no RAPL energy counters: %s, and %s has no readable intel-rapl "
		     "zone; this machine (a VM?) does not expose energy — record power "
		     "externally and pass PROFILE:LOG.csv to calibrate",
		     why, powercap_root);
	sl_energy_close(e);
	return NULL;
}

sl_energy *sl_energy_open(void)
{
	return sl_energy_open_at("/sys/class/powercap", 1);
}

/* Counter difference modulo the zone's range (a read after a wrap). */
static uint64_t wrapped_delta(uint64_t now, uint64_t last, uint64_t range)
{
	if (now >= last)
		return now - last;
	return range ? range - last + now : now; /* unknown range: count from 0 */
}

int sl_energy_read(sl_energy *e, double *joules)
{
	if (e->papi_set != PAPI_NULL) {
		int r = PAPI_read(e->papi_set, e->vals);
		if (r != PAPI_OK) {
			sl_error_set("cannot read energy through PAPI: %s", PAPI_strerror(r));
			return -1;
		}
	}
	for (size_t i = 0; i < e->n_zones; i++) {
		zone *z = &e->zones[i];
		uint64_t now;
		if (e->papi_set != PAPI_NULL) {
			now = (uint64_t)e->vals[i];
		} else if (read_u64_file(z->path, &now) < 0) {
			sl_error_set("cannot read %s: %s", z->path, strerror(errno));
			return -1;
		}
		e->total_j += (double)wrapped_delta(now, z->last, z->range) * e->unit_j;
		z->last = now;
	}
	*joules = e->total_j;
	return 0;
}

const char *sl_energy_source(const sl_energy *e)
{
	return e->source;
}

void sl_energy_close(sl_energy *e)
{
	if (!e)
		return;
	if (e->papi_set != PAPI_NULL) {
		long long dummy[64];
		if (e->n_zones <= SL_ARRAY_LEN(dummy))
			PAPI_stop(e->papi_set, dummy);
		PAPI_cleanup_eventset(e->papi_set);
		PAPI_destroy_eventset(&e->papi_set);
		PAPI_shutdown();
	}
	for (size_t i = 0; i < e->n_zones; i++)
		free(e->zones[i].path);
	free(e->zones);
	free(e->vals);
	free(e->source);
	free(e);
}
