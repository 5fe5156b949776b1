/*
 * P-states and voltages as Linux exposes them under sysfs.  The root is a
 * parameter so that tests (and users preparing a model for another box)
 * can point it at a copy of /sys.
 *
 * acpi-cpufreq and most Arm drivers list scaling_available_frequencies;
 * intel_pstate and amd-pstate do not (the hardware picks the frequency
 * within a range), so their P-states are the range's ends and its base
 * (nominal) frequency.  Voltages are exposed by few platforms: the OPP
 * tables of Arm SoCs in debugfs (kernel/debug/opp/cpu0/opp:HZ/...), root
 * only.  Elsewhere none is given and the machine file carries none.
 */
#include "sleuth/hw.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"

#define CPUFREQ "devices/system/cpu/cpu0/cpufreq"

char *sl_sysfs_line(const char *root, const char *rel)
{
	char *p = sl_xasprintf("%s/%s", root, rel);
	FILE *f = fopen(p, "r");
	free(p);
	if (!f)
		return NULL;
	char buf[4096];
	char *s = fgets(buf, sizeof buf, f) ? sl_xstrdup(buf) : NULL;
	fclose(f);
	if (s)
		s[strcspn(s, "\n")] = 0;
	return s;
}

/* A kHz value from ROOT/CPUFREQ/NAME, in GHz; 0 if absent or not a number. */
static double khz_file(const char *root, const char *name)
{
	char *rel = sl_xasprintf(CPUFREQ "/%s", name);
	char *s = sl_sysfs_line(root, rel);
	free(rel);
	uint64_t khz = 0;
	if (s && sl_parse_u64(s, &khz) < 0)
		khz = 0;
	free(s);
	return (double)khz / 1e6;
}

static void add_ghz(sl_cpufreq *cf, size_t *cap, double ghz)
{
	if (!(ghz > 0))
		return;
	for (size_t i = 0; i < cf->n; i++)
		if (fabs(cf->ghz[i] - ghz) < 0.0005)
			return;
	if (cf->n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		cf->ghz = sl_xreallocarray(cf->ghz, *cap, sizeof *cf->ghz);
	}
	cf->ghz[cf->n++] = ghz;
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

/* Microvolts of the OPP at `hz` in ROOT/kernel/debug/opp/cpu0, or 0. */
static double opp_volts(const char *root, double ghz)
{
	static const char *const files[] = {"supply-0/u_volt_target", "u_volt_target"};
	long long hz = llround(ghz * 1e9);
	for (size_t i = 0; i < SL_ARRAY_LEN(files); i++) {
		char *rel = sl_xasprintf("kernel/debug/opp/cpu0/opp:%lld/%s", hz, files[i]);
		char *s = sl_sysfs_line(root, rel);
		free(rel);
		uint64_t uv;
		int ok = s && sl_parse_u64(s, &uv) == 0 && uv > 0;
		free(s);
		if (ok)
			return (double)uv / 1e6;
	}
	return 0;
}

int sl_cpufreq_read(const char *root, sl_cpufreq *cf)
{
	memset(cf, 0, sizeof *cf);
	if (!root)
		root = "/sys";
	cf->driver = sl_sysfs_line(root, CPUFREQ "/scaling_driver");
	cf->governor = sl_sysfs_line(root, CPUFREQ "/scaling_governor");
	size_t cap = 0;
	char *list = sl_sysfs_line(root, CPUFREQ "/scaling_available_frequencies");
	if (list) {
		char *save = NULL;
		for (char *t = strtok_r(list, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
			uint64_t khz;
			if (sl_parse_u64(t, &khz) < 0) {
				sl_error_set("%s/" CPUFREQ "/scaling_available_frequencies: '%s' "
					     "is not a frequency in kHz", root, t);
				free(list);
				sl_cpufreq_free(cf);
				return -1;
			}
			add_ghz(cf, &cap, (double)khz / 1e6);
		}
		free(list);
		cf->how = "scaling_available_frequencies";
	}
	if (!cf->n) {
		/* intel_pstate / amd-pstate: the range and its nominal point */
		add_ghz(cf, &cap, khz_file(root, "cpuinfo_max_freq"));
		add_ghz(cf, &cap, khz_file(root, "base_frequency"));
		add_ghz(cf, &cap, khz_file(root, "amd_pstate_nominal_freq"));
		add_ghz(cf, &cap, khz_file(root, "cpuinfo_min_freq"));
		cf->how = "cpuinfo_min_freq, cpuinfo_max_freq and the base frequency";
	}
	if (!cf->n) {
		sl_error_set("%s/" CPUFREQ " lists no frequency (no cpufreq driver: a VM, "
			     "or the driver is not loaded); load one, or write the "
			     "P-states into the machine file by hand", root);
		sl_cpufreq_free(cf);
		return -1;
	}
	qsort(cf->ghz, cf->n, sizeof *cf->ghz, cmp_desc);
	cf->volts = sl_xcalloc(cf->n, sizeof *cf->volts);
	size_t with = 0;
	for (size_t i = 0; i < cf->n; i++)
		with += (cf->volts[i] = opp_volts(root, cf->ghz[i])) > 0;
	if (with < cf->n) { /* all or none: a partial table is not a model */
		free(cf->volts);
		cf->volts = NULL;
	}
	return 0;
}

void sl_cpufreq_free(sl_cpufreq *cf)
{
	free(cf->driver);
	free(cf->governor);
	free(cf->ghz);
	free(cf->volts);
	memset(cf, 0, sizeof *cf);
}
