/* Unit tests of the per-phase address histogram and its resolution to top
 * functions and lines: counts survive rehashing, groups sum their
 * addresses, shares are of all samples, unresolved addresses are named by
 * their address, and only `top` are kept. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/locations.h"

static void test_histogram(void **state)
{
	(void)state;
	sl_addrhist h = {0};
	for (uint64_t a = 0; a < 5000; a++)
		sl_addrhist_add(&h, 0x400000 + 4 * a, a % 7 + 1);
	sl_addrhist_add(&h, 0x400000, 10);
	sl_addrhist_add(&h, 0x999, 0); /* nothing */
	assert_int_equal(h.used, 5000);
	uint64_t total = 0, first = 0;
	for (size_t i = 0; i < h.cap; i++) {
		total += h.count[i];
		if (h.count[i] && h.addr[i] == 0x400000)
			first = h.count[i];
	}
	assert_int_equal(total, h.total);
	assert_int_equal(first, 11);
	assert_int_equal(sl_addrhist_get(&h, 0x400000), 11);
	assert_int_equal(sl_addrhist_get(&h, 0x400000 + 4 * 4999), 4999 % 7 + 1);
	assert_int_equal(sl_addrhist_get(&h, 0x999), 0);
	assert_int_equal(sl_addrhist_get(&h, 0x400002), 0);
	sl_addrhist_free(&h);
	assert_int_equal(sl_addrhist_get(&h, 0x400000), 0);
	assert_null(h.addr);
}

/* 0x1000..0x10ff: "hot" in hot.c, line = (addr & 0xf); 0x2000..: "cold"
 * without lines; others unknown. */
static int fake(void *ctx, uint64_t addr, const char **func, const char **file,
		int *line)
{
	(*(int *)ctx)++;
	if (addr >= 0x1000 && addr < 0x1100) {
		*func = "hot";
		*file = "src/hot.c";
		*line = (int)(addr & 0xf);
		return 0;
	}
	if (addr >= 0x2000 && addr < 0x2100) {
		*func = "cold";
		*file = NULL;
		*line = 0;
		return 0;
	}
	return -1;
}

static void test_resolve(void **state)
{
	(void)state;
	sl_addrhist h = {0};
	sl_addrhist_add(&h, 0x1001, 30); /* hot.c:1 */
	sl_addrhist_add(&h, 0x1011, 20); /* hot.c:1 as well */
	sl_addrhist_add(&h, 0x1002, 10); /* hot.c:2 */
	sl_addrhist_add(&h, 0x2000, 25);
	sl_addrhist_add(&h, 0x3000, 10);
	sl_addrhist_add(&h, 0x3004, 5);
	int calls = 0;
	sl_phase_info ph = {0};
	sl_locations_resolve(&h, 3, fake, &calls, &ph);
	assert_int_equal(calls, 6);
	assert_int_equal(ph.n_funcs, 3);
	assert_string_equal(ph.funcs[0].function, "hot");
	assert_true(ph.funcs[0].share == 60.0 / 100);
	assert_int_equal(ph.funcs[0].addr, 0x1001);   /* its most sampled */
	assert_string_equal(ph.funcs[0].file, "src/hot.c");
	assert_int_equal(ph.funcs[0].line, 0);
	assert_string_equal(ph.funcs[1].function, "cold");
	assert_null(ph.funcs[1].file);
	assert_string_equal(ph.funcs[2].function, "0x3000"); /* by address */
	assert_true(ph.funcs[2].share == 10.0 / 100);
	assert_int_equal(ph.n_lines, 2);
	assert_int_equal(ph.lines[0].line, 1);
	assert_true(ph.lines[0].share == 50.0 / 100);
	assert_int_equal(ph.lines[1].line, 2);
	for (size_t i = 0; i < ph.n_funcs; i++) {
		free(ph.funcs[i].function);
		free(ph.funcs[i].file);
	}
	for (size_t i = 0; i < ph.n_lines; i++) {
		free(ph.lines[i].function);
		free(ph.lines[i].file);
	}
	free(ph.funcs);
	free(ph.lines);

	/* no resolver (replay): every address its own "function", no lines */
	sl_phase_info r = {0};
	sl_locations_resolve(&h, 10, NULL, NULL, &r);
	assert_int_equal(r.n_funcs, 6);
	assert_int_equal(r.n_lines, 0);
	assert_string_equal(r.funcs[0].function, "0x1001");
	assert_string_equal(r.funcs[5].function, "0x3004");
	for (size_t i = 0; i < r.n_funcs; i++)
		free(r.funcs[i].function);
	free(r.funcs);
	free(r.lines);
	sl_addrhist_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_resolve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
