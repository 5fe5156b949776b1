/* Reference energy through the powercap files, on a fake sysfs tree: the
 * package and DRAM zones are summed (core is not: it is part of the
 * package; nor a laptop's psys zone, which contains the package), a
 * counter wrapping at max_energy_range_uj still gives the right difference
 * (the counter takes range + 1 values), root-only energy_uj is named for
 * what it is, PAPI's events are chosen by exact name, and a machine
 * without RAPL is one clear error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/rapl.h"
#include "fakesys.h"
#include "sleuth/collect.h"
#include "sleuth/common.h"

static char *zone(const char *root, const char *name, const char *kind,
		  const char *uj, const char *range)
{
	char *d = sl_xasprintf("%s/%s", root, name);
	assert_int_equal(mkdir(d, 0700), 0);
	fakesys_put(d, "name", kind);
	fakesys_put(d, "energy_uj", uj);
	fakesys_put(d, "max_energy_range_uj", range);
	return d;
}

static void test_sysfs_zones_and_wrap(void **state)
{
	(void)state;
	char root[] = "/tmp/sleuth-rapl.XXXXXX";
	assert_non_null(mkdtemp(root));
	char *pkg = zone(root, "intel-rapl:0", "package-0\n", "999000000\n", "1000000000\n");
	char *core = zone(root, "intel-rapl:0:0", "core\n", "5000\n", "1000000000\n");
	char *dram = zone(root, "intel-rapl:0:1", "dram\n", "100\n", "1000000000\n");
	char *uncore = zone(root, "intel-rapl:0:2", "uncore\n", "100\n", "1000000000\n");
	char *psys = zone(root, "intel-rapl:1", "psys\n", "7000000\n", "1000000000\n");
	sl_energy *e = sl_energy_open_at(root, 0);
	if (!e)
		fail_msg("%s", sl_error());
	assert_non_null(strstr(sl_energy_source(e), "intel-rapl:0(package-0)"));
	assert_non_null(strstr(sl_energy_source(e), "intel-rapl:0:1(dram)"));
	assert_null(strstr(sl_energy_source(e), "core"));
	assert_null(strstr(sl_energy_source(e), "psys"));
	double j;
	assert_int_equal(sl_energy_read(e, &j), 0);
	assert_true(fabs(j) < 1e-12);
	/* package: 999 J -> wraps after 1000 J (values 0..range: range + 1
	 * of them) -> 2 J: 3 J and 1 uJ used; dram +0.5 J; core, uncore and
	 * psys changes are not added */
	fakesys_put(pkg, "energy_uj", "2000000\n");
	fakesys_put(dram, "energy_uj", "500100\n");
	fakesys_put(core, "energy_uj", "90000000\n");
	fakesys_put(uncore, "energy_uj", "90000000\n");
	fakesys_put(psys, "energy_uj", "90000000\n");
	assert_int_equal(sl_energy_read(e, &j), 0);
	assert_true(fabs(j - 3.500001) < 1e-9);
	assert_int_equal(sl_energy_read(e, &j), 0);
	assert_true(fabs(j - 3.500001) < 1e-9);
	sl_energy_close(e);
	char *cmd = sl_xasprintf("rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(pkg);
	free(core);
	free(dram);
	free(uncore);
	free(psys);
}

/* energy_uj readable by root only (Linux 5.10 and later): said as such,
 * not "a VM". */
static void test_root_only(void **state)
{
	(void)state;
	if (geteuid() == 0)
		skip(); /* root reads it anyway */
	char root[] = "/tmp/sleuth-rapl.XXXXXX";
	assert_non_null(mkdtemp(root));
	char *pkg = zone(root, "intel-rapl:0", "package-0\n", "5\n", "1000000000\n");
	char *f = sl_xasprintf("%s/energy_uj", pkg);
	assert_int_equal(chmod(f, 0200), 0);
	assert_null(sl_energy_open_at(root, 0));
	assert_non_null(strstr(sl_error(), "RAPL energy is readable by root only"));
	assert_non_null(strstr(sl_error(), "sudo chmod a+r"));
	assert_null(strstr(sl_error(), "VM"));
	char *cmd = sl_xasprintf("rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(f);
	free(pkg);
}

/* PAPI events by exact name: a package's energy and its DRAM subzone's,
 * never core/uncore subzones, psys, the raw _CNT events or the ranges. */
static void test_papi_names(void **state)
{
	(void)state;
	assert_true(sl_rapl_papi_wanted("powercap", "powercap:::ENERGY_UJ:ZONE0", "package-0"));
	assert_true(sl_rapl_papi_wanted("powercap", "powercap:::ENERGY_UJ:ZONE1", "package-1"));
	assert_false(sl_rapl_papi_wanted("powercap", "powercap:::ENERGY_UJ:ZONE1", "psys"));
	assert_true(sl_rapl_papi_wanted("powercap", "powercap:::ENERGY_UJ:ZONE0_SUBZONE1", "dram"));
	assert_false(sl_rapl_papi_wanted("powercap", "powercap:::ENERGY_UJ:ZONE0_SUBZONE0", "core"));
	assert_false(sl_rapl_papi_wanted("powercap", "powercap:::ENERGY_UJ:ZONE0_SUBZONE2", "uncore"));
	assert_false(sl_rapl_papi_wanted("powercap", "powercap:::MAX_ENERGY_RANGE_UJ:ZONE0",
					 "package-0"));
	assert_false(sl_rapl_papi_wanted("powercap", "powercap:::ENERGY_UJ:ZONE0", NULL));
	assert_true(sl_rapl_papi_wanted("rapl", "rapl:::PACKAGE_ENERGY:PACKAGE0", NULL));
	assert_true(sl_rapl_papi_wanted("rapl", "rapl:::DRAM_ENERGY:PACKAGE1", NULL));
	assert_false(sl_rapl_papi_wanted("rapl", "rapl:::PACKAGE_ENERGY_CNT:PACKAGE0", NULL));
	assert_false(sl_rapl_papi_wanted("rapl", "rapl:::PP0_ENERGY:PACKAGE0", NULL));
	assert_false(sl_rapl_papi_wanted("rapl", "rapl:::PSYS_ENERGY:PACKAGE0", NULL));
}

static void test_no_rapl(void **state)
{
	(void)state;
	assert_null(sl_energy_open_at("/nonexistent/powercap", 0));
	assert_non_null(strstr(sl_error(), "no RAPL energy counters"));
	assert_non_null(strstr(sl_error(), "/nonexistent/powercap has no readable "
					   "intel-rapl zone"));
	/* With PAPI tried too, its reason is named (here: no such component,
	 * or disabled, unless this machine has RAPL). */
	sl_energy *e = sl_energy_open_at("/nonexistent/powercap", 1);
	if (e) {
		sl_energy_close(e);
		skip();
	}
	assert_non_null(strstr(sl_error(), "PAPI"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysfs_zones_and_wrap),
		cmocka_unit_test(test_no_rapl),
		cmocka_unit_test(test_root_only),
		cmocka_unit_test(test_papi_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
