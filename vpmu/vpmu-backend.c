/*
 * The vPMU backend: runs the program under Valgrind with the vPMU tool
 * (vpmu-main.c) and turns the tool's records into sl_obs for the
 * collector, exactly as the perf backend turns the kernel's.  The tool
 * counts every event of its table each interval; this side reveals only
 * those the multiplexer programmed (at most k core events, and the memory
 * controller's reads, an uncore event that takes no counter), so phase detection,
 * prediction and multiplexing are those of the hardware path.  Energy
 * comes from the vPMU's meter (vpmu-meter.c) at the run's P-state.
 *
 * Valgrind finds the tool through VALGRIND_LIB: a directory of links to
 * the system's tool support files plus the vPMU tool (make_libdir).
 */
#include "vpmu/vpmu.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sleuth/collect.h"
#include "sleuth/common.h"
#include "sleuth/profile.h"
#include "vpmu/vpmu-config.h"

static const char *const event_names[VPMU_N_EVENTS] = VPMU_EVENT_NAMES;

const char *const *sl_vpmu_event_names(void)
{
	return event_names;
}

typedef struct vpmu {
	sl_vpmu_machine m;
	sl_vpmu_meter meter;
	pid_t pid;
	int fd;                 /* read end of the tool's pipe */
	int status;             /* wait status once reaped */
	int reaped, ended, got_end;
	volatile sig_atomic_t interrupted;
	size_t intervals;
	char *libdir;           /* the private VALGRIND_LIB */
	size_t *map;            /* offered event -> vPMU table index */
	char *on;               /* programmed for the coming interval */
	uint64_t *counts;
	uint64_t *samples;
	size_t cap_samples;
	double clock_s;
	char *prog;
	char *exec_path;        /* an execve the tool reported and did not follow:
				 * its path and arguments */
	size_t forks;           /* children forked, not followed */
} vpmu;

/* ---- finding things ------------------------------------------------------ */

/* The path execvp would run for `prog` (malloc'd), or NULL. */
static char *which(const char *prog)
{
	if (strchr(prog, '/'))
		return access(prog, X_OK) ? NULL : sl_xstrdup(prog);
	char *path = sl_xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin"), *save;
	char *found = NULL;
	for (char *d = strtok_r(path, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *c = sl_xasprintf("%s/%s", *d ? d : ".", prog);
		if (!access(c, X_OK))
			found = c;
		else
			free(c);
	}
	free(path);
	return found;
}

/* Why valgrind would refuse to start `path`, or NULL when it can.  valgrind's
 * launcher prints its refusal on the program's own stderr, where sleuth
 * cannot catch it; checking first keeps the error one line.  Like execvp,
 * valgrind runs a text file without "#!" through /bin/sh. */
static const char *not_runnable(const char *path)
{
#if defined(__x86_64__)
	enum { HOST_MACHINE = EM_X86_64 };
#elif defined(__aarch64__)
	enum { HOST_MACHINE = EM_AARCH64 };
#else
	enum { HOST_MACHINE = EM_NONE };
#endif
	struct stat st;
	if (stat(path, &st) < 0)
		return strerror(errno);
	if (!S_ISREG(st.st_mode))
		return "not a regular file";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return "valgrind must read the program and it is not readable (chmod +r it)";
	unsigned char h[512];
	ssize_t n = read(fd, h, sizeof h);
	close(fd);
	if (n < 0)
		return strerror(errno);
	if (n >= (ssize_t)sizeof(Elf64_Ehdr) && !memcmp(h, ELFMAG, SELFMAG)) {
		const Elf64_Ehdr *e = (const void *)h;
		if (h[EI_CLASS] != ELFCLASS64 ||
		    (HOST_MACHINE != EM_NONE && e->e_machine != HOST_MACHINE))
			return "an ELF file for another architecture";
		return NULL;
	}
	if (n >= 2 && h[0] == '#' && h[1] == '!')
		return NULL;
	for (ssize_t i = 0; i < n; i++)
		if (h[i] == 0 || (h[i] < 0x20 && !strchr("\t\n\r\f\v\b\x1b", h[i])))
			return "neither an ELF executable nor a script";
	return NULL;
}

/* Whether `path` is a "#!" script (its interpreter runs under the vPMU, and
 * what the script execs does not). */
static int starts_with_shebang(const char *path)
{
	char h[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, h, sizeof h);
	close(fd);
	return n == 2 && h[0] == '#' && h[1] == '!';
}

/* The tool binary: $SLEUTH_VPMU_TOOL, the build tree's, or the installed. */
static char *tool_path(void)
{
	const char *env = getenv("SLEUTH_VPMU_TOOL");
	if (env && *env)
		return sl_xstrdup(env);
	const char *dirs[] = {VPMU_TOOL_DIR, VPMU_INSTALL_DIR};
	for (size_t i = 0; i < SL_ARRAY_LEN(dirs); i++) {
		char *p = sl_xasprintf("%s/vpmu-%s", dirs[i], VPMU_PLATFORM);
		if (*dirs[i] && !access(p, R_OK | X_OK))
			return p;
		free(p);
	}
	return NULL;
}

/* Valgrind present and the tool built: 0, or -1 naming the fix. */
static int check_tools(char **valgrind, char **tool)
{
	*valgrind = *tool = NULL;
	if (!(*valgrind = which("valgrind"))) {
		sl_error_set("the vPMU needs valgrind, which is not installed; install the "
			     "Debian package 'valgrind' (apt-get install valgrind)");
		return -1;
	}
	if (!VPMU_HAVE_TOOL) {
		sl_error_set("sleuth was built without the vPMU tool (Valgrind's tool API was "
			     "missing at build time); install the package 'valgrind' and "
			     "rebuild sleuth");
		return -1;
	}
	if (!(*tool = tool_path())) {
		sl_error_set("the vPMU tool vpmu-%s is not in %s nor %s; rebuild sleuth "
			     "(ninja) or set SLEUTH_VPMU_TOOL", VPMU_PLATFORM, VPMU_TOOL_DIR,
			     VPMU_INSTALL_DIR);
		return -1;
	}
	return 0;
}

/* Link dst -> src, replacing a stale link; 0 or -1 with errno. */
static int link_to(const char *src, const char *dst)
{
	char cur[4096];
	ssize_t n = readlink(dst, cur, sizeof cur - 1);
	if (n >= 0) {
		cur[n] = 0;
		if (!strcmp(cur, src))
			return 0;
		unlink(dst);
	}
	return symlink(src, dst) < 0 && errno != EEXIST ? -1 : 0;
}

/*
 * The VALGRIND_LIB valgrind is pointed at: links to the system's support
 * files and the tool.  Its name is fixed (user and tool path), not random:
 * the client sees VALGRIND_LIB in its environment, and a different string
 * there would change the instructions its startup code runs, so two runs
 * of a deterministic program would not count alike.  Kept between runs.
 */
static char *make_libdir(const char *tool)
{
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	uint64_t h = 1469598103934665603ull;
	for (const char *c = tool; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	char *dir = sl_xasprintf("%s/sleuth-vpmu-%u-%016llx", tmp, (unsigned)getuid(),
				 (unsigned long long)h);
	struct stat st;
	if ((mkdir(dir, 0700) < 0 && errno != EEXIST) || lstat(dir, &st) < 0) {
		sl_error_set("cannot create %s for valgrind: %s; set TMPDIR to a writable "
			     "directory", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 022)) {
		sl_error_set("%s is not a private directory of this user; remove it", dir);
		free(dir);
		return NULL;
	}
	DIR *d = opendir(VPMU_VG_LIBEXEC);
	struct dirent *e;
	if (!d) {
		sl_error_set("cannot read valgrind's directory %s: %s; reinstall the "
			     "package 'valgrind'", VPMU_VG_LIBEXEC, strerror(errno));
		free(dir);
		return NULL;
	}
	int ok = 1;
	while (ok && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *src = sl_xasprintf("%s/%s", VPMU_VG_LIBEXEC, e->d_name);
		char *dst = sl_xasprintf("%s/%s", dir, e->d_name);
		ok = !link_to(src, dst);
		free(src);
		free(dst);
	}
	closedir(d);
	char *dst = sl_xasprintf("%s/vpmu-%s", dir, VPMU_PLATFORM);
	ok = ok && !link_to(tool, dst);
	free(dst);
	if (!ok) {
		sl_error_set("cannot link valgrind's files into %s: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

/* ---- the child ------------------------------------------------------------ */

static char **tool_argv(const char *valgrind, int fd, const sl_vpmu_opts *o,
			const sl_vpmu_machine *m, double ghz)
{
	size_t argc = 0;
	while (o->argv[argc])
		argc++;
	char **a = sl_xcalloc(argc + 32, sizeof *a);
	size_t n = 0;
	a[n++] = sl_xstrdup(valgrind);
	a[n++] = sl_xstrdup("--tool=vpmu");
	a[n++] = sl_xstrdup("-q");
	a[n++] = sl_xasprintf("--vpmu-fd=%d", fd);
	a[n++] = sl_xasprintf("--interval=%llu", (unsigned long long)o->interval);
	a[n++] = sl_xasprintf("--sample-period=%llu", (unsigned long long)o->period);
	a[n++] = sl_xasprintf("--freq-mhz=%.0f", ghz * 1000.0);
	a[n++] = sl_xasprintf("--width=%.0f", m->width);
	a[n++] = sl_xasprintf("--rob=%.0f", m->rob);
	a[n++] = sl_xasprintf("--mshr=%.0f", m->mshr);
	a[n++] = sl_xasprintf("--misp-penalty=%.0f", m->mispredict_penalty);
	a[n++] = sl_xasprintf("--gshare-bits=%.0f", m->gshare_bits);
	a[n++] = sl_xasprintf("--l1=%.0f,%.0f,%.0f", m->l1_size, m->l1_assoc, m->l1_line);
	a[n++] = sl_xasprintf("--l2=%.0f,%.0f,%.0f", m->l2_size, m->l2_assoc, m->l2_line);
	a[n++] = sl_xasprintf("--llc=%.0f,%.0f,%.0f", m->llc_size, m->llc_assoc, m->llc_line);
	a[n++] = sl_xasprintf("--l2-cycles=%.0f", m->l2_cycles);
	a[n++] = sl_xasprintf("--llc-cycles=%.0f", m->llc_cycles);
	a[n++] = sl_xasprintf("--llc-uncore-ps=%.0f", m->llc_uncore_ns * 1000.0);
	a[n++] = sl_xasprintf("--dram-ps=%.0f", m->dram_ns * 1000.0);
	a[n++] = sl_xasprintf("--dram-mbps=%.0f", m->dram_mbps);
	a[n++] = sl_xasprintf("--prefetch-degree=%.0f", m->prefetch_degree);
	for (size_t i = 0; i < argc; i++)
		a[n++] = sl_xstrdup(o->argv[i]);
	return a;
}

static void free_argv(char **a)
{
	for (size_t i = 0; a && a[i]; i++)
		free(a[i]);
	free(a);
}

static int spawn(vpmu *v, const char *valgrind, const sl_vpmu_opts *o, double ghz)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		sl_error_set("cannot create a pipe for the vPMU: %s", strerror(errno));
		return -1;
	}
	char **a = tool_argv(valgrind, p[1], o, &v->m, ghz);
	/* the environment, with VALGRIND_LIB, built before fork */
	extern char **environ;
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = sl_xcalloc(n + 2, sizeof *env);
	char *lib = sl_xasprintf("VALGRIND_LIB=%s", v->libdir);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "VALGRIND_LIB=", 13))
			env[m++] = environ[i];
	env[m] = lib;
	pid_t pid = fork();
	if (pid == 0) {
		/* the write end survives exec; the read end does not */
		fcntl(p[1], F_SETFD, 0);
		/* interrupt() stops the run with SIGINT, even when sleuth was
		 * started with it ignored (a background job) */
		signal(SIGINT, SIG_DFL);
		execve(a[0], a, env);
		fprintf(stderr, "sleuth: cannot run %s: %s\n", a[0], strerror(errno));
		_exit(127);
	}
	int err = errno;
	free(env);
	free(lib);
	free_argv(a);
	if (pid < 0) {
		sl_error_set("cannot start valgrind: %s", strerror(err));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	close(p[1]);
	v->pid = pid;
	v->fd = p[0];
	return 0;
}

/* Read exactly n bytes: 1, 0 at a clean end of stream, -1 when the stream
 * ends inside a record. */
static int read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return got ? -1 : 0;
		got += (size_t)r;
	}
	return 1;
}

static void reap(vpmu *v)
{
	if (v->reaped || v->pid <= 0)
		return;
	while (waitpid(v->pid, &v->status, 0) < 0 && errno == EINTR)
		;
	v->reaped = 1;
}

/* The executable, file-backed mappings of the text of /proc/PID/maps. */
static void parse_maps(sl_backend *b, char *text)
{
	char *save;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long s, e, off;
		char perms[8];
		int pos = 0;
		if (sscanf(l, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4 ||
		    !pos || !strchr(perms, 'x') || l[pos] != '/')
			continue;
		const char *path = l + pos;
		/* the tool itself never runs client code */
		if (strstr(path, "/vpmu-" VPMU_PLATFORM))
			continue;
		b->maps = sl_xreallocarray(b->maps, b->n_maps + 1, sizeof *b->maps);
		b->maps[b->n_maps++] = (sl_mapping){s, e, off, sl_xstrdup(path)};
	}
}

/* ---- sl_backend ------------------------------------------------------------ */

static int vp_program(sl_backend *b, const size_t *ev, size_t n)
{
	vpmu *v = b->priv;
	if (sl_backend_check_program(b, ev, n) < 0)
		return -1;
	memset(v->on, 0, b->n_events ? b->n_events : 1);
	for (size_t i = 0; i < n; i++)
		v->on[ev[i]] = 1;
	return 0;
}

/* A stream that ended without the program's whole work: the program
 * exec'd another one (Valgrind does not follow it) or forked children
 * (their records are not sent).  The profile would be of a fraction of the
 * work, silently: refused, naming the fix. */
static int unfollowed(vpmu *v)
{
	if (v->exec_path) {
		char *path = which(v->prog);
		int script = path && starts_with_shebang(path);
		sl_error_set("%s exec'd '%s', which the virtual PMU does not follow (the profile "
			     "would miss its work); run the program that does the work itself "
			     "under 'sleuth run --backend vpmu --', not through %s%s", v->prog,
			     v->exec_path, script ? "the script " : "a shell or wrapper",
			     script ? path : "");
		free(path);
		return -1;
	}
	if (v->forks) {
		sl_error_set("%s forked %zu child process%s, which the virtual PMU does not "
			     "follow (the profile would miss %s work); run the program that "
			     "does the work itself under 'sleuth run --backend vpmu --' (a "
			     "pipeline: each command on its own)", v->prog, v->forks,
			     v->forks == 1 ? "" : "es", v->forks == 1 ? "its" : "their");
		return -1;
	}
	return 0;
}

static int stream_broken(vpmu *v, const char *what)
{
	reap(v);
	v->ended = 1;
	if (unfollowed(v) < 0)
		return -1;
	if (v->intervals)
		return 0; /* the program died mid-run: keep what ran */
	if (v->interrupted) {
		sl_error_set("interrupted before the first interval of %s ended; no "
			     "profile written", v->prog);
		return -1;
	}
	if (WIFEXITED(v->status) && WEXITSTATUS(v->status) == 127) {
		sl_error_set("valgrind could not start %s (see its message above)", v->prog);
		return -1;
	}
	sl_error_set("valgrind could not run %s under the vPMU (%s; exit status %d, see "
		     "its message above)", v->prog, what,
		     WIFEXITED(v->status) ? WEXITSTATUS(v->status)
					  : 128 + WTERMSIG(v->status));
	return -1;
}

static int vp_next(sl_backend *b, sl_obs *o)
{
	vpmu *v = b->priv;
	while (!v->ended) {
		struct vpmu_head h;
		int r = read_full(v->fd, &h, sizeof h);
		if (r == 0 && v->got_end) {
			reap(v);
			v->ended = 1;
			return unfollowed(v);
		}
		if (r <= 0)
			return stream_broken(v, r ? "a truncated record" : "no END record");
		if (h.magic != VPMU_MAGIC || h.len > (64u << 20)) {
			sl_error_set("the vPMU tool sent a malformed record (magic %#x); rebuild "
				     "sleuth so that tool and backend match", h.magic);
			return -1;
		}
		char *buf = sl_xmalloc(h.len + 1);
		if (h.len && read_full(v->fd, buf, h.len) != 1) {
			free(buf);
			return stream_broken(v, "a truncated record");
		}
		buf[h.len] = 0;
		if (h.type == VPMU_REC_MAPS) {
			parse_maps(b, buf);
			free(buf);
			continue;
		}
		if (h.type == VPMU_REC_END) {
			free(buf);
			v->got_end = 1;
			if (v->forks) { /* refused: do not wait for the children */
				reap(v);
				v->ended = 1;
				return unfollowed(v);
			}
			continue; /* read to EOF: the tool may still close late */
		}
		if (h.type == VPMU_REC_EXEC || h.type == VPMU_REC_EXEC_FAILED) {
			free(v->exec_path);
			v->exec_path = h.type == VPMU_REC_EXEC ? buf : NULL;
			if (!v->exec_path)
				free(buf);
			continue;
		}
		if (h.type == VPMU_REC_FORK) {
			free(buf);
			v->forks++;
			continue;
		}
		if (h.type != VPMU_REC_INTERVAL ||
		    h.len != sizeof(struct vpmu_interval) + h.n_samples * sizeof(uint64_t)) {
			free(buf);
			sl_error_set("the vPMU tool sent a record of type %u and %u bytes; "
				     "rebuild sleuth so that tool and backend match", h.type, h.len);
			return -1;
		}
		struct vpmu_interval iv;
		memcpy(&iv, buf, sizeof iv);
		if (h.n_samples > v->cap_samples) {
			v->cap_samples = h.n_samples;
			v->samples = sl_xreallocarray(v->samples, v->cap_samples, sizeof *v->samples);
		}
		memcpy(v->samples, buf + sizeof iv, h.n_samples * sizeof(uint64_t));
		free(buf);
		memset(o, 0, sizeof *o);
		double watts;
		o->start_s = v->clock_s;
		o->time_s = iv.time_ns * 1e-9;
		v->clock_s += o->time_s;
		o->cycles = iv.cycles;
		o->instructions = iv.instructions;
		o->samples = v->samples;
		o->n_samples = h.n_samples;
		o->lost = iv.lost;
		o->energy_j = sl_vpmu_meter_step(&v->meter, &iv, &watts);
		/* the die's sensor, read at the interval's end as the perf
		 * backend reads hwmon, in whole degrees as coretemp gives them */
		o->has_temp = 1;
		o->temp_c = round(v->meter.temp_c);
		for (size_t e = 0; e < b->n_events; e++)
			v->counts[e] = v->on[e] ? iv.ev[v->map[e]] : SL_MISSING;
		o->counts = v->counts;
		v->intervals++;
		return 1;
	}
	return 0;
}

static int vp_finish(sl_backend *b)
{
	vpmu *v = b->priv;
	/* the collector stopped before the stream's end (an error): the tool
	 * would block on the full pipe that nobody reads, and reap with it */
	if (!v->ended && v->pid > 0 && !v->reaped)
		kill(v->pid, SIGKILL);
	reap(v);
	if (WIFSIGNALED(v->status))
		return 128 + WTERMSIG(v->status);
	return WIFEXITED(v->status) ? WEXITSTATUS(v->status) : SL_EXIT_ERROR;
}

static void vp_interrupt(sl_backend *b)
{
	vpmu *v = b->priv;
	v->interrupted = 1;
	if (v->pid > 0 && !v->reaped)
		kill(v->pid, SIGINT);
}

static void vp_destroy(sl_backend *b)
{
	if (!b)
		return;
	vpmu *v = b->priv;
	if (v) {
		if (v->fd >= 0)
			close(v->fd);
		if (v->pid > 0 && !v->reaped) {
			kill(v->pid, SIGKILL);
			reap(v);
		}
		free(v->libdir);
		sl_vpmu_machine_free(&v->m);
		free(v->map);
		free(v->on);
		free(v->counts);
		free(v->samples);
		free(v->prog);
		free(v->exec_path);
		free(v);
	}
	for (size_t i = 0; i < b->n_maps; i++)
		free(b->maps[i].path);
	free(b->maps);
	for (size_t i = 0; i < b->n_events; i++)
		free((char *)b->events[i]);
	free(b->events);
	sl_backend_free(b);
}

/* The program and its arguments, space-separated, for the profile. */
static char *join_args(char *const *argv)
{
	char *s = sl_xstrdup(argv[0]);
	for (size_t i = 1; argv[i]; i++) {
		char *t = sl_xasprintf("%s %s", s, argv[i]);
		free(s);
		s = t;
	}
	return s;
}

sl_backend *sl_vpmu_backend_new(const sl_vpmu_opts *o)
{
	if (!o->argv || !o->argv[0]) {
		sl_error_set("no program to run");
		return NULL;
	}
	char *valgrind, *tool;
	if (check_tools(&valgrind, &tool) < 0) {
		free(valgrind);
		return NULL;
	}
	char *prog = which(o->argv[0]);
	if (!prog) {
		sl_error_set("cannot run %s: %s", o->argv[0],
			     strchr(o->argv[0], '/') ? strerror(errno) : "command not found in PATH");
		free(valgrind);
		free(tool);
		return NULL;
	}
	const char *why = not_runnable(prog);
	free(prog);
	if (why) {
		sl_error_set("cannot run %s under the vPMU: %s", o->argv[0], why);
		free(valgrind);
		free(tool);
		return NULL;
	}
	sl_backend *b = sl_xcalloc(1, sizeof *b);
	vpmu *v = sl_xcalloc(1, sizeof *v);
	b->priv = v;
	v->fd = -1;
	v->prog = sl_xstrdup(o->argv[0]);
	b->name = "vpmu";
	b->n_events = o->n_events;
	b->events = sl_xcalloc(o->n_events ? o->n_events : 1, sizeof *b->events);
	v->map = sl_xcalloc(o->n_events ? o->n_events : 1, sizeof *v->map);
	v->on = sl_xcalloc(o->n_events ? o->n_events : 1, 1);
	v->counts = sl_xcalloc(o->n_events ? o->n_events : 1, sizeof *v->counts);
	b->destroy = vp_destroy;
	for (size_t i = 0; i < o->n_events; i++) {
		b->events[i] = sl_xstrdup(o->events[i]);
		size_t e = 0;
		while (e < VPMU_N_EVENTS && strcmp(event_names[e], o->events[i]))
			e++;
		if (e == VPMU_N_EVENTS) {
			sl_error_set("event '%s' is not in the vPMU's table; give a vPMU machine "
				     "model (data/machines/vpmu-*.yaml; 'sleuth doctor' lists the "
				     "table)", o->events[i]);
			goto fail;
		}
		v->map[i] = e;
	}
	sl_backend_find_uncore(b);
	const char *mpath = o->machine;
	char *def = NULL;
	if (!mpath && !(mpath = def = sl_data_path(SL_VPMU_MACHINE))) {
		sl_error_set("cannot find the vPMU machine %s", SL_VPMU_MACHINE);
		goto fail;
	}
	int rc = sl_vpmu_machine_load(mpath, &v->m);
	free(def);
	if (rc < 0)
		goto fail;
	double ghz = o->freq_ghz > 0 ? o->freq_ghz : v->m.pstates[0].ghz, volts;
	if (sl_vpmu_volts(&v->m, ghz, &volts) < 0)
		goto fail;
	sl_vpmu_meter_init(&v->meter, &v->m, ghz, volts);
	b->k = o->k;
	b->has_counts = 1;
	b->freq_ghz = ghz;
	b->interval_instructions = o->interval ? o->interval : SL_DEFAULT_INTERVAL_INSTRUCTIONS;
	b->host_cpu = sl_xasprintf("vPMU %s (Valgrind) on %s", v->m.name, "this host");
	b->workload = join_args(o->argv);
	b->energy_source = sl_xstrdup("vpmu:meter");
	b->program = vp_program;
	b->next = vp_next;
	b->finish = vp_finish;
	b->interrupt = vp_interrupt;
	sl_vpmu_opts oo = *o;
	oo.interval = b->interval_instructions;
	oo.period = o->period ? o->period
			      : sl_sample_period_for(SL_DEFAULT_BRANCH_PERIOD,
						     b->interval_instructions);
	/* the tool samples every period-th retired conditional branch */
	b->sample_event = sl_xstrdup("BR_COND_RETIRED");
	b->sample_period = oo.period;
	if (!(v->libdir = make_libdir(tool)) || spawn(v, valgrind, &oo, ghz) < 0)
		goto fail;
	free(valgrind);
	free(tool);
	return b;
fail:
	free(valgrind);
	free(tool);
	vp_destroy(b);
	return NULL;
}

int sl_vpmu_probe(void)
{
	char *argv[] = {"true", NULL};
	sl_vpmu_opts o = {.argv = argv, .interval = 1000000};
	sl_backend *b = sl_vpmu_backend_new(&o);
	if (!b)
		return -1;
	sl_obs ob;
	int r;
	while ((r = b->next(b, &ob)) > 0)
		;
	vpmu *v = b->priv;
	int got_end = v->got_end, ok = r == 0 && got_end && v->intervals > 0;
	int status = b->finish(b);
	b->destroy(b);
	if (ok && !status)
		return 0;
	if (r == 0)
		sl_error_set("valgrind ran 'true' under the vPMU but %s (status %d)",
			     got_end ? "no interval came back" : "the tool ended early", status);
	return -1;
}
