/*
 * Setting the CPU frequency for a calibration sweep, and putting it back.
 *
 * Every CPU's cpufreq directory is saved first (governor, min, max and,
 * under the userspace governor, setspeed).  A P-state is set with the
 * userspace governor and scaling_setspeed where the driver offers them,
 * else by pinning scaling_min_freq = scaling_max_freq (intel_pstate,
 * amd-pstate).  The saved settings are restored on every way out: by
 * sl_cpufreq_ctl_restore() on the normal and error paths, and on SIGINT,
 * SIGTERM and SIGHUP by a handler that writes the pre-formatted values with
 * open/write/close only (async-signal-safe) and then dies of the signal.
 */
#include "sleuth/hw.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sleuth/common.h"

#define MAX_RESTORE 4096

/* One file to write back: a fixed-size record so that the signal handler
 * needs no allocation. */
typedef struct restore_rec {
	char path[512];
	char value[64];
} restore_rec;

static restore_rec *recs; /* MAX_RESTORE, in the order to write them */
static volatile sig_atomic_t n_recs;
static struct sigaction old_act[3];
static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};

static void write_all_recs(void)
{
	for (sig_atomic_t i = 0; i < n_recs; i++) {
		int fd = open(recs[i].path, O_WRONLY | O_TRUNC);
		if (fd < 0)
			continue;
		ssize_t w = write(fd, recs[i].value, strlen(recs[i].value));
		(void)w;
		close(fd);
	}
}

/* Restore, then hand the signal on: to the handler that was there before
 * (e.g. the one removing half-written output files), or the default. */
static void on_signal(int sig)
{
	write_all_recs();
	n_recs = 0;
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		if (sigs[i] == sig && !(old_act[i].sa_flags & SA_SIGINFO) &&
		    old_act[i].sa_handler != SIG_DFL && old_act[i].sa_handler != SIG_IGN &&
		    old_act[i].sa_handler != on_signal) {
			sigaction(sig, &old_act[i], NULL);
			old_act[i].sa_handler(sig);
			return;
		}
	signal(sig, SIG_DFL);
	raise(sig);
}

static int write_file(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(value, f) == EOF || fclose(f) == EOF) {
		sl_error_set("cannot write '%.*s' to %s: %s (setting the frequency needs root)",
			     (int)strcspn(value, "\n"), value, path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return 0;
}

static void add_rec(const char *path, const char *value)
{
	if (n_recs >= MAX_RESTORE)
		return;
	restore_rec *r = &recs[n_recs];
	snprintf(r->path, sizeof r->path, "%s", path);
	snprintf(r->value, sizeof r->value, "%s\n", value); /* as sysfs shows it */
	n_recs++;
}

static int is_cpu_dir(const char *name)
{
	if (strncmp(name, "cpu", 3) || !name[3])
		return 0;
	for (const char *p = name + 3; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sl_cpufreq_ctl_open(sl_cpufreq_ctl *c, const char *root)
{
	memset(c, 0, sizeof *c);
	if (!root)
		root = "/sys";
	if (recs && n_recs) {
		sl_error_set("a frequency sweep is already under way in this process");
		return -1;
	}
	char *dir = sl_xasprintf("%s/devices/system/cpu", root);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!is_cpu_dir(e->d_name))
			continue;
		char *p = sl_xasprintf("%s/%s/cpufreq", dir, e->d_name);
		if (access(p, F_OK) == 0) {
			c->dirs = sl_xreallocarray(c->dirs, c->n + 1, sizeof *c->dirs);
			c->dirs[c->n++] = p;
		} else {
			free(p);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	if (!c->n) {
		sl_error_set("%s/devices/system/cpu has no cpu*/cpufreq: no cpufreq driver, "
			     "so the frequency cannot be set", root);
		free(c->dirs);
		c->dirs = NULL;
		return -1;
	}
	qsort(c->dirs, c->n, sizeof *c->dirs, cmp_str);
	char *govs = sl_sysfs_line(c->dirs[0], "scaling_available_governors");
	char *sp = sl_xasprintf("%s/scaling_setspeed", c->dirs[0]);
	c->userspace = govs && strstr(govs, "userspace") && access(sp, F_OK) == 0;
	free(govs);
	free(sp);
	/* Save: writing back min before max could be refused when the sweep
	 * left them pinned high, so each CPU gets max, min, max; then its
	 * governor.  Under a userspace governor, setspeed is written again
	 * after it. */
	if (!recs)
		recs = sl_xcalloc(MAX_RESTORE, sizeof *recs);
	for (size_t i = 0; i < c->n; i++) {
		/* setspeed first, while the governor may still be userspace (a
		 * kernel refuses it under other governors: harmless) */
		char *sp_now = sl_sysfs_line(c->dirs[i], "scaling_setspeed");
		if (sp_now) {
			char *path = sl_xasprintf("%s/scaling_setspeed", c->dirs[i]);
			add_rec(path, sp_now);
			free(path);
			free(sp_now);
		}
		static const char *const order[] = {"scaling_max_freq", "scaling_min_freq",
						    "scaling_max_freq", "scaling_governor"};
		for (size_t k = 0; k < SL_ARRAY_LEN(order); k++) {
			char *v = sl_sysfs_line(c->dirs[i], order[k]);
			if (!v) {
				sl_error_set("cannot read %s/%s: %s", c->dirs[i], order[k],
					     strerror(errno));
				n_recs = 0;
				sl_cpufreq_ctl_restore(c); /* not active yet: frees only */
				return -1;
			}
			char *path = sl_xasprintf("%s/%s", c->dirs[i], order[k]);
			add_rec(path, v);
			free(path);
			free(v);
		}
		char *gov = sl_sysfs_line(c->dirs[i], "scaling_governor");
		char *sp = gov && !strcmp(gov, "userspace") ? sl_sysfs_line(c->dirs[i],
									      "scaling_setspeed")
							     : NULL;
		if (sp) {
			char *path = sl_xasprintf("%s/scaling_setspeed", c->dirs[i]);
			add_rec(path, sp);
			free(path);
		}
		free(sp);
		free(gov);
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < SL_ARRAY_LEN(sigs); i++) {
		sigaction(sigs[i], &sa, &old_act[i]);
		if (old_act[i].sa_handler == SIG_IGN) /* nohup: stays ignored */
			sigaction(sigs[i], &old_act[i], NULL);
	}
	c->active = 1;
	return 0;
}

int sl_cpufreq_ctl_set(sl_cpufreq_ctl *c, double ghz)
{
	char khz[32];
	snprintf(khz, sizeof khz, "%lld\n", (long long)(ghz * 1e6 + 0.5));
	for (size_t i = 0; i < c->n; i++) {
		char *p;
		int rc;
		if (c->userspace) {
			p = sl_xasprintf("%s/scaling_governor", c->dirs[i]);
			rc = write_file(p, "userspace\n");
			free(p);
			if (rc == 0) {
				p = sl_xasprintf("%s/scaling_setspeed", c->dirs[i]);
				rc = write_file(p, khz);
				free(p);
			}
		} else {
			/* min = max = f: lower min first when going down, raise
			 * max first when going up; writing max, min, max covers both */
			static const char *const order[] = {"scaling_max_freq",
							    "scaling_min_freq",
							    "scaling_max_freq"};
			rc = 0;
			for (size_t k = 0; k < SL_ARRAY_LEN(order) && rc == 0; k++) {
				p = sl_xasprintf("%s/%s", c->dirs[i], order[k]);
				rc = write_file(p, khz);
				free(p);
			}
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

double sl_cpufreq_ctl_current(const sl_cpufreq_ctl *c)
{
	static const char *const files[] = {"scaling_cur_freq", "scaling_setspeed",
					    "scaling_max_freq"};
	for (size_t k = 0; k < SL_ARRAY_LEN(files); k++) {
		if (k == 1 && !c->userspace)
			continue;
		char *s = sl_sysfs_line(c->dirs[0], files[k]);
		uint64_t v;
		int ok = s && sl_parse_u64(s, &v) == 0 && v > 0;
		free(s);
		if (ok)
			return (double)v / 1e6;
	}
	return 0;
}

void sl_cpufreq_ctl_restore(sl_cpufreq_ctl *c)
{
	if (c->active) {
		sigset_t all, old;
		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, &old);
		write_all_recs();
		n_recs = 0;
		for (size_t i = 0; i < SL_ARRAY_LEN(sigs); i++)
			sigaction(sigs[i], &old_act[i], NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		c->active = 0;
	}
	for (size_t i = 0; i < c->n; i++)
		free(c->dirs[i]);
	free(c->dirs);
	free(recs);
	recs = NULL;
	c->dirs = NULL;
	c->n = 0;
}
