/*
 * Reference energy from the machine itself (RAPL), so a profile can carry
 * measured energy per interval for `sleuth calibrate`.  PAPI's powercap
 * component is preferred (then its rapl component, which reads the MSRs);
 * without either, the powercap files in sysfs are read directly.  Package
 * zones and their DRAM subzones are summed, nothing else: core and uncore
 * subzones are part of the package, and a laptop's top-level "psys" zone
 * (the whole platform) contains it, so adding them counts twice.  PAPI
 * events are matched by exact name (powercap: ENERGY_UJ:ZONEn whose zone
 * is named package-*, ENERGY_UJ:ZONEn_SUBZONEm named dram; rapl:
 * PACKAGE_ENERGY:PACKAGEn, DRAM_ENERGY:PACKAGEn).  Counters run from 0 to
 * max_energy_range_uj inclusive and then wrap; each read adds the wrapped
 * difference to a running total, so reads must come more often than one
 * wrap (minutes, even on big servers).
 */
#include <dirent.h>
#include <errno.h>
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rapl.h"
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

/* s is "<digits>" and nothing more, or "<digits>_SUBZONE<digits>" when
 * sub; 1 if so. */
static int zone_index(const char *s, int sub)
{
	size_t n = strspn(s, "0123456789");
	if (!n)
		return 0;
	if (!sub)
		return s[n] == 0;
	if (strncmp(s + n, "_SUBZONE", 8))
		return 0;
	s += n + 8;
	n = strspn(s, "0123456789");
	return n && s[n] == 0;
}

int sl_rapl_papi_wanted(const char *comp, const char *event, const char *zone_name)
{
	const char *colons = strstr(event, ":::");
	if (colons)
		event = colons + 3; /* "powercap:::ENERGY_UJ:ZONE0" */
	if (!strcmp(comp, "rapl")) {
		static const char *const pre[] = {"PACKAGE_ENERGY:PACKAGE", "DRAM_ENERGY:PACKAGE"};
		for (size_t i = 0; i < SL_ARRAY_LEN(pre); i++)
			if (!strncmp(event, pre[i], strlen(pre[i])) &&
			    zone_index(event + strlen(pre[i]), 0))
				return 1;
		return 0;
	}
	if (strncmp(event, "ENERGY_UJ:ZONE", 14) || !zone_name)
		return 0;
	const char *z = event + 14;
	if (zone_index(z, 0))
		return !strncmp(zone_name, "package", 7);
	return zone_index(z, 1) && !strncmp(zone_name, "dram", 4);
}

/* The name of the powercap zone of ENERGY_UJ event `name`: the long
 * description of its NAME:... event ("package-0", "dram"); NULL if none. */
static const char *papi_zone_name(const char *name, char *buf, size_t len)
{
	const char *z = strstr(name, "ENERGY_UJ:");
	if (!z)
		return NULL;
	char *ev = sl_xasprintf("%.*sNAME:%s", (int)(z - name), name, z + 10);
	int code;
	PAPI_event_info_t info;
	int ok = PAPI_event_name_to_code(ev, &code) == PAPI_OK &&
		 PAPI_get_event_info(code, &info) == PAPI_OK;
	free(ev);
	if (!ok)
		return NULL;
	size_t n = strnlen(info.long_descr, sizeof info.long_descr);
	n = SL_MIN(n, len - 1);
	memcpy(buf, info.long_descr, n);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

/* Add the package and DRAM energy events of one PAPI component; returns
 * how many were added. */
static size_t papi_add(sl_energy *e, int cid, const char *comp, char *src, size_t srclen)
{
	int code = PAPI_NATIVE_MASK, r = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cid);
	size_t n = 0;
	for (; r == PAPI_OK; r = PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cid)) {
		char name[PAPI_MAX_STR_LEN], zname[PAPI_MAX_STR_LEN];
		if (PAPI_event_code_to_name(code, name) != PAPI_OK)
			continue;
		const char *zn = strcmp(comp, "rapl") ? papi_zone_name(name, zname, sizeof zname)
						      : NULL;
		if (sl_rapl_papi_wanted(comp, name, zn) &&
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
	} comps[] = {{"powercap", 1e-6}, {"rapl", 1e-9}};
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
		size_t n = papi_add(e, cid, comps[c].comp, src, sizeof src);
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

/* sysfs: top-level zones intel-rapl:N named package-* (not psys) and
 * their subzones named dram.  *denied: a zone exists but its energy_uj is
 * not readable (root only since Linux 5.10). */
static int open_sysfs(sl_energy *e, const char *root, int *denied)
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
		if (sub ? !strcmp(name, "dram") : !strncmp(name, "package", 7)) {
			zone z = {sl_xasprintf("%s/energy_uj", dir), 0, 0};
			char *mp = sl_xasprintf("%s/max_energy_range_uj", dir);
			if (read_u64_file(mp, &z.range) < 0)
				z.range = 0;
			free(mp);
			errno = 0;
			if (read_u64_file(z.path, &z.last) == 0) {
				e->zones = sl_xreallocarray(e->zones, e->n_zones + 1, sizeof *e->zones);
				e->zones[e->n_zones++] = z;
				size_t used = strlen(src);
				snprintf(src + used, sizeof src - used, "%s%s(%s)",
					 e->n_zones > 1 ? "," : " ", de->d_name, name);
			} else {
				*denied |= errno == EACCES || errno == EPERM;
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
	int denied = 0;
	if (open_sysfs(e, powercap_root, &denied) == 0)
		return e;
	if (denied)
		sl_error_set("RAPL energy is readable by root only (%s/intel-rapl:*/"
			     "energy_uj, Linux 5.10 and later): run 'sudo chmod a+r "
			     "%s/intel-rapl:*/energy_uj %s/intel-rapl:*:*/energy_uj' or "
			     "record as root; %s", powercap_root, powercap_root,
			     powercap_root, why);
	else
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

/* Counter difference modulo the zone's range (a read after a wrap): the
 * counter takes every value 0..range, so a wrap spans range + 1. */
static uint64_t wrapped_delta(uint64_t now, uint64_t last, uint64_t range)
{
	if (now >= last)
		return now - last;
	return range ? range - last + 1 + now : now; /* unknown range: count from 0 */
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
