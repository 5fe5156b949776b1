/*
 * The one CSV splitter (formats/csv.c): fields, blanks, CRLF, quoted header
 * names, and a line with more fields than asked for.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "formats/csv.h"

static void test_split(void **state)
{
	(void)state;
	char line[] = " 1.6 ,\t2, ,\"x\"\r\n";
	char *f[8];
	assert_int_equal(sl_csv_split(line, f, 8, 0), 4);
	assert_string_equal(f[0], "1.6");
	assert_string_equal(f[1], "2");
	assert_string_equal(f[2], "");
	assert_string_equal(f[3], "\"x\"");

	char head[] = "\"time_s\", power_w,\"\"";
	assert_int_equal(sl_csv_split(head, f, 8, 1), 3);
	assert_string_equal(f[0], "time_s");
	assert_string_equal(f[1], "power_w");
	assert_string_equal(f[2], "");

	char many[] = "a,b,c,d,e";
	assert_int_equal(sl_csv_split(many, f, 2, 0), 5);
	assert_string_equal(f[0], "a");
	assert_string_equal(f[1], "b");

	char empty[] = "";
	assert_int_equal(sl_csv_split(empty, f, 8, 0), 1);
	assert_string_equal(f[0], "");
}

static void test_trim(void **state)
{
	(void)state;
	char a[] = "\t \"q\" \r\n", b[] = "\"", c[] = "  ";
	assert_string_equal(sl_csv_trim(a, 0), "\"q\"");
	char a2[] = "\t \"q\" \r\n";
	assert_string_equal(sl_csv_trim(a2, 1), "q");
	assert_string_equal(sl_csv_trim(b, 1), "\""); /* one quote is no pair */
	assert_string_equal(sl_csv_trim(c, 0), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_trim),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
