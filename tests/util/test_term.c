/* Unit tests of the terminal helpers: the colour decision, the phase strip
 * (dominant phase per column, weights, colour codes) and the progress
 * line (silent when inactive or short, erased at the end). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "util/term.h"

static void test_colour(void **state)
{
	(void)state;
	assert_int_equal(sl_term_colour_wanted(1, NULL, "xterm"), 1);
	assert_int_equal(sl_term_colour_wanted(1, "", "xterm"), 1);
	assert_int_equal(sl_term_colour_wanted(1, "1", "xterm"), 0);
	assert_int_equal(sl_term_colour_wanted(0, NULL, "xterm"), 0);
	assert_int_equal(sl_term_colour_wanted(1, NULL, "dumb"), 0);
	assert_int_equal(sl_term_colour_wanted(1, NULL, NULL), 1);
}

/* s without its escape sequences */
static void plain(char *out, const char *s)
{
	while (*s) {
		if (*s == '\033') {
			while (*s && *s != 'm')
				s++;
			if (*s)
				s++;
			continue;
		}
		*out++ = *s++;
	}
	*out = 0;
}

static void test_strip(void **state)
{
	(void)state;
	uint32_t ph[100];
	for (int i = 0; i < 100; i++)
		ph[i] = i < 50 ? 0 : 11;
	char *s = sl_term_strip(ph, NULL, 100, 10, 0);
	assert_string_equal(s, "00000bbbbb");
	free(s);

	/* weights: phase 0 holds 90% of the time */
	uint32_t p2[] = {0, 1};
	double w2[] = {9, 1};
	s = sl_term_strip(p2, w2, 2, 10, 0);
	assert_string_equal(s, "0000000001");
	free(s);

	/* a long interval straddling columns still counts in each */
	uint32_t p3[] = {0, 1, 2};
	double w3[] = {0.4, 8.6, 1};
	s = sl_term_strip(p3, w3, 3, 10, 0);
	assert_string_equal(s, "1111111112");
	free(s);

	/* fewer intervals than columns: one character each */
	s = sl_term_strip(p2, NULL, 2, 10, 0);
	assert_string_equal(s, "01");
	free(s);

	s = sl_term_strip(ph, NULL, 100, 10, 1);
	char buf[256];
	plain(buf, s);
	assert_string_equal(buf, "00000bbbbb");
	assert_non_null(strstr(s, sl_term_phase_sgr(0)));
	assert_non_null(strstr(s, sl_term_phase_sgr(11)));
	assert_non_null(strstr(s, SL_TERM_RESET));
	free(s);

	assert_int_equal(sl_term_phase_char(61), 'Z');
	assert_int_equal(sl_term_phase_char(62), '+');
	s = sl_term_strip(ph, NULL, 0, 10, 1);
	assert_string_equal(s, "");
	free(s);
}

static void test_progress(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sl_progress p;

	sl_progress_start_on(&p, f, 0, 0, 10, "inactive");
	sl_progress_update(&p, 5);
	sl_progress_finish(&p);
	fflush(f);
	assert_int_equal(len, 0);

	sl_progress_start_on(&p, f, 1, 1e9, 10, "short");
	sl_progress_update(&p, 5);
	sl_progress_finish(&p);
	fflush(f);
	assert_int_equal(len, 0);

	sl_progress_start_on(&p, f, 1, 0, 4, "replaying");
	sl_progress_update(&p, 2);
	sl_progress_update(&p, 3); /* within 0.1 s: not redrawn */
	sl_progress_finish(&p);
	fclose(f);
	assert_non_null(strstr(buf, "replaying:  50% (2/4)"));
	assert_null(strstr(buf, "(3/4)"));
	assert_true(len >= 4 && !strcmp(buf + len - 4, "\r\033[K"));
	free(buf);

	/* counts off (a trace's bytes): the share alone */
	buf = NULL;
	f = open_memstream(&buf, &len);
	sl_progress_start_on(&p, f, 1, 0, 1000, "replaying");
	p.counts = 0;
	sl_progress_update(&p, 250);
	sl_progress_finish(&p);
	fclose(f);
	assert_non_null(strstr(buf, "replaying:  25%"));
	assert_null(strstr(buf, "250"));
	free(buf);
}

/* Wrapping at spaces within the width, UTF-8 counted by characters,
 * continuation lines indented, a long word kept whole. */
static void test_wrap(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sl_term_wrap(f, "key: ", "one two three \xe2\x80\x94 four", 2, 14);
	sl_term_wrap(f, "", "supercalifragilistic x", 2, 10);
	sl_term_wrap(f, "empty: ", "", 2, 10);
	fclose(f);
	/* "  three \xe2\x80\x94 four" is 14 characters (16 bytes): it fits */
	assert_string_equal(buf, "key: one two\n  three \xe2\x80\x94 four\n"
				 "supercalifragilistic\n  x\nempty: \n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_colour),
		cmocka_unit_test(test_strip),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
