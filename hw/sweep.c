/*
 * `calibrate --sweep`: run the training suite at every P-state of a
 * machine skeleton, with the frequency set through cpufreq and the
 * original settings restored on every way out (hw/cpufreq-ctl.c), energy
 * read from RAPL (powercap or PAPI) and the die temperature from hwmon.
 *
 * Two CPUs can run the suite:
 *  - this machine: the native kernels (hw/kernels.c), each a child process
 *    profiled by the perf backend with RAPL energy per interval, exactly as
 *    `sleuth run --power rapl` would; idle power is RAPL over a pause at
 *    each P-state;
 *  - the simulator (`--sim`), for CI on a fake sysfs tree: the training
 *    workloads of data/workloads/train are simulated at the frequency
 *    cpufreq reports after it was set, and each run adds its energy to the
 *    tree's RAPL counter as the hardware would, so that the sweep reads it
 *    back like on a real machine.  Per-interval energies come from the
 *    simulated meter; RAPL's total over each run must agree with them.
 */
#include "sleuth/hw.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sleuth/collect.h"
#include "sleuth/collector.h"
#include "sleuth/common.h"
#include "sleuth/model.h"
#include "sleuth/profile.h"
#include "sleuth/replay.h"
#include "sleuth/sim.h"

#define TRAIN_DIR "data/workloads/train"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The training suite: data/workloads/train/ *.yaml, sorted. */
static char **training_suite(size_t *n)
{
	char *dir = sl_data_path(TRAIN_DIR);
	char **v = NULL;
	*n = 0;
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".yaml"))
			continue;
		v = sl_xreallocarray(v, *n + 1, sizeof *v);
		v[(*n)++] = sl_xasprintf("%s/%s", dir, e->d_name);
	}
	if (d)
		closedir(d);
	free(dir);
	if (*n)
		qsort(v, *n, sizeof *v, cmp_str);
	else
		sl_error_set("cannot find the training suite (%s/*.yaml); set SLEUTH_DATADIR",
			     TRAIN_DIR);
	return v;
}

/* The simulated CPU's RAPL counter: add `joules` to the package zone's
 * energy_uj, wrapping at max_energy_range_uj as the hardware does.  A tree
 * without the zone has no RAPL. */
static void sim_rapl_add(const char *root, double joules)
{
	char *zone = sl_xasprintf("%s/class/powercap/intel-rapl:0", root);
	char *cur = sl_sysfs_line(zone, "energy_uj"), *max = sl_sysfs_line(zone, "max_energy_range_uj");
	uint64_t uj, range;
	if (cur && max && sl_parse_u64(cur, &uj) == 0 && sl_parse_u64(max, &range) == 0 &&
	    range > 0) {
		uj = (uj + (uint64_t)llround(joules * 1e6)) % (range + 1);
		char *p = sl_xasprintf("%s/energy_uj", zone);
		FILE *f = fopen(p, "w");
		if (f) {
			fprintf(f, "%llu\n", (unsigned long long)uj);
			fclose(f);
		}
		free(p);
	}
	free(cur);
	free(max);
	free(zone);
}

/* One native training run: the kernel in a child process under the perf
 * backend, RAPL energy per interval; written as a profile. */
static int native_run(const sl_machine *skel, const sl_sweep_opts *o, const char *kernel,
		      double ghz, sl_energy *rapl, sl_sweep_run *r)
{
	char secs[32];
	snprintf(secs, sizeof secs, "%g", o->seconds > 0 ? o->seconds : 2.0);
	char *const argv[] = {"/proc/self/exe", "calibrate", "--kernel", (char *)kernel, secs,
			      NULL};
	const char **evs;
	size_t ne = sl_machine_model_events(skel, &evs);
	sl_live_opts lo = {.argv = argv, .events = evs, .n_events = ne,
			   .k = (size_t)skel->programmable,
			   .branch_event = sl_machine_role(skel, "branch_sample"), .energy = 1,
			   .sysfs_root = o->sysfs_root};
	r->workload = sl_xstrdup(kernel);
	r->trace = sl_xasprintf("%s/%s-%.3f.prof", o->workdir, kernel, ghz);
	r->is_profile = 1;
	sl_backend *b = sl_perf_backend_new(&lo);
	if (!b) {
		free(evs);
		return -1;
	}
	sl_profile p;
	sl_profile_init(&p);
	sl_collect_opts co;
	sl_collect_opts_init(&co);
	sl_collect_stats cs;
	double before = NAN, after = NAN, t0 = sl_hwmon_temp_c(o->sysfs_root, NULL);
	sl_energy_read(rapl, &before);
	int rc = sl_collect(b, &co, &p, &cs);
	int status = b->finish(b);
	sl_energy_read(rapl, &after);
	b->destroy(b);
	free(evs);
	if (rc == 0 && status != 0) {
		sl_error_set("training kernel %s exited with status %d", kernel, status);
		rc = -1;
	}
	if (rc == 0) {
		p.freq_ghz = ghz;
		free(p.workload);
		p.workload = sl_xstrdup(kernel);
		if (skel->text) {
			free(p.machine_text);
			p.machine_text = sl_xstrdup(skel->text);
		}
		for (size_t i = 0; i < p.n_intervals; i++) {
			r->time_s += p.iv[i].time_s;
			if (isfinite(p.iv[i].energy_j))
				r->energy_j += p.iv[i].energy_j;
		}
		r->rapl_j = after - before;
		/* the run's die temperature: the mean of its ends */
		r->temp_c = (t0 + sl_hwmon_temp_c(o->sysfs_root, NULL)) / 2;
		rc = sl_profile_write(r->trace, &p);
	}
	sl_profile_free(&p);
	return rc;
}

/* Idle power at the P-state set: RAPL over a pause. */
static int native_idle(const sl_sweep_opts *o, sl_energy *rapl, double *w)
{
	double pause = o->idle_s > 0 ? o->idle_s : 1.0, e0, e1, t0 = sl_now();
	if (sl_energy_read(rapl, &e0) < 0)
		return -1;
	struct timespec ts = {(time_t)pause, (long)((pause - (double)(time_t)pause) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	if (sl_energy_read(rapl, &e1) < 0)
		return -1;
	*w = (e1 - e0) / (sl_now() - t0);
	return 0;
}

static int sim_run(const sl_sweep_opts *o, const sl_sim_machine *sm, const char *wl_path,
		   double ghz, sl_energy *rapl, sl_sweep_run *r)
{
	sl_sim_workload w;
	if (sl_sim_workload_load(wl_path, &w) < 0)
		return -1;
	r->workload = sl_xstrdup(w.name);
	r->trace = sl_xasprintf("%s/%s-%.3f.trace.yaml", o->workdir, w.name, ghz);
	double before = NAN, after = NAN, t0 = sl_hwmon_temp_c(o->sysfs_root, NULL);
	if (rapl && sl_energy_read(rapl, &before) < 0)
		before = NAN;
	sl_sim s;
	sl_sim_totals tot;
	sl_sim_run_opts ro = {.ghz = ghz, .trace_path = r->trace, .totals = &tot};
	sl_sim_prepare(&s, sm, &w, o->seed, o->intervals);
	int rc = sl_sim_run(&s, &ro);
	sl_sim_workload_free(&w);
	if (rc < 0)
		return -1;
	sim_rapl_add(o->sysfs_root ? o->sysfs_root : "/sys", tot.energy_j);
	r->time_s = tot.time_s;
	r->energy_j = tot.energy_j;
	if (rapl && sl_energy_read(rapl, &after) < 0)
		after = NAN;
	r->rapl_j = after - before;
	if (isfinite(r->rapl_j) && fabs(r->rapl_j - r->energy_j) > 0.01 * r->energy_j + 1e-3) {
		sl_error_set("%s at %g GHz: RAPL counted %.6g J over the run but its intervals "
			     "sum to %.6g J; check the RAPL zone", r->workload, ghz, r->rapl_j,
			     r->energy_j);
		return -1;
	}
	r->temp_c = (t0 + sl_hwmon_temp_c(o->sysfs_root, NULL)) / 2;
	return 0;
}

/* The simulated CPU idling at each P-state: its meter's idle log, with the
 * rows of the skeleton's P-states only. */
static int idle_log(const sl_machine *skel, const sl_sweep_opts *o, const sl_sim_machine *sm,
		    sl_sweep *out)
{
	char *all = sl_xasprintf("%s/idle-all.csv", o->workdir);
	out->idle_log = sl_xasprintf("%s/idle.csv", o->workdir);
	int rc = sl_sim_write_idle_log(sm, o->seed, all);
	FILE *in = rc == 0 ? fopen(all, "r") : NULL;
	sl_afile af;
	FILE *f = in ? sl_afile_open(&af, out->idle_log) : NULL;
	char line[256];
	while (f && fgets(line, sizeof line, in)) {
		double ghz;
		if (line[0] == '#' || !strncmp(line, "ghz", 3) ||
		    (sscanf(line, "%lf,", &ghz) == 1 && sl_machine_pstate(skel, ghz) >= 0))
			fputs(line, f);
	}
	if (in)
		fclose(in);
	if (rc == 0 && (!f || sl_afile_commit(&af) < 0))
		rc = -1;
	unlink(all);
	free(all);
	return rc;
}

/* The sweep proper, with cpufreq already under control.  `suite` holds
 * workload files (simulator) or kernel names (native); idle_w gets the idle
 * power of each P-state (native only). */
static int sweep(const sl_machine *skel, const sl_sweep_opts *o, const sl_sim_machine *sm,
		 char **suite, size_t n_suite, sl_cpufreq_ctl *ctl, sl_energy *rapl,
		 double *idle_w, sl_sweep *out)
{
	out->runs = sl_xcalloc(skel->n_pstates * n_suite + 1, sizeof *out->runs);
	for (size_t p = 0; p < skel->n_pstates; p++) {
		double ghz = skel->pstates[p].ghz;
		sl_info("sweep: %g GHz (%zu of %zu)", ghz, p + 1, skel->n_pstates);
		if (sl_cpufreq_ctl_set(ctl, ghz) < 0)
			return -1;
		double now = sl_cpufreq_ctl_current(ctl);
		if (fabs(now - ghz) > 0.0005) {
			sl_error_set("cpufreq was set to %g GHz but reports %g GHz; another "
				     "governor or a thermal limit overrides it", ghz, now);
			return -1;
		}
		if (!sm && native_idle(o, rapl, &idle_w[p]) < 0)
			return -1;
		for (size_t k = 0; k < n_suite; k++) {
			sl_sweep_run *r = &out->runs[out->n++];
			r->ghz = ghz;
			r->ghz_read = now;
			if ((sm ? sim_run(o, sm, suite[k], now, rapl, r)
				: native_run(skel, o, suite[k], now, rapl, r)) < 0) {
				sl_error_prefix("%s at %g GHz: ", r->workload ? r->workload
									  : suite[k], ghz);
				return -1;
			}
		}
	}
	return 0;
}

/* The native idle log: one row per P-state. */
static int write_idle(const sl_machine *skel, const double *w, sl_sweep *out,
		      const char *workdir)
{
	out->idle_log = sl_xasprintf("%s/idle.csv", workdir);
	sl_afile af;
	FILE *f = sl_afile_open(&af, out->idle_log);
	if (!f)
		return -1;
	fprintf(f, "# idle power by RAPL at each P-state (sleuth calibrate --sweep)\n"
		   "ghz,power_w\n");
	for (size_t p = 0; p < skel->n_pstates; p++)
		fprintf(f, "%.6g,%.6g\n", skel->pstates[p].ghz, w[p]);
	return sl_afile_commit(&af);
}

int sl_sweep_run_all(const sl_machine *skel, const sl_sweep_opts *o, sl_sweep *out)
{
	memset(out, 0, sizeof *out);
	sl_sim_machine sm;
	if (o->sim_machine) {
		if (sl_sim_machine_load(o->sim_machine, &sm) < 0)
			return -1;
		for (size_t p = 0; p < skel->n_pstates; p++)
			if (sl_sim_machine_pstate(&sm, skel->pstates[p].ghz) < 0) {
				sl_error_prefix("machine %s: ", skel->name);
				sl_sim_machine_free(&sm);
				return -1;
			}
	}
	size_t n_suite = 0;
	char **suite = NULL;
	if (o->sim_machine) {
		suite = training_suite(&n_suite);
	} else {
		while (sl_train_kernel_name(n_suite))
			n_suite++;
		suite = sl_xcalloc(n_suite, sizeof *suite);
		for (size_t k = 0; k < n_suite; k++)
			suite[k] = sl_xstrdup(sl_train_kernel_name(k));
	}
	char *pc = sl_xasprintf("%s/class/powercap", o->sysfs_root ? o->sysfs_root : "/sys");
	sl_energy *rapl = o->sysfs_root ? sl_energy_open_at(pc, 0) : sl_energy_open();
	free(pc);
	int rc = -1;
	double *idle_w = sl_xcalloc(skel->n_pstates, sizeof *idle_w);
	sl_cpufreq_ctl ctl;
	if (!o->sim_machine && !rapl)
		sl_error_prefix("the sweep measures energy with RAPL: ");
	else if (n_suite && sl_cpufreq_ctl_open(&ctl, o->sysfs_root) == 0) {
		out->userspace = ctl.userspace;
		if (rapl)
			out->rapl_source = sl_xstrdup(sl_energy_source(rapl));
		sl_hwmon_temp_c(o->sysfs_root, &out->temp_sensor);
		rc = sweep(skel, o, o->sim_machine ? &sm : NULL, suite, n_suite, &ctl, rapl,
			   idle_w, out);
		sl_cpufreq_ctl_restore(&ctl); /* before anything else can fail */
		if (rc == 0)
			rc = o->sim_machine ? idle_log(skel, o, &sm, out)
					    : write_idle(skel, idle_w, out, o->workdir);
	}
	if (rapl)
		sl_energy_close(rapl);
	free(idle_w);
	for (size_t k = 0; k < n_suite; k++)
		free(suite[k]);
	free(suite);
	if (o->sim_machine)
		sl_sim_machine_free(&sm);
	if (rc < 0)
		sl_sweep_free(out);
	return rc;
}

void sl_sweep_free(sl_sweep *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->runs[i].workload);
		free(s->runs[i].trace);
	}
	free(s->runs);
	free(s->idle_log);
	free(s->rapl_source);
	free(s->temp_sensor);
	memset(s, 0, sizeof *s);
}

/* Predicted time of `trace` (replayed as `sleuth run --replay` would) at
 * every P-state of m, by the stall model (linear where m lacks its events). */
static int predict_times(const sl_sweep_run *r, const sl_machine *m, uint64_t seed, double *t)
{
	sl_profile p;
	sl_profile_init(&p);
	sl_model md;
	int rc;
	if (r->is_profile) {
		rc = sl_profile_read(r->trace, &p);
	} else {
		sl_replay_opts ro = {.trace = r->trace, .machine = m, .counters = -1,
				     .seed = seed};
		sl_backend *b = sl_replay_backend_new(&ro);
		if (!b)
			return -1;
		sl_collect_opts co;
		sl_collect_opts_init(&co);
		sl_collect_stats cs;
		rc = sl_collect(b, &co, &p, &cs);
		b->finish(b);
		b->destroy(b);
	}
	if (rc == 0 && sl_model_init(&md, &p, m, SL_TIME_STALL, SL_MODEL_TIME_ONLY) < 0 &&
	    sl_model_init(&md, &p, m, SL_TIME_LINEAR, SL_MODEL_TIME_ONLY) < 0)
		rc = -1;
	for (size_t s = 0; rc == 0 && s < m->n_pstates; s++) {
		sl_opoint op;
		sl_agg total;
		if (sl_model_opoint(&md, m->pstates[s].ghz, &op) < 0) {
			rc = -1;
			break;
		}
		sl_model_aggregate(&md, &op, NULL, NULL, &total);
		t[s] = total.time_s;
	}
	if (rc == 0)
		sl_model_free(&md);
	sl_profile_free(&p);
	return rc;
}

int sl_sweep_check_time(const sl_sweep *sw, const sl_machine *m, uint64_t seed,
			double *mean_err, double *worst_err)
{
	size_t np = m->n_pstates;
	size_t *n = sl_xcalloc(np, sizeof *n);
	double *t = sl_xcalloc(np, sizeof *t);
	int rc = 0;
	for (size_t s = 0; s < np; s++)
		mean_err[s] = worst_err[s] = 0;
	/* each workload's run at the fastest P-state predicts all the others */
	for (size_t i = 0; i < sw->n && rc == 0; i++) {
		const sl_sweep_run *r0 = &sw->runs[i];
		if (fabs(r0->ghz - m->pstates[0].ghz) > 0.0005)
			continue;
		if (predict_times(r0, m, seed, t) < 0) {
			sl_error_prefix("checking the time model on %s: ", r0->workload);
			rc = -1;
			break;
		}
		for (size_t j = 0; j < sw->n; j++) {
			const sl_sweep_run *r = &sw->runs[j];
			int s = sl_machine_pstate(m, r->ghz);
			if (s < 0 || strcmp(r->workload, r0->workload) || !(r->time_s > 0))
				continue;
			double e = fabs(t[s] - r->time_s) / r->time_s;
			mean_err[s] += e;
			worst_err[s] = SL_MAX(worst_err[s], e);
			n[s]++;
		}
	}
	for (size_t s = 0; s < np; s++)
		mean_err[s] = n[s] ? mean_err[s] / (double)n[s] : NAN;
	free(n);
	free(t);
	return rc;
}
