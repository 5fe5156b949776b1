/* The perf backend on the fake PMU (SLEUTH_FAKE_PMU=skl, set by meson),
 * driven directly: an event switched on after an interval's boundary read
 * (the collector decides, then programs) is counted over the whole next
 * interval, not from the late enable on. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sleuth/collect.h"
#include "sleuth/common.h"
#include "sleuth/profile.h"

static void test_late_enable_counted(void **state)
{
	(void)state;
	const char *b = getenv("BUILDDIR");
	char *prog = sl_xasprintf("%s/tests/progs/spin", b ? b : "build");
	char *argv[] = {prog, "0.3", NULL};
	const char *events[] = {"LONGEST_LAT_CACHE:MISS", "RESOURCE_STALLS:ANY"};
	sl_live_opts o = {0};
	o.argv = argv;
	o.events = events;
	o.n_events = 2;
	sl_backend *be = sl_perf_backend_new(&o);
	if (!be)
		fail_msg("perf backend on the fake PMU: %s", sl_error());
	size_t a = 0, bb = 1;
	assert_int_equal(be->program(be, &a, 1), 0);
	sl_obs ob;
	assert_int_equal(be->next(be, &ob), 1);
	/* a slow collector: the target runs on before B is switched on */
	usleep(5000);
	assert_int_equal(be->program(be, &bb, 1), 0);
	assert_int_equal(be->next(be, &ob), 1);
	assert_true(ob.counts[1] != SL_MISSING);
	double late = (double)ob.counts[1] / (double)ob.instructions;
	assert_int_equal(be->program(be, &bb, 1), 0);
	assert_int_equal(be->next(be, &ob), 1);
	double full = (double)ob.counts[1] / (double)ob.instructions;
	print_message("B per instruction: %.6f after a late enable, %.6f on all along\n",
		      late, full);
	/* the synthetic program's first phase has one rate per event */
	assert_true(late > 0.98 * full && late < 1.02 * full);
	while (be->next(be, &ob) == 1)
		;
	assert_int_equal(be->finish(be), 0);
	be->destroy(be);
	free(prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_late_enable_counted),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	sl_pfm_terminate();
	return r;
}
