/*
 * Event names to perf_event_attr through libpfm4.  Machine models name
 * events the way libpfm4 does ("BR_INST_RETIRED:CONDITIONAL"); libpfm4
 * knows which PMU this CPU has and how each event is encoded for it, so
 * sleuth never carries raw codes.  Everything here is user space only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* linux/perf_event.h (through collect.h) first: libpfm4's own copy of the
 * perf ABI then steps aside. */
#include "perf-sys.h"
#include "session.h"
#include "sleuth/common.h"
#include <perfmon/pfmlib_perf_event.h>

static int pfm_state; /* 0 untried, 1 ready, -1 failed */

int sl_pfm_init(void)
{
	/* PAPI shares this process's libpfm4 and terminates it when it shuts
	 * down (sl_energy_open may start and stop PAPI); pfm_initialize() is
	 * idempotent, so asking again re-initialises only what was terminated. */
	if (pfm_state > 0 && pfm_initialize() != PFM_SUCCESS)
		pfm_state = 0;
	if (pfm_state == 0) {
		/* the fake PMU (tests) is this PMU for libpfm4 too; its uncore
		 * PMUs are not detected then, and libpfm4 encodes their events
		 * (sl_pfm_codes) only when told to encode inactive PMUs' */
		const char *fake = getenv("SLEUTH_FAKE_PMU");
		if (fake && *fake) {
			setenv("LIBPFM_FORCE_PMU", fake, 1);
			setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
		}
		int r = pfm_initialize();
		pfm_state = r == PFM_SUCCESS ? 1 : -1;
		if (r != PFM_SUCCESS)
			sl_error_set("libpfm4 failed to initialise: %s", pfm_strerror(r));
	}
	if (pfm_state < 0 && !sl_error()[0])
		sl_error_set("libpfm4 failed to initialise");
	return pfm_state > 0 ? 0 : -1;
}

void sl_pfm_terminate(void)
{
	if (pfm_state > 0)
		pfm_terminate();
	pfm_state = 0;
}

/* The first present core PMU other than libpfm4's generic perf_events
 * tables, which are always present and say nothing about the CPU. */
int sl_pfm_host_pmu(const char **name, const char **desc)
{
	if (sl_pfm_init() < 0)
		return -1;
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;
		memset(&pi, 0, sizeof pi);
		pi.size = sizeof pi;
		if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present)
			continue;
		if (pi.type != PFM_PMU_TYPE_CORE || !strncmp(pi.name, "perf", 4))
			continue;
		if (name)
			*name = pi.name;
		if (desc)
			*desc = pi.desc;
		return 0;
	}
	sl_error_set("libpfm4 knows no core PMU for this CPU; set "
		     "LIBPFM_FORCE_PMU or run 'sleuth doctor'");
	return -1;
}

/* libpfm4's type of the PMU whose name is the len bytes at name
 * (PFM_PMU_TYPE_UNCORE, ...), or -1 when it knows none by that name.
 * libpfm4 lists every PMU it supports, present or not, so a replayed
 * profile of another machine tells its uncore events apart too. */
static int pmu_type(const char *name, size_t len)
{
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;
		memset(&pi, 0, sizeof pi);
		pi.size = sizeof pi;
		if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS && pi.name &&
		    strlen(pi.name) == len && !strncmp(pi.name, name, len))
			return (int)pi.type;
	}
	return -1;
}

/* Whether channel c of the channel-less uncore PMU at event (len bytes)
 * is one libpfm4 knows: listed, or, under LIBPFM_FORCE_PMU (which lists
 * the forced PMU alone), encodable with LIBPFM_ENCODE_INACTIVE. */
static int channel_known(const char *event, size_t len, const char *rest, int c)
{
	char name[128];
	int n = snprintf(name, sizeof name, "%.*s%d", (int)len, event, c);
	if (n < 0 || (size_t)n >= sizeof name)
		return 0;
	if (pmu_type(name, (size_t)n) == PFM_PMU_TYPE_UNCORE)
		return 1;
	const char *forced = getenv("LIBPFM_FORCE_PMU");
	if (!forced || !*forced || pmu_type(name, (size_t)n) >= 0)
		return 0;
	char *ev = sl_xasprintf("%s%s", name, rest);
	uint64_t code;
	char keep[1024];
	snprintf(keep, sizeof keep, "%s", sl_error());
	int ok = sl_pfm_codes(ev, &code, 1) > 0;
	sl_error_set("%s", keep);
	free(ev);
	return ok;
}

size_t sl_pfm_channels(const char *event, char ***names)
{
	*names = NULL;
	const char *sep = event ? strstr(event, "::") : NULL;
	if (!sep || sep == event || sl_pfm_init() < 0)
		return 0;
	size_t len = (size_t)(sep - event);
	/* a PMU of that very name (nhm_unc, skx_unc_imc0) is no family */
	if (pmu_type(event, len) >= 0 || (event[len - 1] >= '0' && event[len - 1] <= '9'))
		return 0;
	size_t n = 0;
	/* libpfm4 numbers a family's channels from 0 without gaps */
	while (n < SL_PFM_CHANNELS_MAX && channel_known(event, len, sep, (int)n)) {
		*names = sl_xrealloc(*names, (n + 2) * sizeof **names);
		(*names)[n] = sl_xasprintf("%.*s%zu%s", (int)len, event, n, sep);
		n++;
	}
	return n;
}

int sl_pfm_uncore(const char *event)
{
	const char *sep = event ? strstr(event, "::") : NULL;
	if (!sep || sl_pfm_init() < 0)
		return 0;
	size_t len = (size_t)(sep - event);
	int type = pmu_type(event, len);
	if (type >= 0)
		return type == PFM_PMU_TYPE_UNCORE;
	/* a channel-less name: the whole family of channel PMUs */
	char **ch;
	size_t nch = sl_pfm_channels(event, &ch);
	for (size_t c = 0; c < nch; c++)
		free(ch[c]);
	free(ch);
	if (nch)
		return 1;
	/* under LIBPFM_FORCE_PMU libpfm4 lists the forced PMU alone; its
	 * Intel uncore PMUs are all named "<core>_unc..." */
	for (const char *u = event; (u = strstr(u, "_unc")) && u < sep; u++)
		if (u[4] == '_' || u + 4 == sep)
			return 1;
	return 0;
}

/* libpfm4 encodes "cycles" and "instructions" through its generic perf PMU,
 * which is inactive when LIBPFM_FORCE_PMU selects a core PMU; the kernel's
 * generic hardware events mean the same thing on every PMU. */
static int generic_event(const char *event, struct perf_event_attr *attr)
{
	static const struct { const char *name; uint64_t config; } gen[] = {
		{"cycles", PERF_COUNT_HW_CPU_CYCLES},
		{"instructions", PERF_COUNT_HW_INSTRUCTIONS},
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(gen); i++)
		if (!strcmp(event, gen[i].name)) {
			attr->type = PERF_TYPE_HARDWARE;
			attr->config = gen[i].config;
			return 0;
		}
	return -1;
}

int sl_pfm_encode(const char *event, struct perf_event_attr *attr)
{
	if (sl_pfm_init() < 0)
		return -1;
	memset(attr, 0, sizeof *attr);
	/* libpfm4 copies back attr.size bytes (0: the first ABI's 64, which
	 * drops config2 and everything after) */
	attr->size = sizeof *attr;
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof arg);
	arg.size = sizeof arg;
	arg.attr = attr;
	int r = pfm_get_os_event_encoding(event, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r != PFM_SUCCESS && generic_event(event, attr) == 0)
		r = PFM_SUCCESS;
	if (r != PFM_SUCCESS) {
		const char *pmu = "none", *desc = "libpfm4 detects no PMU on this CPU";
		sl_pfm_host_pmu(&pmu, &desc);
		sl_error_set("event %s is not supported by PMU %s (%s): %s; check the "
			     "machine model or run 'sleuth doctor'",
			     event, pmu, desc, pfm_strerror(r));
		return -1;
	}
	if (attr->exclude_user) {
		/* ":k": kernel only, and sleuth excludes the kernel: it would
		 * count nothing at all */
		sl_error_set("event %s counts kernel mode only, and sleuth counts user "
			     "space only (it never needs kernel access): drop the :k "
			     "modifier in the machine model", event);
		return -1;
	}
	attr->size = sizeof *attr;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	return 0;
}

int sl_pfm_encode_uncore(const char *event, struct perf_event_attr *attr)
{
	if (sl_pfm_init() < 0)
		return -1;
	const sl_perf_sys *sys = sl_perf_sys_get();
	memset(attr, 0, sizeof *attr);
	attr->size = sizeof *attr;
	if (sys->uncore_encode) {
		if (sys->uncore_encode(event, attr) < 0)
			return -1;
	} else {
		pfm_perf_encode_arg_t arg;
		memset(&arg, 0, sizeof arg);
		arg.size = sizeof arg;
		arg.attr = attr;
		int r = pfm_get_os_event_encoding(event, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
		if (r != PFM_SUCCESS) {
			/* an absent PMU's events are "not found"; a present one the
			 * kernel does not export is "not supported" (libpfm4 found
			 * no /sys/bus/event_source/devices/<pmu>/type) */
			sl_error_set("libpfm4 cannot encode it here (%s): this machine "
				     "has no such uncore PMU, or the kernel does not "
				     "export it; %s", pfm_strerror(r), SL_UNCORE_FIX);
			return -1;
		}
	}
	if (attr->type < PERF_TYPE_MAX) {
		/* some libpfm4 encoders leave the core's raw type when they
		 * find no sysfs type for the PMU */
		sl_error_set("libpfm4 found no dynamic PMU type for it (type %u): the "
			     "kernel does not export this uncore PMU; %s", attr->type,
			     SL_UNCORE_FIX);
		return -1;
	}
	/* an uncore PMU counts every privilege level and refuses the
	 * exclude bits, sampling and inheritance */
	attr->size = sizeof *attr;
	attr->exclude_user = attr->exclude_kernel = attr->exclude_hv = 0;
	attr->exclude_idle = 0;
	attr->sample_period = 0;
	attr->freq = 0;
	attr->inherit = 0;
	attr->enable_on_exec = 0;
	return 0;
}

char *sl_pfm_encode_controller(const char *ev, struct perf_event_attr **attrs,
			       size_t *n_attr, size_t *cap_attr, size_t *boxes)
{
	char **ch;
	size_t nch = sl_pfm_channels(ev, &ch);
	char first[1024] = "";
	*boxes = 0;
	for (size_t c = 0; c < SL_MAX(nch, 1); c++) {
		SL_GROW(*attrs, *n_attr, *cap_attr);
		if (sl_pfm_encode_uncore(nch ? ch[c] : ev, &(*attrs)[*n_attr]) == 0) {
			++*n_attr;
			++*boxes;
		} else if (!first[0]) {
			snprintf(first, sizeof first, "%s", sl_error());
		}
	}
	char *why = NULL;
	int len = nch ? (int)(strstr(ev, "::") - ev) : 0;
	if (!*boxes && nch)
		why = sl_xasprintf("no channel of memory controller %.*s (libpfm4 knows "
				   "%.*s0 .. %.*s%zu) is present here: %s", len, ev,
				   len, ev, len, ev, nch - 1, first);
	else if (!*boxes)
		why = sl_xstrdup(first);
	for (size_t c = 0; c < nch; c++)
		free(ch[c]);
	free(ch);
	return why;
}

int sl_pfm_uncore_present(const char *ev)
{
	struct perf_event_attr *a = NULL;
	size_t n = 0, cap = 0, boxes, present = 0;
	char *why = sl_pfm_encode_controller(ev, &a, &n, &cap, &boxes);
	char dev[256], mask[1024];
	for (size_t b = 0; b < n; b++)
		present += sl_perf_sys_get()->pmu_device(a[b].type, dev, sizeof dev, mask,
							 sizeof mask) == 0;
	if (why)
		sl_error_set("%s", why);
	else if (!present)
		sl_error_set("no PMU with type %u and a cpumask under "
			     "/sys/bus/event_source/devices: the kernel does not export "
			     "it", a[0].type);
	free(why);
	free(a);
	return present > 0;
}

int sl_pfm_codes(const char *event, uint64_t *codes, int max)
{
	if (sl_pfm_init() < 0)
		return -1;
	pfm_pmu_encode_arg_t arg;
	memset(&arg, 0, sizeof arg);
	arg.size = sizeof arg;
	int r = pfm_get_os_event_encoding(event, PFM_PLM3, PFM_OS_NONE, &arg);
	if (r != PFM_SUCCESS) {
		sl_error_set("libpfm4 does not know %s: %s", event, pfm_strerror(r));
		return -1;
	}
	int n = SL_MIN(arg.count, max);
	memcpy(codes, arg.codes, (size_t)n * sizeof *codes);
	free(arg.codes);
	return n;
}

/* Retired conditional branches: Intel names the umask CONDITIONAL up to
 * Skylake and COND from Ice Lake on (libpfm4 knows which is valid where);
 * AMD has a dedicated event and no precise sampling of it; Arm's common
 * events have none for conditional branches only, so BR_RETIRED (every
 * retired branch) stands in, without precise sampling. */
const char *sl_pfm_branch_event(int *precise)
{
	static const char *const intel[] = {"BR_INST_RETIRED:CONDITIONAL",
					    "BR_INST_RETIRED:COND"};
	const char *pmu, *desc;
	if (sl_pfm_host_pmu(&pmu, &desc) < 0)
		return NULL;
	struct perf_event_attr a;
	if (!strncmp(pmu, "amd64", 5)) {
		*precise = 0;
		if (sl_pfm_encode("RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS", &a) == 0)
			return "RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS";
		return NULL;
	}
	if (!strncmp(pmu, "arm", 3)) {
		*precise = 0;
		if (sl_pfm_encode("BR_RETIRED", &a) == 0)
			return "BR_RETIRED";
		sl_error_set("PMU %s (%s) has no BR_RETIRED event; name the branch "
			     "event as branch_sample in the machine model", pmu, desc);
		return NULL;
	}
	*precise = 1;
	for (size_t i = 0; i < SL_ARRAY_LEN(intel); i++)
		if (sl_pfm_encode(intel[i], &a) == 0)
			return intel[i];
	sl_error_set("PMU %s (%s) has no retired-conditional-branch event sleuth "
		     "knows; run 'sleuth doctor'", pmu, desc);
	return NULL;
}

int sl_pfm_precise_for(const char *pmu)
{
	return strncmp(pmu, "amd64", 5) && strncmp(pmu, "arm", 3) ? 2 : 0;
}

const char *sl_pfm_sampling_desc(const char *pmu, int precise, char *buf, size_t len)
{
	if (!strncmp(pmu, "arm", 3))
		snprintf(buf, len, "imprecise (arm_pmu has no precise sampling and "
			 "ignores precise_ip)");
	else if (!strncmp(pmu, "amd64", 5))
		snprintf(buf, len, "imprecise (no PEBS on AMD; IBS not used)");
	else if (precise)
		snprintf(buf, len, "precise_ip=%d (PEBS)", precise);
	else
		snprintf(buf, len, "imprecise (the PMU refused precise_ip 2 and 1)");
	return buf;
}
