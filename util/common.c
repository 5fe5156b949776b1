/*
 * Error reporting, allocation, number parsing and atomic output files: the
 * small things every module needs and none should write twice.
 */
#include "sleuth/common.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

static _Thread_local char err_buf[2048];
int sl_quiet;

void sl_error_set(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err_buf, sizeof err_buf, fmt, ap);
	va_end(ap);
}

void sl_error_prefix(const char *fmt, ...)
{
	char pre[1024], old[sizeof err_buf];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof pre, fmt, ap);
	va_end(ap);
	memcpy(old, err_buf, sizeof old);
	size_t n = strlen(pre);
	if (n >= sizeof err_buf)
		n = sizeof err_buf - 1;
	memcpy(err_buf, pre, n);
	size_t m = strnlen(old, sizeof old);
	if (m > sizeof err_buf - 1 - n)
		m = sizeof err_buf - 1 - n;
	memcpy(err_buf + n, old, m);
	err_buf[n + m] = 0;
}

const char *sl_error(void)
{
	return err_buf[0] ? err_buf : "unknown error";
}

void sl_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sleuth: warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void sl_info(const char *fmt, ...)
{
	va_list ap;
	if (sl_quiet)
		return;
	va_start(ap, fmt);
	fputs("sleuth: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void remove_tmps(void);

/* Out of memory is an error like any other for the user: one line, exit 1,
 * no temporary left behind.  _exit, not exit: another thread may be inside
 * stdio or malloc, and a half-written stdout must not be flushed. */
static void oom(void)
{
	static const char msg[] = "sleuth: out of memory; give sleuth more memory "
				  "(ulimit -v) or a smaller input\n";
	remove_tmps();
	if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
		/* nothing more can be said */
	}
	_exit(SL_EXIT_ERROR);
}

int sl_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	uint64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return -1;
	*out = r;
	return 0;
}

int sl_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	uint64_t r;
	if (__builtin_mul_overflow(a, b, &r))
		return -1;
	*out = r;
	return 0;
}

void *sl_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *sl_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *sl_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *sl_xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		oom();
	return sl_xrealloc(p, n * size);
}

char *sl_xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		oom();
	return d;
}

char *sl_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		oom();
	va_end(ap);
	return s;
}

int sl_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	int base = 10;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') {
		sl_error_set("'%s' is not a non-negative integer", s ? s : "");
		return -1;
	}
	const char *digits = s;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		digits += 2;
	}
	/* strtoull itself would take a sign or blanks after "0x" */
	if (!isxdigit((unsigned char)*digits)) {
		sl_error_set("'%s' is not a non-negative integer", s);
		return -1;
	}
	errno = 0;
	unsigned long long v = strtoull(digits, &end, base);
	if (errno || *end) {
		sl_error_set("'%s' is not a non-negative integer%s", s,
			     errno == ERANGE ? " (too large)" : "");
		return -1;
	}
	*out = v;
	return 0;
}

int sl_parse_double(const char *s, double *out)
{
	char *end;
	if (!s || !*s || *s == ' ') {
		sl_error_set("'%s' is not a number", s ? s : "");
		return -1;
	}
	/* strtod accepts "nan", "inf" and hex floats; the formats do not. */
	for (const char *c = s; *c; c++)
		if (!strchr("0123456789+-.eE", *c)) {
			sl_error_set("'%s' is not a finite number", s);
			return -1;
		}
	errno = 0;
	double v = strtod(s, &end);
	if (*end || end == s || !isfinite(v) || errno == ERANGE) {
		sl_error_set("'%s' is not a finite number", s);
		return -1;
	}
	*out = v;
	return 0;
}

int sl_parse_fraction(const char *s, double *out)
{
	size_t n = s ? strlen(s) : 0;
	if (n > 1 && s[n - 1] == '%') {
		char tmp[64];
		if (n >= sizeof tmp)
			goto bad;
		memcpy(tmp, s, n - 1);
		tmp[n - 1] = 0;
		if (sl_parse_double(tmp, out) < 0)
			goto bad;
		*out /= 100.0;
	} else if (sl_parse_double(s, out) < 0) {
		goto bad;
	} else if (*out > 1) {
		/* "--max-slowdown 10" means 10%, not 1000%: refuse the guess */
		sl_error_set("'%s' without %% would be %g%%; write %s%% (or %g)", s,
			     100 * *out, s, *out / 100);
		return -1;
	}
	if (*out < 0) {
		sl_error_set("'%s' is negative; give a fraction like 10%% or 0.1", s);
		return -1;
	}
	return 0;
bad:
	sl_error_set("'%s' is not a fraction; give e.g. 10%% or 0.1", s ? s : "");
	return -1;
}

int sl_parse_freq(const char *s, double *ghz)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"ghz", 1.0}, {"mhz", 1e-3}, {"khz", 1e-6}, {"hz", 1e-9}};
	char num[64];
	size_t n = s ? strlen(s) : 0;
	double scale = 1.0;
	if (!n || n >= sizeof num)
		goto bad;
	memcpy(num, s, n + 1);
	for (size_t i = 0; i < SL_ARRAY_LEN(units); i++) {
		size_t u = strlen(units[i].unit);
		if (n > u && !strcasecmp(num + n - u, units[i].unit)) {
			num[n - u] = 0;
			scale = units[i].scale;
			break;
		}
	}
	double v;
	if (sl_parse_double(num, &v) < 0 || v <= 0)
		goto bad;
	if (!strcmp(num, s) && v >= 100) {
		scale = 1e-3; /* a bare "1600" is MHz: no CPU runs at 1600 GHz */
	} else if (!strcmp(num, s) && v > 10) {
		sl_error_set("'%s' is neither GHz nor MHz; write %sMHz or %.2gGHz", s, s,
			     v / 1000);
		return -1;
	}
	*ghz = v * scale;
	return 0;
bad:
	sl_error_set("'%s' is not a frequency; write e.g. 2.66GHz, 2660MHz or 2.66",
		     s ? s : "");
	return -1;
}

int sl_parse_dither(const char *s, unsigned *n, double *ghz)
{
	const char *colon = s ? strchr(s, ':') : NULL;
	char num[32];
	uint64_t v;
	if (!colon || colon == s || (size_t)(colon - s) >= sizeof num) {
		sl_error_set("'%s' is not N:FREQ; write e.g. 16:1.60GHz (every 16th "
			     "interval at 1.60 GHz)", s ? s : "");
		return -1;
	}
	memcpy(num, s, (size_t)(colon - s));
	num[colon - s] = 0;
	if (sl_parse_u64(num, &v) < 0 || v < 2 || v > SL_DITHER_MAX_N) {
		sl_error_set("'%s': N must be a count from 2 to %u (every Nth interval "
			     "at FREQ); write e.g. 16:1.60GHz", s, SL_DITHER_MAX_N);
		return -1;
	}
	if (sl_parse_freq(colon + 1, ghz) < 0) {
		sl_error_prefix("'%s': ", s);
		return -1;
	}
	*n = (unsigned)v;
	return 0;
}

void sl_fmt_double(char *buf, size_t len, double v)
{
	for (int prec = 6; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/*
 * Temporaries being written, so that Ctrl-C (or SIGTERM, SIGHUP) in the
 * middle of a long write (a simulated trace can take minutes) does not
 * leave a half-written FILE.tmp.XXXXXX behind.  The handler only unlinks
 * and re-raises, both async-signal-safe; it is installed for signals whose
 * action is still the default (a command with its own SIGINT handler, like
 * run while its program runs, keeps it).  Signals reach only the main
 * thread (sl_squeue_spawn blocks them in the others), which also does all
 * the opening and committing.
 */
#define MAX_LIVE_TMPS 16
static char *volatile live_tmps[MAX_LIVE_TMPS];
static const int tmp_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void remove_tmps(void)
{
	for (size_t i = 0; i < MAX_LIVE_TMPS; i++) {
		char *t = live_tmps[i];
		if (t)
			unlink(t);
	}
}

static void remove_tmps_and_die(int sig)
{
	remove_tmps();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void track_tmp(char *tmp)
{
	static int installed;
	if (!installed) {
		installed = 1;
		for (size_t i = 0; i < SL_ARRAY_LEN(tmp_signals); i++) {
			struct sigaction old, sa = {.sa_handler = remove_tmps_and_die};
			sigemptyset(&sa.sa_mask);
			if (sigaction(tmp_signals[i], NULL, &old) == 0 &&
			    old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
				sigaction(tmp_signals[i], &sa, NULL);
		}
	}
	for (size_t i = 0; i < MAX_LIVE_TMPS; i++)
		if (!live_tmps[i]) {
			live_tmps[i] = tmp;
			return;
		}
	/* more at once than any command writes: that one is not tracked */
}

static void untrack_tmp(const char *tmp)
{
	for (size_t i = 0; tmp && i < MAX_LIVE_TMPS; i++)
		if (live_tmps[i] == tmp)
			live_tmps[i] = NULL;
}

/*
 * The files this process has read, so that an output naming one of them
 * (`predict P -o P`) is refused instead of replacing the input.  Readers
 * note their files when they open them, in the main thread; a fixed table
 * is plenty (a command reads a handful of files).
 */
#define MAX_INPUTS 64
static struct {
	dev_t dev;
	ino_t ino;
} inputs[MAX_INPUTS];
static size_t n_inputs;
static int guard_inputs;
/* a trace reader's thread may reopen its trace (formats/trace.c) */
static pthread_mutex_t inputs_mu = PTHREAD_MUTEX_INITIALIZER;

void sl_input_guard(void)
{
	guard_inputs = 1;
}

void sl_input_note(FILE *f)
{
	struct stat st;
	size_t i;
	if (!guard_inputs || !f || fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode))
		return;
	pthread_mutex_lock(&inputs_mu);
	for (i = 0; i < n_inputs; i++)
		if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
			break;
	if (i == n_inputs && n_inputs < MAX_INPUTS) {
		inputs[n_inputs].dev = st.st_dev;
		inputs[n_inputs].ino = st.st_ino;
		n_inputs++;
	}
	pthread_mutex_unlock(&inputs_mu);
}

/* -1 with sl_error() if path is a file this process read as an input. */
static int refuse_input(const char *path)
{
	struct stat st;
	int found = 0;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	pthread_mutex_lock(&inputs_mu);
	for (size_t i = 0; i < n_inputs && !found; i++)
		found = inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino;
	pthread_mutex_unlock(&inputs_mu);
	if (found) {
		sl_error_set("cannot write %s: it is also an input of this command; "
			     "give another output file", path);
		return -1;
	}
	return 0;
}

FILE *sl_afile_open(sl_afile *af, const char *path)
{
	memset(af, 0, sizeof *af);
	if (!strcmp(path, "-")) {
		af->f = stdout;
		return af->f;
	}
	if (refuse_input(path) < 0)
		return NULL;
	/* A device or FIFO (/dev/null, a pipe) is written in place: renaming a
	 * temporary over it would replace the device with a regular file. */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			sl_error_set("cannot write %s: it is a directory; give a file name",
				     path);
			return NULL;
		}
		af->f = fopen(path, "w");
		if (!af->f)
			sl_error_set("cannot open %s: %s", path, strerror(errno));
		af->path = af->f ? sl_xstrdup(path) : NULL;
		return af->f;
	}
	af->path = sl_xstrdup(path);
	af->tmp = sl_xasprintf("%s.tmp.XXXXXX", path);
	int fd = mkstemp(af->tmp);
	if (fd < 0) {
		sl_error_set("cannot create %s: %s", path, strerror(errno));
		goto fail;
	}
	/* mkstemp makes 0600; give the file the usual umask-derived mode. */
	mode_t um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um) < 0) {
		/* not fatal: the file is still ours and readable by us */
	}
	track_tmp(af->tmp);
	af->f = fdopen(fd, "w");
	if (!af->f) {
		untrack_tmp(af->tmp);
		sl_error_set("cannot open %s: %s", af->tmp, strerror(errno));
		close(fd);
		unlink(af->tmp);
		goto fail;
	}
	return af->f;
fail:
	free(af->path);
	free(af->tmp);
	memset(af, 0, sizeof *af);
	return NULL;
}

int sl_afile_commit(sl_afile *af)
{
	int rc = 0;
	if (!af->f)
		return -1;
	if (!af->tmp) { /* stdout, or a device written in place */
		if (fflush(af->f) != 0 || ferror(af->f)) {
			sl_error_set("cannot write to %s: %s",
				     af->path ? af->path : "standard output", strerror(errno));
			rc = -1;
		}
		if (af->f != stdout && fclose(af->f) != 0 && !rc) {
			sl_error_set("cannot write %s: %s", af->path, strerror(errno));
			rc = -1;
		}
		af->f = NULL;
		free(af->path);
		af->path = NULL;
		return rc;
	}
	if (fflush(af->f) != 0 || ferror(af->f)) {
		sl_error_set("cannot write %s: %s", af->path, strerror(errno));
		rc = -1;
	}
	if (fclose(af->f) != 0 && !rc) {
		sl_error_set("cannot write %s: %s", af->path, strerror(errno));
		rc = -1;
	}
	af->f = NULL;
	untrack_tmp(af->tmp); /* renamed or removed just below */
	/* an input read after the output was opened (run --replay T -o T) */
	if (!rc && refuse_input(af->path) < 0)
		rc = -1;
	if (!rc && rename(af->tmp, af->path) < 0) {
		sl_error_set("cannot rename %s to %s: %s", af->tmp, af->path,
			     strerror(errno));
		rc = -1;
	}
	if (rc)
		unlink(af->tmp);
	free(af->tmp);
	free(af->path);
	af->tmp = af->path = NULL;
	return rc;
}

void sl_afile_abort(sl_afile *af)
{
	untrack_tmp(af->tmp);
	if (af->f && af->tmp) {
		fclose(af->f);
		unlink(af->tmp);
	} else if (af->f && af->f != stdout) {
		fclose(af->f);
	}
	af->f = NULL;
	free(af->tmp);
	free(af->path);
	af->tmp = af->path = NULL;
}

/* The binary's own location decides where shipped data is: one inside the
 * build tree runs uninstalled and reads the source tree; any other (an
 * installed copy) reads only datadir, so an installed sleuth never depends on
 * a source tree that may have moved or been deleted since it was built. */
static int running_uninstalled(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return 0;
	exe[n] = 0;
	size_t b = strlen(SLEUTH_BUILDDIR);
	return !strncmp(exe, SLEUTH_BUILDDIR, b) && exe[b] == '/';
}

char *sl_data_path(const char *rel)
{
	const char *env = getenv("SLEUTH_DATADIR");
	const char *roots[] = {env, running_uninstalled() ? SLEUTH_SRCDIR : NULL,
			       SLEUTH_DATADIR};
	for (size_t i = 0; i < SL_ARRAY_LEN(roots); i++) {
		if (!roots[i] || !*roots[i])
			continue;
		char *p = sl_xasprintf("%s/%s", roots[i], rel);
		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

double sl_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}
