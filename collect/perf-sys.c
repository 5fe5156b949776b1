/*
 * The real perf_event system calls behind sleuth's one table of them
 * (collect/perf-sys.h), and the choice between them and the fake PMU.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf-sys.h"
#include "sleuth/common.h"

static int k_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
		  unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

static int k_ioctl(int fd, unsigned long req, unsigned long arg)
{
	return ioctl(fd, req, arg);
}

static void *k_mmap(size_t len, int fd)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

static long k_knob(const char *path, long dflt)
{
	FILE *f = fopen(path, "r");
	long v = dflt;
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

/* A sysfs file's first line, newline dropped; 0 or -1. */
static int first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok ? 0 : -1;
}

/* libpfm4 put the type in the attr but does not say which device it read
 * it from: the one whose `type` file holds it. */
static int k_pmu_device(uint32_t type, char *dev, size_t dev_len, char *cpus,
			size_t cpus_len)
{
	const char *root = "/sys/bus/event_source/devices";
	DIR *d = opendir(root);
	struct dirent *de;
	int rc = -1;
	while (d && rc < 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *p = sl_xasprintf("%s/%s/type", root, de->d_name), line[32];
		if (first_line(p, line, sizeof line) == 0 &&
		    strtoul(line, NULL, 10) == type) {
			free(p);
			p = sl_xasprintf("%s/%s/cpumask", root, de->d_name);
			snprintf(dev, dev_len, "%s", de->d_name);
			rc = first_line(p, cpus, cpus_len);
		}
		free(p);
	}
	if (d)
		closedir(d);
	return rc;
}

static const sl_perf_sys kernel_sys = {
	.name = "kernel",
	.open = k_open,
	.ioctl = k_ioctl,
	.read = read,
	.mmap = k_mmap,
	.munmap = munmap,
	.close = close,
	.poll = poll,
	.knob = k_knob,
	.pmu_device = k_pmu_device,
};

const sl_perf_sys *sl_perf_sys_get(void)
{
	static const sl_perf_sys *sys;
	if (sys)
		return sys;
	const char *fake = getenv("SLEUTH_FAKE_PMU");
	if (fake && *fake) {
		sys = sl_fake_pmu_sys(fake, getenv("SLEUTH_FAKE_PMU_OPTS"));
		if (!sys) {
			/* a test asked for a PMU the model lacks: never measure
			 * the real machine instead */
			fprintf(stderr, "sleuth: SLEUTH_FAKE_PMU=%s: %s\n", fake, sl_error());
			exit(2);
		}
		return sys;
	}
	return sys = &kernel_sys;
}
