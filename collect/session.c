/*
 * The engine shared by the perf and timer backends: start the target,
 * open its events, read the rings and cut the run into intervals.
 *
 * The target is forked and held on a pipe until its events are open; they
 * are enabled by its exec (enable_on_exec), so sleuth's own start-up is not
 * measured.  Events follow the target's threads (inherit).  The kernel
 * refuses to mmap an inherited event that follows a task on any CPU, so, as
 * `perf record` does, every event is opened once per CPU for the target,
 * each CPU with its own ring into which the sampler and the boundary
 * leader both write.
 *
 * Intervals: the group leader (instructions) overflows every
 * interval/ticks on each (thread, CPU) and writes a record; an interval is
 * closed after `ticks` such records, so a thread that migrates still gets
 * intervals of interval +- interval/ticks.  Without a leader period (the
 * timer backend), every address sample is a tick: a cpu-clock sample
 * stands for exactly one sampling period of the target's CPU time, so N
 * samples make an interval of N periods of CPU time, without the extra
 * interrupts a second sampling event would cost (they are dear in a VM).  Records carry CLOCK_MONOTONIC
 * timestamps; samples go to the interval whose closing record follows them.
 * When the group counts events, the collector is woken at every boundary to
 * read them (eager); otherwise it reads the rings when half full (lazy),
 * which costs the target almost nothing.
 *
 * Uncore events (a memory controller's reads) are no task's: an uncore PMU
 * counts its whole socket, so, by perf_event_open(2) and the kernel's
 * uncore drivers, they are opened cpu-wide (pid -1) on the CPUs of the
 * PMU's sysfs cpumask (one per socket or die: opened on every CPU they
 * would count each socket once per CPU), outside the group, without
 * exclude bits or sampling, which such a PMU refuses.  enable_on_exec is a
 * task event's, so they are enabled as the target is released, and read
 * with the group at every boundary.  A memory controller with one PMU per
 * channel is one event over several boxes: each opened so, the counts
 * summed.  One that cannot be opened (cpu-wide
 * counting needs perf_event_paranoid <= 0 or CAP_PERFMON) is left out with
 * its reason: the run goes on without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perf-sys.h"
#include "session.h"
#include "sleuth/common.h"
#include "sleuth/hw.h"
#include "sleuth/profile.h"

#define TICKS 4

typedef struct pend_sample {
	uint64_t ip, time;
} pend_sample;

typedef struct cpu_events {
	int id;              /* the CPU's number */
	int leader, sampler;
	int ref;             /* task-clock: the target's time on this CPU */
	uint64_t leader_id;  /* each CPU's leader has its own id */
	int *members;
	sl_ring ring;
} cpu_events;

struct sl_session {
	char *prog;
	pid_t pid;
	int gate_fd;       /* write end: releases the held child */
	int err_fd;        /* read end: errno of a failed exec, or EOF */
	int pidfd;
	int started, exited, status;
	volatile sig_atomic_t interrupts;
	int ncpu;
	cpu_events *cpus;
	size_t n_members;
	int eager;
	int precise;
	size_t ticks;        /* boundary records per interval */
	int sample_ticks;    /* every address sample is also a tick */
	uint64_t t0_ns, last_cut_ns, exit_ns;
	/* records not yet assigned to an interval */
	pend_sample *pend;
	size_t n_pend, cap_pend;
	uint64_t *bounds;
	size_t n_bounds, cap_bounds;
	uint64_t lost, lost_pending;
	uint64_t throttles, throttles_pending, merged;
	uint64_t ring_leader_id; /* the leader of the ring being drained */
	/* counts */
	uint64_t *prev, *now;   /* 1 + n_members, summed over CPUs */
	uint64_t prev_run, now_run;
	uint64_t prev_task, now_task;   /* the target's CPU time (task-clock) */
	uint64_t *deltas;
	char *late;             /* member switched on after the last read */
	uint64_t *late_base;    /* instructions when it was switched on */
	uint64_t *late_own;     /* its own count then (what it saw before that read) */
	/* the interval handed out */
	uint64_t *out_samples;
	size_t cap_out;
	int delivered_last;
	sl_mapping *maps;
	size_t n_maps, cap_maps;
	uint32_t *map_pid;   /* per mapping: the process that mapped it */
	uint64_t *map_canon; /* per mapping: where its file sits in canonical
			      * addresses (see canonical()) */
	size_t last_map;     /* the mapping of the last sample: a cache */
	/* uncore events: each on its PMU's cpumask CPUs (fds -1 when not
	 * counted), values and enabled/running times summed over them */
	size_t n_unc;
	int **unc_fd;
	size_t *unc_ncpu;
	char **unc_problem;
	uint64_t (*unc_prev)[3];
	uint64_t *unc_out;
	sl_energy *energy;
	double prev_energy;
	char *hwmon;         /* with energy: the CPU temperature sensor, or NULL */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- target ------------------------------------------------------------ */

/* Fork the program, held before exec on a pipe.  A failed exec reports its
 * errno through a close-on-exec pipe, so the parent can tell "not found"
 * from a program that ran and failed. */
static int target_fork(sl_session *s, char *const *argv)
{
	int gate[2], err[2];
	if (pipe2(gate, O_CLOEXEC) < 0) {
		sl_error_set("cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(err, O_CLOEXEC) < 0) {
		sl_error_set("cannot create a pipe: %s", strerror(errno));
		close(gate[0]), close(gate[1]);
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		sl_error_set("cannot fork: %s", strerror(errno));
		close(gate[0]), close(gate[1]), close(err[0]), close(err[1]);
		return -1;
	}
	if (pid == 0) {
		char c;
		close(gate[1]);
		close(err[0]);
		if (read(gate[0], &c, 1) != 1)
			_exit(127); /* sleuth gave up before the start */
		execvp(argv[0], argv);
		int e = errno;
		if (write(err[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(gate[0]);
	close(err[1]);
	s->pid = pid;
	s->gate_fd = gate[1];
	s->err_fd = err[0];
	s->pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* -1: poll with a timeout */
	return 0;
}

/* Release the child; fails if its exec failed. */
static int target_go(sl_session *s)
{
	for (size_t i = 0; i < s->n_unc; i++)
		for (size_t c = 0; c < s->unc_ncpu[i]; c++)
			if (sl_perf_sys_get()->ioctl(s->unc_fd[i][c], PERF_EVENT_IOC_ENABLE, 0) < 0) {
				sl_error_set("cannot enable an uncore counter: %s",
					     strerror(errno));
				return -1;
			}
	s->t0_ns = mono_ns();
	s->last_cut_ns = s->t0_ns;
	char c = 1;
	if (write(s->gate_fd, &c, 1) != 1) {
		sl_error_set("cannot start %s: %s", s->prog, strerror(errno));
		return -1;
	}
	close(s->gate_fd);
	s->gate_fd = -1;
	int e;
	ssize_t n = read(s->err_fd, &e, sizeof e);
	close(s->err_fd);
	s->err_fd = -1;
	s->started = 1;
	if (n == (ssize_t)sizeof e) {
		sl_error_set("cannot run %s: %s", s->prog, strerror(e));
		return -1;
	}
	return 0;
}

static void target_reap(sl_session *s, int hang)
{
	if (s->exited || s->pid <= 0)
		return;
	int st;
	pid_t r;
	do
		r = waitpid(s->pid, &st, hang ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r != s->pid)
		return;
	s->exited = 1;
	s->exit_ns = mono_ns();
	s->status = WIFEXITED(st) ? WEXITSTATUS(st)
		    : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

/* ---- opening events ---------------------------------------------------- */

static long read_paranoid(void)
{
	return sl_perf_sys_get()->knob(SL_KNOB_PARANOID, -99);
}

/* "on CPU 3 (PMU skl)" for an error line. */
static char *where(int cpu)
{
	const char *pmu = "unknown", *desc;
	if (sl_pfm_host_pmu(&pmu, &desc) < 0)
		pmu = "none known to libpfm4";
	return cpu >= 0 ? sl_xasprintf("on CPU %d (PMU %s)", cpu, pmu)
			: sl_xasprintf("(PMU %s)", pmu);
}

int sl_perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
		 const char *what)
{
	int fd = sl_perf_sys_get()->open(a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		return fd;
	int e = errno;
	int hw = a->type != PERF_TYPE_SOFTWARE;
	char *at = where(cpu);
	long paranoid = read_paranoid();
	if ((e == ENOENT || e == ENODEV) && hw)
		sl_error_set("perf_event_open(%s) %s: %s: the kernel has no such "
			     "hardware event here — no PMU (a VM?), or a hybrid CPU "
			     "whose other core type lacks it; use --backend timer, or "
			     "--replay TRACE", what, at, e == ENOENT ? "ENOENT" : "ENODEV");
	else if (e == EOPNOTSUPP)
		sl_error_set("perf_event_open(%s) %s: EOPNOTSUPP: the PMU cannot do "
			     "this (sampling%s, or no PMU interrupt in this VM); use "
			     "--backend timer", what, at, a->precise_ip ? " at this precise_ip" : "");
	else if (e == EACCES)
		sl_error_set("perf_event_open(%s) %s: EACCES: kernel.perf_event_paranoid "
			     "is %ld%s; allow user-space profiling of your own programs "
			     "with 'sudo sysctl kernel.perf_event_paranoid=2' (or give "
			     "sleuth CAP_PERFMON)", what, at, paranoid,
			     paranoid >= 3 ? ", which closes perf events to users" : "");
	else if (e == EPERM)
		sl_error_set("perf_event_open(%s) %s: EPERM: refused by a seccomp filter "
			     "or security module, not by perf_event_paranoid (%ld): in "
			     "Docker, run with a seccomp profile that allows "
			     "perf_event_open (e.g. --security-opt seccomp=unconfined) "
			     "and --cap-add PERFMON", what, at, paranoid);
	else if (e == E2BIG)
		sl_error_set("perf_event_open(%s) %s: E2BIG: this kernel does not know "
			     "perf_event_attr of %u bytes (it knows %u); sleuth needs "
			     "Linux 4.13 or later", what, at, (unsigned)sizeof *a, a->size);
	else if (e == EBUSY)
		sl_error_set("perf_event_open(%s) %s: EBUSY: another user holds the PMU "
			     "exclusively (an exclusive perf event, a profiler using the "
			     "PMU directly); stop it and try again", what, at);
	else if (e == EMFILE || e == ENFILE)
		sl_error_set("perf_event_open(%s) %s: too many open files; raise "
			     "'ulimit -n' (sleuth opens 4 or more descriptors per CPU)",
			     what, at);
	else if (e == EINVAL && hw && group >= 0)
		sl_error_set("perf_event_open(%s) %s: EINVAL: the PMU refuses it in "
			     "the counter group (the group can never fit its counters); "
			     "give fewer --counters or run 'sleuth doctor'", what, at);
	else
		sl_error_set("perf_event_open(%s) %s failed: %s", what, at, strerror(e));
	free(at);
	errno = e;
	return -1;
}

/* Enough descriptors for every CPU's events (3 + members each, and the
 * task-clock; 1024 runs out past ~90 CPUs): the soft limit is raised
 * towards the hard one.  Best effort: if still too low, perf_event_open
 * says EMFILE and sl_perf_open names the way out. */
static void raise_nofile(size_t need)
{
	struct rlimit rl;
	need += 64; /* stdio, the target's pipes, PAPI, libdw */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? (rlim_t)need
									 : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static void common_attr(struct perf_event_attr *a)
{
	a->size = sizeof *a;
	a->inherit = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->sample_id_all = 1;
}

/* A sysfs CPU list ("0-3,6") as numbers; how many in *n. */
static int *cpu_list(const char *text, size_t *n)
{
	int *ids = NULL;
	size_t len = 0, cap = 0;
	const char *p = text;
	while (*p >= '0' && *p <= '9') {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b; c++) {
			SL_GROW(ids, len, cap);
			ids[len++] = (int)c;
		}
		p = end + (*end == ',');
	}
	*n = len;
	return ids;
}

/* The online CPUs (all configured ones if unreadable). */
static int *online_cpus(int *n)
{
	char line[4096] = "";
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	if (f) {
		if (!fgets(line, sizeof line, f))
			line[0] = 0;
		fclose(f);
	}
	size_t len;
	int *ids = cpu_list(line, &len);
	if (!len) {
		long conf = sysconf(_SC_NPROCESSORS_CONF);
		free(ids);
		ids = sl_xcalloc(conf > 0 ? (size_t)conf : 1, sizeof *ids);
		for (long c = 0; c < (conf > 0 ? conf : 1); c++)
			ids[len++] = (int)c;
	}
	*n = (int)len;
	return ids;
}

static int open_cpu(sl_session *s, const sl_session_cfg *cfg, int idx,
		    struct perf_event_attr *lead, struct perf_event_attr *smp)
{
	const sl_perf_sys *sys = sl_perf_sys_get();
	cpu_events *c = &s->cpus[idx];
	int cpu = c->id;
	c->leader = sl_perf_open(lead, s->pid, cpu, -1, "the interval counter");
	if (c->leader < 0)
		return -1;
	if (s->eager) {
		/* A software event always runs while the target does: the
		 * yardstick for how long the counter group ran. */
		struct perf_event_attr r;
		memset(&r, 0, sizeof r);
		r.type = PERF_TYPE_SOFTWARE;
		r.config = PERF_COUNT_SW_TASK_CLOCK;
		common_attr(&r);
		r.disabled = 1;
		r.enable_on_exec = 1;
		c->ref = sl_perf_open(&r, s->pid, cpu, -1, "task-clock");
		if (c->ref < 0)
			return -1;
	}
	for (size_t i = 0; i < cfg->n_members; i++) {
		struct perf_event_attr m = cfg->members[i];
		common_attr(&m);
		m.read_format = 0;
		m.sample_period = 0;
		const char *name = cfg->member_names ? cfg->member_names[i] : "event";
		c->members[i] = sl_perf_open(&m, s->pid, cpu, c->leader, name);
		if (c->members[i] < 0)
			return -1;
	}
	/* The sampler may refuse a precise level: try lower ones. */
	for (;;) {
		c->sampler = sl_perf_sys_get()->open(smp, s->pid, cpu, -1,
						     PERF_FLAG_FD_CLOEXEC);
		if (c->sampler >= 0 || !cfg->sampler_precise_fallback || !smp->precise_ip ||
		    (errno != EINVAL && errno != EOPNOTSUPP))
			break;
		smp->precise_ip--;
	}
	if (c->sampler < 0)
		return sl_perf_open(smp, s->pid, cpu, -1, "the address sampler");
	if (sl_ring_map(&c->ring, c->sampler, cfg->ring_pages ? cfg->ring_pages : 16) < 0)
		return -1;
	if (sys->ioctl(c->leader, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)c->sampler) < 0) {
		sl_error_set("cannot share a perf ring buffer: %s", strerror(errno));
		return -1;
	}
	if (sys->ioctl(c->leader, PERF_EVENT_IOC_ID, (unsigned long)&c->leader_id) < 0) {
		sl_error_set("cannot identify the interval counter: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Why an uncore event did not open (errno e on CPU cpu of PMU dev). */
static char *uncore_refusal(int e, const char *dev, int cpu)
{
	if (e == EACCES)
		return sl_xasprintf("counting PMU %s system-wide needs "
				    "kernel.perf_event_paranoid <= 0 (it is %ld) or "
				    "CAP_PERFMON: 'sudo sysctl kernel.perf_event_paranoid=0', "
				    "or 'sudo setcap cap_perfmon+ep' on sleuth", dev,
				    read_paranoid());
	if (e == EPERM)
		return sl_xasprintf("a seccomp filter or security module refused "
				    "PMU %s (EPERM); in Docker run with --cap-add PERFMON "
				    "and a seccomp profile that allows perf_event_open", dev);
	return sl_xasprintf("PMU %s refused it on CPU %d: %s", dev, cpu, strerror(e));
}

/* Open uncore event i, boxes boxes' attrs from a, on every CPU of each
 * box's PMU cpumask, disabled; a box whose PMU has no sysfs device is left
 * out, and on any refusal none stays open and the reason is kept. */
static void open_uncore(sl_session *s, const sl_session_cfg *cfg, size_t i,
			const struct perf_event_attr *a0, size_t boxes)
{
	const sl_perf_sys *sys = sl_perf_sys_get();
	if (cfg->uncore_problem && cfg->uncore_problem[i]) {
		s->unc_problem[i] = sl_xstrdup(cfg->uncore_problem[i]);
		return;
	}
	size_t present = 0, cap = 0;
	for (size_t b = 0; b < boxes && !s->unc_problem[i]; b++) {
		struct perf_event_attr a = a0[b];
		char dev[256], mask[1024];
		if (sys->pmu_device(a.type, dev, sizeof dev, mask, sizeof mask) < 0)
			continue;
		present++;
		size_t n;
		int *cpus = cpu_list(mask, &n);
		a.disabled = 1;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		for (size_t c = 0; c < n; c++) {
			int fd = sys->open(&a, -1, cpus[c], -1, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				s->unc_problem[i] = uncore_refusal(errno, dev, cpus[c]);
				break;
			}
			SL_GROW(s->unc_fd[i], s->unc_ncpu[i], cap);
			s->unc_fd[i][s->unc_ncpu[i]++] = fd;
		}
		if (!n)
			s->unc_problem[i] = sl_xasprintf("PMU %s lists no CPU in its cpumask", dev);
		free(cpus);
	}
	if (!present)
		s->unc_problem[i] = sl_xasprintf(
			"no PMU with type %u and a cpumask under "
			"/sys/bus/event_source/devices: the kernel does not export "
			"this uncore PMU; %s", boxes ? a0[0].type : 0, SL_UNCORE_FIX);
	if (s->unc_problem[i])
		while (s->unc_ncpu[i])
			sys->close(s->unc_fd[i][--s->unc_ncpu[i]]);
}

/* Read the uncore events: each one's delta since the last read, summed
 * over its CPUs, scaled if its PMU multiplexed it. */
static int read_uncore(sl_session *s)
{
	for (size_t i = 0; i < s->n_unc; i++) {
		uint64_t now[3] = {0, 0, 0}, v[3];
		for (size_t c = 0; c < s->unc_ncpu[i]; c++) {
			if (sl_perf_sys_get()->read(s->unc_fd[i][c], v, sizeof v) != sizeof v) {
				sl_error_set("cannot read an uncore counter: %s", strerror(errno));
				return -1;
			}
			for (int k = 0; k < 3; k++)
				now[k] += v[k];
		}
		uint64_t d = now[0] - s->unc_prev[i][0], en = now[1] - s->unc_prev[i][1],
			 run = now[2] - s->unc_prev[i][2];
		s->unc_out[i] = !s->unc_ncpu[i] || (en && !run) ? SL_MISSING
				: run < en ? (uint64_t)((double)d * (double)en / (double)run + 0.5)
				: d;
		memcpy(s->unc_prev[i], now, sizeof now);
	}
	return 0;
}

const char *sl_session_uncore_problem(const sl_session *s, size_t i)
{
	return i < s->n_unc ? s->unc_problem[i] : NULL;
}

/* A program name without '/' is looked up in PATH as execvp will. */
static int check_program(const char *prog)
{
	if (strchr(prog, '/')) {
		if (access(prog, X_OK) == 0)
			return 0;
		sl_error_set("cannot run %s: %s", prog, strerror(errno));
		return -1;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		char *cand = sl_xasprintf("%.*s/%s", (int)n, n ? p : ".", prog);
		int ok = access(cand, X_OK) == 0;
		free(cand);
		if (ok)
			return 0;
		p += n + (p[n] == ':');
	}
	sl_error_set("cannot run %s: command not found in PATH", prog);
	return -1;
}

sl_session *sl_session_start(const sl_session_cfg *cfg)
{
	if (!cfg->argv || !cfg->argv[0]) {
		sl_error_set("no program to run");
		return NULL;
	}
	if (check_program(cfg->argv[0]) < 0)
		return NULL;
	sl_session *s = sl_xcalloc(1, sizeof *s);
	s->prog = sl_xstrdup(cfg->argv[0]);
	s->gate_fd = s->err_fd = s->pidfd = -1;
	s->n_members = cfg->n_members;
	s->eager = cfg->n_members > 0;
	int *ids = online_cpus(&s->ncpu);
	s->cpus = sl_xcalloc((size_t)s->ncpu, sizeof *s->cpus);
	for (int i = 0; i < s->ncpu; i++) {
		s->cpus[i].id = ids[i];
		s->cpus[i].leader = s->cpus[i].sampler = s->cpus[i].ref = -1;
		s->cpus[i].ring.fd = -1;
		s->cpus[i].members = sl_xmalloc((cfg->n_members + 1) * sizeof(int));
		for (size_t m = 0; m < cfg->n_members; m++)
			s->cpus[i].members[m] = -1;
	}
	free(ids);
	size_t n_boxes = 0;
	for (size_t i = 0; i < cfg->n_uncore; i++)
		n_boxes += cfg->uncore_boxes ? cfg->uncore_boxes[i] : 1;
	raise_nofile((size_t)s->ncpu * (cfg->n_members + 4 + n_boxes));
	s->prev = sl_xcalloc(cfg->n_members + 1, sizeof(uint64_t));
	s->now = sl_xcalloc(cfg->n_members + 1, sizeof(uint64_t));
	s->deltas = sl_xcalloc(cfg->n_members + 1, sizeof(uint64_t));
	s->late = sl_xcalloc(cfg->n_members + 1, 1);
	s->late_base = sl_xcalloc(cfg->n_members + 1, sizeof(uint64_t));
	s->late_own = sl_xcalloc(cfg->n_members + 1, sizeof(uint64_t));
	s->n_unc = cfg->n_uncore;
	s->unc_fd = sl_xcalloc(s->n_unc + 1, sizeof *s->unc_fd);
	s->unc_ncpu = sl_xcalloc(s->n_unc + 1, sizeof *s->unc_ncpu);
	s->unc_problem = sl_xcalloc(s->n_unc + 1, sizeof *s->unc_problem);
	s->unc_prev = sl_xcalloc(s->n_unc + 1, sizeof *s->unc_prev);
	s->unc_out = sl_xcalloc(s->n_unc + 1, sizeof *s->unc_out);
	if (cfg->energy) {
		if (cfg->sysfs_root) {
			char *pc = sl_xasprintf("%s/class/powercap", cfg->sysfs_root);
			s->energy = sl_energy_open_at(pc, 0);
			free(pc);
		} else {
			s->energy = sl_energy_open();
		}
		if (!s->energy || sl_energy_read(s->energy, &s->prev_energy) < 0)
			goto fail;
		s->hwmon = sl_hwmon_dir(cfg->sysfs_root, NULL);
	}
	if (target_fork(s, cfg->argv) < 0)
		goto fail;

	struct perf_event_attr lead = cfg->boundary, smp = cfg->sampler;
	common_attr(&lead);
	lead.disabled = 1;
	lead.enable_on_exec = 1;
	s->sample_ticks = cfg->boundary.sample_period == 0;
	s->ticks = s->sample_ticks ? SL_MAX(cfg->samples_per_interval, 1) : TICKS;
	if (!s->sample_ticks)
		lead.sample_period = SL_MAX(lead.sample_period / TICKS, 1);
	lead.sample_type = SL_SAMPLE_TYPE;
	lead.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	lead.wakeup_events = s->eager ? 1 : 0;
	common_attr(&smp);
	smp.disabled = 1;
	smp.enable_on_exec = 1;
	smp.sample_type = SL_SAMPLE_TYPE;
	smp.mmap = 1;
	smp.mmap2 = 1;
	smp.comm = 1;
	smp.task = 1;
	smp.watermark = 1;
	smp.wakeup_watermark = (uint32_t)(cfg->ring_pages ? cfg->ring_pages : 16) *
			       (uint32_t)sysconf(_SC_PAGESIZE) / 2;
	for (int i = 0; i < s->ncpu; i++)
		if (open_cpu(s, cfg, i, &lead, &smp) < 0)
			goto fail;
	for (size_t i = 0, at = 0; i < s->n_unc; i++) {
		size_t boxes = cfg->uncore_boxes ? cfg->uncore_boxes[i] : 1;
		open_uncore(s, cfg, i, cfg->uncore + at, boxes);
		at += boxes;
	}
	s->precise = smp.precise_ip;
	return s;
fail:
	sl_session_free(s);
	return NULL;
}

static int read_counts(sl_session *s);

int sl_session_enable_done(sl_session *s)
{
	size_t n = s->n_members + 1;
	int any = 0;
	for (size_t m = 0; m < n; m++)
		any |= s->late[m];
	if (!any || !s->eager)
		return 0;
	/* read into now[] without disturbing the interval's bookkeeping */
	uint64_t *keep = sl_xmalloc(n * sizeof(uint64_t));
	memcpy(keep, s->now, n * sizeof(uint64_t));
	uint64_t run = s->now_run, task = s->now_task;
	int rc = read_counts(s);
	for (size_t m = 0; m < n && rc == 0; m++)
		if (s->late[m]) {
			s->late_base[m] = s->now[0];
			s->late_own[m] = s->now[m];
		}
	memcpy(s->now, keep, n * sizeof(uint64_t));
	s->now_run = run;
	s->now_task = task;
	free(keep);
	return rc;
}

int sl_session_precise(const sl_session *s)
{
	return s->precise;
}

int sl_session_enable(sl_session *s, size_t member, int on)
{
	if (member < s->n_members) /* late[] is indexed as the counts: leader first */
		s->late[1 + member] = (char)(on && s->started);
	for (int i = 0; i < s->ncpu; i++)
		if (sl_perf_sys_get()->ioctl(s->cpus[i].members[member],
					     on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
					     0) < 0) {
			sl_error_set("cannot %s a counter: %s", on ? "enable" : "disable",
				     strerror(errno));
			return -1;
		}
	return 0;
}

/* ---- records ----------------------------------------------------------- */

static void add_mapping(sl_session *s, uint32_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, const char *path)
{
	/* the file's place in canonical addresses: where it was first mapped */
	uint64_t canon = start - pgoff;
	for (size_t i = 0; i < s->n_maps; i++) {
		if (s->maps[i].start == start && s->maps[i].end == start + len &&
		    s->maps[i].pgoff == pgoff && !strcmp(s->maps[i].path, path))
			return;
		if (!strcmp(s->maps[i].path, path)) {
			canon = s->map_canon[i];
			break;
		}
	}
	size_t cap = s->cap_maps;
	SL_GROW(s->maps, s->n_maps, s->cap_maps);
	if (cap != s->cap_maps) {
		s->map_pid = sl_xreallocarray(s->map_pid, s->cap_maps, sizeof *s->map_pid);
		s->map_canon = sl_xreallocarray(s->map_canon, s->cap_maps,
						sizeof *s->map_canon);
	}
	s->map_pid[s->n_maps] = pid;
	s->map_canon[s->n_maps] = canon;
	s->maps[s->n_maps++] = (sl_mapping){start, start + len, pgoff, sl_xstrdup(path)};
}

/*
 * A sampled address of process `pid` in canonical form: an address in a
 * file's code is moved to where that file was first mapped, so that the
 * same code run by another process (each with its own address-space
 * layout: `sh -c 'xz ...; xz -d ...'`, a make of many compilers) has the
 * same address.  Phases then see the same code as the same, and the
 * symbolizer, which reports each file at its first mapping, names it.
 * Addresses in no known mapping stay as they are.
 */
static uint64_t canonical(sl_session *s, uint32_t pid, uint64_t ip)
{
	size_t n = s->n_maps, hit = n;
	const sl_mapping *m = s->last_map < n ? &s->maps[s->last_map] : NULL;
	if (m && ip >= m->start && ip < m->end && s->map_pid[s->last_map] == pid) {
		hit = s->last_map;
	} else {
		/* this process's mapping, else any (the latest) holding ip */
		for (size_t i = n; i-- > 0;) {
			if (ip < s->maps[i].start || ip >= s->maps[i].end)
				continue;
			if (hit == n)
				hit = i;
			if (s->map_pid[i] == pid) {
				hit = i;
				break;
			}
		}
	}
	if (hit == n)
		return ip;
	s->last_map = hit;
	m = &s->maps[hit];
	return ip - (m->start - m->pgoff) + s->map_canon[hit];
}

/* A CPU's ring holds only that CPU's leader and sampler: one compare,
 * not a scan of every CPU per record. */
static int is_leader(const sl_session *s, uint64_t id)
{
	return id == s->ring_leader_id;
}

static int on_record(void *ctx, const struct perf_event_header *h)
{
	sl_session *s = ctx;
	const unsigned char *p = (const unsigned char *)(h + 1);
	size_t body = h->size - sizeof *h;
	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		/* identifier, ip, pid/tid, time: SL_SAMPLE_TYPE */
		if (body < 32)
			break;
		uint64_t v[4];
		memcpy(v, p, sizeof v);
		if (is_leader(s, v[0])) {
			SL_GROW(s->bounds, s->n_bounds, s->cap_bounds);
			s->bounds[s->n_bounds++] = v[3];
		} else {
			SL_GROW(s->pend, s->n_pend, s->cap_pend);
			/* v[2]: pid in the low half, tid in the high */
			s->pend[s->n_pend++] =
				(pend_sample){canonical(s, (uint32_t)v[2], v[1]), v[3]};
			if (s->sample_ticks) {
				SL_GROW(s->bounds, s->n_bounds, s->cap_bounds);
				s->bounds[s->n_bounds++] = v[3];
			}
		}
		break;
	}
	case PERF_RECORD_LOST: /* id, lost */
		if (body >= 16) {
			uint64_t v[2];
			memcpy(v, p, sizeof v);
			s->lost_pending += v[1];
		}
		break;
	case PERF_RECORD_LOST_SAMPLES: /* lost */
		if (body >= 8) {
			uint64_t v;
			memcpy(&v, p, sizeof v);
			s->lost_pending += v;
		}
		break;
	case PERF_RECORD_MMAP2: {
		/* pid, tid, addr, len, pgoff, maj, min, ino, ino_gen, prot, flags,
		 * filename */
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_gen;
			uint32_t prot, flags;
		} m;
		if (body <= sizeof m)
			break;
		memcpy(&m, p, sizeof m);
		const char *name = (const char *)p + sizeof m;
		if ((m.prot & PROT_EXEC) && memchr(name, 0, body - sizeof m))
			add_mapping(s, m.pid, m.addr, m.len, m.pgoff, name);
		break;
	}
	case PERF_RECORD_MMAP: {
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
		} m;
		if (body <= sizeof m || (h->misc & PERF_RECORD_MISC_MMAP_DATA))
			break;
		memcpy(&m, p, sizeof m);
		const char *name = (const char *)p + sizeof m;
		if (memchr(name, 0, body - sizeof m))
			add_mapping(s, m.pid, m.addr, m.len, m.pgoff, name);
		break;
	}
	case PERF_RECORD_THROTTLE:
		s->throttles++;
		s->throttles_pending++;
		break;
	default: /* COMM, EXIT, FORK, UNTHROTTLE: nothing to keep */
		break;
	}
	return 0;
}

static void drain_all(sl_session *s)
{
	for (int i = 0; i < s->ncpu; i++) {
		s->ring_leader_id = s->cpus[i].leader_id;
		sl_ring_drain(&s->cpus[i].ring, on_record, s);
	}
}

/* Sum the group over CPUs: leader, members, and the running time. */
static int read_counts(sl_session *s)
{
	size_t n = s->n_members + 1;
	uint64_t *buf = sl_xmalloc((3 + n) * sizeof(uint64_t));
	memset(s->now, 0, n * sizeof(uint64_t));
	s->now_run = s->now_task = 0;
	int rc = 0;
	for (int i = 0; i < s->ncpu && rc == 0; i++) {
		ssize_t r = sl_perf_sys_get()->read(s->cpus[i].leader, buf, (3 + n) * sizeof(uint64_t));
		if (r < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] != n) {
			sl_error_set("cannot read the counters: %s",
				     r < 0 ? strerror(errno) : "short read");
			rc = -1;
			break;
		}
		s->now_run += buf[2];
		for (size_t k = 0; k < n; k++)
			s->now[k] += buf[3 + k];
		uint64_t t;
		if (s->cpus[i].ref >= 0) {
			if (sl_perf_sys_get()->read(s->cpus[i].ref, &t, sizeof t) != sizeof t) {
				sl_error_set("cannot read task-clock: %s", strerror(errno));
				rc = -1;
				break;
			}
			s->now_task += t;
		}
	}
	free(buf);
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Close an interval at time t: samples up to t, counts read now. */
static int cut(sl_session *s, uint64_t t, sl_interval *iv)
{
	size_t keep = 0, n = 0;
	for (size_t i = 0; i < s->n_pend; i++)
		if (s->pend[i].time <= t)
			n++;
	if (n > s->cap_out) {
		s->cap_out = n;
		s->out_samples = sl_xreallocarray(s->out_samples, n, sizeof(uint64_t));
	}
	n = 0;
	for (size_t i = 0; i < s->n_pend; i++) {
		if (s->pend[i].time <= t)
			s->out_samples[n++] = s->pend[i].ip;
		else
			s->pend[keep++] = s->pend[i];
	}
	s->n_pend = keep;
	memset(iv, 0, sizeof *iv);
	iv->samples = s->out_samples;
	iv->n_samples = n;
	if (t < s->last_cut_ns)
		t = s->last_cut_ns;
	iv->start_s = (double)(s->last_cut_ns - s->t0_ns) * 1e-9;
	iv->time_s = (double)(t - s->last_cut_ns) * 1e-9;
	s->last_cut_ns = t;
	iv->lost = s->lost_pending;
	s->lost += s->lost_pending;
	s->lost_pending = 0;
	iv->throttled = s->throttles_pending;
	s->throttles_pending = 0;
	iv->values = s->deltas;
	if (s->eager) {
		if (read_counts(s) < 0)
			return -1;
		for (size_t k = 0; k <= s->n_members; k++) {
			s->deltas[k] = s->now[k] - s->prev[k];
			/* switched on late: what it counted after the read that
			 * followed its enable, over the leader's count in that same
			 * span, scaled to the whole interval (what it counted
			 * between the enable and that read is left out: the span
			 * it belongs to is not known) */
			uint64_t all = s->now[0] - s->prev[0];
			int late = s->late[k] && s->late_base[k] >= s->prev[0] &&
				   s->late_own[k] >= s->prev[k] && s->late_own[k] <= s->now[k];
			uint64_t seen = late ? s->now[0] - s->late_base[k] : all;
			if (seen && seen < all)
				s->deltas[k] = (uint64_t)((double)(s->now[k] - s->late_own[k]) *
							  (double)all / (double)seen + 0.5);
			s->late[k] = 0;
		}
		if (read_uncore(s) < 0)
			return -1;
		iv->uncore = s->unc_out;
		iv->run_ns = s->now_run - s->prev_run;
		iv->task_ns = s->now_task - s->prev_task;
		memcpy(s->prev, s->now, (s->n_members + 1) * sizeof(uint64_t));
		s->prev_run = s->now_run;
		s->prev_task = s->now_task;
	}
	iv->energy_j = NAN;
	iv->temp_c = s->hwmon ? sl_hwmon_read_c(s->hwmon) : NAN;
	if (s->energy) {
		double j;
		if (sl_energy_read(s->energy, &j) < 0)
			return -1;
		iv->energy_j = j - s->prev_energy;
		s->prev_energy = j;
	}
	return 1;
}

/* Take one interval's ticks (or, when counting, all complete groups of
 * them: the counts read now cover them all). */
static int take_bounds(sl_session *s, uint64_t *t)
{
	if (s->n_bounds < s->ticks)
		return 0;
	qsort(s->bounds, s->n_bounds, sizeof *s->bounds, cmp_u64);
	size_t take = s->eager ? s->n_bounds / s->ticks * s->ticks : s->ticks;
	s->merged += take / s->ticks - 1;
	*t = s->bounds[take - 1];
	memmove(s->bounds, s->bounds + take, (s->n_bounds - take) * sizeof *s->bounds);
	s->n_bounds -= take;
	return 1;
}

int sl_session_next(sl_session *s, sl_interval *iv)
{
	if (!s->started && target_go(s) < 0) {
		target_reap(s, 1);
		return -1;
	}
	for (;;) {
		drain_all(s);
		uint64_t t;
		if (take_bounds(s, &t))
			return cut(s, t, iv);
		if (s->exited) {
			if (s->delivered_last)
				return 0;
			s->delivered_last = 1;
			/* The tail after the last boundary, if anything ran. */
			if (s->n_pend || s->lost_pending || s->exit_ns > s->last_cut_ns + 1000000)
				return cut(s, s->exit_ns, iv);
			return 0;
		}
		struct pollfd *pfd = sl_xcalloc((size_t)s->ncpu + 1, sizeof *pfd);
		int n = 0;
		for (int i = 0; i < s->ncpu; i++)
			pfd[n++] = (struct pollfd){.fd = s->cpus[i].sampler, .events = POLLIN};
		if (s->pidfd >= 0)
			pfd[n++] = (struct pollfd){.fd = s->pidfd, .events = POLLIN};
		int r = sl_perf_sys_get()->poll(pfd, (nfds_t)n, s->pidfd >= 0 ? 1000 : 20);
		free(pfd);
		if (r < 0 && errno != EINTR) {
			sl_error_set("poll: %s", strerror(errno));
			return -1;
		}
		target_reap(s, 0);
	}
}

void sl_session_interrupt(sl_session *s)
{
	sl_session_signal(s, SIGINT);
}

void sl_session_signal(sl_session *s, int sig)
{
	if (s->pid > 0 && !s->exited)
		kill(s->pid, s->interrupts++ ? SIGKILL : sig);
}

int sl_session_status(sl_session *s)
{
	if (!s->started && s->pid > 0 && !s->exited) {
		/* never released: let it go away quietly */
		close(s->gate_fd);
		s->gate_fd = -1;
	}
	target_reap(s, 1);
	return s->status;
}

const sl_mapping *sl_session_maps(const sl_session *s, size_t *n)
{
	*n = s->n_maps;
	return s->maps;
}

uint64_t sl_session_lost(const sl_session *s)
{
	return s->lost + s->lost_pending;
}

uint64_t sl_session_throttles(const sl_session *s)
{
	return s->throttles;
}

uint64_t sl_session_merged(const sl_session *s)
{
	return s->merged;
}

pid_t sl_session_pid(const sl_session *s)
{
	return s->pid;
}

const char *sl_session_energy_source(const sl_session *s)
{
	return s->energy ? sl_energy_source(s->energy) : NULL;
}

void sl_session_free(sl_session *s)
{
	if (!s)
		return;
	if (s->pid > 0 && !s->exited) {
		if (s->started)
			kill(s->pid, SIGKILL);
		if (s->gate_fd >= 0)
			close(s->gate_fd); /* a held child exits on EOF */
		s->gate_fd = -1;
		target_reap(s, 1);
	}
	const sl_perf_sys *sys = sl_perf_sys_get();
	for (int i = 0; i < s->ncpu; i++) {
		cpu_events *c = &s->cpus[i];
		sl_ring_unmap(&c->ring);
		for (size_t m = 0; m < s->n_members; m++)
			if (c->members[m] >= 0)
				sys->close(c->members[m]);
		if (c->leader >= 0)
			sys->close(c->leader);
		if (c->sampler >= 0)
			sys->close(c->sampler);
		if (c->ref >= 0)
			sys->close(c->ref);
		free(c->members);
	}
	for (size_t i = 0; i < s->n_unc; i++) {
		for (size_t c = 0; c < s->unc_ncpu[i]; c++)
			sys->close(s->unc_fd[i][c]);
		free(s->unc_fd[i]);
		free(s->unc_problem[i]);
	}
	free(s->unc_fd);
	free(s->unc_ncpu);
	free(s->unc_problem);
	free(s->unc_prev);
	free(s->unc_out);
	for (size_t i = 0; i < s->n_maps; i++)
		free(s->maps[i].path);
	if (s->gate_fd >= 0)
		close(s->gate_fd);
	if (s->err_fd >= 0)
		close(s->err_fd);
	if (s->pidfd >= 0)
		close(s->pidfd);
	if (s->energy)
		sl_energy_close(s->energy);
	free(s->hwmon);
	free(s->maps);
	free(s->map_pid);
	free(s->map_canon);
	free(s->cpus);
	free(s->pend);
	free(s->bounds);
	free(s->prev);
	free(s->now);
	free(s->deltas);
	free(s->late);
	free(s->late_base);
	free(s->late_own);
	free(s->out_samples);
	free(s->prog);
	free(s);
}
