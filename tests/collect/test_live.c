/* The live backends on a real child program (tests/progs/twophase):
 * software events drive the ring reader and the interval machinery of the
 * timer backend here; the perf backend must fail cleanly where the machine
 * has no PMU.  Checks: intervals arrive and their times add up to the run,
 * samples land in twophase's executable mapping and in its two phase
 * functions, lost samples are counted, the exit status and Ctrl-C reach
 * the caller, and a missing program is one clear error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect/live.h"
#include "sleuth/collect.h"
#include "sleuth/common.h"
#include "sleuth/profile.h"

static char *prog_path(const char *name)
{
	const char *b = getenv("BUILDDIR");
	return sl_xasprintf("%s/tests/progs/%s", b ? b : "build", name);
}

/* st_value and st_size of a function in an ELF file (libelf). */
static int elf_symbol(const char *path, const char *name, uint64_t *addr, uint64_t *size)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY), found = -1;
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	while (e && (scn = elf_nextscn(e, scn)) && found < 0) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			gelf_getsym(d, (int)i, &sym);
			if (!strcmp(elf_strptr(e, sh.sh_link, sym.st_name), name)) {
				*addr = sym.st_value;
				*size = sym.st_size;
				found = 0;
				break;
			}
		}
	}
	elf_end(e);
	close(fd);
	return found;
}

typedef struct run {
	int n;
	double sum_time, wall, first_start;
	size_t samples, in_prog, in_hash, in_float;
	size_t hash_major, float_major; /* intervals dominated by each */
	uint64_t lost;
	int status;
} run;

static void run_timer(char **argv, run *r, int interrupt_after)
{
	memset(r, 0, sizeof *r);
	sl_live_opts o = {0};
	o.argv = argv;
	double t0 = sl_now();
	sl_backend *b = sl_timer_backend_new(&o);
	if (!b)
		fail_msg("timer backend: %s", sl_error());
	assert_string_equal(b->name, "timer");
	assert_int_equal(b->has_counts, 0);
	assert_true(fabs(b->interval_s - 0.010) < 1e-9);
	assert_int_equal(b->program(b, NULL, 0), 0);
	uint64_t ha = 0, hs = 0, fa = 0, fs = 0;
	assert_int_equal(elf_symbol(argv[0], "phase_hash", &ha, &hs), 0);
	assert_int_equal(elf_symbol(argv[0], "phase_float", &fa, &fs), 0);
	sl_obs ob;
	int rc;
	while ((rc = b->next(b, &ob)) == 1) {
		if (r->n == 0)
			r->first_start = ob.start_s;
		r->n++;
		assert_true(ob.time_s >= 0);
		assert_true(isnan(ob.energy_j));
		r->sum_time += ob.time_s;
		r->samples += ob.n_samples;
		r->lost += ob.lost;
		/* The program's mapping is known once it has run. */
		const sl_mapping *m = NULL;
		for (size_t i = 0; i < b->n_maps; i++)
			if (strstr(b->maps[i].path, "/twophase"))
				m = &b->maps[i];
		assert_non_null(m);
		size_t h = 0, f = 0;
		for (size_t i = 0; i < ob.n_samples; i++) {
			uint64_t ip = ob.samples[i];
			if (ip < m->start || ip >= m->end)
				continue;
			r->in_prog++;
			uint64_t off = ip - m->start + m->pgoff; /* = vaddr in a PIE */
			h += off >= ha && off < ha + hs;
			f += off >= fa && off < fa + fs;
		}
		r->in_hash += h;
		r->in_float += f;
		r->hash_major += h > 0.8 * ob.n_samples && ob.n_samples >= 5;
		r->float_major += f > 0.8 * ob.n_samples && ob.n_samples >= 5;
		if (interrupt_after && r->n == interrupt_after)
			b->interrupt(b);
	}
	assert_int_equal(rc, 0);
	r->wall = sl_now() - t0;
	r->status = b->finish(b);
	b->destroy(b);
}

static void test_timer_twophase(void **state)
{
	(void)state;
	char *p = prog_path("twophase");
	char *argv[] = {p, "exit3", NULL};
	run r;
	run_timer(argv, &r, 0);
	print_message("intervals %d time %.3f wall %.3f samples %zu in prog %zu hash %zu float %zu majors %zu %zu\n", r.n, r.sum_time, r.wall, r.samples, r.in_prog, r.in_hash, r.in_float, r.hash_major, r.float_major);
	/* ~1.8 s of CPU in 10 ms intervals (more wall time on a busy box) */
	assert_true(r.n >= 120);
	assert_true(r.first_start < 0.05);
	assert_true(r.sum_time > 0.9 * (r.wall - 0.2) && r.sum_time <= r.wall);
	/* 2000 samples/s of 1.8 s of CPU, minus a little */
	assert_true(r.samples > 3000);
	assert_true(r.in_prog > 0.95 * r.samples);
	/* both phases, each a good share, many intervals clearly one of them */
	assert_true(r.in_hash > 0.3 * r.samples && r.in_float > 0.3 * r.samples);
	assert_true(r.hash_major > 40 && r.float_major > 40);
	assert_int_equal(r.lost, 0);
	assert_int_equal(r.status, 3);
	free(p);
}

static void test_timer_exit0_and_interrupt(void **state)
{
	(void)state;
	char *p = prog_path("twophase");
	char *argv[] = {p, NULL};
	setenv("TWOPHASE_SECONDS", "0.02", 1);
	run r;
	run_timer(argv, &r, 0);
	assert_int_equal(r.status, 0);
	assert_true(r.n >= 5);
	/* Ctrl-C: stops a 6 s run early; what ran is delivered, then 128+2 */
	setenv("TWOPHASE_SECONDS", "1", 1);
	run_timer(argv, &r, 20);
	unsetenv("TWOPHASE_SECONDS");
	assert_int_equal(r.status, 130);
	assert_true(r.n >= 20 && r.n < 120);
	assert_true(r.wall < 3);
	free(p);
}

/* A tiny ring, a high sampling rate and a reader that dawdles after the
 * first interval overflow the buffer: the kernel's LOST records are
 * counted and handed out with the intervals. */
static void test_lost_counted(void **state)
{
	(void)state;
	char *p = prog_path("twophase");
	char *argv[] = {p, NULL};
	setenv("TWOPHASE_SECONDS", "0.1", 1);
	sl_session_cfg cfg = {0};
	cfg.argv = argv;
	cfg.boundary.type = PERF_TYPE_SOFTWARE;
	cfg.boundary.config = PERF_COUNT_SW_TASK_CLOCK;
	cfg.boundary.sample_period = 100000000; /* 100 ms: few wake-ups */
	cfg.sampler.type = PERF_TYPE_SOFTWARE;
	cfg.sampler.config = PERF_COUNT_SW_CPU_CLOCK;
	cfg.sampler.sample_period = 20000; /* 50 kHz */
	cfg.ring_pages = 1;
	sl_session *s = sl_session_start(&cfg);
	if (!s)
		fail_msg("%s", sl_error());
	sl_interval iv;
	uint64_t lost = 0, n = 0;
	int rc, first = 1;
	while ((rc = sl_session_next(s, &iv)) == 1) {
		lost += iv.lost;
		n += iv.n_samples;
		if (first)
			usleep(300000); /* 15000 samples for a ring of ~100 */
		first = 0;
	}
	unsetenv("TWOPHASE_SECONDS");
	assert_int_equal(rc, 0);
	assert_true(lost > 0);
	assert_int_equal(lost, sl_session_lost(s));
	assert_true(n > 0);
	assert_int_equal(sl_session_status(s), 0);
	sl_session_free(s);
	free(p);
}

/* The perf backend's counting path (group read at each boundary, events
 * switched on and off by program(), unprogrammed ones SL_MISSING) driven
 * by software events standing in for hardware ones: task-clock plays
 * instructions (the interval leader), cpu-clock plays cycles. */
static void test_counting_path(void **state)
{
	(void)state;
	char *p = prog_path("twophase");
	char *argv[] = {p, NULL};
	setenv("TWOPHASE_SECONDS", "0.1", 1);
	static const char *const names[] = {"task-clock", "context-switches", "page-faults"};
	static const uint64_t configs[] = {PERF_COUNT_SW_TASK_CLOCK,
					   PERF_COUNT_SW_CONTEXT_SWITCHES,
					   PERF_COUNT_SW_PAGE_FAULTS};
	struct perf_event_attr members[4];
	memset(members, 0, sizeof members);
	members[0].type = PERF_TYPE_SOFTWARE;
	members[0].config = PERF_COUNT_SW_CPU_CLOCK;
	for (int i = 0; i < 3; i++) {
		members[1 + i].type = PERF_TYPE_SOFTWARE;
		members[1 + i].config = configs[i];
		members[1 + i].disabled = 1;
	}
	sl_session_cfg cfg = {0};
	cfg.argv = argv;
	cfg.boundary.type = PERF_TYPE_SOFTWARE;
	cfg.boundary.config = PERF_COUNT_SW_TASK_CLOCK;
	cfg.boundary.sample_period = 20000000; /* 20 ms */
	cfg.sampler.type = PERF_TYPE_SOFTWARE;
	cfg.sampler.config = PERF_COUNT_SW_CPU_CLOCK;
	cfg.sampler.sample_period = 1000000;
	cfg.members = members;
	cfg.n_members = 4;
	sl_live_opts o = {0};
	o.argv = argv;
	sl_backend *b = sl_live_backend_new("perf", &o, &cfg, 1, names, 3, 2);
	if (!b)
		fail_msg("%s", sl_error());
	assert_int_equal(b->has_counts, 1);
	assert_int_equal(b->interval_instructions, 20000000);
	size_t too_many[] = {0, 1, 2}, first[] = {0}, second[] = {1, 2};
	assert_int_equal(b->program(b, too_many, 3), -1);
	assert_non_null(strstr(sl_error(), "3 events asked for one interval but the "
					   "perf backend has 2 counters"));
	sl_obs ob;
	int n = 0, rc;
	uint64_t sum_lead = 0, sum_task = 0, faults = 0;
	size_t seen_first = 0, seen_second = 0;
	for (;;) {
		int odd = n % 2;
		assert_int_equal(b->program(b, odd ? second : first, odd ? 2 : 1), 0);
		if ((rc = b->next(b, &ob)) != 1)
			break;
		sum_lead += ob.instructions;
		if (!odd) {
			assert_true(ob.counts[0] != SL_MISSING);
			assert_true(ob.counts[1] == SL_MISSING && ob.counts[2] == SL_MISSING);
			sum_task += ob.counts[0];
			/* switched on just after the boundary: nearly the whole interval */
			if (ob.instructions > 10000000)
				assert_true(ob.counts[0] > 0.7 * ob.instructions &&
					    ob.counts[0] <= ob.instructions + 1000000);
			seen_first++;
		} else {
			assert_true(ob.counts[0] == SL_MISSING);
			assert_true(ob.counts[1] != SL_MISSING && ob.counts[2] != SL_MISSING);
			faults += ob.counts[2];
			seen_second++;
		}
		/* cpu-clock and task-clock measure the same CPU time */
		if (ob.instructions > 10000000)
			assert_true(fabs((double)ob.cycles - (double)ob.instructions) <
				    0.2 * (double)ob.instructions);
		n++;
	}
	unsetenv("TWOPHASE_SECONDS");
	assert_int_equal(rc, 0);
	assert_int_equal(b->finish(b), 0);
	b->destroy(b);
	print_message("counting: %d intervals, leader %.3f s, task-clock %.3f s on half, "
		      "%llu faults\n", n, sum_lead * 1e-9, sum_task * 1e-9,
		      (unsigned long long)faults);
	/* 6 x 0.1 s of CPU, in 20 ms intervals */
	assert_true(n >= 20);
	assert_true(sum_lead > 0.55e9 && sum_lead < 0.8e9);
	assert_true(sum_task > 0.35 * sum_lead && sum_task < 0.65 * sum_lead);
	assert_true(seen_first >= 10 && seen_second >= 10);
	free(p);
}

/* Work done in a thread the target creates is sampled too (inherit). */
static void test_threads_followed(void **state)
{
	(void)state;
	char *p = prog_path("threads");
	char *argv[] = {p, NULL};
	sl_live_opts o = {0};
	o.argv = argv;
	sl_backend *b = sl_timer_backend_new(&o);
	if (!b)
		fail_msg("%s", sl_error());
	uint64_t wa = 0, ws = 0;
	assert_int_equal(elf_symbol(p, "thread_work", &wa, &ws), 0);
	sl_obs ob;
	size_t total = 0, in_work = 0, n = 0;
	while (b->next(b, &ob) == 1) {
		n++;
		for (size_t i = 0; i < ob.n_samples; i++)
			for (size_t m = 0; m < b->n_maps; m++) {
				const sl_mapping *mp = &b->maps[m];
				uint64_t ip = ob.samples[i], off = ip - mp->start + mp->pgoff;
				if (ip >= mp->start && ip < mp->end && strstr(mp->path, "/threads") &&
				    off >= wa && off < wa + ws)
					in_work++;
			}
		total += ob.n_samples;
	}
	assert_int_equal(b->finish(b), 0);
	b->destroy(b);
	print_message("threads: %zu intervals, %zu samples, %zu in thread_work\n", n,
		      total, in_work);
	assert_true(n >= 15);         /* 0.3 s of the thread's CPU in 10 ms */
	assert_true(in_work > 400);   /* of ~600 */
	assert_true(in_work > 0.8 * total);
	free(p);
}

static void test_missing_program(void **state)
{
	(void)state;
	char *argv[] = {"/nonexistent/prog", NULL};
	sl_live_opts o = {0};
	o.argv = argv;
	assert_null(sl_timer_backend_new(&o));
	assert_string_equal(sl_error(), "cannot run /nonexistent/prog: No such file or directory");
	char *argv2[] = {"sleuth-no-such-command", NULL};
	o.argv = argv2;
	assert_null(sl_timer_backend_new(&o));
	assert_non_null(strstr(sl_error(), "command not found in PATH"));
	char *argv3[] = {"/etc/passwd", NULL};
	o.argv = argv3;
	assert_null(sl_timer_backend_new(&o));
	assert_non_null(strstr(sl_error(), "Permission denied"));
}

static int count_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 4096; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* File descriptors running out half way through the start (the second of
 * the two pipes) is one clear error, and nothing already made leaks.  The
 * session raises a low soft limit up to the hard one, so the hard limit is
 * lowered too, in a child (it cannot be raised again). */
static void test_out_of_fds(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *prog = prog_path("twophase");
		char *argv[] = {prog, NULL};
		sl_live_opts o = {0};
		o.argv = argv;
		int before = count_fds();
		int low = dup(0); /* the lowest free descriptor */
		close(low);
		struct rlimit lim = {(rlim_t)low + 3, (rlim_t)low + 3}; /* a pipe and a half */
		if (low < 0)
			_exit(2);
		if (setrlimit(RLIMIT_NOFILE, &lim) < 0)
			_exit(77); /* valgrind keeps the hard limit its own */
		sl_backend *b = sl_timer_backend_new(&o);
		int good = !b && strstr(sl_error(), "cannot create a pipe") &&
			   count_fds() == before;
		if (!good)
			fprintf(stderr, "out of fds: %s\n", b ? "started" : sl_error());
		_exit(good ? 0 : 1);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Interval length and sampling rate are honoured; bad values and missing
 * RAPL are clear errors. */
static void test_timer_options(void **state)
{
	(void)state;
	char *p = prog_path("twophase");
	char *argv[] = {p, NULL};
	setenv("TWOPHASE_SECONDS", "0.1", 1);
	sl_live_opts o = {0};
	o.argv = argv;
	o.interval_s = 0.02;
	o.sample_hz = 1000;
	sl_backend *b = sl_timer_backend_new(&o);
	if (!b)
		fail_msg("%s", sl_error());
	assert_true(fabs(b->interval_s - 0.02) < 1e-9);
	sl_obs ob;
	size_t n = 0, full = 0;
	while (b->next(b, &ob) == 1) {
		n++;
		full += ob.n_samples == 20;
	}
	unsetenv("TWOPHASE_SECONDS");
	assert_int_equal(b->finish(b), 0);
	b->destroy(b);
	/* 0.6 s of CPU in 20 ms intervals of 20 samples (the last one short) */
	assert_true(n >= 25 && n <= 36);
	assert_true(full >= n - 2);
	o.interval_s = 0;
	o.sample_hz = 1e6;
	assert_null(sl_timer_backend_new(&o));
	assert_string_equal(sl_error(), "sampling rate 1e+06 Hz is out of range (1 to 100000)");
	o.sample_hz = 0;
	o.energy = 1;
	b = sl_timer_backend_new(&o);
	if (b) { /* this machine has RAPL */
		b->destroy(b);
	} else {
		assert_non_null(strstr(sl_error(), "no RAPL energy counters"));
	}
	free(p);
}

/* Where the machine has no PMU (our VMs), the perf backend says so. */
static void test_perf_no_pmu(void **state)
{
	(void)state;
	int hw = sl_hw_available();
	char *p = prog_path("twophase");
	char *argv[] = {p, NULL};
	sl_live_opts o = {0};
	o.argv = argv;
	sl_backend *b = sl_perf_backend_new(&o);
	if (hw) {
		if (b)
			b->destroy(b);
		free(p);
		skip();
	}
	assert_null(b);
	assert_non_null(strstr(sl_error(), "perf_event_open(cycles) "));
	assert_non_null(strstr(sl_error(), ": ENOENT: the kernel has no such hardware "
					   "event here — no PMU (a VM?)"));
	assert_non_null(strstr(sl_error(), "use --backend timer, or --replay TRACE"));
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timer_twophase),
		cmocka_unit_test(test_timer_exit0_and_interrupt),
		cmocka_unit_test(test_lost_counted),
		cmocka_unit_test(test_counting_path),
		cmocka_unit_test(test_threads_followed),
		cmocka_unit_test(test_missing_program),
		cmocka_unit_test(test_out_of_fds),
		cmocka_unit_test(test_timer_options),
		cmocka_unit_test(test_perf_no_pmu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
