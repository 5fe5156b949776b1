/*
 * Checks one PMU entry of data/pmus/pmus.yaml against libpfm4: with
 * LIBPFM_FORCE_PMU=PMU, libpfm4 must activate that PMU and encode every
 * event of the entry, and the branch-sample event must be one libpfm4 marks
 * precise when the entry asks for precise sampling.  Its dram_reads
 * candidates, uncore events, are checked against libpfm4's tables unforced
 * (every channel of a channel-less family).  One meson test per PMU
 * (tests/hw/meson.build).
 *
 *   pmucheck PMU              exit 0 ok, 1 failure, 77 skipped (libpfm4 of
 *                             this build has no table for PMU, e.g. Arm on x86)
 *   pmucheck --covers A B ... exit 1 unless A B ... are exactly the map's PMUs
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* linux/perf_event.h (through session.h) first: libpfm4's own copy of the
 * perf ABI then steps aside */
#include "collect/session.h"
#include <perfmon/pfmlib_perf_event.h>

#include "sleuth/collect.h"
#include "sleuth/common.h"
#include "sleuth/hw.h"

static int failures;

static void encode(const char *pmu, const char *ev, const char *what)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	memset(&attr, 0, sizeof attr);
	memset(&arg, 0, sizeof arg);
	arg.size = sizeof arg;
	arg.attr = &attr;
	int r = pfm_get_os_event_encoding(ev, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r != PFM_SUCCESS) {
		printf("FAIL %s: %s %s: %s\n", pmu, what, ev, pfm_strerror(r));
		failures++;
	} else {
		printf("ok   %s: %-20s %-48s type %u config 0x%llx\n", pmu, what, ev, attr.type,
		       (unsigned long long)attr.config);
	}
}

/* Does libpfm4 mark the event (or one of its unit masks named) precise? */
static int is_precise(const char *ev)
{
	pfm_pmu_encode_arg_t e;
	memset(&e, 0, sizeof e);
	if (pfm_get_os_event_encoding(ev, PFM_PLM3, PFM_OS_NONE, &e) != PFM_SUCCESS)
		return 0;
	pfm_event_info_t ei;
	memset(&ei, 0, sizeof ei);
	ei.size = sizeof ei;
	int prec = pfm_get_event_info(e.idx, PFM_OS_NONE, &ei) == PFM_SUCCESS && ei.is_precise;
	const char *colon = strchr(ev, ':');
	for (int a = 0; colon && a < ei.nattrs; a++) {
		pfm_event_attr_info_t ai;
		memset(&ai, 0, sizeof ai);
		ai.size = sizeof ai;
		if (pfm_get_event_attr_info(e.idx, a, PFM_OS_NONE, &ai) == PFM_SUCCESS &&
		    ai.type == PFM_ATTR_UMASK && !strcmp(ai.name, colon + 1))
			prec = ai.is_precise;
	}
	free(e.codes);
	return prec;
}

/* The entry's dram_reads candidates against libpfm4's tables, unforced
 * (forced, libpfm4 sets up the core PMU alone) and with inactive PMUs
 * encoded: each an uncore event, of a channel-less family on every
 * channel libpfm4 has for it. */
static void check_dram_reads(const char *pmu, const sl_pmu_entry *e)
{
	if (!e->n_dram_reads)
		return;
	sl_pfm_terminate();
	pfm_terminate();
	unsetenv("LIBPFM_FORCE_PMU");
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	if (pfm_initialize() != PFM_SUCCESS) {
		printf("FAIL %s: libpfm4 does not initialise unforced\n", pmu);
		failures++;
		return;
	}
	for (size_t i = 0; i < e->n_dram_reads; i++) {
		const char *ev = e->dram_reads[i];
		if (!sl_pfm_uncore(ev)) {
			printf("FAIL %s: dram_reads %s is not an uncore event libpfm4 knows\n",
			       pmu, ev);
			failures++;
			continue;
		}
		char **ch;
		size_t n = sl_pfm_channels(ev, &ch);
		for (size_t c = 0; c < (n ? n : 1); c++) {
			const char *one = n ? ch[c] : ev;
			pfm_pmu_encode_arg_t a;
			memset(&a, 0, sizeof a);
			int r = pfm_get_os_event_encoding(one, PFM_PLM3, PFM_OS_NONE, &a);
			if (r != PFM_SUCCESS) {
				printf("FAIL %s: dram_reads %s: %s\n", pmu, one, pfm_strerror(r));
				failures++;
			} else {
				printf("ok   %s: %-20s %-48s code 0x%llx\n", pmu, "dram_reads", one,
				       (unsigned long long)a.codes[0]);
			}
			free(a.codes);
			if (n)
				free(ch[c]);
		}
		free(ch);
	}
}

static int known_to_libpfm(const char *pmu)
{
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;
		memset(&pi, 0, sizeof pi);
		pi.size = sizeof pi;
		if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS && !strcmp(pi.name, pmu))
			return 1;
	}
	return 0;
}

static int covers(const sl_pmumap *map, char **names, int n)
{
	int bad = 0;
	for (size_t i = 0; i < map->n; i++)
		for (size_t j = 0; j < map->e[i].n_pmus; j++) {
			int k = 0;
			while (k < n && strcmp(names[k], map->e[i].pmus[j]))
				k++;
			if (k == n) {
				printf("FAIL: %s is in the map but has no test\n", map->e[i].pmus[j]);
				bad = 1;
			}
		}
	for (int k = 0; k < n; k++)
		if (!sl_pmumap_find(map, names[k])) {
			printf("FAIL: %s has a test but is not in the map\n", names[k]);
			bad = 1;
		}
	return bad;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: pmucheck PMU | pmucheck --covers PMU...\n");
		return 2;
	}
	sl_pmumap map;
	if (sl_pmumap_load(NULL, &map) < 0) {
		printf("FAIL: %s\n", sl_error());
		return 1;
	}
	if (!strcmp(argv[1], "--covers")) {
		int rc = covers(&map, argv + 2, argc - 2);
		sl_pmumap_free(&map);
		return rc;
	}
	const char *pmu = argv[1];
	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	const sl_pmu_entry *e = sl_pmumap_find(&map, pmu);
	if (!e || pfm_initialize() != PFM_SUCCESS) {
		printf("FAIL: %s\n", e ? "libpfm4 does not initialise" : sl_error());
		sl_pmumap_free(&map);
		return 1;
	}
	if (!known_to_libpfm(pmu)) {
		printf("SKIP: this libpfm4 (%s) has no table for %s\n", "built for this "
		       "architecture", pmu);
		pfm_terminate();
		sl_pmumap_free(&map);
		return 77;
	}
	const char *active = NULL, *desc;
	if (sl_pfm_host_pmu(&active, &desc) < 0 || strcmp(active, pmu)) {
		printf("FAIL: LIBPFM_FORCE_PMU=%s activated %s\n", pmu, active ? active : "none");
		failures++;
	}
	encode(pmu, e->branch_sample, "branch_sample");
	if (e->precise > 0 && !is_precise(e->branch_sample)) {
		printf("FAIL %s: branch_sample %s is not precise in libpfm4 but precise: %d "
		       "is asked\n", pmu, e->branch_sample, e->precise);
		failures++;
	}
	for (size_t i = 0; i < e->n_roles; i++)
		encode(pmu, e->roles[i].event, e->roles[i].role);
	for (size_t i = 0; i < e->n_power; i++)
		encode(pmu, e->power[i], "power");
	for (size_t i = 0; i < e->n_prefetch; i++)
		encode(pmu, e->prefetch[i], "prefetch");
	if (!e->n_roles) {
		printf("FAIL %s: no model role\n", pmu);
		failures++;
	}
	check_dram_reads(pmu, e);
	sl_pfm_terminate();
	pfm_terminate();
	sl_pmumap_free(&map);
	printf("%s: %d failure(s)\n", pmu, failures);
	return failures ? 1 : 0;
}
