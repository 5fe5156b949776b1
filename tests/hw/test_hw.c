/* Unit tests of hw/: the event map reader (the shipped map, and every
 * rejection naming file, line and key), cpufreq and OPP reading, hwmon,
 * the cpufreq controller's save/set/restore, and the pointer chase. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sleuth/collect.h"
#include "sleuth/common.h"
#include "sleuth/hw.h"

static char dir[] = "/tmp/sleuth-hw-test.XXXXXX";

static void put(const char *rel, const char *text)
{
	char *p = sl_xasprintf("%s/%s", dir, rel);
	/* make the parent directories */
	for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		mkdir(p, 0777);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

static char *get(const char *rel)
{
	return sl_sysfs_line(dir, rel);
}

static void test_shipped_map(void **state)
{
	(void)state;
	sl_pmumap map;
	assert_int_equal(sl_pmumap_load(NULL, &map), 0);
	assert_true(map.n >= 10);
	for (size_t i = 0; i < map.n; i++) {
		assert_true(map.e[i].counters > 0);
		assert_non_null(map.e[i].branch_sample);
		assert_true(map.e[i].n_roles >= 2);
		assert_true(map.e[i].n_power >= 1);
	}
	const sl_pmu_entry *e = sl_pmumap_find(&map, "skx");
	assert_non_null(e);
	assert_string_equal(e->family, "skylake");
	/* the whole memory controller: every channel, summed */
	assert_int_equal(e->n_dram_reads, 1);
	assert_string_equal(e->dram_reads[0], "skx_unc_imc::UNC_M_CAS_COUNT:RD");
	assert_int_equal(e->precise, 2);
	e = sl_pmumap_find(&map, "amd64_fam19h_zen4");
	assert_non_null(e);
	assert_int_equal(e->precise, 0);
	assert_null(sl_pmumap_find(&map, "nosuch"));
	assert_non_null(strstr(sl_error(), "no event map for PMU nosuch (it knows: nhm"));
	sl_pmumap_free(&map);
}

#define ENTRY "  - pmus: [x1]\n    family: f\n    counters: 4\n" \
	      "    branch_sample: B\n    precise: 0\n" \
	      "    events: {stall_cycles: S, llc_misses: L}\n" \
	      "    prefetch: []\n    power: [P]\n"

static void test_map_rejections(void **state)
{
	(void)state;
	static const struct {
		const char *text, *error;
	} bad[] = {
		{"format: sleuth-pmus/2\npmus: []\n", "m.yaml:1: key 'format': 'sleuth-pmus/2' is not"},
		{"format: sleuth-pmus/1\n", "key 'pmus': missing required key"},
		{"format: sleuth-pmus/1\npmus: {}\n", "m.yaml:2: key 'pmus': expected a sequence"},
		{"format: sleuth-pmus/1\npmus:\n  - pmus: []\n", "m.yaml:3: key 'pmus': name at least one"},
		{"format: sleuth-pmus/1\npmus:\n" ENTRY ENTRY, "m.yaml:11: key 'pmus': x1 is listed twice"},
		{"format: sleuth-pmus/1\npmus:\n  - pmus: [x]\n    family: f\n    counters: 99\n",
		 "m.yaml:5: key 'counters': must be between 1 and 64"},
		{"format: sleuth-pmus/1\npmus:\n  - pmus: [x]\n    family: f\n    counters: 4\n"
		 "    branch_sample: B\n    precise: 7\n", "m.yaml:7: key 'precise': must be 0 to 3"},
		{"format: sleuth-pmus/1\npmus:\n  - pmus: [x]\n    family: f\n    counters: 4\n"
		 "    branch_sample: B\n    precise: 0\n    events: {speed: X}\n",
		 "m.yaml:8: key 'speed': not a model role"},
		{"format: sleuth-pmus/1\npmus:\n  - pmus: [x]\n    family: f\n    counters: 4\n"
		 "    branch_sample: B\n    precise: 0\n    events: {branch_sample: X}\n",
		 "key 'branch_sample': not a model role"},
		{"format: sleuth-pmus/1\npmus:\n  - pmus: [x]\n    family: f\n    counters: 4\n"
		 "    branch_sample: B\n    precise: 0\n    events: {}\n    prefetch: []\n"
		 "    power: [[A]]\n", "m.yaml:10: key 'power': expected a scalar"},
		{"format: sleuth-pmus/1\npmus:\n  - [x]\n", "m.yaml:3: key 'pmus': expected a mapping"},
		{"format: sleuth-pmus/1\npmus:\n" ENTRY "    dram_reads:\n      - a_unc::R\n"
		 "      - UNC_M_CAS_COUNT:RD\n",
		 "m.yaml:13: key 'dram_reads': 'UNC_M_CAS_COUNT:RD' is not an uncore event: "
		 "write PMU::EVENT"},
		{"format: sleuth-pmus/1\npmus:\n" ENTRY "    dram_reads: ['a_unc::']\n",
		 "key 'dram_reads': 'a_unc::' is not an uncore event"},
		{"format: sleuth-pmus/1\npmus:\n" ENTRY "    dram_reads: a_unc::R\n",
		 "m.yaml:11: key 'dram_reads': expected a sequence"},
	};
	char *path = sl_xasprintf("%s/m.yaml", dir);
	for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
		put("m.yaml", bad[i].text);
		sl_pmumap map;
		int rc = sl_pmumap_load(path, &map);
		if (rc != -1 || !strstr(sl_error(), bad[i].error))
			fail_msg("case %zu: got %d, error '%s', wanted '%s'", i, rc, sl_error(),
				 bad[i].error);
		assert_null(map.e);
	}
	put("m.yaml", "format: sleuth-pmus/1\npmus:\n" ENTRY);
	sl_pmumap map;
	assert_int_equal(sl_pmumap_load(path, &map), 0);
	assert_int_equal(map.n, 1);
	assert_int_equal(map.e[0].n_roles, 2);
	assert_int_equal(map.e[0].n_dram_reads, 0); /* optional */
	sl_pmumap_free(&map);
	/* dram_reads: candidate uncore events, in order */
	put("m.yaml", "format: sleuth-pmus/1\npmus:\n" ENTRY
		      "    dram_reads: [skx_unc_imc::UNC_M_CAS_COUNT:RD, nhm_unc::X]\n");
	assert_int_equal(sl_pmumap_load(path, &map), 0);
	assert_int_equal(map.e[0].n_dram_reads, 2);
	assert_string_equal(map.e[0].dram_reads[0], "skx_unc_imc::UNC_M_CAS_COUNT:RD");
	assert_string_equal(map.e[0].dram_reads[1], "nhm_unc::X");
	sl_pmumap_free(&map);
	/* from memory: the same reader */
	static const char text[] = "format: sleuth-pmus/1\npmus:\n" ENTRY;
	assert_int_equal(sl_pmumap_load_mem("mem.yaml", text, strlen(text), &map), 0);
	assert_non_null(sl_pmumap_find(&map, "x1"));
	sl_pmumap_free(&map);
	assert_int_equal(sl_pmumap_load_mem("mem.yaml", "pmus: [", 7, &map), -1);
	assert_non_null(strstr(sl_error(), "mem.yaml"));
	free(path);
}

#define CF "devices/system/cpu/cpu0/cpufreq/"

static void test_cpufreq(void **state)
{
	(void)state;
	sl_cpufreq cf;
	/* no cpufreq at all */
	assert_int_equal(sl_cpufreq_read(dir, &cf), -1);
	assert_non_null(strstr(sl_error(), "lists no frequency"));
	/* intel_pstate: max, base, min, descending */
	put(CF "scaling_driver", "intel_pstate\n");
	put(CF "cpuinfo_min_freq", "400000\n");
	put(CF "cpuinfo_max_freq", "4700000\n");
	put(CF "base_frequency", "2100000\n");
	assert_int_equal(sl_cpufreq_read(dir, &cf), 0);
	assert_int_equal(cf.n, 3);
	assert_true(fabs(cf.ghz[0] - 4.7) < 1e-9 && fabs(cf.ghz[1] - 2.1) < 1e-9 &&
		    fabs(cf.ghz[2] - 0.4) < 1e-9);
	assert_null(cf.volts);
	assert_string_equal(cf.driver, "intel_pstate");
	sl_cpufreq_free(&cf);
	/* a list wins; duplicates merge; OPP voltages all or nothing */
	put(CF "scaling_available_frequencies", "1000000 2000000 2000000 1500000 \n");
	put("kernel/debug/opp/cpu0/opp:1000000000/supply-0/u_volt_target", "900000\n");
	put("kernel/debug/opp/cpu0/opp:1500000000/u_volt_target", "1000000\n");
	assert_int_equal(sl_cpufreq_read(dir, &cf), 0);
	assert_int_equal(cf.n, 3);
	assert_null(cf.volts); /* 2 GHz has none */
	sl_cpufreq_free(&cf);
	put("kernel/debug/opp/cpu0/opp:2000000000/supply-0/u_volt_target", "1100000\n");
	assert_int_equal(sl_cpufreq_read(dir, &cf), 0);
	assert_non_null(cf.volts);
	assert_true(fabs(cf.volts[0] - 1.1) < 1e-9 && fabs(cf.volts[2] - 0.9) < 1e-9);
	sl_cpufreq_free(&cf);
	put(CF "scaling_available_frequencies", "1000000 -5\n");
	assert_int_equal(sl_cpufreq_read(dir, &cf), -1);
	assert_non_null(strstr(sl_error(), "'-5' is not a frequency in kHz"));
}

static void test_hwmon(void **state)
{
	(void)state;
	char *sensor = NULL;
	assert_true(isnan(sl_hwmon_temp_c(dir, &sensor)));
	put("class/hwmon/hwmon0/name", "nvme\n");
	put("class/hwmon/hwmon0/temp1_input", "30000\n");
	assert_true(isnan(sl_hwmon_temp_c(dir, NULL)));
	put("class/hwmon/hwmon1/name", "k10temp\n");
	put("class/hwmon/hwmon1/temp1_input", "61250\n");
	assert_true(fabs(sl_hwmon_temp_c(dir, &sensor) - 61.25) < 1e-9);
	assert_string_equal(sensor, "k10temp");
	free(sensor);
}

static void test_ctl(void **state)
{
	(void)state;
	static const char *const cpus[] = {"cpu0", "cpu1"};
	for (size_t i = 0; i < 2; i++) {
		char *d = sl_xasprintf("devices/system/cpu/%s/cpufreq/", cpus[i]);
		char *p;
		put(p = sl_xasprintf("%sscaling_governor", d), "schedutil\n"), free(p);
		put(p = sl_xasprintf("%sscaling_min_freq", d), "800000\n"), free(p);
		put(p = sl_xasprintf("%sscaling_max_freq", d), "3400000\n"), free(p);
		put(p = sl_xasprintf("%sscaling_available_governors", d), "schedutil performance\n"),
			free(p);
		free(d);
	}
	sl_cpufreq_ctl c;
	assert_int_equal(sl_cpufreq_ctl_open(&c, dir), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.userspace, 0);
	assert_int_equal(sl_cpufreq_ctl_set(&c, 2.2), 0);
	char *v = get("devices/system/cpu/cpu1/cpufreq/scaling_min_freq");
	assert_string_equal(v, "2200000");
	free(v);
	assert_true(fabs(sl_cpufreq_ctl_current(&c) - 2.2) < 1e-9);
	/* a second sweep in the same process is refused while one runs */
	sl_cpufreq_ctl c2;
	assert_int_equal(sl_cpufreq_ctl_open(&c2, dir), -1);
	sl_cpufreq_ctl_restore(&c);
	v = get("devices/system/cpu/cpu1/cpufreq/scaling_min_freq");
	assert_string_equal(v, "800000");
	free(v);
	v = get("devices/system/cpu/cpu0/cpufreq/scaling_governor");
	assert_string_equal(v, "schedutil");
	free(v);
}

static void test_chase(void **state)
{
	(void)state;
	assert_true(sl_chase_latency_ns(4096, 0) < 0);
	assert_non_null(strstr(sl_error(), "give at least"));
	double ns = sl_chase_latency_ns(1 << 20, 0);
	assert_true(ns > 0.05 && ns < 10000);
	assert_true(sl_chase_default_bytes("/nonexistent") == (size_t)64 << 20);
}

/* PAPI (behind sl_energy_open) stops the libpfm4 it shares with sleuth;
 * sleuth's PMU queries must survive that (the sweep opens RAPL before the
 * perf backend encodes its events). */
static void test_pfm_after_papi(void **state)
{
	(void)state;
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	sl_pfm_terminate();
	const char *pmu, *desc;
	assert_int_equal(sl_pfm_host_pmu(&pmu, &desc), 0);
	sl_energy *e = sl_energy_open();
	if (e)
		sl_energy_close(e);
	assert_int_equal(sl_pfm_host_pmu(&pmu, &desc), 0);
	assert_string_equal(pmu, "skl");
	sl_pfm_terminate();
	unsetenv("LIBPFM_FORCE_PMU");
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_map),
		cmocka_unit_test(test_map_rejections),
		cmocka_unit_test(test_cpufreq),
		cmocka_unit_test(test_hwmon),
		cmocka_unit_test(test_ctl),
		cmocka_unit_test(test_chase),
		cmocka_unit_test(test_pfm_after_papi),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char *cmd = sl_xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		rc = 1;
	free(cmd);
	return rc;
}
