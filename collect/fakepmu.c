/*
 * A userspace model of the kernel's perf_event ABI on a named PMU, behind
 * sleuth's table of perf system calls (collect/perf-sys.h), so that the
 * real perf backend -- session, ring reader, counter plan, multiplexing --
 * runs end to end in CI on machines without a PMU.  SLEUTH_FAKE_PMU=<libpfm4
 * PMU name> selects it; it exists for tests and is documented as such
 * (docs/hardware.md).
 *
 * What it models, as the kernel does it (perf_event_open(2), the x86 and
 * arm_pmu drivers):
 *  - per logical CPU, fixed and general-purpose counters: Intel's fixed
 *    counters take instructions and cycles, everything else (and every
 *    precise/PEBS event) needs a GP counter; AMD has GP counters only; Arm
 *    has a dedicated cycle counter.  Hyper-Threading halves the GP counters
 *    of Sandy Bridge to Skylake; the NMI watchdog pins a cycles event (a
 *    fixed counter on Intel, a GP counter on AMD, the cycle counter on Arm),
 *    and another perf user may pin GP counters (opts "pinned=N", on one
 *    CPU only with "pinned_cpu=C", after sleuth's own start-up check of
 *    the counters with "pinned_later=1") or hold
 *    the PMU exclusively ("deny=EBUSY"); a seccomp filter refuses
 *    perf_event_open altogether ("deny=EPERM"); a hybrid CPU shows its
 *    cpu_core PMU in sysfs ("hybrid=1", with "ix86arch": what libpfm4 4.13
 *    makes of Alder Lake);
 *  - the kernel's all-or-nothing scheduling of flexible groups in creation
 *    order, stopping at the first group that does not fit, and rotation
 *    every mux interval while some group is left out;
 *  - time_enabled / time_running (enabled time follows the task's context
 *    time, so a per-CPU event whose task runs on another CPU is enabled but
 *    not running), PERF_FORMAT_GROUP / ID reads;
 *  - open-time checks: attr.size (fields past it read as zero: a short attr
 *    loses use_clockid's clock), perf_event_paranoid, precise_ip against
 *    the PMU's maximum (EOPNOTSUPP; arm_pmu ignores it silently), a group
 *    that can never fit (EINVAL; IOC_ENABLE is not checked, as in the
 *    kernel), mmap of an inherited event not bound to a CPU (EINVAL);
 *  - ring buffers with data_head/data_tail, SET_OUTPUT, wakeup_events and
 *    watermarks, LOST records when the ring is full, and THROTTLE /
 *    UNTHROTTLE when an event interrupts more often than
 *    perf_event_max_sample_rate allows in one tick (a throttled event stops
 *    counting until the next tick);
 *  - inherit, enable_on_exec (on the target's exec), per-CPU events of a
 *    task that migrates between the CPUs it was opened on;
 *  - a memory controller's uncore PMU (opts "uncore=", by default the
 *    core PMU's: nhm_unc, wsm_unc, skx_unc_imc's six channels): a dynamic
 *    type per box with its sysfs device (type, cpumask: the first CPU of
 *    each of "sockets=N" sockets, pmu_device()), cpu-wide events only
 *    (pid -1 on a CPU; EINVAL for a task's, with exclude_* bits or a
 *    sample period, or in a group), perf_event_paranoid > 0 refusing them
 *    (EACCES) unless "cap_perfmon=1", and an event on any CPU counting its
 *    socket's box, as the kernel's uncore driver redirects it.  Encoding
 *    its events is the model's too (uncore_encode(): perf-sys.h says why),
 *    from libpfm4's own codes.
 *
 * The running program is a deterministic synthetic instruction stream
 * paced by the target's real CPU time (a task-clock event of the real kernel
 * on it): 2 GHz, three
 * phases that repeat (different IPC, branch density and event rates), and
 * branch addresses that depend on the phase.  Events other than cycles,
 * instructions and the PMU's conditional-branch event count at a rate
 * derived from their encoding and the phase.  Software events are passed to
 * the real kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perf-sys.h"
#include "session.h"
#include "sleuth/common.h"

enum vendor { INTEL, AMD, ARM };
enum role { R_OTHER, R_CYCLES, R_INSTR, R_BRANCH, R_ALLBR, R_UNCORE };

/* Memory-controller uncore PMUs the model has: libpfm4's name (one box:
 * exactly; several: the name and the box number) and the kernel's device
 * for box b. */
typedef struct unc_desc {
	const char *pfm;
	const char *dev;     /* printf format of the box number */
	int boxes;
} unc_desc;

static const unc_desc uncores[] = {
	{"nhm_unc", "uncore", 1},
	{"wsm_unc", "uncore", 1},
	{"skx_unc_imc", "uncore_imc_%d", 6},
};

/* The first dynamic type the kernel hands out after its fixed ones and
 * the core PMU's (cpu: 4, breakpoint: 5, ...). */
#define UNC_TYPE0 16

typedef struct pmu_desc {
	const char *prefix;   /* libpfm4 PMU names starting so */
	enum vendor vendor;
	int gp, gp_ht;        /* GP counters per logical CPU: SMT off, on */
	int fixed;            /* Intel fixed counters; Arm: the cycle counter */
	int max_precise;
	const char *branch;   /* the conditional-branch event, libpfm4 name */
	const char *uncore;   /* its memory controller's libpfm4 PMU, or NULL */
} pmu_desc;

/* Counter counts as the kernel's drivers find them (CPUID leaf 0xA on
 * Intel, the PMU's registers elsewhere), not libpfm4's tables. */
static const pmu_desc pmus[] = {
	{"nhm", INTEL, 4, 4, 3, 2, "BR_INST_RETIRED:CONDITIONAL", "nhm_unc"},
	{"wsm", INTEL, 4, 4, 3, 2, "BR_INST_RETIRED:CONDITIONAL", "wsm_unc"},
	{"snb", INTEL, 8, 4, 3, 2, "BR_INST_RETIRED:CONDITIONAL", NULL},
	{"ivb", INTEL, 8, 4, 3, 2, "BR_INST_RETIRED:CONDITIONAL", NULL},
	{"hsw", INTEL, 8, 4, 3, 2, "BR_INST_RETIRED:CONDITIONAL", NULL},
	{"bdw", INTEL, 8, 4, 3, 2, "BR_INST_RETIRED:CONDITIONAL", NULL},
	{"skl", INTEL, 8, 4, 3, 3, "BR_INST_RETIRED:CONDITIONAL", NULL},
	{"skx", INTEL, 8, 4, 3, 3, "BR_INST_RETIRED:CONDITIONAL", "skx_unc_imc"},
	{"clx", INTEL, 8, 4, 3, 3, "BR_INST_RETIRED:CONDITIONAL", "skx_unc_imc"},
	{"icl", INTEL, 8, 8, 4, 3, "BR_INST_RETIRED:COND", NULL},
	{"icx", INTEL, 8, 8, 4, 3, "BR_INST_RETIRED:COND", NULL},
	{"spr", INTEL, 8, 8, 4, 3, "BR_INST_RETIRED:COND", NULL},
	{"amd64_fam17h", AMD, 6, 6, 0, 0, "RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS", NULL},
	{"amd64_fam19h", AMD, 6, 6, 0, 0, "RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS", NULL},
	{"arm_", ARM, 6, 6, 1, 0, "BR_RETIRED", NULL},
	/* what libpfm4 4.13 falls back to on CPUs it does not know, e.g.
	 * hybrid Alder Lake (with opts "hybrid=1") */
	{"ix86arch", INTEL, 8, 4, 3, 2, "BR_INST_RETIRED:CONDITIONAL", NULL},
};

#define TICK_NS 100000ull    /* model tick: 0.1 ms of the target's CPU time */
#define MUX_TICKS 40         /* rotation every 4 ms while multiplexing */
#define SLICE_TICKS 100      /* the task migrates every 10 ms */
#define TICKS_PER_S 10000
#define GHZ 2.0

typedef struct fring {
	unsigned char *base;
	size_t len, data_size;
	uint64_t lost;      /* records dropped since the last LOST record */
	uint64_t lost_id;
	uint64_t wm_head;   /* data_head at the last watermark wake-up */
	int ready;          /* poll would say POLLIN */
} fring;

typedef struct fev fev;
struct fev {
	int fd;
	pid_t pid;
	int cpu;
	struct perf_event_attr attr;
	enum role role;
	fev *leader;
	unsigned seq;         /* creation order */
	int enabled, active;
	uint64_t count, enabled_ns, running_ns, id;
	double carry;         /* uncore: the fraction of a count not yet made */
	int64_t left;         /* events to the next overflow */
	int throttled;
	uint64_t irqs;        /* overflows this tick */
	uint64_t wake_cnt;
	fring *ring;          /* its own mmap */
	fev *output;          /* SET_OUTPUT target */
};

typedef struct task {
	pid_t pid;
	int execed;
	int clock_fd;             /* a real task-clock on it (-1: none) */
	char exe[256];
	uint64_t cpu_ns, mono_ns; /* at the last sync */
	uint64_t carry_ns;        /* CPU time not yet made into ticks */
	uint64_t tick;
	double instr;             /* position in the synthetic stream */
	unsigned rot;
	uint64_t nsamples;
} task;

static struct {
	const pmu_desc *pmu;
	char name[64];
	int ht, watchdog, paranoid;
	int pinned;           /* GP counters another perf user pins */
	int pinned_cpu;       /* on this CPU only (-1: on every CPU) */
	int pinned_later;     /* only after sleuth's start-up check */
	int deny;             /* seccomp (EPERM: every open), EBUSY (hardware) */
	int hybrid;           /* cpu_core and cpu_atom PMUs (Alder Lake+) */
	const unc_desc *unc;  /* the memory controller's uncore PMU, or NULL */
	int sockets;          /* each with one box of each uncore device */
	int cap_perfmon;      /* sleuth has CAP_PERFMON: paranoid does not apply */
	long max_rate;
	uint64_t branch_config;
	uint32_t branch_type;
	int branch_known;
	fev **ev;
	size_t n_ev, cap_ev;
	task *tasks;
	size_t n_tasks, cap_tasks;
	unsigned seq;
	uint64_t next_id;
} F;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static fev *find(int fd)
{
	for (size_t i = 0; fd >= 0 && i < F.n_ev; i++)
		if (F.ev[i]->fd == fd)
			return F.ev[i];
	return NULL;
}

static task *find_task(pid_t pid)
{
	for (size_t i = 0; i < F.n_tasks; i++)
		if (F.tasks[i].pid == pid)
			return &F.tasks[i];
	return NULL;
}

static int gp_counters(void)
{
	return F.ht ? F.pmu->gp_ht : F.pmu->gp;
}

/* ---- the synthetic program --------------------------------------------- */

/* The memory controller's reads (demand misses and prefetches) per
 * instruction: what its uncore PMU counts over every socket and channel. */
static const struct {
	double len, ipc, branches, dram; /* instructions, per cycle, per instruction */
} phases[] = {{400e6, 2.0, 0.20, 0.002}, {300e6, 0.7, 0.10, 0.02},
	      {200e6, 1.2, 0.15, 0.008}};

static int phase_at(double instr)
{
	double period = 0;
	for (size_t i = 0; i < SL_ARRAY_LEN(phases); i++)
		period += phases[i].len;
	double x = instr - period * (double)(uint64_t)(instr / period);
	for (int i = 0; i < (int)SL_ARRAY_LEN(phases); i++) {
		if (x < phases[i].len)
			return i;
		x -= phases[i].len;
	}
	return 0;
}

/* Events of role `role` in one tick of phase p. */
static double tick_count(const fev *e, int p)
{
	double cycles = (double)TICK_NS * GHZ, instr = cycles * phases[p].ipc;
	switch (e->role) {
	case R_CYCLES: return cycles;
	case R_INSTR: return instr;
	case R_BRANCH: return instr * phases[p].branches;
	case R_ALLBR: return instr * phases[p].branches * 1.3;
	default: break;
	}
	uint64_t h = mix(e->attr.config ^ ((uint64_t)e->attr.type << 56));
	double rate = 0.001 + (double)(h % 1000) / 1000.0 * 0.05;
	return instr * rate * (1.0 + 0.6 * (double)((h >> 20) % 3 == (uint64_t)p));
}

/* ---- counters and scheduling -------------------------------------------- */

typedef struct pmu_state {
	unsigned fixed_used; /* bit i: fixed counter i */
	int gp_used;
} pmu_state;

/* Put one event on a counter; 0 or -1 if none is free for it. */
static int alloc_counter(pmu_state *st, const struct perf_event_attr *a, enum role r)
{
	int fixed = -1;
	if (F.pmu->vendor == INTEL && !a->precise_ip)
		fixed = r == R_INSTR ? 0 : r == R_CYCLES ? 1 : -1;
	else if (F.pmu->vendor == ARM && r == R_CYCLES)
		fixed = 0;
	if (fixed >= 0 && fixed < F.pmu->fixed && !(st->fixed_used & (1u << fixed))) {
		st->fixed_used |= 1u << fixed;
		return 0;
	}
	if (st->gp_used < gp_counters()) {
		st->gp_used++;
		return 0;
	}
	return -1;
}

/* What is pinned on cpu before any flexible group: the watchdog, and
 * another perf user's counters (on every CPU or on one). */
static void pin_watchdog(pmu_state *st, int cpu, pid_t pid)
{
	memset(st, 0, sizeof *st);
	if (F.watchdog) {
		struct perf_event_attr a = {.type = PERF_TYPE_HARDWARE};
		alloc_counter(st, &a, R_CYCLES);
	}
	if ((F.pinned_cpu < 0 || cpu == F.pinned_cpu) && !(F.pinned_later && pid == getpid()))
		st->gp_used += F.pinned;
}

/* Whether leader's group (its enabled members, or all non-disabled ones at
 * open) fits on st; takes the counters if so. */
static int group_fits(pmu_state *st, const fev *leader, const fev *extra)
{
	pmu_state try = *st;
	if (alloc_counter(&try, &leader->attr, leader->role) < 0)
		return 0;
	for (size_t i = 0; i < F.n_ev; i++) {
		const fev *m = F.ev[i];
		if (m->leader == leader && m != leader && m->enabled &&
		    alloc_counter(&try, &m->attr, m->role) < 0)
			return 0;
	}
	if (extra && alloc_counter(&try, &extra->attr, extra->role) < 0)
		return 0;
	*st = try;
	return 1;
}

static int cmp_seq(const void *a, const void *b)
{
	const fev *x = *(fev *const *)a, *y = *(fev *const *)b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Schedule the task's flexible groups on cpu; 1 if some were left out. */
static int schedule(task *t, int cpu)
{
	fev **groups = sl_xcalloc(F.n_ev + 1, sizeof *groups);
	size_t n = 0;
	for (size_t i = 0; i < F.n_ev; i++) {
		fev *e = F.ev[i];
		e->active = 0;
		if (e->pid == t->pid && e->leader == e && e->enabled &&
		    (e->cpu == cpu || e->cpu == -1))
			groups[n++] = e;
	}
	qsort(groups, n, sizeof *groups, cmp_seq);
	pmu_state st;
	pin_watchdog(&st, cpu, t->pid);
	int can_add = 1, left_out = 0;
	for (size_t k = 0; k < n; k++) {
		fev *g = groups[(k + t->rot) % n];
		if (can_add && group_fits(&st, g, NULL)) {
			for (size_t i = 0; i < F.n_ev; i++)
				if (F.ev[i]->leader == g && F.ev[i]->enabled)
					F.ev[i]->active = 1;
		} else {
			can_add = 0; /* the kernel stops at the first misfit */
			left_out = 1;
		}
	}
	free(groups);
	return left_out;
}

/* ---- records -------------------------------------------------------------- */

static fring *out_ring(fev *e)
{
	while (e->output)
		e = e->output;
	return e->ring;
}

static void ring_write(fring *r, const void *rec, size_t len)
{
	struct perf_event_mmap_page *meta = (void *)r->base;
	uint64_t head = meta->data_head;
	unsigned char *data = r->base + meta->data_offset;
	size_t off = head & (r->data_size - 1), first = SL_MIN(len, r->data_size - off);
	memcpy(data + off, rec, first);
	memcpy(data, (const unsigned char *)rec + first, len - first);
	__atomic_store_n(&meta->data_head, head + len, __ATOMIC_RELEASE);
}

/* sample_id of sleuth's layout (TID, TIME, IDENTIFIER) or a sample body:
 * the fields of SL_SAMPLE_TYPE that attr asks for, in the ABI's order. */
static size_t put_fields(unsigned char *p, const fev *e, uint64_t ip, pid_t pid,
			 uint64_t time, int sample)
{
	uint64_t st = e->attr.sample_type, v;
	size_t n = 0;
	if (sample && (st & PERF_SAMPLE_IDENTIFIER))
		memcpy(p + n, &e->id, 8), n += 8;
	if (sample && (st & PERF_SAMPLE_IP))
		memcpy(p + n, &ip, 8), n += 8;
	if (st & PERF_SAMPLE_TID) {
		uint32_t pt[2] = {(uint32_t)pid, (uint32_t)pid};
		memcpy(p + n, pt, 8), n += 8;
	}
	if (st & PERF_SAMPLE_TIME)
		memcpy(p + n, &time, 8), n += 8;
	if (!sample && (st & PERF_SAMPLE_IDENTIFIER)) {
		v = e->id;
		memcpy(p + n, &v, 8), n += 8;
	}
	return n;
}

/* Emit one record of e (header + body + sample_id), or count it lost. */
static void emit(fev *e, uint32_t type, const void *body, size_t blen, pid_t pid,
		 uint64_t time)
{
	fring *r = out_ring(e);
	if (!r)
		return; /* no buffer: the kernel drops it */
	unsigned char rec[256];
	struct perf_event_header h = {.type = type, .misc = PERF_RECORD_MISC_USER};
	size_t n = sizeof h;
	memcpy(rec + n, body, blen);
	n += blen;
	if (type != PERF_RECORD_SAMPLE && e->attr.sample_id_all)
		n += put_fields(rec + n, e, 0, pid, time, 0);
	h.size = (uint16_t)n;
	memcpy(rec, &h, sizeof h);
	struct perf_event_mmap_page *meta = (void *)r->base;
	uint64_t tail = __atomic_load_n(&meta->data_tail, __ATOMIC_ACQUIRE);
	if (r->lost) {
		unsigned char lrec[96];
		uint64_t lv[2] = {r->lost_id, r->lost};
		struct perf_event_header lh = {.type = PERF_RECORD_LOST};
		size_t ln = sizeof lh;
		memcpy(lrec + ln, lv, sizeof lv);
		ln += sizeof lv;
		if (e->attr.sample_id_all)
			ln += put_fields(lrec + ln, e, 0, pid, time, 0);
		lh.size = (uint16_t)ln;
		memcpy(lrec, &lh, sizeof lh);
		if (meta->data_head - tail + ln > r->data_size) {
			r->lost++;
			return;
		}
		ring_write(r, lrec, ln);
		r->lost = 0;
	}
	if (meta->data_head - tail + n > r->data_size) {
		if (!r->lost)
			r->lost_id = e->id;
		r->lost++;
		r->ready = 1;
		return;
	}
	ring_write(r, rec, n);
	if (e->attr.watermark) {
		if (meta->data_head - r->wm_head >= e->attr.wakeup_watermark) {
			r->wm_head = meta->data_head;
			r->ready = 1;
		}
	} else if (e->attr.wakeup_events && ++e->wake_cnt >= e->attr.wakeup_events) {
		e->wake_cnt = 0;
		r->ready = 1;
	}
}

static void emit_sample(fev *e, task *t, int p, uint64_t time)
{
	unsigned char body[64];
	uint64_t ip = 0x400000 + (uint64_t)p * 0x10000 + (mix(++t->nsamples) % 32) * 0x40;
	if (e->role == R_INSTR)
		ip = 0x400000 + (uint64_t)p * 0x10000 + 0x800;
	size_t n = put_fields(body, e, ip, t->pid, time, 1);
	emit(e, PERF_RECORD_SAMPLE, body, n, t->pid, time);
}

static void emit_throttle(fev *e, task *t, uint32_t type, uint64_t time)
{
	uint64_t v[3] = {time, e->id, e->id};
	emit(e, type, v, sizeof v, t->pid, time);
}

/* Count one tick for an active event; sampling events overflow, and are
 * throttled past the per-tick limit (they then stop counting). */
static void count_tick(fev *e, task *t, int p, uint64_t time)
{
	double d = tick_count(e, p);
	uint64_t period = e->attr.freq ? 0 : e->attr.sample_period;
	if (!period) {
		e->count += (uint64_t)d;
		return;
	}
	uint64_t max_irqs = (uint64_t)SL_MAX(F.max_rate / TICKS_PER_S, 1);
	double used = 0;
	while (used < d) {
		double step = SL_MIN((double)e->left, d - used);
		used += step;
		e->left -= (int64_t)step;
		if (e->left > 0)
			break;
		e->left += (int64_t)period;
		emit_sample(e, t, p, time);
		if (++e->irqs >= max_irqs) {
			e->throttled = 1;
			emit_throttle(e, t, PERF_RECORD_THROTTLE, time);
			break;
		}
	}
	e->count += (uint64_t)used;
}

/* ---- time ----------------------------------------------------------------- */

static int task_cpus(const task *t, int *cpus, int max)
{
	int n = 0;
	for (size_t i = 0; i < F.n_ev; i++) {
		int c = F.ev[i]->cpu, seen = 0;
		if (F.ev[i]->pid != t->pid || c < 0)
			continue;
		for (int k = 0; k < n; k++)
			seen |= cpus[k] == c;
		if (!seen && n < max)
			cpus[n++] = c;
	}
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && cpus[k - 1] > cpus[k]; k--) {
			int x = cpus[k];
			cpus[k] = cpus[k - 1];
			cpus[k - 1] = x;
		}
	return n;
}

static void run_tick(task *t, uint64_t time)
{
	int cpus[1024], nc = task_cpus(t, cpus, 1024);
	int cpu = nc ? cpus[(t->tick / SLICE_TICKS) % (uint64_t)nc] : -1;
	int p = phase_at(t->instr);
	for (size_t i = 0; i < F.n_ev; i++) {
		fev *e = F.ev[i];
		if (e->pid == t->pid && e->throttled) {
			e->throttled = 0;
			emit_throttle(e, t, PERF_RECORD_UNTHROTTLE, time);
		}
		if (e->pid == t->pid)
			e->irqs = 0;
	}
	int left_out = schedule(t, cpu);
	if (left_out && t->tick % MUX_TICKS == MUX_TICKS - 1)
		t->rot++;
	for (size_t i = 0; i < F.n_ev; i++) {
		fev *e = F.ev[i];
		if (e->pid != t->pid || !e->enabled || !e->leader->enabled)
			continue;
		e->enabled_ns += TICK_NS;
		if (!e->active)
			continue;
		e->running_ns += TICK_NS;
		if (!e->throttled)
			count_tick(e, t, p, time);
	}
	/* the target's DRAM reads, interleaved over every socket's channels:
	 * each box counts its share, whichever CPU the target runs on */
	for (size_t i = 0; i < F.n_ev; i++) {
		fev *e = F.ev[i];
		if (e->role != R_UNCORE || !e->enabled)
			continue;
		e->enabled_ns += TICK_NS;
		e->running_ns += TICK_NS;
		e->carry += (double)TICK_NS * GHZ * phases[p].ipc * phases[p].dram /
			    (double)(F.sockets * F.unc->boxes);
		e->count += (uint64_t)e->carry;
		e->carry -= (double)(uint64_t)e->carry;
	}
	t->instr += (double)TICK_NS * GHZ * phases[p].ipc;
	t->tick++;
}

static int task_clock_ns(pid_t pid, uint64_t *ns);

/* The target's CPU time since its exec.  A task-clock event of the real
 * kernel on it is exact (the process CPU clock of another process lags by
 * up to a scheduler tick); without one, that clock from the open on. */
static int task_cpu_ns(const task *t, uint64_t *ns)
{
	if (t->clock_fd >= 0)
		return read(t->clock_fd, ns, sizeof *ns) == sizeof *ns ? 0 : -1;
	return task_clock_ns(t->pid, ns);
}

static int task_clock_ns(pid_t pid, uint64_t *ns)
{
	clockid_t cid;
	struct timespec ts;
	if (clock_getcpuclockid(pid, &cid) != 0 || clock_gettime(cid, &ts) != 0)
		return -1;
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return 0;
}

static void read_exe(pid_t pid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, buf, len - 1);
	buf[n > 0 ? n : 0] = 0;
}

/* Bring every task's counters up to now. */
static void sync_all(void)
{
	uint64_t now = mono_ns();
	for (size_t k = 0; k < F.n_tasks; k++) {
		task *t = &F.tasks[k];
		uint64_t cpu_ns;
		if (t->pid <= 0 || task_cpu_ns(t, &cpu_ns) < 0)
			continue;
		if (!t->execed) {
			char exe[256];
			read_exe(t->pid, exe, sizeof exe);
			if (t->clock_fd >= 0 ? cpu_ns == 0 : !strcmp(exe, t->exe))
				continue;
			t->execed = 1; /* enable_on_exec */
			for (size_t i = 0; i < F.n_ev; i++)
				if (F.ev[i]->pid == t->pid && F.ev[i]->attr.enable_on_exec)
					F.ev[i]->enabled = 1;
			/* counting from the exec: the held child's CPU time at
			 * open is where it stood then */
		}
		if (cpu_ns <= t->cpu_ns)
			continue;
		uint64_t work = cpu_ns - t->cpu_ns + t->carry_ns;
		uint64_t ticks = work / TICK_NS;
		for (uint64_t i = 0; i < ticks; i++)
			run_tick(t, t->mono_ns + (now - t->mono_ns) * (i + 1) / ticks);
		t->carry_ns = work % TICK_NS;
		t->cpu_ns = cpu_ns;
		if (ticks)
			t->mono_ns = now;
	}
}

/* ---- the system calls ------------------------------------------------------ */

static int kernel_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
		       unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

static int fail(int e)
{
	errno = e;
	return -1;
}

static void learn_branch(void)
{
	if (F.branch_known)
		return;
	F.branch_known = 1;
	struct perf_event_attr a;
	if (sl_pfm_encode(F.pmu->branch, &a) == 0) {
		F.branch_config = a.config;
		F.branch_type = a.type;
	} else {
		F.branch_type = UINT32_MAX;
	}
}

static int f_open(struct perf_event_attr *ua, pid_t pid, int cpu, int group,
		  unsigned long flags)
{
	if (F.deny == EPERM)
		return fail(EPERM); /* Docker's default seccomp profile */
	if (ua->type == PERF_TYPE_SOFTWARE && group < 0)
		return kernel_open(ua, pid, cpu, group, flags);
	if (F.deny)
		return fail(F.deny);
	/* what the kernel copies in: attr.size bytes (0: the first ABI's) */
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	size_t size = ua->size ? ua->size : PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0)
		return fail(EINVAL);
	if (size > sizeof a) {
		/* a newer ABI's attr: fine if what this "kernel" does not know
		 * is all zero */
		const unsigned char *tail = (const unsigned char *)ua + sizeof a;
		for (size_t i = 0; i < size - sizeof a; i++)
			if (tail[i]) {
				ua->size = sizeof a;
				return fail(E2BIG);
			}
		size = sizeof a;
	}
	memcpy(&a, ua, size);
	if (!F.cap_perfmon && (F.paranoid >= 3 || (F.paranoid >= 2 && !a.exclude_kernel) ||
			       (pid == -1 && F.paranoid >= 1)))
		return fail(EACCES);
	if (pid == -1 && cpu == -1)
		return fail(EINVAL);
	learn_branch();
	enum role role = R_OTHER;
	if (a.type == PERF_TYPE_HARDWARE) {
		if (a.config == PERF_COUNT_HW_CPU_CYCLES)
			role = R_CYCLES;
		else if (a.config == PERF_COUNT_HW_INSTRUCTIONS)
			role = R_INSTR;
		else if (a.config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS)
			role = R_ALLBR;
		else
			return fail(ENOENT);
	} else if (a.type == PERF_TYPE_RAW) {
		if (F.branch_type == PERF_TYPE_RAW && a.config == F.branch_config)
			role = R_BRANCH;
	} else if (F.unc && a.type >= UNC_TYPE0 &&
		   a.type < UNC_TYPE0 + (unsigned)F.unc->boxes) {
		/* the kernel's uncore event_init: counting a socket, at every
		 * privilege level, without interrupts or a task */
		if (pid != -1 || cpu < 0 || group >= 0 || a.exclude_user ||
		    a.exclude_kernel || a.exclude_hv || a.exclude_idle ||
		    a.sample_period || a.freq)
			return fail(EINVAL);
		role = R_UNCORE;
	} else {
		return fail(ENOENT);
	}
	if (a.precise_ip && F.pmu->vendor != ARM) {
		if (a.precise_ip > (unsigned)F.pmu->max_precise)
			return fail(EOPNOTSUPP);
	} else if (F.pmu->vendor == ARM) {
		a.precise_ip = 0; /* arm_pmu ignores it, without a word */
	}
	fev *leader = NULL;
	int self = pid == 0;
	if (self)
		pid = getpid(); /* sleuth itself: its start-up check of the plan */
	if (group >= 0) {
		leader = find(group);
		if (!leader)
			return fail(fcntl(group, F_GETFD) < 0 ? EBADF : EINVAL);
		if (leader->leader != leader || leader->cpu != cpu || leader->pid != pid)
			return fail(EINVAL);
	}
	fev *e = sl_xcalloc(1, sizeof *e);
	e->attr = a;
	e->role = role;
	e->pid = pid;
	e->cpu = cpu;
	e->leader = leader ? leader : e;
	e->enabled = !a.disabled;
	e->left = (int64_t)a.sample_period;
	if (role == R_UNCORE)
		goto made; /* its own PMU: no core counter */
	/* the group must fit an empty PMU (x86 validate_group): what others
	 * hold is not looked at */
	pmu_state st;
	memset(&st, 0, sizeof st);
	if (!group_fits(&st, e->leader, e->enabled && leader ? e : NULL)) {
		free(e);
		return fail(EINVAL);
	}
made:
	e->fd = eventfd(0, (flags & PERF_FLAG_FD_CLOEXEC) ? EFD_CLOEXEC : 0);
	if (e->fd < 0) {
		free(e);
		return -1; /* EMFILE as the kernel would */
	}
	e->seq = F.seq++;
	e->id = ++F.next_id;
	SL_GROW(F.ev, F.n_ev, F.cap_ev);
	F.ev[F.n_ev++] = e;
	if (pid > 0 && !find_task(pid)) {
		SL_GROW(F.tasks, F.n_tasks, F.cap_tasks);
		task *t = &F.tasks[F.n_tasks++];
		memset(t, 0, sizeof *t);
		t->pid = pid;
		read_exe(pid, t->exe, sizeof t->exe);
		t->execed = self; /* no exec to wait for */
		struct perf_event_attr c;
		memset(&c, 0, sizeof c);
		c.size = sizeof c;
		c.type = PERF_TYPE_SOFTWARE;
		c.config = PERF_COUNT_SW_TASK_CLOCK;
		c.inherit = (unsigned)!self;
		c.disabled = (unsigned)!self;
		c.enable_on_exec = (unsigned)!self;
		c.exclude_kernel = 1;
		c.exclude_hv = 1;
		t->clock_fd = kernel_open(&c, self ? 0 : pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (t->clock_fd < 0 && task_clock_ns(pid, &t->cpu_ns) < 0)
			t->cpu_ns = 0;
		t->mono_ns = mono_ns();
	}
	return e->fd;
}

static int f_ioctl(int fd, unsigned long req, unsigned long arg)
{
	fev *e = find(fd);
	if (!e)
		return ioctl(fd, req, arg);
	sync_all();
	switch (req) {
	case PERF_EVENT_IOC_ENABLE:
	case PERF_EVENT_IOC_DISABLE:
		for (size_t i = 0; i < F.n_ev; i++)
			if (F.ev[i] == e ||
			    ((arg & PERF_IOC_FLAG_GROUP) && F.ev[i]->leader == e))
				F.ev[i]->enabled = req == PERF_EVENT_IOC_ENABLE;
		return 0;
	case PERF_EVENT_IOC_RESET:
		e->count = 0;
		return 0;
	case PERF_EVENT_IOC_REFRESH:
		return e->attr.inherit ? fail(EINVAL) : 0;
	case PERF_EVENT_IOC_ID:
		memcpy((void *)arg, &e->id, sizeof e->id);
		return 0;
	case PERF_EVENT_IOC_SET_OUTPUT: {
		if ((int)arg == -1) {
			e->output = NULL;
			return 0;
		}
		fev *o = find((int)arg);
		if (!o || o == e || o->cpu != e->cpu || !o->ring)
			return fail(EINVAL);
		e->output = o;
		return 0;
	}
	default:
		return fail(ENOTTY);
	}
}

static size_t put_value(uint64_t *out, size_t n, const fev *e)
{
	out[n++] = e->count;
	if (e->leader->attr.read_format & PERF_FORMAT_ID)
		out[n++] = e->id;
	return n;
}

static ssize_t f_read(int fd, void *buf, size_t len)
{
	fev *e = find(fd);
	if (!e)
		return read(fd, buf, len);
	sync_all();
	uint64_t out[3 + 2 * 64];
	size_t n = 0;
	uint64_t rf = e->attr.read_format;
	if (rf & PERF_FORMAT_GROUP) {
		size_t nr = 0;
		for (size_t i = 0; i < F.n_ev; i++)
			nr += F.ev[i]->leader == e;
		if (nr > 64)
			return fail(ENOSPC);
		out[n++] = nr;
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			out[n++] = e->enabled_ns;
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			out[n++] = e->running_ns;
		n = put_value(out, n, e);
		for (size_t i = 0; i < F.n_ev; i++)
			if (F.ev[i]->leader == e && F.ev[i] != e)
				n = put_value(out, n, F.ev[i]);
	} else {
		out[n++] = e->count;
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			out[n++] = e->enabled_ns;
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			out[n++] = e->running_ns;
		if (rf & PERF_FORMAT_ID)
			out[n++] = e->id;
	}
	if (len < n * sizeof(uint64_t))
		return fail(ENOSPC);
	memcpy(buf, out, n * sizeof(uint64_t));
	return (ssize_t)(n * sizeof(uint64_t));
}

static void *f_mmap(size_t len, int fd)
{
	fev *e = find(fd);
	if (!e)
		return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), data = len - page;
	if (len <= page || len % page || (data & (data - 1)) ||
	    (e->attr.inherit && e->cpu == -1) || e->ring) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return p;
	e->ring = sl_xcalloc(1, sizeof *e->ring);
	e->ring->base = p;
	e->ring->len = len;
	e->ring->data_size = data;
	struct perf_event_mmap_page *meta = p;
	meta->data_offset = page;
	meta->data_size = data;
	return p;
}

static int f_munmap(void *p, size_t len)
{
	for (size_t i = 0; i < F.n_ev; i++) {
		fring *r = F.ev[i]->ring;
		if (r && r->base == p) {
			for (size_t k = 0; k < F.n_ev; k++)
				if (F.ev[k]->output == F.ev[i])
					F.ev[k]->output = NULL;
			F.ev[i]->ring = NULL;
			munmap(r->base, r->len);
			free(r);
			return 0;
		}
	}
	return munmap(p, len);
}

static int f_close(int fd)
{
	size_t i = 0;
	while (i < F.n_ev && F.ev[i]->fd != fd)
		i++;
	if (i == F.n_ev)
		return close(fd);
	fev *e = F.ev[i];
	F.ev[i] = F.ev[--F.n_ev];
	for (size_t k = 0; k < F.n_ev; k++) {
		if (F.ev[k]->leader == e)
			F.ev[k]->leader = F.ev[k]; /* siblings become singletons */
		if (F.ev[k]->output == e)
			F.ev[k]->output = NULL;
	}
	if (e->ring) {
		munmap(e->ring->base, e->ring->len);
		free(e->ring);
	}
	int rc = close(e->fd);
	free(e);
	if (!F.n_ev) {
		for (size_t k = 0; k < F.n_tasks; k++)
			if (F.tasks[k].clock_fd >= 0)
				close(F.tasks[k].clock_fd);
		free(F.ev);
		free(F.tasks);
		F.ev = NULL;
		F.tasks = NULL;
		F.cap_ev = F.n_tasks = F.cap_tasks = 0;
	}
	return rc;
}

static int f_poll(struct pollfd *p, nfds_t n, int timeout_ms)
{
	struct pollfd *real = sl_xcalloc(n + 1, sizeof *real);
	uint64_t end = mono_ns() + (uint64_t)(timeout_ms < 0 ? 3600000 : timeout_ms) * 1000000ull;
	int ready;
	for (;;) {
		sync_all();
		ready = 0;
		nfds_t nr = 0;
		for (nfds_t i = 0; i < n; i++) {
			fev *e = find(p[i].fd);
			p[i].revents = 0;
			if (!e) {
				real[nr] = p[i];
				real[nr++].revents = 0;
				continue;
			}
			fring *r = e->ring;
			if (r && r->ready && (p[i].events & POLLIN)) {
				p[i].revents = POLLIN;
				r->ready = 0;
				ready++;
			}
		}
		if (nr && poll(real, nr, 0) > 0) {
			/* the target may have exited: count its last work
			 * before the caller reaps it */
			sync_all();
			nfds_t k = 0;
			for (nfds_t i = 0; i < n; i++)
				if (!find(p[i].fd) && (p[i].revents = real[k++].revents))
					ready++;
		}
		if (ready || mono_ns() >= end)
			break;
		struct timespec ts = {0, 1000000}; /* the model's pace: 1 ms */
		nanosleep(&ts, NULL);
	}
	free(real);
	return ready;
}

static long f_knob(const char *path, long dflt)
{
	if (!strcmp(path, SL_KNOB_WATCHDOG))
		return F.watchdog;
	if (!strcmp(path, SL_KNOB_SMT))
		return F.ht;
	if (!strcmp(path, SL_KNOB_PARANOID))
		return F.paranoid;
	if (!strcmp(path, SL_KNOB_MAX_RATE))
		return F.max_rate;
	if (!strcmp(path, SL_KNOB_HYBRID))
		return F.hybrid ? 8 : dflt;
	return dflt;
}

/* The CPU of socket s that its uncore boxes' events are opened on: the
 * first of its share of the online CPUs (a socket may be past them on a
 * small host; the model takes any CPU number). */
static int socket_cpu(int s)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return s * (int)SL_MAX(n / F.sockets, 1);
}

static int f_pmu_device(uint32_t type, char *dev, size_t dev_len, char *cpus,
			size_t cpus_len)
{
	if (!F.unc || type < UNC_TYPE0 || type >= UNC_TYPE0 + (unsigned)F.unc->boxes)
		return -1;
	snprintf(dev, dev_len, F.unc->dev, (int)(type - UNC_TYPE0));
	size_t n = 0;
	cpus[0] = 0;
	for (int s = 0; s < F.sockets && n < cpus_len; s++)
		n += (size_t)snprintf(cpus + n, cpus_len - n, "%s%d", s ? "," : "",
				      socket_cpu(s));
	return 0;
}

static int f_uncore_encode(const char *event, struct perf_event_attr *a)
{
	const char *sep = strstr(event, "::");
	size_t len = sep ? (size_t)(sep - event) : 0, plen = F.unc ? strlen(F.unc->pfm) : 0;
	int box = -1;
	if (F.unc && len >= plen && !strncmp(event, F.unc->pfm, plen)) {
		if (F.unc->boxes == 1) {
			box = len == plen ? 0 : -1;
		} else if (len > plen) {
			char *end;
			long b = strtol(event + plen, &end, 10);
			box = end == sep && b >= 0 && b < F.unc->boxes ? (int)b : -1;
		}
	}
	if (box < 0) {
		sl_error_set("the modelled machine has no uncore PMU %.*s (it has "
			     "%s); %s", (int)len, event, F.unc ? F.unc->pfm : "none",
			     SL_UNCORE_FIX);
		return -1;
	}
	uint64_t codes[3];
	int n = sl_pfm_codes(event, codes, 3);
	if (n < 1)
		return -1;
	/* as libpfm4's perf encoders: the counter's enable and interrupt
	 * bits (22, 20) are the kernel's */
	a->type = UNC_TYPE0 + (unsigned)box;
	a->config = codes[0] & ~((1ull << 22) | (1ull << 20));
	a->config1 = n > 1 ? codes[1] : 0;
	return 0;
}

static sl_perf_sys fake_sys = {
	.open = f_open,
	.ioctl = f_ioctl,
	.read = f_read,
	.mmap = f_mmap,
	.munmap = f_munmap,
	.close = f_close,
	.poll = f_poll,
	.knob = f_knob,
	.pmu_device = f_pmu_device,
	.uncore_encode = f_uncore_encode,
};

const sl_perf_sys *sl_fake_pmu_sys(const char *pmu, const char *opts)
{
	const pmu_desc *d = NULL;
	for (size_t i = 0; i < SL_ARRAY_LEN(pmus) && !d; i++)
		if (!strncmp(pmu, pmus[i].prefix, strlen(pmus[i].prefix)))
			d = &pmus[i];
	if (!d) {
		sl_error_set("the fake PMU models no PMU named '%s' (nhm, wsm, snb, ivb, "
			     "hsw, bdw, skl, skx, clx, icl, icx, spr, amd64_fam17h*, "
			     "amd64_fam19h*, arm_*)", pmu);
		return NULL;
	}
	memset(&F, 0, sizeof F);
	F.pmu = d;
	snprintf(F.name, sizeof F.name, "%s", pmu);
	/* a laptop's defaults: SMT on, the watchdog on, Debian's paranoid 2 */
	F.ht = 1;
	F.watchdog = 1;
	F.paranoid = 2;
	F.max_rate = 100000;
	F.pinned_cpu = -1;
	F.sockets = 1;
	const char *unc = d->uncore;
	char *o = sl_xstrdup(opts ? opts : ""), *save = NULL;
	for (char *kv = strtok_r(o, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		long v = eq ? strtol(eq + 1, NULL, 10) : 1;
		if (eq)
			*eq = 0;
		if (!strcmp(kv, "ht"))
			F.ht = (int)v;
		else if (!strcmp(kv, "watchdog"))
			F.watchdog = (int)v;
		else if (!strcmp(kv, "paranoid"))
			F.paranoid = (int)v;
		else if (!strcmp(kv, "max_rate"))
			F.max_rate = v;
		else if (!strcmp(kv, "pinned"))
			F.pinned = (int)v;
		else if (!strcmp(kv, "pinned_cpu"))
			F.pinned_cpu = (int)v;
		else if (!strcmp(kv, "pinned_later"))
			F.pinned_later = (int)v;
		else if (!strcmp(kv, "hybrid"))
			F.hybrid = (int)v;
		else if (!strcmp(kv, "sockets"))
			F.sockets = (int)SL_MAX(v, 1);
		else if (!strcmp(kv, "cap_perfmon"))
			F.cap_perfmon = (int)v;
		else if (!strcmp(kv, "uncore") && eq)
			unc = strcmp(eq + 1, "0") ? eq + 1 : NULL;
		else if (!strcmp(kv, "deny") && eq)
			F.deny = !strcmp(eq + 1, "EPERM") ? EPERM
				 : !strcmp(eq + 1, "EBUSY") ? EBUSY : 0;
	}
	for (size_t i = 0; unc && i < SL_ARRAY_LEN(uncores); i++)
		if (!strcmp(unc, uncores[i].pfm))
			F.unc = &uncores[i];
	free(o);
	fake_sys.name = F.name;
	return &fake_sys;
}
