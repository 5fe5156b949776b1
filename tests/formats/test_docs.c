/*
 * docs/formats.md is the reference people write files from, so its
 * examples must be files sleuth accepts: every example there is loaded by
 * the reader of its format, with the values it shows.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sleuth/common.h"
#include "sleuth/machine.h"
#include "sleuth/powerlog.h"
#include "sleuth/schedule.h"
#include "sleuth/trace.h"

#define MAX_BLOCKS 16

typedef struct block {
	char lang[16];
	char *text;
} block;

static block blocks[MAX_BLOCKS];
static size_t n_blocks;

/* The fenced code blocks of docs/formats.md, in order. */
static int setup(void **state)
{
	(void)state;
	FILE *f = fopen(SLEUTH_SRCDIR "/docs/formats.md", "r");
	assert_non_null(f);
	char *line = NULL, *buf = NULL;
	size_t cap = 0, len = 0;
	int in = 0;
	while (getline(&line, &cap, f) > 0) {
		if (!strncmp(line, "```", 3)) {
			if (in) {
				blocks[n_blocks++].text = buf;
				buf = NULL;
				len = 0;
			} else {
				assert_true(n_blocks < MAX_BLOCKS);
				snprintf(blocks[n_blocks].lang, sizeof blocks[0].lang, "%.*s",
					 (int)strcspn(line + 3, "\n"), line + 3);
			}
			in = !in;
			continue;
		}
		if (in) {
			size_t n = strlen(line);
			buf = sl_xrealloc(buf, len + n + 1);
			memcpy(buf + len, line, n + 1);
			len += n;
		}
	}
	free(line);
	fclose(f);
	assert_false(in);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < n_blocks; i++)
		free(blocks[i].text);
	return 0;
}

/* The k-th block (from 0) of language `lang` whose text holds `needle`. */
static const char *find(const char *lang, const char *needle)
{
	for (size_t i = 0; i < n_blocks; i++)
		if (!strcmp(blocks[i].lang, lang) && strstr(blocks[i].text, needle))
			return blocks[i].text;
	fail_msg("docs/formats.md has no %s example with '%s'", lang, needle);
	return NULL;
}

static char *put(const char *text)
{
	char *path = sl_xstrdup("/tmp/sleuth-docs-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_trace(void **state)
{
	(void)state;
	char *path = put(find("yaml", "format: sleuth-trace/1"));
	sl_trace_reader *r = sl_trace_open(path);
	if (!r)
		fail_msg("%s", sl_error());
	const sl_trace_header *h = sl_trace_header_of(r);
	assert_int_equal(h->n_events, 4);
	assert_true(h->frequency_ghz == 2.66);
	sl_trace_interval iv;
	assert_int_equal(sl_trace_next(r, &iv), 1);
	assert_int_equal(iv.n_br, 2);
	assert_int_equal(iv.br[0].addr, 0x401a2c);
	assert_true(iv.has_e && iv.e == 1.873);
	assert_true(iv.has_temp && iv.temp == 61.5);
	assert_int_equal(sl_trace_next(r, &iv), 1);
	assert_false(iv.has_temp);
	assert_int_equal(iv.n_br, 0);
	assert_int_equal(sl_trace_next(r, &iv), 0);
	sl_trace_close(r);
	unlink(path);
	free(path);
}

static void test_machine(void **state)
{
	(void)state;
	const char *text = find("yaml", "format: sleuth-machine/1");
	sl_machine m;
	if (sl_machine_load_mem("formats.md", text, strlen(text), &m) < 0)
		fail_msg("%s", sl_error());
	assert_int_equal(sl_machine_complete(&m), 1);
	assert_int_equal(m.n_pstates, 2);
	assert_int_equal(m.n_terms, 2);
	assert_string_equal(sl_machine_role(&m, "llc_misses"), "LLC_MISSES");
	assert_int_equal(m.n_time_error, 0);
	sl_machine_free(&m);
	/* the time_error: example, added to the machine */
	char *both = sl_xasprintf("%s%s", text, find("yaml", "time_error:"));
	if (sl_machine_load_mem("formats.md", both, strlen(both), &m) < 0)
		fail_msg("%s", sl_error());
	assert_int_equal(m.n_time_error, 2);
	assert_string_equal(m.time_error[1].model, "mlp");
	assert_true(m.time_error[0].ghz == 2.13 && m.time_error[1].mean == -0.0003);
	sl_machine_free(&m);
	free(both);
}

static void test_logs(void **state)
{
	(void)state;
	const char *text = find("", "time_s,power_w,temp_c");
	sl_powerlog log;
	if (sl_powerlog_read_mem(&log, "formats.md", text, strlen(text), NULL, 0) < 0)
		fail_msg("%s", sl_error());
	assert_int_equal(log.n, 3);
	assert_non_null(log.temp_c);
	assert_true(log.temp_c[2] == 58.1);
	sl_powerlog_free(&log);

	text = find("", "ghz,power_w,temp_c");
	sl_idlelog il;
	if (sl_idlelog_read_mem(&il, "formats.md", text, strlen(text), NULL) < 0)
		fail_msg("%s", sl_error());
	assert_int_equal(il.n, 2);
	assert_true(fabs(il.power_w[0] - 38.2) < 1e-9);
	sl_idlelog_free(&il);
}

static void test_schedule(void **state)
{
	(void)state;
	char *path = put(find("yaml", "format: sleuth-schedule/1"));
	sl_schedule_file s;
	if (sl_schedule_read(path, &s) < 0)
		fail_msg("%s", sl_error());
	assert_int_equal(s.n_phases, 2);
	assert_true(s.transition_us == 10);
	assert_true(sl_schedule_ghz(&s, 0) == 1.6);
	sl_schedule_file_free(&s);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_logs),
		cmocka_unit_test(test_schedule),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
