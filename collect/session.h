/*
 * The engine under the live backends, internal to libsleuth: event
 * encoding with libpfm4, the perf ring-buffer reader, and the session that
 * starts the target, opens its events on every CPU, reads the rings and
 * cuts intervals.  The backends built on it are public (sleuth/collect.h).
 */
#ifndef SLEUTH_COLLECT_SESSION_H
#define SLEUTH_COLLECT_SESSION_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sleuth/backend.h"
#include "sleuth/collect.h"

/* ---- libpfm4 event encoding (user space only) ------------------------ */

/* Fill *attr (type, config, config1/2; size) for a libpfm4 event name,
 * counting user space only.  -1 with an error naming the event and the PMU
 * when the CPU lacks it. */
int sl_pfm_encode(const char *event, struct perf_event_attr *attr);
/* Fill *attr for an uncore event (sl_pfm_uncore): libpfm4's perf
 * encoding, whose type is the uncore PMU's dynamic one from sysfs, with
 * what such a PMU refuses cleared (exclude_*, sampling, inherit).  -1 with
 * the reason (no such PMU here) in sl_error(). */
int sl_pfm_encode_uncore(const char *event, struct perf_event_attr *attr);
/* A channel-less uncore PMU name: "skx_unc_imc::UNC_M_CAS_COUNT:RD" names
 * every channel of the memory controller (libpfm4 has one PMU per channel,
 * skx_unc_imc0 .. skx_unc_imc5).  *names: the event on each channel libpfm4
 * knows for that family, present here or not (malloc'd, each too); how
 * many.  0 (and NULL) when the event's PMU is no such family: a PMU of
 * that very name, a name ending in a digit, or none libpfm4 knows. */
#define SL_PFM_CHANNELS_MAX 64
size_t sl_pfm_channels(const char *event, char ***names);
/* Encode uncore event ev into *attrs (n_attr of cap_attr used, grown):
 * one attr, or one per channel present here for a channel-less name
 * (sl_pfm_channels), *boxes of them.  NULL, or why it cannot be counted
 * here (malloc'd; *boxes 0). */
char *sl_pfm_encode_controller(const char *ev, struct perf_event_attr **attrs,
			       size_t *n_attr, size_t *cap_attr, size_t *boxes);
/* 1 when uncore event ev (a channel-less name too) is encodable here and
 * at least one of its PMUs has a sysfs device (through sl_perf_sys: the
 * fake PMU's too); 0 with why in sl_error().  Counting it may still need
 * permission (perf_event_paranoid <= 0 or CAP_PERFMON). */
int sl_pfm_uncore_present(const char *ev);
/* The way out when an uncore PMU is absent, for error lines. */
#define SL_UNCORE_FIX "name this machine's memory controller event in the " \
	"machine model (docs/hardware.md, \"Uncore events\")"
/* libpfm4's raw codes of an event (PFM_OS_NONE), of an inactive PMU too
 * when LIBPFM_ENCODE_INACTIVE is set: up to max into codes, how many, or
 * -1 with sl_error(). */
int sl_pfm_codes(const char *event, uint64_t *codes, int max);
/* The event that samples retired conditional branches on this PMU and
 * whether it may be precise (PEBS); NULL with sl_error() if none. */
const char *sl_pfm_branch_event(int *precise);
/* The precise_ip to ask for when sampling on PMU pmu (libpfm4 name): 2 on
 * Intel (PEBS, lowered by the session if refused), 0 on AMD (no PEBS) and
 * Arm (arm_pmu accepts precise_ip and ignores it: asking would record a
 * precision never had). */
int sl_pfm_precise_for(const char *pmu);
/* What a profile records of the samples' precision, in buf. */
const char *sl_pfm_sampling_desc(const char *pmu, int precise, char *buf, size_t len);

/* ---- perf ring buffer ------------------------------------------------ */

typedef struct sl_ring {
	int fd;
	void *base;               /* metadata page followed by the data pages */
	size_t map_len;
	size_t data_size;         /* a power of two */
	unsigned char *scratch;   /* a record that wraps, made contiguous */
	size_t scratch_cap;
} sl_ring;

/* Map 2^n data pages of a perf event's ring buffer (n from data_pages,
 * rounded up to a power of two).  0 or -1. */
int sl_ring_map(sl_ring *r, int fd, size_t data_pages);
/* Hand every complete record to fn (the pointer is valid during the call
 * only), then release the space to the kernel.  Returns the number of
 * records, or -1 if fn returned -1. */
int sl_ring_drain(sl_ring *r,
		  int (*fn)(void *ctx, const struct perf_event_header *h),
		  void *ctx);
void sl_ring_unmap(sl_ring *r);

/* ---- the shared engine of the live backends --------------------------- */

/* Sample layout used for every sampling event of a session. */
#define SL_SAMPLE_TYPE \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

typedef struct sl_session sl_session;

/* perf_event_open with sleuth's error lines (no PMU, paranoid, ...); what
 * names the event in them.  fd or -1. */
int sl_perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
		 const char *what);

typedef struct sl_session_cfg {
	char *const *argv;            /* target and its arguments (execvp) */
	/* Group leader, counting; with a sample_period it overflows once per
	 * interval and its overflows cut the intervals. */
	struct perf_event_attr boundary;
	/* Or (boundary.sample_period 0): cut an interval every this many
	 * samples, each sample standing for sampler.sample_period of the
	 * sampler's event (the timer: cpu-clock time), with no interrupts of
	 * its own. */
	uint64_t samples_per_interval;
	/* Address samples (may be precise); opened with precise fallback. */
	struct perf_event_attr sampler;
	int sampler_precise_fallback; /* retry with precise_ip - 1 down to 0 */
	/* Group members after the leader; those with disabled = 1 stay off
	 * until sl_session_enable(). */
	const struct perf_event_attr *members;
	size_t n_members;
	const char *const *member_names; /* for errors */
	/* Uncore events (sl_pfm_uncore, encoded by sl_pfm_encode_uncore):
	 * opened system-wide on the CPUs of their PMU's sysfs cpumask, outside
	 * the group, enabled when the target is released and read at every
	 * boundary.  Event i is uncore_boxes[i] attrs (NULL: one each), those
	 * of event i - 1 first in uncore: one per channel PMU of a memory
	 * controller (sl_pfm_channels), their counts summed; a box whose PMU
	 * type has no sysfs device is left out.  uncore_problem[i] non-NULL:
	 * event i was not encoded (why); it is not opened.  One that cannot
	 * be opened is left out too, with its reason
	 * (sl_session_uncore_problem): never an error. */
	const struct perf_event_attr *uncore;
	const size_t *uncore_boxes;
	size_t n_uncore;
	const char *const *uncore_names;
	const char *const *uncore_problem;
	size_t ring_pages;            /* data pages per CPU ring (0: 16) */
	int energy;                   /* read RAPL energy (and hwmon's die
				       * temperature) at each boundary */
	const char *sysfs_root;       /* where (NULL: /sys, PAPI first) */
} sl_session_cfg;

/* One interval as cut by the engine. */
typedef struct sl_interval {
	double start_s, time_s;   /* wall clock, since the target's exec */
	uint64_t *values;         /* 1 + n_members deltas (leader first) */
	uint64_t *uncore;         /* n_uncore deltas, each summed over its
				   * PMU's CPUs; SL_MISSING when not counted */
	uint64_t run_ns;          /* the group's running time in the interval */
	uint64_t task_ns;         /* the target's CPU time in it (task-clock):
				   * run_ns < task_ns means the group was
				   * multiplexed off the PMU part of the time */
	uint64_t *samples;        /* addresses */
	size_t n_samples;
	uint64_t lost;
	uint64_t throttled;       /* THROTTLE records in the interval */
	double energy_j;          /* NAN unless cfg.energy */
	double temp_c;            /* die temperature at the interval's end;
				   * NAN without cfg.energy or a sensor */
} sl_interval;

/* Fork the target (held before exec), open its events on every CPU and
 * map the rings.  NULL with sl_error() (the target is reaped). */
sl_session *sl_session_start(const sl_session_cfg *cfg);
/* Switch member i on or off for the target and all its threads. */
int sl_session_enable(sl_session *s, size_t member, int on);
/* After the enables of one program(): members switched on since the last
 * interval missed its start (between the boundary read and the enable);
 * the group is read now, and at the next cut their counts are scaled by
 * the share of the interval's instructions they saw. */
int sl_session_enable_done(sl_session *s);
/* The precise_ip the sampler was opened with. */
int sl_session_precise(const sl_session *s);
/* 1: the next interval in *iv (storage owned by the session until the
 * next call); 0: the target ended and everything is delivered; -1. */
int sl_session_next(sl_session *s, sl_interval *iv);
/* Ask the target to stop (SIGINT); async-signal-safe. */
void sl_session_interrupt(sl_session *s);
/* The same with signal sig (SIGTERM, SIGHUP) forwarded; the second of
 * either is SIGKILL.  Async-signal-safe. */
void sl_session_signal(sl_session *s, int sig);
/* Why uncore event i is not counted (one line: the cause and the fix),
 * or NULL when it is. */
const char *sl_session_uncore_problem(const sl_session *s, size_t i);
/* Exit status as a shell reports it; waits for the target if needed. */
int sl_session_status(sl_session *s);
/* Executable mappings seen so far (owned by the session). */
const sl_mapping *sl_session_maps(const sl_session *s, size_t *n);
uint64_t sl_session_lost(const sl_session *s);
/* THROTTLE records seen (the kernel stopped a sampling event for the rest
 * of a tick), and intervals merged into the next because their boundaries
 * were read together. */
uint64_t sl_session_throttles(const sl_session *s);
uint64_t sl_session_merged(const sl_session *s);
pid_t sl_session_pid(const sl_session *s);
const char *sl_session_energy_source(const sl_session *s);
void sl_session_free(sl_session *s);

#endif
