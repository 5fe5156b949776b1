/* Unit tests of the shared plumbing: number and frequency parsing, atomic
 * files, and the YAML reader's typed access and error messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sleuth/common.h"
#include "util/json.h"
#include "formats/yamlio.h"

static void test_freq(void **state)
{
	(void)state;
	double g;
	assert_int_equal(sl_parse_freq("2.66GHz", &g), 0);
	assert_true(fabs(g - 2.66) < 1e-12);
	assert_int_equal(sl_parse_freq("2660MHz", &g), 0);
	assert_true(fabs(g - 2.66) < 1e-12);
	assert_int_equal(sl_parse_freq("2.66", &g), 0);
	assert_true(fabs(g - 2.66) < 1e-12);
	assert_int_equal(sl_parse_freq("1600mhz", &g), 0);
	assert_true(fabs(g - 1.6) < 1e-12);
	assert_int_equal(sl_parse_freq("fast", &g), -1);
	assert_non_null(strstr(sl_error(), "not a frequency"));
	assert_int_equal(sl_parse_freq("-1GHz", &g), -1);
	assert_int_equal(sl_parse_freq("GHz", &g), -1);
	assert_int_equal(sl_parse_freq("nanGHz", &g), -1);
	assert_int_equal(sl_parse_freq("", &g), -1);
	/* a bare number as people type it: MHz from 100, refused between */
	assert_int_equal(sl_parse_freq("1600", &g), 0);
	assert_true(fabs(g - 1.6) < 1e-12);
	assert_int_equal(sl_parse_freq("50", &g), -1);
	assert_non_null(strstr(sl_error(), "MHz"));
	assert_int_equal(sl_parse_freq("50GHz", &g), 0);
}

/* --dither N:FREQ, and which intervals it dithers */
static void test_dither(void **state)
{
	(void)state;
	unsigned n = 0;
	double g = 0;
	assert_int_equal(sl_parse_dither("16:1.60GHz", &n, &g), 0);
	assert_int_equal(n, 16);
	assert_true(fabs(g - 1.6) < 1e-12);
	assert_int_equal(sl_parse_dither("2:1600", &n, &g), 0);
	assert_int_equal(n, 2);
	const char *bad[] = {"16", ":1.6", "1:1.6", "0:1.6", "x:1.6", "16:", "16:fast",
			     "1000001:1.6", "-3:1.6", NULL};
	for (size_t i = 0; bad[i]; i++) {
		assert_int_equal(sl_parse_dither(bad[i], &n, &g), -1);
		assert_non_null(strstr(sl_error(), bad[i][0] == '1' && bad[i][1] == '6' &&
							 bad[i][2] == ':' ? "frequency" : "16:1.60GHz"));
		assert_null(strchr(sl_error(), '\n'));
	}
	/* every Nth: i % N == N - 1 */
	size_t k = 0;
	for (size_t i = 0; i < 64; i++)
		k += sl_dither_at(i, 16);
	assert_int_equal(k, 4);
	assert_true(sl_dither_at(15, 16) && !sl_dither_at(16, 16) && !sl_dither_at(0, 16));
	assert_false(sl_dither_at(0, 0));
}

static void test_numbers(void **state)
{
	(void)state;
	uint64_t u;
	double d;
	assert_int_equal(sl_parse_u64("0x401a2c", &u), 0);
	assert_int_equal(u, 0x401a2c);
	assert_int_equal(sl_parse_u64("18446744073709551615", &u), 0);
	assert_int_equal(sl_parse_u64("18446744073709551616", &u), -1);
	assert_int_equal(sl_parse_u64("-3", &u), -1);
	assert_int_equal(sl_parse_u64("12x", &u), -1);
	/* strtoull would take a sign or blanks after the 0x */
	assert_int_equal(sl_parse_u64("0x-1", &u), -1);
	assert_int_equal(sl_parse_u64("0x 5", &u), -1);
	assert_int_equal(sl_parse_u64("0x+5", &u), -1);
	assert_int_equal(sl_parse_u64("0x", &u), -1);
	assert_int_equal(sl_parse_u64("0xFf", &u), 0);
	assert_int_equal(u, 255);
	assert_int_equal(sl_parse_double("1e-3", &d), 0);
	assert_int_equal(sl_parse_double("nan", &d), -1);
	assert_int_equal(sl_parse_double("inf", &d), -1);
	assert_int_equal(sl_parse_double("1e999", &d), -1);
	assert_int_equal(sl_parse_fraction("10%", &d), 0);
	assert_true(fabs(d - 0.1) < 1e-15);
	assert_int_equal(sl_parse_fraction("0.25", &d), 0);
	assert_int_equal(sl_parse_fraction("-5%", &d), -1);
	/* "10" is 10% to people, 1000% to a parser: refused with the fix */
	assert_int_equal(sl_parse_fraction("10", &d), -1);
	assert_non_null(strstr(sl_error(), "write 10%"));
	assert_int_equal(sl_parse_fraction("150%", &d), 0);
	assert_int_equal(sl_parse_fraction("1", &d), 0);
	char b[40];
	sl_fmt_double(b, sizeof b, 2.66);
	assert_string_equal(b, "2.66");
	sl_fmt_double(b, sizeof b, 0.1 + 0.2);
	assert_true(strtod(b, NULL) == 0.1 + 0.2);
}

static void test_afile(void **state)
{
	(void)state;
	char dir[] = "/tmp/sleuth-ut.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = sl_xasprintf("%s/out.txt", dir);
	sl_afile af;
	FILE *f = sl_afile_open(&af, path);
	assert_non_null(f);
	fputs("hello\n", f);
	assert_int_not_equal(access(path, F_OK), 0); /* not there before commit */
	assert_int_equal(sl_afile_commit(&af), 0);
	assert_int_equal(access(path, F_OK), 0);
	unlink(path);
	f = sl_afile_open(&af, path);
	fputs("partial", f);
	sl_afile_abort(&af);
	assert_int_not_equal(access(path, F_OK), 0);
	rmdir(dir);
	/* a device is written in place, never replaced by a regular file */
	f = sl_afile_open(&af, "/dev/null");
	assert_non_null(f);
	fputs("discarded", f);
	assert_int_equal(sl_afile_commit(&af), 0);
	struct stat st;
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_null(sl_afile_open(&af, "/tmp"));
	assert_non_null(strstr(sl_error(), "is a directory"));
	assert_null(sl_afile_open(&af, "/nonexistent-dir/x"));
	assert_non_null(strstr(sl_error(), "/nonexistent-dir/x"));
	free(path);
}

static int load(const char *text, sl_yparser *yp, sl_ynode **root)
{
	assert_int_equal(sl_yp_open_mem(yp, "t.yaml", text, strlen(text)), 0);
	return sl_yp_load_document(yp, root);
}

static void test_yaml_tree(void **state)
{
	(void)state;
	sl_yparser yp;
	sl_ynode *root;
	const char *doc = "a: 0x10\nb: [1, 2.5, {c: x}]\nq: \"7\"\nn: -2\nz: .nan\n";
	assert_int_equal(load(doc, &yp, &root), 0);
	uint64_t u;
	double d;
	int64_t i;
	const char *s;
	assert_int_equal(sl_yget_u64(&yp, sl_ymap_get(root, "a"), "a", &u), 0);
	assert_int_equal(u, 16);
	const sl_ynode *b = sl_ymap_get(root, "b");
	assert_int_equal(b->type, SL_YSEQ);
	assert_int_equal(b->n, 3);
	assert_int_equal(sl_yget_double(&yp, b->kid[1], "b", &d), 0);
	assert_true(d == 2.5);
	assert_int_equal(sl_yget_str(&yp, sl_ymap_get(b->kid[2], "c"), "c", &s), 0);
	assert_string_equal(s, "x");
	/* quoted numbers are strings */
	assert_int_equal(sl_yget_u64(&yp, sl_ymap_get(root, "q"), "q", &u), -1);
	assert_non_null(strstr(sl_error(), "t.yaml:3: key 'q'"));
	assert_int_equal(sl_yget_u64(&yp, sl_ymap_get(root, "n"), "n", &u), -1);
	assert_non_null(strstr(sl_error(), "negative"));
	assert_int_equal(sl_yget_int(&yp, sl_ymap_get(root, "n"), "n", &i), 0);
	assert_int_equal(i, -2);
	assert_int_equal(sl_yget_double(&yp, sl_ymap_get(root, "z"), "z", &d), -1);
	assert_non_null(strstr(sl_error(), "t.yaml:5: key 'z': NaN"));
	assert_null(sl_yreq(&yp, root, "missing", NULL));
	assert_non_null(strstr(sl_error(), "key 'missing': missing required key"));
	sl_yp_close(&yp);
}

static void test_yaml_errors(void **state)
{
	(void)state;
	sl_yparser yp;
	sl_ynode *root;
	assert_int_equal(load("a: 1\na: 2\n", &yp, &root), -1);
	assert_non_null(strstr(sl_error(), "duplicate key"));
	sl_yp_close(&yp);
	assert_int_equal(load("a: [1, 2\n", &yp, &root), -1);
	assert_non_null(strstr(sl_error(), "not valid YAML"));
	sl_yp_close(&yp);
	assert_int_equal(load("- 1\n- 2\n", &yp, &root), -1);
	assert_non_null(strstr(sl_error(), "must be a mapping"));
	sl_yp_close(&yp);
	assert_int_equal(load("", &yp, &root), -1);
	assert_non_null(strstr(sl_error(), "empty"));
	sl_yp_close(&yp);
	assert_int_equal(load("a: &x 1\nb: *x\n", &yp, &root), -1);
	assert_non_null(strstr(sl_error(), "aliases"));
	sl_yp_close(&yp);
	assert_int_equal(load("a: 1\n---\nb: 2\n", &yp, &root), -1);
	assert_non_null(strstr(sl_error(), "second YAML document"));
	sl_yp_close(&yp);
}

/* The streaming walk: keys at the top, items of a long sequence one at a
 * time with the arena reset between them. */
static void test_yaml_stream(void **state)
{
	(void)state;
	sl_yparser yp;
	const char *doc = "h: 1\nitems:\n  - {t: 1}\n  - {t: 2}\n  - {t: 3}\nend: x\n";
	assert_int_equal(sl_yp_open_mem(&yp, "s.yaml", doc, strlen(doc)), 0);
	assert_int_equal(sl_yp_begin_document_map(&yp), 0);
	const char *key;
	int line, r, sum = 0, keys = 0;
	while ((r = sl_yp_map_key(&yp, &key, &line)) == 1) {
		keys++;
		if (!strcmp(key, "items")) {
			assert_int_equal(line, 2);
			assert_int_equal(sl_yp_begin_seq(&yp, "items"), 0);
			while (sl_yp_seq_more(&yp) == 1) {
				sl_ynode *n;
				uint64_t t;
				assert_int_equal(sl_yp_load(&yp, &n), 0);
				assert_int_equal(sl_yget_u64(&yp, sl_ymap_get(n, "t"), "t", &t), 0);
				sum += (int)t;
				sl_yp_reset(&yp);
			}
		} else {
			assert_int_equal(sl_yp_skip(&yp), 0);
		}
	}
	assert_int_equal(r, 0);
	assert_int_equal(keys, 3);
	assert_int_equal(sum, 6);
	assert_int_equal(sl_yp_end_document(&yp), 0);
	sl_yp_close(&yp);
}

static void test_yaml_write(void **state)
{
	(void)state;
	char dir[] = "/tmp/sleuth-ut.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = sl_xasprintf("%s/w.yaml", dir);
	sl_ywriter w;
	assert_int_equal(sl_yw_open(&w, path, "made by a test\nsecond line"), 0);
	sl_yw_map(&w, 0);
	sl_yw_kstr(&w, "name", "yes"); /* must stay a string */
	sl_yw_kdouble(&w, "f", 2.66);
	sl_yw_plain(&w, "xs");
	sl_yw_seq(&w, 1);
	sl_yw_hex(&w, 0x401a2c);
	sl_yw_u64(&w, 5);
	sl_yw_end_seq(&w);
	sl_yw_end_map(&w);
	assert_int_equal(sl_yw_commit(&w), 0);

	sl_yparser yp;
	sl_ynode *root;
	assert_int_equal(sl_yp_open(&yp, path), 0);
	assert_int_equal(sl_yp_load_document(&yp, &root), 0);
	const char *s;
	assert_int_equal(sl_yget_str(&yp, sl_ymap_get(root, "name"), "name", &s), 0);
	assert_string_equal(s, "yes");
	uint64_t u;
	assert_int_equal(sl_yget_u64(&yp, sl_ymap_get(root, "xs")->kid[0], "xs", &u), 0);
	assert_int_equal(u, 0x401a2c);
	sl_yp_close(&yp);
	FILE *f = fopen(path, "r");
	char line[128];
	assert_non_null(fgets(line, sizeof line, f));
	assert_string_equal(line, "# made by a test\n");
	fclose(f);
	unlink(path);
	rmdir(dir);
	free(path);
}

static char *json(const char *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sl_json_fputs(f, in);
	fclose(f);
	return buf;
}

static void test_json(void **state)
{
	(void)state;
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"plain", "\"plain\""},
		{"a\"b\\c", "\"a\\\"b\\\\c\""},
		{"l1\nl2\t", "\"l1\\nl2\\u0009\""},
		{"caf\xc3\xa9", "\"caf\xc3\xa9\""},          /* valid UTF-8 kept */
		{"x\xff\xc3y", "\"x\\ufffd\\ufffdy\""},    /* invalid bytes */
		{"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""}, /* a surrogate */
		{"", "\"\""},
		{NULL, "null"},
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
		char *got = json(cases[i].in);
		assert_string_equal(got, cases[i].out);
		free(got);
	}
}

static size_t num3(char *out, double v)
{
	return (size_t)snprintf(out, 40, "%.3g", v);
}

/* The writer places commas, quotes and nulls; the caller's whitespace and
 * number format come out as given. */
static void test_json_writer(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sl_json w;
	sl_json_init_file(&w, f, num3);
	sl_json_open(&w, '{', " ");
	sl_json_key(&w, "a\"b");
	sl_json_number(&w, 3.14159);
	sl_json_key(&w, "nan");
	sl_json_number(&w, NAN);
	sl_json_break(&w, "\n  ");
	sl_json_key(&w, "list");
	sl_json_open(&w, '[', "");
	sl_json_uint(&w, 18446744073709551615ull);
	sl_json_bool(&w, 1);
	sl_json_null(&w);
	sl_json_string(&w, NULL);
	sl_json_number_text(&w, "1.60", 4);
	sl_json_close(&w, "");
	sl_json_key(&w, "empty");
	sl_json_open(&w, '[', " ");
	sl_json_close(&w, "\n");          /* nothing inside: no whitespace */
	sl_json_break(&w, "\n  ");
	sl_json_key(&w, "rows");
	sl_json_open(&w, '[', "");
	for (int i = 0; i < 2; i++) {
		sl_json_break(&w, "\n    ");
		sl_json_open(&w, '{', " ");
		sl_json_key(&w, "i");
		sl_json_uint(&w, (uint64_t)i);
		sl_json_key(&w, "s");
		sl_json_string(&w, "x\ny");
		sl_json_close(&w, "");
	}
	sl_json_close(&w, "\n  ");
	sl_json_close(&w, "\n");
	fclose(f);
	assert_string_equal(buf,
		"{\"a\\\"b\": 3.14, \"nan\": null,\n"
		"  \"list\": [18446744073709551615,true,null,null,1.60], \"empty\": [],\n"
		"  \"rows\": [\n"
		"    {\"i\": 0, \"s\": \"x\\ny\"},\n"
		"    {\"i\": 1, \"s\": \"x\\ny\"}\n"
		"  ]\n"
		"}");
	free(buf);

	/* a key quoted once and written as text; one that needs escaping is
	 * refused by sl_json_quote_key */
	char k[16];
	assert_int_equal(sl_json_quote_key(k, sizeof k, "ghz"), 7);
	assert_memory_equal(k, "\"ghz\": ", 7);
	assert_int_equal(sl_json_quote_key(k, sizeof k, "a\"b"), 0);
	assert_int_equal(sl_json_quote_key(k, sizeof k, "caf\xc3\xa9"), 0);
	assert_int_equal(sl_json_quote_key(k, sizeof k, "much-too-long-for-k"), 0);
	buf = NULL;
	f = open_memstream(&buf, &len);
	sl_json_init_file(&w, f, NULL);
	sl_json_open(&w, '{', " ");
	sl_json_key_text(&w, k, sl_json_quote_key(k, sizeof k, "ghz"));
	sl_json_number(&w, 2.5);
	sl_json_key_text(&w, k, sl_json_quote_key(k, sizeof k, "n"));
	sl_json_uint(&w, 0);
	sl_json_close(&w, "");
	fclose(f);
	assert_string_equal(buf, "{\"ghz\": 2.5, \"n\": 0}");
	free(buf);

	/* the default number format reads back exactly */
	buf = NULL;
	f = open_memstream(&buf, &len);
	sl_json_init_file(&w, f, NULL);
	sl_json_open(&w, '[', " ");
	sl_json_number(&w, 0.1);
	sl_json_number(&w, 1.0 / 3);
	sl_json_number(&w, -INFINITY);
	sl_json_close(&w, "");
	fclose(f);
	assert_string_equal(buf, "[0.1, 0.3333333333333333, null]");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_freq),
		cmocka_unit_test(test_dither),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_afile),
		cmocka_unit_test(test_yaml_tree),
		cmocka_unit_test(test_yaml_errors),
		cmocka_unit_test(test_yaml_stream),
		cmocka_unit_test(test_yaml_write),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_writer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
