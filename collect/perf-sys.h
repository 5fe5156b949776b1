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
#include <stdint.h>
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
	/* The event source device of dynamic PMU type `type`, the directory
	 * /sys/bus/event_source/devices/<dev> whose file `type` holds it: its
	 * name in dev and its file `cpumask` (the CPUs to open the PMU's
	 * events on, one per socket or die for an uncore PMU) in cpus.  0, or
	 * -1 when no device has that type. */
	int (*pmu_device)(uint32_t type, char *dev, size_t dev_len, char *cpus,
			  size_t cpus_len);
	/* The fake PMU only (NULL for the kernel): what libpfm4's perf encoder
	 * would give an uncore event on the modelled machine.  libpfm4 cannot:
	 * under LIBPFM_FORCE_PMU it sets up the forced core PMU alone, and its
	 * uncore encoders read the PMU's type from the real
	 * /sys/bus/event_source/devices/<pmu>/type.  0, or -1 with sl_error()
	 * when the model has no such uncore PMU. */
	int (*uncore_encode)(const char *event, struct perf_event_attr *a);
} sl_perf_sys;

/* The table in use: the fake PMU when SLEUTH_FAKE_PMU is set (and libpfm4
 * is then forced to that PMU), else the kernel.  Chosen once. */
const sl_perf_sys *sl_perf_sys_get(void);
/* The fake PMU's table for pmu (a libpfm4 PMU name), or NULL with
 * sl_error() if the model does not know it.  opts as SLEUTH_FAKE_PMU_OPTS:
 * "ht=0,watchdog=0,paranoid=3,max_rate=N,pinned=N,pinned_cpu=C,
 * pinned_later=1,deny=EPERM|EBUSY,hybrid=1,uncore=0|nhm_unc|wsm_unc|
 * skx_unc_imc,sockets=N,cap_perfmon=1" (NULL: defaults). */
const sl_perf_sys *sl_fake_pmu_sys(const char *pmu, const char *opts);

/* Kernel settings sleuth reads. */
#define SL_KNOB_WATCHDOG "/proc/sys/kernel/nmi_watchdog"
#define SL_KNOB_SMT "/sys/devices/system/cpu/smt/active"
#define SL_KNOB_PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define SL_KNOB_MAX_RATE "/proc/sys/kernel/perf_event_max_sample_rate"
/* present (the PMU's type number) only on hybrid Intel CPUs */
#define SL_KNOB_HYBRID "/sys/bus/event_source/devices/cpu_core/type"

#endif
