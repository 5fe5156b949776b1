/*
 * Every perf_event system call sleuth makes goes through this one table:
 * perf_event_open, the ioctls, read, mmap/munmap of the rings, close, poll,
 * and the few kernel files that say what the PMU can give (the NMI
 * watchdog, SMT, perf_event_paranoid).  By default they are the real
 * system calls; with SLEUTH_FAKE_PMU=<libpfm4 PMU name> (tests only) they
 * are a userspace model of the kernel's perf_event ABI on that PMU
 * (collect/fakepmu.c), so the real perf backend runs end to end on machines
 * without a PMU.
 */
#ifndef SLEUTH_COLLECT_PERF_SYS_H
#define SLEUTH_COLLECT_PERF_SYS_H

#include <linux/perf_event.h>
#include <poll.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct sl_perf_sys {
	const char *name; /* "kernel", or the fake PMU's libpfm4 name */
	/* As the system calls: -1 with errno set on failure. */
	int (*open)(struct perf_event_attr *a, pid_t pid, int cpu, int group,
		    unsigned long flags);
	int (*ioctl)(int fd, unsigned long req, unsigned long arg);
	ssize_t (*read)(int fd, void *buf, size_t len);
	void *(*mmap)(size_t len, int fd);   /* MAP_FAILED on failure */
	int (*munmap)(void *p, size_t len);
	int (*close)(int fd);
	int (*poll)(struct pollfd *p, nfds_t n, int timeout_ms);
	/* An integer kernel setting (a /proc/sys or /sys path); dflt if the
	 * file is absent or unreadable. */
	long (*knob)(const char *path, long dflt);
} sl_perf_sys;

/* The table in use: the fake PMU when SLEUTH_FAKE_PMU is set (and libpfm4
 * is then forced to that PMU), else the kernel.  Chosen once. */
const sl_perf_sys *sl_perf_sys_get(void);
/* The fake PMU's table for pmu (a libpfm4 PMU name), or NULL with
 * sl_error() if the model does not know it.  opts as SLEUTH_FAKE_PMU_OPTS:
 * "ht=0,watchdog=0,paranoid=3,max_rate=N,pinned=N,pinned_cpu=C,
 * pinned_later=1,deny=EPERM|EBUSY,hybrid=1" (NULL: defaults). */
const sl_perf_sys *sl_fake_pmu_sys(const char *pmu, const char *opts);

/* Kernel settings sleuth reads. */
#define SL_KNOB_WATCHDOG "/proc/sys/kernel/nmi_watchdog"
#define SL_KNOB_SMT "/sys/devices/system/cpu/smt/active"
#define SL_KNOB_PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define SL_KNOB_MAX_RATE "/proc/sys/kernel/perf_event_max_sample_rate"
/* present (the PMU's type number) only on hybrid Intel CPUs */
#define SL_KNOB_HYBRID "/sys/bus/event_source/devices/cpu_core/type"

#endif
