/* libpfm4 encodings for the PMUs sleuth targets, forced with
 * LIBPFM_FORCE_PMU: the canonical Nehalem events of docs/hacking.md, the
 * branch-sample event chosen per PMU and its raw code, and the error for an
 * event the PMU lacks.  libpfm4 reads LIBPFM_FORCE_PMU once per process,
 * so meson runs this program once per PMU with the variable set; each run
 * checks the PMU it was given. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include "collect/session.h"
#include "sleuth/common.h"

static void force(const char *pmu)
{
	assert_int_equal(sl_pfm_init(), 0);
	const char *name = NULL, *desc = NULL;
	assert_int_equal(sl_pfm_host_pmu(&name, &desc), 0);
	assert_string_equal(name, pmu);
}

/* Raw event code (event select | umask << 8) of an encoded attr. */
static uint64_t code(const char *ev)
{
	struct perf_event_attr a;
	if (sl_pfm_encode(ev, &a) < 0)
		fail_msg("%s: %s", ev, sl_error());
	assert_true(a.type == PERF_TYPE_RAW || a.type > PERF_TYPE_MAX);
	assert_int_equal(a.size, sizeof a);
	assert_int_equal(a.exclude_kernel, 1);
	return a.config & 0xffff;
}

static void check_branch(const char *want, uint64_t want_code, int want_precise)
{
	int precise = -1;
	const char *ev = sl_pfm_branch_event(&precise);
	assert_non_null(ev);
	assert_string_equal(ev, want);
	assert_int_equal(precise, want_precise);
	assert_int_equal(code(ev), want_code);
}

static void check_generic(void)
{
	struct perf_event_attr a;
	assert_int_equal(sl_pfm_encode("cycles", &a), 0);
	assert_int_equal(a.type, PERF_TYPE_HARDWARE);
	assert_int_equal(a.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(sl_pfm_encode("instructions", &a), 0);
	assert_int_equal(a.type, PERF_TYPE_HARDWARE);
	assert_int_equal(a.config, PERF_COUNT_HW_INSTRUCTIONS);
}

static void test_nhm(void **state)
{
	(void)state;
	force("nhm");
	static const char *const canon[] = {
		"cycles", "instructions", "UOPS_EXECUTED:PORT015_STALL_CYCLES",
		"LLC_MISSES", "L2_RQSTS:MISS", "L2_RQSTS:REFERENCES",
		"RESOURCE_STALLS:ANY", "UOPS_EXECUTED:PORT234_CORE",
		"FP_COMP_OPS_EXE:SSE_FP", "BR_MISP_EXEC:ANY",
		"BR_INST_RETIRED:CONDITIONAL", "UOPS_RETIRED:ANY",
	};
	struct perf_event_attr a;
	for (size_t i = 0; i < SL_ARRAY_LEN(canon); i++)
		if (sl_pfm_encode(canon[i], &a) < 0)
			fail_msg("%s: %s", canon[i], sl_error());
	check_generic();
	check_branch("BR_INST_RETIRED:CONDITIONAL", 0x01c4, 1);
	assert_int_equal(code("LLC_MISSES"), 0x412e);
	/* stall cycles: cmask=1, inv=1 on UOPS_EXECUTED (0xb1) port 0/1/5 */
	assert_int_equal(sl_pfm_encode("UOPS_EXECUTED:PORT015_STALL_CYCLES", &a), 0);
	assert_int_equal(a.config & 0xff, 0xb1);
	assert_int_equal((a.config >> 24) & 0xff, 1);
	assert_true(a.config & (1u << 23));
	/* Skylake's event is not Nehalem's */
	assert_int_equal(sl_pfm_encode("CYCLE_ACTIVITY:STALLS_L3_MISS", &a), -1);
	assert_non_null(strstr(sl_error(), "event CYCLE_ACTIVITY:STALLS_L3_MISS is not "
					   "supported by PMU nhm (Intel Nehalem)"));
	assert_non_null(strstr(sl_error(), "sleuth doctor"));
}

static void test_skl(void **state)
{
	(void)state;
	force("skl");
	check_generic();
	check_branch("BR_INST_RETIRED:CONDITIONAL", 0x01c4, 1);
	assert_int_equal(code("CYCLE_ACTIVITY:STALLS_L3_MISS"), 0x06a3);
	struct perf_event_attr a;
	assert_int_equal(sl_pfm_encode("LLC_MISSES", &a), -1);
	assert_non_null(strstr(sl_error(), "event LLC_MISSES is not supported by PMU "
					   "skl (Intel Skylake)"));
}

static void test_icl(void **state)
{
	(void)state;
	force("icl");
	check_generic();
	check_branch("BR_INST_RETIRED:COND", 0x11c4, 1);
	assert_int_equal(code("CYCLE_ACTIVITY:STALLS_L3_MISS"), 0x06a3);
	struct perf_event_attr a;
	assert_int_equal(sl_pfm_encode("BR_INST_RETIRED:CONDITIONAL", &a), -1);
	assert_non_null(strstr(sl_error(), "PMU icl (Intel Icelake)"));
}

static void test_spr(void **state)
{
	(void)state;
	force("spr");
	check_generic();
	check_branch("BR_INST_RETIRED:COND", 0x11c4, 1);
	assert_int_equal(code("CYCLE_ACTIVITY:STALLS_L3_MISS"), 0x06a3);
}

static void test_amd(void **state)
{
	(void)state;
	force("amd64_fam19h_zen3");
	check_branch("RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS", 0x00d1, 0);
}

/* Precise sampling is asked for on Intel only; a profile from AMD or Arm
 * says its samples are imprecise even if the kernel took precise_ip
 * (arm_pmu accepts it and ignores it). */
static void test_precision(void **state)
{
	(void)state;
	char buf[128];
	assert_int_equal(sl_pfm_precise_for("skl"), 2);
	assert_int_equal(sl_pfm_precise_for("amd64_fam19h_zen4"), 0);
	assert_int_equal(sl_pfm_precise_for("arm_neoverse_n1"), 0);
	assert_non_null(strstr(sl_pfm_sampling_desc("arm_neoverse_n1", 2, buf, sizeof buf),
			       "imprecise"));
	assert_non_null(strstr(sl_pfm_sampling_desc("amd64_fam19h_zen3", 0, buf, sizeof buf),
			       "imprecise"));
	assert_string_equal(sl_pfm_sampling_desc("icl", 2, buf, sizeof buf),
			    "precise_ip=2 (PEBS)");
	assert_non_null(strstr(sl_pfm_sampling_desc("icl", 0, buf, sizeof buf), "imprecise"));
}

/* The families' channels with libpfm4 unforced (test_uncore's child):
 * 0 when each is as its tables say, else 1 with the reason on stderr. */
static int unforced_channels(void)
{
	char **ch;
	sl_pfm_terminate();
	unsetenv("LIBPFM_FORCE_PMU");
	static const struct {
		const char *ev;
		size_t n;
	} fam[] = {
		{"skx_unc_imc::UNC_M_CAS_COUNT:RD", 6},
		{"snbep_unc_imc::UNC_M_CAS_COUNT:RD", 4},
		{"ivbep_unc_imc::UNC_M_CAS_COUNT:RD", 8},
		{"hswep_unc_imc::UNC_M_CAS_COUNT:RD", 8},
		{"bdx_unc_imc::UNC_M_CAS_COUNT:RD", 8},
		{"nhm_unc::UNC_QMC_NORMAL_READS:ANY", 0},
		{"no_such_imc::X", 0},
	};
	int bad = 0;
	for (size_t f = 0; f < SL_ARRAY_LEN(fam); f++) {
		size_t n = sl_pfm_channels(fam[f].ev, &ch);
		if (n != fam[f].n) {
			fprintf(stderr, "%s: %zu channels, not %zu\n", fam[f].ev, n, fam[f].n);
			bad = 1;
		}
		if (sl_pfm_uncore(fam[f].ev) != (n > 0 || f == 5)) {
			fprintf(stderr, "%s: sl_pfm_uncore %d\n", fam[f].ev, sl_pfm_uncore(fam[f].ev));
			bad = 1;
		}
		for (size_t c = 0; c < n; c++) {
			char want[128];
			snprintf(want, sizeof want, "%.*s%zu%s",
				 (int)(strstr(fam[f].ev, "::") - fam[f].ev), fam[f].ev, c,
				 strstr(fam[f].ev, "::"));
			if (strcmp(ch[c], want)) {
				fprintf(stderr, "channel %zu: %s, not %s\n", c, ch[c], want);
				bad = 1;
			}
			free(ch[c]);
		}
		free(ch);
	}
	return bad;
}

/* Uncore events by their PMU's prefix, present on this host or not. */
static void test_uncore(void **state)
{
	(void)state;
	assert_int_equal(sl_pfm_uncore("nhm_unc::UNC_QMC_NORMAL_READS:ANY"), 1);
	assert_int_equal(sl_pfm_uncore("skx_unc_imc0::UNC_M_CAS_COUNT:RD"), 1);
	assert_int_equal(sl_pfm_uncore("nhm::LLC_MISSES"), 0);
	assert_int_equal(sl_pfm_uncore("LLC_MISSES"), 0);
	assert_int_equal(sl_pfm_uncore("no_such_pmu::X"), 0);
	assert_int_equal(sl_pfm_uncore("nhm_unc"), 0);
	assert_int_equal(sl_pfm_uncore(NULL), 0);
	/* a memory controller's channels, named without one */
	assert_int_equal(sl_pfm_uncore("skx_unc_imc::UNC_M_CAS_COUNT:RD"), 1);
	assert_int_equal(sl_pfm_uncore("hswep_unc_imc::UNC_M_CAS_COUNT:RD"), 1);
	char **ch;
	assert_int_equal(sl_pfm_channels("nhm_unc::UNC_QMC_NORMAL_READS:ANY", &ch), 0);
	assert_null(ch);
	assert_int_equal(sl_pfm_channels("skx_unc_imc0::UNC_M_CAS_COUNT:RD", &ch), 0);
	assert_int_equal(sl_pfm_channels("LLC_MISSES", &ch), 0);
	/* unforced, libpfm4 lists every PMU it has, present or not: the
	 * families' channels from its tables.  In a child: libpfm4 4.13 frees
	 * an unforced initialisation's tables again at the next terminate
	 * after a forced one (a double free valgrind reports), so the forced
	 * and unforced states never follow one another in one process. */
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(unforced_channels());
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	force("nhm");
	/* the real path: libpfm4 (forced to the core PMU) does not encode an
	 * absent uncore PMU's event; said with the way out */
	struct perf_event_attr a;
	assert_int_equal(sl_pfm_encode_uncore("nhm_unc::UNC_QMC_NORMAL_READS:ANY", &a), -1);
	assert_non_null(strstr(sl_error(), "no such uncore PMU"));
	assert_non_null(strstr(sl_error(), "\"Uncore events\""));
}

static void test_unknown_event(void **state)
{
	(void)state;
	force("nhm");
	struct perf_event_attr a;
	assert_int_equal(sl_pfm_encode("NO_SUCH_EVENT:AT_ALL", &a), -1);
	assert_non_null(strstr(sl_error(), "event NO_SUCH_EVENT:AT_ALL is not supported "
					   "by PMU nhm (Intel Nehalem)"));
	/* kernel-only events would count nothing in a user-space profile */
	assert_int_equal(sl_pfm_encode("LLC_MISSES:k", &a), -1);
	assert_non_null(strstr(sl_error(), "event LLC_MISSES:k counts kernel mode only"));
	assert_int_equal(sl_pfm_encode("LLC_MISSES:u", &a), 0);
	assert_int_equal(a.exclude_kernel, 1);
	assert_int_equal(a.exclude_user, 0);
}

int main(void)
{
	const char *pmu = getenv("LIBPFM_FORCE_PMU");
	const struct CMUnitTest nhm[] = {cmocka_unit_test(test_nhm),
					 cmocka_unit_test(test_unknown_event),
					 cmocka_unit_test(test_uncore),
					 cmocka_unit_test(test_precision)};
	const struct CMUnitTest skl[] = {cmocka_unit_test(test_skl)};
	const struct CMUnitTest icl[] = {cmocka_unit_test(test_icl)};
	const struct CMUnitTest spr[] = {cmocka_unit_test(test_spr)};
	const struct CMUnitTest amd[] = {cmocka_unit_test(test_amd)};
	int r = -1;
	if (!pmu)
		fprintf(stderr, "set LIBPFM_FORCE_PMU to nhm, skl, icl, spr or "
				"amd64_fam19h_zen3\n");
	else if (!strcmp(pmu, "nhm"))
		r = cmocka_run_group_tests(nhm, NULL, NULL);
	else if (!strcmp(pmu, "skl"))
		r = cmocka_run_group_tests(skl, NULL, NULL);
	else if (!strcmp(pmu, "icl"))
		r = cmocka_run_group_tests(icl, NULL, NULL);
	else if (!strcmp(pmu, "spr"))
		r = cmocka_run_group_tests(spr, NULL, NULL);
	else if (!strcmp(pmu, "amd64_fam19h_zen3"))
		r = cmocka_run_group_tests(amd, NULL, NULL);
	sl_pfm_terminate();
	return r == 0 ? 0 : 1;
}
