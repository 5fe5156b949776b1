/*
 * `sleuth machine init` in the library: a sleuth-machine/1 skeleton for the
 * CPU at hand, assembled from what can be known without a power meter —
 * the PMU libpfm4 detects and sleuth's event map for it, the P-states the
 * cpufreq driver offers (and voltages where the platform exposes them), and
 * the memory latency measured by a pointer chase.  Every event is encoded
 * through libpfm4 for the PMU before anything is written, so a file made
 * here never names an event the perf backend cannot open.  The memory
 * controller's reads (role dram_reads, an uncore event) are named only when
 * the event map's candidate's uncore PMU is present on this host: it is no
 * core PMU's, and a model naming one absent here would count nothing.
 */
#include "sleuth/hw.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "collect/live.h"
#include "collect/session.h"
#include "sleuth/common.h"

/* "Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz" -> "intel-core-i7-8650u":
 * lower case, marks and the clock dropped, words joined by '-'. */
static char *slug(const char *s)
{
	static const char *const drop[] = {"r", "tm", "cpu", "processor", NULL};
	char *out = sl_xcalloc(strlen(s) + 1, 1);
	size_t n = 0;
	while (*s && *s != '@') {
		size_t w = 0;
		while (s[w] && (isalnum((unsigned char)s[w]) || s[w] == '-'))
			w++;
		int skip = !w;
		for (size_t i = 0; drop[i] && !skip; i++)
			skip = strlen(drop[i]) == w && !strncasecmp(s, drop[i], w);
		if (!skip) {
			if (n)
				out[n++] = '-';
			for (size_t i = 0; i < w; i++)
				out[n++] = (char)tolower((unsigned char)s[i]);
		}
		s += w ? w : 1;
	}
	return out;
}

/* Programmable counters per logical CPU from CPUID leaf 0xA (Intel), or 0
 * when not on Intel x86 or when a VM hides the PMU. */
static int cpuid_counters(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (__get_cpuid_max(0, NULL) >= 0xa && __get_cpuid(0xa, &a, &b, &c, &d) &&
	    (a & 0xff) >= 1)
		return (int)((a >> 8) & 0xff);
#endif
	return 0;
}

/* The PMU to write for: --pmu (forced through libpfm4, so that its events
 * can be checked), else the one libpfm4 detects. */
static int pick_pmu(const sl_machine_init_opts *o, const char **pmu, const char **desc,
		    int *forced)
{
	const char *env = getenv("LIBPFM_FORCE_PMU");
	*forced = env && *env;
	if (o->pmu) {
		sl_pfm_terminate();
		setenv("LIBPFM_FORCE_PMU", o->pmu, 1);
		*forced = 1;
	}
	if (sl_pfm_host_pmu(pmu, desc) < 0) {
		if (o->pmu)
			sl_error_set("libpfm4 knows no PMU '%s' (see 'sleuth doctor' for the "
				     "one it detects)", o->pmu);
		else
			sl_error_set("libpfm4 detects no PMU on this CPU (a VM?), so there are "
				     "no events to model; the timer backend needs no model, or "
				     "give --pmu NAME to write one for another CPU");
		return -1;
	}
	if (o->pmu && strcmp(*pmu, o->pmu)) {
		sl_error_set("--pmu %s: libpfm4 activated %s instead; give one of the PMU "
			     "names in data/pmus/pmus.yaml", o->pmu, *pmu);
		return -1;
	}
	return 0;
}

static int check_event(const char *ev, const char *pmu, const char *what)
{
	struct perf_event_attr a;
	if (sl_pfm_encode(ev, &a) == 0)
		return 0;
	sl_error_prefix("the event map's %s for PMU %s: ", what, pmu);
	return -1;
}

static void add_term(sl_machine *m, const char *ev)
{
	for (size_t i = 0; i < m->n_terms; i++)
		if (!strcmp(m->terms[i].event, ev))
			return;
	m->terms = sl_xreallocarray(m->terms, m->n_terms + 1, sizeof *m->terms);
	memset(&m->terms[m->n_terms], 0, sizeof *m->terms);
	m->terms[m->n_terms++].event = sl_xstrdup(ev);
}

/* The machine's events from the map entry, each checked with libpfm4. */
static int events_from_map(sl_machine *m, const sl_pmu_entry *e, const char *pmu)
{
	if (check_event(e->branch_sample, pmu, "branch_sample") < 0)
		return -1;
	m->roles = sl_xcalloc(e->n_roles + 1, sizeof *m->roles);
	m->roles[0].role = sl_xstrdup("branch_sample");
	m->roles[0].event = sl_xstrdup(e->branch_sample);
	m->n_roles = 1;
	for (size_t i = 0; i < e->n_roles; i++) {
		if (check_event(e->roles[i].event, pmu, e->roles[i].role) < 0)
			return -1;
		m->roles[m->n_roles].role = sl_xstrdup(e->roles[i].role);
		m->roles[m->n_roles++].event = sl_xstrdup(e->roles[i].event);
	}
	m->has_power = 1;
	for (size_t i = 0; i < e->n_power; i++) {
		if (check_event(e->power[i], pmu, "power candidate") < 0)
			return -1;
		add_term(m, e->power[i]);
	}
	for (size_t i = 0; i < e->n_prefetch; i++) {
		if (check_event(e->prefetch[i], pmu, "prefetch event") < 0)
			return -1;
		add_term(m, e->prefetch[i]);
	}
	return 0;
}

/* Role dram_reads: the first of the entry's candidate uncore events whose
 * PMU is present and encodable here (the memory controller's reads, which
 * the mlp model then takes for an interval's DRAM traffic), or none, so
 * the model falls back to the core counters.  A line for the file's
 * comment, saying which or why none. */
static char *dram_reads(sl_machine *m, const sl_pmu_entry *e, const char *pmu)
{
	if (sl_machine_role(m, "dram_reads"))
		return sl_xasprintf("dram_reads: %s, from the event map's events",
				    sl_machine_role(m, "dram_reads"));
	char *err = sl_xstrdup(sl_error()), *line = NULL;
	for (size_t i = 0; i < e->n_dram_reads && !line; i++)
		if (sl_pfm_uncore(e->dram_reads[i]) &&
		    sl_pfm_uncore_present(e->dram_reads[i])) {
			m->roles = sl_xreallocarray(m->roles, m->n_roles + 1, sizeof *m->roles);
			m->roles[m->n_roles].role = sl_xstrdup("dram_reads");
			m->roles[m->n_roles++].event = sl_xstrdup(e->dram_reads[i]);
			line = sl_xasprintf("dram_reads: %s, the memory controller's reads "
					    "(its uncore PMU is present here; counting it "
					    "needs perf_event_paranoid <= 0 or CAP_PERFMON)",
					    e->dram_reads[i]);
			sl_info("dram_reads: %s (the memory controller's reads)",
				e->dram_reads[i]);
		}
	if (!line) {
		char *why = e->n_dram_reads
			? sl_xasprintf("none of the event map's candidates (%s%s) has its "
				       "uncore PMU here", e->dram_reads[0],
				       e->n_dram_reads > 1 ? ", ..." : "")
			: sl_xasprintf("the event map names no memory-controller event for "
				       "PMU %s", pmu);
		line = sl_xasprintf("dram_reads: none: %s; the mlp model takes DRAM "
				    "traffic from the core counters", why);
		sl_info("dram_reads: none (%s); the mlp model uses the core counters", why);
		free(why);
	}
	sl_error_set("%s", err);
	free(err);
	return line;
}

/* The current clock from /proc/cpuinfo, for a host without cpufreq. */
static double cpuinfo_ghz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	double mhz = 0;
	while (f && !(mhz > 0) && fgets(line, sizeof line, f))
		if (!strncmp(line, "cpu MHz", 7) && strchr(line, ':'))
			mhz = strtod(strchr(line, ':') + 1, NULL);
	if (f)
		fclose(f);
	return mhz / 1e3;
}

static int pstates(sl_machine *m, const sl_machine_init_opts *o, char **how)
{
	sl_cpufreq cf;
	if (sl_cpufreq_read(o->sysfs_root, &cf) < 0) {
		double ghz = o->sysfs_root ? 0 : cpuinfo_ghz();
		if (!(ghz > 0))
			return -1;
		/* No dead end on a VM: one P-state at the clock it runs at. */
		sl_warn("%s; using one P-state at the current clock, %.3f GHz, from "
			"/proc/cpuinfo", sl_error(), ghz);
		m->pstates = sl_xcalloc(1, sizeof *m->pstates);
		m->pstates[0].ghz = ghz;
		m->n_pstates = 1;
		*how = sl_xstrdup("P-states: none from cpufreq (absent); one at the clock "
				  "/proc/cpuinfo shows");
		return 0;
	}
	m->pstates = sl_xcalloc(cf.n, sizeof *m->pstates);
	for (size_t i = 0; i < cf.n; i++) {
		m->pstates[i].ghz = cf.ghz[i];
		m->pstates[i].volts = cf.volts ? cf.volts[i] : 0;
	}
	m->n_pstates = cf.n;
	*how = sl_xasprintf("P-states: cpufreq driver %s, from %s\nvoltages: %s",
			    cf.driver ? cf.driver : "(unnamed)", cf.how,
			    cf.volts ? "the OPP table (kernel/debug/opp/cpu0)"
				     : "not exposed by this platform; none given (the power "
				       "model then needs them from the vendor)");
	sl_cpufreq_free(&cf);
	return 0;
}

int sl_machine_init(sl_machine *m, char **comment, const sl_machine_init_opts *o)
{
	memset(m, 0, sizeof *m);
	*comment = NULL;
	const char *pmu, *desc;
	int forced;
	sl_pmumap map;
	if (pick_pmu(o, &pmu, &desc, &forced) < 0)
		return -1;
	if (sl_pmumap_load(o->pmumap, &map) < 0)
		return -1;
	const sl_pmu_entry *e = sl_pmumap_find(&map, pmu);
	char *ps_how = NULL, *cpu = NULL, *dram = NULL;
	int rc = -1;
	if (!e || events_from_map(m, e, pmu) < 0 || pstates(m, o, &ps_how) < 0)
		goto out;
	dram = dram_reads(m, e, pmu);
	int hw = forced ? 0 : cpuid_counters();
	m->programmable = hw > 0 ? hw : e->counters;
	size_t bytes = o->chase_bytes ? o->chase_bytes : sl_chase_default_bytes(o->sysfs_root);
	sl_info("measuring memory latency: pointer chase over %zu MB", bytes >> 20);
	m->memory_latency_ns = sl_chase_latency_ns(bytes, 0.2);
	if (m->memory_latency_ns < 0)
		goto out;
	cpu = o->cpu_name ? sl_xstrdup(o->cpu_name) : sl_host_cpu_name();
	char *s = slug(cpu);
	m->name = *s ? sl_xasprintf("%s-%s", e->family, s) : sl_xstrdup(e->family);
	free(s);
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	*comment = sl_xasprintf(
		"written by sleuth machine init %s on %s for %s\n"
		"PMU: %s (%s)%s; events from %s (family %s), each encoded by libpfm4\n"
		"counters: %d programmable per hardware thread (%s)\n"
		"%s\n"
		"%s\n"
		"memory_latency_ns: pointer chase over %zu MB (best round)\n"
		"A SKELETON: no static_w and no power coefficients yet; run 'sleuth "
		"calibrate' to fit them (docs/hardware.md).",
		SLEUTH_VERSION, when, cpu, pmu, desc,
		forced ? " (forced with LIBPFM_FORCE_PMU / --pmu)" : "", map.path, e->family,
		m->programmable, hw > 0 ? "CPUID leaf 0xA" : "the event map", dram, ps_how,
		bytes >> 20);
	rc = 0;
out:
	free(ps_how);
	free(dram);
	free(cpu);
	sl_pmumap_free(&map);
	if (rc < 0)
		sl_machine_free(m);
	return rc;
}

int sl_machine_init_loaded(sl_machine *m, const sl_machine_init_opts *o)
{
	sl_machine raw;
	char *comment;
	memset(m, 0, sizeof *m);
	if (sl_machine_init(&raw, &comment, o) < 0)
		return -1;
	/* Through the file format, so that the text a profile embeds is the
	 * one 'machine init' would write. */
	const char *dir = getenv("TMPDIR");
	char *path = sl_xasprintf("%s/sleuth-machine-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path), rc = -1;
	if (fd < 0) {
		sl_error_set("cannot create a temporary file in %s: %s; set TMPDIR",
			     dir && *dir ? dir : "/tmp", strerror(errno));
	} else {
		close(fd);
		if (sl_machine_write(path, &raw, comment) == 0 && sl_machine_load(path, m) == 0)
			rc = 0;
		unlink(path);
	}
	free(path);
	free(comment);
	sl_machine_free(&raw);
	return rc;
}

char *sl_user_machines_dir(void)
{
	const char *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	if (x && *x)
		return sl_xasprintf("%s/sleuth/machines", x);
	if (home && *home)
		return sl_xasprintf("%s/.local/share/sleuth/machines", home);
	return NULL;
}

char *sl_machine_find_in(const char *dir, const char *family)
{
	char *best = NULL;
	size_t fl = strlen(family);
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 5, ".yaml") ||
		    strncasecmp(de->d_name, family, fl))
			continue;
		char *p = sl_xasprintf("%s/%s", dir, de->d_name);
		if (!best || strcmp(p, best) < 0) {
			free(best);
			best = p;
		} else {
			free(p);
		}
	}
	if (d)
		closedir(d);
	return best;
}

char *sl_user_machine_find(const char *pmu)
{
	sl_pmumap map;
	char *dir = sl_user_machines_dir(), *best = NULL;
	char *err = sl_xstrdup(sl_error()); /* a lookup that finds nothing is no error */
	if (dir && sl_pmumap_load(NULL, &map) == 0) {
		const sl_pmu_entry *e = sl_pmumap_find(&map, pmu);
		if (e)
			best = sl_machine_find_in(dir, e->family);
		sl_pmumap_free(&map);
	}
	free(dir);
	sl_error_set("%s", err);
	free(err);
	return best;
}
