/* Reference energy through the powercap files, on a fake sysfs tree: the
 * package and DRAM zones are summed (core is not: it is part of the
 * package), a counter wrapping at max_energy_range_uj still gives the
 * right difference, and a machine without RAPL is one clear error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sleuth/collect.h"
#include "sleuth/common.h"

static void put(const char *dir, const char *file, const char *text)
{
	char *p = sl_xasprintf("%s/%s", dir, file);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

static char *zone(const char *root, const char *name, const char *kind,
		  const char *uj, const char *range)
{
	char *d = sl_xasprintf("%s/%s", root, name);
	assert_int_equal(mkdir(d, 0700), 0);
	put(d, "name", kind);
	put(d, "energy_uj", uj);
	put(d, "max_energy_range_uj", range);
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
	sl_energy *e = sl_energy_open_at(root, 0);
	if (!e)
		fail_msg("%s", sl_error());
	assert_non_null(strstr(sl_energy_source(e), "intel-rapl:0(package-0)"));
	assert_non_null(strstr(sl_energy_source(e), "intel-rapl:0:1(dram)"));
	assert_null(strstr(sl_energy_source(e), "core"));
	double j;
	assert_int_equal(sl_energy_read(e, &j), 0);
	assert_true(fabs(j) < 1e-12);
	/* package: 999 J -> wraps at 1000 J -> 2 J (3 J used); dram +0.5 J;
	 * core changes are not added */
	put(pkg, "energy_uj", "2000000\n");
	put(dram, "energy_uj", "500100\n");
	put(core, "energy_uj", "90000000\n");
	assert_int_equal(sl_energy_read(e, &j), 0);
	assert_true(fabs(j - 3.5) < 1e-9);
	assert_int_equal(sl_energy_read(e, &j), 0);
	assert_true(fabs(j - 3.5) < 1e-9);
	sl_energy_close(e);
	char *cmd = sl_xasprintf("rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(pkg);
	free(core);
	free(dram);
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
