/*
 * sleuth-schedule/1: what the writer writes the reader reads back, the
 * example of docs/formats.md (flow style inside block style) is accepted, and bad
 * files are refused naming file, line and key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sleuth/common.h"
#include "sleuth/schedule.h"

static char dir[] = "/tmp/sleuth-schedfile.XXXXXX";

static char *put(const char *name, const char *text)
{
	char *path = sl_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static const char spec_example[] =
	"format: sleuth-schedule/1\n"
	"profile: app.prof\n"
	"machine: nehalem-i7-920\n"
	"objective: min-edp               # min-energy | min-edp | min-ed2p\n"
	"max_slowdown: 0.10               # as given\n"
	"scope: phase\n"
	"baseline: {ghz: 2.66, time_s: 12.31, energy_j: 702.4}\n"
	"predicted: {time_s: 13.02, energy_j: 560.9, edp: 7302.9, slowdown: 0.0577}\n"
	"phases:                          # the frequency chosen for each phase\n"
	"  - {phase: 0, ghz: 1.60, time_s: 4.10, energy_j: 150.2}\n"
	"  - {phase: 1, ghz: 2.66, time_s: 8.92, energy_j: 410.7}\n";

static void test_spec_example(void **state)
{
	(void)state;
	char *p = put("spec.yaml", spec_example);
	sl_schedule_file s;
	assert_int_equal(sl_schedule_read(p, &s), 0);
	assert_string_equal(s.profile, "app.prof");
	assert_string_equal(s.machine, "nehalem-i7-920");
	assert_int_equal(s.objective, SL_OBJ_EDP);
	assert_int_equal(s.scope, SL_SCOPE_PHASE);
	assert_true(s.max_slowdown == 0.10);
	assert_true(s.base_ghz == 2.66 && s.base_time_s == 12.31 && s.base_energy_j == 702.4);
	assert_true(s.time_s == 13.02 && s.edp == 7302.9 && s.slowdown == 0.0577);
	assert_int_equal(s.n_phases, 2);
	assert_true(sl_schedule_ghz(&s, 0) == 1.60);
	assert_true(sl_schedule_ghz(&s, 1) == 2.66);
	assert_true(sl_schedule_ghz(&s, 7) == 0);
	assert_true(s.power_cap_w == 0 && s.transition_us == 0 && s.min_instance_ms == 0);
	sl_schedule_file_free(&s);
	unlink(p);
	free(p);
}

static void test_round_trip(void **state)
{
	(void)state;
	sl_sched_phase ph[3] = {{0, 1.6, 4.1, 150.2}, {3, 2.66, 8.92, 410.7},
				{9, 2.133, 1.0 / 3, 2.0 / 3}};
	sl_schedule_file s = {
		.profile = "a b: c.prof", .machine = "m", .objective = SL_OBJ_ED2P,
		.max_slowdown = 0.05, .scope = SL_SCOPE_GLOBAL, .base_ghz = 2.66,
		.base_time_s = 12.5, .base_energy_j = 700, .time_s = 13, .energy_j = 600,
		.edp = 7800, .slowdown = -0.01, .phases = ph, .n_phases = 3,
		.power_cap_w = 95.5, .transition_us = 10, .min_instance_ms = 2.5};
	char *p = sl_xasprintf("%s/rt.yaml", dir);
	assert_int_equal(sl_schedule_write(p, &s, "made by a test"), 0);
	sl_schedule_file r;
	assert_int_equal(sl_schedule_read(p, &r), 0);
	assert_string_equal(r.profile, s.profile);
	assert_int_equal(r.objective, SL_OBJ_ED2P);
	assert_int_equal(r.scope, SL_SCOPE_GLOBAL);
	assert_true(r.slowdown == -0.01 && r.power_cap_w == 95.5);
	assert_true(r.transition_us == 10 && r.min_instance_ms == 2.5);
	assert_int_equal(r.n_phases, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(r.phases[i].phase, ph[i].phase);
		assert_true(r.phases[i].ghz == ph[i].ghz);
		assert_true(r.phases[i].time_s == ph[i].time_s);
		assert_true(r.phases[i].energy_j == ph[i].energy_j);
	}
	sl_schedule_file_free(&r);
	unlink(p);
	free(p);
}

/* Replace `from` in the docs/formats.md example by `to` and expect `err` in the error. */
static void expect_bad(const char *from, const char *to, const char *err)
{
	const char *at = strstr(spec_example, from);
	assert_non_null(at);
	char *text = sl_xasprintf("%.*s%s%s", (int)(at - spec_example), spec_example, to,
				  at + strlen(from));
	char *p = put("bad.yaml", text);
	sl_schedule_file s;
	assert_int_equal(sl_schedule_read(p, &s), -1);
	if (!strstr(sl_error(), err)) {
		fprintf(stderr, "'%s' lacks '%s'\n", sl_error(), err);
		fail();
	}
	unlink(p);
	free(p);
	free(text);
}

static void test_bad(void **state)
{
	(void)state;
	expect_bad("sleuth-schedule/1", "sleuth-trace/1", "bad.yaml:1: key 'format'");
	expect_bad("objective: min-edp", "objective: fast", "key 'objective': unknown objective");
	expect_bad("scope: phase", "scope: run", "key 'scope'");
	expect_bad("max_slowdown: 0.10", "max_slowdown: -1", "key 'max_slowdown': must be >= 0");
	expect_bad("max_slowdown: 0.10", "max_slowdown: .nan", "NaN");
	expect_bad("profile: app.prof\n", "", "key 'profile': missing required key");
	expect_bad("{phase: 0, ghz: 1.60,", "{phase: 0, ghz: 0,", ":10: key 'ghz': must be > 0");
	expect_bad("{phase: 1,", "{phase: 0,", ":11: key 'phase': phase 0 is listed twice");
	expect_bad("{phase: 1,", "{phase: -1,", "key 'phase'");
	expect_bad("baseline: {ghz: 2.66, ", "baseline: {", "key 'ghz': missing required key in baseline");
	expect_bad("phases:    ", "phases: 3\nx_phases: ", "key 'phases': expected a sequence");
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_example),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
